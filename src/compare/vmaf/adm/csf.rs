//! Contrast sensitivity (`adm_csf`, `i4_adm_csf`): weights each orientation's additive
//! impairment by the inverse of its visibility threshold, and keeps a thirtieth of the weighted
//! magnitude for the masking threshold. Also the thresholds themselves, from Watson, Yang,
//! Solomon and Villasenor, "Visibility of wavelet quantization noise" (1997), which the
//! numerator and denominator use too.

use super::band::{zeroed_detail, Coefficient, Detail, Region};

/// libvmaf's defaults: viewing distance in display heights, and the display's height in lines.
const VIEW_DISTANCE: f64 = 3.0;
const DISPLAY_HEIGHT: f64 = 1080.0;

/// Watson's model for luma (`dwt_7_9_YCbCr_threshold[0]`): a, k, f0 and g per orientation
/// (approximation, vertical, diagonal, horizontal).
const A: f32 = 0.495;
const K: f32 = 0.466;
const F0: f32 = 0.401;
const G: [f32; 4] = [1.501, 1.0, 0.534, 1.0];

/// The 7/9 wavelet's basis function amplitudes A(lambda, theta)
/// (`dwt_7_9_basis_function_amplitudes`), for the four scales ADM uses.
const BASIS_AMPLITUDES: [[f32; 4]; 4] = [
    [0.62171, 0.67234, 0.72709, 0.67234],
    [0.34537, 0.41317, 0.49428, 0.41317],
    [0.18004, 0.22727, 0.28688, 0.22727],
    [0.091401, 0.11792, 0.15214, 0.11792],
];

/// Watson's quantization step for `scale` and orientation `theta` (`dwt_quant_step`), with
/// libvmaf's mix of `double` arithmetic and `float` results.
fn quant_step(scale: usize, theta: usize) -> f32 {
    // Display resolution in pixels per degree of visual angle.
    let r = (VIEW_DISTANCE * DISPLAY_HEIGHT * std::f64::consts::PI / 180.0) as f32;
    let octave = f64::from(1u32 << (scale + 1));
    let temp = (octave * f64::from(F0) * f64::from(G[theta]) / f64::from(r)).log10() as f32;
    let exponent = f64::from(K * temp * temp);
    (2.0 * f64::from(A) * 10f64.powf(exponent) / f64::from(BASIS_AMPLITUDES[scale][theta])) as f32
}

/// The CSF weights of the h, v and d bands at `scale` (`rfactor`): the inverse quantization
/// steps of Watson's vertical/horizontal and diagonal orientations.
pub(super) fn factors(scale: usize) -> [f32; 3] {
    let straight = 1.0 / quant_step(scale, 1);
    let diagonal = 1.0 / quant_step(scale, 2);
    [straight, straight, diagonal]
}

/// Scale 0's weights in fixed point (Q21, Q21, Q23). libvmaf hard-codes them for the default
/// viewing conditions; they are a little above what [`factors`] gives (36451, 36451, 49414).
pub(super) const SCALE_0_WEIGHTS: [i64; 3] = [36453, 36453, 49417];

/// Scales 1–3's weights in Q32, truncated from the float factors.
pub(super) fn weights_q32(scale: usize) -> [i64; 3] {
    factors(scale).map(|f| (f64::from(f) * 2f64.powi(32)) as u32 as i64)
}

/// How one scale rounds the weighting and the thirtieth.
#[derive(Clone, Copy, Debug)]
pub(in crate::compare::vmaf) struct CsfFormat {
    pub weight: [i64; 3],
    pub weight_round: [i64; 3],
    pub weight_shift: [u32; 3],
    pub one_by_30: i64,
    pub one_by_30_round: i64,
    pub one_by_30_shift: u32,
}

impl CsfFormat {
    pub fn for_scale(scale: usize) -> Self {
        if scale == 0 {
            Self {
                weight: SCALE_0_WEIGHTS,
                // 65535, not 65536, for the diagonal: libvmaf's constant.
                weight_round: [16384, 16384, 65535],
                weight_shift: [15, 15, 17],
                // 2^17 / 30.
                one_by_30: 4369,
                one_by_30_round: 2048,
                one_by_30_shift: 12,
            }
        } else {
            Self {
                weight: weights_q32(scale),
                weight_round: [1 << 27; 3],
                weight_shift: [28; 3],
                // 2^32 / 30.
                one_by_30: 143_165_577,
                // libvmaf stores 1u << 31 in an int32_t: the "rounding" constant is -2^31,
                // so this rounds half down and maps 0 to -1.
                one_by_30_round: i64::from(i32::MIN),
                one_by_30_shift: 32,
            }
        }
    }
}

/// The weighted additive impairment (libvmaf's `csf_a`) and a thirtieth of its magnitude
/// (`csf_f`), which the masking threshold sums.
pub(super) struct Weighted<T> {
    pub weighted: Detail<T>,
    pub thirtieth: Detail<T>,
}

/// Weights `additive` in `region`; the rest stays 0 (libvmaf leaves it unwritten, and
/// nothing reads it).
pub(super) fn weight<T: Coefficient>(additive: &Detail<T>, format: &CsfFormat, region: Region) -> Weighted<T> {
    let (width, height) = (additive[0].width, additive[0].height);
    let mut weighted = zeroed_detail(width, height);
    let mut thirtieth = zeroed_detail(width, height);
    for b in 0..3 {
        for y in region.rows() {
            for x in region.columns() {
                let a = additive[b].at(x, y).wide();
                let w = T::narrow((format.weight[b] * a + format.weight_round[b]) >> format.weight_shift[b]);
                let f = (format.one_by_30 * i64::from(w.c_abs()) + format.one_by_30_round) >> format.one_by_30_shift;
                weighted[b].set(x, y, w);
                thirtieth[b].set(x, y, T::narrow(f));
            }
        }
    }
    Weighted { weighted, thirtieth }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_0_factors_sit_just_under_the_hard_coded_weights() {
        let [h, v, d] = factors(0);
        assert_eq!(h, v);
        assert_eq!((f64::from(h) * 2f64.powi(21)) as u32, 36451);
        assert_eq!((f64::from(d) * 2f64.powi(23)) as u32, 49414);
    }

    #[test]
    fn coarser_weights_grow_with_scale() {
        let weights: Vec<[i64; 3]> = (1..4).map(weights_q32).collect();
        assert_eq!(weights[0], [137_373_792, 137_373_792, 61_414_028]);
        assert!(weights.windows(2).all(|w| w[0][0] < w[1][0] && w[0][2] < w[1][2]));
    }
}
