//! `report`: FFmpeg's signalstats of every frame, value for value against `ffprobe`'s own
//! (`movie=F,signalstats=stat=tout+vrep+brng -show_frames`), at 8, 10 and 12 bits, 4:2:0,
//! 4:2:2 and 4:4:4, from the GPU and from the CPU twin; the JSON's shape; `--fail-on`; and the
//! errors.

mod common;
mod window;

use common::{ffprobe_stats, report_csv, JsonExt};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn histoplay(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .unwrap()
}

/// The JSON lines of a `report` run that succeeds.
fn report_lines(args: &[&str]) -> Vec<serde_json::Value> {
    let out = histoplay(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect()
}

fn assert_matches_ffprobe(path: &Path) {
    assert_matches(path, ffprobe_stats(path));
}

/// Every value of every frame of `path` equal to `expected`'s.
fn assert_matches(path: &Path, expected: Vec<BTreeMap<String, String>>) {
    let (header, rows) = report_csv(path, &[]);
    // The GPU's counts are the CPU twin's.
    assert_eq!(
        report_csv(path, &["--cpu"]),
        (header.clone(), rows.clone()),
        "{}",
        path.display()
    );
    assert_eq!(&header[..2], ["frame", "pts"]);
    assert_eq!(rows.len(), expected.len(), "{}: every frame", path.display());
    for (k, (row, tags)) in rows.iter().zip(&expected).enumerate() {
        assert_eq!(row[0], k.to_string());
        // Every statistic FFmpeg gives is there, printed the same.
        let ours: BTreeMap<String, String> = header[2..].iter().cloned().zip(row[2..].iter().cloned()).collect();
        assert_eq!(&ours, tags, "{} frame {k}", path.display());
    }
}

#[test]
fn every_value_of_every_frame_is_ffmpegs() {
    // Moving colour bars and text with noise that changes every frame: every statistic moves
    // (the noise-free copy repeats lines, for VREP).
    for (name, format, noise) in [
        ("ss-420.mkv", "yuv420p", true),
        ("ss-422.mkv", "yuv422p", true),
        ("ss-444.mkv", "yuv444p", true),
        ("ss-420-10.mkv", "yuv420p10le", true),
        ("ss-422-10.mkv", "yuv422p10le", true),
        ("ss-444-10.mkv", "yuv444p10le", false),
        // 12 bits: counted by the CPU twin (the GPU pass reads 8 and 10).
        ("ss-420-12.mkv", "yuv420p12le", true),
        ("ss-odd.mkv", "yuv420p", false),
        // Planes the player converts on their way to the GPU, read as decoded by the CPU
        // twin: 4:1:1 and 4:4:0, 9 and 16 bits, and an alpha plane (ignored, as FFmpeg's
        // filter takes it out).
        ("ss-411.mkv", "yuv411p", true),
        ("ss-440.mkv", "yuv440p", true),
        ("ss-420-9.mkv", "yuv420p9le", true),
        ("ss-420-16.mkv", "yuv420p16le", true),
        ("ss-yuva420.mkv", "yuva420p", true),
    ] {
        let size = if name == "ss-odd.mkv" { "97x71" } else { "96x72" };
        let noise = if noise { ",noise=alls=40:allf=t" } else { "" };
        let source = format!("testsrc2=s={size}:r=10:d=0.8{noise},format={format}");
        let clip = common::fixture(name, &["-f", "lavfi", "-i", &source, "-c:v", "ffv1"]);
        assert_matches_ffprobe(&clip);
    }
    // 4:1:0, whose chroma FFmpeg's filters resample to 4:2:0 before they count: so resampled,
    // in as many slices as FFmpeg's filter graph has threads (swscale resamples each slice's
    // chroma apart: FFmpeg's figures change with the machine's cores, and so do these). Tall
    // enough that the slices' edges change the counts, and measured against FFmpeg's with one
    // thread and with its own count, which differ.
    let clip = common::fixture(
        "ss-410.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=96x96:r=10:d=0.8,noise=alls=40:allf=t,format=yuv410p",
            "-c:v",
            "ffv1",
        ],
    );
    assert_matches_ffprobe(&clip);
    let one_slice = "scale=threads=1,format=yuv420p,signalstats=stat=tout+vrep+brng";
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > 1 {
        assert_ne!(
            common::ffprobe_tags(&clip, one_slice, "lavfi.signalstats.", false),
            ffprobe_stats(&clip),
            "FFmpeg's 4:1:0 figures are its slices'"
        );
    }
    // NTSC DV, 4:1:1: the archives' tapes.
    let dv = common::fixture(
        "ss-ntsc.dv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=720x480:r=30000/1001:d=0.2,noise=alls=30:allf=t,format=yuv411p",
            "-c:v",
            "dvvideo",
        ],
    );
    assert_matches_ffprobe(&dv);
    // A real H.264 clip.
    let sample = common::fixture(
        "ss-sample.mp4",
        &[
            "-i",
            common::repo_path("media/sample-540p.mp4").to_str().unwrap(),
            "-frames:v",
            "12",
            "-c",
            "copy",
        ],
    );
    assert_matches_ffprobe(&sample);
}

