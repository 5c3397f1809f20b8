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
mod tests;
