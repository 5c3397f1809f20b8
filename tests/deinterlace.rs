//! Deinterlacing equal to FFmpeg's `bwdif` and `yadif`: every output frame of the CPU twin and
//! of the GPU pass, sample for sample, against the `ffmpeg` CLI's on the same decoded frames
//! (both modes, every parity, 8 and 10 bits, 4:2:0 and 4:2:2, PAL and NTSC sizes, first and
//! last frames included).

mod common;

use common::{fixture, interlaced, interlaced_pal_h264 as pal_h264, repo_path, report_csv};
use histoplay::gpu::readback::read_buffer;
use histoplay::video::deinterlace::cpu::{make_field, PlaneGeometry};
use histoplay::video::deinterlace::gpu::DeinterlacePass;
use histoplay::video::deinterlace::kept::KeptFrames;
use histoplay::video::deinterlace::{Deinterlacer, Output, Sequence};
use histoplay::video::format::{PlaneData, PlaneLayout};
use histoplay::video::source::VideoSource;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// NTSC 4:2:2 8-bit MPEG-2, bottom field first.
fn ntsc_mpeg2() -> PathBuf {
    interlaced(
        "deint-ntsc-mpeg2.ts",
        "720:480",
        "bff",
        &[
            "-c:v",
            "mpeg2video",
            "-q:v",
            "3",
            "-flags",
            "+ilme+ildct",
            "-top",
            "0",
            "-pix_fmt",
            "yuv422p",
        ],
    )
}

/// PAL 4:2:2 10-bit ProRes, top field first.
fn pal_prores() -> PathBuf {
    interlaced(
        "deint-pal-prores.mov",
        "720:576",
        "tff",
        &[
            "-c:v",
            "prores_ks",
            "-profile:v",
            "2",
            "-flags",
            "+ilme",
            "-top",
            "1",
            "-pix_fmt",
            "yuv422p10le",
        ],
    )
}

/// 4:2:0 10-bit FFV1 (the archivists' codec) at an odd size (chroma covering a last half
/// pixel), flagged progressive.
fn odd_ffv1_10bit() -> PathBuf {
    interlaced(
        "deint-odd-ffv1-10.mkv",
        "353:241",
        "tff",
        &["-c:v", "ffv1", "-level", "3", "-pix_fmt", "yuv420p10le"],
    )
}

fn pix_fmt(layout: PlaneLayout) -> &'static str {
    match layout {
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        } => "yuv420p",
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 0,
            bits: 8,
        } => "yuv422p",
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 10,
        } => "yuv420p10le",
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 0,
            bits: 10,
        } => "yuv422p10le",
        other => panic!("no test pixel format for {other:?}"),
    }
}

/// FFmpeg's frames after `filter`, each its planes' bytes without padding.
fn ffmpeg_frames(path: &Path, filter: &str, layout: PlaneLayout, frame_bytes: usize) -> Vec<Vec<u8>> {
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-threads", "1", "-i"])
        .arg(path)
        .args([
            "-vf",
            filter,
            "-fps_mode",
            "passthrough",
            "-f",
            "rawvideo",
            "-pix_fmt",
            pix_fmt(layout),
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout.len() % frame_bytes, 0);
    out.stdout.chunks(frame_bytes).map(<[u8]>::to_vec).collect()
}

/// Each decoded frame's planes, by frame number, as the filters read them.
type Frames = HashMap<u64, Vec<Vec<u16>>>;

/// Each frame of `path`'s planes as the filters read them, and the pictures `filter` makes of
/// them in order.
fn decoded(path: &Path, filter: Deinterlacer) -> (Vec<PlaneGeometry>, Frames, Vec<Output>) {
    let mut source = VideoSource::open(path).unwrap();
    let format = source.info.format;
    let geometry = PlaneGeometry::of(&format);
    let mut sequence = Sequence::new(filter);
    let (mut frames, mut outputs) = (HashMap::new(), Vec::new());
    while let Some(frame) = source.next_frame().unwrap() {
        let planes = frame.planes(format.layout);
        let samples = geometry.iter().zip(&planes).map(|(g, p)| g.read(p)).collect();
        frames.insert(frame.index, samples);
        outputs.extend(sequence.push(frame.index, Some(frame.pts), frame.packet.fields));
    }
    outputs.extend(sequence.finish());
    (geometry, frames, outputs)
}

/// The twin's picture `output`, its planes' bytes without padding.
fn twin_picture(filter: Deinterlacer, geometry: &[PlaneGeometry], frames: &Frames, output: &Output) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (i, plane) in geometry.iter().enumerate() {
        let [prev, cur, next] = [output.prev, output.cur, output.next].map(|id| frames[&id][i].as_slice());
        let samples = match output.field {
            Some(job) => make_field(filter.method, plane, job, !filter.no_spatial_check, [prev, cur, next]),
            None => cur.to_vec(),
        };
        let row = plane.row_bytes();
        bytes.extend(plane.write(&samples, row));
    }
    bytes
}

