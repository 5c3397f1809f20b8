//! Every pixel format histoplay uploads natively (and one it converts), full and limited range,
//! and bad or odd input: each gives a correct result or one `error: ...` line, never a panic or
//! a hang.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn histoplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .expect("histoplay runs")
}

fn hist(path: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["hist", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    histoplay(&args)
}

fn assert_one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure; stderr {err}");
    assert_eq!(err.lines().count(), 1, "stderr: {err}");
    assert!(
        err.starts_with("error: ") && err.contains(needle),
        "stderr {err:?} lacks {needle:?}"
    );
}

/// A short colourful clip (FFmpeg's testsrc2) stored losslessly in `pix_fmt`.
fn format_clip(pix_fmt: &str, size: &str) -> PathBuf {
    common::fixture(
        &format!("testsrc2-{pix_fmt}-{size}.nut"),
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("testsrc2=s={size}:r=10:d=0.3"),
            "-pix_fmt",
            pix_fmt,
            "-c:v",
            "rawvideo",
        ],
    )
}

/// GPU and CPU reference agree exactly, frame by frame, and every frame is there.
fn assert_gpu_equals_cpu(path: &Path, frames: usize) {
    let gpu = hist(path, &["--frames", "0.."]);
    let cpu = hist(path, &["--frames", "0..", "--cpu"]);
    assert!(
        gpu.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&gpu.stderr)
    );
    assert!(
        cpu.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&cpu.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&gpu.stdout).lines().count(),
        frames,
        "{}",
        path.display()
    );
    assert!(
        gpu.stdout == cpu.stdout,
        "{}: GPU and CPU histograms differ",
        path.display()
    );
}

#[test]
fn every_native_pixel_format_counts_exactly() {
    for pix_fmt in [
        "yuv420p",
        "yuvj420p",
        "nv12",
        "p010le",
        "yuv422p",
        "yuv444p",
        "yuv420p10le",
        "yuv422p10le",
        "yuv444p10le",
        "yuv420p12le",
        "yuv422p12le",
        "yuv444p12le",
        "gray",
        "gray10le",
        "gray12le",
        "gbrp",
        "gbrp10le",
        "gbrp12le",
        "rgb24",
        "rgba",
        "bgra",
    ] {
        assert_gpu_equals_cpu(&format_clip(pix_fmt, "48x32"), 3);
    }
}

#[test]
fn other_pixel_formats_are_converted_once_per_stream() {
    // Not uploaded natively: swscale turns them into 4:4:4 or planar RGB at the nearest depth
    // at or above theirs (12 bits at most).
    for pix_fmt in ["yuv411p", "pal8", "rgb48le", "yuv444p16le", "gray16le", "p016le"] {
        assert_gpu_equals_cpu(&format_clip(pix_fmt, "48x32"), 3);
    }
}

#[test]
fn palette_video_counts_its_colours() {
    // Palette frames (QuickTime Animation at 8 bits, FLIC, PNG): each index is its palette's
    // colour, as FFmpeg's conversion to packed R'G'B' gives it (a lookup; its planar R'G'B'
    // goes through Y'CbCr).
    let clip = common::fixture(
        "palette.mov",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=10:d=0.1",
            "-pix_fmt",
            "pal8",
            "-c:v",
            "png",
        ],
    );
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i", clip.to_str().unwrap(), "-frames:v", "1"])
        .args(["-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let counts = |channel: usize| {
        let mut counts = vec![0u32; 256];
        out.stdout[channel..]
            .iter()
            .step_by(3)
            .for_each(|&c| counts[usize::from(c)] += 1);
        counts
    };
    let ours = hist(&clip, &["--frames", "0..1"]);
    assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    let line = String::from_utf8(ours.stdout).unwrap();
    assert_eq!(json_counts(&line, "r"), counts(0));
    assert_eq!(json_counts(&line, "g"), counts(1));
    assert_eq!(json_counts(&line, "b"), counts(2));
    assert_ne!(counts(0), counts(2), "a picture in colour");
}

/// `"key":value` of a JSON line, as a number.
fn json_number(line: &str, key: &str) -> u64 {
    use common::JsonExt;
    common::json(line)[key].u64()
}

/// The counts of channel `name` ("r", "g", "b" or "l") of a JSON line.
fn json_counts(line: &str, name: &str) -> Vec<u32> {
    use common::JsonExt;
    common::json(line)[name]
        .counts()
        .into_iter()
        .map(|c| c as u32)
        .collect()
}

