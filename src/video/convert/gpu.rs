//! The GPU side of the conversion: plane textures (the upload ring's slots) and the compute pass
//! that writes the frame's texture and packed pixels.

use super::staging::UploadStaging;
use super::*;
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::video::interop::GpuPlanes;
use crate::video::memory::direct::PoolPlane;
use std::sync::{Arc, OnceLock};
use wgpu::util::DeviceExt;

struct PlaneTexture {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

/// The GPU textures of one frame's planes: a slot of the upload ring, made once for a stream's
/// format and refilled with each frame it carries, through staging buffers shared with the
/// ring's other slots.
pub struct PlaneTextures {
    pub format: FrameFormat,
    planes: Vec<PlaneTexture>,
    device: wgpu::Device,
    staging: Arc<UploadStaging>,
}

impl PlaneTextures {
    /// A slot with a staging buffer of its own.
    pub fn new(device: &wgpu::Device, label: &str, format: FrameFormat) -> Result<Self, ConvertError> {
        let staging = UploadStaging::new(device, label, &format, 1)?;
        Self::sharing(device, label, format, staging)
    }

    /// A slot uploading through `staging`, which other slots may share.
    pub fn sharing(
        device: &wgpu::Device,
        label: &str,
        format: FrameFormat,
        staging: Arc<UploadStaging>,
    ) -> Result<Self, ConvertError> {
        check_format(&format)?;
        let max = device.limits().max_texture_dimension_2d;
        let planes = (0..format.layout.plane_count())
            .map(|index| {
                let shape = PlaneShape::of(&format, index);
                if shape.width > max || shape.height > max {
                    return Err(ConvertError::TooLarge {
                        plane: index,
                        width: shape.width,
                        height: shape.height,
                        max,
                    });
                }
                let label = format!("{label} plane {index}");
                let texture = device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(&label),
                    size: shape.extent(),
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: shape.format,
                    // Copied out too: deinterlacing keeps the planes it makes fields from.
                    usage: wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::COPY_DST
                        | wgpu::TextureUsages::COPY_SRC,
                    view_formats: &[],
                });
                let view = texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some(&label),
                    ..Default::default()
                });
                Ok(PlaneTexture { texture, view })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            format,
            planes,
            device: device.clone(),
            staging,
        })
    }

    /// Bytes the GPU copies from memory for each frame uploaded (`upload`).
    pub fn staged_bytes(&self) -> u64 {
        self.staging.bytes()
    }

    /// The device the slot's textures are on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The texture of plane `index`.
    pub fn plane_texture(&self, index: usize) -> Option<&wgpu::Texture> {
        self.planes.get(index).map(|p| &p.texture)
    }

    /// The texture view of plane `index`.
    pub fn plane_view(&self, index: usize) -> Option<&wgpu::TextureView> {
        self.planes.get(index).map(|p| &p.view)
    }

    /// What a pass that binds three planes binds for plane `index`: that plane, or the first
    /// again where the layout has fewer (its shader never reads it).
    pub fn bound_view(&self, index: usize) -> &wgpu::TextureView {
        self.plane_view(index)
            .or_else(|| self.plane_view(0))
            .expect("a slot has a plane")
    }

    /// Records copying the slot's planes into `buffer`, laid out as `planes`.
    pub fn encode_copy_out(&self, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, planes: &[PlaneRows]) {
        for (plane, rows) in self.planes.iter().zip(planes) {
            encoder.copy_texture_to_buffer(
                plane.texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: rows.offset,
                        bytes_per_row: Some(rows.pitch),
                        rows_per_image: None,
                    },
                },
                rows.extent,
            );
        }
    }

    /// Records copying planes laid out as `planes` in `buffer` into the slot.
    pub fn encode_copy_in(&self, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, planes: &[PlaneRows]) {
        encode_plane_copies(encoder, buffer, 0, planes, self.planes.iter().map(|p| &p.texture));
    }

    /// Queues a copy of one frame's planes: their rows are written into the slot's staging
    /// buffer (any stride in, the copy's pitch out) and copied into the textures by a
    /// submission of their own, ahead of any that reads the slot. Safe to call from the decode
    /// thread; waits only if the slot's previous copy has not finished.
    pub fn upload(&self, queue: &wgpu::Queue, planes: &[PlaneData]) -> Result<(), ConvertError> {
        check_planes(&self.format, planes)?;
        let textures = self.planes.iter().map(|p| &p.texture);
        self.staging.upload(&self.device, queue, planes, textures)
    }

    /// Queues copying one frame's planes, decoded into memory the GPU copies from (`Pool`),
    /// into the slot's textures, in a submission of its own: no rows written by the CPU.
    pub fn upload_from_pool(&self, queue: &wgpu::Queue, planes: &[PoolPlane<'_>]) -> Result<(), ConvertError> {
        if planes.len() != self.planes.len() {
            return Err(ConvertError::Staging(
                "a decoded frame has another count of planes than the ring's".into(),
            ));
        }
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("upload from decoded frames"),
        });
        for (plane, texture) in planes.iter().zip(&self.planes) {
            encoder.copy_buffer_to_texture(
                wgpu::TexelCopyBufferInfo {
                    buffer: plane.buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: plane.offset,
                        bytes_per_row: Some(plane.pitch),
                        rows_per_image: None,
                    },
                },
                texture.texture.as_image_copy(),
                texture.texture.size(),
            );
        }
        queue.submit([encoder.finish()]);
        Ok(())
    }

    /// Queues a copy of one frame's planes from the GPU frame cache (a copy on the GPU, in a
    /// submission of its own ahead of any that reads the slot).
    pub fn upload_from_gpu(&self, queue: &wgpu::Queue, planes: &GpuPlanes) -> Result<(), ConvertError> {
        let format = planes.format();
        if (format.layout, format.width, format.height) != (self.format.layout, self.format.width, self.format.height) {
            return Err(ConvertError::Staging(
                "a frame in the GPU frame cache has another format than the ring's".into(),
            ));
        }
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("upload from the GPU frame cache"),
        });
        planes.encode_copy(&mut encoder, self.planes.iter().map(|p| &p.texture));
        planes.copied_in(queue.submit([encoder.finish()]));
        Ok(())
    }
}

