//! FFmpeg's `silencedetect`, on the decoded samples in their own format (as the filter takes
//! them: 16- or 32-bit integers, floats or doubles, packed or planar; 8-bit sound as FFmpeg
//! converts it, to 16 bits): a sample is silent strictly under the noise level (for integers,
//! the level times the format's full scale, truncated), and a silence is reported once every
//! channel (or, with `m`, one channel) has been silent for `d`; it ends at the first sample that
//! is not, or at the end of the stream. Times are in samples of the stream's rate from the
//! decoded frames' timestamps made continuous as `ffmpeg` makes them (`av_rescale_delta`).

use super::{rescale, seconds, Event, EventKind, SilenceOptions};
use ffmpeg::format::sample::Sample;
use ffmpeg_next as ffmpeg;

/// The noise level in a sample format's own terms.
#[derive(Clone, Copy, Debug)]
enum Level {
    Double(f64),
    Float(f32),
    I32(i32),
    I16(i16),
}

/// Follows one stream's decoded frames.
pub struct SilenceDetect {
    options: SilenceOptions,
    channels: usize,
    /// Channels followed apart (1, or every channel with `m`).
    independent: usize,
    rate: i64,
    /// `d` in samples at `rate`.
    duration: i64,
    /// Per followed channel, silent samples in a row, and where a reported silence began.
    null_samples: Vec<i64>,
    start: Vec<Option<i64>>,
    /// The end of the last frame, in samples (a silence going on at the end ends there).
    frame_end: i64,
    /// Where the next frame is expected, in samples (`av_rescale_delta`'s `last`).
    next: Option<i64>,
    /// The last frame's timestamp, in the stream's time base.
    last_pts: Option<i64>,
    /// The last frame's sample format and channel layout (its channels and rate are `channels`
    /// and `rate`): a change of any of the four starts the filter again.
    kind: Option<(Sample, u64)>,
    events: Vec<Event>,
    /// The tags FFmpeg sets on the frames the silences are found and end in, with the time of
    /// the sample that found or ended each (a report places them on its own frames).
    tags: Vec<(f64, String, String)>,
}

impl SilenceDetect {
    pub fn new(options: SilenceOptions, channels: usize, rate: u32) -> Self {
        let independent = if options.mono { channels.max(1) } else { 1 };
        let rate = i64::from(rate.max(1));
        Self {
            options,
            channels: channels.max(1),
            independent,
            rate,
            duration: rescale(options.duration_us, (1, 1_000_000), (1, rate)),
            null_samples: vec![0; independent],
            start: vec![None; independent],
            frame_end: 0,
            next: None,
            last_pts: None,
            kind: None,
            events: Vec::new(),
            tags: Vec::new(),
        }
    }

    /// One decoded frame of the stream whose time base is `time_base`; of its samples, those
    /// `within` a span (seconds) where one is given, as FFmpeg's `atrim` cuts the sound of a
    /// range (its ends rounded to the nearest sample).
    pub fn frame(&mut self, frame: &ffmpeg::frame::Audio, time_base: (i32, i32), within: Option<(f64, f64)>) {
        let samples = frame.samples();
        if samples == 0 {
            return;
        }
        let (channels, rate) = (usize::from(frame.channels()).max(1), i64::from(frame.rate().max(1)));
        let kind = (frame.format(), crate::audio::layout::of_frame(frame).bits());
        // (The first frame's channels and rate against what the stream said of itself.)
        if (channels, rate) != (self.channels, self.rate) || self.kind.is_some_and(|last| last != kind) {
            self.start_again(channels, rate);
        }
        self.kind = Some(kind);
        let stamp = frame.pts().or(frame.timestamp());
        // A packet later than the one before by more than its length starts the times afresh
        // from its timestamp (as `ffmpeg` does before making them continuous).
        let length = frame.packet().duration;
        if let (Some(stamp), Some(last)) = (stamp, self.last_pts) {
            if length > 0 && stamp - last > length {
                self.next = None;
            }
        }
        self.last_pts = stamp.or(self.last_pts);
        let pts = self.place(stamp, time_base, samples as i64);
        let (first, end) = match within {
            Some((from, to)) => {
                let at = |seconds: f64| ((seconds * self.rate as f64).round() as i64 - pts).clamp(0, samples as i64);
                (at(from) as usize, at(to) as usize)
            }
            None => (0, samples),
        };
        if end <= first {
            return;
        }
        self.frame_end = pts + end as i64;
        let notify = self.duration * if self.options.mono { 1 } else { self.channels as i64 };
        let format = frame.format();
        let level = level(self.options.noise, format);
        let channels = self.channels;
        let planar = frame.is_planar();
        for i in first * channels..end * channels {
            // Interleaved order: sample i / channels of channel i % channels.
            let (n, ch) = (i / channels, i % channels);
            let silent = silent(frame, format, level, planar, n, ch, channels);
            self.update(silent, i as i64, pts, notify);
        }
    }

