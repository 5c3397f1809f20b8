//! Video in: frame-exact `hist`, exact seeks both ways through the decode thread, back-steps,
//! seek storms, and GPU against CPU on real decoded frames.

mod common;

use common::pipeline::{level, Pipeline};
use histoplay::video::decoder::DecoderEvent;
use histoplay::video::source::SeekTarget;
use std::process::{Command, Output};
use std::time::Duration;

fn histoplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .expect("histoplay runs")
}

/// The single bin a flat grey frame fills (at 256 bins the bin is the grey level).
fn flat_level(line: &str) -> u8 {
    use common::JsonExt;
    let counts = common::json(line)["r"].counts();
    let filled: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > 0).collect();
    assert_eq!(filled.len(), 1, "not a flat frame: {line}");
    assert_eq!(counts[filled[0]], u64::from(common::RAMP_SIZE.0 * common::RAMP_SIZE.1));
    filled[0] as u8
}

/// A field of a `hist` line, as JSON text.
fn field(line: &str, name: &str) -> String {
    common::json(line)[name].to_string()
}

#[test]
fn frame_k_is_the_frame_ffmpeg_select_picks() {
    let clip = common::grey_ramp();
    let clip_arg = clip.to_str().unwrap();
    for k in [0u64, 1, 3, 11, 12, 13, 46, 89] {
        let out = histoplay(&["hist", clip_arg, "--frame", &k.to_string()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 1);
        let ffmpeg_luma = common::ffmpeg_select_luma(&clip, k);
        assert_eq!(ffmpeg_luma, common::ramp_luma(k), "the fixture's frame {k}");
        assert_eq!(flat_level(&text), common::limited_grey(ffmpeg_luma), "frame {k}");
        assert_eq!(field(&text, "frame"), k.to_string());
        let pts: f64 = field(&text, "pts").parse().unwrap();
        assert!((pts - k as f64 / 30.0).abs() < 1e-6, "frame {k} pts {pts}");
    }
}

#[test]
fn every_frame_streams_in_order_and_gpu_equals_cpu() {
    let clip = common::grey_ramp();
    let clip_arg = clip.to_str().unwrap();
    let gpu = histoplay(&["hist", clip_arg, "--frames", "0.."]);
    let cpu = histoplay(&["hist", clip_arg, "--frames", "0..", "--cpu"]);
    assert!(gpu.status.success() && cpu.status.success());
    assert_eq!(gpu.stdout, cpu.stdout);
    let text = String::from_utf8(gpu.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len() as u64, common::RAMP_FRAMES);
    for (n, line) in lines.iter().enumerate() {
        assert_eq!(field(line, "frame"), n.to_string());
        assert_eq!(
            flat_level(line),
            common::limited_grey(common::ramp_luma(n as u64)),
            "frame {n}"
        );
    }
}

#[test]
fn ranges_and_csv() {
    let clip = common::grey_ramp();
    let clip_arg = clip.to_str().unwrap();
    let tail = String::from_utf8(histoplay(&["hist", clip_arg, "--frames", "85.."]).stdout).unwrap();
    let frames: Vec<String> = tail.lines().map(|l| field(l, "frame")).collect();
    assert_eq!(frames, ["85", "86", "87", "88", "89"]);
    let inclusive = String::from_utf8(histoplay(&["hist", clip_arg, "--frames", "10..=12"]).stdout).unwrap();
    assert_eq!(inclusive.lines().count(), 3);
    let csv = String::from_utf8(histoplay(&["hist", clip_arg, "--frames", "20..22", "--csv", "--bins", "16"]).stdout)
        .unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[0].starts_with("frame,pts,width,height,bins,r0,"));
    assert!(rows[1].starts_with("20,0.6666666666666666,64,48,16,"), "{}", rows[1]);
    let past = histoplay(&["hist", clip_arg, "--frame", "90"]);
    assert!(!past.status.success());
    assert!(String::from_utf8_lossy(&past.stderr).starts_with("error: frame 90 is past the end"));
}

