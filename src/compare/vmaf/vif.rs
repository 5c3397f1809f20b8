//! VIF (visual information fidelity) as libvmaf 3.2.0's `integer_vif` feature computes it: the
//! scores `integer_vif_scale0..3` that VMAF's models read, from libvmaf's fixed-point C path,
//! operation for operation, so that every score is the very `f32` libvmaf reports.
//!
//! At each of four scales a separable filter gives every pixel the local means, variances and
//! covariance of reference and distorted. Each pixel then adds, as fixed-point base-2 logarithms,
//! the information the distorted picture keeps (numerator) and the information the reference
//! carries (denominator). Between scales both pictures are blurred with the next scale's filter
//! and decimated by two.
//!
//! Units: the vertical pass brings samples of any depth to 8-bit units, so every variance below
//! is in Q16 of squared 8-bit code values, whatever the input depth.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::luma::Luma;

/// VIF's options as a model sets them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VifOptions {
    /// `vif_enhn_gain_limit`: the most a pixel's gain g = σ₁₂/σ₁² may count, in [1, 100].
    /// 100 (the default) lets sharpening raise VIF; the NEG models (`vmaf_v0.6.1neg`) set 1.0
    /// so that enhancement earns no credit.
    pub enhancement_gain_limit: f64,
    /// `vif_skip_scale0`: report 0 for scale 0 without computing it; the other scales are
    /// unchanged, as they are decimated from the full picture either way.
    pub skip_scale0: bool,
}

impl Default for VifOptions {
    fn default() -> Self {
        Self {
            enhancement_gain_limit: 100.0,
            skip_scale0: false,
        }
    }
}

/// Each scale's filter in Q16 (every one sums to 65536): Gaussians 17, 9, 5 and 3 taps wide.
/// Scale s measures with `FILTERS[s]`, and the picture of scale s is the one of scale s − 1
/// blurred with `FILTERS[s]` and decimated.
const FILTERS: [&[u16]; 4] = [
    &[
        489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935, 489,
    ],
    &[1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244],
    &[3571, 16004, 26386, 16004, 3571],
    &[10904, 43728, 10904],
];

/// The model's noise variance σₙ² = 2 (`sigma_nsq`), in the Q16 units of the variances.
const NOISE_VARIANCE: i32 = 2 << 16;

/// log2(2^17) in Q11: dividing by σₙ² inside a logarithm (`2048 * 17` in the C).
const LOG2_NOISE_VARIANCE_Q11: i32 = 2048 * 17;

/// Keeps g = σ₁₂ / (σ₁² + ε) finite; libvmaf writes it `65536 * 1.0e-10` and computes it in double.
pub(super) const GAIN_EPSILON: f64 = 65536.0 * 1.0e-10;

/// integer_vif_scale0..3 of `distorted` against `reference` (same size and depth).
///
/// Each score is libvmaf's `f32` num/den quotient, widened to `f64`.
///
/// The result equals libvmaf's whenever every scale is at least 2 × 2 samples, that is for
/// pictures of 16 × 16 and up. Below that libvmaf's border padding reads memory that holds
/// earlier rows or frames, so it has no single answer; here a 1-sample-wide scale repeats its
/// sample, and an empty scale (a side under 8) scores NaN (0/0) as in libvmaf.
///
/// # Panics
/// If the two pictures differ in size or depth, if `bits` is outside 8..=16, or if a plane holds
/// fewer than `width × height` samples. Samples must be below 2^`bits`.
pub fn vif(reference: &Luma, distorted: &Luma, options: &VifOptions) -> [f64; 4] {
    scores(&vif_sums(reference, distorted, options), options)
}

