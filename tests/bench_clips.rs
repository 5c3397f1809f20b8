//! Benchmark clips made with FFmpeg's libraries: looped stream copies and libx264 re-encodes of
//! clips whose every frame is known, checked with ffprobe and by decoding them frame by frame.

mod common;

use histoplay::cli::bench::clips::{encode_clip, loop_copy, ClipCodec, ClipMakeError, ClipSpec};
use histoplay::video::source::VideoSource;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A file under the temporary directory, removed when the test ends (passed or not).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("histoplay-bench-clips-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Self(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// ffprobe's `key=value` lines for `entries` of the video stream, the values of `key` in order.
fn probe(path: &Path, extra: &[&str], entries: &str, key: &str) -> Vec<String> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v"])
        .args(extra)
        .args(["-show_entries", entries, "-of", "default=nw=1"])
        .arg(path)
        .output()
        .expect("ffprobe runs (scripts/setup installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let prefix = format!("{key}=");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix).map(str::to_owned))
        .collect()
}

fn probe_one(path: &Path, extra: &[&str], entries: &str, key: &str) -> String {
    let values = probe(path, extra, entries, key);
    assert_eq!(values.len(), 1, "{key} of {}: {values:?}", path.display());
    values[0].clone()
}

fn counted_frames(path: &Path) -> u64 {
    probe_one(path, &["-count_frames"], "stream=nb_read_frames", "nb_read_frames")
        .parse()
        .unwrap()
}

/// Every frame's time and the luma of its first pixel, as histoplay decodes them.
fn decoded(path: &Path) -> Vec<(f64, u8)> {
    let mut source = VideoSource::open(path).unwrap();
    let mut frames = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        frames.push((frame.seconds, frame.video().unwrap().data(0)[0]));
    }
    frames
}

fn assert_increasing(times: &[f64], what: &str) {
    for (i, pair) in times.windows(2).enumerate() {
        assert!(
            pair[1] > pair[0],
            "{what}: frame {} at {} is not after {}",
            i + 1,
            pair[1],
            pair[0]
        );
    }
}

fn assert_luma_near(frames: &[(f64, u8)], expected: impl Fn(u64) -> u8, tolerance: u8, what: &str) {
    for (i, &(_, luma)) in frames.iter().enumerate() {
        let want = expected(i as u64);
        assert!(
            luma.abs_diff(want) <= tolerance,
            "{what}: frame {i} has luma {luma}, not {want}"
        );
    }
}

fn spec(width: u32, height: u32, fps: u32, gop: u32, frames: u64) -> ClipSpec {
    ClipSpec {
        width,
        height,
        fps,
        gop,
        frames,
        preset: "veryfast".into(),
        crf: 23,
        codec: ClipCodec::H264,
        interlace: None,
    }
}

#[test]
fn a_looped_copy_repeats_the_clip_with_timestamps_that_run_on() {
    let ramp = common::grey_ramp();
    for extension in ["mkv", "mp4"] {
        let out = Scratch::new(&format!("ramp-x3.{extension}"));
        let packets = loop_copy(&ramp, &out.0, 3).unwrap();
        assert_eq!(packets, 3 * common::RAMP_FRAMES, "{extension}");
        assert_eq!(counted_frames(&out.0), 3 * common::RAMP_FRAMES, "{extension}");

        let probed: Vec<f64> = probe(&out.0, &[], "frame=pts_time", "pts_time")
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(probed.len(), 270, "{extension}");
        assert_increasing(&probed, &format!("ffprobe of the {extension}"));
        // The third pass's last frame: 3 s of clip twice, then 89 frames at 30 fps (Matroska
        // keeps milliseconds).
        let last = probed[269] - probed[0];
        assert!(
            (last - (6.0 + 89.0 / 30.0)).abs() < 0.002,
            "{extension}: last frame at {last}"
        );

        let frames = decoded(&out.0);
        assert_eq!(frames.len(), 270, "{extension}");
        let times: Vec<f64> = frames.iter().map(|&(t, _)| t).collect();
        assert_increasing(&times, &format!("histoplay's decode of the {extension}"));
        assert_luma_near(&frames, |n| common::ramp_luma(n % 90), 0, extension);
    }
}

