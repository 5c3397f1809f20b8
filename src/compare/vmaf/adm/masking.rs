//! Numerator of one scale (`adm_cm`, `i4_adm_cm`): the CSF-weighted restored detail, less a
//! contrast-masking threshold drawn from the weighted additive impairment around it, summed as
//! cubes over the scored area; per orientation its cube root plus the noise floor.
//!
//! The threshold at a coefficient adds up, over all three orientations, the impairment's
//! thirtieths at its 8 neighbours and a fifteenth of the impairment at the coefficient itself.

use super::band::{Coefficient, Detail, Region};
use super::csf::{self, Weighted, SCALE_0_WEIGHTS};
use super::denominator::NOISE_WEIGHT;
use super::{ceil_log2, half_of};

/// How one scale scales, thresholds and sums.
#[derive(Clone, Copy, Debug)]
struct MaskingFormat {
    weight: [i64; 3],
    weight_round: i64,
    weight_shift: u32,
    one_by_15: i64,
    one_by_15_round: i64,
    one_by_15_shift: u32,
    /// The threshold is shifted left by this before it is subtracted.
    threshold_shift: [u32; 3],
    square_round: [i64; 3],
    square_shift: [u32; 3],
    cube_round: [i64; 3],
    cube_shift: [u32; 3],
    row_round: i64,
    row_shift: u32,
    to_float: ToFloat,
}

/// How the sums come back to floating point. The two conversions (`int64 → double → float`
/// and `int64 → float`) only differ for sums past 2^53; each is kept as libvmaf writes it.
#[derive(Clone, Copy, Debug)]
enum ToFloat {
    /// Scale 0: `(float)(sum / pow(2, exponent))`, per orientation.
    ViaDouble([u32; 3]),
    /// Scales 1–3: `(float)sum / (float)pow(2, exponent)`.
    Single(u32),
}

impl MaskingFormat {
    fn new(scale: usize, width: usize, height: usize) -> Self {
        let row_shift = ceil_log2(height) as u32;
        if scale == 0 {
            // Sized so a row of cubes fits 64 bits: the bands' widths less 4 (h, v) or 3 (d).
            let log2_width = (width as f64).log2();
            let straight = (log2_width - 4.0).ceil() as u32;
            let diagonal = (log2_width - 3.0).ceil() as u32;
            let cube_shift = [straight, straight, diagonal];
            Self {
                // x = restored × weight, not shifted.
                weight: SCALE_0_WEIGHTS,
                weight_round: 0,
                weight_shift: 0,
                // 2^17 / 15.
                one_by_15: 8738,
                one_by_15_round: 2048,
                one_by_15_shift: 12,
                threshold_shift: [10, 10, 12],
                square_round: [1 << 28, 1 << 28, 1 << 29],
                square_shift: [29, 29, 30],
                cube_round: cube_shift.map(half_of),
                cube_shift,
                row_round: half_of(row_shift),
                row_shift,
                to_float: ToFloat::ViaDouble(std::array::from_fn(|b| {
                    [52u32, 52, 57][b].wrapping_sub(cube_shift[b]).wrapping_sub(row_shift)
                })),
            }
        } else {
            const TO_FLOAT_SHIFT: [u32; 3] = [45, 39, 36];
            let cube_shift = ceil_log2(width) as u32;
            Self {
                // x is weighted exactly as the CSF weighs the impairment.
                weight: csf::weights_q32(scale),
                weight_round: 1 << 27,
                weight_shift: 28,
                // 2^32 / 15.
                one_by_15: 286_331_153,
                // The same int32_t-stored 1u << 31 as the CSF's thirtieth: -2^31.
                one_by_15_round: i64::from(i32::MIN),
                one_by_15_shift: 32,
                threshold_shift: [0; 3],
                square_round: [1 << 29; 3],
                square_shift: [30; 3],
                cube_round: [half_of(cube_shift); 3],
                cube_shift: [cube_shift; 3],
                row_round: half_of(row_shift),
                row_shift,
                to_float: ToFloat::Single(
                    TO_FLOAT_SHIFT[scale - 1]
                        .wrapping_sub(cube_shift)
                        .wrapping_sub(row_shift),
                ),
            }
        }
    }

    /// A fifteenth of the weighted impairment's magnitude, stored as a coefficient (so at
    /// scale 0 it wraps to `i16` above 15,359, as libvmaf's does).
    fn fifteenth<T: Coefficient>(&self, a: T) -> i32 {
        let f = (self.one_by_15 * i64::from(a.c_abs()) + self.one_by_15_round) >> self.one_by_15_shift;
        T::narrow(f).wide() as i32
    }

    /// The masking threshold at (x, y): over all three orientations, the impairment's
    /// thirtieths at the 8 neighbours plus its fifteenth at (x, y), summed in wrapping `i32`.
    fn threshold<T: Coefficient>(&self, impairment: &Weighted<T>, x: usize, y: usize) -> i32 {
        let (width, height) = (impairment.thirtieth[0].width, impairment.thirtieth[0].height);
        let (rows, columns) = (neighbours(y, height), neighbours(x, width));
        let mut threshold = 0i32;
        for b in 0..3 {
            let mut sum = 0i32;
            for (i, &ny) in rows.iter().enumerate() {
                for (j, &nx) in columns.iter().enumerate() {
                    let term = if (i, j) == (1, 1) {
                        self.fifteenth(impairment.weighted[b].at(x, y))
                    } else {
                        impairment.thirtieth[b].at(nx, ny).wide() as i32
                    };
                    sum = sum.wrapping_add(term);
                }
            }
            threshold = threshold.wrapping_add(sum);
        }
        threshold
    }

