use super::*;

/// A `w`×`h` 4:2:0 frame of `bits` from functions of the sample position.
fn frame(
    w: usize,
    h: usize,
    bits: u32,
    y: impl Fn(usize, usize) -> u16,
    uv: impl Fn(usize, usize) -> (u16, u16),
) -> YuvPlanes {
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let mut planes = YuvPlanes {
        width: w,
        height: h,
        chroma_width: cw,
        chroma_height: ch,
        shift_x: 1,
        shift_y: 1,
        bits,
        y: Vec::new(),
        u: Vec::new(),
        v: Vec::new(),
    };
    for yy in 0..h {
        planes.y.extend((0..w).map(|x| y(x, yy)));
    }
    for yy in 0..ch {
        for x in 0..cw {
            let (u, v) = uv(x, yy);
            planes.u.push(u);
            planes.v.push(v);
        }
    }
    planes
}

#[test]
fn saturation_is_the_truncated_hypotf_which_is_the_whole_hypotenuse_up_to_12_bits() {
    // The GPU pass's integers give FFmpeg's single-precision figure at the depths it reads.
    for du in -2048i32..=2047 {
        for dv in (-2048i32..=2047).step_by(7) {
            assert_eq!(saturation(du, dv), whole_hypot(du, dv), "({du}, {dv})");
        }
    }
    // At 16 bits hypotf rounds some up: FFmpeg counts 40082 here, the whole hypotenuse 40081.
    assert_eq!(
        (saturation(-32768, -23083), whole_hypot(-32768, -23083)),
        (40082, 40081)
    );
}

#[test]
fn hue_runs_from_minus_v_round_through_u() {
    // atan2(du, dv): +V is 0°, +U is 90°, −V is ±180°; then + 180 and modulo 360.
    assert_eq!(hue(0, 10), 180);
    assert_eq!(hue(10, 0), 270);
    assert_eq!(hue(0, -10), 0); // 360 wraps to 0
    assert_eq!(hue(-10, 0), 90);
    assert_eq!(hue(0, 0), 180);
    assert_eq!(hue(7, 7), 225);
}

#[test]
fn a_flat_frame_has_its_values_everywhere_and_nothing_else() {
    let f = frame(8, 6, 8, |_, _| 100, |_, _| (128, 128));
    let s = count(&f, None).stats();
    assert_eq!((s.YMIN, s.YLOW, s.YHIGH, s.YMAX, s.YAVG), (100, 100, 100, 100, 100.0));
    assert_eq!((s.UMIN, s.UMAX, s.VAVG), (128, 128, 128.0));
    assert_eq!((s.SATMIN, s.SATMAX, s.SATAVG), (0, 0, 0.0));
    // Grey's hue is atan2(0, 0) + 180.
    assert_eq!((s.HUEMED, s.HUEAVG), (180, 180.0));
    assert_eq!((s.YDIF, s.TOUT, s.BRNG), (0.0, 0.0, 0.0));
    // Every line from the fifth repeats the one four above it.
    assert_eq!(s.VREP, 2.0 / 6.0);
}

#[test]
fn percentiles_averages_and_differences_are_ffmpegs() {
    // Y' = 10·x on a 10×1 row: 10% of 10 samples is the first, 90% the ninth.
    let f = frame(10, 1, 8, |x, _| 10 * x as u16 + 16, |_, _| (128, 128));
    let s = count(&f, None).stats();
    assert_eq!((s.YMIN, s.YLOW, s.YHIGH, s.YMAX), (16, 16, 96, 106));
    assert_eq!(s.YAVG, 61.0);
    // The next frame one code brighter everywhere: a difference of 1.
    let g = frame(10, 1, 8, |x, _| 10 * x as u16 + 17, |_, _| (130, 125));
    let s = count(&g, Some(&f)).stats();
    assert_eq!((s.YDIF, s.UDIF, s.VDIF), (1.0, 2.0, 3.0));
    // Chroma (130, 125): saturation ⌊√13⌋ = 3.
    assert_eq!((s.SATMIN, s.SATMAX), (3, 3));
}

#[test]
fn broadcast_range_counts_pixels_outside_it_at_any_depth() {
    // Y' 0..255 along a 256×1 row (limited range: 16–235 legal), chroma legal.
    let f = frame(256, 1, 8, |x, _| x as u16, |_, _| (128, 128));
    let s = count(&f, None).stats();
    assert_eq!(s.BRNG, f64::from(16 + 20) / 256.0);
    // At 10 bits the limits are 64 and 940; chroma 1023 is out everywhere its pixels are.
    let f = frame(
        4,
        2,
        10,
        |x, _| [63, 64, 940, 941][x],
        |x, _| if x == 0 { (1023, 512) } else { (512, 512) },
    );
    let c = count(&f, None);
    // The left two columns (their chroma, and 63), and 941 in the last column, on both rows.
    assert_eq!(c.brng, 2 * 2 + 2);
    assert_eq!(c.stats().YBITDEPTH, 10);
}

