//! Splits the distorted detail into the part that restores the reference's detail and the
//! additive impairment left over (`adm_decouple`, `adm_decouple_s123`).
//!
//! The restored coefficient is the reference's scaled by `k = clamp(t / o, 0, 1)`. Where the
//! reference's and the distorted (h, v) detail point the same way (within one degree), the
//! distorted coefficient counts as restored up to `gain_limit` times that: enhancement is not
//! an impairment, up to a limit.

use super::band::{zeroed_detail, Coefficient, Detail, Region, H, V};

pub(super) struct Decoupled<T> {
    pub restored: Detail<T>,
    pub additive: Detail<T>,
}

/// Decouples the coefficients in `region`; the rest of both outputs stays 0 (libvmaf leaves
/// it unwritten, and nothing reads it).
pub(super) fn decouple<T: Coefficient>(
    reference: &Detail<T>,
    distorted: &Detail<T>,
    region: Region,
    gain_limit: f64,
) -> Decoupled<T> {
    let (width, height) = (reference[H].width, reference[H].height);
    let mut restored = zeroed_detail(width, height);
    let mut additive = zeroed_detail(width, height);
    let cos_sq = cos_squared_one_degree();

    for y in region.rows() {
        for x in region.columns() {
            let o: [i64; 3] = std::array::from_fn(|b| reference[b].at(x, y).wide());
            let t: [i64; 3] = std::array::from_fn(|b| distorted[b].at(x, y).wide());
            let aligned = within_one_degree(o[H], o[V], t[H], t[V], cos_sq);
            for b in 0..3 {
                let r = T::narrow(restore(o[b], t[b], aligned, gain_limit));
                restored[b].set(x, y, r);
                additive[b].set(x, y, T::narrow(t[b] - r.wide()));
            }
        }
    }
    Decoupled { restored, additive }
}

/// cos²(1°), computed in `double` and kept as `float`, as libvmaf does.
pub(super) fn cos_squared_one_degree() -> f32 {
    let c = (1.0f64 * std::f64::consts::PI / 180.0).cos();
    (c * c) as f32
}

/// Whether the angle between (oh, ov) and (th, tv) is under one degree, tested without
/// trigonometry: `u·v >= 0` and `(u·v)² >= cos²(1°) |u|² |v|²`. The exact 64-bit products are
/// rounded to `float`, then compared in `double`, as in libvmaf.
fn within_one_degree(oh: i64, ov: i64, th: i64, tv: i64, cos_sq: f32) -> bool {
    let dot = oh * th + ov * tv;
    let o_sq = oh * oh + ov * ov;
    let t_sq = th * th + tv * tv;
    let dot = f64::from(dot as f32) / 4096.0;
    let o_sq = f64::from(o_sq as f32) / 4096.0;
    let t_sq = f64::from(t_sq as f32) / 4096.0;
    dot >= 0.0 && dot * dot >= f64::from(cos_sq) * o_sq * t_sq
}

/// The restored part of distorted coefficient `t` given reference coefficient `o`.
fn restore(o: i64, t: i64, aligned: bool, gain_limit: f64) -> i64 {
    let k = if o == 0 { 32768 } else { ratio_q15(o, t) }.clamp(0, 32768);
    let restored = (k * o + 16384) >> 15;
    // The sign of k·o, taken in float as libvmaf does (k and o are far from underflow).
    let sign = (k as f32 / 32768.0) * (o as f32 / 64.0);
    // libvmaf's MIN/MAX of a double and an int, then truncated back to an integer.
    let scaled = restored as f64 * gain_limit;
    let t = t as f64;
    if aligned && sign > 0.0 {
        (if scaled < t { scaled } else { t }) as i64
    } else if aligned && sign < 0.0 {
        (if scaled > t { scaled } else { t }) as i64
    } else {
        restored
    }
}

/// `t / o` in Q15 without dividing: libvmaf multiplies by `div_lookup`, a table of 2^30 / d
/// for `d` in 1..=32768. A divisor of 2^15 or more is first rounded to its top 15 bits
/// (`get_best15_from32`) and the shift is undone after the product.
///
/// libvmaf's scale 0 indexes the table with the signed `i16` coefficient directly
/// (`div_lookup[o + 32768]`, the table holding -2^30 / d below the middle); for every `i16`
/// `o`, including -32768, that gives the same value as this form, which scales 1–3 use.
fn ratio_q15(o: i64, t: i64) -> i64 {
    let magnitude = o.unsigned_abs() as u32;
    let sign = if o < 0 { -1 } else { 1 };
    let (divisor, shift) = if magnitude < 32768 {
        (magnitude, 0)
    } else {
        top_15_bits(magnitude)
    };
    // An `int` shift in C: for a magnitude of 2^31 it reaches bit 31 and turns negative.
    let round = i64::from(1i32.wrapping_shl(14 + shift));
    (reciprocal_q30(divisor) * t * sign + round) >> (15 + shift)
}

/// `div_lookup[32768 + d]`: 2^30 / d, truncated.
fn reciprocal_q30(d: u32) -> i64 {
    i64::from((1i32 << 30) / d as i32)
}

/// `get_best15_from32`: `v` (at least 2^15) rounded to 15 significant bits, with the shift.
fn top_15_bits(v: u32) -> (u32, u32) {
    let shift = 17 - v.leading_zeros();
    ((v + (1 << (shift - 1))) >> shift, shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libvmaf's scale-0 form: the signed lookup table indexed by the coefficient itself.
    fn ratio_q15_scale0(o: i16, t: i16) -> i64 {
        let d = i32::from(o).unsigned_abs();
        let recip = i64::from((1i32 << 30) / d as i32);
        let entry = if o < 0 { -recip } else { recip };
        (entry * i64::from(t) + 16384) >> 15
    }

    #[test]
    fn scale_0_division_matches_the_scaled_form_for_every_i16() {
        let ts = [-32768i16, -32767, -20000, -1, 0, 1, 7, 12345, 32767];
        for o in i16::MIN..=i16::MAX {
            if o == 0 {
                continue;
            }
            for &t in &ts {
                assert_eq!(ratio_q15(o.into(), t.into()), ratio_q15_scale0(o, t), "o={o} t={t}");
            }
        }
    }

    #[test]
    fn top_15_bits_rounds_to_nearest() {
        assert_eq!(top_15_bits(32768), (16384, 1));
        assert_eq!(top_15_bits(65535), (32768, 1));
        assert_eq!(top_15_bits(1 << 31), (16384, 17));
    }

    #[test]
    fn cos_squared_is_libvmafs_float() {
        assert_eq!(cos_squared_one_degree(), 0.999_695_4_f32);
    }

    #[test]
    fn gain_limit_one_never_restores_beyond_the_scaled_reference() {
        // o = 100, t = 300 points the same way: k clamps to 1, restored = 100.
        assert_eq!(restore(100, 300, true, 1.0), 100);
        // With the default limit the whole enhancement counts as restored.
        assert_eq!(restore(100, 300, true, 100.0), 300);
        assert_eq!(restore(-100, -300, true, 100.0), -300);
        // Not aligned: only the scaled reference.
        assert_eq!(restore(100, 300, false, 100.0), 100);
    }
}
