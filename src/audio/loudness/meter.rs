//! The R128 meter of one stream of interleaved samples: filters each sample, steps every 100 ms
//! (momentary and short-term loudness, the gates' blocks), and sums the measurement up.

use super::gate::{Gate, ABS_THRESHOLD, INTEGRATED_GATE, RANGE_GATE};
use super::k_weighting::{k_weighting, Biquad, Window};
use super::true_peak::TruePeak;
use super::{dbfs, loudness, Block, Summary};
use ffmpeg_next as ffmpeg;

/// The R128 meter of one stream of interleaved samples.
pub struct LoudnessMeter {
    rate: u32,
    weights: Vec<f64>,
    filters: (Biquad, Biquad),
    /// Per channel: the last inputs, pre-filter outputs and RLB outputs, newest first.
    state: Vec<[[f64; 3]; 3]>,
    momentary: Window,
    short_term: Window,
    /// Samples since the last 100 ms step, and their highest.
    step_count: u32,
    step_peak: f64,
    samples: u64,
    integrated: Gate,
    range: Gate,
    sample_peaks: Vec<f64>,
    true_peak: Option<TruePeak>,
    /// Each step's readings, when asked for (`keep_blocks`), with the integrated loudness and
    /// range so far or not.
    blocks: Option<Vec<Block>>,
    block_summaries: bool,
}

impl LoudnessMeter {
    /// A meter of `weights.len()` channels at `rate` Hz, looking for true peaks or not.
    pub fn new(rate: u32, weights: Vec<f64>, layout: ffmpeg::ChannelLayout, true_peak: bool) -> Result<Self, String> {
        if rate < 10 || weights.is_empty() {
            return Err(format!("cannot measure {} channels at {rate} Hz", weights.len()));
        }
        let channels = weights.len();
        let true_peak = match true_peak {
            true => Some(TruePeak::new(rate, channels, layout)?),
            false => None,
        };
        Ok(Self {
            rate,
            filters: k_weighting(rate),
            state: vec![[[0.0; 3]; 3]; channels],
            momentary: Window::new(channels, rate as usize * 4 / 10),
            short_term: Window::new(channels, rate as usize * 3),
            step_count: 0,
            step_peak: 0.0,
            samples: 0,
            integrated: Gate::new(INTEGRATED_GATE),
            range: Gate::new(RANGE_GATE),
            sample_peaks: vec![0.0; channels],
            true_peak,
            blocks: None,
            block_summaries: false,
            weights,
        })
    }

    /// Keeps each 100 ms step's readings (`blocks`), with the integrated loudness and range so
    /// far (`summaries`: the gates' histograms are gone through at every step) or with 0 there.
    pub fn keep_blocks(&mut self, summaries: bool) {
        self.blocks.get_or_insert_with(Vec::new);
        self.block_summaries = summaries;
    }

