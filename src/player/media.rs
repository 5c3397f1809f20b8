//! One open file on the GPU: its ring of frames, histogram target, bindings and scene, made
//! once when the file is opened (nothing per frame), and its playback.

use super::comparison::{ComparedFile, Comparison};
use super::paired::{Paired, PlayerSource};
use super::playback::{Playback, Timeline, Wake};
use super::{PlayerError, UserEvent};
use crate::audio::source::AudioTrack;
use crate::audio::{Audio, Volume};
use crate::geometry::Orientation;
use crate::gpu::GpuContext;
use crate::pipeline::FramePipeline;
use crate::render::picture::Signal;
use crate::render::scene::{Scene, SceneRenderer, ViewOptions};
use crate::scope::graticule::{self, Level, Line, Scale};
use crate::scope::{Region, ScopeError, ScopeKind};
use crate::timeline::TimelineFill;
use crate::video::decoder::DecodeThread;
use crate::video::index::FrameIndex;
use crate::video::ring::RING_SLOTS;
use crate::video::source::{FrameShape, VideoInfo, VideoSource};
use std::time::{Duration, Instant};
use winit::event_loop::EventLoopProxy;

/// How often to look for an awaited frame should the decode thread's wake-up be missed.
const AWAIT_FALLBACK: Duration = Duration::from_millis(20);

/// How a file is played: the frame cache's budget and the speed to start at.
#[derive(Clone, Copy, Debug)]
pub struct MediaOptions {
    pub cache_bytes: usize,
    pub speed: f64,
    /// Deinterlaced by this (none while comparing).
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
}

/// The ring's slots: the decoder's, one kept for deinterlacing's last pictures, and one the
/// frame shown is made into with its fields apart.
pub(super) const SLOTS: usize = RING_SLOTS + 2;

/// A file opened for playing, its sound output too: the slow part of opening (probing the
/// file, opening the sound device), done off the window's thread.
pub struct OpenedFile {
    pub source: VideoSource,
    pub audio: Option<Audio>,
    /// A live input's sound packets as read, for the meters (a live input can't be read twice).
    pub audio_tap: Option<crate::video::source::Tapped>,
    /// The file it is compared with (`--compare`).
    pub compared: Option<ComparedFile>,
    /// A live input's packets as read, shared for the photosensitivity analysis (`--pse`).
    pub pse_packets: Option<std::path::PathBuf>,
    /// Which of its audio streams is its sound (`--aid`, `#`; None: none).
    pub audio_track: Option<AudioTrack>,
    /// How many audio streams it has, and the number of FFmpeg's pick (`audio_tracks`).
    pub audio_tracks: (u32, Option<u32>),
}

/// Opens `path`, with its sound at `volume` on `audio_device` (or the default) unless `volume`
/// is None. The sound starts silent; the player cues it once the file is playing.
pub fn open_file(
    path: &std::path::Path,
    volume: Option<Volume>,
    track: Option<AudioTrack>,
    audio_device: Option<&str>,
) -> Result<OpenedFile, crate::video::source::VideoError> {
    let mut source = VideoSource::open_to_play(path)?;
    let volume = volume.filter(|_| track.is_some());
    let (audio, audio_tap) = open_sound(&mut source, volume, track.unwrap_or_default(), audio_device);
    let audio_tracks = source.container().audio_tracks();
    Ok(OpenedFile {
        source,
        audio,
        audio_tap,
        compared: None,
        pse_packets: None,
        audio_track: track,
        audio_tracks,
    })
}

