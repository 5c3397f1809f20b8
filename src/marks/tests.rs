use super::*;
use crate::colour::transfer::pq_eotf;
use crate::colour::{ColorSpec, Matrix, Primaries, Range, Transfer};
use crate::video::format::{FrameFormat, PlaneLayout};

fn format(width: u32, height: u32, layout: PlaneLayout, range: Range) -> FrameFormat {
    FrameFormat {
        layout,
        width,
        height,
        color: ColorSpec {
            matrix: Matrix::Bt709,
            range,
        },
    }
}

fn grey(v: u32) -> u32 {
    v | (v << 8) | (v << 16) | (255 << 24)
}

fn params_for(
    shown: &[Mark],
    settings: MarkSettings,
    fmt: &FrameFormat,
    volume: &ColorVolume,
    bits: u32,
) -> MarkParams {
    let set = shown.iter().fold(MarkSet::default(), |s, &m| s.with(m, true));
    MarkParams::new(&settings, set, fmt, volume, bits)
}

#[test]
fn zebras_mark_a_ramp_exactly_from_the_level_up() {
    let fmt = format(256, 1, PlaneLayout::Rgba, Range::Full);
    let settings = MarkSettings {
        zebra_low: Some(70.0),
        ..MarkSettings::default()
    };
    let params = params_for(&[Mark::Zebra], settings, &fmt, &ColorVolume::default(), 8);
    // 95% of 255 is 242.25: 243 is the first code at or above it; 70% is 178.5: 179.
    assert_eq!(&params.zebra[..2], &[243, 179]);
    let pixels: Vec<u32> = (0..256).map(grey).collect();
    let words = classify(&params, &[], &pixels, None);
    for (v, w) in words.iter().enumerate() {
        assert_eq!(w & WORD_ZEBRA != 0, v >= 243, "code {v}");
        assert_eq!(w & WORD_ZEBRA_LOW != 0, v >= 179, "code {v}");
        assert_eq!(w & !(WORD_ZEBRA | WORD_ZEBRA_LOW), 0);
    }
}

#[test]
fn false_colour_bands_hold_the_codes_of_their_percent_and_nits() {
    let fmt = format(16, 16, PlaneLayout::Rgba, Range::Full);
    let params = params_for(
        &[Mark::FalseColour],
        MarkSettings::default(),
        &fmt,
        &ColorVolume::default(),
        8,
    );
    // ARRI's bands: 0–2.5% is codes 0..=6 (2.5% of 255 is 6.375), 99–100% reaches 255.
    assert_eq!(params.bands, 6);
    assert_eq!((params.band_lo[0], params.band_hi[0]), (0, 7));
    assert_eq!((params.band_lo[2], params.band_hi[2]), (97, 108));
    assert_eq!((params.band_lo[5], params.band_hi[5]), (253, 256));
    let pixels: Vec<u32> = (0..256).map(grey).collect();
    let words = classify(&params, &[], &pixels, None);
    assert_eq!(words[6], 1);
    assert_eq!(words[7], 2);
    assert_eq!(words[50], 0);
    assert_eq!(words[100], 3);
    assert_eq!(words[255], 6);
    // PQ, 10 bits: 203 nits is PQ 0.5807 (code 594.1): the reference-white band holds it.
    let pq = ColorVolume {
        transfer: Transfer::Pq,
        primaries: Primaries::Bt2020,
        peak_nits: None,
    };
    let params = params_for(&[Mark::FalseColour], MarkSettings::default(), &fmt, &pq, 10);
    let (lo, hi) = (params.band_lo[3], params.band_hi[3]);
    assert!(lo <= 594 && 594 < hi, "{lo}..{hi}");
    assert!(f64::from(pq_eotf(lo as f32 / 1023.0)) >= 180.0);
    assert!(f64::from(pq_eotf((lo - 1) as f32 / 1023.0)) < 180.0);
}

