//! Time-stretching for playback away from 1x: WSOLA changes the tempo and keeps the pitch, while
//! 1x passes the sound through untouched.

use super::{MAX_AUDIBLE_SPEED, MIN_AUDIBLE_SPEED};
use std::collections::VecDeque;
use std::ops::RangeInclusive;

/// Window length, seconds (FFmpeg atempo's): long enough to hold a period of a low voice, short
/// enough not to smear transients.
const WINDOW: f64 = 0.020;
/// How far a window may move each way from its nominal place to continue the previous one, seconds:
/// a whole period of 50 Hz.
const REACH: f64 = 0.010;
/// The coarse search runs on the mono mix averaged over blocks, at about this rate (Hz), then a
/// fine one tries every frame around its pick: the search costs a small fraction of trying all.
const COARSE_RATE: f64 = 6000.0;
/// Score taken off a candidate at the edge of the reach, so that among equally alike ones
/// (periodic sound, silence) the one nearest its nominal place wins.
const DRIFT_PENALTY: f32 = 0.05;

/// Changes the tempo of interleaved f32 audio without changing its pitch (WSOLA).
///
/// Output is made of Hann windows of the input at 50% overlap (constant gain), placed one hop
/// (half a window) apart. Each window is taken from the input near its nominal place, where
/// output frame k plays input frame k·speed, at the offset whose sound best continues the previous
/// window (normalised cross-correlation of the mono mix). The nominal places advance exactly
/// hop·speed per hop; only the search moves windows off them, so the input played at output
/// frame k stays within [`Stretch::max_drift`] frames of k·speed and never drifts further. The
/// first window starts at input frame 0, unfaded.
pub struct Stretch {
    channels: usize,
    /// Hann window (periodic, so that two halves a hop apart add up to 1).
    window: Vec<f32>,
    hop: usize,
    reach: usize,
    /// Frames per block of the coarse search.
    block: usize,
    /// The speed last set.
    speed: f64,
    /// Speed changes not yet reached: from which input frame, and the speed.
    changes: VecDeque<(u64, f64)>,
    /// Input frames pushed since the last reset.
    end: u64,
    /// Input not yet used up, from input frame `start`: interleaved, its mono mix, and (while
    /// stretching) the mix's means over blocks from `start`.
    start: u64,
    input: Vec<f32>,
    mono: Vec<f32>,
    coarse: Vec<f32>,
    /// The last window's second half, weighted, waiting for the next window to overlap it.
    tail: Vec<f32>,
    /// None while passing through at 1x.
    run: Option<Run>,
}

/// Where stretching stands.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// The input frame where it began (its first output frame).
    origin: u64,
    speed: f64,
    /// The nominal input place of the next output frame.
    next_in: f64,
    /// Where the last window was taken from.
    last: Option<u64>,
}

impl Stretch {
    pub fn new(rate: u32, channels: usize) -> Self {
        let rate = f64::from(rate.max(1000));
        let hop = (rate * WINDOW / 2.0).round() as usize;
        let window = (0..2 * hop)
            .map(|i| (0.5 - 0.5 * (std::f64::consts::PI * i as f64 / hop as f64).cos()) as f32)
            .collect();
        Self {
            channels: channels.max(1),
            window,
            hop,
            reach: ((rate * REACH).round() as usize).max(hop / 2),
            block: ((rate / COARSE_RATE).round() as usize).max(1),
            speed: 1.0,
            changes: VecDeque::new(),
            end: 0,
            start: 0,
            input: Vec::new(),
            mono: Vec::new(),
            coarse: Vec::new(),
            tail: Vec::new(),
            run: None,
        }
    }

