//! The sound in `report`: a QCTools report's audio frames carry, tag for tag and value for
//! value, what `ffprobe -f lavfi "amovie=F,astats=metadata=1:reset=1,ebur128=metadata=1"
//! -show_frames` prints (16-bit PCM, AAC 5.1, MP3, 24-bit FLAC); JSON Lines have them with
//! `--audio`; `--fail-on` finds silences and clipping.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn histoplay(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .unwrap()
}

/// 4 s of 160x120 video at 10 fps with `sound` (an aevalsrc) encoded with `codec`.
fn clip(name: &str, sound: &str, codec: &[&str]) -> PathBuf {
    let mut args = vec![
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x120:r=10:d=4",
        "-f",
        "lavfi",
        "-i",
        sound,
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
    ];
    args.extend_from_slice(codec);
    args.push("-shortest");
    common::fixture(name, &args)
}

/// Each audio frame's tags (key, value) in an ffprobe-style XML document, in order.
fn audio_frames(xml: &str) -> Vec<Vec<(String, String)>> {
    let mut frames = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<frame ") {
        let end = rest[start..].find("</frame>").expect("a closed frame") + start;
        let frame = &rest[start..end];
        if frame.contains("media_type=\"audio\"") {
            let tags = frame
                .split("<tag key=\"")
                .skip(1)
                .map(|tag| {
                    let (key, rest) = tag.split_once("\" value=\"").unwrap();
                    (key.to_string(), rest[..rest.find('"').unwrap()].to_string())
                })
                .collect();
            frames.push(tags);
        }
        rest = &rest[end..];
    }
    frames
}

fn ffprobe_audio(path: &Path) -> Vec<Vec<(String, String)>> {
    ffprobe_audio_stream(path, "streams=da")
}

/// `ffprobe_audio` of the stream `pick` names (amovie's option: `streams=da` the default,
/// `si=N` the file's stream N).
fn ffprobe_audio_stream(path: &Path, pick: &str) -> Vec<Vec<(String, String)>> {
    let graph = format!(
        "amovie={}:{pick},astats=metadata=1:reset=1,ebur128=metadata=1",
        path.display()
    );
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-f", "lavfi", &graph, "-show_frames", "-of", "xml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    audio_frames(&String::from_utf8(out.stdout).unwrap())
}

/// The QCTools report of `path`, written under a name of its own: the tests run at once, and
/// two writing one file would read each other's half-written report.
fn qctools_report(path: &Path) -> String {
    qctools_report_with(path, &[])
}

/// `qctools_report` with `args` besides.
fn qctools_report_with(path: &Path, args: &[&str]) -> String {
    static REPORTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = REPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let report = path.with_extension(format!("audio-{n}.qctools.xml.gz"));
    let mut all: Vec<&std::ffi::OsStr> = vec![
        "report".as_ref(),
        "--format".as_ref(),
        "qctools".as_ref(),
        "-o".as_ref(),
        report.as_os_str(),
        path.as_os_str(),
    ];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let out = histoplay(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut text = String::new();
    let file = std::fs::File::open(&report).unwrap();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text).unwrap();
    text
}

fn assert_same_audio(path: &Path, frames: usize) {
    let report = qctools_report(path);
    let ours = audio_frames(&report);
    let theirs = ffprobe_audio(path);
    assert_eq!(ours.len(), frames, "{}", path.display());
    assert_eq!(theirs.len(), frames, "{}", path.display());
    for (n, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "audio frame {n} of {}", path.display());
    }
    // The video's frames are there too, before the sound's.
    assert_eq!(report.matches("media_type=\"video\"").count(), 40);
    assert!(report.find("media_type=\"video\"") < report.find("media_type=\"audio\""));
}

