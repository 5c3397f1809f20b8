//! Every histogram variant the articles build, plus histoplay's production engine, behind one
//! interface so the bench can time them and the tests can check each against the CPU reference.
//! Each is built once for a frame size; `encode` records one full computation.

use crate::engine::histogram::Histogram;
use crate::engine::reduce::{ReduceKind, ReducePass, ReduceSteps};
use crate::engine::scale::HistogramScale;
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget, SourceBinding, Stage};
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{readback, GpuContext, GpuError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantKind {
    /// One invocation loops over every pixel (articles: "single invocation").
    SingleInvocation,
    /// One invocation per pixel, atomics in a storage buffer.
    PerPixelAtomics,
    /// Chunks of one pixel per bin (256x1) in workgroup atomics, then one workgroup sums them.
    ChunksSum,
    /// The same chunks, pairwise reduce, single-invocation scale: the articles' fastest.
    ChunksReduce,
    /// histoplay's chunk, reduce and scale passes.
    Production,
}

impl VariantKind {
    pub const GPU: [VariantKind; 5] = [
        VariantKind::SingleInvocation,
        VariantKind::PerPixelAtomics,
        VariantKind::ChunksSum,
        VariantKind::ChunksReduce,
        VariantKind::Production,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VariantKind::SingleInvocation => "GPU single invocation",
            VariantKind::PerPixelAtomics => "GPU invocation per pixel, atomics",
            VariantKind::ChunksSum => "GPU chunks + single-workgroup sum",
            VariantKind::ChunksReduce => "GPU chunks + reduce + scale (articles)",
            VariantKind::Production => "histoplay: chunk + merge + scale, 1 dispatch",
        }
    }
}

/// Single-invocation runs over more pixels than this take seconds each.
const SINGLE_INVOCATION_MAX_PIXELS: u64 = 4_000_000;
/// A CPU adapter (lavapipe) ends an invocation after 65535 loop iterations in all.
const CPU_ADAPTER_LOOP_BUDGET: u64 = 60_000;

/// Why a variant can't run on a frame on this adapter, if it can't.
pub fn skip_reason(ctx: &GpuContext, kind: VariantKind, width: u32, height: u32, bins: u32) -> Option<String> {
    let pixels = u64::from(width) * u64::from(height);
    let cpu_adapter = ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    // The longest loop one invocation runs.
    let iterations = match kind {
        VariantKind::SingleInvocation => pixels,
        VariantKind::ChunksSum => {
            let (w, h) = article_chunk_size(bins);
            u64::from(width.div_ceil(w)) * u64::from(height.div_ceil(h)) * u64::from(bins.div_ceil(256))
        }
        _ => 0,
    };
    if cpu_adapter && iterations > CPU_ADAPTER_LOOP_BUDGET {
        Some(format!(
            "a CPU adapter stops an invocation after 65535 loop iterations; this needs {iterations}"
        ))
    } else if kind == VariantKind::SingleInvocation && pixels > SINGLE_INVOCATION_MAX_PIXELS {
        Some(format!("one invocation over {pixels} pixels takes seconds per run"))
    } else {
        None
    }
}

/// A GPU histogram, built for one frame.
pub trait GpuVariant {
    fn kind(&self) -> VariantKind;
    /// Records one whole computation; timestamps, if given, bracket its compute pass.
    fn encode(&self, encoder: &mut wgpu::CommandEncoder, timestamps: Option<wgpu::ComputePassTimestampWrites>);
    fn read_histogram(&self, ctx: &GpuContext) -> Result<Histogram, GpuError>;
    /// The display scale, for variants that compute one.
    fn read_scale(&self, _ctx: &GpuContext) -> Result<Option<HistogramScale>, GpuError> {
        Ok(None)
    }
}

pub fn build(
    ctx: &GpuContext,
    kind: VariantKind,
    frame: &GpuFrame,
    bins: u32,
) -> Result<Box<dyn GpuVariant>, GpuError> {
    Ok(match kind {
        VariantKind::SingleInvocation | VariantKind::PerPixelAtomics => Box::new(Direct::new(ctx, kind, frame, bins)),
        VariantKind::ChunksSum | VariantKind::ChunksReduce => Box::new(ArticleChunks::new(ctx, kind, frame, bins)?),
        VariantKind::Production => Box::new(Production::new(ctx, frame, bins, EngineConfig::default())?),
    })
}

fn storage_buffer(ctx: &GpuContext, label: &str, size: u64) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn bind(
    ctx: &GpuContext,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource],
) -> wgpu::BindGroup {
    let entries: Vec<_> = resources
        .iter()
        .enumerate()
        .map(|(i, resource)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: resource.clone(),
        })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

