//! `report --events` against FFmpeg's own detectors: every black stretch, freeze and silence
//! `ffmpeg -vf blackdetect,freezedetect -af silencedetect` reports, with the same times (as it
//! prints them), at the filters' defaults and with options, on 8-bit 4:2:0 H.264 with 16-bit
//! sound, 10-bit 4:2:2 FFV1 with float sound (events running to the end, silence per channel)
//! full-range MJPEG, and grey, alpha and RGBA (which the detectors read apart from the
//! statistics); on the GPU and by the CPU twin; and the limits on them.

mod common;

use histoplay::signalstats::format::g;
use std::path::{Path, PathBuf};
use std::process::Command;

/// 10 fps 176x144 10-bit 4:2:2 FFV1: moving 1 s, one picture held 1.5 s, moving 1 s, black
/// 1.2 s to the end; float stereo at 44.1 kHz: the left channel sounds until 2 s, the right one
/// is silent from 0.5 s to 1.7 s and from 2 s, both silent to the end.
fn ten_bit() -> PathBuf {
    common::fixture(
        "events-10bit.mkv",
        &[
            "-filter_complex",
            "testsrc2=s=176x144:r=10:d=1[a];\
             testsrc2=s=176x144:r=10:d=0.1,loop=loop=14:size=1:start=0,setpts=N/10/TB[b];\
             testsrc2=s=176x144:r=10:d=1[c];color=c=black:s=176x144:r=10:d=1.2[d];\
             [a][b][c][d]concat=n=4:v=1:a=0,format=yuv422p10le[v];\
             aevalsrc=if(lt(t\\,2)\\,0.5*sin(2*PI*300*t)\\,0)|\
             if(between(t\\,0.5\\,1.7)+gte(t\\,2)\\,0\\,0.2*sin(2*PI*500*t)):s=44100:d=3.7[s]",
            "-map",
            "[v]",
            "-map",
            "[s]",
            "-c:v",
            "ffv1",
            "-c:a",
            "pcm_f32le",
        ],
    )
}

/// Full-range MJPEG (yuvj420p): 2.5 s of dark grey (Y 30: black for limited range's
/// threshold, not for full range's), then 1 s moving.
fn full_range() -> PathBuf {
    common::fixture(
        "events-mjpeg.mkv",
        &[
            "-filter_complex",
            "color=c=0x1e1e1e:s=160x120:r=25:d=2.5[a];testsrc2=s=160x120:r=25:d=1[b];[a][b]concat=n=2:v=1:a=0[v]",
            "-map",
            "[v]",
            "-c:v",
            "mjpeg",
            "-pix_fmt",
            "yuvj420p",
        ],
    )
}

/// 10 fps 160x120 in `format` (FFV1): 1 s of dark grey (code 32 of 8-bit grey: black for
/// blackdetect reading grey as it is, at any depth, not once signalstats has made it Y'CbCr),
/// then 2 s of a `size`-pixel grey square moving 2 pixels a frame over grey
/// (frozen or not by the mean difference over the planes the detectors read: alpha included).
fn apart(format: &str, size: u32) -> PathBuf {
    common::fixture(
        &format!("events-{format}-{size}.mkv"),
        &[
            "-filter_complex",
            &format!(
                "color=c=0x202020:s=160x120:r=10:d=1[d];color=c=0x606060:s=160x120:r=10:d=2[a];\
                 color=c=0x808080:s={size}x{size}:r=10:d=2[b];[a][b]overlay=x=mod(n*2\\,150):y=50[m];\
                 [d][m]concat=n=2:v=1:a=0,format={format}[v]"
            ),
            "-map",
            "[v]",
            "-c:v",
            "ffv1",
        ],
    )
}

/// An event as compared: kind, channel (1 = the first), start, end and duration as FFmpeg
/// prints them.
type Row = (String, Option<u64>, String, Option<String>, Option<String>);

/// What `ffmpeg` reports with these filters (each `name=options`, or the name alone).
fn ffmpeg_events(file: &Path, black: &str, freeze: &str, silence: &str) -> Vec<Row> {
    ffmpeg_events_after(file, "", black, freeze, silence)
}

