//! `histoplay scope`: a waveform, RGB parade, vectorscope or CIE 1931 xy diagram of a picture
//! or of video frames, one JSON object per frame, from the GPU (or `--cpu`, the reference).
//! The JSON is a public interface: keep it stable.

use super::args::{parse_bins, parse_columns, parse_region, AdjustArgs, LutArgs};
use super::output::{write_line, RegionBox, Seconds};
use crate::colour::{ColorVolume, Depth};
use crate::engine::histogram::DEFAULT_BINS;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::headless::{self as hist, ClipError, FrameMeta, FrameRange};
use crate::pipeline::{Look, ScopesOn};
use crate::render::adjust::{adjust_still, Adjustments, CpuAdjuster};
use crate::render::lut::lut_still;
use crate::scope::cie::{self, Chromaticity};
use crate::scope::gpu::ScopePass;
use crate::scope::region;
use crate::scope::{self, Region, ScopeKind, VECTORSCOPE_SIDE};
use crate::video::source::{Decoding, VideoSource};
use crate::video::still::{self, RgbaImage};
use anyhow::bail;
use serde::Serialize;
use std::io::{self, Write};
use std::path::PathBuf;

/// Print a scope of a picture or of video frames: waveform, parade, vectorscope or CIE diagram.
///
/// One JSON line per frame: the waveform (luminance bins per column), the RGB parade, the
/// vectorscope (chroma) or the CIE 1931 xy chromaticity diagram (in linear light, from the
/// source's transfer and primaries).
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    #[arg(long, value_enum, default_value_t = ScopeKind::Waveform)]
    kind: ScopeKind,
    /// The frame to count, in presentation order (a still image is frame 0).
    #[arg(long, default_value_t = 0, conflicts_with = "frames")]
    frame: u64,
    /// A range of frames: A..B (B excluded), A..=B, A.. (to the end).
    #[arg(long, value_parser = FrameRange::parse)]
    frames: Option<FrameRange>,
    /// Columns of the waveform and parade (column c holds the pixels with x·C/W = c)
    /// [default: 1024].
    #[arg(long, value_parser = parse_columns)]
    columns: Option<u32>,
    /// Bins per column of the waveform and parade: a power of two from 16 to 1024
    /// [default: 256].
    #[arg(long, value_parser = parse_bins)]
    bins: Option<u32>,
    /// Cells a side of the CIE diagram (`--kind cie`), 1 to 1024: cell (i, j) holds the
    /// pixels with i = ⌊x·N⌋, j = ⌊y·N⌋ [default: 256].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    size: Option<u32>,
    /// Count only this rectangle of each frame: X,Y,W,H in frame pixels (y down).
    #[arg(long, value_parser = parse_region)]
    region: Option<Region>,
    /// Count on the CPU (the reference implementation) instead of the GPU.
    #[arg(long)]
    cpu: bool,
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

