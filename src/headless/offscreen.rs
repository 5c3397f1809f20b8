//! Offscreen rendering: the player's picture with its histogram overlay, into a PNG-ready
//! RGBA8 buffer. Backs the `render` command and the snapshot tests.

use crate::colour::log::InputColour;
use crate::colour::lut::picture_lut;
use crate::colour::lut::LutTables;
use crate::colour::LogEncoding;
use crate::colour::{ColorSpec, ColorVolume, Depth, Matrix, Range, Transfer};
use crate::compare::composite::{composite_frame, CompareMode, Composite, CompositePass};
use crate::compare::vmaf::gpu::{GpuOptions, VmafPass};
use crate::engine::{EngineConfig, HistogramEngine};
use crate::geometry::Orientation;
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use crate::marks::gpu::MarksStage;
use crate::marks::MarkSettings;
use crate::pipeline::FramePipeline;
use crate::pipeline::Look;
use crate::render::adjust::{adjust_still, Adjustments};
use crate::render::lut::lut_still;
use crate::render::notes::{self, MarksNote};
use crate::render::picture::Signal;
use crate::render::scene::{Scene, SceneRenderer, ViewOptions};
use crate::scope::gpu::ScopePass;
use crate::scope::graticule::{self, Axis, Level, Scale};
use crate::scope::region;
use crate::scope::{Region, ScopeError, ScopeKind};
use crate::video::format::{FrameFormat, PlaneData, PlaneLayout};
use crate::video::ring::RingError;

/// Why a frame could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Ring(#[from] RingError),
    #[error(transparent)]
    Scope(#[from] ScopeError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Convert(#[from] crate::video::convert::ConvertError),
    #[error("no VIF heat map: {0}")]
    Heat(String),
}

/// What a render counts and shows besides the picture: the histograms' bins, a scope, and
/// the region they count.
#[derive(Clone, Debug)]
pub struct Counting {
    pub bins: u32,
    pub scope: Option<ScopeKind>,
    pub region: Option<Region>,
    /// The picture adjustments, applied before anything counts or draws the picture.
    pub adjustments: Adjustments,
    /// The marks drawn on the picture (of the adjusted frame).
    pub marks: MarkSettings,
    /// The waveform's graticule: its scale, and levels added.
    pub graticule: (Scale, Vec<Level>),
    /// The LUT the picture is shown through (`--lut`), and whether the histograms and scopes
    /// count the signal or the picture through it (`--scopes-on`).
    pub look: Look,
    /// What the signal is (`--input-colour`): `for_file` turns it into the log encoding in
    /// force and the LUT its display rendering gives, where no LUT was given.
    pub input_colour: InputColour,
    /// The camera log encoding in force (`for_file`): the marks' stops and the graticule's.
    pub exposure: Option<LogEncoding>,
}

impl Counting {
    pub fn histograms(bins: u32) -> Self {
        Self {
            bins,
            scope: None,
            region: None,
            adjustments: Adjustments::default(),
            marks: MarkSettings::default(),
            graticule: Default::default(),
            look: Look::default(),
            input_colour: InputColour::Auto,
            exposure: None,
        }
    }

    /// What is counted and shown for a file whose metadata names the log encoding `tagged`:
    /// the encoding in force, and the picture through the LUT given or its display rendering.
    pub fn for_file(mut self, tagged: Option<LogEncoding>) -> Self {
        self.exposure = self.input_colour.resolve(tagged);
        self.look.lut = picture_lut(self.look.lut.as_ref(), self.exposure);
        self.marks.exposure = self.exposure;
        self
    }
}

/// Whose colours a picture holds, which its marks follow.
#[derive(Clone, Copy)]
pub enum PictureOf {
    /// A still: sRGB.
    Still,
    /// A comparison's composite: A's colours (with no range marks: no planes).
    Comparison { volume: ColorVolume, matrix: Matrix },
}

