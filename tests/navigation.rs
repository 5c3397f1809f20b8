//! Navigation at real-world scale: a long file opens without being read whole and still numbers
//! frames deep inside it exactly; steps back across GOP boundaries return the very frames that
//! stepping forward showed, with a large cache or one too small to hold anything; a storm of
//! seeks and steps back never shows a stale frame; estimated frame numbers become exact.

mod common;

use common::pipeline::{level, Pipeline};
use histoplay::engine::histogram::Histogram;
use histoplay::video::decoder::{DecoderEvent, DEFAULT_CACHE_BYTES};
use histoplay::video::source::{SeekTarget, VideoSource};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Frames of the bundled sample.
const SAMPLE_FRAMES: u64 = 526;
const LOOPS: u64 = 20;

/// The sample's video stream copied once into a container, and copied `LOOPS` times.
fn sample_copies(extension: &str) -> (PathBuf, PathBuf) {
    let sample = common::repo_path("media/sample-540p.mp4");
    let sample = sample.to_str().unwrap();
    let short = common::fixture(&format!("sample-x1.{extension}"), &["-i", sample, "-an", "-c", "copy"]);
    let loops = (LOOPS - 1).to_string();
    let long = common::fixture(
        &format!("sample-x{LOOPS}.{extension}"),
        &["-stream_loop", &loops, "-i", sample, "-an", "-c", "copy"],
    );
    (short, long)
}

