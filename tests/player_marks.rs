//! End to end, in the player window: each mark's key draws it on the picture and takes it off
//! again. The clip is three vertical bands whose marks are known exactly: black (Y' 16), white
//! (Y' 235) and a super-white beyond the broadcast range (Y' 250, shown as white). The
//! waveform's graticule keys; the stats overlay's signal statistics, FFmpeg's for the frame
//! on screen; the picture through a LUT, Ctrl+l turning it off and on; and the video read as
//! camera log (Alt+i), the picture and false colour following.

mod common;
mod window;

use histoplay::signalstats::NAMES;
use std::path::PathBuf;
use std::time::Duration;
use window::{Image, Player, Xvfb};

/// 320x240 at 10 fps, 3 s, lossless, grey: Y' as `luma` (an FFmpeg `geq` expression of X).
fn greys(name: &str, luma: &str) -> PathBuf {
    let source = format!("color=c=black:s=320x240:r=10:d=3,format=yuv420p,geq=lum='{luma}':cb=128:cr=128");
    common::fixture(
        name,
        &[
            "-f", "lavfi", "-i", &source, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
        ],
    )
}

/// Bands of Y' 16, 235 and 250, from x 0, 100 and 200.
fn bands() -> PathBuf {
    greys("marks-bands.mp4", "if(lt(X,100),16,if(lt(X,200),235,250))")
}

/// Row `y` of the picture, in screen pixels (the window shows the clip at twice its size): 96 pixels (12 zebra stripes) inside band `band`.
fn band_row(image: &Image, band: u32, y: u32) -> Vec<[u8; 3]> {
    let from = 2 * (100 * band + 26);
    (from..from + 96).map(|x| image.at(x, y)).collect()
}

fn count(pixels: &[[u8; 3]], colour: [u8; 3]) -> usize {
    pixels.iter().filter(|&&p| p == colour).count()
}

/// A row of the picture clear of the notes at the top (the marks' legend) and of the OSD at
/// the bottom (shown while paused).
const ROW: u32 = 220;
const BLACK: [u8; 3] = [0, 0, 0];
const WHITE: [u8; 3] = [255, 255, 255];

