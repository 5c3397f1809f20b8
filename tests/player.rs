//! End to end: the real player binary in a real X server (an Xvfb of each test's own), driven
//! with xdotool, watched through its `--frame-log` and asserted on the pixels of its window.
//! The clip is grey-cycle: frame n is a flat grey of known level, so the picture and the
//! histogram of the frame on screen are known exactly.

mod common;
mod window;

use histoplay::geometry::Rect;
use histoplay::render::layout::histogram_quads;
use std::process::Command;
use std::time::Duration;
use window::{decode_png, Image, Player, Xvfb};

/// The grey grey-cycle frame `frame` shows on screen.
fn grey(frame: u64) -> [u8; 3] {
    [common::limited_grey(common::cycle_luma(frame)); 3]
}

/// Inner pixels of a quad: every one is the darkened picture (backdrop) or the bar, and the bar
/// is one full-height column group at the frame's grey level (a flat frame fills one bin).
fn assert_quad(image: &Image, rect: Rect, level: [u8; 3], bar: [u8; 3], what: &str) {
    let (x0, y0, x1, y1) = rect.to_pixels(image.width, image.height);
    let (x0, y0, x1, y1) = (x0 + 1, y0 + 1, x1 - 1, y1 - 1);
    let backdrop = level.map(|c| c / 2);
    let mut bar_columns = Vec::new();
    for x in x0..x1 {
        let column = image.region((x, y0, x + 1, y1));
        let bars = column.iter().filter(|p| **p == bar).count();
        for p in &column {
            assert!(
                *p == bar || (0..3).all(|c| p[c].abs_diff(backdrop[c]) <= 1),
                "{what}: {p:?} at column {x} is neither the bar {bar:?} nor the backdrop {backdrop:?}"
            );
        }
        if bars == column.len() {
            bar_columns.push(x);
        }
    }
    assert!(!bar_columns.is_empty(), "{what}: no full-height bar");
    let width = f64::from(x1 - x0 + 2);
    for x in &bar_columns {
        let bin = (f64::from(x - x0 + 1) + 0.5) / width * 256.0;
        assert!(
            (bin - f64::from(level[0])).abs() <= 2.0,
            "{what}: bar at bin {bin:.1}, level {}",
            level[0]
        );
    }
}

/// The picture (no quad) inside a quad's rectangle: the quads are hidden.
fn assert_no_quad(image: &Image, rect: Rect, level: [u8; 3], what: &str) {
    let pixels = image.region(rect.to_pixels(image.width, image.height));
    assert!(
        pixels.iter().all(|p| *p == level),
        "{what}: something is drawn over the picture"
    );
}

const RGB_BAR: [u8; 3] = [217, 217, 217];
/// The seek bar's played part (osd.rs).
const SEEK_BAR_PLAYED: [u8; 3] = [90, 160, 255];
const L_BAR: [u8; 3] = [255, 255, 255];

#[test]
fn keys_drive_playback_and_the_window_shows_the_frame_and_its_histogram() {
    let clip = common::grey_cycle();
    let x = Xvfb::start();
    let mut player = Player::start(&x, "keys", Some(&clip));
    assert_eq!(
        x.xdotool(&["getwindowname", &player.window]),
        "histoplay — grey-cycle.mp4"
    );
    player.wait_present("playback", 0, |p| p.new_frame && !p.paused && p.frame >= Some(5));
    let (frame, shot) = space_pauses_and_the_paused_window_sleeps(&player);
    steps_go_one_frame_each_way(&player, frame, &shot);
    h_cycles_the_histogram_quads(&player, grey(frame));
    exact_seeks_land_on_their_frame(&player, frame);
    s_saves_what_is_on_screen(&player);
    the_seek_bar_and_the_wheel_seek(&x, &player);
    the_window_resizes_and_contain_letterboxes(&x, &player);
    playing_the_osd_fades_and_the_window_may_hide(&x, &player);
    // `q` quits cleanly.
    player.key("q");
    let status = player.wait_exit();
    assert!(status.success(), "q exits with {status}");
}

