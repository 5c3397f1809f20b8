//! The on-screen display, drawn with egui over the picture: position, frame, speed and state,
//! a seek bar, the clipping readout, and messages (errors, saved screenshots). It sits just
//! above the histogram quads' band so it never hides them, and fades while playing untouched.

use super::clipping::Clipping;
use super::commands::Command;
use super::pacing::format_time;
use super::probe::Probe;
use crate::colour::transfer::pq_inverse_eotf;
use crate::colour::Transfer;
use crate::render::layout::{band_layout, Fit};
pub use crate::render::notes::MarksNote;
use crate::render::scene::PQ_GRIDLINE_NITS;
use crate::render::scene::{Quads, ViewOptions};
use crate::scope::{Region, ScopeKind};
use crate::video::index::FrameNumber;
use egui::{Align2, Color32, Id, RichText, Sense};
use std::time::{Duration, Instant};

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

/// Height of the histogram timeline in the OSD, in points.
const TIMELINE_HEIGHT: f32 = 48.0;

/// The histogram timeline above the seek bar: the whole file's luminance histograms, the
/// position marked; hovering shows the time under the pointer, a click seeks there exactly.
fn timeline_strip(ui: &mut egui::Ui, texture: egui::TextureId, view: &OsdView, commands: &mut Vec<Command>) {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(ui.available_width(), TIMELINE_HEIGHT), Sense::click());
    let painter = ui.painter();
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(texture, rect, uv, Color32::WHITE);
    let duration = view.duration.max(1e-9);
    let played = (view.position / duration).clamp(0.0, 1.0) as f32;
    let x = rect.left() + rect.width() * played;
    painter.vline(
        x,
        rect.y_range(),
        egui::Stroke::new(1.5, Color32::from_rgb(90, 160, 255)),
    );
    let at = |pos: egui::Pos2| f64::from(((pos.x - rect.left()) / rect.width()).clamp(0.0, 1.0)) * duration;
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
}

/// Playing, paused or at the end, with a symbol egui's bundled fonts have: its text fonts lack
/// "‖", "⏸" and "▶"; the emoji fonts it falls back to (Cargo.toml enables them) have the last two.
fn state_text(paused: bool, at_end: bool) -> &'static str {
    match (paused, at_end) {
        (true, true) => "⏸ end",
        (true, false) => "⏸ paused",
        (false, _) => "▶ playing",
    }
}

/// State, position, frame, speed and the view's options; wraps in narrow windows.
fn status_line(ui: &mut egui::Ui, view: &OsdView) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(state_text(view.paused, view.at_end)).color(TEXT).strong());
        let time = format!("{} / {}", format_time(view.position), format_time(view.duration));
        ui.label(RichText::new(time).monospace().color(TEXT));
        ui.label(RichText::new(frame_text(view)).monospace().color(TEXT));
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
    });
}

/// `loop A-B 00:01.000–00:03.500`, `loop A 00:01.000`, `loop file`: what loops.
fn loop_text(ab: crate::player::playback::AbLoop, loop_file: bool) -> Option<String> {
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

/// Room for a box in the top-right corner, which the messages in the top-left one must not
/// share: its top (below the window's edge) and its widest.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Corner {
    top: f32,
    max_width: f32,
    /// How tall it may be (set by the caller: down to what is drawn below it).
    max_height: f32,
}

/// The narrowest a top-right box is laid out beside the messages; narrower, it goes below them.
const CORNER_MIN_WIDTH: f32 = 320.0;
/// The widest a top-right box grows.
const CORNER_MAX_WIDTH: f32 = 720.0;
const MARGIN: f32 = 8.0;

