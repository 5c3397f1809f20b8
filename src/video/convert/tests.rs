//! Unit tests of the coefficients and the CPU twin.

use super::cpu::chroma_taps;

use super::*;
use crate::colour::{ColorSpec, Matrix};

const MATRICES: [Matrix; 5] = Matrix::ALL;
const RANGES: [Range; 2] = [Range::Limited, Range::Full];

fn every_color() -> impl Iterator<Item = (ColorSpec, u32)> {
    MATRICES.into_iter().flat_map(|matrix| {
        RANGES
            .into_iter()
            .flat_map(move |range| [8, 9, 10, 12].map(|bits| (ColorSpec { matrix, range }, bits)))
    })
}

/// Output bits for `bits`-bit samples (as `PlaneLayout::output_bits`).
fn out_bits(bits: u32) -> u32 {
    if bits > 8 {
        10
    } else {
        8
    }
}

fn rows(color: ColorSpec, bits: u32) -> [Row; 3] {
    let out = out_bits(bits);
    fixed_rows(matrix(color, bits, out), color.range, bits, out)
}

/// A coefficient back in output codes per input code.
fn real(k: i32, out_bits: u32) -> f64 {
    f64::from(k) * f64::from(SAMPLE_EIGHTHS) / f64::from(1 << frac_bits(out_bits))
}

/// `channel` of the CPU twin for `bits`-bit samples.
fn channel(bits: u32, row: &Row, y8: i32, cb8: i32, cr8: i32) -> u32 {
    let params = ConvertParams {
        out_bits: out_bits(bits),
        ..bytemuck::Zeroable::zeroed()
    };
    super::cpu::channel(&params, row, y8, cb8, cr8)
}

#[test]
fn coefficients_are_the_textbook_ones() {
    // BT.601 limited range, the classic 1.164 / 1.596 / 0.392 / 0.813 / 2.017.
    let [r, g, b] = rows(
        ColorSpec {
            matrix: Matrix::Bt601,
            range: Range::Limited,
        },
        8,
    );
    let expected = [
        (r.y, 1.16438),
        (r.cr, 1.59603),
        (g.cb, -0.39176),
        (g.cr, -0.81297),
        (b.cb, 2.01723),
    ];
    for (fixed, textbook) in expected {
        assert!(
            (real(fixed, 8) - textbook).abs() < 1e-5,
            "{} vs {textbook}",
            real(fixed, 8)
        );
    }
    assert_eq!((r.cb, b.cr), (0, 0));
    // BT.709 full range: Y passes through, chroma by 2(1 - Kr) = 1.5748 and friends.
    let [r, g, b] = rows(
        ColorSpec {
            matrix: Matrix::Bt709,
            range: Range::Full,
        },
        8,
    );
    let expected = [
        (r.y, 1.0),
        (r.cr, 1.5748),
        (g.cb, -0.18732),
        (g.cr, -0.46812),
        (b.cb, 1.8556),
    ];
    for (fixed, textbook) in expected {
        assert!(
            (real(fixed, 8) - textbook).abs() < 1e-5,
            "{} vs {textbook}",
            real(fixed, 8)
        );
    }
    // 10-bit limited range is the 8-bit matrix over four times the codes, into 1023 output
    // codes rather than 255: per input code, 1023 / 1020 of the 8-bit coefficient.
    let eight = rows(
        ColorSpec {
            matrix: Matrix::Bt2020,
            range: Range::Limited,
        },
        8,
    );
    let ten = rows(
        ColorSpec {
            matrix: Matrix::Bt2020,
            range: Range::Limited,
        },
        10,
    );
    for (eight, ten) in eight.iter().zip(&ten) {
        for (e, t) in [(eight.y, ten.y), (eight.cb, ten.cb), (eight.cr, ten.cr)] {
            let expected = real(e, 8) * 1023.0 / 1020.0;
            // Half a unit of the 10-bit fixed point: 4 / 2^18.
            assert!(
                (real(t, 10) - expected).abs() <= 4.0 / f64::from(1 << 18),
                "{} vs {expected}",
                real(t, 10)
            );
        }
    }
}

#[test]
fn no_sum_overflows_i32() {
    // Each partial sum is linear in the samples, so its extremes lie at the corners of the
    // box of possible samples (the mask bounds them even when the high bits are garbage).
    for (color, bits) in every_color() {
        let top = i64::from(SAMPLE_EIGHTHS) * ((1 << bits) - 1);
        for row in rows(color, bits) {
            for corner in 0..8 {
                let pick = |bit: i32| if corner & (1 << bit) != 0 { top } else { 0 };
                let (y8, cb8, cr8) = (pick(0), pick(1), pick(2));
                let partial = [
                    i64::from(row.y) * y8,
                    i64::from(row.y) * y8 + i64::from(row.cb) * cb8,
                    i64::from(row.y) * y8 + i64::from(row.cb) * cb8 + i64::from(row.cr) * cr8,
                    i64::from(row.y) * y8 + i64::from(row.cb) * cb8 + i64::from(row.cr) * cr8 + i64::from(row.bias),
                ];
                for sum in partial {
                    assert!(sum.abs() < 1 << 30, "{color:?} {bits}-bit: {sum}");
                }
            }
        }
    }
}