#[test]
fn peaking_marks_a_checkerboards_edges_and_not_a_smooth_gradient() {
    // Left half: 8x8 checks of 0 and 255; right half: a ramp rising one code a pixel.
    let (w, h) = (64usize, 32usize);
    let pixels: Vec<u32> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            if x < 32 {
                grey(if (x / 8 + y / 8) % 2 == 0 { 0 } else { 255 })
            } else {
                grey((x * 2) as u32)
            }
        })
        .collect();
    let fmt = format(w as u32, h as u32, PlaneLayout::Rgba, Range::Full);
    let params = params_for(
        &[Mark::Peaking],
        MarkSettings::default(),
        &fmt,
        &ColorVolume::default(),
        8,
    );
    let words = classify(&params, &[], &pixels, None);
    for y in 0..h {
        for x in 0..w {
            let marked = words[y * w + x] & WORD_PEAKING != 0;
            // An edge pixel has a neighbour (8-connected) of the other check.
            let edge = x < 31 && {
                let check = |x: usize, y: usize| (x / 8 + y / 8) % 2;
                let around = |dx: isize, dy: isize| {
                    let nx = (x as isize + dx).clamp(0, 31) as usize;
                    let ny = (y as isize + dy).clamp(0, h as isize - 1) as usize;
                    check(nx, ny) != check(x, y)
                };
                around(1, 0) || around(-1, 0) || around(0, 1) || around(0, -1)
            };
            if x >= 33 {
                assert!(!marked, "gradient at ({x}, {y})");
            } else if x < 31 {
                assert_eq!(marked, edge, "checks at ({x}, {y})");
            }
        }
    }
}

#[test]
fn range_marks_pixels_whose_luma_or_chroma_leave_the_limited_range() {
    // 4:2:0, 8 bits, 4x2: Y' 15, 16, 235, 236 on top; chroma of the left pair 16/240 (legal),
    // of the right 15 (Cb, illegal).
    let fmt = format(
        4,
        2,
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        Range::Limited,
    );
    let y_plane = [15u8, 16, 235, 236, 100, 100, 100, 100];
    let u_plane = [16u8, 15];
    let v_plane = [240u8, 128];
    let planes = [
        crate::video::format::PlaneData {
            data: &y_plane,
            stride: 4,
        },
        crate::video::format::PlaneData {
            data: &u_plane,
            stride: 2,
        },
        crate::video::format::PlaneData {
            data: &v_plane,
            stride: 2,
        },
    ];
    let (components, _) = crate::video::format::components(&fmt, &planes).unwrap();
    let params = params_for(
        &[Mark::Range],
        MarkSettings::default(),
        &fmt,
        &ColorVolume::default(),
        8,
    );
    let pixels = vec![grey(128); 8];
    let words = classify(&params, &[], &pixels, Some(&components));
    let marked: Vec<bool> = words.iter().map(|w| w & WORD_RANGE != 0).collect();
    assert_eq!(marked, [true, false, true, true, false, false, true, true]);
    // Full range: nothing to mark.
    let full = format(4, 2, fmt.layout, Range::Full);
    let params = params_for(
        &[Mark::Range],
        MarkSettings::default(),
        &full,
        &ColorVolume::default(),
        8,
    );
    assert!(classify(&params, &[], &pixels, Some(&components))
        .iter()
        .all(|&w| w == 0));
}

#[test]
fn bt2020_primaries_are_outside_bt709_and_its_grey_and_bt709_colours_are_not() {
    let fmt = format(5, 1, PlaneLayout::Rgba, Range::Full);
    let volume = ColorVolume {
        transfer: Transfer::Pq,
        primaries: Primaries::Bt2020,
        peak_nits: None,
    };
    let params = params_for(&[Mark::Gamut], MarkSettings::default(), &fmt, &volume, 10);
    let table = linear_table(Transfer::Pq, 10);
    let pack = |r: u32, g: u32, b: u32| r | (g << 10) | (b << 20);
    // 2020's red, green and blue at PQ 0.5; a grey; BT.709's red in BT.2020 (0.6274, 0.0691,
    // 0.0164 linear), coded in PQ.
    let code = |lin: f32| (crate::colour::transfer::pq_inverse_eotf(lin * 10000.0) * 1023.0).round() as u32;
    let pixels = [
        pack(512, 0, 0),
        pack(0, 512, 0),
        pack(0, 0, 512),
        pack(512, 512, 512),
        pack(code(0.06274), code(0.00691), code(0.00164)),
    ];
    let words = classify(&params, &table, &pixels, None);
    let marked: Vec<bool> = words.iter().map(|w| w & WORD_GAMUT != 0).collect();
    assert_eq!(marked, [true, true, true, false, false]);
    // A BT.709 source is never marked.
    let params = params_for(
        &[Mark::Gamut],
        MarkSettings::default(),
        &fmt,
        &ColorVolume::default(),
        10,
    );
    assert!(classify(&params, &table, &pixels, None).iter().all(|&w| w == 0));
}

