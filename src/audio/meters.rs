//! The window's audio meters, measured from the sound's own channels as it is heard: per
//! channel a peak programme meter (sample peak, falling back 20 dB in 1.7 s as IEC 60268-10's
//! type I), RMS over 300 ms, the highest sample and true peak of the last 2 s (true peak from
//! the signal 4x oversampled, ITU-R BS.1770-4 annex 2) and clipping; and EBU R128 loudness
//! (momentary, short-term, integrated, loudness range) from the same meter as `loudness`, so
//! that the window's figures are the headless command's.

use super::loudness::{dbfs, LoudnessMeter};
use std::collections::VecDeque;

/// Readings are made every `1/STEPS_PER_SECOND` s of sound.
const STEPS_PER_SECOND: u32 = 100;
/// How far the peak meter falls: 20 dB in 1.7 s.
const FALL_DB_PER_S: f64 = 20.0 / 1.7;
/// The RMS window and how long peaks are held.
const RMS_STEPS: usize = 30;
const HOLD_STEPS: usize = 200;
/// A sample at or beyond this is at full scale (16-bit sound's largest is 32767/32768).
pub const CLIP_LEVEL: f64 = 32767.0 / 32768.0;
/// The lowest level the meters show (dBFS, LUFS).
pub const FLOOR_DB: f64 = -60.0;

/// One channel's readings (dBFS; `-inf` for silence).
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelReading {
    /// Its name in the layout (`FL`, `LFE`, ...), or its number where the layout has none.
    pub name: String,
    /// The peak meter: the last 10 ms' highest sample, or the reading before it fallen back.
    pub peak: f64,
    /// RMS over the last 300 ms.
    pub rms: f64,
    /// The highest sample and true peak (dBTP) of the last 2 s.
    pub hold: f64,
    pub true_peak: f64,
    /// A sample reached full scale in the last 2 s.
    pub clipped: bool,
}

/// The loudness readings, LUFS and LU: None until there is one (a window not yet full after
/// the start or a seek; nothing above the gate).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoudnessReading {
    pub momentary: Option<f64>,
    pub short_term: Option<f64>,
    pub integrated: Option<f64>,
    pub range: Option<f64>,
    /// The highest true peak since the integration started (dBTP).
    pub max_true_peak: f64,
}

/// Everything the meters show, as of `time` (the media time of the last sound measured).
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub time: f64,
    pub channels: Vec<ChannelReading>,
    pub loudness: LoudnessReading,
}

/// A 4x oversampling interpolator: a 49-tap windowed sinc split into four phases.
struct Oversampler {
    /// Per phase, its taps (newest sample first).
    phases: [Vec<f64>; 4],
    /// Per channel, the last inputs, newest at `at`.
    history: Vec<Vec<f64>>,
    at: usize,
    /// Frames to take before the interpolated points count: after a start or a seek the
    /// history's zeros and the first sample make a step, and a step rings.
    warming: usize,
}

impl Oversampler {
    const TAPS: usize = 49;

    fn new(channels: usize) -> Self {
        let factor = 4.0;
        let middle = (Self::TAPS - 1) as f64 / 2.0;
        let mut phases: [Vec<f64>; 4] = Default::default();
        for j in 0..Self::TAPS {
            let m = j as f64 - middle;
            let x = std::f64::consts::PI * m / factor;
            let sinc = if m.abs() < 1e-9 { 1.0 } else { x.sin() / x };
            let window = 0.5 * (1.0 - (2.0 * std::f64::consts::PI * j as f64 / (Self::TAPS - 1) as f64).cos());
            phases[j % 4].push(sinc * window);
        }
        // Each phase passes a constant as it is (the window alone leaves them off by a little).
        for taps in &mut phases {
            let sum: f64 = taps.iter().sum();
            taps.iter_mut().for_each(|t| *t /= sum);
        }
        let length = phases.iter().map(Vec::len).max().unwrap_or(1);
        Self {
            phases,
            history: vec![vec![0.0; length]; channels],
            at: 0,
            warming: length,
        }
    }

    /// Takes one frame; the highest magnitude of the four points it brings, per channel (the
    /// samples' own while the history fills).
    fn push(&mut self, frame: &[f64], peaks: &mut [f64]) {
        let length = self.history[0].len();
        self.at = (self.at + 1) % length;
        if self.warming > 0 {
            self.warming -= 1;
            for ((history, &x), peak) in self.history.iter_mut().zip(frame).zip(peaks) {
                history[self.at] = x;
                *peak = peak.max(x.abs());
            }
            return;
        }
        for ((history, &x), peak) in self.history.iter_mut().zip(frame).zip(peaks) {
            history[self.at] = x;
            for taps in &self.phases {
                let mut y = 0.0;
                let mut i = self.at;
                for &tap in taps {
                    y += tap * history[i];
                    i = if i == 0 { length - 1 } else { i - 1 };
                }
                *peak = peak.max(y.abs());
            }
        }
    }