/// One entry point of shaders/video/convert.wgsl per kind of plane layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    Yuv,
    Nv12,
    Gray,
    Gbr,
    Rgb24,
    Rgba,
    Bgra,
}

impl Kernel {
    /// How many kernels there are.
    const COUNT: usize = 7;

    pub(super) fn of(layout: PlaneLayout) -> Self {
        match layout {
            PlaneLayout::Yuv { .. } => Kernel::Yuv,
            PlaneLayout::Nv12 | PlaneLayout::P010 => Kernel::Nv12,
            PlaneLayout::Gray { .. } => Kernel::Gray,
            PlaneLayout::Gbr { .. } => Kernel::Gbr,
            PlaneLayout::Rgb24 => Kernel::Rgb24,
            PlaneLayout::Rgba => Kernel::Rgba,
            PlaneLayout::Bgra => Kernel::Bgra,
        }
    }

    fn entry_point(self) -> &'static str {
        match self {
            Kernel::Yuv => "convert_yuv",
            Kernel::Nv12 => "convert_nv12",
            Kernel::Gray => "convert_gray",
            Kernel::Gbr => "convert_gbr",
            Kernel::Rgb24 => "convert_rgb24",
            Kernel::Rgba => "convert_rgba",
            Kernel::Bgra => "convert_bgra",
        }
    }

    fn plane_count(self) -> usize {
        match self {
            Kernel::Yuv | Kernel::Gbr => 3,
            Kernel::Nv12 => 2,
            _ => 1,
        }
    }
}

/// The conversion pass: one compute pipeline per kind of layout and output depth, built when a
/// stream first needs it (a ring is made for one format, so most are never built).
pub struct ConvertPass {
    device: wgpu::Device,
    /// Per output depth (8, 10 bits): the shader module and the layouts for one, two and three
    /// planes.
    depths: [OnceLock<DepthPipelines>; 2],
}

struct DepthPipelines {
    module: wgpu::ShaderModule,
    layouts: [wgpu::BindGroupLayout; 3],
    /// In declaration order, so that `kernel as usize` finds a kernel's.
    pipelines: [OnceLock<wgpu::ComputePipeline>; Kernel::COUNT],
    /// The shader that converts through a look, once one is set.
    looking: OnceLock<wgpu::ShaderModule>,
}

/// One ring slot's planes bound to one output frame, made once per pair.
pub struct ConvertBinding {
    pipeline: wgpu::ComputePipeline,
    workgroups: [u32; 2],
    bind_group: wgpu::BindGroup,
    _params: wgpu::Buffer,
    /// The look the frame is shown through as it is converted (group 1), if any.
    look: Option<wgpu::BindGroup>,
}

