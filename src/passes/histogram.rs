//! The histogram engine: chunk, reduce and scale passes in one compute pass, sized once per
//! frame size. The result stays on the GPU (chunk 0 and the scale buffer) for the overlay.

use super::chunk::{ChunkParams, ChunkPass, ChunkShape};
use super::reduce::{ReduceKind, ReducePass, ReduceSteps};
use super::scale::{HistogramScale, ScaleParams, ScalePass};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use crate::histogram::Histogram;
use wgpu::util::DeviceExt;

/// How the engine splits the work; see `ChunkShape` and `ReducePass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub shape: ChunkShape,
    pub fan_in: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            shape: ChunkShape::default(),
            fan_in: 1024,
        }
    }
}

/// The engine's passes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Chunk,
    Reduce,
    Scale,
}

/// Pipelines for one bin count.
pub struct HistogramEngine {
    pub bins: u32,
    chunk: ChunkPass,
    reduce: ReducePass,
    scale: ScalePass,
}

/// Buffers and bind groups for one frame size: made when the size changes, not per frame.
pub struct HistogramTarget {
    pub width: u32,
    pub height: u32,
    pub num_chunks: u32,
    /// Every chunk's histogram; chunk 0 holds the frame's after the reduce.
    pub chunks: wgpu::Buffer,
    /// `HistogramScale` of the frame, written by the scale pass.
    pub scale: wgpu::Buffer,
    reduce_steps: ReduceSteps,
    scale_bind_group: wgpu::BindGroup,
    chunk_params: wgpu::Buffer,
    _scale_params: wgpu::Buffer,
}

/// The chunk pass's binding of one source texture to one target, made once per texture.
pub struct SourceBinding(wgpu::BindGroup);

impl HistogramEngine {
    pub fn new(ctx: &GpuContext, bins: u32, config: EngineConfig) -> Self {
        let device = &ctx.device;
        let shape = config
            .shape
            .fit_replicas(bins, device.limits().max_compute_workgroup_storage_size);
        Self {
            bins,
            chunk: ChunkPass::new(device, bins, shape),
            reduce: ReducePass::new(device, bins, ReduceKind::Tree { fan_in: config.fan_in }),
            scale: ScalePass::new(device, bins),
        }
    }

    pub fn shape(&self) -> ChunkShape {
        self.chunk.shape
    }

    pub fn histogram_bytes(&self) -> u64 {
        u64::from(self.bins) * 16
    }

    pub fn target(&self, ctx: &GpuContext, width: u32, height: u32) -> Result<HistogramTarget, GpuError> {
        ctx.check_frame_size(width, height)?;
        let device = &ctx.device;
        let num_chunks = self.chunk.shape.num_chunks(width * height);
        let chunk_bytes = u64::from(num_chunks) * self.histogram_bytes();
        let limit = device.limits().max_storage_buffer_binding_size;
        if chunk_bytes > limit {
            return Err(GpuError::TooLarge {
                width,
                height,
                max: ctx.max_texture_side(),
            });
        }
        let chunks = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("histogram chunks"),
            size: chunk_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let scale = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("histogram scale"),
            size: std::mem::size_of::<HistogramScale>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let chunk_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("chunk params"),
            contents: bytemuck::bytes_of(&ChunkParams {
                pixel_count: width * height,
                num_chunks,
                _pad: [0; 2],
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let scale_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("scale params"),
            contents: bytemuck::bytes_of(&ScaleParams {
                pixel_count: width * height,
                _pad: [0; 3],
            }),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let scale_bind_group = self
            .scale
            .bind(device, self.histogram_binding(&chunks), &scale, &scale_params);
        let reduce_steps = self.reduce.steps(device, &chunks, num_chunks);
        Ok(HistogramTarget {
            width,
            height,
            num_chunks,
            chunks,
            scale,
            reduce_steps,
            scale_bind_group,
            chunk_params,
            _scale_params: scale_params,
        })
    }

    /// Chunk 0 of a chunks buffer: the reduced histogram.
    pub fn histogram_binding<'a>(&self, chunks: &'a wgpu::Buffer) -> wgpu::BufferBinding<'a> {
        wgpu::BufferBinding {
            buffer: chunks,
            offset: 0,
            size: wgpu::BufferSize::new(self.histogram_bytes()),
        }
    }

    /// Binds a frame's packed pixels to a target: once per frame buffer, not per frame.
    pub fn bind_source(&self, ctx: &GpuContext, target: &HistogramTarget, pixels: &wgpu::Buffer) -> SourceBinding {
        SourceBinding(
            self.chunk
                .bind(&ctx.device, pixels, &target.chunks, &target.chunk_params),
        )
    }

    /// Records chunk, reduce and scale into one compute pass.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &HistogramTarget,
        source: &SourceBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        self.encode_through(encoder, target, source, timestamp_writes, Stage::Scale);
    }

    /// Records the passes up to and including `last`: the bench times each stage this way.
    pub fn encode_through(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &HistogramTarget,
        source: &SourceBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
        last: Stage,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("histogram"),
            timestamp_writes,
        });
        self.chunk.encode(&mut pass, &source.0, target.num_chunks);
        if last >= Stage::Reduce {
            self.reduce.encode(&mut pass, &target.reduce_steps);
        }
        if last >= Stage::Scale {
            self.scale.encode(&mut pass, &target.scale_bind_group);
        }
    }

    /// Reads the frame's histogram back (headless commands and tests only).
    pub fn read_histogram(&self, ctx: &GpuContext, target: &HistogramTarget) -> Result<Histogram, GpuError> {
        let bytes = readback::read_buffer(ctx, &target.chunks, 0, self.histogram_bytes())?;
        Ok(Histogram::from_interleaved(&readback::words(&bytes)))
    }

    pub fn read_scale(&self, ctx: &GpuContext, target: &HistogramTarget) -> Result<HistogramScale, GpuError> {
        let bytes = readback::read_buffer(ctx, &target.scale, 0, target.scale.size())?;
        Ok(bytemuck::pod_read_unaligned(&bytes))
    }

    /// Counts one frame and reads the result back: the `hist` command's GPU path.
    pub fn compute(&self, ctx: &GpuContext, frame: &GpuFrame) -> Result<Histogram, GpuError> {
        let target = self.target(ctx, frame.width, frame.height)?;
        let binding = self.bind_source(ctx, &target, &frame.pixels);
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("histogram"),
        });
        self.encode(&mut encoder, &target, &binding, None);
        ctx.queue.submit([encoder.finish()]);
        self.read_histogram(ctx, &target)
    }
}
