//! End to end, in the player window: the audio meters (`--meters`, Alt+m) read the sound's own
//! channels as it plays, with no sound device at all: each channel's peak, RMS, held peak and
//! true peak, its clip lamp, and the loudness as FFmpeg's `ebur128` measures it; a seek starts
//! the short readings over; the bars are drawn where the readings say.

mod common;
mod window;

use std::path::PathBuf;
use window::{Image, Player, Present, Xvfb};

/// 8 s, 320x240 at 10 fps; stereo 16-bit sound at 48 kHz: the left channel a 1 kHz sine at
/// -20 dBFS throughout, the right one at -6 dBFS for 5 s, then a 500 Hz square wave at full
/// scale (clipping).
fn sines() -> PathBuf {
    let sound = "aevalsrc=0.1*sin(2*PI*1000*t)|if(lt(t\\,5)\\,0.5011872*sin(2*PI*1000*t)\\,if(lt(mod(t*500\\,1)\\,0.5)\\,1\\,-1)):s=48000:d=8";
    common::fixture(
        "meters-sines.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x240:r=10:d=8",
            "-f",
            "lavfi",
            "-i",
            sound,
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "pcm_s16le",
            "-shortest",
        ],
    )
}

/// A present's meter readings by name: `FL` -> [peak, rms, hold, true peak, clipped], and the
/// loudness (`M`, `S`, `I`, `LRA`, `TP`) as one value; `t` the time they are of.
fn readings(present: &Present) -> std::collections::HashMap<String, Vec<Option<f64>>> {
    let field = present.meters.as_deref().expect("meters in the frame log");
    field
        .split(';')
        .filter_map(|part| {
            let (name, values) = part.split_once(':')?;
            Some((name.to_string(), values.split(',').map(|v| v.parse().ok()).collect()))
        })
        .collect()
}

fn time(present: &Present) -> f64 {
    let measured = present.meters.as_deref().is_some_and(|m| m.starts_with("t:"));
    match measured {
        true => readings(present)["t"][0].unwrap_or(-1.0),
        false => -1.0,
    }
}

/// The meters' drawing, as `osd/meters.rs` lays it out (one pixel a point): the y of `db` in
/// the bars, and the x of channel `i`'s bar's left edge.
struct Geometry {
    inner: [i32; 4],
}

impl Geometry {
    fn of(present: &Present) -> Self {
        let (_, [x, y, w, h]) = present
            .osd
            .iter()
            .find(|(name, _)| name == "meters")
            .expect("the meters' box");
        Self {
            inner: [x + 8, y + 8, w - 16, h - 16],
        }
    }

    fn level_y(&self, db: f64) -> u32 {
        let top = (self.inner[1] + 12) as f64;
        let bottom = (self.inner[1] + self.inner[3]) as f64 - (6.0 * 13.0 + 4.0);
        let fraction = match db >= -20.0 {
            true => 0.4 + 0.6 * (db + 20.0) / 20.0,
            false => 0.4 * (db + 60.0) / 40.0,
        };
        (bottom - (bottom - top) * fraction).round() as u32
    }

    fn bar_x(&self, channel: usize) -> u32 {
        (self.inner[0] + 30 + 2 + channel as i32 * 26) as u32
    }

    fn lamp_y(&self) -> u32 {
        (self.inner[1] + 4) as u32
    }
}

const GREEN: [u8; 3] = [70, 200, 90];
const YELLOW: [u8; 3] = [235, 205, 60];
const RED: [u8; 3] = [240, 70, 60];
const EMPTY: [u8; 3] = [30, 30, 30];
const LAMP_OFF: [u8; 3] = [45, 45, 45];

fn assert_pixel(image: &Image, (x, y): (u32, u32), expected: [u8; 3], what: &str) {
    let got = image.at(x, y);
    let close = got.iter().zip(expected).all(|(&g, e)| g.abs_diff(e) <= 2);
    assert!(close, "{what} at ({x}, {y}): {got:?}, expected {expected:?}");
}