/// Every picture of `picture`'s making equals FFmpeg's after the same filter.
fn assert_equal_to_ffmpeg(
    path: &Path,
    filter: &str,
    picture: impl Fn(Deinterlacer, &[PlaneGeometry], &Frames, &Output) -> Vec<u8>,
) {
    let filter: Deinterlacer = filter.parse().unwrap();
    let (geometry, frames, outputs) = decoded(path, filter);
    let layout = VideoSource::open(path).unwrap().info.format.layout;
    let frame_bytes = geometry.iter().map(|g| g.row_bytes() * g.height as usize).sum();
    let reference = ffmpeg_frames(path, &filter.ffmpeg_filter(), layout, frame_bytes);
    assert_eq!(
        outputs.len(),
        reference.len(),
        "{}: pictures out of {} frames",
        filter.ffmpeg_filter(),
        frames.len()
    );
    for (n, (output, expected)) in outputs.iter().zip(&reference).enumerate() {
        let got = picture(filter, &geometry, &frames, output);
        if got != *expected {
            let at = got.iter().zip(expected).position(|(a, b)| a != b).unwrap();
            panic!(
                "{} on {}: picture {n} ({output:?}) differs first at byte {at} of {}: {} against FFmpeg's {}",
                filter.ffmpeg_filter(),
                path.display(),
                got.len(),
                got[at],
                expected[at]
            );
        }
    }
}

#[test]
fn the_twin_equals_bwdif_in_every_mode_and_parity() {
    let clips = [pal_h264(), ntsc_mpeg2(), pal_prores(), odd_ffv1_10bit()];
    for clip in &clips {
        for filter in [
            "bwdif",
            "bwdif=mode=send_field",
            "bwdif=send_field:parity=tff",
            "bwdif=send_frame:bff",
        ] {
            assert_equal_to_ffmpeg(clip, filter, twin_picture);
        }
    }
    // Only frames flagged interlaced: the progressive clip passes untouched.
    assert_equal_to_ffmpeg(&pal_h264(), "bwdif=send_field:deint=interlaced", twin_picture);
    assert_equal_to_ffmpeg(&odd_ffv1_10bit(), "bwdif=send_field:deint=interlaced", twin_picture);
}

#[test]
fn the_twin_equals_yadif_in_every_mode_and_parity() {
    let clips = [pal_h264(), ntsc_mpeg2(), pal_prores(), odd_ffv1_10bit()];
    for clip in &clips {
        for filter in [
            "yadif",
            "yadif=mode=send_field",
            "yadif=send_field:tff",
            "yadif=send_frame_nospatial:bff",
        ] {
            assert_equal_to_ffmpeg(clip, filter, twin_picture);
        }
    }
    assert_equal_to_ffmpeg(&ntsc_mpeg2(), "yadif=1:-1:1", twin_picture);
    // Numbers spelt as FFmpeg also reads them: mode 1, parity auto, deint 1 (0.6 rounded).
    assert_equal_to_ffmpeg(&ntsc_mpeg2(), "yadif=0x1:-1e0:0.6", twin_picture);
}

