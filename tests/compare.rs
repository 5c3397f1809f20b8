//! Comparing an encode with its reference: the metrics agree with FFmpeg's `psnr` and `ssim`
//! filters (the oracle) on every frame, at 8 and 10 bits, to the precision their stats files
//! print.

mod common;

use common::JsonExt;
use histoplay::compare::gpu::MetricsPass;
use histoplay::compare::metrics::{component_sums, frame_metrics, ssim_windows, ComponentSums, FrameMetrics};
use histoplay::gpu::GpuContext;
use histoplay::video::convert::PlaneTextures;
use histoplay::video::format::components;
use histoplay::video::source::VideoSource;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A 10-frame reference of 8 or 10 bits (lossless FFV1), and an encode of it at a low quality
/// (x264, or x265 at 10 bits), both 4:2:0 at 324x188 (not a multiple of 8 either way).
fn pair(bits: u32) -> (PathBuf, PathBuf) {
    let pix = if bits > 8 { "yuv420p10le" } else { "yuv420p" };
    let reference = common::fixture(
        &format!("compare-reference-{bits}.mkv"),
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=324x188:r=25:d=0.4",
            "-vf",
            &format!("format={pix}"),
            "-c:v",
            "ffv1",
        ],
    );
    let codec = if bits > 8 { "libx265" } else { "libx264" };
    let encode = common::fixture(
        &format!("compare-encode-{bits}.mkv"),
        &[
            "-i",
            reference.to_str().unwrap(),
            "-c:v",
            codec,
            "-crf",
            "38",
            "-pix_fmt",
            pix,
            "-x265-params",
            "log-level=error",
        ],
    );
    (reference, encode)
}

/// Every frame's metrics of `a` against `b`, decoded by histoplay and measured on the CPU.
fn ours(a: &Path, b: &Path) -> Vec<FrameMetrics> {
    let mut sa = VideoSource::open(a).unwrap();
    let mut sb = VideoSource::open(b).unwrap();
    let (fa, fb) = (sa.info.format, sb.info.format);
    let mut out = Vec::new();
    while let (Some(x), Some(y)) = (sa.next_frame().unwrap(), sb.next_frame().unwrap()) {
        let (px, py) = (x.planes(fa.layout), y.planes(fb.layout));
        let (ca, bits) = components(&fa, &px).unwrap();
        let (cb, _) = components(&fb, &py).unwrap();
        out.push(frame_metrics(&ca, &cb, None, bits));
    }
    out
}

/// FFmpeg's stats file lines for `filter` (`psnr` or `ssim`) of `a` against `b`, each as its
/// `key:value` pairs.
fn ffmpeg(a: &Path, b: &Path, filter: &str) -> Vec<Vec<(String, String)>> {
    ffmpeg_graph(a, b, "[1:v]", filter)
}

/// As `ffmpeg`, B's frames taken through `b_chain` (a filter graph label, or a chain ending in
/// one) first.
fn ffmpeg_graph(a: &Path, b: &Path, b_chain: &str, filter: &str) -> Vec<Vec<(String, String)>> {
    let graph = if b_chain == "[1:v]" {
        format!("[0:v][1:v]{filter}")
    } else {
        format!("{b_chain}[b];[0:v][b]{filter}")
    };
    ffmpeg_stats(&[], a, b, &graph)
}

/// FFmpeg's stats file lines of the graph `graph` over `a` and `b` (ending in the filter, its
/// stats file added), with `options` before the inputs.
fn ffmpeg_stats(options: &[&str], a: &Path, b: &Path, graph: &str) -> Vec<Vec<(String, String)>> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stats = std::env::temp_dir().join(format!("histoplay-stats-{}-{n}.log", std::process::id()));
    let out = Command::new("ffmpeg")
        .args(["-v", "error"])
        .args(options)
        .arg("-i")
        .arg(a)
        .arg("-i")
        .arg(b)
        .arg("-lavfi")
        .arg(format!("{graph}=stats_file={}", stats.display()))
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    common::stats_lines(&stats)
}

/// Whether `ours` prints as FFmpeg's `printed` with `decimals`, allowing a last-digit step for
/// values that lie on a rounding boundary in single-precision sums.
fn agrees(ours: f64, printed: f64, decimals: i32) -> bool {
    (ours - printed).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-6
}

fn check(bits: u32) {
    let (reference, encode) = pair(bits);
    let frames = ours(&reference, &encode);
    let psnr = ffmpeg(&reference, &encode, "psnr");
    let ssim = ffmpeg(&reference, &encode, "ssim");
    assert_eq!(frames.len(), 10, "{bits} bits: frames compared");
    assert_eq!(psnr.len(), frames.len());
    assert_eq!(ssim.len(), frames.len());
    for (n, m) in frames.iter().enumerate() {
        let (p, s) = (&psnr[n], &ssim[n]);
        let at = format!("{bits} bits, frame {n}: ours {m:?}, FFmpeg {p:?} {s:?}");
        for (i, c) in ["y", "u", "v"].iter().enumerate() {
            assert!(
                agrees(m.mse[i], common::stats_value(p, &format!("mse_{c}")), 2),
                "mse_{c}: {at}"
            );
            let psnr = m.psnr[i].unwrap_or(f64::INFINITY);
            let theirs = common::stats_value(p, &format!("psnr_{c}"));
            assert!(psnr == theirs || agrees(psnr, theirs, 2), "psnr_{c}: {at}");
            assert!(
                agrees(m.ssim[i], common::stats_value(s, &c.to_uppercase()), 6),
                "ssim {c}: {at}"
            );
        }
        assert!(agrees(m.mse_avg, common::stats_value(p, "mse_avg"), 2), "mse_avg: {at}");
        assert!(
            agrees(m.psnr_avg.unwrap(), common::stats_value(p, "psnr_avg"), 2),
            "psnr_avg: {at}"
        );
        assert!(agrees(m.ssim_all, common::stats_value(s, "All"), 6), "All: {at}");
        // An encode at this quality is visibly worse than its reference, not identical.
        assert!(m.psnr[0].unwrap() < 45.0 && m.ssim[0] < 0.99, "{at}");
    }
}

#[test]
fn psnr_and_ssim_of_8_bit_frames_agree_with_ffmpeg_on_every_frame() {
    check(8);
}

#[test]
fn psnr_and_ssim_of_10_bit_frames_agree_with_ffmpeg_on_every_frame() {
    check(10);
}

/// The metrics pass on the GPU gives the CPU twin's sums for every frame pair: squared
/// differences exactly, window SSIMs but for a last-bit difference in a division.
fn gpu_matches_cpu(bits: u32) {
    let (reference, encode) = pair(bits);
    let ctx = GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
    let mut sa = VideoSource::open(&reference).unwrap();
    let mut sb = VideoSource::open(&encode).unwrap();
    let format = sa.info.format;
    assert_eq!(sb.info.format.layout, format.layout);
    let pass = MetricsPass::new(&ctx.device, &format).unwrap();
    let slot_a = PlaneTextures::new(&ctx.device, "a", format).unwrap();
    let slot_b = PlaneTextures::new(&ctx.device, "b", format).unwrap();
    let binding = pass.bind(&ctx.device, &slot_a, &slot_b);
    let mut compared = 0;
    while let (Some(x), Some(y)) = (sa.next_frame().unwrap(), sb.next_frame().unwrap()) {
        let (px, py) = (x.planes(format.layout), y.planes(format.layout));
        slot_a.upload(&ctx.queue, &px).unwrap();
        slot_b.upload(&ctx.queue, &py).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode(&mut encoder, &binding);
        ctx.queue.submit([encoder.finish()]);
        let bytes = histoplay::gpu::readback::read_buffer(&ctx, pass.sums(), 0, MetricsPass::sums_size()).unwrap();
        let gpu = pass.read(&bytes);
        let (ca, _) = components(&format, &px).unwrap();
        let (cb, _) = components(&format, &py).unwrap();
        let cpu: Vec<ComponentSums> = ca.iter().zip(&cb).map(|(a, b)| component_sums(a, b, bits)).collect();
        for (c, (g, k)) in gpu.iter().zip(&cpu).enumerate() {
            let at = format!("{bits} bits, frame {}, component {c}: GPU {g:?}, CPU {k:?}", x.index);
            assert_eq!(g.sse, k.sse, "{at}");
            assert!(k.sse > 0, "the encode differs: {at}");
            let windows = ssim_windows(ca[c].width, ca[c].height);
            // Exact on lavapipe; a GPU whose division is within its 2.5 ULP may round a window the
            // other way.
            assert!(g.ssim.abs_diff(k.ssim) <= windows / 1000, "{at}");
        }
        compared += 1;
    }
    assert_eq!(compared, 10);
}

#[test]
fn the_gpu_pass_sums_8_bit_pairs_as_the_cpu_twin_does() {
    gpu_matches_cpu(8);
}

#[test]
fn the_gpu_pass_sums_10_bit_pairs_as_the_cpu_twin_does() {
    gpu_matches_cpu(10);
}

fn histoplay(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .unwrap()
}

/// `histoplay compare`'s lines, parsed.
fn compare_lines(args: &[&str]) -> Vec<serde_json::Value> {
    compare_run(args).0
}

/// `histoplay compare`'s lines, parsed, and what it wrote to stderr (it succeeded).
fn compare_run(args: &[&str]) -> (Vec<serde_json::Value>, String) {
    let out = histoplay(&[&["compare"], args].concat());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    (lines, err)
}

