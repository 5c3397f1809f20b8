use super::*;

fn words_of(values: &[[u32; 3]], bits: u32) -> Vec<u32> {
    values.iter().map(|&c| pack(c, bits)).collect()
}

fn hist(words: &[u32], bits: u32) -> Histogram {
    histogram_packed(words, 1 << bits, Depth::from_bits(bits))
}

#[test]
fn neutral_settings_leave_every_code_alone() {
    for bits in [8, 10] {
        let identity: Vec<u32> = (0..1u32 << bits).collect();
        assert_eq!(Adjustments::default().curve(bits), identity);
    }
    let words: Vec<u32> = (0..=255u32).map(|v| pack([v, 255 - v, v / 2], 8)).collect();
    assert_eq!(CpuAdjuster::new(Adjustments::default(), 8).adjust(&words), words);
}

#[test]
fn the_curve_follows_mpv() {
    let curve = |contrast, brightness, gamma| {
        Adjustments {
            contrast,
            brightness,
            gamma,
            ..Default::default()
        }
        .curve(8)
    };
    // Contrast is a gain about black: +100 doubles, −100 is black.
    let doubled = curve(100, 0, 0);
    assert_eq!(
        (doubled[0], doubled[60], doubled[127], doubled[128], doubled[255]),
        (0, 120, 254, 255, 255)
    );
    assert!(curve(-100, 0, 0).iter().all(|&c| c == 0));
    // Brightness lifts by a hundredth of the range per step.
    let lifted = curve(0, 10, 0);
    assert_eq!((lifted[0], lifted[100], lifted[250]), (26, 126, 255));
    // Gamma +100 is an exponent of 1/8; −100 of 8.
    // (64/255)^(1/8)·255 = 214.57; (128/255)^8·255 = 1.01.
    let bright = curve(0, 0, 100);
    assert_eq!(bright[64], 215);
    let dark = curve(0, 0, -100);
    assert_eq!((dark[128], dark[255]), (1, 255));
}

#[test]
fn saturation_minus_100_is_luma_and_plus_100_doubles_chroma() {
    let grey = Adjustments {
        saturation: -100,
        ..Default::default()
    };
    let words = words_of(&[[200, 100, 50], [0, 0, 255], [77, 77, 77]], 8);
    let out = CpuAdjuster::new(grey, 8).adjust(&words);
    // Y = (2126·200 + 7152·100 + 722·50) / 10000 = 117.63 → 118.
    assert_eq!(unpack(out[0], 8), [118, 118, 118]);
    // 722·255 / 10000 = 18.4.
    assert_eq!(unpack(out[1], 8), [18, 18, 18]);
    assert_eq!(unpack(out[2], 8), [77, 77, 77]);
    let vivid = Adjustments {
        saturation: 100,
        ..Default::default()
    };
    let out = CpuAdjuster::new(vivid, 8).adjust(&words);
    // Each channel twice as far from Y (117.63): 282 → 255, 82, −18 → 0.
    assert_eq!(unpack(out[0], 8), [255, 82, 0]);
    assert_eq!(unpack(out[2], 8), [77, 77, 77]);
}

#[test]
fn auto_levels_stretch_each_channel_between_its_clip_points() {
    // R spread over 50..=150, G over 0..=255, B flat at 90.
    let values: Vec<[u32; 3]> = (0..101u32)
        .flat_map(|i| (0..10).map(move |_| [50 + i, (i * 255) / 100, 90]))
        .collect();
    let words = words_of(&values, 8);
    let mut state = AutoState::new(8);
    let table = state.table(&hist(&words, 8), 8, AutoMode::Levels);
    let r = &table[..256];
    let g = &table[256..512];
    let b = &table[512..];
    // 1010 pixels: 0.1% is 1 pixel, so the points are the extremes.
    assert_eq!((r[49], r[50], r[100], r[150], r[151]), (0, 0, 128, 255, 255));
    assert_eq!((g[0], g[255]), (0, 255));
    // A flat channel is stretched at most 8× about its own level, not blown to black or white.
    assert_eq!(b[90], 128);
    assert!(b[80] < 128 && b[100] > 128);
}

#[test]
fn auto_levels_ease_towards_new_points_and_jump_at_cuts() {
    let frame = |low: u32, high: u32| {
        let values: Vec<[u32; 3]> = (low..=high).map(|v| [v, v, v]).collect();
        hist(&words_of(&values, 8), 8)
    };
    let mut state = AutoState::new(8);
    state.table(&frame(40, 200), 8, AutoMode::Levels);
    assert_eq!(state.levels[0..2], [40 * 256, 200 * 256]);
    // A small change moves an eighth of the way.
    state.table(&frame(48, 200), 8, AutoMode::Levels);
    assert_eq!(state.levels[0..2], [40 * 256 + 256, 200 * 256]);
    // A change of more than a quarter of the range is a cut: straight there.
    state.table(&frame(150, 250), 8, AutoMode::Levels);
    assert_eq!(state.levels[0..2], [150 * 256, 250 * 256]);
    // So is a restart.
    state.restart();
    state.table(&frame(160, 250), 8, AutoMode::Levels);
    assert_eq!(state.levels[0..2], [160 * 256, 250 * 256]);
}

#[test]
fn equalisation_flattens_the_luminance_distribution() {
    // Two greys, 3:1: the dark one goes to black, the light one to white.
    let mut values = vec![[60, 60, 60]; 300];
    values.extend(vec![[70, 70, 70]; 100]);
    let words = words_of(&values, 8);
    let out = CpuAdjuster::new(
        Adjustments {
            auto: AutoMode::Equalize,
            ..Default::default()
        },
        8,
    )
    .adjust(&words);
    assert_eq!(unpack(out[0], 8), [0, 0, 0]);
    assert_eq!(unpack(out[399], 8), [255, 255, 255]);
    // A ramp stays a ramp.
    let ramp: Vec<[u32; 3]> = (0..=255).map(|v| [v, v, v]).collect();
    let mut state = AutoState::new(8);
    let table = state.table(&hist(&words_of(&ramp, 8), 8), 8, AutoMode::Equalize);
    assert_eq!((table[0], table[128], table[255]), (0, 128, 255));
}

#[test]
fn ten_bit_codes_keep_their_depth() {
    let settings = Adjustments {
        contrast: 10,
        saturation: 20,
        ..Default::default()
    };
    let words = words_of(&[[1023, 512, 3], [100, 101, 102]], 10);
    let out = CpuAdjuster::new(settings, 10).adjust(&words);
    for word in &out {
        assert_eq!(word >> 30, 3, "the alpha bits stay");
    }
    // One code step of the source is about one of the output: no reduction to 8 bits.
    let [r, g, b] = unpack(out[1], 10);
    assert_eq!((g - r, b - g), (1, 1));
}

#[test]
fn the_osd_label_names_what_is_on() {
    assert_eq!(Adjustments::default().label(), None);
    let settings = Adjustments {
        contrast: 5,
        gamma: -3,
        auto: AutoMode::Levels,
        ..Default::default()
    };
    assert_eq!(settings.label().unwrap(), "contrast +5  gamma -3  auto-levels");
    let mut clamped = Adjustments::default();
    clamped.set(Adjustment::Brightness, 250);
    assert_eq!(clamped.brightness, 100);
}