    fn reset(&mut self) {
        self.history.iter_mut().for_each(|h| h.fill(0.0));
        self.warming = self.history.first().map_or(0, Vec::len);
    }
}

/// One 10 ms step of a channel.
#[derive(Clone, Copy, Debug, Default)]
struct Step {
    peak: f64,
    true_peak: f64,
    squares: f64,
}

/// The meters of one stream of interleaved samples.
pub struct Meters {
    names: Vec<String>,
    step_size: u32,
    loudness: LoudnessMeter,
    oversampler: Oversampler,
    /// The step being measured, per channel, and its frames so far.
    current: Vec<Step>,
    in_step: u32,
    /// The last steps, newest last, per channel (HOLD_STEPS at most).
    steps: VecDeque<Vec<Step>>,
    /// The peak meters' readings (dBFS).
    falling: Vec<f64>,
    /// The readings of the last 100 ms loudness step.
    momentary: Option<f64>,
    short_term: Option<f64>,
    integrated: Option<f64>,
    range: Option<f64>,
    max_true_peak: f64,
    time: f64,
}

impl Meters {
    /// Meters for `names.len()` channels at `rate` Hz, their loudness weighed by `weights`
    /// (as `loudness` weighs them).
    pub fn new(rate: u32, names: Vec<String>, weights: Vec<f64>) -> Result<Self, String> {
        let channels = names.len();
        let mut loudness = LoudnessMeter::new(rate, weights, ffmpeg_next::ChannelLayout::empty(), false)?;
        loudness.keep_blocks(true);
        Ok(Self {
            step_size: (rate / STEPS_PER_SECOND).max(1),
            loudness,
            oversampler: Oversampler::new(channels),
            current: vec![Step::default(); channels],
            in_step: 0,
            steps: VecDeque::with_capacity(HOLD_STEPS + 1),
            falling: vec![f64::NEG_INFINITY; channels],
            momentary: None,
            short_term: None,
            integrated: None,
            range: None,
            max_true_peak: f64::NEG_INFINITY,
            time: 0.0,
            names,
        })
    }

    pub fn channels(&self) -> usize {
        self.names.len()
    }

    /// Measures interleaved samples (whole frames) that end at media time `end`.
    pub fn add(&mut self, samples: &[f64], end: f64) -> Result<(), String> {
        let channels = self.channels();
        let mut true_peaks = vec![0.0; channels];
        for frame in samples.chunks_exact(channels) {
            true_peaks.fill(0.0);
            self.oversampler.push(frame, &mut true_peaks);
            for ((step, &x), &tp) in self.current.iter_mut().zip(frame).zip(&true_peaks) {
                step.peak = step.peak.max(x.abs());
                step.true_peak = step.true_peak.max(tp);
                step.squares += x * x;
            }
            self.in_step += 1;
            if self.in_step == self.step_size {
                self.end_step();
            }
        }
        self.loudness.add(samples)?;
        if let Some(block) = self.loudness.take_blocks().last() {
            let (momentary_full, short_full) = self.loudness.windows_full();
            self.momentary = momentary_full.then_some(block.momentary);
            self.short_term = short_full.then_some(block.short_term);
            // (None while nothing is above the absolute gate.)
            let (integrated, range) = self.loudness.counted();
            self.integrated = integrated.then_some(block.integrated);
            self.range = range.then_some(block.range);
        }
        self.time = end;
        Ok(())
    }

    fn end_step(&mut self) {
        // (The oldest step's room is used again once the hold is full.)
        let mut fresh = match self.steps.len() >= HOLD_STEPS {
            true => self.steps.pop_front().unwrap_or_default(),
            false => vec![Step::default(); self.channels()],
        };
        fresh.fill(Step::default());
        let step = std::mem::replace(&mut self.current, fresh);
        self.in_step = 0;
        let fall = FALL_DB_PER_S / f64::from(STEPS_PER_SECOND);
        for (falling, s) in self.falling.iter_mut().zip(&step) {
            *falling = dbfs(s.peak).max(*falling - fall);
            self.max_true_peak = self.max_true_peak.max(dbfs(s.true_peak));
        }
        self.steps.push_back(step);
    }