/// Space pauses; then nothing is drawn at all, and the picture is the paused frame's. Returns
/// the frame and the window's pixels.
fn space_pauses_and_the_paused_window_sleeps(player: &Player) -> (u64, Image) {
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let idle = player.wait_idle(Duration::from_millis(700));
    let paused = player.presents()[idle - 1].clone();
    let frame = paused.frame.unwrap();
    // Idle means asleep: for a second with nothing to do the event loop does not wake at all
    // (one woke every 3 ms while a readback was in flight).
    let wakes = player.wakes();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(player.presents().len(), idle, "presents while paused and untouched");
    assert_eq!(player.wakes(), wakes, "the event loop woke while paused and untouched");
    let shot = player.capture();
    assert_eq!((shot.width, shot.height), (640, 480), "64x48 opens at 640x480");
    assert_eq!(shot.picture(), grey(frame), "paused on frame {frame}");
    let [rgb, l] = histogram_quads();
    assert_quad(&shot, rgb, grey(frame), RGB_BAR, "RGB quad");
    assert_quad(&shot, l, grey(frame), L_BAR, "L quad");
    // The OSD is up while paused, just above the quads.
    let osd = shot.region((20, 480 * 3 / 4 - 40, 620, 480 * 3 / 4 - 10));
    assert!(
        osd.iter().any(|p| *p != grey(frame)),
        "no OSD over the picture while paused"
    );
    // (A duration, not a wait: the paused picture must stay the same over it.)
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(player.capture().rgba, shot.rgba, "the paused picture changed");
    (frame, shot)
}

/// `.` steps forward: the next frame, picture and histogram together, still paused; `,` steps
/// back to the very same pixels.
fn steps_go_one_frame_each_way(player: &Player, frame: u64, shot: &Image) {
    let [rgb, _] = histogram_quads();
    let before = player.key("period");
    let step = player.wait_present("a step", before, |p| p.new_frame);
    assert_eq!((step.frame, step.paused), (Some(frame + 1), true));
    let stepped = player.capture();
    assert_eq!(stepped.picture(), grey(frame + 1));
    assert_quad(&stepped, rgb, grey(frame + 1), RGB_BAR, "RGB quad after a step");
    // `,` steps back: the very same pixels as before the step.
    let before = player.key("comma");
    let back = player.wait_present("a step back", before, |p| p.new_frame);
    assert_eq!(back.frame, Some(frame));
    player.wait_idle(Duration::from_millis(300));
    let again = player.capture();
    for area in [(0, 0, 640, 240), (0, 360, 640, 480)] {
        assert_eq!(
            again.region(area),
            shot.region(area),
            "stepping back did not restore the frame"
        );
    }
}

/// `h` cycles the quads: RGB only, L only, none, both.
fn h_cycles_the_histogram_quads(player: &Player, level: [u8; 3]) {
    let [rgb, l] = histogram_quads();
    let capture_after_h = || {
        let before = player.key("h");
        player.wait_present("a redraw", before, |_| true);
        player.wait_idle(Duration::from_millis(300));
        player.capture()
    };
    let only_rgb = capture_after_h();
    assert_quad(&only_rgb, rgb, level, RGB_BAR, "RGB quad alone");
    assert_no_quad(&only_rgb, l, level, "L quad hidden");
    let only_l = capture_after_h();
    assert_no_quad(&only_l, rgb, level, "RGB quad hidden");
    assert_quad(&only_l, l, level, L_BAR, "L quad alone");
    let none = capture_after_h();
    assert_no_quad(&none, rgb, level, "no quads");
    assert_no_quad(&none, l, level, "no quads");
    let both = capture_after_h();
    assert_quad(&both, rgb, level, RGB_BAR, "both again");
    assert_quad(&both, l, level, L_BAR, "both again");
}

