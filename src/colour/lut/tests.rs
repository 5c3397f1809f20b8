use super::cube::parse;
use super::*;
use crate::colour::log::display;

/// A 3D `.cube` of `size`³ rows whose value at (r, g, b) is `f(r, g, b)`.
pub fn cube_text(size: usize, f: impl Fn(f64, f64, f64) -> [f64; 3]) -> String {
    let mut text = format!("TITLE \"test\"\nLUT_3D_SIZE {size}\n");
    let step = |i: usize| i as f64 / (size - 1) as f64;
    for b in 0..size {
        for g in 0..size {
            for r in 0..size {
                let [x, y, z] = f(step(r), step(g), step(b));
                text.push_str(&format!("{x:.6} {y:.6} {z:.6}\n"));
            }
        }
    }
    text
}

/// Every code of each channel, against a few values of the others.
fn pixels(bits: u32) -> Vec<[u32; 3]> {
    let max = (1u32 << bits) - 1;
    let others = [0, 1, max / 3, max / 2, max - 1, max];
    let mut out = Vec::new();
    for v in 0..=max {
        for &o in &others {
            out.extend([[v, o, max - o], [o, v, o], [max - o, o, v]]);
        }
    }
    out
}

#[test]
fn an_identity_cube_gives_back_every_code_at_8_and_10_bits() {
    for size in [2, 17, 33, 65] {
        let lut = parse(&cube_text(size, |r, g, b| [r, g, b])).unwrap();
        for bits in [8, 10] {
            let tables = LutTables::new(&lut, bits);
            for p in pixels(bits) {
                assert_eq!(tables.apply(p), p, "size {size}, {bits} bits");
            }
        }
    }
}

#[test]
fn a_channel_swap_cube_swaps_the_channels_exactly() {
    let lut = parse(&cube_text(17, |r, g, b| [g, b, r])).unwrap();
    for bits in [8, 10] {
        let tables = LutTables::new(&lut, bits);
        for p in pixels(bits) {
            assert_eq!(tables.apply(p), [p[1], p[2], p[0]]);
        }
    }
}

#[test]
fn a_gamma_cube_follows_its_formula_within_a_code_and_exactly_on_its_grid() {
    // 33 points: between them, the curve is interpolated; on them, exact.
    let lut = parse(&cube_text(33, |r, g, b| [r.powf(0.5), g.powf(0.5), b.powf(0.5)])).unwrap();
    let tables = LutTables::new(&lut, 8);
    // Grid points of 33 at 8 bits: codes k·255/32 that are whole (k = 0 and 32).
    assert_eq!(tables.apply([0, 255, 0]), [0, 255, 0]);
    for v in 0..=255u32 {
        let want = (255.0 * (f64::from(v) / 255.0).sqrt()).round() as i64;
        let got = tables.apply([v, v, v]);
        // Linear between grid points under a concave curve: below it, by less than a code
        // above the first cell (where the slope is steepest).
        let slack = if v < 8 { 20 } else { 1 };
        assert!(
            (i64::from(got[0]) - want).abs() <= slack,
            "code {v}: {} against {want}",
            got[0]
        );
        assert_eq!(got[0], got[1]);
        assert_eq!(got[1], got[2]);
    }
}

#[test]
fn a_1d_table_is_linear_between_rows_and_follows_its_domain() {
    let text = "LUT_1D_SIZE 3\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 0.5 1 1\n0 0 1\n0.5 0.25 0.5\n1 1 0\n";
    let lut = parse(text).unwrap();
    assert!(lut.cube.is_none());
    let tables = LutTables::new(&lut, 8);
    // Red's rows rise evenly, its domain ends at half: code 64 (x = 0.251) gives 0.502.
    let red = |code: u32| tables.apply([code, 0, 0])[0];
    assert_eq!(red(0), 0);
    assert_eq!(red(64), 128);
    assert_eq!(red(128), 255);
    assert_eq!(red(255), 255);
    // Green: 0 → 0.25 → 1 over the whole range; blue falls 1 → 0.5 → 0.
    // Green at x = 0.4: 0.8 of the way along the first interval, 0.8 · 0.25 = 0.2.
    assert_eq!(tables.apply([0, 102, 0])[1], 51);
    assert_eq!(tables.apply([0, 0, 255])[2], 0);
    assert_eq!(tables.apply([0, 0, 0])[2], 255);
}

