//! `histoplay bench-pipeline`: decode → upload → convert → histogram → offscreen render as fast as
//! it goes, next to decode-only throughput of the same build on the same file; the histogram
//! timeline's fill; playback paced at the file's rate, alone and while the timeline fills; open
//! times (also of a long copy of the file); exact seeks with their keyframe previews; consecutive
//! back-steps; memory over the run.

pub mod compare;
mod decode_only;
pub mod live;
mod memory;
mod navigation;
mod offscreen;
mod open;
mod paced;
mod passes;
mod report;

pub use memory::memory_mb;
pub use report::decode_alone;

use crate::gpu::GpuContext;
use crate::player::stats::percentile;
use crate::timeline::TimelineFill;
use crate::video::source::Decoding;
use anyhow::Result;
use decode_only::{decode_rate, stream_text, throughput_rate, throughput_text};
use offscreen::Pipeline;
use paced::{paced, paced_with_meters};
use passes::{timeline_alone, Passes};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Stop after the rates (decoding alone, `report`, the passes).
    pub rates_only: bool,
    /// What the picture shows throughout: marks, a LUT or log encoding, a scope.
    pub shown: Shown,
    /// Also pace the file's pictures through this deinterlacer (`--deinterlace`).
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
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

/// p50 / p95 / p99 / max of `values` in milliseconds, as the report prints them.
fn spread(values: &[f64]) -> String {
    let at = |p| percentile(values, p).unwrap_or(f64::NAN);
    format!(
        "p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.95),
        at(0.99),
        at(1.0)
    )
}

pub fn run(path: &Path, options: &BenchOptions, out: &mut impl Write) -> Result<()> {
    let ctx = GpuContext::new()?;
    writeln!(out, "adapter: {}", ctx.describe())?;
    let opened = open::time_open(&ctx, path)?;
    let sampler = memory::MemorySampler::start("decode only");
    // Decode alone first, its decoder gone before the pipeline's opens, so that the memory
    // figures below are the pipeline's own. The best of two, as for the pipeline's warm passes.
    let (decoded, decode_fps, decode_threads) = decode_rate(path, Decoding::Playing)?;
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
    writeln!(
        out,
        "threads:      decode only, {}",
        crate::threads::describe(&decode_threads.threads, decode_threads.wall)
    )?;
    writeln!(out, "stages:       decode only, ms a frame: {}", decode_threads.stages)?;
    let cpu_adapter = pipeline.ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    report::write_rates(out, path, throughput_fps, cpu_adapter)?;
    passes.write(out, decode_fps, options.cache_bytes)?;
    if options.rates_only {
        return Ok(());
    }

    sampler.phase("timeline");
    timeline_alone(out, path, &pipeline.ctx, throughput_fps)?;
    let refresh_hz = (1.0 / info.frame_duration).max(60.0);
    sampler.phase("paced");
    paced(&mut pipeline, info.duration.min(10.0), refresh_hz, "paced:", out)?;
    sampler.phase("paced + timeline");
    let fill = TimelineFill::start(path, Some(Default::default()), &pipeline.ctx)?;
    // As in the player, which tells the fill when it plays.
    fill.set_playing(true);
    paced(&mut pipeline, info.duration.min(10.0), refresh_hz, "  + timeline:", out)?;
    let filled = fill.filled();
    writeln!(out, "              (the timeline counted {filled} frames meanwhile)")?;
    drop(fill);
    paced_with_meters(&mut pipeline, path, info.duration.min(10.0), refresh_hz, out)?;
    if let Some(filter) = options.deinterlace {
        // Its pictures, paced as the window plays them (50i at 50 pictures a second).
        sampler.phase("paced, deinterlaced");
        pipeline.decoder.set_filter(Some(filter)).map_err(anyhow::Error::msg)?;
        let rate = if pipeline.decoder.field_rate() { 2.0 } else { 1.0 } / info.frame_duration;
        let label = format!("  + {}:", filter.names()[0]);
        paced(&mut pipeline, info.duration.min(10.0), rate.max(60.0), &label, out)?;
        pipeline.decoder.set_filter(None).map_err(anyhow::Error::msg)?;
    }

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
    memory::write_memory_by_phase(out, sampler, options.cache_bytes)
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
    if let Some(lut) = crate::colour::lut::picture_lut(shown.lut.as_ref(), exposure) {
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