#[test]
fn p3_primaries_are_outside_bt709_and_its_colours_inside_bt709_are_not() {
    // An SDR Display P3 source: its pure red and green lie outside BT.709, its blue is
    // BT.709's own; BT.709's red and a grey as P3 codes are inside.
    let fmt = format(5, 1, PlaneLayout::Rgba, Range::Full);
    let volume = ColorVolume {
        transfer: Transfer::Sdr,
        primaries: Primaries::P3,
        peak_nits: None,
    };
    let params = params_for(&[Mark::Gamut], MarkSettings::default(), &fmt, &volume, 8);
    let table = linear_table(Transfer::Sdr, 8);
    let pack = |r: u32, g: u32, b: u32| r | (g << 8) | (b << 16);
    // BT.709's red in P3 linear light is (0.8225, 0.0332, 0.0171); coded with BT.1886's
    // 2.4 power.
    let code = |lin: f64| (lin.powf(1.0 / 2.4) * 255.0).round() as u32;
    let pixels = [
        pack(255, 0, 0),
        pack(0, 255, 0),
        pack(0, 0, 255),
        pack(128, 128, 128),
        pack(code(0.8225), code(0.0332), code(0.0171)),
    ];
    let words = classify(&params, &table, &pixels, None);
    let marked: Vec<bool> = words.iter().map(|w| w & WORD_GAMUT != 0).collect();
    assert_eq!(marked, [true, true, false, false, false]);
}

#[test]
fn a_band_reaching_the_signals_top_in_nits_holds_its_white() {
    let fmt = format(4, 1, PlaneLayout::Rgba, Range::Full);
    let hlg = ColorVolume {
        transfer: Transfer::Hlg,
        primaries: Primaries::Bt2020,
        peak_nits: None,
    };
    let settings = MarkSettings {
        scale: Some(scale::FalseColourScale::parse("unit nits\n203 1000 #ff0000 bright\n").unwrap()),
        ..MarkSettings::default()
    };
    let params = params_for(&[Mark::FalseColour], settings.clone(), &fmt, &hlg, 10);
    assert_eq!(params.band_hi[0], 1024, "HLG's 1000 nits is its white");
    let sdr = params_for(&[Mark::FalseColour], settings, &fmt, &ColorVolume::default(), 8);
    assert_eq!(sdr.band_lo[0], 256, "SDR's white is 100 nits: nothing reaches 203");
}

#[test]
fn with_a_log_encoding_false_colour_is_in_stops_and_zebras_in_scene_light() {
    let fmt = format(1024, 1, PlaneLayout::Gbr { bits: 10 }, Range::Full);
    let settings = MarkSettings {
        zebra: 90.0,
        zebra_low: Some(100.0),
        exposure: Some(LogEncoding::SLog3),
        ..MarkSettings::default()
    };
    let params = params_for(
        &[Mark::FalseColour, Mark::Zebra],
        settings,
        &fmt,
        &ColorVolume::default(),
        10,
    );
    // Thirteen bands a stop wide around −6..+6 stops: S-Log3's 18% grey (code 420) sits in
    // the seventh, from −½ stop (code 384) to +½ (code 458); −6 holds 109..122, +6 847..926.
    assert_eq!(params.bands, 13);
    assert_eq!((params.band_lo[6], params.band_hi[6]), (384, 458));
    assert_eq!((params.band_lo[0], params.band_hi[0]), (109, 122));
    assert_eq!((params.band_lo[12], params.band_hi[12]), (847, 926));
    // Zebras at 90% and 100% of a white card's light: S-Log3 codes 598 and 610.
    assert_eq!(&params.zebra[..2], &[598, 610]);
    let ten = |v: u32| v | (v << 10) | (v << 20) | (3 << 30);
    let pixels: Vec<u32> = (0..1024).map(ten).collect();
    let words = classify(&params, &[], &pixels, None);
    assert_eq!(words[420] & WORD_BAND, 7);
    assert_eq!(words[383] & WORD_BAND, 6);
    assert_eq!(words[458] & WORD_BAND, 8);
    assert_eq!(words[100] & WORD_BAND, 0, "below −6½ stops: grey");
    assert_eq!(words[597] & WORD_ZEBRA, 0);
    assert_ne!(words[598] & WORD_ZEBRA, 0);
    assert_ne!(words[610] & WORD_ZEBRA_LOW, 0);
}
