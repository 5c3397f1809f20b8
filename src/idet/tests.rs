use super::*;
use crate::video::deinterlace::cpu::PlaneGeometry;

fn sums(alpha: [u64; 2], delta: u64, gamma: [u64; 2]) -> Sums {
    Sums { alpha, delta, gamma }
}

#[test]
fn counts_print_as_the_filter_prints_them() {
    assert_eq!(fixed(PRECISION), "1.00");
    assert_eq!(fixed(3 * PRECISION / 2), "1.50");
    assert_eq!(fixed(0), "0.00");
    // Hundredths rounded to the nearest, halves up: 5243 / 2^20 is 0.0050001.
    assert_eq!(fixed(5243), "0.01");
    assert_eq!(fixed(5242), "0.00");
    assert_eq!(fixed(1234 * PRECISION), "1234.00");
}

#[test]
fn a_frame_is_decided_by_its_sums() {
    let single = |s: Sums| Idet::new(IdetOptions::default()).frame(&s).single;
    assert_eq!(single(sums([200, 100], 0, [0, 0])), Scan::Tff);
    assert_eq!(single(sums([100, 200], 0, [0, 0])), Scan::Bff);
    // Neither order explains more: progressive where the fields differ more than the lines.
    assert_eq!(single(sums([100, 100], 10, [0, 0])), Scan::Progressive);
    assert_eq!(single(sums([100, 100], 100, [0, 0])), Scan::Undetermined);
    assert_eq!(single(sums([0, 0], 0, [0, 0])), Scan::Undetermined);
    let repeated = |g: [u64; 2]| Idet::new(IdetOptions::default()).frame(&sums([0, 0], 0, g)).repeated;
    assert_eq!(repeated([40, 10]), Repeated::Top);
    assert_eq!(repeated([10, 40]), Repeated::Bottom);
    // More than three times, not as much.
    assert_eq!(repeated([30, 10]), Repeated::Neither);
}

#[test]
fn the_multi_frame_decision_changes_once_four_frames_agree() {
    let mut idet = Idet::new(IdetOptions::default());
    let tff = sums([200, 100], 0, [0, 0]);
    let bff = sums([100, 200], 0, [0, 0]);
    let still = sums([0, 0], 0, [0, 0]);
    // From undetermined, the first decision is taken at once.
    assert_eq!(idet.frame(&still).multiple, Scan::Undetermined);
    assert_eq!(idet.frame(&tff).multiple, Scan::Tff);
    for _ in 0..3 {
        assert_eq!(idet.frame(&bff).multiple, Scan::Tff);
    }
    // The history was bff, bff, bff, tff: now four bff.
    assert_eq!(idet.frame(&bff).multiple, Scan::Bff);
    // Undetermined frames don't break a run: bff, bff, undetermined, bff... and tff x3 then.
    let d = idet.frame(&still);
    assert_eq!((d.single, d.multiple), (Scan::Undetermined, Scan::Bff));
    for _ in 0..2 {
        assert_eq!(idet.frame(&tff).multiple, Scan::Bff);
    }
    // tff, tff, tff, undetermined: three that agree and nothing against them.
    assert_eq!(idet.frame(&tff).multiple, Scan::Tff);
    let totals = idet.totals();
    assert_eq!(totals.single, [4, 4, 0, 2]);
    assert_eq!(totals.multiple, [5, 4, 0, 1]);
    assert_eq!(totals.content(), Scan::Tff);
}

#[test]
fn counts_decay_by_the_half_life() {
    let mut idet = Idet::new(IdetOptions::parse("half_life=1").unwrap());
    let tff = sums([200, 100], 0, [0, 0]);
    let mut last = None;
    for _ in 0..3 {
        last = Some(idet.frame(&tff));
    }
    let tags = last.unwrap().tags();
    let tag = |key: &str| tags.iter().find(|(k, _)| k == key).unwrap().1.clone();
    // 1 + 0.5 + 0.25.
    assert_eq!(tag("lavfi.idet.single.tff"), "1.75");
    assert_eq!(tag("lavfi.idet.multiple.tff"), "1.75");
    assert_eq!(tag("lavfi.idet.repeated.neither"), "1.75");
    assert_eq!(tag("lavfi.idet.single.current_frame"), "tff");
    assert_eq!(tags.len(), 14);
    assert_eq!(idet.totals().single[0], 3);
}

#[test]
fn options_parse_as_ffmpeg_writes_them() {
    let o = IdetOptions::parse("half_life=1").unwrap();
    assert_eq!((o.half_life, o.interlace_threshold), (1.0, 1.04));
    let o = IdetOptions::parse("1.1:2").unwrap();
    assert_eq!((o.interlace_threshold, o.progressive_threshold), (1.1, 2.0));
    let o = IdetOptions::parse("idet=rep_thres=4").unwrap();
    assert_eq!(o.repeat_threshold, 4.0);
    assert_eq!(IdetOptions::parse("").unwrap(), IdetOptions::default());
    assert!(IdetOptions::parse("foo=1")
        .unwrap_err()
        .contains("'foo' is not an option"));
    assert!(IdetOptions::parse("analyze_interlaced_flag=1").is_err());
    assert!(IdetOptions::parse("intl_thres=x").is_err());
    assert!(IdetOptions::parse("intl_thres=-2").is_err());
    assert!(IdetOptions::parse("1:2:3:4:5").is_err());
}

#[test]
fn the_twin_sums_lines_2_to_height_minus_3() {
    // One column of six lines, combed: the frames before and after are black.
    let plane = PlaneGeometry {
        width: 1,
        height: 6,
        channels: 1,
        bits: 8,
        wide: false,
        shift: 0,
    };
    let cur = vec![vec![0, 10, 0, 10, 0, 10]];
    let black = vec![vec![0; 6]];
    // Line 2: around it 10 + 10, against 0 (prev, next, itself); line 3: around it 0 + 0,
    // against 0 (prev, next) and itself 10; its field against the previous frame's, 2 * 10.
    assert_eq!(cpu::sums(&[plane], &black, &cur, &black), sums([20, 20], 40, [20, 0]));
    // Too short for any line.
    let short = PlaneGeometry { height: 4, ..plane };
    let four = vec![vec![5, 0, 5, 0]];
    assert_eq!(cpu::sums(&[short], &four, &four, &four), Sums::default());
}
