//! The histogram engine, sized once per frame size. By default one dispatch: the chunk pass
//! counts, merges the chunks with storage atomics, and its last workgroup writes the frame's
//! histogram and scale. The articles' three-pass shape (chunk, tree reduce, scale) is the
//! fallback where workgroup memory is too small for that, and the bench's comparison. Either way
//! the result stays on the GPU (`histogram` and `scale`) for the overlay.

pub mod chunk;
pub mod histogram;
pub mod planes;
pub mod reduce;
pub mod scale;

use crate::colour::Depth;
use crate::engine::histogram::Histogram;
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};
use chunk::{ChunkEnding, ChunkParams, ChunkPass, ChunkShape};
use reduce::{ReduceKind, ReducePass, ReduceSteps};
use scale::{HistogramResult, HistogramScale, ScaleParams, ScalePass};
use wgpu::util::DeviceExt;

/// How the chunks' counts become the frame's histogram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// In the chunk pass: storage atomics into the frame's totals; the workgroup that finishes
    /// last writes the histogram and scale. One dispatch.
    Atomic,
    /// The articles' shape: one histogram per chunk, a reduce pass of `fan_in` chunks per
    /// workgroup and step, then a scale pass.
    Tree { fan_in: u32 },
}

impl Merge {
    /// The merge an adapter with `workgroup_bytes` of workgroup memory can run for a chunk pass
    /// with these bins and replicas: the atomic merge needs a few words more than the bins, and
    /// falls back to the three-pass engine where they don't fit (1024 bins on an adapter with
    /// only Vulkan's minimum 16 KiB).
    pub fn fitting(self, bins: u32, replicas: u32, workgroup_bytes: u32) -> Self {
        if self == Merge::Atomic && bins * 16 * replicas + chunk::EXTRA_WORKGROUP_BYTES > workgroup_bytes {
            EngineConfig::three_pass().merge
        } else {
            self
        }
    }
}

/// How the engine splits the work (see `ChunkShape` and `Merge`), and the depth of the samples
/// it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub shape: ChunkShape,
    pub merge: Merge,
    pub depth: Depth,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            shape: ChunkShape::default(),
            merge: Merge::Atomic,
            depth: Depth::Eight,
        }
    }
}

impl EngineConfig {
    /// The three-pass engine with its best fan-in: a one-step reduce up to 1024 chunks.
    pub fn three_pass() -> Self {
        Self {
            merge: Merge::Tree { fan_in: 1024 },
            ..Self::default()
        }
    }
}

/// The three-pass engine's passes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Chunk,
    Reduce,
    Scale,
}

/// Pipelines for one bin count and sample depth.
pub struct HistogramEngine {
    pub bins: u32,
    pub depth: Depth,
    chunk: ChunkPass,
    /// The reduce and scale passes of `Merge::Tree`.
    tree: Option<(ReducePass, ScalePass)>,
}

/// Buffers and bind groups for one frame size: made when the size changes, not per frame.
pub struct HistogramTarget {
    pub width: u32,
    pub height: u32,
    pub num_chunks: u32,
    /// How the one-dispatch engine finishes the frame (`chunk::count_bits`).
    count_bits: u32,
    /// Pixels counted: the frame's, or a region's (`set_pixel_count`).
    pub pixel_count: u32,
    /// The frame's histogram: `bins` vec4u of interleaved r, g, b, l counts.
    pub histogram: wgpu::Buffer,
    /// `HistogramResult`: the frame's display scale.
    pub scale: wgpu::Buffer,
    /// The atomic merge's totals (zero between frames), or every chunk's histogram.
    work: wgpu::Buffer,
    tree: Option<TreeTarget>,
    chunk_params: wgpu::Buffer,
}

struct TreeTarget {
    reduce_steps: ReduceSteps,
    scale_bind_group: wgpu::BindGroup,
    _scale_params: wgpu::Buffer,
}

/// The chunk pass's binding of one source texture to one target, made once per texture.
pub struct SourceBinding(wgpu::BindGroup);

