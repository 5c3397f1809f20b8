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
mod tests {
    use super::*;

    /// A recording at `RATE`: a 50 ms sine of `pitch` starting at each of `onsets` (seconds,
    /// fractional samples allowed), amplitude 0.5, over low noise.
    fn beeping(onsets: &[f64], pitch: f64, seconds: f64) -> Vec<i16> {
        let mut noise = 0x2545_f491u32;
        (0..(seconds * RATE) as usize)
            .map(|i| {
                let t = i as f64 / RATE;
                let tone = onsets
                    .iter()
                    .find(|&&o| t >= o && t < o + 0.05)
                    .map_or(0.0, |o| 0.5 * (2.0 * std::f64::consts::PI * pitch * (t - o)).sin());
                noise ^= noise << 13;
                noise ^= noise >> 17;
                noise ^= noise << 5;
                let hiss = f64::from(noise % 61) - 30.0;
                (tone * 32767.0 + hiss).round() as i16
            })
            .collect()
    }

    #[test]
    fn beeps_with_jitter_give_their_intervals_and_pitch() {
        let jitter_ms = [0.0, 0.4, -0.3, 1.7, 0.0, -2.2];
        let onsets: Vec<f64> = jitter_ms
            .iter()
            .enumerate()
            .map(|(k, j)| 0.5 + k as f64 + j / 1000.0)
            .collect();
        let samples = beeping(&onsets, 1000.0, 6.8);
        let beeps = find_beeps(&samples, 300.0);
        assert_eq!(beeps.len(), onsets.len(), "{beeps:?}");
        for (beep, onset) in beeps.iter().zip(&onsets) {
            assert!((beep.onset / RATE - onset).abs() < 0.02e-3, "{beep:?} vs {onset}");
            let pitch = beep.pitch_hz.unwrap_or(0.0);
            assert!((pitch - 1000.0).abs() < 0.5, "{pitch}");
        }
        let onsets_ms: Vec<f64> = beeps.iter().map(|b| b.onset / RATE * 1e3).collect();
        let stats = interval_stats(&onsets_ms, 1000.0).unwrap();
        assert_eq!(stats.beeps, 6);
        assert!((stats.min_ms - 997.8).abs() < 0.02, "{stats:?}");
        assert!((stats.max_ms - 1002.0).abs() < 0.02, "{stats:?}");
        assert!((stats.mean_ms - (1000.0 - 2.2 / 5.0)).abs() < 0.02, "{stats:?}");
        // 1.7 - (-0.3) = 2.0 and -2.2 - 0 = -2.2 and 0 - 1.7 = -1.7 are off by more than 1 ms.
        assert_eq!(stats.off, 3);
    }

    #[test]
    fn a_detuned_beep_reads_its_own_pitch() {
        let samples = beeping(&[0.4, 1.4], 1012.0, 2.0);
        let beeps = find_beeps(&samples, 300.0);
        assert_eq!(beeps.len(), 2);
        for beep in beeps {
            let pitch = beep.pitch_hz.unwrap_or(0.0);
            assert!((pitch - 1012.0).abs() < 0.5, "{pitch}");
        }
    }

    #[test]
    fn silence_and_clicks_are_not_beeps() {
        assert!(find_beeps(&beeping(&[], 1000.0, 1.0), 300.0).is_empty());
        let mut samples = beeping(&[0.7], 1000.0, 1.0);
        // A lone click after enough quiet: loud, but nothing near it reaches half the peak.
        samples[(0.35 * RATE) as usize] = 4000;
        let beeps = find_beeps(&samples, 300.0);
        assert_eq!(beeps.len(), 1);
        // Beeps closer than the quiet time run together into the first.
        assert_eq!(find_beeps(&beeping(&[0.4, 0.6], 1000.0, 1.0), 300.0).len(), 1);
    }

