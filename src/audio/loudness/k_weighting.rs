//! K-weighted power: BS.1770's pre-filter and RLB high-pass at any sample rate, and the windows
//! (momentary, short-term) of the filtered samples' squares, summed as they come.

/// A biquad's coefficients (a0 = 1).
#[derive(Clone, Copy, Debug)]
pub(super) struct Biquad {
    pub(super) b: [f64; 3],
    pub(super) a: [f64; 3],
}

/// BS.1770's pre-filter and RLB high-pass at `rate`, from the parametrisation libebur128 and
/// FFmpeg use (at 48 kHz, the standard's coefficients).
pub(super) fn k_weighting(rate: u32) -> (Biquad, Biquad) {
    let rate = f64::from(rate);
    let (f0, gain, q) = (1681.974450955533, 3.999843853973347, 0.7071752369554196);
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let vh = 10f64.powf(gain / 20.0);
    let vb = vh.powf(0.4996667741545416);
    let a0 = 1.0 + k / q + k * k;
    let pre = Biquad {
        b: [
            (vh + vb * k / q + k * k) / a0,
            2.0 * (k * k - vh) / a0,
            (vh - vb * k / q + k * k) / a0,
        ],
        a: [1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    let (f0, q) = (38.13547087602444, 0.5003270373238773);
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let a0 = 1.0 + k / q + k * k;
    let rlb = Biquad {
        b: [1.0, -2.0, 1.0],
        a: [1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    (pre, rlb)
}

/// A window of the last `size` filtered samples' squares per channel, summed as they come.
pub(super) struct Window {
    pub(super) cache: Vec<Vec<f64>>,
    pub(super) sums: Vec<f64>,
    pub(super) position: usize,
    pub(super) filled: bool,
}

impl Window {
    pub(super) fn new(channels: usize, size: usize) -> Self {
        Self {
            cache: vec![vec![0.0; size.max(1)]; channels],
            sums: vec![0.0; channels],
            position: 0,
            filled: false,
        }
    }

    /// The mean weighted power over the window, once it is full (before: 1e-12, silence),
    /// summed in FFmpeg's order.
    pub(super) fn power(&self, weights: &[f64]) -> f64 {
        let mut power = 1e-12;
        if self.filled {
            for (w, s) in weights.iter().zip(&self.sums) {
                power += w * s;
            }
            power /= self.cache[0].len() as f64;
        }
        power
    }
}
