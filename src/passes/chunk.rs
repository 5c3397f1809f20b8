//! The chunk pass: counts each tile of the frame into workgroup-private histograms and writes
//! one histogram per tile ("chunk") to a storage buffer.

use crate::gpu::shaders::{self, layout, Header};

/// Workgroup shape and pixels per invocation of the chunk pass. A chunk covers
/// (wg_x · pixels_x) x (wg_y · pixels_y) pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkShape {
    pub wg_x: u32,
    pub wg_y: u32,
    pub pixels_x: u32,
    pub pixels_y: u32,
    /// Copies of the histograms in workgroup memory, against atomic contention on flat pictures.
    pub replicas: u32,
}

impl Default for ChunkShape {
    fn default() -> Self {
        Self {
            wg_x: 256,
            wg_y: 1,
            pixels_x: 1,
            pixels_y: 32,
            replicas: 4,
        }
    }
}

impl ChunkShape {
    pub fn chunk_size(&self) -> (u32, u32) {
        (self.wg_x * self.pixels_x, self.wg_y * self.pixels_y)
    }

    /// Chunks across and down a frame.
    pub fn grid(&self, width: u32, height: u32) -> (u32, u32) {
        let (cw, ch) = self.chunk_size();
        (width.div_ceil(cw), height.div_ceil(ch))
    }

    /// The most replicas that fit in `workgroup_bytes` of workgroup memory (at least one).
    pub fn fit_replicas(mut self, bins: u32, workgroup_bytes: u32) -> Self {
        let per_replica = bins * 4 * 4;
        self.replicas = self.replicas.min(workgroup_bytes / per_replica).max(1);
        self
    }
}

pub struct ChunkPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    pub shape: ChunkShape,
}

impl ChunkPass {
    pub fn new(device: &wgpu::Device, bins: u32, shape: ChunkShape) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("chunk pass"),
            entries: &[
                layout::texture(0, wgpu::ShaderStages::COMPUTE),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
            ],
        });
        let header = Header::new(bins)
            .with("WG_X", shape.wg_x)
            .with("WG_Y", shape.wg_y)
            .with("PIXELS_X", shape.pixels_x)
            .with("PIXELS_Y", shape.pixels_y)
            .with("REPLICAS", shape.replicas);
        let module = shaders::module(device, "chunk pass", shaders::compute_source(&header, shaders::CHUNK));
        let pipeline = shaders::compute_pipeline(device, "chunk pass", &module, "count_chunk", &layout);
        Self {
            pipeline,
            layout,
            shape,
        }
    }

    pub fn bind(&self, device: &wgpu::Device, source: &wgpu::TextureView, chunks: &wgpu::Buffer) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("chunk pass"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(source),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: chunks.as_entire_binding(),
                },
            ],
        })
    }

    pub fn encode(&self, pass: &mut wgpu::ComputePass, bind_group: &wgpu::BindGroup, grid: (u32, u32)) {
        pass.push_debug_group("chunk");
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(grid.0, grid.1, 1);
        pass.pop_debug_group();
    }
}
