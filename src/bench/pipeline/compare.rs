//! `bench-pipeline A --compare B`: what `histoplay compare` costs against decoding alone. Each
//! file decoded alone (the best of two), then the comparison as `compare` runs it (both files
//! on the player's decode threads, the metrics stage on the GPU, every result read back), and,
//! where an `ffmpeg` is on the PATH, FFmpeg's own `psnr` and `ssim` filters on the same pair.

use super::decode_rate;
use crate::cli::compare::{compare_gpu, CompareJob};
use crate::cli::hist::FrameRange;
use crate::cli::progress::Progress;
use crate::gpu::GpuContext;
use crate::video::source::VideoSource;
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub fn run(a: &Path, b: &Path, out: &mut impl Write) -> Result<()> {
    let ctx = GpuContext::new()?;
    writeln!(out, "adapter: {}", ctx.describe())?;
    let mut decode = Vec::new();
    for path in [a, b] {
        let info = VideoSource::open(path)?.info.clone();
        let (frames, best) = decode_rate(path)?;
        writeln!(
            out,
            "file: {} ({} {}x{} {}, {} decoding): {frames} frames, decode only {best:.1} fps (best of 2)",
            path.display(),
            info.codec,
            info.format.width,
            info.format.height,
            info.pixel_format,
            info.hwdec.unwrap_or("software"),
        )?;
        decode.push(best);
    }
    let slower = decode.iter().copied().fold(f64::INFINITY, f64::min);
    let job = CompareJob {
        range: FrameRange { start: 0, end: None },
        offset: 0,
        by: Default::default(),
        csv: false,
        cpu: false,
    };
    let mut best = 0.0f64;
    let mut compared = 0;
    for _ in 0..2 {
        let (sa, mut sb) = (VideoSource::open(a)?, VideoSource::open(b)?);
        crate::cli::compare::match_pair(&sa, &mut sb)?;
        let start = Instant::now();
        let mut sum = 0.0;
        compared = compare_gpu(&ctx, sa, sb, &job, &mut Progress::hidden(), &mut |c| {
            sum += c.metrics.ssim_all;
            Ok(())
        })?;
        best = best.max(compared as f64 / start.elapsed().as_secs_f64());
        // Every result was read: the work is not skipped.
        assert!(sum.is_finite());
    }
    writeln!(
        out,
        "compare:      {compared} pairs at {best:.1} fps ({:.1}% of the slower file's decode-only), \
         PSNR + SSIM of every pair read back (best of 2, opening included)",
        100.0 * best / slower
    )?;
    match ffmpeg_rate(a, b, compared) {
        Some(fps) => writeln!(
            out,
            "ffmpeg:       psnr + ssim filters on the same pair at {fps:.1} fps (histoplay {:.1}x as fast)",
            best / fps
        )?,
        None => writeln!(out, "ffmpeg:       not on the PATH (or it failed): no comparison")?,
    }
    Ok(())
}

/// FFmpeg's psnr and ssim filters over the pair, in frames per second.
fn ffmpeg_rate(a: &Path, b: &Path, frames: u64) -> Option<f64> {
    let graph = "[0:v]split[a1][a2];[1:v]split[b1][b2];[a1][b1]psnr=stats_file=/dev/null[p];\
                 [a2][b2]ssim=stats_file=/dev/null[s]";
    let start = Instant::now();
    let status = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(a)
        .arg("-i")
        .arg(b)
        .args([
            "-filter_complex",
            graph,
            "-map",
            "[p]",
            "-f",
            "null",
            "-",
            "-map",
            "[s]",
            "-f",
            "null",
            "-",
        ])
        .status()
        .ok()?;
    status.success().then(|| frames as f64 / start.elapsed().as_secs_f64())
}