/// Each scale's integer sums, the part of VIF a GPU pass must equal bit for bit (`vif` is
/// `scores` of them). Scale 0's are zero under `skip_scale0`.
///
/// # Panics
/// As `vif`.
pub fn vif_sums(reference: &Luma, distorted: &Luma, options: &VifOptions) -> [InformationSums; 4] {
    check_pair(reference, distorted);
    let samples = reference.width * reference.height;
    let mut pair = ScalePair {
        reference: Cow::Borrowed(&reference.data[..samples]),
        distorted: Cow::Borrowed(&distorted.data[..samples]),
        width: reference.width,
        height: reference.height,
    };
    let mut sums = [InformationSums::default(); 4];
    for (scale, sum) in sums.iter_mut().enumerate() {
        if scale > 0 {
            pair = pair.blur_and_decimate(scale, reference.bits);
        }
        if scale == 0 && options.skip_scale0 {
            continue;
        }
        *sum = pair.information(scale, reference.bits, options.enhancement_gain_limit);
    }
    sums
}

/// Panics unless the two pictures are alike and whole (see `vif`).
fn check_pair(reference: &Luma, distorted: &Luma) {
    assert_eq!(
        (reference.width, reference.height, reference.bits),
        (distorted.width, distorted.height, distorted.bits),
        "VIF compares pictures of the same size and depth"
    );
    assert!(
        (8..=16).contains(&reference.bits),
        "VIF reads 8- to 16-bit samples, not {}",
        reference.bits
    );
    let samples = reference.width * reference.height;
    assert!(
        reference.data.len() >= samples && distorted.data.len() >= samples,
        "a {}x{} plane needs {samples} samples",
        reference.width,
        reference.height
    );
}

/// The four scores from the four scales' sums (0 for a skipped scale 0).
pub fn scores(sums: &[InformationSums; 4], options: &VifOptions) -> [f64; 4] {
    std::array::from_fn(|scale| {
        if scale == 0 && options.skip_scale0 {
            0.0
        } else {
            sums[scale].score()
        }
    })
}

/// VIF's loss map: at each pixel of scale 0, the information `distorted` loses of
/// `reference`'s there (`PixelTerms::loss_q11`), in raster order — where VIF's score comes
/// from, pixel by pixel (the compare window's heat map).
///
/// # Panics
/// As `vif`.
pub fn loss_map(reference: &Luma, distorted: &Luma, options: &VifOptions) -> Vec<i32> {
    check_pair(reference, distorted);
    let samples = reference.width * reference.height;
    let pair = ScalePair {
        reference: Cow::Borrowed(&reference.data[..samples]),
        distorted: Cow::Borrowed(&distorted.data[..samples]),
        width: reference.width,
        height: reference.height,
    };
    let mut map = vec![0; samples];
    pair.each_pixel(0, reference.bits, options.enhancement_gain_limit, |i, terms| {
        map[i] = terms.loss_q11();
    });
    map
}

/// Scale `scale`'s filter taps (Q16), for a GPU pass.
pub fn filter(scale: usize) -> &'static [u16] {
    FILTERS[scale]
}

/// Reference and distorted at one scale, `width × height` samples each, row after row.
struct ScalePair<'a> {
    reference: Cow<'a, [u16]>,
    distorted: Cow<'a, [u16]>,
    width: usize,
    height: usize,
}

