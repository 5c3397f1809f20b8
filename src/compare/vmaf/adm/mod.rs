//! ADM, libvmaf's detail-loss metric, exactly as libvmaf 3.2.0's `integer_adm` computes it
//! (the C path of `integer_adm.c`), for one frame pair's luma.
//!
//! Each of four scales runs both frames through one DWT level (`dwt`), splits the distorted
//! detail into what restores the reference's detail and an additive impairment (`decouple`),
//! weights the impairment by contrast sensitivity (`csf`) and lets it mask the restored detail
//! (`masking`, the numerator); the reference's own detail gives the denominator
//! (`denominator`). The approximation band feeds the next scale.
//!
//! libvmaf keeps scale 0's coefficients in `i16` and scales 1–3's in `i32`, each with its own
//! fixed-point formats. The stages here are written once, generic over `band::Coefficient`, and take
//! their formats from per-scale constructors that hold libvmaf's constants; the 8-bit and
//! high-bit-depth inputs differ only in the DWT's first shift.

mod band;
mod csf;
mod decouple;
mod denominator;
mod dwt;
mod masking;

use super::luma::Luma;
use band::{Coefficient, Region, Subbands};

/// The options of libvmaf's `adm` extractor that change `adm2` or its scales under the
/// built-in models. The others keep libvmaf's defaults: viewing distance 3 × the height of a
/// 1080-line display, Watson's CSF with scale factors 1, noise weight 0.03125, scale 0 kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmOptions {
    /// `adm_enhn_gain_limit`, in `1.0..=100.0`: how far detail the distorted frame adds along
    /// the reference's own orientation counts as restored. `1.0` (the NEG models) disables the
    /// enhancement gain.
    pub enhancement_gain_limit: f64,
}

impl Default for AdmOptions {
    fn default() -> Self {
        Self {
            enhancement_gain_limit: 100.0,
        }
    }
}

/// The features libvmaf reports as `integer_adm2` and `integer_adm_scale0..3`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmScores {
    pub adm2: f64,
    pub scales: [f64; 4],
}

/// The smallest width and height libvmaf handles without reading outside its buffers: the
/// DWT's edge folding needs at least 5 samples at the input of scale 3.
pub const MIN_DIMENSION: usize = 33;

/// ADM of `distorted` against `reference` (same size and depth).
///
/// # Panics
/// If the planes differ in size or depth, either side is under [`MIN_DIMENSION`], `bits` is
/// outside `8..=16`, a plane holds fewer than `width * height` samples, or the gain limit is
/// outside `1.0..=100.0` (libvmaf refuses it).
pub fn adm(reference: &Luma, distorted: &Luma, options: &AdmOptions) -> AdmScores {
    scores(
        &adm_sums(reference, distorted, options),
        reference.width,
        reference.height,
    )
}

/// Each scale's integer sums per orientation (h, v, d): the part of ADM a GPU pass must equal
/// bit for bit (`adm` is `scores` of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdmSums {
    pub numerator: [[i64; 3]; 4],
    pub denominator: [[u64; 3]; 4],
}

