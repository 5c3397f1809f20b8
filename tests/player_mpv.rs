//! End to end, what mpv users expect of the player: a playlist that moves on with `>` and stops
//! on the last frame of the last file, `l` `l` looping between two points, the `1`–`8` picture
//! keys changing the picture as their CPU twin predicts, auto-levels spreading a low-contrast
//! picture's histogram, and an input.conf that rebinds keys and warns about what it can't read.

mod common;
mod window;

use histoplay::render::adjust::{Adjustments, CpuAdjuster};
use histoplay::render::layout::histogram_quads;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;
use window::{Image, Player, Xvfb};

/// A short flat-colour clip: `frames` frames at 30 fps of RGB `colour` (hex, FFmpeg's syntax).
fn flat_clip(name: &str, colour: &str, frames: u32) -> PathBuf {
    let source = format!("color=c=0x{colour}:s=96x64:r=30,format=yuv420p");
    common::fixture(
        name,
        &[
            "-f",
            "lavfi",
            "-i",
            &source,
            "-frames:v",
            &frames.to_string(),
            "-c:v",
            "libx264",
            "-qp",
            "0",
            "-g",
            "10",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

fn settle(player: &Player) -> Image {
    player.wait_idle(Duration::from_millis(400));
    player.capture()
}

/// The columns of the L quad whose bottom row is a bar (white), as bins.
fn l_bins(image: &Image) -> Vec<u32> {
    let quad = histogram_quads()[1];
    let (x0, _, x1, y1) = quad.to_pixels(image.width, image.height);
    let y = y1 - 2;
    (x0 + 1..x1 - 1)
        .filter(|&x| image.at(x, y) == [255, 255, 255])
        .map(|x| (f64::from(x - x0) / f64::from(x1 - x0) * 256.0) as u32)
        .collect()
}

/// The packed word of an on-screen RGB pixel.
fn word([r, g, b]: [u8; 3]) -> u32 {
    u32::from(r) | u32::from(g) << 8 | u32::from(b) << 16 | 0xff00_0000
}

fn rgb(word: u32) -> [u8; 3] {
    [word as u8, (word >> 8) as u8, (word >> 16) as u8]
}

#[test]
fn the_playlist_moves_on_and_stops_on_the_last_frame_of_the_last_file() {
    let first = common::grey_cycle();
    let second = flat_clip("flat-orange.mp4", "c86432", 12);
    let x = Xvfb::start();
    let player = Player::start_with(&x, "playlist", &[first.as_os_str(), second.as_os_str()]);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(3));
    assert_eq!(
        x.xdotool(&["getwindowname", &player.window]),
        "histoplay — grey-cycle.mp4"
    );
    // `>`: the second file, from its first frame.
    let before = player.key("greater");
    let landed = player.wait_present("the second file", before, |p| p.file == 1 && p.new_frame);
    assert_eq!(landed.frame, Some(0));
    // It plays to its end and stays there, paused on its last frame: the last file.
    let end = player.wait_present("the end of the playlist", before, |p| {
        p.file == 1 && p.paused && p.frame == Some(11)
    });
    assert_eq!(end.frame, Some(11));
    let shot = settle(&player);
    assert!(!player.exited(), "the player stays up at the end of the playlist");
    assert_eq!(
        x.xdotool(&["getwindowname", &player.window]),
        "histoplay — flat-orange.mp4"
    );
    // The picture and its histogram are the second file's: orange, one R bin high up.
    let [r, g, b] = shot.picture();
    assert!(r > 190 && (90..110).contains(&g) && b < 70, "{:?}", [r, g, b]);
    let bins = l_bins(&shot);
    let luma = (2126 * u32::from(r) + 7152 * u32::from(g) + 722 * u32::from(b)) / 10000;
    assert!(
        !bins.is_empty() && bins.iter().all(|&bin| bin.abs_diff(luma) <= 2),
        "L bars at {bins:?}, luma {luma}"
    );
    // `<`: back to the first.
    let before = player.key("less");
    let back = player.wait_present("the first file again", before, |p| p.file == 2 && p.new_frame);
    assert_eq!(back.frame, Some(0));
    assert_eq!(
        x.xdotool(&["getwindowname", &player.window]),
        "histoplay — grey-cycle.mp4"
    );
}

#[test]
fn l_then_l_loops_between_two_points() {
    let clip = common::grey_cycle();
    let x = Xvfb::start();
    let player = Player::start(&x, "ab-loop", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(20));
    // Each point is where playback was when the key was read: the frame log says exactly.
    let frame_at = |seconds: f64| (seconds * 30.0 + 1e-6).floor() as u64;
    let a_at = player.key("l");
    let a = frame_at(player.wait_present("point A", a_at, |p| p.ab.0.is_some()).ab.0.unwrap());
    player.wait_present("a second on", a_at, |p| p.frame >= Some(a + 30));
    let b_at = player.key("l");
    let b = frame_at(player.wait_present("point B", b_at, |p| p.ab.1.is_some()).ab.1.unwrap());
    assert!(b >= a + 29, "A {a}, B {b}");
    // Playback passes B and comes back to A, still playing, twice over.
    let mut after = b_at;
    for lap in 0..2 {
        let back = player.wait_present("the loop back to A", after, |p| {
            p.new_frame && !p.preview && p.frame.is_some_and(|f| f < b && f.abs_diff(a) <= 1)
        });
        assert!(!back.paused, "lap {lap}");
        let index = player.presents().len();
        for p in &player.presents()[after..index] {
            assert!(
                p.frame.is_none_or(|f| f <= b + 2),
                "lap {lap}: frame {:?} is past B {b}",
                p.frame
            );
        }
        player.wait_present("playback towards B", index, |p| p.frame >= Some(a + 10));
        after = player.presents().len();
    }
    // A third `l` clears the loop: playback goes past B.
    let before = player.key("l");
    player.wait_present("the points cleared", before, |p| p.ab == (None, None));
    player.wait_present("past B", before, |p| p.frame > Some(b + 15));
}

#[test]
fn the_picture_keys_change_picture_and_histogram_as_the_cpu_twin_predicts() {
    let clip = flat_clip("flat-orange-long.mp4", "c86432", 90);
    let x = Xvfb::start();
    let player = Player::start(&x, "picture-keys", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(3));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let original = settle(&player).picture();
    let expect = |settings: Adjustments| rgb(CpuAdjuster::new(settings, 8).adjust(&[word(original)])[0]);
    let press = |key: &str, times: u32| {
        let before = player.presents().len();
        x.xdotool(&["key", "--delay", "20", "--repeat", &times.to_string(), key]);
        player.wait_present(key, before, |_| true);
        settle(&player)
    };
    let mut settings = Adjustments::default();
    for (key, times, change) in [
        ("2", 10, (10, 0, 0, 0)),
        ("4", 5, (0, 5, 0, 0)),
        ("5", 20, (0, 0, -20, 0)),
        ("8", 30, (0, 0, 0, 30)),
        ("7", 60, (0, 0, 0, -60)),
        ("1", 25, (-25, 0, 0, 0)),
        ("3", 12, (0, -12, 0, 0)),
        ("6", 50, (0, 0, 50, 0)),
    ] {
        settings.contrast += change.0;
        settings.brightness += change.1;
        settings.gamma += change.2;
        settings.saturation += change.3;
        let shot = press(key, times);
        let predicted = expect(settings);
        assert_eq!(shot.picture(), predicted, "after {times}× {key}: {settings:?}");
        // The L histogram counts the adjusted picture.
        let [r, g, b] = predicted.map(u32::from);
        let luma = (2126 * r + 7152 * g + 722 * b) / 10000;
        let bins = l_bins(&shot);
        assert!(
            !bins.is_empty() && bins.iter().all(|&bin| bin.abs_diff(luma) <= 2),
            "after {key}: L bars at {bins:?}, luma {luma}"
        );
    }
    // Ctrl+Backspace puts everything back.
    let shot = press("ctrl+BackSpace", 1);
    assert_eq!(shot.picture(), original);
}

#[test]
fn auto_levels_spread_a_low_contrast_histogram() {
    let clip = common::low_contrast_clip();
    let x = Xvfb::start();
    let player = Player::start(&x, "auto-levels", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(3));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let spread = |bins: &[u32]| bins.last().unwrap() - bins.first().unwrap();
    let plain = l_bins(&settle(&player));
    assert!(!plain.is_empty() && spread(&plain) <= 60, "low contrast: {plain:?}");
    let before = player.key("a");
    player.wait_present("auto-levels", before, |_| true);
    let levelled = l_bins(&settle(&player));
    assert!(
        spread(&levelled) >= 3 * spread(&plain),
        "auto-levels: {:?} from {:?}",
        (levelled.first(), levelled.last()),
        (plain.first(), plain.last())
    );
    // `a` again: as decoded.
    let before = player.key("a");
    player.wait_present("auto-levels off", before, |_| true);
    let shot = settle(&player);
    assert_eq!(l_bins(&shot), plain);

    // `I` puts the stats overlay up in the top-right corner (a dark panel with text), and
    // takes it down again.
    let corner = |image: &Image| image.region((image.width - 200, 10, image.width - 10, 60));
    let mean = |pixels: &[[u8; 3]]| pixels.iter().map(|p| u32::from(p[1])).sum::<u32>() / pixels.len() as u32;
    let plain_corner = corner(&shot);
    let before = player.key("I");
    // Drawn twice: an area is placed by the size it was drawn at before. (The overlay
    // refreshes its figures a few times a second: the window is never idle.)
    player.poll("the stats drawn", || {
        let presents = player.presents();
        let drawn = presents[before.min(presents.len())..]
            .iter()
            .filter(|p| p.osd.iter().any(|(name, _)| name == "stats"))
            .count();
        (drawn >= 2).then_some(())
    });
    let stats = corner(&player.capture());
    assert!(mean(&stats) + 40 < mean(&plain_corner), "no dark panel in the corner");
    assert!(stats.iter().any(|p| p[1] > 200), "no text on the panel");
    let before = player.key("I");
    player.wait_present("the stats gone", before, |_| true);
    assert_eq!(corner(&settle(&player)), plain_corner);
}

#[test]
fn an_input_conf_rebinds_keys_and_warns_about_bad_lines() {
    let clip = common::grey_cycle();
    let x = Xvfb::start();
    let dir = common::repo_path(&format!("target/player-tests/conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("my-input.conf");
    std::fs::write(
        &conf,
        "# steps on x and z\nx frame-step\nk add sub-delay 0.1\nz frame-back-step # back\nNOKEY quit\n",
    )
    .unwrap();
    let args = [OsStr::new("--input-conf"), conf.as_os_str(), clip.as_os_str()];
    let player = Player::start_with(&x, "input-conf", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(3));
    let stderr = player.stderr();
    let at = conf.display();
    assert!(
        stderr.contains(&format!("warning: {at}, line 3: unknown command 'add sub-delay 0.1'")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("warning: {at}, line 5: unknown key 'NOKEY'")),
        "{stderr}"
    );
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let settled = player.wait_idle(Duration::from_millis(300));
    let frame = player.presents()[settled - 1].frame.unwrap();
    let before = player.key("x");
    let stepped = player.wait_present("x steps", before, |p| p.new_frame);
    assert_eq!(stepped.frame, Some(frame + 1));
    let before = player.key("z");
    let back = player.wait_present("z steps back", before, |p| p.new_frame && !p.preview);
    assert_eq!(back.frame, Some(frame));
    std::fs::remove_dir_all(&dir).ok();
}

/// As mpv does, a file whose picture changes size and sampling mid-stream (320x240 4:2:0 for
/// frames 0–49, 256x144 4:2:2 for 50–99) is shown and counted in each shape, the window
/// taking each: played through, sought and stepped back and forth across the change, with a
/// cache of a few frames (so that seeks decode from a keyframe, a preview of it beside).
/// Every frame the statistics overlay counts is FFmpeg's for that frame, value for value; a
/// seek's keyframe preview is never of another shape than its frame.
#[test]
fn a_file_that_changes_size_mid_stream_is_shown_and_counted_in_each_shape() {
    let [wide, small, joined] = common::reshaped_ts();
    let stats: Vec<_> = [common::ffprobe_stats(&wide), common::ffprobe_stats(&small)].concat();
    assert_eq!(stats.len(), 100);
    let shape_of = |frame: u64| if frame < 50 { (320, 240) } else { (256, 144) };
    let window_of = |frame: u64| if frame < 50 { (640, 480) } else { (640, 360) };

    let x = Xvfb::start();
    let args: Vec<&OsStr> = vec![joined.as_os_str(), "--no-audio".as_ref(), "--cache-size=1MiB".as_ref()];
    let player = Player::start_with(&x, "reshape-file", &args);
    player.wait_present("a frame", 0, |p| p.new_frame);
    player.key("I");
    // Played through to the end, where it stays.
    let end = player.wait_present("the end", 0, |p| p.new_frame && p.paused && p.frame == Some(99));
    assert_eq!(end.picture, (256, 144));
    // Exact seeks and steps across the change, each landing in its frame's shape, the window
    // taking it, the frame counted.
    let land = |key: &str, frame: u64| {
        let before = player.key(key);
        let landed = player.wait_present(key, before, |p| p.new_frame && !p.preview);
        assert_eq!(landed.frame, Some(frame), "{key}");
        assert_eq!(landed.picture, shape_of(frame), "{key}");
        player.wait_present("the window's size", before, |p| p.size == window_of(frame));
        player.wait_present("the frame counted", before, |p| {
            p.signal.as_deref().is_some_and(|s| s.starts_with(&format!("{frame}:")))
        });
    };
    land("shift+Left", 74);
    land("shift+Left", 49);
    land("period", 50);
    land("comma", 49);
    land("shift+Right", 74);
    land("Home", 0);
    land("End", 99);

    let presents = player.presents();
    for present in presents.iter().filter(|p| p.new_frame) {
        let frame = present.frame.unwrap();
        assert_eq!(present.picture, shape_of(frame), "{present:?}");
    }
    // Every frame counted, as FFmpeg counts it in its own shape.
    let names = histoplay::signalstats::NAMES;
    let mut counted = std::collections::BTreeSet::new();
    for present in presents.iter().filter(|p| p.signal.is_some()) {
        let (frame, values) = present.signal.as_deref().unwrap().split_once(':').unwrap();
        let frame: u64 = frame.parse().unwrap();
        let values: Vec<&str> = values.split(',').collect();
        assert_eq!(values.len(), names.len(), "{present:?}");
        for (name, value) in names.iter().zip(&values) {
            if *value != "-" {
                assert_eq!(stats[frame as usize][*name], *value, "frame {frame}, {name}");
            }
        }
        counted.insert(shape_of(frame));
    }
    assert_eq!(counted.len(), 2, "{counted:?}");
    assert!(
        player.stderr().contains("the picture changed mid-stream"),
        "{}",
        player.stderr()
    );
}
