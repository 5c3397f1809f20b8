//! Offscreen rendering: the player's picture with its histogram overlay, into a PNG-ready
//! RGBA8 buffer. Backs the `render` command and the snapshot tests.

use crate::engine::{EngineConfig, HistogramEngine};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use crate::pipeline::FramePipeline;
use crate::render::picture::{Orientation, Signal};
use crate::render::scene::{Scene, SceneRenderer, ViewOptions};
use crate::video::format::{ColorVolume, FrameFormat, PlaneData};
use crate::video::ring::RingError;

/// Renders an RGBA8 picture fitted into `size` with its histograms, and returns the pixels.
pub fn render_picture(
    ctx: &GpuContext,
    picture: &GpuFrame,
    size: (u32, u32),
    bins: u32,
    options: ViewOptions,
) -> Result<Vec<u8>, GpuError> {
    let engine = HistogramEngine::new(ctx, bins, EngineConfig::default());
    let target = engine.target(ctx, picture.width, picture.height)?;
    let source = engine.bind_source(ctx, &target, &picture.pixels);
    let aspect = picture.width as f32 / picture.height as f32;
    let scene = |renderer: &SceneRenderer| renderer.scene(&ctx.device, &target, &picture.view, Signal::sdr());
    draw(ctx, scene, aspect, size, options, |encoder| {
        engine.encode(encoder, &target, &source, None)
    })
}

/// One decoded video frame: its planes in `format`, from a stream of `volume`.
pub struct VideoFrame<'a> {
    pub format: FrameFormat,
    pub volume: ColorVolume,
    /// The peak light the stream's frames' side data gives (`FrameLight`).
    pub frame_peak_nits: Option<f32>,
    pub planes: &'a [PlaneData<'a>],
    /// Display aspect ratio.
    pub aspect: f32,
}

/// Renders one decoded video frame as the player shows it: converted, counted and drawn by the
/// same frame pipeline, at the source's depth, tone-mapped from the frame's own peak if HDR.
pub fn render_video_frame(
    ctx: &GpuContext,
    frame: VideoFrame,
    size: (u32, u32),
    bins: u32,
    options: ViewOptions,
) -> Result<Vec<u8>, RingError> {
    let pipeline = FramePipeline::new(ctx, bins, frame.format, frame.volume, 1)?;
    pipeline.ring.slots[0].upload(&ctx.queue, frame.planes)?;
    if let Some(nits) = frame.frame_peak_nits {
        pipeline.bound_peak(&ctx.queue, nits);
    }
    let scene = |renderer: &SceneRenderer| pipeline.scene(&ctx.device, renderer);
    let rgba = draw(ctx, scene, frame.aspect, size, options, |encoder| {
        pipeline.encode_frame(encoder, 0)
    })?;
    Ok(rgba)
}

/// Counts (with `count`) and draws a frame (its scene made by `scene`) into a new `size`
/// target, and reads it back.
fn draw(
    ctx: &GpuContext,
    scene: impl FnOnce(&SceneRenderer) -> Scene,
    aspect: f32,
    size: (u32, u32),
    options: ViewOptions,
    count: impl FnOnce(&mut wgpu::CommandEncoder),
) -> Result<Vec<u8>, GpuError> {
    let output = GpuFrame::new(ctx, "render output", size.0, size.1)?;
    let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
    let scene = scene(&renderer);
    scene.layout(&ctx.queue, aspect, Orientation::default(), size, options);

    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("offscreen frame"),
    });
    count(&mut encoder);
    renderer.encode(&mut encoder, &output.view, &scene, options.quads);
    ctx.queue.submit([encoder.finish()]);
    readback::read_texture(ctx, &output.texture)
}
