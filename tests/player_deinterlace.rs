//! End to end, deinterlacing in the window: `d` cycles mpv's no, yes, auto and the frame shown
//! is made again each time, its signal statistics FFmpeg's after the same filter; at field rate
//! a step is a field, the frame log says which, and steps back land on the pictures playing
//! through gives; two files compared are deinterlaced alike and paired picture by picture.

mod common;
mod window;

use std::collections::BTreeMap;
use window::{Player, Present, Xvfb};

/// Whether the frame log's `signal=K:...` is of frame (or field) `k` and equals `expected`'s
/// (values the window has no previous frame for are `-`). The readout comes a present or two
/// after its frame.
fn signal_is(present: &Present, k: u64, expected: &BTreeMap<String, String>) -> bool {
    let Some((frame, values)) = present.signal.as_deref().and_then(|s| s.split_once(':')) else {
        return false;
    };
    let names = histoplay::signalstats::NAMES;
    frame == k.to_string()
        && names
            .iter()
            .zip(values.split(','))
            .all(|(name, value)| value == "-" || value == expected[*name])
}

/// The statistics the frame log's `signal=K:...` gives equal `expected`'s (values the window
/// has no previous frame for are `-`); returns K.
fn assert_signal(present: &Present, expected: &BTreeMap<String, String>, what: &str) -> u64 {
    let (frame, values) = present.signal.as_deref().unwrap().split_once(':').unwrap();
    let names = histoplay::signalstats::NAMES;
    let values: Vec<&str> = values.split(',').collect();
    assert_eq!(values.len(), names.len(), "{what}: {present:?}");
    let mut compared = 0;
    for (name, value) in names.iter().zip(&values) {
        if *value != "-" {
            assert_eq!(*value, expected[*name], "{what}: {name} of {present:?}");
            compared += 1;
        }
    }
    assert!(compared >= 20, "{what}: only {compared} values in {present:?}");
    frame.parse().unwrap()
}

#[test]
fn d_cycles_deinterlacing_and_the_frame_shown_is_ffmpegs() {
    let clip = common::interlaced_pal_h264();
    let bwdif = common::ffprobe_stats_after(&clip, Some("bwdif=mode=send_frame:parity=auto:deint=all"));
    let plain = common::ffprobe_stats(&clip);
    let x = Xvfb::start();
    // (A frame for each frame; `d`'s default, as mpv's and FFmpeg's bwdif, is one a field.)
    let args = [
        clip.as_os_str(),
        "--no-audio".as_ref(),
        "--deinterlacer".as_ref(),
        "bwdif=send_frame".as_ref(),
    ];
    let player = Player::start_with(&x, "deinterlace-d", &args);
    // Played to its end, paused on its last frame, with the statistics overlay up.
    player.wait_present("the last frame", 0, |p| p.paused && p.frame == Some(4));
    let before = player.key("I");
    let shown = player.wait_present("its statistics", before, |p| p.signal.is_some());
    assert_eq!(shown.deint, None);
    assert_eq!(assert_signal(&shown, &plain[4], "as decoded"), 4);
    // `d`: yes, then auto (this clip's frames are flagged interlaced: the same pictures),
    // then no; each time the last frame made again, as FFmpeg's filter makes it.
    let steps = [
        (Some("bwdif,send_frame,auto,all"), &bwdif[4]),
        (Some("bwdif,send_frame,auto,interlaced"), &bwdif[4]),
        (None, &plain[4]),
    ];
    for (deint, expected) in steps {
        let before = player.key("d");
        let made = player.wait_present("the frame made again", before, |p| {
            p.new_frame && p.deint.as_deref() == deint
        });
        assert_eq!(made.frame, Some(4), "{deint:?}");
        assert_eq!(made.field, None);
        let counted = player.wait_present(&format!("FFmpeg's statistics, {deint:?}"), before, |p| {
            p.deint.as_deref() == deint && signal_is(p, 4, expected)
        });
        assert_eq!(assert_signal(&counted, expected, &format!("{deint:?}")), 4);
    }
}

