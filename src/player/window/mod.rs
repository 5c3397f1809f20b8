//! The player window: its own state (GPU, surface, scene renderer, the open file, pacing, the
//! frame log) and the parts it calls (OSD, pointer, comparison, picture, marks, scopes, stats,
//! files, sound). `apply` hands each command to its part, `schedule` says when the window next
//! needs the event loop, and `redraw` draws a frame through the steps in `frame.rs`.

use super::bench::{BenchReport, BenchScript, Expect};
use super::bindings::Bindings;
use super::commands::Command;
use super::compare_control::CompareControl;
use super::egui_layer::{EguiLayer, Painted};
use super::files::Files;
use super::frame::{self, Drawing};
use super::help::{HelpList, Reply as HelpReply};
use super::marks_control::Marks;
use super::media::{default_window_size, Media, MediaOptions, OpenedFile};
use super::meters::MeterPanel;
use super::osd::{BoxKind, Osd, OsdView, Toasts};
use super::pacing::RenderLead;
use super::part::{Cx, Effects};
use super::picture::Picture;
use super::playback::FrameSource;
use super::playlist::Playlist;
use super::pointer::{set_region, Pointer};
use super::readbacks::Readbacks;
use super::scopes::Scopes;
use super::sound::Sound;
use super::stats::{FrameLog, Present};
use super::stats_overlay::{StatsNotes, StatsOverlay};
use super::strip::TimelineStrip;
use super::surface::{open_gpu, open_window, title, watch_device, WindowSurface};
use super::{PlayerError, PlayerOptions, UserEvent};
use crate::engine::histogram::DEFAULT_BINS;
use crate::gpu::GpuContext;
use crate::render::scene::{SceneRenderer, ViewOptions};

mod draw;
mod resume;
mod sound;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::event_loop::{ActiveEventLoop, EventLoopProxy};
use winit::window::{Fullscreen, Window};

/// The window's shared state lent to a part (`part::Cx`), borrowing only the fields it names so
/// the part itself, another field, can be borrowed beside it.
macro_rules! cx {
    ($window:expr) => {
        Cx {
            gpu: &$window.gpu,
            scene: &$window.scene,
            media: &mut $window.media,
            view: &mut $window.view,
            viewport: $window.surface.size(),
        }
    };
}

/// How long to wait after the surface gave no image before asking again.
const BLOCKED_RETRY: Duration = Duration::from_millis(50);