#[test]
fn option_values_are_taken_or_refused_as_ffmpeg_takes_them() {
    for filter in [
        "bwdif=mode=0x1",
        "bwdif=1e0",
        "bwdif=0.6",
        "bwdif=1.4",
        "bwdif=2",
        "bwdif=send_frame_nospatial",
        "bwdif=parity=-1.0",
        "bwdif=deint=0x0",
        "bwdif=-0",
        "bwdif=+1",
        "bwdif=0dB",
        "bwdif=6dB",
        "yadif=3",
        "yadif=4",
        "yadif=2.5",
        "yadif=.5",
        "yadif=0X2",
        "yadif=parity=-1.5",
        "yadif=mode=twice",
        "yadif=mode=nan",
        "yadif=mode=inf",
        "yadif=mode=e1",
        "yadif=mode=0x+1",
        "yadif=mode=0x100000000",
        "yadif=0:0:0:0",
    ] {
        let ffmpeg = Command::new("ffmpeg")
            .args([
                "-v",
                "quiet",
                "-f",
                "lavfi",
                "-i",
                "testsrc=s=64x48:d=0.2",
                "-vf",
                filter,
            ])
            .args(["-f", "null", "-"])
            .status()
            .unwrap();
        assert_eq!(filter.parse::<Deinterlacer>().is_ok(), ffmpeg.success(), "{filter}");
    }
}

/// Every picture of the GPU pass equals FFmpeg's after `filter`.
fn assert_gpu_equal_to_ffmpeg(path: &Path, filter: &str) {
    let ctx = common::gpu();
    let format = VideoSource::open(path).unwrap().info.format;
    let kept = KeptFrames::new(&ctx.device, &format);
    let pass = DeinterlacePass::new(&ctx.device, &kept, filter.parse().unwrap());
    let gpu_picture = |_: Deinterlacer, geometry: &[PlaneGeometry], frames: &Frames, output: &Output| {
        for id in [output.prev, output.cur, output.next] {
            let bytes: Vec<Vec<u8>> = geometry
                .iter()
                .zip(&frames[&id])
                .map(|(g, samples)| g.write(samples, g.row_bytes()))
                .collect();
            let planes: Vec<PlaneData> = geometry
                .iter()
                .zip(&bytes)
                .map(|(g, data)| PlaneData {
                    data,
                    stride: g.row_bytes(),
                })
                .collect();
            kept.keep_from_memory(&ctx.queue, id, &planes);
        }
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode_made(&mut encoder, output);
        ctx.queue.submit([encoder.finish()]);
        let size = pass.made().size();
        let made = read_buffer(&ctx, pass.made(), 0, size).unwrap();
        let mut picture = Vec::new();
        for rows in pass.planes() {
            for row in 0..rows.rows {
                let at = rows.offset as usize + row * rows.pitch as usize;
                picture.extend_from_slice(&made[at..at + rows.row_bytes]);
            }
        }
        picture
    };
    assert_equal_to_ffmpeg(path, filter, gpu_picture);
}

#[test]
fn the_gpu_pass_equals_bwdif_and_yadif() {
    for clip in [pal_h264(), ntsc_mpeg2(), pal_prores(), odd_ffv1_10bit()] {
        for filter in ["bwdif=send_field", "yadif=send_field", "bwdif=send_frame:bff"] {
            assert_gpu_equal_to_ffmpeg(&clip, filter);
        }
    }
    assert_gpu_equal_to_ffmpeg(&pal_h264(), "yadif=send_frame_nospatial:tff");
    assert_gpu_equal_to_ffmpeg(&pal_h264(), "bwdif=send_field:deint=interlaced");
}

/// `report --deinterlace yes` of `path` (its frames `range`, pictures `pictures` of the whole
/// run) gives, picture for picture, the signalstats values and times ffprobe gives after the
/// same filter.
fn assert_report_equals_ffprobe(
    path: &Path,
    filter: &str,
    range: Option<&str>,
    pictures: Option<std::ops::Range<usize>>,
) {
    assert_report_numbered(path, filter, range, pictures, None);
}

