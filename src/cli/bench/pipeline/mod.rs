//! `histoplay bench-pipeline`: decode → upload → convert → histogram → offscreen render as fast as
//! it goes, next to decode-only throughput of the same build on the same file; the histogram
//! timeline's fill; playback paced at the file's rate, alone and while the timeline fills; open
//! times (also of a long copy of the file); exact seeks with their keyframe previews; consecutive
//! back-steps; memory over the run.

pub mod compare;
pub mod live;
mod memory;
mod navigation;
mod open;
mod report;

use crate::geometry::Orientation;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::pipeline::FramePipeline;
use crate::player::stats::percentile;
use crate::render::scene::{Scene, SceneRenderer, ViewOptions};
use crate::timeline::TimelineFill;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::ring::RING_SLOTS;
use crate::video::source::{Decoding, SeekTarget, VideoSource};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to measure besides throughput.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Random exact seeks to time.
    pub seeks: usize,
    /// Consecutive back-steps to time, from deep inside a GOP.
    pub backsteps: usize,
    /// The decoder's frame cache, as the player's `--cache-size`.
    pub cache_bytes: usize,
    /// Also time opening a stream copy of the file looped to about this many seconds.
    pub long_seconds: Option<f64>,
    /// Where that copy goes (default: the system's temporary directory).
    pub long_dir: Option<PathBuf>,
    /// Print every seek and back-step timed on stderr.
    pub samples: bool,
    /// What the picture shows throughout: marks, a LUT or log encoding, a scope.
    pub shown: Shown,
}

/// What the pipeline shows and counts besides the histograms, as the player would.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    /// Marks drawn on the picture (`--overlay`).
    pub marks: crate::marks::MarkSettings,
    /// The LUT given (`--lut`) and what the signal is (`--input-colour`).
    pub lut: Option<std::sync::Arc<crate::colour::lut::Lut>>,
    pub input_colour: crate::colour::log::InputColour,
    /// A scope counted beside the histograms (`--scope`).
    pub scope: Option<crate::scope::ScopeKind>,
}

/// Resident and peak resident memory of this process, in MB (Linux; zeros elsewhere).
pub fn memory_mb() -> (f64, f64) {
    let [resident, peak] = memory::status_mb(["VmRSS:", "VmHWM:"]);
    (resident, peak)
}

/// p50 / p95 / max of `values` in milliseconds, as the report prints them.
fn spread(values: &[f64]) -> String {
    let at = |p| percentile(values, p).unwrap_or(f64::NAN);
    format!("p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms", at(0.5), at(0.95), at(1.0))
}

/// Decodes every frame on this thread, doing nothing else: the ceiling for the pipeline
/// (`Decoding::Playing`) or for `report`, `hist`, `compare` and the timeline (`Throughput`).
pub(super) fn decode_only(path: &Path, decoding: Decoding) -> Result<(u64, Duration)> {
    let mut source = VideoSource::open_for(path, decoding)?;
    let start = Instant::now();
    let mut frames = 0;
    while source.next_frame()?.is_some() {
        frames += 1;
    }
    Ok((frames, start.elapsed()))
}

/// Frames in the file and the best of two rates decoding it alone, in frames per second.
fn decode_rate(path: &Path, decoding: Decoding) -> Result<(u64, f64)> {
    let mut best = 0.0f64;
    let mut frames = 0;
    for _ in 0..2 {
        let (n, time) = decode_only(path, decoding)?;
        frames = n;
        best = best.max(n as f64 / time.as_secs_f64());
    }
    Ok((frames, best))
}

/// The player's pipeline for one file, drawing offscreen.
struct Pipeline {
    ctx: GpuContext,
    frames: FramePipeline,
    renderer: SceneRenderer,
    scene: Scene,
    output: GpuFrame,
    decoder: DecodeThread,
}

