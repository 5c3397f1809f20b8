//! `histoplay pse` on regular patterns (BT.1702's guideline 2, Ofcom's Annex 1): gratings of
//! black and white stripes made with `geq`, at the edges of the rule: more and fewer than five
//! light-dark pairs, across, down and at 45°; a step under and over 20 cd/m² between the
//! stripes; 0.4 and 0.6 s long; 35% of the screen standing still (passes) and reversing
//! (fails); stripes down a 16:9 picture to its last rows; WCAG, which has no rule for patterns. The GPU and the CPU twin alike, at 1080p too
//! (where a block is scanned along every other line).

mod common;

use common::pse;
use std::path::{Path, PathBuf};

/// A 480x270 FFV1 4:4:4 clip at 25 fps of `seconds` whose luma is `luma` (a geq expression of
/// X, Y and T; limited range, so 16 is black and 235 white).
fn grating(name: &str, luma: &str, seconds: f64) -> PathBuf {
    let graph = format!("color=c=black:s=480x270:r=25:d={seconds},format=yuv444p,geq=lum='{luma}':cb=128:cr=128");
    common::fixture(name, &["-f", "lavfi", "-i", &graph, "-c:v", "ffv1"])
}

/// Stripes `period` pixels apart across (`X`), down (`Y`) or at 45° (`(X+Y)/sqrt(2)`).
fn stripes(along: &str, period: u32, light: u32, dark: u32) -> String {
    format!(
        "if(lt(mod({along}\\,{period})\\,{half})\\,{light}\\,{dark})",
        half = period / 2
    )
}