    /// The steps kept since the last call (`keep_blocks`).
    pub fn take_blocks(&mut self) -> Vec<Block> {
        self.blocks.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Starts the momentary and short-term windows and the K-weighting filters over, keeping
    /// what the integrated loudness and range have counted (a meter following playback across
    /// a seek).
    pub fn restart_windows(&mut self) {
        let channels = self.weights.len();
        self.state = vec![[[0.0; 3]; 3]; channels];
        self.momentary = Window::new(channels, self.rate as usize * 4 / 10);
        self.short_term = Window::new(channels, self.rate as usize * 3);
        (self.step_count, self.step_peak) = (0, 0.0);
    }

    /// Starts the integrated loudness, the loudness range and the peaks over.
    pub fn restart_totals(&mut self) {
        self.integrated = Gate::new(INTEGRATED_GATE);
        self.range = Gate::new(RANGE_GATE);
        self.sample_peaks.iter_mut().for_each(|p| *p = 0.0);
    }

    /// Whether any block has been counted for the integrated loudness, and for the range.
    pub fn counted(&self) -> (bool, bool) {
        (self.integrated.kept > 0, self.range.kept > 0)
    }

    /// Whether the momentary and the short-term windows are full (their readings real).
    pub fn windows_full(&self) -> (bool, bool) {
        (self.momentary.filled, self.short_term.filled)
    }

    /// Measures interleaved samples (whole frames of every channel).
    pub fn add(&mut self, samples: &[f64]) -> Result<(), String> {
        let channels = self.weights.len();
        if let Some(true_peak) = &mut self.true_peak {
            true_peak.add(samples)?;
        }
        let (pre, rlb) = self.filters;
        for frame in samples.chunks_exact(channels) {
            let (m, s) = (self.momentary.position, self.short_term.position);
            for (window, at) in [(&mut self.momentary, m), (&mut self.short_term, s)] {
                window.position = at + 1;
                if window.position == window.cache[0].len() {
                    window.position = 0;
                    window.filled = true;
                }
            }
            for (ch, &x) in frame.iter().enumerate() {
                self.sample_peaks[ch] = self.sample_peaks[ch].max(x.abs());
                self.step_peak = self.step_peak.max(x.abs());
                if self.weights[ch] == 0.0 {
                    continue;
                }
                let [xs, ys, zs] = &mut self.state[ch];
                xs[0] = x;
                ys[2] = ys[1];
                ys[1] = ys[0];
                ys[0] = xs[0] * pre.b[0] + xs[1] * pre.b[1] + xs[2] * pre.b[2] - ys[1] * pre.a[1] - ys[2] * pre.a[2];
                xs[2] = xs[1];
                xs[1] = xs[0];
                zs[2] = zs[1];
                zs[1] = zs[0];
                zs[0] = ys[0] * rlb.b[0] + ys[1] * rlb.b[1] + ys[2] * rlb.b[2] - zs[1] * rlb.a[1] - zs[2] * rlb.a[2];
                let square = zs[0] * zs[0];
                for (window, at) in [(&mut self.momentary, m), (&mut self.short_term, s)] {
                    // (In FFmpeg's order: the same running sum, rounding for rounding.)
                    window.sums[ch] = window.sums[ch] + square - window.cache[ch][at];
                    window.cache[ch][at] = square;
                }
            }
            self.samples += 1;
            self.step_count += 1;
            if self.step_count == self.rate / 10 {
                self.step_count = 0;
                self.step();
            }
        }
        Ok(())
    }

    /// A 100 ms step: the blocks ending here counted.
    fn step(&mut self) {
        let (power_m, power_s) = (
            self.momentary.power(&self.weights),
            self.short_term.power(&self.weights),
        );
        let (momentary, short_term) = (loudness(power_m), loudness(power_s));
        if momentary >= ABS_THRESHOLD {
            self.integrated.add(power_m, momentary);
        }
        if short_term >= ABS_THRESHOLD {
            self.range.add(power_s, short_term);
        }
        let peak = std::mem::take(&mut self.step_peak);
        if self.blocks.is_some() {
            let (integrated, (range_low, range_high)) = match self.block_summaries {
                true => (
                    self.integrated.integrated().unwrap_or(ABS_THRESHOLD),
                    self.range.range().unwrap_or((0.0, 0.0)),
                ),
                false => (0.0, (0.0, 0.0)),
            };
            let time = (self.samples - 1) as f64 / f64::from(self.rate);
            if let Some(blocks) = &mut self.blocks {
                blocks.push(Block {
                    time,
                    momentary,
                    short_term,
                    integrated,
                    range: range_high - range_low,
                    range_low,
                    range_high,
                    peak,
                });
            }
        }
    }

    /// Integrated loudness and loudness range as they stand.
    fn summary_so_far(&self) -> (f64, f64) {
        let integrated = self.integrated.integrated().unwrap_or(ABS_THRESHOLD);
        let range = self.range.range().map_or(0.0, |(low, high)| high - low);
        (integrated, range)
    }

    /// The measurement as it stands.
    pub fn summary(&self) -> Summary {
        let (integrated, range) = self.summary_so_far();
        let (range_low, range_high) = self.range.range().unwrap_or((0.0, 0.0));
        let peak = |peaks: &[f64]| dbfs(peaks.iter().copied().fold(0.0, f64::max));
        Summary {
            integrated,
            integrated_threshold: self.integrated.threshold(),
            range,
            range_threshold: self.range.threshold(),
            range_low,
            range_high,
            sample_peak: peak(&self.sample_peaks),
            true_peak: self.true_peak.as_ref().map_or(f64::NEG_INFINITY, |t| peak(&t.peaks)),
            seconds: self.samples as f64 / f64::from(self.rate),
        }
    }
}
