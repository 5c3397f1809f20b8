//! The stats overlay (`i` for a few seconds, `I` toggled, as mpv's stats script): decode and
//! display rates, dropped frames, the frame cache, each GPU pass's time this frame (from
//! timestamp queries where the adapter has them), what the source is and how it is decoded, and
//! FFmpeg's signalstats of the frame on screen (`signal_readout`).

use super::commands::Command;
use super::media::Media;
use super::signal_readout::{SignalOverlay, SignalReadout};
use crate::gpu::timing::{PassTimer, Timings};
use crate::gpu::GpuContext;
use crate::video::cache::CacheFill;
use crate::video::interop::FramePath;
use crate::video::source::VideoInfo;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Events per second over the last second, from a running count.
#[derive(Debug, Default)]
pub struct RateMeter {
    samples: VecDeque<(Instant, u64)>,
}

/// The span rates are measured over.
const RATE_SPAN: Duration = Duration::from_secs(1);

impl RateMeter {
    /// The count stood at `total` at `now`.
    pub fn record(&mut self, now: Instant, total: u64) {
        if self.samples.back().is_some_and(|&(_, last)| last > total) {
            // The count started over (a new file).
            self.samples.clear();
        }
        self.samples.push_back((now, total));
        while self.samples.len() > 2 && self.samples[1].0 + RATE_SPAN <= now {
            self.samples.pop_front();
        }
    }

    /// Events per second between the oldest sample kept and the newest; None over less than a
    /// tenth of a second.
    pub fn rate(&self) -> Option<f64> {
        let (&(t0, n0), &(t1, n1)) = (self.samples.front()?, self.samples.back()?);
        let span = t1.duration_since(t0).as_secs_f64();
        (span >= 0.1).then(|| (n1 - n0) as f64 / span)
    }
}

/// What the overlay shows, gathered by the player each frame it is up.
pub struct StatsInput<'a> {
    pub info: &'a VideoInfo,
    /// The camera log encoding the signal is read in, if any.
    pub exposure: Option<crate::colour::LogEncoding>,
    /// `2/5` when more than one file is queued.
    pub playlist: Option<String>,
    pub decode_rate: Option<f64>,
    pub display_rate: Option<f64>,
    pub speed: f64,
    pub dropped: u64,
    pub cache: CacheFill,
    /// Which path carries the frames to the GPU.
    pub frame_path: FramePath,
    /// The latest GPU timings, or None where the adapter has no timestamps.
    pub timings: Option<&'a Timings>,
    pub timestamps: bool,
    pub adjustments: Option<String>,
    /// The marks on the picture, while any is.
    pub marks: Option<String>,
    pub adapter: &'a str,
    /// FFmpeg's signalstats of the frame on screen (`SignalReadout::lines`).
    pub signal: Vec<(&'static str, String)>,
    /// The fields of the frame on screen as the decoder flags them.
    pub fields: Option<crate::video::source::Fields>,
}

/// The overlay's lines: a label and its text.
pub fn lines(input: &StatsInput) -> Vec<(&'static str, String)> {
    let info = input.info;
    let format = &info.format;
    let name = info
        .path
        .file_name()
        .map_or_else(|| info.path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut lines = vec![(
        "file",
        match &input.playlist {
            Some(position) => format!("{name}  ({position})"),
            None => name,
        },
    )];
    let (matrix, range) = (format.color.matrix.label(), format.color.range.label());
    lines.push((
        "video",
        format!(
            "{} {} {}x{}, {matrix} {range} range, {}, {}-bit counting",
            info.codec,
            info.pixel_format,
            format.width,
            format.height,
            info.volume.transfer.label(),
            format.layout.output_bits()
        ),
    ));
    if let Some(fields) = input.fields {
        let flagged = fields.description();
        lines.push(("fields", format!("{flagged} (the stream says {})", info.field_order)));
    }
    if let Some(encoding) = input.exposure {
        let whence = if info.log == Some(encoding) {
            " (the file's tag)"
        } else {
            ""
        };
        lines.push(("log", format!("{}{whence}", encoding.label())));
    }
    lines.push((
        "decoder",
        match info.hwdec {
            Some(name) => format!("{name} (hardware)"),
            None => "software".to_string(),
        },
    ));
    lines.push(("frames", input.frame_path.to_string()));
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1}"));
    lines.push((
        "fps",
        format!(
            "decode {}  display {}  file {:.3}  speed {:.2}×",
            rate(input.decode_rate),
            rate(input.display_rate),
            1.0 / info.frame_duration,
            input.speed
        ),
    ));
    lines.push(("dropped", input.dropped.to_string()));
    let mib = |bytes: usize| bytes as f64 / f64::from(1 << 20);
    let cache = input.cache;
    lines.push((
        "cache",
        format!(
            "{:.0} / {:.0} MiB, {} frames",
            mib(cache.bytes),
            mib(cache.budget),
            cache.frames
        ) + &match cache.gpu_budget {
            0 => String::new(),
            budget => format!(", GPU {:.0} / {:.0} MiB", mib(cache.gpu_bytes), mib(budget)),
        },
    ));
    lines.push(("gpu", gpu_line(input)));
    lines.push(("adapter", input.adapter.to_string()));
    lines.push(("version", crate::version::summary().to_string()));
    if let Some(adjustments) = &input.adjustments {
        lines.push(("picture", adjustments.clone()));
    }
    if let Some(marks) = &input.marks {
        lines.push(("marks", marks.clone()));
    }
    lines.extend(input.signal.iter().cloned());
    lines
}