/// The kinds of the failures, and the exit status agreeing with the verdict.
fn kinds(file: &Path, args: &[&str]) -> Vec<String> {
    let (summary, _, code) = pse(file, args);
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!(code, Some(if failures.is_empty() { 0 } else { 1 }), "{summary}");
    failures
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_grating_of_more_than_five_pairs_over_the_screen_fails_once_it_has_lasted_half_a_second() {
    let across = grating("pse-grating-across.mkv", &stripes("X", 48, 235, 16), 2.0);
    let (summary, frames, code) = pse(&across, &["--frames-out"]);
    assert_eq!(code, Some(1));
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{summary}");
    let failure = &failures[0];
    assert_eq!(failure["kind"], "pattern");
    // From its first frame, once 0.5 s had passed (frame 12 ends at 0.52 s), to the end.
    assert_eq!(
        (failure["start"].as_f64(), failure["end"].as_f64()),
        (Some(0.0), Some(2.0))
    );
    assert_eq!(failure["frames"], serde_json::json!([0, 49]));
    // 480 pixels of stripes 48 apart: 10 pairs (a block's measure, within one).
    let pairs = failure["worst"].as_f64().unwrap();
    assert!((9.0..=11.0).contains(&pairs), "{pairs}");
    let states: Vec<&str> = frames.iter().map(|f| f["state"].as_str().unwrap()).collect();
    assert_eq!(states[..12], ["warn"; 12]);
    assert_eq!(states[12..], ["fail"; 38]);
    assert!(frames[0]["pattern"].as_f64().unwrap() > 0.9, "{}", frames[0]);
    assert_eq!(frames[0]["pattern_changing"], false);
    // Across the flash rule nothing: the picture stands still.
    assert!(frames.iter().all(|f| f["flashes"] == 0.0));

    for (name, along, period, expected) in [
        ("pse-grating-down.mkv", "Y", 24, 11.25),
        ("pse-grating-45.mkv", "(X+Y)/1.41421356", 34, 15.2),
    ] {
        let file = grating(name, &stripes(along, period, 235, 16), 1.0);
        let (summary, _, _) = pse(&file, &[]);
        let failure = &summary["failures"][0];
        assert_eq!(failure["kind"], "pattern", "{name}: {summary}");
        let pairs = failure["worst"].as_f64().unwrap();
        assert!(
            (pairs - expected).abs() <= 1.5,
            "{name}: {pairs} pairs, {expected} drawn"
        );
    }
}

#[test]
fn few_pairs_faint_stripes_and_short_patterns_pass() {
    // 3 pairs across the screen.
    let wide = grating("pse-grating-3-pairs.mkv", &stripes("X", 160, 235, 16), 1.0);
    assert_eq!(kinds(&wide, &[]), Vec::<String>::new());
    // Stripes at 0 and 14.0 cd/m² (luma 88) pass; at 0 and 22.4 (luma 104) fail.
    let faint = grating("pse-grating-faint.mkv", &stripes("X", 48, 88, 16), 1.0);
    assert_eq!(kinds(&faint, &[]), Vec::<String>::new());
    let dim = grating("pse-grating-dim.mkv", &stripes("X", 48, 104, 16), 1.0);
    assert_eq!(kinds(&dim, &[]), ["pattern"]);
    // 0.4 s of stripes, then grey, passes; 0.6 s fails.
    for (seconds, expected) in [(0.4, 0), (0.6, 1)] {
        let luma = format!("if(lt(T\\,{seconds})\\,{}\\,90)", stripes("X", 48, 235, 16));
        let file = grating(&format!("pse-grating-{seconds}s.mkv"), &luma, 1.5);
        assert_eq!(kinds(&file, &[]).len(), expected, "{seconds} s of stripes");
    }
    // WCAG 2.3.1 has no rule for patterns.
    let across = grating("pse-grating-across.mkv", &stripes("X", 48, 235, 16), 2.0);
    assert_eq!(kinds(&across, &["--standard", "wcag"]), Vec::<String>::new());
}

#[test]
fn stripes_down_a_wide_picture_are_counted_to_its_last_rows() {
    // A 16:9 picture's 54 rows of cells are two of the coarse scan's blocks of 24 and 6 rows
    // more: those are scanned as a whole block too, so 270 rows of stripes 45 apart make 6
    // pairs over the whole screen (not 5 over 89% of it), and 54 apart make 5.
    for (period, expected) in [(45, vec!["pattern"]), (54, vec![])] {
        let file = grating(
            &format!("pse-grating-down-{period}.mkv"),
            &stripes("Y", period, 235, 16),
            0.8,
        );
        let (summary, frames, code) = pse(&file, &["--frames-out"]);
        assert_eq!(code, Some(expected.len() as i32), "{summary}");
        assert_eq!(kinds(&file, &["--cpu"]), expected, "{period}");
        let pairs = frames[0]["pattern_pairs"].as_f64().unwrap();
        let drawn = 270.0 / f64::from(period);
        assert!((pairs - drawn).abs() <= 0.6, "{pairs} pairs, {drawn} drawn");
        assert!(frames[0]["pattern"].as_f64().unwrap() > 0.95, "{}", frames[0]);
    }
}

/// Stripes 16 apart over the left 168 pixels of 480 (35%), grey beside; reversing every half
/// second when `reversing`.
fn part(reversing: bool) -> PathBuf {
    let phase = if reversing { "lt(mod(T\\,1)\\,0.5)" } else { "1" };
    let luma = format!("if(lt(X\\,168)\\,if(eq(lt(mod(X\\,16)\\,8)\\,{phase})\\,235\\,16)\\,90)");
    grating(
        &format!("pse-grating-part-{}.mkv", if reversing { "reversing" } else { "still" }),
        &luma,
        2.0,
    )
}

#[test]
fn a_still_pattern_may_cover_two_fifths_of_the_screen_and_a_changing_one_a_quarter() {
    let (summary, frames, code) = pse(&part(false), &["--frames-out"]);
    assert_eq!(code, Some(0), "{summary}");
    let share = frames[10]["pattern"].as_f64().unwrap();
    assert!((0.25..=0.4).contains(&share), "{}", frames[10]);
    assert!(frames[10]["pattern_pairs"].as_f64().unwrap() > 5.0, "{}", frames[10]);
    let (summary, frames, code) = pse(&part(true), &["--frames-out"]);
    assert_eq!(code, Some(1));
    let kinds: Vec<&str> = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["pattern"], "{summary}");
    // It changes from its first reversal (at 0.5 s, frame 13) on.
    assert_eq!(frames[12]["pattern_changing"], false);
    assert!(frames[13..].iter().all(|f| f["pattern_changing"] == true));
}

#[test]
fn the_cpu_twin_counts_the_stripes_as_the_gpu_does() {
    // At 1080p a block's every other row and column is scanned (about 32 lines each way).
    let hd = common::fixture(
        "pse-grating-1080p.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:s=1920x1080:r=25:d=0.6,format=yuv420p,geq=lum='if(lt(mod(X\\,96)\\,48)\\,235\\,16)':cb=128:cr=128",
            "-c:v",
            "libx264",
            "-qp",
            "0",
        ],
    );
    let files = [
        part(true),
        grating("pse-grating-45.mkv", &stripes("(X+Y)/1.41421356", 34, 235, 16), 1.0),
        hd,
    ];
    for file in files {
        let (gpu_summary, gpu, _) = pse(&file, &["--frames-out"]);
        let (cpu_summary, cpu, _) = pse(&file, &["--frames-out", "--cpu"]);
        assert_eq!(gpu, cpu, "{}", file.display());
        assert_eq!(gpu_summary, cpu_summary);
        assert_eq!(gpu_summary["failures"][0]["kind"], "pattern", "{}", file.display());
    }
}
