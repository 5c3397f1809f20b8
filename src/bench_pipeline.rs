//! `histoplay bench-pipeline`: decode → upload → convert → histogram → offscreen render as fast as
//! it goes, next to decode-only throughput of the same build on the same file; then exact seeks,
//! cached back-steps and memory over the run.

use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::passes::histogram::{EngineConfig, HistogramEngine};
use crate::passes::picture::Orientation;
use crate::scene::{SceneRenderer, ViewOptions};
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::ring::{FrameRing, RING_SLOTS};
use crate::video::source::{SeekTarget, VideoSource};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Resident and peak resident memory of this process, in MB (Linux; zeros elsewhere).
pub fn memory_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Decodes every frame on this thread, doing nothing else: the ceiling for the pipeline.
fn decode_only(path: &Path) -> Result<(u64, Duration)> {
    let mut source = VideoSource::open(path)?;
    let start = Instant::now();
    let mut frames = 0;
    while source.next_frame()?.is_some() {
        frames += 1;
    }
    Ok((frames, start.elapsed()))
}

struct Pipeline {
    ctx: GpuContext,
    ring: FrameRing,
    engine: HistogramEngine,
    target: crate::passes::histogram::HistogramTarget,
    binding: crate::passes::histogram::SourceBinding,
    renderer: SceneRenderer,
    scene: crate::scene::Scene,
    output: GpuFrame,
    decoder: DecodeThread,
}

impl Pipeline {
    fn open(path: &Path, size: (u32, u32)) -> Result<Self> {
        let ctx = GpuContext::new()?;
        let source = VideoSource::open(path)?;
        let info = source.info.clone();
        let ring = FrameRing::new(&ctx, info.format, RING_SLOTS)?;
        let engine = HistogramEngine::new(&ctx, 256, EngineConfig::default());
        let target = engine.target(&ctx, info.format.width, info.format.height)?;
        let binding = engine.bind_source(&ctx, &target, &ring.output.pixels);
        let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
        let scene = renderer.scene(&ctx.device, &target, &ring.output.view);
        let output = GpuFrame::new(&ctx, "bench output", size.0, size.1)?;
        let orientation = Orientation {
            quarter_turns: info.quarter_turns,
        };
        scene.layout(
            &ctx.queue,
            info.display_aspect,
            orientation,
            size,
            ViewOptions::default(),
        );
        let decoder = DecodeThread::spawn(source, ctx.queue.clone(), ring.slots.clone());
        Ok(Self {
            ctx,
            ring,
            engine,
            target,
            binding,
            renderer,
            scene,
            output,
            decoder,
        })
    }

    /// Records and submits one frame's GPU work; gives the slot back.
    fn process(&self, frame: &ReadyFrame) {
        let mut encoder = self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("bench frame"),
        });
        self.ring.encode_convert(&mut encoder, frame.slot);
        self.engine.encode(&mut encoder, &self.target, &self.binding, None);
        self.renderer.encode(
            &mut encoder,
            &self.output.view,
            &self.scene,
            ViewOptions::default().quads,
        );
        self.ctx.queue.submit([encoder.finish()]);
        self.decoder.release(frame.slot);
    }

    fn next(&self) -> Result<Option<ReadyFrame>> {
        match self.decoder.next_current(Duration::from_secs(60)) {
            Some(DecoderEvent::Frame(frame)) => Ok(Some(frame)),
            Some(DecoderEvent::EndOfStream { .. }) => Ok(None),
            Some(DecoderEvent::Failed { message, .. }) => bail!(message),
            None => bail!("the decoder stopped responding"),
        }
    }

    /// Seeks and waits until the frame is converted and counted on the GPU.
    fn timed_seek(&mut self, target: SeekTarget) -> Result<(Duration, u64)> {
        let start = Instant::now();
        self.decoder.seek(target);
        let frame = self.next()?.context("a seek found no frame")?;
        self.process(&frame);
        self.ctx.wait_idle()?;
        Ok((start.elapsed(), frame.index))
    }
}