/// Beside the messages (`messages`: where they were drawn) when the window leaves a box room
/// enough to their right, else below them; the whole width of the window less margins when
/// there are none.
fn top_right_corner(screen: egui::Rect, messages: Option<egui::Rect>) -> Corner {
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
fn show_stats(ctx: &egui::Context, lines: &[(&'static str, String)], corner: Corner) {
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
fn show_adjustments(ctx: &egui::Context, note: &str, corner: Corner) {
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
fn show_compare(ctx: &egui::Context, line: &str) {
    show_note(
        ctx,
        "compare",
        (Align2::CENTER_TOP, egui::vec2(0.0, MARGIN)),
        RichText::new(line).color(TEXT),
    );
}

/// A note that stays on screen (not fading with the OSD), on a dark backing, at `anchor`.
fn show_note(ctx: &egui::Context, id: &str, anchor: (Align2, egui::Vec2), text: RichText) {
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
fn probe_label(ctx: &egui::Context, screen: egui::Rect, probe: &Probe, pointer: (f64, f64), opacity: f32) {
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

/// `frame 1234 / 5000`; `~` marks numbers the index hasn't confirmed yet.
fn frame_text(view: &OsdView) -> String {
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
fn clipping_line(ui: &mut egui::Ui, view: &OsdView) {
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

/// The nits of the luminance quad's gridlines (a PQ source's), beside each line's top (above
/// the quad the OSD's panel would cover them).
fn nits_labels(ctx: &egui::Context, screen: egui::Rect, scope: Option<ScopeKind>, opacity: f32) {
    let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
    let quad = band_layout(scope, viewport).histograms[1];
    let to_screen = |x: f32, y: f32| {
        egui::pos2(
            screen.min.x + (x + 1.0) / 2.0 * screen.width(),
            screen.min.y + (1.0 - y) / 2.0 * screen.height(),
        )
    };
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, Id::unique("nits scale")));
    let color = Color32::from_rgb(255, 191, 51).gamma_multiply(opacity);
    for nits in PQ_GRIDLINE_NITS {
        let x = quad.left + pq_inverse_eotf(nits) * (quad.right - quad.left);
        painter.text(
            to_screen(x, quad.top) + egui::vec2(3.0, 2.0),
            Align2::LEFT_TOP,
            format!("{nits:.0}"),
            egui::FontId::proportional(11.0),
            color,
        );
    }
}

/// The graticule's levels, labelled at the left edge of the waveform or parade.
fn graticule_labels(
    ctx: &egui::Context,
    screen: egui::Rect,
    scope: Option<ScopeKind>,
    lines: &[crate::scope::graticule::Line],
    opacity: f32,
) {
    let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
    let Some(rect) = band_layout(scope, viewport).scope else {
        return;
    };
    let to_screen = |x: f32, y: f32| {
        egui::pos2(
            screen.min.x + (x + 1.0) / 2.0 * screen.width(),
            screen.min.y + (1.0 - y) / 2.0 * screen.height(),
        )
    };
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, Id::unique("graticule")));
    for line in lines {
        let y = rect.bottom + line.at * (rect.top - rect.bottom);
        let color = if line.chosen {
            Color32::from_rgb(255, 217, 77)
        } else {
            Color32::from_gray(200)
        };
        painter.text(
            to_screen(rect.left, y) + egui::vec2(3.0, -1.0),
            Align2::LEFT_BOTTOM,
            &line.label,
            egui::FontId::proportional(10.0),
            color.gamma_multiply(opacity),
        );
    }
}

/// The messages in the top-left corner; where they were drawn.
fn show_messages(ctx: &egui::Context, messages: &[Message]) -> Option<egui::Rect> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A paused OSD at full opacity with `messages`, nothing else shown.
    fn paused_view(messages: &[Message]) -> OsdView<'_> {
        OsdView {
            title: "",
            position: 0.0,
            duration: 10.0,
            frame: None,
            frame_count: None,
            estimated_count: None,
            preview: false,
            paused: true,
            at_end: false,
            speed: 1.0,
            clipping: None,
            hdr: None,
            view: ViewOptions::default(),
            region: None,
            probe: None,
            timeline: None,
            opacity: 1.0,
            messages,
            stats: None,
            adjustments: None,
            compare: None,
            marks: None,
            graticule: &[],
            ab_loop: Default::default(),
            loop_file: false,
        }
    }

    #[test]
    fn the_osd_draws_only_glyphs_its_fonts_have() {
        let ctx = egui::Context::default();
        // The fonts load on the first pass; its texture update is not needed here.
        ctx.run_pass(egui::RawInput::default(), |_| {}).textures_delta.clear();
        let font = egui::FontId::proportional(14.0);
        for (paused, at_end) in [(true, true), (true, false), (false, false)] {
            let text = state_text(paused, at_end);
            assert!(ctx.fonts_mut(|f| f.has_glyphs(&font, text)), "{text}");
        }
        let hdr = HdrView {
            transfer: Transfer::Pq,
            peak_nits: Some(1000.0),
        };
        let text = hdr_text(&hdr);
        assert_eq!(text, "HDR PQ, 1000 nits ➡ SDR");
        assert!(ctx.fonts_mut(|f| f.has_glyphs(&font, &text)), "{text}");
        assert!(
            !ctx.fonts_mut(|f| f.has_glyph(&font, '‖')),
            "the glyph that rendered as a box"
        );
    }

    #[test]
    fn estimated_frame_numbers_are_marked() {
        let messages = [];
        let view = |frame, frame_count, estimated_count| OsdView {
            frame,
            frame_count,
            estimated_count,
            ..paused_view(&messages)
        };
        let exact = Some(FrameNumber { n: 12, exact: true });
        let estimate = Some(FrameNumber { n: 12345, exact: false });
        assert_eq!(frame_text(&view(exact, Some(300), Some(299))), "frame 12 / 300");
        assert_eq!(
            frame_text(&view(estimate, None, Some(216000))),
            "frame ~12345 / ~216000"
        );
        assert_eq!(frame_text(&view(exact, None, None)), "frame 12");
        assert_eq!(frame_text(&view(None, None, None)), "frame -");
    }

    #[test]
    fn the_stats_never_cover_the_messages_or_the_bottom_panel() {
        let ctx = egui::Context::default();
        let messages = [Message {
            text: "an-evening-on-the-river-recorded-on-a-phone.mp4: playing from frame 1234".into(),
            error: false,
            until: Instant::now() + Duration::from_secs(60),
        }];
        let stats: Vec<(&'static str, String)> = (0..14)
            .map(|_| {
                (
                    "decoder",
                    "software, 1920x1080 yuv420p BT.709 limited, h264 at 59.94 fps".to_string(),
                )
            })
            .collect();
        let mut osd = Osd::default();
        let area = |name: &str| ctx.memory(|m| m.area_rect(Id::unique(name)));
        for (width, height) in [
            (1920.0, 1080.0),
            (1280.0, 720.0),
            (960.0, 540.0),
            (640.0, 360.0),
            (420.0, 300.0),
        ] {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height))),
                ..Default::default()
            };
            let view = OsdView {
                stats: Some(stats.clone()),
                ..paused_view(&messages)
            };
            // Areas learn their sizes in the first pass and are placed by them in the next.
            for _ in 0..3 {
                ctx.run_pass(input.clone(), |ctx| {
                    osd.show(ctx, &view);
                })
                .textures_delta
                .clear();
            }
            let text = area("osd messages").expect("messages drawn");
            let overlay = area("stats").expect("stats drawn");
            let panel = area("osd").expect("the bottom panel drawn");
            assert!(!text.intersects(overlay), "{width}x{height}: {text:?} and {overlay:?}");
            assert!(
                !panel.intersects(overlay),
                "{width}x{height}: {panel:?} and {overlay:?}"
            );
            for rect in [text, overlay] {
                assert!(
                    rect.min.x >= 0.0 && rect.max.x <= width,
                    "{width}x{height}: {rect:?} leaves the window"
                );
            }
        }
    }

    #[test]
    fn the_osd_fades_only_when_playing_untouched() {
        let s = Duration::from_secs_f32;
        assert_eq!(opacity(s(0.5), false, false), 1.0);
        assert_eq!(opacity(s(2.0), false, false), 1.0);
        assert!((opacity(s(2.15), false, false) - 0.5).abs() < 0.01);
        assert_eq!(opacity(s(3.0), false, false), 0.0);
        assert_eq!(opacity(s(30.0), true, false), 1.0, "paused it stays");
        assert_eq!(opacity(s(30.0), false, true), 1.0, "dragging it stays");
    }
}
