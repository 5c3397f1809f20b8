//! The look (`--lut`, and a log encoding's display rendering): a `.cube` table, or the
//! rendering computed for each pixel, applied on the GPU to the converted frame, written into
//! a frame of its own (the picture as shown), so that the decoded signal stays beside it for
//! the scopes that count the signal (shaders/render/look.wgsl). Its CPU twin is
//! `colour::lut::LutTables::apply`, equal bit for bit.
//!
//! Frames as they play go through the look in the conversion pass (`ConvertPass::bind_looking`
//! binds this stage's `look_group`); the LUT pass here applies it to a frame converted
//! already (paused, when the look changes, after the picture adjustments).

use crate::colour::lut::LutTables;
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use wgpu::util::DeviceExt;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct LookParams {
    // twin: LookParams in shaders/render/look.wgsl
    width: u32,
    height: u32,
    bits: u32,
    size: u32,
    /// A log encoding's display rendering (`codes` hold scene light; `rows` to BT.709).
    log_view: u32,
    /// The conversion writes the picture's packed pixels as well as its texture.
    write_pixels: u32,
    pad: [u32; 2],
    rows: [[f32; 4]; 3],
}

/// One look applied from one frame into another of the same size and depth. Made when a LUT
/// is loaded or the stream's frames change; nothing is made per frame.
pub struct LutStage {
    apply: wgpu::ComputePipeline,
    show_signal: wgpu::ComputePipeline,
    signal_group: wgpu::BindGroup,
    look_layout: wgpu::BindGroupLayout,
    look_group: wgpu::BindGroup,
    params: wgpu::Buffer,
    width: u32,
    height: u32,
}

impl LutStage {
    /// Applies `tables` (made for `source`'s depth) to `source` into `output`.
    pub fn new(ctx: &GpuContext, tables: &LutTables, source: &GpuFrame, output: &GpuFrame) -> Result<Self, GpuError> {
        assert_eq!(tables.bits, source.bits, "the tables are made for the frame's depth");
        let device = &ctx.device;
        let compute = wgpu::ShaderStages::COMPUTE;
        let format = GpuFrame::texture_format(source.bits);
        let look_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("look"),
            entries: &[
                layout::uniform(0, compute, false),
                layout::storage(1, compute, true),
                layout::storage(2, compute, true),
                layout::storage_texture(3, compute, format),
                layout::storage(4, compute, false),
            ],
        });
        let signal_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lut signal"),
            entries: &[
                layout::storage(0, compute, true),
                layout::storage_texture(1, compute, format),
            ],
        });
        let params = LookParams {
            width: source.width,
            height: source.height,
            bits: source.bits,
            size: tables.size,
            log_view: u32::from(tables.log_rows.is_some()),
            write_pixels: 0,
            pad: [0; 2],
            rows: tables.log_rows.unwrap_or_default(),
        };
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("look params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let codes = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("look codes"),
            contents: bytemuck::cast_slice(&tables.codes),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // A 1D table has no cube: one row stands in for the binding.
        let cube = tables.packed_cube();
        let cube = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("look cube"),
            contents: bytemuck::cast_slice(if cube.is_empty() { &[[0u32; 2]] } else { &cube[..] }),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let look_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("look"),
            layout: &look_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: codes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: cube.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&output.view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: output.pixels.as_entire_binding(),
                },
            ],
        });
        let signal_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("lut signal"),
            layout: &signal_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: source.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&source.view),
                },
            ],
        });
        let module = shaders::module(device, "lut", shaders::lut_source(source.bits));
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("lut"),
            bind_group_layouts: &[Some(&signal_layout), Some(&look_layout)],
            immediate_size: 0,
        });
        let pipeline = |entry_point: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Ok(Self {
            apply: pipeline("apply"),
            show_signal: pipeline("show_signal"),
            signal_group,
            look_layout,
            look_group,
            params,
            width: source.width,
            height: source.height,
        })
    }

    /// The look's bind group (group 1 of the conversion that applies it) and its layout.
    pub fn look(&self) -> (&wgpu::BindGroupLayout, &wgpu::BindGroup) {
        (&self.look_layout, &self.look_group)
    }

    /// Whether conversions through the look write the picture's packed pixels (which the
    /// scopes then count) as well as its texture: from the next submission on.
    pub fn write_pixels(&self, queue: &wgpu::Queue, on: bool) {
        let offset = std::mem::offset_of!(LookParams, write_pixels) as u64;
        queue.write_buffer(&self.params, offset, bytemuck::bytes_of(&u32::from(on)));
    }

    /// Records the LUT pass: the source frame through the look into the output frame (its
    /// packed pixels and texture).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_timed(encoder, None);
    }

    pub fn encode_timed(&self, encoder: &mut wgpu::CommandEncoder, writes: Option<wgpu::ComputePassTimestampWrites>) {
        self.dispatch(encoder, &self.apply, "lut", writes);
    }

    /// Records writing the source frame's texture from its packed pixels: frames converted
    /// through the look leave it behind, and it is drawn again once the look is off.
    pub fn encode_show_signal(&self, encoder: &mut wgpu::CommandEncoder) {
        self.dispatch(encoder, &self.show_signal, "signal texture", None);
    }

    fn dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        label: &str,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: writes,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.signal_group, &[]);
        pass.set_bind_group(1, &self.look_group, &[]);
        pass.dispatch_workgroups(self.width.div_ceil(16), self.height.div_ceil(16), 1);
    }
}

/// A still picture through `tables` on the GPU (for `hist` and `render` of images): a new frame.
pub fn lut_still(ctx: &GpuContext, picture: &GpuFrame, tables: &LutTables) -> Result<GpuFrame, GpuError> {
    let output = GpuFrame::with_bits(
        ctx,
        "picture through the LUT",
        picture.width,
        picture.height,
        picture.bits,
    )?;
    let stage = LutStage::new(ctx, tables, picture, &output)?;
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("lut picture"),
    });
    stage.encode(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    Ok(output)
}
