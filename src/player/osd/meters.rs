//! The audio meters at the window's right edge (Alt+m): a bar per channel named from its
//! layout (peak meter, RMS inside it, the 2 s peak hold as a line, a lamp that lights where the
//! sound clips) on a dBFS scale marked at the -18 and -20 dBFS references; momentary and
//! short-term loudness bars with the target line; and the loudness figures under them.

use super::{DIM, TEXT};
use crate::audio::metering::MeterState;
use crate::audio::meters::{Reading, FLOOR_DB};
use crate::player::meters::MetersView;
use egui::{pos2, vec2, Color32, FontId, Rect, Stroke};

/// Widths of a channel's column and of the scale, and the room for each line of text.
const COLUMN: f32 = 26.0;
const SCALE: f32 = 30.0;
const LINE: f32 = 13.0;
const PAD: f32 = 8.0;
/// The tallest the box grows, and the least height its bars are drawn in.
const MAX_HEIGHT: f32 = 360.0;
const MIN_BARS: f32 = 60.0;
/// The scale's marks, and the references marked across the bars.
const TICKS: [f64; 10] = [0.0, -3.0, -6.0, -9.0, -12.0, -18.0, -20.0, -30.0, -40.0, -60.0];
const REFERENCES: [f64; 2] = [-18.0, -20.0];

const GREEN: Color32 = Color32::from_rgb(70, 200, 90);
const YELLOW: Color32 = Color32::from_rgb(235, 205, 60);
const RED: Color32 = Color32::from_rgb(240, 70, 60);
const REFERENCE: Color32 = Color32::from_rgb(90, 200, 235);
const TARGET: Color32 = Color32::from_rgb(255, 170, 40);
const LOUDNESS: Color32 = Color32::from_rgb(120, 160, 255);

/// Rows of text under the bars: names, held peak, held true peak; and the loudness lines.
const ROWS: usize = 3;
const LOUDNESS_LINES: usize = 3;

/// The size the meters want for `view` (before being fitted to the room there is).
pub(super) fn wanted_size(view: &MetersView) -> egui::Vec2 {
    let channels = match &view.state {
        MeterState::Measuring { reading, .. } => reading.channels.len(),
        _ => 2,
    };
    let width = 2.0 * PAD + SCALE + (channels as f32 + 2.0) * COLUMN + PAD;
    vec2(width.max(190.0), MAX_HEIGHT)
}

/// Where `db` (dBFS or LUFS) sits in a bar from `bottom` to `top`: the top 20 dB take six
/// tenths of it, so the references stand apart.
fn level_y(db: f64, top: f32, bottom: f32) -> f32 {
    let db = db.clamp(FLOOR_DB, 0.0);
    let fraction = match db >= -20.0 {
        true => 0.4 + 0.6 * (db + 20.0) / 20.0,
        false => 0.4 * (db - FLOOR_DB) / (-20.0 - FLOOR_DB),
    };
    bottom - (bottom - top) * fraction as f32
}

fn figure(v: f64) -> String {
    match v.is_finite() {
        true => format!("{v:.1}"),
        false => "-inf".to_string(),
    }
}

/// Draws the meters in `at`; where they were drawn.
pub(super) fn show_meters(ctx: &egui::Context, view: &MetersView, at: Rect) -> Rect {
    // (Clipped to the box: many channels in a narrow window are cut at its edge.)
    let layer = egui::LayerId::new(egui::Order::Middle, egui::Id::unique("audio meters"));
    let painter = ctx.layer_painter(layer).with_clip_rect(at);
    painter.rect_filled(at, 6.0, Color32::from_black_alpha(190));
    let small = FontId::proportional(10.0);
    let inner = at.shrink(PAD);
    let reading = match &view.state {
        MeterState::Measuring { reading, sound_here } => {
            draw_reading(&painter, view, reading, *sound_here, inner);
            return at;
        }
        MeterState::Opening => "audio meters: opening the sound".to_string(),
        MeterState::NoSound(why) => format!("audio meters: {why}"),
    };
    let galley = painter.layout(reading, small, TEXT, inner.width());
    painter.galley(inner.min, galley, TEXT);
    at
}