pub fn run(args: Args) -> anyhow::Result<()> {
    // (Read before the signals are blocked: a LUT that is a FIFO with no writer waits.)
    let given = args.lut.load()?;
    // SIGINT and SIGTERM end a live input where it is, the output whole (blocked before any
    // thread starts).
    let signals = crate::quit_signals::QuitSignals::install();
    let range = args.frames.unwrap_or(FrameRange::single(args.frame));
    if args.size.is_some() && args.kind != ScopeKind::Cie {
        let own = match args.kind {
            ScopeKind::Vectorscope => "no size of its own (it counts 256 x 256 chroma cells)",
            _ => "--columns",
        };
        bail!(
            "--size is the CIE diagram's (--kind cie); the {} has {own}",
            args.kind.name()
        );
    }
    let columned = matches!(args.kind, ScopeKind::Waveform | ScopeKind::Parade);
    if !columned && (args.columns.is_some() || args.bins.is_some()) {
        let option = if args.columns.is_some() { "--columns" } else { "--bins" };
        let other = match args.kind {
            ScopeKind::Cie => "the CIE diagram has none (its cells a side are --size)",
            _ => "the vectorscope has none (it counts 256 x 256 chroma cells)",
        };
        bail!("{option} is the waveform's and the parade's; {other}");
    }
    let job = ScopeJob {
        kind: args.kind,
        columns: if args.kind == ScopeKind::Cie {
            args.size.unwrap_or(scope::cie::DEFAULT_SIZE)
        } else {
            args.columns.unwrap_or(scope::DEFAULT_COLUMNS)
        },
        bins: args.bins.unwrap_or(DEFAULT_BINS),
        region: args.region,
        adjustments: args.adjust.adjustments(),
        look: Look::default(),
        deinterlace: args.deinterlace.filter(),
        fields: args.fields,
    };
    if args.fields && args.deinterlace.filter().is_some() {
        bail!("--fields counts the fields as decoded: there is nothing to deinterlace");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // A video's frames written (none decoded is an error), or a picture's scope.
    let written = if let Some(image) = still::read(&args.input)? {
        if args.fields {
            bail!(
                "--fields counts a video's fields: '{}' is a picture",
                args.input.display()
            );
        }
        if !range.contains(0) {
            bail!("'{}' is a still image: it has only frame 0", args.input.display());
        }
        let job = ScopeJob {
            look: args.lut.look(given.as_ref(), None),
            ..job
        };
        let counts = scope_still(&image, &job, args.cpu)?;
        write_json(&mut out, &still_report(&image, &job, &counts))?;
        out.flush()?;
        None
    } else {
        // The GPU opens while the file does.
        let mut gpu = crate::gpu::GpuOpening::start(!args.cpu);
        let source = VideoSource::open_for(&args.input, Decoding::Throughput)?;
        let cpu = crate::headless::on_the_cpu(&mut gpu, &source.info, args.cpu);
        if let Some(signals) = &signals {
            signals.end_input(&source);
        }
        let job = ScopeJob {
            look: args.lut.look(given.as_ref(), source.info.log),
            ..job
        };
        let path = source.info.path.clone();
        Some((path, scope_video(gpu, source, range, job, cpu, &mut out)?))
    };
    drop(out);
    if let Some(status) = signals.as_ref().and_then(crate::quit_signals::QuitSignals::exit_status) {
        crate::process::end(status as u8);
    }
    if let Some((path, 0)) = written {
        bail!("'{}': {}", path.display(), range.none_decoded());
    }
    Ok(())
}

/// What to count: the scope, its columns (the CIE diagram: cells a side) and bins, and the
/// region.
#[derive(Clone, Debug)]
pub struct ScopeJob {
    pub kind: ScopeKind,
    pub columns: u32,
    pub bins: u32,
    pub region: Option<Region>,
    /// The picture as adjusted (as the player shows it).
    pub adjustments: Adjustments,
    /// The LUT the picture is shown through (`--lut`, or a log encoding's display rendering),
    /// and whether the signal or the picture through it is counted.
    pub look: Look,
    /// Each frame deinterlaced first: the pictures are counted.
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
    /// Each field counted apart (top, then bottom), as a picture of half the frame's height.
    pub fields: bool,
}

impl ScopeJob {
    /// The colour volume of what is counted (for the CIE diagram): the picture through a LUT
    /// is BT.709 SDR.
    fn counted_volume(&self, volume: ColorVolume) -> ColorVolume {
        if self.look.counts_display() {
            ColorVolume::default()
        } else {
            volume
        }
    }
}

/// One frame's scope, with where it came from.
pub struct ScopeReport<'a> {
    pub frame: u64,
    pub pts: f64,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub region: Option<Region>,
    pub kind: ScopeKind,
    /// Columns scopes: planes × columns × bins; vectorscope: 256 rows (cr) × 256 (cb); CIE
    /// diagram: N rows (y) × N (x), N = columns.
    pub counts: &'a [u32],
    pub columns: u32,
    pub bins: u32,
    /// With a LUT in force: whether the signal or the picture through it was counted.
    pub counted: Option<ScopesOn>,
    /// The field counted, where each is counted apart.
    pub field: Option<crate::video::deinterlace::Field>,
}

/// Waveform: `{"kind":"waveform","frame":K,"pts":s,"width":W,"height":H,"columns":C,"bins":N,
/// "depth":D,"l":[[N counts]×C]}`; parade has `"r"`, `"g"`, `"b"` of that shape; vectorscope:
/// `{"kind":"vectorscope","frame":K,"pts":s,"width":W,"height":H,"depth":D,"counts":[[256]×256]}`,
/// rows by cr, columns by cb; CIE diagram: `{"kind":"cie","frame":K,"pts":s,"width":W,
/// "height":H,"size":N,"depth":D,"counts":[[N]×N]}`, rows by y, columns by x (black pixels have
/// no chromaticity and are not counted). `"region":[X,Y,W,H]` follows `"depth"` when a region
/// was counted, then `"counted":"signal"|"display"` when a LUT (or a log encoding's display
/// rendering) was in force.
#[derive(Serialize)]
struct ScopeLine<'a> {
    kind: &'static str,
    frame: u64,
    /// `top` or `bottom`, where each field is counted apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'static str>,
    pts: Seconds,
    width: u32,
    height: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bins: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u32>,
    depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<RegionBox>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counted: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    l: Option<Rows<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    r: Option<Rows<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    g: Option<Rows<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<Rows<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    counts: Option<Rows<'a>>,
}