/// `ffmpeg_events` with the video filters after `before` (a chain ending in a comma).
fn ffmpeg_events_after(file: &Path, before: &str, black: &str, freeze: &str, silence: &str) -> Vec<Row> {
    ffmpeg_events_with(&[], file, (before, ""), black, freeze, silence)
}

/// `ffmpeg_events`, `ffmpeg`'s options for the input (`input`) given before it, the video's and
/// the sound's filters after chains of their own (`before`, each ending in a comma).
fn ffmpeg_events_with(
    input: &[&str],
    file: &Path,
    (before, sound_before): (&str, &str),
    black: &str,
    freeze: &str,
    silence: &str,
) -> Vec<Row> {
    let filter = |name: &str, options: &str| match options {
        "" => name.to_string(),
        o => format!("{name}={o}"),
    };
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats"])
        .args(input)
        .arg("-i")
        .arg(file)
        .args([
            "-vf",
            &format!(
                "{before}{},{}",
                filter("blackdetect", black),
                filter("freezedetect", freeze)
            ),
        ])
        .args([
            "-af",
            &format!("{sound_before}{}", filter("silencedetect", silence)),
            "-f",
            "null",
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    let mut rows = Vec::new();
    let mut freeze_open: Option<(String, Option<String>)> = None;
    let mut silences: std::collections::BTreeMap<Option<u64>, String> = Default::default();
    for line in log.lines() {
        let Some((_, text)) = line.split_once("] ") else {
            continue;
        };
        let field = |key: &str| {
            text.split_once(key)
                .map(|(_, rest)| rest.split([' ', '|']).next().unwrap_or("").to_string())
        };
        let channel = field("channel: ").map(|c| c.parse::<u64>().unwrap() + 1);
        if let Some(start) = field("black_start:") {
            rows.push((
                "black".into(),
                None,
                start,
                field("black_end:"),
                field("black_duration:"),
            ));
        } else if let Some(start) = field("lavfi.freezedetect.freeze_start: ") {
            // (One still open never ended: its filter was made again.)
            if let Some((open, _)) = freeze_open.replace((start, None)) {
                rows.push(("freeze".into(), None, open, None, None));
            }
        } else if let Some(duration) = field("lavfi.freezedetect.freeze_duration: ") {
            freeze_open.as_mut().unwrap().1 = Some(duration);
        } else if let Some(end) = field("lavfi.freezedetect.freeze_end: ") {
            let (start, duration) = freeze_open.take().unwrap();
            rows.push(("freeze".into(), None, start, Some(end), duration));
        } else if let Some(start) = field("silence_start: ") {
            silences.insert(channel, start);
        } else if let Some(end) = field("silence_end: ") {
            let start = silences.remove(&channel).unwrap();
            rows.push(("silence".into(), channel, start, Some(end), field("silence_duration: ")));
        }
    }
    if let Some((start, _)) = freeze_open {
        rows.push(("freeze".into(), None, start, None, None));
    }
    rows.sort();
    rows
}

/// histoplay's events, with these options (empty: none given) and more arguments.
fn our_events(file: &Path, black: &str, freeze: &str, silence: &str, more: &[&str]) -> Vec<Row> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
    command.args(["report", "--events"]).arg(file).args(more);
    for (flag, options) in [("--black", black), ("--freeze", freeze), ("--silence", silence)] {
        if !options.is_empty() {
            command.args([flag, options]);
        }
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = |v: &serde_json::Value| v.as_f64().map(g);
    let mut rows: Vec<Row> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .filter(|line| line.get("event").is_some())
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_string(),
                e.get("channel").and_then(serde_json::Value::as_u64),
                text(&e["start"]).unwrap(),
                text(&e["end"]),
                text(&e["duration"]),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The pictures' events of `rows` (the silences left out).
fn pictures(rows: Vec<Row>) -> Vec<Row> {
    rows.into_iter().filter(|r| r.0 != "silence").collect()
}

fn row(kind: &str, start: &str, end: Option<&str>, duration: Option<&str>) -> Row {
    (
        kind.into(),
        None,
        start.into(),
        end.map(Into::into),
        duration.map(Into::into),
    )
}

#[test]
fn events_are_ffmpegs_at_the_detectors_defaults_on_the_gpu_and_the_cpu() {
    let file = common::events_programme();
    let theirs = ffmpeg_events(&file, "", "", "");
    // What the clip holds, as FFmpeg finds it: the black stretch (frozen too), the held
    // picture, and the silence (its times in samples, as ffmpeg makes them).
    assert_eq!(
        theirs,
        vec![
            row("black", "1", Some("3.52"), Some("2.52")),
            row("freeze", "1", Some("3.52"), Some("2.52")),
            row("freeze", "4.52", Some("7.56"), Some("3.04")),
            row("silence", "1.20033", Some("3.90035"), Some("2.70002")),
        ]
    );
    assert_eq!(our_events(&file, "", "", "", &[]), theirs);
    assert_eq!(our_events(&file, "", "", "", &["--cpu"]), theirs);
    // Shorter stretches with options.
    let (black, freeze, silence) = ("d=0.5:pic_th=0.9:pix_th=0.05", "n=-50dB:d=0.5", "n=-40dB:d=0.5");
    let theirs = ffmpeg_events(&file, black, freeze, silence);
    assert_eq!(our_events(&file, black, freeze, silence, &[]), theirs);
    // Each event's frames: the first and last black picture (25 fps).
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--events"])
        .arg(&file)
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    let black = lines.iter().find(|l| l["event"] == "black").unwrap();
    assert_eq!(black["frames"], serde_json::json!([25, 87]));
    // The frames' lines are there as ever, the events among them.
    let plain = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .arg(&file)
        .output()
        .unwrap();
    let frames: Vec<serde_json::Value> = lines.into_iter().filter(|l| l.get("frame").is_some()).collect();
    let plain: Vec<serde_json::Value> = String::from_utf8(plain.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    assert_eq!(frames, plain);
}

#[test]
fn events_are_ffmpegs_at_10_bits_to_the_end_and_per_channel() {
    let file = ten_bit();
    for (black, freeze, silence) in [
        ("d=1", "d=1", "d=0.5:m=1"),
        ("", "n=-50dB:d=1", "n=-40dB:d=0.5"),
        ("d=0.5:pix_th=0.02", "d=1", "d=1:m=1"),
    ] {
        let theirs = ffmpeg_events(&file, black, freeze, silence);
        assert_eq!(
            our_events(&file, black, freeze, silence, &[]),
            theirs,
            "{black} {freeze} {silence}"
        );
        assert_eq!(our_events(&file, black, freeze, silence, &["--cpu"]), theirs);
    }
    // A freeze going on at the end has a start only; black at the end ends at the last
    // picture's time; silences per channel.
    let theirs = ffmpeg_events(&file, "d=1", "d=1", "d=0.5:m=1");
    assert!(theirs.contains(&row("freeze", "3.5", None, None)), "{theirs:?}");
    assert!(
        theirs.contains(&row("black", "3.5", Some("4.6"), Some("1.1"))),
        "{theirs:?}"
    );
    assert_eq!(theirs.iter().filter(|r| r.0 == "silence").count(), 3, "{theirs:?}");
}

#[test]
fn silences_in_flac_remuxed_with_rounded_timestamps_are_timed_as_ffmpeg_times_them() {
    // FLAC frames of 4608 samples at 44.1 kHz in Matroska's milliseconds: each packet 104 ms
    // long, some 105 ms after the one before, where `ffmpeg` starts the times afresh from the
    // timestamp (its times on frames decoded by several threads move with their count: one
    // thread's are the frames' own).
    let pcm = common::fixture(
        "silence-pcm.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.3*sin(2*PI*440*t)*not(between(t\\,1\\,4)):s=44100:d=6",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let flac = common::fixture(
        "silence-flac-remuxed.mkv",
        &["-i", pcm.to_str().unwrap(), "-c:a", "flac"],
    );
    let theirs = ffmpeg_events_with(&["-threads", "1"], &flac, ("", ""), "", "", "d=2");
    assert_eq!(
        theirs,
        vec![(
            "silence".to_string(),
            None,
            "1.00077".to_string(),
            Some("4.00091".to_string()),
            Some("3.00014".to_string())
        )]
    );
    assert_eq!(our_events(&flac, "", "", "d=2", &[]), theirs);
}

#[test]
fn silences_across_a_change_of_channels_or_rate_are_ffmpegs() {
    // ADTS streams joined end to end, as a broadcast recording changes between programmes:
    // `ffmpeg` makes its filters again at the change, ending a silence going on there, and
    // the new filter counts from nothing at the new rate and channels.
    let part = |name: &str, source: &str, more: &[&str]| {
        common::fixture(
            name,
            &[&["-f", "lavfi", "-i", source][..], more, &["-c:a", "aac"]].concat(),
        )
    };
    let joined = |name: &str, parts: [PathBuf; 2]| {
        let path = common::repo_path(&format!("target/fixtures/{name}"));
        let bytes = [std::fs::read(&parts[0]).unwrap(), std::fs::read(&parts[1]).unwrap()].concat();
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let mono_then_stereo = joined(
        "silence-mono-then-stereo.aac",
        [
            part("silence-mono.aac", "sine=r=48000:d=5", &["-ac", "1"]),
            part(
                "silence-stereo.aac",
                "sine=r=48000:d=6,volume=0:enable='between(t,2,5)'",
                &["-ac", "2"],
            ),
        ],
    );
    let rate_change = joined(
        "silence-48k-then-44k.aac",
        [
            part("silence-48k.aac", "sine=r=48000:d=6,volume=0:enable='gte(t,2)'", &[]),
            part("silence-44k.aac", "sine=r=44100:d=6,volume=0:enable='lt(t,3)'", &[]),
        ],
    );
    for (file, silences) in [(&mono_then_stereo, 1), (&rate_change, 2)] {
        let theirs = ffmpeg_events(file, "", "", "");
        assert_eq!(theirs.len(), silences, "{}: {theirs:?}", file.display());
        assert_eq!(our_events(file, "", "", "", &[]), theirs, "{}", file.display());
        assert_eq!(our_events(file, "", "", "m=1", &[]), ffmpeg_events(file, "", "", "m=1"));
    }
    // Limits on them take lengths as the detectors' `d` does: the longer silence is 4.008 s.
    for (limit, status) in [
        ("silence>4s", 1),
        ("silence>4000ms", 1),
        ("silence>4100ms", 0),
        ("silence>0:05", 0),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["report", "--events", "--fail-on", limit])
            .arg(&rate_change)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(status),
            "{limit}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn pictures_across_a_change_of_size_in_joined_pieces_are_ffmpegs() {
    // Two MPEG-TS pieces joined end to end (H.264 with B-frames, its timestamps starting over
    // at the join), the second at another size, as an advertisement of another format within a
    // broadcast recording: `ffmpeg` runs the second piece on from the first's next decode time,
    // and makes its filters again at the change, ending the black stretch going on there at
    // the first piece's last picture, leaving its freeze without an end, and starting both
    // detectors afresh.
    let part = |name: &str, source: &str| {
        common::fixture(
            name,
            &[
                "-f", "lavfi", "-i", source, "-c:v", "libx264", "-bf", "2", "-g", "25", "-preset", "veryfast", "-f",
                "mpegts",
            ],
        )
    };
    let first = part(
        "events-size-a.ts",
        "testsrc2=s=160x90:r=25:d=1[a];color=black:s=160x90:r=25:d=1.5[b];[a][b]concat=n=2,format=yuv420p",
    );
    let second = part(
        "events-size-b.ts",
        "color=black:s=128x72:r=25:d=1.5[b];testsrc2=s=128x72:r=25:d=1[a];[b][a]concat=n=2,format=yuv420p",
    );
    let path = common::repo_path(&format!("target/fixtures/events-size-joined-{}.ts", std::process::id()));
    std::fs::write(
        &path,
        [std::fs::read(first).unwrap(), std::fs::read(second).unwrap()].concat(),
    )
    .unwrap();
    // `ffmpeg` times from the file's start; the report, as the stream times it.
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0"])
        .arg(&path)
        .output()
        .unwrap();
    let start: f64 = String::from_utf8(probe.stdout).unwrap().trim().parse().unwrap();
    let from_start = |t: &String| g(t.parse::<f64>().unwrap() - start);
    let theirs = pictures(ffmpeg_events(&path, "d=0.5", "d=0.5", ""));
    assert_eq!(
        theirs,
        vec![
            row("black", "1", Some("2.48"), Some("1.48")),
            row("black", "2.52", Some("4.04"), Some("1.52")),
            row("freeze", "1", None, None),
            row("freeze", "2.52", Some("4.04"), Some("1.52")),
        ]
    );
    for more in [vec![], vec!["--cpu"]] {
        let mut ours: Vec<Row> = pictures(our_events(&path, "d=0.5", "d=0.5", "", &more))
            .into_iter()
            .map(|(kind, channel, start, end, duration)| {
                (
                    kind,
                    channel,
                    from_start(&start),
                    end.as_ref().map(from_start),
                    duration,
                )
            })
            .collect();
        ours.sort();
        assert_eq!(ours, theirs, "{more:?}");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_noise_level_in_decibels_is_the_very_level_ffmpeg_makes_of_it() {
    // A square wave of ±5 in 16 bits for 3 s: silent under a level of 6, not of 5. FFmpeg's
    // -74.7457086151611 dB is 6 (its decibels by powers of two), where 10^(x/20) would be 5.
    let wav = common::fixture(
        "silence-level-5.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=if(between(t\\,1\\,4)\\,5/32768*(2*mod(n\\,2)-1)\\,0.5*sin(2*PI*440*t)):s=48000:d=5",
            "-c:a",
            "pcm_s16le",
        ],
    );
    for noise in ["n=-74.7457086151611dB", "n=-74.9dB", "n=-74.6dB"] {
        let theirs = ffmpeg_events(&wav, "", "", noise);
        assert_eq!(our_events(&wav, "", "", noise, &[]), theirs, "{noise}");
    }
    assert_eq!(ffmpeg_events(&wav, "", "", "n=-74.7457086151611dB").len(), 1);
}

#[test]
fn black_in_full_range_is_measured_from_code_zero() {
    let file = full_range();
    // (The grey is one picture held: a freeze.)
    let held = row("freeze", "0", Some("2.52"), Some("2.52"));
    assert_eq!(ffmpeg_events(&file, "", "", ""), vec![held.clone()]);
    assert_eq!(our_events(&file, "", "", "", &[]), vec![held.clone()]);
    let theirs = ffmpeg_events(&file, "pix_th=0.2", "", "");
    assert_eq!(theirs, vec![row("black", "0", Some("2.52"), Some("2.52")), held]);
    assert_eq!(our_events(&file, "pix_th=0.2", "", "", &[]), theirs);
}

#[test]
fn events_of_grey_alpha_rgba_and_4_1_0_are_ffmpegs_on_the_samples_the_detectors_read() {
    // The two filters read grey as it is (not made Y'CbCr, as the statistics are), compare an
    // alpha plane too, take RGBA as Y'CbCr with alpha, and 4:1:0 as it is (where signalstats
    // takes it as 4:2:0, whose larger chroma planes make a moving square's mean difference
    // smaller); each clip's events differ from the ones read off the statistics' planes
    // (signalstats first).
    for (format, size) in [
        ("gray", 12),
        ("gray10le", 12),
        ("yuva420p", 16),
        ("ya8", 16),
        ("bgra", 24),
        ("yuv410p", 16),
    ] {
        let file = apart(format, size);
        let theirs = ffmpeg_events(&file, "d=0.5", "d=0.5", "");
        let black = theirs.contains(&row("black", "0", Some("1"), Some("1")));
        assert_eq!(black, format.starts_with("gray"), "{format}: {theirs:?}");
        assert_ne!(
            theirs,
            ffmpeg_events_after(&file, "signalstats,", "d=0.5", "d=0.5", ""),
            "{format}"
        );
        assert_eq!(our_events(&file, "d=0.5", "d=0.5", "", &[]), theirs, "{format}");
        assert_eq!(
            our_events(&file, "d=0.5", "d=0.5", "", &["--cpu"]),
            theirs,
            "{format} --cpu"
        );
    }
}

/// With `--frames A..B` the detectors start at A, as `trim=start_frame=A:end_frame=B` before
/// them does (the frame before A, read for the differences, is compared with nothing): a
/// freeze held into the range starts at A; where the picture drifts by less than `n` a frame,
/// the reference the comparing keeps is A's (a frame frozen against A − 1 and moved against A
/// is told apart), on the GPU, the CPU twin and the detectors that read grey as decoded.
#[test]
fn a_range_is_compared_from_its_first_frame_as_trim_then_the_filters_compare_it() {
    // A strip of 19 of 64 columns brightening a code a frame from frame 10: a mean difference
    // of 0.00077 of the range a frame, frozen at n=0.001 against the frame before and moved
    // against the one before that.
    let drift = common::fixture(
        "events-drift.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "nullsrc=s=64x64:r=25:d=1.6,format=yuv420p,geq=lum='if(lt(X,19),100+max(N-10,0),100)':cb=128:cr=128",
            "-c:v",
            "ffv1",
        ],
    );
    // (Each file, its frame rate, the range, the detectors' options.)
    for (file, rate, from, to, black, freeze) in [
        (drift, 25.0, 10, None, "", "n=0.001:d=0.04"),
        (common::events_programme(), 25.0, 150, Some(250), "", "d=1"),
        (apart("gray", 12), 10.0, 5, Some(25), "d=0.3", "d=0.3"),
    ] {
        let trim = match to {
            Some(to) => format!("trim=start_frame={from}:end_frame={to},"),
            None => format!("trim=start_frame={from},"),
        };
        let range = format!("{from}..{}", to.map_or(String::new(), |t| t.to_string()));
        let theirs = pictures(ffmpeg_events_after(&file, &trim, black, freeze, ""));
        // (A freeze starts at the range's first frame in each.)
        let first = g(f64::from(from) / rate);
        assert!(
            theirs.iter().any(|r| r.0 == "freeze" && r.2 == first),
            "{}: {theirs:?}",
            file.display()
        );
        for more in [vec!["--frames", &range], vec!["--frames", &range, "--cpu"]] {
            let ours = pictures(our_events(&file, black, freeze, "", &more));
            assert_eq!(ours, theirs, "{} {more:?}", file.display());
        }
    }
}

/// With `--frames A..B` the sound is the range's, cut to the sample as `atrim` cuts it before
/// `silencedetect`: a silence going on at A starts there, one going on at B ends there.
#[test]
fn a_ranges_silences_are_those_of_its_sound_cut_as_atrim_cuts_it() {
    // In Matroska (its times in milliseconds, each frame placed after the one before as
    // `ffmpeg` places it) and in a container timing the sound to the sample.
    let programme = common::events_programme();
    let mov = common::fixture(
        "events-programme.mov",
        &["-i", programme.to_str().unwrap(), "-c", "copy"],
    );
    // (The sound is silent from 1.2 s to 3.9 s; the frames are 25 a second.)
    for (file, from, to) in [(40, 80), (31, 50), (20, 120), (10, 30)]
        .into_iter()
        .flat_map(|(from, to)| [(&programme, from, to), (&mov, from, to)])
    {
        let (start, end) = (f64::from(from) / 25.0, f64::from(to) / 25.0);
        let trim = format!("atrim={start}:{end},");
        let sounds = |rows: Vec<Row>| -> Vec<Row> { rows.into_iter().filter(|r| r.0 == "silence").collect() };
        let theirs = sounds(ffmpeg_events_with(&[], file, ("", &trim), "", "", "d=0.5"));
        let range = format!("{from}..{to}");
        let ours = sounds(our_events(file, "", "", "d=0.5", &["--frames", &range]));
        assert_eq!(ours, theirs, "{} {range}", file.display());
    }
}

#[test]
fn frames_whose_pts_goes_back_are_timed_as_ffmpegs_best_effort_timestamps() {
    // Moving 2 s, black 2 s, moving 2 s, 25 fps H.264 with B-frames; then one packet's pts set
    // 6 frames back: the first black picture's (packet 50), or the first moving one's after
    // the black (packet 100). FFmpeg's decoder then turns to the packets' dts for every frame
    // from it on (its best-effort timestamp), and its filters take that: the stretch starts
    // or ends at 1.96 or 3.96 s where the frame's own pts says 1.881 or 3.881.
    let base = common::fixture(
        "events-pts-base.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x90:r=25:d=2[a];color=black:s=160x90:r=25:d=2[b];testsrc2=s=160x90:r=25:d=2[c];[a][b][c]concat=n=3,format=yuv420p",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-bf",
            "2",
            "-preset",
            "veryfast",
        ],
    );
    for (packet, black) in [
        (50, row("black", "1.96", Some("4"), Some("2.04"))),
        (100, row("black", "2", Some("3.96"), Some("1.96"))),
    ] {
        let setts = format!("setts=pts=if(eq(N\\,{packet})\\,PTS-6*DURATION\\,PTS)");
        let file = common::fixture(
            &format!("events-pts-back-{packet}.mkv"),
            &["-i", base.to_str().unwrap(), "-c", "copy", "-bsf:v", &setts],
        );
        let theirs = pictures(ffmpeg_events(&file, "d=0.5", "d=0.5", ""));
        assert!(theirs.contains(&black), "{theirs:?}");
        for more in [vec![], vec!["--cpu"]] {
            assert_eq!(
                pictures(our_events(&file, "d=0.5", "d=0.5", "", &more)),
                theirs,
                "{packet} {more:?}"
            );
        }
        // Each frame's time in the report is its best-effort timestamp, frame after frame as
        // the decoder gives them out.
        let probe = Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-show_entries",
                "frame=best_effort_timestamp_time",
                "-of",
                "csv=p=0",
            ])
            .arg(&file)
            .output()
            .unwrap();
        let theirs: Vec<String> = String::from_utf8(probe.stdout)
            .unwrap()
            .lines()
            // (A frame with side data prints a comma and a line of its own.)
            .map(|t| t.trim_end_matches(','))
            .filter(|t| !t.is_empty())
            .map(|t| g(t.parse().unwrap()))
            .collect();
        let report = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg("report")
            .arg(&file)
            .output()
            .unwrap();
        let ours: Vec<String> = String::from_utf8(report.stdout)
            .unwrap()
            .lines()
            .map(|l| g(common::json(l)["pts"].as_f64().unwrap()))
            .collect();
        assert_eq!(ours.len(), 150);
        assert_eq!(ours, theirs, "{packet}");
    }
}

#[test]
fn limits_on_events_fail_the_report_and_are_logged() {
    let file = common::events_programme();
    let alerts = std::env::temp_dir().join(format!("histoplay-events-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&alerts);
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--fail-on", "black>2s,freeze>3s,silence>2.7s", "--alert-log"])
        .arg(&alerts)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Black for 2.52 s; the second freeze lasts 3.04 s (the first, 2.52 s, is within); the
    // silence 2.70002 s.
    assert!(
        stderr.contains("black>2s: frames 25-87 (1.000-3.520 s), worst 2.52"),
        "{stderr}"
    );
    assert!(
        stderr.contains("freeze>3s: frames 113-188 (4.520-7.560 s), worst 3.04"),
        "{stderr}"
    );
    assert!(
        stderr.contains("silence>2.7s: audio frames 12-39 (1.200-3.900 s), worst 2.7"),
        "{stderr}"
    );
    assert!(stderr.contains("3 runs of frames beyond the limits"), "{stderr}");
    let logged: Vec<serde_json::Value> = std::fs::read_to_string(&alerts)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    let limits: Vec<&str> = logged.iter().map(|l| l["limit"].as_str().unwrap()).collect();
    assert_eq!(limits, ["black>2s", "freeze>3s", "silence>2.7s"]);
    let _ = std::fs::remove_file(&alerts);
    // Within every limit: exit status 0.
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--fail-on", "black>3s,freeze>4s,silence>3s"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bad_event_options_are_one_line_errors() {
    let file = full_range();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg("report")
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
        stderr
    };
    assert!(run(&["--black", "pic_th=2"]).contains("pic_th must be from 0 to 1"));
    assert!(run(&["--freeze", "x=1"]).contains("freezedetect has no option 'x'"));
    assert!(run(&["--silence", "d=soon"]).contains("not a duration"));
    assert!(run(&["--events", "--csv"]).contains("list the events in JSON Lines, or a QCTools report"));
    assert!(run(&["--fail-on", "black>=2s"]).contains("black takes a length"));
}

#[test]
fn a_qctools_report_carries_the_detectors_tags_on_the_frames_ffprobe_puts_them_on() {
    let theirs = qctools_tags(&ten_bit(), "d=1");
    assert_eq!(theirs.len(), 5, "{theirs:?}");
    // Grey after signalstats is full-range Y'CbCr to blackdetect (black up to code 25, not 37):
    // the dark grey (32) is no black stretch there; the freezes are the Y'CbCr planes'.
    let theirs = qctools_tags(&apart("gray", 12), "d=0.5");
    assert!(
        theirs.iter().all(|(_, key, _)| !key.starts_with("lavfi.black")),
        "{theirs:?}"
    );
    assert!(
        theirs.iter().any(|(_, key, _)| key.starts_with("lavfi.freeze")),
        "{theirs:?}"
    );
}

/// The black and freeze tags (time in µs, key, value) of `file`'s frames in histoplay's QCTools
/// report with `--black D --freeze D`, checked equal to ffprobe's frames after
/// `signalstats,blackdetect=D,freezedetect=D`.
fn qctools_tags(file: &Path, d: &str) -> Vec<(i64, String, String)> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-f", "lavfi"])
        .arg(format!(
            "movie={},signalstats,blackdetect={d},freezedetect={d}",
            file.display()
        ))
        .args(["-show_frames", "-of", "compact"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut theirs = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let fields: Vec<&str> = line.split('|').collect();
        let time = fields.iter().find_map(|f| f.strip_prefix("pts_time=")).unwrap();
        let time = (time.parse::<f64>().unwrap() * 1e6).round() as i64;
        for tag in fields.iter().filter_map(|f| f.strip_prefix("tag:lavfi.")) {
            let (key, value) = tag.split_once('=').unwrap();
            if key.starts_with("black") || key.starts_with("freezedetect") {
                theirs.push((time, format!("lavfi.{key}"), value.to_string()));
            }
        }
    }
    let report = std::env::temp_dir().join(format!("histoplay-events-{}-{d}.qctools.xml.gz", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--format", "qctools", "--black", d, "--freeze", d, "-o"])
        .arg(&report)
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let xml = Command::new("zcat").arg(&report).output().unwrap().stdout;
    let _ = std::fs::remove_file(&report);
    let mut ours = Vec::new();
    let mut time = 0;
    for line in String::from_utf8(xml).unwrap().lines() {
        let attribute = |name: &str| {
            line.split_once(&format!("{name}=\""))
                .map(|(_, rest)| rest.split('"').next().unwrap().to_string())
        };
        if line.contains("<frame media_type=\"video\"") {
            time = (attribute("pkt_pts_time").unwrap().parse::<f64>().unwrap() * 1e6).round() as i64;
        } else if let Some(key) =
            attribute("key").filter(|k| k.starts_with("lavfi.black") || k.starts_with("lavfi.freeze"))
        {
            ours.push((time, key, attribute("value").unwrap()));
        }
    }
    assert_eq!(ours, theirs, "{}", file.display());
    theirs
}