fn draw_reading(painter: &egui::Painter, view: &MetersView, reading: &Reading, sound_here: bool, inner: Rect) {
    let small = FontId::proportional(10.0);
    let text_height = (ROWS + LOUDNESS_LINES) as f32 * LINE + 4.0;
    let lamps = inner.min.y;
    let top = lamps + 12.0;
    let bottom = (inner.max.y - text_height).max(top + MIN_BARS.min(inner.height()));
    // The scale, and the references across every bar.
    let bars_left = inner.min.x + SCALE;
    let bars_right = bars_left + (reading.channels.len() as f32 + 2.0) * COLUMN + 2.0;
    for db in TICKS {
        let y = level_y(db, top, bottom);
        let color = if REFERENCES.contains(&db) { REFERENCE } else { DIM };
        painter.text(
            pos2(bars_left - 4.0, y),
            egui::Align2::RIGHT_CENTER,
            format!("{db:.0}"),
            small.clone(),
            color,
        );
        painter.line_segment([pos2(bars_left - 2.0, y), pos2(bars_left, y)], Stroke::new(1.0, color));
    }
    let bar_width = COLUMN - 8.0;
    for (i, channel) in reading.channels.iter().enumerate() {
        let x = bars_left + 2.0 + i as f32 * COLUMN;
        let bar = Rect::from_min_max(pos2(x, top), pos2(x + bar_width, bottom));
        painter.rect_filled(bar, 0.0, Color32::from_gray(30));
        // The peak meter in its colours by level, RMS inside it.
        for (from, to, color) in [(FLOOR_DB, -18.0, GREEN), (-18.0, -6.0, YELLOW), (-6.0, 0.0, RED)] {
            if channel.peak > from {
                let upper = level_y(channel.peak.min(to), top, bottom);
                let lower = level_y(from, top, bottom);
                painter.rect_filled(
                    Rect::from_min_max(pos2(x, upper), pos2(x + bar_width, lower)),
                    0.0,
                    color,
                );
            }
        }
        if channel.rms.is_finite() && channel.rms > FLOOR_DB {
            let y = level_y(channel.rms, top, bottom);
            let inside = Rect::from_min_max(pos2(x + bar_width * 0.3, y), pos2(x + bar_width * 0.7, bottom));
            painter.rect_filled(inside, 0.0, Color32::from_white_alpha(150));
        }
        if channel.hold.is_finite() && channel.hold > FLOOR_DB {
            let y = level_y(channel.hold, top, bottom);
            painter.line_segment([pos2(x, y), pos2(x + bar_width, y)], Stroke::new(2.0, Color32::WHITE));
        }
        let lamp = Rect::from_min_max(pos2(x, lamps), pos2(x + bar_width, lamps + 8.0));
        let lamp_colour = if channel.clipped { RED } else { Color32::from_gray(45) };
        painter.rect_filled(lamp, 1.0, lamp_colour);
        let centre = x + bar_width / 2.0;
        let rows = [
            (channel.name.clone(), TEXT),
            (figure(channel.hold), DIM),
            (figure(channel.true_peak), DIM),
        ];
        for (row, (text, color)) in rows.into_iter().enumerate() {
            let y = bottom + 3.0 + row as f32 * LINE;
            painter.text(pos2(centre, y), egui::Align2::CENTER_TOP, text, small.clone(), color);
        }
    }
    for db in REFERENCES {
        let y = level_y(db, top, bottom);
        let right = bars_left + reading.channels.len() as f32 * COLUMN;
        painter.line_segment([pos2(bars_left, y), pos2(right, y)], Stroke::new(1.0, REFERENCE));
    }
    // The row labels at the scale's side.
    for (row, label) in ["", "pk", "tp"].into_iter().enumerate() {
        let y = bottom + 3.0 + row as f32 * LINE;
        painter.text(
            pos2(bars_left - 4.0, y),
            egui::Align2::RIGHT_TOP,
            label,
            small.clone(),
            DIM,
        );
    }
    // Momentary and short-term loudness, with the target across them.
    let loudness = &reading.loudness;
    let columns = [("M", loudness.momentary), ("S", loudness.short_term)];
    for (i, (name, value)) in columns.into_iter().enumerate() {
        let x = bars_left + 2.0 + (reading.channels.len() + i) as f32 * COLUMN + 4.0;
        let bar = Rect::from_min_max(pos2(x, top), pos2(x + bar_width, bottom));
        painter.rect_filled(bar, 0.0, Color32::from_gray(30));
        if let Some(lufs) = value.filter(|v| *v > FLOOR_DB) {
            let y = level_y(lufs, top, bottom);
            painter.rect_filled(
                Rect::from_min_max(pos2(x, y), pos2(x + bar_width, bottom)),
                0.0,
                LOUDNESS,
            );
        }
        let centre = x + bar_width / 2.0;
        painter.text(
            pos2(centre, bottom + 3.0),
            egui::Align2::CENTER_TOP,
            name,
            small.clone(),
            TEXT,
        );
        let text = value.map_or("-".to_string(), figure);
        painter.text(
            pos2(centre, bottom + 3.0 + LINE),
            egui::Align2::CENTER_TOP,
            text,
            small.clone(),
            DIM,
        );
    }
    let first_loudness = bars_left + reading.channels.len() as f32 * COLUMN + 4.0;
    let y = level_y(view.target, top, bottom);
    painter.line_segment(
        [pos2(first_loudness, y), pos2(bars_right + 4.0, y)],
        Stroke::new(2.0, TARGET),
    );
    // The figures.
    let integrated_label = if view.looped { "I (A-B)" } else { "I" };
    let lines = [
        format!(
            "{integrated_label} {} LUFS  LRA {} LU",
            loudness.integrated.map_or("-".to_string(), figure),
            loudness.range.map_or("-".to_string(), figure)
        ),
        format!("TP max {} dBTP", figure(loudness.max_true_peak)),
        match sound_here {
            true => format!("target {:.0} LUFS", view.target),
            false => "no sound here".to_string(),
        },
    ];
    for (i, line) in lines.into_iter().enumerate() {
        let y = bottom + 3.0 + (ROWS as f32 + i as f32) * LINE + 2.0;
        let color = if i == 2 && !sound_here { YELLOW } else { TEXT };
        painter.text(pos2(inner.min.x, y), egui::Align2::LEFT_TOP, line, small.clone(), color);
    }
}
