//! One channel's running statistics over a frame (FFmpeg's `ChannelStats` and `update_stat`):
//! levels, runs, differences, the sliding noise-floor window and the entropy histogram.

use std::num::FpCategory;

use super::c_math::{clip_unit, div, ffabs, ffmax, ffmin, ffsign, llrint};
use super::sample::Sample;

/// Bins of the noise floor's and the entropy's histograms of |sample| over 0..=1.
const HISTOGRAM_SIZE: usize = 8192;
const HISTOGRAM_MAX: usize = HISTOGRAM_SIZE - 1;

/// The histogram bin of a normalised sample: `lrint(av_clipd(FFABS(nd), 0, 1) * 8191)`.
fn bin(nd: f64) -> usize {
    llrint(clip_unit(ffabs(nd)) * HISTOGRAM_MAX as f64).clamp(0, HISTOGRAM_MAX as i64) as usize
}

/// One channel's running statistics (FFmpeg's `ChannelStats`), over the current frame.
pub(super) struct Channel {
    pub(super) last: f64,
    pub(super) last_non_zero: f64,
    pub(super) min_non_zero: f64,
    pub(super) sigma_x: f64,
    pub(super) sigma_x2: f64,
    pub(super) avg_sigma_x2: f64,
    pub(super) min_sigma_x2: f64,
    pub(super) max_sigma_x2: f64,
    pub(super) min: f64,
    pub(super) max: f64,
    pub(super) nmin: f64,
    pub(super) nmax: f64,
    pub(super) min_run: f64,
    pub(super) max_run: f64,
    pub(super) min_runs: f64,
    pub(super) max_runs: f64,
    pub(super) min_diff: f64,
    pub(super) max_diff: f64,
    pub(super) diff1_sum: f64,
    pub(super) diff1_sum_x2: f64,
    pub(super) mask: u64,
    pub(super) imask: u64,
    pub(super) min_count: u64,
    pub(super) max_count: u64,
    pub(super) noise_floor_count: u64,
    pub(super) zero_runs: u64,
    pub(super) nb_samples: u64,
    pub(super) nb_nans: u64,
    pub(super) nb_infs: u64,
    pub(super) nb_denormals: u64,
    /// The last `tc_samples` normalised samples, a ring.
    pub(super) win_samples: Vec<f64>,
    /// Bins of the window's samples (noise floor).
    pub(super) histogram: Vec<u64>,
    /// Bins of all the frame's samples (entropy).
    pub(super) ehistogram: Vec<u64>,
    /// The bins holding samples of this frame, so that a reset and the entropy visit only those.
    pub(super) touched: Vec<usize>,
    pub(super) win_pos: usize,
    pub(super) max_index: usize,
    pub(super) noise_floor: f64,
}

impl Channel {
    pub(super) fn new(tc_samples: usize) -> Self {
        let mut channel = Self {
            last: f64::NAN,
            last_non_zero: 0.0,
            min_non_zero: f64::MAX,
            sigma_x: 0.0,
            sigma_x2: 0.0,
            avg_sigma_x2: 0.0,
            min_sigma_x2: f64::MAX,
            max_sigma_x2: -f64::MAX,
            min: f64::MAX,
            max: -f64::MAX,
            nmin: f64::MAX,
            nmax: -f64::MAX,
            min_run: 0.0,
            max_run: 0.0,
            min_runs: 0.0,
            max_runs: 0.0,
            min_diff: f64::MAX,
            max_diff: 0.0,
            diff1_sum: 0.0,
            diff1_sum_x2: 0.0,
            mask: 0,
            imask: u64::MAX,
            min_count: 0,
            max_count: 0,
            noise_floor_count: 0,
            zero_runs: 0,
            nb_samples: 0,
            nb_nans: 0,
            nb_infs: 0,
            nb_denormals: 0,
            win_samples: vec![0.0; tc_samples],
            histogram: vec![0; HISTOGRAM_SIZE],
            ehistogram: vec![0; HISTOGRAM_SIZE],
            touched: Vec::new(),
            win_pos: 0,
            max_index: 0,
            noise_floor: f64::NAN,
        };
        channel.reset();
        channel
    }

    /// FFmpeg's `reset_stats`: everything but the last non-zero sample and the histogram's top
    /// bin (which it leaves alone).
    pub(super) fn reset(&mut self) {
        self.min = f64::MAX;
        self.nmin = f64::MAX;
        self.min_sigma_x2 = f64::MAX;
        self.max = -f64::MAX;
        self.nmax = -f64::MAX;
        self.max_sigma_x2 = -f64::MAX;
        self.min_non_zero = f64::MAX;
        self.min_diff = f64::MAX;
        self.max_diff = 0.0;
        self.sigma_x = 0.0;
        self.sigma_x2 = 0.0;
        self.avg_sigma_x2 = 0.0;
        self.min_run = 0.0;
        self.max_run = 0.0;
        self.min_runs = 0.0;
        self.max_runs = 0.0;
        self.diff1_sum = 0.0;
        self.diff1_sum_x2 = 0.0;
        self.mask = 0;
        self.imask = u64::MAX;
        self.min_count = 0;
        self.max_count = 0;
        self.zero_runs = 0;
        self.nb_samples = 0;
        self.nb_nans = 0;
        self.nb_infs = 0;
        self.nb_denormals = 0;
        self.last = f64::NAN;
        self.noise_floor = f64::NAN;
        self.noise_floor_count = 0;
        self.win_pos = 0;
        self.win_samples.fill(0.0);
        // Only bins that had samples are non-zero (the window's are among them).
        for &b in &self.touched {
            self.histogram[b] = 0;
            self.ehistogram[b] = 0;
        }
        self.touched.clear();
    }