/// Plays `seconds` of the file at its own rate against a simulated display refreshing at
/// `refresh_hz`: at each refresh the newest frame that is due is converted, counted and drawn
/// (offscreen), older due frames are dropped, and the GPU work is waited for as a present would
/// be. Reports frames shown and dropped and how late the shown ones were.
fn paced(pipeline: &mut Pipeline, seconds: f64, refresh_hz: f64, out: &mut impl Write) -> Result<()> {
    let interval = Duration::from_secs_f64(1.0 / refresh_hz);
    pipeline.decoder.seek(SeekTarget::Frame(0));
    let mut queue: std::collections::VecDeque<ReadyFrame> = Default::default();
    let mut ended = false;
    let (mut shown, mut dropped) = (0u64, 0u64);
    let mut lateness = Vec::new();
    let mut frame_times = Vec::new();
    let mut origin: Option<(Instant, f64)> = None;
    let mut tick = Instant::now();
    let mut last_present: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs_f64(seconds + 1.0);
    while Instant::now() < deadline {
        tick += interval;
        std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        while let Some(event) = pipeline.decoder.try_event() {
            match event {
                DecoderEvent::Frame(f) if f.generation == pipeline.decoder.generation() => queue.push_back(f),
                DecoderEvent::Frame(f) => pipeline.decoder.release(f.slot),
                DecoderEvent::EndOfStream { .. } => ended = true,
                DecoderEvent::Failed { message, .. } => bail!(message),
            }
        }
        let Some(front) = queue.front() else {
            if ended {
                break;
            }
            continue;
        };
        // The clock starts with the first frame shown.
        let (start, start_pts) = *origin.get_or_insert((tick, front.seconds));
        let due = |f: &ReadyFrame| start + Duration::from_secs_f64((f.seconds - start_pts).max(0.0));
        if due(front) > tick {
            continue;
        }
        // The newest due frame is shown; any older due ones are dropped.
        let mut pick = queue.pop_front().expect("front exists");
        while queue.front().is_some_and(|f| due(f) <= tick) {
            pipeline.decoder.release(pick.slot);
            dropped += 1;
            pick = queue.pop_front().expect("front exists");
        }
        pipeline.process(&pick);
        pipeline.ctx.wait_idle()?;
        let presented = Instant::now();
        lateness.push(presented.saturating_duration_since(due(&pick)).as_secs_f64() * 1e3);
        if let Some(last) = last_present {
            frame_times.push((presented - last).as_secs_f64() * 1e3);
        }
        last_present = Some(presented);
        shown += 1;
        if pick.seconds - start_pts >= seconds {
            break;
        }
    }
    lateness.sort_by(f64::total_cmp);
    frame_times.sort_by(f64::total_cmp);
    writeln!(
        out,
        "paced:        {shown} frames shown, {dropped} dropped at the clip's rate on a {refresh_hz:.0} Hz tick; \
         frame time p50 {:.2} ms, p99 {:.2} ms; lateness vs due p50 {:.2} ms, max {:.2} ms",
        percentile(&frame_times, 0.5),
        percentile(&frame_times, 0.99),
        percentile(&lateness, 0.5),
        lateness.last().copied().unwrap_or(f64::NAN)
    )?;
    Ok(())
}