impl ScalePair<'_> {
    /// This scale's numerator and denominator sums (the C's `vif_statistic_8/16`).
    fn information(&self, scale: usize, bits: u32, gain_limit: f64) -> InformationSums {
        let mut sums = InformationSums::default();
        self.each_pixel(scale, bits, gain_limit, |_, terms| sums.add(terms));
        sums
    }

    /// Each pixel's terms of this scale's sums, with its index, in raster order.
    fn each_pixel(&self, scale: usize, bits: u32, gain_limit: f64, mut each: impl FnMut(usize, PixelTerms)) {
        let taps = FILTERS[scale];
        let half = taps.len() / 2;
        let (width, height) = (self.width, self.height);
        // Scale 0 holds `bits`-deep samples, brought to 8-bit units here (for 8-bit input the
        // squares are left as they are); later scales hold 16-bit means.
        let (mean_shift, square_shift) = if scale == 0 { (bits, 2 * (bits - 8)) } else { (16, 16) };

        let mut column = MomentSums::new(width);
        let mut row = PaddedMoments::new(width, half);
        let mut local = MomentSums::new(width);
        for y in 0..height {
            // Vertical: the filtered moments of every column around row y.
            column.clear();
            for (tap, &coeff) in taps.iter().enumerate() {
                let source = mirror(y + tap, half, height) * width;
                let reference = &self.reference[source..source + width];
                let distorted = &self.distorted[source..source + width];
                column.add_products(u32::from(coeff), reference, distorted);
            }
            row.fill_from(&column, mean_shift, square_shift);

            // Horizontal: the same filter along the row gives each pixel its local moments.
            local.clear();
            for (tap, &coeff) in taps.iter().enumerate() {
                local.add_filtered(u32::from(coeff), &row, tap);
            }
            for x in 0..width {
                let terms = PixelTerms::of(
                    local.mean1[x],
                    local.mean2[x],
                    local.square1[x],
                    local.square2[x],
                    local.product[x],
                    gain_limit,
                );
                each(y * width + x, terms);
            }
        }
    }

    /// The pair at `scale`: this one (scale − 1) blurred with `FILTERS[scale]`, keeping the
    /// even rows and columns (the C's `subsample_rd_8/16` and `decimate_and_pad`; the odd
    /// rows and columns it also filters are thrown away, so they are not computed here).
    fn blur_and_decimate(&self, scale: usize, bits: u32) -> ScalePair<'static> {
        let taps = FILTERS[scale];
        let half = taps.len() / 2;
        let (width, height) = (self.width, self.height);
        let (out_width, out_height) = (width / 2, height / 2);
        // The full-depth picture is brought to 16 bits (8-bit units × 256); later scales
        // already are.
        let shift = if scale == 1 { bits } else { 16 };

        let mut reference = Vec::with_capacity(out_width * out_height);
        let mut distorted = Vec::with_capacity(out_width * out_height);
        let mut column = [vec![0u32; width], vec![0u32; width]];
        let mut row = [vec![0u16; width + 2 * half], vec![0u16; width + 2 * half]];
        for y in (0..out_height).map(|y| 2 * y) {
            column.iter_mut().for_each(|sums| sums.fill(0));
            for (tap, &coeff) in taps.iter().enumerate() {
                let source = mirror(y + tap, half, height) * width;
                for (sums, plane) in column.iter_mut().zip([&self.reference, &self.distorted]) {
                    for (sum, &sample) in sums.iter_mut().zip(&plane[source..source + width]) {
                        *sum += u32::from(coeff) * u32::from(sample);
                    }
                }
            }
            for (padded, sums) in row.iter_mut().zip(&column) {
                for (value, &sum) in padded[half..half + width].iter_mut().zip(sums) {
                    *value = round_shift(u64::from(sum), shift) as u16;
                }
                pad_mirrored(padded, half);
            }
            for (out, padded) in [&mut reference, &mut distorted].into_iter().zip(&row) {
                out.extend((0..out_width).map(|x| {
                    let sum: u32 = taps
                        .iter()
                        .zip(&padded[2 * x..])
                        .map(|(&coeff, &value)| u32::from(coeff) * u32::from(value))
                        .sum();
                    round_shift(u64::from(sum), 16) as u16
                }));
            }
        }
        ScalePair {
            reference: Cow::Owned(reference),
            distorted: Cow::Owned(distorted),
            width: out_width,
            height: out_height,
        }
    }
}

/// Filtered first and second moments of a row of pixels: the means of reference (1) and
/// distorted (2), their squares and their product, with the C's widths (means fit 32 bits,
/// the squared terms need 64 before their final shift).
struct MomentSums {
    mean1: Vec<u32>,
    mean2: Vec<u32>,
    square1: Vec<u64>,
    square2: Vec<u64>,
    product: Vec<u64>,
}

impl MomentSums {
    fn new(width: usize) -> Self {
        Self {
            mean1: vec![0; width],
            mean2: vec![0; width],
            square1: vec![0; width],
            square2: vec![0; width],
            product: vec![0; width],
        }
    }

    fn clear(&mut self) {
        self.mean1.fill(0);
        self.mean2.fill(0);
        self.square1.fill(0);
        self.square2.fill(0);
        self.product.fill(0);
    }