fn number(line: &serde_json::Value, key: &str) -> f64 {
    line[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is a number in {line}"))
}

/// Each line agrees with FFmpeg's stats lines, field by field.
fn check_lines(lines: &[serde_json::Value], psnr: &[Vec<(String, String)>], ssim: &[Vec<(String, String)>]) {
    check_named(lines, psnr, ssim, &["y", "u", "v"]);
}

/// `check_lines` of components named `names` (y, u, v or r, g, b; FFmpeg's SSIM names them in
/// capitals).
fn check_named(
    lines: &[serde_json::Value],
    psnr: &[Vec<(String, String)>],
    ssim: &[Vec<(String, String)>],
    names: &[&str],
) {
    assert_eq!(lines.len(), psnr.len());
    let keys = |figure: &str, whole: &str| -> Vec<String> {
        names
            .iter()
            .map(|n| format!("{figure}_{n}"))
            .chain([whole.to_string()])
            .collect()
    };
    for (n, line) in lines.iter().enumerate() {
        let (p, s) = (&psnr[n], &ssim[n]);
        for key in keys("mse", "mse_avg").iter().chain(&keys("psnr", "psnr_avg")) {
            let key = key.as_str();
            if line[key].is_null() {
                // Identical components: FFmpeg's inf.
                assert!(
                    key.starts_with("psnr") && common::stats_value(p, key).is_infinite(),
                    "{key}: {line} / {p:?}"
                );
            } else {
                assert!(
                    agrees(number(line, key), common::stats_value(p, key), 2),
                    "{key}: {line} / {p:?}"
                );
            }
        }
        let theirs = names.iter().map(|n| n.to_uppercase()).chain(["All".to_string()]);
        for (key, theirs) in keys("ssim", "ssim_all").iter().zip(theirs) {
            assert!(
                agrees(number(line, key), common::stats_value(s, &theirs), 6),
                "{key}: {line} / {s:?}"
            );
        }
    }
}

#[test]
fn compare_prints_a_line_per_frame_that_agrees_with_ffmpeg_on_the_gpu_and_the_cpu() {
    let (reference, encode) = pair(8);
    let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let gpu = compare_lines(&[a, b]);
    let cpu = compare_lines(&[a, b, "--cpu"]);
    assert_eq!(
        gpu[0].keys(),
        [
            "frame", "frame_b", "pts", "mse_y", "mse_u", "mse_v", "mse_avg", "psnr_y", "psnr_u", "psnr_v", "psnr_avg",
            "ssim_y", "ssim_u", "ssim_v", "ssim_all"
        ]
    );
    let frames: Vec<u64> = gpu.iter().map(|l| l["frame"].u64()).collect();
    assert_eq!(frames, (0..10).collect::<Vec<_>>());
    assert!(gpu.iter().all(|l| l["frame_b"] == l["frame"]));
    assert_eq!(number(&gpu[3], "pts"), 0.12);
    check_lines(
        &gpu,
        &ffmpeg(&reference, &encode, "psnr"),
        &ffmpeg(&reference, &encode, "ssim"),
    );
    // The CPU twin prints the same squared-error figures, and SSIM within a last bit.
    for (g, c) in gpu.iter().zip(&cpu) {
        for key in ["mse_y", "mse_u", "mse_v", "mse_avg", "psnr_y", "psnr_avg"] {
            assert_eq!(g[key], c[key], "{key}");
        }
        assert!((number(g, "ssim_all") - number(c, "ssim_all")).abs() < 1e-9);
    }
}

#[test]
fn an_offset_and_a_range_pick_the_pairs_and_ffmpeg_agrees_with_b_trimmed() {
    let (reference, encode) = pair(10);
    let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    // A's frame K against B's K+2, for K in 1..6.
    let lines = compare_lines(&[a, b, "--offset", "2", "--frames", "1..6"]);
    let pairs: Vec<(u64, u64)> = lines.iter().map(|l| (l["frame"].u64(), l["frame_b"].u64())).collect();
    assert_eq!(pairs, vec![(1, 3), (2, 4), (3, 5), (4, 6), (5, 7)]);
    let trimmed = "[1:v]trim=start_frame=2,setpts=PTS-STARTPTS";
    let psnr = ffmpeg_graph(&reference, &encode, trimmed, "psnr");
    let ssim = ffmpeg_graph(&reference, &encode, trimmed, "ssim");
    check_lines(&lines, &psnr[1..6], &ssim[1..6]);
    // B behind: A's first two frames have no partner.
    let behind = compare_lines(&[a, b, "--offset", "-2"]);
    assert_eq!(
        behind.first().map(|l| (l["frame"].u64(), l["frame_b"].u64())),
        Some((2, 0))
    );
    assert_eq!(behind.len(), 8);
    // The frames left without a partner are told of, beside the figures of those that have one.
    for offset in ["2", "-2"] {
        let out = histoplay(&["compare", a, b, "--offset", offset]);
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("note: 8 of the 10 frames of "), "{offset}: {stderr}");
    }
    // Of a range, the frames asked for: 1 to 5, of which 1 has no partner 2 frames before it.
    let out = histoplay(&["compare", a, b, "--offset", "-2", "--frames", "1..6"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("note: 4 of the 5 frames of "), "{stderr}");
    let out = histoplay(&["compare", a, b]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("note:"));
}

#[test]
fn a_file_against_itself_has_no_psnr_and_an_ssim_of_one() {
    let (reference, _) = pair(8);
    let a = reference.to_str().unwrap();
    let out = histoplay(&["compare", a, a, "--frames", "0..2", "--csv"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(
        rows[0],
        "frame,frame_b,pts,mse_y,mse_u,mse_v,mse_avg,psnr_y,psnr_u,psnr_v,psnr_avg,ssim_y,ssim_u,ssim_v,ssim_all"
    );
    assert_eq!(rows[1], "0,0,0,0,0,0,0,,,,,1,1,1,1");
    assert_eq!(rows.len(), 3);
    let json = compare_lines(&[a, a, "--frames", "1..2"]);
    assert!(json[0]["psnr_y"].is_null() && json[0]["psnr_avg"].is_null());
    assert_eq!(number(&json[0], "ssim_all"), 1.0);
}

#[test]
fn files_that_cannot_be_compared_are_one_line_errors_naming_them() {
    let (reference, _) = pair(8);
    let a = reference.to_str().unwrap();
    let missing = histoplay(&["compare", a, "/nonexistent/judged.mkv"]);
    let rgb = common::fixture(
        "compare-rgb.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=324x188:r=25:d=0.2",
            "-pix_fmt",
            "gbrp",
            "-c:v",
            "ffv1",
        ],
    );
    let rgb = histoplay(&["compare", a, rgb.to_str().unwrap()]);
    // Past the end of either: nothing to compare.
    let past = histoplay(&["compare", a, a, "--offset", "100"]);
    for (out, names) in [
        (missing, "/nonexistent/judged.mkv"),
        (rgb, "compare-rgb.mkv"),
        (past, "compare-reference-8.mkv"),
    ] {
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(names), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn rgb_pairs_are_measured_as_ffmpeg_measures_them() {
    // Packed R'G'B' (FFV1's, PNG's) and planar at 10 bits: FFmpeg's filters take them planar.
    for (name, format, codec) in [
        ("rgb24", "rgb24", "ffv1"),
        ("png", "rgb24", "png"),
        ("gbrp10", "gbrp10le", "ffv1"),
    ] {
        let clip = |noise: u32| {
            common::fixture(
                &format!("compare-{name}-{noise}.mkv"),
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    &format!("testsrc2=s=100x76:r=25:d=0.24,noise=alls={noise}:allf=t"),
                    "-pix_fmt",
                    format,
                    "-c:v",
                    codec,
                ],
            )
        };
        let (reference, encode) = (clip(10), clip(30));
        let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
        let gpu = compare_lines(&[a, b]);
        assert_eq!(
            gpu[0].keys(),
            [
                "frame", "frame_b", "pts", "mse_r", "mse_g", "mse_b", "mse_avg", "psnr_r", "psnr_g", "psnr_b",
                "psnr_avg", "ssim_r", "ssim_g", "ssim_b", "ssim_all"
            ]
        );
        let (psnr, ssim) = (ffmpeg(&reference, &encode, "psnr"), ffmpeg(&reference, &encode, "ssim"));
        check_named(&gpu, &psnr, &ssim, &["r", "g", "b"]);
        check_named(&compare_lines(&[a, b, "--cpu"]), &psnr, &ssim, &["r", "g", "b"]);
        // The summary on stderr: FFmpeg's own line.
        let out = histoplay(&["compare", a, b, "--csv"]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("PSNR r:") && err.contains(" g:") && err.contains("\nSSIM R:"),
            "{err}"
        );
        let header = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
        assert!(
            header.starts_with("frame,frame_b,pts,mse_r,mse_g,mse_b,mse_avg,psnr_r"),
            "{header}"
        );
        // VMAF and limits on luma are Y'CbCr's.
        let vmaf = histoplay(&["compare", a, b, "--vmaf"]);
        let err = String::from_utf8(vmaf.stderr).unwrap();
        assert!(
            !vmaf.status.success() && err.starts_with("error: VMAF measures Y'CbCr"),
            "{err}"
        );
        let limit = histoplay(&["compare", a, b, "--fail-on", "psnr-y<10"]);
        assert_eq!(limit.status.code(), Some(1));
        assert!(String::from_utf8(limit.stderr)
            .unwrap()
            .contains("psnr-y: R'G'B' has no luma"));
    }
}

/// FFmpeg's stats lines for `filter` of `a` against `b` from its C code (`-cpuflags 0`).
/// FFmpeg 5.1's SSE4 code for 8-bit SSIM mis-sums a row's last windows where a component's rows
/// have 4k + 1 of them (PAL's 4:2:0 chroma, 360 samples wide; a 161-pixel 4:1:1 picture's
/// chroma, 41), adding in windows past the row's end; its C code, and histoplay, sum the row's
/// own.
fn ffmpeg_c_code(a: &Path, b: &Path, filter: &str) -> Vec<Vec<(String, String)>> {
    ffmpeg_stats(&["-cpuflags", "0"], a, b, &format!("[0:v][1:v]{filter}"))
}

#[test]
fn every_sampling_and_depth_ffmpegs_filters_take_is_measured_as_they_take_it() {
    // Samplings and depths the player converts on their way to the GPU (4:1:1 DV, 4:1:0,
    // 4:4:0; 9, 14 and 16 bits; grey and R'G'B' at 16), measured as FFmpeg's psnr and ssim
    // read them: as decoded, or as their automatic conversion converts them (4:4:0 at 10 bits
    // and big-endian samples made 16-bit). Odd sizes; and PAL's, whose 4:2:0 chroma has rows
    // of 89 windows.
    let yuv: &[&str] = &["y", "u", "v"];
    for (format, size, codec, names) in [
        ("yuv411p", "161x121", "ffv1", yuv),
        ("yuv410p", "161x121", "ffv1", yuv),
        ("yuv440p", "161x121", "ffv1", yuv),
        ("yuv420p9le", "161x121", "ffv1", yuv),
        ("yuv422p14le", "161x121", "ffv1", yuv),
        ("yuv444p16le", "161x121", "ffv1", yuv),
        ("yuv440p10le", "161x121", "ffv1", yuv),
        ("yuv420p10be", "161x121", "rawvideo", yuv),
        ("gray16le", "161x121", "ffv1", &["y"]),
        ("gbrp16le", "161x121", "ffv1", &["r", "g", "b"]),
        ("yuv420p", "720x576", "ffv1", yuv),
    ] {
        let clip = |noise: u32| {
            let extension = if codec == "rawvideo" { "nut" } else { "mkv" };
            common::fixture(
                &format!("compare-{format}-{size}-{noise}.{extension}"),
                &[
                    "-f",
                    "lavfi",
                    "-i",
                    &format!("testsrc2=s={size}:r=10:d=0.3,noise=alls={noise}:allf=t,format={format}"),
                    "-c:v",
                    codec,
                ],
            )
        };
        let (reference, encode) = (clip(8), clip(24));
        let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
        let (psnr, ssim) = (
            ffmpeg(&reference, &encode, "psnr"),
            ffmpeg_c_code(&reference, &encode, "ssim"),
        );
        assert_eq!(psnr.len(), 3, "{format}");
        for more in [&[][..], &["--cpu"]] {
            let lines = compare_lines(&[&[a, b][..], more].concat());
            check_named(&lines, &psnr, &ssim, names);
        }
    }
}

/// FFmpeg's own summary of psnr of `a` against `b`: its `PSNR ...` line's `name:value` pairs.
fn ffmpeg_psnr_summary(a: &Path, b: &Path) -> Vec<(String, String)> {
    let out = Command::new("ffmpeg")
        .args(["-v", "info", "-nostats", "-i"])
        .arg(a)
        .arg("-i")
        .arg(b)
        .args(["-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let line = err
        .lines()
        .find_map(|l| l.split_once("] PSNR ").map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| panic!("no PSNR line in {err}"));
    line.split(' ')
        .filter_map(|pair| pair.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn alpha_planes_are_measured_as_ffmpegs_psnr_measures_them() {
    // FFmpeg's psnr measures an alpha plane (mse_a, psnr_a, and its share of the averages);
    // its ssim does not, and reads the colour as its own conversion gives it (10-bit Y'CbCr
    // made 16-bit; 10-bit R'G'B' through swscale's R'G'B' path, which changes R and B). Y'CbCr
    // with alpha at 8 and 10 bits, planar and packed R'G'B' with alpha (RGBA measured as
    // gbrap; FFV1 decodes gbrap as BGRA), at an odd size; then a reference with alpha against a
    // judged file without (FFmpeg converts the second into the first's format: alpha against
    // opaque), and the other way round (alpha left out, as FFmpeg leaves it).
    let made = |format: &str, codec: &str, noise: u32, range: &str| {
        let extension = if codec == "rawvideo" { "nut" } else { "mkv" };
        let source = format!("testsrc2=s=161x121:r=10:d=0.3,format={format},noise=alls={noise}:allf=t,format={format}");
        common::fixture(
            &format!("compare-alpha-{format}-{noise}-{range}.{extension}"),
            &["-f", "lavfi", "-i", &source, "-c:v", codec, "-color_range", range],
        )
    };
    let clip = |format: &str, codec: &str, noise: u32| made(format, codec, noise, "tv");
    // Tagged full range: ssim's conversion narrows it (the scale filter takes the frame's
    // range), psnr reads it as it is.
    let full = |noise: u32| made("yuva444p16le", "ffv1", noise, "pc");
    let yuv: &[&str] = &["y", "u", "v"];
    let rgb: &[&str] = &["r", "g", "b"];
    let pairs = [
        (clip("yuva420p", "ffv1", 8), clip("yuva420p", "ffv1", 24), yuv, true),
        (
            clip("yuva444p10le", "ffv1", 8),
            clip("yuva444p10le", "ffv1", 24),
            yuv,
            true,
        ),
        (clip("gbrap", "rawvideo", 8), clip("gbrap", "rawvideo", 24), rgb, true),
        (clip("gbrap", "ffv1", 8), clip("gbrap", "ffv1", 24), rgb, true),
        (
            clip("gbrap10le", "rawvideo", 8),
            clip("gbrap10le", "rawvideo", 24),
            rgb,
            true,
        ),
        (full(8), full(24), yuv, true),
        (clip("rgba", "rawvideo", 8), clip("rgba", "rawvideo", 24), rgb, true),
        (clip("yuva420p", "ffv1", 8), clip("yuv420p", "ffv1", 24), yuv, true),
        (clip("yuv420p", "ffv1", 8), clip("yuva420p", "ffv1", 24), yuv, false),
    ];
    for (reference, judged, names, alpha) in pairs {
        let (a, b) = (reference.to_str().unwrap(), judged.to_str().unwrap());
        let (psnr, ssim) = (
            ffmpeg(&reference, &judged, "psnr"),
            ffmpeg_c_code(&reference, &judged, "ssim"),
        );
        assert_eq!(psnr.len(), 3, "{a}");
        let summary = ffmpeg_psnr_summary(&reference, &judged);
        assert_eq!(summary.iter().any(|(k, _)| k == "a"), alpha, "{a} {b}: {summary:?}");
        for more in [&[][..], &["--cpu"]] {
            let (lines, err) = compare_run(&[&[a, b][..], more].concat());
            // The colour components, and the averages with alpha's share.
            check_named(&lines, &psnr, &ssim, names);
            for (n, line) in lines.iter().enumerate() {
                assert_eq!(line.get("mse_a").is_some(), alpha, "{a} {b}: {line}");
                assert!(line.get("ssim_a").is_none(), "{line}");
                if !alpha {
                    continue;
                }
                let theirs = common::stats_value(&psnr[n], "mse_a");
                assert!(
                    theirs > 0.0 && agrees(number(line, "mse_a"), theirs, 2),
                    "{a} {b}: {line} / {:?}",
                    psnr[n]
                );
                let theirs = common::stats_value(&psnr[n], "psnr_a");
                assert!(
                    agrees(number(line, "psnr_a"), theirs, 2),
                    "{a} {b}: {line} / {:?}",
                    psnr[n]
                );
            }
            // The run's summary line names alpha as FFmpeg's does, with its figures.
            let ours = err
                .lines()
                .find_map(|l| l.strip_prefix("PSNR "))
                .unwrap_or_else(|| panic!("no PSNR line in {err}"));
            let ours: Vec<(&str, &str)> = ours.split(' ').filter_map(|p| p.split_once(':')).collect();
            assert_eq!(ours.len(), summary.len(), "{ours:?} / {summary:?}");
            for ((name, value), (their_name, theirs)) in ours.iter().zip(&summary) {
                assert_eq!(name, their_name);
                let (value, theirs): (f64, f64) = (value.parse().unwrap(), theirs.parse().unwrap());
                assert!((value - theirs).abs() < 2e-6, "{name}: {value} / {theirs} ({a} {b})");
            }
            assert!(!err.contains("alpha planes"), "{a} {b}: {err}");
        }
    }
}

#[test]
fn frames_tagged_full_range_are_measured_as_ffmpegs_conversion_narrows_them() {
    // 4:4:0 at 10 bits, which psnr and ssim take made 16-bit: the scale filter FFmpeg puts
    // before them takes the frames' full range from their tag and narrows it as it converts.
    let clip = |noise: u32| {
        common::fixture(
            &format!("compare-full-range-440-{noise}.mkv"),
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("testsrc2=s=161x121:r=10:d=0.3,format=yuv440p10le,noise=alls={noise}:allf=t"),
                "-c:v",
                "ffv1",
                "-color_range",
                "pc",
            ],
        )
    };
    let (reference, encode) = (clip(8), clip(24));
    let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let (psnr, ssim) = (
        ffmpeg(&reference, &encode, "psnr"),
        ffmpeg_c_code(&reference, &encode, "ssim"),
    );
    assert_eq!(psnr.len(), 3);
    for more in [&[][..], &["--cpu"]] {
        let lines = compare_lines(&[&[a, b][..], more].concat());
        check_named(&lines, &psnr, &ssim, &["y", "u", "v"]);
    }
}

#[test]
fn a_pair_of_two_formats_is_measured_as_ffmpegs_graph_converts_the_judged_file() {
    // FFmpeg's psnr and ssim measure two formats in the reference's where they take it, the
    // judged file converted into it by the scale filter at its defaults (a 4:2:0 encode made
    // 4:2:2 10-bit like its master, its chroma sited as MPEG-2 sites it); where the
    // reference's own format is one the upload changes (4:1:1, 4:1:0), both are measured in it
    // on the CPU. 192 wide: no plane's rows have 4k + 1 SSIM windows, where FFmpeg's SSE4 SSIM
    // errs, so its default build is the oracle (its C code's swscale converts otherwise).
    // (gray-tv: grey tagged limited range, which the scale filter takes so, where swscale's
    // default takes grey as full.)
    let clip = |name: &str, noise: u32| {
        let (format, range) = name.split_once('-').unwrap_or((name, "unknown"));
        common::fixture(
            &format!("compare-pair-{name}-{noise}.mkv"),
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("testsrc2=s=192x120:r=10:d=0.3,format={format},noise=alls={noise}:allf=t"),
                "-c:v",
                "ffv1",
                "-color_range",
                range,
            ],
        )
    };
    for (reference, judged) in [
        ("yuv422p10le", "yuv420p"),
        ("yuv444p", "yuv420p"),
        ("yuv420p", "yuv444p"),
        ("yuv411p", "yuv420p"),
        ("yuv420p", "yuv411p"),
        ("yuv410p", "yuv420p"),
        ("gray", "yuv420p"),
        ("yuv420p", "gray-tv"),
    ] {
        let (reference, judged) = (clip(reference, 5), clip(judged, 20));
        let (a, b) = (reference.to_str().unwrap(), judged.to_str().unwrap());
        let (psnr, ssim) = (ffmpeg(&reference, &judged, "psnr"), ffmpeg(&reference, &judged, "ssim"));
        assert_eq!(psnr.len(), 3, "{a} {b}");
        for more in [&[][..], &["--cpu"]] {
            let lines = compare_lines(&[&[a, b][..], more].concat());
            check_named(&lines, &psnr, &ssim, &["y", "u", "v"]);
        }
    }
}

#[test]
fn a_sampling_changed_mid_stream_is_measured_converted_into_the_first() {
    // NTSC DV (4:1:1) joined to DVCPRO50 (4:2:2) of the same size: measured as decoded at
    // first, then converted into 4:1:1 with a warning (not read as 4:1:1 planes), every
    // frame, on both paths.
    let part = |source: &str, format: &str| {
        common::fixture(
            &format!("compare-{source}-{format}.dv"),
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("{source}=s=720x480:r=30000/1001:d=0.2"),
                "-pix_fmt",
                format,
                "-c:v",
                "dvvideo",
            ],
        )
    };
    let joined = |source: &str| {
        let path = common::repo_path(&format!("target/fixtures/compare-{source}-joined.dv"));
        let bytes = [part(source, "yuv411p"), part(source, "yuv422p")]
            .map(|p| std::fs::read(p).unwrap())
            .concat();
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let (reference, judged) = (joined("smptebars"), joined("testsrc2"));
    let (a, b) = (reference.to_str().unwrap(), judged.to_str().unwrap());
    // (FFmpeg makes its filters again at the change, and its stats file starts again: its
    // figures of the first part are of the two parts alone.)
    let (first_a, first_b) = (part("smptebars", "yuv411p"), part("testsrc2", "yuv411p"));
    let (psnr, ssim) = (
        ffmpeg(&first_a, &first_b, "psnr"),
        ffmpeg_c_code(&first_a, &first_b, "ssim"),
    );
    assert_eq!(psnr.len(), 6);
    // FFmpeg's filters, made again at the change, measure the joined files' frames after it (its
    // stats file begins again there, the frame of the change dropped): converted into 4:1:1
    // by its automatic conversion, they are histoplay's.
    let second = ffmpeg_stats(
        &[],
        &reference,
        &judged,
        "[0:v]format=yuv411p[a];[1:v]format=yuv411p[b];[a][b]psnr",
    );
    assert_eq!(second.len(), 5);
    for more in [&[][..], &["--cpu"]] {
        let (lines, err) = compare_run(&[&[a, b][..], more].concat());
        assert_eq!(lines.len(), 12, "{err}");
        assert!(err.contains("shown and counted as 8-bit 4:1:1"), "{err}");
        check_named(&lines[..6], &psnr, &ssim, &["y", "u", "v"]);
        for (line, theirs) in lines[7..].iter().zip(&second) {
            for key in ["mse_y", "mse_u", "mse_v", "mse_avg"] {
                assert!(
                    agrees(number(line, key), common::stats_value(theirs, key), 2),
                    "{key}: {line} / {theirs:?}"
                );
            }
        }
    }
}

#[test]
fn a_judged_file_of_another_size_or_depth_is_converted_as_ffmpegs_bicubic_scale_converts_it() {
    let (reference, encode10) = (pair(8).0, pair(10).1);
    let small = common::fixture(
        "compare-small.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x90:r=25:d=0.4",
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    let a = reference.to_str().unwrap();
    let scale = "[1:v]scale=324:188:flags=bicubic+accurate_rnd+full_chroma_int,format=yuv420p";
    for judged in [&small, &encode10] {
        let (lines, err) = compare_run(&[a, judged.to_str().unwrap()]);
        // One warning says so, and no other.
        assert!(
            err.contains("warning: ") && err.contains("converted to 324x188, Y'CbCr 4:2:0, 8 bits (bicubic)"),
            "{err}"
        );
        assert_eq!(err.matches("warning: ").count(), 1, "{err}");
        let psnr = ffmpeg_graph(&reference, judged, scale, "psnr");
        let ssim = ffmpeg_graph(&reference, judged, scale, "ssim");
        check_lines(&lines, &psnr[..lines.len()], &ssim[..lines.len()]);
        assert!(lines.len() >= 5);
    }
}

#[test]
fn a_judged_file_of_the_other_range_is_converted_into_the_references_as_ffmpeg_converts_it() {
    let (reference, _) = pair(8);
    // The reference as a camera's or a still's JPEG frames would have it: full range (yuvj420p).
    let jpeg = common::fixture(
        "compare-full-range.avi",
        &[
            "-i",
            reference.to_str().unwrap(),
            "-c:v",
            "mjpeg",
            "-q:v",
            "3",
            "-pix_fmt",
            "yuvj420p",
        ],
    );
    // Full range in a yuv420p10 stream, told by its tag alone.
    let tagged = common::fixture(
        "compare-full-range-10.mkv",
        &[
            "-i",
            reference.to_str().unwrap(),
            "-vf",
            "scale=out_range=full,format=yuv420p10le",
            "-color_range",
            "pc",
            "-c:v",
            "ffv1",
        ],
    );
    // FFmpeg's psnr and ssim themselves: the judged file converted into the reference's
    // format by the scale filter before them, which takes a frame's range from its tag.
    for (a, b, from, to) in [
        // Limited against full, full against limited, across depths too.
        (&reference, &jpeg, "8 bits, full", "8 bits, limited"),
        (&jpeg, &reference, "8 bits, limited", "8 bits, full"),
        (&reference, &tagged, "10 bits, full", "8 bits, limited"),
    ] {
        let (lines, err) = compare_run(&[a.to_str().unwrap(), b.to_str().unwrap()]);
        assert!(
            err.contains(&format!(
                "4:2:0, {from} range: converted to 324x188, Y'CbCr 4:2:0, {to} range (bicubic)"
            )),
            "{err}"
        );
        assert_eq!(lines.len(), 10, "{err}");
        check_lines(&lines, &ffmpeg(a, b, "psnr"), &ffmpeg(a, b, "ssim"));
        // The same pictures: near, where raw codes of the two ranges would be ~20 dB apart.
        assert!(lines.iter().all(|l| number(l, "psnr_y") > 40.0), "{lines:?}");
    }
    // Two files of one format, one tagged full range: FFmpeg's filters take them code for
    // code, unconverted, and so does compare, with a warning.
    let tagged_8 = common::fixture(
        "compare-full-range-8.mkv",
        &[
            "-i",
            reference.to_str().unwrap(),
            "-vf",
            "scale=out_range=full,format=yuv420p",
            "-color_range",
            "pc",
            "-c:v",
            "ffv1",
        ],
    );
    let (lines, err) = compare_run(&[reference.to_str().unwrap(), tagged_8.to_str().unwrap()]);
    assert!(
        err.contains("tagged limited range and") && err.contains("measured code for code"),
        "{err}"
    );
    check_lines(
        &lines,
        &ffmpeg(&reference, &tagged_8, "psnr"),
        &ffmpeg(&reference, &tagged_8, "ssim"),
    );
    assert!(lines.iter().all(|l| number(l, "psnr_y") < 35.0), "{lines:?}");
}

/// The composite on the GPU equals its CPU twin in every mode, at 8 and 10 bits, in both the
/// packed pixels (what the histograms count) and the texture (what the picture shows).
#[test]
fn the_composite_of_two_frames_is_the_cpu_twins_in_every_mode() {
    use histoplay::compare::composite::{composite_cpu, composite_frame, CompareMode, Composite, CompositePass};
    use histoplay::gpu::texture::GpuFrame;
    let ctx = common::gpu();
    let (w, h) = (67u32, 45u32);
    let kitten = histoplay::kitten(w, h);
    let a8: Vec<u32> = bytemuck::cast_slice(&kitten.pixels).to_vec();
    let b8: Vec<u32> = a8
        .iter()
        .enumerate()
        .map(|(i, &p)| p ^ (((i as u32).wrapping_mul(0x9e37_79b9) >> 29) * 0x0001_0101))
        .collect();
    let widen = |words: &[u32]| -> Vec<u32> {
        words
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let c = |s: u32| ((p >> s) & 255) << 2 | (i as u32 >> s) & 3;
                histoplay::colour::depth::pack_rgb10(c(0), c(8), c(16))
            })
            .collect()
    };
    for bits in [8, 10] {
        let (a, b) = if bits == 8 {
            (a8.clone(), b8.clone())
        } else {
            (widen(&a8), widen(&b8))
        };
        let frame = |label, words: &[u32]| {
            let f = GpuFrame::with_bits(&ctx, label, w, h, bits).unwrap();
            ctx.queue.write_buffer(&f.pixels, 0, bytemuck::cast_slice(words));
            f
        };
        let (fa, fb) = (frame("a", &a), frame("b", &b));
        // A VIF loss map over the whole range: lost, beyond white, and gained.
        let heat: Vec<i32> = (0..(w * h) as i32).map(|i| (i * 977) % 12000 - 3000).collect();
        let heat_buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("heat"),
            size: 4 * heat.len() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue.write_buffer(&heat_buffer, 0, bytemuck::cast_slice(&heat));
        let pass = CompositePass::new(&ctx.device, bits);
        for (mode, split, gain) in [
            (CompareMode::Wipe, 30, 1),
            (CompareMode::SideBySide, 0, 1),
            (CompareMode::Difference, 0, 16),
            (CompareMode::A, 0, 1),
            (CompareMode::B, 0, 1),
            (CompareMode::Vif, 0, 16),
        ] {
            let c = Composite { mode, split, gain };
            let out = composite_frame(&ctx, (w, h), bits, mode).unwrap();
            let binding = pass.bind(&ctx.device, (&fa, &fb), Some(&heat_buffer), &out, c);
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pass.encode(&mut encoder, &binding);
            ctx.queue.submit([encoder.finish()]);
            let expected = composite_cpu(&a, &b, Some(&heat), (w, h), bits, c);
            let bytes = (out.width * out.height * 4) as u64;
            let got = histoplay::gpu::readback::read_buffer(&ctx, &out.pixels, 0, bytes).unwrap();
            let got: &[u32] = bytemuck::cast_slice(&got);
            assert_eq!(got, &expected[..], "{bits} bits, {mode:?}");
            if bits == 8 {
                let texture = histoplay::gpu::readback::read_texture(&ctx, &out.texture).unwrap();
                assert_eq!(
                    bytemuck::cast_slice::<u8, u32>(&texture),
                    &expected[..],
                    "{mode:?} texture"
                );
            }
        }
    }
}

fn png(path: &Path) -> image::RgbaImage {
    image::open(path).unwrap().to_rgba8()
}

fn render(args: &[&str], name: &str) -> image::RgbaImage {
    let out = std::env::temp_dir().join(format!("histoplay-compare-{}-{name}.png", std::process::id()));
    let result = histoplay(&[&["render"], args, &["-o", out.to_str().unwrap()]].concat());
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let image = png(&out);
    std::fs::remove_file(&out).ok();
    image
}

#[test]
fn render_compare_draws_a_left_of_the_line_b_right_of_it_and_their_amplified_difference() {
    let (reference, encode) = pair(8);
    let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    // Each alone, as `render` draws a frame; then the comparisons of frame 4 (B's frame 5 with
    // --offset 1).
    let only_a = render(&[a, "--frame", "4"], "a");
    let only_b = render(&[b, "--frame", "5"], "b");
    let cmp = |mode: &str, name| {
        render(
            &[
                a,
                "--frame",
                "4",
                "--compare",
                b,
                "--offset",
                "1",
                "--compare-mode",
                mode,
                "--split",
                "0.25",
                "--gain",
                "4",
            ],
            name,
        )
    };
    let (wipe, diff, side) = (
        cmp("wipe", "wipe"),
        cmp("difference", "diff"),
        cmp("side-by-side", "side"),
    );
    assert_eq!(cmp("a", "mode-a"), only_a, "A alone is A's render");
    let (w, h) = only_a.dimensions();
    assert_eq!((w, h), (324, 188));
    assert_eq!(side.dimensions(), (648, 188));
    // Above the histogram quads (the bottom third), pixel for pixel.
    let split = (0.25f64 * 324.0).round() as u32;
    let mut differing = 0;
    for y in 0..h / 2 {
        for x in 0..w {
            let (pa, pb) = (only_a.get_pixel(x, y), only_b.get_pixel(x, y));
            let expected = if x < split { pa } else { pb };
            assert_eq!(wipe.get_pixel(x, y), expected, "wipe at {x},{y}");
            assert_eq!(side.get_pixel(x, y), pa, "side by side, left, at {x},{y}");
            assert_eq!(side.get_pixel(x + w, y), pb, "side by side, right, at {x},{y}");
            let amplified: [u8; 3] = std::array::from_fn(|c| (pa[c].abs_diff(pb[c]) as u32 * 4).min(255) as u8);
            assert_eq!(&diff.get_pixel(x, y).0[..3], &amplified, "difference at {x},{y}");
            differing += usize::from(pa != pb);
        }
    }
    assert!(differing > 1000, "the frames differ: {differing} pixels");
}

#[test]
fn bench_pipeline_times_compare_against_decoding_alone_and_ffmpeg() {
    let (reference, encode) = pair(8);
    let out = histoplay(&[
        "bench-pipeline",
        reference.to_str().unwrap(),
        "--compare",
        encode.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(
        lines[1].contains("(ffv1 324x188 yuv420p, software decoding): 10 frames, decode only"),
        "{text}"
    );
    assert!(
        lines[2].contains("(h264 324x188 yuv420p, software decoding): 10 frames, decode only"),
        "{text}"
    );
    assert!(lines[3].starts_with("decode both:  "), "{text}");
    assert!(lines[4].starts_with("compare:      10 pairs at "), "{text}");
    // The pair played in step: every frame due from the first shown to the last was shown or
    // counted as dropped.
    let words: Vec<&str> = lines[5].split_whitespace().collect();
    assert_eq!(&words[..2], ["compare", "paced:"], "{text}");
    let number = |i: usize| -> u64 { words[i].parse().unwrap_or_else(|_| panic!("{text}")) };
    let (shown, due, dropped) = (number(2), number(6), number(8));
    assert_eq!((words[3], words[4], words[5]), ("pairs", "shown", "of"), "{text}");
    assert!(shown >= 1 && due <= 10 && shown + dropped == due, "{text}");
    assert!(
        lines[6].starts_with("ffmpeg:       psnr + ssim filters on the same pair at "),
        "{text}"
    );
}

#[test]
fn aligned_by_time_each_frame_goes_with_the_judged_files_latest_as_ffmpeg_pairs_them() {
    let (reference, _) = pair(8);
    // The reference at 10 frames a second: 4 frames against its 10 at 25.
    let slower = common::fixture(
        "compare-reference-8-at-10fps.mkv",
        &["-i", reference.to_str().unwrap(), "-vf", "fps=10", "-c:v", "ffv1"],
    );
    let (a, b) = (reference.to_str().unwrap(), slower.to_str().unwrap());
    let psnr = ffmpeg(&reference, &slower, "psnr");
    let ssim = ffmpeg(&reference, &slower, "ssim");
    for cpu in [false, true] {
        let args = [a, b, "--compare-by", "time"];
        let lines = compare_lines(&if cpu {
            [&args[..], &["--cpu"]].concat()
        } else {
            args.to_vec()
        });
        let pairs: Vec<(u64, u64)> = lines.iter().map(|l| (l["frame"].u64(), l["frame_b"].u64())).collect();
        // B's frame k is shown from 0.1·k s: A's frames at 0, 0.04, 0.08 go with B's first,
        // and B's last stands for the rest of A's.
        assert_eq!(
            pairs,
            [
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 1),
                (4, 1),
                (5, 2),
                (6, 2),
                (7, 2),
                (8, 3),
                (9, 3)
            ],
            "cpu: {cpu}"
        );
        check_lines(&lines, &psnr, &ssim);
        // Where the 10 fps file kept the very frame, the two are identical.
        let identical: Vec<u64> = lines
            .iter()
            .filter(|l| l["psnr_avg"].is_null())
            .map(|l| l["frame"].u64())
            .collect();
        assert!(!identical.is_empty(), "cpu: {cpu}");
        // From frame 5 on: B starts at its frame for 0.2 s.
        let from_5 = compare_lines(&if cpu {
            [&args[..], &["--frames", "5..", "--cpu"]].concat()
        } else {
            [&args[..], &["--frames", "5.."]].concat()
        });
        assert_eq!(
            from_5.iter().map(|l| l["frame_b"].u64()).collect::<Vec<_>>(),
            [2, 2, 2, 3, 3]
        );
        // B two of its frames later: A's frames from 0.2 s come after B's end (0.4 s), each
        // measured against B's last, and said so; without the offset none is.
        let mut later = [&["compare"][..], &args[..], &["--offset", "2"]].concat();
        if cpu {
            later.push("--cpu");
        }
        let out = histoplay(&later);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let pairs: Vec<u64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| common::json(l)["frame_b"].u64())
            .collect();
        assert_eq!(pairs, [2, 2, 2, 3, 3, 3, 3, 3, 3, 3], "cpu: {cpu}");
        let err = String::from_utf8_lossy(&out.stderr);
        let note = format!(
            "note: 5 of the frames of '{a}' measured come after '{b}' ends (0.400 s from its start, aligned by time): each is measured against its last frame, as FFmpeg's filters repeat it"
        );
        assert!(err.lines().any(|l| l == note), "cpu: {cpu}: {err}");
        let out = histoplay(&[&["compare"][..], &args[..], if cpu { &["--cpu"][..] } else { &[] }].concat());
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("come after"),
            "cpu: {cpu}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("fps"),
            "paired by time: no word of the rates"
        );
    }
    // The other way round, the 25 fps file's frames after the 10 fps file's last (0.3 s) are
    // each measured against it, as FFmpeg's filters go on to the end of the longer input.
    let psnr = ffmpeg(&slower, &reference, "psnr");
    let ssim = ffmpeg(&slower, &reference, "ssim");
    for cpu in [false, true] {
        let mut args = vec!["compare", b, a, "--compare-by", "time"];
        if cpu {
            args.push("--cpu");
        }
        let out = histoplay(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<_> = String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect();
        let pairs: Vec<(u64, u64, f64)> = lines
            .iter()
            .map(|l| (l["frame"].u64(), l["frame_b"].u64(), number(l, "pts")))
            .collect();
        assert_eq!(
            pairs,
            [
                (0, 0, 0.0),
                (1, 2, 0.1),
                (2, 5, 0.2),
                (3, 7, 0.3),
                (3, 8, 0.32),
                (3, 9, 0.36)
            ],
            "cpu: {cpu}"
        );
        check_lines(&lines, &psnr, &ssim);
        let note = format!(
            "note: 2 of the frames of '{a}' measured come after '{b}' ends (aligned by time): each is measured against its last frame, as FFmpeg's filters repeat it"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.lines().any(|l| l == note), "cpu: {cpu}: {err}");
        // A range that ends picks the reference's frames: none past it.
        let ranged = histoplay(&[&args[..], &["--frames", "0..4"]].concat());
        let lines = String::from_utf8_lossy(&ranged.stdout).lines().count();
        assert_eq!(lines, 4, "cpu: {cpu}");
        assert!(!String::from_utf8_lossy(&ranged.stderr).contains("come after"));
    }
    // The 25 fps file 10 of its frames (0.4 s) later starts after the other's last frame
    // (0.3 s): each of its frames is measured against that one, at its own time, as FFmpeg
    // measures the judged file delayed as much.
    let psnr = ffmpeg_graph(&slower, &reference, "[1:v]setpts=PTS+0.4/TB", "psnr");
    let ssim = ffmpeg_graph(&slower, &reference, "[1:v]setpts=PTS+0.4/TB", "ssim");
    for cpu in [false, true] {
        let mut args = vec!["compare", b, a, "--compare-by", "time", "--offset", "-10"];
        if cpu {
            args.push("--cpu");
        }
        let out = histoplay(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<_> = String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect();
        let pairs: Vec<(u64, u64, f64)> = lines
            .iter()
            .map(|l| (l["frame"].u64(), l["frame_b"].u64(), number(l, "pts")))
            .collect();
        let expected: Vec<(u64, u64, f64)> = (0..10).map(|k| (3, k, (400 + 40 * k) as f64 / 1000.0)).collect();
        assert_eq!(pairs, expected, "cpu: {cpu}");
        check_lines(&lines, &psnr, &ssim);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "note: 10 of the frames of '{a}' measured come after '{b}' ends"
            )),
            "cpu: {cpu}: {err}"
        );
        assert!(!err.contains("asked for have a partner"), "cpu: {cpu}: {err}");
    }
    // The VMAF log numbers those pairs from the reference's last frame on, none left out.
    let log = std::env::temp_dir().join(format!("histoplay-vmaf-after-{}.json", std::process::id()));
    let out = histoplay(&[
        "compare",
        b,
        a,
        "--compare-by",
        "time",
        "--offset",
        "-10",
        "--cpu",
        "--vmaf-log",
        log.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logged: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let numbers: Vec<u64> = logged["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["frameNum"].u64())
        .collect();
    assert_eq!(numbers, (3..13).collect::<Vec<u64>>());
    let _ = std::fs::remove_file(&log);
    // Paired by number (the default), the two rates are said, and how to pair them by time.
    let (_, err) = compare_run(&[a, b, "--frames", "0..2"]);
    let note = format!(
        "note: '{a}' is 25 fps and '{b}' 10 fps: their frames pair by number, frame K with frame K (--compare-by time pairs each with the other's frame shown at its time, as FFmpeg's filters do)"
    );
    assert!(err.lines().any(|l| l == note), "{err}");
}

/// Two files compare can't measure together (R'G'B' against Y'CbCr), of other rates: the error
/// alone, not the rates' note before it.
#[test]
fn a_pair_that_cant_be_measured_is_one_error_line() {
    let picture = common::fixture(
        "compare-bars.png",
        &["-f", "lavfi", "-i", "smptebars=s=64x48", "-frames:v", "1"],
    );
    let (reference, _) = pair(8);
    let video = common::fixture(
        "compare-reference-8-at-10fps.mkv",
        &["-i", reference.to_str().unwrap(), "-vf", "fps=10", "-c:v", "ffv1"],
    );
    let out = histoplay(&["compare", picture.to_str().unwrap(), video.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("compare measures two R'G'B' files, or two Y'CbCr or grey ones"),
        "{err}"
    );
    // A still picture (a JPEG of the same frame) has no rate: nothing is said of rates.
    let still = common::fixture(
        "compare-reference-8-frame-0.jpg",
        &["-i", reference.to_str().unwrap(), "-frames:v", "1", "-q:v", "2"],
    );
    let (pairs, err) = compare_run(&[still.to_str().unwrap(), video.to_str().unwrap()]);
    assert_eq!(pairs.len(), 1, "{err}");
    assert!(!err.contains("pair by number"), "{err}");
}

#[test]
fn render_compare_aligned_by_time_shows_the_judged_files_latest_frame() {
    let (reference, _) = pair(8);
    let slower = common::fixture(
        "compare-reference-8-at-10fps.mkv",
        &["-i", reference.to_str().unwrap(), "-vf", "fps=10", "-c:v", "ffv1"],
    );
    let (a, b) = (reference.to_str().unwrap(), slower.to_str().unwrap());
    // The reference's frames 1 (0.04 s) and 3 (0.12 s) go with the 10 fps file's frames 0 and 1.
    for (frame, frame_b) in [("1", "0"), ("3", "1")] {
        let shown = render(
            &[
                a,
                "--frame",
                frame,
                "--compare",
                b,
                "--compare-by",
                "time",
                "--compare-mode",
                "b",
            ],
            &format!("time-{frame}"),
        );
        assert_eq!(
            shown,
            render(&[b, "--frame", frame_b], &format!("b-{frame_b}")),
            "frame {frame}"
        );
    }
}

/// The metrics pass reads every layout it takes as the CPU twin does: NV12 and P010 (what
/// hardware decoders give, their chroma interleaved, P010's 10 bits at the top of 16), grey,
/// and 12 bits, the deepest it takes.
#[test]
fn the_gpu_pass_reads_nv12_p010_grey_and_12_bits_as_the_cpu_twin_does() {
    use histoplay::colour::ColorSpec;
    use histoplay::video::format::{FrameFormat, PlaneLayout};
    let ctx = common::gpu();
    let (w, h) = (70u32, 38u32);
    // A plane of `rows` rows of `row_bytes`, from a value per byte offset (seeded per frame).
    let plane = |row_bytes: usize, rows: usize, seed: u32| -> (Vec<u8>, usize) {
        let stride = row_bytes + 16;
        let data = (0..stride * rows)
            .map(|i| {
                (((i as u32).wrapping_mul(2654435761) >> 24) ^ ((i as u32 ^ seed).wrapping_mul(0x85eb_ca6b) >> 30))
                    as u8
            })
            .collect();
        (data, stride)
    };
    for (layout, bits) in [
        (PlaneLayout::Nv12, 8),
        (PlaneLayout::P010, 10),
        (PlaneLayout::Gray { bits: 8 }, 8),
        (PlaneLayout::Gray { bits: 10 }, 10),
        // 12 bits: the window's terms in the shader's 64-bit words, to their limit.
        (PlaneLayout::Gray { bits: 12 }, 12),
        (
            PlaneLayout::Yuv {
                chroma_shift_x: 1,
                chroma_shift_y: 1,
                bits: 12,
            },
            12,
        ),
    ] {
        let format = FrameFormat {
            layout,
            width: w,
            height: h,
            color: ColorSpec::resolve(None, None, w, h, false),
        };
        let bytes = if bits > 8 { 2 } else { 1 };
        let frame = |seed: u32| -> Vec<(Vec<u8>, usize)> {
            let mut planes = vec![plane(w as usize * bytes, h as usize, seed)];
            let (cw, ch) = (w.div_ceil(2) as usize, h.div_ceil(2) as usize);
            match layout.plane_count() {
                2 => planes.push(plane(cw * 2 * bytes, ch, seed ^ 0x5555)),
                3 => planes.extend([0x5555, 0xaaaa].map(|k| plane(cw * bytes, ch, seed ^ k))),
                _ => {}
            }
            // Samples of 10 and 12 bits in 16 stay below 2^bits, as decoders give them (P010
            // keeps its 10 at the top, the rest ignored).
            if bits > 8 && layout != PlaneLayout::P010 {
                for (data, _) in &mut planes {
                    data.chunks_exact_mut(2).for_each(|s| s[1] &= (1u8 << (bits - 8)) - 1);
                }
            }
            planes
        };
        let (fa, fb) = (frame(1), frame(2));
        fn view(f: &[(Vec<u8>, usize)]) -> Vec<histoplay::video::format::PlaneData<'_>> {
            f.iter()
                .map(|(data, stride)| histoplay::video::format::PlaneData { data, stride: *stride })
                .collect()
        }
        let (pa, pb) = (view(&fa), view(&fb));
        let pass = MetricsPass::new(&ctx.device, &format).unwrap();
        let (sa, sb) = (
            PlaneTextures::new(&ctx.device, "a", format).unwrap(),
            PlaneTextures::new(&ctx.device, "b", format).unwrap(),
        );
        sa.upload(&ctx.queue, &pa).unwrap();
        sb.upload(&ctx.queue, &pb).unwrap();
        let binding = pass.bind(&ctx.device, &sa, &sb);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode(&mut encoder, &binding);
        ctx.queue.submit([encoder.finish()]);
        let bytes = histoplay::gpu::readback::read_buffer(&ctx, pass.sums(), 0, MetricsPass::sums_size()).unwrap();
        let gpu = pass.read(&bytes);
        let (ca, bits_a) = components(&format, &pa).unwrap();
        let (cb, _) = components(&format, &pb).unwrap();
        assert_eq!(bits_a, bits);
        assert_eq!(gpu.len(), ca.len(), "{layout}");
        for (c, g) in gpu.iter().enumerate() {
            let k = component_sums(&ca[c], &cb[c], bits);
            assert_eq!(g.sse, k.sse, "{layout}, component {c}");
            assert!(
                k.sse > 0 && g.ssim.abs_diff(k.ssim) <= ssim_windows(ca[c].width, ca[c].height) / 1000,
                "{layout}, component {c}: GPU {g:?}, CPU {k:?}"
            );
        }
    }
}

/// The numbers of a line of `key:value` pairs (FFmpeg's summary, or ours), in order.
fn summary_numbers(line: &str) -> Vec<f64> {
    line.split([' ', '(', ')'])
        .filter_map(|t| t.rsplit(':').next())
        .filter_map(|v| {
            if v == "inf" {
                Some(f64::INFINITY)
            } else {
                v.parse().ok()
            }
        })
        .collect()
}

#[test]
fn compare_ends_with_ffmpegs_summary_of_the_run_on_stderr() {
    let (reference, encode) = pair(10);
    let out = histoplay(&["compare", reference.to_str().unwrap(), encode.to_str().unwrap()]);
    assert!(out.status.success());
    let ours = String::from_utf8(out.stderr).unwrap();
    let theirs = Command::new("ffmpeg")
        .args(["-hide_banner", "-i"])
        .arg(&reference)
        .arg("-i")
        .arg(&encode)
        .args([
            "-lavfi",
            "[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]psnr[p];[a2][b2]ssim[s]",
        ])
        .args(["-map", "[p]", "-f", "null", "-", "-map", "[s]", "-f", "null", "-"])
        .output()
        .unwrap();
    let theirs = String::from_utf8(theirs.stderr).unwrap();
    for kind in ["PSNR y:", "SSIM Y:"] {
        let find = |text: &str| {
            text.lines()
                .find_map(|l| l.find(kind).map(|at| l[at..].to_string()))
                .unwrap_or_else(|| panic!("no {kind} in {text}"))
        };
        let (a, b) = (summary_numbers(&find(&ours)), summary_numbers(&find(&theirs)));
        assert_eq!(a.len(), b.len(), "{ours} / {theirs}");
        assert!(a.len() >= 6);
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x - y).abs() <= 1.5e-6 * y.abs().max(1.0) * 10.0,
                "{kind}: {x} against FFmpeg's {y}"
            );
        }
    }
    // Pictures of 7x7 have no SSIM window: its figures are 0/0, printed as FFmpeg's C code
    // prints them (U and V of 4:2:0, 4x4, have no row of windows either, and read 0).
    let small = |name: &str, chain: &str| {
        common::fixture(
            name,
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("testsrc2=s=7x7:r=25:d=0.2,format=yuv420p{chain}"),
                "-c:v",
                "ffv1",
            ],
        )
    };
    let (a, b) = (
        small("compare-7x7.mkv", ""),
        small("compare-7x7-noisy.mkv", ",noise=alls=20:allf=t"),
    );
    let out = histoplay(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(out.status.success());
    let theirs = Command::new("ffmpeg")
        .args(["-hide_banner", "-cpuflags", "0", "-i"])
        .arg(&a)
        .arg("-i")
        .arg(&b)
        .args(["-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"])
        .output()
        .unwrap();
    let theirs = String::from_utf8(theirs.stderr).unwrap();
    let ssim = |text: &str| {
        text.lines()
            .find_map(|l| l.find("SSIM Y:").map(|at| l[at..].to_string()))
    };
    let ours = ssim(&String::from_utf8(out.stderr).unwrap());
    assert_eq!(
        ours.as_deref(),
        Some("SSIM Y:-nan (inf) U:0.000000 (0.000000) V:0.000000 (0.000000) All:-nan (inf)")
    );
    assert_eq!(ours, ssim(&theirs));
}

#[test]
fn the_comparison_stage_composites_counts_and_measures_a_pair_as_its_cpu_twins_do() {
    use histoplay::colour::{ColorSpec, ColorVolume, Depth};
    use histoplay::compare::composite::{composite_cpu, CompareMode, Composite};
    use histoplay::engine::histogram::packed_bins;
    use histoplay::gpu::texture::GpuFrame;
    use histoplay::pipeline::comparison::{CompareStage, PairTag};
    use histoplay::pipeline::FramePipeline;
    use histoplay::scope::{column_scope, ScopeKind, DEFAULT_COLUMNS};
    use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};
    let ctx = common::gpu();
    let (w, h) = (64u32, 48u32);
    let format = FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        width: w,
        height: h,
        color: ColorSpec::resolve(None, None, w, h, false),
    };
    // A: ramps; B: A with a pseudo-random error on a third of the samples.
    let plane = |pw: u32, ph: u32, judged: bool| -> Vec<u8> {
        (0..pw * ph)
            .map(|i| {
                let base = (16 + (i % pw) * 3 + (i / pw) * 2) as u8;
                let noise = (i.wrapping_mul(2_654_435_761) >> 28) as u8;
                if judged && noise % 3 == 0 {
                    base.wrapping_add(noise)
                } else {
                    base
                }
            })
            .collect()
    };
    let planes = |judged| {
        [
            plane(w, h, judged),
            plane(w / 2, h / 2, judged),
            plane(w / 2, h / 2, judged),
        ]
    };
    let (fa, fb) = (planes(false), planes(true));
    fn view(f: &[Vec<u8>; 3], w: usize) -> Vec<PlaneData<'_>> {
        f.iter()
            .enumerate()
            .map(|(i, data)| PlaneData {
                data,
                stride: if i == 0 { w } else { w / 2 },
            })
            .collect()
    }
    let (pa, pb) = (view(&fa, w as usize), view(&fb, w as usize));
    let a = FramePipeline::new(&ctx, 256, format, ColorVolume::default(), 2).unwrap();
    let start = Composite {
        mode: CompareMode::Wipe,
        split: 25,
        gain: 8,
    };
    let mut stage = CompareStage::new(&ctx, &a, ColorVolume::default(), start).unwrap();
    stage.set_scope(&ctx, &a, Some(ScopeKind::Waveform)).unwrap();
    a.ring.slots[1].upload(&ctx.queue, &pa).unwrap();
    stage.b.ring.slots[0].upload(&ctx.queue, &pb).unwrap();
    let words = |f: &GpuFrame| -> Vec<u32> {
        let bytes = u64::from(f.width * f.height * 4);
        bytemuck::cast_slice(&histoplay::gpu::readback::read_buffer(&ctx, &f.pixels, 0, bytes).unwrap()).to_vec()
    };
    let (ca, bits) = components(&format, &pa).unwrap();
    let (cb, _) = components(&format, &pb).unwrap();
    let measured = histoplay::compare::metrics::frame_metrics(&ca, &cb, None, bits);
    // VIF's loss map of the pair (its luma), for the heat map.
    let luma = |c: &histoplay::video::format::Component| {
        let mut samples = Vec::new();
        histoplay::compare::vmaf::samples_into(c, &mut samples);
        samples
    };
    let (ya, yb) = (luma(&ca[0]), luma(&cb[0]));
    let as_luma = |data| histoplay::compare::vmaf::luma::Luma {
        data,
        width: w as usize,
        height: h as usize,
        bits,
    };
    let heat = histoplay::compare::vmaf::vif::loss_map(&as_luma(&ya), &as_luma(&yb), &Default::default());
    assert!(heat.iter().any(|&l| l > 0));
    for mode in [
        CompareMode::Wipe,
        CompareMode::SideBySide,
        CompareMode::Difference,
        CompareMode::B,
        CompareMode::Vif,
    ] {
        let composite = Composite { mode, ..start };
        stage.set_composite(&ctx, &a, composite).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        a.encode_frame(&mut encoder, 1);
        let tag = PairTag {
            media: 3,
            frame: 7,
            frame_b: 9,
        };
        stage.encode_pair(&mut encoder, &a, 1, Some((0, tag)));
        ctx.queue.submit([encoder.finish()]);
        stage.submitted();
        ctx.wait_idle().unwrap();

        // The picture: the composite of the two converted frames.
        let (wa, wb) = (words(&a.ring.output), words(&stage.b.ring.output));
        assert_ne!(wa, wb);
        let expected = composite_cpu(&wa, &wb, Some(&heat), (w, h), 8, composite);
        assert_eq!(words(stage.picture()), expected, "{mode:?}");
        // B's histograms, and in difference mode the difference's.
        let counted = |target, pixels: &[u32]| {
            let histogram = stage.b.engine.read_histogram(&ctx, target).unwrap();
            for c in 0..4 {
                let mut cpu = vec![0u32; 256];
                for &word in pixels {
                    cpu[packed_bins(word, 256, Depth::Eight)[c] as usize] += 1;
                }
                assert_eq!(histogram.channel(c), cpu, "{mode:?}, channel {c}");
            }
        };
        counted(&stage.b.target, &wb);
        if let Some(difference) = stage.filled() {
            counted(difference, &expected);
        }
        // The scope counts the picture shown.
        let (pass, target) = stage.scope().expect("a scope");
        let picture = stage.picture();
        assert_eq!(
            pass.read_columns(&ctx, target).unwrap(),
            column_scope(
                ScopeKind::Waveform,
                &expected,
                picture.width,
                DEFAULT_COLUMNS,
                256,
                Depth::Eight
            ),
            "{mode:?} waveform"
        );
        // The pair's metrics, read back for the OSD.
        let (got_tag, metrics) = stage.take_metrics().expect("the metrics landed");
        assert_eq!(got_tag, tag);
        assert_eq!(metrics.mse, measured.mse);
        assert!((metrics.ssim_all - measured.ssim_all).abs() < 1e-6, "{metrics:?}");
    }
}