#[test]
fn the_meters_read_each_channel_and_the_loudness_as_it_plays_and_start_over_after_a_seek() {
    let file = sines();
    let x = Xvfb::start();
    let args = [file.as_os_str(), "--meters".as_ref()];
    let player = Player::start_with(&x, "meters", &args);

    // Past 3.5 s the short-term window is full: every figure is the signal's.
    let steady = player.wait_present("the short-term loudness", 0, |p| {
        time(p) > 3.5 && time(p) < 4.8 && readings(p)["S"][0].is_some()
    });
    let r = readings(&steady);
    assert_eq!(r["FL"], [Some(-20.0), Some(-23.0), Some(-20.0), Some(-20.0), Some(0.0)]);
    assert_eq!(r["FR"], [Some(-6.0), Some(-9.0), Some(-6.0), Some(-6.0), Some(0.0)]);
    let integrated = common::ffmpeg_integrated(&file, 0.0, 4.0);
    for name in ["M", "S", "I"] {
        assert_eq!(r[name][0], Some(integrated), "{name} of a steady sound is FFmpeg's I");
    }
    assert_eq!(r["TP"][0], Some(-6.0));

    // The bars as drawn: the left one green to -20 dBFS and empty above; the right one yellow
    // at -10 and empty above -6; no lamp lit.
    player.key("p");
    let paused = player.wait_present("the pause", 0, |p| p.paused && p.meters.is_some());
    let image = player.capture();
    let g = Geometry::of(&paused);
    let (left, right) = (g.bar_x(0) + 2, g.bar_x(1) + 2);
    assert_pixel(&image, (left, g.level_y(-30.0)), GREEN, "the left bar at -30 dBFS");
    assert_pixel(&image, (left, g.level_y(-21.0)), GREEN, "the left bar at -21 dBFS");
    assert_pixel(&image, (left, g.level_y(-19.0)), EMPTY, "the left bar at -19 dBFS");
    assert_pixel(&image, (right, g.level_y(-10.0)), YELLOW, "the right bar at -10 dBFS");
    assert_pixel(&image, (right, g.level_y(-5.0)), EMPTY, "the right bar at -5 dBFS");
    assert_pixel(&image, (left, g.lamp_y()), LAMP_OFF, "the left clip lamp");
    assert_pixel(&image, (right, g.lamp_y()), LAMP_OFF, "the right clip lamp");

    // Back to the start: the short windows start over, the integration goes on.
    let before = player.key("Home");
    player.key("p");
    let restarted = player.wait_present("the meters after the seek", before, |p| {
        time(p) < 1.0 && readings(p)["S"][0].is_none()
    });
    assert_eq!(readings(&restarted)["I"][0], Some(integrated));

    // Past 5 s the right channel clips: its lamp lights, and its held peak is full scale.
    let clipping = player.wait_present("the clipping", 0, |p| time(p) > 5.5 && time(p) < 7.0);
    let r = readings(&clipping);
    assert_eq!(r["FR"][2], Some(0.0));
    assert_eq!(r["FR"][4], Some(1.0));
    assert_eq!(r["FL"][4], Some(0.0));
    player.key("p");
    let paused = player.wait_present("the pause", 0, |p| p.paused && time(p) > 5.5);
    let image = player.capture();
    let g = Geometry::of(&paused);
    assert_pixel(&image, (g.bar_x(1) + 2, g.lamp_y()), RED, "the right clip lamp");
    assert_pixel(&image, (g.bar_x(0) + 2, g.lamp_y()), LAMP_OFF, "the left clip lamp");
    assert_pixel(
        &image,
        (g.bar_x(1) + 2, g.level_y(-3.0)),
        RED,
        "the right bar at -3 dBFS",
    );
}