pub struct PlayerWindow {
    pub window: Arc<Window>,
    geometry: Option<(u32, u32)>,
    gpu: GpuContext,
    surface: WindowSurface,
    scene: SceneRenderer,
    /// The OSD's egui: context, input and renderer.
    pub(super) egui: EguiLayer,
    osd: Osd,
    /// The searchable list of every command (F1, or the OSD's menu button).
    pub(super) help: HelpList,
    /// Where the OSD's boxes were last drawn (name, x, y, width, height in pixels).
    osd_drawn: Vec<(&'static str, [i32; 4])>,
    media: Media,
    view: ViewOptions,
    /// The clipping readout, screenshots, and the thread that wakes the loop for readbacks.
    readbacks: Readbacks,
    /// The OSD's messages.
    toasts: Toasts,
    needs_redraw: bool,
    /// Whether the picture drawn last says "no signal" (a live input's frames stopped).
    no_signal: bool,
    /// The limits the QC report's last frame is beyond (`--fail-on`), and those last warned of.
    qc_beyond: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>>,
    qc_warned: Vec<String>,
    /// The surface had no image to give (timeout, occluded): don't ask again before this.
    blocked_until: Option<Instant>,
    lead: RenderLead,
    pub(super) frame_log: Option<FrameLog>,
    pub(super) bench: Option<BenchScript>,
    proxy: EventLoopProxy<UserEvent>,
    cursor_hidden: bool,
    /// The pointer: the pixel probe under it, and the region a right-drag draws.
    pointer: Pointer,
    /// The comparison's keys and the wipe's drag.
    compare: CompareControl,
    /// The histogram timeline's picture in the OSD.
    timeline_strip: TimelineStrip,
    /// Keys and mouse buttons to commands: mpv's defaults and the viewer's input.conf.
    pub(super) bindings: Bindings,
    /// The playlist and the opening of files.
    files: Files,
    /// The picture adjustments, kept from file to file as mpv keeps its video equalizer.
    picture: Picture,
    /// The marks on the picture and their levels, kept from file to file too.
    marks: Marks,
    /// The scopes: the waveform's graticule, kept from file to file.
    scopes: Scopes,
    /// The stats overlay (`i`, `I`): its figures and the signal statistics it counts.
    stats: StatsOverlay,
    /// The sound: on or off, its volume and device.
    sound: Sound,
    /// The audio meters and loudness panel (Alt+m), shown or not from file to file.
    meters: MeterPanel,
    /// Where the position is kept on quitting (`resume`), and whether `Q` asked for it.
    watch_later: Option<crate::settings::watch_later::WatchLater>,
    keep_position: bool,
    /// The deinterlacer `d` turns on (`--deinterlacer`).
    deinterlacer: crate::video::deinterlace::Deinterlacer,
}

impl PlayerWindow {
    pub fn new(
        event_loop: &ActiveEventLoop,
        opened: OpenedFile,
        playlist: Playlist,
        options: &PlayerOptions,
        proxy: EventLoopProxy<UserEvent>,
    ) -> Result<Self, PlayerError> {
        let geometry = super::surface::window_size(event_loop, options);
        let window = open_window(event_loop, &opened.source.info, geometry)?;
        let (gpu, surface) = open_gpu(event_loop, &window)?;
        watch_device(&gpu.device, &proxy);
        let surface = WindowSurface::new(&gpu, surface, window.inner_size().into())?;
        let scene = SceneRenderer::new(&gpu.device, surface.format);
        let mut media = Media::new(
            &gpu,
            DEFAULT_BINS,
            &scene,
            opened,
            0,
            &proxy,
            MediaOptions {
                cache_bytes: options.cache_bytes,
                speed: options.speed,
                deinterlace: options.deinterlace,
            },
        )?;
        media.playback.loop_file = options.loop_file;
        media.set_adjustments(&gpu, options.adjustments)?;
        let mut picture = Picture::new(
            options.adjustments,
            options.lut.clone(),
            options.input_colour,
            options.scopes_on,
        );
        picture.apply(&gpu, &scene, &mut media)?;
        media.set_marks(&gpu, &scene, &options.marks);
        media.set_graticule(options.graticule.0, &options.graticule.1);
        let egui = EguiLayer::new(&window, &gpu, surface.format);
        let now = Instant::now();
        let frame_log = options
            .frame_log
            .as_deref()
            .map(|path| FrameLog::open(path, now))
            .transpose()?;
        let bench = options
            .bench_seconds
            .map(|seconds| BenchScript::new(seconds, media.playback.timeline()));
        let readbacks = Readbacks::new(&gpu.device, &proxy);
        let (stats, pointer) = (StatsOverlay::new(&gpu, now), Pointer::new(&gpu.device));
        let files = Files::new(playlist, options.loop_file, options.cache_bytes, proxy.clone());
        let mut player = Self {
            window,
            geometry,
            gpu,
            surface,
            scene,
            egui,
            osd: Osd::default(),
            osd_drawn: Vec::new(),
            media,
            view: ViewOptions::default(),
            readbacks,
            toasts: Toasts::default(),
            needs_redraw: true,
            no_signal: false,
            qc_beyond: options.qc.as_ref().map(|qc| std::sync::Arc::clone(&qc.beyond)),
            qc_warned: Vec::new(),
            blocked_until: None,
            lead: RenderLead::default(),
            frame_log,
            bench,
            proxy,
            cursor_hidden: false,
            pointer,
            compare: CompareControl::default(),
            timeline_strip: TimelineStrip::default(),
            bindings: options.bindings.clone(),
            help: HelpList::new(&options.bindings),
            files,
            picture,
            marks: Marks::new(options.marks.clone()),
            scopes: Scopes::new(options.graticule.clone()),
            stats,
            sound: Sound::new(options),
            meters: MeterPanel::new(options.meters, options.loudness_target),
            watch_later: options.watch_later.clone(),
            keep_position: false,
            deinterlacer: options.deinterlacer,
        };
        player.osd.touched(now);
        for warning in &options.conf_warnings {
            player.toasts.show(warning.clone(), true);
        }
        if crate::settings::state::first_time("help") {
            player.message("F1 or ☰ on the bar: every command and its keys".to_string(), false);
        }
        player.relayout();
        player.start_at(options);
        Ok(player)
    }

