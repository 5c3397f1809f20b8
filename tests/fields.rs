//! Fields on their own: `report --fields` gives each field's signalstats values, top then bottom,
//! equal to ffprobe's after FFmpeg's `field` filter (every other line, each field's differences
//! from the same field of the frame before), on the GPU and with the CPU twin, at 8 and 10 bits,
//! 4:2:0 and 4:2:2.

mod common;

use common::{fixture, repo_path, report_csv};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 0.4 s of the sample made interlaced (each field a frame of its own), coded by `codec`.
fn interlaced(name: &str, size: &str, scan: &str, codec: &[&str]) -> PathBuf {
    let sample = repo_path("media/sample-540p.mp4");
    let filter = format!("setpts=N/50/TB,scale={size},interlace=scan={scan}:lowpass=0");
    let mut args = vec!["-i", sample.to_str().unwrap(), "-t", "0.4", "-an", "-vf", &filter];
    args.extend_from_slice(codec);
    fixture(name, &args)
}

fn pal_h264() -> PathBuf {
    interlaced(
        "fields-pal-h264.mkv",
        "720:576",
        "tff",
        &[
            "-c:v",
            "libx264",
            "-crf",
            "20",
            "-flags",
            "+ilme+ildct",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

fn ntsc_prores() -> PathBuf {
    interlaced(
        "fields-ntsc-prores.mov",
        "720:480",
        "bff",
        &[
            "-c:v",
            "prores_ks",
            "-profile:v",
            "2",
            "-flags",
            "+ilme",
            "-top",
            "0",
            "-pix_fmt",
            "yuv422p10le",
        ],
    )
}

/// `report --fields` (with `args`) of `path` gives, field for field, what ffprobe gives after
/// `field=top` and `field=bottom`, from frame `first` on.
fn assert_fields_equal_ffprobe(path: &Path, args: &[&str], first: usize) {
    let mut all = vec!["--fields"];
    all.extend_from_slice(args);
    let (header, rows) = report_csv(path, &all);
    assert_eq!(header[..3], ["frame", "field", "pts"]);
    let top = common::ffprobe_stats_after(path, Some("field=top"));
    let bottom = common::ffprobe_stats_after(path, Some("field=bottom"));
    assert_eq!(rows.len(), 2 * (top.len() - first), "{}", path.display());
    for (i, row) in rows.iter().enumerate() {
        let (n, field) = (first + i / 2, ["top", "bottom"][i % 2]);
        let mut expected = if i % 2 == 0 { top[n].clone() } else { bottom[n].clone() };
        expected.remove("pts_time");
        assert_eq!((row[0].as_str(), row[1].as_str()), (n.to_string().as_str(), field));
        let ours: BTreeMap<String, String> = header[3..].iter().cloned().zip(row[3..].iter().cloned()).collect();
        assert_eq!(ours, expected, "{} {args:?}: frame {n}, {field} field", path.display());
    }
}

#[test]
fn report_fields_gives_ffprobes_values_after_the_field_filter() {
    let pal = pal_h264();
    assert_fields_equal_ffprobe(&pal, &[], 0);
    assert_fields_equal_ffprobe(&pal, &["--cpu"], 0);
    // A range: its first fields' differences are from the fields of the frame before it.
    assert_fields_equal_ffprobe(&pal, &["--frames", "4.."], 4);
    let ntsc = ntsc_prores();
    assert_fields_equal_ffprobe(&ntsc, &[], 0);
    assert_fields_equal_ffprobe(&ntsc, &["--cpu"], 0);
    // 16-bit R'G'B' (a scan's), measured as FFmpeg converts it: 4:4:4 at 16 bits.
    let rgb48 = interlaced(
        "fields-pal-rgb48.mkv",
        "720:576",
        "tff",
        &["-c:v", "ffv1", "-pix_fmt", "rgb48le"],
    );
    assert_fields_equal_ffprobe(&rgb48, &[], 0);
}

#[test]
fn fields_of_no_one_height_are_refused() {
    // 4:2:0 of 574 lines: its chroma's 287 lines can't be shared by two fields.
    let odd = fixture(
        "fields-574.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=720x574:r=25:d=0.2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    for cpu in [false, true] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["report", "--fields"])
            .args(cpu.then_some("--cpu"))
            .arg(&odd)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.starts_with("error: the fields of 720x574 ") && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
}

/// Each field of `path` as FFmpeg's `field` filter makes it, kept losslessly.
fn ffmpeg_field(path: &Path, name: &str, field: &str) -> PathBuf {
    fixture(
        name,
        &[
            "-i",
            path.to_str().unwrap(),
            "-vf",
            &format!("field={field}"),
            "-c:v",
            "ffv1",
        ],
    )
}

/// `histoplay COMMAND ARGS FILE`'s JSON lines.
fn lines(command: &str, args: &[&str], path: &Path) -> Vec<serde_json::Value> {
    common::json_lines(&[&[command][..], args].concat(), path)
}

#[test]
fn hist_and_scope_count_each_field_as_ffmpeg_makes_it() {
    let pal = pal_h264();
    let top = ffmpeg_field(&pal, "fields-pal-top.mkv", "top");
    let bottom = ffmpeg_field(&pal, "fields-pal-bottom.mkv", "bottom");
    for (command, args) in [
        ("hist", vec!["--frames", "0.."]),
        (
            "scope",
            vec![
                "--frames",
                "0..",
                "--kind",
                "waveform",
                "--columns",
                "64",
                "--bins",
                "64",
            ],
        ),
        ("scope", vec!["--frames", "0..", "--kind", "vectorscope"]),
    ] {
        let mut with_fields = args.clone();
        with_fields.push("--fields");
        let ours = lines(command, &with_fields, &pal);
        with_fields.push("--cpu");
        assert_eq!(lines(command, &with_fields, &pal), ours, "{command} {args:?}: --cpu");
        let fields = [lines(command, &args, &top), lines(command, &args, &bottom)];
        assert_eq!(ours.len(), 2 * fields[0].len());
        for (i, line) in ours.iter().enumerate() {
            let (n, f) = (i / 2, i % 2);
            assert_eq!(line["frame"], n);
            assert_eq!(line["field"], ["top", "bottom"][f]);
            assert_eq!(
                (line["width"].as_u64(), line["height"].as_u64()),
                (Some(720), Some(288))
            );
            let expected = &fields[f][n];
            for key in ["r", "g", "b", "l", "counts"] {
                assert_eq!(
                    line[key], expected[key],
                    "{command} {args:?}: frame {n} field {f}: {key}"
                );
            }
        }
    }
}