/// Exact seeks land on their frame, perhaps after showing the keyframe they decode from (GOPs
/// are 30 frames); the picture follows.
fn seek(player: &Player, key: &str, expect: u64) {
    let before = player.key(key);
    let p = player.wait_present(key, before, |p| p.new_frame && !p.preview);
    for shown in player.presents()[before..].iter().filter(|p| p.preview) {
        let keyframe = shown.frame.unwrap();
        assert!(
            keyframe <= expect && keyframe % 30 == 0,
            "{key}: preview of frame {keyframe}"
        );
    }
    assert_eq!(p.frame, Some(expect), "{key}");
    assert!(p.paused, "a seek keeps the pause");
    player.wait_idle(Duration::from_millis(200));
    assert_eq!(player.capture().picture(), grey(expect), "picture after {key}");
}

/// The keys' exact seeks from the paused `frame`: Shift+Right, End, Left, Shift+Left, Home,
/// Right.
fn exact_seeks_land_on_their_frame(player: &Player, frame: u64) {
    seek(player, "shift+Right", frame + 30);
    seek(player, "End", common::CYCLE_FRAMES - 1);
    seek(player, "Left", common::CYCLE_FRAMES - 1 - 150);
    seek(player, "shift+Left", common::CYCLE_FRAMES - 1 - 180);
    seek(player, "Home", 0);
    seek(player, "Right", 150);
}

/// `s` writes what is on screen, named after the file, position and frame.
fn s_saves_what_is_on_screen(player: &Player) {
    let [rgb, l] = histogram_quads();
    let before = player.key("s");
    player.wait_present("the screenshot frame", before, |_| true);
    let png = player.dir.join("grey-cycle-00m05.000s-f150.png");
    player.poll("the screenshot", || png.exists().then_some(()));
    let saved = player.poll("a complete PNG", || {
        std::fs::read(&png)
            .ok()
            .and_then(|b| image::load_from_memory(&b).is_ok().then(|| decode_png(&b)))
    });
    assert_eq!((saved.width, saved.height), (640, 480));
    assert_eq!(saved.picture(), grey(150));
    assert_quad(&saved, rgb, grey(150), RGB_BAR, "screenshot's RGB quad");
    assert_quad(&saved, l, grey(150), L_BAR, "screenshot's L quad");
}

/// The seek bar, found by its played part (opaque blue): a click seeks exactly there (frame 318
/// is no keyframe: GOPs are 30), a drag seeks as it goes and exactly where it ends; the tilted wheel
/// seeks 5 s exactly.
fn the_seek_bar_and_the_wheel_seek(x: &Xvfb, player: &Player) {
    let bar = player.capture();
    let played: Vec<(u32, u32)> = (0..bar.height)
        .flat_map(|y| (0..bar.width).map(move |x| (x, y)))
        .filter(|&(x, y)| bar.at(x, y) == SEEK_BAR_PLAYED)
        .collect();
    assert!(!played.is_empty(), "no seek bar in the OSD");
    let y = played[played.len() / 2].1;
    let left = played.iter().map(|p| p.0).min().unwrap();
    let at = |share: f64| {
        (left as f64 + share * f64::from(bar.width - 2 * left))
            .round()
            .to_string()
    };
    let mouse = |args: &[&str]| x.xdotool(&[&["mousemove", "--window", &player.window][..], args].concat());
    let before = player.presents().len();
    mouse(&[&at(0.53), &y.to_string(), "click", "1"]);
    // The press may show a keyframe first (a fast seek); the release lands exactly.
    player.wait_present("a click on the seek bar", before, |p| p.new_frame);
    let settled = player.wait_idle(Duration::from_millis(300));
    let frame = player.presents()[settled - 1].frame.unwrap();
    assert!(frame.abs_diff(318) <= 3, "a click at 53% landed on frame {frame}");
    let before = player.presents().len();
    mouse(&[&at(0.2), &y.to_string(), "mousedown", "1"]);
    // (The sleeps are the drag's pace, as a hand moves: durations, not waits.)
    for share in [0.3, 0.4, 0.5, 0.6, 0.7, 0.77] {
        std::thread::sleep(Duration::from_millis(150));
        mouse(&[&at(share), &y.to_string()]);
    }
    // A hand rests on the last position before letting go: by then the drag's seeks are shown.
    std::thread::sleep(Duration::from_millis(150));
    player.wait_present("a keyframe seek while dragging", before, |p| {
        p.new_frame && p.frame.is_some_and(|f| f % 30 == 0 && f > 60)
    });
    let during = player.presents().len();
    x.xdotool(&["mouseup", "1"]);
    let dropped = player.wait_present("the end of a drag", during, |p| {
        p.new_frame && !p.preview && p.frame.is_some_and(|f| f.abs_diff(462) <= 3)
    });
    assert!(dropped.paused);
    let dragging = &player.presents()[before..during];
    assert!(
        dragging
            .iter()
            .any(|p| p.new_frame && p.frame.is_some_and(|f| f % 30 == 0 && f > 60)),
        "no keyframe seeks while dragging: {dragging:?}"
    );
    // The horizontal wheel seeks 10 s, exactly (the vertical one is the volume's, as in mpv).
    let wheel = |button: &str, expect: u64| {
        let before = player.presents().len();
        x.xdotool(&["click", button]);
        let p = player.wait_present("a wheel seek", before, |p| p.new_frame && !p.preview);
        assert_eq!(p.frame, Some(expect), "wheel button {button}");
    };
    let here = dropped.frame.unwrap();
    wheel("6", here - 300);
    wheel("7", here);
    seek(player, "Home", 0);
    seek(player, "Right", 150);
}

