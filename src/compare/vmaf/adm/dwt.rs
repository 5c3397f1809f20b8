//! One level of libvmaf's fixed-point Daubechies-2 DWT (`adm_dwt2_8`, `adm_dwt2_16`,
//! `adm_dwt2_s123_combined`): each output row filters four input rows (vertical low and high
//! pass), then each output coefficient filters four of those columns (horizontal low and high
//! pass), giving the approximation and the three detail bands at half size, rounded up.

use super::band::{zeroed_detail, Coefficient, Plane, Subbands, D, H, V};

/// The db2 analysis filters in Q15 (`dwt2_db2_coeffs_lo`, `dwt2_db2_coeffs_hi`).
const LOW_PASS: [i64; 4] = [15826, 27411, 7345, -4240];
const HIGH_PASS: [i64; 4] = [-4240, -7345, 27411, -15826];
/// The low-pass filter's DC gain (`dwt2_db2_coeffs_lo_sum`); the high pass sums to 0.
const LOW_PASS_SUM: i64 = 46342;

/// How one DWT level rounds and rescales its two passes.
#[derive(Clone, Copy, Debug)]
pub(in crate::compare::vmaf) struct DwtFormat {
    pub vertical_round: i64,
    pub vertical_shift: u32,
    /// Subtracted from the vertical low pass before rounding: it moves samples from `0..N`
    /// to `-N/2..N/2`, so the 16-bit intermediate keeps its range.
    pub dc_offset: i64,
    pub horizontal_round: i64,
    pub horizontal_shift: u32,
}

impl DwtFormat {
    /// Scale 0, from `bits`-deep samples into `i16` bands. 8-bit input is the `bits = 8` case
    /// of libvmaf's 16-bit code (`adm_dwt2_8` uses exactly these constants).
    pub fn from_samples(bits: u32) -> Self {
        let half = 1i64 << (bits - 1);
        Self {
            vertical_round: half,
            vertical_shift: bits,
            dc_offset: LOW_PASS_SUM * half,
            horizontal_round: 1 << 15,
            horizontal_shift: 16,
        }
    }

    /// Scales 1–3, from the previous scale's approximation into `i32` bands.
    pub fn coarser(scale: usize) -> Self {
        const VERTICAL_ROUND: [i64; 3] = [0, 32768, 32768];
        const VERTICAL_SHIFT: [u32; 3] = [0, 16, 16];
        const HORIZONTAL_ROUND: [i64; 3] = [16384, 32768, 16384];
        const HORIZONTAL_SHIFT: [u32; 3] = [15, 16, 15];
        let k = scale - 1;
        Self {
            vertical_round: VERTICAL_ROUND[k],
            vertical_shift: VERTICAL_SHIFT[k],
            dc_offset: 0,
            horizontal_round: HORIZONTAL_ROUND[k],
            horizontal_shift: HORIZONTAL_SHIFT[k],
        }
    }
}

/// The four input indices `2i-1 ..= 2i+2` the filters read for each output index `i`, folded
/// into `0..n` as libvmaf's `dwt2_src_indices_filt` does. The two ends fold differently:
/// `-1` reflects about sample 0 (to 1), while `n` and `n+1` reflect about the edge past the
/// last sample (to `n-1` and `n-2`). Needs `n >= 5`.
fn taps(n: usize) -> Vec<[usize; 4]> {
    let fold = |k: isize| -> usize {
        if k < 0 {
            k.unsigned_abs()
        } else if k as usize >= n {
            2 * n - 1 - k as usize
        } else {
            k as usize
        }
    };
    (0..n.div_ceil(2))
        .map(|i| {
            let c = 2 * i as isize;
            [fold(c - 1), fold(c), fold(c + 1), fold(c + 2)]
        })
        .collect()
}

fn filter(coefficients: &[i64; 4], samples: [i64; 4]) -> i64 {
    coefficients.iter().zip(samples).map(|(c, s)| c * s).sum()
}

/// Transforms a `width` × `height` plane (`S`: samples or the previous approximation). The
/// vertical pass's intermediate rows are stored as `T`, like libvmaf's `tmplo`/`tmphi`.
pub(super) fn dwt<S: Copy + Into<i64>, T: Coefficient>(
    src: &[S],
    width: usize,
    height: usize,
    format: &DwtFormat,
) -> Subbands<T> {
    let row_taps = taps(height);
    let column_taps = taps(width);
    let (out_width, out_height) = (column_taps.len(), row_taps.len());
    let mut approx = Plane::zeroed(out_width, out_height);
    let mut detail = zeroed_detail(out_width, out_height);

    let mut low = vec![T::default(); width];
    let mut high = vec![T::default(); width];
    let vertical = |sum: i64| T::narrow((sum + format.vertical_round) >> format.vertical_shift);
    let horizontal = |sum: i64| T::narrow((sum + format.horizontal_round) >> format.horizontal_shift);

    for (y, rows) in row_taps.iter().enumerate() {
        let rows = rows.map(|r| &src[r * width..(r + 1) * width]);
        for x in 0..width {
            let s = rows.map(|row| row[x].into());
            low[x] = vertical(filter(&LOW_PASS, s) - format.dc_offset);
            high[x] = vertical(filter(&HIGH_PASS, s));
        }
        for (x, columns) in column_taps.iter().enumerate() {
            let lo = columns.map(|c| low[c].wide());
            let hi = columns.map(|c| high[c].wide());
            approx.set(x, y, horizontal(filter(&LOW_PASS, lo)));
            detail[V].set(x, y, horizontal(filter(&HIGH_PASS, lo)));
            detail[H].set(x, y, horizontal(filter(&LOW_PASS, hi)));
            detail[D].set(x, y, horizontal(filter(&HIGH_PASS, hi)));
        }
    }
    Subbands { approx, detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taps_fold_like_dwt2_src_indices_filt() {
        // Odd length: the last output reads n-2, n-1, then n → n-1 and n+1 → n-2.
        assert_eq!(taps(7), vec![[1, 0, 1, 2], [1, 2, 3, 4], [3, 4, 5, 6], [5, 6, 6, 5]]);
        // Even length: only n is read past the end, folding to n-1.
        assert_eq!(taps(6), vec![[1, 0, 1, 2], [1, 2, 3, 4], [3, 4, 5, 5]]);
    }

    #[test]
    fn a_flat_8_bit_plane_has_no_detail() {
        let src = vec![128u16; 40 * 36];
        let bands: Subbands<i16> = dwt(&src, 40, 36, &DwtFormat::from_samples(8));
        for band in &bands.detail {
            assert!(band.data.iter().all(|&c| c == 0));
        }
        // 128 is the centre of 0..256, so the DC offset brings the approximation to 0.
        assert!(bands.approx.data.iter().all(|&c| c == 0));
    }
}