/// The sound of `source`'s file (its audio stream `track`) on `audio_device` (or the default)
/// at `volume`, starting silent; None without a volume, an audio stream or an output. A live
/// input's sound (its audio stream `track` too) comes from the packets its video's decoder reads (it
/// can't be read twice), and those packets are given for the meters too.
pub fn open_sound(
    source: &mut VideoSource,
    volume: Option<Volume>,
    track: AudioTrack,
    audio_device: Option<&str>,
) -> (Option<Audio>, Option<crate::video::source::Tapped>) {
    let Some(volume) = volume else { return (None, None) };
    let silent = crate::audio::Cue {
        clock: crate::clock::Clock::new(Instant::now(), 0.0, true),
        audible: false,
    };
    if source.info.live {
        let path = source.info.path.clone();
        let tapped = match source.tap_audio(track) {
            Ok(tapped) => tapped,
            Err(missing) => {
                let e = crate::audio::source::AudioError::missing(&path, missing);
                match missing {
                    crate::video::input::NoTrack::NoAudio => log::info!("no sound: {e}"),
                    _ => log::warn!("no sound: {e}"),
                }
                return (None, None);
            }
        };
        let for_meters = tapped.clone();
        let open = |rate, channels| crate::audio::source::AudioSource::fed(&path, tapped, rate, channels);
        return (Audio::start_from(open, silent, volume, audio_device), Some(for_meters));
    }
    (
        Audio::start(&source.info.path, track, silent, volume, audio_device),
        None,
    )
}

/// Frames of a live input waiting for its histogram timeline's count (held, beyond the
/// window's budget, while they wait).
const LIVE_TIMELINE_ROOM: usize = 8;

pub struct Media {
    pub info: VideoInfo,
    /// Frame numbers, counted in the background.
    pub index: std::sync::Arc<FrameIndex>,
    /// Numbers the passes made in this window, for each file opened and again where a live
    /// input's picture changes shape (readbacks of replaced passes are dropped).
    pub serial: u64,
    /// Numbers the files opened in this window.
    pub file: u64,
    pub pipeline: FramePipeline,
    pub scene: Scene,
    pub playback: Playback<PlayerSource>,
    /// The file's sound, where it has some and there is a device to play it on.
    pub audio: Option<Audio>,
    /// A live input's sound packets as read (for the meters).
    pub audio_tap: Option<crate::video::source::Tapped>,
    /// Which of its audio streams is its sound (`--aid`, `#`; None: none).
    pub audio_track: Option<AudioTrack>,
    /// How many audio streams it has, and the number of FFmpeg's pick.
    pub audio_tracks: (u32, Option<u32>),
    /// The ring's output holds a converted frame (before the first one there is nothing to draw).
    pub has_picture: bool,
    /// What is counted changed (scope, region) since the shown frame was counted: count it
    /// again with the next redraw.
    pub recount: bool,
    /// How the frame's fields are shown (`Alt+d`).
    pub field_view: super::field_view::FieldView,
    /// The waveform's and parade's graticule lines on this file's scopes.
    graticule: Vec<Line>,
    /// The histogram timeline, filled in the background once first shown.
    pub timeline: Option<TimelineFill>,
    /// The photosensitivity analysis, run in the background once its view is first on.
    pub pse: Option<super::pse_fill::PseFill>,
    /// A live input's packets shared for it, until it starts.
    pub pse_packets: Option<std::path::PathBuf>,
    /// A live input's packets asked for by `Alt+p` midway, until they come.
    pub pse_joining: Option<super::pse_fill::Joining>,
    /// The file compared with this one, played in step with it.
    pub compare: Option<Comparison>,
    /// A live input's arrival-to-display latency, lately.
    pub latency: super::live::Latency,
}

