//! The overlay pass: draws histogram quads over the picture from the GPU-side histogram and
//! scale, with no readback.

use crate::geometry::Rect;
use crate::gpu::shaders::{self, layout};

/// Twin of `OverlayUniforms` in shaders/render/overlay.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OverlayUniforms {
    pub rect: [f32; 4],
    pub colors: [[f32; 4]; 16],
    pub channel_mult: [u32; 4],
    /// Where vertical gridlines go across the quad (0..1), negative for none.
    pub gridlines: [f32; 4],
    pub log_scale: u32,
    /// Whether the outline histogram is drawn (1) or not (0).
    pub outline: u32,
    pub _pad: [u32; 2],
    /// The probed pixel's bins, x across the quad (0..1) per r, g, b, l; negative for none.
    pub markers: [f32; 4],
}

/// No probe markers.
pub const NO_MARKERS: [f32; 4] = [-1.0; 4];

/// No gridlines.
pub const NO_GRIDLINES: [f32; 4] = [-1.0; 4];

/// Which channels one quad shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuadChannels {
    Rgb,
    Luminance,
}

impl QuadChannels {
    /// The bit each channel contributes to the colour index (0 = not drawn).
    pub fn channel_mult(self) -> [u32; 4] {
        match self {
            QuadChannels::Rgb => [1, 2, 4, 0],
            QuadChannels::Luminance => [0, 0, 0, 8],
        }
    }
}

/// Colour per set of channels above the texcoord: index = r·1 + g·2 + b·4 + l·8.
/// Index 0 is the translucent backdrop that keeps the bars readable over any picture.
pub const COLORS: [[f32; 4]; 16] = {
    let mut c = [[1.0, 1.0, 1.0, 1.0]; 16];
    c[0] = [0.0, 0.0, 0.0, 0.5];
    c[1] = [1.0, 0.0, 0.0, 1.0];
    c[2] = [0.0, 1.0, 0.0, 1.0];
    c[3] = [1.0, 1.0, 0.0, 1.0];
    c[4] = [0.0, 0.4, 1.0, 1.0];
    c[5] = [1.0, 0.0, 1.0, 1.0];
    c[6] = [0.0, 1.0, 1.0, 1.0];
    c[7] = [0.85, 0.85, 0.85, 1.0];
    c
};

pub struct OverlayPass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
}

/// One quad's uniforms and bind group, tied to one histogram target.
pub struct OverlayQuad {
    pub channels: QuadChannels,
    gridlines: [f32; 4],
    /// A second histogram is outlined over the bars.
    outline: bool,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl OverlayPass {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overlay pass"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::FRAGMENT, true),
                layout::storage(1, wgpu::ShaderStages::FRAGMENT, true),
                layout::uniform(2, wgpu::ShaderStages::VERTEX_FRAGMENT, false),
                layout::storage(3, wgpu::ShaderStages::FRAGMENT, true),
                layout::storage(4, wgpu::ShaderStages::FRAGMENT, true),
            ],
        });
        let pipeline = shaders::quad_pipeline(
            device,
            "overlay pass",
            shaders::OVERLAY.to_string(),
            ("overlay_vs", "overlay_fs"),
            &layout,
            format,
        );
        Self { pipeline, layout }
    }

    pub fn quad(
        &self,
        device: &wgpu::Device,
        channels: QuadChannels,
        histogram: &wgpu::Buffer,
        scale: &wgpu::Buffer,
        gridlines: [f32; 4],
        outline: Option<(&wgpu::Buffer, &wgpu::Buffer)>,
    ) -> OverlayQuad {
        let (outline_histogram, outline_scale) = outline.unwrap_or((histogram, scale));
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overlay quad"),
            size: std::mem::size_of::<OverlayUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overlay quad"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: histogram.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: scale.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: outline_histogram.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: outline_scale.as_entire_binding(),
                },
            ],
        });
        OverlayQuad {
            channels,
            gridlines,
            outline: outline.is_some(),
            uniforms,
            bind_group,
        }
    }

    pub fn encode<'a>(&self, pass: &mut wgpu::RenderPass<'a>, quads: impl IntoIterator<Item = &'a OverlayQuad>) {
        pass.push_debug_group("histogram overlay");
        pass.set_pipeline(&self.pipeline);
        for quad in quads {
            pass.set_bind_group(0, &quad.bind_group, &[]);
            pass.draw(0..6, 0..1);
        }
        pass.pop_debug_group();
    }
}

impl OverlayQuad {
    /// Places the quad, picks linear or log heights and marks the probed pixel's bins; a small
    /// queue write, no allocation.
    pub fn update(&self, queue: &wgpu::Queue, rect: Rect, log_scale: bool, markers: [f32; 4]) {
        let uniforms = OverlayUniforms {
            rect: rect.to_array(),
            colors: COLORS,
            channel_mult: self.channels.channel_mult(),
            gridlines: self.gridlines,
            log_scale: u32::from(log_scale),
            outline: u32::from(self.outline),
            _pad: [0; 2],
            markers,
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }
}