/// `histoplay hist FILE --frame K`: the one JSON line.
fn hist(path: &std::path::Path, frame: u64) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("hist")
        .arg(path)
        .args(["--frame", &frame.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A field of a `hist` line, as JSON text.
fn field(line: &str, name: &str) -> String {
    common::json(line)[name].to_string()
}

/// The counts of a `hist` line: its r, g, b and l arrays.
fn counts(line: &str) -> String {
    let v = common::json(line);
    ["r", "g", "b", "l"].map(|name| v[name].to_string()).concat()
}

#[test]
fn a_long_file_numbers_frames_deep_inside_exactly_without_being_read_whole_to_open() {
    for extension in ["mkv", "mp4"] {
        let (short, long) = sample_copies(extension);
        // Frame K of the long copy is frame K mod 526 of the short one, deep inside too.
        for k in [0, 7 * SAMPLE_FRAMES + 45, (LOOPS - 1) * SAMPLE_FRAMES + 100] {
            let deep = hist(&long, k);
            let once = hist(&short, k % SAMPLE_FRAMES);
            assert_eq!(field(&deep, "frame"), k.to_string(), "{extension}");
            assert_eq!(counts(&deep), counts(&once), "{extension} frame {k}");
        }
        // Opening and decoding the first frame reads as much of the long file as of the short
        // one, give or take the container's own index (MP4's sample tables grow with length).
        let bytes_to_first_frame = |path: &std::path::Path| {
            let mut source = VideoSource::open(path).unwrap();
            let first = source.next_frame().unwrap().unwrap();
            assert_eq!((first.index, first.pts), (0, source.info.start_pts.unwrap_or(0)));
            (source.bytes_read(), source)
        };
        let (short_bytes, _) = bytes_to_first_frame(&short);
        let (long_bytes, source) = bytes_to_first_frame(&long);
        let size = std::fs::metadata(&long).unwrap().len();
        assert!(
            long_bytes <= short_bytes + (512 << 10) && long_bytes < size / 10,
            "{extension}: read {long_bytes} bytes of {size} to the first frame (short file: {short_bytes})"
        );
        // Meanwhile the index counts every frame in the background.
        assert_eq!(
            source.index().wait_complete(),
            Some(LOOPS * SAMPLE_FRAMES),
            "{extension}"
        );
    }
}

#[test]
fn estimated_frame_numbers_become_exact() {
    let (_, long) = sample_copies("mkv");
    let source = VideoSource::open(&long).unwrap();
    let index = source.index().clone();
    let info = source.info.clone();
    let k = (LOOPS - 1) * SAMPLE_FRAMES + 300;
    // Ask at once, before the index can have read that far (or just as it has).
    let early = index.number_at(info.pts_at(k as f64 * info.frame_duration));
    index.wait_complete();
    let pts = index.pts_of(k).unwrap();
    let late = index.number_at(pts);
    assert!(late.exact);
    assert_eq!(late.n, k);
    if !early.exact {
        assert!(early.n.abs_diff(k) <= k / 100, "estimate {} for frame {k}", early.n);
    }
    assert_eq!(index.frame_count(), Some(LOOPS * SAMPLE_FRAMES));
}

/// Frames 0..count stepped through forward, paused as a viewer does with `.`.
fn step_forward(p: &Pipeline, count: u64) -> Vec<(i64, Histogram)> {
    (0..count)
        .map(|n| {
            let (frame, h) = p.next();
            assert_eq!(frame.index, n);
            assert_eq!(level(&h), common::limited_grey(common::ramp_luma(n)), "frame {n}");
            (frame.pts, h)
        })
        .collect()
}

#[test]
fn steps_back_across_gop_boundaries_return_the_frames_stepping_forward_showed() {
    let clip = common::grey_ramp_bframes();
    // The default budget, and one too small for a second frame: every step back then decodes
    // from its keyframe again.
    for cache in [DEFAULT_CACHE_BYTES, 1] {
        let mut p = Pipeline::with_cache(&clip, cache);
        p.decoder.set_paused(true);
        let forward = step_forward(&p, 50);
        // From frame 49 back to 0, through the keyframes at 48, 36, 24 and 12.
        let mut here = 49;
        while here > 0 {
            let (frame, h) = p.seek(SeekTarget::Before(forward[here].0));
            assert_eq!(frame.index, here as u64 - 1, "step back from {here} (cache {cache})");
            assert_eq!(h, forward[here - 1].1, "frame {} (cache {cache})", here - 1);
            here -= 1;
            if here == 20 {
                // Forward steps after steps back, then back again.
                for n in 21..26 {
                    let (frame, h) = p.next();
                    assert_eq!((frame.index, &h), (n, &forward[n as usize].1), "cache {cache}");
                }
                let (frame, _) = p.seek(SeekTarget::Frame(20));
                assert_eq!(frame.index, 20);
            }
        }
        // Before the first frame there is nothing: the step stays on it.
        let (frame, _) = p.seek(SeekTarget::Before(forward[0].0));
        assert_eq!(frame.index, 0);
    }
}

#[test]
fn a_storm_of_seeks_and_steps_back_never_shows_a_stale_frame() {
    let clip = common::grey_ramp_bframes();
    let mut p = Pipeline::open(&clip);
    p.decoder.set_paused(true);
    let pts: Vec<i64> = step_forward(&p, common::RAMP_FRAMES)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    let frame_of: HashMap<i64, u64> = pts.iter().enumerate().map(|(n, &t)| (t, n as u64)).collect();
    let mut state = 0x1234_5678u32;
    let mut random = |n: u32| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state % n
    };
    for round in 0..40 {
        // A burst of commands, as held keys send them; only the last one counts.
        let mut expected = 0;
        for _ in 0..1 + random(4) {
            let k = u64::from(random(common::RAMP_FRAMES as u32));
            expected = if random(2) == 0 {
                p.decoder.seek(SeekTarget::Frame(k));
                k
            } else {
                p.decoder.seek(SeekTarget::Before(pts[k as usize]));
                k.saturating_sub(1)
            };
            if random(3) == 0 {
                p.decoder.set_paused(round % 2 == 0);
            }
        }
        // What arrives is of the last command only: perhaps a keyframe preview at or before
        // the target, then the target; each frame's picture is the frame it says it is.
        loop {
            let (frame, h) = p.next();
            assert_eq!(frame_of[&frame.pts], frame.index, "round {round}");
            assert_eq!(
                level(&h),
                common::limited_grey(common::ramp_luma(frame.index)),
                "round {round}"
            );
            if frame.preview {
                assert!(frame.index <= expected && frame.index % 12 == 0, "round {round}");
                continue;
            }
            assert_eq!(frame.index, expected, "round {round}");
            break;
        }
    }
    // And playback goes on in order from the last one.
    p.decoder.set_paused(false);
    let (last, _) = p.seek(SeekTarget::Frame(60));
    assert_eq!(last.index, 60);
    for n in 61..70 {
        assert_eq!(p.next().0.index, n);
    }
    assert!(!matches!(
        p.decoder.next_current(Duration::from_millis(1)),
        Some(DecoderEvent::Failed { .. })
    ));
}

#[test]
fn bench_pipeline_rates_only_stops_after_the_passes() {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("bench-pipeline")
        .arg(common::grey_ramp_bframes())
        .arg("--rates-only")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let starts: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap_or("")).collect();
    assert_eq!(
        starts,
        [
            "adapter",
            "file",
            "open",
            "decode only",
            "threads",
            "stages",
            "report",
            "report whole",
            "pse whole",
            "whole, the processes' CPU (those runs)",
            "pipeline",
            "threads",
            "stages",
            "frames path",
            "memory"
        ],
        "{text}"
    );
}