/// Renders an RGBA8 picture fitted into `size` with its histograms (and scope), and returns the
/// pixels.
pub fn render_picture(
    ctx: &GpuContext,
    picture: &GpuFrame,
    of: PictureOf,
    size: (u32, u32),
    counting: Counting,
    options: ViewOptions,
) -> Result<Vec<u8>, ScopeError> {
    let adjusted;
    let picture = if counting.adjustments.is_identity() {
        picture
    } else {
        adjusted = adjust_still(ctx, picture, counting.adjustments)?;
        &adjusted
    };
    // Through the LUT, the picture drawn; counted as it is or as drawn.
    let looked_up;
    let (picture, counted) = match &counting.look.lut {
        Some(lut) => {
            looked_up = lut_still(ctx, picture, &LutTables::new(lut, picture.bits))?;
            let counted = if counting.look.counts_display() {
                &looked_up
            } else {
                picture
            };
            (&looked_up, counted)
        }
        None => (picture, picture),
    };
    let region = counting.region.unwrap_or(Region::full(picture.width, picture.height));
    // Counted at the picture's own depth (a comparison of 10-bit video is 10-bit).
    let depth = Depth::from_bits(picture.bits);
    let engine = HistogramEngine::new(
        ctx,
        counting.bins,
        EngineConfig {
            depth,
            ..EngineConfig::default()
        },
    );
    let target = engine.target(ctx, region.width, region.height)?;
    let pixels = region::counted_pixels(ctx, counted, counting.region);
    let source = engine.bind_source(ctx, &target, &pixels);
    let scope = match counting.scope {
        Some(kind) => {
            let pass = ScopePass::new(ctx, kind, counting.bins, depth);
            let size = (region.width, region.height);
            let scope_target = pass.target(ctx, &pixels, kind.display_columns(), size, &ColorVolume::default())?;
            Some((pass, scope_target))
        }
        None => None,
    };
    // The marks: of an RGB picture, full range, so no range test.
    let (volume, matrix) = match of {
        PictureOf::Still => (ColorVolume::default(), Matrix::Bt709),
        PictureOf::Comparison { volume, matrix } => (volume, matrix),
    };
    let format = FrameFormat {
        layout: PlaneLayout::Rgba,
        width: picture.width,
        height: picture.height,
        color: ColorSpec {
            matrix,
            range: Range::Full,
        },
    };
    let note = match of {
        PictureOf::Still => MarksNote::new(&counting.marks, &volume, &format),
        PictureOf::Comparison { .. } => MarksNote::comparing(&counting.marks, &volume, &format),
    };
    let marks = (!counting.marks.shown.is_empty()).then(|| {
        let mut stage = MarksStage::new(ctx, &[], &picture.pixels, format, volume, picture.bits);
        stage.set(&ctx.queue, &counting.marks);
        stage
    });
    let aspect = picture.width as f32 / picture.height as f32;
    let scene = |renderer: &SceneRenderer| {
        let scope = scope.as_ref().map(|(pass, target)| (pass, target));
        // Shown in its own colours, as the window shows it (a comparison's in A's).
        let signal = Signal {
            bits: picture.bits,
            volume,
            peak: None,
            marks: marks.as_ref().map(MarksStage::view),
        };
        let mut scene = renderer.scene(&ctx.device, &target, &picture.view, signal, scope);
        let axis = Axis {
            bits: picture.bits,
            range: Range::Full,
            transfer: Transfer::Sdr,
            log: counting.exposure,
        };
        scene.set_graticule(graticule::lines(counting.graticule.0, &axis, &counting.graticule.1));
        scene
    };
    let frame_size = (picture.width, picture.height);
    Ok(draw(
        ctx,
        scene,
        (aspect, Orientation::default()),
        size,
        options,
        (counting.region, frame_size),
        note.as_ref(),
        |encoder| {
            if let Some(marks) = &marks {
                marks.encode(encoder, Some(0), None);
            }
            engine.encode(encoder, &target, &source, None);
            if let Some((pass, scope_target)) = &scope {
                pass.encode(encoder, scope_target, None);
            }
        },
    )?)
}

/// One decoded video frame: its planes in `format`, from a stream of `volume`.
pub struct VideoFrame<'a> {
    pub format: FrameFormat,
    pub volume: ColorVolume,
    /// The peak light the stream's frames' side data gives (`FrameLight`).
    pub frame_peak_nits: Option<f32>,
    pub planes: &'a [PlaneData<'a>],
    /// Display aspect ratio (the picture's as shown: its sample aspect, turned).
    pub aspect: f32,
    /// Clockwise quarter turns the picture is shown with (its display matrix).
    pub quarter_turns: u32,
}

/// Renders one decoded video frame as the player shows it: converted, counted and drawn by the
/// same frame pipeline, at the source's depth, tone-mapped from the frame's own peak if HDR.
pub fn render_video_frame(
    ctx: &GpuContext,
    frame: VideoFrame,
    size: (u32, u32),
    counting: Counting,
    options: ViewOptions,
) -> Result<Vec<u8>, RenderError> {
    let mut pipeline = FramePipeline::new(ctx, counting.bins, frame.format, frame.volume, 1)?;
    pipeline.set_region(ctx, counting.region)?;
    pipeline.set_scope(ctx, counting.scope.map(|kind| (kind, kind.display_columns())))?;
    pipeline.set_adjustments(ctx, counting.adjustments)?;
    pipeline.set_exposure(ctx, counting.exposure);
    pipeline.set_marks(ctx, &counting.marks);
    pipeline.set_look(ctx, &counting.look)?;
    pipeline.ring.slots[0].upload(&ctx.queue, frame.planes)?;
    if let Some(nits) = frame.frame_peak_nits {
        pipeline.bound_peak(&ctx.queue, nits);
    }
    let scene = |renderer: &SceneRenderer| {
        let mut scene = pipeline.scene(&ctx.device, renderer);
        scene.set_graticule(graticule::lines(
            counting.graticule.0,
            &pipeline.axis(),
            &counting.graticule.1,
        ));
        scene
    };
    let frame_size = (frame.format.width, frame.format.height);
    let note = MarksNote::new(&counting.marks, &frame.volume, &frame.format);
    let orientation = Orientation {
        quarter_turns: frame.quarter_turns,
        half: None,
    };
    let rgba = draw(
        ctx,
        scene,
        (frame.aspect, orientation),
        size,
        options,
        (counting.region, frame_size),
        note.as_ref(),
        |encoder| pipeline.encode_frame(encoder, 0),
    )?;
    Ok(rgba)
}

