//! The photosensitivity pass on the GPU (shaders/pse/cells.wgsl): each cell's summed light of
//! the ring's converted frame, a workgroup a cell, into `cells` (two words a cell), which the
//! caller reads back (a few tens of KB a frame, not the picture). Made once per stream.

use super::light::{Grid, LightModel};
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use wgpu::util::DeviceExt;

/// Workgroups along x at most (the rest go along y).
const ROW_OF_GROUPS: u32 = 65_535;

/// Twin of `PseParams` in cells.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct PseParams {
    width: u32,
    height: u32,
    columns: u32,
    rows: u32,
    bits: u32,
    weight_r: u32,
    weight_g: u32,
    weight_b: u32,
}

/// The pass over one stream's converted frames.
pub struct PseStage {
    pipeline: wgpu::ComputePipeline,
    binding: wgpu::BindGroup,
    pub grid: Grid,
    /// Each cell's luminance and red sums of the last frame encoded.
    pub cells: wgpu::Buffer,
}

impl PseStage {
    /// A stage reading `frame` (the ring's converted output) through `model`.
    pub fn new(ctx: &GpuContext, frame: &GpuFrame, model: &LightModel) -> Self {
        let device = &ctx.device;
        let grid = Grid::new(frame.width, frame.height);
        let params = PseParams {
            width: frame.width,
            height: frame.height,
            columns: grid.columns,
            rows: grid.rows,
            bits: frame.bits,
            weight_r: model.weights[0],
            weight_g: model.weights[1],
            weight_b: model.weights[2],
        };
        let module = shaders::module(
            device,
            "pse cells",
            shaders::compute_source(&Header::new(256), shaders::PSE_CELLS),
        );
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("pse cells"),
            entries: &[
                layout::uniform(0, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(2, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, false),
            ],
        });
        let pipeline = shaders::compute_pipeline(device, "pse cells", &module, "cell_light", &bind_layout);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pse params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pse light table"),
            contents: bytemuck::cast_slice(&model.table),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let cells = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pse cells"),
            size: grid.cells() as u64 * 8,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let binding = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("pse cells"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: frame.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: table.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: cells.as_entire_binding(),
                },
            ],
        });
        Self {
            pipeline,
            binding,
            grid,
            cells,
        }
    }

    /// Records summing the cells of the frame the ring converted last.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_timed(encoder, None);
    }

    /// `encode`, its pass timed by `writes`.
    pub fn encode_timed(&self, encoder: &mut wgpu::CommandEncoder, writes: Option<wgpu::ComputePassTimestampWrites>) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("pse cells"),
            timestamp_writes: writes,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.binding, &[]);
        let cells = self.grid.cells() as u32;
        pass.dispatch_workgroups(cells.min(ROW_OF_GROUPS), cells.div_ceil(ROW_OF_GROUPS), 1);
    }

    /// Bytes of `cells`, for a readback.
    pub fn cells_size(&self) -> u64 {
        self.cells.size()
    }

    /// The cells a readback holds.
    pub fn cells_from(words: &[u32]) -> Vec<[u32; 2]> {
        words.chunks_exact(2).map(|pair| [pair[0], pair[1]]).collect()
    }
}
