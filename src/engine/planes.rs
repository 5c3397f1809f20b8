//! The engine counting a frame's decoded planes (shaders/engine/chunk_planes.wgsl): 4:2:0
//! Y'CbCr converted pixel by pixel as the conversion pass converts it, so the histograms equal
//! those of the converted frame bit for bit, from a third of its bytes. The one-dispatch engine's
//! endings (the per-word and by-ticket finishes) are the same; a chunk is a tile of the frame.
//!
//! The frame pipeline does not use it: on the GPUs measured (docs/performance.md, "Histograms
//! from the decoded planes") the conversion's arithmetic costs more than the reads it saves, and
//! counting the converted frame (`HistogramEngine::bind_source`) is faster. `bench` times both
//! on the card at hand.

use super::chunk::ChunkParams;
use super::{HistogramEngine, HistogramTarget};
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::GpuContext;
use crate::video::convert::{ConvertParams, PlaneTextures};
use crate::video::format::{FrameFormat, PlaneLayout};
use wgpu::util::DeviceExt;

/// The pass for one stream's format, its target's buffers bound with each ring slot's planes.
pub struct PlanesCount {
    /// Finishing by ticket, and per word (`chunk::count_bits`).
    pipelines: [wgpu::ComputePipeline; 2],
    layout: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
    convert: wgpu::Buffer,
    sampler: wgpu::Sampler,
    num_chunks: u32,
    count_bits: u32,
}

/// The pass's binding of one ring slot's planes to its target, made once per slot.
pub struct PlanesBinding(wgpu::BindGroup);

impl PlanesCount {
    /// Whether frames of `format` are counted from their planes: 4:2:0 Y'CbCr, planar (8 to 12
    /// bits) or with interleaved chroma (NV12, P010).
    pub fn supports(format: &FrameFormat) -> bool {
        match format.layout {
            PlaneLayout::Yuv {
                chroma_shift_x: 1,
                chroma_shift_y: 1,
                bits,
            } => (8..=12).contains(&bits),
            PlaneLayout::Nv12 | PlaneLayout::P010 => true,
            _ => false,
        }
    }

    /// The pass counting frames of `format` into `target` (the whole frame's) as `engine`
    /// would count them converted: None where the format is not one it `supports`, the engine
    /// runs three passes, or the target or depth is not the frame's.
    pub fn new(
        ctx: &GpuContext,
        engine: &HistogramEngine,
        target: &HistogramTarget,
        format: &FrameFormat,
    ) -> Option<Self> {
        let convert = ConvertParams::new(format).ok()?;
        let whole = (target.width, target.height) == (format.width, format.height)
            && target.pixel_count == format.width * format.height;
        // The shader leaves out the terms every Y'CbCr matrix has as zero, and weighs Y' once.
        let (r, g, b) = (convert.r, convert.g, convert.b);
        let matrix = r.y == g.y && g.y == b.y && r.cb == 0 && b.cr == 0;
        if !Self::supports(format)
            || !matrix
            || !engine.is_one_dispatch()
            || !whole
            || convert.out_bits != engine.depth.bits()
        {
            return None;
        }
        let device = &ctx.device;
        let shape = engine.shape();
        let tile = [2 * shape.workgroup_size, 2 * shape.loads_per_invocation];
        let tiles_across = format.width.div_ceil(tile[0]);
        let num_chunks = tiles_across * format.height.div_ceil(tile[1]);
        let params = ChunkParams {
            tiles_across,
            ..ChunkParams::new(target.pixel_count, num_chunks, engine.bins)
        };
        let compute = wgpu::ShaderStages::COMPUTE;
        let storage = |binding| layout::storage(binding, compute, false);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("histograms from the planes"),
            entries: &[
                layout::uniform(1, compute, false),
                storage(3),
                storage(4),
                storage(5),
                layout::uniform(6, compute, false),
                layout::uint_texture(7, compute),
                layout::uint_texture(8, compute),
                layout::uint_texture(9, compute),
                wgpu::BindGroupLayoutEntry {
                    binding: 10,
                    visibility: compute,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::NonFiltering),
                    count: None,
                },
            ],
        });
        let interleaved = matches!(format.layout, PlaneLayout::Nv12 | PlaneLayout::P010);
        let header = Header::new(engine.bins)
            .depth(engine.depth)
            .with("WG_X", shape.workgroup_size)
            .with("LOADS_PER_INVOCATION", shape.loads_per_invocation)
            .with("REPLICAS", shape.replicas)
            .with("INTERLEAVED", u32::from(interleaved));
        let source = shaders::chunk_planes_source(&header);
        let label = "histograms from the planes";
        let module = shaders::trusted_module(device, label, source);
        let pipelines = ["count_merge", "count_merge_words"]
            .map(|entry_point| shaders::compute_pipeline(device, label, &module, entry_point, &layout));
        let uniform = |label, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::UNIFORM,
            })
        };
        // Gathers with coordinates at texel corners, clamped at the edges as the conversion's
        // taps are.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(label),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            ..Default::default()
        });
        Some(Self {
            pipelines,
            layout,
            params: uniform("planes chunk params", bytemuck::bytes_of(&params)),
            convert: uniform("planes convert params", bytemuck::bytes_of(&convert)),
            sampler,
            num_chunks,
            count_bits: params.count_bits,
        })
    }

    /// Binds a ring slot's planes (of the pass's format) to the target: once per slot.
    pub fn bind(&self, ctx: &GpuContext, target: &HistogramTarget, planes: &PlaneTextures) -> PlanesBinding {
        fn buffer(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        // Cr is the second chroma plane, or the interleaved one again.
        let cr = planes
            .plane_view(2)
            .or_else(|| planes.plane_view(1))
            .unwrap_or(planes.bound_view(0));
        fn view(binding: u32, view: &wgpu::TextureView) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::TextureView(view),
            }
        }
        PlanesBinding(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("histograms from the planes"),
            layout: &self.layout,
            entries: &[
                buffer(1, &self.params),
                buffer(3, &target.work),
                buffer(4, &target.histogram),
                buffer(5, &target.scale),
                buffer(6, &self.convert),
                view(7, planes.bound_view(0)),
                view(8, planes.bound_view(1)),
                view(9, cr),
                wgpu::BindGroupEntry {
                    binding: 10,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        }))
    }

    /// Records counting the bound slot's frame into the target, in a compute pass of its own
    /// timed by `timestamp_writes`.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        binding: &PlanesBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("histograms from the planes"),
            timestamp_writes,
        });
        self.encode_into(&mut pass, binding);
    }

    /// Records counting the bound slot's frame into an open compute pass.
    pub fn encode_into(&self, pass: &mut wgpu::ComputePass, binding: &PlanesBinding) {
        pass.set_pipeline(&self.pipelines[usize::from(self.count_bits != 0)]);
        pass.set_bind_group(0, &binding.0, &[]);
        let (x, y) = super::reduce::spill(self.num_chunks);
        pass.dispatch_workgroups(x, y, 1);
    }
}
