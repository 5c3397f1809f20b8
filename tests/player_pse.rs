//! End to end, in the player window: `--pse` analyses the file in the background as
//! `histoplay pse` does, the frame log gives each frame's state, the PSE row is drawn under the
//! picture, the flashing blocks are tinted over the picture (red where they fail) and `Alt+p`
//! takes them away, a warning is given as the frame shown enters the failing stretch, and a
//! click on the row goes to the frame under it; a live input played with `--pse` is analysed from
//! the packets the window reads, and its failing run warned of as the analysis finds it start;
//! `Alt+p` midway on a live input analyses it from then on, its frames numbered as the window's.

mod common;
mod window;

use std::path::PathBuf;
use std::time::Duration;
use window::{Image, Player, Xvfb};

/// 2 s at 25 fps of the whole picture flashing between black and white 4 times a second:
/// `pse` fails it from frame 22 (the seventh transition in a second) to the end.
fn flashing() -> PathBuf {
    common::fixture(
        "pse-window-4hz.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:s=480x270:r=25:d=2,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='lt(mod(t*8,2),1)',format=yuv444p",
            "-c:v",
            "ffv1",
        ],
    )
}

/// The picture's pixel in the middle of a block, clear of the OSD: its red over its green.
fn red_excess(image: &Image) -> i32 {
    let [r, g, _] = image.at(image.width * 25 / 48, image.height * 7 / 27);
    i32::from(r) - i32::from(g)
}

/// `histoplay pse --frames-out`'s state of frame `n` and its flashes a second, as the frame
/// log writes them.
fn cli_state(clip: &std::path::Path, n: usize) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["pse", "--frames-out"])
        .arg(clip)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = common::json(text.lines().nth(n).unwrap());
    let flashes = line["flashes"]
        .as_f64()
        .unwrap()
        .max(line["red_flashes"].as_f64().unwrap()) as f32;
    format!("{}:{flashes}", line["state"].as_str().unwrap())
}

#[test]
fn the_pse_view_shows_the_failing_stretch_tints_the_flashing_blocks_and_goes_there_on_a_click() {
    let clip = flashing();
    let x = Xvfb::start();
    let player = Player::start_with(&x, "pse", &["--pse".as_ref(), clip.as_os_str()]);
    player.wait_present("playback", 0, |p| p.frame.is_some());
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    // Paused, the analysis goes flat out; frame 30 fails once it is analysed.
    let at = player.key("End");
    let last = player.wait_present("the last frame's state", at, |p| p.frame == Some(49) && p.pse.is_some());
    assert_eq!(last.pse.as_deref(), Some("fail:4"));
    player.wait_idle(Duration::from_millis(400));
    let tinted = player.capture();
    assert!(
        red_excess(&tinted) > 40,
        "{:?}",
        tinted.at(tinted.width / 2, tinted.height / 4)
    );
    // Warned of as the frame shown entered the failing stretch (it ran on to the end).
    player.poll("the warning", || {
        player
            .stderr()
            .contains("photosensitivity (bt1702): general-flash fails from 00:00.880 (frame 22)")
            .then_some(())
    });
    // A click on the row goes to the frame under it, with `pse --frames-out`'s state.
    let row = player.poll("the PSE row", || {
        let presents = player.presents();
        presents
            .last()?
            .osd
            .iter()
            .find(|(name, _)| name == "pse")
            .map(|(_, r)| *r)
    });
    let [rx, ry, rw, rh] = row;
    let before = player.presents().len();
    let column = rx + ((10.5 / 50.0) * f64::from(rw)) as i32;
    x.xdotool(&[
        "mousemove",
        "--window",
        &player.window,
        &column.to_string(),
        &(ry + rh / 2).to_string(),
    ]);
    x.xdotool(&["click", "1"]);
    let landed = player.wait_present("frame 10", before, |p| p.frame == Some(10) && p.pse.is_some());
    assert_eq!(landed.pse, Some(cli_state(&clip, 10)));
    // Alt+p: the view goes, the tint with it.
    let at = player.key("End");
    player.wait_present("the last frame", at, |p| p.frame == Some(49));
    let at = player.key("alt+p");
    player.wait_present("the view off", at, |p| !p.osd.iter().any(|(name, _)| name == "pse"));
    player.wait_idle(Duration::from_millis(400));
    let plain = player.capture();
    assert_eq!(
        red_excess(&plain),
        0,
        "{:?}",
        plain.at(plain.width / 2, plain.height / 4)
    );
}

/// The flashing clip sent over and over in real time to a UDP port of its own (`seed` keeps
/// two tests apart), played live with `extra` arguments: the sender (sending until dropped)
/// and the player.
fn play_flashing_live<'x>(x: &'x Xvfb, name: &str, seed: u32, extra: &[&str]) -> (window::Reaped, Player<'x>) {
    let clip = flashing();
    let port = 40_000 + ((std::process::id() + seed) % 20_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    let input = ["-stream_loop".as_ref(), "-1".as_ref(), "-i".as_ref(), clip.as_os_str()];
    let codec = window::LIVE_H264.map(std::ffi::OsStr::new);
    let sender = window::udp_sender(&url, &[&input[..], &codec[..]].concat());
    let mut args = vec![url.as_str(), "--input-option", "timeout=3000000", "--no-audio"];
    args.extend_from_slice(extra);
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    (sender, Player::start_with(x, name, &args))
}

#[test]
fn a_live_inputs_failing_run_is_warned_of_as_the_analysis_finds_it_start() {
    let x = Xvfb::start();
    let (_sender, player) = play_flashing_live(&x, "pse-live", 7_777, &["--pse"]);
    player.wait_present("live frames", 0, |p| p.new_frame && p.frame >= Some(10));
    // The general flash fails from the seventh transition in a second: warned of once found.
    player.poll("the warning", || {
        let stderr = player.stderr();
        stderr
            .lines()
            .find(|l| l.contains("photosensitivity (bt1702): general-flash fails from"))
            .map(str::to_string)
    });
}

#[test]
fn alt_p_midway_on_a_live_input_analyses_it_from_then_on_numbered_as_the_window_numbers_frames() {
    let x = Xvfb::start();
    let (_sender, player) = play_flashing_live(&x, "pse-live-midway", 9_191, &[]);
    // Well into the stream (25 frames a second), then the view on.
    let before = player.wait_present("live frames", 0, |p| p.new_frame && p.frame >= Some(50));
    let shown = before.frame.unwrap();
    let pressed = std::time::Instant::now();
    player.key("alt+p");
    let warning = player.poll("the warning", || {
        let stderr = player.stderr();
        stderr
            .lines()
            .find(|l| l.contains("photosensitivity (bt1702): general-flash fails from"))
            .map(str::to_string)
    });
    let frame: u64 = warning
        .rsplit_once("(frame ")
        .and_then(|(_, n)| n.trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("no frame in '{warning}'"));
    // The analysis starts at the keyframe after the press (one every 10 frames) and fails from
    // the seventh transition in a second (a few frames on): numbered as the window numbers its
    // frames, past the frame shown before the press, within what the window played since.
    let played = (pressed.elapsed().as_secs_f64() * 25.0).ceil() as u64;
    assert!(
        frame > shown && frame <= shown + played + 25,
        "the failure from frame {frame}, the window at {shown} before the press, {played} frames played since"
    );
    assert!(
        !player.stderr().contains("no photosensitivity analysis"),
        "{}",
        player.stderr()
    );
}