impl Media {
    pub fn new(
        gpu: &GpuContext,
        bins: u32,
        renderer: &SceneRenderer,
        opened: OpenedFile,
        serial: u64,
        proxy: &EventLoopProxy<UserEvent>,
        options: MediaOptions,
    ) -> Result<Self, PlayerError> {
        let MediaOptions {
            cache_bytes,
            speed,
            deinterlace,
        } = options;
        let OpenedFile {
            source,
            audio,
            audio_tap,
            compared,
            pse_packets,
            audio_track,
            audio_tracks,
        } = opened;
        let info = source.info.clone();
        let index = std::sync::Arc::clone(source.index());
        let (width, height) = (info.format.width, info.format.height);
        let start = crate::timeline::first_time(&source);
        let pipeline = FramePipeline::new(gpu, bins, info.format, info.volume, SLOTS)?;
        let timeline = Timeline {
            start,
            duration: info.duration,
            frame_duration: info.frame_duration,
            frame_count: index.frame_count(),
        };
        let notify = || -> Box<dyn Fn() + Send> {
            let wake = proxy.clone();
            Box::new(move || {
                let _ = wake.send_event(UserEvent::Decoded);
            })
        };
        // Two files compared share the cache's budget.
        let cache_bytes = if compared.is_some() {
            cache_bytes / 2
        } else {
            cache_bytes
        };
        let mut source = source;
        if cache_bytes > 0 && compared.is_none() {
            // The decode thread asks for a ring of the picture's new shape when it changes
            // mid-stream (`reshape`), as it comes to frames of that shape, in playing, seeking
            // or stepping back across the change. (Without a cache the frames can't wait for
            // it; two files compared are shown in the first's size.)
            source.follow_format_changes();
        }
        let time_base = source.info.time_base;
        let decoder = DecodeThread::spawn_notifying(
            source,
            gpu.queue.clone(),
            pipeline.ring.slots[..RING_SLOTS].to_vec(),
            cache_bytes,
            notify(),
        );
        // Each file's decoder fills the first slots of its ring; deinterlacing keeps the next
        // for the last frame's pictures.
        let side = |decoder, slots: &[std::sync::Arc<crate::video::convert::PlaneTextures>], index, time_base| {
            let setup = super::deinterlaced::FieldSetup {
                device: gpu.device.clone(),
                queue: gpu.queue.clone(),
                slots: slots[..RING_SLOTS + 1].to_vec(),
                index,
                time_base,
            };
            super::deinterlaced::Deinterlaced::new(decoder, setup)
        };
        let (source, compare) = match compared {
            None => {
                let one = side(decoder, &pipeline.ring.slots, std::sync::Arc::clone(&index), time_base);
                (PlayerSource::One(Box::new(one)), None)
            }
            Some(compared) => {
                let composite = compared.options.composite(info.format.width);
                let stage = crate::pipeline::comparison::CompareStage::new(
                    gpu,
                    &pipeline,
                    compared.source.info.volume,
                    composite,
                )
                .map_err(|e| PlayerError::Compare(e.to_string()))?;
                let b_info = compared.source.info.clone();
                let b_index = std::sync::Arc::clone(compared.source.index());
                log::info!(
                    "comparing with {}: {}x{} {} ({})",
                    b_info.path.display(),
                    b_info.format.width,
                    b_info.format.height,
                    b_info.codec,
                    b_info.pixel_format
                );
                let b_time_base = compared.source.info.time_base;
                let b = DecodeThread::spawn_notifying(
                    compared.source,
                    gpu.queue.clone(),
                    stage.b.ring.slots[..RING_SLOTS].to_vec(),
                    cache_bytes,
                    notify(),
                );
                let a = side(decoder, &pipeline.ring.slots, std::sync::Arc::clone(&index), time_base);
                let b = side(b, &stage.b.ring.slots, std::sync::Arc::clone(&b_index), b_time_base);
                let paired = Paired::new(a, b, compared.align);
                let comparison = Comparison {
                    info: b_info,
                    index: b_index,
                    stage,
                    converted_from: compared.converted_from,
                    shown_b: None,
                    metrics: None,
                    vmaf: None,
                    vmaf_model: compared.options.vmaf_model.clone(),
                    before_flicker: match composite.mode {
                        crate::compare::composite::CompareMode::A | crate::compare::composite::CompareMode::B => {
                            crate::compare::composite::CompareMode::Wipe
                        }
                        mode => mode,
                    },
                };
                (PlayerSource::Two(Box::new(paired)), Some(comparison))
            }
        };
        let scene = make_scene(gpu, renderer, &pipeline, compare.as_ref());
        log::info!(
            "{}: {}x{} {} ({}, {} decoding), {:.3} s, about {} frames",
            info.path.display(),
            width,
            height,
            info.codec,
            info.pixel_format,
            info.hwdec.unwrap_or("software"),
            info.duration,
            index.estimated_count.map_or("?".to_string(), |n| n.to_string())
        );
        let mut playback = Playback::new(source, timeline, Instant::now());
        if info.live {
            playback.set_live(cache_bytes > 0);
        }
        if speed != 1.0 && !info.live {
            playback.apply(&super::commands::Command::SpeedBy(speed), Instant::now());
        }
        if let Some(audio) = &audio {
            audio.cue(playback.audio_cue());
        }
        let deinterlaced = deinterlace.is_some();
        let mut media = Self {
            info,
            index,
            serial,
            file: serial,
            pipeline,
            scene,
            playback,
            audio,
            audio_tap,
            audio_track,
            audio_tracks,
            has_picture: false,
            recount: false,
            field_view: Default::default(),
            timeline: None,
            pse: None,
            pse_packets,
            pse_joining: None,
            compare,
            graticule: Vec::new(),
            latency: Default::default(),
        };
        media.set_scene_region();
        media.set_graticule(Scale::default(), &[]);
        if deinterlaced {
            // (An offset given with it counts pictures, as `compare --deinterlace`'s does.)
            media
                .set_deinterlace(deinterlace, false)
                .map_err(PlayerError::Compare)?;
        }
        Ok(media)
    }