/// The sums of `adm`.
///
/// # Panics
/// As `adm`.
pub fn adm_sums(reference: &Luma, distorted: &Luma, options: &AdmOptions) -> AdmSums {
    let (width, height, bits) = (reference.width, reference.height, reference.bits);
    assert!(
        (distorted.width, distorted.height, distorted.bits) == (width, height, bits),
        "reference and distorted luma differ in size or depth"
    );
    assert!(
        width >= MIN_DIMENSION && height >= MIN_DIMENSION,
        "ADM needs at least {MIN_DIMENSION}x{MIN_DIMENSION} luma, got {width}x{height}"
    );
    assert!((8..=16).contains(&bits), "luma depth {bits} is outside 8..=16");
    let samples = width * height;
    assert!(
        reference.data.len() >= samples && distorted.data.len() >= samples,
        "a luma plane holds fewer than {width}x{height} samples"
    );
    let gain_limit = options.enhancement_gain_limit;
    assert!(
        (1.0..=100.0).contains(&gain_limit),
        "enhancement gain limit {gain_limit} is outside 1..=100"
    );

    let mut sums = AdmSums::default();
    let first = dwt::DwtFormat::from_samples(bits);
    let reference_bands: Subbands<i16> = dwt::dwt(&reference.data[..samples], width, height, &first);
    let distorted_bands: Subbands<i16> = dwt::dwt(&distorted.data[..samples], width, height, &first);
    scale_sums(0, &reference_bands, &distorted_bands, gain_limit, &mut sums);

    let mut reference_low = reference_bands.approx.map(i32::from);
    let mut distorted_low = distorted_bands.approx.map(i32::from);
    for scale in 1..4 {
        let format = dwt::DwtFormat::coarser(scale);
        let reference_bands: Subbands<i32> =
            dwt::dwt(&reference_low.data, reference_low.width, reference_low.height, &format);
        let distorted_bands: Subbands<i32> =
            dwt::dwt(&distorted_low.data, distorted_low.width, distorted_low.height, &format);
        scale_sums(scale, &reference_bands, &distorted_bands, gain_limit, &mut sums);
        reference_low = reference_bands.approx;
        distorted_low = distorted_bands.approx;
    }
    sums
}

/// The sizes of the four scales' bands for a `width` x `height` picture: each DWT level
/// halves, rounding up.
pub fn band_sizes(width: usize, height: usize) -> [(usize, usize); 4] {
    let mut size = (width, height);
    std::array::from_fn(|_| {
        size = (size.0.div_ceil(2), size.1.div_ceil(2));
        size
    })
}

/// `adm2` and the scales' scores from the sums of a `width` x `height` pair.
pub fn scores(sums: &AdmSums, width: usize, height: usize) -> AdmScores {
    let terms = std::array::from_fn(|scale| {
        let (w, h) = band_sizes(width, height)[scale];
        let scored = Region::scored(w, h);
        ScaleTerms {
            numerator: masking::numerator(scale, w, h, scored, sums.numerator[scale]),
            denominator: denominator::denominator(scale, scored, sums.denominator[scale]),
        }
    });
    combine(&terms, width, height)
}

/// One scale's integer constants, from its stages' own formats, for a GPU pass
/// (`compare::vmaf::gpu`): the bands of scale `scale` of a `width` x `height` picture.
pub(super) struct ScaleConstants {
    pub dwt: dwt::DwtFormat,
    pub csf: csf::CsfFormat,
    pub masking: masking::MaskingConstants,
    /// The denominator's square, cube and row rounding and shifts.
    pub denominator: [(u64, u32); 3],
    /// Left, top, right, bottom.
    pub scored: [usize; 4],
    pub needed: [usize; 4],
    pub cos_squared: f32,
}

pub(super) fn scale_constants(scale: usize, bits: u32, width: usize, height: usize) -> ScaleConstants {
    let (w, h) = band_sizes(width, height)[scale];
    let (scored, needed) = (Region::scored(w, h), Region::scored_with_taps(w, h));
    let corners = |r: Region| [r.left, r.top, r.right, r.bottom];
    ScaleConstants {
        dwt: if scale == 0 {
            dwt::DwtFormat::from_samples(bits)
        } else {
            dwt::DwtFormat::coarser(scale)
        },
        csf: csf::CsfFormat::for_scale(scale),
        masking: masking::constants(scale, w, h),
        denominator: denominator::constants(scale, scored),
        scored: corners(scored),
        needed: corners(needed),
        cos_squared: decouple::cos_squared_one_degree(),
    }
}

/// One scale's numerator and denominator, in the `float` libvmaf returns them in.
#[derive(Clone, Copy, Debug, Default)]
struct ScaleTerms {
    numerator: f32,
    denominator: f32,
}