impl ConvertPass {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            device: device.clone(),
            depths: Default::default(),
        }
    }

    fn pipelines(&self, out_bits: u32) -> &DepthPipelines {
        self.depths[usize::from(out_bits > 8)].get_or_init(|| {
            let label = format!("convert pass, {out_bits}-bit output");
            DepthPipelines {
                module: shaders::module(&self.device, &label, shaders::convert_source(out_bits)),
                layouts: [1, 2, 3].map(|planes| bind_group_layout(&self.device, planes, out_bits)),
                pipelines: Default::default(),
                looking: OnceLock::new(),
            }
        })
    }

    fn pipeline(&self, kernel: Kernel, out_bits: u32) -> (&wgpu::ComputePipeline, &wgpu::BindGroupLayout) {
        let depth = self.pipelines(out_bits);
        let layout = &depth.layouts[kernel.plane_count() - 1];
        let pipeline = depth.pipelines[kernel as usize].get_or_init(|| {
            let entry_point = kernel.entry_point();
            shaders::compute_pipeline(&self.device, entry_point, &depth.module, entry_point, layout)
        });
        (pipeline, layout)
    }

    pub fn bind(
        &self,
        device: &wgpu::Device,
        planes: &PlaneTextures,
        frame: &GpuFrame,
    ) -> Result<ConvertBinding, ConvertError> {
        let format = &planes.format;
        let out_bits = format.layout.output_bits();
        if frame.bits != out_bits {
            return Err(ConvertError::DepthMismatch {
                from: out_bits,
                to: frame.bits,
            });
        }
        if (frame.width, frame.height) != (format.width, format.height) {
            return Err(ConvertError::SizeMismatch {
                from_width: format.width,
                from_height: format.height,
                to_width: frame.width,
                to_height: frame.height,
            });
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("convert params"),
            contents: bytemuck::bytes_of(&ConvertParams::new(format)?),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&frame.view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: frame.pixels.as_entire_binding(),
            },
        ];
        entries.extend(
            planes
                .planes
                .iter()
                .zip(3..)
                .map(|(plane, binding)| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::TextureView(&plane.view),
                }),
        );
        let (pipeline, layout) = self.pipeline(Kernel::of(format.layout), out_bits);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("convert pass"),
            layout,
            entries: &entries,
        });
        Ok(ConvertBinding {
            pipeline: pipeline.clone(),
            workgroups: [
                format.width.div_ceil(WORKGROUP[0]),
                format.height.div_ceil(WORKGROUP[1]),
            ],
            bind_group,
            _params: params,
            look: None,
        })
    }

    /// The conversion of `format`'s frames that shows each through a look as it converts it
    /// (shaders/video/convert_look.wgsl): the look's bind group, laid out as `look_layout`, is
    /// its group 1. Made when a look is set, for `bind_looking`.
    pub fn looking_pipeline(&self, format: &FrameFormat, look_layout: &wgpu::BindGroupLayout) -> wgpu::ComputePipeline {
        let out_bits = format.layout.output_bits();
        let kernel = Kernel::of(format.layout);
        let depth = self.pipelines(out_bits);
        let layout = &depth.layouts[kernel.plane_count() - 1];
        let label = format!("convert pass through a look, {out_bits}-bit output");
        let module = depth
            .looking
            .get_or_init(|| shaders::module(&self.device, &label, shaders::convert_look_source(out_bits)));
        let pipeline_layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(&label),
            bind_group_layouts: &[Some(layout), Some(look_layout)],
            immediate_size: 0,
        });
        self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: Some(&pipeline_layout),
            module,
            entry_point: Some(kernel.entry_point()),
            compilation_options: Default::default(),
            cache: None,
        })
    }

    /// `bind`, the frame shown through `look` as it is converted by `pipeline` (made by
    /// `looking_pipeline` for these planes' format): `frame` gets the signal's packed pixels,
    /// the look's frame the picture.
    pub fn bind_looking(
        &self,
        device: &wgpu::Device,
        planes: &PlaneTextures,
        frame: &GpuFrame,
        pipeline: &wgpu::ComputePipeline,
        look: &wgpu::BindGroup,
    ) -> Result<ConvertBinding, ConvertError> {
        Ok(ConvertBinding {
            pipeline: pipeline.clone(),
            look: Some(look.clone()),
            ..self.bind(device, planes, frame)?
        })
    }

    pub fn encode(&self, pass: &mut wgpu::ComputePass, binding: &ConvertBinding) {
        pass.push_debug_group("convert");
        pass.set_pipeline(&binding.pipeline);
        pass.set_bind_group(0, &binding.bind_group, &[]);
        if let Some(look) = &binding.look {
            pass.set_bind_group(1, look, &[]);
        }
        pass.dispatch_workgroups(binding.workgroups[0], binding.workgroups[1], 1);
        pass.pop_debug_group();
    }
}

fn bind_group_layout(device: &wgpu::Device, planes: u32, out_bits: u32) -> wgpu::BindGroupLayout {
    let compute = wgpu::ShaderStages::COMPUTE;
    let mut entries = vec![
        layout::uniform(0, compute, false),
        layout::storage_texture(1, compute, GpuFrame::texture_format(out_bits)),
        layout::storage(2, compute, false),
    ];
    entries.extend((3..3 + planes).map(|binding| layout::uint_texture(binding, compute)));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(&format!("convert pass, {planes} planes, {out_bits}-bit output")),
        entries: &entries,
    })
}
