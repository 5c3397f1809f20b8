//! Interlace detection equal to FFmpeg's `idet`: `report --idet` (GPU, and the CPU twin with
//! `--cpu`) against ffprobe's `lavfi.idet.*` tags of every frame, on footage made interlaced
//! (both field orders, 8 and 10 bits, 4:2:0 and 4:2:2), telecined, progressive, and flagged
//! wrongly; the totals against the filter's own log; the GPU pass against the twin on raw
//! planes of every layout it reads.

mod common;

use common::{fixture, json, repo_path};
use histoplay::colour::{ColorSpec, Matrix, Range};
use histoplay::gpu::readback::read_buffer;
use histoplay::idet::gpu::IdetPass;
use histoplay::idet::{cpu, Sums};
use histoplay::video::deinterlace::cpu::PlaneGeometry;
use histoplay::video::deinterlace::kept::KeptFrames;
use histoplay::video::deinterlace::Output;
use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Tags = BTreeMap<String, String>;

/// 1.2 s of the sample through `filter`, coded by `codec` args. (Made interlaced, each field is
/// a frame of its own: the sample's frames taken at the field rate.)
fn clip(name: &str, filter: &str, codec: &[&str]) -> PathBuf {
    let sample = repo_path("media/sample-540p.mp4");
    let mut args = vec!["-i", sample.to_str().unwrap(), "-t", "1.2", "-an", "-vf", filter];
    args.extend_from_slice(codec);
    fixture(name, &args)
}

