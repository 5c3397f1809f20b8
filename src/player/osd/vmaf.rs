//! The timeline's VMAF row, under the histograms while comparing: each column's worst frame as
//! a bar (0 to 100, coloured by the score's band), the run's worst frames marked in magenta, the
//! position marked; hovering names the column's worst frame, a click goes to it exactly.

use super::{OsdView, TEXT};
use crate::player::commands::Command;
use crate::player::vmaf_fill::VmafStrip;
use egui::{pos2, Color32, Rect, Sense, Stroke};

/// Height of the VMAF row, in points.
pub(super) const VMAF_HEIGHT: f32 = 26.0;

/// The worst frames' marks: apart from every band's colour.
const WORST: Color32 = Color32::from_rgb(255, 80, 255);

/// A score's colour: the bands encoding engineers read VMAF by.
fn band(score: f32) -> Color32 {
    match score {
        s if s >= 93.0 => Color32::from_rgb(80, 200, 120),
        s if s >= 80.0 => Color32::from_rgb(190, 210, 80),
        s if s >= 60.0 => Color32::from_rgb(240, 160, 60),
        _ => Color32::from_rgb(230, 80, 60),
    }
}

pub(super) fn vmaf_strip(ui: &mut egui::Ui, strip: &VmafStrip, view: &OsdView, commands: &mut Vec<Command>) -> Rect {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(ui.available_width(), VMAF_HEIGHT), Sense::click());
    let painter = ui.painter();
    painter.rect_filled(rect, 0.0, Color32::from_gray(28));
    let count = strip.columns.len().max(1);
    let width = rect.width() / count as f32;
    let y = |score: f32| rect.bottom() - rect.height() * score.clamp(0.0, 100.0) / 100.0;
    for (i, cell) in strip.columns.iter().enumerate() {
        if let Some((score, _)) = cell {
            let left = rect.left() + i as f32 * width;
            let bar = Rect::from_min_max(pos2(left, y(*score)), pos2(left + width.max(1.0), rect.bottom()));
            painter.rect_filled(bar, 0.0, band(*score));
        }
    }
    let frames = strip.frame_count.max(1) as f32;
    let x_of = |frame: u64| rect.left() + rect.width() * ((frame as f32 + 0.5) / frames).min(1.0);
    // Guides at the bands' edges.
    for score in [60.0, 80.0, 93.0] {
        painter.hline(
            rect.x_range(),
            y(score),
            Stroke::new(1.0, Color32::from_white_alpha(28)),
        );
    }
    // The worst frames: a line through the row and a mark above it.
    for &(frame, _) in &strip.worst {
        let x = x_of(frame);
        painter.vline(x, rect.y_range(), Stroke::new(1.0, WORST));
        let top = rect.top();
        painter.add(egui::Shape::convex_polygon(
            vec![pos2(x - 4.0, top), pos2(x + 4.0, top), pos2(x, top + 6.0)],
            WORST,
            Stroke::NONE,
        ));
    }
    let played = (view.position / view.duration.max(1e-9)).clamp(0.0, 1.0) as f32;
    painter.vline(
        rect.left() + rect.width() * played,
        rect.y_range(),
        Stroke::new(1.5, Color32::from_rgb(90, 160, 255)),
    );
    let label = match strip.worst.first() {
        Some(&(frame, score)) if strip.done => format!("VMAF · worst {score:.2} (frame {frame})"),
        Some(&(frame, score)) => format!(
            "VMAF · {} frames so far · worst {score:.2} (frame {frame})",
            strip.measured
        ),
        None => "VMAF · measuring…".to_string(),
    };
    // On a dark ground of its own, legible over the bars.
    let galley = painter.layout_no_wrap(label, egui::FontId::proportional(11.0), TEXT);
    let at = rect.left_top() + egui::vec2(4.0, 2.0);
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(2.0),
        2.0,
        Color32::from_black_alpha(190),
    );
    painter.galley(at, galley, TEXT);
    let column = |pos: egui::Pos2| {
        let fraction = ((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
        ((fraction * count as f32) as usize).min(count - 1)
    };
    if response.clicked() {
        if let Some(&(_, frame)) = response
            .interact_pointer_pos()
            .and_then(|pos| strip.columns[column(pos)].as_ref())
        {
            commands.push(Command::SeekFrame(frame));
        }
    }
    if let Some(pos) = response.hover_pos() {
        if let Some(&(score, frame)) = strip.columns.get(column(pos)).and_then(Option::as_ref) {
            response.on_hover_text_at_pointer(format!("frame {frame}: VMAF {score:.2}"));
        }
    }
    rect
}