    /// FFmpeg's `update_stat` (and `update_float_stat`/`update_double_stat`) for one sample.
    pub(super) fn add<S: Sample>(&mut self, sample: S, mult: f64) {
        let format = S::FORMAT;
        let d = sample.value();
        let nd = format.normalise(d);
        let i = sample.mask_bits() as u64;
        let tc_samples = self.win_samples.len();

        if d < self.min {
            self.min = d;
            self.nmin = nd;
            self.min_run = 1.0;
            self.min_runs = 0.0;
            self.min_count = 1;
        } else if d == self.min {
            self.min_count += 1;
            self.min_run = if d == self.last { self.min_run + 1.0 } else { 1.0 };
        } else if self.last == self.min {
            self.min_runs += self.min_run * self.min_run;
        }

        if d != 0.0 && ffabs(d) < self.min_non_zero {
            self.min_non_zero = ffabs(d);
        }

        if d > self.max {
            self.max = d;
            self.nmax = nd;
            self.max_run = 1.0;
            self.max_runs = 0.0;
            self.max_count = 1;
        } else if d == self.max {
            self.max_count += 1;
            self.max_run = if d == self.last { self.max_run + 1.0 } else { 1.0 };
        } else if self.last == self.max {
            self.max_runs += self.max_run * self.max_run;
        }

        if d != 0.0 {
            self.zero_runs += u64::from(ffsign(d) != ffsign(self.last_non_zero));
            self.last_non_zero = d;
        }

        self.sigma_x += nd;
        self.sigma_x2 += nd * nd;
        self.avg_sigma_x2 = self.avg_sigma_x2 * mult + (1.0 - mult) * nd * nd;
        if !self.last.is_nan() {
            let diff = d - self.last;
            self.min_diff = ffmin(self.min_diff, diff.abs());
            self.max_diff = ffmax(self.max_diff, diff.abs());
            self.diff1_sum += diff.abs();
            self.diff1_sum_x2 += diff * diff;
        }
        self.last = d;
        self.mask |= i;
        self.imask &= i;

        let drop = self.win_samples[self.win_pos];
        self.win_samples[self.win_pos] = nd;
        let index = bin(nd);
        self.max_index = self.max_index.max(index);
        self.histogram[index] += 1;
        if self.ehistogram[index] == 0 {
            self.touched.push(index);
        }
        self.ehistogram[index] += 1;
        if !self.noise_floor.is_nan() {
            let dropped = &mut self.histogram[bin(drop)];
            *dropped = dropped.saturating_sub(1);
        }
        self.win_pos += 1;

        while self.max_index > 0 && self.histogram[self.max_index] == 0 {
            self.max_index -= 1;
        }
        if self.win_pos >= tc_samples || !self.noise_floor.is_nan() {
            let mut noise_floor = 1.0;
            if let Some(top) = (0..=self.max_index).rev().find(|&b| self.histogram[b] != 0) {
                noise_floor = top as f64 / HISTOGRAM_MAX as f64;
            }
            if self.noise_floor.is_nan() || noise_floor < self.noise_floor {
                self.noise_floor = noise_floor;
                self.noise_floor_count = 1;
            } else if noise_floor == self.noise_floor {
                self.noise_floor_count += 1;
            }
        }

        if self.win_pos >= tc_samples {
            self.win_pos = 0;
        }

        if self.nb_samples >= tc_samples as u64 {
            self.max_sigma_x2 = ffmax(self.max_sigma_x2, self.avg_sigma_x2);
            self.min_sigma_x2 = ffmin(self.min_sigma_x2, self.avg_sigma_x2);
        }
        self.nb_samples += 1;

        if format.is_float() {
            match sample.category() {
                FpCategory::Nan => self.nb_nans += 1,
                FpCategory::Infinite => self.nb_infs += 1,
                FpCategory::Subnormal => self.nb_denormals += 1,
                _ => {}
            }
        }
    }

    /// FFmpeg's `calc_entropy`: the Shannon entropy of the frame's |sample| histogram over
    /// 8192 bins, divided by log2(8192) (0 to 1).
    pub(super) fn entropy(&mut self) -> f64 {
        // FFmpeg sums over every bin in order; empty ones add nothing.
        self.touched.sort_unstable();
        let mut entropy = 0.0;
        for &b in &self.touched {
            let entry = div(self.ehistogram[b] as f64, self.nb_samples as f64);
            if entry > 1e-8 {
                entropy += entry * entry.log2();
            }
        }
        -entropy / (HISTOGRAM_SIZE as f64).log2()
    }
}
