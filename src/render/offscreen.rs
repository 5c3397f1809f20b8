//! Offscreen rendering: the player's picture with its histogram overlay, into a PNG-ready
//! RGBA8 buffer. Backs the `render` command and the snapshot tests.

use crate::engine::{EngineConfig, HistogramEngine};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use crate::render::picture::Orientation;
use crate::render::scene::{SceneRenderer, ViewOptions};

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
    let output = GpuFrame::new(ctx, "render output", size.0, size.1)?;
    let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
    let scene = renderer.scene(&ctx.device, &target, &picture.view);
    let aspect = picture.width as f32 / picture.height as f32;
    scene.layout(&ctx.queue, aspect, Orientation::default(), size, options);

    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("offscreen frame"),
    });
    engine.encode(&mut encoder, &target, &source, None);
    renderer.encode(&mut encoder, &output.view, &scene, options.quads);
    ctx.queue.submit([encoder.finish()]);
    readback::read_texture_rgba(ctx, &output.texture)
}
