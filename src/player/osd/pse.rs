//! The photosensitivity view (`Alt+p`): the timeline's PSE row (each column's most flashes a
//! second as a bar coloured by its state, the failing stretches marked red along its top, the
//! position marked; hovering names the column, a click goes to it exactly), the lamp at its
//! start with the frame on screen's state, and over the picture the blocks that flashed more
//! than three times in the second before the frame shown (amber where they warn, red where
//! they fail).

use super::{OsdView, TEXT};
use crate::geometry::Rect as ClipRect;
use crate::player::commands::Command;
use crate::player::pse_fill::{FlashMap, FrameFinding, PseStrip};
use crate::pse::analysis::State;
use egui::{pos2, Color32, Rect, Sense, Stroke};

/// Height of the PSE row, in points.
pub(super) const PSE_HEIGHT: f32 = 26.0;
/// The row's scale: flashes a second at its top.
const MOST_FLASHES: f32 = 6.0;

pub const PASS: Color32 = Color32::from_rgb(80, 200, 120);
pub const WARN: Color32 = Color32::from_rgb(240, 170, 50);
pub const FAIL: Color32 = Color32::from_rgb(235, 60, 50);

/// What the photosensitivity view shows.
#[derive(Clone, Debug, PartialEq)]
pub struct PseView {
    pub strip: PseStrip,
    /// The frame on screen's findings, once analysed, and its flashing blocks.
    pub shown: Option<FrameFinding>,
    pub map: Option<FlashMap>,
    /// The picture's rectangle in clip space (None where it is turned or side by side: no
    /// overlay).
    pub picture: Option<ClipRect>,
}

fn colour(state: State) -> Color32 {
    match state {
        State::Pass => PASS,
        State::Warn => WARN,
        State::Fail => FAIL,
    }
}

/// The lamp's words for the frame shown.
pub fn lamp_text(pse: &PseView) -> String {
    let standard = pse.strip.standard.name().to_uppercase();
    match pse.shown {
        Some(FrameFinding {
            state: Some(state),
            flashes,
            pattern,
        }) => {
            let pattern = if pattern { " · pattern" } else { "" };
            format!("PSE {standard} {} · {flashes} flashes/s{pattern}", state.name())
        }
        _ => format!("PSE {standard} · analysing…"),
    }
}

pub(super) fn pse_strip(ui: &mut egui::Ui, pse: &PseView, view: &OsdView, commands: &mut Vec<Command>) -> Rect {
    let strip = &pse.strip;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(ui.available_width(), PSE_HEIGHT), Sense::click());
    let painter = ui.painter();
    painter.rect_filled(rect, 0.0, Color32::from_gray(28));
    let count = strip.columns.len().max(1);
    let width = rect.width() / count as f32;
    let y = |flashes: f32| rect.bottom() - rect.height() * (flashes / MOST_FLASHES).clamp(0.0, 1.0);
    for (i, cell) in strip.columns.iter().enumerate() {
        if let Some((state, flashes, _)) = cell {
            let left = rect.left() + i as f32 * width;
            let top = y(flashes.max(0.25));
            let bar = Rect::from_min_max(pos2(left, top), pos2(left + width.max(1.0), rect.bottom()));
            painter.rect_filled(bar, 0.0, colour(*state));
        }
    }
    // The limit: 3 flashes a second.
    painter.hline(rect.x_range(), y(3.0), Stroke::new(1.0, Color32::from_white_alpha(40)));
    let frames = strip.frame_count.max(1) as f32;
    let x_of = |frame: u64| rect.left() + rect.width() * (frame as f32 / frames).min(1.0);
    for failure in &strip.failures {
        let (a, b) = (x_of(failure.frames.0), x_of(failure.frames.1 + 1));
        let band = Rect::from_min_max(pos2(a, rect.top()), pos2(b.max(a + 2.0), rect.top() + 4.0));
        painter.rect_filled(band, 0.0, FAIL);
    }
    let played = (view.position / view.duration.max(1e-9)).clamp(0.0, 1.0) as f32;
    painter.vline(
        rect.left() + rect.width() * played,
        rect.y_range(),
        Stroke::new(1.5, Color32::from_rgb(90, 160, 255)),
    );
    // The lamp, then the words, on a dark ground of their own.
    let lamp = pse.shown.and_then(|f| f.state).map_or(Color32::from_gray(120), colour);
    let failures = match (strip.failures.len(), strip.done, &strip.failed) {
        (_, _, Some(why)) => format!(" · stopped: {why}"),
        (0, true, _) => " · the file passes".to_string(),
        (n, true, _) => format!(" · the file fails: {n} stretch{}", if n == 1 { "" } else { "es" }),
        (n, false, _) => format!(" · {n} failing so far, {} frames analysed", strip.analysed),
    };
    let galley = painter.layout_no_wrap(
        format!("{}{failures}", lamp_text(pse)),
        egui::FontId::proportional(11.0),
        TEXT,
    );
    let at = rect.left_top() + egui::vec2(18.0, 2.0);
    painter.rect_filled(
        Rect::from_min_size(at - egui::vec2(16.0, 0.0), galley.size() + egui::vec2(16.0, 0.0)).expand(2.0),
        2.0,
        Color32::from_black_alpha(190),
    );
    painter.circle_filled(at + egui::vec2(-8.0, galley.size().y / 2.0), 5.0, lamp);
    painter.galley(at, galley, TEXT);
    let column = |pos: egui::Pos2| {
        let fraction = ((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
        ((fraction * count as f32) as usize).min(count - 1)
    };
    if response.clicked() {
        if let Some(&(_, _, frame)) = response
            .interact_pointer_pos()
            .and_then(|pos| strip.columns[column(pos)].as_ref())
        {
            commands.push(Command::SeekFrame(frame));
        }
    }
    if let Some(pos) = response.hover_pos() {
        if let Some(&(state, flashes, frame)) = strip.columns.get(column(pos)).and_then(Option::as_ref) {
            response.on_hover_text_at_pointer(format!("frame {frame}: {} · {flashes} flashes/s", state.name()));
        }
    }
    rect
}

/// Over the picture: the blocks of the frame shown that flashed more than the warning's
/// transitions in the second before it.
pub(super) fn flashing_regions(ctx: &egui::Context, screen: Rect, pse: &PseView) {
    let (Some(map), Some(picture)) = (&pse.map, pse.picture) else {
        return;
    };
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::unique("pse regions"),
    ));
    // Clip space to the screen's points, y up to y down.
    let x = |clip: f32| screen.left() + (clip + 1.0) / 2.0 * screen.width();
    let y = |clip: f32| screen.top() + (1.0 - clip) / 2.0 * screen.height();
    let (w, h) = (picture.right - picture.left, picture.top - picture.bottom);
    let grid = map.blocks.grid;
    let (width, height) = (grid.width.max(1) as f32, grid.height.max(1) as f32);
    for (i, &level) in map.levels.iter().enumerate() {
        if level == 0 {
            continue;
        }
        let [x0, y0, x1, y1] = map.blocks.bounds(i).map(|v| v as f32);
        let block = Rect::from_min_max(
            pos2(x(picture.left + w * x0 / width), y(picture.top - h * y0 / height)),
            pos2(x(picture.left + w * x1 / width), y(picture.top - h * y1 / height)),
        )
        .intersect(screen);
        let tint = if level >= 2 { FAIL } else { WARN };
        painter.rect_filled(block, 0.0, tint.gamma_multiply(0.35));
        painter.rect_stroke(block, 0.0, Stroke::new(1.0, tint), egui::StrokeKind::Inside);
    }
}