/// The stats lines of FFmpeg's `filter` between `a` and `b`, each deinterlaced by `deinterlacer`,
/// computed by FFmpeg's C code (`-cpuflags 0`): its x86 SSE4 `ssim_end_line` miscounts a line
/// whose 4x4 blocks less one leave 1 over 4 (these 360-wide chroma planes: 89 windows), adding
/// a window past the line's end in place of its last one; histoplay's SSIM is the C code's.
/// Pictures a frame gives, of a clip of 5 frames giving `pictures`.
fn per_frame_of(pictures: u64) -> usize {
    (pictures / 5) as usize
}

#[test]
fn deinterlaced_pictures_are_paired_and_agree_with_ffmpeg_after_the_same_filter() {
    let reference = common::interlaced_pal_h264();
    let encode = common::interlaced_pal_encode();
    let (a, b) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    for (ours, theirs, pictures) in [
        ("bwdif=mode=send_frame", "bwdif=mode=send_frame", 5),
        ("yadif=send_field", "yadif=mode=send_field", 10),
    ] {
        let args = [a, b, "--deinterlace", "yes", "--deinterlacer", ours];
        let gpu = compare_lines(&args);
        let numbers: Vec<u64> = gpu.iter().map(|l| l["frame"].u64()).collect();
        assert_eq!(numbers, (0..pictures).collect::<Vec<_>>(), "{ours}");
        assert!(gpu.iter().all(|l| l["frame_b"] == l["frame"]));
        let psnr = common::ffmpeg_deinterlaced(&reference, &encode, theirs, "psnr");
        let ssim = common::ffmpeg_deinterlaced(&reference, &encode, theirs, "ssim");
        check_lines(&gpu, &psnr, &ssim);
        let cpu = compare_lines(&[&args[..], &["--cpu"]].concat());
        for (g, c) in gpu.iter().zip(&cpu) {
            for key in ["frame", "mse_y", "mse_u", "mse_v", "mse_avg"] {
                assert_eq!(g[key], c[key], "{ours} --cpu: {key}");
            }
        }
        // An offset counts pictures: A's picture K against B's K-3, from the range's first.
        let offset = compare_lines(&[&args[..], &["--offset", "-3", "--frames", "2..5"]].concat());
        let pairs: Vec<(u64, u64)> = offset.iter().map(|l| (l["frame"].u64(), l["frame_b"].u64())).collect();
        let first = 2 * per_frame_of(pictures) as u64;
        let expected: Vec<(u64, u64)> = (first..first + 3 * per_frame_of(pictures) as u64)
            .filter(|&k| k >= 3)
            .map(|k| (k, k - 3))
            .collect();
        assert_eq!(pairs, expected, "{ours}");
        // A range of frames: its pictures, made with the frames around it.
        let ranged = compare_lines(&[&args[..], &["--frames", "2..4"]].concat());
        let per_frame = (pictures / 5) as usize;
        let from = 2 * per_frame;
        assert_eq!(ranged.len(), 2 * per_frame, "{ours}");
        assert_eq!(ranged[0]["frame"].u64(), from as u64);
        check_lines(
            &ranged,
            &psnr[from..from + 2 * per_frame],
            &ssim[from..from + 2 * per_frame],
        );
    }
}