    fn relayout(&self) {
        self.media.layout(&self.gpu.queue, self.surface.size(), self.view);
    }

    /// The window's new size: reconfigure the surface (not at zero size) and lay out again.
    pub fn resize(&mut self, size: winit::dpi::PhysicalSize<u32>) {
        self.surface.resize(&self.gpu, (size.width, size.height));
        if self.surface.is_renderable() {
            self.relayout();
        }
        self.needs_redraw = true;
    }

    /// Any input: the OSD comes back.
    pub fn touched(&mut self) {
        self.osd.touched(Instant::now());
        self.needs_redraw = true;
    }

    /// What the help list made of a key or a click: commands to run, or only a new look.
    /// False when a command asks to quit.
    pub fn help_reply(&mut self, reply: HelpReply) -> bool {
        self.needs_redraw = true;
        match reply {
            HelpReply::Run(commands) => commands.into_iter().all(|command| self.apply(command)),
            HelpReply::Taken | HelpReply::Closed => true,
        }
    }

    pub fn redraw_later(&mut self) {
        self.needs_redraw = true;
    }

    /// Applies a command; false when it asks to quit.
    pub fn apply(&mut self, command: Command) -> bool {
        let now = Instant::now();
        self.touched();
        if self.media.playback.apply(&command, now) {
            let fx = self.files.after_playback(&command, &mut self.media, &self.gpu.queue);
            return self.take(fx);
        }
        let fx = match command {
            Command::Quit => return false,
            Command::QuitWithStatus(status) => {
                crate::process::set_exit_status(status);
                return false;
            }
            Command::QuitWatchLater => {
                self.keep_position = true;
                return false;
            }
            Command::ToggleHelp => {
                self.help.toggle();
                Effects::default()
            }
            Command::ToggleFullscreen | Command::LeaveFullscreen => {
                let leave = command == Command::LeaveFullscreen || self.window.fullscreen().is_some();
                self.window
                    .set_fullscreen((!leave).then_some(Fullscreen::Borderless(None)));
                Effects::default()
            }
            Command::CycleQuads => change(&mut self.view, |v| v.quads = v.quads.next()),
            Command::CycleScope | Command::CycleVectorscopeZoom | Command::CycleWaveformScale => {
                self.scopes.command(&command, cx!(self))
            }
            Command::ClearRegion => set_region(None, cx!(self)),
            Command::ToggleTimeline => TimelineStrip::toggle(cx!(self)),
            Command::TogglePse => crate::player::pse_view::toggle(cx!(self)),
            Command::SetRegion(region) => set_region(Some(region), cx!(self)),
            Command::ToggleLogScale => change(&mut self.view, |v| v.log_scale = !v.log_scale),
            Command::ToggleFit => change(&mut self.view, |v| v.fit = v.fit.toggled()),
            Command::Screenshot => {
                self.readbacks.screenshot_wanted = true;
                Effects::default()
            }
            Command::Open(_)
            | Command::PlaylistNext
            | Command::PlaylistPrev
            | Command::ShowPlaylist
            | Command::ChapterBy(_)
            | Command::ShowProgress => self.files.command(&command, now, &self.media, &self.sound),
            Command::ShowStats | Command::ToggleStats => {
                self.stats.command(&command, now, &self.gpu, &mut self.media);
                Effects::default()
            }
            Command::Adjust(..)
            | Command::SetAdjustment(..)
            | Command::ToggleAutoLevels
            | Command::ToggleEqualize
            | Command::ResetAdjustments
            | Command::ToggleLut
            | Command::ToggleScopesOn
            | Command::CycleInputColour
            | Command::SetInputColour(_) => self.picture.command(&command, cx!(self)),
            Command::CycleCompareMode | Command::Flicker | Command::CompareGainBy(_) | Command::CompareOffsetBy(_) => {
                self.compare.command(&command, cx!(self))
            }
            Command::ToggleMark(_) | Command::ZebraBy(_) | Command::PeakingBy(_) => {
                self.marks.command(&command, cx!(self))
            }
            Command::VolumeBy(_) | Command::ToggleMute | Command::CycleAudio => self.sound_command(&command),
            Command::ToggleMeters => self.meters.command(&command),
            Command::CycleDeinterlace => crate::player::deinterlace_control::cycle(self.deinterlacer, cx!(self)),
            Command::CycleFieldView => crate::player::field_view_control::cycle(cx!(self)),
            _ => Effects::default(),
        };
        let go_on = self.take(fx);
        self.relayout();
        go_on
    }

