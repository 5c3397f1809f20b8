//! The picture pass: draws a frame texture into its fitted rectangle, tone-mapping HDR signals
//! for the SDR screen and dithering frames deeper than the screen.

use crate::colour::transfer::transfer_code;
use crate::colour::{ColorVolume, Primaries};
use crate::geometry::{Orientation, Rect};
use crate::gpu::shaders::{self, layout};
use crate::marks::gpu::MarksView;
use crate::marks::MarkStyle;
use crate::render::peak::PeakState;
use wgpu::util::DeviceExt;

/// Twin of `PictureUniforms` in shaders/render/picture.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PictureUniforms {
    pub rect: [f32; 4],
    pub uv_x: [f32; 4],
    pub uv_y: [f32; 4],
    pub transfer: u32,
    /// A picture of wider primaries than BT.709's: converted to BT.709 for the screen through
    /// `to_bt709` (linear RGB rows), after the tone curve where HDR.
    pub wide: u32,
    pub dither_step: f32,
    /// A comparison's wipe line at this texture u; negative: none.
    pub split: f32,
    /// The region of interest in texture coordinates (u0, v0, u1, v1); negative: none.
    pub region: [f32; 4],
    pub to_bt709: [[f32; 4]; 3],
}

/// No region drawn.
pub const NO_REGION: [f32; 4] = [-1.0; 4];

/// No wipe line drawn.
pub const NO_SPLIT: f32 = -1.0;

/// What a frame's samples are, for showing them: their depth and colour volume, and for HDR
/// the peak pass's state to tone-map from.
#[derive(Clone, Copy)]
pub struct Signal<'a> {
    pub bits: u32,
    pub volume: ColorVolume,
    pub peak: Option<&'a wgpu::Buffer>,
    /// The marks drawn over it, if any have been shown.
    pub marks: Option<MarksView<'a>>,
}

impl Signal<'_> {
    /// An 8-bit SDR picture: shown as it is.
    pub fn sdr() -> Self {
        Self {
            bits: 8,
            volume: ColorVolume::default(),
            peak: None,
            marks: None,
        }
    }
}

pub struct PicturePass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    /// One step of the target's codes, which deeper frames are dithered by.
    target_step: f32,
    /// The peak state bound for SDR pictures, which do not read it.
    no_peak: wgpu::Buffer,
    /// The marks bound for pictures without: none shown.
    no_words: wgpu::Buffer,
    no_marks: wgpu::Buffer,
}

/// One texture's bind group and uniforms, made once per texture.
pub struct PictureBinding {
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// The uniforms' tone-mapping and dither fields, set at binding.
    transfer: u32,
    /// The source's linear RGB → BT.709's, for a picture of wider primaries; None for BT.709
    /// pictures, and for HDR ones shown as they are (no peak to tone-map from).
    wide: Option<[[f32; 4]; 3]>,
    dither_step: f32,
}

impl PicturePass {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("picture pass"),
            entries: &[
                layout::texture(0, wgpu::ShaderStages::FRAGMENT),
                layout::sampler(1, wgpu::ShaderStages::FRAGMENT),
                layout::uniform(2, wgpu::ShaderStages::VERTEX_FRAGMENT, false),
                layout::storage(3, wgpu::ShaderStages::FRAGMENT, true),
                layout::storage(4, wgpu::ShaderStages::FRAGMENT, true),
                layout::uniform(5, wgpu::ShaderStages::FRAGMENT, false),
            ],
        });
        let module = shaders::module(device, "picture pass", shaders::picture_source());
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
        let target_bits = match format {
            wgpu::TextureFormat::Rgb10a2Unorm => 10,
            _ => 8,
        };
        let no_peak = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("no peak"),
            contents: bytemuck::bytes_of(&PeakState::default()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let no_words = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("no marks"),
            contents: &[0; 4],
            usage: wgpu::BufferUsages::STORAGE,
        });
        let no_marks = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("no marks"),
            contents: bytemuck::bytes_of(&MarkStyle::none()),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        Self {
            pipeline,
            layout,
            sampler,
            target_step: 1.0 / ((1 << target_bits) - 1) as f32,
            no_peak,
            no_words,
            no_marks,
        }
    }

    pub fn bind(&self, device: &wgpu::Device, frame: &wgpu::TextureView, signal: Signal) -> PictureBinding {
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
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: signal.peak.unwrap_or(&self.no_peak).as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: signal.marks.map_or(&self.no_words, |m| m.words).as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: signal.marks.map_or(&self.no_marks, |m| m.style).as_entire_binding(),
                },
            ],
        });
        let hdr = signal.volume.is_hdr() && signal.peak.is_some();
        // An HDR signal without a peak to tone-map from is shown as it is, unconverted.
        let converted = hdr || !signal.volume.is_hdr();
        let wide = (converted && signal.volume.primaries != Primaries::Bt709).then(|| {
            let rows = crate::colour::primaries::gamut_rows(signal.volume.primaries);
            [rows[0], rows[1], rows[2]]
        });
        PictureBinding {
            uniforms,
            bind_group,
            transfer: if hdr { transfer_code(signal.volume.transfer) } else { 0 },
            wide,
            // Tone-mapped and gamut-converted pictures are computed in floating point, and deep
            // frames hold more than the screen does: all are dithered to the screen's codes.
            dither_step: if hdr || wide.is_some() || signal.bits > 8 {
                self.target_step
            } else {
                0.0
            },
        }
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
    pub fn update(&self, queue: &wgpu::Queue, rect: Rect, orientation: Orientation, region: [f32; 4], split: f32) {
        let (uv_x, uv_y) = orientation.uv_rows();
        let uniforms = PictureUniforms {
            rect: rect.to_array(),
            uv_x,
            uv_y,
            transfer: self.transfer,
            wide: u32::from(self.wide.is_some()),
            dither_step: self.dither_step,
            split,
            region,
            to_bt709: self.wide.unwrap_or_default(),
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }
}
