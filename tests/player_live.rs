//! End to end, a live stream in the player window: frames shown as they arrive with their
//! latency, keys that would seek refused with a note, "no signal" over the last frame while the
//! sender stalls and gone when it resumes, pause and End (back to live), the end of the stream
//! kept on screen, and `--record` holding every frame the player decoded.

mod common;
mod window;

use std::process::{Command, Stdio};
use std::time::Duration;
use window::{Player, Present, Xvfb};

fn named(present: &Present) -> Vec<&str> {
    present.osd.iter().map(|(name, _)| name.as_str()).collect()
}

fn report_lines(path: &std::path::Path) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", path.to_str().unwrap(), "--cpu"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().count()
}

#[test]
fn a_udp_stream_plays_live_shows_no_signal_while_stalled_and_records_every_frame() {
    let port = 40_000 + (std::process::id() % 20_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    // An endless stream in real time, a keyframe every 10 frames.
    let mut sender = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-re",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "10",
            "-bf",
            "0",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "mpegts",
        ])
        .arg(format!("{url}?pkt_size=1316"))
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let x = Xvfb::start();
    let dir = common::repo_path(&format!("target/player-tests/live-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let recording = dir.join("capture.ts");
    let args = [
        url.as_str(),
        "--input-option",
        "timeout=3000000",
        "--record",
        recording.to_str().unwrap(),
        "--no-audio",
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let mut player = Player::start_with(&x, "live", &args);

    // Frames come in order, each with the time from its arrival to its present.
    let tenth = player.wait_present("ten frames", 0, |p| p.new_frame && p.frame >= Some(10));
    let shown: Vec<Present> = player.presents().into_iter().filter(|p| p.new_frame).collect();
    assert!(shown.windows(2).all(|w| w[0].frame < w[1].frame), "{shown:?}");
    assert!(
        shown
            .iter()
            .all(|p| p.latency_ms.is_some_and(|l| l > 0.0 && l < 5000.0)),
        "{shown:?}"
    );

    // A seek is refused, with a note; nothing restarts.
    let before = player.key("Right");
    let noted = player.wait_present("the note", before, |p| named(p).contains(&"toasts"));
    assert_eq!(noted.generation, tenth.generation);

    // The sender stalls: "no signal" over the last frame, the window kept; it resumes: gone.
    let stop = |signal: &str| {
        let sent = Command::new("kill")
            .args([signal, &sender.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    stop("-STOP");
    let stalled = player.wait_present("no signal", 0, |p| named(p).contains(&"no_signal"));
    assert!(!stalled.paused);
    let count = player.presents().len();
    stop("-CONT");
    let resumed = player.wait_present("frames again", count, |p| {
        p.new_frame && !named(p).contains(&"no_signal")
    });
    assert!(resumed.frame > stalled.frame);

    // Paused, the picture stays while the stream goes on; End goes back to the newest frame.
    let before = player.key("space");
    let paused = player.wait_present("the pause", before, |p| p.paused);
    std::thread::sleep(Duration::from_millis(1500));
    let before = player.key("End");
    let live = player.wait_present("back to live", before, |p| p.new_frame && !p.paused);
    // 1.5 s at 25 fps went by unseen.
    assert!(live.frame.unwrap() >= paused.frame.unwrap() + 25, "{paused:?} {live:?}");

    // The sender goes: "no signal", then the input ends (its read timeout) and the last frame
    // stays, paused.
    let _ = sender.kill();
    let _ = sender.wait();
    let ended = player.wait_present("the end", 0, |p| p.paused && p.frame >= live.frame && !p.new_frame);
    let last = player.presents().into_iter().filter_map(|p| p.frame).max().unwrap();
    assert!(ended.frame <= Some(last));
    assert!(player.stderr().contains("the input ended"), "{}", player.stderr());

    player.key("q");
    assert!(player.wait_exit().success());
    // Every frame the player decoded is in the recording, from its first keyframe on.
    assert_eq!(report_lines(&recording) as u64, last + 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
