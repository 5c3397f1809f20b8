use super::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

/// 18% grey's signal as each maker publishes it (code values over 1023 where they give codes).
const GREY_SIGNALS: [(LogEncoding, f64); 13] = [
    (LogEncoding::SLog3, 420.0 / 1023.0),
    (LogEncoding::SLog3Cine, 420.0 / 1023.0),
    (LogEncoding::LogC3, 0.391007),
    (LogEncoding::LogC4, 0.278396),
    (LogEncoding::VLog, 433.0 / 1023.0),
    (LogEncoding::CLog2, 0.398255),
    (LogEncoding::CLog3, 0.343389),
    (LogEncoding::Log3G10, 1.0 / 3.0),
    (LogEncoding::FLog, 470.0 / 1023.0),
    (LogEncoding::FLog2, 0.391007),
    (LogEncoding::BmdFilm5, 0.383562),
    (LogEncoding::DLog, 0.398765),
    (LogEncoding::AppleLog, 0.488272),
];

#[test]
fn eighteen_percent_grey_lands_where_each_maker_puts_it() {
    for (encoding, signal) in GREY_SIGNALS {
        let got = encoding.encode(GREY);
        // Codes are whole: within half a code of 1023.
        assert!(
            close(got, signal, 0.5 / 1023.0),
            "{encoding:?}: grey at {got}, want {signal}"
        );
        let back = encoding.decode(signal);
        assert!(
            close(back, GREY, 0.002),
            "{encoding:?}: signal {signal} decodes to {back}"
        );
        assert!(close(encoding.stops(signal), 0.0, 0.02), "{encoding:?}");
    }
}

#[test]
fn black_and_white_cards_land_where_the_makers_put_them() {
    // Sony: black at 95, 90% white at 598 (of 1023). Panasonic: 128 and 602. ARRI LogC4: black
    // at 95/1023. Fujifilm F-Log: black at 95. RED Log3G10: black at 0.01 below zero light.
    for (encoding, light, code) in [
        (LogEncoding::SLog3, 0.0, 95.0),
        (LogEncoding::SLog3, 0.9, 598.0),
        (LogEncoding::VLog, 0.0, 128.0),
        (LogEncoding::VLog, 0.9, 602.0),
        (LogEncoding::LogC4, 0.0, 95.0),
        (LogEncoding::FLog, 0.0, 95.0),
    ] {
        let got = encoding.encode(light) * 1023.0;
        assert!(close(got, code, 0.5), "{encoding:?}({light}) = code {got}, want {code}");
    }
    assert!(close(LogEncoding::Log3G10.decode(0.0), -0.01, 1e-12));
    assert!(close(LogEncoding::LogC3.encode(0.0), 0.092809, 1e-6));
}

#[test]
fn every_curve_round_trips_and_rises() {
    for encoding in LogEncoding::ALL {
        let mut last = f64::NEG_INFINITY;
        for i in 0..=1023 {
            let signal = i as f64 / 1023.0;
            let light = encoding.decode(signal);
            if encoding == LogEncoding::AppleLog && light <= -0.05641088 {
                // Apple Log holds everything below R0 at signal 0.
                continue;
            }
            assert!(light > last, "{encoding:?} falls at {signal}");
            last = light;
            let back = encoding.encode(light);
            assert!(close(back, signal, 1e-6), "{encoding:?}: {signal} → {light} → {back}");
        }
        // The pieces meet: no jump where a toe joins the log.
        for i in 1..4000 {
            let (x0, x1) = (i as f64 * 1e-4, (i + 1) as f64 * 1e-4);
            let step = encoding.encode(x1) - encoding.encode(x0);
            assert!((0.0..0.01).contains(&step), "{encoding:?} jumps by {step} at {x0}");
        }
    }
}