/// `report --fail-on silence>1s,clip>0 --alert-log` of `pcm()`'s sound (in `file`): the
/// clipping from 3 s is a run, listed and logged; the right channel's silence is not silence,
/// the left one playing on.
fn assert_clipping_is_found_and_one_channels_silence_is_not(file: &Path) {
    let alerts = file.with_extension("alerts.jsonl");
    let _ = std::fs::remove_file(&alerts);
    let out = histoplay(&[
        "report".as_ref(),
        "--fail-on".as_ref(),
        "silence>1s,clip>0".as_ref(),
        "--alert-log".as_ref(),
        alerts.as_os_str(),
        file.as_os_str(),
    ]);
    let logged = std::fs::read_to_string(&alerts).unwrap();
    let logged: Vec<serde_json::Value> = logged.lines().map(common::json).collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["limit"], "clip>0");
    assert_eq!(logged[0]["frames"], serde_json::json!([30, 39]));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("silence"), "{stderr}");
    assert!(
        stderr.contains("clip>0: audio frames 30-39 (3.000-3.900 s), worst 4800"),
        "{stderr}"
    );
    assert!(stderr.contains("1 run of frames beyond the limits"), "{stderr}");
}

/// Stereo 16-bit PCM at 48 kHz: a sine with a DC offset on the left, on the right silence for
/// 1.5 s, then a sine, then a square wave beyond full scale (clipping) from 3 s.
fn pcm() -> PathBuf {
    clip(
        "report-audio-pcm.mkv",
        "aevalsrc=0.02+0.3*sin(2*PI*440*t)|if(lt(t\\,1.5)\\,0\\,if(lt(t\\,3)\\,0.5*sin(2*PI*1000*t)\\,if(lt(mod(t*250\\,1)\\,0.5)\\,1.2\\,-1.2))):s=48000:d=4",
        &["-c:a", "pcm_s16le"],
    )
}

