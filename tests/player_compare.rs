//! End to end, comparing two files in the window (`histoplay A --compare B`): A is the grey
//! ramp (frame n a flat grey of luma 16 + 2n), B the ramp the other way (luma 235 − 2n), so
//! every pixel says which file and which frame it shows. The wipe shows A left of its line and
//! B right of it; steps and back-steps move both; flicker shows each alone; a left-drag moves
//! the line; the scope key works on the pair; Ctrl+. pairs B one frame later.

mod common;
mod window;

use std::path::PathBuf;
use std::time::Duration;
use window::{Image, Player, Present, Xvfb};

fn descending_ramp() -> PathBuf {
    common::fixture(
        "grey-ramp-down.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:s=64x48:r=30:d=3,format=yuv420p,geq=lum='235-2*N':cb=128:cr=128",
            "-c:v",
            "libx264",
            "-qp",
            "0",
            "-g",
            "12",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// The greys of A's frame `a` and B's frame `b` on screen.
fn greys(a: u64, b: u64) -> (u8, u8) {
    (
        common::limited_grey(common::ramp_luma(a)),
        common::limited_grey((235 - 2 * b) as u8),
    )
}

/// The picture's grey a fifth of the way in from the left and from the right, above the OSD.
fn left_right(image: &Image) -> ([u8; 3], [u8; 3]) {
    let y = image.height * 35 / 100;
    (image.at(image.width / 5, y), image.at(image.width * 4 / 5, y))
}

fn assert_grey(pixel: [u8; 3], grey: u8, what: &str) {
    assert!(
        pixel.iter().all(|&c| c.abs_diff(grey) <= 1),
        "{what}: {pixel:?}, expected grey {grey}"
    );
}

/// The wipe's line is drawn on column `x` of the window alone (amber, not grey).
fn assert_line(image: &Image, x: u32) {
    let y = image.height * 35 / 100;
    let coloured = |x: u32| {
        let [r, _, b] = image.at(x, y);
        r.abs_diff(b) > 40
    };
    assert!(coloured(x), "the wipe's line at x {x}: {:?}", image.at(x, y));
    assert!(
        !coloured(x - 2) && !coloured(x + 2),
        "the line is one pixel wide at {x}"
    );
}

/// The compared file's frame and the mode, from a present's `compare=` field.
fn compared(player: &Player, present_index: usize) -> (Option<u64>, String) {
    let text = std::fs::read_to_string(player.dir.join("frames.log")).unwrap();
    let line = text
        .lines()
        .filter(|l| l.starts_with("t_ms=") && !l.ends_with(" wake"))
        .nth(present_index)
        .unwrap()
        .to_string();
    let field = line
        .split(' ')
        .find_map(|kv| kv.strip_prefix("compare="))
        .unwrap_or_else(|| panic!("no compare field in {line}"));
    let (frame, mode) = field.split_once(',').unwrap();
    (frame.parse().ok(), mode.to_string())
}

/// Waits until the window is idle and returns its last present (and its index) and pixels.
fn settle(player: &Player) -> (Present, usize, Image) {
    let count = player.wait_idle(Duration::from_millis(500));
    let presents = player.presents();
    (presents[count - 1].clone(), count - 1, player.capture())
}

/// `settle`, once a present after the first `before` shows the pair as `mode` (a key's effect
/// may come later than the quiet `settle` waits for, on a busy machine).
fn settle_on(player: &Player, before: usize, mode: &str) -> (Present, usize, Image) {
    player.poll(&format!("the pair shown as {mode}"), || {
        let count = player.presents().len();
        (before..count).any(|i| compared(player, i).1 == mode).then_some(())
    });
    settle(player)
}

/// `settle`, once a present has come after the first `before`.
fn settle_after(player: &Player, before: usize) -> (Present, usize, Image) {
    player.wait_present("a present after the input", before, |_| true);
    settle(player)
}

#[test]
fn a_wipe_steps_flickers_and_shifts_both_files_together() {
    let (a, b) = (common::grey_ramp(), descending_ramp());
    let x = Xvfb::start();
    let args = [
        a.as_os_str(),
        "--compare".as_ref(),
        b.as_os_str(),
        "--no-audio".as_ref(),
    ];
    let player = Player::start_with(&x, "compare", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(6));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let (shown, at, image) = settle(&player);
    let k = shown.frame.expect("a frame");
    assert_eq!(
        compared(&player, at),
        (Some(k), "wipe".to_string()),
        "B's frame K with A's"
    );
    let (grey_a, grey_b) = greys(k, k);
    let (left, right) = left_right(&image);
    assert_grey(left, grey_a, "left of the wipe: A");
    assert_grey(right, grey_b, "right of the wipe: B");
    // The line: one pixel, on B's first column (the middle of the 64-wide frame).
    assert_line(&image, image.width / 2);

    // A step back moves both.
    let before = player.key("comma");
    player.wait_present("the step back", before, |p| p.new_frame && p.frame == Some(k - 1));
    let (_, at, image) = settle(&player);
    assert_eq!(compared(&player, at).0, Some(k - 1));
    let (grey_a, grey_b) = greys(k - 1, k - 1);
    let (left, right) = left_right(&image);
    assert_grey(left, grey_a, "A after the step back");
    assert_grey(right, grey_b, "B after the step back");
    // And a step forward.
    let before = player.key("period");
    player.wait_present("the step", before, |p| p.new_frame && p.frame == Some(k));
    let (_, at, _) = settle(&player);
    assert_eq!(compared(&player, at).0, Some(k));

    // Flicker: B alone, then A alone, in place.
    let before = player.key("B");
    let (_, at, image) = settle_on(&player, before, "b");
    assert_eq!(compared(&player, at).1, "b");
    let (grey_a, grey_b) = greys(k, k);
    let (left, right) = left_right(&image);
    assert_grey(left, grey_b, "flicker on B, left");
    assert_grey(right, grey_b, "flicker on B, right");
    let before = player.key("B");
    let (_, at, image) = settle_on(&player, before, "a");
    assert_eq!(compared(&player, at).1, "a");
    let (left, right) = left_right(&image);
    assert_grey(left, grey_a, "flicker on A, left");
    assert_grey(right, grey_a, "flicker on A, right");

    // Back to the wipe; the line dragged to a tenth of the width: B from there on.
    let before = player.key("C");
    let (_, at, _) = settle_on(&player, before, "wipe");
    assert_eq!(compared(&player, at).1, "wipe");
    let y = (image.height * 35 / 100).to_string();
    let to = |x: u32| x.to_string();
    x.xdotool(&["mousemove", "--window", &player.window, &to(image.width * 3 / 10), &y]);
    x.xdotool(&["mousedown", "1"]);
    let before = player.presents().len();
    x.xdotool(&["mousemove", "--window", &player.window, &to(image.width / 10), &y]);
    x.xdotool(&["mouseup", "1"]);
    let (_, _, image) = settle_after(&player, before);
    let (left, right) = left_right(&image);
    assert_grey(left, grey_b, "right of the dragged line: B");
    assert_grey(right, grey_b, "right of the dragged line: B");
    assert_grey(
        image.at(image.width / 20, image.height * 35 / 100),
        grey_a,
        "left of the line: A",
    );
    // The pointer at a tenth of the width is frame column 6.4: the line moves to column 6.
    assert_line(&image, image.width * 6 / 64);

    // The scope counts the picture shown (its counts are checked against the CPU twin in
    // tests/compare.rs); the picture stays as it was.
    let before = player.key("H");
    let (_, _, image) = settle_after(&player, before);
    assert_grey(left_right(&image).1, grey_b, "B beside the waveform");

    // B one frame later: A's frame K with B's K+1.
    let before = player.key("ctrl+period");
    player.wait_present("the pair again", before, |p| p.new_frame && p.frame == Some(k));
    let (_, at, image) = settle(&player);
    assert_eq!(compared(&player, at).0, Some(k + 1));
    let (_, grey_b) = greys(k, k + 1);
    assert_grey(left_right(&image).1, grey_b, "B's next frame");
}

/// Ten frames of the bundled footage at 320x180 (lossless), and an x264 encode of them.
fn footage_pair() -> (PathBuf, PathBuf) {
    let sample = common::repo_path("media/sample-540p.mp4");
    let reference = common::fixture(
        "window-vmaf-reference.mkv",
        &[
            "-ss",
            "2",
            "-i",
            sample.to_str().unwrap(),
            "-frames:v",
            "10",
            "-an",
            "-vf",
            "scale=320:180,format=yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    let encode = common::fixture(
        "window-vmaf-encode.mkv",
        &["-i", reference.to_str().unwrap(), "-c:v", "libx264", "-crf", "36"],
    );
    (reference, encode)
}

#[test]
fn with_the_timeline_each_pairs_vmaf_is_compares_under_the_model_asked_and_its_row_goes_to_the_worst_frame() {
    let (a, b) = footage_pair();
    // The oracle: `compare --vmaf` (held to libvmaf in tests/compare_vmaf.rs), under the model
    // the window is given (which scores these frames otherwise than the default one).
    let vmaf = |model: &str| -> Vec<f64> {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args([
                "compare",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--vmaf-model",
                model,
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| common::json(l)["vmaf"].as_f64().unwrap())
            .collect()
    };
    let scores = vmaf("vmaf_4k_v0.6.1");
    assert_eq!(scores.len(), 10);
    let default = vmaf("vmaf_v0.6.1");
    assert!((scores[0] - default[0]).abs() > 0.5, "{scores:?} {default:?}");
    let worst = (0..10).min_by(|&i, &j| scores[i].total_cmp(&scores[j])).unwrap() as u64;
    let x = Xvfb::start();
    let args = [
        a.as_os_str(),
        "--compare".as_ref(),
        b.as_os_str(),
        "--timeline".as_ref(),
        "--vmaf-model".as_ref(),
        "vmaf_4k_v0.6.1".as_ref(),
        "--no-audio".as_ref(),
        "--geometry".as_ref(),
        "640x400".as_ref(),
    ];
    let player = Player::start_with(&x, "compare-vmaf", &args);
    player.wait_present("the first frame", 0, |p| p.frame.is_some());
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    // Paused, the run goes flat out; every frame's score lands in the frame log.
    let at = player.key("Home");
    let first = player.wait_present("frame 0's VMAF", at, |p| p.frame == Some(0) && p.vmaf.is_some());
    assert!(
        (first.vmaf.unwrap() - scores[0]).abs() < 5e-7,
        "{:?} against {}",
        first.vmaf,
        scores[0]
    );
    // The last frame's score comes last: the run has ended once it shows.
    let at = player.key("End");
    let last = player.wait_present("frame 9's VMAF", at, |p| p.frame == Some(9) && p.vmaf.is_some());
    assert!((last.vmaf.unwrap() - scores[9]).abs() < 5e-7);
    // The VMAF row is drawn under the timeline.
    let row = player.poll("the VMAF row", || {
        let presents = player.presents();
        let last = presents.last()?;
        last.osd.iter().find(|(name, _)| name == "vmaf").map(|(_, r)| *r)
    });
    let [rx, ry, rw, rh] = row;
    // A click at the worst frame's place in the row goes there, exactly.
    let column = rx + ((worst as f64 + 0.5) / 10.0 * f64::from(rw)) as i32;
    let before = player.presents().len();
    x.xdotool(&[
        "mousemove",
        "--window",
        &player.window,
        &column.to_string(),
        &(ry + rh / 2).to_string(),
    ]);
    x.xdotool(&["click", "1"]);
    let landed = player.wait_present("the worst frame", before, |p| {
        p.frame == Some(worst) && p.vmaf.is_some()
    });
    assert!((landed.vmaf.unwrap() - scores[worst as usize]).abs() < 5e-7);
}