    /// Adds one vertical tap: `coeff` times the samples of a reference and a distorted row,
    /// and times their squares and product.
    fn add_products(&mut self, coeff: u32, reference: &[u16], distorted: &[u16]) {
        for x in 0..reference.len() {
            let (r, d) = (u32::from(reference[x]), u32::from(distorted[x]));
            let (weighted_r, weighted_d) = (coeff * r, coeff * d);
            self.mean1[x] += weighted_r;
            self.mean2[x] += weighted_d;
            self.square1[x] += u64::from(weighted_r) * u64::from(r);
            self.square2[x] += u64::from(weighted_d) * u64::from(d);
            self.product[x] += u64::from(weighted_r) * u64::from(d);
        }
    }

    /// Adds one horizontal tap: `coeff` times the padded row, `tap` samples right of each pixel's
    /// leftmost neighbour.
    fn add_filtered(&mut self, coeff: u32, row: &PaddedMoments, tap: usize) {
        let width = self.mean1.len();
        let window = tap..tap + width;
        let coeff64 = u64::from(coeff);
        for (sum, &value) in self.mean1.iter_mut().zip(&row.mean1[window.clone()]) {
            *sum += coeff * u32::from(value);
        }
        for (sum, &value) in self.mean2.iter_mut().zip(&row.mean2[window.clone()]) {
            *sum += coeff * u32::from(value);
        }
        for (sum, &value) in self.square1.iter_mut().zip(&row.square1[window.clone()]) {
            *sum += coeff64 * u64::from(value);
        }
        for (sum, &value) in self.square2.iter_mut().zip(&row.square2[window.clone()]) {
            *sum += coeff64 * u64::from(value);
        }
        for (sum, &value) in self.product.iter_mut().zip(&row.product[window]) {
            *sum += coeff64 * u64::from(value);
        }
    }
}

/// The vertical pass's output for one row, rounded back to 16 and 32 bits and mirrored `half`
/// samples past each end for the horizontal pass (the C's `tmp` buffers).
struct PaddedMoments {
    half: usize,
    mean1: Vec<u16>,
    mean2: Vec<u16>,
    square1: Vec<u32>,
    square2: Vec<u32>,
    product: Vec<u32>,
}

impl PaddedMoments {
    fn new(width: usize, half: usize) -> Self {
        let len = width + 2 * half;
        Self {
            half,
            mean1: vec![0; len],
            mean2: vec![0; len],
            square1: vec![0; len],
            square2: vec![0; len],
            product: vec![0; len],
        }
    }

    fn fill_from(&mut self, sums: &MomentSums, mean_shift: u32, square_shift: u32) {
        let half = self.half;
        let store_means = |padded: &mut Vec<u16>, sums: &[u32]| {
            for (value, &sum) in padded[half..].iter_mut().zip(sums) {
                *value = round_shift(u64::from(sum), mean_shift) as u16;
            }
            pad_mirrored(padded, half);
        };
        store_means(&mut self.mean1, &sums.mean1);
        store_means(&mut self.mean2, &sums.mean2);
        let store_squares = |padded: &mut Vec<u32>, sums: &[u64]| {
            for (value, &sum) in padded[half..].iter_mut().zip(sums) {
                *value = round_shift(sum, square_shift) as u32;
            }
            pad_mirrored(padded, half);
        };
        store_squares(&mut self.square1, &sums.square1);
        store_squares(&mut self.square2, &sums.square2);
        store_squares(&mut self.product, &sums.product);
    }
}

/// One scale's running sums, kept as libvmaf keeps them: logarithms in Q11 as integers, and
/// for pixels too flat to carry information, a count and their distorted variances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InformationSums {
    pub numerator_log: i64,
    pub denominator_log: i64,
    pub flat_variance: i64,
    pub flat_pixels: i64,
}

/// One pixel's terms in VIF's sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PixelTerms {
    /// Too flat to carry information: the distorted picture's variance there.
    Flat { variance: i32 },
    /// The information the reference carries there and the part the distorted keeps, in
    /// Q11 bits (`kept` is 0 where the distorted has no correlated detail at all).
    Detailed { carried: i32, kept: i32 },
}

/// A flat pixel's loss in Q11 bits is its variance over 16384 × 65025 (its numerator's
/// shortfall from 1) times 2048.
const FLAT_LOSS_DIVISOR: u32 = 16384 * 65025 / 2048;

