//! The freeze pass on the GPU (shaders/events/freeze.wgsl): each frame's sum of absolute
//! differences from the reference picture it keeps, the verdict against the largest sum still
//! frozen, and the reference replaced by a frame that moved, in five dispatches with nothing
//! waited for. Made once per stream (pipelines, buffers, a bind group per ring slot); each
//! frame's 16 bytes of `result` are read back with its statistics.

use super::{compared_samples, frozen_limit};
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::GpuContext;
use crate::signalstats::PlaneShape;
use crate::video::convert::PlaneTextures;
use crate::video::format::FrameFormat;
use std::cell::Cell;
use wgpu::util::DeviceExt;

const WG_SIZE: u32 = 256;
/// Rows a workgroup takes.
const BAND: u32 = 16;
/// Where the parameters of a frame with a reference sit in the uniform buffer (a dynamic
/// offset; the first frame's are at 0).
const WITH_REFERENCE: u32 = 256;
/// Bytes of `result`: the sum (low, high word), the verdict, a spare word.
pub const RESULT_BYTES: u64 = 16;

/// Twin of `FreezeParams` in freeze.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct FreezeParams {
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_rows: u32,
    semi: u32,
    sample_shift: u32,
    has_reference: u32,
    luma_groups: u32,
    partial_count: u32,
    limit_low: u32,
    limit_high: u32,
    limit_valid: u32,
}

/// A frame's verdict, as read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreezeVerdict {
    /// Frozen against the reference (false for the first frame, which becomes it).
    pub frozen: bool,
    /// The sum of absolute differences from the reference.
    pub sad: u64,
}

/// The freeze pass over a stream's ring slots.
pub struct FreezeStage {
    sad_luma: wgpu::ComputePipeline,
    sad_chroma: wgpu::ComputePipeline,
    decide: wgpu::ComputePipeline,
    replace_luma: wgpu::ComputePipeline,
    replace_chroma: wgpu::ComputePipeline,
    luma_groups: [u32; 2],
    chroma_groups: [u32; 2],
    /// The last frame's verdict (`RESULT_BYTES`), for a readback.
    pub result: wgpu::Buffer,
    bindings: Vec<wgpu::BindGroup>,
    has_reference: Cell<bool>,
    /// The frame (its number) the comparing starts again at (`restart_at`).
    restart_at: Cell<Option<u64>>,
}

impl FreezeStage {
    /// Whether frames of `format` can be compared here: planar Y'CbCr, NV12 or P010, at 8 or
    /// 10 bits (as the statistics pass).
    pub fn supports(format: &FrameFormat) -> bool {
        PlaneShape::of(format.layout).is_ok_and(|shape| shape.bits == 8 || shape.bits == 10)
    }