    /// The deinterlacer in force, if any.
    pub fn deinterlace(&self) -> Option<crate::video::deinterlace::Deinterlacer> {
        self.playback.source.deinterlace()
    }

    /// Deinterlaces with `filter` (None: frames as they are), from the frame shown: at field
    /// rate, playback's steps and numbers are fields (and a compared file's offset, kept as
    /// long with `keep_offset`).
    pub fn set_deinterlace(
        &mut self,
        filter: Option<crate::video::deinterlace::Deinterlacer>,
        keep_offset: bool,
    ) -> Result<(), String> {
        let was_field = self.playback.source.field_rate();
        self.playback.source.set_deinterlace(filter, keep_offset)?;
        let field = self.playback.source.field_rate();
        let shown = self.playback.shown().filter(|s| !s.preview).map(|s| s.index);
        self.playback.set_field_rate(field, self.info.frame_duration);
        let count = self.index.frame_count();
        self.playback
            .set_extent(count.map(|c| if field { 2 * c } else { c }), None);
        // The frame shown, made again (its first field, where pictures are fields).
        let frame = shown.map_or(0, |n| if was_field { n / 2 } else { n });
        self.playback.seek_frame(if field { 2 * frame } else { frame });
        Ok(())
    }

    /// Comparing side by side: the picture is two frames wide.
    pub fn side_by_side(&self) -> bool {
        self.compare
            .as_ref()
            .is_some_and(|c| c.stage.composite().mode == crate::compare::composite::CompareMode::SideBySide)
    }

    /// The picture's display aspect: side by side, twice the frame's.
    pub fn picture_aspect(&self) -> f32 {
        self.info.display_aspect * if self.side_by_side() { 2.0 } else { 1.0 }
    }

    /// A live input's new frame was presented at `at`: its latency, counted in the figures
    /// the OSD shows.
    pub fn live_latency(&mut self, at: Instant, new_frame: bool) -> Option<std::time::Duration> {
        // Not a timeshifted frame's: it is as late as the viewer chose.
        if self.playback.behind_live().is_some() {
            return None;
        }
        let arrived = self.playback.shown().and_then(|s| s.packet.arrived)?;
        new_frame.then(|| self.latency.shown(arrived, at))
    }