impl HistogramEngine {
    pub fn new(ctx: &GpuContext, bins: u32, config: EngineConfig) -> Self {
        let device = &ctx.device;
        let limits = device.limits();
        let workgroup_bytes = limits.max_compute_workgroup_storage_size;
        let most = limits
            .max_compute_invocations_per_workgroup
            .min(limits.max_compute_workgroup_size_x);
        let shape = config.shape.fit_invocations(most).fit_replicas(bins, workgroup_bytes);
        if shape.workgroup_size != config.shape.workgroup_size {
            log::info!(
                "the adapter runs workgroups of {most} invocations: the chunk pass uses {}x{}",
                shape.workgroup_size,
                shape.loads_per_invocation
            );
        }
        let merge = config.merge.fitting(bins, shape.replicas, workgroup_bytes);
        if merge != config.merge {
            log::info!("{workgroup_bytes} bytes of workgroup memory: the three-pass histogram engine runs");
        }
        let (ending, tree) = match merge {
            Merge::Atomic => (ChunkEnding::Merge, None),
            Merge::Tree { fan_in } => (
                ChunkEnding::Write,
                Some((
                    ReducePass::new(device, bins, ReduceKind::Tree { fan_in }),
                    ScalePass::new(device, bins),
                )),
            ),
        };
        Self {
            bins,
            depth: config.depth,
            chunk: ChunkPass::new(device, bins, config.depth, shape, ending),
            tree,
        }
    }

    pub fn shape(&self) -> ChunkShape {
        self.chunk.shape
    }

    /// Whether this engine runs as one dispatch (`Merge::Atomic`).
    pub fn is_one_dispatch(&self) -> bool {
        self.tree.is_none()
    }

    pub fn histogram_bytes(&self) -> u64 {
        u64::from(self.bins) * 16
    }

    pub fn target(&self, ctx: &GpuContext, width: u32, height: u32) -> Result<HistogramTarget, GpuError> {
        ctx.check_frame_size(width, height)?;
        let device = &ctx.device;
        let num_chunks = self.chunk.shape.num_chunks(width * height);
        let params = ChunkParams::new(width * height, num_chunks, self.bins);
        let work_bytes = match self.tree {
            // The totals, then the count of finished workgroups.
            None => (u64::from(self.bins) * 4 + 1) * 4,
            Some(_) => u64::from(num_chunks) * self.histogram_bytes(),
        };
        if work_bytes > device.limits().max_storage_buffer_binding_size {
            return Err(GpuError::TooLarge {
                width,
                height,
                max: ctx.max_texture_side(),
            });
        }
        let storage = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let work = storage("histogram work", work_bytes);
        let histogram = storage("histogram", self.histogram_bytes());
        let scale = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("histogram scale"),
            contents: bytemuck::bytes_of(&HistogramResult::initial()),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let chunk_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("chunk params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let tree = self.tree.as_ref().map(|(reduce, scale_pass)| {
            let scale_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("scale params"),
                contents: bytemuck::bytes_of(&ScaleParams {
                    pixel_count: width * height,
                    _pad: [0; 3],
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            TreeTarget {
                reduce_steps: reduce.steps(device, &work, num_chunks),
                scale_bind_group: scale_pass.bind(device, &work, &histogram, &scale, &scale_params),
                _scale_params: scale_params,
            }
        });
        Ok(HistogramTarget {
            width,
            height,
            num_chunks,
            count_bits: params.count_bits,
            pixel_count: width * height,
            histogram,
            scale,
            work,
            tree,
            chunk_params,
        })
    }

    /// Counts the first `pixel_count` pixels of the bound buffers from now on (a region of
    /// interest in a buffer sized for the whole frame). The one-dispatch engine takes a small
    /// queue write; the three-pass engine, whose reduce steps follow the chunk count, makes
    /// them anew.
    pub fn set_pixel_count(&self, ctx: &GpuContext, target: &mut HistogramTarget, pixel_count: u32) {
        let pixel_count = pixel_count.max(1);
        target.num_chunks = self.chunk.shape.num_chunks(pixel_count);
        let params = ChunkParams::new(pixel_count, target.num_chunks, self.bins);
        target.count_bits = params.count_bits;
        ctx.queue
            .write_buffer(&target.chunk_params, 0, bytemuck::bytes_of(&params));
        if let (Some((reduce, scale_pass)), Some(tree)) = (&self.tree, &mut target.tree) {
            let device = &ctx.device;
            let scale_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("scale params"),
                contents: bytemuck::bytes_of(&ScaleParams {
                    pixel_count,
                    _pad: [0; 3],
                }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            *tree = TreeTarget {
                reduce_steps: reduce.steps(device, &target.work, target.num_chunks),
                scale_bind_group: scale_pass.bind(
                    device,
                    &target.work,
                    &target.histogram,
                    &target.scale,
                    &scale_params,
                ),
                _scale_params: scale_params,
            };
        }
        target.pixel_count = pixel_count;
    }

    /// Binds a frame's packed pixels to a target: once per frame buffer, not per frame.
    pub fn bind_source(&self, ctx: &GpuContext, target: &HistogramTarget, pixels: &wgpu::Buffer) -> SourceBinding {
        let outputs: &[(u32, &wgpu::Buffer)] = match target.tree {
            None => &[(3, &target.work), (4, &target.histogram), (5, &target.scale)],
            Some(_) => &[(2, &target.work)],
        };
        SourceBinding(self.chunk.bind(&ctx.device, pixels, &target.chunk_params, outputs))
    }

    /// Records the engine into one compute pass.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &HistogramTarget,
        source: &SourceBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        self.encode_through(encoder, target, source, timestamp_writes, Stage::Scale);
    }

    /// Records the passes up to and including `last`: the bench times each stage of the
    /// three-pass engine this way. The one-dispatch engine always runs whole.
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
        self.encode_into(&mut pass, target, source, last);
    }