impl Pipeline {
    fn open(ctx: GpuContext, path: &Path, size: (u32, u32), cache_bytes: usize, shown: &Shown) -> Result<Self> {
        let source = VideoSource::open(path)?;
        let info = source.info.clone();
        let mut frames = FramePipeline::new(&ctx, 256, info.format, info.volume, RING_SLOTS)?;
        let exposure = shown.input_colour.resolve(info.log);
        frames.set_exposure(&ctx, exposure);
        frames.set_marks(&ctx, &shown.marks);
        if let Some(lut) = crate::colour::log::picture_lut(shown.lut.as_ref(), exposure) {
            let bits = frames.ring.output.bits;
            frames.set_lut(&ctx, Some(&crate::colour::lut::LutTables::new(&lut, bits)))?;
        }
        if let Some(kind) = shown.scope {
            frames.set_scope(&ctx, Some((kind, kind.display_columns())))?;
        }
        let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
        let scene = frames.scene(&ctx.device, &renderer);
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
        let decoder = DecodeThread::spawn(source, ctx.queue.clone(), frames.ring.slots.clone(), cache_bytes);
        Ok(Self {
            ctx,
            frames,
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
        self.frames.encode_frame(&mut encoder, frame.slot);
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
            Some(DecoderEvent::Reshaped(_)) => bail!("the decoder asked for a ring of another shape"),
            None => bail!("the decoder stopped responding"),
        }
    }

    /// Processes frames until one that is not a preview: when the first frame (preview or not)
    /// and that one were counted on the GPU, and the frame.
    fn settle(&self, start: Instant) -> Result<Landed> {
        let mut first = None;
        loop {
            let Some(frame) = self.next()? else {
                bail!("the stream ended before a seek landed");
            };
            self.process(&frame);
            self.ctx.wait_idle()?;
            let now = start.elapsed();
            let first = *first.get_or_insert(now);
            if !frame.preview {
                return Ok(Landed {
                    first,
                    exact: now,
                    previewed: first < now,
                    frame,
                });
            }
        }
    }

    /// Seeks and waits until the frame it lands on is converted and counted on the GPU; the
    /// times to the first frame (a preview, if any) and to the exact one.
    fn timed_seek(&mut self, target: SeekTarget) -> Result<Landed> {
        let start = Instant::now();
        self.decoder.seek(target);
        self.settle(start)
    }
}

/// How a seek landed: times from the command to the first frame counted on the GPU and to the
/// exact one, whether a keyframe preview came first, and the frame.
struct Landed {
    first: Duration,
    exact: Duration,
    previewed: bool,
    frame: ReadyFrame,
}

/// Plays `seconds` of the file at its own rate against a simulated display refreshing at
/// `refresh_hz`: at each refresh the newest frame that is due is converted, counted and drawn
/// (offscreen), and the GPU work is waited for as a present would be. A frame whose due time
/// passes without it being shown is dropped, whether or not it ever reached the queue.
fn paced(pipeline: &mut Pipeline, seconds: f64, refresh_hz: f64, label: &str, out: &mut impl Write) -> Result<()> {
    let interval = Duration::from_secs_f64(1.0 / refresh_hz);
    pipeline.decoder.seek(SeekTarget::Frame(0));
    let mut queue: std::collections::VecDeque<ReadyFrame> = Default::default();
    let mut ended = false;
    let mut shown: Vec<u64> = Vec::new();
    let mut lateness = Vec::new();
    // The frame shown latest against its due time, and when.
    let mut worst: Option<(u64, f64)> = None;
    let mut frame_times = Vec::new();
    let mut origin: Option<(Instant, f64)> = None;
    let mut tick = Instant::now();
    let mut last_present: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs_f64(seconds + 1.0);
    let mut end_time = None;
    while Instant::now() < deadline {
        tick += interval;
        std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        while let Some(event) = pipeline.decoder.try_event() {
            match event {
                DecoderEvent::Frame(f) if f.generation == pipeline.decoder.generation() => queue.push_back(f),
                DecoderEvent::Frame(f) => pipeline.decoder.release(f.slot),
                DecoderEvent::EndOfStream { .. } => ended = true,
                DecoderEvent::Failed { message, .. } => bail!(message),
                DecoderEvent::Reshaped(_) => bail!("the decoder asked for a ring of another shape"),
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
        // The newest due frame is shown; older due ones are passed over.
        let mut pick = queue.pop_front().expect("front exists");
        while queue.front().is_some_and(|f| due(f) <= tick) {
            pipeline.decoder.release(pick.slot);
            pick = queue.pop_front().expect("front exists");
        }
        pipeline.process(&pick);
        pipeline.ctx.wait_idle()?;
        let presented = Instant::now();
        let late = presented.saturating_duration_since(due(&pick)).as_secs_f64() * 1e3;
        if lateness.iter().all(|&l| l < late) {
            worst = Some((pick.index, (presented - start).as_secs_f64()));
        }
        lateness.push(late);
        if let Some(last) = last_present {
            frame_times.push((presented - last).as_secs_f64() * 1e3);
        }
        last_present = Some(presented);
        shown.push(pick.index);
        end_time = Some(start_pts + (presented - start).as_secs_f64());
        if pick.seconds - start_pts >= seconds {
            break;
        }
    }
    // Every frame due by the last present should have been shown.
    let info = &pipeline.decoder.info;
    let index = pipeline.decoder.index();
    let due_frames = match (origin, end_time) {
        (Some((_, start_pts)), Some(end)) => {
            let first = index.number_at(info.pts_at(start_pts)).n;
            let last = index.number_at(info.pts_at(end)).n;
            last - first + 1
        }
        _ => 0,
    };
    let dropped = due_frames.saturating_sub(shown.len() as u64);
    writeln!(
        out,
        "{label:<13} {} frames shown of {due_frames} due, {dropped} dropped, at the clip's rate on a \
         {refresh_hz:.0} Hz tick; frame time p50 {:.2} ms, p99 {:.2} ms; lateness vs due p50 {:.2} ms, max {:.2} ms{}",
        shown.len(),
        percentile(&frame_times, 0.5).unwrap_or(f64::NAN),
        percentile(&frame_times, 0.99).unwrap_or(f64::NAN),
        percentile(&lateness, 0.5).unwrap_or(f64::NAN),
        percentile(&lateness, 1.0).unwrap_or(f64::NAN),
        worst.map_or(String::new(), |(frame, at)| format!(" (frame {frame}, {at:.2} s in)")),
    )?;
    Ok(())
}

/// `paced`, with the window's audio meters measuring the file's sound beside it (their own
/// decode of the sound, following a clock that plays from the start); where the file has no
/// sound, a line says so.
fn paced_with_meters(
    pipeline: &mut Pipeline,
    path: &Path,
    seconds: f64,
    refresh_hz: f64,
    out: &mut impl Write,
) -> Result<()> {
    use crate::audio::metering::{MeterCue, MeterState, Metering};
    let info = &pipeline.decoder.info;
    let start = info.start_pts.map_or(0.0, |pts| info.seconds(pts));
    let cue = MeterCue {
        clock: crate::clock::Clock::new(Instant::now(), start, false),
        seeks: 0,
        loop_start: None,
    };
    let owned = path.to_owned();
    let metering = Metering::start(move || crate::audio::source::AudioSource::open_as_is(&owned), cue)?;
    paced(pipeline, seconds, refresh_hz, "  + meters:", out)?;
    match metering.state() {
        MeterState::Measuring { reading, .. } => writeln!(
            out,
            "              (the meters measured {:.1} s of {} channels meanwhile)",
            reading.time - start,
            reading.channels.len()
        )?,
        MeterState::NoSound(why) => writeln!(out, "              (no meters: {why})")?,
        MeterState::Opening => writeln!(out, "              (the meters were still opening the sound)")?,
    }
    Ok(())
}

pub fn run(path: &Path, options: &BenchOptions, out: &mut impl Write) -> Result<()> {
    let ctx = GpuContext::new()?;
    writeln!(out, "adapter: {}", ctx.describe())?;
    let opened = open::time_open(&ctx, path)?;
    let sampler = memory::MemorySampler::start("decode only");
    // Decode alone first, its decoder gone before the pipeline's opens, so that the memory
    // figures below are the pipeline's own. The best of two, as for the pipeline's warm passes.
    let (decoded, decode_fps) = decode_rate(path, Decoding::Playing)?;
    let throughput_fps = throughput_rate(path, decode_fps)?;
    crate::video::memory::trim_allocator();
    sampler.phase("pipeline");
    let mut pipeline = Pipeline::open(ctx, path, (1280, 720), options.cache_bytes, &options.shown)?;
    let info = pipeline.decoder.info.clone();
    let count = pipeline.decoder.index().wait_complete();
    write_file_line(out, path, &info, count, options)?;
    writeln!(out, "{opened}")?;
    if let Some(seconds) = options.long_seconds {
        open::long_file(&pipeline.ctx, path, seconds, options.long_dir.as_deref(), out)?;
    }
    let passes = Passes::run(&mut pipeline)?;
    writeln!(
        out,
        "decode only:  {decoded} frames at {decode_fps:.1} fps as the player decodes (best of 2){}",
        throughput_text(decode_fps, throughput_fps)
    )?;
    report::write_rates(out, path, throughput_fps)?;
    passes.write(out, decode_fps, options.cache_bytes)?;

    sampler.phase("timeline");
    timeline_alone(out, path, &pipeline.ctx, throughput_fps)?;
    let refresh_hz = (1.0 / info.frame_duration).max(60.0);
    sampler.phase("paced");
    paced(&mut pipeline, info.duration.min(10.0), refresh_hz, "paced:", out)?;
    sampler.phase("paced + timeline");
    let fill = TimelineFill::start(path, &pipeline.ctx)?;
    // As in the player, which tells the fill when it plays.
    fill.set_playing(true);
    paced(&mut pipeline, info.duration.min(10.0), refresh_hz, "  + timeline:", out)?;
    let filled = fill.filled();
    writeln!(out, "              (the timeline counted {filled} frames meanwhile)")?;
    drop(fill);
    paced_with_meters(&mut pipeline, path, info.duration.min(10.0), refresh_hz, out)?;

    // Navigation starts from a freshly opened file, so that the frames the passes above left in
    // the cache don't answer the seeks.
    let ctx = pipeline.ctx.clone();
    drop(pipeline);
    let count = count.unwrap_or(passes.frames);
    if count >= 2 && options.seeks > 0 {
        sampler.phase("seeks");
        let mut fresh = Pipeline::open(ctx.clone(), path, (1280, 720), options.cache_bytes, &options.shown)?;
        navigation::seeks(&mut fresh, count, options.seeks, options.samples, out)?;
    }
    if count >= 2 && options.backsteps > 0 {
        sampler.phase("back-steps");
        let mut fresh = Pipeline::open(ctx, path, (1280, 720), options.cache_bytes, &options.shown)?;
        fresh.decoder.index().wait_complete();
        navigation::backsteps(&mut fresh, options.backsteps, options.samples, out)?;
    }
    write_memory_by_phase(out, sampler, options.cache_bytes)
}

/// The file's line: codec, size, decoder, frames, duration; and the marks drawn, if any.
fn write_file_line(
    out: &mut impl Write,
    path: &Path,
    info: &crate::video::source::VideoInfo,
    count: Option<u64>,
    options: &BenchOptions,
) -> Result<()> {
    writeln!(
        out,
        "file: {} ({}, {} frames, {:.2} s)",
        path.display(),
        stream_text(info),
        count.map_or("?".into(), |n| n.to_string()),
        info.duration
    )?;
    let shown = &options.shown;
    if !shown.marks.shown.is_empty() {
        writeln!(
            out,
            "marks:        {} drawn on the picture throughout",
            shown.marks.shown.names().join(", ")
        )?;
    }
    let exposure = shown.input_colour.resolve(info.log);
    if let Some(lut) = crate::colour::log::picture_lut(shown.lut.as_ref(), exposure) {
        writeln!(out, "picture:      through {}", lut.describe())?;
    }
    if let Some(encoding) = exposure {
        writeln!(
            out,
            "input colour: {} (marks in stops and scene light)",
            encoding.label()
        )?;
    }
    if let Some(kind) = shown.scope {
        writeln!(out, "scope:        {} counted with every frame", kind.name())?;
    }
    Ok(())
}

/// A stream as the benchmarks name it: `h264 1920x1080 yuv420p, software decoding`.
/// The best of two rates decoding `path` for throughput, as `report`, `hist`, `compare` and
/// the timeline decode it; `playing_fps` where that is the same decoder (software decoding).
pub(super) fn throughput_rate(path: &Path, playing_fps: f64) -> Result<f64> {
    let hardware = VideoSource::open(path)?.info.hwdec.is_some();
    Ok(if hardware {
        decode_rate(path, Decoding::Throughput)?.1
    } else {
        playing_fps
    })
}

/// What `decode only` adds for a decoder that runs differently for throughput.
pub(super) fn throughput_text(playing_fps: f64, throughput_fps: f64) -> String {
    if throughput_fps == playing_fps {
        String::new()
    } else {
        format!(
            "; {throughput_fps:.1} fps as report, hist, compare and the timeline decode (two frame threads feeding the hardware decoder)"
        )
    }
}

pub(super) fn stream_text(info: &crate::video::source::VideoInfo) -> String {
    format!(
        "{} {}x{} {}, {} decoding",
        info.codec,
        info.format.width,
        info.format.height,
        info.pixel_format,
        info.hwdec.unwrap_or("software")
    )
}

/// Three passes of the pipeline over the whole file, unpaced, with the memory resident while
/// they stream.
struct Passes {
    /// Frames a second of each pass.
    runs: Vec<f64>,
    frames: u64,
    rss_start: f64,
    rss_end: f64,
    rss_mid: Vec<f64>,
    peak: f64,
    /// Which path carried the frames, and the bytes that crossed between memory and the GPU
    /// over all three passes, and the frames they carried.
    path: crate::video::interop::FramePath,
    transfers: crate::video::interop::TransferCount,
    carried: u64,
}

impl Passes {
    /// The first pass also pays for pipeline compilation and first-use allocations and is
    /// reported apart; the best of the other two is the steady state.
    fn run(pipeline: &mut Pipeline) -> Result<Self> {
        let (rss_start, _) = memory_mb();
        let mut runs = Vec::new();
        let mut rss_mid = Vec::new();
        let mut frames = 0u64;
        let mut carried = 0u64;
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
            carried += frames;
        }
        let (rss_end, peak) = memory_mb();
        // From the decoder's start: the frames it sent ahead before the first pass are the
        // first pass's.
        let transfers = pipeline.decoder.transfers();
        Ok(Self {
            path: pipeline.decoder.frame_path(),
            transfers,
            carried,
            runs,
            frames,
            rss_start,
            rss_end,
            rss_mid,
            peak,
        })
    }

    fn write(&self, out: &mut impl Write, decode_fps: f64, cache_bytes: usize) -> Result<()> {
        let Self {
            runs,
            frames,
            rss_start,
            rss_end,
            rss_mid,
            peak,
            path,
            transfers,
            carried,
        } = self;
        let steady = runs[1].max(runs[2]);
        writeln!(
            out,
            "pipeline:     {frames} frames at {steady:.1} fps ({:.1}% of decode-only, best of 2 warm passes); \
             cold pass {:.1} fps ({:.1}%: every frame decoded, none from the frame caches)",
            100.0 * steady / decode_fps,
            runs[0],
            100.0 * runs[0] / decode_fps
        )?;
        let per_frame = |bytes: u64| match bytes as f64 / (*carried).max(1) as f64 {
            0.0 => "0 bytes".to_string(),
            b if b < f64::from(1 << 20) => format!("{:.1} KiB", b / 1024.0),
            b => format!("{:.2} MiB", b / f64::from(1 << 20)),
        };
        writeln!(
            out,
            "frames path:  {path}; over PCIe per frame {} to the GPU, {} back to memory",
            per_frame(transfers.to_device),
            per_frame(transfers.to_host)
        )?;
        let mid_max = rss_mid.iter().copied().fold(*rss_start, f64::max);
        let mid_min = rss_mid.iter().copied().fold(f64::INFINITY, f64::min);
        writeln!(
            out,
            "memory:       resident {rss_start:.0} MB before streaming, {rss_end:.0} MB after three passes; \
             {mid_min:.0}..{mid_max:.0} MB while streaming, peak {peak:.0} MB (frame cache budget {} MB)",
            cache_bytes >> 20
        )?;
        Ok(())
    }
}

/// The histogram timeline, filled by the player's background decode with nothing else running.
/// Opening (probing, indexing, the pipeline's setup) is paid once per file; the rate from the
/// first frame counted on is what a long file fills at.
fn timeline_alone(out: &mut impl Write, path: &Path, ctx: &GpuContext, decode_fps: f64) -> Result<()> {
    let started = Instant::now();
    let fill = TimelineFill::start(path, ctx)?;
    let mut first_frame = None;
    while !fill.done() {
        if first_frame.is_none() && fill.filled() > 0 {
            first_frame = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let whole = started.elapsed().as_secs_f64();
    let filled = fill.filled();
    let first_frame = first_frame.unwrap_or(started);
    let steady_fps = filled.saturating_sub(1) as f64 / first_frame.elapsed().as_secs_f64().max(1e-9);
    writeln!(
        out,
        "timeline:     {filled} frames at {steady_fps:.1} fps from the first one counted ({:.1}% of decode-only), \
         its own decode at low priority; {:.0} ms to the first, {:.1} fps overall",
        100.0 * steady_fps / decode_fps,
        (first_frame - started).as_secs_f64() * 1e3,
        filled as f64 / whole
    )?;
    Ok(())
}

/// Memory at each phase's highest, and the whole run's peak against the budget.
fn write_memory_by_phase(out: &mut impl Write, sampler: memory::MemorySampler, cache_bytes: usize) -> Result<()> {
    let (_, peak) = memory_mb();
    let phases = sampler.finish();
    let by_phase: Vec<String> = phases
        .iter()
        .map(|(name, m, mapped)| {
            format!(
                "{name} {:.0} ({:.0} anonymous, {:.0} files, {:.0} shared; frames {:.0}, mapped afresh {:.0}: \
                 {:.0} none spare, {:.0} other sizes spare, {:.0} pressed)",
                m.resident,
                m.anonymous,
                m.file,
                m.shared,
                m.frames,
                mapped.iter().sum::<f64>(),
                mapped[0],
                mapped[1],
                mapped[2]
            )
        })
        .collect();
    writeln!(
        out,
        "memory by phase (MB at each one's highest): {}",
        by_phase.join("; ")
    )?;
    let budget = cache_bytes >> 20;
    let headroom = crate::video::memory::HEADROOM >> 20;
    let limit = budget + headroom;
    writeln!(
        out,
        "memory peak:  {peak:.0} MB resident over the whole run, {} the frame cache budget {budget} MB + {headroom} MB \
         ({limit} MB); frames, staging and spare blocks together at most {} MB",
        if peak <= limit as f64 { "within" } else { "OVER" },
        crate::video::memory::FRAME_MEMORY.peak() >> 20,
    )?;
    Ok(())
}
