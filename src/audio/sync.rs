//! Keeping the sound continuous and the picture on it. Once aligned with the playback clock (at
//! start-up, after a seek or a pause), the output plays its queue sample after sample, never
//! skipping or inserting any: the sound device's clock drifts from the system's (by 0.01–0.3%),
//! so instead of forcing the sound onto the picture's clock, the picture follows the sound. The
//! times at which buffers reach the listener, fitted over the last half second, say which media
//! time is being heard now; the player sets its clock to that. Pure: time comes in as arguments.

use super::Cue;
use std::collections::VecDeque;
use std::time::Instant;

/// While playing, an error this large between the queue and the clock means the clock jumped
/// (a seek, a clock that stopped following): the output aligns again.
pub const REALIGN: f64 = 0.15;
/// Buffers whose hearing times the clock fit uses: about half a second of 10 ms buffers.
const FIT_POINTS: usize = 48;
/// The fit says nothing until it has this many buffers.
const FIT_MIN_POINTS: usize = 4;
/// Nor once its last buffer is this old (the output stopped calling).
const FIT_STALE: f64 = 0.25;

/// Decoded samples ready to play, `channels` interleaved at `rate`, after any time-stretch: the
/// first is media time `start`, and each frame advances media time by `speed / rate`.
#[derive(Debug)]
pub struct Queue {
    pub start: f64,
    pub speed: f64,
    pub rate: u32,
    pub channels: usize,
    pub samples: VecDeque<f32>,
}

impl Queue {
    pub fn new(start: f64, speed: f64, rate: u32, channels: usize) -> Self {
        Self {
            start,
            speed,
            rate,
            channels: channels.max(1),
            samples: VecDeque::new(),
        }
    }

    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels
    }

    /// Media time a frame lasts.
    pub fn frame_time(&self) -> f64 {
        self.speed / f64::from(self.rate)
    }

    /// Media time just past the last queued sample.
    pub fn end(&self) -> f64 {
        self.start + self.frames() as f64 * self.frame_time()
    }

    /// Drops `frames` frames from the front (at most those queued).
    pub fn skip(&mut self, frames: usize) {
        let frames = frames.min(self.frames());
        self.samples.drain(..frames * self.channels);
        self.start += frames as f64 * self.frame_time();
    }

    /// Starts over, empty, at `start` and `speed` (a seek or a new speed).
    pub fn restart(&mut self, start: f64, speed: f64) {
        self.samples.clear();
        self.start = start;
        self.speed = speed;
    }
}

/// Media time heard as a function of wall time: a least-squares line through the (time heard,
/// media time) of the last buffers, which smooths the jitter of the device's timestamps and
/// follows its drift.
#[derive(Debug, Default)]
pub struct ClockFit {
    base: Option<Instant>,
    points: VecDeque<(f64, f64)>,
}

impl ClockFit {
    pub fn push(&mut self, heard: Instant, media: f64) {
        let base = *self.base.get_or_insert(heard);
        let t = seconds_between(base, heard);
        if self.points.len() == FIT_POINTS {
            self.points.pop_front();
        }
        self.points.push_back((t, media));
    }

    pub fn clear(&mut self) {
        self.base = None;
        self.points.clear();
    }

    /// The media time heard at `now`, once enough recent buffers say.
    pub fn at(&self, now: Instant) -> Option<f64> {
        let base = self.base?;
        let n = self.points.len();
        let &(last, _) = self.points.back()?;
        let t = seconds_between(base, now);
        if n < FIT_MIN_POINTS || t - last > FIT_STALE {
            return None;
        }
        let (mean_t, mean_m) = self
            .points
            .iter()
            .fold((0.0, 0.0), |(a, b), &(t, m)| (a + t / n as f64, b + m / n as f64));
        let (mut cov, mut var) = (0.0, 0.0);
        for &(ti, mi) in &self.points {
            cov += (ti - mean_t) * (mi - mean_m);
            var += (ti - mean_t) * (ti - mean_t);
        }
        if var <= 0.0 {
            return None;
        }
        Some(mean_m + cov / var * (t - mean_t))
    }
}

fn seconds_between(from: Instant, to: Instant) -> f64 {
    if to >= from {
        (to - from).as_secs_f64()
    } else {
        -(from - to).as_secs_f64()
    }
}

/// The output side of the sound: aligned or not, and the fit of what it has played.
#[derive(Debug, Default)]
pub struct Output {
    aligned: bool,
    fit: ClockFit,
    /// How many times it aligned with the clock (start-up, seeks, underruns).
    pub alignments: u64,
}

impl Output {
    /// Whether the sound plays on its own clock (the picture may follow it).
    pub fn aligned(&self) -> bool {
        self.aligned
    }

    /// The media time being heard at `now`, while aligned and playing.
    pub fn heard_at(&self, now: Instant) -> Option<f64> {
        self.fit.at(now).filter(|_| self.aligned)
    }

    fn lose_alignment(&mut self) {
        self.aligned = false;
        self.fit.clear();
    }