/// `assert_report_equals_ffprobe`, the pictures numbered `numbers` (FFmpeg's count them one by
/// one; histoplay's, at field rate, 2K and 2K + 1 for frame K's fields).
fn assert_report_numbered(
    path: &Path,
    filter: &str,
    range: Option<&str>,
    pictures: Option<std::ops::Range<usize>>,
    numbers: Option<&[u64]>,
) {
    let mut args = vec!["--deinterlace", "yes", "--deinterlacer", filter];
    if let Some(range) = range {
        args.extend(["--frames", range]);
    }
    let (header, rows) = report_csv(path, &args);
    // The CPU twin's run gives the same.
    args.push("--cpu");
    assert_eq!(
        report_csv(path, &args),
        (header.clone(), rows.clone()),
        "{filter} --cpu"
    );
    let ffmpeg_filter = filter.parse::<Deinterlacer>().unwrap().ffmpeg_filter();
    let expected = common::ffprobe_stats_after(path, Some(&ffmpeg_filter));
    let pictures = pictures.unwrap_or(0..expected.len());
    assert_eq!(rows.len(), pictures.len(), "{filter} on {}", path.display());
    for (i, (row, n)) in rows.iter().zip(pictures).enumerate() {
        let mut tags = expected[n].clone();
        let time: f64 = tags.remove("pts_time").unwrap().parse().unwrap();
        let number = numbers.map_or(n as u64, |numbers| numbers[i]);
        assert_eq!(row[0], number.to_string(), "{filter}: the picture's number");
        assert!(
            (row[1].parse::<f64>().unwrap() - time).abs() < 1e-6,
            "{filter} picture {n}: {} against {time}",
            row[1]
        );
        let ours: std::collections::BTreeMap<String, String> =
            header[2..].iter().cloned().zip(row[2..].iter().cloned()).collect();
        assert_eq!(ours, tags, "{filter} on {}: picture {n}", path.display());
    }
}

#[test]
fn report_deinterlaced_gives_ffprobes_values_after_the_filter() {
    let (pal, ntsc, prores) = (pal_h264(), ntsc_mpeg2(), pal_prores());
    // (bwdif's default, as FFmpeg's: a picture for each field.)
    assert_report_equals_ffprobe(&pal, "bwdif", None, Some(0..10));
    assert_report_equals_ffprobe(&pal, "bwdif=send_frame", None, Some(0..5));
    // 5 frames: 10 pictures a field at a time.
    assert_report_equals_ffprobe(&pal, "bwdif=mode=send_field", None, Some(0..10));
    assert_report_equals_ffprobe(&ntsc, "yadif=send_field", None, None);
    assert_report_equals_ffprobe(&prores, "yadif=send_frame:tff", None, None);
    assert_report_equals_ffprobe(&prores, "bwdif=send_field", None, None);
    // A range: its first picture made with the frame before it, its last with the one after,
    // its differences from the picture before it, as in the whole run.
    assert_report_equals_ffprobe(&pal, "bwdif=send_field", Some("2..4"), Some(4..8));
    assert_report_equals_ffprobe(&ntsc, "bwdif=send_frame", Some("1..=1"), Some(1..2));
    // R'G'B' and grey, made Y'CbCr as FFmpeg makes them before its filters; and tape's archival
    // formats: NTSC DV (4:1:1, bottom field first) and PAL v210 (10-bit 4:2:2, packed).
    for (name, size, scan, codec, filter) in [
        (
            "deint-pal-rgb.mkv",
            "720:576",
            "tff",
            &["-c:v", "ffv1", "-pix_fmt", "rgb24"][..],
            "bwdif",
        ),
        (
            "deint-pal-grey.mkv",
            "720:576",
            "tff",
            &["-c:v", "ffv1", "-pix_fmt", "gray"],
            "yadif=send_frame",
        ),
        (
            "deint-ntsc-dv.mov",
            "720:480",
            "bff",
            &["-c:v", "dvvideo", "-pix_fmt", "yuv411p"],
            "bwdif",
        ),
        (
            "deint-pal-v210.mov",
            "720:576",
            "tff",
            &["-c:v", "v210"],
            "yadif=send_frame",
        ),
    ] {
        assert_report_equals_ffprobe(&interlaced(name, size, scan, codec), filter, None, None);
    }
}

