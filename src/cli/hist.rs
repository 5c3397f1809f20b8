//! `histoplay hist`: the R, G, B and luminance histograms of a picture or of each frame of a
//! range of a video, streamed out as JSON Lines or CSV. Video frames go through the headless
//! run (the player's decode thread, ring, converter and histogram engine).

use super::args::{parse_bins, parse_region, AdjustArgs, LutArgs};
use super::output::{self, FrameReport};
use crate::colour::Depth;
use crate::engine::histogram::{self, Histogram, DEFAULT_BINS};
use crate::engine::{EngineConfig, HistogramEngine};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::headless::{cpu_frames_with, gpu_frames, prepare, ClipError, FrameRange};
use crate::pipeline::Look;
use crate::render::adjust::{adjust_still, Adjustments, CpuAdjuster};
use crate::render::lut::lut_still;
use crate::scope::Region;
use crate::video::source::{Decoding, VideoSource};
use crate::video::still::{self, RgbaImage};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Print the R, G, B and luminance histograms of a picture or of video frames.
///
/// One JSON line (or CSV row) per frame, with the frame's number, time, size, depth and the
/// counts of each bin; a still image is frame 0.
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    /// The frame to count, in presentation order (a still image is frame 0).
    #[arg(long, default_value_t = 0, conflicts_with = "frames")]
    frame: u64,
    /// A range of frames: A..B (B excluded), A..=B, A.. (to the end).
    #[arg(long, value_parser = FrameRange::parse)]
    frames: Option<FrameRange>,
    /// Number of bins: a power of two from 16 to 1024.
    #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
    bins: u32,
    /// Count on the CPU (the reference implementation) instead of the GPU.
    #[arg(long)]
    cpu: bool,
    /// CSV instead of JSON Lines.
    #[arg(long)]
    csv: bool,
    /// Count only this rectangle of each frame: X,Y,W,H in frame pixels (y down).
    #[arg(long, value_parser = parse_region)]
    region: Option<Region>,
    #[command(flatten)]
    adjust: AdjustArgs,
    #[command(flatten)]
    lut: LutArgs,
    #[command(flatten)]
    deinterlace: crate::cli::args::DeinterlaceArgs,
    /// Count each field of a frame apart, as FFmpeg's field filter makes a picture of it
    /// (every other line, half the height): two lines a frame, "field":"top" then "bottom".
    #[arg(long)]
    fields: bool,
}

pub fn run(args: Args) -> Result<()> {
    // (Read before the signals are blocked: a LUT that is a FIFO with no writer waits.)
    let given = args.lut.load()?;
    // SIGINT and SIGTERM end a live input where it is, the output whole (blocked before any
    // thread starts).
    let signals = crate::quit_signals::QuitSignals::install();
    let range = args.frames.unwrap_or(FrameRange::single(args.frame));
    let job = |tagged| HistJob {
        bins: args.bins,
        region: args.region,
        adjustments: args.adjust.adjustments(),
        look: args.lut.look(given.as_ref(), tagged),
        deinterlace: args.deinterlace.filter(),
        fields: args.fields,
    };
    if args.fields && args.deinterlace.filter().is_some() {
        bail!("--fields counts the fields as decoded: there is nothing to deinterlace");
    }
    if let Some(image) = still::read(&args.input)? {
        if args.fields {
            bail!(
                "--fields counts a video's fields: '{}' is a picture",
                args.input.display()
            );
        }
        return hist_still_image(&args.input, &image, range, job(None), args.cpu, args.csv);
    }
    // The GPU opens while the file does.
    let mut gpu = crate::gpu::GpuOpening::start(!args.cpu);
    let source = VideoSource::open_for(&args.input, Decoding::Throughput)?;
    let cpu = crate::headless::on_the_cpu(&mut gpu, &source.info, args.cpu);
    if let Some(signals) = &signals {
        signals.end_input(&source);
    }
    let job = job(source.info.log);
    let output = if args.csv { Output::Csv } else { Output::JsonLines };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let path = source.info.path.clone();
    let written = hist_video(gpu, source, range, job, cpu, output, &mut out)?;
    drop(out);
    if let Some(status) = signals.as_ref().and_then(crate::quit_signals::QuitSignals::exit_status) {
        crate::process::end(status as u8);
    }
    if written == 0 {
        bail!("'{}': {}", path.display(), range.none_decoded());
    }
    Ok(())
}