#[test]
fn names_parse_in_every_spelling_and_tags_name_a_curve_only_whole() {
    for encoding in LogEncoding::ALL {
        assert_eq!(LogEncoding::parse(encoding.name()), Some(encoding));
        assert_eq!(LogEncoding::parse(&encoding.name().to_uppercase()), Some(encoding));
    }
    assert_eq!(LogEncoding::parse("S-Log3.Cine"), Some(LogEncoding::SLog3Cine));
    assert_eq!(LogEncoding::parse("ARRI LogC4"), Some(LogEncoding::LogC4));
    assert_eq!(LogEncoding::parse("rec709"), None);
    assert_eq!(
        LogEncoding::from_tags([("encoder", "Lavf"), ("com.apple.quicktime.log", "com.apple.log")]),
        Some(LogEncoding::AppleLog)
    );
    assert_eq!(
        LogEncoding::from_tags([("capture_gamma", "s-log3-cine")]),
        Some(LogEncoding::SLog3Cine)
    );
    // A title is not about the curve, and a value that only mentions one names none.
    assert_eq!(LogEncoding::from_tags([("title", "V-Log")]), None);
    assert_eq!(LogEncoding::from_tags([("comment", "my v-log trip")]), None);
    // Nor is a comment (a video blog's "Vlog"), or a key with "log" inside a word of its own.
    assert_eq!(LogEncoding::from_tags([("comment", "Vlog")]), None);
    assert_eq!(LogEncoding::from_tags([("CATALOG", "logc")]), None);
    assert_eq!(
        LogEncoding::from_tags([("CameraLogMode", "V-Log")]),
        Some(LogEncoding::VLog)
    );
    assert_eq!(
        LogEncoding::from_tags([("color_profile", "F-Log2")]),
        Some(LogEncoding::FLog2)
    );
}

#[test]
fn the_gamut_rows_keep_white_and_match_published_matrices() {
    for encoding in LogEncoding::ALL {
        let rows = encoding.to_bt709();
        for row in rows {
            assert!(close(row.iter().sum(), 1.0, 1e-9), "{encoding:?}: {rows:?}");
        }
    }
    // Sony's S-Gamut3 → XYZ (its technical summary), row Y.
    let y = crate::colour::primaries::rgb_to_xyz_of(LogEncoding::SLog3.gamut())[1];
    for (got, want) in y.iter().zip([0.2709796708, 0.7866064112, -0.0575860820]) {
        assert!(close(*got, want, 1e-6), "{y:?}");
    }
}

#[test]
fn the_display_rendering_puts_grey_where_rec709_does_and_rolls_highlights_off() {
    for encoding in LogEncoding::ALL {
        let rows = encoding.to_bt709();
        let grey = encoding.encode(GREY);
        let shown = display(encoding, [grey; 3], &rows);
        // BT.709's OETF puts 18% at 0.409 (code 104 of 255).
        for c in shown {
            assert!(close(c, 0.409008, 1e-6), "{encoding:?}: grey shown at {shown:?}");
        }
        let black = display(encoding, [encoding.encode(0.0); 3], &rows);
        assert!(black.iter().all(|&c| close(c, 0.0, 1e-9)), "{encoding:?}: {black:?}");
        // Brighter light is shown brighter, up to the signal's top, never reaching white.
        let mut last = 0.0;
        for stops in 1..=40 {
            let signal = encoding.signal_at_stops(f64::from(stops) / 4.0).min(1.0);
            let v = display(encoding, [signal; 3], &rows)[1];
            assert!(v >= last && v < 1.0, "{encoding:?} at +{stops}/4 stops: {v}");
            last = v;
        }
    }
    // The roll-off leaves the identity at the shoulder with its slope, and holds the stops
    // over it below white: +2½ stops at 83%, +4 at 94%, +6 at 98% of the signal.
    assert!(close(
        roll_off(SHOULDER * (1.0 + 1e-7)) - SHOULDER,
        SHOULDER * 1e-7,
        1e-12
    ));
    for (stops, signal) in [(2.5, 0.832), (4.0, 0.936), (6.0, 0.983)] {
        let shown = bt709_oetf(roll_off(GREY * f64::exp2(stops)));
        assert!(close(shown, signal, 0.001), "+{stops} stops shown at {shown}");
    }
    assert!(roll_off(1e6) < 1.0);
}