/// `stored` with a display matrix of `degrees` clockwise (its samples copied as they are).
fn turned(stored: &Path, degrees: &str, extension: &str) -> PathBuf {
    let name = stored.file_stem().unwrap().to_str().unwrap();
    common::fixture(
        &format!("{name}-turned-{degrees}.{extension}"),
        &[
            "-i",
            stored.to_str().unwrap(),
            "-c",
            "copy",
            "-metadata:s:v",
            &format!("rotate={degrees}"),
        ],
    )
}

#[test]
fn a_reference_shown_turned_is_measured_upright_as_ffmpegs_command_line_turns_it() {
    // A phone's portrait clip: stored 324x188 with a display matrix of a quarter turn
    // clockwise (or a half turn, or three quarters), and its encode, which `ffmpeg -i` made
    // upright.
    for (turn, size) in [("90", (188, 324)), ("180", (324, 188)), ("270", (188, 324))] {
        let stored = common::fixture(
            "compare-upright.mp4",
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=s=324x188:r=25:d=0.4",
                "-pix_fmt",
                "yuv420p",
                "-c:v",
                "libx264",
                "-qp",
                "0",
            ],
        );
        let reference = turned(&stored, turn, "mp4");
        let encode = common::fixture(
            &format!("compare-turned-{turn}-encode.mkv"),
            &["-i", reference.to_str().unwrap(), "-c:v", "libx264", "-crf", "38"],
        );
        let (lines, err) = compare_run(&[reference.to_str().unwrap(), encode.to_str().unwrap()]);
        // Nothing was scaled to fit the other: both are upright.
        assert!(!err.contains("warning"), "{turn}: {err}");
        assert_eq!(lines.len(), 10);
        let psnr = ffmpeg(&reference, &encode, "psnr");
        let ssim = ffmpeg_c_code(&reference, &encode, "ssim");
        check_lines(&lines, &psnr, &ssim);
        // Upright, each frame's difference is an encode's (about 30 dB), where the stored
        // reference against the turned encode would differ as two pictures do.
        assert!(lines.iter().all(|l| number(l, "psnr_y") > 25.0), "{turn}: {lines:?}");
        let stored = VideoSource::open(&encode).unwrap();
        assert_eq!((stored.info.format.width, stored.info.format.height), size);
    }
}