/// `convert 0.041 ms  histograms 0.019 ms ...` for the passes run this frame.
fn gpu_line(input: &StatsInput) -> String {
    let timings = match (input.timestamps, input.timings) {
        (false, _) => return "no timestamp queries on this adapter".to_string(),
        (true, None) => return "timing…".to_string(),
        (true, Some(timings)) => timings,
    };
    let passes: Vec<String> = timings
        .passes
        .iter()
        .filter_map(|(name, ms)| ms.map(|ms| format!("{name} {ms:.3} ms")))
        .collect();
    passes.join("  ")
}

/// How long `i` shows the stats overlay (mpv's stats script shows it for 4 s too).
const STATS_TIME: Duration = Duration::from_secs(4);
/// How often the stats overlay's figures are redrawn.
const STATS_REFRESH: Duration = Duration::from_millis(250);

/// The stats overlay's state: whether it is up, the rates it measures, the GPU passes' timer
/// and the signal statistics it counts while up.
pub struct StatsOverlay {
    /// Shown until then (`i`), or toggled on (`I`).
    until: Option<Instant>,
    on: bool,
    /// The signal statistics the overlay shows, counted while it is up.
    signal: Option<SignalOverlay>,
    /// Times the frame's GPU passes while the overlay is up (None: no timestamps here).
    pass_timer: Option<PassTimer>,
    timings: Option<Timings>,
    decode_meter: RateMeter,
    display_meter: RateMeter,
    /// New frames presented, for the display rate.
    shown_frames: u64,
    /// When the overlay is next redrawn with fresh figures.
    refresh: Instant,
    gpu_name: String,
}

/// What the stats overlay shows that is not its own: the playlist's position, and the notes
/// of the picture adjustments and marks.
pub struct StatsNotes {
    pub playlist: Option<String>,
    pub adjustments: Option<String>,
    pub marks: Option<String>,
}

impl StatsOverlay {
    pub fn new(gpu: &GpuContext, now: Instant) -> Self {
        let info = gpu.adapter.get_info();
        Self {
            until: None,
            on: false,
            signal: None,
            pass_timer: PassTimer::new(&gpu.device, &gpu.queue, &crate::pipeline::TIMED_PASSES),
            timings: None,
            decode_meter: RateMeter::default(),
            display_meter: RateMeter::default(),
            shown_frames: 0,
            refresh: now,
            gpu_name: format!("{} ({:?})", info.name, info.backend),
        }
    }

    /// Whether the overlay is up.
    pub fn visible(&self, now: Instant) -> bool {
        self.on || self.until.is_some_and(|t| t > now)
    }

    /// `i` and `I`: the overlay for a few seconds, or toggled.
    pub fn command(&mut self, command: &Command, now: Instant, gpu: &GpuContext, media: &mut Media) {
        match command {
            Command::ShowStats => self.until = Some(now + STATS_TIME),
            Command::ToggleStats => {
                self.on = !self.on;
                self.until = None;
            }
            _ => return,
        }
        self.count_shown_signal(now, gpu, media);
    }

    /// Counts the signal statistics of the frames drawn while the overlay is `visible` (the
    /// stage and its readbacks are made the first time, for each file), and not otherwise.
    pub fn prepare_signal(&mut self, visible: bool, gpu: &GpuContext, media: &mut Media) {
        let serial = media.serial;
        if visible && self.signal.as_ref().is_none_or(|s| s.media != serial) {
            self.signal = Some(SignalOverlay::new(gpu, &mut media.pipeline, serial));
        }
        media.pipeline.pause_stats(!visible);
        if let Some(signal) = self.signal.as_mut().filter(|_| !visible) {
            signal.pause();
        }
    }