    /// A stage comparing frames of `format` from the ring `slots`, frozen at a mean absolute
    /// difference of `noise` or less (a negative noise: never frozen, every frame the
    /// reference). `supports(format)` must hold.
    pub fn new(ctx: &GpuContext, slots: &[&PlaneTextures], format: FrameFormat, noise: f64) -> Self {
        assert!(Self::supports(&format), "the freeze pass reads 8- or 10-bit Y'CbCr");
        let device = &ctx.device;
        let shape = PlaneShape::of(format.layout).expect("supported");
        let (w, h) = (format.width, format.height);
        let chroma_width = w.div_ceil(1 << shape.shift_x);
        let chroma_rows = h >> shape.shift_y;
        let (luma, chroma) = compared_samples(u64::from(w), u64::from(h), shape.shift_x, shape.shift_y);
        let limit = frozen_limit(noise, luma + 2 * chroma, shape.bits);
        let luma_groups = [w.div_ceil(2).div_ceil(WG_SIZE), h.div_ceil(BAND)];
        let chroma_groups = [chroma_width.div_ceil(WG_SIZE), chroma_rows.div_ceil(BAND).max(1)];
        let params = FreezeParams {
            width: w,
            height: h,
            chroma_width,
            chroma_rows,
            semi: u32::from(shape.semi),
            sample_shift: shape.sample_shift,
            has_reference: 0,
            luma_groups: luma_groups[0] * luma_groups[1],
            partial_count: luma_groups[0] * luma_groups[1] + chroma_groups[0] * chroma_groups[1],
            limit_low: limit.unwrap_or(0) as u32,
            limit_high: (limit.unwrap_or(0) >> 32) as u32,
            limit_valid: u32::from(limit.is_some()),
        };
        let header = Header::new(1 << shape.bits)
            .with("WG_X", WG_SIZE)
            .with("HIST", 1 << shape.bits)
            .with("BAND", BAND);
        let module = shaders::module(device, "freeze", shaders::compute_source(&header, shaders::FREEZE));
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("freeze"),
            entries: &[
                layout::uniform(0, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(2, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(4, wgpu::ShaderStages::COMPUTE, false),
                layout::uint_texture(5, wgpu::ShaderStages::COMPUTE),
                layout::uint_texture(6, wgpu::ShaderStages::COMPUTE),
                layout::uint_texture(7, wgpu::ShaderStages::COMPUTE),
            ],
        });
        let pipeline = |entry: &str| shaders::compute_pipeline(device, "freeze", &module, entry, &bind_layout);
        let mut contents = vec![0u8; WITH_REFERENCE as usize + std::mem::size_of::<FreezeParams>()];
        contents[..std::mem::size_of::<FreezeParams>()].copy_from_slice(bytemuck::bytes_of(&params));
        let with_reference = FreezeParams {
            has_reference: 1,
            ..params
        };
        contents[WITH_REFERENCE as usize..].copy_from_slice(bytemuck::bytes_of(&with_reference));
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("freeze params"),
            contents: &contents,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let storage = |label: &str, words: u32, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: u64::from(words.max(1)) * 4,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let reference_luma = storage("freeze reference luma", w.div_ceil(2) * h, wgpu::BufferUsages::empty());
        let reference_chroma = storage(
            "freeze reference chroma",
            chroma_width * chroma_rows,
            wgpu::BufferUsages::empty(),
        );
        let partials = storage("freeze partials", params.partial_count, wgpu::BufferUsages::empty());
        let result = storage("freeze result", (RESULT_BYTES / 4) as u32, wgpu::BufferUsages::COPY_SRC);
        let bindings = slots
            .iter()
            .map(|slot| {
                fn buffer(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
                    wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }
                }
                let texture = |binding, i| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::TextureView(slot.bound_view(i)),
                };
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("freeze"),
                    layout: &bind_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &params_buffer,
                                offset: 0,
                                size: wgpu::BufferSize::new(std::mem::size_of::<FreezeParams>() as u64),
                            }),
                        },
                        buffer(1, &reference_luma),
                        buffer(2, &reference_chroma),
                        buffer(3, &partials),
                        buffer(4, &result),
                        texture(5, 0),
                        texture(6, 1),
                        texture(7, 2),
                    ],
                })
            })
            .collect();
        Self {
            sad_luma: pipeline("luma_sad"),
            sad_chroma: pipeline("chroma_sad"),
            decide: pipeline("decide"),
            replace_luma: pipeline("replace_luma"),
            replace_chroma: pipeline("replace_chroma"),
            luma_groups,
            chroma_groups,
            result,
            bindings,
            has_reference: Cell::new(false),
            restart_at: Cell::new(None),
        }
    }

    /// Records comparing ring slot `slot`'s frame with the reference (the first frame after
    /// `new` or `restart` becomes it).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        self.encode_timed(encoder, slot, None);
    }

    /// `encode`, its pass timed by `writes`.
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let offset = if self.has_reference.replace(true) {
            WITH_REFERENCE
        } else {
            0
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("freeze"),
            timestamp_writes: writes,
        });
        pass.set_bind_group(0, &self.bindings[slot], &[offset]);
        let [lx, ly] = self.luma_groups;
        let [cx, cy] = self.chroma_groups;
        pass.set_pipeline(&self.sad_luma);
        pass.dispatch_workgroups(lx, ly, 1);
        pass.set_pipeline(&self.sad_chroma);
        pass.dispatch_workgroups(cx, cy, 1);
        pass.set_pipeline(&self.decide);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.replace_luma);
        pass.dispatch_workgroups(lx, ly, 1);
        pass.set_pipeline(&self.replace_chroma);
        pass.dispatch_workgroups(cx, cy, 1);
    }

    /// The next frame encoded has no reference (after a seek).
    pub fn restart(&self) {
        self.has_reference.set(false);
    }

    /// Frame `frame` is to have no reference when it comes (`frame_coming`): the first of a
    /// range, compared as though the stream started there (`trim,freezedetect`), where the frame
    /// before it goes through the passes too (the statistics' differences are from it).
    pub fn restart_at(&self, frame: u64) {
        self.restart_at.set(Some(frame));
    }

    /// Frame `frame` is encoded next: the comparing starts again at it where it is the one
    /// `restart_at` named, or the first after it (that one lost to damage).
    pub fn frame_coming(&self, frame: u64) {
        if self.restart_at.get().is_some_and(|at| frame >= at) {
            self.restart_at.set(None);
            self.restart();
        }
    }

    /// The verdict a readback of `result` holds.
    pub fn verdict(words: &[u32]) -> FreezeVerdict {
        FreezeVerdict {
            frozen: words[2] == 1,
            sad: u64::from(words[0]) | (u64::from(words[1]) << 32),
        }
    }
}
