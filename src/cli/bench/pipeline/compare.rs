//! `bench-pipeline A --compare B`: what `histoplay compare` costs against decoding alone. Each
//! file decoded alone (the best of two), then the comparison as `compare` runs it (both files
//! on the player's decode threads, the metrics stage on the GPU, every result read back; timed
//! to the last result, and to the end of the decoders' teardown after it), and,
//! where an `ffmpeg` is on the PATH, FFmpeg's own `psnr` and `ssim` filters on the same pair;
//! then the pair played in step at its own rate as the window plays it (`histoplay A --compare
//! B`: paired decoding, both pipelines, the comparison stage, the picture drawn offscreen).

use super::decode_only::{decode_only, decode_rate, stream_text, throughput_rate, throughput_text};
use crate::compare::vmaf::{load_model, Vmaf, DEFAULT_MODEL};
use crate::gpu::GpuContext;
use crate::headless::compare::{compare_gpu, CompareJob};
use crate::headless::progress::Progress;
use crate::headless::FrameRange;
use crate::video::source::{Decoding, VideoSource};
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub fn run(a: &Path, b: &Path, vmaf: bool, out: &mut impl Write) -> Result<()> {
    let ctx = GpuContext::new()?;
    writeln!(out, "adapter: {}", ctx.describe())?;
    let (mut playing, mut decode) = (Vec::new(), Vec::new());
    for path in [a, b] {
        let info = VideoSource::open(path)?.info.clone();
        let (frames, best, _) = decode_rate(path, Decoding::Playing)?;
        let throughput = throughput_rate(path, best)?;
        writeln!(
            out,
            "file: {} ({}): {frames} frames, decode only {best:.1} fps as the player decodes (best of 2){}",
            path.display(),
            stream_text(&info),
            throughput_text(best, throughput),
        )?;
        playing.push(best);
        decode.push(throughput);
    }
    let slowest = |rates: &[f64]| rates.iter().copied().fold(f64::INFINITY, f64::min);
    let (slower, slower_playing) = (slowest(&decode), slowest(&playing));
    let together = decode_together(a, b)?;
    writeln!(
        out,
        "decode both:  {together:.1} fps, the two files decoded at once and nothing else (best of 2)"
    )?;
    let job = CompareJob {
        range: FrameRange { start: 0, end: None },
        offset: 0,
        by: Default::default(),
        csv: false,
        cpu: false,
        deinterlace: None,
    };
    let (mut best, mut whole) = (0.0f64, 0.0f64);
    let mut compared = 0;
    for _ in 0..2 {
        let (sa, mut sb) = (
            VideoSource::open_for(a, Decoding::Throughput)?,
            VideoSource::open_for(b, Decoding::Throughput)?,
        );
        crate::compare::align::match_pair(&sa, &mut sb)?;
        let model = if vmaf {
            Some(load_model(DEFAULT_MODEL).map(Vmaf::new).map_err(anyhow::Error::msg)?)
        } else {
            None
        };
        let start = Instant::now();
        let (mut sum, mut last) = (0.0, start);
        compared = compare_gpu(&ctx, sa, sb, &job, model, &mut Progress::hidden(), &mut |c| {
            sum += c.metrics.ssim_all + c.vmaf.map_or(0.0, |v| v.vmaf);
            last = Instant::now();
            Ok(())
        })?
        .pairs;
        // To the last pair's result, as decoding alone is timed to its last frame; the
        // decoders' teardown after it, which decoding alone leaves out, shown beside.
        best = best.max(compared as f64 / (last - start).as_secs_f64());
        whole = whole.max(compared as f64 / start.elapsed().as_secs_f64());
        // Every result was read: the work is not skipped.
        assert!(sum.is_finite());
    }
    let measured = if vmaf { "PSNR + SSIM + VMAF" } else { "PSNR + SSIM" };
    // Against decoding as `compare` decodes, and (where that differs) as the player decodes.
    let playing_ratio = if slower_playing == slower {
        String::new()
    } else {
        format!(
            "; {:.1}% and {:.1}% of the slower file's decode-only as the player decodes",
            100.0 * best / slower_playing,
            100.0 * whole / slower_playing
        )
    };
    writeln!(
        out,
        "compare:      {compared} pairs at {best:.1} fps ({:.1}% of the slower file's decode-only), \
         {:.1}% of both decoded at once; {measured} of every pair read back (best of 2, timed to the last \
         result; {whole:.1} fps, {:.1}%, with the decoders' teardown after it{playing_ratio})",
        100.0 * best / slower,
        100.0 * best / together,
        100.0 * whole / slower,
    )?;
    paced_pair(&ctx, a, b, vmaf, out)?;
    if vmaf {
        return Ok(());
    }
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

/// The pair decoded at once, each on a thread of its own, nothing else done: frames of the
/// shorter per second, the best of two.
fn decode_together(a: &Path, b: &Path) -> Result<f64> {
    let mut best = 0.0f64;
    for _ in 0..2 {
        let (pa, pb) = (a.to_path_buf(), b.to_path_buf());
        let other = std::thread::spawn(move || decode_only(&pb, Decoding::Throughput).map_err(|e| e.to_string()));
        let (frames_a, time_a) = decode_only(&pa, Decoding::Throughput)?;
        let (frames_b, time_b) = other
            .join()
            .map_err(|_| anyhow::anyhow!("the decoding thread panicked"))?
            .map_err(anyhow::Error::msg)?;
        best = best.max(frames_a.min(frames_b) as f64 / time_a.max(time_b).as_secs_f64());
    }
    Ok(best)
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

/// Plays up to 10 s of the pair in step, as the window does, against a display refreshing at
/// the clip's rate (60 Hz at least): at each refresh the playback picks the frame due, its pair
/// is converted, counted, composited (wipe), measured and drawn offscreen, and the GPU work is
/// waited for as a present would be. Frames due but not shown are dropped. With `vmaf`, every
/// pair's VMAF is measured in the background meanwhile, as the window measures it with the
/// timeline shown.
fn paced_pair(ctx: &GpuContext, a: &Path, b: &Path, vmaf: bool, out: &mut impl Write) -> Result<()> {
    use crate::compare::align::{AlignBy, Alignment};
    use crate::compare::composite::{CompareMode, Composite};
    use crate::geometry::Orientation;
    use crate::gpu::texture::GpuFrame;
    use crate::pipeline::comparison::{CompareStage, PairTag};
    use crate::pipeline::FramePipeline;
    use crate::player::paired::Paired;
    use crate::player::playback::{FrameSource, Playback, Timeline};
    use crate::render::scene::{SceneRenderer, ViewOptions};
    use crate::video::decoder::{DecodeThread, DEFAULT_CACHE_BYTES};
    use crate::video::ring::RING_SLOTS;
    use std::time::Duration;

    let (mut sa, mut sb) = (VideoSource::open(a)?, VideoSource::open(b)?);
    crate::compare::align::match_pair(&sa, &mut sb)?;
    sa.set_exact_numbers(true);
    sb.set_exact_numbers(true);
    let align = Alignment::of(&sa, &sb, AlignBy::Frame, 0);
    let info = sa.info.clone();
    let size = (info.format.width, info.format.height);
    let pipeline = FramePipeline::new(ctx, 256, info.format, info.volume, RING_SLOTS)?;
    let composite = Composite {
        mode: CompareMode::Wipe,
        split: size.0 / 2,
        gain: 8,
    };
    let mut stage = CompareStage::new(ctx, &pipeline, sb.info.volume, composite)?;
    let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
    let scene = renderer.scene_outlined(
        &ctx.device,
        &pipeline.target,
        Some(&stage.b.target),
        &stage.picture().view,
        pipeline.signal(),
        None,
    );
    let output = GpuFrame::new(ctx, "bench output", 1920.min(size.0), 1080.min(size.1))?;
    let view = ViewOptions::default();
    scene.layout(
        &ctx.queue,
        info.display_aspect,
        Orientation::default(),
        (output.width, output.height),
        view,
    );
    let index = std::sync::Arc::clone(sa.index());
    let decoder_a = DecodeThread::spawn(
        sa,
        ctx.queue.clone(),
        pipeline.ring.slots.clone(),
        DEFAULT_CACHE_BYTES / 2,
    );
    let decoder_b = DecodeThread::spawn(
        sb,
        ctx.queue.clone(),
        stage.b.ring.slots.clone(),
        DEFAULT_CACHE_BYTES / 2,
    );
    let timeline = Timeline {
        start: index.first_pts().map_or(0.0, |pts| info.seconds(pts)),
        duration: info.duration,
        frame_duration: info.frame_duration,
        frame_count: index.frame_count(),
    };
    let seconds = info.duration.min(10.0);
    let refresh_hz = (1.0 / info.frame_duration).max(60.0);
    let interval = Duration::from_secs_f64(1.0 / refresh_hz);
    let mut playback = Playback::new(Paired::new(decoder_a, decoder_b, align), timeline, Instant::now());
    let fill = match vmaf {
        true => {
            let model =
                crate::compare::vmaf::load_model(crate::compare::vmaf::DEFAULT_MODEL).map_err(anyhow::Error::msg)?;
            Some(crate::player::vmaf_fill::VmafFill::start(
                a,
                b,
                (AlignBy::Frame, 0, None),
                model,
                ctx,
            )?)
        }
        false => None,
    };
    if let Some(fill) = &fill {
        fill.set_playing(true);
    }
    let (mut shown, mut first, mut last) = (0u64, None, 0u64);
    let mut shown_frames = std::collections::HashSet::new();
    let mut frame_times = Vec::new();
    let mut last_present: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs_f64(seconds + 5.0);
    let mut tick = Instant::now();
    while Instant::now() < deadline && !playback.at_end() {
        tick += interval;
        std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        // As the window does, the frame picked is the one due by the refresh it will be shown
        // at: half a refresh ahead, so that a tick waking a little late doesn't find the next
        // frame due too.
        let Some(next) = playback.next_frame(Instant::now(), interval / 2) else {
            continue;
        };
        let slot = next.frame.slot;
        let partner = playback.source.partner(slot);
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("bench compare frame"),
        });
        pipeline.encode_frame(&mut encoder, slot);
        let tag = |fb: crate::video::decoder::ReadyFrame| PairTag {
            media: 0,
            frame: next.frame.index,
            frame_b: fb.index,
        };
        stage.encode_pair(&mut encoder, &pipeline, slot, partner.map(|fb| (fb.slot, tag(fb))));
        renderer.encode(&mut encoder, &output.view, &scene, view.quads);
        ctx.queue.submit([encoder.finish()]);
        stage.submitted();
        playback.source.release(slot);
        ctx.wait_idle()?;
        stage.take_metrics();
        let presented = Instant::now();
        if let Some(at) = last_present {
            frame_times.push((presented - at).as_secs_f64() * 1e3);
        }
        last_present = Some(presented);
        shown += 1;
        shown_frames.insert(next.frame.index);
        first.get_or_insert(next.frame.index);
        last = next.frame.index;
        if next.frame.seconds - timeline.start >= seconds {
            break;
        }
    }
    playback.release_all();
    playback.source.release_all();
    let due = first.map_or(0, |f| last - f + 1);
    let missed: Vec<u64> = first
        .map(|f| (f..=last).filter(|n| !shown_frames.contains(n)).take(12).collect())
        .unwrap_or_default();
    let measured = match &fill {
        Some(fill) => format!(", VMAF of {} pairs measured in the background", fill.measured()),
        None => String::new(),
    };
    writeln!(
        out,
        "compare paced: {shown} pairs shown of {due} due, {} dropped, played in step at the clip's rate \
         on a {refresh_hz:.0} Hz tick (wipe, both histograms, PSNR + SSIM each frame{measured}); frame time \
         p50 {:.2} ms, p99 {:.2} ms{}",
        due.saturating_sub(shown),
        crate::player::stats::percentile(&frame_times, 0.5).unwrap_or(f64::NAN),
        crate::player::stats::percentile(&frame_times, 0.99).unwrap_or(f64::NAN),
        if missed.is_empty() {
            String::new()
        } else {
            format!("; dropped frames {missed:?}")
        }
    )?;
    Ok(())
}
