//! The photosensitivity pass on the GPU (shaders/pse/cells.wgsl), one dispatch a frame: a
//! workgroup a block of cells sums its cells from the ring's converted frame, writes their light
//! into `cells` (`CELL_WORDS` words a cell), and counts the block's stripes (`stripes::Stripes`)
//! about its mean into `blocks`. The caller reads both back (a few tens of KB a frame, not the
//! picture). Made once per stream.

use super::light::{CellLight, Grid, LightModel, CELL_WORDS};
use super::stripes::{Blocks, Sides, Stripes, BLOCK_CELLS, BLOCK_WORDS};
use super::FrameLight;
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use wgpu::util::DeviceExt;

/// Workgroups along x at most (the rest go along y).
const ROW_OF_GROUPS: u32 = 65_535;
// A block's cells are summed by 16 invocations each (CELL_LANES in cells.wgsl): 16 cells at most
// in the workgroup's 256, their sums in the first 1024 words of its masks.
const _: () = assert!(BLOCK_CELLS <= 4);

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
    block_cells: u32,
    block_columns: u32,
    block_rows: u32,
    words_per_row: u32,
    side_rows: u32,
    line_step: u32,
    _pad: [u32; 2],
}

/// The pass over one stream's converted frames.
pub struct PseStage {
    pipeline: wgpu::ComputePipeline,
    binding: wgpu::BindGroup,
    pub grid: Grid,
    pub blocks: Blocks,
    /// Each cell's luminance and red sums of the last frame encoded.
    pub cells: wgpu::Buffer,
    /// Each block's stripe counts of the last frame encoded.
    pub block_counts: wgpu::Buffer,
}

impl PseStage {
    /// A stage reading `frame` (the ring's converted output) through `model`.
    pub fn new(ctx: &GpuContext, frame: &GpuFrame, model: &LightModel) -> Self {
        let device = &ctx.device;
        let grid = Grid::new(frame.width, frame.height);
        let blocks = Blocks::new(grid, BLOCK_CELLS);
        let step = blocks.line_step();
        let sides = Sides::new(&blocks, step);
        let params = PseParams {
            width: frame.width,
            height: frame.height,
            columns: grid.columns,
            rows: grid.rows,
            bits: frame.bits,
            weight_r: model.weights[0],
            weight_g: model.weights[1],
            weight_b: model.weights[2],
            block_cells: BLOCK_CELLS,
            block_columns: blocks.columns,
            block_rows: blocks.rows,
            words_per_row: sides.words_per_row,
            side_rows: sides.rows,
            line_step: step,
            _pad: [0; 2],
        };
        // Without naga's bounds checks (cells.wgsl says why its indices stay in bounds): with
        // them the passes read the frame at a third of the speed.
        let module = shaders::trusted_module(
            device,
            "pse",
            // The codes' bits and HLG constants of the module (HLG 1: the table's codes are the
            // scene's light and the OOTF's gains follow them), so that the pass for other signals
            // has none of its code.
            shaders::compute_source(
                &super::light::shader_header(frame.bits, !model.gain.is_empty(), grid.in_quads()),
                shaders::PSE_CELLS,
            ),
        );
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("pse"),
            entries: &[
                layout::uniform(0, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(2, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(4, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(5, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(6, wgpu::ShaderStages::COMPUTE, true),
            ],
        });
        // (Every workgroup variable is written before it is read.)
        let pipeline = shaders::compute_pipeline_with(device, "pse", &module, "block_light", &bind_layout, false);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pse params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        // The codes' light, then (HLG) the OOTF's gains.
        let table: Vec<u32> = model.table.iter().chain(&model.gain).copied().collect();
        let table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pse light table"),
            contents: bytemuck::cast_slice(&table),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let cells = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pse cells"),
            size: (grid.cells() * CELL_WORDS * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let block_counts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pse blocks"),
            size: (blocks.len() * BLOCK_WORDS * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        // (Zeroed: every pixel below the mean before the first frame, as the CPU twin starts.)
        let side_bits = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pse sides"),
            size: (sides.words.len().max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let binding = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("pse"),
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
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: block_counts.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: side_bits.as_entire_binding(),
                },
                // (The pixels again, four at a time.)
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: frame.pixels.as_entire_binding(),
                },
            ],
        });
        Self {
            pipeline,
            binding,
            grid,
            blocks,
            cells,
            block_counts,
        }
    }

    /// Records the pass over the frame the ring converted last: its cells' light and its
    /// blocks' stripes.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_timed(encoder, None);
    }

    /// `encode`, its pass timed by `writes`.
    pub fn encode_timed(&self, encoder: &mut wgpu::CommandEncoder, writes: Option<wgpu::ComputePassTimestampWrites>) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("pse"),
            timestamp_writes: writes,
        });
        pass.set_bind_group(0, &self.binding, &[]);
        pass.set_pipeline(&self.pipeline);
        let blocks = self.blocks.len() as u32;
        pass.dispatch_workgroups(blocks.min(ROW_OF_GROUPS), blocks.div_ceil(ROW_OF_GROUPS), 1);
    }

    /// Bytes of a frame's light (cells, then blocks), for a readback.
    pub fn readback_size(&self) -> u64 {
        self.cells.size() + self.block_counts.size()
    }

    /// Records copying the frame's light into `buffer` at `at` (`readback_size` bytes).
    pub fn copy_out(&self, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer, at: u64) {
        encoder.copy_buffer_to_buffer(&self.cells, 0, buffer, at, self.cells.size());
        let blocks_at = at + self.cells.size();
        encoder.copy_buffer_to_buffer(&self.block_counts, 0, buffer, blocks_at, self.block_counts.size());
    }

    /// The frame's light a readback holds.
    pub fn light_from(&self, words: &[u32]) -> FrameLight {
        let (cells, blocks) = words.split_at(self.grid.cells() * CELL_WORDS);
        FrameLight {
            cells: bytemuck::cast_slice::<u32, CellLight>(cells).to_vec(),
            blocks: bytemuck::cast_slice::<u32, Stripes>(&blocks[..self.blocks.len() * BLOCK_WORDS]).to_vec(),
        }
    }
}
