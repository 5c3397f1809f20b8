//! The on-screen display, drawn with egui over the picture: position, frame, speed and state,
//! a seek bar, the clipping readout, and messages (errors, saved screenshots). It sits just
//! above the histogram quads' band so it never hides them, and fades while playing untouched.

use super::clipping::Clipping;
use super::commands::Command;
use super::probe::Probe;
use crate::colour::Transfer;
use crate::render::layout::band_layout;
pub use crate::render::notes::MarksNote;
use crate::render::scene::{Quads, ViewOptions};
use crate::scope::{Region, ScopeKind};
use crate::video::index::FrameNumber;
use egui::{Align2, Color32, Id, Sense};
use std::time::{Duration, Instant};

mod boxes;
mod labels;
mod panel;
#[cfg(test)]
mod tests;

use boxes::{probe_label, show_adjustments, show_compare, show_messages, show_stats, top_right_corner, MARGIN};
use labels::{graticule_labels, nits_labels};
use panel::{clipping_line, status_line, timeline_strip};
#[cfg(test)]
use panel::{frame_text, state_text};

/// Idle time before the OSD fades while playing, and how long the fade takes.
pub const FADE_AFTER: Duration = Duration::from_secs(2);
pub const FADE_TIME: Duration = Duration::from_millis(300);

const TEXT: Color32 = Color32::from_rgb(235, 235, 235);
const DIM: Color32 = Color32::from_rgb(160, 160, 160);
const CHANNELS: [(&str, Color32); 4] = [
    ("R", Color32::from_rgb(255, 110, 110)),
    ("G", Color32::from_rgb(110, 235, 110)),
    ("B", Color32::from_rgb(120, 160, 255)),
    ("L", Color32::from_rgb(235, 235, 235)),
];

/// A line in the top-left corner until `until`.
#[derive(Clone, Debug)]
pub struct Message {
    pub text: String,
    pub error: bool,
    pub until: Instant,
}

/// What the OSD shows this frame.
pub struct OsdView<'a> {
    pub title: &'a str,
    /// Seconds from the start, and the file's length.
    pub position: f64,
    pub duration: f64,
    /// The frame shown, its number exact or (while the index hasn't read that far) estimated.
    pub frame: Option<FrameNumber>,
    /// Frames in the file once counted, else the container's estimate.
    pub frame_count: Option<u64>,
    pub estimated_count: Option<u64>,
    /// The frame is a seek's keyframe preview; the exact frame follows.
    pub preview: bool,
    pub paused: bool,
    pub at_end: bool,
    pub speed: f64,
    pub clipping: Option<Clipping>,
    /// How an HDR picture is shown.
    pub hdr: Option<HdrView>,
    pub view: ViewOptions,
    /// The region the histograms and scope count, if not the whole frame.
    pub region: Option<Region>,
    /// The pixel under the pointer, and the pointer in physical pixels.
    pub probe: Option<(Probe, (f64, f64))>,
    /// The histogram timeline's picture, when shown.
    pub timeline: Option<egui::TextureId>,
    /// 0 (hidden) to 1.
    pub opacity: f32,
    pub messages: &'a [Message],
    /// The stats overlay's lines, while it is up.
    pub stats: Option<Vec<(&'static str, String)>>,
    /// The picture adjustments in force, noted while any is.
    pub adjustments: Option<String>,
    /// Loops: the A-B points set, and whether the file loops.
    pub ab_loop: crate::player::playback::AbLoop,
    pub loop_file: bool,
    /// Comparing two files: both frames' numbers, the mode, the pair's PSNR and SSIM.
    pub compare: Option<String>,
    /// The marks on the picture, while any is.
    pub marks: Option<MarksNote>,
    /// The waveform's or parade's graticule, labelled while one is shown.
    pub graticule: &'a [crate::scope::graticule::Line],
}

/// An HDR stream's transfer and the peak its picture is tone-mapped from (once measured).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HdrView {
    pub transfer: Transfer,
    pub peak_nits: Option<f32>,
}

/// `HDR PQ, 1000 nits ➡ SDR`: what the picture shows (the OSD's fonts have no plain arrow).
pub fn hdr_text(hdr: &HdrView) -> String {
    let name = hdr.transfer.label();
    match hdr.peak_nits {
        Some(nits) => format!("{name}, {nits:.0} nits ➡ SDR"),
        None => format!("{name} ➡ SDR"),
    }
}

/// The seek bar's drag state between frames.
#[derive(Debug, Default)]
pub struct Osd {
    dragging: bool,
    last_target: Option<f64>,
}

/// How visible the OSD is `idle` after the last input; paused or dragging it stays.
pub fn opacity(idle: Duration, paused: bool, dragging: bool) -> f32 {
    if paused || dragging || idle <= FADE_AFTER {
        return 1.0;
    }
    let fading = (idle - FADE_AFTER).as_secs_f32() / FADE_TIME.as_secs_f32();
    (1.0 - fading).clamp(0.0, 1.0)
}

impl Osd {
    pub fn dragging(&self) -> bool {
        self.dragging
    }