fn hist_still_image(
    input: &Path,
    image: &still::RgbaImage,
    range: FrameRange,
    job: HistJob,
    cpu: bool,
    csv: bool,
) -> Result<()> {
    if !range.contains(0) {
        bail!("'{}' is a still image: it has only frame 0", input.display());
    }
    let histogram = hist_still(image, job.clone(), cpu)?;
    let report = FrameReport {
        frame: 0,
        pts: 0.0,
        width: image.width,
        height: image.height,
        depth: 8,
        region: job.region,
        histogram: &histogram,
        counted: job.look.counted(),
        field: None,
    };
    let mut out = std::io::stdout().lock();
    if csv {
        output::write_csv_header(&mut out, &report)?;
        output::write_csv_row(&mut out, &report)?;
    } else {
        output::write_json_line(&mut out, &report)?;
    }
    out.flush()?;
    Ok(())
}

/// Output format of `hist`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    JsonLines,
    Csv,
}

fn write_report(out: &mut impl Write, output: Output, report: &FrameReport, first: bool) -> std::io::Result<()> {
    match output {
        Output::JsonLines => output::write_json_line(out, report),
        Output::Csv => {
            if first {
                output::write_csv_header(out, report)?;
            }
            output::write_csv_row(out, report)
        }
    }
}

/// Writes the histogram of every frame of `range` (on the GPU `gpu` opens, unless `cpu`);
/// returns how many frames were written.
pub fn hist_video(
    gpu: crate::gpu::GpuOpening,
    source: VideoSource,
    range: FrameRange,
    job: HistJob,
    cpu: bool,
    output: Output,
    out: &mut impl Write,
) -> Result<u64, ClipError> {
    let mut source = prepare(source, range, job.region)?;
    if counts_each_size(job.region, job.fields, job.deinterlace) {
        source.follow_size_changes();
    }
    let written = if cpu {
        hist_cpu(source, range, &job, output, out)?
    } else {
        hist_gpu(gpu, source, range, &job, output, out)?
    };
    out.flush()?;
    Ok(written)
}

/// The histogram of a still picture (or of its region), on the GPU or the CPU.
pub fn hist_still(image: &RgbaImage, job: HistJob, cpu: bool) -> Result<Histogram, ClipError> {
    let region = job.region.unwrap_or(Region::full(image.width, image.height));
    region.check(image.width, image.height)?;
    let on_cpu = || {
        let mut words = CpuAdjuster::new(job.adjustments, 8).adjust(&image.words());
        if let Some(tables) = job.look.counted_tables(8) {
            words = tables.apply_words(&words);
        }
        histogram::histogram_packed(&region.crop(&words, image.width), job.bins, Depth::Eight)
    };
    if cpu {
        return Ok(on_cpu());
    }
    let ctx = GpuContext::new()?;
    // A panorama wider than the GPU's textures is counted by the CPU twin, the same counts.
    if let Err(too_large) = ctx.check_frame_size(image.width, image.height) {
        log::warn!("{too_large}: counted on the CPU");
        return Ok(on_cpu());
    }
    let texture = GpuFrame::from_rgba(&ctx, "picture", image.width, image.height, &image.pixels)?;
    let mut texture = adjust_still(&ctx, &texture, job.adjustments)?;
    if let Some(tables) = job.look.counted_tables(8) {
        texture = lut_still(&ctx, &texture, &tables)?;
    }
    let engine = HistogramEngine::new(&ctx, job.bins, EngineConfig::default());
    let pixels = crate::scope::region::counted_pixels(&ctx, &texture, job.region);
    Ok(engine.count(&ctx, &pixels, region.width, region.height)?)
}