#[test]
fn exact_seeks_land_on_their_frame_both_ways() {
    let mut p = Pipeline::open(&common::grey_ramp());
    let (first, h) = p.next();
    assert_eq!(
        (first.index, level(&h)),
        (0, common::limited_grey(common::ramp_luma(0)))
    );
    // Forward and backward across GOP boundaries (GOP 12, B-frames).
    for k in [50u64, 13, 12, 11, 89, 0, 37, 36, 35, 24, 60, 5] {
        let (frame, h) = p.seek(SeekTarget::Frame(k));
        assert_eq!(frame.index, k);
        assert_eq!(level(&h), common::limited_grey(common::ramp_luma(k)), "frame {k}");
        assert!((frame.seconds - k as f64 / 30.0).abs() < 1e-9);
        // Playback continues from there in order.
        if k < 89 {
            let (next, h) = p.next();
            assert_eq!(next.index, k + 1);
            assert_eq!(level(&h), common::limited_grey(common::ramp_luma(k + 1)));
        }
    }
    // A time inside a frame's display interval lands on that frame.
    for (seconds, k) in [
        (0.0, 0u64),
        (1.0 / 30.0 * 20.5, 20),
        (2.999, 89),
        (1.0, 30),
        (0.5 - 1e-6, 14),
    ] {
        let (frame, _) = p.seek(SeekTarget::Time { seconds, exact: true });
        assert_eq!(frame.index, k, "time {seconds}");
    }
    // A fast seek lands on the keyframe at or before the time (GOP 12: frames 0, 12, 24 ...).
    let (frame, _) = p.seek(SeekTarget::Time {
        seconds: 1.0,
        exact: false,
    });
    assert!(
        frame.index <= 30 && frame.index % 12 == 0,
        "keyframe seek gave frame {}",
        frame.index
    );
}

#[test]
fn stepping_back_returns_the_frame_you_came_from() {
    let mut p = Pipeline::open(&common::grey_ramp());
    let (_, _) = p.seek(SeekTarget::Frame(40));
    let (at_41, h41) = p.next();
    assert_eq!(at_41.index, 41);
    // Repeated back-steps: 40, 39 ... 25, each the same frame as going forward.
    let mut forward = std::collections::HashMap::new();
    let (f, h) = p.seek(SeekTarget::Frame(25));
    forward.insert(f.index, h);
    for _ in 0..16 {
        let (f, h) = p.next();
        forward.insert(f.index, h);
    }
    for k in (25..41).rev() {
        let (frame, h) = p.seek(SeekTarget::Frame(k));
        assert_eq!(frame.index, k);
        assert_eq!(&h, &forward[&k], "back-step to {k}");
    }
    let (frame, h) = p.seek(SeekTarget::Frame(41));
    assert_eq!((frame.index, &h), (41, &h41));
}

#[test]
fn a_storm_of_seeks_settles_on_the_last_one() {
    let mut p = Pipeline::open(&common::grey_ramp());
    for i in 0..300u64 {
        p.decoder.seek(SeekTarget::Frame((i * 37) % 90));
    }
    let last = (299 * 37) % 90;
    // Only the last seek is answered: at most its keyframe preview, then its frame.
    let (mut frame, mut h) = p.next();
    if frame.preview {
        assert!(frame.index <= last && frame.index % 12 == 0, "preview {}", frame.index);
        (frame, h) = p.next();
    }
    assert_eq!(frame.index, last);
    assert_eq!(level(&h), common::limited_grey(common::ramp_luma(last)));
    // The ring still turns: the following frames arrive.
    for k in last + 1..(last + 10).min(90) {
        assert_eq!(p.next().0.index, k);
    }
}

#[test]
fn the_end_of_the_stream_is_reported() {
    let mut p = Pipeline::open(&common::grey_ramp());
    let (frame, _) = p.seek(SeekTarget::Frame(88));
    assert_eq!(frame.index, 88);
    assert_eq!(p.next().0.index, 89);
    assert!(matches!(
        p.decoder.next_current(Duration::from_secs(30)),
        Some(DecoderEvent::EndOfStream { .. })
    ));
    // And a seek after the end plays again.
    assert_eq!(p.seek(SeekTarget::Frame(3)).0.index, 3);
}

#[test]
fn render_draws_the_asked_frame_of_a_video() {
    let clip = common::grey_ramp();
    let out = std::env::temp_dir().join(format!("histoplay-render-frame-{}.png", std::process::id()));
    let result = histoplay(&[
        "render",
        clip.to_str().unwrap(),
        "--frame",
        "30",
        "-o",
        out.to_str().unwrap(),
        "--size",
        "128x96",
    ]);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let png = histoplay::video::still::load(&out).unwrap();
    assert_eq!((png.width, png.height), (128, 96));
    // Above the quads the picture is the frame's flat grey.
    let grey = common::limited_grey(common::ramp_luma(30));
    assert_eq!(&png.pixels[..4], &[grey, grey, grey, 255]);
    let past = histoplay(&[
        "render",
        clip.to_str().unwrap(),
        "--frame",
        "90",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&past.stderr).starts_with("error: frame 90 is past the end"));
}