#[test]
fn rgb_palette_and_grey_frames_are_measured_as_ffmpeg_converts_them() {
    // FFmpeg's filters take planar Y'CbCr: R'G'B' and palette frames become 4:4:4 (16 bits
    // beyond 8), grey full-range 4:4:4 at 8 bits (16 beyond), by swscale.
    for (name, format, codec) in [
        ("ss-rgb24.mkv", "rgb24", "ffv1"),
        ("ss-gbrp10.mkv", "gbrp10le", "ffv1"),
        ("ss-rgba.mov", "rgba", "png"),
        ("ss-pal8.nut", "pal8", "rawvideo"),
        ("ss-rgb48.nut", "rgb48le", "rawvideo"),
        ("ss-grey.mkv", "gray", "ffv1"),
        ("ss-grey10.mkv", "gray10le", "ffv1"),
        // FFmpeg measures 10-bit Y'CbCr with alpha at 16 bits, and XYZ (a DCP's) as 4:4:4.
        ("ss-yuva420-10.mkv", "yuva420p10le", "ffv1"),
        ("ss-xyz.nut", "xyz12le", "rawvideo"),
    ] {
        let source = format!("testsrc2=s=96x72:r=10:d=0.6,noise=alls=40:allf=t,format={format}");
        let clip = common::fixture(name, &["-f", "lavfi", "-i", &source, "-c:v", codec]);
        assert_matches_ffprobe(&clip);
    }
}

/// Each frame's signalstats as FFmpeg's CLI gives them (`ffmpeg -vf signalstats`), its filters
/// configured again where the picture changes size, named and printed as `ffprobe_stats`'.
fn ffmpeg_cli_stats(path: &Path) -> Vec<BTreeMap<String, String>> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i", path.to_str().unwrap()])
        .args(["-vf", "signalstats=stat=tout+vrep+brng,metadata=print:file=-"])
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut frames = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        if line.starts_with("frame:") {
            frames.push(BTreeMap::new());
        } else if let Some((key, value)) = line.strip_prefix("lavfi.signalstats.").and_then(|t| t.split_once('=')) {
            frames.last_mut().unwrap().insert(key.to_string(), value.to_string());
        }
    }
    frames
}

/// Two pieces of `format` at two sizes end to end (`codec` in `container`, joined by the concat
/// demuxer, or byte for byte where the container allows).
fn joined(name: &str, sizes: &[&str], format: &str, codec: &str, container: &str) -> std::path::PathBuf {
    let parts: Vec<_> = sizes
        .iter()
        .map(|size| {
            common::fixture(
                &format!("ss-size-{name}-{size}.{container}"),
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    &format!("testsrc2=s={size}:r=10:d=0.5,noise=alls=30:allf=t"),
                    "-pix_fmt",
                    format,
                    "-c:v",
                    codec,
                ],
            )
        })
        .collect();
    if container == "ts" {
        return common::joined_file(&format!("ss-size-{name}.ts"), &parts.iter().collect::<Vec<_>>());
    }
    let list = std::env::temp_dir().join(format!("histoplay-size-{name}-{}.txt", std::process::id()));
    let files: String = parts.iter().map(|p| format!("file '{}'\n", p.display())).collect();
    std::fs::write(&list, files).unwrap();
    let clip = common::fixture(
        &format!("ss-size-{name}.{container}"),
        &["-f", "concat", "-safe", "0", "-i", list.to_str().unwrap(), "-c", "copy"],
    );
    let _ = std::fs::remove_file(&list);
    clip
}