#[test]
fn a_shaper_before_a_cube_is_applied_first() {
    // Shaper: x², on a 1024-row table; cube: identity. The result is x² to within a code.
    let mut text = String::from("LUT_1D_SIZE 1024\nLUT_3D_SIZE 2\nLUT_1D_INPUT_RANGE 0 1\nLUT_3D_INPUT_RANGE 0 1\n");
    for i in 0..1024 {
        let x = i as f64 / 1023.0;
        text.push_str(&format!("{0:.7} {0:.7} {0:.7}\n", x * x));
    }
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                text.push_str(&format!("{r} {g} {b}\n"));
            }
        }
    }
    let lut = parse(&text).unwrap();
    assert_eq!(lut.shaper.as_ref().unwrap().rows.len(), 1024);
    assert_eq!(lut.cube.as_ref().unwrap().size, 2);
    let tables = LutTables::new(&lut, 10);
    for v in 0..=1023u32 {
        let x = f64::from(v) / 1023.0;
        let want = (1023.0 * x * x).round() as i64;
        let got = tables.apply([v, 1023 - v, v]);
        assert!((i64::from(got[0]) - want).abs() <= 1, "{v}: {got:?} against {want}");
    }
}

#[test]
fn malformed_files_name_the_line() {
    let cases = [
        ("LUT_3D_SIZE x\n", 1, "whole number"),
        ("# a comment\nLUT_3D_SIZE 1\n", 2, "2 to 256"),
        (
            "LUT_3D_SIZE 2\n0 0 0\n0 0 0\n0 0 0\n",
            4,
            "has 3 rows where it should have 2³ = 8",
        ),
        ("LUT_1D_SIZE 2\n0 0 0\n0 zero 0\n", 3, "'zero' is not a number"),
        ("LUT_1D_SIZE 2\n0 0 0\n0 0\n", 3, "three numbers"),
        ("LUT_1D_SIZE 2\n0 0 0\nLUT_3D_SIZE 2\n", 3, "after the table's rows"),
        ("DOMAIN_MIN 0 0\nLUT_1D_SIZE 2\n0 0 0\n1 1 1\n", 1, "three numbers"),
        (
            "LUT_1D_SIZE 2\n0 0 0\n1 1 1\n1 1 1\n",
            4,
            "has 3 rows where it should have 2",
        ),
        ("LUT_1D_SIZE 2\n0 0 0\n1 nan 1\n", 3, "'nan' is not a number"),
        // A row that starts with a word is a row all the same, first or not.
        ("LUT_1D_SIZE 2\nnan 0 0\n1 1 1\n", 2, "'nan' is not a number"),
        ("LUT_1D_SIZE 2\n0 0 0\nx 1 1\n", 3, "'x' is not a number"),
        ("LUT_1D_SIZE 2\n0 0 0\nNaN 1 1\n", 3, "'NaN' is not a number"),
    ];
    for (text, line, words) in cases {
        let error = parse(text).unwrap_err();
        assert_eq!(error.line, line, "{text:?}: {error}");
        assert!(error.to_string().contains(words), "{text:?}: {error}");
        assert!(error.to_string().starts_with(&format!("line {line}: ")));
    }
    let error = parse("0 0 0\n").unwrap_err();
    assert!(error.to_string().contains("no LUT_1D_SIZE or LUT_3D_SIZE"), "{error}");
    let error = parse("LUT_1D_SIZE 2\nDOMAIN_MIN 1 1 1\nDOMAIN_MAX 1 1 1\n0 0 0\n1 1 1\n").unwrap_err();
    assert!(error.to_string().contains("empty"), "{error}");
}

#[test]
fn unknown_keywords_and_comments_are_skipped() {
    let text = "# made by hand\nTITLE \"Look\"\nLUT_IN_VIDEO_RANGE\nLUT_1D_SIZE 2\n\n0 0 0 # black\n1 1 1\n";
    let lut = parse(text).unwrap();
    assert_eq!(lut.title.as_deref(), Some("Look"));
    assert_eq!(lut.describe(), "Look (1D 2)");
    assert_eq!(LutTables::new(&lut, 8).apply([7, 100, 255]), [7, 100, 255]);
    // Saved with a byte order mark: the same table.
    assert_eq!(parse(&format!("\u{feff}{text}")).unwrap().describe(), "Look (1D 2)");
}

#[test]
fn the_pass_twin_computes_the_rendering_to_the_code() {
    for encoding in LogEncoding::ALL {
        let lut = crate::colour::lut::Lut::log_view(encoding);
        let rows = encoding.to_bt709();
        for bits in [8, 10] {
            let tables = crate::colour::lut::LutTables::new(&lut, bits);
            let top = f64::from((1u32 << bits) - 1);
            let step = if bits == 8 { 5 } else { 21 };
            for r in (0..=top as u32).step_by(step) {
                for g in (0..=top as u32).step_by(step + 2) {
                    for b in (0..=top as u32).step_by(step + 4) {
                        let got = tables.apply([r, g, b]);
                        let want = display(encoding, [r, g, b].map(|c| f64::from(c) / top), &rows);
                        for c in 0..3 {
                            // f32 against f64: the nearest code, or the next where the value
                            // is within a fiftieth of a code of halfway (saturated colours,
                            // whose gamut mapping divides by a small luminance).
                            let d = (f64::from(got[c]) - want[c] * top).abs();
                            assert!(d <= 0.52, "{encoding:?} {bits}-bit {r} {g} {b}: {got:?} vs {want:?}");
                        }
                    }
                }
            }
        }
    }
}
