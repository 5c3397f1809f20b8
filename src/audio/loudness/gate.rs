//! The gates of the integrated loudness and the loudness range: blocks' loudness counted in
//! 0.01 LU bins over the absolute gate, the relative gate from their mean power, and the
//! integrated loudness and range's percentiles read off the bins.

use super::{energy, loudness};

/// Blocks at or below this loudness are silence: not counted (LUFS).
pub(super) const ABS_THRESHOLD: f64 = -70.0;

/// The loudest a histogram holds (LUFS).
const ABS_UPPER: f64 = 10.0;

/// Histogram bins per LU.
const GRAIN: f64 = 100.0;
const HISTOGRAM_SIZE: usize = ((ABS_UPPER - ABS_THRESHOLD) * GRAIN) as usize + 1;

/// The relative gates: integrated loudness, loudness range (LU below the mean).
pub(super) const INTEGRATED_GATE: f64 = -10.0;
pub(super) const RANGE_GATE: f64 = -20.0;

/// The loudness range's percentiles.
const RANGE_LOW: f64 = 10.0;
const RANGE_HIGH: f64 = 95.0;

/// Blocks' loudness counted in bins of 0.01 LU from -70 to +10 LUFS, with the running mean of
/// their power for the relative gate.
pub(super) struct Gate {
    pub(super) counts: Vec<u64>,
    pub(super) kept_power: f64,
    pub(super) kept: u64,
    pub(super) offset: f64,
}

impl Gate {
    pub(super) fn new(offset: f64) -> Self {
        Self {
            counts: vec![0; HISTOGRAM_SIZE],
            kept_power: 0.0,
            kept: 0,
            offset,
        }
    }

    fn bin(loudness: f64) -> usize {
        (((loudness - ABS_THRESHOLD) * GRAIN) as i64).clamp(0, HISTOGRAM_SIZE as i64 - 1) as usize
    }

    fn bin_loudness(bin: usize) -> f64 {
        bin as f64 / GRAIN + ABS_THRESHOLD
    }

    /// Counts a block (above the absolute gate).
    pub(super) fn add(&mut self, power: f64, loudness: f64) {
        self.counts[Self::bin(loudness)] += 1;
        self.kept_power += power;
        self.kept += 1;
    }

    /// The relative threshold, LUFS (0 before any block, as FFmpeg prints it).
    pub(super) fn threshold(&self) -> f64 {
        match self.kept {
            0 => 0.0,
            n => loudness((self.kept_power / n as f64).max(1e-12)) + self.offset,
        }
    }

    /// The first bin at or above the relative threshold.
    fn first_bin(&self) -> usize {
        Self::bin(self.threshold())
    }

    /// The mean energy of the blocks above the relative gate, as loudness.
    pub(super) fn integrated(&self) -> Option<f64> {
        let (mut n, mut sum) = (0u64, 0.0);
        for (bin, &count) in self.counts.iter().enumerate().skip(self.first_bin()) {
            n += count;
            sum += count as f64 * energy(Self::bin_loudness(bin));
        }
        (self.kept > 0 && n > 0).then(|| loudness(sum / n as f64))
    }

    /// The 10th and 95th percentiles of the blocks above the relative gate.
    pub(super) fn range(&self) -> Option<(f64, f64)> {
        let first = self.first_bin();
        let total: u64 = self.counts[first..].iter().sum();
        if self.kept == 0 || total == 0 {
            return None;
        }
        let wanted = (RANGE_LOW * total as f64 * 0.01 + 0.5) as u64;
        let mut n = 0;
        let low = (first..HISTOGRAM_SIZE).find(|&bin| {
            n += self.counts[bin];
            n >= wanted
        })?;
        let wanted = (RANGE_HIGH * total as f64 * 0.01 + 0.5) as u64;
        let mut n = total;
        let high = (0..HISTOGRAM_SIZE).rev().find(|&bin| {
            n -= n.min(self.counts[bin]);
            n < wanted
        })?;
        Some((Self::bin_loudness(low), Self::bin_loudness(high)))
    }
}
