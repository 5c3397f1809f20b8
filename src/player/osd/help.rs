//! The help list drawn over the picture: the query, then the matching commands under their
//! groups' titles, each with its keys; the chosen row stands out, and a click runs a row.

use super::{DIM, TEXT};
use crate::player::help::HelpList;
use egui::{Align2, Color32, Id, Rect, RichText, Sense};

const WIDTH: f32 = 560.0;
const ROW: f32 = 18.0;
const HIGHLIGHT: Color32 = Color32::from_rgb(60, 90, 150);

/// Draws the open list in the middle of the screen; the row clicked, if one was, and where
/// the list was drawn.
pub fn show_help(ctx: &egui::Context, list: &HelpList) -> (Option<usize>, Rect) {
    let screen = ctx.content_rect();
    let matches = list.matches();
    // As many rows as fit, scrolled so the chosen one shows.
    let rows = (((screen.height() - 120.0) / ROW).floor() as usize).clamp(3, 40);
    let first = list.selected().saturating_sub(rows.saturating_sub(1));
    let mut clicked = None;
    let area = egui::Area::new(Id::unique("help"))
        .pivot(Align2::CENTER_TOP)
        .fixed_pos(egui::pos2(screen.center().x, screen.min.y + 24.0))
        .constrain(true)
        .fade_in(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(225))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::symmetric(12, 8))
                .show(ui, |ui| {
                    ui.set_width(WIDTH.min(screen.width() - 48.0).max(200.0));
                    ui.label(
                        RichText::new(format!("> {}_", list.query()))
                            .monospace()
                            .color(TEXT)
                            .strong(),
                    );
                    let tip = "type to search · Up/Down choose · Enter runs · Esc closes";
                    ui.label(RichText::new(tip).small().color(DIM));
                    ui.separator();
                    if matches.is_empty() {
                        ui.label(RichText::new("no command matches").color(DIM));
                    }
                    let mut group = None;
                    for (row, entry) in matches.iter().enumerate().skip(first).take(rows) {
                        if group != Some(entry.group) {
                            group = Some(entry.group);
                            ui.label(RichText::new(entry.group.title()).small().color(DIM));
                        }
                        let keys = entry.keys.join("  ");
                        let (rect, response) =
                            ui.allocate_exact_size(egui::vec2(ui.available_width(), ROW), Sense::click());
                        if row == list.selected() {
                            ui.painter().rect_filled(rect, 3.0, HIGHLIGHT);
                        }
                        let painter = ui.painter_at(rect);
                        let font = egui::FontId::proportional(14.0);
                        painter.text(
                            rect.left_center() + egui::vec2(6.0, 0.0),
                            Align2::LEFT_CENTER,
                            &entry.description,
                            font.clone(),
                            TEXT,
                        );
                        painter.text(
                            rect.right_center() - egui::vec2(6.0, 0.0),
                            Align2::RIGHT_CENTER,
                            keys,
                            egui::FontId::monospace(13.0),
                            Color32::from_rgb(250, 210, 110),
                        );
                        if response.clicked() {
                            clicked = Some(row);
                        }
                    }
                    if matches.len() > first + rows {
                        ui.label(RichText::new(format!("… {} more", matches.len() - first - rows)).color(DIM));
                    }
                });
        });
    (clicked, area.response.rect)
}