#[test]
fn a_reference_whose_chroma_cant_be_turned_is_refused_in_one_line() {
    let stored = common::fixture(
        "compare-upright-422.mov",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x90:r=25:d=0.2",
            "-pix_fmt",
            "yuv422p",
            "-c:v",
            "libx264",
        ],
    );
    let reference = turned(&stored, "90", "mov");
    let upright = pair(8).0;
    let out = histoplay(&["compare", reference.to_str().unwrap(), upright.to_str().unwrap()]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: '")
            && err.contains("is shown turned a quarter turn")
            && err.contains("its yuv422p frames can't be turned as they are"),
        "{err}"
    );
    // Against itself (both turned alike) it is measured as stored.
    let (lines, err) = compare_run(&[reference.to_str().unwrap(), reference.to_str().unwrap()]);
    assert!(
        err.contains("both shown turned") && err.contains("measured as stored"),
        "{err}"
    );
    assert_eq!(lines.len(), 5);
    assert!(lines
        .iter()
        .all(|l| l["psnr_y"].is_null() && number(l, "ssim_all") == 1.0));
}

#[test]
fn aligned_by_time_a_video_that_starts_after_its_sound_starts_as_late_as_ffmpeg_counts_it() {
    // The encode's picture 0.2 s after its sound (which starts at 0): FFmpeg counts each
    // file's times from its start, so the reference's first five frames have no partner.
    let (reference, encode) = pair(8);
    let late = common::fixture(
        "compare-encode-8-picture-late.mkv",
        &[
            "-itsoffset",
            "0.2",
            "-i",
            encode.to_str().unwrap(),
            "-f",
            "lavfi",
            "-i",
            "sine=d=0.6",
            "-map",
            "0:v",
            "-map",
            "1:a",
            "-c:v",
            "copy",
            "-c:a",
            "pcm_s16le",
        ],
    );
    let (lines, err) = compare_run(&[
        reference.to_str().unwrap(),
        late.to_str().unwrap(),
        "--compare-by",
        "time",
    ]);
    let psnr = ffmpeg(&reference, &late, "psnr");
    let ssim = ffmpeg_c_code(&reference, &late, "ssim");
    // (Frames 5 to 9 with the encode's 0 to 4; then the encode's 5 to 9 against the
    // reference's last, as FFmpeg repeats it.)
    let pairs: Vec<(u64, u64)> = lines.iter().map(|l| (l["frame"].u64(), l["frame_b"].u64())).collect();
    assert_eq!(pairs[..5], [(5, 0), (6, 1), (7, 2), (8, 3), (9, 4)], "{err}");
    assert_eq!(lines.len(), psnr.len(), "{err}");
    check_lines(&lines, &psnr, &ssim);
    assert!(err.contains("note: 5 of the 10 frames of "), "{err}");
}

