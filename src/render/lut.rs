//! The LUT pass (`--lut`, and a log encoding's display rendering): a `.cube` table, or the
//! rendering computed for each pixel, applied on the GPU to the converted frame, written
//! into a frame of its own (the picture as shown), so that the decoded signal stays beside it
//! for the scopes that count the signal (shaders/render/lut.wgsl). Its CPU twin is
//! `colour::lut::LutTables::apply`, equal bit for bit.

use crate::colour::lut::LutTables;
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use wgpu::util::DeviceExt;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct LutParams {
    // twin: LutParams in shaders/render/lut.wgsl
    width: u32,
    height: u32,
    bits: u32,
    size: u32,
    /// A log encoding's display rendering (`codes` hold scene light; `rows` to BT.709).
    log_view: u32,
    pad: [u32; 3],
    rows: [[f32; 4]; 3],
}

/// One table applied from one frame into another of the same size and depth. Made when a LUT
/// is loaded or the stream's frames change; nothing is made per frame.
pub struct LutStage {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    width: u32,
    height: u32,
}

impl LutStage {
    /// Applies `tables` (made for `source`'s depth) to `source` into `output`.
    pub fn new(ctx: &GpuContext, tables: &LutTables, source: &GpuFrame, output: &GpuFrame) -> Result<Self, GpuError> {
        assert_eq!(tables.bits, source.bits, "the tables are made for the frame's depth");
        let device = &ctx.device;
        let compute = wgpu::ShaderStages::COMPUTE;
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("lut"),
            entries: &[
                layout::uniform(0, compute, false),
                layout::storage(1, compute, true),
                layout::storage(2, compute, false),
                layout::storage_texture(3, compute, GpuFrame::texture_format(source.bits)),
                layout::storage(4, compute, true),
                layout::storage(5, compute, true),
            ],
        });
        let module = shaders::module(device, "lut", shaders::lut_source(source.bits));
        let pipeline = shaders::compute_pipeline(device, "lut", &module, "apply", &bind_layout);
        let params = LutParams {
            width: source.width,
            height: source.height,
            bits: source.bits,
            size: tables.size,
            log_view: u32::from(tables.log_rows.is_some()),
            pad: [0; 3],
            rows: tables.log_rows.unwrap_or_default(),
        };
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("lut params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let codes = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("lut codes"),
            contents: bytemuck::cast_slice(&tables.codes),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // A 1D table has no cube: one row stands in for the binding.
        let no_cube = [[0i32; 4]];
        let cube = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("lut cube"),
            contents: bytemuck::cast_slice(if tables.cube.is_empty() { &no_cube } else { &tables.cube }),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("lut"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: source.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: output.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&output.view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: codes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: cube.as_entire_binding(),
                },
            ],
        });
        Ok(Self {
            pipeline,
            bind_group,
            width: source.width,
            height: source.height,
        })
    }

    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_timed(encoder, None);
    }

    pub fn encode_timed(&self, encoder: &mut wgpu::CommandEncoder, writes: Option<wgpu::ComputePassTimestampWrites>) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("lut"),
            timestamp_writes: writes,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
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
