//! Live inputs: a pipe, a UDP stream and FFmpeg input formats with options read as files are
//! (`report`'s and `hist`'s values against the same stream read from a file), `--record`
//! against `ffmpeg -c copy` packet for packet, and a report and a recording ended by SIGTERM
//! whole. The streams are made by FFmpeg inside the tests.

mod common;
mod window;

use common::fixture;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn histoplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .unwrap()
}

/// 50 frames of testsrc2 with a 440 Hz tone, H.264 with B-frames in 25-frame GOPs, AAC, in
/// MPEG-TS: what a broadcast or an encoder's stream carries.
fn stream_ts() -> PathBuf {
    fixture(
        "live-av.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=48000",
            "-t",
            "2",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-bf",
            "2",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-f",
            "mpegts",
        ],
    )
}

fn lines(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each frame's values without its pts (a stream sent again is stamped anew).
fn values(frames: &[Value]) -> Vec<Value> {
    frames
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.as_object_mut().unwrap().remove("pts");
            f
        })
        .collect()
}

/// `histoplay ARGS -` with `input`'s bytes on its stdin.
fn histoplay_piped(args: &[&str], input: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let bytes = std::fs::read(input).unwrap();
    let mut stdin = child.0.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = common::output_of(&mut child.0);
    writer.join().unwrap();
    out
}

#[test]
fn a_pipe_is_reported_frame_for_frame_as_the_file_is() {
    let ts = stream_ts();
    let from_file = lines(&histoplay(&["report", ts.to_str().unwrap()]));
    assert_eq!(from_file.len(), 50);
    let piped = lines(&histoplay_piped(&["report", "-"], &ts));
    // Same frames, same numbers, same times, same values.
    assert_eq!(piped, from_file);
    // And through `hist`: frame 30, after the second keyframe, by its number.
    let hist_file = lines(&histoplay(&["hist", ts.to_str().unwrap(), "--frame", "30"]));
    let hist_pipe = lines(&histoplay_piped(&["hist", "-", "--frame", "30"], &ts));
    assert_eq!(hist_pipe, hist_file);
    assert_eq!(hist_pipe[0]["frame"], 30);
    // `scope`, and `compare` with the pipe as its reference.
    let scope_file = lines(&histoplay(&["scope", ts.to_str().unwrap(), "--frame", "12"]));
    let scope_pipe = lines(&histoplay_piped(&["scope", "-", "--frame", "12"], &ts));
    assert_eq!(scope_pipe, scope_file);
    let compared = lines(&histoplay_piped(&["compare", "-", ts.to_str().unwrap()], &ts));
    assert_eq!(compared.len(), 50);
    assert!(compared
        .iter()
        .all(|f| f["frame"] == f["frame_b"] && f["ssim_all"] == 1.0));
}

#[test]
fn a_pipes_sound_is_reported_as_the_files_is_beside_its_pictures() {
    // 2 s of testsrc2 and a tone silent from 0.5 to 1.5 s (AAC), in MPEG-TS.
    let ts = fixture(
        "live-silence.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=160x120:rate=25",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=if(between(t\\,0.5\\,1.5)\\,0\\,0.5*sin(2*PI*440*t)):s=48000:d=2",
            "-t",
            "2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-f",
            "mpegts",
        ],
    );
    let args = ["--audio", "--silence", "d=0.5", "--fail-on", "silence>0.8s"];
    let run = |out: Output| {
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let of = |key: &str| -> Vec<Value> { lines.iter().filter(|l| l.get(key).is_some()).cloned().collect() };
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (of("frame"), of("audio_frame"), of("event"), stderr)
    };
    let file = run(histoplay(&[&["report", ts.to_str().unwrap()], &args[..]].concat()));
    let piped = run(histoplay_piped(&[&["report", "-"], &args[..]].concat(), &ts));
    assert_eq!(file.0.len(), 50);
    assert_eq!(piped.0, file.0, "the pictures");
    // The sound's 100 ms frames, value for value (astats, ebur128), written as they come.
    // (21, as ffprobe's amovie cuts them: 2 s and the AAC encoder's padding.)
    assert_eq!(file.1.len(), 21);
    assert_eq!(piped.1, file.1, "the sound");
    assert!(file.1[19]["r128.I"].as_f64().unwrap() > -20.0, "{}", file.1[19]);
    // The silence, listed, and beyond its limit.
    assert_eq!(
        file.2.iter().filter(|e| e["event"] == "silence").count(),
        1,
        "{:?}",
        file.2
    );
    assert_eq!(piped.2, file.2, "the events");
    // A range's sound is of its span, its silence cut to it, as the file's.
    let range = ["--frames", "10..40"];
    let file = run(histoplay(
        &[&["report", ts.to_str().unwrap()], &args[..], &range[..]].concat(),
    ));
    let piped_range = run(histoplay_piped(
        &[&["report", "-"], &args[..], &range[..]].concat(),
        &ts,
    ));
    assert_eq!(file.0.len(), 30);
    assert_eq!(
        (piped_range.0, piped_range.1, piped_range.2),
        (file.0, file.1.clone(), file.2)
    );
    assert_eq!(file.1.len(), 13, "the 100 ms frames that overlap frames 10 to 39");
    // Where FFmpeg's silencedetect finds it, in the stream's own times.
    let ffmpeg = Command::new("ffmpeg")
        .args(["-hide_banner", "-copyts", "-i"])
        .arg(&ts)
        .args(["-af", "silencedetect=d=0.5", "-f", "null", "-"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&ffmpeg.stderr).into_owned();
    let value = |key: &str| -> f64 {
        let at = said.find(key).unwrap_or_else(|| panic!("{key} in {said}")) + key.len();
        said[at..].split_whitespace().next().unwrap().parse().unwrap()
    };
    let silence = piped.2.iter().find(|e| e["event"] == "silence").unwrap();
    for (ours, theirs) in [("start", "silence_start: "), ("end", "silence_end: ")] {
        let (ours, theirs) = (silence[ours].as_f64().unwrap(), value(theirs));
        assert!((ours - theirs).abs() < 1e-5, "{silence}: {theirs}");
    }
    for stderr in [&file.3, &piped.3] {
        assert!(stderr.contains("silence>0.8s: audio frames"), "{stderr}");
        assert!(stderr.ends_with("1 run of frames beyond the limits\n"), "{stderr}");
    }
    // The page: the sound measured, the duration what was read (50 frames at 25 fps).
    let page = temp_dir("live-page").join("page.html");
    let paged = histoplay_piped(&["report", "-", "--html", page.to_str().unwrap()], &ts);
    assert!(paged.status.success(), "{}", String::from_utf8_lossy(&paged.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<tr><th>Duration</th><td>0:02 (2.000 s)</td></tr>"),
        "{html}"
    );
    assert!(
        html.contains("<tr><th>Sound</th><td>48000 Hz, 1 channel</td></tr>"),
        "{html}"
    );
    assert!(html.contains("<td>aac"), "{html}");
    assert_eq!(html.matches("<td>measured").count(), 2, "both streams: {html}");
    std::fs::remove_dir_all(page.parent().unwrap()).unwrap();
    // A track it doesn't have, as a file's.
    let missing = histoplay_piped(&["report", "-", "--aid", "2"], &ts);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "error: '-' has 1 audio stream: no audio track 2\n"
    );
}

