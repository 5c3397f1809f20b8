//! `histoplay render`: a picture, or a frame of a video, drawn with its histograms (and a
//! scope, marks, a comparison) to a PNG, offscreen, as the window draws it.

use super::args::{
    parse_bins, parse_region, parse_size, AdjustArgs, CompareArgs, GraticuleArgs, LutArgs, MarkArgs, ViewArgs,
};
use crate::compare::align::{match_pair, Alignment, Want};
use crate::compare::CompareOptions;
use crate::engine::histogram::DEFAULT_BINS;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::headless::decode_frame;
use crate::headless::offscreen;
use crate::render::scene::ViewOptions;
use crate::scope::Region;
use crate::video::deinterlace::Deinterlacer;
use crate::video::source::VideoSource;
use crate::video::still;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Render a picture, or a frame of a video, with its histogram overlay to a PNG.
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    /// The picture written, in the format its name ends with: .png, .jpg (quality 90), .webp
    /// (lossless), .tiff, .bmp or .gif.
    #[arg(short, long)]
    output: PathBuf,
    /// For a video: the frame to render, in presentation order (deinterlaced at field rate,
    /// the picture: frame K's fields are 2K and 2K + 1).
    #[arg(long, default_value_t = 0)]
    frame: u64,
    /// Output size, WxH (default: the picture's size as shown: turned by its display matrix, its sample aspect applied).
    #[arg(long, value_parser = parse_size)]
    size: Option<(u32, u32)>,
    #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
    bins: u32,
    #[command(flatten)]
    view: ViewArgs,
    /// Count only this rectangle of the frame: X,Y,W,H in frame pixels (y down).
    #[arg(long, value_parser = parse_region)]
    region: Option<Region>,
    #[command(flatten)]
    adjust: AdjustArgs,
    #[command(flatten)]
    lut: LutArgs,
    #[command(flatten)]
    marks: MarkArgs,
    #[command(flatten)]
    graticule: GraticuleArgs,
    /// With --compare JUDGED, the two as --compare-mode shows them, with the histograms
    /// of what is shown.
    #[command(flatten)]
    compare: CompareArgs,
    #[command(flatten)]
    deinterlace: super::args::DeinterlaceArgs,
}

pub fn run(args: Args) -> Result<()> {
    let options = args.view.view();
    let counting = offscreen::Counting {
        bins: args.bins,
        scope: args.view.scope,
        region: args.region,
        adjustments: args.adjust.adjustments(),
        marks: args.marks.settings()?,
        graticule: (args.graticule.waveform_scale, args.graticule.graticule),
        look: crate::pipeline::Look {
            lut: args.lut.load()?,
            scopes_on: args.lut.scopes_on,
        },
        input_colour: args.lut.input_colour,
        exposure: None,
    };
    let (input, output, frame, size) = (&args.input, &args.output, args.frame, args.size);
    crate::cli::output::check_picture(output, &[input])?;
    if let Some(size) = size {
        crate::video::still::check_image_size(output, size).map_err(anyhow::Error::msg)?;
    }
    let deinterlace = args.deinterlace.filter();
    match args.compare.options()? {
        Some(shown) => render_comparison(input, output, (frame, deinterlace), shown, size, counting, options),
        None => render_one(input, output, (frame, deinterlace), size, counting, options),
    }
}

/// `render INPUT --compare JUDGED`: frame K of the reference and its partner in the judged
/// file, as `shown` asks; deinterlaced, picture K of both (as `compare --deinterlace` pairs
/// them).
fn render_comparison(
    reference: &Path,
    output: &Path,
    (frame, deinterlace): (u64, Option<Deinterlacer>),
    shown: CompareOptions,
    size: Option<(u32, u32)>,
    counting: offscreen::Counting,
    options: ViewOptions,
) -> Result<()> {
    let mut a = VideoSource::open(reference)?;
    let mut b = VideoSource::open(&shown.path)?;
    crate::compare::align::planar_rgb(&mut a);
    crate::compare::align::planar_rgb(&mut b);
    match_pair(&a, &mut b)?;
    for s in [&a, &b] {
        if s.info.volume.is_hdr() {
            bail!(
                "'{}' is HDR: render --compare draws SDR video (an HDR pair would show untone-mapped)",
                s.info.path.display()
            );
        }
    }
    let format = a.info.format;
    let picture_a = Picture::of(&mut a, frame, deinterlace)?;
    // B's partner of frame K, as `compare` and the window pair them.
    let alignment = Alignment::of(&a, &b, shown.by, shown.offset);
    let Some(want) = alignment.want(frame, picture_a.seconds()) else {
        bail!(
            "--offset {} puts frame {frame} before the other file's first",
            shown.offset
        );
    };
    let composite = shown.composite(format.width);
    let (out_w, out_h) = shown.mode.output_size((format.width, format.height));
    if let Some(region) = counting.region {
        region.check(out_w, out_h)?;
    }
    let picture_b = match deinterlace {
        None => {
            let partner = alignment.partner_number(&b, want);
            Picture::of(&mut b, partner, None)?
        }
        Some(filter) => Picture::Made(partner_picture(&mut b, &alignment, want, filter)?),
    };
    let ctx = GpuContext::new()?;
    let size = size.unwrap_or((out_w, out_h));
    let (planes_a, planes_b) = (picture_a.planes(format.layout), picture_b.planes(format.layout));
    // Each with its own colour (matrix, range); B's layout and size are A's after match_pair.
    let video = |source: &VideoSource, planes| offscreen::VideoFrame {
        format: source.info.format,
        volume: source.info.volume,
        frame_peak_nits: None,
        planes,
        aspect: out_w as f32 / out_h as f32,
        quarter_turns: 0,
    };
    let rgba = offscreen::render_comparison(
        &ctx,
        video(&a, &planes_a),
        video(&b, &planes_b),
        composite,
        size,
        counting,
        options,
    )?;
    still::save_image(output, size.0, size.1, &rgba).with_context(|| format!("cannot write '{}'", output.display()))?;
    Ok(())
}

