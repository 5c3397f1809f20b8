//! The analysis of a `bench-av` run, pure: the recording's sample arrival times, beeps and their
//! pitch, the frame log's flashes, and beeps paired with flashes.

use crate::player::stats::percentile;
use std::fmt;

/// The recording's and the clip's sample rate.
pub const RATE: f64 = 48_000.0;
/// The clip's frame rate: frame n is white when n is a multiple of it.
pub const FPS: u64 = 30;
/// The beep's pitch in the clip.
pub const PITCH_HZ: f64 = 1000.0;
/// How far a beep interval may be off before it is counted as a glitch.
pub const INTERVAL_TOLERANCE_MS: f64 = 1.0;
/// A beep pairs with the nearest flash no further away than this.
pub const PAIR_WINDOW_MS: f64 = 500.0;
/// Below this peak (1% of full scale) the recording is silence.
const MIN_PEAK: f64 = 328.0;

/// One read of the recorder's output: the samples that had arrived by then, and when the read
/// returned (CLOCK_MONOTONIC, ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Read {
    pub samples: u64,
    pub at_ns: u64,
}

/// The sink's monitor as recorded: mono samples at `RATE`, and the reads they came in.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub samples: Vec<i16>,
    pub reads: Vec<Read>,
}

/// When each sample reached the sink: `origin + i / RATE`, with the origin followed second by
/// second.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrivalModel {
    /// (sample count, origin in CLOCK_MONOTONIC ns) at the most prompt read of each second of
    /// the recording; the origin between them is interpolated.
    knots: Vec<(f64, f64)>,
}

impl ArrivalModel {
    /// Fits arrival times to the reads by their lower envelope. A read returning at t with n
    /// samples in all means the sink had handed over sample n-1 by t, so the samples' origin is
    /// no later than t - n/RATE. Every delay between the sink and this process (the server's
    /// scheduling, the socket, parec, the pipe, this thread waking) only makes a read later,
    /// never earlier, so the smallest t - n/RATE is the tightest bound and, with enough prompt
    /// reads, the origin itself. One origin for the whole run would do if the sink kept
    /// CLOCK_MONOTONIC's time, but while a stream plays PulseAudio's null sink hands its monitor
    /// 70 to 110 ppm more samples than that (measured with a steady tone: no sample repeated or
    /// lost, yet up to 7 ms a minute), so the bound is taken in each second of samples. What is left is the sink rendering up to
    /// one block ahead (its requested latency: the 2 ms `parec --latency-msec=2` asks for).
    pub fn fit(reads: &[Read]) -> Option<Self> {
        let window = RATE as u64;
        // Per second of samples: the most prompt read, and where the second's reads began.
        let mut knots: Vec<(f64, f64)> = Vec::new();
        let mut window_start = 0;
        for read in reads {
            let origin = read.at_ns as f64 - read.samples as f64 * 1e9 / RATE;
            match knots.last_mut() {
                Some(knot) if read.samples / window == window_start / window => {
                    if origin < knot.1 {
                        *knot = (read.samples as f64, origin);
                    }
                }
                _ => {
                    knots.push((read.samples as f64, origin));
                    window_start = read.samples;
                }
            }
        }
        // A last second cut short may hold no prompt read.
        let last_read = reads.last().map_or(0, |r| r.samples);
        if knots.len() > 1 && last_read - window_start < window / 2 {
            knots.pop();
        }
        (!knots.is_empty()).then_some(Self { knots })
    }

    /// When `sample` (fractional) reached the sink, CLOCK_MONOTONIC ns: between the knots on
    /// the line joining them, beyond them on the line through the first and the last.
    pub fn arrival_ns(&self, sample: f64) -> f64 {
        let line = |(x0, y0): (f64, f64), (x1, y1): (f64, f64)| {
            let slope = if x1 == x0 { 0.0 } else { (y1 - y0) / (x1 - x0) };
            y0 + slope * (sample - x0)
        };
        let after = self.knots.partition_point(|k| k.0 <= sample);
        let (first, last) = (self.knots[0], self.knots[self.knots.len() - 1]);
        let origin = match after {
            0 => line(first, last),
            n if n == self.knots.len() => line(last, first),
            n => line(self.knots[n - 1], self.knots[n]),
        };
        origin + sample / RATE * 1e9
    }

    /// The largest step of a second's origin off the line through its neighbours, in ms: a
    /// second with no prompt read (the machine too busy to read) shows here.
    pub fn roughness_ms(&self) -> f64 {
        self.knots
            .windows(3)
            .map(|k| {
                let (x0, y0, x1, y1, x2, y2) = (k[0].0, k[0].1, k[1].0, k[1].1, k[2].0, k[2].1);
                (y1 - (y0 + (y2 - y0) * (x1 - x0) / (x2 - x0))).abs() / 1e6
            })
            .fold(0.0, f64::max)
    }