#[test]
fn alt_m_shows_the_meters_and_a_file_without_sound_says_so() {
    let silent = common::fixture(
        "meters-no-sound.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x240:r=10:d=3",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let x = Xvfb::start();
    let player = Player::start(&x, "meters-none", Some(&silent));
    let first = player.wait_present("the first frame", 0, |p| p.frame.is_some());
    assert_eq!(first.meters, None, "the meters are off by default");
    let before = player.key("alt+m");
    let shown = player.wait_present("the meters", before, |p| p.meters.as_deref() == Some("none"));
    assert!(shown.osd.iter().any(|(name, _)| name == "meters"), "{:?}", shown.osd);
    let before = player.key("alt+m");
    player.wait_present("the meters hidden", before, |p| p.meters.is_none());
}

#[test]
fn a_live_streams_sound_is_metered_from_the_packets_the_picture_reads() {
    let port = 20_000 + (std::process::id() % 10_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    let inputs = [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=320x240:rate=25",
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=0.1*sin(2*PI*1000*t)|0.5011872*sin(2*PI*1000*t):s=48000",
    ];
    let sound = ["-c:a", "mp2", "-b:a", "384k"];
    let args: Vec<&std::ffi::OsStr> = (inputs.iter().chain(&window::LIVE_H264).chain(&sound))
        .map(|a| a.as_ref())
        .collect();
    let _sender = window::udp_sender(&url, &args);
    let x = Xvfb::start();
    let args = [url.as_str(), "--input-option", "timeout=3000000", "--meters"];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let player = Player::start_with(&x, "meters-live", &args);
    let steady = player.wait_present("the live sound's short-term loudness", 0, |p| {
        p.meters.as_deref().is_some_and(|m| m.starts_with("t:")) && readings(p)["S"][0].is_some()
    });
    let r = readings(&steady);
    // MPEG audio layer II at 384 kb/s keeps a sine's level within a tenth of a dB.
    let near = |got: Option<f64>, want: f64| got.is_some_and(|v| (v - want).abs() <= 0.2);
    assert!(near(r["FL"][0], -20.0) && near(r["FL"][1], -23.0), "{:?}", r["FL"]);
    assert!(near(r["FR"][0], -6.0) && near(r["FR"][1], -9.0), "{:?}", r["FR"]);
    assert_eq!(r["FR"][4], Some(0.0));
}

#[test]
fn sound_that_starts_late_reads_silence_and_says_so_until_it_comes() {
    // The sound's stream starts 2 s after the picture's.
    let file = common::fixture(
        "meters-late.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x240:r=10:d=5",
            "-itsoffset",
            "2",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.1*sin(2*PI*1000*t):s=48000:d=3",
            "-map",
            "0:v",
            "-map",
            "1:a",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let x = Xvfb::start();
    let args = [file.as_os_str(), "--meters".as_ref()];
    let player = Player::start_with(&x, "meters-late", &args);
    let before = player.wait_present("the meters before the sound", 0, |p| time(p) > 0.8 && time(p) < 1.8);
    assert!(
        before.meters.as_deref().unwrap().ends_with(";gap"),
        "{:?}",
        before.meters
    );
    assert_eq!(readings(&before)["FC"], [None, None, None, None, Some(0.0)]);
    let after = player.wait_present("the sound", 0, |p| time(p) > 3.0 && time(p) < 4.5);
    assert!(!after.meters.as_deref().unwrap().contains("gap"), "{:?}", after.meters);
    let r = readings(&after);
    assert_eq!(r["FC"][0], Some(-20.0));
    assert_eq!(r["FC"][1], Some(-23.0));
}

#[test]
fn the_audio_stream_aid_names_is_the_one_metered() {
    // Two sounds: a stereo sine at -20 dBFS, then a mono one at -6 dBFS.
    let file = common::fixture(
        "meters-two-tracks.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x240:r=10:d=8",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.1*sin(2*PI*1000*t)|0.1*sin(2*PI*1000*t):s=48000:d=8",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.5011872*sin(2*PI*1000*t):s=48000:d=8",
            "-map",
            "0",
            "-map",
            "1",
            "-map",
            "2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let x = Xvfb::start();
    for (aid, channels, peak) in [("1", vec!["FL", "FR"], -20.0), ("2", vec!["FC"], -6.0)] {
        let args = [file.as_os_str(), "--meters".as_ref(), "--aid".as_ref(), aid.as_ref()];
        let player = Player::start_with(&x, &format!("meters-aid-{aid}"), &args);
        let steady = player.wait_present("the meters", 0, |p| time(p) > 1.0);
        let r = readings(&steady);
        let mut named: Vec<&str> = r.keys().map(String::as_str).filter(|k| k.starts_with('F')).collect();
        named.sort();
        assert_eq!(named, channels, "--aid {aid}");
        for channel in channels {
            assert_eq!(r[channel][0], Some(peak), "--aid {aid} {channel}");
        }
    }
    // `#` goes on to the next stream, then to none, then back to the first, the meters with it.
    let args = [file.as_os_str(), "--meters".as_ref()];
    let player = Player::start_with(&x, "meters-cycle", &args);
    let channels = |p: &Present| -> Vec<String> {
        let mut named: Vec<String> = readings(p).into_keys().filter(|k| k.starts_with('F')).collect();
        named.sort();
        named
    };
    player.wait_present("the first stream's meters", 0, |p| {
        time(p) > 0.5 && channels(p) == ["FL", "FR"]
    });
    let before = player.key("numbersign");
    let second = player.wait_present("the second stream's meters", before, |p| {
        channels(p) == ["FC"] && readings(p)["FC"][0].is_some()
    });
    assert_eq!(readings(&second)["FC"][0], Some(-6.0));
    let before = player.key("numbersign");
    player.wait_present("no stream", before, |p| p.meters.as_deref() == Some("none"));
    let before = player.key("numbersign");
    let first = player.wait_present("the first stream again", before, |p| {
        channels(p) == ["FL", "FR"] && readings(p)["FL"][0].is_some()
    });
    assert_eq!(readings(&first)["FL"][0], Some(-20.0));
    // Two presses at once go two streams on: to none.
    let before = player.key("numbersign");
    player.key("numbersign");
    let none = player.wait_present("two streams on", before, |p| p.meters.as_deref() == Some("none"));
    // ... and stay there.
    let later = player.wait_present("a while after", 0, |p| p.frame > none.frame.map(|f| f + 3));
    assert_eq!(later.meters.as_deref(), Some("none"));
}