    /// Does what a part's call asked for; false when a command it gave asks to quit.
    fn take(&mut self, fx: Effects) -> bool {
        for toast in fx.toasts {
            self.toasts.push(toast);
            self.needs_redraw = true;
        }
        if fx.reprobe {
            self.pointer.reprobe();
        }
        if fx.relayout {
            self.relayout();
        }
        if fx.redraw {
            self.needs_redraw = true;
        }
        let mut go_on = true;
        for command in fx.then {
            go_on &= self.apply(command);
        }
        go_on
    }

    /// The pointer moved to `point` (physical pixels), or left the window (None): the probe
    /// follows it, a right-drag draws the region, a left-drag moves a comparison's wipe.
    pub fn pointer_moved(&mut self, point: Option<(f64, f64)>) {
        let over_osd = self.egui.over_widget(point);
        let fx = self.pointer.moved(point, over_osd, cx!(self));
        self.take(fx);
        // (Leaving the window doesn't end a wipe's drag: the line stays where it was.)
        let fx = self.compare.pointer_moved(point, cx!(self));
        self.take(fx);
    }

    /// Where the pointer is over the window, in physical pixels.
    pub fn pointer_at(&self) -> Option<(f64, f64)> {
        self.pointer.at()
    }

    /// Whether the pointer is over the OSD's panel, on its widgets rather than the picture.
    pub fn pointer_over_osd(&self) -> bool {
        self.egui.over_widget(self.pointer.at())
    }

    /// The right button went down or up on the picture: a drag sets the region, a click does
    /// what MBTN_RIGHT is bound to. False when that asks to quit.
    pub fn right_button(&mut self, pressed: bool) -> bool {
        let fx = self.pointer.right_button(pressed, &self.bindings, cx!(self));
        self.take(fx)
    }

    /// The left button went down on the picture, or up anywhere: comparing in wipe mode, a
    /// press and the drag after it move the wipe's line.
    pub fn left_button(&mut self, pressed: bool) {
        let point = self.pointer.at();
        let fx = self.compare.left_button(pressed, point, cx!(self));
        self.take(fx);
    }

    /// A file opened by `Files`: it replaces the current one, or its error is shown.
    pub fn opened(&mut self, path: PathBuf, result: Result<OpenedFile, crate::video::source::VideoError>) {
        self.toasts.remove("opening ");
        self.touched();
        let media = result.map_err(PlayerError::from).and_then(|opened| {
            Media::new(
                &self.gpu,
                self.media.pipeline.engine.bins,
                &self.scene,
                opened,
                self.media.serial + 1,
                &self.proxy,
                MediaOptions {
                    cache_bytes: self.files.cache_bytes,
                    // The next file plays at the speed this one was at (as in mpv), deinterlaced so.
                    speed: self.media.playback.speed(),
                    deinterlace: self.media.deinterlace(),
                },
            )
        });
        match media {
            Ok(mut media) => {
                media.file = self.media.file + 1;
                self.replace_media(media, &path)
            }
            Err(e) => {
                self.message(e.to_string(), true);
                let fx = self.files.open_failed(&path, &self.media.info.path, &self.sound);
                self.take(fx);
            }
        }
    }