    /// How far the sink's clock got ahead of CLOCK_MONOTONIC from the first second to the last,
    /// in ms (negative: behind).
    pub fn gain_ms(&self) -> f64 {
        match (self.knots.first(), self.knots.last()) {
            (Some(first), Some(last)) => (first.1 - last.1) / 1e6,
            _ => 0.0,
        }
    }
}

/// Why a run's files can't be analysed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AnalysisError {
    #[error("parec recorded nothing")]
    NothingRecorded,
    #[error("no beeps in the recording")]
    NoBeeps,
    #[error("the frame log has no '# monotonic_ns=' line to place its times")]
    NoClockLine,
    #[error("the player presented no frame")]
    NoPresents,
}

/// One beep found in the recording.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beep {
    /// Where the sine starts, in samples (fractional).
    pub onset: f64,
    /// Its pitch from zero crossings; None when the beep is too short to count.
    pub pitch_hz: Option<f64>,
}

/// Beeps: the first sample above 10% of the recording's peak after `quiet_ms` of samples below
/// it, confirmed by reaching half the peak within 5 ms (a click's lone sample doesn't). The onset
/// is then moved back by the sine's phase at that sample, as the clip's sine starts at zero.
pub fn find_beeps(samples: &[i16], quiet_ms: f64) -> Vec<Beep> {
    let peak = samples.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0) as f64;
    if peak < MIN_PEAK {
        return Vec::new();
    }
    let (loud, strong) = (0.1 * peak, 0.5 * peak);
    let quiet_len = (quiet_ms / 1000.0 * RATE) as usize;
    let confirm = (0.005 * RATE) as usize;
    let level = |i: usize| f64::from(samples[i].unsigned_abs());
    // The start of the recording counts as noise: the first beep needs silence before it too.
    let mut quiet_run = 0;
    let mut beeps = Vec::new();
    for i in 0..samples.len() {
        if level(i) < loud {
            quiet_run += 1;
            continue;
        }
        if quiet_run >= quiet_len && (i..(i + confirm).min(samples.len())).any(|j| level(j) >= strong) {
            beeps.push(measure_beep(samples, i, loud));
        }
        quiet_run = 0;
    }
    beeps
}

/// The beep whose first loud sample is `first`: its extent (up to 5 ms without a loud sample),
/// pitch over all but its first and last 2 ms, and phase-corrected onset.
fn measure_beep(samples: &[i16], first: usize, loud: f64) -> Beep {
    let gap = (0.005 * RATE) as usize;
    let level = |i: usize| f64::from(samples[i].unsigned_abs());
    let mut last = first;
    let mut i = first;
    while i < samples.len() && i - last < gap {
        if level(i) >= loud {
            last = i;
        }
        i += 1;
    }
    let amplitude = (first..=last).map(level).fold(0.0, f64::max);
    let margin = (0.002 * RATE) as usize;
    let pitch_hz = (last > first + 2 * margin)
        .then(|| zero_crossing_pitch(&samples[first + margin..last - margin]))
        .flatten();
    let phase = (level(first) / amplitude).clamp(0.0, 1.0).asin();
    let onset = first as f64 - phase / (2.0 * std::f64::consts::PI * pitch_hz.unwrap_or(PITCH_HZ)) * RATE;
    Beep { onset, pitch_hz }
}

/// The frequency of a tone from its upward zero crossings, each placed between its two samples
/// by linear interpolation; None with fewer than three crossings.
pub fn zero_crossing_pitch(samples: &[i16]) -> Option<f64> {
    let crossings: Vec<f64> = samples
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0 && w[1] >= 0)
        .map(|(i, w)| {
            let (a, b) = (f64::from(w[0]), f64::from(w[1]));
            i as f64 + a / (a - b)
        })
        .collect();
    let (first, last) = (crossings.first()?, crossings.last()?);
    (crossings.len() >= 3).then(|| (crossings.len() - 1) as f64 * RATE / (last - first))
}

/// The spacing of successive beeps, in ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntervalStats {
    pub beeps: usize,
    pub mean_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Intervals further than `INTERVAL_TOLERANCE_MS` from the expected one.
    pub off: usize,
    /// The largest distance of a beep from a steady beat at the expected interval (the beat
    /// placed to fit them best): a skip or an inserted silence shifts every beep after it, so it
    /// shows here even where a time-stretch moves single beeps by a few ms.
    pub off_beat_ms: f64,
}