#[test]
fn each_mark_key_draws_its_mark_on_the_picture_and_takes_it_off() {
    let clip = bands();
    let x = Xvfb::start();
    let player = Player::start(&x, "marks", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    player.wait_idle(Duration::from_millis(300));
    let plain = player.capture();
    assert_eq!((plain.width, plain.height), (640, 480));
    for y in [ROW, ROW + 1] {
        assert_eq!(count(&band_row(&plain, 0, y), BLACK), 96, "black band");
        assert_eq!(count(&band_row(&plain, 1, y), WHITE), 96, "white band");
        assert_eq!(count(&band_row(&plain, 2, y), WHITE), 96, "super-white band, clipped");
    }

    let toggle = |key: &str, marks: &str| {
        let before = player.key(key);
        player.wait_present(&format!("marks={marks}"), before, |p| p.marks == marks);
        player.wait_idle(Duration::from_millis(300));
        player.capture()
    };

    // False colour: ARRI's purple below 2.5%, red from 99%.
    let shot = toggle("Y", "false-colour");
    assert_eq!(count(&band_row(&shot, 0, ROW), [128, 0, 255]), 96);
    assert_eq!(count(&band_row(&shot, 1, ROW), [255, 0, 0]), 96);
    assert_eq!(count(&band_row(&shot, 2, ROW), [255, 0, 0]), 96);
    toggle("Y", "");

    // Zebras: black stripes 4 of every 8 pixels along a row over the white bands, none over
    // black.
    let shot = toggle("X", "zebra");
    for band in [1, 2] {
        let row = band_row(&shot, band, ROW);
        assert_eq!(count(&row, BLACK), 48, "band {band}: half striped");
        assert_eq!(count(&row, WHITE), 48);
    }
    assert_eq!(band_row(&shot, 0, ROW), band_row(&plain, 0, ROW));
    toggle("X", "");

    // Broadcast range: the super-white band (Y' 250 > 235) in a yellow checker, the others
    // clean.
    let shot = toggle("N", "range");
    assert_eq!(count(&band_row(&shot, 2, ROW), [255, 255, 0]), 48);
    assert_eq!(band_row(&shot, 1, ROW), band_row(&plain, 1, ROW));
    assert_eq!(band_row(&shot, 0, ROW), band_row(&plain, 0, ROW));
    toggle("N", "");

    // Peaking: the edge between black and white in red, the flat bands clean.
    let shot = toggle("U", "peaking");
    let edge: Vec<[u8; 3]> = (194..206).map(|x| shot.at(x, ROW)).collect();
    assert!(count(&edge, [255, 26, 26]) >= 4, "{edge:?}");
    assert_eq!(band_row(&shot, 0, ROW), band_row(&plain, 0, ROW));
    assert_eq!(band_row(&shot, 1, ROW), band_row(&plain, 1, ROW));
    // Gamut on too: a BT.709 source has nothing outside BT.709.
    let both = toggle("D", "peaking,gamut");
    assert_eq!(band_row(&both, 1, ROW), band_row(&plain, 1, ROW));
    let shot = toggle("U", "gamut");
    assert_eq!(band_row(&shot, 1, ROW), band_row(&plain, 1, ROW));
    toggle("D", "");
    let after = player.capture();
    for band in 0..3 {
        for y in ROW..ROW + 8 {
            assert!(
                band_row(&after, band, y) == band_row(&plain, band, y),
                "every mark off: band {band} as it was"
            );
        }
    }
}

#[test]
fn marks_while_comparing_are_those_of_the_picture_shown() {
    // The bands compared with a black clip, wiped at the middle (window x 320): A's white
    // band left of the line in false colour's red, B's black right of it in its purple.
    let clip = bands();
    let black = common::black_240p();
    let x = Xvfb::start();
    let args = [
        clip.as_os_str(),
        "--compare".as_ref(),
        black.as_os_str(),
        "--no-audio".as_ref(),
    ];
    let player = Player::start_with(&x, "marks-compare", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    player.wait_idle(Duration::from_millis(300));
    let plain = player.capture();
    assert_eq!(count(&band_row(&plain, 2, ROW), BLACK), 96, "B's black");
    let before = player.key("Y");
    player.wait_present("marks=false-colour", before, |p| p.marks == "false-colour");
    player.wait_idle(Duration::from_millis(300));
    let shot = player.capture();
    // Band 1 spans window x 252..348: A's white up to the line (drawn on x 320), B's black
    // after it.
    let row = band_row(&shot, 1, ROW);
    assert_eq!(count(&row[..66], [255, 0, 0]), 66, "A's white");
    assert_eq!(count(&row[70..], [128, 0, 255]), 26, "B's black");
    assert_eq!(count(&band_row(&shot, 2, ROW), [128, 0, 255]), 96, "B's black");
    assert_eq!(count(&band_row(&shot, 0, ROW), [128, 0, 255]), 96, "A's black");
}

/// The mean of the red channel along row `y` of `rect` (x0, y0, x1, y1), 4 pixels in from
/// its sides.
fn row_level(image: &Image, (x0, _, x1, _): (u32, u32, u32, u32), y: u32) -> f64 {
    let xs = x0 + 4..x1 - 4;
    let n = xs.len() as f64;
    xs.map(|x| f64::from(image.at(x, y)[0])).sum::<f64>() / n
}

/// Whether the waveform has a graticule line at `at` (0 black, 1 white): its row (within one
/// pixel) stands out from the rows four pixels off it.
fn line_at(image: &Image, rect: (u32, u32, u32, u32), at: f64) -> bool {
    let y = rect.3 as f64 - at * f64::from(rect.3 - rect.1);
    let y = y.round() as u32;
    let on = (y - 1..=y + 1).map(|r| row_level(image, rect, r)).fold(0.0, f64::max);
    let off = row_level(image, rect, y - 4).max(row_level(image, rect, y + 4));
    on > off + 60.0
}

#[test]
fn the_waveform_graticule_key_steps_from_percent_to_code_values_and_chosen_levels_stay() {
    let clip = bands();
    let x = Xvfb::start();
    let args = [clip.as_os_str(), "--graticule".as_ref(), "60%".as_ref()];
    let player = Player::start_with(&x, "graticule", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let before = player.key("H");
    player.wait_present("the waveform", before, |_| true);
    player.wait_idle(Duration::from_millis(400));
    let percent = player.capture();
    let rect = histoplay::render::layout::band_layout(
        Some(histoplay::scope::ScopeKind::Waveform),
        (percent.width, percent.height),
    )
    .scope
    .unwrap()
    .to_pixels(percent.width, percent.height);
    // Percent: lines at 25, 50 and 75%; the chosen 60% in amber.
    for at in [0.25, 0.5, 0.75, 0.6] {
        assert!(line_at(&percent, rect, at), "percent: a line at {at}");
    }
    assert!(!line_at(&percent, rect, 0.38), "percent: no line at 38%");
    let before = player.key("M");
    player.wait_present("code values", before, |_| true);
    player.wait_idle(Duration::from_millis(400));
    let codes = player.capture();
    // Code values of 8-bit limited-range video: 64, 128 and 192 of 16..235.
    for code in [64.0, 128.0, 192.0] {
        assert!(line_at(&codes, rect, (code - 16.0) / 219.0), "codes: a line at {code}");
    }
    assert!(!line_at(&codes, rect, 0.25), "codes: 25% is gone");
    assert!(line_at(&codes, rect, 0.6), "the chosen level stays");
}

/// The signal statistics of a present: their frame, and each value (None for the differences
/// where there was no frame before).
fn signal_values(present: &window::Present) -> Option<(usize, Vec<Option<String>>)> {
    let (frame, values) = present.signal.as_deref()?.split_once(':')?;
    let values = values.split(',').map(|v| (v != "-").then(|| v.to_string())).collect();
    Some((frame.parse().ok()?, values))
}

#[test]
fn the_stats_overlay_shows_ffmpegs_signalstats_of_the_frame_on_screen() {
    // 10-bit 4:2:0 with noise that changes every frame: every statistic moves.
    let source = "testsrc2=s=160x120:r=10:d=8,noise=alls=40:allf=t,format=yuv420p10le";
    let clip = common::fixture("signal-10bit.mkv", &["-f", "lavfi", "-i", source, "-c:v", "ffv1"]);
    let expected = common::ffprobe_stats(&clip);
    let x = Xvfb::start();
    let player = Player::start(&x, "signal", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(1));
    assert!(
        player.presents().iter().all(|p| p.signal.is_none()),
        "no statistics before the overlay"
    );

    // Playing with the overlay up: frames counted one after another have their differences.
    let before = player.key("I");
    let following = |p: &window::Present| signal_values(p).is_some_and(|(_, v)| v.iter().all(Option::is_some));
    player.wait_present("statistics with differences", before, following);
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    // The frame the pause keeps: the one a redraw after it shows. (The overlay keeps redrawing
    // with fresh figures: the window never idles while it is up.)
    let after = player.presents().len();
    let redrawn = player.wait_present("a redraw of the paused frame", after, |p| p.paused && !p.new_frame);
    let shown = redrawn.frame.unwrap() as usize;
    player.wait_present("the paused frame's statistics", 0, |p| {
        signal_values(p).is_some_and(|(frame, _)| frame == shown)
    });

    // A step back: the frame before has no frame counted before it; a step on again does.
    let before = player.key("comma");
    let back = player.wait_present("the step back's statistics", before, |p| {
        signal_values(p).is_some_and(|(frame, _)| frame + 1 == shown)
    });
    let (_, values) = signal_values(&back).unwrap();
    assert_eq!(values[22..25], [None, None, None], "no differences after a step back");
    let before = player.key("period");
    let on = player.wait_present("the step on's statistics", before, |p| {
        signal_values(p).is_some_and(|(frame, _)| frame == shown)
    });
    assert!(signal_values(&on).unwrap().1.iter().all(Option::is_some));

    // Every value the window showed is FFmpeg's for that frame, as ffprobe prints it.
    let mut checked = 0;
    for (frame, values) in player.presents().iter().filter_map(signal_values) {
        assert_eq!(values.len(), NAMES.len());
        for (name, value) in NAMES.iter().zip(&values) {
            if let Some(value) = value {
                assert_eq!(value, &expected[frame][*name], "frame {frame}: {name}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 3);
    assert_ne!(expected[shown]["YDIF"], "0", "the differences are not trivially zero");

    // The overlay down: nothing more is counted.
    let before = player.key("I");
    player.wait_present("the overlay down", before, |p| p.signal.is_none());

    // A step with the overlay down goes uncounted; the overlay up again over that paused frame
    // has it decoded again and counted, without a frame before.
    let before = player.key("period");
    player.wait_present("the step", before, |p| p.frame == Some(shown as u64 + 1));
    let before = player.key("I");
    let again = player.wait_present("the paused frame counted", before, |p| p.signal.is_some());
    let (frame, values) = signal_values(&again).unwrap();
    assert_eq!(frame, shown + 1);
    assert_eq!(values[22..25], [None, None, None]);
    assert_eq!(values[2].as_deref(), Some(expected[shown + 1]["YAVG"].as_str()));
}

#[test]
fn the_picture_shows_through_the_lut_and_ctrl_l_turns_it_off_and_on() {
    let clip = bands();
    let dir = common::repo_path(&format!("target/player-tests/lut-cube-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // An inverting 2³ cube: black shows white and white black.
    let lut = dir.join("invert.cube");
    let mut text = String::from("LUT_3D_SIZE 2\n");
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                text.push_str(&format!("{} {} {}\n", 1 - r, 1 - g, 1 - b));
            }
        }
    }
    std::fs::write(&lut, text).unwrap();
    let x = Xvfb::start();
    let args = [clip.as_os_str(), "--lut".as_ref(), lut.as_os_str()];
    let player = Player::start_with(&x, "lut", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    player.wait_idle(Duration::from_millis(300));
    let looked = player.capture();
    assert_eq!(count(&band_row(&looked, 0, ROW), WHITE), 96, "black through the LUT");
    assert_eq!(count(&band_row(&looked, 1, ROW), BLACK), 96, "white through the LUT");
    let toggle = || {
        player.key("ctrl+l");
        player.wait_idle(Duration::from_millis(400));
        player.capture()
    };
    let plain = toggle();
    assert_eq!(count(&band_row(&plain, 0, ROW), BLACK), 96, "as decoded");
    assert_eq!(count(&band_row(&plain, 1, ROW), WHITE), 96, "as decoded");
    let again = toggle();
    assert_eq!(band_row(&again, 0, ROW), band_row(&looked, 0, ROW));
    assert_eq!(band_row(&again, 1, ROW), band_row(&looked, 1, ROW));
    let _ = std::fs::remove_dir_all(&dir);
}

/// S-Log3 at 1.8 stops over 18% grey (Y' 135, signal code 139 of 255) left of x 160, at 18%
/// grey (Y' 106, code 105; 420 of 1023) right of it.
fn slog3_greys() -> PathBuf {
    greys("slog3-greys.mp4", "if(lt(X,160),135,106)")
}

/// The colours of row `y` of the picture across 80 source pixels of the left (0) or right (1)
/// band, in screen pixels (the window shows the clip at twice its size).
fn half_row(image: &Image, half: u32, y: u32) -> Vec<[u8; 3]> {
    let from = 2 * (160 * half + 40);
    (from..from + 160).map(|x| image.at(x, y)).collect()
}

#[test]
fn alt_i_reads_the_video_as_camera_log_the_picture_and_false_colour_follow() {
    let clip = slog3_greys();
    let x = Xvfb::start();
    let player = Player::start_with(&x, "input-colour", &[clip.as_os_str()]);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    player.wait_idle(Duration::from_millis(300));
    let grey_level = |image: &Image, half: u32| {
        let row = half_row(image, half, ROW);
        assert!(row.iter().all(|p| p[0] == p[1] && p[1] == p[2]), "{:?}", &row[..4]);
        row.iter().map(|p| f64::from(p[1])).sum::<f64>() / row.len() as f64
    };
    // As video: the signal as it is, Y' 135 of 16–235 is 54% (138 of 255).
    let video = player.capture();
    let plain = grey_level(&video, 0);
    assert!((plain - 138.0).abs() <= 1.5, "{plain}");
    let step = |key: &str| {
        player.key(key);
        player.wait_idle(Duration::from_millis(400));
        player.capture()
    };
    // Alt+i: S-Log3, shown through its rendering (colour::log::display): 1.8 stops over grey
    // at 189 of 255, grey where Rec.709 puts it (0.409; here code 105 of 255, as 105 decodes a
    // hair over 18%).
    let log = step("alt+i");
    let over = grey_level(&log, 0);
    let grey = grey_level(&log, 1);
    assert!((over - 189.0).abs() <= 1.5, "+1.8 stops shown at {over}");
    assert!((grey - 105.0).abs() <= 1.5, "grey shown at {grey}");
    // False colour is in stops now: +2 (1.5 to 2.5) yellow, 0 green.
    let marked = step("Y");
    assert_eq!(count(&half_row(&marked, 0, ROW), [255, 255, 0]), 160, "+2 stops");
    assert_eq!(count(&half_row(&marked, 1, ROW), [0, 192, 0]), 160, "18% grey");
}