    /// What the OSD shows of a live input; None for a file.
    pub fn live_view(&self, now: Instant) -> Option<super::live::LiveView> {
        self.playback.is_live().then(|| super::live::LiveView {
            no_signal: self.playback.no_signal(now),
            latency_ms: self.latency.percentiles(),
            wall_clock: super::live::wall_clock(),
            behind: self.playback.behind_live(),
            window: super::playback::FrameSource::live_window(&self.playback.source).map(|(o, n)| n - o),
            timecode: self.playback.shown().and_then(|s| s.packet.timecode),
        })
    }

    /// Starts filling the histogram timeline, if it isn't yet.
    pub fn start_timeline(&mut self, gpu: &GpuContext) -> std::io::Result<()> {
        if self.timeline.is_some() {
            return Ok(());
        }
        if self.info.live {
            // The timeline of its timeshift window, from the frames its decode thread keeps.
            let tap = match &self.playback.source {
                PlayerSource::One(decoder) => decoder.tap_window(LIVE_TIMELINE_ROOM).zip(decoder.window()),
                PlayerSource::Two(_) => None,
            };
            let Some((tap, window)) = tap else {
                return Err(std::io::Error::other(
                    "a live input without a timeshift window (--cache-size 0) has no histogram timeline",
                ));
            };
            self.timeline = Some(TimelineFill::live(gpu, self.info.volume, tap, window)?);
        } else {
            self.timeline = Some(TimelineFill::start(&self.info.path, self.audio_track, gpu)?);
        }
        self.measure_vmaf(gpu)
    }

    /// Comparing, with the timeline shown: every pair's VMAF measured in the background (again,
    /// when B's offset changed).
    pub fn measure_vmaf(&mut self, gpu: &GpuContext) -> std::io::Result<()> {
        let align = self.playback.source.paired().map(|p| p.alignment());
        let deinterlace = self.deinterlace();
        match (&mut self.compare, align) {
            (Some(comparison), Some(align)) if self.timeline.is_some() => {
                comparison.measure_vmaf(&self.info.path, (&align, deinterlace), gpu)
            }
            _ => Ok(()),
        }
    }

    /// The frame point under a window point (see `layout::frame_point`).
    /// Side by side, a point on B's half is the same point of A's frame.
    pub fn frame_point(&self, point: (f64, f64), viewport: (u32, u32), fit: crate::render::layout::Fit) -> (f64, f64) {
        let picture = crate::render::layout::fit_picture(self.picture_aspect(), viewport, fit);
        let orientation = self.orientation();
        let (width, height) = self.pipeline.frame_size();
        let wide = self.side_by_side();
        let shown = if wide { (2 * width, height) } else { (width, height) };
        let (x, y) = crate::render::layout::frame_point(point, viewport, picture, orientation, shown);
        let width = f64::from(width);
        if wide && (width..2.0 * width).contains(&x) {
            (x - width, y)
        } else {
            (x, y)
        }
    }

    /// Places picture and quads for the window's size and the viewer's options (uniform writes).
    pub fn layout(&self, queue: &wgpu::Queue, viewport: (u32, u32), options: ViewOptions) {
        self.scene
            .layout(queue, self.picture_aspect(), self.orientation(), viewport, options);
    }

    /// How the picture is turned, and the field shown line-doubled, if one is.
    fn orientation(&self) -> Orientation {
        let rows = self.pipeline.frame_size().1;
        Orientation {
            quarter_turns: self.info.quarter_turns,
            half: self.field_view.doubled().map(|half| (half, rows)),
        }
    }

    /// Brings playback up to `now`: what the index learnt of the file's extent, and the frames
    /// the decoder sent (while the window can't draw, those already late by `lead` are
    /// dropped); true when what is shown changed.
    pub fn catch_up(&mut self, now: Instant, lead: Duration, renderable: bool) -> bool {
        self.update_extent();
        if renderable {
            self.playback.pump(now);
        } else {
            self.playback.drop_late(now, lead);
        }
        self.playback.take_changed()
    }