#[test]
fn bench_pipeline_of_one_frame_says_which_figures_it_has_none_of() {
    let clip = common::fixture(
        "one-frame.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=160x120:rate=25",
            "-frames:v",
            "1",
            "-c:v",
            "libx264",
        ],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("bench-pipeline")
        .arg(&clip)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // No rate over the frames after the first, no frame time between two frames shown: said so,
    // where a division by nothing would print NaN, inf or -0.
    for impossible in ["NaN", "nan", "inf", "-0.0"] {
        assert!(!text.contains(impossible), "{impossible} in:\n{text}");
    }
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("{start}: {text}"))
    };
    assert!(line("report: ").contains("1 frames at "), "{text}");
    assert!(
        line("report: ").contains("no rate from the first frame written (one frame)"),
        "{text}"
    );
    assert!(
        line("timeline: ").contains("1 frames, no rate from the first one counted"),
        "{text}"
    );
    assert!(line("paced: ").contains("1 frames shown of 1 due, 0 dropped"), "{text}");
    assert!(line("paced: ").contains("frame time p50 none, p99 none"), "{text}");
    // A still picture is no video to time.
    let kitten = common::repo_path("media/kitten.jpg");
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("bench-pipeline")
        .arg(&kitten)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.starts_with("error: '") && err.contains("is a still picture"),
        "{err}"
    );
}