#[test]
fn frames_left_unmeasured_are_put_down_to_the_file_that_lacks_them() {
    // A reference whose container lists 30 frames, cut short: its last frames can't be read.
    let whole = common::fixture(
        "compare-cut-whole.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=1.2",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "5",
            "-movflags",
            "+faststart",
        ],
    );
    let bytes = std::fs::read(&whole).unwrap();
    let cut = whole.with_file_name(format!("compare-cut-{}.mp4", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).unwrap();
    let (whole_name, cut_name) = (whole.to_str().unwrap(), cut.to_str().unwrap());
    // The cut file as the reference: its own frames end; the judged file had more.
    let (lines, err) = compare_run(&[cut_name, whole_name]);
    assert!(lines.len() < 30, "{err}");
    // (Of the frames the file was found to hold once its end was read: fewer than listed.)
    let note = err.lines().find(|l| l.starts_with("note: ")).unwrap_or_default();
    assert!(note.starts_with(&format!("note: {} of the ", lines.len())), "{err}");
    assert!(
        note.contains(&format!(
            "frames of '{cut_name}' asked for have a partner in '{whole_name}' (the rest could not be read from '{cut_name}')"
        )),
        "{err}"
    );
    // The cut file judged: it ends first.
    let (lines, err) = compare_run(&[whole_name, cut_name]);
    assert!(
        err.contains(&format!(
            "note: {} of the 30 frames of '{whole_name}' asked for have a partner in '{cut_name}' ('{cut_name}' ends first)",
            lines.len()
        )),
        "{err}"
    );
    let _ = std::fs::remove_file(&cut);
    // Aligned by time, the judged file's last frame stands for it past its end: frames left
    // without a partner are the offset's (here the reference's first five), not its end's.
    let long = common::fixture(
        "compare-time-20.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.8", "-c:v", "ffv1"],
    );
    let short = common::fixture(
        "compare-time-10.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.4", "-c:v", "ffv1"],
    );
    let (long, short) = (long.to_str().unwrap(), short.to_str().unwrap());
    let (lines, err) = compare_run(&[long, short, "--compare-by", "time", "--offset=-5"]);
    assert_eq!(lines.len(), 15, "{err}");
    assert!(
        err.contains(&format!(
            "note: 15 of the 20 frames of '{long}' asked for have a partner in '{short}' (the offset, or where '{short}' starts, leaves the rest without one)"
        )),
        "{err}"
    );
}