    /// Lays the OSD out for one frame; returns what the seek bar asks for.
    pub fn show(&mut self, ctx: &egui::Context, view: &OsdView) -> Vec<Command> {
        let mut commands = Vec::new();
        let messages = show_messages(ctx, view.messages);
        let mut corner = top_right_corner(ctx.content_rect(), messages);
        // Down to the bottom panel where it shows (where it was last drawn), else the window's
        // edge.
        let bottom_panel = (view.opacity > 0.0)
            .then(|| ctx.memory(|m| m.area_rect(Id::unique("osd"))))
            .flatten();
        let floor = bottom_panel.map_or(ctx.content_rect().max.y, |r| r.min.y);
        corner.max_height = (floor - ctx.content_rect().min.y - corner.top - MARGIN).max(0.0);
        if let Some(lines) = &view.stats {
            show_stats(ctx, lines, corner);
        }
        // (The stats overlay has a line for each.)
        if view.stats.is_none() {
            let mut top = corner.top;
            if let Some(note) = &view.adjustments {
                show_adjustments(ctx, note, corner);
                if let Some(shown) = ctx.memory(|m| m.area_rect(Id::unique("adjustments"))) {
                    top = shown.max.y - ctx.content_rect().min.y + 4.0;
                }
            }
            if let Some(note) = &view.marks {
                crate::render::notes::show_marks(ctx, note, (MARGIN, top));
            }
        }
        if let Some(line) = &view.compare {
            show_compare(ctx, line);
        }
        if view.opacity <= 0.0 {
            self.dragging = false;
            return commands;
        }
        let screen = ctx.content_rect();
        if view.hdr.is_some_and(|h| h.transfer == Transfer::Pq)
            && matches!(view.view.quads, Quads::Both | Quads::Luminance)
        {
            nits_labels(ctx, screen, view.view.scope, view.opacity);
        }
        if matches!(view.view.scope, Some(ScopeKind::Waveform | ScopeKind::Parade)) {
            graticule_labels(ctx, screen, view.view.scope, view.graticule, view.opacity);
        }
        if let Some((probe, pointer)) = &view.probe {
            probe_label(ctx, screen, probe, *pointer, view.opacity);
        }
        // Always above the quads' band (and a vectorscope taller than it), even with the
        // histograms hidden, so it doesn't jump about.
        let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
        let bottom = screen.max.y - screen.height() * band_layout(view.view.scope, viewport).height() - 6.0;
        let width = (screen.width() - 16.0).max(100.0);
        egui::Area::new(Id::unique("osd"))
            .pivot(Align2::LEFT_BOTTOM)
            .fixed_pos(egui::pos2(screen.min.x + 8.0, bottom))
            .fade_in(false)
            .show(ctx, |ui| {
                ui.multiply_opacity(view.opacity);
                egui::Frame::new()
                    .fill(Color32::from_black_alpha(170))
                    .corner_radius(6.0)
                    .inner_margin(egui::Margin::symmetric(10, 6))
                    .show(ui, |ui| {
                        ui.set_width(width - 20.0);
                        status_line(ui, view);
                        if let Some(texture) = view.timeline {
                            timeline_strip(ui, texture, view, &mut commands);
                        }
                        self.seek_bar(ui, view, &mut commands);
                        clipping_line(ui, view);
                    });
            });
        commands
    }

    fn seek_bar(&mut self, ui: &mut egui::Ui, view: &OsdView, commands: &mut Vec<Command>) {
        let (rect, response) = ui.allocate_exact_size(egui::vec2(ui.available_width(), 16.0), Sense::click_and_drag());
        let duration = view.duration.max(1e-9);
        let target_at = |x: f32| f64::from(((x - rect.left()) / rect.width()).clamp(0.0, 1.0)) * duration;
        // While the button is down: fast (keyframe) seeks that follow the pointer; on release an
        // exact one, so the frame you let go on is the frame you get.
        if response.is_pointer_button_down_on() {
            if let Some(pointer) = response.interact_pointer_pos() {
                let target = target_at(pointer.x);
                if self.last_target.is_none_or(|t| (t - target).abs() > 1e-3) {
                    commands.push(Command::SeekTo {
                        seconds: target,
                        exact: false,
                    });
                    self.last_target = Some(target);
                }
                self.dragging = true;
            }
        }
        if response.drag_stopped() || response.clicked() {
            let target = response
                .interact_pointer_pos()
                .map(|p| target_at(p.x))
                .or(self.last_target);
            if let Some(seconds) = target {
                commands.push(Command::SeekTo { seconds, exact: true });
            }
            self.dragging = false;
            self.last_target = None;
        } else if !response.is_pointer_button_down_on() {
            self.dragging = false;
        }
        let played = (view.position / duration).clamp(0.0, 1.0) as f32;
        let painter = ui.painter();
        let track = rect.shrink2(egui::vec2(0.0, 5.0));
        painter.rect_filled(track, 3.0, Color32::from_white_alpha(50));
        let mut done = track;
        done.set_right(track.left() + track.width() * played);
        painter.rect_filled(done, 3.0, Color32::from_rgb(90, 160, 255));
        let knob = if response.hovered() || self.dragging { 7.0 } else { 5.0 };
        painter.circle_filled(egui::pos2(done.right(), track.center().y), knob, TEXT);
    }
}