/// PAL 4:2:0 H.264, each field from its own moment, top field first and flagged so.
fn pal_tff() -> PathBuf {
    clip(
        "idet-pal-tff.mkv",
        "setpts=N/50/TB,scale=720:576,interlace=scan=tff:lowpass=0",
        &[
            "-c:v",
            "libx264",
            "-crf",
            "18",
            "-flags",
            "+ilme+ildct",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// NTSC 4:2:2 MPEG-2, bottom field first and flagged so.
fn ntsc_bff() -> PathBuf {
    clip(
        "idet-ntsc-bff.ts",
        "setpts=N/(60000/1001)/TB,scale=720:480,interlace=scan=bff:lowpass=0",
        &[
            "-c:v",
            "mpeg2video",
            "-q:v",
            "2",
            "-flags",
            "+ilme+ildct",
            "-top",
            "0",
            "-pix_fmt",
            "yuv422p",
        ],
    )
}

/// 24p telecined to 30i (3:2 pulldown, top field first), 10-bit 4:2:0 FFV1, an odd size.
fn telecined_10bit() -> PathBuf {
    clip(
        "idet-telecine-10bit.mkv",
        "fps=24000/1001,scale=353:241,telecine=first_field=top:pattern=23,format=yuv420p10le",
        &["-c:v", "ffv1"],
    )
}

/// Progressive H.264, moving fast enough for idet to tell.
fn progressive() -> PathBuf {
    clip(
        "idet-progressive.mp4",
        "setpts=PTS/3,fps=30,scale=640:360",
        &["-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p"],
    )
}

/// Interlaced top field first, but coded (and flagged) progressive: the classic delivery fault.
fn flagged_progressive() -> PathBuf {
    clip(
        "idet-flagged-progressive.mp4",
        "setpts=N/50/TB,scale=720:576,interlace=scan=tff:lowpass=0,setfield=prog",
        &["-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p"],
    )
}

/// Bottom field first, flagged top field first: a field-order mistake.
fn wrong_order() -> PathBuf {
    clip(
        "idet-wrong-order.mkv",
        "setpts=N/50/TB,scale=720:576,interlace=scan=bff:lowpass=0,setfield=tff",
        &[
            "-c:v",
            "libx264",
            "-crf",
            "18",
            "-flags",
            "+ilme+ildct",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// ffprobe's `lavfi.idet.*` tags of each frame out of `movie=PATH,GRAPH` (without the prefix).
fn ffprobe_idet(path: &Path, graph: &str) -> Vec<Tags> {
    common::ffprobe_tags(path, graph, "lavfi.idet.", false)
}

/// The filter's totals as it logs them at its end: `[single, multiple]` as TFF, BFF,
/// progressive, undetermined, and the repeated fields as neither, top, bottom.
fn ffmpeg_totals(path: &Path) -> ([[u64; 4]; 2], [u64; 3]) {
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(path)
        .args(["-an", "-vf", "idet", "-f", "null", "-"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let numbers = |prefix: &str| -> Vec<u64> {
        let line = log
            .lines()
            .find(|l| l.contains(prefix))
            .unwrap_or_else(|| panic!("{prefix} in {log}"));
        let after = &line[line.find(prefix).unwrap() + prefix.len()..];
        after
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect()
    };
    let four = |v: Vec<u64>| [v[0], v[1], v[2], v[3]];
    let single = four(numbers("Single frame detection:"));
    let multiple = four(numbers("Multi frame detection:"));
    let repeated = numbers("Repeated Fields:");
    ([single, multiple], [repeated[0], repeated[1], repeated[2]])
}

/// `histoplay report FILE ARGS`: each frame's line, the last (summary) line, the exit status and
/// stderr.
fn report(path: &Path, args: &[&str]) -> (Vec<serde_json::Value>, serde_json::Value, Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<serde_json::Value> = stdout.lines().map(json).collect();
    let summary = lines.pop().unwrap_or_else(|| panic!("no output: {stderr}"));
    (lines, summary, out.status.code(), stderr)
}

/// A frame line's `idet` object as ffprobe's tags: `single.tff` = `3.00`.
fn as_tags(line: &serde_json::Value) -> Tags {
    let mut tags = Tags::new();
    let idet = line["idet"].as_object().unwrap_or_else(|| panic!("no idet in {line}"));
    for (group, values) in idet {
        for (key, value) in values.as_object().unwrap() {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                number => format!("{:.2}", number.as_f64().unwrap()),
            };
            tags.insert(format!("{group}.{key}"), text);
        }
    }
    tags
}

fn assert_frames_equal(ours: &[serde_json::Value], oracle: &[Tags], what: &str) {
    assert_eq!(ours.len(), oracle.len(), "{what}: frames");
    for (i, (line, expected)) in ours.iter().zip(oracle).enumerate() {
        assert_eq!(expected.len(), 14, "{what}: ffprobe's tags of frame {i}");
        assert_eq!(&as_tags(line), expected, "{what}: frame {i}");
    }
}

fn assert_equal_to_ffmpeg(path: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--idet"];
    args.extend_from_slice(extra);
    let (lines, summary, status, stderr) = report(path, &args);
    assert_eq!(status, Some(0), "{stderr}");
    let what = format!("{} {extra:?}", path.display());
    assert_frames_equal(&lines, &ffprobe_idet(path, "idet"), &what);
    let ([single, multiple], repeated) = ffmpeg_totals(path);
    let idet = &summary["idet"];
    let counts =
        |group: &str, names: &[&str]| -> Vec<u64> { names.iter().map(|n| idet[group][n].as_u64().unwrap()).collect() };
    let scans = ["tff", "bff", "progressive", "undetermined"];
    assert_eq!(counts("single", &scans), single, "{what}: {summary}");
    assert_eq!(counts("multiple", &scans), multiple, "{what}: {summary}");
    assert_eq!(
        counts("repeated", &["neither", "top", "bottom"]),
        repeated,
        "{what}: {summary}"
    );
    assert_eq!(idet["frames"].as_u64(), Some(lines.len() as u64));
    summary
}

#[test]
fn report_equals_idet_on_interlaced_footage_of_either_order() {
    let summary = assert_equal_to_ffmpeg(&pal_tff(), &[]);
    assert_eq!(summary["idet"]["content"], "tff", "{summary}");
    assert_eq!(summary["idet"]["flagged"], "tff");
    assert_eq!(summary["idet"]["agrees"], true);
    let summary = assert_equal_to_ffmpeg(&ntsc_bff(), &[]);
    assert_eq!(summary["idet"]["content"], "bff", "{summary}");
    assert_eq!(summary["idet"]["flagged"], "bff");
}

#[test]
fn frames_the_decoder_loses_leave_idet_reading_the_frames_either_side_as_ffmpegs_does() {
    let joins = common::mpeg2_losing_frames_at_joins();
    for extra in [&[][..], &["--cpu"]] {
        let summary = assert_equal_to_ffmpeg(&joins, extra);
        assert_eq!(summary["idet"]["frames"], 18, "{summary}");
    }
}

#[test]
fn the_cpu_twin_gives_the_same() {
    assert_equal_to_ffmpeg(&pal_tff(), &["--cpu"]);
    assert_equal_to_ffmpeg(&telecined_10bit(), &["--cpu"]);
}

#[test]
fn report_equals_idet_on_telecined_10_bit_and_progressive_footage() {
    let summary = assert_equal_to_ffmpeg(&telecined_10bit(), &[]);
    // 3:2 pulldown repeats a field in two frames of five.
    let repeated = &summary["idet"]["repeated"];
    let shown = repeated["top"].as_u64().unwrap() + repeated["bottom"].as_u64().unwrap();
    assert!(shown >= 8, "{summary}");
    let summary = assert_equal_to_ffmpeg(&progressive(), &[]);
    assert_eq!(summary["idet"]["content"], "progressive", "{summary}");
    assert_eq!(summary["idet"]["agrees"], true);
}

#[test]
fn rgb_and_grey_footage_is_read_as_ffmpeg_converts_it() {
    // FFmpeg's idet takes R'G'B' as 4:4:4 Y'CbCr (swscale's), grey as it is.
    for (name, format) in [("idet-rgb.mkv", "rgb24"), ("idet-grey.mkv", "gray")] {
        let path = clip(
            name,
            &format!("setpts=N/50/TB,scale=720:576,interlace=scan=tff:lowpass=0,format={format}"),
            &["-c:v", "ffv1"],
        );
        let summary = assert_equal_to_ffmpeg(&path, &[]);
        assert_eq!(summary["idet"]["content"], "tff", "{name}: {summary}");
    }
}

#[test]
fn the_options_are_the_filters() {
    let path = pal_tff();
    let (lines, _, status, stderr) = report(&path, &["--idet=half_life=1:intl_thres=1.2"]);
    assert_eq!(status, Some(0), "{stderr}");
    assert_frames_equal(
        &lines,
        &ffprobe_idet(&path, "idet=half_life=1:intl_thres=1.2"),
        "options",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .arg(&path)
        .arg("--idet=nonsense=1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("'nonsense' is not an option of idet"), "{stderr}");
}

#[test]
fn a_range_decides_its_frames_as_the_whole_run_does() {
    // Each frame's own decisions read the frames before and after it, in the range or not.
    let path = ntsc_bff();
    let (lines, _, status, stderr) = report(&path, &["--idet", "--frames", "5..12"]);
    assert_eq!(status, Some(0), "{stderr}");
    let oracle = ffprobe_idet(&path, "idet");
    assert_eq!(lines.len(), 7);
    for (line, expected) in lines.iter().zip(&oracle[5..12]) {
        let ours = as_tags(line);
        for key in ["single.current_frame", "repeated.current_frame"] {
            assert_eq!(ours[key], expected[key], "frame {}: {key}", line["frame"]);
        }
    }
    assert_eq!(lines[0]["frame"], 5);
}

#[test]
fn fail_on_idet_finds_content_that_contradicts_its_flags() {
    let (lines, summary, status, stderr) = report(&flagged_progressive(), &["--fail-on", "idet"]);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(
        stderr.contains("idet: flagged progressive, content tff: frames "),
        "{stderr}"
    );
    assert_eq!(summary["idet"]["content"], "tff");
    assert_eq!(summary["idet"]["flagged"], "progressive");
    assert_eq!(summary["idet"]["agrees"], false);
    assert!(lines.iter().all(|l| l["interlaced_frame"] == 0));

    let (_, summary, status, stderr) = report(&wrong_order(), &["--fail-on", "idet"]);
    assert_eq!(status, Some(1), "{stderr}");
    assert!(stderr.contains("idet: flagged tff, content bff: frames "), "{stderr}");
    assert_eq!(summary["idet"]["content"], "bff");

    for right in [pal_tff(), progressive()] {
        let (_, _, status, stderr) = report(&right, &["--fail-on", "idet"]);
        assert_eq!(status, Some(0), "{}: {stderr}", right.display());
    }
}

#[test]
fn a_qctools_report_has_idets_tags_as_qctools_runs_it() {
    let path = ntsc_bff();
    let out = std::env::temp_dir().join(format!("histoplay-idet-{}.qctools.xml.gz", std::process::id()));
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--format", "qctools", "-o"])
        .arg(&out)
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let unzipped = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(&out)
        .output()
        .unwrap();
    std::fs::remove_file(&out).unwrap();
    let xml = String::from_utf8(unzipped.stdout).unwrap();
    let ours: Vec<Tags> = xml
        .split("<frame media_type=\"video\"")
        .skip(1)
        .map(|frame| {
            frame
                .lines()
                .filter_map(|l| l.trim().strip_prefix("<tag key=\"lavfi.idet."))
                .map(|rest| {
                    let (key, value) = rest.split_once("\" value=\"").unwrap();
                    (key.to_string(), value.trim_end_matches("\"/>").to_string())
                })
                .collect()
        })
        .collect();
    assert_eq!(ours, ffprobe_idet(&path, "idet=half_life=1"));
}

#[test]
fn deinterlaced_pictures_carry_their_frames_decisions() {
    // FFmpeg's bwdif copies a frame's metadata to both its fields.
    let path = pal_tff();
    let (lines, _, status, stderr) = report(
        &path,
        &[
            "--idet",
            "--deinterlace",
            "yes",
            "--deinterlacer",
            "bwdif=mode=send_field",
        ],
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert_frames_equal(&lines, &ffprobe_idet(&path, "idet,bwdif=mode=send_field"), "field rate");
    assert_eq!(lines[1]["frame"], 1);
}

/// Random planes of `format`, each sample of `bits` with `shift` bits above it.
fn random_planes(format: &FrameFormat, seed: u32) -> Vec<Vec<u8>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        state >> 8
    };
    PlaneGeometry::of(format)
        .iter()
        .map(|g| {
            let samples: Vec<u16> = (0..g.samples())
                .map(|_| (next() % (g.max() as u32 + 1)) as u16)
                .collect();
            g.write(&samples, g.row_bytes())
        })
        .collect()
}

#[test]
fn the_gpu_pass_equals_the_twin_on_every_layout_it_reads() {
    let ctx = common::gpu();
    let yuv = |sx, sy, bits| PlaneLayout::Yuv {
        chroma_shift_x: sx,
        chroma_shift_y: sy,
        bits,
    };
    let layouts = [
        yuv(1, 1, 8),
        yuv(1, 0, 10),
        yuv(0, 0, 12),
        PlaneLayout::Nv12,
        PlaneLayout::P010,
        PlaneLayout::Gray { bits: 8 },
    ];
    for layout in layouts {
        for (width, height) in [(37, 29), (256, 64), (3, 5)] {
            let format = FrameFormat {
                width,
                height,
                layout,
                color: ColorSpec {
                    matrix: Matrix::Bt709,
                    range: Range::Limited,
                },
            };
            let geometry = PlaneGeometry::of(&format);
            let kept = KeptFrames::new(&ctx.device, &format);
            let pass = IdetPass::new(&ctx.device, &kept);
            let frames: Vec<Vec<Vec<u8>>> = (0..3).map(|i| random_planes(&format, 7 + i)).collect();
            for (id, planes) in frames.iter().enumerate() {
                let data: Vec<PlaneData> = geometry
                    .iter()
                    .zip(planes)
                    .map(|(g, data)| PlaneData {
                        data,
                        stride: g.row_bytes(),
                    })
                    .collect();
                kept.keep_from_memory(&ctx.queue, id as u64, &data);
            }
            let samples: Vec<Vec<Vec<u16>>> = frames
                .iter()
                .map(|planes| {
                    geometry
                        .iter()
                        .zip(planes)
                        .map(|(g, data)| {
                            g.read(&PlaneData {
                                data,
                                stride: g.row_bytes(),
                            })
                        })
                        .collect()
                })
                .collect();
            // The middle frame, and the first with itself as the frame before.
            for (prev, cur, next) in [(0, 1, 2), (0, 0, 1), (2, 2, 2)] {
                let output = Output {
                    prev,
                    cur,
                    next,
                    field: None,
                    second: false,
                    pts: None,
                };
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                pass.encode(&mut encoder, &output);
                ctx.queue.submit([encoder.finish()]);
                let bytes = read_buffer(&ctx, &pass.result, 0, pass.result.size()).unwrap();
                let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
                let expected: Sums = cpu::sums(
                    &geometry,
                    &samples[prev as usize],
                    &samples[cur as usize],
                    &samples[next as usize],
                );
                assert_eq!(
                    IdetPass::sums(&words),
                    expected,
                    "{layout} {width}x{height} frames {prev} {cur} {next}"
                );
            }
        }
    }
}