#[test]
fn a_qctools_report_has_ffmpegs_astats_and_ebur128_for_each_100_ms_of_sound() {
    // 16-bit PCM: astats reads integers.
    assert_same_audio(&pcm(), 40);
    // AAC 5.1 at 44.1 kHz: planar floats, 4410-sample frames, the last one shorter (no
    // loudness tags in it where it is shorter than 100 ms, as FFmpeg writes it).
    let surround = clip(
        "report-audio-51.mp4",
        "aevalsrc=0.1*sin(2*PI*300*t)|0.2*sin(2*PI*500*t)|0.05*sin(2*PI*700*t)|0.3*sin(2*PI*60*t)|0.1*sin(2*PI*900*t)|0.15*sin(2*PI*1100*t):s=44100:d=4:c=5.1",
        &["-c:a", "aac", "-b:a", "256k"],
    );
    let report = audio_frames(&qctools_report(&surround));
    assert_same_audio(&surround, report.len());
    assert_eq!(
        report[0].iter().filter(|(k, _)| k.ends_with(".Peak_level")).count(),
        7,
        "6 channels and overall"
    );
    // MP3 at 32 kHz, and 24-bit FLAC (integers in 32 bits).
    let mp3 = clip(
        "report-audio.mp3.mkv",
        "aevalsrc=0.4*sin(2*PI*220*t)*sin(2*PI*0.5*t):s=32000:d=4",
        &["-c:a", "libmp3lame", "-b:a", "96k"],
    );
    assert_same_audio(&mp3, audio_frames(&qctools_report(&mp3)).len());
    let flac = clip(
        "report-audio-24.mkv",
        "aevalsrc=0.25*sin(2*PI*1000*t)|0.001*sin(2*PI*50*t):s=48000:d=4",
        &["-c:a", "flac", "-sample_fmt", "s32"],
    );
    assert_same_audio(&flac, 40);
    // Unsigned 8-bit at 8 kHz (handed to astats as doubles).
    let u8 = clip(
        "report-audio-u8.mkv",
        "aevalsrc=0.3*sin(2*PI*300*t):s=8000:d=4",
        &["-c:a", "pcm_u8"],
    );
    assert_same_audio(&u8, 40);
    // Sound that starts 1.5 s after the picture: its frames from there.
    let late = common::fixture(
        "report-audio-late.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=10:d=4",
            "-itsoffset",
            "1.5",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.2*sin(2*PI*440*t):s=48000:d=2.5",
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
    assert_same_audio(&late, 25);
    let report = qctools_report(&late);
    let first = &report[report.find("media_type=\"audio\"").unwrap()..];
    assert!(first.contains("pkt_pts_time=\"1.5000000\""), "{}", &first[..200]);
}

#[test]
fn json_lines_have_the_sound_with_audio_and_fail_on_finds_silence_and_clipping() {
    let file = pcm();
    let out = histoplay(&["report".as_ref(), "--audio".as_ref(), file.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(common::json).collect();
    let (video, audio): (Vec<_>, Vec<_>) = lines.iter().partition(|l| l.get("frame").is_some());
    assert_eq!((video.len(), audio.len()), (40, 40));
    // Each line's values are the QCTools report's, as numbers.
    let report = qctools_report(&file);
    let xml = audio_frames(&report);
    // Times in samples as the QCTools report has them: those of the decoded frame each 100 ms
    // starts in (the file's times are milliseconds: 0.099667 s, not 0.1, for the second).
    let starts = audio_attributes(&report, &["pkt_pts"]);
    assert_eq!(starts[1][0], "4784");
    for (n, (line, tags)) in audio.iter().zip(&xml).enumerate() {
        assert_eq!(line["audio_frame"], n as u64);
        let pts: f64 = starts[n][0].parse().unwrap();
        assert_eq!(line["pts"].as_f64(), Some(pts / 48_000.0));
        for (key, value) in tags {
            let key = key.trim_start_matches("lavfi.");
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() => assert_eq!(line[key].as_f64(), Some(v), "{key} of audio frame {n}"),
                _ => assert!(line[key].is_null(), "{key} of audio frame {n}: {}", line[key]),
            }
        }
    }
    // A range of frames has the sound of its span.
    let out = histoplay(&[
        "report".as_ref(),
        "--audio".as_ref(),
        "--frames".as_ref(),
        "10..20".as_ref(),
        file.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let numbers: Vec<u64> = text
        .lines()
        .map(common::json)
        .filter_map(|l| l.get("audio_frame").and_then(serde_json::Value::as_u64))
        .collect();
    assert_eq!(numbers, (10..20).collect::<Vec<u64>>());
    // The right channel is silent for 1.5 s, then clips from 3 s on.
    assert_clipping_is_found_and_one_channels_silence_is_not(&file);
    let quiet = clip(
        "report-audio-silence.mkv",
        "aevalsrc=if(between(t\\,1\\,3.5)\\,0\\,0.3*sin(2*PI*440*t)):s=48000:d=4",
        &["-c:a", "pcm_s16le"],
    );
    let out = histoplay(&[
        "report".as_ref(),
        "--fail-on".as_ref(),
        "silence>2s".as_ref(),
        quiet.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // (silencedetect's silence: 1 s to 3.5 s, in the audio frames from 10 to 35.)
        stderr.contains("silence>2s: audio frames 10-35 (1.000-3.500 s), worst 2.5"),
        "{stderr}"
    );
    let out = histoplay(&[
        "report".as_ref(),
        "--fail-on".as_ref(),
        "silence>3s".as_ref(),
        quiet.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    // Without sound: a note, and the frames' report as ever.
    let silent = common::fixture(
        "report-audio-none.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=10:d=1",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let out = histoplay(&["report".as_ref(), "--audio".as_ref(), silent.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 10);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no audio stream"));
    let out = histoplay(&[
        "report".as_ref(),
        "--fail-on".as_ref(),
        "silence>2x".as_ref(),
        silent.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("'2x' in 'silence>2x' is not a length (as 2s, 1500ms or 1:30)")
    );
}

#[test]
fn a_file_of_sound_alone_is_reported_as_a_videos_sound_is() {
    // The PCM clip's sound alone: a sine on the left; on the right silence for 1.5 s, then a
    // sine, then clipping from 3 s. And a mono mix silent from 1 s to 3.5 s.
    let stem = common::fixture(
        "report-sound-alone.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.02+0.3*sin(2*PI*440*t)|if(lt(t\\,1.5)\\,0\\,if(lt(t\\,3)\\,0.5*sin(2*PI*1000*t)\\,if(lt(mod(t*250\\,1)\\,0.5)\\,1.2\\,-1.2))):s=48000:d=4",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let mix = common::fixture(
        "report-sound-alone-gap.m4a",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=if(between(t\\,1\\,3.5)\\,0\\,0.3*sin(2*PI*440*t)):s=48000:d=4",
            "-c:a",
            "aac",
        ],
    );
    // A QCTools report of its 40 audio frames, tag for tag ffprobe's, and no video frame.
    let report = qctools_report(&stem);
    assert_eq!(report.matches("media_type=\"video\"").count(), 0);
    let (ours, theirs) = (audio_frames(&report), ffprobe_audio(&stem));
    assert_eq!((ours.len(), theirs.len()), (40, 40));
    assert_eq!(ours, theirs);
    // Digital silence in every channel: its loudness unknown (nan) as ffprobe prints it.
    let quiet = common::silent_stretch_mix();
    let report = qctools_report(&quiet);
    assert!(report.contains("<tag key=\"lavfi.r128.M\" value=\"nan\"/>"));
    // (With silencedetect's tags, which ffprobe here runs without.)
    let mut frames = audio_frames(&report);
    for tags in &mut frames {
        tags.retain(|(key, _)| !key.starts_with("lavfi.silence_"));
    }
    let theirs = ffprobe_audio(&quiet);
    assert_eq!(frames.len(), theirs.len());
    for (n, (a, b)) in frames.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "audio frame {n}");
    }
    // JSON Lines: the same frames' values, without --audio.
    let out = histoplay(&["report".as_ref(), stem.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    assert_eq!(lines.len(), 40);
    for (n, (line, tags)) in lines.iter().zip(&ours).enumerate() {
        assert_eq!(line["audio_frame"], n as u64);
        let (key, value) = &tags[0];
        assert_eq!(key, "lavfi.astats.1.DC_offset");
        assert_eq!(
            line["astats.1.DC_offset"].as_f64(),
            value.parse::<f64>().ok(),
            "audio frame {n}"
        );
    }
    // The events: silencedetect's silence of the mix, in its own line.
    let out = histoplay(&["report".as_ref(), "--events".as_ref(), mix.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(common::json)
        .filter(|l| l.get("event").is_some())
        .collect();
    let detected = silencedetect(&mix);
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(events[0]["event"], "silence");
    let start = events[0]["start"].as_f64().unwrap();
    let end = events[0]["end"].as_f64().unwrap();
    assert!(
        (start - detected.0).abs() < 1e-5 && (end - detected.1).abs() < 1e-5,
        "{events:?} against {detected:?}"
    );
    // The limits on sound, listed and logged; the right channel's silence is not silence.
    assert_clipping_is_found_and_one_channels_silence_is_not(&stem);
    let out = histoplay(&[
        "report".as_ref(),
        "--fail-on".as_ref(),
        "silence>2s".as_ref(),
        mix.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // (The run's frames are those its silence starts and ends in.)
    let run = format!(
        "silence>2s: audio frames {}-{} ({:.3}-{:.3} s)",
        (detected.0 * 10.0).floor(),
        (detected.1 * 10.0).floor(),
        detected.0,
        detected.1
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&run),
        "{run}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // What is of pictures: a one-line error each, naming it.
    for (args, says) in [
        (vec!["--pse"], "--pse is for video"),
        (vec!["--frames", "0..5"], "--frames (a range of pictures) is for video"),
        (
            vec!["--fail-on", "YMAX>235"],
            "--fail-on takes limits on its sound only",
        ),
        (
            vec!["--fail-on", "black>2s"],
            "--fail-on takes limits on its sound only",
        ),
        (vec!["--csv"], "CSV has no sound"),
    ] {
        let mut all: Vec<&std::ffi::OsStr> = vec!["report".as_ref(), stem.as_os_str()];
        all.extend(args.iter().map(std::ffi::OsStr::new));
        let out = histoplay(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    }
    // In a batch, given by name: its QCTools report beside it, its 40 frames in the summary.
    let beside = std::path::PathBuf::from(format!("{}.qctools.xml.gz", stem.display()));
    let _ = std::fs::remove_file(&beside);
    let out = histoplay(&["report".as_ref(), stem.as_os_str(), mix.as_os_str()]);
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{summary} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = summary
        .lines()
        .find(|l| l.starts_with(&*stem.to_string_lossy()))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((cells[1], cells[4]), ("40", "ok"), "{summary}");
    let mut text = String::new();
    let file = std::fs::File::open(&beside).unwrap();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text).unwrap();
    assert_eq!(audio_frames(&text), ours);
    // A song with its cover (an attached picture): its sound's report, not the picture's.
    let song = common::song_with_cover();
    let report = qctools_report(&song);
    assert_eq!(report.matches("media_type=\"video\"").count(), 0);
    // Its one picture, without a timestamp, is no stream of frames to warn of.
    let out = histoplay(&["report".as_ref(), song.as_os_str()]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let (ours, theirs) = (audio_frames(&report), ffprobe_audio(&song));
    // (The encoder's priming and padding make 41 frames of 100 ms.)
    assert_eq!((ours.len(), theirs.len()), (41, 41));
    assert_eq!(ours, theirs);
    // Neither pictures nor sound: subtitles alone.
    let subtitles = stem.with_extension("srt");
    std::fs::write(&subtitles, "1\n00:00:00,000 --> 00:00:01,000\nA line\n").unwrap();
    let out = histoplay(&["report".as_ref(), subtitles.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("has neither a video nor an audio stream"), "{stderr}");
}

/// silencedetect's first silence in `path`: its start and end (s).
fn silencedetect(path: &Path) -> (f64, f64) {
    let out = Command::new("ffmpeg")
        .args(["-v", "info", "-nostats", "-i"])
        .arg(path)
        .args(["-af", "silencedetect", "-f", "null", "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    let after = |key: &str| -> f64 {
        let at = text.find(key).unwrap_or_else(|| panic!("{key} in {text}")) + key.len();
        let value = text[at..].split_whitespace().next().unwrap();
        value.parse().unwrap()
    };
    (after("silence_start: "), after("silence_end: "))
}

/// Each audio frame's first attribute values named `attributes` (its times), in order.
fn audio_attributes(xml: &str, attributes: &[&str]) -> Vec<Vec<String>> {
    xml.split("<frame ")
        .skip(1)
        .filter(|frame| frame.contains("media_type=\"audio\""))
        .map(|frame| {
            let head = &frame[..frame.find('>').unwrap()];
            attributes
                .iter()
                .map(|name| {
                    let at = head
                        .find(&format!(" {name}=\""))
                        .unwrap_or_else(|| panic!("{name} in {head}"));
                    let value = &head[at + name.len() + 3..];
                    value[..value.find('"').unwrap()].to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn sound_lost_to_damage_leaves_its_gap_in_the_frames_times_as_ffmpeg_and_is_warned_of() {
    // AAC in MPEG-TS, with about a second of the stream's packets blanked out in the middle:
    // the sound after the gap comes later than its samples counted from the start say.
    let whole = clip(
        "report-audio-damaged-whole.ts",
        "sine=frequency=440:sample_rate=48000",
        &["-c:a", "aac", "-f", "mpegts"],
    );
    let mut bytes = std::fs::read(&whole).unwrap();
    let packets = bytes.len() / 188;
    for k in packets * 40 / 100..packets * 55 / 100 {
        bytes[k * 188 + 4..(k + 1) * 188].fill(0);
    }
    let damaged = whole.with_file_name("report-audio-damaged.ts");
    std::fs::write(&damaged, &bytes).unwrap();
    let report = qctools_report(&damaged);
    // Times as ffprobe gives the frames ebur128 cuts (its `pts` is the report's `pkt_pts`).
    let graph = format!(
        "amovie={},astats=metadata=1:reset=1,ebur128=metadata=1",
        damaged.display()
    );
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-f", "lavfi", &graph, "-show_frames", "-of", "xml"])
        .output()
        .unwrap();
    let theirs = String::from_utf8(out.stdout).unwrap();
    let ours_times = audio_attributes(&report, &["pkt_pts", "nb_samples"]);
    let their_times = audio_attributes(&theirs, &["pts", "nb_samples"]);
    assert!(ours_times.len() > 20, "{}", ours_times.len());
    assert_eq!(ours_times, their_times);
    // A step of more than 100 ms between two frames' times: the gap.
    let starts: Vec<i64> = ours_times.iter().map(|t| t[0].parse().unwrap()).collect();
    let gaps = starts.windows(2).filter(|w| w[1] - w[0] > 4800).count();
    assert_eq!(gaps, 1, "{starts:?}");
    // The values too, tag for tag.
    let (ours, theirs) = (audio_frames(&report), audio_frames(&theirs));
    for (n, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "audio frame {n}");
    }
    let out = histoplay(&["report".as_ref(), "--audio".as_ref(), damaged.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: "), "{stderr}");
    assert!(stderr.contains("damaged sound, reporting on: "), "{stderr}");
    assert!(stderr.contains(" s of it missing at "), "{stderr}");
    // An MP3's first frame, the encoder's delay left out of it, is not damage.
    let mp3 = common::fixture(
        "report-audio-clean.mp3",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=1",
            "-c:a",
            "libmp3lame",
        ],
    );
    let out = histoplay(&["report".as_ref(), "--audio".as_ref(), mp3.as_os_str()]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 10);
    // Nor is IMA ADPCM in WAV, whose packets decode into several frames, only the first with
    // the packet's time (3 s padded to the last packet's 48 984 samples: 31 lines of 100 ms).
    let adpcm = common::fixture(
        "report-audio-adpcm.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=3:sample_rate=16000",
            "-c:a",
            "adpcm_ima_wav",
        ],
    );
    let out = histoplay(&["report".as_ref(), "--audio".as_ref(), adpcm.as_os_str()]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 31);
}

#[test]
fn a_file_of_sound_with_no_samples_is_an_error_and_leaves_no_report() {
    let empty = common::fixture("report-no-samples.wav", &["-f", "lavfi", "-i", "sine", "-t", "0"]);
    let report = common::repo_path("target/report-no-samples.xml.gz");
    let _ = std::fs::remove_file(&report);
    for extra in [&[][..], &["--format", "qctools", "-o", report.to_str().unwrap()]] {
        let mut args = vec!["report", empty.to_str().unwrap()];
        args.extend_from_slice(extra);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let out = histoplay(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        assert!(out.stdout.is_empty());
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.starts_with("error: ") && said.ends_with("its audio stream has no sound to report\n"),
            "{said}"
        );
        assert_eq!(said.lines().count(), 1, "{said}");
    }
    assert!(!report.exists());
}

#[test]
fn the_audio_stream_asked_for_is_reported() {
    // A picture with two sounds: a quiet stereo sine, then a louder mono one.
    let file = common::fixture(
        "report-two-tracks.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=10:d=4",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.05*sin(2*PI*1000*t)|0.05*sin(2*PI*1000*t):s=48000:d=4",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.5*sin(2*PI*300*t)*t/4:s=44100:d=4",
            "-map",
            "0",
            "-map",
            "1",
            "-map",
            "2",
            "-c:v",
            "libx264",
            "-c:a",
            "flac",
        ],
    );
    // (The file's streams: the picture, then the two sounds.)
    for (aid, streams) in [("1", "si=1"), ("2", "si=2")] {
        let ours = audio_frames(&qctools_report_with(&file, &["--aid", aid]));
        let theirs = ffprobe_audio_stream(&file, streams);
        assert_eq!(ours.len(), 40, "--aid {aid}");
        assert_eq!(ours, theirs, "--aid {aid}");
    }
    let out = histoplay(&["report".as_ref(), file.as_os_str(), "--aid".as_ref(), "3".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has 2 audio streams: no audio track 3"), "{stderr}");
}

#[test]
fn sound_that_changes_its_rate_midway_is_measured_afresh_there_as_ffmpegs_filters_made_again() {
    // 1.2 s of stereo at 48 kHz, then 1.3 s at 44.1 kHz, in one MPEG-TS (pieces joined, as a
    // recording across programmes).
    let piece = |name: &str, sound: &str| {
        std::fs::read(common::fixture(
            name,
            &["-f", "lavfi", "-i", sound, "-ac", "2", "-c:a", "mp2", "-f", "mpegts"],
        ))
        .unwrap()
    };
    let first = piece("rate-change-48k.ts", "aevalsrc=0.3*sin(2*PI*440*t):s=48000:d=1.2");
    let second = piece(
        "rate-change-44k.ts",
        "aevalsrc=if(lt(t\\,0.5)\\,0\\,0.5*sin(2*PI*1000*t)):s=44100:d=1.3",
    );
    let joined = common::repo_path(&format!("target/fixtures/rate-change-{}.ts", std::process::id()));
    std::fs::write(&joined, [first, second].concat()).unwrap();
    let report = qctools_report(&joined);
    let ours = audio_frames(&report);
    // FFmpeg's command line makes its filters again at the change: the frames from there,
    // each 100 ms of the new rate, their astats and loudness from nothing.
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(&joined)
        .args([
            "-af",
            "astats=metadata=1:reset=1,ebur128=metadata=1,ametadata=print",
            "-f",
            "null",
            "-",
        ])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let mut theirs: Vec<Vec<(String, String)>> = Vec::new();
    let mut graphs = 0;
    for line in log.lines().filter(|l| l.contains("Parsed_ametadata")) {
        let text = line.split("] ").nth(1).unwrap_or_default();
        if text.starts_with("frame:0 ") {
            graphs += 1;
            theirs.clear();
        }
        if text.starts_with("frame:") {
            theirs.push(Vec::new());
        } else if let (Some((key, value)), Some(frame)) = (text.split_once('='), theirs.last_mut()) {
            frame.push((key.to_string(), value.to_string()));
        }
    }
    assert_eq!(graphs, 2, "{log}");
    assert!(theirs.len() >= 12, "{log}");
    assert!(ours.len() > theirs.len());
    let after = &ours[ours.len() - theirs.len()..];
    for (n, (a, b)) in after.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "audio frame {n} after the change");
    }
    // Timed 100 ms apart at the new rate from the change's first frame, none going back.
    let times = audio_attributes(&report, &["pkt_pts_time", "pkt_duration_time"]);
    let starts: Vec<f64> = times.iter().map(|t| t[0].parse().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[1] > w[0]), "{starts:?}");
    let at = times.len() - theirs.len();
    for t in &times[at..times.len() - 1] {
        assert_eq!(t[1], "0.1000000", "{times:?}");
    }
    let step = starts[at + 2] - starts[at + 1];
    assert!((step - 0.1).abs() < 1e-6, "{starts:?}");
    let _ = std::fs::remove_file(&joined);
}
