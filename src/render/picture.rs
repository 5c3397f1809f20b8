//! The picture pass: draws a frame texture into its fitted rectangle.

use crate::gpu::shaders::{self, layout};
use crate::render::layout::Rect;

/// Twin of `PictureUniforms` in shaders/render/picture.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PictureUniforms {
    pub rect: [f32; 4],
    pub uv_x: [f32; 4],
    pub uv_y: [f32; 4],
}

/// How the quad's texcoords map to the texture's: rotation in quarter turns, clockwise, as a
/// display matrix asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Orientation {
    pub quarter_turns: u32,
}

impl Orientation {
    /// (uv_x, uv_y) rows of the affine map from screen texcoord to texture texcoord.
    pub fn uv_rows(self) -> ([f32; 4], [f32; 4]) {
        match self.quarter_turns % 4 {
            0 => ([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]),
            // turned 90° clockwise: screen (x, y) shows texture (y, 1 - x)
            1 => ([0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 1.0, 0.0]),
            2 => ([-1.0, 0.0, 1.0, 0.0], [0.0, -1.0, 1.0, 0.0]),
            _ => ([0.0, -1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
        }
    }

    /// Whether width and height swap on screen.
    pub fn swaps_axes(self) -> bool {
        self.quarter_turns % 2 == 1
    }
}

pub struct PicturePass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

/// One texture's bind group and uniforms, made once per texture.
pub struct PictureBinding {
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl PicturePass {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("picture pass"),
            entries: &[
                layout::texture(0, wgpu::ShaderStages::FRAGMENT),
                layout::sampler(1, wgpu::ShaderStages::FRAGMENT),
                layout::uniform(2, wgpu::ShaderStages::VERTEX, false),
            ],
        });
        let module = shaders::module(device, "picture pass", shaders::PICTURE.to_string());
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("picture pass"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("picture pass"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("picture_vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("picture_fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("picture sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Self {
            pipeline,
            layout,
            sampler,
        }
    }

    pub fn bind(&self, device: &wgpu::Device, frame: &wgpu::TextureView) -> PictureBinding {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("picture uniforms"),
            size: std::mem::size_of::<PictureUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("picture"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(frame),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: uniforms.as_entire_binding(),
                },
            ],
        });
        PictureBinding { uniforms, bind_group }
    }

    pub fn encode(&self, pass: &mut wgpu::RenderPass, binding: &PictureBinding) {
        pass.push_debug_group("picture");
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &binding.bind_group, &[]);
        pass.draw(0..6, 0..1);
        pass.pop_debug_group();
    }
}

impl PictureBinding {
    pub fn update(&self, queue: &wgpu::Queue, rect: Rect, orientation: Orientation) {
        let (uv_x, uv_y) = orientation.uv_rows();
        let uniforms = PictureUniforms {
            rect: rect.to_array(),
            uv_x,
            uv_y,
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }
}