/// Counts (with `count`) and draws a frame (its scene made by `scene`, shown at `aspect` turned
/// by `orientation`, with the region of a
/// frame of `frame_size` counted, if any, and the marks' note as the window shows it) into a
/// new `size` target, and reads it back.
#[allow(clippy::too_many_arguments)]
fn draw(
    ctx: &GpuContext,
    scene: impl FnOnce(&SceneRenderer) -> Scene,
    (aspect, orientation): (f32, Orientation),
    size: (u32, u32),
    options: ViewOptions,
    (region, frame_size): (Option<Region>, (u32, u32)),
    note: Option<&MarksNote>,
    count: impl FnOnce(&mut wgpu::CommandEncoder),
) -> Result<Vec<u8>, GpuError> {
    let output = GpuFrame::new(ctx, "render output", size.0, size.1)?;
    let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
    let mut scene = scene(&renderer);
    scene.set_region(region, frame_size);
    scene.layout(&ctx.queue, aspect, orientation, size, options);

    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("offscreen frame"),
    });
    count(&mut encoder);
    renderer.encode(&mut encoder, &output.view, &scene, options.quads);
    if let Some(note) = note {
        notes::draw_over(ctx, &mut encoder, &output.view, size, note);
    }
    ctx.queue.submit([encoder.finish()]);
    readback::read_texture(ctx, &output.texture)
}

/// Renders the comparison of two decoded frames of one format (A the reference, B the one
/// judged) as `composite` shows them, with the histograms (and scope) of what is shown: each
/// converted by a frame pipeline of its own, then composited (`compare::composite`), then
/// counted and drawn as a picture. SDR only: an HDR pair is compared in its signal, which the
/// picture would show untone-mapped.
pub fn render_comparison(
    ctx: &GpuContext,
    a: VideoFrame,
    b: VideoFrame,
    composite: Composite,
    size: (u32, u32),
    counting: Counting,
    options: ViewOptions,
) -> Result<Vec<u8>, RenderError> {
    let pipeline = |frame: &VideoFrame| -> Result<FramePipeline, RenderError> {
        let pipeline = FramePipeline::new(ctx, counting.bins, frame.format, frame.volume, 1)?;
        pipeline.ring.slots[0].upload(&ctx.queue, frame.planes)?;
        Ok(pipeline)
    };
    let (pa, pb) = (pipeline(&a)?, pipeline(&b)?);
    let bits = pa.ring.output.bits;
    let out = composite_frame(ctx, (a.format.width, a.format.height), bits, composite.mode)?;
    let pass = CompositePass::new(&ctx.device, bits);
    // VIF's heat: its loss map, made by VMAF's pass on the planes.
    let heat = match composite.mode {
        CompareMode::Vif => {
            let vmaf = VmafPass::new(&ctx.device, &a.format, GpuOptions::loss_map())
                .map_err(|e| RenderError::Heat(e.to_string()))?;
            let binding = vmaf.bind(&ctx.device, &pa.ring.slots[0], &pb.ring.slots[0]);
            Some((vmaf, binding))
        }
        _ => None,
    };
    let outputs = (&pa.ring.output, &pb.ring.output);
    let binding = pass.bind(
        &ctx.device,
        outputs,
        heat.as_ref().and_then(|(v, _)| v.heat()),
        &out,
        composite,
    );
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("comparison"),
    });
    pa.ring.encode_convert(&mut encoder, 0);
    pb.ring.encode_convert(&mut encoder, 0);
    if let Some((vmaf, binding)) = &heat {
        vmaf.encode_heat(&mut encoder, binding);
    }
    pass.encode(&mut encoder, &binding);
    ctx.queue.submit([encoder.finish()]);
    let of = PictureOf::Comparison {
        volume: a.volume,
        matrix: a.format.color.matrix,
    };
    Ok(render_picture(ctx, &out, of, size, counting, options)?)
}