#[test]
fn a_picture_that_changes_size_mid_stream_is_measured_at_each_size_as_ffmpeg_does() {
    // H.264 4:2:0, 160x120 then 192x108 (counted on the GPU, its passes made again at the
    // change), and PNG R'G'B', 96x72, 64x48 then 80x60 (converted into Y'CbCr as FFmpeg
    // converts it, at each size, and counted by the CPU twin). Both ways: the GPU's and the
    // CPU's alike; each change said from the size before it.
    let h264 = joined("h264", &["160x120", "192x108"], "yuv420p", "libx264", "ts");
    let rgb = joined("png", &["96x72", "64x48", "80x60"], "rgb24", "png", "nut");
    for (clip, changes) in [
        (
            &h264,
            &["the picture changed mid-stream, 160x120 yuv420p to 192x108 yuv420p"][..],
        ),
        (
            &rgb,
            &[
                "the picture changed size mid-stream, 96x72 to 64x48: measured at its own size",
                "the picture changed size mid-stream, 64x48 to 80x60: measured at its own size",
            ],
        ),
    ] {
        let out = histoplay(&["report", clip.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        for change in changes {
            assert!(stderr.contains(change), "{stderr}");
        }
        let expected = ffmpeg_cli_stats(clip);
        assert_eq!(expected.len(), 5 * (changes.len() + 1));
        // The first frame of the new size has no difference from the one before, as FFmpeg's
        // filters configured again give it.
        assert_eq!(expected[5]["YDIF"], "0");
        assert_ne!(expected[5]["YAVG"], expected[4]["YAVG"]);
        // Every value of every frame, on both sides of the change.
        assert_matches(clip, expected);
    }
    // A range that ends at the change makes no pipeline for the frames after it (its start
    // marks one, in the log), and its frames are the whole run's.
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", h264.to_str().unwrap(), "--frames", "0..5", "--csv"])
        .env("RUST_LOG", "histoplay::process=debug")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("the pipeline made").count(), 1, "{stderr}");
    let (_, whole) = report_csv(&h264, &[]);
    let rows: Vec<Vec<String>> = (String::from_utf8(out.stdout).unwrap().lines().skip(1))
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(rows, whole[..5], "{stderr}");
    let _ = std::fs::remove_file(&h264);
}

#[test]
fn a_picture_that_changes_size_is_measured_scaled_where_frames_are_read_in_the_first_size() {
    // With the photosensitivity analysis (its grid is the first picture's), the frames of
    // the second size are scaled to the first, with a warning; the differences start again
    // at the change all the same.
    let clip = joined("h264-pse", &["160x120", "192x108"], "yuv420p", "libx264", "ts");
    let out = histoplay(&["report", clip.to_str().unwrap(), "--pse"]);
    let _ = std::fs::remove_file(&clip);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the picture changed size mid-stream, 160x120 to 192x108: shown and counted scaled to 160x120"),
        "{stderr}"
    );
    let difs: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["YDIF"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(difs.len(), 10);
    assert_eq!((difs[0], difs[5]), (0.0, 0.0), "{difs:?}");
    assert!(difs[4] > 1.0 && difs[6] > 1.0, "{difs:?}");
}

#[test]
fn a_picture_that_changes_depth_mid_stream_is_measured_converted_with_a_warning() {
    // Two H.264 transport streams end to end: 8-bit, then 10-bit 4:2:0.
    let part = |format: &str| {
        common::fixture(
            &format!("ss-depth-{format}.ts"),
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=s=64x48:r=10:d=0.5",
                "-pix_fmt",
                format,
                "-c:v",
                "libx264",
                "-f",
                "mpegts",
            ],
        )
    };
    let bytes = [part("yuv420p"), part("yuv420p10le")]
        .map(|p| std::fs::read(p).unwrap())
        .concat();
    let clip = std::env::temp_dir().join(format!("histoplay-depth-change-{}.ts", std::process::id()));
    std::fs::write(&clip, bytes).unwrap();
    let out = histoplay(&["report", clip.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The second stream's clock starts where the first one's did: its frames are numbered on.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with(&format!("warning: {}: the timestamps start over at ", clip.display())),
        "{stderr}"
    );
    assert_eq!(
        lines[1],
        format!(
            "warning: {}: the picture changed mid-stream, 8-bit 4:2:0 to 10-bit 4:2:0: shown and counted as 8-bit 4:2:0",
            clip.display()
        )
    );
    let frames: Vec<u64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| common::json(line)["frame"].as_u64().unwrap())
        .collect();
    assert_eq!(frames, (0..10).collect::<Vec<u64>>());
    std::fs::remove_file(&clip).unwrap();
}

#[test]
fn a_range_reports_its_frames_with_differences_from_the_frame_before() {
    let source = "testsrc2=s=64x48:r=10:d=1,noise=alls=40:allf=t,format=yuv420p";
    let clip = common::fixture("ss-range.mkv", &["-f", "lavfi", "-i", source, "-c:v", "ffv1"]);
    let (_, all) = report_csv(&clip, &[]);
    let (_, some) = report_csv(&clip, &["--frames", "4..7"]);
    assert_eq!(some, all[4..7]);
    // The first frame has no frame before it: no difference.
    let ydif = 2 + histoplay::signalstats::NAMES.iter().position(|&n| n == "YDIF").unwrap();
    assert_eq!(all[0][ydif], "0");
    assert_ne!(all[4][ydif], "0");
}

