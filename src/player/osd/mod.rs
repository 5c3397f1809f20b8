//! The on-screen display, drawn with egui over the picture: position, frame, speed and state,
//! a seek bar, the clipping readout, and messages (errors, saved screenshots). It sits just
//! above the histogram quads' band so it never hides them, and fades while playing untouched.

use super::clipping::Clipping;
use super::commands::Command;
use super::probe::Probe;
use crate::colour::Transfer;
use crate::render::layout::band_layout;
use crate::render::notes;
pub use crate::render::notes::MarksNote;
use crate::render::scene::{Quads, ViewOptions};
use crate::scope::{Region, ScopeKind};
use crate::video::index::FrameNumber;
use egui::{Align2, Color32, Id, Rect, Sense, Vec2};
use std::time::{Duration, Instant};

mod boxes;
pub mod help;
mod labels;
mod layout;
mod meters;
mod panel;
pub mod pse;
#[cfg(test)]
mod tests;
mod toasts;
mod vmaf;

use boxes::{probe_label, show_adjustments, show_compare, show_messages, show_stats};
use labels::{graticule_labels, nits_labels};
pub use layout::BoxKind;
use layout::{place, Screen, Wanted, MARGIN};
use panel::{clipping_line, status_line, timeline_strip};
#[cfg(test)]
use panel::{frame_text, live_state_text, state_text};
pub use toasts::Toasts;

/// The widest the stats overlay grows.
const STATS_MAX_WIDTH: f32 = 720.0;

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
    /// The shown frame's SMPTE timecode, where the stream carries one (its own, its GOP's or
    /// the container's counted on).
    pub timecode: Option<crate::video::timecode::Timecode>,
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
    /// The histogram timeline's picture and its rows, when shown.
    pub timeline: Option<(egui::TextureId, u32)>,
    /// The timeline's VMAF row, comparing with the timeline shown.
    pub vmaf: Option<crate::player::vmaf_fill::VmafStrip>,
    /// The photosensitivity view, while it is on (`Alt+p`).
    pub pse: Option<pse::PseView>,
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
    /// A live input's state: LIVE, the wall clock, the latency, "no signal".
    pub live: Option<super::live::LiveView>,
    /// The audio meters, while shown.
    pub meters: Option<crate::player::meters::MetersView>,
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

/// The seek bar's drag state between frames, and the fade: when the viewer last did anything,
/// and how visible the OSD was last drawn.
#[derive(Debug, Default)]
pub struct Osd {
    dragging: bool,
    last_target: Option<f64>,
    last_input: Option<Instant>,
    drawn_opacity: Option<f32>,
    /// The columns the false-colour legend was last laid out in.
    legend_columns: usize,
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
    /// Any input at `now`: the OSD comes back.
    pub fn touched(&mut self, now: Instant) {
        self.last_input = Some(now);
    }

    /// How visible the OSD is at `now`.
    pub fn opacity(&self, now: Instant, paused: bool) -> f32 {
        let idle = now.saturating_duration_since(self.last_input.unwrap_or(now));
        opacity(idle, paused, self.dragging)
    }

    /// The OSD is drawn at `now`: how visible it is.
    pub fn drawn(&mut self, now: Instant, paused: bool) -> f32 {
        let opacity = self.opacity(now, paused);
        self.drawn_opacity = Some(opacity);
        opacity
    }

    /// Whether the fade changed what is drawn; while it may still change, when to look again is
    /// pushed on `wake`.
    pub fn wake(&self, now: Instant, paused: bool, wake: &mut Vec<Option<Instant>>) -> bool {
        let opacity = self.opacity(now, paused);
        if !paused && opacity > 0.0 {
            let last_input = self.last_input.unwrap_or(now);
            let idle = now.saturating_duration_since(last_input);
            wake.push(Some(if idle < FADE_AFTER {
                last_input + FADE_AFTER
            } else {
                now + Duration::from_millis(33)
            }));
        }
        Some(opacity) != self.drawn_opacity
    }