#[test]
fn bench_pipeline_reports_open_times_seeks_and_back_steps() {
    let clip = common::grey_ramp_bframes();
    let dir = std::env::temp_dir().join(format!("histoplay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("bench-pipeline")
        .arg(&clip)
        .args([
            "--seeks",
            "5",
            "--backsteps",
            "20",
            "--cache-size",
            "64MiB",
            "--long",
            "30",
        ])
        .arg("--long-dir")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no '{start}' line in:\n{text}"))
    };
    assert!(line("open:         this file: first frame counted").contains("hist --frame 0"));
    // 30 s of a 3 s clip: 10 loops, copied and deleted again.
    assert!(line("open:         long mkv").contains("[10 loops, 30 s"), "{text}");
    assert!(line("open:         long mp4").contains("[10 loops, 30 s"), "{text}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "the long copies are deleted"
    );
    assert!(line("exact seek:   5 random frames").contains("exact frame p50"));
    // Where the CPU time went, by thread: decoding alone, and the pipeline's cold pass.
    for stretch in ["decode only", "the cold pass"] {
        let threads = line(&format!("threads:      {stretch}, "));
        assert!(
            threads.contains(" CPU s over ") && threads.contains(" cores): "),
            "{threads}"
        );
    }
    // Where each frame's time went, stage by stage: the decoder fed packets alone, and beside
    // the upload and the GPU work in the cold pass (stages under 5 µs a frame left out).
    let stages = line("stages:       decode only, ms a frame: ");
    assert!(stages.contains("sending them "), "{stages}");
    let stages = line("stages:       the cold pass, ms a frame: decode thread: ");
    for part in [
        "; upload thread: ",
        "rows written ",
        "; consumer: waiting for a frame ",
        ", recording and submitting it ",
    ] {
        assert!(stages.contains(part), "{part} in {stages}");
    }
    // Decoded in software: each 64x48 frame goes up from memory, its rows padded to 256 bytes
    // (48 + 2 x 24 rows).
    assert_eq!(
        line("frames path:  "),
        "frames path:  software decoding, uploaded from memory; over PCIe per frame 24.0 KiB to the GPU, \
         0 bytes back to memory"
    );
    // GOPs of 12 up to frame 84: the last of the longest (ties go to the later one) is 72..84;
    // the steps start at its last frame and go back across the keyframes at 72 and 60.
    let back = line("back-step:    20 steps back from frame 83 (GOP 72..84");
    assert!(back.contains("then p50"), "{text}");
    // Every frame due in the paced run is counted, shown or dropped.
    let paced = line("paced:");
    let numbers: Vec<u64> = paced
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse().unwrap())
        .collect();
    let [shown, due, dropped] = numbers[..] else {
        panic!("{paced}")
    };
    assert_eq!(shown + dropped, due, "{paced}");
    assert!(due >= 80, "{paced}");
    // Memory: each phase's highest, then the whole run's peak against the budget's limit.
    let phases = line("memory by phase (MB at each one's highest): decode only ");
    for phase in [
        "; pipeline ",
        "; timeline ",
        "; paced ",
        "; paced + timeline ",
        "; seeks ",
        "; back-steps ",
    ] {
        assert!(phases.contains(phase), "no {phase:?} in {phases}");
    }
    let peak = line("memory peak:  ");
    assert!(
        peak.contains("the frame cache budget 64 MB + 512 MB (576 MB)"),
        "{peak}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn playing_on_past_frames_served_from_the_cache_shows_every_frame_in_order() {
    // Played once to frame 59, a look at frame 80, then from the start again: the frames the
    // first run left in the cache are served from there while the decoder, left at 80, is taken
    // back to the end of that run in the meantime; the frames after it are decoded.
    let clip = common::grey_ramp_bframes();
    let mut p = Pipeline::open(&clip);
    let first: Vec<(i64, Histogram)> = step_forward(&p, 60);
    let (frame, _) = p.seek(SeekTarget::Frame(80));
    assert_eq!(frame.index, 80);
    let (frame, h) = p.seek(SeekTarget::Frame(0));
    assert_eq!((frame.index, &h), (0, &first[0].1));
    for n in 1..common::RAMP_FRAMES {
        let (frame, h) = p.next();
        assert_eq!(frame.index, n);
        assert_eq!(level(&h), common::limited_grey(common::ramp_luma(n)), "frame {n}");
        if let Some((pts, earlier)) = first.get(n as usize) {
            assert_eq!((frame.pts, &h), (*pts, earlier), "frame {n} again");
        }
    }
    match p.decoder.next_current(Duration::from_secs(30)) {
        Some(DecoderEvent::EndOfStream { .. }) => {}
        other => panic!("expected the end, got {other:?}"),
    }
}

#[test]
fn a_seek_into_the_gop_of_frames_held_previews_the_nearest_of_them_at_once() {
    let clip = common::grey_ramp_bframes();
    let mut p = Pipeline::open(&clip);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while p.decoder.index().frame_count().is_none() {
        assert!(std::time::Instant::now() < deadline, "the index never finished");
        std::thread::sleep(Duration::from_millis(10));
    }
    p.decoder.set_paused(true);
    assert_eq!(p.seek(SeekTarget::Frame(26)).0.index, 26);
    // Paused, the decoder sends a frame ahead for an instant step (and the next once that one
    // is taken): frames up to 28 at most are held.
    assert_eq!(p.next().0.index, 27);
    // Frame 34 is not held, but 27 is, and no keyframe comes between (the next is 36): the
    // nearest frame held is the preview, before any decoding; then the exact frame.
    p.decoder.seek(SeekTarget::Frame(34));
    let (first, h) = p.next();
    assert!(first.preview, "frame {} came first", first.index);
    assert!((27..=28).contains(&first.index), "preview {}", first.index);
    assert_eq!(level(&h), common::limited_grey(common::ramp_luma(first.index)));
    let (exact, h) = p.next();
    assert!(!exact.preview);
    assert_eq!(exact.index, 34);
    assert_eq!(level(&h), common::limited_grey(common::ramp_luma(34)));
}

/// The grey ramp (frame n has luma 16 + 2n) cut in two MPEG-TS pieces of 45 frames, each with
/// its sound, whose clocks both start at the muxer's 1.4 s, joined end to end as `cat` joins
/// recordings: the second piece's raw timestamps are the first one's again.
fn joined_ramp() -> PathBuf {
    let piece = |k: u64| {
        let picture = format!(
            "color=c=black:s=64x48:r=30:d=1.5,format=yuv420p,geq=lum='16+2*(N+{})':cb=128:cr=128",
            45 * k
        );
        let sound = format!("sine=f={}:d=1.5", 440 * (k + 1));
        common::fixture(
            &format!("ramp-piece-{k}.ts"),
            &[
                "-f",
                "lavfi",
                "-i",
                &picture,
                "-f",
                "lavfi",
                "-i",
                &sound,
                "-c:v",
                "libx264",
                "-qp",
                "4",
                "-g",
                "12",
                "-bf",
                "3",
                "-x264-params",
                "scenecut=0:b-adapt=0:b-pyramid=normal",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
            ],
        )
    };
    let joined = common::repo_path("target/fixtures/ramp-joined.ts");
    let bytes = [std::fs::read(piece(0)).unwrap(), std::fs::read(piece(1)).unwrap()].concat();
    let partial = joined.with_extension(format!("{}.partial", std::process::id()));
    std::fs::write(&partial, bytes).unwrap();
    std::fs::rename(&partial, &joined).unwrap();
    joined
}

#[test]
fn a_ts_joined_from_pieces_whose_clocks_start_over_numbers_seeks_and_steps_on_through_the_joint() {
    let joined = joined_ramp();
    let mut p = Pipeline::open(&joined);
    p.decoder.set_paused(true);
    // Every frame in order, numbered on through the joint, times running on.
    let forward = step_forward(&p, 90);
    assert!(forward.windows(2).all(|w| w[0].0 < w[1].0), "times run on");
    // Steps back across the joint, then exact seeks into each piece.
    for here in (40..=55).rev() {
        let (frame, h) = p.seek(SeekTarget::Before(forward[here].0));
        assert_eq!(frame.index, here as u64 - 1, "step back from {here}");
        assert_eq!(h, forward[here - 1].1, "frame {}", here - 1);
    }
    for n in [70, 10, 45, 89, 44, 0] {
        let (frame, h) = p.seek(SeekTarget::Frame(n));
        assert_eq!((frame.index, &h), (n, &forward[n as usize].1), "seek to frame {n}");
    }
    // The index counts both pieces; `hist` seeks into the second.
    let source = VideoSource::open(&joined).unwrap();
    assert_eq!(source.index().wait_complete(), Some(90));
    let line = hist(&joined, 80);
    assert_eq!(field(&line, "frame"), "80");
    let l = common::json(&line)["l"].as_array().unwrap().clone();
    let level = usize::from(common::limited_grey(common::ramp_luma(80)));
    assert_eq!(l[level].as_u64(), Some(64 * 48), "frame 80's luma");

    // The sound runs on with the picture: its second piece starts where the picture's does
    // (within a frame), whether read from the start or after a seek into that piece.
    let joint = (forward[45].0 - forward[0].0) as f64 / 90_000.0 + source.info.start_pts.unwrap() as f64 / 90_000.0;
    let mut sound = histoplay::audio::source::AudioSource::open_as_is(&joined, Default::default()).unwrap();
    let mut starts = Vec::new();
    while let Some(chunk) = sound.next_chunk() {
        starts.push((chunk.start, chunk.samples.len() / usize::from(sound.channels())));
    }
    assert!(
        starts.windows(2).all(|w| w[0].0 < w[1].0),
        "sound times run on: {starts:?}"
    );
    let rate = f64::from(sound.rate());
    let second = starts.iter().find(|(start, _)| *start >= joint - 0.05).unwrap().0;
    assert!(
        (second - joint).abs() < 1.0 / 30.0,
        "the second piece's sound at {second} s, its picture at {joint} s"
    );
    let last = starts.last().unwrap();
    assert!(
        (last.0 + last.1 as f64 / rate - (joint + 1.5)).abs() < 0.1,
        "ends at {last:?}"
    );
    sound.seek(joint + 0.5);
    let after = sound.next_chunk().unwrap().start;
    assert!(
        after <= joint + 0.5 && after > joint - 1.5,
        "sought to {} s, the sound from {after} s",
        joint + 0.5
    );
}

/// A shape the consumer can make no ring for (`refuse_ring`: a picture too large for the GPU)
/// is passed over: the frames of the shapes it shows still come, to the end and after a seek.
#[test]
fn frames_of_a_shape_the_consumer_refuses_are_passed_over_and_the_rest_still_come() {
    let [_, _, joined] = common::reshaped_ts();
    let ctx = common::gpu();
    let mut source = VideoSource::open(&joined).unwrap();
    source.follow_format_changes();
    let frames = histoplay::pipeline::FramePipeline::new(&ctx, 256, source.info.format, Default::default(), 4).unwrap();
    let mut decoder = histoplay::video::decoder::DecodeThread::spawn(
        source,
        ctx.queue.clone(),
        frames.ring.slots.clone(),
        DEFAULT_CACHE_BYTES,
    );
    // Every frame the decoder gives, until the end (frames 50–99 are 256x144, refused).
    let take_all = |decoder: &histoplay::video::decoder::DecodeThread| {
        let (mut shown, mut refused) = (Vec::new(), 0);
        loop {
            match decoder.next_current(Duration::from_secs(30)) {
                Some(DecoderEvent::Frame(frame)) => {
                    shown.push(frame.index);
                    decoder.release(frame.slot);
                }
                Some(DecoderEvent::Reshaped(shape)) => {
                    assert_eq!((shape.format.width, shape.format.height), (256, 144));
                    decoder.refuse_ring(shape);
                    refused += 1;
                }
                Some(DecoderEvent::EndOfStream { .. }) => return (shown, refused),
                other => panic!("expected frames to the end, got {other:?}"),
            }
        }
    };
    let (shown, refused) = take_all(&decoder);
    assert_eq!(shown, (0..50).collect::<Vec<_>>());
    assert_eq!(refused, 1);
    decoder.seek(SeekTarget::Frame(10));
    let (shown, refused) = take_all(&decoder);
    assert_eq!(shown, (10..50).collect::<Vec<_>>());
    assert_eq!(refused, 0, "asked once");
}

/// Each frame goes into a ring of its own shape, whatever order the seeks decode the stream's
/// parts in: into the third part (the first's shape), then the second, then the third again
/// from the cache.
#[test]
fn seeks_across_parts_of_each_shape_put_each_frame_in_a_ring_of_its_own_shape() {
    use histoplay::pipeline::FramePipeline;
    use histoplay::video::decoder::DecodeThread;
    let path = common::reshaped_there_and_back_ts();
    let ctx = common::gpu();
    let mut source = VideoSource::open(&path).unwrap();
    source.follow_format_changes();
    let ring = |format| FramePipeline::new(&ctx, 256, format, Default::default(), 4).unwrap();
    let mut frames = ring(source.info.format);
    let mut decoder = DecodeThread::spawn(
        source,
        ctx.queue.clone(),
        frames.ring.slots.clone(),
        DEFAULT_CACHE_BYTES,
    );
    let size_of = |n: u64| if (50..100).contains(&n) { (256, 144) } else { (320, 240) };
    let land = |decoder: &mut DecodeThread, frames: &mut FramePipeline, n: u64| {
        decoder.seek(SeekTarget::Frame(n));
        loop {
            match decoder.next_current(Duration::from_secs(30)) {
                Some(DecoderEvent::Frame(frame)) => {
                    decoder.release(frame.slot);
                    let ring = (frames.ring.format.width, frames.ring.format.height);
                    assert_eq!(ring, size_of(frame.index), "frame {}", frame.index);
                    if !frame.preview {
                        assert_eq!(frame.index, n);
                        return;
                    }
                }
                Some(DecoderEvent::Reshaped(shape)) => {
                    *frames = ring(shape.format);
                    decoder.set_ring(shape, frames.ring.slots.clone());
                }
                other => panic!("landing on {n}: {other:?}"),
            }
        }
    };
    for n in [120, 70, 120, 30, 75, 140] {
        land(&mut decoder, &mut frames, n);
    }
}