    /// When playback next needs the event loop is pushed on `wake`; true when a frame is due.
    pub fn wake(&self, now: Instant, lead: Duration, renderable: bool, wake: &mut Vec<Option<Instant>>) -> bool {
        match self.playback.wake(now, lead, renderable) {
            Wake::Now => return true,
            Wake::At(t) => wake.push(Some(t)),
            // The decode thread wakes the loop (UserEvent::Decoded) when its frame arrives; the
            // slow timer is only a safety net while a frame is awaited.
            Wake::Poll => wake.push(Some(now + AWAIT_FALLBACK)),
            Wake::Idle => {}
        }
        false
    }

    /// Takes in what the index has learnt of the file's extent since the last look.
    pub fn update_extent(&mut self) {
        let field = self.playback.source.field_rate();
        // At field rate, pictures are fields: twice the frames.
        let count = self.index.frame_count().map(|c| if field { 2 * c } else { c });
        if count == self.media_count() {
            return;
        }
        let duration = self
            .index
            .span()
            .map(|(first, last)| self.info.seconds(last) + self.info.frame_duration - self.info.seconds(first));
        self.playback.set_extent(count, duration);
    }

    fn media_count(&self) -> Option<u64> {
        self.playback.timeline().frame_count
    }

    /// The file's frames: counted, or estimated (from the index, or the duration).
    pub fn frame_count_or_estimate(&self) -> u64 {
        let timeline = self.playback.timeline();
        // (At field rate, pictures: twice the frames.)
        let pictures = if self.playback.source.field_rate() { 2 } else { 1 };
        timeline
            .frame_count
            .or(self.index.estimated_count.map(|c| c * pictures))
            .unwrap_or_else(|| (timeline.duration / timeline.frame_duration.max(1e-6)).round() as u64)
    }

    /// The file's name, for the title and the OSD.
    pub fn file_name(&self) -> String {
        self.info.path.file_name().map_or_else(
            || self.info.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

impl Drop for Media {
    fn drop(&mut self) {
        // Slots go back before the decode thread is stopped and joined.
        self.playback.release_all();
        self.playback.source.release_all();
    }
}

/// The scene of a file: its frame (or a comparison's composite) with its histograms (and B's
/// outlined over them, or the difference's).
fn make_scene(
    gpu: &GpuContext,
    renderer: &SceneRenderer,
    pipeline: &FramePipeline,
    compare: Option<&Comparison>,
) -> Scene {
    let Some(comparison) = compare else {
        return pipeline.scene(&gpu.device, renderer);
    };
    let stage = &comparison.stage;
    let (filled, outline) = match stage.filled() {
        Some(difference) => (difference, None),
        None => (&pipeline.target, Some(&stage.b.target)),
    };
    renderer.scene_outlined(
        &gpu.device,
        filled,
        outline,
        &stage.picture().view,
        Signal {
            marks: stage.marks(),
            ..pipeline.signal()
        },
        stage.scope(),
    )
}

/// The window size a video opens at: its display size, scaled to fit 1280x720, and small
/// videos scaled up until 640 wide so the histograms stay readable.
pub fn default_window_size(height: u32, display_aspect: f32) -> (u32, u32) {
    let h = f64::from(height.max(1));
    let w = h * f64::from(display_aspect.max(0.01));
    let scale = (1280.0 / w).min(720.0 / h).min((640.0 / w).max(1.0));
    ((w * scale).round().max(1.0) as u32, (h * scale).round().max(1.0) as u32)
}

mod passes;

#[cfg(test)]
mod tests {
    use super::default_window_size;

    #[test]
    fn windows_open_at_a_readable_size() {
        assert_eq!(default_window_size(540, 960.0 / 540.0), (960, 540));
        assert_eq!(default_window_size(1080, 16.0 / 9.0), (1280, 720));
        assert_eq!(default_window_size(2160, 16.0 / 9.0), (1280, 720));
        assert_eq!(default_window_size(48, 64.0 / 48.0), (640, 480));
        assert_eq!(default_window_size(1920, 1080.0 / 1920.0), (405, 720));
    }
}