/// Interval figures of beeps at `onsets_ms`; None with fewer than two beeps.
pub fn interval_stats(onsets_ms: &[f64], expected_ms: f64) -> Option<IntervalStats> {
    let intervals: Vec<f64> = onsets_ms.windows(2).map(|w| w[1] - w[0]).collect();
    if intervals.is_empty() {
        return None;
    }
    let first = onsets_ms[0];
    let beats: Vec<f64> = onsets_ms
        .iter()
        .map(|t| ((t - first) / expected_ms).round() * expected_ms)
        .collect();
    let phase = onsets_ms.iter().zip(&beats).map(|(t, b)| t - b).sum::<f64>() / onsets_ms.len() as f64;
    let off_beat_ms = onsets_ms
        .iter()
        .zip(&beats)
        .map(|(t, b)| (t - b - phase).abs())
        .fold(0.0, f64::max);
    Some(IntervalStats {
        off_beat_ms,
        beeps: onsets_ms.len(),
        mean_ms: intervals.iter().sum::<f64>() / intervals.len() as f64,
        min_ms: intervals.iter().copied().fold(f64::INFINITY, f64::min),
        max_ms: intervals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        off: intervals
            .iter()
            .filter(|i| (*i - expected_ms).abs() > INTERVAL_TOLERANCE_MS)
            .count(),
    })
}

/// A white frame's first present.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flash {
    /// The media second it starts (frame / FPS).
    pub second: u64,
    /// CLOCK_MONOTONIC, ns.
    pub at_ns: f64,
}

/// What the frame log says: when the first frame was presented, and the flashes.
#[derive(Clone, Debug, PartialEq)]
pub struct Presents {
    pub first_ns: f64,
    pub flashes: Vec<Flash>,
}

/// Reads a `--frame-log`: its `# monotonic_ns=` header puts `t_ms` on CLOCK_MONOTONIC; a flash
/// is the first present of a new frame whose number is a multiple of `FPS`, playing, not a seek
/// preview.
pub fn parse_frame_log(log: &str) -> Result<Presents, AnalysisError> {
    fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }
    let origin_ns: f64 = log
        .lines()
        .find_map(|l| l.strip_prefix("# monotonic_ns=")?.trim().parse().ok())
        .ok_or(AnalysisError::NoClockLine)?;
    let (mut first_ns, mut flashes) = (None, Vec::<Flash>::new());
    for line in log.lines().filter(|l| !l.starts_with('#')) {
        let Some(at_ns) = field(line, "t_ms")
            .and_then(|t| t.parse::<f64>().ok())
            .map(|ms| origin_ns + ms * 1e6)
        else {
            continue;
        };
        let Some(frame) = field(line, "frame").and_then(|f| f.parse::<u64>().ok()) else {
            continue;
        };
        first_ns.get_or_insert(at_ns);
        let flag = |key| field(line, key) == Some("1");
        let second = frame / FPS;
        let new_flash = frame % FPS == 0 && !flashes.iter().any(|f| f.second == second);
        if flag("new") && !flag("paused") && !flag("preview") && new_flash {
            flashes.push(Flash { second, at_ns });
        }
    }
    let first_ns = first_ns.ok_or(AnalysisError::NoPresents)?;
    Ok(Presents { first_ns, flashes })
}

/// A beep and the flash of the same media second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub second: u64,
    /// Beep arrival less flash present: positive when the sound comes later.
    pub offset_ms: f64,
}

/// Pairs each beep (arrival, ns) with the flash presented nearest to it, within
/// `PAIR_WINDOW_MS`; a flash keeps only its nearest beep.
pub fn pair(beeps_ns: &[f64], flashes: &[Flash]) -> Vec<Pair> {
    let mut nearest_beep: Vec<Option<f64>> = vec![None; flashes.len()];
    for &beep in beeps_ns {
        let nearest = flashes
            .iter()
            .enumerate()
            .map(|(f, flash)| (f, (beep - flash.at_ns) / 1e6))
            .min_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
        if let Some((f, offset)) = nearest.filter(|(_, offset)| offset.abs() <= PAIR_WINDOW_MS) {
            if nearest_beep[f].is_none_or(|o| offset.abs() < o.abs()) {
                nearest_beep[f] = Some(offset);
            }
        }
    }
    flashes
        .iter()
        .zip(nearest_beep)
        .filter_map(|(flash, offset)| {
            offset.map(|offset_ms| Pair {
                second: flash.second,
                offset_ms,
            })
        })
        .collect()
}