/// Counts as rows of `.1` counts each: `[[a,b,...],[...],...]`.
struct Rows<'a>(&'a [u32], usize);

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.chunks(self.1.max(1)))
    }
}

pub fn write_json(out: &mut impl Write, report: &ScopeReport) -> io::Result<()> {
    let square = report.kind.is_square();
    let cie = report.kind == ScopeKind::Cie;
    let side = if cie { report.columns } else { VECTORSCOPE_SIDE };
    let plane_len = (report.columns * report.bins) as usize;
    let plane = |i: usize| {
        Some(Rows(
            &report.counts[i * plane_len..(i + 1) * plane_len],
            report.bins as usize,
        ))
    };
    let parade = report.kind == ScopeKind::Parade;
    write_line(
        out,
        &ScopeLine {
            kind: report.kind.name(),
            frame: report.frame,
            field: report.field.map(crate::video::deinterlace::Field::name),
            pts: Seconds(report.pts),
            width: report.width,
            height: report.height,
            columns: (!square).then_some(report.columns),
            bins: (!square).then_some(report.bins),
            size: cie.then_some(report.columns),
            depth: report.depth,
            region: report.region.map(RegionBox),
            counted: report.counted.map(ScopesOn::name),
            l: (report.kind == ScopeKind::Waveform).then(|| plane(0)).flatten(),
            r: parade.then(|| plane(0)).flatten(),
            g: parade.then(|| plane(1)).flatten(),
            b: parade.then(|| plane(2)).flatten(),
            counts: square.then_some(Rows(report.counts, side as usize)),
        },
    )
}

/// CPU reference: a scope of packed pixels (already the region's, `width` wide) of a source of
/// `volume`.
pub fn scope_cpu(job: &ScopeJob, words: &[u32], width: u32, depth: Depth, volume: &ColorVolume) -> Vec<u32> {
    match job.kind {
        ScopeKind::Vectorscope => scope::vectorscope(words, depth),
        ScopeKind::Cie => cie::cie(words, depth, &Chromaticity::new(volume, depth.bits()), job.columns),
        kind => scope::column_scope(kind, words, width, job.columns, job.bins, depth).counts,
    }
}

/// The scope of every frame of `range` of a video, as JSON Lines (on the GPU `gpu` opens,
/// unless `cpu`); returns how many frames.
pub fn scope_video<W: Write>(
    gpu: crate::gpu::GpuOpening,
    source: VideoSource,
    range: FrameRange,
    job: ScopeJob,
    cpu: bool,
    out: &mut W,
) -> Result<u64, ClipError> {
    let mut source = hist::prepare(source, range, None)?;
    let following = super::hist::counts_each_size(job.region, job.fields, job.deinterlace);
    if following {
        source.follow_size_changes();
    }
    let mut format = source.info.format;
    if job.fields {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
    }
    if let Some(region) = job.region {
        region.check(format.width, format.height)?;
    }
    let volume = job.counted_volume(source.info.volume);
    let write = |out: &mut W, frame: FrameMeta, (width, height): (u32, u32), depth: Depth, counts: &[u32]| {
        let report = ScopeReport {
            frame: frame.index,
            pts: frame.seconds,
            width,
            height,
            depth: depth.bits(),
            region: job.region,
            kind: job.kind,
            counts,
            columns: job.columns,
            bins: job.bins,
            counted: job.look.counted(),
            field: frame.field,
        };
        write_json(out, &report)
    };
    let written = if cpu {
        let mut adjuster = CpuAdjuster::new(job.adjustments, format.layout.output_bits());
        let lut = job.look.counted_tables(format.layout.output_bits());
        let work = hist::PictureWork {
            deinterlace: job.deinterlace,
            split: job.fields,
            ..Default::default()
        };
        let mut size = (format.width, format.height);
        hist::cpu_frames_with(source, range, work, |words, depth, frame, (width, height)| {
            // (At a change of size the GPU's passes are made again: auto-levels start over.)
            if std::mem::replace(&mut size, (width, height)) != (width, height) {
                adjuster.restart();
            }
            let mut adjusted = adjuster.adjust(words);
            if let Some(tables) = &lut {
                adjusted = tables.apply_words(&adjusted);
            }
            let region = job.region.unwrap_or(Region::full(width, height));
            let words = region.crop(&adjusted, width);
            let counts = scope_cpu(&job, &words, region.width, depth, &volume);
            write(out, frame, (width, height), depth, &counts)
        })?
    } else {
        hist::gpu_frames(
            gpu,
            source,
            range,
            job.bins,
            |ctx, pipeline| {
                if job.fields {
                    pipeline.split_fields(ctx).map_err(ClipError::Decode)?;
                }
                pipeline.set_region(ctx, job.region)?;
                pipeline.set_scope(ctx, Some((job.kind, job.columns)))?;
                pipeline.set_adjustments(ctx, job.adjustments)?;
                pipeline.set_look(ctx, &job.look)?;
                if let Some(filter) = job.deinterlace {
                    pipeline.deinterlace(ctx, filter);
                }
                let (_, target) = pipeline.scope().expect("the scope was just set");
                Ok(target.counts.size())
            },
            |pipeline, encoder, buffer| {
                let (_, target) = pipeline.scope().expect("the scope is set");
                encoder.copy_buffer_to_buffer(&target.counts, 0, buffer, 0, target.counts.size());
            },
            |pipeline, bytes, frame| {
                let words = crate::gpu::readback::words(bytes);
                let size = match following {
                    true => pipeline.frame_size(),
                    false => (format.width, format.height),
                };
                write(
                    out,
                    frame,
                    size,
                    pipeline.engine.depth,
                    crate::scope::gpu::shown(&words),
                )
            },
        )?
    };
    out.flush()?;
    Ok(written)
}