    /// The frame's first sample's time in samples, continuous with the frame before where its
    /// timestamp allows (FFmpeg's `av_rescale_delta` into 1/rate).
    fn place(&mut self, pts: Option<i64>, time_base: (i32, i32), duration: i64) -> i64 {
        let tb = (i64::from(time_base.0), i64::from(time_base.1.max(1)));
        let fs = (1, self.rate);
        let Some(ts) = pts else {
            let at = self.next.unwrap_or(0);
            self.next = Some(at + duration);
            return at;
        };
        let simple = |next: &mut Option<i64>| {
            let at = rescale(ts, tb, fs);
            *next = Some(at + duration);
            at
        };
        // A time base as fine as the samples' needs no help.
        let Some(last) = self.next.filter(|_| tb.0 * fs.1 > fs.0 * tb.1) else {
            return simple(&mut self.next);
        };
        let a = rescale_rounded(2 * ts - 1, tb, fs, false) >> 1;
        let b = (rescale_rounded(2 * ts + 1, tb, fs, true) + 1) >> 1;
        if last < 2 * a - b || last > 2 * b - a {
            return simple(&mut self.next);
        }
        let at = last.clamp(a, b);
        self.next = Some(at + duration);
        at
    }

    fn update(&mut self, silent: bool, current: i64, pts: i64, notify: i64) {
        let c = (current % self.independent as i64) as usize;
        let channels = self.channels as i64;
        let at = pts + current / channels;
        if silent {
            if self.start[c].is_none() {
                self.null_samples[c] += 1;
                if self.null_samples[c] >= notify {
                    let back = notify * self.independent as i64 / channels;
                    let start = at + 1 - back;
                    self.start[c] = Some(start);
                    self.tag(at, c, "silence_start", start);
                }
            }
            return;
        }
        if let Some(start) = self.start[c].take() {
            self.push(c, start, at);
            self.tag(at, c, "silence_end", at);
            self.tag(at, c, "silence_duration", at - start);
        }
        self.null_samples[c] = 0;
    }

    /// FFmpeg's tag `lavfi.NAME` (`lavfi.NAME.K` for channel K from 1, with `m`) of the time
    /// `value` (in samples), set at sample `at`.
    fn tag(&mut self, at: i64, channel: usize, name: &str, value: i64) {
        let key = match self.options.mono {
            true => format!("lavfi.{name}.{}", channel + 1),
            false => format!("lavfi.{name}"),
        };
        let time = |ts: i64| seconds(ts, (1, self.rate));
        self.tags
            .push((time(at), key, crate::signalstats::format::g(time(value))));
    }

    /// The tags set since last asked: (the time of the sample that set it, key, value).
    pub fn take_tags(&mut self) -> Vec<(f64, String, String)> {
        std::mem::take(&mut self.tags)
    }

    fn push(&mut self, channel: usize, start: i64, end: i64) {
        let time = |ts: i64| seconds(ts, (1, self.rate));
        self.events.push(Event {
            kind: EventKind::Silence,
            start: time(start),
            end: Some(time(end)),
            duration: Some(time(end - start)),
            frames: None,
            channel: self.options.mono.then_some(channel as u32 + 1),
        });
    }