    /// The restored coefficient of orientation `b`, weighted, less the threshold (not below
    /// 0), cubed in two rounded steps.
    fn masked_cube(&self, b: usize, restored: i64, threshold: i32) -> i64 {
        let x = ((self.weight[b] * restored + self.weight_round) >> self.weight_shift) as i32;
        let x = x
            .wrapping_abs()
            .wrapping_sub(threshold.wrapping_shl(self.threshold_shift[b]))
            .max(0);
        let x = i64::from(x);
        let square = ((x * x + self.square_round[b]) >> self.square_shift[b]) as i32;
        (i64::from(square) * x + self.cube_round[b]) >> self.cube_shift[b]
    }

    fn rescale(&self, sums: [i64; 3]) -> [f32; 3] {
        match self.to_float {
            ToFloat::ViaDouble(exponents) => {
                std::array::from_fn(|b| (sums[b] as f64 / 2f64.powf(f64::from(exponents[b]))) as f32)
            }
            ToFloat::Single(exponent) => {
                let divisor = 2f64.powf(f64::from(exponent)) as f32;
                sums.map(|s| s as f32 / divisor)
            }
        }
    }
}

/// The 3×3 neighbourhood's rows (or columns) around `i` in a band of `n`: before the first
/// comes the second (reflection), after the last comes the last again (replication), as
/// libvmaf's `ADM_CM_THRESH_S_*` macros read them.
fn neighbours(i: usize, n: usize) -> [usize; 3] {
    let before = if i == 0 { 1 } else { i - 1 };
    let after = if i == n - 1 { n - 1 } else { i + 1 };
    [before, i, after]
}

/// Per orientation, the masked cubes of the scored area: each row's sum rounded and shifted,
/// then added up (the integer part of the numerator).
pub(super) fn numerator_sums<T: Coefficient>(
    scale: usize,
    restored: &Detail<T>,
    impairment: &Weighted<T>,
    region: Region,
) -> [i64; 3] {
    let format = MaskingFormat::new(scale, restored[0].width, restored[0].height);
    let mut sums = [0i64; 3];
    for y in region.rows() {
        // Each row is summed on its own, then shifted down (rounded) into the total.
        let mut row_sums = [0i64; 3];
        for x in region.columns() {
            let threshold = format.threshold(impairment, x, y);
            for (b, row_sum) in row_sums.iter_mut().enumerate() {
                *row_sum += format.masked_cube(b, restored[b].at(x, y).wide(), threshold);
            }
        }
        for (sum, row_sum) in sums.iter_mut().zip(row_sums) {
            *sum += (row_sum + format.row_round) >> format.row_shift;
        }
    }
    sums
}

/// The numerator of a scale whose bands are `width` x `height`, from `numerator_sums`.
pub(super) fn numerator(scale: usize, width: usize, height: usize, region: Region, sums: [i64; 3]) -> f32 {
    let format = MaskingFormat::new(scale, width, height);
    let noise_floor = ((region.area() as f64 * NOISE_WEIGHT) as f32).powf(1.0 / 3.0);
    let [h, v, d] = format.rescale(sums).map(|s| s.powf(1.0 / 3.0) + noise_floor);
    h + v + d
}

/// The integer constants of a scale's masking, for a GPU pass: per orientation the restored
/// detail's weight, rounding and shift, and the threshold's, square's and cube's shifts.
pub(super) fn constants(scale: usize, width: usize, height: usize) -> MaskingConstants {
    let f = MaskingFormat::new(scale, width, height);
    MaskingConstants {
        weight: f.weight,
        weight_round: f.weight_round,
        weight_shift: f.weight_shift,
        one_by_15: f.one_by_15,
        one_by_15_round: f.one_by_15_round,
        one_by_15_shift: f.one_by_15_shift,
        threshold_shift: f.threshold_shift,
        square_round: f.square_round,
        square_shift: f.square_shift,
        cube_round: f.cube_round,
        cube_shift: f.cube_shift,
        row_round: f.row_round,
        row_shift: f.row_shift,
    }
}

/// `constants`' answer.
#[derive(Clone, Copy, Debug)]
pub(in crate::compare::vmaf) struct MaskingConstants {
    pub weight: [i64; 3],
    pub weight_round: i64,
    pub weight_shift: u32,
    pub one_by_15: i64,
    pub one_by_15_round: i64,
    pub one_by_15_shift: u32,
    pub threshold_shift: [u32; 3],
    pub square_round: [i64; 3],
    pub square_shift: [u32; 3],
    pub cube_round: [i64; 3],
    pub cube_shift: [u32; 3],
    pub row_round: i64,
    pub row_shift: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbourhoods_reflect_at_the_start_and_replicate_at_the_end() {
        assert_eq!(neighbours(0, 5), [1, 0, 1]);
        assert_eq!(neighbours(2, 5), [1, 2, 3]);
        assert_eq!(neighbours(4, 5), [3, 4, 4]);
    }
}