#[test]
fn json_lines_name_the_values_as_ffmpeg_does() {
    let source = "testsrc2=s=64x48:r=10:d=0.2,format=yuv420p";
    let clip = common::fixture("ss-json.mkv", &["-f", "lavfi", "-i", source, "-c:v", "ffv1"]);
    let out = histoplay(&["report", clip.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<_> = text.lines().map(common::json).collect();
    assert_eq!(lines.len(), 2);
    let mut keys = vec!["frame", "pts", "interlaced_frame", "top_field_first"];
    keys.extend(histoplay::signalstats::NAMES);
    assert_eq!(lines[1].keys(), keys);
    assert_eq!((lines[1]["frame"].u64(), lines[1]["pts"].as_f64().unwrap()), (1, 0.1));
    let expected = &ffprobe_stats(&clip)[1];
    assert_eq!(lines[1]["YMAX"].u64().to_string(), expected["YMAX"]);
    assert_eq!(
        histoplay::signalstats::format::g(lines[1]["YAVG"].as_f64().unwrap()),
        expected["YAVG"]
    );
}

#[test]
fn what_it_cannot_read_is_a_one_line_error() {
    let rgb = common::fixture(
        "ss-rgb.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=10:d=0.2,format=rgb24",
            "-c:v",
            "ffv1",
        ],
    );
    let text = std::env::temp_dir().join(format!("histoplay-report-text-{}.mkv", std::process::id()));
    std::fs::write(&text, "not a video\n").unwrap();
    for (args, says) in [
        (vec!["report", "/nonexistent.mkv"], "/nonexistent.mkv"),
        (vec!["report", text.to_str().unwrap()], "not a picture or video"),
        // R'G'B' is measured as FFmpeg converts it; the analysis reads its picture as decoded.
        (vec!["report", rgb.to_str().unwrap(), "--pse", "--fields"], "--pse"),
        // A batch has no analysis: said, not left out.
        (
            vec!["report", rgb.to_str().unwrap(), rgb.to_str().unwrap(), "--pse"],
            "--pse analyses one input",
        ),
        (
            vec!["report", rgb.to_str().unwrap(), "--html", "a.html", "-o", "b.html"],
            "--html 'a.html' and -o 'b.html' name two pages: give one",
        ),
    ] {
        let out = histoplay(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.starts_with("error:") && err.contains(says),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn fail_on_lists_exactly_the_planted_frames_and_fails() {
    // Grey at Y' 120, but frames 3–5 at 250 and frame 8 at 240.
    let source = "color=c=gray:s=64x48:r=10:d=1,format=yuv420p,\
                  geq=lum='if(between(N\\,3\\,5)\\,250\\,if(eq(N\\,8)\\,240\\,120))':cb=128:cr=128";
    let clip = common::fixture("ss-planted.mkv", &["-f", "lavfi", "-i", source, "-c:v", "ffv1"]);
    let path = clip.to_str().unwrap();
    let out = histoplay(&["report", path, "--fail-on", "YMAX>235,YMIN<100"]);
    assert_eq!(out.status.code(), Some(1));
    // The report itself is all there.
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 10);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "YMAX>235: frames 3-5 (0.300-0.500 s), worst 250",
            "YMAX>235: frames 8-8 (0.800-0.800 s), worst 240",
            "2 runs of frames beyond the limits",
        ]
    );
    // Within the limits: success, nothing on stderr.
    let out = histoplay(&["report", path, "--fail-on", "ymax>=251", "--csv"]);
    assert!(out.status.success() && out.stderr.is_empty());
    // A range past the end names its own first frame (not the one before, which primes it).
    let out = histoplay(&["report", path, "--frames", "12.."]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: frame 12 is past the end"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // QCTools' broadcast profile by name (qct-parse's `default`): the 90% point of Y' above
    // 235, and the flat frames' repeated lines (all but the first four of 48).
    let out = histoplay(&["report", path, "--fail-on", "broadcast"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap().lines().collect::<Vec<_>>(),
        [
            "VREP>0.03 (default): frames 0-9 (0.000-0.900 s), worst 0.916667",
            "YHIGH>235 (default): frames 3-5 (0.300-0.500 s), worst 250",
            "YHIGH>235 (default): frames 8-8 (0.800-0.800 s), worst 240",
            "3 runs of frames beyond the limits",
        ]
    );
    // At 10 bits a profile's levels are qct-parse's 10-bit ones: Y' 1000 and 960 above 940.
    let source = "color=c=gray:s=64x48:r=10:d=1,format=yuv420p10le,\
                  geq=lum='if(between(N\\,3\\,5)\\,1000\\,if(eq(N\\,8)\\,960\\,480))':cb=512:cr=512";
    let clip10 = common::fixture("ss-planted-10.mkv", &["-f", "lavfi", "-i", source, "-c:v", "ffv1"]);
    let out = histoplay(&["report", clip10.to_str().unwrap(), "--fail-on", "lowTolerance,BRNG>0"]);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap().lines().collect::<Vec<_>>(),
        [
            "VREP>0.03 (lowTolerance): frames 0-9 (0.000-0.900 s), worst 0.916667",
            "YMAX>940 (lowTolerance): frames 3-5 (0.300-0.500 s), worst 1000",
            "BRNG>0: frames 3-5 (0.300-0.500 s), worst 1",
            "YMAX>940 (lowTolerance): frames 8-8 (0.800-0.800 s), worst 960",
            "BRNG>0: frames 8-8 (0.800-0.800 s), worst 1",
            "5 runs of frames beyond the limits",
        ]
    );
    // A limit on no statistic is a one-line error.
    let out = histoplay(&["report", path, "--fail-on", "YMAXX>1"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && err.starts_with("error:") && err.contains("'YMAXX'"),
        "{err}"
    );
}

/// ffprobe's frames of the file itself as attribute maps: where and how large each frame's
/// packet is, and whether it is a keyframe.
fn ffprobe_frames(path: &Path) -> Vec<BTreeMap<String, String>> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-show_frames"])
        .arg(path)
        .output()
        .unwrap();
    let mut frames = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        if line == "[FRAME]" {
            frames.push(BTreeMap::new());
        } else if let Some((key, value)) = line.split_once('=') {
            if !key.starts_with("TAG:") {
                frames.last_mut().unwrap().insert(key.to_string(), value.to_string());
            }
        }
    }
    frames
}

/// The text of a gzipped file (a QCTools report).
fn gunzip(path: &Path) -> String {
    let mut text = String::new();
    let file = std::fs::File::open(path).unwrap();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text).unwrap();
    text
}

/// `clip`'s QCTools report, written to `report` (nothing on stdout): its text.
fn qctools_report(clip: &Path, report: &Path) -> String {
    let out = histoplay(&[
        "report",
        clip.to_str().unwrap(),
        "--format",
        "qctools",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    gunzip(report)
}

/// Each frame's `name` in a QCTools report's XML, and in ffprobe's frames of `clip`.
fn each_frames(xml: &str, clip: &Path, name: &str) -> (Vec<String>, Vec<String>) {
    let ours = xml
        .split("<frame ")
        .skip(1)
        .map(|e| attribute(&format!(" {e}"), name).to_string())
        .collect();
    let theirs = ffprobe_frames(clip).iter().map(|f| f[name].clone()).collect();
    (ours, theirs)
}

/// An attribute's value in an XML element's opening tag.
fn attribute<'a>(element: &'a str, name: &str) -> &'a str {
    let start = element
        .find(&format!(" {name}=\""))
        .unwrap_or_else(|| panic!("{name} in {element}"))
        + name.len()
        + 3;
    &element[start..start + element[start..].find('"').unwrap()]
}