/// The surface follows a resize and the quads are laid out for the new size; `c` contains the
/// 4:3 picture with black bars at the sides, cover fills.
fn the_window_resizes_and_contain_letterboxes(x: &Xvfb, player: &Player) {
    let [rgb, _] = histogram_quads();
    x.xdotool(&["windowsize", &player.window, "800", "450"]);
    let resized = player.wait_present("a frame at 800x450", 0, |p| p.size == (800, 450));
    assert!(resized.paused);
    player.wait_idle(Duration::from_millis(300));
    let wide = player.capture();
    assert_eq!((wide.width, wide.height), (800, 450));
    assert_quad(&wide, rgb, grey(150), RGB_BAR, "RGB quad at 800x450");
    // `c`: contain shows the 4:3 picture with black bars at the sides; cover fills.
    assert_eq!(wide.at(4, 100), grey(150), "cover fills the window");
    let before = player.key("c");
    player.wait_present("contain", before, |_| true);
    player.wait_idle(Duration::from_millis(300));
    let contained = player.capture();
    assert_eq!(contained.at(4, 100), [0, 0, 0], "contain letterboxes");
    assert_eq!(contained.at(400, 100), grey(150));
}

/// Playing, the OSD fades when untouched and frames advance at the clip's pace; minimizing and
/// unmapping the window don't stop the player, which draws again when back; `f` and Escape go
/// fullscreen and back (without a window manager nothing visible changes).
fn playing_the_osd_fades_and_the_window_may_hide(x: &Xvfb, player: &Player) {
    let before = player.key("space");
    let resumed = player.wait_present("playing again", before, |p| p.new_frame && !p.paused);
    let faded = player.poll("the OSD to fade", || {
        let shot = player.capture();
        // Inside the contained picture (it spans x = 100..700).
        let osd = shot.region((120, 450 * 3 / 4 - 40, 680, 450 * 3 / 4 - 10));
        osd.iter().all(|p| *p == shot.at(400, 100)).then_some(shot)
    });
    assert_eq!((faded.width, faded.height), (800, 450));
    let later = player.presents().last().cloned().unwrap();
    assert!(later.frame > resumed.frame && !later.paused);

    // Minimizing and unmapping the window don't stop the player; it draws again when back.
    x.xdotool(&["windowminimize", &player.window]);
    x.xdotool(&["windowunmap", &player.window]);
    // (A duration, not a wait: half a second unmapped, which the player lives through.)
    std::thread::sleep(Duration::from_millis(500));
    assert!(!player.exited(), "the player died while unmapped");
    x.xdotool(&["windowmap", &player.window]);
    x.xdotool(&["windowfocus", "--sync", &player.window]);
    let count = player.presents().len();
    player.wait_present("frames after the window came back", count, |p| p.new_frame);
    // `f` and Escape: fullscreen and back (without a window manager nothing visible changes).
    player.key("f");
    player.key("Escape");
}