/// The reference path: FFmpeg decode, CPU conversion twin, CPU histogram.
fn hist_cpu(
    source: VideoSource,
    range: FrameRange,
    job: &HistJob,
    output: Output,
    out: &mut impl Write,
) -> Result<u64, ClipError> {
    let mut format = source.info.format;
    if job.fields {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
    }
    let mut written = 0;
    let mut adjuster = CpuAdjuster::new(job.adjustments, format.layout.output_bits());
    let lut = job.look.counted_tables(format.layout.output_bits());
    let work = crate::headless::PictureWork {
        deinterlace: job.deinterlace,
        split: job.fields,
        ..Default::default()
    };
    let mut size = (format.width, format.height);
    cpu_frames_with(source, range, work, |words, depth, frame, (width, height)| {
        // (At a change of size the GPU's passes are made again: auto-levels start over.)
        if std::mem::replace(&mut size, (width, height)) != (width, height) {
            adjuster.restart();
        }
        let region = job.region.unwrap_or(Region::full(width, height));
        let mut adjusted = adjuster.adjust(words);
        if let Some(tables) = &lut {
            adjusted = tables.apply_words(&adjusted);
        }
        let words = region.crop(&adjusted, width);
        let histogram = histogram::histogram_packed(&words, job.bins, depth);
        let report = FrameReport {
            frame: frame.index,
            pts: frame.seconds,
            width,
            height,
            depth: depth.bits(),
            region: job.region,
            histogram: &histogram,
            counted: job.look.counted(),
            field: frame.field,
        };
        write_report(out, output, &report, written == 0)?;
        written += 1;
        Ok(())
    })
}

/// Whether a picture that changes size mid-stream is counted at each size (else scaled to the
/// first), by `hist` and `scope`: where no region of the first size is asked for, nor its
/// fields apart or deinterlaced (their passes read frames beside their neighbours).
pub fn counts_each_size(
    region: Option<Region>,
    fields: bool,
    deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
) -> bool {
    region.is_none() && !fields && deinterlace.is_none()
}

/// What `hist` counts: bins, a region of each frame if given, and the picture as adjusted
/// (and, with a LUT, the signal or the picture through it).
#[derive(Clone, Debug, Default)]
pub struct HistJob {
    pub bins: u32,
    pub region: Option<Region>,
    pub adjustments: Adjustments,
    pub look: Look,
    /// Each frame deinterlaced first: the pictures are counted.
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
    /// Each field counted apart (top, then bottom), as a picture of half the frame's height.
    pub fields: bool,
}

fn hist_gpu(
    gpu: crate::gpu::GpuOpening,
    source: VideoSource,
    range: FrameRange,
    job: &HistJob,
    output: Output,
    out: &mut impl Write,
) -> Result<u64, ClipError> {
    let mut format = source.info.format;
    if job.fields {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
    }
    let following = source.follows_sizes();
    let mut written = 0u64;
    gpu_frames(
        gpu,
        source,
        range,
        job.bins,
        |ctx, pipeline| {
            if job.fields {
                pipeline.split_fields(ctx).map_err(ClipError::Decode)?;
            }
            pipeline.set_region(ctx, job.region)?;
            pipeline.set_adjustments(ctx, job.adjustments)?;
            pipeline.set_look(ctx, &job.look)?;
            if let Some(filter) = job.deinterlace {
                pipeline.deinterlace(ctx, filter);
            }
            Ok(pipeline.engine.histogram_bytes())
        },
        |pipeline, encoder, buffer| {
            let bytes = pipeline.engine.histogram_bytes();
            encoder.copy_buffer_to_buffer(&pipeline.target.histogram, 0, buffer, 0, bytes);
        },
        |pipeline, bytes, frame| {
            let histogram = Histogram::from_interleaved(&crate::gpu::readback::words(bytes));
            let (width, height) = match following {
                true => pipeline.frame_size(),
                false => (format.width, format.height),
            };
            let report = FrameReport {
                frame: frame.index,
                pts: frame.seconds,
                width,
                height,
                depth: pipeline.engine.depth.bits(),
                region: job.region,
                histogram: &histogram,
                counted: job.look.counted(),
                field: frame.field,
            };
            write_report(out, output, &report, written == 0)?;
            written += 1;
            Ok(())
        },
    )
}
