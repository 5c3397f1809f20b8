//! The command line as a user meets it: output formats, exit codes and one-line errors.

mod common;
mod window;

use std::process::{Command, Output};

fn histoplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .expect("histoplay runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Fails unless the command failed with exactly one `error: ...` line on stderr.
fn assert_one_line_error(out: &Output, needle: &str) {
    assert!(!out.status.success(), "expected failure, got {:?}", out.status);
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "stderr: {err}");
    assert!(err.starts_with("error: "), "stderr: {err}");
    assert!(err.contains(needle), "stderr {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "stderr: {err}");
}

/// A field of a JSON line, as JSON text.
fn field(json: &str, name: &str) -> String {
    common::json(json)[name].to_string()
}

fn counts(json: &str, name: &str) -> Vec<u64> {
    use common::JsonExt;
    common::json(json)[name].counts()
}

#[test]
fn an_option_before_a_command_is_said_to_belong_after_it() {
    let out = histoplay(&["-v", "report", "no-such-clip.mp4"]);
    assert_one_line_error(&out, "'report' is a command: give its options after it");
    assert_eq!(out.status.code(), Some(2));
    // Options after it are the command's.
    let out = histoplay(&["report", "--format", "csv", "no-such-clip.mp4"]);
    assert_one_line_error(&out, "cannot open 'no-such-clip.mp4'");
}

#[test]
fn hist_of_the_kitten_on_gpu_equals_cpu() {
    let kitten = common::repo_path("media/kitten.jpg");
    let kitten = kitten.to_str().unwrap();
    let gpu = histoplay(&["hist", kitten]);
    let cpu = histoplay(&["hist", kitten, "--cpu"]);
    assert!(gpu.status.success() && cpu.status.success(), "{}", stderr(&gpu));
    assert_eq!(stdout(&gpu), stdout(&cpu));
    let line = stdout(&gpu);
    assert_eq!(line.lines().count(), 1);
    assert_eq!(field(&line, "frame"), "0");
    assert_eq!(field(&line, "pts"), "0");
    assert_eq!(field(&line, "width"), "2448");
    assert_eq!(field(&line, "height"), "1505");
    assert_eq!(field(&line, "bins"), "256");
    for channel in ["r", "g", "b", "l"] {
        let c = counts(&line, channel);
        assert_eq!(c.len(), 256);
        assert_eq!(c.iter().sum::<u64>(), 2448 * 1505);
    }
}

#[test]
fn hist_counts_a_known_picture_exactly() {
    let dir = std::env::temp_dir().join(format!("histoplay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("two-colours.png");
    // 3 pure red pixels and 1 white one
    let rgba = [
        [255, 0, 0, 255],
        [255, 0, 0, 255],
        [255, 0, 0, 255],
        [255, 255, 255, 255],
    ]
    .concat();
    histoplay::video::still::save_image(&path, 2, 2, &rgba).unwrap();
    let out = histoplay(&["hist", path.to_str().unwrap(), "--bins", "16"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stdout(&out);
    let expect = |channel: &str, pairs: &[(usize, u64)]| {
        let mut v = vec![0u64; 16];
        for &(bin, n) in pairs {
            v[bin] = n;
        }
        assert_eq!(counts(&line, channel), v, "channel {channel}");
    };
    expect("r", &[(15, 4)]);
    expect("g", &[(0, 3), (15, 1)]);
    expect("b", &[(0, 3), (15, 1)]);
    expect("l", &[(3, 3), (15, 1)]); // red: floor(0.2126 * 16) = 3
    let csv = histoplay(&["hist", path.to_str().unwrap(), "--bins", "16", "--csv"]);
    let text = stdout(&csv);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("frame,pts,width,height,bins,r0,r1,"));
    assert!(lines.next().unwrap().starts_with("0,0,2,2,16,0,0,"));
    // A region's box follows the depth, and its counts are the JSON's.
    let region = ["hist", path.to_str().unwrap(), "--bins", "16", "--region", "1,0,1,2"];
    let json = stdout(&histoplay(&region));
    let text = stdout(&histoplay(&[&region[..], &["--csv"]].concat()));
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with(",l15,depth,region_x,region_y,region_w,region_h"));
    let row: Vec<u64> = lines.next().unwrap().split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(row[row.len() - 5..], [8, 1, 0, 1, 2]);
    let from_json: Vec<u64> = ["r", "g", "b", "l"].iter().flat_map(|c| counts(&json, c)).collect();
    assert_eq!(row[5..5 + 64], from_json[..]);
}

#[test]
fn render_writes_a_png_of_the_asked_size() {
    let out_path = std::env::temp_dir().join(format!("histoplay-render-{}.png", std::process::id()));
    let kitten = common::repo_path("media/kitten.jpg");
    let out = histoplay(&[
        "render",
        kitten.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
        "--size",
        "320x200",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let png = histoplay::video::still::load(&out_path).unwrap();
    assert_eq!((png.width, png.height), (320, 200));
}

#[test]
fn render_writes_jpeg_and_webp_by_the_name_and_a_failed_write_leaves_the_file_as_it_was() {
    let dir = std::env::temp_dir().join(format!("histoplay-render-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kitten = common::repo_path("media/kitten.jpg");
    let render = |name: &str| {
        let path = dir.join(name);
        let out = histoplay(&[
            "render",
            kitten.to_str().unwrap(),
            "-o",
            path.to_str().unwrap(),
            "--size",
            "320x200",
        ]);
        (out, path)
    };
    let (out, png) = render("frame.png");
    assert!(out.status.success(), "{}", stderr(&out));
    let png = histoplay::video::still::load(&png).unwrap();
    // WebP is written lossless: the PNG's pixels. JPEG (no alpha) gets the colour, near them.
    let (out, webp) = render("frame.webp");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(histoplay::video::still::load(&webp).unwrap().pixels, png.pixels);
    let (out, jpeg) = render("frame.jpg");
    assert!(out.status.success(), "{}", stderr(&out));
    let jpeg = histoplay::video::still::load(&jpeg).unwrap();
    assert_eq!((jpeg.width, jpeg.height), (320, 200));
    let mean_error = jpeg
        .pixels
        .iter()
        .zip(&png.pixels)
        .map(|(a, b)| a.abs_diff(*b) as f64)
        .sum::<f64>()
        / png.pixels.len() as f64;
    assert!(mean_error < 4.0, "{mean_error}");
    // A name of no image format: a one-line error, and the file there before untouched.
    let kept = dir.join("kept.xyz");
    std::fs::write(&kept, b"before").unwrap();
    let (out, _) = render("kept.xyz");
    assert_one_line_error(
        &out,
        "kept.xyz' can't be written: a picture's name ends with .png, .jpg, .webp, .tiff, .bmp or .gif",
    );
    assert_eq!(std::fs::read(&kept).unwrap(), b"before");
    // The input as the output: refused before the run, by render and timeline alike.
    let input = dir.join("in.jpg");
    std::fs::copy(&kitten, &input).unwrap();
    let original = std::fs::read(&input).unwrap();
    let path = input.to_str().unwrap();
    for command in ["render", "timeline"] {
        assert_one_line_error(&histoplay(&[command, path, "-o", path]), "is the input");
        assert!(
            std::fs::read(&input).unwrap() == original,
            "{command} changed its input"
        );
    }
    std::fs::remove_file(&input).unwrap();
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_log_that_cannot_be_written_is_a_one_line_error_naming_it_before_any_frame_is_measured() {
    let sample = common::repo_path("media/sample-540p.mp4");
    let sample = sample.to_str().unwrap();
    let out = histoplay(&["compare", sample, sample, "--vmaf-log", "/no/such/folder/vmaf.json"]);
    assert_one_line_error(
        &out,
        "cannot write VMAF's log '/no/such/folder/vmaf.json': there is no folder '/no/such/folder'",
    );
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    // A file the system keeps, which opens for writing but is written beside its name until
    // whole: where it would be written is what is tried.
    let out = histoplay(&["compare", sample, sample, "--vmaf-log", "/proc/version"]);
    assert_one_line_error(
        &out,
        "cannot write VMAF's log '/proc/version': no file can be made in '/proc' to write it into",
    );
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let out = histoplay(&[
        "report",
        sample,
        "--alert-log",
        "/no/such/folder/alerts.log",
        "--fail-on",
        "YMAX>300",
    ]);
    assert_one_line_error(
        &out,
        "cannot open the alert log '/no/such/folder/alerts.log': No such file or directory (os error 2)",
    );
    // The reason is said once.
    assert_eq!(stderr(&out).matches("No such file").count(), 1, "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
}

#[test]
fn the_largest_frame_numbers_are_ranges_to_the_end_and_past_it() {
    let clip = common::fixture(
        "five-frames.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=64x48:rate=10",
            "-frames:v",
            "5",
            "-c:v",
            "ffv1",
        ],
    );
    let clip = clip.to_str().unwrap();
    for range in [
        "0..18446744073709551615",
        "0..18446744073709551614",
        "0..=18446744073709551614",
    ] {
        let out = histoplay(&["hist", clip, "--frames", range]);
        assert!(out.status.success(), "{range}: {}", stderr(&out));
        assert_eq!(stdout(&out).lines().count(), 5, "{range}");
    }
    let out = histoplay(&["hist", clip, "--frame", "18446744073709551615"]);
    assert_one_line_error(&out, "is past the end");
    // The same in words from every command over a range.
    for command in ["report", "pse"] {
        let out = histoplay(&[command, clip, "--frames", "7..9"]);
        assert_one_line_error(&out, "frame 7 is past the end");
        assert!(stderr(&out).contains("has 5 frames"), "{command}: {}", stderr(&out));
    }
}

#[test]
fn missing_file() {
    assert_one_line_error(&histoplay(&["hist", "/no/such/file.png"]), "No such file");
}

#[test]
fn directory() {
    assert_one_line_error(&histoplay(&["hist", env!("CARGO_MANIFEST_DIR")]), "is a directory");
}

#[test]
fn empty_and_non_image_files() {
    let dir = std::env::temp_dir();
    let empty = dir.join(format!("histoplay-empty-{}.png", std::process::id()));
    std::fs::write(&empty, b"").unwrap();
    assert_one_line_error(&histoplay(&["hist", empty.to_str().unwrap()]), "histoplay can read");
    let text = dir.join(format!("histoplay-text-{}.jpg", std::process::id()));
    std::fs::write(&text, b"this is not a picture\n").unwrap();
    assert_one_line_error(
        &histoplay(&["render", text.to_str().unwrap(), "-o", "/tmp/x.png"]),
        "not an image",
    );
    let cargo_toml = common::repo_path("Cargo.toml");
    // FFmpeg reads some text as a subtitle format: then it is a file without video.
    assert_one_line_error(&histoplay(&["hist", cargo_toml.to_str().unwrap()]), "Cargo.toml");
}

/// An animated GIF cut short inside its first picture: no frame to number or decode, said as
/// such by `hist` (not "frame 0 is past the end" of a file of 0 frames), `report` and `pse`.
#[test]
fn a_file_cut_short_inside_its_first_picture_says_so() {
    let gif = common::fixture("cut-short.gif", &["-f", "lavfi", "-i", "testsrc2=s=96x64:r=10:d=1"]);
    let cut = std::env::temp_dir().join(format!("histoplay-cut-{}.gif", std::process::id()));
    std::fs::write(&cut, &std::fs::read(&gif).unwrap()[..800]).unwrap();
    let path = cut.to_str().unwrap();
    assert_one_line_error(
        &histoplay(&["hist", path, "--frames", "0.."]),
        "no frame of its video could be read (damaged, or cut short)",
    );
    assert_one_line_error(
        &histoplay(&["report", path]),
        "no frame of its video could be decoded (damaged, or cut short)",
    );
    assert_one_line_error(
        &histoplay(&["pse", path]),
        "no frame of its video could be decoded (damaged, or cut short)",
    );
    std::fs::remove_file(&cut).unwrap();
}

/// A JPEG cut short in its scan: said in one warning, and read as FFmpeg reads it (its missing
/// blocks made up as the window and `report` show them), so `hist` counts what the same
/// bitstream counts as a video's frame, not the image crate's own filling.
#[test]
fn a_jpeg_cut_short_is_read_as_ffmpeg_reads_it_with_a_warning() {
    let jpeg = common::fixture(
        "whole.jpg",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=96x64:r=1:d=1",
            "-frames:v",
            "1",
            "-q:v",
            "2",
        ],
    );
    let bytes = std::fs::read(&jpeg).unwrap();
    assert_eq!(
        bytes[bytes.len() - 2..],
        [0xff, 0xd9],
        "a whole JPEG ends with its end marker"
    );
    let dir = std::env::temp_dir();
    let cut = dir.join(format!("histoplay-cut-{}.jpg", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    // The same bytes as one frame of a video (stream copied into AVI).
    let video = dir.join(format!("histoplay-cut-{}.avi", std::process::id()));
    let copied = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-i"])
        .arg(&cut)
        .args(["-c", "copy"])
        .arg(&video)
        .status()
        .expect("ffmpeg runs");
    assert!(copied.success());
    let out = histoplay(&["hist", cut.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "stderr: {err}");
    assert!(
        err.starts_with("warning: ") && err.contains("the picture's data ends early"),
        "stderr: {err}"
    );
    let as_video = histoplay(&["hist", video.to_str().unwrap()]);
    assert!(as_video.status.success(), "{}", stderr(&as_video));
    let (still, frame) = (stdout(&out), stdout(&as_video));
    for channel in ["r", "g", "b", "l"] {
        let counted = counts(&still, channel);
        assert_eq!(counted.iter().sum::<u64>(), 96 * 64, "{channel}: every pixel counted");
        assert_eq!(counted, counts(&frame, channel), "{channel}: as FFmpeg decodes it");
    }
    // The whole picture reads here as before, without a word.
    let whole = histoplay(&["hist", jpeg.to_str().unwrap()]);
    assert!(whole.status.success() && whole.stderr.is_empty(), "{}", stderr(&whole));
    std::fs::remove_file(&cut).unwrap();
    std::fs::remove_file(&video).unwrap();
}

/// A copy of `file` in the temporary directory with the third byte of Matroska's codec name
/// `codec` changed, so that FFmpeg knows no such codec.
fn with_codec_name_damaged(file: &std::path::Path, codec: &[u8]) -> std::path::PathBuf {
    let mut bytes = std::fs::read(file).unwrap();
    let at = bytes.windows(codec.len()).position(|w| w == codec).unwrap();
    bytes[at + 2] = b'X';
    let name = file.file_name().unwrap().to_str().unwrap();
    let path = std::env::temp_dir().join(format!("histoplay-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_video_whose_codec_name_is_damaged_is_refused_in_words() {
    // Matroska's codec name for H.264 with a byte changed.
    let mkv = common::fixture(
        "codec-name.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=64x48:r=10:d=0.4", "-c:v", "libx264"],
    );
    let path = with_codec_name_damaged(&mkv, b"V_MPEG4/ISO/AVC");
    let name = path.to_str().unwrap();
    for args in [&["hist", name][..], &["report", name], &["pse", name]] {
        assert_one_line_error(
            &histoplay(args),
            "its video's codec is not one FFmpeg knows (an unknown or damaged codec name)",
        );
    }
    std::fs::remove_file(&path).unwrap();
    // The same of the sound's (FLAC's name damaged): `loudness` refuses it in words.
    let flac = common::fixture(
        "codec-name-sound.mkv",
        &["-f", "lavfi", "-i", "sine=d=0.4", "-c:a", "flac"],
    );
    let path = with_codec_name_damaged(&flac, b"A_FLAC");
    assert_one_line_error(
        &histoplay(&["loudness", path.to_str().unwrap()]),
        "its sound's codec is not one FFmpeg knows (an unknown or damaged codec name)",
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_picture_too_large_is_refused_from_its_header_before_it_is_decoded() {
    // A PNG whose header says 20000 x 20000 (its pixels never follow): refused by its size.
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        [
            &(data.len() as u32).to_be_bytes()[..],
            kind,
            data,
            &crc.sum().to_be_bytes(),
        ]
        .concat()
    };
    let header = [&20000u32.to_be_bytes()[..], &20000u32.to_be_bytes(), &[8, 2, 0, 0, 0]].concat();
    // (Its one IDAT chunk an empty zlib stream: a header is read up to its first.)
    let idat = chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    let png = [
        &b"\x89PNG\r\n\x1a\n"[..],
        &chunk(b"IHDR", &header),
        &idat,
        &chunk(b"IEND", b""),
    ]
    .concat();
    let path = std::env::temp_dir().join(format!("histoplay-huge-{}.png", std::process::id()));
    std::fs::write(&path, png).unwrap();
    for command in ["hist", "scope"] {
        let out = histoplay(&[command, path.to_str().unwrap()]);
        assert_one_line_error(
            &out,
            "is not an image histoplay can read: it is 20000x20000, more than the 268435456 pixels (16384x16384) a picture may have",
        );
    }
    // A GIF whose screen is 65535 x 65535 (a picture of 64 x 48 on it): its frames would be
    // made on a canvas of 17 GB.
    let gif = common::fixture(
        "small.gif",
        &["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1"],
    );
    let mut bytes = std::fs::read(gif).unwrap();
    bytes[6..10].copy_from_slice(&[0xff; 4]);
    let huge = std::env::temp_dir().join(format!("histoplay-huge-{}.gif", std::process::id()));
    std::fs::write(&huge, bytes).unwrap();
    for command in ["hist", "scope"] {
        let out = histoplay(&[command, huge.to_str().unwrap(), "--cpu"]);
        assert_one_line_error(
            &out,
            "is not an image histoplay can read: it is 65535x65535, more than the 268435456 pixels (16384x16384) a picture may have",
        );
    }
    std::fs::remove_file(huge).ok();
    std::fs::remove_file(path).ok();
}

#[test]
fn bad_bins_are_refused() {
    let out = histoplay(&["hist", "media/kitten.jpg", "--bins", "100"]);
    assert_one_line_error(&out, "power of two");
}

#[test]
fn command_line_mistakes_are_one_line() {
    let out = histoplay(&["hist", "media/kitten.jpg", "--hwdec", "bogus"]);
    assert_one_line_error(&out, "possible values: no, auto, yes, nvdec, vaapi");
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(
        &histoplay(&["hist", "media/kitten.jpg", "--frobnicate"]),
        "--frobnicate",
    );
    assert_one_line_error(&histoplay(&["hist"]), "<INPUT>");
    // Help still prints in full, and succeeds.
    let help = histoplay(&["hist", "--help"]);
    assert!(help.status.success());
    assert!(stdout(&help).lines().count() > 5, "{}", stdout(&help));
}

#[test]
fn no_gpu_adapter_says_how_to_get_one() {
    let kitten = common::repo_path("media/kitten.jpg");
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["hist", kitten.to_str().unwrap()])
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_ICD_FILENAMES", "/nonexistent.json")
        .env("VK_DRIVER_FILES", "/nonexistent.json")
        .output()
        .unwrap();
    assert_one_line_error(&out, "mesa-vulkan-drivers");
}

#[test]
fn bench_times_every_variant_after_checking_it() {
    let out = histoplay(&[
        "bench",
        "--size",
        "160x90",
        "--iters",
        "3",
        "--bins",
        "64",
        "--engine",
        "64/4/2/atomic",
        "--engine",
        "128/8/1/3",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("frame: 160x90 (14400 pixels), 64 bins, 3 iterations"),
        "{text}"
    );
    let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("variant")).skip(1).collect();
    let names = [
        "CPU single thread (reference)",
        "GPU single invocation",
        "GPU invocation per pixel, atomics",
        "GPU chunks + single-workgroup sum",
        "GPU chunks + reduce + scale (articles)",
        "histoplay: chunk + merge + scale, 1 dispatch",
        "histoplay: chunk + merge + scale, 1 dispatch (flat frame)",
        "histoplay: chunk + merge + scale, 1 dispatch (10-bit frame)",
        "histoplay from the planes: 4:2:0 8-bit",
        "  the same frame converted, 8-bit",
        "histoplay from the planes: 4:2:0 10-bit",
        "  the same frame converted, 10-bit",
        "scope: waveform, 1024 columns",
        "scope: parade, 1024 columns",
        "scope: vectorscope",
        "scope: cie 1931 xy, 256x256 cells",
        "scope: histograms + waveform + vectorscope",
        "adjust: contrast, brightness, gamma, saturation",
        "adjust: auto-levels",
        "adjust: equalisation",
        "conversion: 4:2:0 to RGBA8",
        "LUT: 33³ in the conversion, tetrahedral",
        "LUT: 65³ in the conversion, tetrahedral",
        "LUT pass: 33³ 3D table, tetrahedral",
        "LUT pass: 65³ 3D table, tetrahedral",
        "Log view: S-Log3 to BT.709, per pixel",
        "compare: PSNR + SSIM of a frame pair, Y'CbCr 4:2:0 8-bit",
        "compare: PSNR + SSIM of a frame pair, Y'CbCr 4:2:0 10-bit",
        "vmaf: VMAF of a 160x90 pair, Y'CbCr 4:2:0 8-bit (motion, VIF, ADM)",
        "vmaf: a pair's sums scored on the CPU (the model's SVM)",
        "  vmaf part: load",
        "  vmaf part: motion",
        "  vmaf part: VIF scale 0: stats",
        "  vmaf part: VIF scale 1: decimate",
        "  vmaf part: VIF scale 1: stats",
        "  vmaf part: VIF scale 2: decimate",
        "  vmaf part: VIF scale 2: stats",
        "  vmaf part: VIF scale 3: decimate",
        "  vmaf part: VIF scale 3: stats",
        "  vmaf part: ADM scale 0: DWT",
        "  vmaf part: ADM scale 0: decouple",
        "  vmaf part: ADM scale 0: mask",
        "  vmaf part: ADM scale 1: DWT",
        "  vmaf part: ADM scale 1: decouple",
        "  vmaf part: ADM scale 1: mask",
        "  vmaf part: ADM scale 2: DWT",
        "  vmaf part: ADM scale 2: decouple",
        "  vmaf part: ADM scale 2: mask",
        "  vmaf part: ADM scale 3: DWT",
        "  vmaf part: ADM scale 3: decouple",
        "  vmaf part: ADM scale 3: mask",
        "  vmaf part: totals",
        "vmaf: VMAF of a 160x90 pair, Y'CbCr 4:2:0 10-bit (motion, VIF, ADM)",
        "vmaf: VMAF of a 80x45 pair, Y'CbCr 4:2:0 8-bit (motion, VIF, ADM)",
        "vmaf: VMAF of a 80x45 pair, Y'CbCr 4:2:0 10-bit (motion, VIF, ADM)",
        "marks: false colour",
        "marks: zebras at 95% and 70%",
        "marks: focus peaking",
        "marks: broadcast range",
        "marks: gamut, 10-bit BT.2020 PQ",
        "marks: all five, 10-bit BT.2020 PQ",
        "signalstats (tout, vrep, brng) of a frame against the one before, 8-bit 4:2:0",
        "signalstats (tout, vrep, brng) of a frame against the one before, 10-bit 4:2:0",
        "pse: cell light and stripes, 8-bit BT.709 (5184 cells, 336 blocks)",
        "pse: cell light and stripes, 10-bit BT.2020 PQ (5184 cells, 336 blocks)",
        "pse: cell light and stripes, 10-bit BT.2020 HLG (5184 cells, 336 blocks)",
        "freezedetect: against the reference, 8-bit 4:2:0",
        "deinterlace: bwdif field, 8-bit 4:2:0",
        "deinterlace: yadif field, 8-bit 4:2:0",
        "idet: sums, 8-bit 4:2:0",
        "deinterlace: bwdif field, 10-bit 4:2:0",
        "deinterlace: yadif field, 10-bit 4:2:0",
        "idet: sums, 10-bit 4:2:0",
        "upload: a 4:2:0 frame's rows into wgpu's mapped memory, the copy queued",
        "  the same into the machine's memory, mapped for good",
        "  three passes: chunk + reduce + scale",
        "  three passes: chunk + reduce only",
        "  three passes: chunk only",
        "  engine 64/4/2/atomic",
        "  engine 64/4/2/atomic, flat",
        "  engine 128/8/1/3",
        "  engine 128/8/1/3, flat",
        "  from the planes 64/4/2",
        "  floor: an empty dispatch",
    ];
    assert_eq!(table.len(), names.len(), "{text}");
    for (row, name) in table.iter().zip(names) {
        assert!(row.starts_with(name), "row {row:?} is not {name:?}");
        // A picture this small runs every variant, even on lavapipe: median, min, Gpix/s
        // (which rounds to 0.00 on lavapipe), speed-up and runs.
        let numbers: Vec<f64> = row[name.len()..]
            .split_whitespace()
            .map(|v| v.trim_end_matches('x').parse().unwrap_or_else(|_| panic!("{row}")))
            .collect();
        let [median, min, gpix, speedup, runs] = numbers[..] else {
            panic!("{row}")
        };
        assert!(min > 0.0 && min <= median && gpix >= 0.0 && speedup > 0.0, "{row}");
        assert!(runs >= 3.0, "{row}");
    }
}

#[test]
fn bench_refuses_a_bad_engine_shape() {
    for shape in [
        "512/8/1",
        "512/6/1/atomic",
        "512/8/0/atomic",
        "512/8/1/1",
        "2048/8/1/atomic",
        "x/8/1/atomic",
        // Chunks of 2^34 pixels: once an overflow, now refused.
        "1024/4194304/1/atomic",
    ] {
        let out = histoplay(&["bench", "--size", "16x16", "--engine", shape]);
        assert!(!out.status.success(), "{shape} was accepted");
        assert!(
            stderr(&out).contains("is not an engine shape"),
            "{shape}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn bench_refuses_a_size_the_gpu_cant_hold_before_making_it() {
    let out = histoplay(&["bench", "--size", "65536x65536", "--iters", "1"]);
    assert_one_line_error(&out, "65536x65536 is larger than this GPU's largest texture");
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let clip = common::grey_ramp();
    // (Long enough that its lines outgrow a pipe's buffer.)
    let tone = common::fixture(
        "tone-8k-300s.wav",
        &["-f", "lavfi", "-i", "sine=r=8000:d=300", "-c:a", "pcm_s16le"],
    );
    for (args, starts) in [
        (vec!["hist", clip.to_str().unwrap(), "--frames", "0.."], "{\"frame\":0,"),
        (vec!["loudness", tone.to_str().unwrap(), "--series"], "{\"t\":0.099875,"),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map(window::Reaped)
            .unwrap();
        // Read a little, as `head -c 30` does, and close the pipe.
        let mut first = [0u8; 30];
        child.0.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = common::output_of(&mut child.0);
        assert!(out.status.success(), "{args:?}: {:?}: {}", out.status, stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
        assert!(
            first.starts_with(starts.as_bytes()),
            "{}",
            String::from_utf8_lossy(&first)
        );
    }
}

/// The kitten at 320x196 as a PNG.
fn small_kitten() -> std::path::PathBuf {
    let kitten = common::repo_path("media/kitten.jpg");
    common::fixture(
        "kitten-small.png",
        &[
            "-i",
            kitten.to_str().unwrap(),
            "-vf",
            "scale=320:196",
            "-frames:v",
            "1",
            "-pix_fmt",
            "rgb24",
        ],
    )
}

/// That PNG converted by the ffmpeg CLI with `args` (RGB to RGB: no conversion of colour).
fn kitten_as(name: &str, args: &[&str]) -> std::path::PathBuf {
    let png = small_kitten();
    let mut all = vec!["-i", png.to_str().unwrap()];
    all.extend_from_slice(args);
    common::fixture(name, &all)
}

/// A still the image crate doesn't decode (a TIFF of Y'CbCr 4:2:0 samples, FFmpeg's default for
/// TIFF from video) is read through FFmpeg, as a video of one frame is: the same counts as the
/// same samples in a raw video, and render and scope take it too.
#[test]
fn a_ycbcr_tiff_is_read_through_ffmpeg() {
    let tiff = kitten_as("kitten-small-yuv420p.tiff", &["-pix_fmt", "yuv420p"]);
    let raw = kitten_as("kitten-small-yuv420p.nut", &["-pix_fmt", "yuv420p", "-c:v", "rawvideo"]);
    let out = histoplay(&["hist", tiff.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reference = stdout(&histoplay(&["hist", raw.to_str().unwrap()]));
    assert_eq!(counts(&reference, "l").iter().sum::<u64>(), 320 * 196);
    for channel in ["r", "g", "b", "l"] {
        assert_eq!(counts(&stdout(&out), channel), counts(&reference, channel), "{channel}");
    }
    let png = std::env::temp_dir().join(format!("histoplay-{}-yuv-tiff.png", std::process::id()));
    let render = histoplay(&[
        "render",
        tiff.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "64x40",
    ]);
    assert!(render.status.success(), "{}", stderr(&render));
    assert_eq!(
        histoplay::video::still::load(&png).map(|i| (i.width, i.height)).ok(),
        Some((64, 40))
    );
    let _ = std::fs::remove_file(png);
    let scope = histoplay(&["scope", tiff.to_str().unwrap()]);
    assert!(scope.status.success(), "{}", stderr(&scope));
}

#[test]
fn every_still_format_counts_like_png() {
    let png = small_kitten();
    let reference = stdout(&histoplay(&["hist", png.to_str().unwrap()]));
    assert_eq!(counts(&reference, "r").iter().sum::<u64>(), 320 * 196);
    // Lossless formats count exactly as the PNG; a 16-bit PNG's samples (c·257) round back to c.
    for (name, args) in [
        ("kitten-small.bmp", vec![]),
        ("kitten-small.tiff", vec![]),
        ("kitten-small-lossless.webp", vec!["-c:v", "libwebp", "-lossless", "1"]),
    ] {
        let still = kitten_as(name, &args);
        let out = histoplay(&["hist", still.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        for channel in ["r", "g", "b", "l"] {
            assert_eq!(
                counts(&stdout(&out), channel),
                counts(&reference, channel),
                "{name} {channel}"
            );
        }
    }
    // 16 bits a sample are read by FFmpeg and counted at 10 bits, as the same samples in a
    // 16-bit video are (and as the window shows them): converted to 12 bits as FFmpeg converts
    // them, then rounded to 10, (c + 2) / 4.
    let rgb16 = image::open(&png).unwrap().to_rgb16();
    for extension in ["png", "tiff"] {
        let still = std::env::temp_dir().join(format!("histoplay-{}-16bit.{extension}", std::process::id()));
        rgb16.save(&still).unwrap();
        let video = std::env::temp_dir().join(format!("histoplay-{}-16bit-{extension}.nut", std::process::id()));
        let made = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-i", still.to_str().unwrap()])
            .args(["-c:v", "rawvideo", "-pix_fmt", "rgb48le", video.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(made.success());
        let twelve = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-i", still.to_str().unwrap()])
            .args(["-pix_fmt", "gbrp12le", "-f", "rawvideo", "-"])
            .output()
            .unwrap();
        assert!(twelve.status.success());
        let plane = twelve.stdout.len() / 3;
        // gbrp's planes are G, B, R.
        let expected = |index: usize| {
            let mut bins = vec![0u64; 1024];
            for c in twelve.stdout[index * plane..(index + 1) * plane].chunks_exact(2) {
                bins[((usize::from(u16::from_le_bytes([c[0], c[1]])) + 2) / 4).min(1023)] += 1;
            }
            bins
        };
        let out = histoplay(&["hist", still.to_str().unwrap(), "--bins", "1024"]);
        assert!(out.status.success(), "{extension}: {}", stderr(&out));
        assert_eq!(common::json(&stdout(&out))["depth"], 10, "16-bit {extension}");
        for (channel, index) in [("r", 2), ("g", 0), ("b", 1)] {
            assert_eq!(
                counts(&stdout(&out), channel),
                expected(index),
                "16-bit {extension} {channel}"
            );
        }
        let as_video = histoplay(&["hist", video.to_str().unwrap(), "--bins", "1024"]);
        assert_eq!(
            counts(&stdout(&out), "l"),
            counts(&stdout(&as_video), "l"),
            "16-bit {extension}"
        );
        // (Luminance from 10-bit R'G'B' takes more values than 256.)
        let levels = counts(&stdout(&out), "l").iter().filter(|&&n| n > 0).count();
        assert!(levels > 256, "16-bit {extension}: {levels} levels of luminance");
        let _ = std::fs::remove_file(still);
        let _ = std::fs::remove_file(video);
    }
    // Lossy and palette formats are read and counted whole; render takes them too.
    for (name, args) in [
        ("kitten-small.webp", vec!["-c:v", "libwebp"]),
        ("kitten-small.gif", vec![]),
    ] {
        let still = kitten_as(name, &args);
        let out = histoplay(&["hist", still.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert_eq!(counts(&stdout(&out), "l").iter().sum::<u64>(), 320 * 196, "{name}");
        let png = std::env::temp_dir().join(format!("histoplay-{}-{name}.png", std::process::id()));
        let render = histoplay(&[
            "render",
            still.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
            "--size",
            "64x40",
        ]);
        assert!(render.status.success(), "{name}: {}", stderr(&render));
        assert_eq!(
            histoplay::video::still::load(&png).map(|i| (i.width, i.height)).ok(),
            Some((64, 40))
        );
        let _ = std::fs::remove_file(png);
    }
}

#[test]
fn a_playlist_with_nothing_to_play_is_one_error() {
    let dir = std::env::temp_dir().join(format!("histoplay-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a video").unwrap();
    let out = histoplay(&[dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: nothing to play: '{}' has no video files\n", dir.display())
    );
    // With a missing file as well, the file's own error is the one that stops it.
    let out = histoplay(&[dir.to_str().unwrap(), "/nonexistent/clip.mp4"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.ends_with("error: cannot open '/nonexistent/clip.mp4': No such file or directory (os error 2)\n"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The long options `histoplay [SUB] --help` lists.
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|line| {
            // `-x, --name <V>` or `--name <V>`, at the start of a line.
            let line = line.trim_start();
            let head = if line.starts_with("--") {
                line
            } else {
                line.strip_prefix('-')?.get(3..)?
            };
            let long = head.strip_prefix("--")?;
            let name: String = long
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[test]
fn the_version_and_the_libraries_in_use() {
    let out = histoplay(&["--version"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("histoplay {}\n", env!("CARGO_PKG_VERSION")));
    let out = histoplay(&["--version", "--verbose"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], format!("histoplay {}", env!("CARGO_PKG_VERSION")));
    // FFmpeg as loaded: the same libavcodec `ffmpeg -version` reports.
    let ffmpeg = Command::new("ffmpeg").arg("-version").output().unwrap();
    let ffmpeg = String::from_utf8_lossy(&ffmpeg.stdout).into_owned();
    let avcodec = ffmpeg
        .lines()
        .find_map(|l| l.trim().strip_prefix("libavcodec"))
        .and_then(|l| l.split('/').next())
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(""))
        .unwrap();
    assert!(
        lines[1].starts_with("FFmpeg ") && lines[1].contains(&format!("libavcodec {avcodec}")),
        "{} / {avcodec}",
        lines[1]
    );
    assert!(lines[2].starts_with("built with wgpu 30."), "{}", lines[2]);
}

#[test]
fn manual_pages_and_completions_carry_every_option_there_is() {
    let dir = std::env::temp_dir().join(format!("histoplay-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = histoplay(&["generate", "man", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let completions: Vec<(&str, String)> = ["bash", "zsh", "fish"]
        .into_iter()
        .map(|shell| {
            let out = histoplay(&["generate", "completions", shell]);
            assert!(out.status.success(), "{}", stderr(&out));
            (shell, stdout(&out))
        })
        .collect();
    // The subcommands `--help` lists, and the player itself.
    let help = stdout(&histoplay(&["--help"]));
    let commands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(
        commands.len() >= 8 && commands.contains(&"report".to_string()),
        "{commands:?}"
    );
    let mut checked = 0;
    for command in std::iter::once(None).chain(commands.iter().map(Some)) {
        let (page, help) = match command {
            Some(c) => (format!("histoplay-{c}.1"), stdout(&histoplay(&[c, "--help"]))),
            None => ("histoplay.1".to_string(), help.clone()),
        };
        let man = std::fs::read_to_string(dir.join(&page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(man.contains(".TH "), "{page} is not a manual page");
        let options = long_options(&help);
        assert!(options.contains(&"help".to_string()), "{command:?}: {options:?}");
        for option in options {
            let escaped = format!("\\-\\-{}", option.replace('-', "\\-"));
            assert!(man.contains(&escaped), "{page} lacks --{option}");
            for (shell, script) in &completions {
                let found = match *shell {
                    "fish" => script.contains(&format!("-l {option}")),
                    _ => script.contains(&format!("--{option}")),
                };
                assert!(found, "{shell}'s completions lack --{option} ({command:?})");
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} options");
    // The keys are in the page too.
    let man = std::fs::read_to_string(dir.join("histoplay.1")).unwrap();
    assert!(man.contains("false colour, zebras, peaking, gamut, broadcast range"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn help_lists_each_command_on_one_short_line_with_the_detail_in_help_command() {
    let help = stdout(&histoplay(&["--help"]));
    let lines: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(lines.len() >= 10, "{help}");
    for line in &lines {
        // `  name   about`: the about is a line, not a paragraph.
        assert!(line.chars().count() <= 110, "too long for the list: {line}");
        assert!(!line.trim_end().ends_with('.'), "{line}");
    }
    // The detail is one command away.
    let report = stdout(&histoplay(&["help", "report"]));
    assert!(report.contains("temporal outliers, repeated lines"), "{report}");
    let timeline = stdout(&histoplay(&["help", "timeline"]));
    assert!(timeline.contains("column x holds the frames n"), "{timeline}");
    // No help points into the source tree, which an installed histoplay has no copy of.
    let commands: Vec<&str> = lines.iter().filter_map(|l| l.split_whitespace().next()).collect();
    for command in commands.iter().chain(["make-clip", "generate"].iter()) {
        let text = stdout(&histoplay(&["help", command]));
        assert!(!text.contains("src/") && !text.contains(".rs"), "{command}: {text}");
    }
}

/// The log's `start:` lines: every step of a command's start and end, in order, with the time
/// since the process began; and the command's output whole though it ends without its drivers'
/// teardown (`process::end`), its exit status its verdict's.
#[test]
fn a_command_logs_where_its_start_goes_and_ends_with_its_output_whole() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/media/sample-540p.mp4");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(args)
            .env(
                "RUST_LOG",
                "histoplay::process=debug,histoplay::video::source::read=debug",
            )
            .output()
            .expect("histoplay runs");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    };
    let out = run(&["pse", sample, "--frames", "0..3", "--frames-out"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "three frames and the verdict: {text}");
    for (k, line) in lines[..3].iter().enumerate() {
        assert_eq!(field(line, "frame"), k.to_string(), "{line}");
    }
    assert_eq!(field(lines[3], "verdict"), "\"pass\"", "{text}");
    assert_eq!(field(lines[3], "frames"), "3", "{text}");
    start_steps_in_order(&stderr(&out));
    let out = run(&["report", sample, "--frames", "0..3"]);
    let text = stdout(&out);
    let frames: Vec<String> = text.lines().map(|l| field(l, "frame")).collect();
    assert_eq!(frames, ["0", "1", "2"], "{text}");
    start_steps_in_order(&stderr(&out));
}

/// The file and the GPU open side by side; the first frame is decoded while the GPU opens and
/// the pipeline and the passes are made, which are ready before the decoder's thread is back;
/// from the first frame uploaded on, one step after another.
fn start_steps_in_order(log: &str) {
    let steps = [
        "the file's container open",
        "the decoder open",
        "the GPU's device made",
        "the first frames decoded ahead",
        "the pipeline made",
        "the command's passes made",
        "the source back from its first frames",
        "the first frame decoded and uploaded",
        "the first frame's results read back",
        "the last frame's results read back",
        "the command ended",
    ];
    // The frames decoded ahead while the GPU opened are the range's (0..3) and the one after
    // at most.
    let ahead: u32 = log
        .lines()
        .find_map(|l| l.split("DEBUG histoplay::video::source::read] ").nth(1))
        .and_then(|l| l.split(" frames decoded ahead").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frames decoded ahead: {log}"));
    assert!((1..=5).contains(&ahead), "{ahead} frames decoded ahead: {log}");
    // Made once, ahead: a run that could not take them would make them again.
    let made = log.lines().filter(|l| l.contains("start: the pipeline made: ")).count();
    assert_eq!(made, 1, "{log}");
    let mut times = Vec::new();
    for step in steps {
        let line = log
            .lines()
            .find(|l| l.contains(&format!("start: {step}: ")))
            .unwrap_or_else(|| panic!("no line for {step:?}: {log}"));
        let ms: f64 = line
            .rsplit(": ")
            .next()
            .and_then(|t| t.strip_suffix(" ms"))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        times.push((step, ms));
    }
    let at = |k: usize| times[k].1;
    assert!(at(1) <= at(3), "the decoder opens before its first frame: {times:?}");
    assert!(at(2) <= at(4) && at(4) <= at(5), "the GPU, then its passes: {times:?}");
    assert!(
        at(3) <= at(6) && at(5) <= at(6),
        "the passes made before the source is back: {times:?}"
    );
    for pair in times[6..].windows(2) {
        assert!(pair[0].1 <= pair[1].1, "{pair:?}");
    }
}

#[test]
fn a_playlists_unreadable_file_is_skipped_with_one_warning() {
    let dir = std::env::temp_dir().join(format!("histoplay-skip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mp4");
    std::fs::write(&bad, b"x\n").unwrap();
    // (Nothing to play: no window is opened.)
    let out = histoplay(&["--no-audio", bad.to_str().unwrap(), "/nonexistent/histoplay.mp4"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("warning: skipping: ").count(), 1, "{err}");
    assert!(
        err.lines()
            .last()
            .unwrap_or_default()
            .starts_with("error: cannot open '/nonexistent/histoplay.mp4'"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn frames_a_damaged_file_lost_are_told_of_beside_its_packets_errors() {
    // Grey frames a code apart, 600 bytes of the file zeroed early on: the decoder's errors
    // take the first warnings, the frames lost are said all the same.
    let grey = common::fixture(
        "cli-grey-100.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=black:s=320x240:r=25",
            "-frames:v",
            "100",
            "-vf",
            "geq=lum='16+2*N':cb=128:cr=128,format=yuv420p",
            "-c:v",
            "libx264",
            "-crf",
            "10",
            "-g",
            "25",
            "-bf",
            "2",
        ],
    );
    let mut bytes = std::fs::read(&grey).unwrap();
    bytes[2000..2600].fill(0);
    let damaged = std::env::temp_dir().join(format!("histoplay-lost-{}.mp4", std::process::id()));
    std::fs::write(&damaged, bytes).unwrap();
    let out = histoplay(&["report", damaged.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("damaged video, playing on: frames "), "{err}");
    assert!(err.contains(" are missing"), "{err}");
    let _ = std::fs::remove_file(&damaged);
}