#[test]
fn a_format_ffmpeg_deinterlaces_before_converting_it_is_warned_of() {
    // FFmpeg's bwdif takes 16-bit grey as decoded, and converts its pictures for signalstats
    // after (its overshoots clipped at 0, not at 16-bit black): histoplay converts first and
    // says so. 8-bit grey, whose conversion keeps its samples, and R'G'B', which FFmpeg too
    // converts before the filter, measure alike and are not warned of.
    let report = |path: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg("report")
            .arg(path)
            .args(["--deinterlace", "yes", "--frames", "0..2"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let deep = interlaced(
        "deint-grey16.mkv",
        "160:90",
        "tff",
        &["-c:v", "ffv1", "-pix_fmt", "gray16le"],
    );
    let err = report(&deep);
    assert!(
        err.contains("is gray16le: FFmpeg's bwdif deinterlaces it as decoded, then converts it to yuv444p16le"),
        "{err}"
    );
    for (name, format) in [("deint-grey8.mkv", "gray"), ("deint-rgb.mkv", "rgb24")] {
        let file = interlaced(name, "160:90", "tff", &["-c:v", "ffv1", "-pix_fmt", format]);
        let err = report(&file);
        assert!(!err.contains("warning"), "{format}: {err}");
    }
}

#[test]
fn hist_and_scope_count_the_deinterlaced_pictures() {
    let clip = ntsc_mpeg2();
    let run =
        |command: &str, args: &[&str]| common::json_lines(&[&[command, "--frames", "2..4"][..], args].concat(), &clip);
    let field_rate = ["--deinterlace", "yes", "--deinterlacer", "yadif=send_field"];
    for command in ["hist", "scope"] {
        let made = run(command, &field_rate);
        // Frames 2 and 3, a picture a field: pictures 4 to 7, at the fields' times.
        let numbers: Vec<u64> = made.iter().map(|line| line["frame"].as_u64().unwrap()).collect();
        assert_eq!(numbers, [4, 5, 6, 7], "{command}");
        let times: Vec<f64> = made.iter().map(|line| line["pts"].as_f64().unwrap()).collect();
        let field = 1001.0 / 60000.0;
        for (time, n) in times.iter().zip(4..) {
            assert!(
                (time - times[0] - f64::from(n - 4) * field).abs() < 1e-4,
                "{command}: {times:?}"
            );
        }
        // Counted on the CPU twin, the same; and not the frames as they are.
        let cpu = run(command, &[&field_rate[..], &["--cpu"]].concat());
        assert_eq!(made, cpu, "{command} --cpu");
        let frames = run(command, &[]);
        assert_eq!(frames.len(), 2);
        let counts = |line: &serde_json::Value| {
            let mut line = line.clone();
            let object = line.as_object_mut().unwrap();
            object.remove("frame");
            object.remove("pts");
            line
        };
        assert_ne!(counts(&frames[0]), counts(&made[0]), "{command}");
    }
}

/// `histoplay render INPUT ARGS` to target/deinterlace-render/PNG, read back.
fn render(input: &Path, png: &str, args: &[&str]) -> image::RgbaImage {
    let out = repo_path("target/deinterlace-render").join(png);
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("render")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    image::open(&out).unwrap().to_rgba8()
}

#[test]
fn render_draws_the_picture_ffmpeg_makes() {
    let clip = ntsc_mpeg2();
    let dir = repo_path("target/deinterlace-render");
    std::fs::create_dir_all(&dir).unwrap();
    for (filter, picture) in [("bwdif", "3"), ("yadif=send_field", "5")] {
        // FFmpeg's pictures, kept losslessly: the same planes, drawn the same way.
        let ffmpeg_filter = filter.parse::<Deinterlacer>().unwrap().ffmpeg_filter();
        let made = dir.join(format!("{}.mkv", filter.replace(['=', ':'], "-")));
        let status = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-i"])
            .arg(&clip)
            .args([
                "-vf",
                &ffmpeg_filter,
                "-fps_mode",
                "passthrough",
                "-c:v",
                "ffv1",
                "-pix_fmt",
                "yuv422p",
            ])
            .arg(&made)
            .status()
            .unwrap();
        assert!(status.success());
        let ours = render(
            &clip,
            "ours.png",
            &["--frame", picture, "--deinterlace", "yes", "--deinterlacer", filter],
        );
        let theirs = render(&made, "theirs.png", &["--frame", picture]);
        assert!(
            ours == theirs,
            "{filter}: picture {picture} drawn otherwise than FFmpeg's"
        );
        let frame = render(&clip, "frame.png", &["--frame", picture]);
        assert!(ours != frame, "{filter}: the picture is the frame as decoded");
    }
    // A picture past the end at field rate is named as asked: a field, two a frame.
    let count: u64 = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v",
            "-show_entries",
            "stream=nb_read_frames",
            "-of",
            "csv=p=0",
        ])
        .arg(&clip)
        .output()
        .map(|o| {
            // (The first of the lines, per program, of a transport stream.)
            String::from_utf8_lossy(&o.stdout)
                .split(',')
                .next()
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .unwrap();
    let past = (2 * count).to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("render")
        .arg(&clip)
        .args([
            "-o",
            dir.join("past.png").to_str().unwrap(),
            "--frame",
            &past,
            "--deinterlace",
            "yes",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.starts_with(&format!("error: picture {past} is past the end: '"))
            && err
                .trim_end()
                .ends_with(&format!("' has {past} pictures at field rate ({count} frames)")),
        "{err}"
    );
}

#[test]
fn render_compare_deinterlaces_both_files_and_pairs_their_pictures() {
    let (a, b) = (pal_h264(), common::interlaced_pal_encode());
    let render = |input: &Path, png: &str, args: &[&str]| {
        let fields = ["--deinterlace", "yes", "--deinterlacer", "bwdif=send_field"];
        render(input, png, &[&fields[..], args].concat())
    };
    let b_path = b.to_str().unwrap();
    // Side by side: A's picture 3 (frame 1's second field) beside B's partner: by number,
    // picture 5 with an offset of 2 pictures; by time, B's picture 3, shown at the same time.
    for (by, offset, partner) in [("frame", "2", "5"), ("time", "0", "3")] {
        let side = render(
            &a,
            "side.png",
            &[
                "--frame",
                "3",
                "--compare",
                b_path,
                "--compare-mode",
                "side-by-side",
                "--compare-by",
                by,
                "--offset",
                offset,
            ],
        );
        let (left, right) = (
            render(&a, "left.png", &["--frame", "3"]),
            render(&b, "right.png", &["--frame", partner]),
        );
        let (w, h) = left.dimensions();
        assert_eq!(side.dimensions(), (2 * w, h));
        // Above the histogram quads (the bottom third), pixel for pixel.
        let mut differing = 0;
        for y in 0..h / 2 {
            for x in 0..w {
                assert_eq!(side.get_pixel(x, y), left.get_pixel(x, y), "by {by}: A at {x},{y}");
                assert_eq!(side.get_pixel(x + w, y), right.get_pixel(x, y), "by {by}: B at {x},{y}");
                differing += usize::from(left.get_pixel(x, y) != right.get_pixel(x, y));
            }
        }
        assert!(
            differing > 1000,
            "by {by}: the two pictures differ ({differing} pixels)"
        );
    }
}

/// Three frames flagged progressive, then four flagged interlaced (top field first): two H.264
/// streams joined, as a programme with an inserted interlaced segment.
fn mixed_flags() -> PathBuf {
    let sample = repo_path("media/sample-540p.mp4");
    let segment = |name: &str, from: &str, frames: &str, interlaced: bool| {
        let mut args = vec!["-ss", from, "-i", sample.to_str().unwrap(), "-an", "-frames:v", frames];
        args.extend(["-vf", "fps=50,scale=352:288,interlace=scan=tff:lowpass=0"]);
        args.extend(["-c:v", "libx264", "-crf", "20", "-pix_fmt", "yuv420p"]);
        if interlaced {
            args.extend(["-flags", "+ilme+ildct", "-x264-params", "tff=1"]);
        }
        fixture(name, &args)
    };
    let (a, b) = (
        segment("deint-mixed-a.ts", "0", "3", false),
        segment("deint-mixed-b.ts", "0.5", "4", true),
    );
    let list = repo_path("target/fixtures/deint-mixed.txt");
    std::fs::write(&list, format!("file '{}'\nfile '{}'\n", a.display(), b.display())).unwrap();
    fixture(
        "deint-mixed.ts",
        &["-f", "concat", "-safe", "0", "-i", list.to_str().unwrap(), "-c", "copy"],
    )
}

#[test]
fn flags_that_change_mid_stream_and_a_single_frame_are_as_ffmpeg_makes_them() {
    let mixed = mixed_flags();
    // Only the frames flagged interlaced are deinterlaced, a picture each at field rate, the
    // others passing once; every frame, with deint=all.
    for filter in ["bwdif=send_field:deint=interlaced", "yadif=deint=interlaced", "bwdif"] {
        assert_equal_to_ffmpeg(&mixed, filter, twin_picture);
    }
    assert_gpu_equal_to_ffmpeg(&mixed, "bwdif=send_field:deint=interlaced");
    // Frames 0 to 2 pass once (pictures 0, 2, 4); frames 3 to 6 give two each.
    let numbers = [0, 2, 4, 6, 7, 8, 9, 10, 11, 12, 13];
    assert_report_numbered(
        &mixed,
        "bwdif=send_field:deint=interlaced",
        None,
        Some(0..11),
        Some(&numbers),
    );
    // Picture 1 would be frame 0's second field; `auto` passes progressive frame 0 on whole.
    let dir = repo_path("target/deinterlace-render");
    std::fs::create_dir_all(&dir).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("render")
        .arg(&mixed)
        .args([
            "-o",
            dir.join("second.png").to_str().unwrap(),
            "--frame",
            "1",
            "--deinterlace",
            "auto",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: picture 1 of '{}' would be frame 0's second field, but the frame is progressive: it is picture 0 alone\n",
            mixed.display()
        )
    );
    // One frame: both fields made from it alone.
    let one = fixture(
        "deint-one-frame.mkv",
        &[
            "-i",
            repo_path("media/sample-540p.mp4").to_str().unwrap(),
            "-an",
            "-frames:v",
            "1",
            "-vf",
            "scale=352:288",
            "-c:v",
            "libx264",
            "-flags",
            "+ilme+ildct",
            "-x264-params",
            "tff=1",
        ],
    );
    assert_equal_to_ffmpeg(&one, "bwdif=send_field", twin_picture);
    assert_equal_to_ffmpeg(&one, "yadif=send_field", twin_picture);
    assert_report_equals_ffprobe(&one, "bwdif=send_field", None, Some(0..2));
}

#[test]
fn frames_the_decoder_loses_leave_the_filters_reading_the_frames_either_side_as_ffmpegs_do() {
    // Frames 4 and 14 are lost at the joins: the pictures of frames 3 and 5 are made with each
    // other as neighbours, as FFmpeg's filters take the frames decoded (on the GPU, frames were
    // kept by their numbers, and frame 5 or 6 took the place of a neighbour still needed).
    let joins = common::mpeg2_losing_frames_at_joins();
    let frames: Vec<u64> = (0..20).filter(|n| ![4, 14].contains(n)).collect();
    let fields: Vec<u64> = frames.iter().flat_map(|&n| [2 * n, 2 * n + 1]).collect();
    for (filter, numbers) in [("bwdif=send_frame", &frames), ("yadif=send_field", &fields)] {
        let args = ["--deinterlace", "yes", "--deinterlacer", filter];
        let (header, rows) = report_csv(&joins, &args);
        assert_eq!(
            report_csv(&joins, &[&args[..], &["--cpu"]].concat()),
            (header.clone(), rows.clone())
        );
        let ffmpeg_filter = filter.parse::<Deinterlacer>().unwrap().ffmpeg_filter();
        let expected = common::ffprobe_stats_after(&joins, Some(&ffmpeg_filter));
        assert_eq!(rows.len(), numbers.len(), "{filter}");
        assert_eq!(expected.len(), numbers.len(), "{filter}");
        for ((row, mut tags), &number) in rows.iter().zip(expected).zip(numbers.iter()) {
            assert_eq!(row[0], number.to_string(), "{filter}");
            // (The times run on across the joins, where FFmpeg's start over: not compared.)
            tags.remove("pts_time");
            let ours: std::collections::BTreeMap<String, String> =
                header[2..].iter().cloned().zip(row[2..].iter().cloned()).collect();
            assert_eq!(ours, tags, "{filter}: picture {number}");
        }
    }
}

#[test]
fn frames_too_small_for_a_filter_are_refused_as_ffmpeg_refuses_them() {
    // 8x6 4:2:0: chroma planes of 4x3, under bwdif's 4 lines; yadif takes it (3 columns and
    // lines are its least).
    let tiny = interlaced("deint-tiny.mkv", "8:6", "tff", &["-c:v", "ffv1", "-pix_fmt", "yuv420p"]);
    let ffmpeg = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&tiny)
        .args(["-vf", "bwdif", "-f", "null", "-"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&ffmpeg.stderr)
            .contains("Video with planes less than 3 columns or 4 lines is not supported"),
        "{}",
        String::from_utf8_lossy(&ffmpeg.stderr)
    );
    for args in [
        &["report", "--deinterlace", "yes"][..],
        &["report", "--deinterlace", "yes", "--cpu"],
        &["hist", "--deinterlace", "yes", "--frames", "0.."],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg(args[0])
            .arg(&tiny)
            .args(&args[1..])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: 8x6 frames are too small for bwdif: FFmpeg's refuses video with planes less than 3 columns or 4 lines\n",
            "{args:?}"
        );
    }
    assert_report_equals_ffprobe(&tiny, "yadif=send_field", None, None);
}