/// The scope of a still picture, on the GPU or the CPU.
pub fn scope_still(image: &RgbaImage, job: &ScopeJob, cpu: bool) -> Result<Vec<u32>, ClipError> {
    let region = job.region.unwrap_or(Region::full(image.width, image.height));
    region.check(image.width, image.height)?;
    let on_cpu = || {
        let mut words = CpuAdjuster::new(job.adjustments, 8).adjust(&image.words());
        if let Some(tables) = job.look.counted_tables(8) {
            words = tables.apply_words(&words);
        }
        let words = region.crop(&words, image.width);
        scope_cpu(job, &words, region.width, Depth::Eight, &ColorVolume::default())
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
    let frame = GpuFrame::from_rgba(&ctx, "picture", image.width, image.height, &image.pixels)?;
    let mut frame = adjust_still(&ctx, &frame, job.adjustments)?;
    if let Some(tables) = job.look.counted_tables(8) {
        frame = lut_still(&ctx, &frame, &tables)?;
    }
    let pixels = region::counted_pixels(&ctx, &frame, job.region);
    let pass = ScopePass::new(&ctx, job.kind, job.bins, Depth::Eight);
    let size = (region.width, region.height);
    let target = pass.target(&ctx, &pixels, job.columns, size, &ColorVolume::default())?;
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pass.encode(&mut encoder, &target, None);
    ctx.queue.submit([encoder.finish()]);
    Ok(pass.read(&ctx, &target)?)
}

/// The report of a still picture's scope (frame 0).
pub fn still_report<'a>(image: &RgbaImage, job: &ScopeJob, counts: &'a [u32]) -> ScopeReport<'a> {
    ScopeReport {
        frame: 0,
        pts: 0.0,
        width: image.width,
        height: image.height,
        depth: 8,
        region: job.region,
        kind: job.kind,
        counts,
        columns: job.columns,
        bins: job.bins,
        counted: job.look.counted(),
        field: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_documented_shape() {
        let counts = [1, 2, 3, 4, 5, 6];
        let mut out = Vec::new();
        let report = ScopeReport {
            frame: 2,
            pts: 0.5,
            width: 4,
            height: 3,
            depth: 8,
            region: None,
            kind: ScopeKind::Waveform,
            counts: &counts[..4],
            columns: 2,
            bins: 2,
            counted: None,
            field: None,
        };
        write_json(&mut out, &report).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"kind\":\"waveform\",\"frame\":2,\"pts\":0.5,\"width\":4,\"height\":3,\"columns\":2,\"bins\":2,\"depth\":8,\"l\":[[1,2],[3,4]]}\n"
        );
        let mut out = Vec::new();
        let parade = ScopeReport {
            kind: ScopeKind::Parade,
            columns: 1,
            counts: &counts,
            region: Some(Region::parse("1,1,2,2").unwrap()),
            counted: Some(ScopesOn::Display),
            ..report
        };
        write_json(&mut out, &parade).unwrap();
        assert!(String::from_utf8(out).unwrap().ends_with(
            "\"depth\":8,\"region\":[1,1,2,2],\"counted\":\"display\",\"r\":[[1,2]],\"g\":[[3,4]],\"b\":[[5,6]]}\n"
        ));
    }
}