#[test]
fn with_no_file_it_plays_the_bundled_sample() {
    let x = Xvfb::start();
    let mut player = Player::start(&x, "default", None);
    assert_eq!(
        x.xdotool(&["getwindowname", &player.window]),
        "histoplay — sample-540p.mp4"
    );
    let first = player.wait_present("the first frame", 0, |p| p.new_frame);
    assert_eq!((first.frame, first.generation, first.size), (Some(0), 0, (960, 540)));
    player.key("q");
    assert!(player.wait_exit().success());
}

fn histoplay(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
    command.args(args).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn one_line_error(out: &std::process::Output) -> String {
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn without_a_display_it_says_so_in_one_line() {
    let clip = common::grey_cycle();
    let clip = clip.to_str().unwrap();
    let expected = "error: no display to open a window on; use `histoplay hist` or `histoplay render` for \
                    headless work\n";
    assert_eq!(one_line_error(&histoplay(&[clip], &[])), expected);
    // A display that isn't there is no display either.
    assert_eq!(one_line_error(&histoplay(&[clip], &[("DISPLAY", ":4077")])), expected);
}

#[test]
fn a_file_that_cannot_be_played_fails_before_any_window() {
    let missing = one_line_error(&histoplay(&["no-such-video.mp4"], &[("DISPLAY", ":4077")]));
    assert!(missing.contains("no-such-video.mp4"), "{missing}");
    let readme = common::repo_path("README.md");
    let not_video = one_line_error(&histoplay(&[readme.to_str().unwrap()], &[("DISPLAY", ":4077")]));
    assert!(not_video.contains("README.md"), "{not_video}");
}

/// Resizing while frames play: the surface is configured again each time while the upload
/// thread submits each frame's copy (wgpu refuses a configuration when that happens during its
/// wait for the GPU, rarely; the player then tries again), and playback goes on at the new size.
#[test]
fn resizing_while_playing_goes_on_playing() {
    let clip = common::grey_cycle();
    let x = Xvfb::start();
    let mut player = Player::start(&x, "resize", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && !p.paused && p.frame >= Some(5));
    for i in 0..30 {
        let (width, height) = if i % 2 == 0 { ("720", "400") } else { ("800", "450") };
        x.xdotool(&["windowsize", &player.window, width, height]);
    }
    let after = player.presents().len();
    let last = player.wait_present("frames at the last size", after, |p| {
        p.size == (800, 450) && p.new_frame && !p.paused
    });
    player.wait_present("frames after that", after, |p| p.new_frame && p.frame > last.frame);
    player.key("q");
    let status = player.wait_exit();
    assert!(status.success(), "q exits with {status}");
}

#[test]
fn sigterm_and_sigint_quit_as_q_does_even_mid_seek() {
    // A long clip, so that a fill of the timeline and an exact seek are both under way when the
    // signal comes; the player ends at once, cleanly, as `q` would.
    let x = Xvfb::start();
    let clip = common::repo_path("media/sample-540p.mp4");
    for signal in ["TERM", "INT"] {
        let mut player = Player::start(&x, &format!("signal-{signal}"), Some(&clip));
        player.wait_present("a frame", 0, |p| p.frame.is_some());
        // The timeline fills in the background, and End lands exactly on the last frame,
        // decoding its GOP from the keyframe.
        player.key("Tab");
        player.key("End");
        player.signal(signal);
        let asked = std::time::Instant::now();
        let status = player.wait_exit();
        let took = asked.elapsed();
        assert!(
            status.success(),
            "SIG{signal}: {status:?}; stderr:\n{}",
            player.stderr()
        );
        assert!(took < Duration::from_secs(3), "SIG{signal}: took {took:?} to quit");
    }
}