fn scale_sums<T: Coefficient>(
    scale: usize,
    reference: &Subbands<T>,
    distorted: &Subbands<T>,
    gain_limit: f64,
    sums: &mut AdmSums,
) {
    let (width, height) = (reference.approx.width, reference.approx.height);
    let scored = Region::scored(width, height);
    let needed = Region::scored_with_taps(width, height);
    let decoupled = decouple::decouple(&reference.detail, &distorted.detail, needed, gain_limit);
    let weighted = csf::weight(&decoupled.additive, &csf::CsfFormat::for_scale(scale), needed);
    sums.numerator[scale] = masking::numerator_sums(scale, &decoupled.restored, &weighted, scored);
    sums.denominator[scale] = denominator::denominator_sums(scale, &reference.detail, scored);
}

/// `adm2` is the sum of the scales' numerators over the sum of their denominators (in
/// `double`, each clamped to 0 under a floor that scales with the frame's area); each scale's
/// score is its own ratio.
fn combine(terms: &[ScaleTerms; 4], width: usize, height: usize) -> AdmScores {
    let limit = 1e-10 * (width * height) as f64 / (1920.0 * 1080.0);
    let mut numerator = 0.0f64;
    let mut denominator = 0.0f64;
    for t in terms {
        numerator += f64::from(t.numerator);
        denominator += f64::from(t.denominator);
    }
    let numerator = if numerator < limit { 0.0 } else { numerator };
    let denominator = if denominator < limit { 0.0 } else { denominator };
    AdmScores {
        adm2: if denominator == 0.0 {
            1.0
        } else {
            numerator / denominator
        },
        scales: terms.map(|t| f64::from(t.numerator) / f64::from(t.denominator)),
    }
}

/// `2^(shift-1)`, the half that rounds a right shift by `shift`; 0 for no shift (where
/// libvmaf's `(uint32_t)pow(2, shift - 1)` also comes out 0 on x86).
pub(super) fn half_of(shift: u32) -> i64 {
    if shift == 0 {
        0
    } else {
        1 << (shift - 1)
    }
}

/// `ceil(log2(n))` computed in `double`, as libvmaf sizes its accumulator shifts.
pub(super) fn ceil_log2(n: usize) -> f64 {
    (n as f64).log2().ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(width: usize, height: usize, seed: u32) -> Vec<u16> {
        let mut state = seed;
        (0..width * height)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 24) as u16
            })
            .collect()
    }

    #[test]
    fn identical_frames_score_a_hair_above_one() {
        // Scale 0 weighs the numerator with libvmaf's hard-coded fixed-point CSF factors, a
        // little above the float ones of the denominator; scales 1–3 add a -1 per neighbour to
        // the masking threshold. Neither cancels when nothing is lost.
        let data = noise(64, 48, 7);
        let luma = Luma {
            data: &data,
            width: 64,
            height: 48,
            bits: 8,
        };
        let scores = adm(&luma, &luma, &AdmOptions::default());
        assert!(scores.adm2 > 1.0 && scores.adm2 < 1.0001, "{scores:?}");
        assert!(scores.scales.iter().all(|&s| s > 1.0 && s < 1.0001), "{scores:?}");
    }

    #[test]
    fn noise_loses_detail() {
        let (reference, distorted) = (noise(64, 48, 1), noise(64, 48, 2));
        let luma = |data| Luma {
            data,
            width: 64,
            height: 48,
            bits: 8,
        };
        let scores = adm(&luma(&reference), &luma(&distorted), &AdmOptions::default());
        assert!(scores.adm2 < 0.5, "{scores:?}");
    }

    #[test]
    #[should_panic(expected = "differ in size or depth")]
    fn pairs_must_match() {
        let data = noise(64, 48, 3);
        let a = Luma {
            data: &data,
            width: 64,
            height: 48,
            bits: 8,
        };
        let b = Luma { bits: 10, ..a };
        adm(&a, &b, &AdmOptions::default());
    }
}
