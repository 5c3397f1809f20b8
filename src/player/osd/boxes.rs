//! The OSD's boxes over the picture: messages, the stats overlay, the adjustments and
//! comparison notes, and the pixel readout beside the pointer.

use super::{Message, DIM, TEXT};
use crate::player::probe::Probe;
use egui::{Align2, Color32, Id, RichText};

/// Room for a box in the top-right corner, which the messages in the top-left one must not
/// share: its top (below the window's edge) and its widest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Corner {
    pub top: f32,
    pub max_width: f32,
    /// How tall it may be (set by the caller: down to what is drawn below it).
    pub max_height: f32,
}

/// The narrowest a top-right box is laid out beside the messages; narrower, it goes below them.
pub(super) const CORNER_MIN_WIDTH: f32 = 320.0;
/// The widest a top-right box grows.
pub(super) const CORNER_MAX_WIDTH: f32 = 720.0;
pub(super) const MARGIN: f32 = 8.0;

/// Beside the messages (`messages`: where they were drawn) when the window leaves a box room
/// enough to their right, else below them; the whole width of the window less margins when
/// there are none.
pub(super) fn top_right_corner(screen: egui::Rect, messages: Option<egui::Rect>) -> Corner {
    let whole = (screen.width() - 2.0 * MARGIN).max(0.0);
    let Some(messages) = messages else {
        return Corner {
            top: MARGIN,
            max_width: whole.min(CORNER_MAX_WIDTH),
            max_height: f32::INFINITY,
        };
    };
    let beside = screen.max.x - MARGIN - (messages.max.x + MARGIN);
    if beside >= CORNER_MIN_WIDTH {
        Corner {
            top: MARGIN,
            max_width: beside.min(CORNER_MAX_WIDTH),
            max_height: f32::INFINITY,
        }
    } else {
        Corner {
            top: messages.max.y - screen.min.y + MARGIN,
            max_width: whole.min(CORNER_MAX_WIDTH),
            max_height: f32::INFINITY,
        }
    }
}

/// The stats overlay, in the top-right corner.
pub(super) fn show_stats(ctx: &egui::Context, lines: &[(&'static str, String)], corner: Corner) {
    egui::Area::new(Id::unique("stats"))
        .anchor(Align2::RIGHT_TOP, egui::vec2(-MARGIN, corner.top))
        .constrain(false)
        .fade_in(false)
        .interactable(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(190))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::symmetric(10, 6))
                .show(ui, |ui| {
                    // Long lines wrap (the frame's margins are outside this width); lines that
                    // don't fit above the bottom panel are cut off, not drawn over it.
                    ui.set_max_width((corner.max_width - 20.0).max(100.0));
                    egui::ScrollArea::vertical()
                        .max_height((corner.max_height - 12.0).max(0.0))
                        .min_scrolled_height(0.0)
                        .show(ui, |ui| {
                            egui::Grid::new("stats grid")
                                .num_columns(2)
                                .spacing([12.0, 2.0])
                                .show(ui, |ui| {
                                    for (label, text) in lines {
                                        ui.label(RichText::new(*label).color(DIM));
                                        ui.add(
                                            egui::Label::new(RichText::new(text).monospace().color(TEXT))
                                                .wrap_mode(egui::TextWrapMode::Wrap),
                                        );
                                        ui.end_row();
                                    }
                                });
                        });
                });
        });
}

/// The picture adjustments in force, noted in the top-right corner for as long as they are: a
/// picture that is not the file's must never pass for it.
pub(super) fn show_adjustments(ctx: &egui::Context, note: &str, corner: Corner) {
    let text = RichText::new(format!("adjusted: {note}")).color(Color32::from_rgb(255, 217, 51));
    show_note(
        ctx,
        "adjustments",
        (Align2::RIGHT_TOP, egui::vec2(-MARGIN, corner.top)),
        text,
    );
}

/// A comparison's line, at the top in the middle for as long as two files are compared (it
/// doesn't fade: the numbers are what is being watched).
pub(super) fn show_compare(ctx: &egui::Context, line: &str) {
    show_note(
        ctx,
        "compare",
        (Align2::CENTER_TOP, egui::vec2(0.0, MARGIN)),
        RichText::new(line).color(TEXT),
    );
}

/// A note that stays on screen (not fading with the OSD), on a dark backing, at `anchor`.
pub(super) fn show_note(ctx: &egui::Context, id: &str, anchor: (Align2, egui::Vec2), text: RichText) {
    egui::Area::new(Id::unique(id))
        .anchor(anchor.0, anchor.1)
        .fade_in(false)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(150))
                .corner_radius(4.0)
                .inner_margin(egui::Margin::symmetric(8, 3))
                .show(ui, |ui| {
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                });
        });
}

/// The probed pixel's position and values beside the pointer, kept on screen.
pub(super) fn probe_label(ctx: &egui::Context, screen: egui::Rect, probe: &Probe, pointer: (f64, f64), opacity: f32) {
    let scale = ctx.pixels_per_point();
    let at = egui::pos2(pointer.0 as f32 / scale + 16.0, pointer.1 as f32 / scale + 16.0);
    let at = egui::pos2(
        at.x.min(screen.max.x - 300.0).max(screen.min.x),
        at.y.min(screen.max.y - 30.0),
    );
    egui::Area::new(Id::unique("probe"))
        .fixed_pos(at)
        .fade_in(false)
        .interactable(false)
        .order(egui::Order::Tooltip)
        .show(ctx, |ui| {
            ui.multiply_opacity(opacity);
            egui::Frame::new()
                .fill(Color32::from_black_alpha(190))
                .corner_radius(4.0)
                .inner_margin(egui::Margin::symmetric(6, 3))
                .show(ui, |ui| {
                    let text = RichText::new(probe.text()).monospace().color(TEXT);
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                });
        });
}

/// The messages in the top-left corner; where they were drawn.
pub(super) fn show_messages(ctx: &egui::Context, messages: &[Message]) -> Option<egui::Rect> {
    if messages.is_empty() {
        return None;
    }
    let response = egui::Area::new(Id::unique("osd messages"))
        .fixed_pos(ctx.content_rect().min + egui::vec2(MARGIN, MARGIN))
        .fade_in(false)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(170))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::symmetric(10, 6))
                .show(ui, |ui| {
                    // Long messages wrap at the window's edge.
                    ui.set_max_width((ctx.content_rect().width() - 2.0 * MARGIN - 20.0).max(100.0));
                    for message in messages {
                        let color = if message.error {
                            Color32::from_rgb(255, 120, 100)
                        } else {
                            TEXT
                        };
                        let text = RichText::new(&message.text).color(color);
                        ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Wrap));
                    }
                });
        });
    Some(response.response.rect)
}