    /// Fills `out` (interleaved frames) with what is heard from `heard` on, from `queue`:
    /// aligned, the next samples in order, whatever the clock says, unless it jumped by more
    /// than REALIGN; not aligned, the samples due at `heard` by the clock (dropping those
    /// already past, or starting with silence until the first is due). Silence where the cue
    /// is inaudible or the queue runs dry.
    pub fn fill(&mut self, out: &mut [f32], queue: &mut Queue, cue: Cue, heard: Instant, gain: f32) {
        let (rate, channels) = (queue.rate, queue.channels);
        out.fill(0.0);
        let speed = cue.clock.speed();
        if !cue.audible || (queue.speed - speed).abs() > 1e-9 {
            // Inaudible, or the decoder hasn't restarted its queue at a new speed yet.
            self.lose_alignment();
            return;
        }
        let due = cue.clock.media_time(heard);
        let early = queue.start - due;
        if self.aligned && early.abs() > REALIGN {
            self.lose_alignment();
        }
        let wanted = out.len() / channels;
        let mut silence = 0;
        if !self.aligned {
            let per_frame = queue.frame_time();
            if early < 0.0 {
                let late = (-early / per_frame).round() as usize;
                let enough = late < queue.frames();
                queue.skip(late);
                if !enough {
                    // Not decoded as far as the clock yet: wait.
                    return;
                }
            } else {
                silence = ((early / per_frame).round() as usize).min(wanted);
            }
            if queue.frames() == 0 {
                return;
            }
            self.aligned = true;
            self.fit.clear();
            self.alignments += 1;
        }
        let played = (wanted - silence).min(queue.frames());
        if played > 0 {
            let first_heard = heard + std::time::Duration::from_secs_f64(silence as f64 / f64::from(rate));
            self.fit.push(first_heard, queue.start);
        }
        let from = silence * channels;
        for (o, s) in out[from..from + played * channels]
            .iter_mut()
            .zip(queue.samples.drain(..played * channels))
        {
            // A float stream's NaN is played as silence and its infinities as full scale, not
            // left to the sound server's conversion.
            let v = s * gain;
            *o = match v.is_finite() {
                true => v,
                false if v.is_nan() => 0.0,
                false => v.signum(),
            };
        }
        queue.start += played as f64 * queue.frame_time();
        if silence + played < wanted {
            // Ran dry: what comes next is aligned afresh.
            self.lose_alignment();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use std::time::Duration;

    const RATE: u32 = 48_000;
    /// Frames per device buffer (10 ms of the device's own time).
    const BUFFER: usize = 480;
    /// What the device's timestamps say is between a callback and the sound being heard.
    const LATENCY: f64 = 0.020;

    fn at(t0: Instant, seconds: f64) -> Instant {
        t0 + Duration::from_secs_f64(seconds)
    }

    /// Plays `seconds` of a ramp (sample n of the stream is n) at `speed` through an output
    /// whose device clock runs `drift` fast (1.005) or slow, its timestamps jittering by up to
    /// ±1 ms, while a player clock follows the sound as the player does. Returns every sample
    /// played, the largest error between the player's clock and what is truly heard, and how
    /// many times the output aligned.
    fn simulate(seconds: f64, speed: f64, drift: f64) -> (Vec<f32>, f64, u64) {
        let t0 = Instant::now();
        let mut clock = Clock::new(t0, 0.0, false);
        clock.set_speed(t0, speed);
        let mut queue = Queue::new(0.0, speed, RATE, 1);
        let mut next_sample = 0u64;
        let mut output = Output::default();
        let mut played = Vec::new();
        let mut worst: f64 = 0.0;
        let period = BUFFER as f64 / f64::from(RATE) / drift;
        let mut seed = 0x9e37_79b9u32;
        let mut first_heard: Option<(f64, f64)> = None;
        let mut buffer = vec![0.0f32; BUFFER];
        for k in 0..(seconds / period) as usize {
            // The decoder keeps a second queued, continuing the ramp.
            while queue.frames() < RATE as usize {
                queue.samples.push_back(next_sample as f32);
                next_sample += 1;
            }
            let t = k as f64 * period;
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let jitter = (f64::from(seed % 2001) - 1000.0) * 1e-6;
            let heard = at(t0, t + LATENCY + jitter);
            let cue = Cue { clock, audible: true };
            output.fill(&mut buffer, &mut queue, cue, heard, 1.0);
            // Truly heard: the first buffer's first sample (ramp value n is media time
            // n·speed/rate) at t + LATENCY, the ones after at the device's own rate.
            let first_media = f64::from(buffer[0]) * speed / f64::from(RATE);
            let (t_first, m_first) = *first_heard.get_or_insert((t + LATENCY, first_media));
            played.extend_from_slice(&buffer);
            // The player looks at the sound a few times per buffer.
            for look in 0..3 {
                let now_s = t + period * f64::from(look) / 3.0;
                let now = at(t0, now_s);
                if let Some(heard_now) = output.heard_at(now) {
                    if (heard_now - clock.media_time(now)).abs() < REALIGN {
                        clock.set(now, heard_now);
                    }
                }
                let truth = m_first + (now_s - t_first) * drift * speed;
                if now_s > 1.0 {
                    worst = worst.max((clock.media_time(now) - truth).abs());
                }
            }
        }
        (played, worst, output.alignments)
    }

    /// Samples of the ramp that don't follow on from the one before, after the first.
    fn discontinuities(played: &[f32]) -> usize {
        let from = played.iter().position(|&s| s > 0.0).unwrap_or(0);
        played[from..].windows(2).filter(|w| w[1] != w[0] + 1.0).count()
    }

    #[test]
    fn a_drifting_device_plays_every_sample_and_the_picture_follows_it() {
        for drift in [1.005, 0.995, 1.0] {
            let (played, worst, alignments) = simulate(60.0, 1.0, drift);
            assert_eq!(alignments, 1, "drift {drift}: aligned once, at the start");
            assert_eq!(
                discontinuities(&played),
                0,
                "drift {drift}: no sample skipped or repeated"
            );
            assert!(worst < 0.002, "drift {drift}: the picture was {worst} s off the sound");
        }
    }

    #[test]
    fn stretched_sound_follows_the_same_way() {
        for speed in [0.5, 1.5, 4.0] {
            let (played, worst, alignments) = simulate(20.0, speed, 1.003);
            assert_eq!(alignments, 1, "speed {speed}");
            assert_eq!(discontinuities(&played), 0, "speed {speed}");
            assert!(worst < 0.002 * speed, "speed {speed}: {worst} s off");
        }
    }

    #[test]
    fn a_jump_of_the_clock_realigns_on_the_sample_due() {
        let t0 = Instant::now();
        let mut queue = Queue::new(10.0, 1.0, RATE, 1);
        queue.samples.extend((0..RATE).map(|n| n as f32));
        let mut output = Output::default();
        let mut buffer = vec![0.0f32; BUFFER];
        let cue = |media| Cue {
            clock: Clock::new(t0, media, true),
            audible: true,
        };
        // 50 ms late: the first 2400 samples are skipped.
        output.fill(&mut buffer, &mut queue, cue(10.05), t0, 1.0);
        assert_eq!(buffer[0], 2400.0);
        // Aligned, the next buffer follows on whatever a small error says...
        output.fill(&mut buffer, &mut queue, cue(10.05), t0, 1.0);
        assert_eq!(buffer[0], 2880.0);
        // ...but a jump realigns: 100 ms further.
        output.fill(&mut buffer, &mut queue, cue(10.3), t0, 1.0);
        assert_eq!(buffer[0], 14400.0);
        assert_eq!(output.alignments, 2);
        // Early by 5 ms: silence first, then the queue.
        let mut early = Queue::new(1.005, 1.0, RATE, 2);
        early.samples.extend((0..2 * RATE).map(|n| (n / 2) as f32 + 1.0));
        let mut fresh = Output::default();
        let mut stereo = vec![0.0f32; 2 * BUFFER];
        fresh.fill(&mut stereo, &mut early, cue(1.0), t0, 0.5);
        assert!(stereo[..480].iter().all(|&s| s == 0.0), "240 frames of silence");
        assert_eq!(stereo[480..482], [0.5, 0.5], "then the first frame, at half volume");
        // Inaudible is silence, and the next audible buffer aligns again.
        fresh.fill(
            &mut stereo,
            &mut early,
            Cue {
                audible: false,
                ..cue(1.0)
            },
            t0,
            1.0,
        );
        assert!(stereo.iter().all(|&s| s == 0.0));
        assert!(!fresh.aligned());
    }

    #[test]
    fn samples_that_are_not_numbers_play_as_silence_or_full_scale() {
        let t0 = Instant::now();
        let mut queue = Queue::new(10.0, 1.0, RATE, 1);
        let odd = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.25, -3.0];
        queue.samples.extend(odd.iter().cycle().take(BUFFER));
        let mut buffer = vec![1.0f32; BUFFER];
        let cue = Cue {
            clock: Clock::new(t0, 10.0, true),
            audible: true,
        };
        Output::default().fill(&mut buffer, &mut queue, cue, t0, 0.5);
        // Finite samples keep their value (times the gain), as before.
        assert_eq!(buffer[..5], [0.0, 1.0, -1.0, 0.125, -1.5]);
    }

    #[test]
    fn the_fit_smooths_jittery_timestamps_and_measures_drift() {
        let t0 = Instant::now();
        let mut fit = ClockFit::default();
        assert_eq!(fit.at(t0), None);
        let mut seed = 7u32;
        for k in 0..100 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let jitter = (f64::from(seed % 2001) - 1000.0) * 1e-6;
            // Media runs 0.3% slower than the wall clock.
            let t = k as f64 * 0.01;
            fit.push(at(t0, t + jitter), 5.0 + t * 0.997);
        }
        let now = at(t0, 1.0);
        let predicted = fit.at(now).unwrap();
        assert!((predicted - (5.0 + 0.997)).abs() < 0.0005, "{predicted}");
        assert_eq!(fit.at(at(t0, 2.0)), None, "stale once buffers stop");
    }
}
