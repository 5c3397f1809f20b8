//! End to end, a live stream in the player window: frames shown as they arrive with their
//! latency; timeshift (pause, steps, a seek back into the window, its past played to the clock,
//! End back to live); "no signal" over the last frame while the sender stalls and gone when it
//! resumes; the end of the stream kept on screen; `--record` holding every frame the player
//! decoded; and the report written as it plays equal to `report` of the recording, a frame broken
//! by the sender's end included.

mod common;
mod window;

use std::process::Command;
use std::time::Duration;
use window::{Player, Present, Xvfb};

fn named(present: &Present) -> Vec<&str> {
    present.osd.iter().map(|(name, _)| name.as_str()).collect()
}

/// `report`'s JSON lines of a file.
fn report(path: &std::path::Path) -> Vec<serde_json::Value> {
    report_with_env(path, &[])
}

fn report_with_env(path: &std::path::Path, env: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", path.to_str().unwrap(), "--format", "json"])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    parse_lines(&String::from_utf8(out.stdout).unwrap())
}

fn parse_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// One live window at a time: each plays a real-time stream through software Vulkan, and
/// three at once on a small machine starve each other's frames.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static WINDOWS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    WINDOWS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn a_udp_stream_plays_live_shows_no_signal_while_stalled_and_records_every_frame() {
    let _window = one_at_a_time();
    let port = 40_000 + (std::process::id() % 20_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    // An endless stream in real time, a keyframe every 10 frames.
    let input = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"];
    let args: Vec<&std::ffi::OsStr> = input.iter().chain(&window::LIVE_H264).map(|a| a.as_ref()).collect();
    let sender = window::udp_sender(&url, &args);
    let x = Xvfb::start();
    let dir = common::repo_path(&format!("target/player-tests/live-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let recording = dir.join("capture.ts");
    let (qc_report, alerts) = (dir.join("live.jsonl"), dir.join("alerts.jsonl"));
    let args = [
        url.as_str(),
        "--input-option",
        "timeout=3000000",
        "--record",
        recording.to_str().unwrap(),
        "--record-report",
        qc_report.to_str().unwrap(),
        // Every frame is beyond it: one run, from the first frame to the last. (The limit on
        // sound is said not to be watched: the report beside the window reads the pictures.)
        "--fail-on",
        "YMIN>=0,silence>1s",
        "--alert-log",
        alerts.to_str().unwrap(),
        "--no-audio",
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let mut player = Player::start_with(&x, "live", &args);

    // Frames come in order, each with the time from its arrival to its present.
    player.wait_present("ten frames", 0, |p| p.new_frame && p.frame >= Some(10));
    // QC as it plays: the window warns of the frames beyond --fail-on's limit.
    let warned = player.wait_present("the QC warning", 0, |p| p.qc.as_deref() == Some("YMIN>=0"));
    assert!(named(&warned).contains(&"toasts"), "{warned:?}");
    let shown: Vec<Present> = player.presents().into_iter().filter(|p| p.new_frame).collect();
    assert!(shown.windows(2).all(|w| w[0].frame < w[1].frame), "{shown:?}");
    assert!(
        shown
            .iter()
            .all(|p| p.latency_ms.is_some_and(|l| l > 0.0 && l < 5000.0)),
        "{shown:?}"
    );

    // Timeshift. Paused, the picture stays while the stream is read on into the cache.
    let before = player.key("space");
    let paused = player.wait_present("the pause", before, |p| p.paused);
    let at = paused.frame.unwrap();
    // (A duration, not a wait: paused for 1.5 s of the stream, which goes on meanwhile.)
    std::thread::sleep(Duration::from_millis(1500));
    // Steps back and forth, within what was read.
    let before = player.key("comma");
    let back = player.wait_present("a step back", before, |p| {
        p.new_frame && p.generation > paused.generation
    });
    assert_eq!(back.frame, Some(at - 1));
    assert!(
        back.paused && back.latency_ms.is_none() && back.behind_s.is_some_and(|b| b > 1.0),
        "{back:?}"
    );
    let before = player.key("period");
    let forth = player.wait_present("a step forward", before, |p| p.new_frame);
    assert_eq!(forth.frame, Some(at));
    // A seek back further than was read lands on the first frame the window holds: the first.
    let before = player.key("Left");
    let first = player.wait_present("a seek back", before, |p| p.new_frame && p.generation > back.generation);
    assert_eq!(first.frame, Some(0));
    // Played on, the past comes in order, to the clock, behind live.
    let before = player.key("space");
    let played = player.wait_present("the past playing", before, |p| p.new_frame && p.frame >= Some(5));
    assert!(!played.paused && played.behind_s.is_some_and(|b| b > 1.0), "{played:?}");
    let presents = player.presents();
    let shown: Vec<&Present> = presents[before..]
        .iter()
        .filter(|p| p.new_frame && p.frame.is_some())
        .collect();
    let past: Vec<u64> = shown.iter().filter_map(|p| p.frame).collect();
    assert!(past.windows(2).all(|w| w[0] < w[1]), "{past:?}");
    // Every frame after the first is shown or, on a machine too busy to draw it in time,
    // counted as dropped: none is skipped.
    let dropped = shown.last().unwrap().dropped - presents[before - 1].dropped;
    assert_eq!(
        past.last().copied(),
        Some(past.len() as u64 + dropped),
        "{past:?}, {dropped} dropped"
    );
    // End goes back to the newest frame, shown as it arrives, its latency counted again.
    let before = player.key("End");
    let live = player.wait_present("back to live", before, |p| p.new_frame && p.latency_ms.is_some());
    assert!(!live.paused && live.behind_s.is_none(), "{live:?}");
    // 1.5 s at 25 fps went by while paused.
    assert!(live.frame.unwrap() >= at + 25, "{paused:?} {live:?}");

    // The sender stalls: "no signal" over the last frame, the window kept; it resumes: gone.
    let stop = |signal: &str| {
        let sent = Command::new("kill")
            .args([signal, &sender.0.id().to_string()])
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

    // The sender goes: "no signal", then the input ends (its read timeout) and the last frame
    // stays, paused.
    drop(sender);
    let ended = player.wait_present("the end", 0, |p| p.paused && p.frame >= live.frame && !p.new_frame);
    let last = player.presents().into_iter().filter_map(|p| p.frame).max().unwrap();
    assert!(ended.frame <= Some(last));
    assert!(player.stderr().contains("the input ended"), "{}", player.stderr());
    assert!(
        player
            .stderr()
            .contains("note: the report beside the window is of the pictures: silence>1s not watched"),
        "{}",
        player.stderr()
    );

    player.key("q");
    let status = player.wait_exit();
    assert!(status.success(), "{status}: {}", player.stderr());
    // Every frame the player decoded is in the recording, from its first keyframe on.
    let recorded = report(&recording);
    assert_eq!(recorded.len() as u64, last + 1);
    // The report written as the frames came is `report`'s of the recording, value for value.
    assert_same_report(&qc_report, &recorded);
    // The run beyond the limit, in the alert log as it ended: every frame.
    let alerted = parse_lines(&std::fs::read_to_string(&alerts).unwrap());
    assert_eq!(alerted.len(), 1, "{alerted:?}");
    assert_eq!(alerted[0]["limit"], "YMIN>=0");
    assert_eq!(alerted[0]["frames"], serde_json::json!([0, last]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The report the window wrote as a live input's frames came (`--record-report`) is `report`'s
/// of its recording, value for value (its times from the recording's start, which the container
/// may move as a whole).
fn assert_same_report(live_report: &std::path::Path, recorded: &[serde_json::Value]) {
    let live_report = parse_lines(&std::fs::read_to_string(live_report).unwrap());
    assert_eq!(live_report.len(), recorded.len());
    let pts = |line: &serde_json::Value| line["pts"].as_f64().unwrap();
    let (live_start, recorded_start) = (pts(&live_report[0]), pts(&recorded[0]));
    for (live, recorded) in live_report.iter().zip(recorded) {
        let (mut live, mut recorded) = (live.clone(), recorded.clone());
        let (a, b) = (pts(&live) - live_start, pts(&recorded) - recorded_start);
        assert!((a - b).abs() < 1e-6, "{live} {recorded}");
        live["pts"] = serde_json::Value::Null;
        recorded["pts"] = serde_json::Value::Null;
        assert_eq!(live, recorded);
    }
}

/// Whether a UDP socket of this machine is bound to `port` (/proc/net/udp).
fn udp_port_bound(port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/udp").unwrap_or_default();
    let local = format!(":{port:04X} ");
    table.lines().skip(1).any(|line| {
        line.split_whitespace()
            .nth(1)
            .is_some_and(|address| format!("{address} ").ends_with(&local))
    })
}

/// Decoding of a damaged stream that gives the same pictures every time.
const ONE_DECODING_THREAD: [(&str, &str); 1] = [("HISTOPLAY_DECODE_THREADS", "1")];

#[test]
fn a_live_stream_cut_off_mid_frame_is_reported_as_report_reads_its_recording() {
    let _window = one_at_a_time();
    let port = 44_000 + (std::process::id() % 20_000) as u16;
    let dir = common::repo_path(&format!("target/player-tests/live-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two seconds of MPEG-TS, sent as FFmpeg sends it (7 TS packets a datagram), cut off in the
    // middle of the last frame's packet: the sender gone mid-frame.
    let input = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "50"];
    let args: Vec<&str> = input
        .iter()
        .chain(&window::LIVE_H264)
        .chain(&["-f", "mpegts"])
        .copied()
        .collect();
    let stream = common::fixture("live-cut.ts", &args);
    // (ffprobe prints a packet's size before its position.)
    let packets = common::ffprobe_entries(&stream, "packet=size,pos");
    let (size, pos) = packets.last().unwrap().split_once(',').unwrap();
    let (size, pos): (usize, usize) = (size.parse().unwrap(), pos.parse().unwrap());
    const DATAGRAM: usize = 7 * 188;
    let cut = (pos + size / 2) / DATAGRAM * DATAGRAM;
    assert!(cut > pos + 188, "{pos} {size}");
    let bytes = std::fs::read(&stream).unwrap()[..cut].to_vec();
    // Sent once the player listens (its window opens with the first frame), a little faster
    // than real time.
    let sender = std::thread::spawn(move || {
        common::poll("the player listening", || udp_port_bound(port).then_some(()));
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for (k, datagram) in bytes.chunks(DATAGRAM).enumerate() {
            socket.send_to(datagram, ("127.0.0.1", port)).unwrap();
            if k % 4 == 3 {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    });
    let x = Xvfb::start();
    let (recording, qc_report) = (dir.join("capture.ts"), dir.join("live.jsonl"));
    let url = format!("udp://127.0.0.1:{port}");
    let args = [
        url.as_str(),
        "--input-option",
        "timeout=2000000",
        "--record",
        recording.to_str().unwrap(),
        "--record-report",
        qc_report.to_str().unwrap(),
        "--no-audio",
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    // One decoding thread, in the player and in `report`: FFmpeg's H.264 decoder conceals a
    // broken frame from the frame before without waiting for it to be whole, so with frame
    // threads the concealment can differ from one decoding to the next (FFmpeg's own CLI does
    // so about once in 40 decodings of this stream).
    let mut player = Player::start_with_env(&x, "live-cut", &args, &ONE_DECODING_THREAD);
    sender.join().unwrap();
    player.poll("the input's end", || {
        player.stderr().contains("the input ended").then_some(())
    });
    // The last frame was broken, and played on past.
    let stderr = player.stderr();
    assert!(
        stderr.contains("frame 49 was decoded with errors and concealed"),
        "{stderr}"
    );
    player.key("q");
    assert!(player.wait_exit().success());
    // Every frame is in the recording, and the report written as they came is `report`'s of
    // it, the broken frame's concealment included.
    let recorded = report_with_env(&recording, &ONE_DECODING_THREAD);
    assert_eq!(recorded.len(), 50);
    assert_same_report(&qc_report, &recorded);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Frame `k` of a stream whose timecode starts at 10:00:59;28, counted drop-frame at 29.97 fps:
/// 10:01:00;00 and ;01 are not counted (minute 1 is not a tenth minute).
fn drop_frame_timecode(k: u64) -> String {
    match k {
        0 | 1 => format!("10:00:59;{}", 28 + k),
        k => format!("10:01:{:02};{:02}", k / 30, k % 30),
    }
}

#[test]
fn a_streams_timecode_is_shown_with_each_frame_counted_on_from_its_gop_header() {
    let _window = one_at_a_time();
    let x = Xvfb::start();
    let dir = common::repo_path(&format!("target/player-tests/timecode-media-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // MPEG-2 carries a timecode in each GOP header (every 12 frames); the frames between count on.
    let file = dir.join("timecode.ts");
    let made = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=30000/1001",
        ])
        .args(["-frames:v", "60", "-c:v", "mpeg2video", "-g", "12", "-bf", "2"])
        .args(["-timecode", "10:00:59;28"])
        .arg(&file)
        .status()
        .unwrap();
    assert!(made.success());
    let args: Vec<&std::ffi::OsStr> = vec![file.as_os_str(), "--no-audio".as_ref()];
    let mut player = Player::start_with(&x, "timecode", &args);
    let last = player.wait_present("the last frame", 0, |p| p.new_frame && p.frame == Some(59));
    let shown: Vec<Present> = player.presents().into_iter().filter(|p| p.new_frame).collect();
    // (A busy machine may drop some.)
    assert!(shown.len() >= 10, "{shown:?}");
    for present in &shown {
        let k = present.frame.unwrap();
        assert_eq!(
            present.tc.as_deref(),
            Some(drop_frame_timecode(k).as_str()),
            "frame {k}"
        );
    }
    assert_eq!(last.tc.as_deref(), Some("10:01:01;29"));
    player.key("q");
    assert!(player.wait_exit().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_quicktime_timecode_track_is_counted_on_frame_by_frame() {
    let _window = one_at_a_time();
    let x = Xvfb::start();
    // ProRes in QuickTime: its frames carry no timecode; its timecode track starts at
    // 10:00:59:20 (ffprobe's tag), and each frame counts on from it by its number.
    #[rustfmt::skip]
    let file = common::fixture("timecode-track-25.mov", &[
        "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames:v", "20",
        "-c:v", "prores_ks", "-timecode", "10:00:59:20",
    ]);
    assert_eq!(common::ffprobe_entries(&file, "stream_tags=timecode"), ["10:00:59:20"]);
    let args: Vec<&std::ffi::OsStr> = vec![file.as_os_str(), "--no-audio".as_ref()];
    let mut player = Player::start_with(&x, "timecode-track", &args);
    let last = player.wait_present("the last frame", 0, |p| p.new_frame && p.frame == Some(19));
    let shown: Vec<Present> = player.presents().into_iter().filter(|p| p.new_frame).collect();
    assert!(shown.len() >= 5, "{shown:?}");
    for present in &shown {
        let k = present.frame.unwrap();
        let tc = match k {
            0..=4 => format!("10:00:59:{}", 20 + k),
            k => format!("10:01:00:{:02}", k - 5),
        };
        assert_eq!(present.tc.as_deref(), Some(tc.as_str()), "frame {k}");
    }
    assert_eq!(last.tc.as_deref(), Some("10:01:00:14"));
    player.key("q");
    assert!(player.wait_exit().success());
}

#[test]
fn each_frames_fields_are_in_its_line_as_the_decoder_flags_them() {
    let _window = one_at_a_time();
    let x = Xvfb::start();
    // MPEG-2 coded interlaced, bottom field first.
    let file = common::fixture(
        "fields-bff.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25",
            "-frames:v",
            "20",
            "-c:v",
            "mpeg2video",
            "-flags",
            "+ilme+ildct",
            "-top",
            "0",
        ],
    );
    let args: Vec<&std::ffi::OsStr> = vec![file.as_os_str(), "--no-audio".as_ref()];
    let mut player = Player::start_with(&x, "fields", &args);
    player.wait_present("the last frame", 0, |p| p.new_frame && p.frame == Some(19));
    let shown: Vec<Present> = player.presents().into_iter().filter(|p| p.new_frame).collect();
    assert!(!shown.is_empty());
    for present in &shown {
        assert_eq!(present.fields.as_deref(), Some("bff"), "{present:?}");
    }
    player.key("q");
    assert!(player.wait_exit().success());
}

/// One second of testsrc2 at 25 fps in MPEG-TS, `size` in `pix_fmt`, its timestamps from
/// `offset` seconds on (so that segments joined one after another keep counting).
fn segment(path: &std::path::Path, size: &str, pix_fmt: &str, offset: &str) {
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg(format!("testsrc2=size={size}:rate=25:duration=1"))
        .args(["-c:v", "libx264", "-preset", "ultrafast", "-g", "5", "-bf", "0"])
        .args(["-pix_fmt", pix_fmt, "-output_ts_offset", offset, "-f", "mpegts"])
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

#[test]
fn a_stream_whose_picture_changes_size_and_sampling_is_shown_and_counted_in_each_shape() {
    let _window = one_at_a_time();
    let port = 42_000 + (std::process::id() % 20_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    let dir = common::repo_path(&format!("target/player-tests/reshape-media-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 320x240 4:2:0 for a second, then 256x144 4:2:2, over and over.
    let (wide, small) = (dir.join("a.ts"), dir.join("b.ts"));
    segment(&wide, "320x240", "yuv420p", "0");
    segment(&small, "256x144", "yuv422p", "1");
    let joined = dir.join("joined.ts");
    let mut bytes = std::fs::read(&wide).unwrap();
    bytes.extend(std::fs::read(&small).unwrap());
    std::fs::write(&joined, bytes).unwrap();
    let sender = window::udp_sender(
        &url,
        &[
            "-stream_loop".as_ref(),
            "-1".as_ref(),
            "-i".as_ref(),
            joined.as_os_str(),
            "-c".as_ref(),
            "copy".as_ref(),
        ],
    );
    let x = Xvfb::start();
    let args = [url.as_str(), "--input-option", "timeout=3000000", "--no-audio"];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let mut player = Player::start_with(&x, "reshape", &args);
    // The statistics overlay up: each frame's signal statistics, as the passes count them.
    player.wait_present("a frame", 0, |p| p.new_frame);
    player.key("I");
    let shape = |p: &Present| p.picture;
    let first = player.wait_present("statistics", 0, |p| p.new_frame && p.signal.is_some());
    let other = |s: (u32, u32)| if s == (320, 240) { (256, 144) } else { (320, 240) };
    // Both ways round, twice, without a restart.
    let mut at = 0;
    let mut expected = other(shape(&first));
    for _ in 0..3 {
        let changed = player.wait_present("the picture's change", at, |p| p.new_frame && p.picture == expected);
        at = player.presents().iter().position(|p| p == &changed).unwrap();
        expected = other(expected);
    }

    // The histogram timeline of the timeshift window, counted as the frames come: lit columns
    // (not the grey of columns not counted yet) from left to right. (Paused, the OSD stays.)
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let before = player.key("Tab");
    let strip = |p: &Present| p.osd.iter().find(|(name, _)| name == "timeline").map(|(_, rect)| *rect);
    player.wait_present("the timeline", before, |p| strip(p).is_some());
    // (Where it is drawn last: the window may have taken the picture's last shape meanwhile;
    // its fill makes its passes first, which takes a while on a slow GPU.)
    let [left, top, width, height] = player.poll("the timeline counted", || {
        let image = player.capture();
        let shown = player.presents().into_iter().rev().find(|p| strip(p).is_some())?;
        let rect @ [left, top, width, height] = strip(&shown)?;
        let lit = |share: f64| {
            let x = (f64::from(left) + share * f64::from(width)) as u32;
            let column = image.region((x, top as u32, x + 1, (top + height) as u32));
            column.iter().any(|p| p[0] > 200)
        };
        let drawn = shown.size == (image.width, image.height);
        (drawn && [0.05, 0.5, 0.95].into_iter().all(lit)).then_some(rect)
    });
    // A window of a few seconds at least (paused, the picture falls behind as the window
    // grows), so that the clicks' places differ by more than a second of it.
    player.wait_present("a window of 4 s", 0, |p| p.behind_s.is_some_and(|s| s >= 4.0));
    // A click on the strip's first quarter seeks into the past, three quarters of the window
    // behind live; on its last quarter, a quarter behind.
    let mouse = |args: &[&str]| x.xdotool(&[&["mousemove", "--window", &player.window][..], args].concat());
    let mut behind = Vec::new();
    let mut rect = [left, top, width, height];
    for share in [0.25, 0.75] {
        if !behind.is_empty() {
            // A frame of the other shape refits the window to it, and the strip moves: where
            // the last few presents agree it is.
            rect = player.poll("the window settled", || {
                let presents = player.presents();
                let last: Vec<_> = presents.iter().rev().take(3).map(|p| (p.size, strip(p))).collect();
                let settled = last.len() == 3 && last.iter().all(|l| *l == last[0]);
                settled.then_some(last[0].1).flatten()
            });
        }
        let [left, top, width, height] = rect;
        let presents = player.presents();
        let generation = presents.iter().map(|p| p.generation).max().unwrap_or(0);
        let y = (top + height / 2).to_string();
        let x = (f64::from(left) + share * f64::from(width)).round().to_string();
        mouse(&[&x, &y, "click", "1"]);
        // The seek's own frame (a seek starts a generation).
        let landed = player.wait_present("a click on the timeline", presents.len(), |p| {
            p.new_frame && p.generation > generation
        });
        behind.push(landed.behind_s.unwrap());
    }
    assert!(behind[0] > 1.0 && behind[0] > behind[1] + 1.0, "{behind:?}");
    let before = player.key("End");
    let live = player.wait_present("live again", before, |p| p.new_frame && p.behind_s.is_none());
    assert!(!live.paused);

    // Timeshift across the changes: the past plays back in its own shapes.
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let before = player.key("Left");
    let back = player.wait_present("a seek back", before, |p| p.new_frame && p.behind_s.is_some());
    let before = player.key("space");
    let past = player.wait_present("the past changing shape", before, |p| {
        p.new_frame && p.behind_s.is_some() && p.picture != back.picture
    });
    assert!(!past.paused);
    // Playing on until each shape has had its frames counted (a busy machine draws few).
    player.poll("frames of both shapes counted", || {
        let presents = player.presents();
        let counted = |shape: (u32, u32)| {
            let frames = presents.iter().filter(|p| p.picture == shape && p.signal.is_some());
            frames
                .filter_map(|p| p.signal.as_deref()?.split_once(':'))
                .map(|(f, _)| f)
                .collect::<std::collections::HashSet<_>>()
                .len()
        };
        (counted((320, 240)) > 12 && counted((256, 144)) > 12).then_some(())
    });
    player.key("q");
    assert!(player.wait_exit().success());
    drop(sender);
    assert!(
        player.stderr().contains("the picture changed mid-stream"),
        "{}",
        player.stderr()
    );

    // Every frame counted is FFmpeg's for a frame of the segment of its shape, value for value
    // (testsrc2 moves every frame: no two frames of a segment are alike).
    let stats = |path: &std::path::Path| common::ffprobe_stats(path);
    let (wide_stats, small_stats) = (stats(&wide), stats(&small));
    let names = histoplay::signalstats::NAMES;
    let presents = player.presents();
    let pictures: std::collections::HashMap<u64, (u32, u32)> = (presents.iter())
        .filter(|p| p.new_frame)
        .filter_map(|p| Some((p.frame?, p.picture)))
        .collect();
    let mut counted = [0, 0];
    for present in presents.iter().filter(|p| p.signal.is_some()) {
        let (frame, values) = present.signal.as_deref().unwrap().split_once(':').unwrap();
        let values: Vec<&str> = values.split(',').collect();
        assert_eq!(values.len(), names.len(), "{present:?}");
        let (segment, n) = match pictures[&frame.parse().unwrap()] {
            (320, 240) => (&wide_stats, 0),
            (256, 144) => (&small_stats, 1),
            other => panic!("a picture of {other:?}"),
        };
        let same = |frame: &std::collections::BTreeMap<String, String>| {
            names
                .iter()
                .zip(&values)
                .all(|(name, v)| *v == "-" || frame[*name] == *v)
        };
        assert_eq!(segment.iter().filter(|f| same(f)).count(), 1, "{present:?}");
        counted[n] += 1;
    }
    assert!(counted[0] > 10 && counted[1] > 10, "{counted:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