    /// The signal statistics of file `serial` landed last.
    fn signal_shown(&self, serial: u64) -> Option<&SignalReadout> {
        let signal = self.signal.as_ref().filter(|s| s.media == serial)?;
        signal.shown.as_ref()
    }

    /// The overlay came up over a paused frame whose statistics aren't counted: it is decoded
    /// again (its planes were given back once it was converted) and counted as it lands.
    fn count_shown_signal(&mut self, now: Instant, gpu: &GpuContext, media: &mut Media) {
        if !self.visible(now) || !media.playback.paused() {
            return;
        }
        let Some(shown) = media.playback.shown() else {
            return;
        };
        if self.signal_shown(media.serial).is_some_and(|r| r.frame == shown.index) {
            return;
        }
        self.prepare_signal(true, gpu, media);
        if let Some(signal) = &mut self.signal {
            // Another frame's figures would pass for this one's.
            signal.shown = None;
        }
        if self.signal.as_ref().is_some_and(SignalOverlay::counted) {
            media.playback.seek_frame(shown.index);
        }
    }

    /// The overlay's signal lines: the statistics landed, or why there are none.
    fn signal_lines(&self, serial: u64) -> Vec<(&'static str, String)> {
        match (&self.signal, self.signal_shown(serial)) {
            (_, Some(readout)) => readout.lines(),
            (Some(signal), None) if signal.media == serial && !signal.counted() => {
                vec![("signal", "not counted: the planes are not 8- or 10-bit Y'CbCr".into())]
            }
            _ => vec![("signal", "counting...".into())],
        }
    }

    /// The overlay's lines, while it is up.
    pub fn lines(&self, now: Instant, media: &Media, notes: StatsNotes) -> Option<Vec<(&'static str, String)>> {
        if !self.visible(now) {
            return None;
        }
        let playback = &media.playback;
        let input = StatsInput {
            info: &media.info,
            exposure: media.pipeline.exposure(),
            playlist: notes.playlist,
            decode_rate: self.decode_meter.rate(),
            display_rate: self.display_meter.rate(),
            speed: playback.speed(),
            dropped: playback.dropped(),
            cache: playback.source.cache_fill(),
            frame_path: playback.source.frame_path(),
            timings: self.timings.as_ref(),
            timestamps: self.pass_timer.is_some(),
            adjustments: notes.adjustments,
            marks: notes.marks,
            adapter: &self.gpu_name,
            signal: self.signal_lines(media.serial),
            fields: playback.shown().map(|s| s.packet.fields),
        };
        Some(lines(&input))
    }

    /// The frame log's `signal=` field, while the overlay shows the statistics of file `serial`.
    pub fn log_field(&self, at: Instant, serial: u64) -> Option<String> {
        self.signal_shown(serial)
            .filter(|_| self.visible(at))
            .map(SignalReadout::log_field)
    }

    /// The GPU passes' timer, while the overlay is `visible`.
    pub fn timer(&self, visible: bool) -> Option<&PassTimer> {
        self.pass_timer.as_ref().filter(|_| visible)
    }

