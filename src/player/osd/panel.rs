//! The bottom panel: state, position and frame, the view's options, the histogram timeline,
//! and the clipping readout.

use super::{hdr_text, OsdView, CHANNELS, DIM, TEXT};
use crate::player::commands::Command;
use crate::player::pacing::format_time;
use crate::render::layout::Fit;
use crate::render::scene::Quads;
use crate::video::index::FrameNumber;
use egui::{Color32, RichText, Sense};

/// Height of the histogram timeline's histograms in the OSD, in points (its loudness rows, where
/// it has them, add as much more per row).
pub(super) const TIMELINE_HEIGHT: f32 = 48.0;

/// The histogram timeline above the seek bar: the whole file's luminance histograms (a live
/// input's: its timeshift window's, live at the right), the position marked; hovering shows
/// the time under the pointer (live: how far behind live), a click seeks there exactly.
pub(super) fn timeline_strip(
    ui: &mut egui::Ui,
    (texture, rows): (egui::TextureId, u32),
    view: &OsdView,
    commands: &mut Vec<Command>,
) -> egui::Rect {
    let height = TIMELINE_HEIGHT * rows as f32 / crate::timeline::PLAYER_ROWS as f32;
    let (rect, response) = ui.allocate_exact_size(egui::vec2(ui.available_width(), height), Sense::click());
    let painter = ui.painter();
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(texture, rect, uv, Color32::WHITE);
    let fraction = |pos: egui::Pos2| f64::from(((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0));
    if let Some(live) = &view.live {
        let window = live.window.unwrap_or(0.0).max(1e-9);
        let behind = live.behind.map_or(0.0, |(behind, _)| behind);
        let x = rect.left() + rect.width() * (1.0 - behind / window).clamp(0.0, 1.0) as f32;
        painter.vline(
            x,
            rect.y_range(),
            egui::Stroke::new(1.5, Color32::from_rgb(90, 160, 255)),
        );
        if response.clicked() {
            if let Some(pos) = response.interact_pointer_pos() {
                commands.push(Command::SeekPercent {
                    percent: fraction(pos) * 100.0,
                    exact: true,
                });
            }
        }
        if let Some(pos) = response.hover_pos() {
            response.on_hover_text_at_pointer(format!("-{:.1} s", (1.0 - fraction(pos)) * window));
        }
        return rect;
    }
    let duration = view.duration.max(1e-9);
    let played = (view.position / duration).clamp(0.0, 1.0) as f32;
    let x = rect.left() + rect.width() * played;
    painter.vline(
        x,
        rect.y_range(),
        egui::Stroke::new(1.5, Color32::from_rgb(90, 160, 255)),
    );
    let at = |pos: egui::Pos2| fraction(pos) * duration;
    if response.clicked() {
        if let Some(pos) = response.interact_pointer_pos() {
            commands.push(Command::SeekTo {
                seconds: at(pos),
                exact: true,
            });
        }
    }
    if let Some(pos) = response.hover_pos() {
        response.on_hover_text_at_pointer(format_time(at(pos)));
    }
    rect
}

/// Playing, paused or at the end, with a symbol egui's bundled fonts have: its text fonts lack
/// "‖", "⏸" and "▶"; the emoji fonts it falls back to (Cargo.toml enables them) have the last two.
pub(super) fn state_text(paused: bool, at_end: bool) -> &'static str {
    match (paused, at_end) {
        (true, true) => "⏸ end",
        (true, false) => "⏸ paused",
        (false, _) => "▶ playing",
    }
}

/// State, position, frame, speed and the view's options; wraps in narrow windows.
/// The status line, led by the menu button; true when the button was clicked.
pub(super) fn status_line(ui: &mut egui::Ui, view: &OsdView) -> bool {
    ui.horizontal_wrapped(|ui| {
        let menu = ui
            .add(egui::Button::new(RichText::new("☰").color(TEXT)).frame(false))
            .on_hover_text("Every command and its keys (F1)")
            .clicked();
        match &view.live {
            Some(live) => live_text(ui, live, view),
            None => {
                ui.label(RichText::new(state_text(view.paused, view.at_end)).color(TEXT).strong());
                let time = format!("{} / {}", format_time(view.position), format_time(view.duration));
                ui.label(RichText::new(time).monospace().color(TEXT));
            }
        }
        ui.label(RichText::new(frame_text(view)).monospace().color(TEXT));
        // (A live input's is in its own text.)
        if let (Some(tc), None) = (view.timecode, &view.live) {
            ui.label(RichText::new(timecode_text(tc)).monospace().color(TEXT));
        }
        if view.preview {
            ui.label(RichText::new("keyframe preview").color(DIM));
        }
        if let Some(hdr) = &view.hdr {
            ui.label(RichText::new(hdr_text(hdr)).color(DIM));
        }
        let speed_color = if (view.speed - 1.0).abs() < 1e-9 { DIM } else { TEXT };
        ui.label(
            RichText::new(format!("{:.2}×", view.speed))
                .monospace()
                .color(speed_color),
        );
        let fit = match view.view.fit {
            Fit::Cover => "cover",
            Fit::Contain => "contain",
        };
        let scale = if view.view.log_scale { "log" } else { "linear" };
        let quads = match view.view.quads {
            Quads::Both => "RGB+L",
            Quads::Rgb => "RGB",
            Quads::Luminance => "L",
            Quads::None => "no histograms",
        };
        let scope = view.view.scope.map_or(String::new(), |s| format!(" · {}", s.title()));
        ui.label(RichText::new(format!("{fit} · {scale} · {quads}{scope}")).color(DIM));
        if let Some(r) = view.region {
            let text = format!("region {},{} {}×{}", r.x, r.y, r.width, r.height);
            ui.label(RichText::new(text).color(Color32::from_rgb(255, 217, 51)));
        }
        if let Some(text) = loop_text(view.ab_loop, view.loop_file) {
            ui.label(RichText::new(text).color(TEXT));
        }
        menu
    })
    .inner
}

