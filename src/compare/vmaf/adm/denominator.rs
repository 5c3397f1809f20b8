//! Denominator of one scale (`adm_csf_den_scale`, `adm_csf_den_s123`): per orientation, the
//! cube root of the sum of the reference's cubed detail magnitudes over the scored area, times
//! the CSF weight, plus a noise floor that grows with the area.
//!
//! The cubes are summed in `u64` with shifts sized to the area so they cannot overflow, and
//! the weight is applied (cubed) only once the sum is back in floating point.

use super::band::{Coefficient, Detail, Region};
use super::{ceil_log2, csf, half_of};

/// libvmaf's default `adm_noise_weight`.
pub(super) const NOISE_WEIGHT: f64 = 0.03125;

/// How one scale keeps the sum of cubes in range.
#[derive(Clone, Copy, Debug)]
struct DenominatorFormat {
    square_round: u64,
    square_shift: u32,
    cube_round: u64,
    cube_shift: u32,
    row_round: u64,
    row_shift: u32,
    /// What the sum is divided by to bring it back to the DWT's scale.
    divisor: f64,
}

impl DenominatorFormat {
    fn new(scale: usize, region: Region) -> Self {
        let columns = region.right - region.left;
        let rows = region.bottom - region.top;
        if scale == 0 {
            // An i16 cubed fits 46 bits: shift each row's sum by what the area adds past 2^20.
            let row_shift = (((region.area() as f64).log2() - 20.0).ceil() as i32).max(0);
            Self {
                square_round: 0,
                square_shift: 0,
                cube_round: 0,
                cube_shift: 0,
                row_round: half_of(row_shift as u32) as u64,
                row_shift: row_shift as u32,
                divisor: 2f64.powi(18 - row_shift),
            }
        } else {
            const SQUARE_SHIFT: [u32; 3] = [31, 30, 31];
            const TO_FLOAT_SHIFT: [u32; 3] = [32, 27, 23];
            let square_shift = SQUARE_SHIFT[scale - 1];
            let cube_shift = ceil_log2(columns) as u32;
            let row_shift = ceil_log2(rows) as u32;
            // libvmaf's exponent is unsigned; it only wraps for absurdly large frames.
            let exponent = TO_FLOAT_SHIFT[scale - 1]
                .wrapping_sub(row_shift)
                .wrapping_sub(cube_shift);
            Self {
                // A whole unit, not a half: libvmaf's `add_shift_sq` is `1u << shift_sq`.
                square_round: 1 << square_shift,
                square_shift,
                cube_round: half_of(cube_shift) as u64,
                cube_shift,
                row_round: half_of(row_shift) as u64,
                row_shift,
                divisor: 2f64.powf(f64::from(exponent)),
            }
        }
    }
}

/// Per orientation, the reference detail's cubes over the scored area: each row's sum rounded
/// and shifted, then added up (the integer part of the denominator).
pub(super) fn denominator_sums<T: Coefficient>(scale: usize, reference: &Detail<T>, region: Region) -> [u64; 3] {
    let format = DenominatorFormat::new(scale, region);
    let mut sums = [0u64; 3];
    for y in region.rows() {
        let mut row_sums = [0u64; 3];
        for x in region.columns() {
            for (b, row_sum) in row_sums.iter_mut().enumerate() {
                let c = u64::from(reference[b].at(x, y).c_abs() as u32);
                let square = (c * c + format.square_round) >> format.square_shift;
                let cube = (square * c + format.cube_round) >> format.cube_shift;
                *row_sum = row_sum.wrapping_add(cube);
            }
        }
        for (sum, row_sum) in sums.iter_mut().zip(row_sums) {
            *sum = sum.wrapping_add((row_sum + format.row_round) >> format.row_shift);
        }
    }
    sums
}

/// The denominator of a scale from `denominator_sums`.
pub(super) fn denominator(scale: usize, region: Region, sums: [u64; 3]) -> f32 {
    let format = DenominatorFormat::new(scale, region);
    let factors = csf::factors(scale);
    let noise_floor = ((region.area() as f64 * NOISE_WEIGHT) as f32).powf(1.0 / 3.0);
    let [h, v, d] = std::array::from_fn(|b| {
        let csf = sums[b] as f64 / format.divisor * f64::from(factors[b]).powf(3.0);
        (csf as f32).powf(1.0 / 3.0) + noise_floor
    });
    h + v + d
}

/// The integer constants of a scale's denominator, for a GPU pass: the square's rounding and
/// shift, the cube's, and each row's.
pub(super) fn constants(scale: usize, region: Region) -> [(u64, u32); 3] {
    let f = DenominatorFormat::new(scale, region);
    [
        (f.square_round, f.square_shift),
        (f.cube_round, f.cube_shift),
        (f.row_round, f.row_shift),
    ]
}