fn compute_layout(ctx: &GpuContext, label: &str, entries: &[wgpu::BindGroupLayoutEntry]) -> wgpu::BindGroupLayout {
    ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// Single invocation, or one invocation per pixel: both count straight into one histogram.
struct Direct {
    kind: VariantKind,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    histogram: wgpu::Buffer,
    dispatch: (u32, u32),
}

impl Direct {
    fn new(ctx: &GpuContext, kind: VariantKind, frame: &GpuFrame, bins: u32) -> Self {
        let (source, entry, dispatch) = match kind {
            VariantKind::SingleInvocation => (shaders::ARTICLE_SINGLE, "single_invocation", (1, 1)),
            _ => (shaders::ARTICLE_PER_PIXEL, "per_pixel", (frame.width, frame.height)),
        };
        let layout = compute_layout(
            ctx,
            kind.name(),
            &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, false),
                layout::texture(1, wgpu::ShaderStages::COMPUTE),
            ],
        );
        let module = shaders::module(
            &ctx.device,
            kind.name(),
            shaders::compute_source(&Header::new(bins), source),
        );
        let pipeline = shaders::compute_pipeline(&ctx.device, kind.name(), &module, entry, &layout);
        let histogram = storage_buffer(ctx, kind.name(), u64::from(bins) * 16);
        let bind_group = bind(
            ctx,
            kind.name(),
            &layout,
            &[
                histogram.as_entire_binding(),
                wgpu::BindingResource::TextureView(&frame.view),
            ],
        );
        Self {
            kind,
            pipeline,
            bind_group,
            histogram,
            dispatch,
        }
    }
}

impl GpuVariant for Direct {
    fn kind(&self) -> VariantKind {
        self.kind
    }

    fn encode(&self, encoder: &mut wgpu::CommandEncoder, timestamps: Option<wgpu::ComputePassTimestampWrites>) {
        encoder.clear_buffer(&self.histogram, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.kind.name()),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }

    fn read_histogram(&self, ctx: &GpuContext) -> Result<Histogram, GpuError> {
        let bytes = readback::read_buffer(ctx, &self.histogram, 0, self.histogram.size())?;
        Ok(Histogram::from_interleaved(&readback::words(&bytes)))
    }
}

/// The articles' chunks, summed by one workgroup or by the pairwise reduce (+ scale).
struct ArticleChunks {
    kind: VariantKind,
    chunk_pipeline: wgpu::ComputePipeline,
    chunk_bind_group: wgpu::BindGroup,
    grid: (u32, u32),
    sum_pipeline: wgpu::ComputePipeline,
    sum_bind_group: wgpu::BindGroup,
    reduce: Option<(ReducePass, ReduceSteps)>,
    scale: wgpu::Buffer,
    bins: u32,
    chunks: wgpu::Buffer,
}

impl ArticleChunks {
    fn new(ctx: &GpuContext, kind: VariantKind, frame: &GpuFrame, bins: u32) -> Result<Self, GpuError> {
        let (chunk_width, chunk_height) = article_chunk_size(bins);
        let header = Header::new(bins)
            .with("CHUNK_WIDTH", chunk_width)
            .with("CHUNK_HEIGHT", chunk_height);
        let grid = (frame.width.div_ceil(chunk_width), frame.height.div_ceil(chunk_height));
        let num_chunks = grid.0 * grid.1;
        let chunk_bytes = u64::from(num_chunks) * u64::from(bins) * 16;
        if chunk_bytes > ctx.device.limits().max_storage_buffer_binding_size {
            return Err(GpuError::TooLarge {
                width: frame.width,
                height: frame.height,
                max: ctx.max_texture_side(),
            });
        }
        let chunks = storage_buffer(ctx, "article chunks", chunk_bytes);

        let chunk_layout = compute_layout(
            ctx,
            "article chunk",
            &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, false),
                layout::texture(1, wgpu::ShaderStages::COMPUTE),
            ],
        );
        let module = shaders::module(
            &ctx.device,
            "article chunk",
            shaders::compute_source(&header, shaders::ARTICLE_CHUNK),
        );
        let chunk_pipeline =
            shaders::compute_pipeline(&ctx.device, "article chunk", &module, "article_chunk", &chunk_layout);
        let chunk_bind_group = bind(
            ctx,
            "article chunk",
            &chunk_layout,
            &[
                chunks.as_entire_binding(),
                wgpu::BindingResource::TextureView(&frame.view),
            ],
        );

        let (sum_pipeline, sum_bind_group, scale) = if kind == VariantKind::ChunksSum {
            let sum_layout = compute_layout(
                ctx,
                "article sum",
                &[layout::storage(0, wgpu::ShaderStages::COMPUTE, false)],
            );
            let module = shaders::module(
                &ctx.device,
                "article sum",
                shaders::compute_source(&header, shaders::ARTICLE_SUM),
            );
            let pipeline = shaders::compute_pipeline(&ctx.device, "article sum", &module, "article_sum", &sum_layout);
            let bind_group = bind(ctx, "article sum", &sum_layout, &[chunks.as_entire_binding()]);
            (pipeline, bind_group, storage_buffer(ctx, "unused scale", 32))
        } else {
            let scale_layout = compute_layout(
                ctx,
                "article scale",
                &[
                    layout::storage(0, wgpu::ShaderStages::COMPUTE, true),
                    layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
                    layout::texture(2, wgpu::ShaderStages::COMPUTE),
                ],
            );
            let module = shaders::module(
                &ctx.device,
                "article scale",
                shaders::compute_source(&header, shaders::ARTICLE_SCALE),
            );
            let pipeline =
                shaders::compute_pipeline(&ctx.device, "article scale", &module, "article_scale", &scale_layout);
            let scale = storage_buffer(ctx, "article scale", std::mem::size_of::<HistogramScale>() as u64);
            let bind_group = bind(
                ctx,
                "article scale",
                &scale_layout,
                &[
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &chunks,
                        offset: 0,
                        size: wgpu::BufferSize::new(u64::from(bins) * 16),
                    }),
                    scale.as_entire_binding(),
                    wgpu::BindingResource::TextureView(&frame.view),
                ],
            );
            (pipeline, bind_group, scale)
        };
        let reduce = (kind == VariantKind::ChunksReduce).then(|| {
            let pass = ReducePass::new(&ctx.device, bins, ReduceKind::ArticlePairwise);
            let steps = pass.steps(&ctx.device, &chunks, num_chunks);
            (pass, steps)
        });
        Ok(Self {
            kind,
            chunk_pipeline,
            chunk_bind_group,
            grid,
            sum_pipeline,
            sum_bind_group,
            reduce,
            scale,
            bins,
            chunks,
        })
    }
}