#[test]
fn a_looped_copy_of_a_matroska_file_into_mp4_gets_the_timestamps_mp4_needs() {
    // Matroska keeps no dts: its demuxer leaves the first packets of a stream with B-frames
    // without one, which MP4's muxer refuses. (The grey ramp has no B-frames: x264 codes each
    // new grey as a scene cut.)
    let sample = common::repo_path("media/sample-540p.mp4");
    let mkv = Scratch::new("sample-x1.mkv");
    loop_copy(&sample, &mkv.0, 1).unwrap();
    let mp4 = Scratch::new("sample-x1-x2.mp4");
    assert_eq!(loop_copy(&mkv.0, &mp4.0, 2).unwrap(), 2 * (526 + 822));
    assert_eq!(counted_frames(&mp4.0), 2 * 526);
    assert_eq!(
        probe_one(&mp4.0, &[], "stream=codec_tag_string", "codec_tag_string"),
        "avc1"
    );
    let pts = probe(&mp4.0, &[], "packet=pts", "pts");
    let dts = probe(&mp4.0, &[], "packet=dts", "dts");
    assert_eq!((pts.len(), dts.len()), (1052, 1052));
    let dts: Vec<i64> = dts.iter().map(|d| d.parse().unwrap()).collect();
    for (i, pair) in dts.windows(2).enumerate() {
        assert!(pair[1] > pair[0], "packet {}: dts {} after {}", i + 1, pair[1], pair[0]);
    }
    for (p, d) in pts.iter().zip(&dts) {
        assert!(p.parse::<i64>().unwrap() >= *d, "pts {p} before dts {d}");
    }
}

#[test]
fn a_looped_copy_keeps_the_sound_in_step_with_the_picture() {
    let sample = common::repo_path("media/sample-540p.mp4");
    let out = Scratch::new("sample-x2.mkv");
    loop_copy(&sample, &out.0, 2).unwrap();
    let out_probe = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "packet=stream_index,pts_time",
            "-of",
            "csv=p=0",
        ])
        .arg(&out.0)
        .output()
        .unwrap();
    let mut starts = [Vec::new(), Vec::new()];
    for line in String::from_utf8_lossy(&out_probe.stdout).lines() {
        let (stream, pts) = line.split_once(',').unwrap();
        starts[stream.parse::<usize>().unwrap()].push(pts.parse::<f64>().unwrap());
    }
    let [mut video, audio] = starts;
    // 526 frames and 822 AAC packets a pass.
    assert_eq!((video.len(), audio.len()), (2 * 526, 2 * 822));
    // The second pass starts where the longer stream (the sound, 17.535 s) ends, in both
    // streams: the picture to within a frame.
    video.sort_by(f64::total_cmp);
    let (second_video, second_audio) = (video[526], audio[822]);
    assert!(video[525] < second_video && audio[821] < second_audio);
    assert!(
        (second_audio - 17.535).abs() < 0.002,
        "sound's second pass at {second_audio}"
    );
    assert!(
        (second_video - 17.535).abs() < 1.0 / 30.0,
        "picture's second pass at {second_video}"
    );
}

#[test]
fn an_encoded_clip_has_the_asked_size_rate_and_keyframes() {
    let out = Scratch::new("ramp-32x24-60.mp4");
    let written = encode_clip(&common::grey_ramp(), &out.0, &spec(32, 24, 60, 25, 120)).unwrap();
    assert_eq!(written, 120);
    assert_eq!(counted_frames(&out.0), 120);
    assert_eq!(probe_one(&out.0, &[], "stream=codec_name", "codec_name"), "h264");
    assert_eq!(probe_one(&out.0, &[], "stream=width", "width"), "32");
    assert_eq!(probe_one(&out.0, &[], "stream=height", "height"), "24");
    assert_eq!(probe_one(&out.0, &[], "stream=r_frame_rate", "r_frame_rate"), "60/1");
    assert_eq!(
        probe_one(&out.0, &[], "stream=avg_frame_rate", "avg_frame_rate"),
        "60/1"
    );

    let keys: Vec<usize> = probe(&out.0, &[], "frame=key_frame", "key_frame")
        .iter()
        .enumerate()
        .filter(|(_, key)| *key == "1")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(keys.first(), Some(&0));
    for pair in keys.windows(2) {
        assert!(pair[1] - pair[0] <= 25, "keyframes {keys:?}");
    }
    assert!(120 - keys[keys.len() - 1] <= 25, "keyframes {keys:?}");

    // 30 fps to 60: every input frame shown twice.
    let frames = decoded(&out.0);
    assert_eq!(frames.len(), 120);
    assert!(
        frames[0].1.abs_diff(common::ramp_luma(0)) <= 2,
        "first luma {}",
        frames[0].1
    );
    assert_luma_near(&frames, |i| common::ramp_luma(i / 2), 2, "60 fps");
}