/// A video whose display matrix turns it (a phone's portrait clip), or whose samples are not
/// square, is drawn as the window shows it and as FFmpeg's autorotation gives it: turned, its
/// size by default the picture's as shown.
#[test]
fn render_turns_a_picture_its_display_matrix_turns_and_widens_wide_samples() {
    // White on the left, black on the right.
    let plain = common::fixture(
        "render-halves.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=white:s=128x64:d=0.2,drawbox=x=64:y=0:w=64:h=64:color=black:t=fill",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let turned = common::fixture(
        "render-turned.mp4",
        &[
            "-i",
            plain.to_str().unwrap(),
            "-c",
            "copy",
            "-metadata:s:v:0",
            "rotate=90",
        ],
    );
    let wide = common::fixture(
        "render-wide-samples.mp4",
        &[
            "-i",
            plain.to_str().unwrap(),
            "-vf",
            "setsar=2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    // The same in FFV1 in Matroska: its stream carries no sample aspect of its own, the
    // container's display size does.
    let wide_in_container = common::fixture(
        "render-wide-samples-container.mkv",
        &["-i", plain.to_str().unwrap(), "-vf", "setsar=2", "-c:v", "ffv1"],
    );
    let render = |clip: &std::path::Path, name: &str| {
        let out = std::env::temp_dir().join(format!("histoplay-render-{name}-{}.png", std::process::id()));
        let result = histoplay(&["render", clip.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
        histoplay::video::still::load(&out).unwrap()
    };
    let luma =
        |png: &histoplay::video::still::RgbaImage, x: u32, y: u32| png.pixels[((y * png.width + x) * 4) as usize];
    // Turned a quarter (the tag's 90°, counterclockwise as the display matrix says), as FFmpeg
    // turns it: the black half on top, the white below.
    let png = render(&turned, "turned");
    assert_eq!((png.width, png.height), (64, 128));
    let reference = std::env::temp_dir().join(format!("histoplay-render-turned-ffmpeg-{}.png", std::process::id()));
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(&turned)
        .args(["-frames:v", "1"])
        .arg(&reference)
        .status()
        .unwrap();
    assert!(made.success());
    let theirs = histoplay::video::still::load(&reference).unwrap();
    assert_eq!((theirs.width, theirs.height), (64, 128));
    for (x, y) in [(32, 8), (8, 40), (56, 56)] {
        assert_eq!(luma(&png, x, y), 0, "({x}, {y})");
        assert_eq!(luma(&theirs, x, y), 0, "FFmpeg's ({x}, {y})");
    }
    assert_eq!(luma(&png, 32, 72), 255);
    assert_eq!(luma(&theirs, 32, 72), 255);
    // Samples twice as wide as tall: twice the width, the halves each 128 wide.
    let png = render(&wide, "wide");
    assert_eq!((png.width, png.height), (256, 64));
    assert_eq!((luma(&png, 120, 4), luma(&png, 136, 4)), (255, 0));
    let png = render(&wide_in_container, "wide-in-container");
    assert_eq!((png.width, png.height), (256, 64));
    assert_eq!((luma(&png, 120, 4), luma(&png, 136, 4)), (255, 0));
}

/// A photo whose EXIF orientation turns it (a phone held upright) is drawn upright by `render`
/// (read by the image crate) and opened turned by the player's source (FFmpeg, which shows it
/// as stored); its histogram is its pixels' whichever way it is turned.
#[test]
fn a_photos_exif_orientation_turns_it_upright() {
    // White on the left, black on the right, stored 64x32.
    let plain = common::fixture(
        "exif-halves.jpg",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=white:s=64x32,drawbox=x=32:y=0:w=32:h=32:color=black:t=fill",
            "-frames:v",
            "1",
            "-q:v",
            "1",
        ],
    );
    // EXIF orientation 6: turned a quarter clockwise to be seen (an APP1 segment after SOI).
    let jpeg = std::fs::read(&plain).unwrap();
    let mut exif = vec![0xff, 0xe1, 0x00, 0x22];
    exif.extend(b"Exif\0\0II\x2a\x00\x08\x00\x00\x00");
    exif.extend([
        0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
    ]);
    exif.extend([0x00; 4]);
    let turned = std::env::temp_dir().join(format!("histoplay-exif-turned-{}.jpg", std::process::id()));
    std::fs::write(&turned, [&jpeg[..2], &exif, &jpeg[2..]].concat()).unwrap();
    let out = std::env::temp_dir().join(format!("histoplay-exif-render-{}.png", std::process::id()));
    let result = histoplay(&["render", turned.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let png = histoplay::video::still::load(&out).unwrap();
    assert_eq!((png.width, png.height), (32, 64));
    let luma = |x: u32, y: u32| png.pixels[((y * png.width + x) * 4) as usize];
    // The left half on top, the right half below it.
    assert!(
        luma(16, 4) > 240 && luma(4, 24) > 240,
        "{} {}",
        luma(16, 4),
        luma(4, 24)
    );
    assert!(luma(16, 36) < 16, "{}", luma(16, 36));
    let source = histoplay::video::source::VideoSource::open(&turned).unwrap();
    assert_eq!(source.info.quarter_turns, 1);
    assert_eq!(source.info.display_size(), (32, 64));
    let plain_source = histoplay::video::source::VideoSource::open(&plain).unwrap();
    assert_eq!(plain_source.info.quarter_turns, 0);
    // The same counts either way.
    let counts = |path: &std::path::Path| {
        let out = histoplay(&["hist", path.to_str().unwrap(), "--cpu"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let line = common::json(String::from_utf8_lossy(&out.stdout).lines().next().unwrap());
        (line["l"].clone(), line["width"].clone(), line["height"].clone())
    };
    let (a, b) = (counts(&plain), counts(&turned));
    assert_eq!(a.0, b.0);
    assert_eq!((b.1.as_u64(), b.2.as_u64()), (Some(32), Some(64)));
}

/// Seeks that keep the decoder's state (as with a hardware decoder, where a flush costs a new
/// decoder) land on the same frames as sequential decoding, and no frame of the run before a
/// seek leaks into the next: B-frames keep frames in the decoder when each seek is asked for.
/// Closed GOPs (IDR keyframes) and open ones (I keyframes with leading B-frames).
#[test]
fn seeks_without_a_flush_show_no_stale_frame() {
    use histoplay::video::source::VideoSource;
    // FFmpeg's H.264 decoder loses a frame after a seek into the last GOP of an open-GOP
    // stream (`ffmpeg -ss` too), so the open GOPs are sought before it.
    let closed = [50usize, 13, 12, 11, 89, 0, 37, 36, 35, 24, 60, 5, 5, 70, 47];
    let open = [50usize, 13, 12, 11, 83, 0, 37, 36, 35, 24, 60, 5, 5, 70, 47];
    for (path, targets) in [
        (common::grey_ramp_bframes(), closed),
        (common::grey_ramp_open_gop(), open),
    ] {
        let mut sequential = VideoSource::open(&path).expect("opens");
        sequential.set_exact_numbers(true);
        let mut pts = Vec::new();
        while let Some(frame) = sequential.next_frame().expect("decodes") {
            assert_eq!(frame.index, pts.len() as u64);
            assert_eq!(frame.video().unwrap().data(0)[0], common::ramp_luma(frame.index));
            pts.push(frame.pts);
        }
        assert_eq!(pts.len(), 90, "{}", path.display());

        let mut source = VideoSource::open(&path).expect("opens");
        source.set_exact_numbers(true);
        source.set_keep_decoder_on_seek(true);
        for k in targets {
            // As the decode thread does: a seek that lands after the target (a leading frame
            // of an open GOP, which the demuxer places after its keyframe) goes back further.
            let mut from = pts[k];
            let (landed, shown) = 'landing: loop {
                source.seek_before(from);
                let mut shown = Vec::new();
                loop {
                    let frame = source
                        .next_frame()
                        .expect("decodes")
                        .expect("a frame after the keyframe");
                    if shown.is_empty() && frame.pts > pts[k] {
                        from = i64::MIN / 2;
                        continue 'landing;
                    }
                    shown.push(frame.index);
                    if frame.pts >= pts[k] {
                        break 'landing (frame, shown);
                    }
                }
            };
            let what = format!("{}: seek to {k}, shown {shown:?}", path.display());
            assert_eq!((landed.index, landed.pts), (k as u64, pts[k]), "{what}");
            // The frames on the way are the ones after a keyframe (GOP 12), in order: nothing
            // from before the seek.
            assert_eq!(shown[0] % 12, 0, "{what}");
            assert_eq!(shown, (shown[0]..=k as u64).collect::<Vec<_>>(), "{what}");
            assert_eq!(
                landed.video().unwrap().data(0)[0],
                common::ramp_luma(k as u64),
                "{what}"
            );
            // Read on a little, leaving frames inside the decoder for the next seek.
            for n in k + 1..(k + 3).min(90) {
                let frame = source.next_frame().expect("decodes").expect("a frame");
                assert_eq!(
                    (frame.index, frame.video().unwrap().data(0)[0]),
                    (n as u64, common::ramp_luma(n as u64)),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn chapters_come_from_the_container_in_order() {
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let metadata = dir.join("chapters-two.ffmetadata");
    std::fs::write(
        &metadata,
        ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=First\n\
         [CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=3000\ntitle=Second\n",
    )
    .unwrap();
    let metadata = metadata.to_string_lossy().into_owned();
    let clip = common::fixture(
        "chapters-two.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=gray:s=64x48:r=10:d=3",
            "-i",
            &metadata,
            "-map_metadata",
            "1",
            "-map_chapters",
            "1",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    );
    let source = histoplay::video::source::VideoSource::open(&clip).unwrap();
    let chapters: Vec<(f64, Option<&str>)> = source
        .info
        .chapters
        .iter()
        .map(|c| (c.start, c.title.as_deref()))
        .collect();
    assert_eq!(chapters, [(0.0, Some("First")), (2.0, Some("Second"))]);
    // A file without chapters has none.
    let plain = histoplay::video::source::VideoSource::open(&common::grey_ramp()).unwrap();
    assert!(plain.info.chapters.is_empty());
}

#[test]
fn a_seek_in_the_middle_of_a_catch_up_leaves_no_frame_out_of_the_next_run() {
    use histoplay::video::source::CatchUp;
    let clip = common::grey_ramp_bframes();
    let mut source = histoplay::video::source::VideoSource::open(&clip).unwrap();
    let mut all = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        all.push(frame.pts);
    }
    let last = *all.last().unwrap();
    // Catch-up runs towards the last frame skip the B-frames nothing references on their way;
    // each is interrupted after a different number of frames (so at some point the packet sent
    // last was one the decoder was told to skip).
    let mut skipped = false;
    for interrupted_after in 1..12 {
        source.seek_before(all[40]);
        source.catch_up(Some(CatchUp {
            limit: last,
            keep_from: last,
            pass: false,
        }));
        let shown: Vec<u64> = (0..interrupted_after)
            .map(|_| source.next_frame().unwrap().unwrap().index)
            .collect();
        skipped |= shown.windows(2).any(|w| w[1] > w[0] + 1);
        // The new run decodes every frame again, each linked to the one before.
        source.seek_before(all[0]);
        source.catch_up(None);
        for n in 0..30u64 {
            let frame = source.next_frame().unwrap().unwrap();
            assert_eq!(frame.index, n, "after {interrupted_after} frames of catching up");
            assert_eq!(frame.previous, n.checked_sub(1).map(|p| all[p as usize]), "frame {n}");
        }
    }
    assert!(skipped, "the catch-up runs skipped nothing");
}

/// A frame's luma samples, row after row, without the rows' padding.
fn luma_rows(frame: &ffmpeg_next::frame::Video) -> Vec<u8> {
    let (width, stride) = (frame.width() as usize, frame.stride(0));
    (0..frame.height() as usize)
        .flat_map(|y| frame.data(0)[y * stride..y * stride + width].iter().copied())
        .collect()
}

/// A keyframe without a pts (MPEG-4 part 2 with B-frames in AVI: its packets carry decode
/// times only) is previewed at its frame's own time, as the stream's decoder gives it: the
/// preview is numbered as the frame it shows.
#[test]
fn a_keyframe_without_a_pts_is_previewed_at_its_frames_time() {
    use histoplay::video::source::VideoSource;
    let clip = common::mpeg4_b_frames_avi();
    let mut source = VideoSource::open(&clip).unwrap();
    let mut keyframes = source.keyframe_decoder().expect("a software stream has one");
    let mut times = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        times.push(frame.pts);
    }
    assert_eq!(times.len(), 50);
    let index = source.index();
    index.wait_complete();
    let numbers = index.keyframe_numbers().expect("the index is complete");
    assert!(numbers.len() >= 4, "{numbers:?}");
    for &k in &numbers {
        // Asked for the frame before the next keyframe: this keyframe, at its time.
        let next = numbers.iter().find(|&&n| n > k).map_or(49, |&n| n - 1);
        let (pts, _) = keyframes
            .decode_at(times[next as usize], &source.info.format)
            .expect("the keyframe decodes");
        assert_eq!(pts, times[k as usize], "keyframe {k}");
    }
}

/// The keyframes' packets of `path`'s video stream, in the file's order.
fn key_packets(path: &std::path::Path) -> Vec<ffmpeg_next::Packet> {
    let mut input = ffmpeg_next::format::input(path).unwrap();
    let video = input.streams().best(ffmpeg_next::media::Type::Video).unwrap().index();
    (input.packets())
        .filter(|(s, packet)| s.index() == video && packet.is_key())
        .map(|(_, packet)| packet)
        .collect()
}

/// Where the stream follows its frames' shapes (the window), a keyframe is previewed only in
/// the shape of the ring it would go into, never scaled to it.
#[test]
fn a_keyframe_of_another_shape_than_the_rings_is_no_preview() {
    use histoplay::video::source::VideoSource;
    let [_, _, joined] = common::reshaped_ts();
    let mut source = VideoSource::open(&joined).unwrap();
    source.follow_format_changes();
    let mut keyframes = source.keyframe_decoder().expect("a software stream has one");
    let first = source.info.format;
    let mut times = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        times.push(frame.pts);
    }
    assert_eq!(times.len(), 100);
    let second = source.info.format;
    assert_eq!(
        (first.width, first.height, second.width, second.height),
        (320, 240, 256, 144)
    );
    // Each keyframe, decoded by itself: in the ring's shape where it is of it, else none.
    let mut previewed = Vec::new();
    for packet in key_packets(&joined) {
        let n = times.iter().position(|&t| Some(t) == packet.pts()).unwrap();
        let (ring, other, size) = match n < 50 {
            true => (&first, &second, (320, 240)),
            false => (&second, &first, (256, 144)),
        };
        let (pts, frame) = keyframes.decode(&packet, ring).expect("in the ring's shape");
        assert_eq!((pts, frame.width(), frame.height()), (times[n], size.0, size.1));
        assert!(keyframes.decode(&packet, other).is_none(), "keyframe {n}");
        previewed.push(n);
    }
    assert_eq!(previewed, [0, 25, 50, 75]);
}

#[test]
fn a_keyframe_decoded_by_itself_is_the_frame_the_stream_decodes_there() {
    use histoplay::video::source::VideoSource;
    for clip in [common::grey_ramp_bframes(), common::grey_ramp_open_gop()] {
        // Every frame as the stream's own decoder gives it, by pts.
        let mut source = VideoSource::open(&clip).unwrap();
        let mut keyframes = source.keyframe_decoder().expect("a software stream has one");
        let mut stream = std::collections::HashMap::new();
        while let Some(frame) = source.next_frame().unwrap() {
            stream.insert(frame.pts, (frame.index, luma_rows(frame.video().unwrap())));
        }
        assert_eq!(stream.len() as u64, common::RAMP_FRAMES);
        let mut checked = Vec::new();
        for packet in key_packets(&clip) {
            let (pts, frame) = keyframes
                .decode(&packet, &source.info.format)
                .expect("a keyframe decodes by itself");
            let (index, plane) = &stream[&pts];
            // (Row by row: the two decoders may pad their rows differently.)
            assert_eq!(luma_rows(&frame), *plane, "{}: keyframe {index}", clip.display());
            assert_eq!(frame.data(0)[0], common::ramp_luma(*index));
            checked.push(*index);
        }
        // One keyframe every 12 frames (the open-GOP clip's I pictures included).
        assert_eq!(
            checked,
            (0..common::RAMP_FRAMES).step_by(12).collect::<Vec<_>>(),
            "{}",
            clip.display()
        );
    }
}

#[test]
fn a_catch_up_run_passes_the_frames_before_those_it_keeps_and_gives_the_rest_whole() {
    use histoplay::video::source::{CatchUp, Decoded, VideoSource};
    let clip = common::grey_ramp_bframes();
    let mut source = VideoSource::open(&clip).unwrap();
    let mut all = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        all.push(frame.pts);
    }
    source.seek_before(all[50]);
    source.catch_up(Some(CatchUp {
        limit: all[58],
        keep_from: all[55],
        pass: true,
    }));
    let (mut whole, mut passed) = (Vec::new(), Vec::new());
    while let Some(decoded) = source.next_decoded().unwrap() {
        match decoded {
            Decoded::Frame(frame) => {
                assert_eq!(frame.video().unwrap().data(0)[0], common::ramp_luma(frame.index));
                whole.push(frame.index);
                if frame.index == 60 {
                    break;
                }
            }
            Decoded::Passed { pts } => passed.push(all.iter().position(|&p| p == pts).unwrap() as u64),
        }
    }
    // The run starts at keyframe 48, given whole (it may be shown as a preview); the frames up
    // to 54 that other frames reference are passed, those nothing references not decoded.
    assert_eq!(whole, vec![48, 55, 56, 57, 58, 59, 60]);
    assert!(
        !passed.is_empty() && passed.iter().all(|&n| (49..55).contains(&n)),
        "{passed:?}"
    );
    assert!(passed.len() < 6, "frames nothing references were decoded: {passed:?}");
}

/// A source whose first frame was decoded ahead (`prime`, as the commands do while the GPU
/// opens), or frames between those taken (`decode_ahead`), gives the frames it gives unprimed,
/// numbers, timestamps and samples alike; a seek made after priming drops the frames decoded
/// ahead and lands where it was asked to.
#[test]
fn a_source_decoding_ahead_gives_the_same_frames_and_a_seek_drops_those_decoded_ahead() {
    use histoplay::video::source::{Decoding, VideoSource};
    let clip = common::grey_ramp_bframes();
    let frames = |source: &mut VideoSource, count: usize| -> Vec<(u64, i64, Option<i64>, Vec<u8>)> {
        (0..count)
            .map(|_| {
                let frame = source.next_frame().unwrap().expect("a frame");
                let samples = frame.video().unwrap().data(0).to_vec();
                (frame.index, frame.pts, frame.previous, samples)
            })
            .collect()
    };
    let mut plain = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    let expected = frames(&mut plain, 12);
    let mut primed = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    primed.prime();
    primed.prime(); // (a second call keeps the frame decoded ahead)
    assert!(frames(&mut primed, 12) == expected, "the primed source's frames differ");
    assert_eq!(expected[0].0, 0);

    let mut seeking = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    seeking.prime();
    let all: Vec<i64> = expected.iter().map(|f| f.1).collect();
    seeking.seek_before(all[0]);
    assert!(frames(&mut seeking, 12) == expected, "after a seek to the start");
    let mut later = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    later.prime();
    // The run starts at the keyframe at or before frame 9, and the frame decoded ahead (frame
    // 0) does not come first: the frames from there are the unprimed source's, none twice.
    later.seek_before(all[9]);
    let landed = frames(&mut later, 3);
    let start = expected
        .iter()
        .position(|f| f.0 == landed[0].0)
        .expect("a frame of the stream");
    assert!(landed[..] == expected[start..start + 3], "after a seek to frame 9");

    // Frames decoded ahead between the ones taken (`decode_ahead`: a run's decoder going on
    // while its ring is full) come out as the unprimed source's, in order, none twice.
    let mut ahead = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    let (mut given, mut decoded_ahead) = (Vec::new(), 0);
    for round in 0..12 {
        decoded_ahead += (0..round % 4).filter(|_| ahead.decode_ahead()).count();
        given.extend(frames(&mut ahead, 1));
    }
    assert!(given == expected, "the frames decoded ahead differ");
    assert_eq!(decoded_ahead, (0..12).map(|r| r % 4).sum::<usize>());
    // To the end of the stream (90 small frames, within what it keeps ahead): the frames
    // still to come (7 of the 18 decoded ahead are not taken yet), then no more.
    let ahead_to_end = std::iter::from_fn(|| ahead.decode_ahead().then_some(())).count();
    assert_eq!(ahead_to_end, 90 - 12 - 7);
    assert!(!ahead.decode_ahead());
    let rest = std::iter::from_fn(|| ahead.next_frame().unwrap())
        .map(|f| f.index)
        .collect::<Vec<_>>();
    assert_eq!(rest, (12..90).collect::<Vec<u64>>());
    // A seek drops the frames decoded ahead.
    let mut sought = VideoSource::open_for(&clip, Decoding::Throughput).unwrap();
    (0..20).for_each(|_| assert!(sought.decode_ahead()));
    sought.seek_before(all[0]);
    assert!(
        frames(&mut sought, 12) == expected,
        "after a seek, frames decoded ahead given"
    );
    // A player's source decodes what its seeks and steps ask, never ahead.
    let mut playing = VideoSource::open(&clip).unwrap();
    assert!(!playing.decode_ahead());
}

/// The histograms of each frame of a software-decoded clip, run through the headless pipeline,
/// and how many frames the GPU copied from where they were decoded. `in_place`: the stream's
/// pool of memory the GPU copies from is made before the first frame (else refused).
fn histograms_decoded(path: &std::path::Path, in_place: bool) -> (Vec<Vec<u32>>, u64) {
    use histoplay::headless::{gpu_frames_on, FrameRange};
    use histoplay::video::source::{Decoding, VideoSource};
    let ctx = common::gpu();
    let source = VideoSource::open_for(path, Decoding::Throughput).unwrap();
    assert!(source.info.hwdec.is_none());
    let (transfers, direct) = (source.transfers(), source.direct_frames());
    match in_place {
        true => assert!(direct.make_pool(&ctx.device).unwrap().is_some()),
        false => direct.refuse(),
    }
    let mut histograms = Vec::new();
    let everything = FrameRange { start: 0, end: None };
    gpu_frames_on(
        &ctx,
        source,
        everything,
        256,
        None,
        |_, pipeline| Ok(pipeline.engine.histogram_bytes()),
        |pipeline, encoder, buffer| {
            let bytes = pipeline.engine.histogram_bytes();
            encoder.copy_buffer_to_buffer(&pipeline.target.histogram, 0, buffer, 0, bytes);
        },
        |_, bytes, _| {
            histograms.push(histoplay::gpu::readback::words(bytes));
            Ok(())
        },
    )
    .unwrap();
    (histograms, transfers.read().in_place)
}

/// Software-decoded frames laid out straight in memory the GPU copies from (`DirectFrames`)
/// give the counts of frames whose rows the CPU writes into staging memory, frame for frame,
/// at 8 and 10 bits, 4:2:0 and 4:2:2, and a width whose rows are no multiple of 256 bytes.
#[test]
fn frames_copied_from_where_they_were_decoded_count_alike() {
    for (name, size, format) in [
        ("in-place-420.mp4", "322x180", "yuv420p"),
        ("in-place-422-10.mkv", "320x240", "yuv422p10le"),
    ] {
        let source = format!("testsrc2=size={size}:rate=30,format={format}");
        let clip = common::fixture(
            name,
            &[
                "-f",
                "lavfi",
                "-i",
                &source,
                "-frames:v",
                "40",
                "-c:v",
                "libx264",
                "-g",
                "12",
                "-bf",
                "2",
            ],
        );
        let (copied, none) = histograms_decoded(&clip, false);
        let (in_place, frames) = histograms_decoded(&clip, true);
        assert_eq!(copied.len(), 40, "{name}");
        assert_eq!(none, 0, "{name}: refused, yet frames went in place");
        assert_eq!(frames, 40, "{name}: every frame from where it was decoded");
        assert_eq!(in_place, copied, "{name}");
        // The clip moves: frames differ.
        assert_ne!(copied[0], copied[39], "{name}");
    }
}

/// `hist`'s line counts the R, G and B codes of `picture`'s `pixels` as FFmpeg decodes them.
fn assert_counts_ffmpegs_pixels(line: &serde_json::Value, picture: &std::path::Path, pixels: usize) {
    let rgb = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(picture)
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(rgb.len(), pixels * 3);
    for (c, name) in ["r", "g", "b"].iter().enumerate() {
        let mut expected = vec![0u64; 256];
        for pixel in rgb.chunks(3) {
            expected[pixel[c] as usize] += 1;
        }
        let counts: Vec<u64> = line[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(counts, expected, "{name}");
    }
}

/// A picture whose pixels the image crate refuses after its header (a PNG whose data's checksum
/// is wrong) is read by FFmpeg, which does not check it, with a warning: `hist`, `scope` and
/// `render` give the picture's own pixels, not an error.
#[test]
fn a_png_with_a_wrong_checksum_is_read_with_a_warning() {
    let good = common::fixture(
        "checksum-good.png",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=s=64x48",
            "-frames:v",
            "1",
            "-pix_fmt",
            "rgb24",
        ],
    );
    let mut png = std::fs::read(&good).unwrap();
    let idat = png.windows(4).position(|w| w == b"IDAT").expect("an IDAT chunk");
    let length = u32::from_be_bytes(png[idat - 4..idat].try_into().unwrap()) as usize;
    png[idat + 4 + length] ^= 0x5a;
    let bad = std::env::temp_dir().join(format!("histoplay-checksum-{}.png", std::process::id()));
    std::fs::write(&bad, &png).unwrap();
    assert!(
        histoplay::video::still::load(&bad).is_err(),
        "the image crate reads a PNG with a wrong checksum now"
    );
    let out = histoplay(&["hist", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("warning: ")
            && stderr.contains("its picture is read as FFmpeg reads it (")
            && stderr.contains("CRC"),
        "{stderr}"
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_counts_ffmpegs_pixels(&line, &good, 64 * 48);
    let scope = histoplay(&["scope", bad.to_str().unwrap(), "--cpu"]);
    assert!(scope.status.success(), "{}", String::from_utf8_lossy(&scope.stderr));
    let shot = bad.with_extension("render.png");
    let render = histoplay(&["render", bad.to_str().unwrap(), "-o", shot.to_str().unwrap()]);
    assert!(render.status.success(), "{}", String::from_utf8_lossy(&render.stderr));
    assert_eq!(image::image_dimensions(&shot).unwrap(), (64, 48));
    let _ = std::fs::remove_file(&bad);
    let _ = std::fs::remove_file(&shot);
}

/// A picture the image crate refuses (a lossless JPEG, as cameras' raw files and medical
/// imaging keep them) is read by FFmpeg: its histogram is its pixels', code for code.
#[test]
fn a_picture_the_image_crate_refuses_is_read_by_ffmpeg() {
    let jpeg = common::fixture(
        "lossless.jpg",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc=s=64x48",
            "-frames:v",
            "1",
            "-c:v",
            "ljpeg",
            "-pix_fmt",
            "bgr24",
        ],
    );
    assert!(
        histoplay::video::still::load(&jpeg).is_err(),
        "the image crate reads lossless JPEG now"
    );
    let out = histoplay(&["hist", jpeg.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_counts_ffmpegs_pixels(&line, &jpeg, 64 * 48);
    assert_eq!((line["width"].as_u64(), line["height"].as_u64()), (Some(64), Some(48)));
}

/// MPEG-TS seeks by timestamp alone and lands near the time asked, keyframe or not: the
/// preview decoder heads for the keyframe the index knows and passes over what comes before.
#[test]
fn a_keyframe_in_mpeg_ts_is_previewed_once_the_index_knows_it() {
    use histoplay::video::source::VideoSource;
    let [wide, _, _] = common::reshaped_ts();
    let mut source = VideoSource::open(&wide).unwrap();
    let mut keyframes = source.keyframe_decoder().expect("a software stream has one");
    let mut times = Vec::new();
    while let Some(frame) = source.next_frame().unwrap() {
        times.push(frame.pts);
    }
    source.index().wait_complete();
    let format = source.info.format;
    let previewed: Vec<Option<usize>> = [10, 24, 30, 40, 49]
        .into_iter()
        .map(|n| {
            let (pts, _) = keyframes.decode_at(times[n], &format)?;
            times.iter().position(|&t| t == pts)
        })
        .collect();
    assert_eq!(previewed, [Some(0), Some(0), Some(25), Some(25), Some(25)]);
}