/// A lossless FFV1 clip of one frame from raw samples (16-bit little-endian, plane after plane).
fn ffv1_from_raw(name: &str, pix_fmt: &str, size: (u32, u32), samples: &[u16], extra: &[&str]) -> PathBuf {
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let raw = dir.join(format!("{name}.raw"));
    let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(&raw, bytes).unwrap();
    let size = format!("{}x{}", size.0, size.1);
    let mut args = vec![
        "-f",
        "rawvideo",
        "-pix_fmt",
        pix_fmt,
        "-s",
        &size,
        "-i",
        raw.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-c:v", "ffv1"]);
    common::fixture(&format!("{name}.mkv"), &args)
}

/// Checks `hist --bins 1024` (GPU and CPU reference) of `path` against the counts of 10-bit
/// R, G, B samples worked out here.
fn assert_ten_bit_counts(path: &Path, rgb: &[[u32; 3]]) {
    let bins = 1024u64;
    let mut expected = vec![vec![0u32; 1024]; 4];
    for &[r, g, b] in rgb {
        for (ch, c) in [r, g, b].into_iter().enumerate() {
            expected[ch][(u64::from(c) * bins / 1023).min(bins - 1) as usize] += 1;
        }
        let y = 2126 * u64::from(r) + 7152 * u64::from(g) + 722 * u64::from(b);
        expected[3][(y * bins / (1023 * 10_000)).min(bins - 1) as usize] += 1;
    }
    for extra in [&[][..], &["--cpu"][..]] {
        let mut args = vec!["--bins", "1024"];
        args.extend_from_slice(extra);
        let out = hist(path, &args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let line = String::from_utf8(out.stdout).unwrap();
        assert_eq!(json_number(&line, "depth"), 10, "{extra:?}");
        for (ch, name) in ["r", "g", "b", "l"].into_iter().enumerate() {
            assert_eq!(json_counts(&line, name), expected[ch], "{name} {extra:?}");
        }
    }
}

#[test]
fn ten_bit_grey_counts_one_bin_per_code_value() {
    // Every 10-bit code twice, full range: with 1024 bins each bin holds exactly 2.
    let codes: Vec<u16> = (0..1024).chain((0..1024).rev()).collect();
    let path = ffv1_from_raw(
        "gray10-every-code",
        "gray10le",
        (1024, 2),
        &codes,
        &["-color_range", "pc"],
    );
    let rgb: Vec<[u32; 3]> = codes.iter().map(|&c| [u32::from(c); 3]).collect();
    assert_ten_bit_counts(&path, &rgb);
    let line = String::from_utf8(hist(&path, &["--bins", "1024"]).stdout).unwrap();
    assert!(json_counts(&line, "l").iter().all(|&n| n == 2), "{line}");
}

/// One frame of grey in `pix_fmt` holding every `bits`-bit code 4 times at shuffled places (and,
/// for grey with alpha, an alpha sample beside each), stored losslessly (FFV1 in Matroska where
/// FFV1 takes the format) and tagged `range` when given.
fn every_grey_code(pix_fmt: &str, bits: u32, alpha: bool, range: Option<&str>) -> PathBuf {
    let codes = 1u32 << bits;
    let (width, height) = (256u32, codes * 4 / 256);
    // A fixed shuffle (an LCG's order), so neighbours differ as noise does.
    let mut state = 12345u32;
    let mut samples: Vec<u32> = (0..codes * 4).map(|i| i % codes).collect();
    for i in (1..samples.len()).rev() {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        samples.swap(i, (state >> 8) as usize % (i + 1));
    }
    let mut bytes = Vec::new();
    for &v in &samples {
        let a = v ^ ((codes - 1) / 3);
        match (bits > 8, alpha) {
            (false, false) => bytes.push(v as u8),
            (false, true) => bytes.extend([v as u8, a as u8]),
            (true, false) => bytes.extend((v as u16).to_le_bytes()),
            (true, true) => bytes.extend([(v as u16).to_le_bytes(), (a as u16).to_le_bytes()].concat()),
        }
    }
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let tag = range.unwrap_or("untagged");
    let raw = dir.join(format!("grey-{pix_fmt}-{tag}.raw"));
    std::fs::write(&raw, bytes).unwrap();
    let size = format!("{width}x{height}");
    let mut args = vec!["-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", &size];
    if let Some(range) = range {
        args.extend(["-color_range", range]);
    }
    args.extend(["-i", raw.to_str().unwrap()]);
    // FFV1 takes neither gray14le nor grey with 16-bit alpha: raw in NUT, and a PNG (as
    // ya16be), which FFmpeg reads as histoplay does 16-bit grey pictures.
    let (codec, extension) = match pix_fmt {
        "gray14le" => ("rawvideo", "nut"),
        "ya16le" => ("png", "png"),
        _ => ("ffv1", "mkv"),
    };
    args.extend(["-c:v", codec]);
    common::fixture(&format!("grey-{pix_fmt}-{tag}.{extension}"), &args)
}

/// FFmpeg's own conversion of `path`'s first frame to planar R'G'B' at `bits` (gbrp or
/// gbrp10le): the count of each code of its G plane (R and B are the same for grey).
fn ffmpeg_rgb_counts(path: &Path, bits: u32) -> Vec<u32> {
    let pix_fmt = if bits == 8 { "gbrp" } else { "gbrp10le" };
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i", path.to_str().unwrap(), "-frames:v", "1"])
        .args(["-pix_fmt", pix_fmt, "-f", "rawvideo", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut counts = vec![0u32; 1 << bits];
    let plane = out.stdout.len() / 3;
    if bits == 8 {
        out.stdout[..plane].iter().for_each(|&c| counts[usize::from(c)] += 1);
    } else {
        for c in out.stdout[..plane].chunks_exact(2) {
            counts[usize::from(u16::from_le_bytes([c[0], c[1]]))] += 1;
        }
    }
    counts
}

#[test]
fn grey_of_every_depth_counts_as_ffmpeg_converts_it() {
    // Untagged grey is full range, as swscale takes it (a 10-bit frame fills one bin per code);
    // limited-range grey expands as swscale expands it. Depths beyond 10 bits round to 10, grey
    // with alpha counts its grey alone. At 1024 bins (256 for 8-bit sources) a bin is a code.
    let cases = [
        ("gray", 8, false, None),
        ("gray", 8, false, Some("tv")),
        ("ya8", 8, true, None),
        ("ya8", 8, true, Some("tv")),
        ("gray9le", 9, false, None),
        ("gray10le", 10, false, None),
        ("gray10le", 10, false, Some("pc")),
        ("gray10le", 10, false, Some("tv")),
        ("gray12le", 12, false, None),
        ("gray12le", 12, false, Some("tv")),
        ("gray14le", 14, false, None),
        ("gray16le", 16, false, None),
        ("gray16le", 16, false, Some("tv")),
        ("ya16le", 16, true, None),
    ];
    for (pix_fmt, bits, alpha, range) in cases {
        let path = every_grey_code(pix_fmt, bits, alpha, range);
        let out_bits = if bits == 8 { 8 } else { 10 };
        let expected = ffmpeg_rgb_counts(&path, out_bits);
        let bins = (1u32 << out_bits).to_string();
        for extra in [&[][..], &["--cpu"][..]] {
            let mut args = vec!["--bins", bins.as_str()];
            args.extend_from_slice(extra);
            let out = hist(&path, &args);
            let what = format!("{pix_fmt} {range:?} {extra:?}");
            assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
            let line = String::from_utf8(out.stdout).unwrap();
            assert_eq!(json_number(&line, "depth"), u64::from(out_bits), "{what}");
            for name in ["r", "g", "b", "l"] {
                assert_eq!(json_counts(&line, name), expected, "{what}: {name}");
            }
        }
    }
    // The case this began with: every untagged 10-bit code in a bin of its own.
    let path = every_grey_code("gray10le", 10, false, None);
    let line = String::from_utf8(hist(&path, &["--bins", "1024"]).stdout).unwrap();
    assert!(json_counts(&line, "l").iter().all(|&n| n == 4), "{line}");
}

#[test]
fn ten_and_twelve_bit_rgb_count_exactly() {
    let (width, height) = (256u32, 4u32);
    let pixels = (width * height) as usize;
    // Planes G, B, R as gbrp orders them: ramps, a spread and a few extremes.
    let g: Vec<u16> = (0..pixels).map(|i| (i % 1024) as u16).collect();
    let b: Vec<u16> = (0..pixels).map(|i| (1023 - (i * 7) % 1024) as u16).collect();
    let r: Vec<u16> = (0..pixels).map(|i| ((i * 389 + 11) % 1024) as u16).collect();
    let planes: Vec<u16> = [&g, &b, &r].into_iter().flatten().copied().collect();
    let path = ffv1_from_raw("gbrp10-spread", "gbrp10le", (width, height), &planes, &[]);
    let rgb: Vec<[u32; 3]> = (0..pixels).map(|i| [r[i], g[i], b[i]].map(u32::from)).collect();
    assert_ten_bit_counts(&path, &rgb);

    // 12 bits are rounded to 10: (c + 2) / 4, at most 1023.
    let twelve: Vec<u16> = planes.iter().map(|&c| c * 4 + (c % 4)).collect();
    let path = ffv1_from_raw("gbrp12-spread", "gbrp12le", (width, height), &twelve, &[]);
    let round = |c: u16| ((u32::from(c) + 2) / 4).min(1023);
    let rgb: Vec<[u32; 3]> = (0..pixels)
        .map(|i| [twelve[2 * pixels + i], twelve[i], twelve[pixels + i]].map(round))
        .collect();
    assert_ten_bit_counts(&path, &rgb);
}

#[test]
fn eight_bit_sources_report_depth_eight() {
    let out = hist(&format_clip("yuv420p", "48x32"), &[]);
    assert!(out.status.success());
    assert_eq!(json_number(&String::from_utf8_lossy(&out.stdout), "depth"), 8);
}

#[test]
fn odd_and_tiny_sizes() {
    assert_gpu_equals_cpu(&format_clip("yuv420p", "33x17"), 3);
    let one = common::fixture(
        "one-pixel.nut",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=16x16:r=10:d=0.3,scale=1:1",
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "rawvideo",
        ],
    );
    assert_gpu_equals_cpu(&one, 3);
    assert_gpu_equals_cpu(&format_clip("nv12", "3x5"), 3);
}

/// A flat frame of luma `y` in the given range, as one JSON line; returns its grey level.
fn flat_grey(range: &str, y: u8) -> u8 {
    // Matroska keeps the range tag (FFV1 is lossless).
    let path = common::fixture(
        &format!("flat-{range}-{y}.mkv"),
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("color=c=black:s=16x16:r=1:d=1,format=yuv420p,geq=lum={y}:cb=128:cr=128"),
            "-c:v",
            "ffv1",
            "-color_range",
            range,
        ],
    );
    let out = hist(&path, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8(out.stdout).unwrap();
    let counts = json_counts(&line, "r");
    counts.iter().position(|&c| c == 256).expect("a flat frame") as u8
}

#[test]
fn full_and_limited_range() {
    // Limited: 16 is black and 235 white; full: 0 and 255.
    assert_eq!(flat_grey("tv", 16), 0);
    assert_eq!(flat_grey("tv", 235), 255);
    assert_eq!(flat_grey("tv", 126), 128); // (126 - 16) * 255 / 219 = 128.08
    assert_eq!(flat_grey("pc", 0), 0);
    assert_eq!(flat_grey("pc", 255), 255);
    assert_eq!(flat_grey("pc", 126), 126);
}

#[test]
fn missing_directory_empty_and_not_media() {
    assert_one_line_error(&histoplay(&["hist", "/no/such/clip.mp4"]), "No such file");
    assert_one_line_error(&histoplay(&["hist", "/tmp"]), "is a directory");
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.mp4");
    std::fs::write(&empty, b"").unwrap();
    assert_one_line_error(&hist(&empty, &[]), "histoplay can read (it is empty)");
    // FFmpeg's own reason follows its error code's.
    let text = dir.join("not-media.mp4");
    std::fs::write(&text, "just some text, not a video\n".repeat(100)).unwrap();
    assert_one_line_error(
        &hist(&text, &[]),
        "histoplay can read (Invalid data found when processing input: moov atom not found)",
    );
    let raw = dir.join("raw-without-size.bin");
    std::fs::write(&raw, [0u8; 4096]).unwrap();
    assert_one_line_error(
        &histoplay(&["hist", raw.to_str().unwrap(), "--input-format", "rawvideo"]),
        "Invalid argument: Picture size 0x0 is invalid",
    );
}

#[test]
fn audio_only() {
    let audio = common::fixture("tone.wav", &["-f", "lavfi", "-i", "sine=d=0.5"]);
    assert_one_line_error(&hist(&audio, &[]), "has no video stream");
    // `report` reports a file of sound alone's sound, and says what is of pictures.
    let path = audio.to_str().unwrap();
    let report = histoplay(&["report", path, "--events", "--format", "json"]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert_eq!(String::from_utf8_lossy(&report.stdout).lines().count(), 5);
    let report = histoplay(&["report", path, "--pse"]);
    assert_one_line_error(&report, "has no video stream: --pse is for video");
    let loudness = histoplay(&["loudness", path]);
    assert!(
        loudness.status.success(),
        "{}",
        String::from_utf8_lossy(&loudness.stderr)
    );
    // The window has no picture to play in a file of sound alone, nor in a song whose one
    // picture is its cover: it says so before it opens.
    assert_one_line_error(&histoplay(&[path]), "has no video stream");
    let song = common::song_with_cover();
    let out = histoplay(&[song.to_str().unwrap()]);
    assert_one_line_error(
        &out,
        "has no video stream: its one picture is its cover (an attached picture)",
    );
}

#[test]
fn unsupported_codec() {
    // A video stream whose codec tag nothing decodes.
    let clip = format_clip("yuv420p", "48x32");
    let path = common::repo_path("target/fixtures/unknown-codec.avi");
    if !path.exists() {
        let out = Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-i"])
            .arg(&clip)
            .args(["-c:v", "rawvideo", "-vtag", "QQQQ", "-f", "avi"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // Make the stream's codec unknowable: rawvideo keyed by the tag, with a bogus compression.
        let mut bytes = std::fs::read(&path).unwrap();
        let strf = bytes.windows(4).position(|w| w == b"strf").unwrap();
        // BITMAPINFOHEADER.biCompression sits 16 bytes into the strf payload (after 8 bytes of header).
        bytes[strf + 8 + 16..strf + 8 + 20].copy_from_slice(b"QQQQ");
        std::fs::write(&path, bytes).unwrap();
    }
    let out = hist(&path, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a stream nothing decodes was accepted");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
}

/// 90 frames of 30 fps H.264 in an MP4 whose index comes first, with x264's `extra` options.
fn ramp_faststart(name: &str, extra: &[&str]) -> PathBuf {
    let source = ["-f", "lavfi", "-i", "testsrc2=s=64x48:r=30:d=3", "-c:v", "libx264"];
    let rest = ["-g", "15", "-pix_fmt", "yuv420p", "-movflags", "+faststart"];
    common::fixture(name, &[&source[..], extra, &rest[..]].concat())
}

#[test]
fn truncated_file_gives_the_frames_it_has() {
    let clip = ramp_faststart("ramp-faststart.mp4", &[]);
    let bytes = std::fs::read(&clip).unwrap();
    let cut = common::repo_path("target/fixtures/truncated.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).unwrap();
    let out = hist(&cut, &["--frames", "0.."]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let frames = String::from_utf8_lossy(&out.stdout).lines().count();
    assert!(
        (20..90).contains(&frames),
        "{frames} frames from the first 60% of a 90-frame clip"
    );
    // Its index lists 90 frames: the shortfall is said, with the frames that are there.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the file ends early: ") && stderr.contains(" of the 90 frames its container lists are in it"),
        "{stderr}"
    );
    // The whole file says nothing of the kind.
    let whole = hist(&clip, &["--frames", "0.."]);
    assert!(!String::from_utf8_lossy(&whole.stderr).contains("ends early"));
}

#[test]
fn a_truncated_matroska_or_webm_file_says_where_its_video_stops() {
    // 90 frames at 30 fps, the sound a second longer (the segment's duration is the longer).
    let source = [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=64x48:r=30:d=3",
        "-f",
        "lavfi",
        "-i",
        "sine=d=4",
    ];
    let mkv = common::fixture(
        "ramp-sound.mkv",
        &[&source[..], &["-c:v", "libx264", "-g", "15"]].concat(),
    );
    let webm = common::fixture(
        "ramp-sound.webm",
        &[&source[..], &["-c:v", "libvpx", "-g", "15"]].concat(),
    );
    for clip in [mkv, webm] {
        let whole = hist(&clip, &["--frames", "0.."]);
        assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
        assert_eq!(String::from_utf8_lossy(&whole.stdout).lines().count(), 90);
        assert!(
            !String::from_utf8_lossy(&whole.stderr).contains("ends early"),
            "{}",
            clip.display()
        );
        // The video's stated 3 s (3.007 in WebM) against the packets there, at 30 fps (the
        // last of them, cut through, may not decode).
        let (frames, stop) = read_cut_in_half(&clip, "3.0");
        assert!(
            (10..80).contains(&frames),
            "{frames} frames from half of {}",
            clip.display()
        );
        assert!(
            (0.0..0.2).contains(&(stop - frames as f64 / 30.0)),
            "{stop} s, {frames} frames"
        );
    }
}

/// `clip`'s first half (beside it in the fixtures) read to its end by `hist`: the frames read,
/// and where the warning says its video stops, of the `stated` seconds (as printed) its
/// container states.
fn read_cut_in_half(clip: &Path, stated: &str) -> (usize, f64) {
    let bytes = std::fs::read(clip).unwrap();
    let name = format!("truncated-{}", clip.file_name().unwrap().to_str().unwrap());
    let cut = common::repo_path(&format!("target/fixtures/{name}"));
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = hist(&cut, &["--frames", "0.."]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let frames = String::from_utf8_lossy(&out.stdout).lines().count();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stop: f64 = stderr
        .split("the file ends early: its video stops at ")
        .nth(1)
        .and_then(|rest| rest.split(&format!(" s of the {stated}")).next())
        .unwrap_or_else(|| panic!("{stderr}"))
        .parse()
        .unwrap();
    (frames, stop)
}

#[test]
fn a_matroska_video_that_starts_late_is_not_taken_for_one_cut_short() {
    // FFmpeg's muxer states where the stream ends (4.5 s), not how long it is (3 s).
    let clip = common::fixture(
        "late-start.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=30:d=3",
            "-c:v",
            "libx264",
            "-g",
            "15",
            "-output_ts_offset",
            "1.5",
        ],
    );
    let out = hist(&clip, &["--frames", "0.."]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 90);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("ends early"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Cut short, it says so, where it stops on the stream's own clock.
    let (frames, stop) = read_cut_in_half(&clip, "4.5");
    assert!(
        (0.0..0.2).contains(&(stop - 1.5 - frames as f64 / 30.0)),
        "{stop} s, {frames} frames"
    );
}

#[test]
fn corruption_in_the_middle_is_skipped_with_a_warning() {
    let clip = common::fixture(
        "ramp.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=30:d=3",
            "-c:v",
            "libx264",
            "-g",
            "15",
            "-bf",
            "2",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "mpegts",
        ],
    );
    let mut bytes = std::fs::read(&clip).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 3000] {
        *b = 0xA5;
    }
    let damaged = common::repo_path("target/fixtures/damaged.ts");
    std::fs::write(&damaged, &bytes).unwrap();
    let out = hist(&damaged, &["--frames", "0.."]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let frames = text.lines().count();
    assert!(
        (60..=90).contains(&frames),
        "{frames} good frames of 90 around the damage"
    );
    // The last frame is past the damage.
    assert!(
        text.lines().last().unwrap().starts_with("{\"frame\":8"),
        "{}",
        text.lines().last().unwrap()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warn") || err.contains("damaged"),
        "no warning about the damage: {err}"
    );
}

/// The frame numbers of `hist`'s JSON lines, in the order written.
fn frame_numbers(out: &Output) -> Vec<u64> {
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().map(|line| json_number(line, "frame")).collect()
}

/// The frames a "damaged video" warning says are missing.
fn said_missing(stderr: &str) -> Vec<u64> {
    let mut missing = Vec::new();
    for line in stderr.lines() {
        let Some(said) = line.split("playing on: ").nth(1) else {
            continue;
        };
        let words: Vec<&str> = said.split(' ').collect();
        match words.as_slice() {
            ["frame", n, "is", "missing"] => missing.push(n.parse().unwrap()),
            ["frames", a, "to", b, "are", "missing"] => {
                missing.extend(a.parse::<u64>().unwrap()..=b.parse().unwrap());
            }
            _ => {}
        }
    }
    missing
}

#[test]
fn frames_a_damaged_stream_gives_out_late_are_found_and_never_called_missing() {
    // Damage in the middle of an H.264 stream with B-frames costs FFmpeg's decoder its
    // reordering: it gives some frames out after later ones (as ffprobe shows them).
    let clip = common::fixture(
        "late.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=30:d=4",
            "-c:v",
            "libx264",
            "-g",
            "30",
            "-bf",
            "3",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "mpegts",
        ],
    );
    let mut bytes = std::fs::read(&clip).unwrap();
    let start = bytes.len() * 6 / 10 / 188 * 188;
    bytes[start..start + 150 * 188].fill(0);
    let damaged = common::repo_path("target/fixtures/late_damaged.ts");
    std::fs::write(&damaged, &bytes).unwrap();

    let all = hist(&damaged, &["--frames", "0..", "--cpu"]);
    assert!(all.status.success(), "{}", String::from_utf8_lossy(&all.stderr));
    let given = frame_numbers(&all);
    let late: Vec<u64> = (1..given.len())
        .filter(|&i| given[..i].iter().any(|&before| before > given[i]))
        .map(|i| given[i])
        .collect();
    assert!(!late.is_empty(), "the decoder gave every frame in order: {given:?}");
    // Every warning of missing frames names frames never given out, and names them once the
    // decoder has had its chance to give them late.
    let err = String::from_utf8_lossy(&all.stderr);
    let missing = said_missing(&err);
    assert!(!missing.is_empty(), "no frame said missing: {err}");
    for n in &missing {
        assert!(!given.contains(n), "frame {n} was given out, yet said missing: {err}");
    }
    let highest = *given.iter().max().unwrap();
    let lost: Vec<u64> = (0..highest).filter(|n| !given.contains(n)).collect();
    assert_eq!(missing, lost[..missing.len()], "{err}");

    // Each frame given out late is found alone, on both paths (its picture may differ from the
    // whole pass's: what the decoder conceals the damage with depends on where it started) ...
    for &n in &late {
        for path in [&["--cpu"][..], &[]] {
            let n_text = n.to_string();
            let args = [&["--frame", &n_text][..], path].concat();
            let one = hist(&damaged, &args);
            assert!(
                one.status.success(),
                "frame {n}: {}",
                String::from_utf8_lossy(&one.stderr)
            );
            assert_eq!(frame_numbers(&one), [n], "{args:?}");
        }
    }
    // ... and in a range, in order.
    let (first, last) = (*late.iter().min().unwrap(), *late.iter().max().unwrap());
    let range = hist(&damaged, &["--frames", &format!("{first}..={last}"), "--cpu"]);
    let in_range: Vec<u64> = (first..=last).filter(|n| given.contains(n)).collect();
    assert_eq!(frame_numbers(&range), in_range);
    // A frame lost is said so in one line.
    let out = hist(&damaged, &["--frame", &lost[lost.len() - 1].to_string(), "--cpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(
        err.lines().last().unwrap(),
        format!(
            "error: '{}': frame {} could not be decoded (its picture is damaged or lost)",
            damaged.display(),
            lost[lost.len() - 1]
        )
    );
}

#[test]
fn frames_lost_from_a_transport_stream_are_warned_of_where_its_timestamps_skip_them() {
    // Frames 40 and 41 of 75 gone from a 25 fps transport stream with B-frames and sound, as
    // a damaged recording loses them: the frames left decode whole, only their times show it.
    let clip = common::fixture(
        "lost_frames.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=3",
            "-f",
            "lavfi",
            "-i",
            "sine=f=440:r=48000:d=3",
            "-vf",
            "select='not(between(n\\,40\\,41))'",
            "-fps_mode",
            "passthrough",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-bf",
            "2",
            "-c:a",
            "aac",
            "-f",
            "mpegts",
        ],
    );
    let out = hist(&clip, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(frame_numbers(&out), (0..73).collect::<Vec<u64>>());
    // The times said are the stream's, as hist prints them: frames 39 and 40 (the source's 39
    // and 42) 0.12 s apart (FFmpeg's muxer starts the stream at 1.48 s).
    let pts: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| common::json(l)["pts"].as_f64().unwrap())
        .collect();
    assert_eq!((pts[39] * 100.0).round(), 304.0);
    assert_eq!((pts[40] * 100.0).round(), 316.0);
    let err = String::from_utf8_lossy(&out.stderr);
    let warned: Vec<&str> = err.lines().filter(|l| l.contains("lost from the stream")).collect();
    assert_eq!(
        warned,
        [format!(
            "warning: {}: 2 frames lost from the stream where its decode times skip from 3.040 to 3.160 s; frame numbers count the frames that are there",
            clip.display()
        )],
        "{err}"
    );
    // Read live from a pipe (once, by its decoder, without an index): the same warning.
    let piped = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["hist", "-", "--frames", "0..", "--bins", "16"])
        .stdin(std::fs::File::open(&clip).unwrap())
        .output()
        .unwrap();
    assert!(piped.status.success(), "{}", String::from_utf8_lossy(&piped.stderr));
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(
        err.lines().any(|l| l == "warning: -: 2 frames lost from the stream where its decode times skip from 3.040 to 3.160 s; frame numbers count the frames that are there"),
        "{err}"
    );
    // The same stream whole, and two copies of it joined end to end (its clock starting over
    // between them), lose nothing.
    let whole = common::fixture(
        "lost_none.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=3",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-bf",
            "2",
            "-f",
            "mpegts",
        ],
    );
    let joined = common::joined_file("lost_none_joined.ts", &[&whole, &whole]);
    for path in [&whole, &joined] {
        let out = hist(path, &["--frames", "0..", "--cpu", "--bins", "16"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("lost from the stream"), "{}: {err}", path.display());
    }
}

#[test]
fn frames_a_matroska_file_lost_to_damage_are_warned_of() {
    // A cluster of 100 frames of 25 fps Matroska (B-frames, a cluster a second) damaged: the
    // demuxer skips to the next cluster it can read, and the frames left decode whole. They
    // are the frames ffprobe finds, and the warnings count the rest.
    let (clip, damaged) = common::matroska_missing_a_cluster();
    let found = common::ffprobe_entries(&damaged, "frame=pts_time").len() as u64;
    assert!((40..95).contains(&found), "ffprobe finds {found} frames");
    let out = hist(&damaged, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(frame_numbers(&out), (0..found).collect::<Vec<u64>>());
    let err = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("warning: {}: ", damaged.display());
    let lost: u64 = err
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter(|l| l.contains(" lost from the stream where its decode times skip from "))
        .map(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(lost, 100 - found, "{err}");
    // The file whole loses nothing.
    let out = hist(&clip, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert_eq!(frame_numbers(&out).len(), 100);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("lost from the stream"), "{err}");
}

#[test]
fn frames_lost_to_damage_early_in_a_matroska_file_are_warned_of_with_the_damage() {
    // 50 frames of 25 fps FFV1, a cluster each 200 ms; the third cluster's header zeroed, 0.4 s
    // in, before the picture's cadence could be learnt from its steps: the demuxer's own
    // error tells of the damage, and the step past it is judged by the frames' duration.
    let clip = common::fixture(
        "clusters-200ms.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=2",
            "-c:v",
            "ffv1",
            "-cluster_time_limit",
            "200",
        ],
    );
    let mut bytes = std::fs::read(&clip).unwrap();
    let clusters = common::matroska_clusters(&bytes);
    assert!(clusters.len() >= 5, "{} clusters", clusters.len());
    bytes[clusters[2] + 2..clusters[2] + 66].fill(0);
    let damaged = common::repo_path(&format!("target/fixtures/clusters-damaged-{}.mkv", std::process::id()));
    std::fs::write(&damaged, &bytes).unwrap();
    // FFmpeg's packets of the damaged file, in ms: where they skip, and how far.
    let pts: Vec<u64> = common::ffprobe_entries(&damaged, "packet=pts")
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    let skips: Vec<(u64, u64)> = pts
        .windows(2)
        .filter(|w| w[1] - w[0] > 40)
        .map(|w| (w[0], w[1]))
        .collect();
    assert_eq!(skips.len(), 1, "{pts:?}");
    let (from, to) = skips[0];
    assert!(from < 16 * 40, "the damage is {from} ms in");
    let out = hist(&damaged, &["--frames", "0..", "--cpu", "--bins", "16"]);
    let _ = std::fs::remove_file(&damaged);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(frame_numbers(&out).len(), pts.len());
    let err = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("warning: {}: ", damaged.display());
    let said: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix(&prefix)).collect();
    let lost = format!(
        "{} frames lost from the stream where its decode times skip from {:.3} to {:.3} s",
        (to - from) / 40 - 1,
        from as f64 / 1000.0,
        to as f64 / 1000.0
    );
    assert!(said.iter().any(|l| l.starts_with(&lost)), "{err}");
    assert!(
        said.iter().any(|l| l.starts_with("damaged file, reading on: ")),
        "{err}"
    );
    assert_eq!(50 - pts.len() as u64, (to - from) / 40 - 1);
    // The file whole says nothing.
    let out = hist(&clip, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert_eq!(frame_numbers(&out).len(), 50);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn frames_at_the_end_that_never_decode_are_warned_of() {
    // An MP4 whose index lists 90 frames, cut inside its last packet: the frames that do not
    // decode at the end are said missing, and every other frame comes out.
    // Without B-frames the last packet is the last frame's, which nothing after it shows
    // missing.
    let clip = ramp_faststart("ramp-faststart-no-b.mp4", &["-bf", "0"]);
    let bytes = std::fs::read(&clip).unwrap();
    let last = common::ffprobe_entries(&clip, "packet=size");
    let last: usize = last.last().unwrap().parse().unwrap();
    let cut = common::repo_path(&format!("target/fixtures/cut-in-last-frame-{}.mp4", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() - last / 2]).unwrap();
    let out = hist(&cut, &["--frames", "0..", "--cpu", "--bins", "16"]);
    let _ = std::fs::remove_file(&cut);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let given = frame_numbers(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        given.len() < 90,
        "{} frames from a file cut inside its last",
        given.len()
    );
    assert!(!given.contains(&89));
    let mut all: Vec<u64> = given.iter().copied().chain(said_missing(&err)).collect();
    all.sort();
    assert_eq!(all, (0..90).collect::<Vec<u64>>(), "{err}");
}

#[test]
fn variable_frame_rate() {
    // Growing gaps between frames. Numbers are presentation ranks; pts are what FFmpeg reads.
    let clip = common::fixture(
        "vfr.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=32x32:r=25:d=1",
            "-vf",
            "settb=1/1000,setpts=5*N*N",
            "-fps_mode",
            "vfr",
            "-c:v",
            "ffv1",
        ],
    );
    let expected: Vec<f64> = common::ffprobe_entries(&clip, "frame=pts_time")
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    let gaps: Vec<f64> = expected.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter().any(|g| (g - gaps[0]).abs() > 0.01),
        "the fixture is not variable-rate: {expected:?}"
    );
    let out = hist(&clip, &["--frames", "0..", "--bins", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<(u64, f64)> = text
        .lines()
        .map(|l| {
            let v = common::json(l);
            (v["frame"].as_u64().unwrap(), v["pts"].as_f64().unwrap())
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for (n, ((frame, pts), want)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(*frame, n as u64);
        assert!((pts - want).abs() < 1e-6, "frame {n}: pts {pts}, FFmpeg says {want}");
    }
    let tenth = String::from_utf8(hist(&clip, &["--frame", "10", "--bins", "16"]).stdout).unwrap();
    assert!(
        tenth.starts_with(&format!("{{\"frame\":10,\"pts\":{},", expected[10])),
        "{tenth}"
    );
}

#[test]
fn frames_larger_than_the_gpu_allows_are_counted_on_the_cpu() {
    let max = common::gpu().max_texture_side();
    let width = max + 16;
    let wide = common::fixture(
        &format!("too-wide-{width}.nut"),
        &[
            "-f",
            "lavfi",
            "-i",
            &format!("color=c=gray:s={width}x2:r=1:d=1"),
            "-pix_fmt",
            "gray",
            "-c:v",
            "rawvideo",
        ],
    );
    let path = wide.to_str().unwrap();
    let warning =
        format!("warning: {width}x2 is larger than this GPU's largest texture ({max}x{max}): counted on the CPU");
    // Each command does on the CPU what `--cpu` does, and says so.
    for command in ["hist", "scope", "report", "pse"] {
        let gpu = histoplay(&[command, path]);
        let cpu = histoplay(&[command, path, "--cpu"]);
        assert!(
            gpu.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&gpu.stderr)
        );
        let said = String::from_utf8_lossy(&gpu.stderr);
        assert!(said.lines().any(|l| l == warning), "{command}: {said}");
        assert_eq!(gpu.stdout, cpu.stdout, "{command}");
    }
    // Mid-grey (128) in every pixel.
    let line = String::from_utf8(hist(&wide, &[]).stdout).unwrap();
    let mut grey = vec![0; 256];
    grey[128] = 2 * width;
    for channel in ["r", "g", "b", "l"] {
        assert_eq!(json_counts(&line, channel), grey, "{channel}");
    }
}

#[test]
fn a_signal_ends_a_command_waiting_for_a_fifos_writer() {
    let fifo = std::env::temp_dir().join(format!("histoplay-fifo-{}.ts", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let path = fifo.to_str().unwrap();
    for args in [vec!["hist", path], vec!["report", path], vec!["loudness", path]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Waiting, in the kernel, for a writer that never comes.
        let tasks = format!("/proc/{}/task", child.id());
        common::poll("the command waiting for the FIFO's writer", || {
            std::fs::read_dir(&tasks)
                .ok()?
                .flatten()
                .find(|task| std::fs::read_to_string(task.path().join("wchan")).is_ok_and(|w| w == "wait_for_partner"))
        });
        let killed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        common::poll("the command ending on SIGTERM", || child.try_wait().unwrap());
        let out = common::output_of(&mut child);
        // Ended by the signal itself, or as it asks (128 + 15).
        use std::os::unix::process::ExitStatusExt;
        let ended = out.status.code() == Some(143) || out.status.signal() == Some(15);
        assert!(ended, "{args:?}: {:?}", out.status);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    std::fs::remove_file(&fifo).unwrap();
}

#[test]
fn a_raw_stream_without_timestamps_gives_the_frames_asked_for_counted_from_its_start() {
    let ramp = common::grey_ramp();
    let raw = common::fixture(
        "ramp-raw.h264",
        &[
            "-i",
            ramp.to_str().unwrap(),
            "-c",
            "copy",
            "-bsf:v",
            "h264_mp4toannexb",
            "-f",
            "h264",
        ],
    );
    let json_lines = |out: Output| -> Vec<serde_json::Value> {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect()
    };
    let (r, m) = (raw.to_str().unwrap(), ramp.to_str().unwrap());
    for command in [&["hist", "--frames", "3..5"][..], &["scope", "--frames", "3..5"]] {
        for cpu in [false, true] {
            let run = |path: &str| {
                let mut args = vec![command[0], path];
                args.extend(&command[1..]);
                if cpu {
                    args.push("--cpu");
                }
                json_lines(histoplay(&args))
            };
            let (ours, timed) = (run(r), run(m));
            let frames: Vec<u64> = ours.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
            assert_eq!(frames, [3, 4], "{command:?} cpu {cpu}");
            // The same pictures as the file with timestamps gives (its times aside).
            for (a, b) in ours.iter().zip(&timed) {
                for key in ["r", "g", "b", "l", "counts"] {
                    assert_eq!(a.get(key), b.get(key), "{command:?} cpu {cpu}: {key}");
                }
            }
        }
    }
}

#[test]
fn frames_that_share_one_timestamp_are_told_apart_and_counted_from_the_start() {
    let ramp = common::grey_ramp();
    // Every packet at pts 0, as a broken muxer writes them.
    let flat = common::fixture(
        "ramp-one-time.mkv",
        &[
            "-i",
            ramp.to_str().unwrap(),
            "-c",
            "copy",
            "-bsf:v",
            "setts=pts=0:dts=0",
        ],
    );
    let (f, m) = (flat.to_str().unwrap(), ramp.to_str().unwrap());
    for cpu in [false, true] {
        let run = |path: &str| {
            let mut args = vec!["hist", path, "--frames", "3..6"];
            if cpu {
                args.push("--cpu");
            }
            histoplay(&args)
        };
        let (ours, timed) = (run(f), run(m));
        assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
        assert!(
            String::from_utf8_lossy(&ours.stderr).contains("frames share timestamps"),
            "{}",
            String::from_utf8_lossy(&ours.stderr)
        );
        let lines = |out: &Output| -> Vec<serde_json::Value> {
            String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect()
        };
        let (ours, timed) = (lines(&ours), lines(&timed));
        let frames: Vec<u64> = ours.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
        assert_eq!(frames, [3, 4, 5], "cpu {cpu}");
        // Each its own picture: the ramp's frames 3, 4 and 5, not frame 0 three times.
        for (a, b) in ours.iter().zip(&timed) {
            assert_eq!(a["l"], b["l"], "cpu {cpu}");
        }
        assert_ne!(ours[0]["l"], ours[1]["l"]);
    }
}

/// An MP4 of variable rate whose muxer rounded five frames' times to three (pts 5120 three
/// times, then 5121, 5122 and 5124, in an order B-frames shuffle): every frame is numbered once,
/// in the order the decoder gives them, each its own picture, whether the whole file is read or
/// one frame is asked for.
#[test]
fn frames_whose_times_a_muxer_rounded_together_are_each_numbered_once() {
    let clip = common::fixture(
        "rounded-times.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=10:d=2",
            "-vf",
            "setpts='if(lt(N,5),N*0.1,if(lt(N,10),0.5+(N-5)*0.02,0.6+(N-10)*0.3))/TB'",
            "-fps_mode",
            "passthrough",
            "-c:v",
            "libx264",
        ],
    );
    // The same pictures in the order FFmpeg decodes them, losslessly, at times of their own.
    let reference = common::fixture(
        "rounded-times-reference.mkv",
        &[
            "-i",
            clip.to_str().unwrap(),
            "-vf",
            "setpts=N/10/TB",
            "-r",
            "10",
            "-c:v",
            "ffv1",
        ],
    );
    let lines = |path: &Path, frames: &str| -> Vec<serde_json::Value> {
        let out = histoplay(&["hist", path.to_str().unwrap(), "--frames", frames]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect()
    };
    let (ours, theirs) = (lines(&clip, "0.."), lines(&reference, "0.."));
    let frames: Vec<u64> = ours.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, (0..20).collect::<Vec<_>>());
    let times: Vec<f64> = ours.iter().map(|l| l["pts"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    for (n, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        for key in ["r", "g", "b", "l"] {
            assert_eq!(a[key], b[key], "frame {n}: {key}");
        }
    }
    // Frames among the rounded ones, asked for one at a time.
    for n in 5..=10 {
        let one = lines(&clip, &format!("{n}..{}", n + 1));
        assert_eq!(one.len(), 1, "frame {n}");
        assert_eq!(one[0]["frame"], n, "frame {n}");
        assert_eq!(one[0]["l"], ours[n as usize]["l"], "frame {n}");
    }
}

/// MPEG-2 with B-frames in a program stream whose small pictures share PES packets: an I or P
/// picture that starts inside one has no pts of its own. Its frame is timed as FFmpeg times it
/// (the next anchor's dts), so the frames keep their numbers and a range is sought to.
#[test]
fn program_stream_anchors_without_a_pts_are_timed_as_ffmpeg_times_them() {
    let clip = common::fixture(
        "anchors-without-pts.mpg",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=4",
            "-c:v",
            "mpeg2video",
            "-bf",
            "2",
            "-g",
            "12",
        ],
    );
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v", "-show_entries"])
        .args(["packet=pts", "-of", "csv=p=0"])
        .arg(&clip)
        .output()
        .unwrap();
    let untimed = String::from_utf8_lossy(&probe.stdout)
        .lines()
        .filter(|l| l.starts_with("N/A"))
        .count();
    assert!(untimed > 5, "the fixture's anchors have no pts: {untimed}");
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v", "-show_entries"])
        .args(["frame=best_effort_timestamp", "-of", "csv=p=0"])
        .arg(&clip)
        .output()
        .unwrap();
    let times: Vec<f64> = String::from_utf8_lossy(&probe.stdout)
        .lines()
        .filter_map(|l| l.split(',').next()?.trim().parse::<i64>().ok())
        .map(|t| t as f64 / 90000.0)
        .collect();
    assert_eq!(times.len(), 100);
    let out = hist(&clip, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("timestamp"), "{err}");
    assert_eq!(frame_numbers(&out), (0..100).collect::<Vec<u64>>());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect();
    for (n, (line, time)) in lines.iter().zip(&times).enumerate() {
        assert!(
            (line["pts"].as_f64().unwrap() - time).abs() < 1e-6,
            "frame {n}: {line} against {time}"
        );
    }
    // A range sought to: the same pictures as the whole pass's.
    let range = hist(&clip, &["--frames", "61..64", "--cpu", "--bins", "16"]);
    assert!(range.status.success(), "{}", String::from_utf8_lossy(&range.stderr));
    let ranged: Vec<serde_json::Value> = String::from_utf8_lossy(&range.stdout)
        .lines()
        .map(common::json)
        .collect();
    assert_eq!(ranged.len(), 3);
    for (a, b) in ranged.iter().zip(&lines[61..64]) {
        assert_eq!(a, b);
    }
}

/// MPEG-4 part 2 with B-frames in AVI (DivX, Xvid): AVI gives its packets decode times only, so
/// every anchor comes without a pts. Each frame is numbered from 0 in presentation order, once.
#[test]
fn avi_mpeg4_with_b_frames_numbers_every_frame_once_from_zero() {
    let clip = common::mpeg4_b_frames_avi();
    let out = hist(&clip, &["--frames", "0..", "--cpu", "--bins", "16"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(frame_numbers(&out), (0..50).collect::<Vec<u64>>());
    let range = hist(&clip, &["--frames", "20..23", "--cpu", "--bins", "16"]);
    assert_eq!(frame_numbers(&range), [20, 21, 22]);
    let whole: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(
        std::str::from_utf8(&range.stdout).unwrap().lines().collect::<Vec<_>>(),
        whole[20..23]
    );
}

/// Frame `n` of `path` as FFmpeg decodes it, RGBA, and its red and green counts.
fn ffmpeg_rgba_counts(path: &Path, n: u64) -> (Vec<u64>, Vec<u64>) {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args(["-vf", &format!("select=eq(n\\,{n})"), "-frames:v", "1"])
        .args(["-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        .output()
        .unwrap();
    assert!(out.status.success() && !out.stdout.is_empty());
    let (mut r, mut g) = (vec![0u64; 256], vec![0u64; 256]);
    for pixel in out.stdout.chunks_exact(4) {
        r[pixel[0] as usize] += 1;
        g[pixel[1] as usize] += 1;
    }
    (r, g)
}

#[test]
fn animated_gif_and_png_are_counted_frame_by_frame_and_an_animated_webp_says_what_is_read() {
    let source = ["-f", "lavfi", "-i", "testsrc2=s=96x64:r=10:d=1.2"];
    let gif = common::fixture("moving.gif", &source);
    let png = common::fixture("moving.apng", &[&source[..], &["-plays", "0"]].concat());
    for path in [&gif, &png] {
        let out = histoplay(&["hist", path.to_str().unwrap(), "--frames", "0..20"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect();
        let frames: Vec<u64> = lines.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
        assert_eq!(frames, (0..12).collect::<Vec<_>>(), "{}", path.display());
        let (r, g) = ffmpeg_rgba_counts(path, 7);
        let counts = |key: &str| -> Vec<u64> {
            lines[7][key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect()
        };
        assert_eq!((counts("r"), counts("g")), (r, g), "{}", path.display());
    }
    let webp = common::fixture(
        "moving.webp",
        &[&source[..], &["-c:v", "libwebp", "-loop", "0"]].concat(),
    );
    let w = webp.to_str().unwrap();
    let out = histoplay(&["hist", w]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(
        warned.contains("an animated WebP: only its first picture is read"),
        "{warned}"
    );
    let out = histoplay(&["report", w]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        said.starts_with("error: ") && said.contains("an animated WebP"),
        "{said}"
    );
}

#[test]
fn an_mp4_whose_edit_list_starts_after_its_keyframe_numbers_its_frames_from_the_first_shown() {
    // Cut by stream copy at 0.5 s (frame 15): the GOP from frame 12 is kept, its frames before
    // 15 marked for the decoder to discard, as FFmpeg writes the edit list.
    let ramp = common::grey_ramp();
    let cut = common::fixture(
        "ramp-edit-list.mp4",
        &["-ss", "0.5", "-i", ramp.to_str().unwrap(), "-c", "copy"],
    );
    let probe = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_entries",
            "stream=nb_read_frames",
            "-of",
            "csv=p=0",
        ])
        .arg(&cut)
        .output()
        .unwrap();
    let count: u64 = String::from_utf8_lossy(&probe.stdout).trim().parse().unwrap();
    let lines = |path: &Path, range: &str| -> Vec<serde_json::Value> {
        let out = histoplay(&["hist", path.to_str().unwrap(), "--frames", range]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect()
    };
    let ours = lines(&cut, "0..");
    let frames: Vec<u64> = ours.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, (0..count).collect::<Vec<_>>());
    // Frame 0 is the ramp's frame 15, and a range sought into gives the same pictures.
    let source = lines(&ramp, "15..18");
    assert_eq!(ours[0]["l"], source[0]["l"]);
    let sought = lines(&cut, "1..3");
    assert_eq!((&sought[0]["l"], &sought[1]["l"]), (&source[1]["l"], &source[2]["l"]));
}

#[test]
fn a_picture_that_changes_size_mid_stream_is_counted_and_drawn_at_each_size() {
    // MPEG-TS pieces joined end to end, QCIF, then 720p, then QCIF again (whose untagged colour
    // its size implies: BT.601, then BT.709): each frame's histograms and waveform are those
    // of its piece by itself, on the GPU (its passes made again at each change) and the CPU.
    let piece = |size: &str| {
        common::fixture(
            &format!("size-piece-{size}.ts"),
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("testsrc2=s={size}:r=10:d=0.5"),
                "-pix_fmt",
                "yuv420p",
                "-c:v",
                "libx264",
                "-f",
                "mpegts",
            ],
        )
    };
    let pieces = [piece("176x144"), piece("1280x720"), piece("176x144")];
    let joined = common::joined_file("size-pieces.ts", &pieces.iter().collect::<Vec<_>>());
    let same = |a: &serde_json::Value, b: &serde_json::Value| {
        let keys = a
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !["frame", "pts"].contains(&k.as_str()));
        keys.into_iter().all(|k| a[k] == b[k])
    };
    // (Auto-levels smooth over frames, and start over at a change of size as at a piece's
    // start.)
    for command in [
        &["hist"][..],
        &["scope", "--kind", "waveform"],
        &["hist", "--auto-levels"],
    ] {
        let mut alone = Vec::new();
        for piece in &pieces {
            alone.extend(common::json_lines(&[command, &["--frames", "0.."]].concat(), piece));
        }
        assert_eq!(alone.len(), 15);
        for cpu in [&[][..], &["--cpu"]] {
            let args = [command, &["--frames", "0.."], cpu].concat();
            let lines = common::json_lines(&args, &joined);
            assert_eq!(lines.len(), alone.len(), "{args:?}");
            for (n, (line, theirs)) in lines.iter().zip(&alone).enumerate() {
                assert_eq!(line["frame"], n as u64, "{args:?}");
                assert!(same(line, theirs), "{args:?} frame {n}: {line} against {theirs}");
            }
            let sizes: Vec<_> = lines
                .iter()
                .map(|l| (l["width"].as_u64().unwrap(), l["height"].as_u64().unwrap()))
                .collect();
            assert_eq!(sizes[4..6], [(176, 144), (1280, 720)], "{args:?}");
            assert_eq!(sizes[9..11], [(1280, 720), (176, 144)], "{args:?}");
            if command == ["hist"] {
                let luma: u64 = lines[7]["l"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_u64().unwrap())
                    .sum();
                assert_eq!(luma, 1280 * 720);
            }
        }
    }
    let out = hist(&joined, &["--frames", "0.."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the picture changed mid-stream, 176x144 yuv420p to 1280x720 yuv420p"),
        "{err}"
    );
    let _ = std::fs::remove_file(&joined);
}

#[test]
fn a_frame_concealed_is_warned_of_on_every_decoding_with_frame_threads() {
    // A transport stream with 40 bytes spoiled inside a frame: FFmpeg's H.264 decoder conceals
    // the errors (every frame is still given out), and with frame threads may give the frame
    // out before marking it; its log says so each time, and each run warns once, marked or not.
    let clip = common::fixture(
        "concealed.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x180:r=25:d=2",
            "-c:v",
            "libx264",
            "-crf",
            "30",
            "-pix_fmt",
            "yuv420p",
            "-f",
            "mpegts",
        ],
    );
    let mut bytes = std::fs::read(&clip).unwrap();
    let at = bytes.len() * 2 / 5;
    for b in &mut bytes[at..at + 40] {
        *b = 0xff;
    }
    let damaged = common::repo_path("target/fixtures/concealed-damaged.ts");
    std::fs::write(&damaged, &bytes).unwrap();
    for run in 0..4 {
        let out = hist(&damaged, &["--frames", "0.."]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert_eq!(frame_numbers(&out), (0..50).collect::<Vec<_>>(), "{err}");
        let concealed: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("decoded with errors and concealed"))
            .collect();
        assert_eq!(concealed.len(), 1, "run {run}: {err}");
        assert!(
            concealed[0].starts_with(&format!("warning: {}: damaged video, playing on: ", damaged.display())),
            "{err}"
        );
    }
}

/// An FFV1 stream (version 1: no checksums) with 4000 bytes in its middle overwritten: FFmpeg's
/// decoder stops inside a damaged frame and leaves the rest of it as its buffer held it. The
/// frame is the same on every path and every run (the GPU's and the CPU's statistics, a file
/// compared with itself), not whichever other frame's pixels its buffer last held.
#[test]
fn a_damaged_ffv1_frame_is_the_same_every_time() {
    let clean = common::fixture(
        "ffv1-to-damage.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=160x120:d=2:r=10", "-c:v", "ffv1"],
    );
    let mut bytes = std::fs::read(&clean).unwrap();
    let at = bytes.len() / 2;
    let mut x = 1u64;
    for byte in &mut bytes[at..at + 4000] {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *byte = (x >> 33) as u8;
    }
    let damaged = std::env::temp_dir().join(format!("histoplay-damaged-ffv1-{}.mkv", std::process::id()));
    std::fs::write(&damaged, &bytes).unwrap();
    let path = damaged.to_str().unwrap();
    let report = |extra: &[&str]| {
        let mut args = vec!["report", path];
        args.extend_from_slice(extra);
        let out = histoplay(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let gpu = report(&[]);
    assert!(gpu.lines().count() >= 15, "{gpu}");
    assert_eq!(gpu, report(&["--cpu"]));
    assert_eq!(gpu, report(&[]));
    // Every pair of frames the same (the summary, on stderr, after the damage's warnings).
    let compared = histoplay(&["compare", path, path]);
    assert!(compared.status.success());
    let pairs = String::from_utf8_lossy(&compared.stdout);
    assert!(
        pairs.lines().count() >= 15 && pairs.lines().all(|l| l.contains("\"mse_avg\":0.0,")),
        "{pairs}"
    );
    let summary = String::from_utf8_lossy(&compared.stderr);
    assert!(
        summary
            .lines()
            .any(|l| l == "PSNR y:inf u:inf v:inf average:inf min:inf max:inf"),
        "{summary}"
    );
    let _ = std::fs::remove_file(&damaged);
}