/// Every figure of a run.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub recorded_s: f64,
    pub reads: usize,
    /// How far the sink's clock got ahead of CLOCK_MONOTONIC over the recording.
    pub sink_gain_ms: f64,
    /// `ArrivalModel::roughness_ms`.
    pub roughness_ms: f64,
    pub intervals: Option<IntervalStats>,
    pub expected_interval_ms: f64,
    /// Median and the one furthest from `PITCH_HZ`.
    pub pitch_hz: Option<(f64, f64)>,
    pub beeps: usize,
    pub flashes: usize,
    pub pairs: Vec<Pair>,
}

/// The figures from media second 2 on (start-up is left out): flashes of frame 2·FPS and later,
/// and beeps arriving more than 1.5 periods after the first present (half a period before the
/// second-2 flash is due), up to 100 ms before the player was stopped (a later beep may be cut).
pub fn analyse(
    recording: &Recording,
    presents: &Presents,
    speed: f64,
    stopped_ns: u64,
) -> Result<Analysis, AnalysisError> {
    let model = ArrivalModel::fit(&recording.reads).ok_or(AnalysisError::NothingRecorded)?;
    let period_ms = 1000.0 / speed;
    let quiet_ms = 300.0_f64.min(period_ms / 2.0);
    let from_ns = presents.first_ns + 1.5 * period_ms * 1e6;
    let until_ns = stopped_ns as f64 - 100e6;
    let arrival_ns = |beep: &Beep| model.arrival_ns(beep.onset);
    let all = find_beeps(&recording.samples, quiet_ms);
    if all.is_empty() {
        return Err(AnalysisError::NoBeeps);
    }
    let beeps: Vec<Beep> = all
        .into_iter()
        .filter(|b| (from_ns..until_ns).contains(&arrival_ns(b)))
        .collect();
    let onsets_ms: Vec<f64> = beeps.iter().map(|b| b.onset / RATE * 1e3).collect();
    let pitches: Vec<f64> = beeps.iter().filter_map(|b| b.pitch_hz).collect();
    let worst = pitches
        .iter()
        .copied()
        .max_by(|a, b| (a - PITCH_HZ).abs().total_cmp(&(b - PITCH_HZ).abs()));
    let flashes: Vec<Flash> = presents.flashes.iter().copied().filter(|f| f.second >= 2).collect();
    let beeps_ns: Vec<f64> = beeps.iter().map(arrival_ns).collect();
    Ok(Analysis {
        recorded_s: recording.samples.len() as f64 / RATE,
        reads: recording.reads.len(),
        sink_gain_ms: model.gain_ms(),
        roughness_ms: model.roughness_ms(),
        intervals: interval_stats(&onsets_ms, period_ms),
        expected_interval_ms: period_ms,
        pitch_hz: percentile(&pitches, 0.5).zip(worst),
        beeps: beeps.len(),
        flashes: flashes.len(),
        pairs: pair(&beeps_ns, &flashes),
    })
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "recording:  {:.1} s in {} reads; the sink's clock gained {:+.2} ms on CLOCK_MONOTONIC, \
             seconds off their neighbours' line by up to {:.2} ms",
            self.recorded_s, self.reads, self.sink_gain_ms, self.roughness_ms
        )?;
        match self.intervals {
            Some(i) => writeln!(
                f,
                "intervals:  {} beeps, mean {:.2} ms (expected {:.2}), min {:.1}, max {:.1}, {} off by > {} ms; \
                 every beep within {:.1} ms of a steady beat",
                i.beeps,
                i.mean_ms,
                self.expected_interval_ms,
                i.min_ms,
                i.max_ms,
                i.off,
                INTERVAL_TOLERANCE_MS,
                i.off_beat_ms
            )?,
            None => writeln!(f, "intervals:  {} beeps after start-up, too few to space", self.beeps)?,
        }
        match self.pitch_hz {
            Some((median, worst)) => writeln!(f, "pitch:      median {median:.1} Hz, worst {worst:.1} Hz")?,
            None => writeln!(f, "pitch:      no beep long enough to count")?,
        }
        let offsets: Vec<f64> = self.pairs.iter().map(|p| p.offset_ms).collect();
        let at = |p| percentile(&offsets, p).unwrap_or(f64::NAN);
        write!(
            f,
            "a/v offset: {} pairs of {} beeps and {} flashes",
            self.pairs.len(),
            self.beeps,
            self.flashes
        )?;
        if offsets.is_empty() {
            writeln!(f)
        } else {
            writeln!(
                f,
                ", sound later than picture by p50 {:.1} ms, p95 {:.1} ms, min {:.1}, max {:.1}",
                at(0.5),
                at(0.95),
                at(0.0),
                at(1.0)
            )
        }
    }
}

#[cfg(test)]
mod tests;
