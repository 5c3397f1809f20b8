//! Comparing an encode with its reference: the metrics agree with FFmpeg's `psnr` and `ssim`
//! filters (the oracle) on every frame, at 8 and 10 bits, to the precision their stats files
//! print.

mod common;

use histoplay::compare::gpu::MetricsPass;
use histoplay::compare::metrics::{
    component_sums, components, frame_metrics, ssim_windows, ComponentSums, FrameMetrics,
};
use histoplay::gpu::GpuContext;
use histoplay::video::convert::PlaneTextures;
use histoplay::video::source::VideoSource;
use std::path::{Path, PathBuf};

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
        out.push(frame_metrics(&ca, &cb, bits));
    }
    out
}

/// FFmpeg's stats file lines for `filter` (`psnr` or `ssim`) of `a` against `b`, each as its
/// `key:value` pairs.
fn ffmpeg(a: &Path, b: &Path, filter: &str) -> Vec<Vec<(String, String)>> {
    let name = b.file_stem().unwrap().to_string_lossy();
    let stats = std::env::temp_dir().join(format!("histoplay-{filter}-{name}-{}.log", std::process::id()));
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(a)
        .arg("-i")
        .arg(b)
        .arg("-lavfi")
        .arg(format!("[0:v][1:v]{filter}=stats_file={}", stats.display()))
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::remove_file(&stats).ok();
    text.lines()
        .map(|line| {
            line.split_whitespace()
                .filter_map(|kv| kv.split_once(':'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn value(line: &[(String, String)], key: &str) -> f64 {
    let v = &line
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("{key} in {line:?}"))
        .1;
    if v == "inf" {
        f64::INFINITY
    } else {
        v.parse().unwrap()
    }
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
            assert!(agrees(m.mse[i], value(p, &format!("mse_{c}")), 2), "mse_{c}: {at}");
            let psnr = m.psnr[i].unwrap_or(f64::INFINITY);
            let theirs = value(p, &format!("psnr_{c}"));
            assert!(psnr == theirs || agrees(psnr, theirs, 2), "psnr_{c}: {at}");
            assert!(agrees(m.ssim[i], value(s, &c.to_uppercase()), 6), "ssim {c}: {at}");
        }
        assert!(agrees(m.mse_avg, value(p, "mse_avg"), 2), "mse_avg: {at}");
        assert!(agrees(m.psnr_avg.unwrap(), value(p, "psnr_avg"), 2), "psnr_avg: {at}");
        assert!(agrees(m.ssim_all, value(s, "All"), 6), "All: {at}");
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