#[test]
fn temporal_outliers_stand_out_from_rows_above_and_below() {
    // A bright row in a dark frame: its pixels (but the edges) stand out from both neighbours.
    let f = frame(8, 7, 8, |_, y| if y == 3 { 200 } else { 20 }, |_, _| (128, 128));
    let c = count(&f, None);
    assert_eq!(c.tout, 6);
    // Two bright rows: neither stands out from the row right below or above it.
    let f = frame(
        8,
        7,
        8,
        |_, y| if y == 3 || y == 4 { 200 } else { 20 },
        |_, _| (128, 128),
    );
    assert_eq!(count(&f, None).tout, 0);
}

#[test]
fn nv12_and_p010_read_as_planar() {
    // 2×2 NV12: Y 1 2 / 3 4, one U, V pair (100, 200).
    let y = [1u8, 2, 3, 4];
    let uv = [100u8, 200];
    let planes = [PlaneData { data: &y, stride: 2 }, PlaneData { data: &uv, stride: 2 }];
    let f = YuvPlanes::read(PlaneLayout::Nv12, 2, 2, &planes).unwrap();
    assert_eq!(
        (f.y.as_slice(), f.u.as_slice(), f.v.as_slice()),
        (&[1, 2, 3, 4][..], &[100][..], &[200][..])
    );
    // P010 holds the 10 bits at the top.
    let y16: Vec<u8> = [64u16 << 6, 940 << 6].iter().flat_map(|v| v.to_le_bytes()).collect();
    let uv16: Vec<u8> = [512u16 << 6, 1023 << 6].iter().flat_map(|v| v.to_le_bytes()).collect();
    let planes = [
        PlaneData { data: &y16, stride: 4 },
        PlaneData { data: &uv16, stride: 4 },
    ];
    let f = YuvPlanes::read(PlaneLayout::P010, 2, 1, &planes).unwrap();
    assert_eq!(
        (f.y.as_slice(), f.u.as_slice(), f.v.as_slice(), f.bits),
        (&[64, 940][..], &[512][..], &[1023][..], 10)
    );
    assert!(YuvPlanes::read(PlaneLayout::Rgba, 2, 2, &planes).is_err());
}

#[test]
fn bands_counted_apart_add_up_to_the_whole_frame() {
    // Noise at 10 bits, odd sizes: the bands' edges fall inside the outliers' and repeated
    // lines' neighbourhoods and between chroma rows.
    let mut seed = 7u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 16) as u16 & 1023
    };
    let samples: Vec<u16> = (0..1001 * 523).map(|_| next()).collect();
    let chroma: Vec<(u16, u16)> = (0..501 * 262).map(|_| (next(), next())).collect();
    // Rows 200..204 repeat the rows four above.
    let row = |y: usize| if (200..204).contains(&y) { y - 4 } else { y };
    let cur = frame(
        1001,
        523,
        10,
        |x, y| samples[row(y) * 1001 + x],
        |x, y| chroma[y * 501 + x],
    );
    let prev = frame(
        1001,
        523,
        10,
        |x, y| samples[(y * 1001 + x + 17) % samples.len()],
        |x, y| chroma[(y * 501 + x + 5) % chroma.len()],
    );
    let whole = count_band(&cur, &prev, 0..cur.height, 0..cur.chroma_height);
    let parts = (0..5)
        .map(|b| {
            count_band(
                &cur,
                &prev,
                b * 523 / 5..(b + 1) * 523 / 5,
                b * 262 / 5..(b + 1) * 262 / 5,
            )
        })
        .reduce(Counts::add)
        .unwrap();
    assert_eq!(parts, whole);
    assert!(whole.tout > 0 && whole.brng > 0 && whole.vrep_lines == 4, "{whole:?}");
    assert_eq!(count(&cur, Some(&prev)), whole);
}

#[test]
fn planes_that_do_not_hold_the_frame_are_an_error() {
    let (y, c) = (vec![0u8; 8 * 6], vec![128u8; 4 * 3]);
    let planes = |y: &'static [u8], c: &'static [u8]| {
        vec![
            PlaneData { data: y, stride: 8 },
            PlaneData { data: c, stride: 4 },
            PlaneData { data: c, stride: 4 },
        ]
    };
    let (y, c): (&'static [u8], &'static [u8]) = (y.leak(), c.leak());
    let yuv420 = PlaneLayout::Yuv {
        chroma_shift_x: 1,
        chroma_shift_y: 1,
        bits: 8,
    };
    assert!(YuvPlanes::read(yuv420, 8, 6, &planes(y, c)).is_ok());
    for (w, h) in [(8, 7), (9, 6), (16, 12)] {
        assert!(matches!(
            YuvPlanes::read(yuv420, w, h, &planes(y, c)),
            Err(StatsError::Short(..))
        ));
    }
    assert!(YuvPlanes::read(yuv420, 8, 6, &planes(y, &c[..11])).is_err());
    assert!(YuvPlanes::read(yuv420, 8, 6, &planes(y, c)[..2]).is_err());
}