    /// Converts the new frame in `slot` (number `index`) through the pipeline, timing its passes
    /// and counting its signal statistics while the overlay is `visible`.
    pub fn encode_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        media: &Media,
        slot: usize,
        index: u64,
        visible: bool,
    ) {
        let pipeline = &media.pipeline;
        let timer = self.pass_timer.as_ref().filter(|_| visible);
        let signal = match (&mut self.signal, pipeline.counting_stats()) {
            (Some(signal), Some(stage)) => Some((signal.begin(stage, index), signal)),
            _ => None,
        };
        pipeline.encode_frame_timed(encoder, slot, timer);
        if let (Some((tag, signal)), Some(stage)) = (signal, pipeline.counting_stats()) {
            signal.record(encoder, stage, tag);
        }
    }

    /// Resolves the frame's timestamps (when they were taken) into `encoder`, before it is
    /// submitted.
    pub fn finish(&mut self, encoder: &mut wgpu::CommandEncoder, timed: bool) {
        if let Some(timer) = self.pass_timer.as_mut().filter(|_| timed) {
            timer.finish(encoder);
        }
    }

    /// The frame's work was submitted: its readbacks may be mapped.
    pub fn submitted(&mut self, timed: bool) {
        if let Some(signal) = &mut self.signal {
            signal.submitted();
        }
        if let Some(timer) = self.pass_timer.as_mut().filter(|_| timed) {
            timer.submitted();
        }
    }

    /// Whether a readback (timestamps, signal statistics) waits on the GPU.
    pub fn pending(&self) -> bool {
        self.pass_timer.as_ref().is_some_and(PassTimer::pending)
            || self.signal.as_ref().is_some_and(SignalOverlay::pending)
    }

    /// A frame was presented (`new_frame`: a new one), for the display rate.
    pub fn presented(&mut self, new_frame: bool) {
        if new_frame {
            self.shown_frames += 1;
        }
    }

    /// Takes finished readbacks of file `media`'s; true when the overlay must be drawn again.
    pub fn poll(&mut self, media: &Media, now: Instant) -> bool {
        if let Some(timings) = self.pass_timer.as_mut().and_then(PassTimer::latest) {
            self.timings = Some(timings);
        }
        let visible = self.visible(now);
        let signal = self.signal.as_mut().filter(|s| s.media == media.serial);
        signal.is_some_and(|s| s.poll(media.pipeline.stats())) && media.playback.paused() && visible
    }

    /// Measures the rates, and says when the overlay is next redrawn (pushed on `wake`); true
    /// when it is due now.
    pub fn wake(&mut self, now: Instant, media: &Media, wake: &mut Vec<Option<Instant>>) -> bool {
        self.decode_meter.record(now, media.playback.received());
        self.display_meter.record(now, self.shown_frames);
        let mut redraw = false;
        // The overlay refreshes a few times a second, and goes when its time is up.
        if self.visible(now) {
            if self.refresh <= now {
                redraw = true;
                self.refresh = now + STATS_REFRESH;
            }
            wake.push(Some(self.refresh));
        }
        if let Some(until) = self.until {
            if until <= now {
                self.until = None;
                redraw = true;
            } else {
                wake.push(Some(until));
            }
        }
        redraw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_count_over_the_last_second() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut meter = RateMeter::default();
        assert_eq!(meter.rate(), None);
        meter.record(t0, 0);
        meter.record(ms(50), 3);
        assert_eq!(meter.rate(), None, "too short to tell");
        for i in 1..=40u64 {
            meter.record(ms(i * 50), i * 3);
        }
        // 60 per second, measured over the last second only.
        let rate = meter.rate().unwrap();
        assert!((rate - 60.0).abs() < 1e-9, "{rate}");
        assert!(meter.samples.front().unwrap().0 >= ms(950));
        // A new file's count starts over.
        meter.record(ms(2100), 1);
        assert_eq!(meter.rate(), None);
    }

    #[test]
    fn the_overlay_says_which_path_carries_the_frames_and_fills_the_gpu_cache_line() {
        let source = crate::video::source::VideoSource::open(std::path::Path::new("media/sample-540p.mp4")).unwrap();
        let mut input = StatsInput {
            info: &source.info,
            exposure: None,
            playlist: None,
            decode_rate: None,
            display_rate: None,
            speed: 1.0,
            dropped: 0,
            cache: CacheFill {
                bytes: 300 << 20,
                frames: 97,
                budget: 1 << 30,
                gpu_bytes: 0,
                gpu_budget: 0,
            },
            frame_path: FramePath::Software,
            timings: None,
            timestamps: false,
            adjustments: None,
            marks: None,
            adapter: "test",
            signal: Vec::new(),
            fields: None,
        };
        let line = |input: &StatsInput, label| lines(input).into_iter().find(|(l, _)| *l == label).unwrap().1;
        assert_eq!(line(&input, "frames"), "software decoding, uploaded from memory");
        assert_eq!(line(&input, "cache"), "300 / 1024 MiB, 97 frames");
        input.frame_path = FramePath::OnGpu {
            frames: 80,
            frame_bytes: 100 << 20,
        };
        input.cache.gpu_bytes = 2000 << 20;
        input.cache.gpu_budget = 7200 << 20;
        assert_eq!(
            line(&input, "frames"),
            "NVDEC to Vulkan on the GPU (GPU cache 80 frames, 8000 MiB)"
        );
        assert_eq!(line(&input, "cache"), "300 / 1024 MiB, 97 frames, GPU 2000 / 7200 MiB");
        // A log encoding in force has a line of its own (the sample names none).
        assert!(lines(&input).iter().all(|(l, _)| *l != "log"));
        input.exposure = Some(crate::colour::LogEncoding::VLog);
        assert_eq!(line(&input, "log"), "V-Log / V-Gamut");
        // The frame's fields, once a frame is shown.
        assert!(lines(&input).iter().all(|(l, _)| *l != "fields"));
        input.fields = Some(crate::video::source::Fields {
            interlaced: true,
            top_first: false,
            repeated: false,
        });
        assert_eq!(
            line(&input, "fields"),
            format!(
                "interlaced, bottom field first (the stream says {})",
                input.info.field_order
            )
        );
    }
}