    /// Starts the short readings over (a seek): the peak meters, RMS, holds, and momentary and
    /// short-term loudness. The integrated loudness, range and maximum true peak go on.
    pub fn restart_windows(&mut self) {
        self.loudness.restart_windows();
        self.oversampler.reset();
        self.current.fill(Step::default());
        self.in_step = 0;
        self.steps.clear();
        self.falling.fill(f64::NEG_INFINITY);
        (self.momentary, self.short_term) = (None, None);
    }

    /// Measuring goes on from `time` (a seek): the readings are of there on.
    pub fn moved_to(&mut self, time: f64) {
        self.time = time;
    }

    /// What comes next doesn't follow on from what came before (sound after a gap): the true
    /// peak's interpolation starts afresh rather than ring at the step.
    pub fn discontinuity(&mut self) {
        self.oversampler.reset();
    }

    /// Starts everything over: the integration too (an A-B loop's pass).
    pub fn restart(&mut self) {
        self.restart_windows();
        self.loudness.restart_totals();
        (self.integrated, self.range) = (None, None);
        self.max_true_peak = f64::NEG_INFINITY;
    }

    /// What the meters show now.
    pub fn reading(&self) -> Reading {
        let channels = (0..self.channels())
            .map(|ch| {
                let last = |n: usize| self.steps.iter().rev().take(n).map(move |s| s[ch]);
                let hold = last(HOLD_STEPS).fold(0.0, |m, s| f64::max(m, s.peak));
                let true_peak = last(HOLD_STEPS).fold(0.0, |m, s| f64::max(m, s.true_peak));
                let rms_steps = last(RMS_STEPS).count().max(1);
                let squares: f64 = last(RMS_STEPS).map(|s| s.squares).sum();
                let rms = (squares / (rms_steps as f64 * f64::from(self.step_size))).sqrt();
                ChannelReading {
                    name: self.names[ch].clone(),
                    peak: self.falling[ch],
                    rms: dbfs(rms),
                    hold: dbfs(hold),
                    true_peak: dbfs(true_peak),
                    clipped: hold >= CLIP_LEVEL,
                }
            })
            .collect();
        Reading {
            time: self.time,
            channels,
            loudness: LoudnessReading {
                momentary: self.momentary,
                short_term: self.short_term,
                integrated: self.integrated,
                range: self.range,
                max_true_peak: self.max_true_peak,
            },
        }
    }
}