    /// Reads of 2 ms of samples each from a sink whose clock runs `ppm` fast, late by 0..7 ms
    /// of scheduling but every seventh one prompt.
    fn reads(origin_ns: f64, ppm: f64, count: u64) -> Vec<Read> {
        (1..=count)
            .map(|k| {
                let samples = k * 96;
                let late_ns = (k * 1_000_003 % 7_000_000) * u64::from(k % 7 != 0);
                let at_ns = origin_ns + samples as f64 * 1e9 / RATE / (1.0 + ppm * 1e-6) + late_ns as f64;
                Read {
                    samples,
                    at_ns: at_ns as u64,
                }
            })
            .collect()
    }

    #[test]
    fn the_lower_envelope_finds_when_samples_arrived() {
        let origin_ns = 5_000_000_000.0;
        let model = ArrivalModel::fit(&reads(origin_ns, 0.0, 3000)).unwrap();
        for sample in [0.0, 1234.5, 100_000.0, 288_000.0] {
            let error_ns = model.arrival_ns(sample) - (origin_ns + sample / RATE * 1e9);
            assert!(error_ns.abs() < 1.0, "{sample}: {error_ns} ns off");
        }
        assert!(model.gain_ms().abs() < 1e-6, "{model:?}");
        assert!(model.roughness_ms() < 1e-6, "{model:?}");
        assert_eq!(ArrivalModel::fit(&[]), None);
        // A second in which every read came 3 ms late stands out.
        let mut busy = reads(origin_ns, 0.0, 3000);
        busy[1000..1500].iter_mut().for_each(|r| r.at_ns += 3_000_000);
        let roughness = ArrivalModel::fit(&busy).unwrap().roughness_ms();
        assert!(roughness > 2.0, "{roughness}");
    }

    #[test]
    fn the_envelope_follows_a_sink_clock_that_runs_fast() {
        let origin_ns = 5_000_000_000.0;
        // 60 s at 100 ppm: 6 ms gained by the end.
        let model = ArrivalModel::fit(&reads(origin_ns, 100.0, 30_000)).unwrap();
        for sample in [0.0, 500_000.0, 1_440_000.0, 2_879_000.0, 2_950_000.0] {
            let truth = origin_ns + sample / RATE * 1e9 / 1.0001;
            let error_ms = (model.arrival_ns(sample) - truth) / 1e6;
            assert!(error_ms.abs() < 0.05, "{sample}: {error_ms} ms off");
        }
        assert!((model.gain_ms() - 6.0).abs() < 0.2, "{}", model.gain_ms());
    }

    const LOG: &str = "# monotonic_ns=1000000000
t_ms=40.000 frame=0 gen=0 new=1 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=75.000 frame=1 gen=0 new=1 due_ms=73.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=1041.000 frame=30 gen=0 new=1 due_ms=1040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=1050.000 frame=30 gen=0 new=0 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=2040.000 frame=60 gen=0 new=1 due_ms=2040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=2500.000 frame=90 gen=1 new=1 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=1
t_ms=3042.000 frame=90 gen=1 new=1 due_ms=3040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=4040.000 frame=120 gen=1 new=1 due_ms=- dropped=0 paused=1 size=640x480 exact=1 preview=0
t_ms=5039.000 frame=150 gen=1 new=1 due_ms=5040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
";

    #[test]
    fn flashes_are_new_playing_frames_on_whole_seconds() {
        let presents = parse_frame_log(LOG).unwrap();
        assert_eq!(presents.first_ns, 1_040_000_000.0);
        let flashes: Vec<(u64, f64)> = presents.flashes.iter().map(|f| (f.second, f.at_ns / 1e6)).collect();
        assert_eq!(
            flashes,
            [(0, 1040.0), (1, 2041.0), (2, 3040.0), (3, 4042.0), (5, 6039.0)]
        );
        assert!(parse_frame_log("t_ms=1.0 frame=0 new=1").is_err());
        assert!(parse_frame_log("# monotonic_ns=5\n").is_err());
    }