#[test]
fn an_encoded_clip_of_real_pictures_keeps_x264s_b_frames() {
    // (The grey ramp changes its grey every other frame, each change a scene cut to x264.)
    let out = Scratch::new("sample-128x72.mp4");
    let sample = common::repo_path("media/sample-540p.mp4");
    assert_eq!(encode_clip(&sample, &out.0, &spec(128, 72, 30, 250, 60)).unwrap(), 60);
    let types = probe(&out.0, &[], "frame=pict_type", "pict_type");
    assert_eq!(types.len(), 60);
    assert_eq!(types[0], "I");
    assert!(
        types.iter().filter(|t| *t == "B").count() >= 10,
        "frame types {types:?}"
    );
}

#[test]
fn an_encoded_clip_loops_a_short_input_and_drops_frames_for_a_lower_rate() {
    let out = Scratch::new("ramp-15.mkv");
    // 5 s at 15 fps from a 3 s clip at 30: frame i shows input frame 2i, the input looping
    // after 45 output frames.
    let written = encode_clip(&common::grey_ramp(), &out.0, &spec(64, 48, 15, 30, 75)).unwrap();
    assert_eq!(written, 75);
    assert_eq!(counted_frames(&out.0), 75);
    assert_eq!(probe_one(&out.0, &[], "stream=r_frame_rate", "r_frame_rate"), "15/1");
    let frames = decoded(&out.0);
    assert_eq!(frames.len(), 75);
    let times: Vec<f64> = frames.iter().map(|&(t, _)| t).collect();
    assert_increasing(&times, "the looped clip");
    assert_luma_near(&frames, |i| common::ramp_luma((2 * i) % 90), 2, "15 fps");
}

#[test]
fn bad_inputs_and_requests_are_errors_not_panics() {
    let missing = Path::new("/nonexistent/histoplay/clip.mp4");
    let out = Scratch::new("never.mkv");
    let error = loop_copy(missing, &out.0, 2).unwrap_err();
    assert!(matches!(error, ClipMakeError::Open { .. }), "{error:?}");
    assert!(error.to_string().contains("clip.mp4"), "{error}");
    let error = encode_clip(missing, &out.0, &spec(32, 24, 30, 30, 10)).unwrap_err();
    assert!(matches!(error, ClipMakeError::Open { .. }), "{error:?}");
    assert!(!out.0.exists());

    let ramp = common::grey_ramp();
    let odd = encode_clip(&ramp, &out.0, &spec(33, 24, 30, 30, 10)).unwrap_err();
    assert!(odd.to_string().contains("33x24"), "{odd}");
    let preset = ClipSpec {
        preset: "warp".into(),
        ..spec(32, 24, 30, 30, 10)
    };
    let error = encode_clip(&ramp, &out.0, &preset).unwrap_err();
    assert!(error.to_string().contains("'warp' is not an x264 preset"), "{error}");
    let error = loop_copy(&ramp, &out.0, 0).unwrap_err();
    assert!(matches!(error, ClipMakeError::BadRequest(_)), "{error:?}");
    let error = loop_copy(&ramp, &ramp, 2).unwrap_err();
    assert!(matches!(error, ClipMakeError::SameFile(_)), "{error:?}");
    assert!(ramp.exists(), "a refused output is left alone");
    assert!(!out.0.exists());

    let not_media = Scratch::new("not-media.mp4");
    std::fs::write(&not_media.0, b"not a video").unwrap();
    let error = loop_copy(&not_media.0, &out.0, 2).unwrap_err();
    assert!(matches!(error, ClipMakeError::Open { .. }), "{error:?}");
}