/// A live input's state, the wall-clock time, the stream's timecode and the latency, in place
/// of a file's position and length: `LIVE 14:03:27 TC 10:00:01:05 latency 38 ms (p95 52)`.
fn live_text(ui: &mut egui::Ui, live: &crate::player::live::LiveView, view: &OsdView) {
    let (state, color) = live_state_text(view.paused, view.at_end, live.no_signal, live.behind.is_some());
    ui.label(RichText::new(state).color(color).strong());
    if let Some((behind, window)) = live.behind {
        let text = format!("-{behind:.1} s of {window:.1} s");
        ui.label(RichText::new(text).monospace().color(TEXT));
    }
    ui.label(RichText::new(&live.wall_clock).monospace().color(TEXT));
    if let Some(tc) = live.timecode {
        ui.label(RichText::new(format!("TC {tc}")).monospace().color(TEXT));
    }
    if let Some((p50, p95)) = live.latency_ms {
        let text = format!("latency {p50:.0} ms (p95 {p95:.0})");
        ui.label(RichText::new(text).monospace().color(TEXT));
    }
}

/// A live input's state: LIVE (red), no signal, paused or playing its past (End goes back to
/// live), or ended.
pub(super) fn live_state_text(paused: bool, at_end: bool, no_signal: bool, behind: bool) -> (&'static str, Color32) {
    match (paused, at_end, no_signal, behind) {
        (_, true, _, _) => ("ended", TEXT),
        (true, false, _, _) => ("⏸ paused (End: live)", TEXT),
        (false, false, _, true) => ("▶ timeshift (End: live)", Color32::from_rgb(255, 170, 0)),
        (false, false, true, false) => ("no signal", Color32::from_rgb(255, 170, 0)),
        (false, false, false, false) => ("LIVE", Color32::from_rgb(255, 60, 60)),
    }
}

/// `loop A-B 00:01.000–00:03.500`, `loop A 00:01.000`, `loop file`: what loops.
pub(super) fn loop_text(ab: crate::player::playback::AbLoop, loop_file: bool) -> Option<String> {
    let mut parts = Vec::new();
    match (ab.a, ab.b) {
        (Some(a), Some(b)) => parts.push(format!("loop A-B {}-{}", format_time(a), format_time(b))),
        (Some(a), None) => parts.push(format!("loop A {}", format_time(a))),
        _ => {}
    }
    if loop_file {
        parts.push("loop file".to_string());
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// `TC 10:00:01:00`; `~` marks a timecode counted by a frame number the index hasn't confirmed
/// yet.
pub(super) fn timecode_text(tc: crate::video::timecode::Timecode) -> String {
    match tc.estimated {
        true => format!("TC ~{tc}"),
        false => format!("TC {tc}"),
    }
}

/// `frame 1234 / 5000`; `~` marks numbers the index hasn't confirmed yet.
pub(super) fn frame_text(view: &OsdView) -> String {
    let frame = match view.frame {
        Some(FrameNumber { n, exact: true }) => format!("frame {n}"),
        Some(FrameNumber { n, exact: false }) => format!("frame ~{n}"),
        None => "frame -".to_string(),
    };
    match (view.frame_count, view.estimated_count) {
        (Some(count), _) => format!("{frame} / {count}"),
        (None, Some(estimate)) => format!("{frame} / ~{estimate}"),
        (None, None) => frame,
    }
}

/// Percent of the frame's pixels in the lowest and the highest bin, per channel; the file.
pub(super) fn clipping_line(ui: &mut egui::Ui, view: &OsdView) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("clipped % low high").color(DIM));
        for (i, (name, color)) in CHANNELS.iter().enumerate() {
            // Fixed widths: the line must not rewrap as the values change, or the seek bar
            // above it would move under the pointer.
            let text = match view.clipping {
                Some(c) => format!("{name} {:>6.2} {:>6.2}", c.low[i] * 100.0, c.high[i] * 100.0),
                None => format!("{name} {:>6} {:>6}", "-", "-"),
            };
            ui.label(RichText::new(text).monospace().color(*color));
        }
        ui.label(RichText::new(view.title).color(DIM));
    });
}
