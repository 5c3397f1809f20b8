//! Offscreen rendering: the player's picture with its histogram overlay, into a PNG-ready
//! RGBA8 buffer. Backs the `render` command and the snapshot tests.

use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use crate::pipeline::FramePipeline;
use crate::render::picture::Orientation;
use crate::render::scene::{SceneRenderer, ViewOptions};
use crate::video::format::{FrameFormat, PlaneData};
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
    draw(ctx, &target, &picture.view, aspect, size, options, |encoder| {
        engine.encode(encoder, &target, &source, None)
    })
}

/// Renders one decoded video frame (its planes in `format`) as the player shows it: converted,
/// counted and drawn by the same frame pipeline, at the source's depth.
pub fn render_video_frame(
    ctx: &GpuContext,
    format: FrameFormat,
    planes: &[PlaneData],
    aspect: f32,
    size: (u32, u32),
    bins: u32,
    options: ViewOptions,
) -> Result<Vec<u8>, RingError> {
    let pipeline = FramePipeline::new(ctx, bins, format, 1)?;
    pipeline.ring.slots[0].upload(&ctx.queue, planes)?;
    let rgba = draw(
        ctx,
        &pipeline.target,
        &pipeline.ring.output.view,
        aspect,
        size,
        options,
        |encoder| pipeline.encode_frame(encoder, 0),
    )?;
    Ok(rgba)
}

/// Counts (with `count`) and draws a frame into a new `size` target, and reads it back.
fn draw(
    ctx: &GpuContext,
    target: &HistogramTarget,
    frame: &wgpu::TextureView,
    aspect: f32,
    size: (u32, u32),
    options: ViewOptions,
    count: impl FnOnce(&mut wgpu::CommandEncoder),
) -> Result<Vec<u8>, GpuError> {
    let output = GpuFrame::new(ctx, "render output", size.0, size.1)?;
    let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
    let scene = renderer.scene(&ctx.device, target, frame);
    scene.layout(&ctx.queue, aspect, Orientation::default(), size, options);

    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("offscreen frame"),
    });
    count(&mut encoder);
    renderer.encode(&mut encoder, &output.view, &scene, options.quads);
    ctx.queue.submit([encoder.finish()]);
    readback::read_texture(ctx, &output.texture)
}