    /// The silences that ended since last asked.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The sound changed its channels, rate, sample format or layout: `ffmpeg` makes its
    /// filters again for the new frames, and the filter it lets go of ends the silence going on
    /// at the end of the last frame it had (no tags: there is no frame to put them on). The new
    /// one counts from nothing; the times go on as they were made continuous (`ffmpeg` keeps
    /// that apart from the filters).
    fn start_again(&mut self, channels: usize, rate: i64) {
        for c in 0..self.independent {
            if let Some(start) = self.start[c].take() {
                self.push(c, start, self.frame_end);
            }
        }
        self.channels = channels;
        self.independent = if self.options.mono { channels } else { 1 };
        self.null_samples = vec![0; self.independent];
        self.start = vec![None; self.independent];
        self.rate = rate;
        self.duration = rescale(self.options.duration_us, (1, 1_000_000), (1, rate));
    }

    /// A silence going on at the end of the stream ends there (the end of its last frame).
    pub fn finish(&mut self) -> Vec<Event> {
        for c in 0..self.independent {
            if let Some(start) = self.start[c].take() {
                self.push(c, start, self.frame_end);
            }
        }
        self.take_events()
    }
}

/// `a` from `from` to `to`, rounded up or down (av_rescale_q_rnd with AV_ROUND_UP/DOWN).
fn rescale_rounded(a: i64, from: (i64, i64), to: (i64, i64), up: bool) -> i64 {
    let n = i128::from(a) * i128::from(from.0) * i128::from(to.1);
    let d = i128::from(from.1) * i128::from(to.0);
    let q = n.div_euclid(d);
    (if up && n.rem_euclid(d) != 0 { q + 1 } else { q }) as i64
}

fn level(noise: f64, format: Sample) -> Level {
    match format {
        Sample::F64(_) | Sample::I64(_) => Level::Double(noise),
        Sample::F32(_) => Level::Float(noise as f32),
        Sample::I32(_) => Level::I32((noise * f64::from(i32::MAX)) as i32),
        _ => Level::I16((noise * f64::from(i16::MAX)) as i16),
    }
}

/// Whether sample `n` of channel `ch` is under the level, read as the filter reads it.
fn silent(
    frame: &ffmpeg::frame::Audio,
    format: Sample,
    level: Level,
    planar: bool,
    n: usize,
    ch: usize,
    channels: usize,
) -> bool {
    let (plane, at) = if planar { (ch, n) } else { (0, n * channels + ch) };
    let data = frame.data(plane);
    let read = |size: usize| -> &[u8] { &data[at * size..at * size + size] };
    match (format, level) {
        (Sample::F64(_), Level::Double(l)) => {
            let x = f64::from_ne_bytes(read(8).try_into().expect("8 bytes"));
            x < l && x > -l
        }
        (Sample::I64(_), Level::Double(l)) => {
            // (FFmpeg converts 64-bit integers to doubles for the filter.)
            let x = i64::from_ne_bytes(read(8).try_into().expect("8 bytes")) as f64 / 9_223_372_036_854_775_808.0;
            x < l && x > -l
        }
        (Sample::F32(_), Level::Float(l)) => {
            let x = f32::from_ne_bytes(read(4).try_into().expect("4 bytes"));
            x < l && x > -l
        }
        (Sample::I32(_), Level::I32(l)) => {
            let x = i32::from_ne_bytes(read(4).try_into().expect("4 bytes"));
            x < l && x > -l
        }
        (Sample::I16(_), Level::I16(l)) => {
            let x = i16::from_ne_bytes(read(2).try_into().expect("2 bytes"));
            x < l && x > -l
        }
        (Sample::U8(_), Level::I16(l)) => {
            // 8-bit sound as FFmpeg hands it to the filter: 16 bits.
            let x = (i16::from(read(1)[0]) - 128) << 8;
            x < l && x > -l
        }
        _ => false,
    }
}