/// The articles' chunk is 256x1 for 256 bins: one pixel, and one invocation, per bin.
pub fn article_chunk_size(bins: u32) -> (u32, u32) {
    let width = bins.min(256);
    (width, bins / width)
}

impl GpuVariant for ArticleChunks {
    fn kind(&self) -> VariantKind {
        self.kind
    }

    fn encode(&self, encoder: &mut wgpu::CommandEncoder, timestamps: Option<wgpu::ComputePassTimestampWrites>) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.kind.name()),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&self.chunk_pipeline);
        pass.set_bind_group(0, &self.chunk_bind_group, &[]);
        pass.dispatch_workgroups(self.grid.0, self.grid.1, 1);
        if let Some((reduce, steps)) = &self.reduce {
            reduce.encode(&mut pass, steps);
        }
        // ChunksSum: the sum; ChunksReduce: the scale. Both are one dispatch of this pipeline.
        pass.set_pipeline(&self.sum_pipeline);
        pass.set_bind_group(0, &self.sum_bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }

    fn read_histogram(&self, ctx: &GpuContext) -> Result<Histogram, GpuError> {
        let bytes = readback::read_buffer(ctx, &self.chunks, 0, u64::from(self.bins) * 16)?;
        Ok(Histogram::from_interleaved(&readback::words(&bytes)))
    }

    fn read_scale(&self, ctx: &GpuContext) -> Result<Option<HistogramScale>, GpuError> {
        if self.kind != VariantKind::ChunksReduce {
            return Ok(None);
        }
        let bytes = readback::read_buffer(ctx, &self.scale, 0, self.scale.size())?;
        Ok(Some(bytemuck::pod_read_unaligned(&bytes)))
    }
}

/// histoplay's engine as a variant.
pub struct Production {
    engine: HistogramEngine,
    target: HistogramTarget,
    source: SourceBinding,
    /// The last pass `encode` records (the bench's per-stage breakdown stops early).
    pub through: Stage,
}

impl Production {
    pub fn new(ctx: &GpuContext, frame: &GpuFrame, bins: u32, config: EngineConfig) -> Result<Self, GpuError> {
        let engine = HistogramEngine::new(ctx, bins, config);
        let target = engine.target(ctx, frame.width, frame.height)?;
        let source = engine.bind_source(ctx, &target, &frame.pixels);
        Ok(Self {
            engine,
            target,
            source,
            through: Stage::Scale,
        })
    }

    pub fn engine(&self) -> &HistogramEngine {
        &self.engine
    }
}

impl GpuVariant for Production {
    fn kind(&self) -> VariantKind {
        VariantKind::Production
    }

    fn encode(&self, encoder: &mut wgpu::CommandEncoder, timestamps: Option<wgpu::ComputePassTimestampWrites>) {
        self.engine
            .encode_through(encoder, &self.target, &self.source, timestamps, self.through);
    }

    fn read_histogram(&self, ctx: &GpuContext) -> Result<Histogram, GpuError> {
        self.engine.read_histogram(ctx, &self.target)
    }

    fn read_scale(&self, ctx: &GpuContext) -> Result<Option<HistogramScale>, GpuError> {
        self.engine.read_scale(ctx, &self.target).map(Some)
    }
}