/// What is drawn of a video: a frame as decoded, or a picture the deinterlacer made.
enum Picture {
    Decoded(crate::video::source::DecodedFrame),
    Made(crate::headless::CpuPicture),
}

impl Picture {
    /// Frame `frame` of `source`, or with `deinterlace` its picture `frame`.
    fn of(source: &mut VideoSource, frame: u64, deinterlace: Option<Deinterlacer>) -> Result<Self> {
        Ok(match deinterlace {
            None => Self::Decoded(decode_frame(source, frame)?),
            Some(filter) => Self::Made(crate::headless::decode_picture(source, frame, filter)?),
        })
    }

    fn seconds(&self) -> f64 {
        match self {
            Self::Decoded(frame) => frame.seconds,
            Self::Made(picture) => picture.meta.seconds,
        }
    }

    fn planes(&self, layout: crate::video::format::PlaneLayout) -> Vec<crate::video::format::PlaneData<'_>> {
        match self {
            Self::Decoded(frame) => frame.planes(layout),
            Self::Made(picture) => picture.plane_data(),
        }
    }
}

/// B's picture that goes with A's `want`: by number, that picture; by time, the latest of B's
/// at that time (at field rate the second field of the frame then shown, once its time has
/// come).
fn partner_picture(
    b: &mut VideoSource,
    alignment: &Alignment,
    want: Want,
    filter: Deinterlacer,
) -> Result<crate::headless::CpuPicture> {
    let frame = alignment.partner_number(b, want);
    if matches!(want, Want::Frame(_)) || filter.rate == crate::video::deinterlace::Rate::Frame {
        return Ok(crate::headless::decode_picture(b, frame, filter)?);
    }
    let second = crate::headless::decode_picture(b, 2 * frame + 1, filter)?;
    if !want.is_before(alignment.key(second.meta.index, second.meta.seconds)) {
        return Ok(second);
    }
    Ok(crate::headless::decode_picture(b, 2 * frame, filter)?)
}

fn render_one(
    input: &Path,
    output: &Path,
    (frame, deinterlace): (u64, Option<crate::video::deinterlace::Deinterlacer>),
    size: Option<(u32, u32)>,
    counting: offscreen::Counting,
    options: ViewOptions,
) -> Result<()> {
    let (size, rgba) = if let Some(image) = still::read(input)? {
        if frame != 0 {
            bail!("'{}' is a still image: it has only frame 0", input.display());
        }
        if let Some(region) = counting.region {
            region.check(image.width, image.height)?;
        }
        let counting = counting.for_file(None);
        let ctx = GpuContext::new()?;
        let size = size.unwrap_or((image.width, image.height));
        let picture = GpuFrame::from_rgba(&ctx, "picture", image.width, image.height, &image.pixels)?;
        (
            size,
            offscreen::render_picture(&ctx, &picture, offscreen::PictureOf::Still, size, counting, options)?,
        )
    } else {
        let mut source = VideoSource::open(input)?;
        let format = source.info.format;
        if let Some(region) = counting.region {
            region.check(format.width, format.height)?;
        }
        let counting = counting.for_file(source.info.log);
        let picture = Picture::of(&mut source, frame, deinterlace)?;
        let planes = picture.planes(format.layout);
        let ctx = GpuContext::new()?;
        // As the window shows it: turned by its display matrix, its sample aspect applied.
        let size = size.unwrap_or(source.info.display_size());
        let frame = offscreen::VideoFrame {
            format,
            volume: source.info.volume,
            frame_peak_nits: source.info.frame_light.get(),
            planes: &planes,
            aspect: source.info.display_aspect,
            quarter_turns: source.info.quarter_turns,
        };
        (
            size,
            offscreen::render_video_frame(&ctx, frame, size, counting, options)?,
        )
    };
    still::save_image(output, size.0, size.1, &rgba).with_context(|| format!("cannot write '{}'", output.display()))?;
    Ok(())
}