#[test]
fn fixed_point_rounds_like_exact_arithmetic() {
    // Each rounded coefficient is off by at most half a unit (2^-frac_bits of an output code
    // per eighth of a code), over at most 8 · 2^bits eighths in each of three terms: the result
    // is the exact value rounded, give or take that slack (0.002 of a code at 8 bits, 0.05 at
    // 10 bits, 0.19 for 12-bit samples into 10-bit codes).
    for (color, bits) in every_color() {
        let fixed = rows(color, bits);
        let out = out_bits(bits);
        let exact = matrix(color, bits, out);
        let codes = code_range(color.range, bits);
        let slack = 3.0 * 0.5 * f64::from(SAMPLE_EIGHTHS << bits) / f64::from(1 << frac_bits(out));
        let white = f64::from((1 << out) - 1);
        // Odd strides, so every residue of the low bits turns up.
        let [y_step, cb_step, cr_step] = [3, 5, 7].map(|s| (s << (bits - 8)) | 1);
        for y in (0..1 << bits).step_by(y_step) {
            for cb in (0..1 << bits).step_by(cb_step) {
                for cr in (0..1 << bits).step_by(cr_step) {
                    for (row, k) in fixed.iter().zip(&exact) {
                        let got = channel(bits, row, 8 * y, 8 * cb, 8 * cr);
                        let value = k[0] * f64::from(y - codes.black)
                            + k[1] * f64::from(cb - codes.chroma_zero)
                            + k[2] * f64::from(cr - codes.chroma_zero);
                        let diff = (f64::from(got) - value.clamp(0.0, white)).abs();
                        assert!(
                            diff <= 0.5 + slack,
                            "{color:?} {bits}-bit ({y}, {cb}, {cr}): {got} vs {value}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn black_and_white_are_exact() {
    for (color, bits) in every_color() {
        let codes = code_range(color.range, bits);
        let white = codes.black + codes.luma_span;
        for row in rows(color, bits) {
            let grey = |y: i32| channel(bits, &row, 8 * y, 8 * codes.chroma_zero, 8 * codes.chroma_zero);
            assert_eq!(grey(codes.black), 0, "{color:?} {bits}-bit");
            assert_eq!(grey(white), (1 << out_bits(bits)) - 1, "{color:?} {bits}-bit");
        }
    }
}

#[test]
fn chroma_is_sited_as_in_mpeg2() {
    let format = FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        width: 5,
        height: 6,
        color: ColorSpec {
            matrix: Matrix::Bt709,
            range: Range::Limited,
        },
    };
    let params = ConvertParams::new(&format).unwrap();
    let taps = |x, y| chroma_taps(&params, [x, y]);
    // Even columns sit on a chroma column; odd ones halfway to the next.
    assert_eq!((taps(2, 0).cols, taps(2, 0).col_weights), ([1, 2], [2, 0]));
    assert_eq!((taps(3, 0).cols, taps(3, 0).col_weights), ([1, 2], [1, 1]));
    // Rows 2 and 3 straddle chroma row 1, each 3/4 of it and 1/4 of the row beyond.
    assert_eq!((taps(0, 2).rows, taps(0, 2).row_weights), ([1, 0], [3, 1]));
    assert_eq!((taps(0, 3).rows, taps(0, 3).row_weights), ([1, 2], [3, 1]));
    // The edges repeat.
    assert_eq!(taps(0, 0).rows, [0, 0]);
    assert_eq!((taps(4, 5).cols, taps(4, 5).rows), ([2, 2], [2, 2]));
    // 4:4:4 takes one sample whole.
    let full = ConvertParams::new(&FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 0,
            chroma_shift_y: 0,
            bits: 8,
        },
        ..format
    })
    .unwrap();
    let t = chroma_taps(&full, [3, 3]);
    assert_eq!((t.cols[0], t.rows[0], t.col_weights[0] * t.row_weights[0]), (3, 3, 8));
}

#[test]
fn unsupported_formats_are_errors() {
    let color = ColorSpec {
        matrix: Matrix::Bt709,
        range: Range::Limited,
    };
    let format = |layout, width| FrameFormat {
        layout,
        width,
        height: 2,
        color,
    };
    let sixteen_bit = PlaneLayout::Gbr { bits: 16 };
    assert!(matches!(
        check_format(&format(sixteen_bit, 2)),
        Err(ConvertError::Unsupported(_))
    ));
    let grey = |bits| check_format(&format(PlaneLayout::Gray { bits }, 2));
    assert!(
        grey(16).is_ok() && grey(9).is_ok(),
        "grey of 8 to 16 bits converts as it is"
    );
    assert!(matches!(grey(17), Err(ConvertError::Unsupported(_))));
    let yuv410 = PlaneLayout::Yuv {
        chroma_shift_x: 2,
        chroma_shift_y: 2,
        bits: 8,
    };
    assert!(matches!(
        check_format(&format(yuv410, 2)),
        Err(ConvertError::Unsupported(_))
    ));
    assert!(matches!(
        check_format(&format(PlaneLayout::Rgba, 0)),
        Err(ConvertError::Empty { .. })
    ));
    let nv12 = format(PlaneLayout::Nv12, 4);
    let y = [0u8; 8];
    let short = [0u8; 3];
    let too_short = [
        PlaneData { data: &y, stride: 4 },
        PlaneData {
            data: &short,
            stride: 4,
        },
    ];
    assert!(matches!(
        check_planes(&nv12, &too_short),
        Err(ConvertError::PlaneTooShort { plane: 1, .. })
    ));
    let narrow = [PlaneData { data: &y, stride: 3 }, PlaneData { data: &y, stride: 4 }];
    assert!(matches!(
        check_planes(&nv12, &narrow),
        Err(ConvertError::BadStride { plane: 0, .. })
    ));
    assert!(matches!(
        check_planes(&nv12, &narrow[..1]),
        Err(ConvertError::MissingPlanes { got: 1, .. })
    ));
}