    /// `media` is the file shown from now on: what is kept from file to file applies to it.
    fn replace_media(&mut self, media: Media, path: &std::path::Path) {
        // The old file's decoder stops and its GPU frames go with it, off this thread:
        // stopping waits for the frame it is decoding.
        let view = self.media.field_view;
        let old = std::mem::replace(&mut self.media, media);
        let dropped = std::thread::Builder::new()
            .name("histoplay close".into())
            .spawn(move || drop(old));
        if let Err(e) = dropped {
            log::warn!("closing the previous file on this thread: {e}");
        }
        self.media.playback.loop_file = self.files.loop_file;
        self.passes_made();
        // (The next file's fields are shown as this one's were, as deinterlacing carries over.)
        let fx = crate::player::field_view_control::file_opened(view, cx!(self));
        self.take(fx);
        self.sound_opened();
        let fx = self.timeline_strip.file_opened(cx!(self));
        self.take(fx);
        let fx = crate::player::pse_view::file_opened(cx!(self));
        self.take(fx);
        self.window.set_title(&title(path));
        self.fit_to_picture();
    }

    /// The file's passes were made (a new file, or the picture's new shape): what is kept
    /// from file to file is set on them.
    fn passes_made(&mut self) {
        let fx = self.picture.file_opened(cx!(self));
        self.take(fx);
        self.marks.file_opened(cx!(self));
        self.readbacks.readout = None;
        let fx = self.scopes.file_opened(cx!(self));
        self.take(fx);
        let over_osd = self.egui.over_widget(self.pointer.at());
        let fx = self.pointer.file_opened(over_osd, cx!(self));
        self.take(fx);
    }

    /// As mpv does, the window takes the picture's size or `--geometry`'s, unless fullscreen.
    fn fit_to_picture(&mut self) {
        if self.window.fullscreen().is_none() {
            let fit = default_window_size(self.media.info.format.height, self.media.info.display_aspect);
            let (width, height) = self.geometry.unwrap_or(fit);
            let size = winit::dpi::PhysicalSize::new(width, height);
            let _ = self.window.request_inner_size(size);
        }
        self.relayout();
    }

    /// The picture changed shape (size or sampling) mid-stream: its passes are made again for
    /// the new one, what is kept from file to file applies to them, and the window takes the
    /// new size (as mpv's does).
    fn reshape(&mut self, shape: crate::video::source::FrameShape) {
        let (width, height) = (shape.format.width, shape.format.height);
        let view = self.media.field_view;
        if let Err(e) = self.media.reshape(&self.gpu, &self.scene, shape.clone()) {
            // Its frames are passed over; the stream shows again back in a shape that can be.
            self.media.playback.source.refuse_ring(shape);
            self.message(format!("cannot show the picture at {width}x{height}: {e}"), true);
            return;
        }
        self.passes_made();
        let fx = crate::player::field_view_control::file_opened(view, cx!(self));
        self.take(fx);
        self.message(format!("picture now {width}x{height}"), false);
        self.fit_to_picture();
    }

    pub fn message(&mut self, text: String, error: bool) {
        self.toasts.message(text, error);
        self.needs_redraw = true;
    }