pub fn run(path: &Path, seeks: usize, out: &mut impl Write) -> Result<()> {
    let mut pipeline = Pipeline::open(path, (1280, 720))?;
    let info = pipeline.decoder.info.clone();
    writeln!(out, "adapter: {}", pipeline.ctx.describe())?;
    writeln!(
        out,
        "file: {} ({} {}x{} {}, {} frames, {:.2} s)",
        path.display(),
        info.codec,
        info.format.width,
        info.format.height,
        info.pixel_format,
        info.frame_count.map_or("?".into(), |n| n.to_string()),
        info.duration
    )?;
    // Three passes over the file: the first also pays for pipeline compilation and first-use
    // allocations and is reported apart; the best of the other two is the steady state.
    let (rss_start, _) = memory_mb();
    let mut runs = Vec::new();
    let mut rss_mid = Vec::new();
    let mut frames = 0u64;
    for pass in 0..3 {
        if pass > 0 {
            pipeline.decoder.seek(SeekTarget::Frame(0));
        }
        let start = Instant::now();
        frames = 0;
        while let Some(frame) = pipeline.next()? {
            pipeline.process(&frame);
            frames += 1;
            if frames % 32 == 0 {
                rss_mid.push(memory_mb().0);
            }
        }
        pipeline.ctx.wait_idle()?;
        runs.push(frames as f64 / start.elapsed().as_secs_f64());
    }
    let (rss_end, peak) = memory_mb();
    // Decode alone after the pipeline, so the memory figures above are the pipeline's own.
    // The best of two, as for the pipeline's warm passes.
    let mut decode_fps = 0.0f64;
    let mut decoded = 0;
    for _ in 0..2 {
        let (n, time) = decode_only(path)?;
        decoded = n;
        decode_fps = decode_fps.max(n as f64 / time.as_secs_f64());
    }
    let steady = runs[1].max(runs[2]);
    writeln!(out, "decode only:  {decoded} frames at {decode_fps:.1} fps (best of 2)")?;
    writeln!(
        out,
        "pipeline:     {frames} frames at {steady:.1} fps ({:.1}% of decode-only, best of 2 warm passes); \
         cold pass {:.1} fps",
        100.0 * steady / decode_fps,
        runs[0]
    )?;
    let mid_max = rss_mid.iter().copied().fold(rss_start, f64::max);
    let mid_min = rss_mid.iter().copied().fold(f64::INFINITY, f64::min);
    writeln!(
        out,
        "memory:       resident {rss_start:.0} MB before streaming, {rss_end:.0} MB after three passes; \
         {mid_min:.0}..{mid_max:.0} MB while streaming, peak {peak:.0} MB"
    )?;

    let refresh_hz = (1.0 / info.frame_duration).max(60.0);
    paced(&mut pipeline, info.duration.min(10.0), refresh_hz, out)?;

    let count = info.frame_count.unwrap_or(frames);
    if count < 2 || seeks == 0 {
        return Ok(());
    }
    // Exact seeks to random frames (a fixed xorshift sequence, so runs compare).
    let mut state = 0x2545_f491u32;
    let mut times = Vec::with_capacity(seeks);
    for _ in 0..seeks {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let k = u64::from(state) % count;
        let (took, landed) = pipeline.timed_seek(SeekTarget::Frame(k))?;
        if landed != k {
            bail!("seek to frame {k} landed on {landed}");
        }
        times.push(took.as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    writeln!(
        out,
        "exact seek:   {seeks} random frames, p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        times.last().copied().unwrap_or(f64::NAN)
    )?;
    // Back-steps from the middle: the first may decode a GOP, the rest come from the cache.
    let middle = count / 2;
    pipeline.timed_seek(SeekTarget::Frame(middle))?;
    let mut steps = Vec::new();
    for k in (middle.saturating_sub(8)..middle).rev() {
        let (took, landed) = pipeline.timed_seek(SeekTarget::Frame(k))?;
        if landed != k {
            bail!("back-step to frame {k} landed on {landed}");
        }
        steps.push(took.as_secs_f64() * 1e3);
    }
    let cached = &mut steps[1..].to_vec();
    cached.sort_by(f64::total_cmp);
    writeln!(
        out,
        "back-step:    first {:.1} ms, then cached p50 {:.2} ms, max {:.2} ms",
        steps[0],
        percentile(cached, 0.5),
        cached.last().copied().unwrap_or(f64::NAN)
    )?;
    Ok(())
}