#[test]
fn make_clip_says_what_it_wrote_or_fails_in_one_line() {
    let ramp = common::grey_ramp();
    let out = Scratch::new("cli-x2.mkv");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg("make-clip")
            .args(args)
            .output()
            .unwrap()
    };
    let done = run(&[ramp.to_str().unwrap(), "-o", out.0.to_str().unwrap(), "--loops", "2"]);
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let line = String::from_utf8_lossy(&done.stdout).into_owned();
    let bytes = std::fs::metadata(&out.0).unwrap().len();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("2 loops, 180 packets"), "{line}");
    assert!(line.contains(&format!("{bytes} bytes")), "{line}");

    let failed = run(&["/nonexistent/clip.mp4", "-o", out.0.to_str().unwrap(), "--loops", "2"]);
    assert!(!failed.status.success());
    let err = String::from_utf8_lossy(&failed.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: cannot open '/nonexistent/clip.mp4'"), "{err}");
}

#[test]
fn an_hevc_main10_clip_is_tagged_hdr10_and_counted_at_10_bits() {
    use histoplay::colour::{Primaries, Transfer};
    use histoplay::video::format::PlaneLayout;
    use histoplay::video::source::VideoSource;
    let out = common::repo_path(&format!("target/fixtures/hevc10-{}.mkv", std::process::id()));
    let spec = ClipSpec {
        codec: ClipCodec::HevcMain10Pq,
        preset: "ultrafast".into(),
        ..spec(64, 48, 30, 10, 12)
    };
    assert_eq!(encode_clip(&common::grey_ramp(), &out, &spec).unwrap(), 12);
    let source = VideoSource::open(&out).unwrap();
    let info = &source.info;
    assert_eq!(info.codec, "hevc");
    assert!(
        matches!(info.format.layout, PlaneLayout::Yuv { bits: 10, .. }),
        "{:?}",
        info.format
    );
    assert_eq!(
        (info.volume.transfer, info.volume.primaries),
        (Transfer::Pq, Primaries::Bt2020)
    );
    drop(source);
    std::fs::remove_file(&out).ok();
}

/// An interlaced clip weaves two fields a frame, taken at twice its rate, the first in time in
/// the field its order names, and is coded and flagged as fields of that order: at 15 fps from
/// the 30 fps grey ramp (frame n at luma 16 + 2n), frame i's first field is ramp frame 2i and its
/// second ramp frame 2i + 1 (losslessly, at crf 0).
#[test]
fn an_interlaced_clip_weaves_fields_taken_at_twice_its_rate() {
    use histoplay::cli::bench::clips::FieldFirst;
    for (order, field_order, first_rows) in [(FieldFirst::Top, "tt", 0), (FieldFirst::Bottom, "bb", 1)] {
        let out = Scratch::new(&format!("interlaced-{field_order}.mp4"));
        let spec = ClipSpec {
            crf: 0,
            interlace: Some(order),
            ..spec(64, 48, 15, 15, 12)
        };
        assert_eq!(encode_clip(&common::grey_ramp(), &out.0, &spec).unwrap(), 12);
        let probed = common::ffprobe_entries(&out.0, "stream=field_order,r_frame_rate");
        assert_eq!(probed, [format!("{field_order},15/1")], "{order:?}");
        let raw = Command::new("ffmpeg")
            .args(["-v", "error", "-i"])
            .arg(&out.0)
            .args(["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
            .output()
            .unwrap()
            .stdout;
        assert_eq!(raw.len(), 12 * 64 * 48 * 3 / 2, "{order:?}");
        for (i, frame) in raw.chunks(64 * 48 * 3 / 2).enumerate() {
            // (Each frame's luma plane, as coded.)
            for (row, line) in frame[..64 * 48].chunks(64).enumerate() {
                // The first field's rows (by its parity) hold ramp frame 2i, the others 2i + 1.
                let ramp_frame = 2 * i as u64 + u64::from(row % 2 != first_rows);
                let want = common::ramp_luma(ramp_frame);
                assert!(
                    line.iter().all(|&v| v.abs_diff(want) <= 1),
                    "{order:?}: frame {i} row {row}: {:?}, not {want}",
                    &line[..4]
                );
            }
        }
    }
    let odd = ClipSpec {
        interlace: Some(FieldFirst::Top),
        ..spec(64, 46, 15, 15, 4)
    };
    let out = Scratch::new("interlaced-odd.mp4");
    let error = encode_clip(&common::grey_ramp(), &out.0, &odd).unwrap_err();
    assert!(error.to_string().contains("multiple of 4"), "{error}");
}