    /// Housekeeping between events (decoder, readbacks, messages, the OSD fade) and the next
    /// time the loop must wake: None to wait for events, `now` or earlier to redraw.
    pub fn schedule(&mut self, now: Instant) -> (bool, Option<Instant>) {
        let blocked = self.blocked_until.filter(|&t| t > now);
        let renderable = self.surface.is_renderable() && blocked.is_none();
        let lead = self.render_lead();
        self.needs_redraw |= self.media.catch_up(now, lead, renderable);
        if let Some(shape) = self.media.playback.take_reshaped() {
            self.reshape(shape);
        }
        let no_signal = self.media.playback.no_signal(now);
        self.needs_redraw |= no_signal != std::mem::replace(&mut self.no_signal, no_signal);
        let fx = self.files.finished(now, &mut self.media, &self.sound);
        self.take(fx);
        Sound::follow(&mut self.media, now);
        self.meters.follow(&self.media);
        if let Some(error) = self.media.playback.take_error() {
            self.message(error, true);
        }
        if let Some(note) = self.media.playback.take_note() {
            self.message(note, false);
        }
        self.warn_of_qc();
        let fx = CompareControl::wake(&mut self.media);
        self.take(fx);
        self.poll_readbacks();

        // Egui asks for a frame or two more after input (to settle its layout), only for a
        // window that can be drawn.
        let egui_repaint = self.egui.repaint().filter(|_| renderable);
        self.needs_redraw |= egui_repaint.is_some_and(|t| t <= now);
        let mut wake = vec![egui_repaint, blocked];
        let paused = self.media.playback.paused();
        self.needs_redraw |= self.toasts.expire(now, &mut wake);
        self.needs_redraw |= self.osd.wake(now, paused, &mut wake);
        let strip = &self.timeline_strip;
        self.needs_redraw |= strip.wake(now, &self.media, self.view.timeline, &mut wake);
        self.needs_redraw |= crate::player::strip::wake_vmaf(now, &self.media, &mut wake);
        let fx = crate::player::pse_view::joined(cx!(self));
        self.take(fx);
        self.needs_redraw |= crate::player::pse_view::wake(now, &self.media, self.view.pse, &mut wake);
        self.needs_redraw |= self.stats.wake(now, &self.media, &mut wake);
        self.needs_redraw |= self.meters.wake(now, &mut wake);
        // The pointer goes with the OSD while playing, as in mpv.
        let hide_cursor = self.osd.opacity(now, paused) == 0.0;
        if hide_cursor != self.cursor_hidden {
            self.window.set_cursor_visible(!hide_cursor);
            self.cursor_hidden = hide_cursor;
        }
        self.needs_redraw |= self.media.wake(now, lead, renderable, &mut wake);
        let redraw = self.needs_redraw && renderable;
        (redraw, wake.into_iter().flatten().min())
    }

    fn render_lead(&self) -> Duration {
        let timeline = self.media.playback.timeline();
        self.lead.lead(timeline.frame_duration, self.media.playback.speed())
    }

    /// Picks up finished readbacks without waiting: the clipping readout and screenshots.
    fn poll_readbacks(&mut self) {
        let metrics = self.media.compare.as_ref().is_some_and(|c| c.stage.pending());
        if !self.readbacks.pending() && !self.pointer.pending() && !self.stats.pending() && !metrics {
            return;
        }
        if let Err(e) = self.gpu.device.poll(wgpu::PollType::Poll) {
            log::warn!("polling the GPU failed: {e}");
        }
        self.needs_redraw |= self.readbacks.poll(&self.media);
        let fx = self.pointer.poll(&mut self.media);
        self.take(fx);
        self.needs_redraw |= CompareControl::poll(&mut self.media);
        self.needs_redraw |= self.stats.poll(&self.media, Instant::now());
        self.readbacks.finish();
    }

    /// Issues the bench script's commands that are due; returns when its next one is.
    pub fn run_bench(&mut self, now: Instant) -> Option<Instant> {
        let Some(command) = self.bench.as_mut().and_then(|b| b.next_command(now)) else {
            return self.bench.as_ref().and_then(BenchScript::deadline);
        };
        self.apply(command.clone());
        let expect = Expect::after(&command, &self.media.playback);
        let bench = self.bench.as_mut()?;
        bench.issued(&command, now, expect);
        bench.deadline()
    }

    /// The bench's report once its script has run.
    pub fn bench_report(&self) -> Option<BenchReport> {
        (self.bench.as_ref()?).report_on(&self.media, &self.gpu)
    }
}

/// Changes the view's options (the window lays the scene out again after every command).
fn change(view: &mut ViewOptions, change: impl FnOnce(&mut ViewOptions)) -> Effects {
    change(view);
    Effects::default()
}