#[test]
fn at_field_rate_a_step_is_a_field_forward_and_back() {
    let clip = common::interlaced_pal_h264();
    let fields = common::ffprobe_stats_after(&clip, Some("bwdif=mode=send_field:parity=auto:deint=all"));
    assert_eq!(fields.len(), 10);
    let x = Xvfb::start();
    let args = [
        clip.as_os_str(),
        "--no-audio".as_ref(),
        "--deinterlace".as_ref(),
        "yes".as_ref(),
        "--deinterlacer".as_ref(),
        "bwdif=send_field".as_ref(),
    ];
    let player = Player::start_with(&x, "deinterlace-fields", &args);
    // Played to its end: the last frame's second field.
    let end = player.wait_present("the last field", 0, |p| p.paused && p.frame == Some(4));
    assert_eq!(
        (end.deint.as_deref(), end.field),
        (Some("bwdif,send_field,auto,all"), Some(2))
    );
    let before = player.key("I");
    player.wait_present("the statistics", before, |p| p.signal.is_some());
    // Home, then steps: each picture is FFmpeg's of that number (frame k's fields are 2k and
    // 2k + 1).
    let keys = [
        ("Home", 0, 1, 0),
        ("period", 0, 2, 1),
        ("period", 1, 1, 2),
        ("period", 1, 2, 3),
        ("comma", 1, 1, 2),
        ("comma", 0, 2, 1),
        ("comma", 0, 1, 0),
    ];
    for (key, frame, field, picture) in keys {
        let before = player.key(key);
        let shown = player.wait_present(key, before, |p| {
            p.new_frame && p.frame == Some(frame) && p.field == Some(field)
        });
        assert!(shown.paused, "{key}");
        let what = format!("{key} to frame {frame} field {field}");
        let counted = player.wait_present(&what, before, |p| signal_is(p, picture as u64, &fields[picture]));
        assert_eq!((counted.frame, counted.field), (Some(frame), Some(field)), "{what}");
        assert_eq!(
            assert_signal(&counted, &fields[picture], &what),
            picture as u64,
            "{what}"
        );
    }
}

#[test]
fn two_files_compared_are_deinterlaced_alike_and_paired_field_by_field() {
    let (a, b) = (common::interlaced_pal_h264(), common::interlaced_pal_encode());
    // FFmpeg's measures of each pair of pictures, both files through bwdif at field rate.
    let psnr = common::ffmpeg_deinterlaced(&a, &b, "bwdif=mode=send_field", "psnr");
    let ssim = common::ffmpeg_deinterlaced(&a, &b, "bwdif=mode=send_field", "ssim");
    assert_eq!((psnr.len(), ssim.len()), (10, 10));
    // And `compare --deinterlace`'s VMAF of each (held to libvmaf in tests/compare_vmaf.rs).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("compare")
        .args([&a, &b])
        .args(["--deinterlace", "yes", "--deinterlacer", "bwdif=send_field", "--vmaf"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let vmaf: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| common::json(l)["vmaf"].as_f64().unwrap())
        .collect();
    assert_eq!(vmaf.len(), 10);
    let x = Xvfb::start();
    let args = [
        a.as_os_str(),
        "--compare".as_ref(),
        b.as_os_str(),
        "--no-audio".as_ref(),
        "--deinterlace".as_ref(),
        "yes".as_ref(),
        "--deinterlacer".as_ref(),
        "bwdif=send_field".as_ref(),
        "--timeline".as_ref(),
    ];
    let player = Player::start_with(&x, "deinterlace-compare", &args);
    // The pair shown and measured is picture `picture` of both (frame k's fields are 2k and
    // 2k + 1), measured as FFmpeg measures it; the timeline's VMAF of it is compare's.
    let paired = |what: &str, before: usize, picture: usize| {
        let (frame, field) = (picture as u64 / 2, picture as u8 % 2 + 1);
        let want = format!("{frame},wipe,{field}");
        let shown = player.wait_present(what, before, |p| {
            p.frame == Some(frame)
                && p.field == Some(field)
                && p.compare.as_deref() == Some(&want[..])
                && p.pair.is_some_and(|(k, ..)| k == picture as u64)
                && p.vmaf.is_some()
        });
        let score = shown.vmaf.unwrap();
        assert!(
            (score - vmaf[picture]).abs() < 5e-7,
            "{what}: VMAF {score} against {}",
            vmaf[picture]
        );
        let (_, mse, all) = shown.pair.unwrap();
        let theirs_mse = common::stats_value(&psnr[picture], "mse_avg");
        let theirs_all = common::stats_value(&ssim[picture], "All");
        assert!(
            (mse - theirs_mse).abs() <= 0.005 + 1e-6,
            "{what}: MSE {mse} against FFmpeg's {theirs_mse}"
        );
        assert!(
            (all - theirs_all).abs() <= 1.5e-6,
            "{what}: SSIM {all} against FFmpeg's {theirs_all}"
        );
    };
    // Played to its end: the last frame's second field, with B's.
    player.wait_present("the end", 0, |p| p.paused && p.frame == Some(4) && p.field == Some(2));
    paired("the last field", 0, 9);
    // Home, then steps forward and back, each a field of both files.
    for (key, picture) in [
        ("Home", 0),
        ("period", 1),
        ("period", 2),
        ("period", 3),
        ("comma", 2),
        ("comma", 1),
    ] {
        let before = player.key(key);
        paired(key, before, picture);
    }
    // B a field later: A's picture 1 with B's 2 (frame 1's first field).
    let before = player.key("ctrl+period");
    player.wait_present("B a field later", before, |p| {
        p.frame == Some(0) && p.field == Some(2) && p.compare.as_deref() == Some("1,wipe,1")
    });
    // `d` twice: auto (the same pictures), then frames as they are, B's offset back to frames.
    player.key("d");
    let before = player.key("d");
    let plain = player.wait_present("deinterlacing off", before, |p| {
        p.new_frame && p.deint.is_none() && p.compare.as_deref() == Some("0,wipe")
    });
    assert_eq!((plain.frame, plain.field), (Some(0), None));
}