    /// Records the passes up to and including `last` into an open compute pass (the bench times
    /// the histograms and scopes of a frame in one pass this way).
    pub fn encode_into(
        &self,
        pass: &mut wgpu::ComputePass,
        target: &HistogramTarget,
        source: &SourceBinding,
        last: Stage,
    ) {
        self.chunk.encode(pass, &source.0, target.num_chunks, target.count_bits);
        if let (Some((reduce, scale)), Some(tree)) = (&self.tree, &target.tree) {
            if last >= Stage::Reduce {
                reduce.encode(pass, &tree.reduce_steps);
            }
            if last >= Stage::Scale {
                scale.encode(pass, &tree.scale_bind_group);
            }
        }
    }

    /// Reads the frame's histogram back (headless commands and tests only).
    pub fn read_histogram(&self, ctx: &GpuContext, target: &HistogramTarget) -> Result<Histogram, GpuError> {
        let bytes = readback::read_buffer(ctx, &target.histogram, 0, self.histogram_bytes())?;
        Ok(Histogram::from_interleaved(&readback::words(&bytes)))
    }

    pub fn read_scale(&self, ctx: &GpuContext, target: &HistogramTarget) -> Result<HistogramScale, GpuError> {
        let bytes = readback::read_buffer(ctx, &target.scale, 0, target.scale.size())?;
        Ok(bytemuck::pod_read_unaligned::<HistogramResult>(&bytes).current())
    }

    /// Counts one frame and reads the result back: the `hist` command's GPU path.
    pub fn compute(&self, ctx: &GpuContext, frame: &GpuFrame) -> Result<Histogram, GpuError> {
        self.count(ctx, &frame.pixels, frame.width, frame.height)
    }

    /// Counts `width`×`height` packed pixels (a frame, or a region gathered from one) and reads
    /// the result back.
    pub fn count(
        &self,
        ctx: &GpuContext,
        pixels: &wgpu::Buffer,
        width: u32,
        height: u32,
    ) -> Result<Histogram, GpuError> {
        let target = self.target(ctx, width, height)?;
        let binding = self.bind_source(ctx, &target, pixels);
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("histogram"),
        });
        self.encode(&mut encoder, &target, &binding, None);
        ctx.queue.submit([encoder.finish()]);
        self.read_histogram(ctx, &target)
    }
}

#[cfg(test)]
mod tests {
    use super::{EngineConfig, Merge};

    #[test]
    fn atomic_merge_falls_back_to_three_passes_without_room_for_its_ticket() {
        let three = EngineConfig::three_pass().merge;
        assert_eq!(Merge::Atomic.fitting(1024, 1, 16384), three);
        assert_eq!(Merge::Atomic.fitting(1024, 1, 32768), Merge::Atomic);
        assert_eq!(Merge::Atomic.fitting(256, 1, 16384), Merge::Atomic);
        assert_eq!(Merge::Atomic.fitting(256, 4, 16384), three);
        assert_eq!(three.fitting(1024, 1, 16384), three);
    }
}