impl PixelTerms {
    /// One pixel's terms, from its filtered moments (the body of the C's horizontal loop).
    fn of(mean1: u32, mean2: u32, square1: u64, square2: u64, product: u64, gain_limit: f64) -> Self {
        let mean_product = |a: u32, b: u32| round_shift(u64::from(a) * u64::from(b), 32) as u32;
        // Moments minus products of means, in wrapping 32-bit arithmetic as in C, and read as
        // signed: rounding can make a variance slightly negative.
        let centred = |moment: u64, means: u32| (round_shift(moment, 16) as u32).wrapping_sub(means) as i32;
        let sigma1_sq = centred(square1, mean_product(mean1, mean1));
        let sigma2_sq = centred(square2, mean_product(mean2, mean2)).max(0);
        let sigma12 = centred(product, mean_product(mean1, mean2));

        if sigma1_sq < NOISE_VARIANCE {
            return PixelTerms::Flat { variance: sigma2_sq };
        }
        // log2(1 + σ₁²/σₙ²) as log2(σₙ² + σ₁²) − log2(σₙ²).
        let carried = log2_q11(u64::from(NOISE_VARIANCE.wrapping_add(sigma1_sq) as u32)) - LOG2_NOISE_VARIANCE_Q11;
        let mut kept = 0;
        if sigma12 > 0 && sigma2_sq > 0 {
            // The distortion as gain g and additive noise σᵥ²; g is measured before it is
            // limited, so the limit lowers the credit for gain without raising the noise.
            let gain = f64::from(sigma12) / (f64::from(sigma1_sq) + GAIN_EPSILON);
            // A double-to-int conversion truncating toward zero; where it overflows (always
            // negative here) x86's INT_MIN and Rust's saturation both clamp to 0 below.
            let noise = ((f64::from(sigma2_sq) - gain * f64::from(sigma12)) as i32).max(0);
            let gain = gain.min(gain_limit);
            // log2(1 + g²σ₁²/(σᵥ² + σₙ²)) as log2(σᵥ² + σₙ² + g²σ₁²) − log2(σᵥ² + σₙ²).
            let noise_floor = noise.wrapping_add(NOISE_VARIANCE) as u32;
            let signal = (gain * gain * f64::from(sigma1_sq)) as i64 + i64::from(noise_floor);
            kept = log2_q11(signal as u64) - log2_q11(u64::from(noise_floor));
        }
        PixelTerms::Detailed { carried, kept }
    }

    /// The information lost at the pixel, in Q11 bits: what the reference carries less what
    /// the distorted keeps (negative where an enhancement adds more than is lost), or a flat
    /// pixel's shortfall.
    pub fn loss_q11(self) -> i32 {
        match self {
            PixelTerms::Flat { variance } => (variance as u32 / FLAT_LOSS_DIVISOR) as i32,
            PixelTerms::Detailed { carried, kept } => carried - kept,
        }
    }
}

impl InformationSums {
    fn add(&mut self, terms: PixelTerms) {
        match terms {
            PixelTerms::Flat { variance } => {
                self.flat_variance += i64::from(variance);
                self.flat_pixels += 1;
            }
            PixelTerms::Detailed { carried, kept } => {
                self.denominator_log += i64::from(carried);
                self.numerator_log += i64::from(kept);
            }
        }
    }

    /// num / den as libvmaf forms them: in double, stored as `f32`, divided in `f32`.
    /// A flat pixel counts 1 in the denominator and 1 − σ₂²/σ²ₘₐₓ in the numerator, with
    /// σ²ₘₐₓ = 255²/4 (16384 × 65025 in Q16).
    fn score(&self) -> f64 {
        let flat_pixels = self.flat_pixels as f64;
        let numerator = (self.numerator_log as f64 / 2048.0
            + (flat_pixels - (self.flat_variance as f64 / 16384.0) / 65025.0)) as f32;
        let denominator = (self.denominator_log as f64 / 2048.0 + flat_pixels) as f32;
        f64::from(numerator / denominator)
    }
}

