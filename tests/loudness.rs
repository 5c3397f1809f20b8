//! `histoplay loudness` against FFmpeg's `ebur128` filter, figure for figure as it prints them:
//! EBU Tech 3341 and 3342's signals made by FFmpeg, true peaks between samples, 5.1's channel
//! weights, other rates and codecs, each 100 ms step, and the limits of a QC gate.

mod common;

use common::fixture;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn histoplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .unwrap()
}

/// The last JSON line `loudness` prints.
fn loudness(path: &Path) -> Value {
    let out = histoplay(&["loudness", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// What FFmpeg's ebur128 filter logs of `path`: its summary's figures by name (I, its
/// threshold, LRA, its threshold, low, high, sample and true peak), and each step's t, M, S,
/// I, LRA.
struct Ffmpeg {
    summary: Vec<(String, Option<f64>)>,
    steps: Vec<[f64; 5]>,
}

fn ffmpeg(path: &Path) -> Ffmpeg {
    let out = Command::new("ffmpeg")
        .args(["-nostats", "-hide_banner", "-i"])
        .arg(path)
        .args(["-vn", "-af", "ebur128=peak=true+sample", "-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    let number = |s: &str| s.trim().parse::<f64>().ok();
    let (head, tail) = text.split_once("Summary:").expect("a summary");
    let names = [
        "I",
        "Threshold",
        "LRA",
        "Threshold",
        "LRA low",
        "LRA high",
        "Peak",
        "Peak",
    ];
    let mut summary = Vec::new();
    let mut lines = tail.lines().map(str::trim);
    for name in names {
        let line = lines.find(|l| l.starts_with(&format!("{name}:"))).unwrap();
        let value = line[name.len() + 1..].split_whitespace().next().unwrap();
        summary.push((name.to_string(), number(value)));
    }
    let field = |line: &str, key: &str| -> f64 {
        let at = line.find(key).unwrap() + key.len();
        number(line[at..].split_whitespace().next().unwrap()).unwrap()
    };
    let steps = head
        .lines()
        .filter(|l| l.contains("TARGET:"))
        .map(|l| {
            let l = &l[l.find("t:").unwrap()..];
            [
                field(l, "t:"),
                field(l, "M:"),
                field(l, "S:"),
                field(l, "I:"),
                field(l, "LRA:"),
            ]
        })
        .collect();
    Ffmpeg { summary, steps }
}

/// The summary's figures in FFmpeg's order.
fn figures(line: &Value) -> Vec<Option<f64>> {
    [
        "integrated",
        "integrated_threshold",
        "lra",
        "lra_threshold",
        "lra_low",
        "lra_high",
        "sample_peak",
        "true_peak",
    ]
    .iter()
    .map(|k| line[k].as_f64())
    .collect()
}

fn same_as_ffmpeg(path: &Path) -> Value {
    let ours = loudness(path);
    let theirs: Vec<Option<f64>> = ffmpeg(path).summary.into_iter().map(|(_, v)| v).collect();
    assert_eq!(figures(&ours), theirs, "{}", path.display());
    ours
}

/// A 1 kHz sine at `dbfs` in both channels, as aevalsrc's expression.
fn stereo_sine(dbfs: f64) -> String {
    let wave = format!("{}*sin(2*PI*1000*t)", 10f64.powf(dbfs / 20.0));
    format!("{wave}|{wave}")
}

fn flac(name: &str, graph: &str) -> std::path::PathBuf {
    fixture(name, &["-f", "lavfi", "-i", graph, "-c:a", "flac"])
}

#[test]
fn ebu_tech_3341_sines_read_their_level_as_ffmpeg_reads_them() {
    // Case 1 and 2: 1 kHz stereo sines at -23 and -33 dBFS read -23.0 and -33.0 LUFS.
    for level in [-23, -33] {
        let graph = format!("aevalsrc='{}':s=48000:d=20:c=stereo", stereo_sine(f64::from(level)));
        let clip = flac(&format!("loudness-sine{level}.flac"), &graph);
        let line = same_as_ffmpeg(&clip);
        assert_eq!(line["integrated"], f64::from(level), "{line}");
        assert_eq!(line["lra"], 0.0, "{line}");
    }
}

#[test]
fn ebu_tech_3342_steps_of_loudness_have_their_range() {
    // Case 1: 20 s at -20 dBFS, then 20 s at -30: 10 LU (±1).
    let (loud, quiet) = (10f64.powf(-20.0 / 20.0), 10f64.powf(-30.0 / 20.0));
    let wave = format!("if(lt(t,20),{loud},{quiet})*sin(2*PI*1000*t)");
    let graph = format!("aevalsrc='{wave}|{wave}':s=48000:d=40:c=stereo");
    let line = same_as_ffmpeg(&flac("loudness-3342-1.flac", &graph));
    let lra = line["lra"].as_f64().unwrap();
    assert!((lra - 10.0).abs() <= 1.0, "{line}");
}

#[test]
fn a_true_peak_between_samples_is_found_as_ffmpeg_finds_it() {
    // A full-scale sine at a quarter of the rate, its samples 45° off its crests: they peak at
    // -3 dBFS, the signal between them at 0.
    let graph = "aevalsrc='0.99*sin(2*PI*12000*t+PI/4)':s=48000:d=5";
    let line = same_as_ffmpeg(&flac("loudness-intersample.flac", graph));
    let (sample, true_peak) = (
        line["sample_peak"].as_f64().unwrap(),
        line["true_peak"].as_f64().unwrap(),
    );
    assert!((sample + 3.1).abs() < 0.2 && true_peak > -0.5, "{line}");
}

#[test]
fn five_one_weighs_its_surrounds_and_leaves_its_lfe_out() {
    // The same noise in every channel, the LFE far louder: it adds nothing.
    let graph =
        "anoisesrc=seed=3:amplitude=0.2:duration=15:sample_rate=48000,pan=5.1|FL=c0|FR=c0|FC=c0|LFE=8*c0|BL=c0|BR=c0";
    let surround = flac("loudness-51.flac", graph);
    let line = same_as_ffmpeg(&surround);
    let graph =
        "anoisesrc=seed=3:amplitude=0.2:duration=15:sample_rate=48000,pan=5.1|FL=c0|FR=c0|FC=c0|LFE=0*c0|BL=c0|BR=c0";
    let quiet_lfe = loudness(&flac("loudness-51-nolfe.flac", graph));
    assert_eq!(line["integrated"], quiet_lfe["integrated"]);
}

#[test]
fn twenty_two_point_two_weighs_all_its_24_channels_as_ffmpeg_does() {
    // Noise in every channel of 22.2, its LFEs (channels 3 and 18) louder (they add nothing),
    // in Matroska, which names the layout, and as 24 channels in WAV, which can't: the usual
    // layout of 24 is 22.2.
    let pan: Vec<String> = (0..24)
        .map(|c| match c {
            3 | 18 => format!("c{c}=4*c0"),
            _ => format!("c{c}=c0"),
        })
        .collect();
    let graph = format!(
        "anoisesrc=seed=5:amplitude=0.1:duration=4:sample_rate=48000,pan=22.2|{}",
        pan.join("|")
    );
    let mkv = fixture("loudness-22-2.mkv", &["-f", "lavfi", "-i", &graph, "-c:a", "pcm_s16le"]);
    let wav = fixture("loudness-24.wav", &["-i", mkv.to_str().unwrap(), "-c", "copy"]);
    let named = same_as_ffmpeg(&mkv);
    assert_eq!(loudness(&wav), named);
    // Each of the 24 reported apart, as astats does.
    let out = histoplay(&["report", mkv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert!(first.get("astats.24.RMS_level").is_some(), "{first}");
    assert!(first.get("astats.25.RMS_level").is_none(), "{first}");
    // Nine channels that no layout places (none of their count is usual) are measured alike,
    // not taken for damage.
    let nine = fixture(
        "loudness-9.mkv",
        &["-f", "lavfi", "-i", "anoisesrc=seed=5:amplitude=0.1:duration=2,asplit=9[a][b][c][d][e][f][g][h][i];[a][b][c][d][e][f][g][h][i]amerge=inputs=9", "-c:a", "pcm_s16le"],
    );
    let out = histoplay(&["loudness", nine.to_str().unwrap()]);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn other_rates_and_codecs_read_as_ffmpeg_reads_them() {
    // Pink noise rising and falling, at 44.1 kHz in AAC, and mono at 32 kHz in MP3.
    let graph = "anoisesrc=color=pink:seed=7:amplitude=0.5:duration=30:sample_rate=44100,volume='0.05+0.6*abs(sin(t/4))':eval=frame,aformat=channel_layouts=stereo";
    same_as_ffmpeg(&fixture(
        "loudness-44k.m4a",
        &["-f", "lavfi", "-i", graph, "-c:a", "aac", "-b:a", "128k"],
    ));
    let graph = "anoisesrc=color=brown:seed=9:amplitude=0.3:duration=20:sample_rate=32000";
    same_as_ffmpeg(&fixture(
        "loudness-32k.mp3",
        &["-f", "lavfi", "-i", graph, "-c:a", "libmp3lame"],
    ));
    // A 3 kHz tone at 96 kHz whose every block falls in the gate's bin at -28.45 LUFS: the
    // integrated loudness prints -28.4 as FFmpeg's does, from the same last bit.
    let tone = flac(
        "loudness-96k-tone.flac",
        "sine=f=3000:r=96000:d=5,volume=0.3,aformat=channel_layouts=stereo",
    );
    assert_eq!(same_as_ffmpeg(&tone)["integrated"], -28.4);
}

#[test]
fn each_100_ms_step_reads_as_ffmpeg_logs_it() {
    let graph = "anoisesrc=color=pink:seed=5:amplitude=0.5:duration=8:sample_rate=48000,volume='0.1+0.5*abs(sin(t))':eval=frame,aformat=channel_layouts=stereo";
    let clip = flac("loudness-steps.flac", graph);
    let out = histoplay(&["loudness", clip.to_str().unwrap(), "--series"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (steps, summary) = lines.split_at(lines.len() - 1);
    assert!(summary[0]["integrated"].is_number());
    let theirs = ffmpeg(&clip).steps;
    assert_eq!(steps.len(), theirs.len());
    assert_eq!(steps.len(), 80);
    for (ours, theirs) in steps.iter().zip(&theirs) {
        let ours: Vec<f64> = ["t", "M", "S", "I", "LRA"]
            .iter()
            .map(|k| ours[k].as_f64().unwrap())
            .collect();
        assert!((ours[0] - theirs[0]).abs() < 1e-5, "{ours:?} {theirs:?}");
        assert_eq!(ours[1..], theirs[1..], "at {} s", theirs[0]);
    }
}

#[test]
fn limits_and_profiles_gate_on_the_figures() {
    let graph = format!("aevalsrc='{}':s=48000:d=20:c=stereo", stereo_sine(-23.0));
    let clip = flac("loudness-sine-23.flac", &graph);
    let path = clip.to_str().unwrap();
    // -23.0 LUFS, its peaks -23 dBFS: within EBU R128 and ATSC A/85.
    for within in ["r128", "I>-22.9,I<-23.1,TP>-19.9", "LRA>0.1"] {
        let out = histoplay(&["loudness", path, "--fail-on", within]);
        assert!(
            out.status.success(),
            "{within}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = histoplay(&["loudness", path, "--fail-on", "a85,TP>-23.5"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // a85: -24 ±2, so -23 is within, and its true peak limit (-2) too; TP>-23.5 is breached.
    assert!(stderr.starts_with("TP>-23.5: -23\n"), "{stderr}");
    assert!(stderr.contains("1 loudness limit breached"), "{stderr}");
    for bad in ["LUFS>3", "I>NaN", "TP<inf", "I>-22,,TP>-1", " "] {
        let out = histoplay(&["loudness", path, "--fail-on", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("is not a loudness limit")
                || stderr.contains("an empty limit")
                || stderr.contains("no loudness limit given"),
            "{bad}: {stderr}"
        );
    }
    // Digital silence: its peaks -inf, below any limit on them, above none.
    let silence = flac("loudness-digital-silence.flac", "anullsrc=r=48000:cl=stereo:d=5");
    let out = histoplay(&[
        "loudness",
        silence.to_str().unwrap(),
        "--fail-on",
        "TP<-60,SP<-200,TP>-1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("TP<-60: -inf\nSP<-200: -inf\n"), "{stderr}");
    assert!(stderr.contains("2 loudness limits breached"), "{stderr}");
}

#[test]
fn a_file_without_sound_is_a_one_line_error() {
    let clip = fixture(
        "loudness-silent-video.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=64x48:rate=10:duration=1",
            "-c:v",
            "ffv1",
        ],
    );
    let out = histoplay(&["loudness", clip.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("no audio stream"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn a_file_that_is_not_media_is_a_one_line_error_without_ffmpegs_log() {
    let dir = std::env::temp_dir().join(format!("histoplay-loudness-not-media-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Text named as an MP4 (FFmpeg's demuxer logs a misdetection), and an MP4 cut before its index.
    let text = dir.join("text.mp4");
    std::fs::write(&text, "hello\n").unwrap();
    let whole = fixture(
        "loudness-cut.mp4",
        &["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac"],
    );
    let cut = dir.join("cut.mp4");
    std::fs::write(&cut, &std::fs::read(&whole).unwrap()[..4000]).unwrap();
    for path in [&text, &cut] {
        let out = histoplay(&["loudness", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains("Invalid data"),
            "{stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    let empty = dir.join("empty.wav");
    std::fs::write(&empty, b"").unwrap();
    let out = histoplay(&["loudness", empty.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr, format!("error: '{}': it is empty\n", empty.display()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_timelines_loudness_strip_shows_each_columns_short_term_loudness_and_marks_silence_and_clipping() {
    // 6 s at 10 fps: 2 s of silence, 2 s of a 1 kHz sine at -20 dBFS, 2 s of a full-scale
    // square wave (clipping), in 16-bit PCM.
    let wave = "if(lt(t,2),0,if(lt(t,4),0.1*sin(2*PI*1000*t),if(gt(sin(2*PI*200*t),0),1,-1)))";
    let sound = format!("aevalsrc='{wave}|{wave}':s=48000:d=6:c=stereo");
    let clip = fixture(
        "loudness-timeline.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=64x48:rate=10:duration=6",
            "-f",
            "lavfi",
            "-i",
            &sound,
        ]
        .into_iter()
        .chain(["-c:v", "ffv1", "-c:a", "pcm_s16le", "-shortest"])
        .collect::<Vec<_>>(),
    );
    let dir = std::env::temp_dir().join(format!("histoplay-loudness-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("timeline.png");
    let out = histoplay(&[
        "timeline",
        clip.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "60x64",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let strip = image::open(&png).unwrap().to_rgba8();
    std::fs::remove_dir_all(&dir).unwrap();
    // 16 rows of loudness under the 64 of histograms.
    assert_eq!(strip.dimensions(), (60, 80));
    let px = |x: u32, y_from_bottom: u32| strip.get_pixel(x, 79 - y_from_bottom).0;
    // Each column's loudest short-term reading, as `loudness --series` (FFmpeg's) gives it: the
    // steps whose last sample is in the column's frame.
    let out = histoplay(&["loudness", clip.to_str().unwrap(), "--series"]);
    let steps: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v.get("t").is_some())
        .collect();
    let loudest = |column: u32| {
        (steps.iter())
            .filter(|s| (s["t"].as_f64().unwrap() * 10.0 + 1e-9).floor() as u32 == column)
            .map(|s| s["S"].as_f64().unwrap())
            .fold(f64::NEG_INFINITY, f64::max)
    };
    // (Its rows from the reading's, which is printed to 0.1 LU: within 0.05 of it.)
    let rows = |lufs: f64| (((lufs + 60.0) / 60.0).clamp(0.0, 1.0) * 16.0).round() as u32;
    for x in 0..60 {
        let (low, high) = (rows(loudest(x) - 0.05), rows(loudest(x) + 0.05));
        // Between the marks' rows (the bottom and the top), the bar is the rows under its
        // height; above it, black with the line at -23 LUFS (row 9).
        for y in (1..15).filter(|&y| y < low || y >= high) {
            let p = px(x, y);
            let in_bar = p[..3] != [0, 0, 0] && p[..3] != [90, 90, 90];
            assert_eq!(in_bar, y < low, "column {x}, row {y}: {} LUFS", loudest(x));
        }
    }
    // Silence: the blue mark at the bottom; clipping: the red one at the top.
    for x in 0..20 {
        assert_eq!(px(x, 0)[..3], [70, 130, 255], "column {x}");
        assert_ne!(px(x, 15)[..3], [255, 70, 60], "column {x}");
    }
    for x in 41..60 {
        assert_eq!(px(x, 15)[..3], [255, 70, 60], "column {x}");
        assert_ne!(px(x, 0)[..3], [70, 130, 255], "column {x}");
    }
}

#[test]
fn a_change_of_channels_midway_is_said_once_where_it_happens() {
    // Two seconds of stereo, then two of 5.1 (MPEG-TS pieces joined end to end, as a broadcast
    // recording goes from an advertisement to the programme).
    let piece = |name: &str, pan: &str| {
        fixture(
            name,
            &[
                "-f",
                "lavfi",
                "-i",
                "sine=f=440:r=48000:d=2",
                "-af",
                pan,
                "-c:a",
                "aac",
                "-f",
                "mpegts",
            ],
        )
    };
    let stereo = piece("layout-stereo.ts", "pan=stereo|c0=0.5*c0|c1=0.5*c0");
    let surround = piece(
        "layout-5.1.ts",
        "pan=5.1|c0=0.3*c0|c1=0.3*c0|c2=0.9*c0|c4=0.3*c0|c5=0.3*c0",
    );
    let joined = common::repo_path("target/fixtures/layout-joined.ts");
    let bytes = [std::fs::read(&stereo).unwrap(), std::fs::read(&surround).unwrap()].concat();
    let partial = joined.with_extension(format!("partial-{}", std::process::id()));
    std::fs::write(&partial, bytes).unwrap();
    std::fs::rename(&partial, &joined).unwrap();
    // Where the first piece's sound ends, as ffprobe times it.
    let end: f64 = common::ffprobe_entries(&stereo, "format=start_time")[0]
        .parse::<f64>()
        .unwrap()
        + 2.0;
    let out = histoplay(&["loudness", joined.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("the sound changes")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    let prefix = format!(
        "warning: {}: the sound changes from stereo to 5.1 at ",
        joined.display()
    );
    let rest = said[0].strip_prefix(&prefix).expect(said[0]);
    let (at, tail) = rest.split_once(" s; ").unwrap();
    let at: f64 = at.parse().unwrap();
    assert!((at - end).abs() < 0.05, "said at {at} s, the stereo ends at {end} s");
    assert_eq!(tail, "from there it is mixed to stereo");
    // A file whose sound keeps its channels says nothing of it.
    let out = histoplay(&["loudness", stereo.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("the sound changes"));
}

// (FFmpeg's reason is kept where its log callback is: x86-64 Linux; the words are FFmpeg 5.1's.)
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn damaged_sound_is_measured_as_ffmpeg_measures_it_and_warned_of_in_ffmpegs_words() {
    // An AAC file with 400 bytes in its middle overwritten: packets fail to decode, one with a
    // code FFmpeg has no name for (where the bindings would say "Unknown error 50531338").
    let clean = fixture(
        "aac-clean.m4a",
        &["-f", "lavfi", "-i", "sine=f=440:d=4", "-c:a", "aac", "-b:a", "128k"],
    );
    let mut bytes = std::fs::read(&clean).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle..middle + 400].fill(0xff);
    let damaged = common::repo_path(&format!("target/fixtures/aac-damaged-{}.m4a", std::process::id()));
    std::fs::write(&damaged, &bytes).unwrap();
    let out = histoplay(&["loudness", damaged.to_str().unwrap()]);
    let theirs: Vec<Option<f64>> = ffmpeg(&damaged).summary.into_iter().map(|(_, v)| v).collect();
    // What FFmpeg's command line says of each packet: its decoder's line, then the code's text.
    let log = Command::new("ffmpeg")
        .args(["-v", "warning", "-i"])
        .arg(&damaged)
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&damaged);
    let log = String::from_utf8_lossy(&log.stderr).into_owned();
    let mut said = Vec::new();
    let mut reason = None;
    for line in log.lines() {
        if let Some(code) = line.strip_prefix("Error while decoding stream #0:0: ") {
            said.push(format!("{code}: {}", reason.take().expect(line)));
        } else if line.starts_with("[aac @ ") {
            reason = Some(line.split_once("] ").unwrap().1.to_string());
        }
    }
    assert!(said.len() >= 2, "{log}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let ours: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split_once("damaged audio, playing on: "))
        .map(|(_, w)| w)
        .collect();
    assert_eq!(
        ours,
        said.iter().take(3).map(String::as_str).collect::<Vec<_>>(),
        "{stderr}"
    );
    assert!(!stderr.contains("Unknown error"), "{stderr}");
    // The packets lost are left out as FFmpeg leaves them out.
    let text = String::from_utf8(out.stdout).unwrap();
    let ours: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(figures(&ours), theirs);
}

#[test]
fn the_audio_stream_asked_for_is_measured_and_one_the_file_lacks_is_an_error() {
    // Two stereo streams: a quiet sine, then a louder one that swells (its range is not 0).
    let tracks = fixture(
        "loudness-two-tracks.mka",
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("aevalsrc={}:s=48000:d=6", stereo_sine(-30.0)),
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=(0.1+0.3*t/6)*sin(2*PI*440*t)|(0.1+0.3*t/6)*sin(2*PI*440*t):s=48000:d=6",
            "-map",
            "0",
            "-map",
            "1",
            "-c:a",
            "flac",
        ],
    );
    // Each stream alone, as `ffmpeg -map 0:a:N` takes it.
    let alone = |n: u32| {
        let name = format!("loudness-two-tracks-{n}.mka");
        let map = format!("0:a:{}", n - 1);
        fixture(&name, &["-i", tracks.to_str().unwrap(), "-map", &map, "-c", "copy"])
    };
    let measured = |aid: &str| {
        let out = histoplay(&["loudness", tracks.to_str().unwrap(), "--aid", aid]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        figures(&serde_json::from_str(text.lines().last().unwrap()).unwrap())
    };
    for n in [1, 2] {
        let theirs: Vec<Option<f64>> = ffmpeg(&alone(n)).summary.into_iter().map(|(_, v)| v).collect();
        assert_eq!(measured(&n.to_string()), theirs, "stream {n}");
    }
    assert_ne!(measured("1"), measured("2"));
    // `auto` is the stream FFmpeg itself picks.
    let picked: Vec<Option<f64>> = ffmpeg(&tracks).summary.into_iter().map(|(_, v)| v).collect();
    assert_eq!(measured("auto"), picked);
    let out = histoplay(&["loudness", tracks.to_str().unwrap(), "--aid", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!("error: '{}' has 2 audio streams: no audio track 3", tracks.display())
    );
    let out = histoplay(&["loudness", tracks.to_str().unwrap(), "--aid", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A picture with two sounds: silence then a sine, and a sine then silence.
fn two_sounds() -> std::path::PathBuf {
    let wave = |expr: &str| format!("aevalsrc='{expr}|{expr}':s=48000:d=4:c=stereo");
    fixture(
        "loudness-timeline-two.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=64x48:rate=10:duration=4",
            "-f",
            "lavfi",
            "-i",
            &wave("if(lt(t,2),0,0.1*sin(2*PI*1000*t))"),
            "-f",
            "lavfi",
            "-i",
            &wave("if(lt(t,2),0.3*sin(2*PI*500*t),0)"),
            "-map",
            "0",
            "-map",
            "1",
            "-map",
            "2",
            "-c:v",
            "ffv1",
            "-c:a",
            "pcm_s16le",
        ],
    )
}

#[test]
fn the_timelines_loudness_strip_is_of_the_audio_stream_asked_for() {
    let two = two_sounds();
    let dir = std::env::temp_dir().join(format!("histoplay-timeline-aid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let strip = |file: &Path, aid: &str| {
        let png = dir.join(format!("{aid}.png"));
        let out = histoplay(&[
            "timeline",
            file.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
            "--size",
            "40x32",
            "--aid",
            aid,
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        image::open(&png).unwrap().to_rgba8()
    };
    for n in [1, 2] {
        // The file with the picture and that sound alone.
        let map = format!("0:a:{}", n - 1);
        let name = format!("loudness-timeline-two-{n}.mkv");
        let alone = fixture(
            &name,
            &["-i", two.to_str().unwrap(), "-map", "0:v", "-map", &map, "-c", "copy"],
        );
        assert_eq!(strip(&two, &n.to_string()), strip(&alone, "auto"), "stream {n}");
    }
    assert_ne!(strip(&two, "1"), strip(&two, "2"));
    // A track that isn't there is an error, as loudness's, not a strip left off.
    let png = dir.join("3.png");
    let out = histoplay(&[
        "timeline",
        two.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--aid",
        "3",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.trim(),
        format!("error: '{}' has 2 audio streams: no audio track 3", two.display())
    );
    assert!(!png.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_players_loudness_strip_follows_the_audio_stream_asked_for() {
    // The window's timeline of stream 1, then `#` to stream 2: its strip is measured again,
    // and ends as a timeline of stream 2 from the start does; then none: no strip.
    use histoplay::audio::source::AudioTrack;
    use histoplay::player::strip::TimelineStrip;
    use histoplay::timeline::TimelineFill;
    let two = two_sounds();
    let gpu = common::gpu();
    let done = |fill: &TimelineFill| common::poll("the timeline filled", || fill.done().then_some(()));
    let strip = |fill: &TimelineFill| fill.render(64, 16).unwrap();
    let fill = TimelineFill::start(&two, Some(AudioTrack::Nth(1)), &gpu).unwrap();
    done(&fill);
    let first = strip(&fill);
    assert_eq!(first.1, 16 + histoplay::timeline::loudness::LOUDNESS_ROWS);
    // The window's texture of it, drawn once it is all there.
    let (ctx, mut texture) = (egui::Context::default(), TimelineStrip::default());
    texture.texture(&ctx, &fill, std::time::Instant::now()).unwrap();
    assert!(!texture.stale(&fill));
    fill.measure_sound(Some(AudioTrack::Nth(2)));
    done(&fill);
    // As many steps as the first stream's, yet to be drawn again.
    assert_eq!(strip(&fill).2, first.2);
    assert!(texture.stale(&fill));
    let fresh = TimelineFill::start(&two, Some(AudioTrack::Nth(2)), &gpu).unwrap();
    done(&fresh);
    assert_eq!(strip(&fill), strip(&fresh));
    assert_ne!(strip(&fill).0, first.0);
    fill.measure_sound(None);
    done(&fill);
    assert_eq!(strip(&fill).1, 16);
}

/// A stereo 32-bit float WAV of three seconds at 48 kHz: a sine at -6 dBFS, with ten samples
/// from sample 48000 on (1.000 s) set to `bad` in both channels.
fn float_wav_with(name: &str, bad: f32) -> std::path::PathBuf {
    let rate = 48_000u32;
    let mut data = Vec::new();
    for i in 0..rate * 3 {
        let s = match i {
            48_000..48_010 => bad,
            _ => 0.5 * (i as f32 * 0.06).sin(),
        };
        data.extend_from_slice(&s.to_le_bytes());
        data.extend_from_slice(&s.to_le_bytes());
    }
    let mut wav = b"RIFF".to_vec();
    wav.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    // 16 bytes of format: IEEE float (3), two channels, the rate, bytes a second, 8 a frame, 32 bits.
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&3u16.to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&rate.to_le_bytes());
    wav.extend_from_slice(&(rate * 8).to_le_bytes());
    wav.extend_from_slice(&8u16.to_le_bytes());
    wav.extend_from_slice(&32u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data);
    let path = common::repo_path(&format!("target/fixtures/{name}-{}.wav", std::process::id()));
    std::fs::write(&path, wav).unwrap();
    path
}

#[test]
fn float_samples_that_are_not_numbers_are_warned_of_where_they_start_and_measured_as_ffmpeg_measures_them() {
    for (name, bad) in [("nan", f32::NAN), ("infinite", f32::INFINITY)] {
        let path = float_wav_with(name, bad);
        let out = histoplay(&["loudness", path.to_str().unwrap()]);
        let theirs: Vec<Option<f64>> = ffmpeg(&path).summary.into_iter().map(|(_, v)| v).collect();
        let _ = std::fs::remove_file(&path);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
        assert_eq!(warnings.len(), 1, "{stderr}");
        assert!(
            warnings[0].ends_with("samples that are not numbers (NaN or infinite) from 1.000 s: played as silence or full scale, measured as FFmpeg measures them"),
            "{stderr}"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let ours = figures(&serde_json::from_str(text.lines().last().unwrap()).unwrap());
        // The loudness figures as FFmpeg's; the peaks FFmpeg prints as "nan" or "inf" are
        // null in JSON, which has no such numbers.
        for (ours, theirs) in ours.iter().zip(&theirs) {
            match theirs {
                Some(v) if !v.is_finite() => assert_eq!(*ours, None, "{name}: {theirs:?}"),
                _ => assert_eq!(ours, theirs, "{name}"),
            }
        }
        assert_eq!(ours[0], Some(-6.7), "{name}");
        if name == "infinite" {
            assert_eq!(&ours[6..], [None, None]);
        }
    }
}