    /// Lays the OSD out for one frame; returns what the seek bar asks for, and where each box
    /// was drawn (in points).
    pub fn show(&mut self, ctx: &egui::Context, view: &OsdView) -> (Vec<Command>, Vec<(BoxKind, Rect)>) {
        let mut commands = Vec::new();
        let screen = ctx.content_rect();
        let shown = view.opacity > 0.0;
        // Boxes are placed by the sizes they were last drawn at (an area learns its size as it
        // is drawn); one whose size changed asks for another frame, placed by the new size.
        let last = |id: &str| {
            ctx.memory(|m| m.area_rect(Id::unique(id)))
                .map_or(Vec2::ZERO, |r| r.size())
        };
        let mut wanted = Vec::new();
        let mut want = |kind, size| wanted.push(Wanted { kind, size });
        if view.compare.is_some() {
            want(BoxKind::Compare, last("compare"));
        }
        if !view.messages.is_empty() {
            want(BoxKind::Toasts, last("osd messages"));
        }
        // (The stats overlay has a line for the adjustments; the marks keep their legend.)
        if view.adjustments.is_some() && view.stats.is_none() {
            want(BoxKind::Adjustments, last("adjustments"));
        }
        if view.marks.is_some() {
            want(BoxKind::Marks, last("marks"));
        }
        if view.stats.is_some() {
            // As wide and tall as there is room for, up to its widest.
            let width = (screen.width() - 2.0 * MARGIN).clamp(0.0, STATS_MAX_WIDTH);
            want(BoxKind::Stats, egui::vec2(width, screen.height()));
        }
        if view.probe.is_some() && shown {
            want(BoxKind::Probe, last("probe"));
        }
        if let Some(meters) = &view.meters {
            // Above the quads' band, as the panel is.
            let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
            let band = screen.height() * band_layout(view.view.scope, viewport).height();
            let size = meters::wanted_size(meters);
            let room = (screen.height() - band - 2.0 * MARGIN).max(0.0);
            want(BoxKind::Meters, egui::vec2(size.x, size.y.min(room)));
        }
        let scale = ctx.pixels_per_point();
        let layout = Screen {
            rect: screen,
            // Where the bottom panel was last drawn, while it shows.
            panel: shown.then(|| ctx.memory(|m| m.area_rect(Id::unique("osd")))).flatten(),
            pointer: view
                .probe
                .map(|(_, (x, y))| egui::pos2(x as f32 / scale, y as f32 / scale)),
        };
        let placed = place(&layout, &wanted);
        // The false-colour legend in as many columns as it takes to fit above the panel.
        let room = layout.panel.map_or(screen.max.y, |p| p.min.y) - screen.min.y - 2.0 * MARGIN;
        let mut drawn = Vec::new();
        for &(kind, at) in &placed {
            let rect = match kind {
                BoxKind::Compare => view.compare.as_ref().map(|line| show_compare(ctx, line, at)),
                BoxKind::Toasts => Some(show_messages(ctx, view.messages, at)),
                BoxKind::Adjustments => view.adjustments.as_ref().map(|note| show_adjustments(ctx, note, at)),
                BoxKind::Marks => view.marks.as_ref().and_then(|note| {
                    let header = notes::note_header(ctx);
                    let columns =
                        notes::legend_columns(note.legend.len(), self.legend_columns, at.height(), header, room);
                    self.legend_columns = columns;
                    notes::show_marks(ctx, note, (screen.max.x - at.max.x, at.min.y), columns);
                    ctx.memory(|m| m.area_rect(Id::unique("marks")))
                }),
                BoxKind::Stats => view
                    .stats
                    .as_ref()
                    .map(|lines| show_stats(ctx, lines, at, at.max.x >= screen.max.x - MARGIN)),
                BoxKind::Probe => view
                    .probe
                    .as_ref()
                    .map(|(probe, _)| probe_label(ctx, probe, at, view.opacity)),
                BoxKind::Meters => view.meters.as_ref().map(|m| meters::show_meters(ctx, m, at)),
                BoxKind::Panel
                | BoxKind::NoSignal
                | BoxKind::Timeline
                | BoxKind::Vmaf
                | BoxKind::Pse
                | BoxKind::Help => None,
            };
            let Some(rect) = rect else { continue };
            if kind != BoxKind::Stats && (rect.size() - at.size()).length() > 0.5 {
                ctx.request_repaint();
            }
            drawn.push((kind, rect));
        }
        // Shown whether or not the OSD is.
        if let Some(pse) = &view.pse {
            pse::flashing_regions(ctx, screen, pse);
        }
        if view.live.as_ref().is_some_and(|live| live.no_signal) {
            let text = egui::RichText::new("no signal")
                .size(28.0)
                .color(Color32::WHITE)
                .strong();
            let rect = boxes::show_note(ctx, "no signal", (Align2::CENTER_CENTER, screen.center()), text);
            drawn.push((BoxKind::NoSignal, rect));
        }
        if !shown {
            self.dragging = false;
            return (commands, drawn);
        }
        if view.hdr.is_some_and(|h| h.transfer == Transfer::Pq)
            && matches!(view.view.quads, Quads::Both | Quads::Luminance)
        {
            nits_labels(ctx, screen, view.view.scope, view.opacity);
        }
        if matches!(view.view.scope, Some(ScopeKind::Waveform | ScopeKind::Parade)) {
            graticule_labels(ctx, screen, view.view.scope, view.graticule, view.opacity);
        }
        // Always above the quads' band (and a vectorscope taller than it), even with the
        // histograms hidden, so it doesn't jump about.
        let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
        let bottom = screen.max.y - screen.height() * band_layout(view.view.scope, viewport).height() - 6.0;
        let width = (screen.width() - 16.0).max(100.0);
        let panel = egui::Area::new(Id::unique("osd"))
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
                        if status_line(ui, view) {
                            commands.push(Command::ToggleHelp);
                        }
                        if let Some((texture, rows)) = view.timeline {
                            let strip = timeline_strip(ui, (texture, rows), view, &mut commands);
                            drawn.push((BoxKind::Timeline, strip));
                            if let Some(vmaf) = &view.vmaf {
                                let row = vmaf::vmaf_strip(ui, vmaf, view, &mut commands);
                                drawn.push((BoxKind::Vmaf, row));
                            }
                        }
                        if let Some(pse) = &view.pse {
                            let row = pse::pse_strip(ui, pse, view, &mut commands);
                            drawn.push((BoxKind::Pse, row));
                        }
                        // A live input has no length to seek in.
                        if view.live.is_none() {
                            self.seek_bar(ui, view, &mut commands);
                        }
                        clipping_line(ui, view);
                    });
            });
        drawn.push((BoxKind::Panel, panel.response.rect));
        (commands, drawn)
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