#[test]
fn a_udp_stream_is_read_as_it_arrives_and_ends_when_it_stops() {
    let ts = stream_ts();
    let from_file = lines(&histoplay(&["report", ts.to_str().unwrap()]));
    let port = 20_000 + (std::process::id() % 20_000) as u16;
    let url = format!("udp://127.0.0.1:{port}");
    // The receiver first; it ends 2 s after the last packet. The sender starts once the
    // receiver's socket is bound.
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", &url, "--input-option", "timeout=2000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    wait_udp_bound(port);
    send_copy(&ts, &format!("{url}?pkt_size=1316"));
    let out = common::output_of(&mut receiver.0);
    let received = lines(&out);
    assert_eq!(values(&received), values(&from_file));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the input ended"), "{stderr}");
}

#[test]
fn bench_live_counts_every_frame_of_a_stream_shown_or_dropped() {
    let ts = stream_ts();
    let frames = lines(&histoplay(&["report", ts.to_str().unwrap()])).len() as u64;
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 6;
    let url = format!("udp://127.0.0.1:{port}");
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args([
            "bench-live",
            &url,
            "--seconds",
            "60",
            "--input-option",
            "timeout=2000000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    wait_udp_bound(port);
    send_copy(&ts, &format!("{url}?pkt_size=1316"));
    let out = common::output_of(&mut receiver.0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    // `  N s: S frames shown (F fps), D dropped for a backlog here, P passed over by ...`
    let line = text.lines().find(|l| l.contains("frames shown")).expect("the totals");
    let numbers: Vec<u64> = line
        .split([' ', ','])
        .zip(line.split([' ', ',']).skip(1))
        .filter(|(_, next)| ["frames", "dropped", "passed"].contains(next))
        .map(|(n, _)| n.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 3, "{line}");
    assert_eq!(numbers.iter().sum::<u64>(), frames, "{line}");
    assert!(text.contains("arrival to GPU work done: p50"), "{text}");
    assert!(text.contains("minute  1:"), "{text}");
}

#[test]
fn a_sender_restarted_mid_stream_reads_on_as_one_stream() {
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 1;
    let url = format!("udp://127.0.0.1:{port}");
    let dir = temp_dir("restart");
    let recording = dir.join("capture.mkv");
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", &url, "--input-option", "timeout=2000000", "--record"])
        .arg(&recording)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    wait_udp_bound(port);
    // The same 2 s twice: the second sender starts its timestamps over.
    for _ in 0..2 {
        send_two_seconds(&format!("{url}?pkt_size=1316"));
    }
    let out = common::output_of(&mut receiver.0);
    let frames = lines(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("warning: {url}: the timestamps jumped by -")),
        "{stderr}"
    );
    // One stream of 100 frames, numbered and timed on through the restart.
    assert_eq!(frames.len(), 100, "{stderr}");
    assert!(frames.iter().enumerate().all(|(n, f)| f["frame"] == n as u64));
    let times: Vec<f64> = frames.iter().map(|f| f["pts"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| (w[1] - w[0] - 0.04).abs() < 1e-6), "{times:?}");
    // The second run's pictures are the first's (the differences from the frame before aside
    // for its first frame, which follows the first run's last).
    let without = |f: &Value, keys: &[&str]| {
        let mut f = f.clone();
        let object = f.as_object_mut().unwrap();
        for key in ["frame", "pts"].iter().chain(keys) {
            object.remove(*key);
        }
        f
    };
    let difs = ["YDIF", "UDIF", "VDIF"];
    assert_eq!(without(&frames[50], &difs), without(&frames[0], &difs));
    for n in 51..100 {
        assert_eq!(without(&frames[n], &[]), without(&frames[n - 50], &[]), "frame {n}");
    }
    // The recording holds the one stream, readable to the same values.
    let again = lines(&histoplay(&["report", recording.to_str().unwrap()]));
    assert_eq!(values(&again), values(&frames));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_live_report_tells_each_run_beyond_the_limits_as_it_ends_and_its_qctools_report_reads_as_it_grows() {
    // 1 s of white (Y' 235), then 4 s of grey, sent in real time on a pipe.
    let clip = fixture(
        "live-white-then-grey.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=white:s=64x48:r=25:d=1[a];color=c=gray:s=64x48:r=25:d=4[b];[a][b]concat=n=2:v=1:a=0[out0]",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-g",
            "25",
            "-f",
            "mpegts",
        ],
    );
    let dir = temp_dir("alerts");
    let (alerts, qctools) = (dir.join("alerts.jsonl"), dir.join("report.xml.gz"));
    let mut sender = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-re",
            "-i",
            clip.to_str().unwrap(),
            "-c",
            "copy",
            "-f",
            "mpegts",
            "-",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args([
            "report",
            "-",
            "--fail-on",
            "YMAX>200",
            "--format",
            "qctools",
            "--alert-log",
        ])
        .arg(&alerts)
        .arg("--output")
        .arg(&qctools)
        .stdin(sender.0.stdout.take().unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    // The white run ends with the first grey frame, 1 s in: it is in the log while the stream
    // still has seconds to go, and the report so far can be read.
    common::poll("an alert", || {
        std::fs::read_to_string(&alerts).ok().filter(|t| !t.is_empty())
    });
    assert!(sender.0.try_wait().unwrap().is_none(), "the stream is still being sent");
    // Written in place as it grows (a live input may have no end), not beside its name.
    assert!(qctools.exists());
    let line: Value = serde_json::from_str(std::fs::read_to_string(&alerts).unwrap().trim()).unwrap();
    assert_eq!(line["frames"], serde_json::json!([0, 24]));
    assert_eq!(line["limit"], "YMAX>200");
    assert_eq!(line["worst"], 235.0);
    assert!(line["start"].as_str().unwrap() < line["end"].as_str().unwrap());
    // The white run's frames, readable in the report being written.
    let readable = || {
        let mut text = Vec::new();
        let bytes = std::fs::read(&qctools).unwrap_or_default();
        let mut reader = flate2::read::GzDecoder::new(&bytes[..]);
        // (A report still being written has no end yet: what decompresses is what was flushed.)
        let _ = std::io::Read::read_to_end(&mut reader, &mut text);
        String::from_utf8_lossy(&text).matches("<frame ").count()
    };
    let partial = common::poll("the report's first 25 frames", || Some(readable()).filter(|n| *n >= 25));
    assert!(partial >= 25, "{partial} frames readable");
    let out = common::output_of(&mut receiver.0);
    let _ = sender.0.wait();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // (A stream without sound has a QCTools report without it, not a word said.)
    assert!(
        stderr.starts_with("YMAX>200: frames 0-24 (1.480-2.440 s), worst 235\n"),
        "{stderr}"
    );
    assert!(stderr.ends_with("1 run of frames beyond the limits\n"), "{stderr}");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&qctools).unwrap()),
        &mut text,
    )
    .unwrap();
    assert_eq!(text.matches("<frame ").count(), 125);
    assert!(text.contains("pkt_pts=\"133200\""), "the frames' own pts");
    assert!(text.trim_end().ends_with("</ffprobe:ffprobe>"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sends 2 s of testsrc2 in real time to `url` (H.264 with B-frames in MPEG-TS), to its end.
fn send_two_seconds(url: &str) {
    let sent = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-re",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25",
            "-t",
            "2",
            "-c:v",
            "libx264",
            "-g",
            "10",
            "-bf",
            "2",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "mpegts",
            url,
        ])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Sends `ts` in real time to `url`, stream-copied into MPEG-TS, to its end.
fn send_copy(ts: &Path, url: &str) {
    let sent = Command::new("ffmpeg")
        .args(["-v", "error", "-re", "-i"])
        .arg(ts)
        .args(["-c", "copy", "-f", "mpegts", url])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// testsrc2 of `size` at 25 fps, H.264 in MPEG-TS, sent in real time on the child's stdout
/// until it is killed (when dropped, too).
fn endless_stream(size: &str) -> window::Reaped {
    Command::new("ffmpeg")
        .args(["-v", "error", "-re", "-f", "lavfi", "-i"])
        .arg(format!("testsrc2=size={size}:rate=25"))
        .args([
            "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p", "-f", "mpegts", "-",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap()
}

/// A child's stdout, gathered by a thread as it comes: a test waits for lines on it.
struct Gathered {
    bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Gathered {
    fn start(child: &mut std::process::Child) -> Self {
        let mut stdout = child.stdout.take().unwrap();
        let bytes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let gathered = std::sync::Arc::clone(&bytes);
        let reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut stdout, &mut buffer) {
                gathered.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Self { bytes, reader }
    }

    /// Waits until `n` whole lines have come.
    fn wait_lines(&self, n: usize) {
        common::poll(&format!("{n} lines on stdout"), || {
            let lines = self.bytes.lock().unwrap().iter().filter(|&&b| b == b'\n').count();
            (lines >= n).then_some(())
        });
    }

    /// All of it, once the child has closed its stdout.
    fn finish(self) -> Vec<u8> {
        self.reader.join().unwrap();
        std::sync::Arc::try_unwrap(self.bytes).unwrap().into_inner().unwrap()
    }
}

/// Sends `signal` (`-TERM`, `-INT`, `-STOP`...) to `child`.
fn signal(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal}");
}

/// Whether one of the kernel's socket `tables` (/proc/net/tcp, /proc/net/udp...) has a socket
/// bound to local `port`, in `state` where one is given.
fn socket_on(tables: &[&str], port: u16, state: Option<&str>) -> bool {
    let local = format!(":{port:04X} ");
    tables.iter().any(|table| {
        let table = std::fs::read_to_string(table).unwrap_or_default();
        // "sl local_address rem_address st ...".
        table.lines().skip(1).any(|line| {
            let mut fields = line.split_whitespace().skip(1);
            let (local_address, st) = (fields.next(), fields.nth(1));
            local_address.is_some_and(|a| format!("{a} ").ends_with(&local)) && state.is_none_or(|s| st == Some(s))
        })
    })
}

/// Waits until something on this machine listens on TCP `port` (read from the kernel's table,
/// without connecting: a connection would be the listener's one stream).
fn wait_listening(port: u16) {
    // State 0A is LISTEN.
    let what = format!("a listener on TCP port {port}");
    common::poll(&what, || {
        socket_on(&["/proc/net/tcp", "/proc/net/tcp6"], port, Some("0A")).then_some(())
    });
}

/// Waits until a UDP socket on this machine is bound to `port`: a receiver (UDP, or SRT over
/// it) is ready for what is sent there. (UDP has no listening state: the bound socket is the
/// sign.)
fn wait_udp_bound(port: u16) {
    let what = format!("a receiver's socket on UDP port {port}");
    common::poll(&what, || {
        socket_on(&["/proc/net/udp", "/proc/net/udp6"], port, None).then_some(())
    });
}

/// `histoplay report URL ARGS`, its stdout's lines handed over as they come (its stdin a pipe
/// the test may write to, for `-`).
fn report_lines(url: &str, args: &[&str]) -> (window::Reaped, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", url])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    (window::Reaped(child), received)
}

/// The next `n` lines, or a failure after a minute.
fn take_lines(received: &std::sync::mpsc::Receiver<String>, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    (0..n)
        .map(|i| {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = received
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("line {i} of {n}: {e}"));
            serde_json::from_str(&line).unwrap()
        })
        .collect()
}

/// SIGTERM ends the report of `child` whole: status 143, no error, the lines after those
/// taken numbered on from `next`.
fn ends_whole_on_sigterm(child: &mut window::Reaped, received: &std::sync::mpsc::Receiver<String>, next: u64) {
    signal(&child.0, "-TERM");
    common::poll("the report's end", || child.0.try_wait().unwrap());
    let (status, stderr) = exit_and_stderr(child);
    assert_eq!(status, Some(143), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    for (k, line) in received.try_iter().enumerate() {
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(value["frame"], next + k as u64, "{line}");
    }
}

/// The child's exit status and stderr, once it has exited.
fn exit_and_stderr(child: &mut window::Reaped) -> (Option<i32>, String) {
    let status = child.0.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.0.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

#[test]
fn a_lost_connection_is_opened_again_and_read_on() {
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 3;
    let listen = format!("tcp://127.0.0.1:{port}?listen=1");
    let sender = format!("tcp://127.0.0.1:{port}");
    // Reconnecting (the default): two senders one after the other are one stream, to a signal.
    // Each sender starts once the receiver listens (again).
    let (mut receiver, received) = report_lines(&listen, &[]);
    let mut frames = Vec::new();
    for _ in 0..2 {
        wait_listening(port);
        send_two_seconds(&sender);
    }
    // Every frame of both, the first sender's last ones drained from the decoder too.
    frames.extend(take_lines(&received, 100));
    signal(&receiver.0, "-TERM");
    let (code, stderr) = exit_and_stderr(&mut receiver);
    assert_eq!(code, Some(143), "{stderr}");
    assert!(
        stderr.contains("the connection was lost (End of file): reconnecting"),
        "{stderr}"
    );
    assert!(stderr.contains("reconnected"), "{stderr}");
    assert_eq!(received.iter().count(), 0, "no frame beyond the 100 sent");
    assert!(frames.iter().enumerate().all(|(n, f)| f["frame"] == n as u64));
    // --no-reconnect: the first sender's end is the end.
    let (mut receiver, received) = report_lines(&listen, &["--no-reconnect"]);
    wait_listening(port);
    send_two_seconds(&sender);
    let (code, stderr) = exit_and_stderr(&mut receiver);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(received.iter().count(), 50);
}

#[test]
fn a_stream_that_sends_nothing_is_left_on_a_signal_without_an_error() {
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 2;
    let url = format!("udp://127.0.0.1:{port}");
    // The player and `report` wait for the stream to start; SIGINT and SIGTERM end the wait.
    for (args, sent, status) in [
        (vec![url.as_str()], "-INT", 130),
        (vec!["report", url.as_str()], "-TERM", 143),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(&args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map(window::Reaped)
            .unwrap();
        // Waiting for the stream: its socket bound (the signals' handlers are set before).
        wait_udp_bound(port);
        signal(&child.0, sent);
        let out = common::output_of(&mut child.0);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_live_input_of_sound_alone_or_in_a_batch_is_refused_in_one_line() {
    // Its sound would be read by opening it a second time, which a pipe can't be.
    let sound = fixture(
        "live-sound-alone.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=1",
            "-c:a",
            "aac",
            "-f",
            "mpegts",
        ],
    );
    let out = histoplay_piped(&["report", "-", "--audio"], &sound);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "error: '-' has no video stream: a live input's report is of its pictures (a file of sound alone has its sound's)\n"
    );
    assert!(out.stdout.is_empty());
    // A batch writes each report beside its file: a live input has no place, and is not read.
    let clip = stream_ts();
    let out = histoplay_piped(&["report", "-", clip.to_str().unwrap()], &clip);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "error: '-' is a live input: a batch reports files beside them (report it alone, with --output)\n"
    );
    assert!(!Path::new("-.qctools.xml.gz").exists());
    // A timeline maps a whole file: a stream (here one nobody sends) is refused unopened.
    let picture = std::env::temp_dir().join(format!("histoplay-live-timeline-{}.png", std::process::id()));
    let out = histoplay(&["timeline", "udp://127.0.0.1:9", "-o", picture.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: 'udp://127.0.0.1:9' is read once, as it comes (a pipe or a live stream)"),
        "{stderr}"
    );
    assert!(!picture.exists());
}

#[test]
fn a_pipe_whose_writer_sends_nothing_more_is_left_on_a_signal() {
    // The writer stays, silent: the read waits in the kernel, where FFmpeg never asks whether
    // to stop. A signal ends it all the same, the frames read reported whole.
    let ts = std::fs::read(stream_ts()).unwrap();
    let (mut child, received) = report_lines("-", &[]);
    let mut stdin = child.0.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, &ts).unwrap();
    let first = take_lines(&received, 40);
    assert_eq!(first[39]["frame"], 39);
    ends_whole_on_sigterm(&mut child, &received, 40);
    drop(stdin);
}

#[test]
fn a_filter_graph_that_makes_frames_for_ever_ends_its_report_whole_on_a_signal() {
    // (A graph's frames are made by the demuxer itself, which never asks whether to stop.)
    let graph = "testsrc2=size=64x48:rate=25,realtime";
    let (mut child, received) = report_lines(graph, &["--cpu", "--input-format", "lavfi"]);
    let first = take_lines(&received, 3);
    assert_eq!(first[2]["frame"], 2);
    // Its end, as a live input's, within the wait: every line whole.
    ends_whole_on_sigterm(&mut child, &received, 3);
}

#[test]
fn an_srt_stream_is_read_as_the_file_is() {
    let ts = stream_ts();
    let from_file = lines(&histoplay(&["report", ts.to_str().unwrap()]));
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 4;
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args([
            "report",
            &format!("srt://127.0.0.1:{port}?mode=listener"),
            "--no-reconnect",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    // SRT runs over UDP: the listener is up once its socket is bound.
    wait_udp_bound(port);
    // (Without a linger, a caller that closes drops what it has not sent yet: FFmpeg's own
    // receiver then misses the last frames too.)
    send_copy(&ts, &format!("srt://127.0.0.1:{port}?mode=caller&linger=5"));
    let received = lines(&common::output_of(&mut receiver.0));
    assert_eq!(values(&received), values(&from_file));
}

#[test]
fn the_screen_is_a_source() {
    // An X server whose root window is painted red: x11grab reads it, every pixel (255, 0, 0).
    let x = window::Xvfb::start();
    let dir = temp_dir("screen");
    let red = dir.join("red.png");
    let made = Command::new("convert")
        .args(["-size", "1280x720", "xc:#ff0000"])
        .arg(&red)
        .status()
        .unwrap();
    assert!(made.success());
    // (ImageMagick's display sets the root window's background and exits, with status 1.)
    let _ = Command::new("display")
        .args(["-window", "root"])
        .arg(&red)
        .env("DISPLAY", x.display())
        .status()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["hist", x.display(), "--frame", "3", "--input-format", "x11grab"])
        .args(["--input-option", "video_size=64x48", "--input-option", "framerate=10"])
        .env("DISPLAY", x.display())
        .output()
        .unwrap();
    let frame = &lines(&out)[0];
    assert_eq!((frame["frame"].as_u64(), frame["width"].as_u64()), (Some(3), Some(64)));
    let counts = |channel: &str| -> Vec<(usize, u64)> {
        let bins = frame[channel].as_array().unwrap();
        bins.iter()
            .enumerate()
            .filter(|(_, v)| v.as_u64() != Some(0))
            .map(|(i, v)| (i, v.as_u64().unwrap()))
            .collect()
    };
    assert_eq!(counts("r"), [(255, 64 * 48)]);
    assert_eq!(counts("g"), [(0, 64 * 48)]);
    assert_eq!(counts("b"), [(0, 64 * 48)]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_live_inputs_sound_is_the_audio_track_asked_for() {
    use histoplay::audio::source::{AudioError, AudioSource, AudioTrack};
    use histoplay::video::source::VideoSource;
    // Two audio tracks, 440 and 1000 Hz, read once through a FIFO.
    let ts = fixture(
        "live-two-tracks.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=64x48:rate=25",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:sample_rate=48000",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=1000:sample_rate=48000",
            "-map",
            "0",
            "-map",
            "1",
            "-map",
            "2",
            "-t",
            "2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-f",
            "mpegts",
        ],
    );
    let dir = temp_dir("two-tracks");
    let hz_of = |track: AudioTrack| -> Result<f64, String> {
        let fifo = dir.join(format!("{track:?}.ts"));
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let writer = {
            let (ts, fifo) = (ts.clone(), fifo.clone());
            std::thread::spawn(move || {
                let _ = std::fs::write(&fifo, std::fs::read(ts).unwrap());
            })
        };
        let mut video = VideoSource::open(&fifo).unwrap();
        assert!(video.info.live);
        let tapped = video.tap_audio(track);
        let result = tapped
            .map_err(|m| AudioError::missing(&fifo, m).to_string())
            .map(|tapped| {
                let mut sound = AudioSource::fed(&fifo, tapped, 48_000, 2).unwrap();
                while video.next_frame().unwrap().is_some() {}
                drop(video);
                let mut samples = Vec::new();
                while let Some(chunk) = sound.next_chunk() {
                    samples.extend(chunk.samples.into_iter().step_by(2));
                }
                tone_hz(&samples, 48_000.0)
            });
        writer.join().unwrap();
        result
    };
    let best = hz_of(AudioTrack::Best).unwrap();
    let second = hz_of(AudioTrack::Nth(2)).unwrap();
    // (Within 2%: the AAC frames' edges.)
    assert!((best - 440.0).abs() < 9.0, "{best} Hz");
    assert!((second - 1000.0).abs() < 20.0, "{second} Hz");
    let third = hz_of(AudioTrack::Nth(3)).unwrap_err();
    assert!(third.ends_with("has 2 audio streams: no audio track 3"), "{third}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_live_inputs_sound_comes_from_its_video_decoder_on_the_same_clock() {
    use histoplay::audio::source::AudioSource;
    use histoplay::video::source::VideoSource;
    let ts = stream_ts();
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 5;
    let url = format!("udp://127.0.0.1:{port}");
    let sender = {
        let (ts, url) = (ts.clone(), format!("{url}?pkt_size=1316"));
        std::thread::spawn(move || {
            // Once the reader below has its socket bound.
            wait_udp_bound(port);
            send_copy(&ts, &url);
        })
    };
    // Opening waits for the stream; it is live, so its sound can't be read apart from it.
    let mut video = VideoSource::open(Path::new(&url)).unwrap();
    assert!(video.info.live);
    let tapped = video.tap_audio(Default::default()).expect("the stream has sound");
    let mut sound = AudioSource::fed(Path::new(&url), tapped, 48_000, 2).unwrap();
    let mut times = Vec::new();
    while times.len() < 40 {
        times.push(video.next_frame().unwrap().expect("a frame").seconds);
    }
    sender.join().unwrap();
    // The video's reader gone, the sound ends where it was read to.
    drop(video);
    let first = sound.next_chunk().expect("sound");
    let (start, mut samples) = (first.start, first.samples);
    while let Some(chunk) = sound.next_chunk() {
        samples.extend(chunk.samples);
    }
    let seconds = samples.len() as f64 / 2.0 / 48_000.0;
    // On the video's clock: from about its first frame to about its 40th (the packets are
    // interleaved by time).
    assert!(
        (start - times[0]).abs() < 0.1,
        "sound at {start}, picture at {}",
        times[0]
    );
    assert!((start + seconds - times[39]).abs() < 0.2, "{start} + {seconds} s");
    // The 440 Hz tone.
    let mono: Vec<f32> = samples.iter().step_by(2).copied().collect();
    let hz = tone_hz(&mono, 48_000.0);
    assert!((hz - 440.0).abs() < 5.0, "{hz} Hz");
    // Its packets are kept: the sound of the past (timeshift) is decoded again from the one
    // that holds frame 10's time (an AAC packet is 1024 samples), to where it was read to, the
    // same samples as the first time.
    sound.seek(times[10]);
    let again = sound.next_chunk().expect("the sound of the past");
    assert!(
        again.start <= times[10] && times[10] - again.start < 1024.0 / 48_000.0 + 1e-6,
        "{}",
        again.start
    );
    let (from, mut replayed) = (again.start, again.samples);
    while let Some(chunk) = sound.next_chunk() {
        replayed.extend(chunk.samples);
    }
    let offset = ((from - start) * 48_000.0).round() as usize * 2;
    // (Past the decoder's first packet, which starts it afresh.)
    let settled = 2 * 2048;
    assert_eq!(offset + replayed.len(), samples.len());
    let close = replayed[settled..]
        .iter()
        .zip(&samples[offset + settled..])
        .all(|(a, b)| (a - b).abs() < 1e-4);
    assert!(close, "the past's samples differ from the first decode");
}

/// The packets of `path` as ffprobe lists them: stream, pts, dts, duration, flags and an MD5
/// of the data.
fn packets(path: &Path) -> Vec<String> {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "packet=stream_index,pts,dts,duration,size,flags,data_hash",
            "-show_data_hash",
            "md5",
            "-of",
            "csv=p=0",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// A tone's frequency in `samples` (one channel at `rate`), from its rising zero crossings.
fn tone_hz(samples: &[f32], rate: f64) -> f64 {
    let rising = samples.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
    rising as f64 / (samples.len() as f64 / rate)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("histoplay-live-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_recording_holds_the_packets_ffmpeg_stream_copy_writes() {
    let ts = stream_ts();
    let dir = temp_dir("record");
    for (extension, ffmpeg_flags) in [
        ("ts", &[][..]),
        ("mkv", &[][..]),
        ("mp4", &["-movflags", "+frag_keyframe+default_base_moof"][..]),
    ] {
        let recorded = dir.join(format!("histoplay.{extension}"));
        let copied = dir.join(format!("ffmpeg.{extension}"));
        let out = histoplay_piped(&["report", "-", "--record", recorded.to_str().unwrap()], &ts);
        assert_eq!(lines(&out).len(), 50);
        let ffmpeg = Command::new("ffmpeg")
            .args(["-v", "error", "-i", "-", "-c", "copy"])
            .args(ffmpeg_flags)
            .arg(&copied)
            .stdin(std::fs::File::open(&ts).unwrap())
            .status()
            .unwrap();
        assert!(ffmpeg.success());
        let (ours, theirs) = (packets(&recorded), packets(&copied));
        // 50 video packets and the tone's AAC frames, data and timestamps alike.
        assert!(ours.len() > 50 + 90, "{extension}: {} packets", ours.len());
        assert_eq!(ours, theirs, "{extension}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_ends_a_live_report_and_its_recording_whole() {
    let dir = temp_dir("sigterm");
    let recording = dir.join("capture.mkv");
    // An endless stream in real time on a pipe.
    let mut sender = endless_stream("320x240");
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "-", "--record", recording.to_str().unwrap()])
        .stdin(sender.0.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let report = Gathered::start(&mut receiver.0);
    // Some frames in (recorded and reported), then the signal.
    common::poll("something recorded", || {
        (std::fs::metadata(&recording).map_or(0, |m| m.len()) >= 20_000).then_some(())
    });
    report.wait_lines(25);
    signal(&receiver.0, "-TERM");
    let out = common::output_of(&mut receiver.0);
    drop(sender);
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(report.finish()).unwrap();
    assert!(text.ends_with('\n'), "the report's last line is whole");
    let live: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(live.len() >= 25, "{} frames", live.len());
    // The recording is whole: every frame reported is in it, and reads to the same values.
    let again = lines(&histoplay(&["report", recording.to_str().unwrap()]));
    assert_eq!(values(&again), values(&live));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigint_ends_hist_of_an_endless_stream_with_every_line_whole() {
    let mut sender = endless_stream("160x120");
    let mut receiver = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["hist", "-", "--frames", "0.."])
        .stdin(sender.0.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let hist = Gathered::start(&mut receiver.0);
    // Some frames written, then the signal.
    hist.wait_lines(10);
    signal(&receiver.0, "-INT");
    let out = common::output_of(&mut receiver.0);
    drop(sender);
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(hist.finish()).unwrap();
    let frames: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(frames.len() >= 10 && text.ends_with('\n'), "{} frames", frames.len());
    assert!(frames.iter().enumerate().all(|(n, f)| f["frame"] == n as u64));
    assert!(frames.iter().all(|f| f["r"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum::<u64>()
        == 160 * 120));
}

#[test]
fn input_format_and_options_open_what_probing_cannot() {
    // Raw 4:2:0 frames carry no header: their size, format and rate come from the options.
    let reference = fixture(
        "live-raw-reference.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=96x64:rate=10",
            "-frames:v",
            "6",
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    let dir = temp_dir("raw");
    let raw = dir.join("frames.yuv");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&reference)
        .args(["-f", "rawvideo"])
        .arg(&raw)
        .status()
        .unwrap();
    assert!(made.success());
    let raw_args = [
        "--input-format",
        "rawvideo",
        "--input-option",
        "video_size=96x64",
        "--input-option",
        "pixel_format=yuv420p",
        "--input-option",
        "framerate=10",
    ];
    let from_raw = lines(&histoplay(
        &[&["hist", raw.to_str().unwrap(), "--frame", "4"][..], &raw_args].concat(),
    ));
    let from_mkv = lines(&histoplay(&["hist", reference.to_str().unwrap(), "--frame", "4"]));
    assert_eq!(values(&from_raw), values(&from_mkv));
    assert_eq!(from_raw[0]["pts"], 0.4);
    // A lavfi graph is a source too.
    let graph = lines(&histoplay(&[
        "hist",
        "color=c=0x808080:size=32x16:rate=5:duration=1",
        "--input-format",
        "lavfi",
        "--frame",
        "2",
    ]));
    assert_eq!(graph[0]["frame"], 2);
    assert_eq!(graph[0]["width"], 32);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_formats_and_options_are_one_line_errors() {
    let ts = stream_ts();
    let ts = ts.to_str().unwrap();
    // (Exit status 2 for a command line clap refuses, as for any other option.)
    for (args, expected, status) in [
        (
            vec!["hist", ts, "--frame", "0", "--input-format", "nosuch"],
            "FFmpeg has no input format 'nosuch'",
            1,
        ),
        (
            vec!["report", ts, "--input-option", "bogus=1"],
            "--input-option bogus: neither its format nor its protocol has this option",
            1,
        ),
        (vec!["report", ts, "--input-option", "novalue"], "is not KEY=VALUE", 2),
        (
            vec!["hist", ts, "--input-format", "rawvideo"],
            "(raw video's size is given with --input-option video_size=WxH)",
            1,
        ),
        (
            vec!["report", "udp://127.0.0.1:9", "--format", "qctools"],
            "give --output",
            1,
        ),
        (
            vec!["hist", "udp://127.0.0.1:abc"],
            "'udp://127.0.0.1:abc': its port 'abc' is not a number from 1 to 65535",
            1,
        ),
    ] {
        let out = histoplay(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(expected),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    // The window's comparison steps back and forth, which a live input can't (checked before
    // any window opens).
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["-", "--compare", ts, "--no-audio"])
        .env("DISPLAY", ":999")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let bytes = std::fs::read(ts).unwrap();
    let mut stdin = child.0.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = common::output_of(&mut child.0);
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: '-' is a live input: compare it with `histoplay compare`"
    );
}

#[test]
fn a_transport_stream_with_one_keyframe_seeks_to_any_frame() {
    // MPEG-TS seeks by timestamp alone, landing on packets after the GOP's keyframe: the frame
    // asked for is still decoded, as from the same stream in MP4.
    let ts = fixture(
        "live-one-gop.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=160x120:rate=25",
            "-frames:v",
            "40",
            "-c:v",
            "libx264",
            "-g",
            "250",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let mp4 = fixture("live-one-gop.mp4", &["-i", ts.to_str().unwrap(), "-c", "copy"]);
    for frame in ["1", "17", "39"] {
        let from_ts = lines(&histoplay(&["hist", ts.to_str().unwrap(), "--frame", frame]));
        let from_mp4 = lines(&histoplay(&["hist", mp4.to_str().unwrap(), "--frame", frame]));
        assert_eq!(from_ts.len(), 1, "frame {frame}");
        assert_eq!(values(&from_ts), values(&from_mp4), "frame {frame}");
    }
}

#[test]
fn a_live_inputs_timeline_counts_each_frame_its_window_keeps_as_hist_counts_the_file() {
    use histoplay::timeline::{fill_live, FillControl, LiveTimeline};
    use histoplay::video::decoder::DecodeThread;
    use histoplay::video::source::VideoSource;
    let ts = stream_ts();
    let expected: Vec<Value> = lines(&histoplay(&["hist", ts.to_str().unwrap(), "--frames", "0.."]));
    let port = 20_000 + (std::process::id() % 20_000) as u16 + 7;
    let url = format!("udp://127.0.0.1:{port}");
    let sender = {
        let (ts, url) = (ts.clone(), format!("{url}?pkt_size=1316"));
        std::thread::spawn(move || {
            // Once the reader below has its socket bound.
            wait_udp_bound(port);
            send_copy(&ts, &url);
        })
    };
    // It ends 2 s after the last packet: the decoder gives up the frames it holds.
    let source = VideoSource::open(Path::new(&format!("{url}?timeout=2000000"))).unwrap();
    let gpu = common::gpu();
    let pipeline =
        histoplay::pipeline::FramePipeline::new(&gpu, 256, source.info.format, source.info.volume, 4).unwrap();
    let volume = source.info.volume;
    // A window of 256 MiB holds the whole stream; nothing takes its frames for the ring.
    let decoder = DecodeThread::spawn(source, gpu.queue.clone(), pipeline.ring.slots.clone(), 256 << 20);
    let (timeline, control) = (std::sync::Mutex::new(LiveTimeline::default()), FillControl::default());
    let (tap, window) = (decoder.tap_window(4).unwrap(), decoder.window().unwrap());
    std::thread::scope(|scope| {
        let fill = scope.spawn(|| fill_live(&gpu, volume, tap, &timeline, &window, &control));
        let deadline = Instant::now() + Duration::from_secs(120);
        while timeline.lock().unwrap().filled < expected.len() as u64 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        control.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(fill.join().unwrap().unwrap(), expected.len() as u64);
    });
    sender.join().unwrap();
    let timeline = timeline.into_inner().unwrap();
    let counted: Vec<(f64, &[u32])> = timeline.frames().collect();
    assert_eq!(counted.len(), expected.len());
    let pts = |frame: &Value| frame["pts"].as_f64().unwrap();
    for ((seconds, luma), frame) in counted.iter().zip(&expected) {
        let l: Vec<u32> = serde_json::from_value(frame["l"].clone()).unwrap();
        assert_eq!(*luma, l.as_slice(), "frame {}", frame["frame"]);
        // (The stream's clock may start elsewhere than the file's.)
        let (from_start, file_from_start) = (seconds - counted[0].0, pts(frame) - pts(&expected[0]));
        assert!((from_start - file_from_start).abs() < 1e-6, "{seconds} {frame}");
    }
    // Over two columns, the strip's columns hold each half's sums.
    let data = timeline.data(2, 256, None);
    let half = |range: std::ops::Range<usize>| -> Vec<u64> {
        (0..256)
            .map(|bin| range.clone().map(|n| u64::from(counted[n].1[bin])).sum())
            .collect()
    };
    assert_eq!(data.column(0), half(0..25).as_slice());
    assert_eq!(data.column(1), half(25..50).as_slice());
    // The window let go of its first 30 frames: the strip holds the other 20.
    assert_eq!(timeline.data(2, 256, Some(counted[30].0)).frame_count, 20);
}