#[test]
fn each_frames_fields_are_as_the_decoder_flags_them() {
    // MPEG-2 coded interlaced, top field first and bottom field first, and H.264 coded
    // progressive; each frame's flags in the JSON lines and the QCTools report as ffprobe's.
    let source = "testsrc2=s=96x72:r=25:d=0.4,format=yuv420p";
    let interlaced = |top: &'static str| {
        [
            "-f",
            "lavfi",
            "-i",
            source,
            "-c:v",
            "mpeg2video",
            "-flags",
            "+ilme+ildct",
            "-top",
            top,
        ]
    };
    let clips = [
        (common::fixture("fields-tff.mpg", &interlaced("1")), "1", "1"),
        (common::fixture("fields-bff.mpg", &interlaced("0")), "1", "0"),
        (
            common::fixture(
                "fields-progressive.mp4",
                &["-f", "lavfi", "-i", source, "-c:v", "libx264"],
            ),
            "0",
            "0",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("histoplay-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (clip, interlaced_frame, top_field_first) in &clips {
        let frames = ffprobe_frames(clip);
        assert_eq!(frames.len(), 10, "{clip:?}");
        let lines = report_lines(&["report", clip.to_str().unwrap()]);
        assert_eq!(lines.len(), frames.len());
        // The page's facts: how the frames are flagged, and the stream's field order as
        // ffprobe gives it.
        let order = Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-select_streams",
                "v:0",
                "-show_entries",
                "stream=field_order",
            ])
            .args(["-of", "default=nw=1:nk=1"])
            .arg(clip)
            .output()
            .unwrap();
        let order = String::from_utf8(order.stdout).unwrap().trim().to_string();
        let kind = match (*interlaced_frame, *top_field_first) {
            ("0", _) => "progressive",
            (_, "1") => "interlaced, top field first",
            _ => "interlaced, bottom field first",
        };
        let facts = format!("<th>Fields</th><td>10 frames {kind} (the stream says {order})</td>");
        let page = dir.join("fields.html");
        let out = histoplay(&["report", clip.to_str().unwrap(), "--html", page.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(&facts), "{facts} in {clip:?}'s page");
        let report = dir.join("fields.qctools.xml.gz");
        let xml = qctools_report(clip, &report);
        let elements: Vec<&str> = xml.split("<frame ").skip(1).collect();
        assert_eq!(elements.len(), frames.len());
        for (k, (line, element)) in lines.iter().zip(&elements).enumerate() {
            let head = &format!(" {}", &element[..element.find('>').unwrap()]);
            for (name, expected) in [
                ("interlaced_frame", interlaced_frame),
                ("top_field_first", top_field_first),
            ] {
                assert_eq!(frames[k][name], *expected, "{clip:?} frame {k}: ffprobe's {name}");
                assert_eq!(
                    line[name].u64().to_string(),
                    frames[k][name],
                    "{clip:?} frame {k}: {name}"
                );
                assert_eq!(attribute(head, name), frames[k][name], "{clip:?} frame {k}: {name}");
            }
        }
    }
    // Pictures made from the fields are progressive, in their frame's field order, as FFmpeg's
    // bwdif (in either mode) and separatefields flag theirs.
    let tff = clips[0].0.to_str().unwrap();
    for (options, pictures) in [
        (&["--deinterlace", "yes"][..], 20),
        (&["--deinterlace", "yes", "--deinterlacer", "bwdif=mode=send_frame"], 10),
        (&["--fields"], 20),
    ] {
        let lines = report_lines(&[&["report", tff][..], options].concat());
        assert_eq!(lines.len(), pictures, "{options:?}");
        for line in &lines {
            assert_eq!(line["interlaced_frame"].u64(), 0, "{options:?}");
            assert_eq!(line["top_field_first"].u64(), 1, "{options:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_qctools_report_carries_every_frame_as_ffprobe_would() {
    let source = "testsrc2=s=96x72:r=25:d=0.6,noise=alls=30:allf=t,format=yuv422p10le";
    let clip = common::fixture(
        "ss-qctools.mkv",
        &["-f", "lavfi", "-i", source, "-c:v", "ffv1", "-g", "5"],
    );
    let dir = std::env::temp_dir().join(format!("histoplay-qctools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("clip.qctools.xml.gz");
    let xml = qctools_report(&clip, &report);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ffprobe:ffprobe "));
    assert!(xml.trim_end().ends_with("</frames>\n</ffprobe:ffprobe>"));
    let tags = ffprobe_stats(&clip);
    let frames = ffprobe_frames(&clip);
    let elements: Vec<&str> = xml.split("<frame ").skip(1).collect();
    assert_eq!(elements.len(), 15);
    assert_eq!(elements.len(), tags.len());
    for (k, element) in elements.iter().enumerate() {
        let head = &format!(" {}", &element[..element.find('>').unwrap()]);
        assert_eq!(attribute(head, "media_type"), "video");
        for name in [
            "width",
            "height",
            "pix_fmt",
            "pkt_size",
            "key_frame",
            "pkt_pos",
            "pict_type",
            "interlaced_frame",
            "top_field_first",
        ] {
            assert_eq!(attribute(head, name), frames[k][name], "frame {k}: {name}");
        }
        let seconds: f64 = attribute(head, "pkt_pts_time").parse().unwrap();
        assert!((seconds - k as f64 / 25.0).abs() < 1e-6, "frame {k} at {seconds}");
        assert!((attribute(head, "pkt_duration_time").parse::<f64>().unwrap() - 0.04).abs() < 1e-6);
        // Every statistic, printed as ffprobe prints it.
        let ours: BTreeMap<String, String> = element
            .lines()
            .filter_map(|l| l.trim().strip_prefix("<tag key=\"lavfi.signalstats."))
            .map(|t| {
                let (key, rest) = t.split_once('"').unwrap();
                (
                    key.to_string(),
                    attribute(&format!(" {}", rest.trim()), "value").to_string(),
                )
            })
            .collect();
        assert_eq!(ours, tags[k], "frame {k}");
    }
    // The pixel format as FFmpeg names it, where Rust's names differ (gray8, bgrz).
    for (name, format) in [("ss-qctools-grey.mkv", "gray"), ("ss-qctools-rgb.mkv", "rgb24")] {
        let source = format!("testsrc2=s=64x48:r=25:d=0.12,format={format}");
        let clip = common::fixture(name, &["-f", "lavfi", "-i", &source, "-c:v", "ffv1"]);
        let (ours, theirs) = each_frames(&qctools_report(&clip, &report), &clip, "pix_fmt");
        assert_eq!(ours, theirs, "{name}");
        assert!(theirs[0] == "gray" || theirs[0] == "bgr0", "{theirs:?}");
    }
    // The default name sits beside the file.
    assert_eq!(
        histoplay::cli::report::ReportFormat::Qctools.path_beside(Path::new("/a/tape.mkv")),
        Path::new("/a/tape.mkv.qctools.xml.gz")
    );

    // H.264 with B-frames: each frame's coding type, in presentation order, as ffprobe's.
    let source = "testsrc2=s=96x72:r=25:d=0.8,format=yuv420p";
    let clip = common::fixture(
        "ss-qctools-bframes.mp4",
        &["-f", "lavfi", "-i", source, "-c:v", "libx264", "-bf", "2", "-g", "8"],
    );
    let (ours, theirs) = each_frames(&qctools_report(&clip, &report), &clip, "pict_type");
    assert_eq!(ours, theirs);
    assert!(
        theirs.iter().any(|t| t == "B") && theirs.iter().any(|t| t == "P"),
        "{theirs:?}"
    );

    // Into a pipe (`-o /dev/stdout`, `-o >(zcat)`): written through, the pipe left a pipe, where a
    // plain file's report is written beside it and renamed over it.
    let whole = gunzip(&report);
    let pipe = dir.join("pipe");
    assert!(Command::new("mkfifo").arg(&pipe).status().unwrap().success());
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || gunzip(&pipe))
    };
    let out = histoplay(&[
        "report",
        clip.to_str().unwrap(),
        "--format",
        "qctools",
        "-o",
        pipe.to_str().unwrap(),
    ]);
    if !out.status.success() {
        // (The reader, still waiting for a writer, is let go before the test fails.)
        drop(std::fs::OpenOptions::new().write(true).open(&pipe));
        panic!("{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(reader.join().unwrap(), whole);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
    assert_eq!(names_in(&dir).len(), 2, "{:?}", names_in(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_is_a_batch_with_a_report_beside_each_file_and_a_summary() {
    let dir = std::env::temp_dir().join(format!("histoplay-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("day2")).unwrap();
    let make = |name: &str, format: &str| {
        let source = format!("testsrc2=s=64x48:r=10:d=0.5,format={format}");
        common::fixture(name, &["-f", "lavfi", "-i", &source, "-c:v", "ffv1"])
    };
    std::fs::copy(make("batch-a.mkv", "yuv420p"), dir.join("a.mkv")).unwrap();
    std::fs::copy(make("batch-b.mkv", "yuv422p10le"), dir.join("day2/b.mkv")).unwrap();
    std::fs::write(dir.join("broken.mp4"), b"not a video").unwrap();
    std::fs::write(dir.join("notes.txt"), b"not looked at").unwrap();
    // A FIFO named as a video is no file to report: opened, it would wait for a writer.
    assert!(Command::new("mkfifo")
        .arg(dir.join("waiting.mkv"))
        .status()
        .unwrap()
        .success());
    let d = dir.to_str().unwrap();

    let out = histoplay(&["report", d, "--jobs", "2"]);
    // The broken file fails, the rest go on; the status says something failed.
    assert_eq!(out.status.code(), Some(1));
    let summary = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert!(
        lines[0].starts_with("file") && lines[0].ends_with("result"),
        "{summary}"
    );
    assert!(
        lines[1].contains("a.mkv") && lines[1].contains(" 5 ") && lines[1].ends_with("ok"),
        "{summary}"
    );
    assert!(
        lines[2].contains("broken.mp4") && lines[2].contains("failed: "),
        "{summary}"
    );
    assert!(lines[3].contains("day2/b.mkv") && lines[3].ends_with("ok"), "{summary}");
    assert_eq!(
        lines[4],
        "3 files: 2 reported (0 beyond the limits), 0 skipped, 1 failed"
    );
    // Each report is whole, beside its file, and nothing half-written is left.
    for (report, clip) in [
        ("a.mkv.qctools.xml.gz", "a.mkv"),
        ("day2/b.mkv.qctools.xml.gz", "day2/b.mkv"),
    ] {
        let xml = gunzip(&dir.join(report));
        assert_eq!(xml.matches("<frame ").count(), 5, "{report}");
        let yavg = &ffprobe_stats(&dir.join(clip))[4]["YAVG"];
        assert!(
            xml.contains(&format!("key=\"lavfi.signalstats.YAVG\" value=\"{yavg}\"")),
            "{report}"
        );
    }
    assert!(!dir.join("broken.mp4.qctools.xml.gz").exists());
    let parts = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().to_string_lossy().contains(".part"));
    assert_eq!(parts.count(), 0);

    // Resumed: the reported files are left out, the broken one is tried again.
    let out = histoplay(&["report", d, "--skip-existing"]);
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.ends_with("3 files: 0 reported (0 beyond the limits), 2 skipped, 1 failed\n"),
        "{summary}"
    );

    // Files named one by one, as CSV, with a limit that flags them.
    let a = dir.join("a.mkv");
    let b = dir.join("day2/b.mkv");
    let out = histoplay(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "csv",
        "--fail-on",
        "YMIN<1000",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(summary.contains("YMIN<1000: frames 0-4"), "{summary}");
    let csv = std::fs::read_to_string(dir.join("a.mkv.signalstats.csv")).unwrap();
    assert_eq!(csv.lines().count(), 6);
    // A batch takes whole files.
    let out = histoplay(&["report", d, "--frames", "0..2"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success() && err.starts_with("error:"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The names of the files in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_signal_stops_a_batch_cleanly_and_says_what_was_finished() {
    let dir = std::env::temp_dir().join(format!("histoplay-batch-signal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let short = common::fixture(
        "batch-signal-short.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=64x48:r=10:d=0.5", "-c:v", "ffv1"],
    );
    let long = common::long_clip();
    std::fs::copy(&short, dir.join("a.mkv")).unwrap();
    std::fs::copy(&long, dir.join("b.mp4")).unwrap();
    std::fs::copy(&long, dir.join("c.mp4")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", dir.to_str().unwrap(), "--jobs", "1", "--cpu"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    // a.mkv is reported whole, b.mp4 is under way.
    let underway = dir.join(format!("b.mp4.qctools.xml.gz.part-{}", child.0.id()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !(dir.join("a.mkv.qctools.xml.gz").exists() && underway.exists()) {
        assert!(std::time::Instant::now() < deadline, "the batch never reached b.mp4");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = common::output_of(&mut child.0);
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert!(lines[1].contains("a.mkv") && lines[1].ends_with("ok"), "{summary}");
    assert!(
        lines[2].contains("b.mp4") && lines[2].ends_with("stopped: not reported"),
        "{summary}"
    );
    assert!(
        lines[3].contains("c.mp4") && lines[3].ends_with("stopped: not reported"),
        "{summary}"
    );
    assert_eq!(
        lines[4],
        "3 files: 1 reported (0 beyond the limits), 0 skipped, 0 failed, 2 stopped"
    );
    // The finished report stays whole; nothing half-written is left.
    assert_eq!(gunzip(&dir.join("a.mkv.qctools.xml.gz")).matches("<frame ").count(), 5);
    assert_eq!(names_in(&dir), ["a.mkv", "a.mkv.qctools.xml.gz", "b.mp4", "c.mp4"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bytes of a file, for checking that a run left it as it was.
fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn a_report_never_overwrites_its_input_nor_a_good_report_with_a_failed_one() {
    let dir = std::env::temp_dir().join(format!("histoplay-report-keeps-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let clip = common::fixture(
        "keeps.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=64x48:r=10:d=0.5", "-c:v", "ffv1"],
    );
    let input = dir.join("in.mkv");
    std::fs::copy(&clip, &input).unwrap();
    let link = dir.join("link.mkv");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let original = bytes(&input);
    let path = input.to_str().unwrap();
    // Every file a report writes, named as the input (or a link to it): refused before the run.
    for args in [
        vec!["report", path, "--format", "qctools", "-o", path],
        vec!["report", path, "--html", path],
        vec!["report", path, "--record", link.to_str().unwrap()],
        vec!["report", path, "--fail-on", "YMAX>1", "--alert-log", path],
    ] {
        let out = histoplay(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains("is the input"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(bytes(&input) == original, "{args:?} changed the input");
    }
    // A recording named as a picture (not a container of H.264) and a page to stdout: refused
    // before anything is made.
    let png = dir.join("recording.png");
    for (args, says) in [
        (
            vec!["report", path, "--record", png.to_str().unwrap()],
            "that is a picture's name",
        ),
        (vec!["report", path, "--html", "-"], "--html writes the page to a file"),
    ] {
        let out = histoplay(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty());
    }
    // A recording kept, then a run whose container refuses its header (PCM sound in MP4):
    // FFmpeg's reason, and the recording there before as it was, with nothing beside it.
    let with_pcm = common::fixture(
        "keeps-pcm.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=10:d=0.5",
            "-f",
            "lavfi",
            "-i",
            "sine=d=0.5",
            "-c:v",
            "libx264",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let h264 = common::fixture(
        "keeps-h264.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=64x48:r=10:d=0.5", "-c:v", "libx264"],
    );
    let recording = dir.join("kept.mp4");
    let made = histoplay(&[
        "report",
        h264.to_str().unwrap(),
        "--record",
        recording.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let recorded = bytes(&recording);
    assert!(!recorded.is_empty());
    let refused = histoplay(&[
        "report",
        with_pcm.to_str().unwrap(),
        "--record",
        recording.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: ") && err.contains("pcm_s16le"), "{err}");
    assert!(bytes(&recording) == recorded, "the recording there was replaced");
    assert_eq!(names_in(&dir), ["in.mkv", "kept.mp4", "link.mkv"]);
    // A recording named through a link replaces the file the link names: the link stays a
    // link, and a header refused there leaves that file as it was too.
    let through = dir.join("through.mp4");
    std::os::unix::fs::symlink(&recording, &through).unwrap();
    let made = histoplay(&["report", h264.to_str().unwrap(), "--record", through.to_str().unwrap()]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert!(std::fs::symlink_metadata(&through).unwrap().file_type().is_symlink());
    assert!(
        bytes(&recording) == recorded,
        "the same recording, written again through the link"
    );
    let refused = histoplay(&[
        "report",
        with_pcm.to_str().unwrap(),
        "--record",
        through.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(std::fs::symlink_metadata(&through).unwrap().file_type().is_symlink());
    assert!(
        bytes(&recording) == recorded,
        "the recording the link names was replaced"
    );
    std::fs::remove_file(&through).unwrap();
    // A good report, then a run over a file none of whose frames decodes (raw frames cut
    // short): an error that says so, and the good report as it was, with nothing beside it.
    let report = dir.join("q.xml.gz");
    let good = histoplay(&["report", path, "--format", "qctools", "-o", report.to_str().unwrap()]);
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
    let kept = bytes(&report);
    let short = dir.join("short.yuv");
    std::fs::write(&short, [16u8; 1000]).unwrap();
    let raw = [
        "--input-format",
        "rawvideo",
        "--input-option",
        "video_size=64x48",
        "--input-option",
        "pixel_format=yuv420p",
    ];
    let mut args = vec!["report", short.to_str().unwrap(), "--format", "qctools", "-o"];
    args.push(report.to_str().unwrap());
    args.extend(raw);
    let failed = histoplay(&args);
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    assert!(
        err.lines().last().unwrap().starts_with("error: ")
            && err.contains("no frame of its video could be decoded (damaged, or cut short)"),
        "{err}"
    );
    assert!(bytes(&report) == kept, "the good report was replaced");
    // JSON Lines of it: the same error, not an empty report that passes.
    let mut args = vec!["report", short.to_str().unwrap(), "--fail-on", "YMAX>235"];
    args.extend(raw);
    let json = histoplay(&args);
    assert_eq!(json.status.code(), Some(1));
    assert!(json.stdout.is_empty());
    assert!(String::from_utf8_lossy(&json.stderr)
        .contains("no frame of its video could be decoded (damaged, or cut short)"));
    assert_eq!(
        names_in(&dir),
        ["in.mkv", "kept.mp4", "link.mkv", "q.xml.gz", "short.yuv"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_whose_video_never_decodes_is_an_error_that_says_so() {
    // An H.264 MP4 whose frames' bytes are all overwritten: FFmpeg's probe decodes none.
    let clip = common::fixture(
        "undecodable-source.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=10:d=1",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let mut data = bytes(&clip);
    let at = data.windows(4).position(|w| w == b"mdat").unwrap();
    let size = u32::from_be_bytes(data[at - 4..at].try_into().unwrap()) as usize;
    data[at + 4..at - 4 + size].fill(0xab);
    let broken = std::env::temp_dir().join(format!("histoplay-undecodable-{}.mp4", std::process::id()));
    std::fs::write(&broken, data).unwrap();
    let path = broken.to_str().unwrap();
    for args in [vec!["report", path], vec!["compare", path, path], vec!["pse", path]] {
        let out = histoplay(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err.lines().last().unwrap(),
            format!("error: '{path}': no frame of its video could be decoded (its pixel format is unknown)"),
            "{args:?}"
        );
    }
    std::fs::remove_file(&broken).unwrap();
}

#[test]
fn a_signal_before_the_end_of_a_file_leaves_the_report_there_as_it_was() {
    let dir = std::env::temp_dir().join(format!("histoplay-report-signal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let long = common::long_clip();
    let report = dir.join("long.xml.gz");
    std::fs::write(&report, b"an older report").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", long.to_str().unwrap(), "--cpu", "--format", "qctools", "-o"])
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    // Under way: the report is being written beside its name.
    let underway = dir.join(format!("long.xml.gz.part-{}", child.0.id()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while std::fs::metadata(&underway).map_or(true, |m| m.len() == 0) {
        assert!(std::time::Instant::now() < deadline, "the report never got under way");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = common::output_of(&mut child.0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!(
            "note: stopped before the end: '{}' was not written",
            report.display()
        )]
    );
    assert_eq!(bytes(&report), b"an older report");
    assert!(!underway.exists());
    // A page is of what was measured, and says it was stopped short.
    let page = dir.join("long.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", long.to_str().unwrap(), "--cpu", "--events", "--html"])
        .arg(&page)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    let mut first = String::new();
    let mut lines = std::io::BufReader::new(child.0.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut lines, &mut first).unwrap();
    assert!(first.starts_with("{\"frame\":0,"), "{first}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let rest = std::io::read_to_string(lines).unwrap();
    let out = common::output_of(&mut child.0);
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let measured = 1 + rest.lines().filter(|l| l.starts_with("{\"frame\"")).count();
    assert!(measured < 6000, "{measured}");
    assert!(
        html.contains("<p class=\"verdict note\" id=\"stopped\">Stopped before the end, at "),
        "{html}"
    );
    assert!(html.contains(" s of 240.000 s: the page is of what was measured up to there."));
    std::fs::remove_dir_all(&dir).unwrap();
}