    #[test]
    fn beeps_pair_with_their_flashes() {
        let flashes = parse_frame_log(LOG).unwrap().flashes;
        // Beeps of seconds 0, 1, 2, 3 and 5 at known offsets from their flashes, one for the
        // missing second 4, a second beep near second 5 (further than the first), and a stray
        // one far from any flash.
        let offsets = [(0, 4.0), (1, -3.0), (2, 12.5), (3, 0.0), (5, 7.0)];
        let mut beeps_ns: Vec<f64> = offsets
            .iter()
            .map(|&(second, offset)| flashes.iter().find(|f| f.second == second).unwrap().at_ns + offset * 1e6)
            .collect();
        beeps_ns.extend([5_040e6, 6_039e6 + 30e6, 9_000e6]);
        let pairs = pair(&beeps_ns, &flashes);
        let found: Vec<(u64, f64)> = pairs
            .iter()
            .map(|p| (p.second, (p.offset_ms * 1e3).round() / 1e3))
            .collect();
        assert_eq!(found, offsets);
        let values: Vec<f64> = pairs.iter().map(|p| p.offset_ms).collect();
        assert_eq!(percentile(&values, 0.5).map(f64::round), Some(4.0));
    }

    #[test]
    fn a_jump_shows_off_the_beat_where_jitter_does_not() {
        // A stretch that moves single beeps by ±3 ms stays within 3 ms of the beat...
        let jittery: Vec<f64> = (0..10).map(|k| k as f64 * 666.667 + [3.0, -3.0][k % 2]).collect();
        let stats = interval_stats(&jittery, 666.667).unwrap();
        assert!((stats.off_beat_ms - 3.0).abs() < 0.01, "{stats:?}");
        // ...while 21 ms skipped halfway moves the later half off it by about half of that.
        let skipped: Vec<f64> = (0..10)
            .map(|k| k as f64 * 1000.0 - if k >= 5 { 21.0 } else { 0.0 })
            .collect();
        let stats = interval_stats(&skipped, 1000.0).unwrap();
        assert!((stats.off_beat_ms - 10.5).abs() < 0.01, "{stats:?}");
        assert_eq!((stats.off, stats.min_ms), (1, 979.0));
    }

    #[test]
    fn analysis_leaves_out_start_up_and_lines_sound_up_with_pictures() {
        // Flashes at 1.040 s + k; the recording starts at 0.2 s, so a beep 6 ms after flash k
        // sits at 0.846 s + k in it.
        let onsets: Vec<f64> = (0..6).map(|k| 0.846 + k as f64).collect();
        let samples = beeping(&onsets, 1000.0, 6.5);
        let reads = (1..=samples.len() as u64 / 480)
            .map(|k| Read {
                samples: k * 480,
                at_ns: 200_000_000 + k * 10_000_000 + 300_000,
            })
            .collect();
        let recording = Recording { samples, reads };
        let presents = parse_frame_log(LOG).unwrap();
        let analysis = analyse(&recording, &presents, 1.0, 7_000_000_000).unwrap();
        // Seconds 2 to 5 (start-up left out); the paused flash of second 4 doesn't count.
        assert_eq!((analysis.beeps, analysis.flashes), (4, 3));
        let offsets: Vec<(u64, f64)> = analysis.pairs.iter().map(|p| (p.second, p.offset_ms.round())).collect();
        assert_eq!(offsets, [(2, 6.0), (3, 4.0), (5, 7.0)]);
        let intervals = analysis.intervals.unwrap();
        assert_eq!(intervals.off, 0);
        assert!((intervals.mean_ms - 1000.0).abs() < 0.02, "{intervals:?}");
        let text = analysis.to_string();
        assert!(text.contains("a/v offset: 3 pairs of 4 beeps and 3 flashes"), "{text}");
    }
}
