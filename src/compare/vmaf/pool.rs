//! Pooling of per-frame scores, as `vmaf_feature_score_pooled` (libvmaf.c) computes the
//! `pooled_metrics` of the log (no subsampling).

/// The four pooled values libvmaf writes for every feature and for `vmaf`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pooled {
    pub min: f64,
    pub max: f64,
    /// `sum / n`, the sum taken in frame order.
    pub mean: f64,
    /// `n / sum(1 / (s + 1)) - 1` (the +1 keeps zero scores finite).
    pub harmonic_mean: f64,
}

/// Pools `scores` (frame order).  An empty slice gives min = max = 0 and NaN means, as
/// libvmaf's arithmetic would.
pub fn pool(scores: &[f64]) -> Pooled {
    let (mut min, mut max, mut sum, mut i_sum) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (i, &s) in scores.iter().enumerate() {
        sum += s;
        i_sum += 1.0 / (s + 1.0);
        if i == 0 || s < min {
            min = s;
        }
        if i == 0 || s > max {
            max = s;
        }
    }
    let n = scores.len() as u32 as f64; // unsigned pic_cnt
    Pooled {
        min,
        max,
        mean: sum / n,
        harmonic_mean: n / i_sum - 1.0,
    }
}