    /// 0.25..=4.0 (clamped). Takes effect for input pushed afterwards.
    pub fn set_speed(&mut self, speed: f64) {
        if speed.is_nan() {
            return;
        }
        self.speed = speed.clamp(MIN_AUDIBLE_SPEED, MAX_AUDIBLE_SPEED);
        if self.changes.back().is_some_and(|&(at, _)| at == self.end) {
            self.changes.pop_back();
        }
        let before = self
            .changes
            .back()
            .map_or(self.run.map_or(1.0, |r| r.speed), |&(_, s)| s);
        if self.speed != before {
            self.changes.push_back((self.end, self.speed));
        }
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// How far, in input frames, the input played at output frame k may be from k·speed: half a
    /// window's worth of the tempo change plus the search's reach (at 48 kHz: 15 ms of input at
    /// 0.5x, 20 ms at 2x, 40 ms at 4x). Where the speed changes mid-stream, k·speed becomes the
    /// sum of the speeds of the output frames before k.
    pub fn max_drift(&self) -> usize {
        let tempo = (self.speed - 1.0).abs() * self.hop as f64;
        tempo.ceil() as usize + self.reach + 1
    }

    /// Forgets all buffered input and output state (after a seek); the next output starts afresh.
    pub fn reset(&mut self) {
        self.changes.clear();
        (self.end, self.start, self.run) = (0, 0, None);
        self.input.clear();
        self.mono.clear();
        self.coarse.clear();
        if self.speed != 1.0 {
            self.changes.push_back((0, self.speed));
        }
    }

    /// Takes the next interleaved input frames and appends the output frames it can produce so far
    /// to `out` (interleaved, same channel count). At speed exactly 1.0 the output is the input,
    /// sample for sample (bit-exact, no latency), so normal playback is untouched. At other speeds
    /// the output for the last 20–40 ms of input (at 48 kHz) waits for more input, or for
    /// [`Stretch::flush`]. A trailing partial frame is ignored.
    pub fn process(&mut self, input: &[f32], out: &mut Vec<f32>) {
        let input = &input[..input.len() - input.len() % self.channels];
        if self.run.is_none() && self.changes.is_empty() && self.input.is_empty() {
            out.extend_from_slice(input);
            self.end += (input.len() / self.channels) as u64;
            self.start = self.end;
            return;
        }
        self.push(input);
        self.advance(self.end, out);
        self.trim();
    }

    /// Ends the stream: appends the output still owed for the input pushed, then starts afresh as
    /// after [`Stretch::reset`]. The last windows stay within the input, so the very end may come
    /// from a little earlier than the time mapping says.
    pub fn flush(&mut self, out: &mut Vec<f32>) {
        let end = self.end;
        let silence = 3 * self.window.len() + self.reach;
        self.input.resize(self.input.len() + silence * self.channels, 0.0);
        self.mono.resize(self.mono.len() + silence, 0.0);
        self.end += silence as u64;
        if self.run.is_some() {
            self.extend_coarse();
        }
        self.advance(end, out);
        self.reset();
    }

    fn push(&mut self, input: &[f32]) {
        let scale = 1.0 / self.channels as f32;
        self.input.extend_from_slice(input);
        self.mono
            .extend(input.chunks_exact(self.channels).map(|f| f.iter().sum::<f32>() * scale));
        self.end += (input.len() / self.channels) as u64;
        if self.run.is_some() {
            self.extend_coarse();
        }
    }

    fn extend_coarse(&mut self) {
        let scale = 1.0 / self.block as f32;
        let done = self.coarse.len() * self.block;
        let blocks = self.mono[done..].chunks_exact(self.block);
        self.coarse.extend(blocks.map(|b| b.iter().sum::<f32>() * scale));
    }

    /// Produces all the output it can for nominal input places before frame `until`.
    fn advance(&mut self, until: u64, out: &mut Vec<f32>) {
        loop {
            if self.run.is_some() {
                if self.hop(until, out) {
                    continue;
                }
                return;
            }
            let stop = self
                .changes
                .front()
                .map_or(until, |&(at, _)| at.min(until))
                .max(self.start);
            let frames = (stop - self.start) as usize;
            out.extend(self.input.drain(..frames * self.channels));
            self.mono.drain(..frames);
            self.start = stop;
            match self.changes.front() {
                Some(&(at, speed)) if at <= self.start => {
                    self.changes.pop_front();
                    if speed != 1.0 {
                        self.begin(speed);
                    }
                }
                _ => return,
            }
        }
    }

    /// Starts stretching at the first buffered frame.
    fn begin(&mut self, speed: f64) {
        self.run = Some(Run {
            origin: self.start,
            speed,
            next_in: self.start as f64,
            last: None,
        });
        self.coarse.clear();
        self.extend_coarse();
    }

    /// Places the next window, appending the output it finishes (only frames whose nominal input
    /// places come before `until`, the end of the input); false where it needs more input first.
    fn hop(&mut self, until: u64, out: &mut Vec<f32>) -> bool {
        let Some(mut run) = self.run else { return false };
        while let Some(&(_, speed)) = self.changes.front().filter(|&&(at, _)| at as f64 <= run.next_in) {
            run.speed = speed;
            self.changes.pop_front();
        }
        self.run = Some(run);
        if run.next_in >= until as f64 {
            return false;
        }
        let (hop, len) = (self.hop, self.window.len());
        let emitted = out.len();
        let Some(last) = run.last else {
            if run.speed == 1.0 {
                self.pass_from(run.origin);
                return true;
            }
            if self.end < run.origin + len as u64 {
                return false;
            }
            let from = (run.origin - self.start) as usize * self.channels;
            out.extend_from_slice(&self.input[from..from + hop * self.channels]);
            self.keep_tail(run.origin);
            self.finish_hop(run, run.origin, until, emitted, out);
            return true;
        };
        let follow = last + hop as u64;
        if run.speed == 1.0 {
            // Back to passing through: the window that naturally continues the last one, then
            // the input after it as it is.
            self.overlap(follow, out);
            self.pass_from(follow + hop as u64);
            return true;
        }
        let nominal = (run.next_in + (run.speed - 1.0) * hop as f64).round() as i64;
        let mut lo = (nominal - self.reach as i64).max(run.origin as i64) as u64;
        let mut hi = ((nominal + self.reach as i64).max(0) as u64).max(lo);
        if self.end < hi.max(follow) + len as u64 {
            return false;
        }
        // Only at the end of a flushed stream: windows stay within the input, never reaching
        // the silence after it, so that the sound plays to its end.
        let room = until.saturating_sub(len as u64).max(self.start);
        if hi > room {
            hi = room;
            if lo > hi {
                lo = hi.saturating_sub(self.reach as u64).max(self.start);
            }
        }
        let at = self.search(follow, nominal, lo..=hi);
        self.overlap(at, out);
        self.keep_tail(at);
        self.finish_hop(run, at, until, emitted, out);
        true
    }

    /// Stops stretching: the input from frame `from` on plays as it is.
    fn pass_from(&mut self, from: u64) {
        let used = (from - self.start) as usize;
        self.input.drain(..used * self.channels);
        self.mono.drain(..used);
        self.coarse.clear();
        self.start = from;
        self.run = None;
    }

    fn finish_hop(&mut self, mut run: Run, at: u64, until: u64, emitted: usize, out: &mut Vec<f32>) {
        let owed = ((until as f64 - run.next_in) / run.speed).ceil() as usize;
        out.truncate(emitted + owed.min(self.hop) * self.channels);
        run.next_in += self.hop as f64 * run.speed;
        run.last = Some(at);
        self.run = Some(run);
    }

    /// Where in `range` to take the next window: the place whose sound is most like the natural
    /// continuation of the last window (the input at `follow`), first over blocks, then frame by
    /// frame around the best block.
    fn search(&self, follow: u64, nominal: i64, range: RangeInclusive<u64>) -> u64 {
        let (lo, hi) = (*range.start(), *range.end());
        let (start, block) = (self.start, self.block as u64);
        let penalty = |at: i64| DRIFT_PENALTY * (at - nominal).unsigned_abs() as f32 / self.reach as f32;
        let len = self.window.len();
        let mut guess = nominal.clamp(lo as i64, hi as i64) as u64;
        let (first, last) = ((lo - start).div_ceil(block), (hi - start) / block);
        let blocks = len / self.block;
        if first < last && blocks > 0 {
            let ahead = ((follow - start) / block) as usize;
            let template = &self.coarse[ahead..ahead + blocks];
            let place = |i: usize| follow as i64 + (i as i64 - ahead as i64) * block as i64;
            let best = most_alike(template, &self.coarse, first as usize..=last as usize, |i| {
                penalty(place(i))
            });
            guess = place(best).clamp(lo as i64, hi as i64) as u64;
        }
        let fine = (guess.saturating_sub(block).max(lo) - start) as usize..=((guess + block).min(hi) - start) as usize;
        let from = (follow - start) as usize;
        let template = &self.mono[from..from + len];
        start + most_alike(template, &self.mono, fine, |i| penalty((start + i as u64) as i64)) as u64
    }

    /// Appends the finished hop of output: the last window's second half and the first half of
    /// the window taken at `at`.
    fn overlap(&self, at: u64, out: &mut Vec<f32>) {
        let channels = self.channels;
        let from = (at - self.start) as usize * channels;
        let fresh = &self.input[from..from + self.hop * channels];
        let rise = &self.window[..self.hop];
        for ((tail, fresh), &w) in self
            .tail
            .chunks_exact(channels)
            .zip(fresh.chunks_exact(channels))
            .zip(rise)
        {
            out.extend(tail.iter().zip(fresh).map(|(t, x)| t + w * x));
        }
    }

    /// Keeps the second half of the window taken at `at`, weighted, for the next to overlap.
    fn keep_tail(&mut self, at: u64) {
        let channels = self.channels;
        let from = (at - self.start) as usize * channels + self.hop * channels;
        let fall = &self.input[from..from + self.hop * channels];
        self.tail.clear();
        for (frame, &w) in fall.chunks_exact(channels).zip(&self.window[self.hop..]) {
            self.tail.extend(frame.iter().map(|x| w * x));
        }
    }

    /// Drops the input that no later window can use (whole blocks, so the coarse means stay put).
    fn trim(&mut self) {
        let Some(Run {
            last: Some(last),
            next_in,
            ..
        }) = self.run
        else {
            return;
        };
        let lowest = next_in - self.hop as f64 - self.reach as f64;
        let keep = (last + self.hop as u64).min(lowest.max(0.0) as u64).max(self.start);
        let blocks = ((keep - self.start) / self.block as u64) as usize;
        let frames = blocks * self.block;
        self.input.drain(..frames * self.channels);
        self.mono.drain(..frames);
        self.coarse.drain(..blocks);
        self.start += frames as u64;
    }
}

/// The candidate `i` for which `signal[i..]` is most like `template` (normalised
/// cross-correlation), less `penalty(i)`; the first of equals.
fn most_alike(
    template: &[f32],
    signal: &[f32],
    candidates: RangeInclusive<usize>,
    penalty: impl Fn(usize) -> f32,
) -> usize {
    let len = template.len();
    let (first, last) = (*candidates.start(), *candidates.end());
    let norm = f64::from(dot(template, template));
    let mut energy = f64::from(dot(&signal[first..first + len], &signal[first..first + len]));
    let mut best = (f32::NEG_INFINITY, first);
    for i in first..=last {
        if i > first {
            let (gone, new) = (signal[i - 1], signal[i + len - 1]);
            energy += f64::from(new * new) - f64::from(gone * gone);
        }
        let alike = f64::from(dot(template, &signal[i..i + len])) / (norm * energy).max(1e-20).sqrt();
        let score = alike as f32 - penalty(i);
        if score > best.0 {
            best = (score, i);
        }
    }
    best.1
}

/// Dot product, in eight lanes: the search spends its time here, and this runs fast enough even
/// unoptimised (tests and debug builds).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (mut s, mut rest) = ([0.0f32; 8], 0.0);
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in a8.remainder().iter().zip(b8.remainder()) {
        rest += x * y;
    }
    for (x, y) in a8.zip(b8) {
        s[0] += x[0] * y[0];
        s[1] += x[1] * y[1];
        s[2] += x[2] * y[2];
        s[3] += x[3] * y[3];
        s[4] += x[4] * y[4];
        s[5] += x[5] * y[5];
        s[6] += x[6] * y[6];
        s[7] += x[7] * y[7];
    }
    (s[0] + s[1]) + (s[2] + s[3]) + (s[4] + s[5]) + (s[6] + s[7]) + rest
}