/// log2(`value`) in Q11, from its 16 leading bits and a table (the C's `log2_32`/`log2_64`,
/// which agree for every value here).
fn log2_q11(value: u64) -> i32 {
    debug_assert!(value >= 1 << 15, "VIF's logarithms start at 2^15");
    let shift = 48 - value.leading_zeros();
    let leading = (value >> shift) as usize;
    i32::from(log2_table()[leading - (1 << 15)]) + 2048 * shift as i32
}

/// round(log2f(i) · 2048) for the 16-bit mantissas i in [2^15, 2^16) (libvmaf's
/// `log_generate`). `log2f` is in single precision, and some entries sit within an ulp of a
/// rounding boundary, so the table depends on `log2f` being the C library's (glibc's).
pub fn log2_table() -> &'static [u16] {
    static TABLE: OnceLock<Vec<u16>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (1u32 << 15..1 << 16)
            .map(|i| f64::from((i as f32).log2() * 2048.0).round() as u16)
            .collect()
    })
}

/// `(value + 2^(shift − 1)) >> shift`: a right shift rounding halves up; a shift of 0 leaves
/// `value` alone.
fn round_shift(value: u64, shift: u32) -> u64 {
    if shift == 0 {
        value
    } else {
        (value + (1 << (shift - 1))) >> shift
    }
}

/// The sample that position `index − half` of a line of `len` samples reads: past either end
/// the line is mirrored about its end samples (−1 reads 1, `len` reads `len − 2`), folding again
/// where the mirror would still fall outside. libvmaf pads row by row in that order, so for
/// `len` ≥ 2 the two agree everywhere; a one-sample line repeats its sample.
fn mirror(index: usize, half: usize, len: usize) -> usize {
    if len < 2 {
        return 0;
    }
    let period = 2 * (len - 1);
    let folded = (index as isize - half as isize).rem_euclid(period as isize) as usize;
    if folded < len {
        folded
    } else {
        period - folded
    }
}

/// Fills the `half` samples at each end of `padded` (a line of `padded.len() − 2 · half`
/// samples starting at `half`) with its mirror image.
fn pad_mirrored<T: Copy>(padded: &mut [T], half: usize) {
    let len = padded.len() - 2 * half;
    for i in (0..half).chain(half + len..padded.len()) {
        padded[i] = padded[half + mirror(i, half, len)];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_reflects_about_the_end_samples() {
        let line: Vec<usize> = (0..12).map(|i| mirror(i, 3, 5)).collect();
        assert_eq!(line, [3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1, 0]);
        // Narrower than the filter: libvmaf's row-by-row padding folds again.
        let line: Vec<usize> = (0..9).map(|i| mirror(i, 3, 2)).collect();
        assert_eq!(line, [1, 0, 1, 0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn log2_q11_agrees_with_the_logarithm() {
        for value in [
            1u64 << 17,
            123_456,
            1 << 40,
            (1 << 40) + 12_345_678,
            u64::from(u32::MAX),
        ] {
            let exact = (value as f64).log2() * 2048.0;
            assert!((f64::from(log2_q11(value)) - exact).abs() <= 1.0, "{value}");
        }
    }

    /// Some table entries lie within an ulp of log2f of a rounding boundary, so a libm whose
    /// log2f is not glibc's (or correctly rounded) could change them; this catches that.
    #[test]
    fn log2_table_is_the_correctly_rounded_one() {
        for (i, &entry) in (1u32 << 15..1 << 16).zip(log2_table()) {
            let log2f = f64::from(i).log2() as f32;
            assert_eq!(entry, (f64::from(log2f) * 2048.0).round() as u16, "log2f({i})");
        }
    }

    #[test]
    fn identical_pictures_score_one_at_every_scale() {
        let (width, height) = (40, 24);
        let data: Vec<u16> = (0..width * height)
            .map(|i| ((i * 37 + i / width * 11) % 256) as u16)
            .collect();
        let luma = Luma {
            data: &data,
            width,
            height,
            bits: 8,
        };
        for score in vif(&luma, &luma, &VifOptions::default()) {
            assert!((score - 1.0).abs() < 1e-3, "{score}");
        }
    }
}