/// FFmpeg's short names of the channels of a layout, in order (`FL`, `FR`, `LFE`, ...); the
/// channels' numbers from 1 where the layout doesn't place them.
pub fn channel_names(layout: ffmpeg_next::ChannelLayout, channels: usize, placed: bool) -> Vec<String> {
    const NAMES: [(u64, &str); 26] = [
        (0x1, "FL"),
        (0x2, "FR"),
        (0x4, "FC"),
        (0x8, "LFE"),
        (0x10, "BL"),
        (0x20, "BR"),
        (0x40, "FLC"),
        (0x80, "FRC"),
        (0x100, "BC"),
        (0x200, "SL"),
        (0x400, "SR"),
        (0x800, "TC"),
        (0x1000, "TFL"),
        (0x2000, "TFC"),
        (0x4000, "TFR"),
        (0x8000, "TBL"),
        (0x10000, "TBC"),
        (0x20000, "TBR"),
        (1 << 29, "DL"),
        (1 << 30, "DR"),
        (1 << 31, "WL"),
        (1 << 32, "WR"),
        (1 << 33, "SDL"),
        (1 << 34, "SDR"),
        (1 << 35, "LFE2"),
        (1 << 36, "TSL"),
    ];
    let bits = layout.bits();
    let named: Vec<String> = NAMES
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| name.to_string())
        .collect();
    match placed && named.len() == channels {
        true => named,
        false => (1..=channels).map(|n| n.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seconds` at 48 kHz of a sine of `hz` at `dbfs`, shifted by `phase` radians, in each of
    /// `levels.len()` channels at its own level.
    fn sines(levels: &[f64], hz: f64, phase: f64, seconds: f64) -> Vec<f64> {
        let frames = (seconds * 48_000.0) as usize;
        (0..frames)
            .flat_map(|n| {
                let x = (2.0 * std::f64::consts::PI * hz * n as f64 / 48_000.0 + phase).sin();
                levels.iter().map(move |db| 10f64.powf(db / 20.0) * x)
            })
            .collect()
    }

    fn stereo() -> Meters {
        Meters::new(48_000, vec!["FL".into(), "FR".into()], vec![1.0, 1.0]).unwrap()
    }

    #[test]
    fn sines_read_their_peak_rms_and_loudness() {
        let mut meters = stereo();
        meters.add(&sines(&[-20.0, -6.0], 1000.0, 0.0, 4.0), 4.0).unwrap();
        let reading = meters.reading();
        let [left, right] = &reading.channels[..] else { panic!() };
        assert_eq!((left.name.as_str(), right.name.as_str()), ("FL", "FR"));
        assert!((left.peak + 20.0).abs() < 0.01, "{left:?}");
        assert!((left.hold + 20.0).abs() < 0.01);
        // A sine's RMS is 3.01 dB under its peak.
        assert!((left.rms + 23.01).abs() < 0.01, "{left:?}");
        assert!((right.rms + 9.01).abs() < 0.01, "{right:?}");
        assert!((right.true_peak + 6.0).abs() < 0.02, "{right:?}");
        assert!(!left.clipped && !right.clipped);
        // Both channels' power: -20 and -6 dBFS at 1 kHz (K-weighting adds 0.69 dB there).
        let expected = -0.691 + 10.0 * (0.5 * (0.01 + 10f64.powf(-0.6)) * 10f64.powf(0.06908 / 1.0)).log10();
        let short = reading.loudness.short_term.unwrap();
        assert!((short - expected).abs() < 0.05, "{short} vs {expected}");
        assert!((reading.loudness.momentary.unwrap() - short).abs() < 0.01);
        assert!(reading.loudness.integrated.is_some());
    }

    #[test]
    fn a_true_peak_between_samples_is_found() {
        // 12 kHz at 48 kHz, 45° off its crests: every sample at 0.707, the wave at 1.0.
        let mut meters = stereo();
        meters
            .add(&sines(&[0.0, -10.0], 12_000.0, std::f64::consts::FRAC_PI_4, 1.0), 1.0)
            .unwrap();
        let reading = meters.reading();
        let left = &reading.channels[0];
        assert!((left.hold + 3.01).abs() < 0.01, "{left:?}");
        assert!(left.true_peak.abs() < 0.3, "{left:?}");
        assert!((reading.loudness.max_true_peak - left.true_peak).abs() < 1e-9);
        assert!(!left.clipped);
    }

    #[test]
    fn the_peak_meter_falls_20_db_in_1_7_s_and_holds_2_s() {
        let mut meters = stereo();
        meters.add(&sines(&[-6.0, -6.0], 1000.0, 0.0, 1.0), 1.0).unwrap();
        meters.add(&vec![0.0; 2 * 48_000 * 17 / 10], 2.7).unwrap();
        let left = meters.reading().channels[0].clone();
        assert!((left.peak + 26.0).abs() < 0.01, "{left:?}");
        assert!((left.hold + 6.0).abs() < 0.01, "still held: {left:?}");
        assert_eq!(left.rms, f64::NEG_INFINITY);
        meters.add(&vec![0.0; 2 * 48_000 / 2], 3.2).unwrap();
        assert_eq!(meters.reading().channels[0].hold, f64::NEG_INFINITY);
    }

    #[test]
    fn full_scale_clips_and_a_seek_starts_the_short_readings_over() {
        let mut meters = stereo();
        let square: Vec<f64> = (0..48_000)
            .flat_map(|n| [if n % 48 < 24 { 1.0 } else { -1.0 }, 0.0])
            .collect();
        meters.add(&square, 1.0).unwrap();
        let reading = meters.reading();
        assert!(reading.channels[0].clipped && !reading.channels[1].clipped);
        assert_eq!(reading.channels[0].hold, 0.0);
        assert!(reading.loudness.momentary.is_some() && reading.loudness.short_term.is_none());
        let integrated = reading.loudness.integrated;
        meters.restart_windows();
        let reading = meters.reading();
        assert!(!reading.channels[0].clipped);
        assert_eq!(reading.channels[0].peak, f64::NEG_INFINITY);
        assert_eq!(reading.loudness.momentary, None);
        assert_eq!(reading.loudness.integrated, integrated);
        meters.restart();
        assert_eq!(meters.reading().loudness.integrated, None);
    }

    #[test]
    fn channels_are_named_from_their_layout() {
        use ffmpeg_next::ChannelLayout;
        let names = channel_names(ChannelLayout::_5POINT1, 6, true);
        assert_eq!(names, ["FL", "FR", "FC", "LFE", "SL", "SR"]);
        assert_eq!(channel_names(ChannelLayout::STEREO, 2, true), ["FL", "FR"]);
        assert_eq!(channel_names(ChannelLayout::empty(), 3, false), ["1", "2", "3"]);
    }
}