#[cfg(test)]
mod tests {
    use super::Stretch;
    use std::time::Instant;

    const RATE: u32 = 48_000;
    /// The largest step between samples of a 1 kHz sine of amplitude 0.5: 2π·1000/48000·0.5.
    const SINE_STEP: f32 = 0.0655;

    fn sine(freq: f64, seconds: f64, channels: usize) -> Vec<f32> {
        let frames = (seconds * f64::from(RATE)) as usize;
        let phase = |i: usize| (std::f64::consts::TAU * freq * i as f64 / f64::from(RATE)).sin() as f32;
        (0..frames)
            .flat_map(|i| std::iter::repeat_n(0.5 * phase(i), channels))
            .collect()
    }

    /// A deterministic sequence of pseudo-random numbers below 2^31.
    fn random(seed: u64) -> impl Iterator<Item = u64> {
        let step = |s: &u64| Some(s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
        std::iter::successors(Some(seed), step).skip(1).map(|s| s >> 33)
    }

    fn noise(samples: usize, amplitude: f32) -> Vec<f32> {
        let scale = 2.0 * amplitude / (1u64 << 31) as f32;
        random(1).take(samples).map(|r| r as f32 * scale - amplitude).collect()
    }

    /// Sizes 1 to 4000 frames, adding up to `frames`.
    fn pieces(frames: usize, seed: u64) -> Vec<usize> {
        let mut left = frames;
        let sizes = random(seed).map(|r| (r % 4000 + 1) as usize).map_while(|size| {
            let size = size.min(left);
            left -= size;
            (size > 0).then_some(size)
        });
        sizes.collect()
    }

    /// All of `input` stretched, pushed in `sizes` (frames), then flushed.
    fn stretch(speed: f64, input: &[f32], channels: usize, sizes: &[usize]) -> Vec<f32> {
        let mut stretch = Stretch::new(RATE, channels);
        stretch.set_speed(speed);
        let mut out = Vec::new();
        let mut rest = input;
        for &size in sizes {
            let (piece, after) = rest.split_at(size * channels);
            stretch.process(piece, &mut out);
            rest = after;
        }
        stretch.process(rest, &mut out);
        stretch.flush(&mut out);
        out
    }

    fn channel(samples: &[f32], channels: usize, which: usize) -> Vec<f32> {
        samples.iter().skip(which).step_by(channels).copied().collect()
    }

    fn middle(signal: &[f32]) -> &[f32] {
        &signal[signal.len() / 4..signal.len() * 3 / 4]
    }

    /// From the first to the last rising zero crossing, interpolated.
    fn frequency(signal: &[f32]) -> f64 {
        let crossings: Vec<f64> = (1..signal.len())
            .filter(|&i| signal[i - 1] < 0.0 && signal[i] >= 0.0)
            .map(|i| (i - 1) as f64 + f64::from(signal[i - 1] / (signal[i - 1] - signal[i])))
            .collect();
        let span = crossings[crossings.len() - 1] - crossings[0];
        (crossings.len() - 1) as f64 * f64::from(RATE) / span
    }

    /// The smallest and largest peak over each period of a sine of `freq`.
    fn peaks(signal: &[f32], freq: f64) -> (f32, f32) {
        let period = (f64::from(RATE) / freq).ceil() as usize;
        let peaks = signal
            .chunks_exact(period)
            .map(|p| p.iter().fold(0.0f32, |m, x| m.max(x.abs())));
        peaks.fold((f32::MAX, 0.0), |(lo, hi), p| (lo.min(p), hi.max(p)))
    }

    fn largest_step(signal: &[f32]) -> f32 {
        signal.windows(2).fold(0.0, |m, w| m.max((w[1] - w[0]).abs()))
    }

    /// Pitch, duration, level and smoothness of a stretched 2 s sine, in every channel.
    fn check_sine(freq: f64, speed: f64, channels: usize) {
        let input = sine(freq, 2.0, channels);
        let out = stretch(speed, &input, channels, &[]);
        let ratio = (out.len() as f64 / input.len() as f64) * speed;
        assert!(
            (ratio - 1.0).abs() < 0.01,
            "{speed}x, {channels} ch: duration ratio {ratio} of 1/speed"
        );
        let first = channel(&out, channels, 0);
        for which in 1..channels {
            assert_eq!(channel(&out, channels, which), first, "channels differ");
        }
        let heard = frequency(middle(&first));
        assert!((heard / freq - 1.0).abs() < 0.01, "{speed}x, {channels} ch: {heard} Hz");
        let (low, high) = peaks(middle(&first), freq);
        assert!(
            low > 0.45 && high < 0.55,
            "{speed}x, {channels} ch: peaks {low}..{high}"
        );
        let step = largest_step(&first);
        let sine_step = SINE_STEP * (freq / 1000.0) as f32;
        assert!(step < 1.5 * sine_step, "{speed}x, {channels} ch: step {step}");
        let step = step / sine_step;
        eprintln!("{freq} Hz at {speed}x: {heard:.2} Hz, duration {ratio:.5}/speed, peaks {low:.3}..{high:.3}, step {step:.3}");
    }

    #[test]
    fn a_sine_keeps_its_pitch_level_and_smoothness_at_every_speed() {
        for speed in [0.25, 0.5, 0.8, 1.25, 2.0, 3.0, 4.0] {
            check_sine(1000.0, speed, 2);
            // Periods of fractional numbers of frames, low and high.
            check_sine(441.3, speed, 2);
            check_sine(4987.0, speed, 2);
        }
    }

    #[test]
    fn mono_and_six_channels_work() {
        for speed in [0.5, 2.0] {
            check_sine(1000.0, speed, 1);
            check_sine(1000.0, speed, 6);
        }
        // Channels stay apart.
        let input: Vec<f32> = sine(1000.0, 1.0, 1)
            .iter()
            .flat_map(|&x| (1..=6).map(move |c| x * c as f32 / 6.0))
            .collect();
        let out = stretch(2.0, &input, 6, &[]);
        let first = channel(&out, 6, 0);
        for which in 1..6 {
            let scaled: Vec<f32> = first.iter().map(|x| x * (which + 1) as f32).collect();
            let other = channel(&out, 6, which);
            assert!(
                other.iter().zip(&scaled).all(|(a, b)| (a - b).abs() < 1e-5),
                "channel {which}"
            );
        }
    }

    #[test]
    fn speed_one_is_bit_exact_passthrough_in_any_pieces() {
        let input: Vec<f32> = (0..30_001).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
        let mut stretch = Stretch::new(RATE, 1);
        let mut out = Vec::new();
        let mut at = 0;
        for size in pieces(input.len(), 7).into_iter().map(|s| s % 97 + 1) {
            let size = size.min(input.len() - at);
            stretch.process(&input[at..at + size], &mut out);
            assert_eq!(out.len(), at + size, "no latency");
            at += size;
            if at == input.len() {
                break;
            }
        }
        stretch.process(&input[at..], &mut out);
        assert_eq!(out, input);
        stretch.flush(&mut out);
        assert_eq!(out, input);
    }

    #[test]
    fn pieces_of_any_size_give_the_same_output() {
        // Two tones and a buzz, so that the search has choices to make.
        let input: Vec<f32> = (0..96_000)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                0.3 * (t * 1400.0).sin() + 0.2 * (t * 5100.0 + 0.3).sin()
            })
            .zip(noise(96_000, 0.1))
            .map(|(x, n)| x + n)
            .flat_map(|x| [x, -x])
            .collect();
        for (speed, seed) in [(0.25, 1), (0.5, 2), (1.5, 3), (4.0, 4)] {
            let whole = stretch(speed, &input, 2, &[]);
            let pieced = stretch(speed, &input, 2, &pieces(input.len() / 2, seed));
            assert!(whole == pieced, "{speed}x: the output depends on how the input was cut");
        }
    }

    #[test]
    fn output_frame_k_plays_input_near_k_times_speed() {
        // Clicks in noise: each click heard at output frame k must come from input frame k·speed,
        // within the bound, from the first click to those after five seconds. Irregular spacing
        // (but more than twice the bound), so that they fall anywhere in the windows.
        let clicks: Vec<usize> = (0..58).map(|i| 150 + i * 4_800 + (i * 337) % 1000).collect();
        let mut input = noise(6 * RATE as usize, 0.2);
        for &c in &clicks {
            input[c] = 1.0;
        }
        for speed in [0.25, 0.5, 2.0, 4.0] {
            let mut stretch = Stretch::new(RATE, 1);
            stretch.set_speed(speed);
            let bound = stretch.max_drift() as f64;
            let mut out = Vec::new();
            stretch.process(&input, &mut out);
            stretch.flush(&mut out);
            assert_eq!(
                out[..stretch.hop],
                input[..stretch.hop],
                "{speed}x: output starts at input frame 0"
            );
            let mut worst = 0.0f64;
            let mut heard = Vec::new();
            for k in 1..out.len() - 1 {
                if out[k] > 0.45 && out[k] > out[k - 1] && out[k] > out[k + 1] {
                    let played = k as f64 * speed;
                    let nearest = clicks
                        .iter()
                        .map(|&c| c as f64)
                        .min_by(|a, b| (a - played).abs().total_cmp(&(b - played).abs()));
                    let error = nearest.map_or(f64::MAX, |c| c - played);
                    assert!(
                        error.abs() <= bound,
                        "{speed}x: output frame {k} plays a click {error} frames from k·speed (bound {bound})"
                    );
                    worst = worst.max(error.abs());
                    heard.push(played);
                }
            }
            let rate = f64::from(RATE);
            assert!(heard.iter().any(|&p| p < 0.3 * rate), "{speed}x: no click heard early");
            assert!(
                heard.iter().any(|&p| p > 5.0 * rate),
                "{speed}x: no click heard after 5 s"
            );
            // Above 1x, windows skip some input, and the search tends to skip lone clicks.
            assert!(
                heard.len() >= clicks.len() / 4,
                "{speed}x: only {} clicks heard",
                heard.len()
            );
            eprintln!(
                "{speed}x: {} clicks heard, worst error {worst} frames (bound {bound})",
                heard.len()
            );
        }
    }

    #[test]
    fn a_reset_starts_afresh() {
        let mut stretch = Stretch::new(RATE, 2);
        stretch.set_speed(2.0);
        let mut out = Vec::new();
        stretch.process(&sine(1000.0, 1.0, 2), &mut out);
        stretch.reset();
        out.clear();
        let input = sine(440.0, 1.0, 2);
        stretch.process(&input, &mut out);
        stretch.flush(&mut out);
        assert_eq!(
            out[..2 * stretch.hop],
            input[..2 * stretch.hop],
            "the output starts with the new input"
        );
        let ratio = out.len() as f64 / input.len() as f64 * 2.0;
        assert!((ratio - 1.0).abs() < 0.01, "duration ratio {ratio}");
        let freq = frequency(middle(&channel(&out, 2, 0)));
        assert!((freq - 440.0).abs() < 4.4, "{freq} Hz");
    }

    #[test]
    fn a_speed_change_mid_stream_keeps_the_pitch() {
        let mut stretch = Stretch::new(RATE, 2);
        stretch.set_speed(0.5);
        let mut out = Vec::new();
        let input = sine(1000.0, 3.0, 2);
        let (before, after) = input.split_at(2 * RATE as usize);
        stretch.process(before, &mut out);
        stretch.set_speed(2.0);
        assert_eq!(stretch.speed(), 2.0);
        stretch.process(after, &mut out);
        stretch.flush(&mut out);
        let out = channel(&out, 2, 0);
        // 1 s at 0.5x, then 2 s at 2x: 2 s and then 1 s of output.
        let ratio = out.len() as f64 / (3 * RATE) as f64;
        assert!((ratio - 1.0).abs() < 0.01, "duration ratio {ratio}");
        let later = &out[out.len() * 3 / 4..out.len() - 2000];
        let freq = frequency(later);
        assert!((freq - 1000.0).abs() < 10.0, "{freq} Hz after the change");
        let (low, high) = peaks(&out[1000..out.len() - 2000], 1000.0);
        assert!(low > 0.45 && high < 0.55, "peaks {low}..{high}");
        assert!(largest_step(&out) < 1.5 * SINE_STEP, "step {}", largest_step(&out));
    }

    #[test]
    fn back_at_speed_one_it_passes_through_again() {
        let mut stretch = Stretch::new(RATE, 2);
        stretch.set_speed(2.0);
        let mut out = Vec::new();
        let input = sine(1000.0, 1.0, 2);
        let (before, after) = input.split_at(input.len() / 2);
        stretch.process(before, &mut out);
        stretch.set_speed(1.0);
        stretch.process(after, &mut out);
        // Once the last window has played out, the input follows as it is.
        let tail = 10_000;
        assert_eq!(out[out.len() - tail..], input[input.len() - tail..]);
        let mut more = Vec::new();
        stretch.process(&input[..4], &mut more);
        assert_eq!(more, input[..4], "no latency");
        assert!(largest_step(&channel(&out, 2, 0)) < 1.5 * SINE_STEP);
    }

    #[test]
    fn stretching_costs_little_cpu() {
        let input = sine(1000.0, 1.0, 2);
        for speed in [0.25, 0.5, 2.0, 4.0] {
            let mut stretch = Stretch::new(RATE, 2);
            stretch.set_speed(speed);
            let mut out = Vec::with_capacity(input.len() * 5);
            let began = Instant::now();
            for piece in input.chunks(2 * 1024) {
                stretch.process(piece, &mut out);
            }
            let took = began.elapsed().as_secs_f64();
            let per_output_second = took * speed;
            eprintln!(
                "{speed}x: 1 s of 48 kHz stereo in {:.1} ms ({:.1} ms per second played)",
                took * 1e3,
                per_output_second * 1e3
            );
            if speed == 4.0 {
                assert!(took < 0.2, "{speed}x took {took} s for 1 s of sound");
            }
        }
    }
}
