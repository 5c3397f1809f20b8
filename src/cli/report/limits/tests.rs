//! `--fail-on` parsed, qct-parse's profiles at 8 and 10 bits, and the runs beyond the limits as
//! they are collected, told and written to `--alert-log`.

use super::*;

fn values(ymax: f64, brng: f64) -> [f64; 31] {
    let mut v = [0.0; 31];
    v[4] = ymax;
    v[30] = brng;
    v
}

#[test]
fn limits_parse_and_bad_ones_are_named() {
    let l = Limit::parse_list("YMAX>235, brng>=0.01,YMIN<16").unwrap();
    assert_eq!((l[0].stat, l[0].op, l[0].value), (4, Op::Above, 235.0));
    assert_eq!((l[1].stat, l[1].op), (30, Op::AtLeast));
    assert_eq!(l[2].op, Op::Below);
    assert!(Limit::parse_list("YMAX=235").unwrap_err().contains("not a limit"));
    assert!(Limit::parse_list("YMAXX>235").unwrap_err().contains("'YMAXX'"));
    assert!(Limit::parse_list("YMAX>abc").unwrap_err().contains("'abc'"));
}

#[test]
fn runs_cover_consecutive_frames_beyond_a_limit() {
    let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235,BRNG>0.5").unwrap());
    let ymax = [100.0, 240.0, 250.0, 100.0, 236.0, 236.0];
    for (k, &y) in ymax.iter().enumerate() {
        watch.frame(k as u64, k as f64 / 10.0, &values(y, if k == 5 { 0.9 } else { 0.0 }));
    }
    let runs = watch.finish().listed;
    assert_eq!(runs.len(), 3);
    assert_eq!((runs[0].first, runs[0].last, runs[0].worst), (1, 2, 250.0));
    assert_eq!((runs[1].first, runs[1].last, runs[1].worst), (4, 5, 236.0));
    assert_eq!((runs[2].limit.as_str(), runs[2].first), ("BRNG>0.5", 5));
    assert_eq!(runs[0].to_string(), "YMAX>235: frames 1-2 (0.100-0.200 s), worst 250");
}

#[test]
fn each_run_is_told_as_it_ends_with_its_wall_clock_times() {
    let closed = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = std::rc::Rc::clone(&closed);
    let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235").unwrap())
        .on_close(Box::new(move |run: &Run| seen.borrow_mut().push((run.first, run.last))));
    for (k, y) in [240.0, 250.0, 100.0, 236.0].into_iter().enumerate() {
        watch.frame(k as u64, k as f64 / 25.0, &values(y, 0.0));
        // The first run is told of at frame 2, the frame after it; the second not yet.
        let told: Vec<(u64, u64)> = closed.borrow().clone();
        assert_eq!(told, if k < 2 { vec![] } else { vec![(0, 1)] }, "frame {k}");
    }
    let runs = watch.finish().listed;
    assert_eq!(*closed.borrow(), [(0, 1), (3, 3)]);
    assert!(runs[0].started <= runs[0].ended);
    let line: serde_json::Value = serde_json::from_str(&runs[1].alert_json()).unwrap();
    assert_eq!(line["frames"], serde_json::json!([3, 3]));
    assert_eq!(line["pts"], serde_json::json!([0.12, 0.12]));
    assert_eq!(line["limit"], "YMAX>235");
    assert_eq!(line["worst"], 236.0);
    assert_eq!(line["start"].as_str().unwrap().len(), "2026-11-27T19:55:00.120Z".len());
}

#[test]
fn runs_told_as_they_end_are_only_counted_for_a_live_input() {
    let told = std::rc::Rc::new(std::cell::Cell::new(0));
    let seen = std::rc::Rc::clone(&told);
    let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235").unwrap())
        .on_close(Box::new(move |_: &Run| seen.set(seen.get() + 1)))
        .only_count_told();
    for k in 0..1000 {
        let y = if k % 2 == 0 { 240.0 } else { 100.0 };
        watch.frame(k, k as f64 / 25.0, &values(y, 0.0));
    }
    let runs = watch.finish();
    assert_eq!((runs.len(), told.get()), (500, 500));
    assert!(runs.listed.is_empty());
}

#[test]
fn utc_timestamps_are_rfc_3339_to_the_millisecond() {
    let at = |ms: u64| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    assert_eq!(utc_timestamp(at(0)), "1970-01-01T00:00:00.000Z");
    assert_eq!(utc_timestamp(at(1_700_000_000_123)), "2023-11-14T22:13:20.123Z");
    assert_eq!(utc_timestamp(at(951_782_400_000)), "2000-02-29T00:00:00.000Z");
    assert_eq!(utc_timestamp(at(1_795_824_000_999)), "2026-11-28T00:00:00.999Z");
}

#[test]
fn profiles_are_qct_parses_at_8_and_10_bits() {
    let texts = |spec: &str, bits| -> Vec<String> {
        Limits::parse(spec)
            .unwrap()
            .at_depth(bits)
            .iter()
            .map(|l| l.text.clone())
            .collect()
    };
    assert_eq!(
        texts("broadcast", 8),
        [
            "YLOW<16 (default)",
            "YHIGH>235 (default)",
            "ULOW<16 (default)",
            "UHIGH>235 (default)",
            "VLOW<0 (default)",
            "VHIGH>255 (default)",
            "SATMAX>181.02 (default)",
            "TOUT>0.009 (default)",
            "VREP>0.03 (default)",
        ]
    );
    // qct-parse's 10-bit configuration, level for level.
    assert_eq!(
        texts("HIGHTOLERANCE", 10)[..6],
        [
            "YLOW<40 (highTolerance)",
            "YMAX>1000 (highTolerance)",
            "UMIN<64 (highTolerance)",
            "UMAX>1000 (highTolerance)",
            "VMIN<0 (highTolerance)",
            "VMAX>1023 (highTolerance)",
        ]
    );
    assert_eq!(texts("midTolerance", 10)[1], "YMAX>980 (midTolerance)");
    // Saturation at the stream's depth too (signalstats measures it in its code values).
    assert_eq!(texts("broadcast", 10)[6], "SATMAX>724.08 (default)");
    assert_eq!(texts("broadcast", 12)[6], "SATMAX>2896.32 (default)");
    assert_eq!(
        texts("lowTolerance", 10)[..2],
        ["YLOW<64 (lowTolerance)", "YMAX>940 (lowTolerance)"]
    );
    assert_eq!(texts("default", 10)[..2], ["YLOW<64 (default)", "YHIGH>940 (default)"]);
    // A profile and limits together; a LOW stat fails below its level, others above.
    let limits = Limit::parse_list("default,BRNG>0.01").unwrap();
    assert_eq!(limits.len(), 10);
    assert!(limits[0].beyond(15.0) && !limits[0].beyond(16.0));
    assert!(limits[1].beyond(236.0) && !limits[1].beyond(235.0));
    assert!(Limit::parse_list("strict").unwrap_err().contains("nor a profile"));
}
