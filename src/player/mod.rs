//! The player: a window that plays a video with its live histograms, mpv's keys, an OSD, and
//! frame pacing by deadlines. `play` runs it until the viewer quits.

mod app;
pub mod bench;
pub mod bindings;
pub mod clipping;
pub mod commands;
mod compare_control;
pub mod comparison;
pub mod deinterlace_control;
pub mod deinterlaced;
mod egui_layer;
pub mod field_view;
pub mod field_view_control;
mod files;
mod frame;
mod gpu_wait;
pub mod help;
pub mod live;
mod marks_control;
pub mod media;
pub mod meters;
pub mod osd;
pub mod pacing;
pub mod paired;
mod part;
mod picture;
pub mod playback;
pub mod playlist;
mod playlist_file;
mod pointer;
pub mod probe;
pub mod pse_fill;
mod pse_view;
mod readbacks;
mod scopes;
pub mod screenshot;
pub mod signal_readout;
mod sound;
pub mod stats;
pub mod stats_overlay;
pub mod strip;
pub mod surface;
pub mod vmaf_fill;
mod window;

use crate::gpu::GpuError;
use crate::video::ring::RingError;
use crate::video::source::{VideoError, VideoSource};
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum PlayerError {
    #[error(transparent)]
    Video(#[from] VideoError),
    #[error("no display to open a window on; use `histoplay hist` or `histoplay render` for headless work")]
    NoDisplay,
    #[error("could not open a window: {0}")]
    Window(String),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Ring(#[from] RingError),
    #[error("cannot draw into the window: {0}")]
    Surface(String),
    #[error("the window's surface offers no format to draw in")]
    NoSurfaceFormat,
    #[error("the window's surface keeps getting lost")]
    SurfaceLost,
    #[error("the GPU rejected the window's surface")]
    SurfaceRejected,
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    #[error("the GPU reported an error: {0}")]
    GpuFailure(String),
    #[error("cannot write the frame log '{path}': {source}")]
    FrameLog { path: PathBuf, source: std::io::Error },
    #[error("the window's event loop failed: {0}")]
    EventLoop(String),
    #[error("nothing to play: {0}")]
    NothingToPlay(String),
    #[error("{0}")]
    Compare(String),
    #[error("{0}")]
    Qc(String),
}

/// What starts a `QcHook`'s report on a source.
pub type QcStart = dyn Fn(&mut VideoSource) -> Result<(), String> + Send + Sync;

/// A report of the first file written as it is read, beside the window: `start` begins it on
/// the file's source, and keeps `beyond` up to date with the limits the frame last counted is
/// beyond, which the window warns of.
#[derive(Clone)]
pub struct QcHook {
    pub start: std::sync::Arc<QcStart>,
    pub beyond: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl std::fmt::Debug for QcHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QcHook")
            .field("beyond", &self.beyond)
            .finish_non_exhaustive()
    }
}

/// Hidden switches for tests and benchmarks.
#[derive(Clone, Debug)]
pub struct PlayerOptions {
    /// The view to start with (`--scope`, `--histograms`, `--contain`...).
    pub view: crate::render::scene::ViewOptions,
    /// Where to start the first file, seconds (`--start`, or a kept position).
    pub start: Option<f64>,
    /// Start paused (`--pause`), and fullscreen (`--fs`).
    pub paused: bool,
    pub fullscreen: bool,
    /// The window's size (`--geometry`), else its last size (`kept_size`, within the
    /// monitor), else fitted to the picture.
    pub window_size: Option<(u32, u32)>,
    pub kept_size: Option<(u32, u32)>,
    /// Where the position is kept on quitting, and what with it.
    pub watch_later: Option<crate::settings::watch_later::WatchLater>,
    /// Write a line per present here (see `stats::FrameLog`).
    pub frame_log: Option<PathBuf>,
    /// Write the first file's packets here as they are read (`--record`).
    pub record: Option<PathBuf>,
    /// QC of the first file as it is read (`--record-report`, `--fail-on`).
    pub qc: Option<QcHook>,
    /// Run `bench-play`'s script: play this many seconds, then time injected commands.
    pub bench_seconds: Option<f64>,
    /// Play the files' sound (where there is a device for it).
    pub sound: bool,
    /// The volume to start at (`--volume`, `--mute`).
    pub volume: crate::audio::Volume,
    /// Which audio stream of each file plays (`--aid`; None: none, `--aid no`).
    pub audio_track: Option<crate::audio::source::AudioTrack>,
    /// Memory for decoded frames kept for steps (`--cache-size`).
    pub cache_bytes: usize,
    /// Playback speed to start at (`--speed`).
    pub speed: f64,
    /// The sound output to play on (`--audio-device`), else the default.
    pub audio_device: Option<String>,
    /// Show the audio meters from the start (`--meters`), and the loudness they aim at
    /// (`--loudness-target`, LUFS).
    pub meters: bool,
    pub loudness_target: f64,
    /// Keys and mouse buttons: mpv's defaults with the viewer's input.conf applied.
    pub bindings: bindings::Bindings,
    /// What was wrong in the input.conf, line by line (shown in the OSD at the start).
    pub conf_warnings: Vec<String>,
    /// Start the playlist over after its last file (`--loop-playlist`).
    pub loop_playlist: bool,
    /// Loop each file (`--loop-file`, `L`).
    pub loop_file: bool,
    /// Picture adjustments to start with (`--contrast` and the rest).
    pub adjustments: crate::render::adjust::Adjustments,
    /// The LUT the picture is shown through (`--lut`), and what the scopes count meanwhile.
    pub lut: Option<std::sync::Arc<crate::colour::lut::Lut>>,
    pub scopes_on: crate::pipeline::ScopesOn,
    /// What the signal is (`--input-colour`): video, or a camera log encoding.
    pub input_colour: crate::colour::log::InputColour,
    /// SIGINT and SIGTERM, taken to quit as `q` does (see `crate::quit_signals`).
    pub signals: Option<std::sync::Arc<crate::quit_signals::QuitSignals>>,
    /// The file to compare the (first) file with (`--compare`).
    pub compare: Option<comparison::CompareOptions>,
    /// Marks on the picture to start with (`--overlay` and their levels).
    pub marks: crate::marks::MarkSettings,
    /// The waveform's graticule: its scale (`--waveform-scale`), and levels added (`--graticule`).
    pub graticule: (crate::scope::graticule::Scale, Vec<crate::scope::graticule::Level>),
    /// Deinterlacing to start with (`--deinterlace`), and the deinterlacer `d` turns on
    /// (`--deinterlacer`).
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
    pub deinterlacer: crate::video::deinterlace::Deinterlacer,
}

impl Default for PlayerOptions {
    fn default() -> Self {
        Self {
            view: Default::default(),
            start: None,
            paused: false,
            fullscreen: false,
            window_size: None,
            kept_size: None,
            watch_later: None,
            frame_log: None,
            record: None,
            qc: None,
            bench_seconds: None,
            sound: true,
            volume: Default::default(),
            audio_track: Some(Default::default()),
            cache_bytes: crate::video::decoder::DEFAULT_CACHE_BYTES,
            speed: 1.0,
            audio_device: None,
            meters: false,
            loudness_target: -23.0,
            bindings: bindings::Bindings::default(),
            conf_warnings: Vec::new(),
            loop_playlist: false,
            loop_file: false,
            adjustments: Default::default(),
            lut: None,
            scopes_on: Default::default(),
            input_colour: Default::default(),
            signals: None,
            compare: None,
            marks: Default::default(),
            graticule: Default::default(),
            deinterlace: None,
            deinterlacer: Default::default(),
        }
    }
}

/// What other threads (and wgpu's callbacks) tell the event loop.
pub enum UserEvent {
    /// The decode thread sent something (a frame, the end, an error).
    Decoded,
    /// The GPU finished the work a readback waits for (the clipping readout, a screenshot).
    GpuDone,
    /// A dropped file, opened off the event loop.
    Opened(PathBuf, Box<Result<media::OpenedFile, VideoError>>),
    ScreenshotSaved(Result<PathBuf, String>),
    /// The GPU went away or reported an error: end with it.
    Fatal(PlayerError),
    /// SIGINT or SIGTERM: quit as `q` does.
    Quit,
    /// Another of a file's audio streams started, off the event loop (`#`).
    SoundSwitched(Box<sound::SoundSwitch>),
}

/// Plays `files` (directories and playlist files expand to the files in them) in a window until the viewer
/// quits; with `bench_seconds`, runs the bench and returns its report. Files that can't be
/// opened are skipped with a warning; when none can, the last one's error comes back before any
/// window appears.
pub fn play(files: &[PathBuf], options: PlayerOptions) -> Result<Option<bench::BenchReport>, PlayerError> {
    let expanded = playlist::expand(files);
    if expanded.files.is_empty() {
        let why = match expanded.warnings.first() {
            Some(warning) => warning.clone(),
            None => "no files given".to_string(),
        };
        return Err(PlayerError::NothingToPlay(why));
    }
    for warning in &expanded.warnings {
        eprintln!("warning: {}", crate::terminal::one_line(&warning.to_string()));
    }
    let mut playlist = playlist::Playlist::new(expanded.files, options.loop_playlist);
    let source = loop {
        let Some(path) = playlist.current().map(Path::to_path_buf) else {
            return Err(PlayerError::NothingToPlay("no file could be opened".to_string()));
        };
        match VideoSource::open_to_play(&path) {
            Ok(source) => break source,
            Err(e) if playlist.len() > 1 => {
                log::warn!("skipping: {e}");
                playlist.remove(playlist.index());
            }
            Err(e) => return Err(e.into()),
        }
    };
    if !has_display() {
        return Err(PlayerError::NoDisplay);
    }
    // The window's comparison steps both files back and forth: a live input can't.
    if source.info.live && options.compare.is_some() {
        return Err(PlayerError::Compare(format!(
            "'{}' is a live input: compare it with `histoplay compare`",
            source.info.path.display()
        )));
    }
    let mut source = source;
    if let Some(record) = &options.record {
        source.record_to(record)?;
    }
    if let Some(qc) = &options.qc {
        (qc.start)(&mut source).map_err(PlayerError::Qc)?;
    }
    // A live input can't be read twice: the photosensitivity analysis reads the packets the
    // window's decoding reads.
    let pse_packets = match options.view.pse && source.info.live {
        true => Some(source.share_packets()?),
        false => None,
    };
    let event_loop = winit::event_loop::EventLoop::<UserEvent>::with_user_event()
        .build()
        .map_err(|e| {
            log::info!("no event loop: {e}");
            PlayerError::NoDisplay
        })?;
    // The sound device once there is a window to play in.
    let volume = (options.sound && options.audio_track.is_some()).then_some(options.volume);
    let track = options.audio_track.unwrap_or_default();
    let (audio, audio_tap) = media::open_sound(&mut source, volume, track, options.audio_device.as_deref());
    let audio_tracks = source.container().audio_tracks();
    let compared = match &options.compare {
        Some(compare) => Some(comparison::open_compared(&mut source, compare)?),
        None => None,
    };
    let opened = media::OpenedFile {
        source,
        audio,
        audio_tap,
        compared,
        pse_packets,
        audio_track: options.audio_track,
        audio_tracks,
    };
    if let Some(signals) = &options.signals {
        let proxy = event_loop.create_proxy();
        signals.on_signal(Box::new(move || {
            let _ = proxy.send_event(UserEvent::Quit);
        }));
    }
    let mut app = app::App::new(opened, playlist, options, event_loop.create_proxy());
    event_loop
        .run_app(&mut app)
        .map_err(|e| PlayerError::EventLoop(e.to_string()))?;
    app.outcome.unwrap_or(Ok(None))
}

/// Whether an X11 or Wayland display is named (checked up front: winit would get as far as
/// trying to connect). Other platforms always have one.
fn has_display() -> bool {
    if cfg!(all(unix, not(target_vendor = "apple"), not(target_os = "android"))) {
        ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()))
    } else {
        true
    }
}
