//! The statistics pass on the GPU (shaders/signalstats/signalstats.wgsl): counts a ring slot's
//! Y'CbCr planes into `Counts`' histograms, sums and tallies, against the previous frame's
//! samples it keeps. Made once per stream (pipelines, buffers, a bind group per ring slot);
//! each frame is a clear and two dispatches, and its counts are read back by the caller.

use super::{hue, Counts, PlaneShape, HUE_BINS};
use crate::colour::Depth;
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::GpuContext;
use crate::video::convert::PlaneTextures;
use crate::video::format::FrameFormat;
use std::cell::Cell;
use wgpu::util::DeviceExt;

const WG_SIZE: u32 = 256;
/// Rows a workgroup takes.
const BAND: u32 = 16;
/// Words of `out` between the histograms and the row sums (`SCALARS`..`ROWS` in the shader).
const SCALAR_WORDS: u32 = 12;
/// Where the parameters of a frame with a previous one sit in the uniform buffer (a dynamic
/// offset; the first frame's are at 0).
const WITH_PREVIOUS: u32 = 256;

/// Twin of `StatsParams` in signalstats.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct StatsParams {
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    shift_x: u32,
    shift_y: u32,
    semi: u32,
    sample_shift: u32,
    has_previous: u32,
    clear_words: u32,
    _pad: [u32; 2],
    range: [u32; 4],
}

/// The statistics of a stream's frames, counted on the GPU from its ring slots.
pub struct StatsStage {
    clear: wgpu::ComputePipeline,
    luma: wgpu::ComputePipeline,
    chroma: wgpu::ComputePipeline,
    params: StatsParams,
    /// The counts of the last frame encoded (`out` in the shader).
    pub counts: wgpu::Buffer,
    bindings: Vec<wgpu::BindGroup>,
    bits: u32,
    /// Whether each slot's kept samples are a previous frame's (one for all slots, or one a
    /// slot: `apart`).
    primed: Vec<Cell<bool>>,
}

impl StatsStage {
    /// Whether frames of `format` can be counted here: planar Y'CbCr, NV12 or P010, at 8 or 10
    /// bits (other depths are counted by the CPU twin).
    pub fn supports(format: &FrameFormat) -> bool {
        PlaneShape::of(format.layout).is_ok_and(|shape| shape.bits == 8 || shape.bits == 10)
    }

    /// A stage counting frames of `format` from the ring `slots`. `supports(format)` must hold.
    /// A stage counting frames of `format` from the ring `slots`; `apart`: each slot's frames
    /// are compared with the last of that slot's (the fields of frames split, each compared
    /// with the same field of the frame before), not with the last frame encoded.
    pub fn new(ctx: &GpuContext, slots: &[&PlaneTextures], format: FrameFormat, apart: bool) -> Self {
        assert!(Self::supports(&format), "the statistics pass reads 8- or 10-bit Y'CbCr");
        let device = &ctx.device;
        let shape = PlaneShape::of(format.layout).expect("supported");
        let bits = shape.bits;
        let (w, h) = (format.width, format.height);
        let (cw, ch) = shape.chroma_size(w, h);
        let hist = 1u32 << bits;
        let clear_words = 4 * hist + HUE_BINS as u32 + SCALAR_WORDS + h;
        let scale = 1 << (bits - 8);
        let params = StatsParams {
            width: w,
            height: h,
            chroma_width: cw,
            chroma_height: ch,
            shift_x: shape.shift_x,
            shift_y: shape.shift_y,
            semi: u32::from(shape.semi),
            sample_shift: shape.sample_shift,
            has_previous: 0,
            clear_words,
            _pad: [0; 2],
            range: [16 * scale, 235 * scale, 240 * scale, 0],
        };
        let header = Header::new(hist)
            .depth(Depth::from_bits(bits))
            .with("WG_X", WG_SIZE)
            .with("HIST", hist)
            .with("BAND", BAND);
        // Without naga's bounds checks (signalstats.wgsl says why its indices stay in bounds).
        let module = shaders::trusted_module(
            device,
            "signalstats",
            shaders::compute_source(&header, shaders::SIGNALSTATS),
        );
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("signalstats"),
            entries: &[
                layout::uniform(0, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(2, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(4, wgpu::ShaderStages::COMPUTE, true),
                layout::uint_texture(5, wgpu::ShaderStages::COMPUTE),
                layout::uint_texture(6, wgpu::ShaderStages::COMPUTE),
                layout::uint_texture(7, wgpu::ShaderStages::COMPUTE),
            ],
        });
        let pipeline = |entry: &str| shaders::compute_pipeline(device, "signalstats", &module, entry, &bind_layout);
        let mut contents = vec![0u8; WITH_PREVIOUS as usize + std::mem::size_of::<StatsParams>()];
        contents[..std::mem::size_of::<StatsParams>()].copy_from_slice(bytemuck::bytes_of(&params));
        let with_previous = StatsParams {
            has_previous: 1,
            ..params
        };
        contents[WITH_PREVIOUS as usize..].copy_from_slice(bytemuck::bytes_of(&with_previous));
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("signalstats params"),
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
        let counts = storage("signalstats counts", clear_words, wgpu::BufferUsages::COPY_SRC);
        let previous_sets = if apart { slots.len() } else { 1 };
        let previous: Vec<(wgpu::Buffer, wgpu::Buffer)> = (0..previous_sets)
            .map(|_| {
                let luma = storage(
                    "signalstats previous luma",
                    w.div_ceil(2) * h,
                    wgpu::BufferUsages::empty(),
                );
                (
                    luma,
                    storage("signalstats previous chroma", cw * ch, wgpu::BufferUsages::empty()),
                )
            })
            .collect();
        let hue_table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("signalstats hue"),
            contents: bytemuck::cast_slice(&hue_table(bits)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bindings = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let (prev_luma, prev_chroma) = &previous[i % previous_sets];
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
                    label: Some("signalstats"),
                    layout: &bind_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &params_buffer,
                                offset: 0,
                                size: wgpu::BufferSize::new(std::mem::size_of::<StatsParams>() as u64),
                            }),
                        },
                        buffer(1, &counts),
                        buffer(2, prev_luma),
                        buffer(3, prev_chroma),
                        buffer(4, &hue_table),
                        texture(5, 0),
                        texture(6, 1),
                        texture(7, 2),
                    ],
                })
            })
            .collect();
        Self {
            clear: pipeline("clear"),
            luma: pipeline("luma_stats"),
            chroma: pipeline("chroma_stats"),
            params,
            counts,
            bindings,
            bits,
            primed: (0..previous_sets).map(|_| Cell::new(false)).collect(),
        }
    }

    /// Records counting ring slot `slot`'s frame, the frame encoded before it being the previous
    /// one (the first after `new` or `restart` has no difference).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        self.encode_timed(encoder, slot, None);
    }

    /// `encode`, its pass bracketed by `writes` (`bench`).
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let p = self.params;
        let primed = &self.primed[slot % self.primed.len()];
        let offset = if primed.replace(true) { WITH_PREVIOUS } else { 0 };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("signalstats"),
            timestamp_writes: writes,
        });
        pass.set_bind_group(0, &self.bindings[slot], &[offset]);
        pass.set_pipeline(&self.clear);
        pass.dispatch_workgroups(p.clear_words.div_ceil(WG_SIZE), 1, 1);
        pass.set_pipeline(&self.luma);
        pass.dispatch_workgroups(p.width.div_ceil(2).div_ceil(WG_SIZE), p.height.div_ceil(BAND), 1);
        pass.set_pipeline(&self.chroma);
        pass.dispatch_workgroups(p.chroma_width.div_ceil(WG_SIZE), p.chroma_height.div_ceil(BAND), 1);
    }

    /// The next frame encoded has no previous one (after a seek).
    pub fn restart(&self) {
        self.primed.iter().for_each(|p| p.set(false));
    }

    /// Bytes of the counts, for a readback.
    pub fn counts_size(&self) -> u64 {
        self.counts.size()
    }

    /// The counts a readback of `counts` holds.
    pub fn counts_from(&self, words: &[u32]) -> Counts {
        let hist = 1usize << self.bits;
        let p = &self.params;
        let scalars = 4 * hist + HUE_BINS;
        let pair = |at: usize| u64::from(words[at]) | (u64::from(words[at + 1]) << 32);
        let rows = &words[scalars + SCALAR_WORDS as usize..][..p.height as usize];
        Counts {
            bits: self.bits,
            width: u64::from(p.width),
            height: u64::from(p.height),
            chroma_samples: u64::from(p.chroma_width) * u64::from(p.chroma_height),
            y: words[..hist].to_vec(),
            u: words[hist..2 * hist].to_vec(),
            v: words[2 * hist..3 * hist].to_vec(),
            sat: words[3 * hist..4 * hist].to_vec(),
            hue: words[4 * hist..scalars].to_vec(),
            dif: [pair(scalars), pair(scalars + 2), pair(scalars + 4)],
            mask: [words[scalars + 6], words[scalars + 7], words[scalars + 8]],
            tout: u64::from(words[scalars + 9]),
            // Lines from the fifth within a code a pixel of the line four above.
            vrep_lines: rows
                .iter()
                .skip(super::VREP_DISTANCE)
                .filter(|&&sum| sum < p.width)
                .count() as u64,
            brng: u64::from(words[scalars + 10]),
        }
    }
}

/// The hue of every (U, V) pair of `bits`, two 16-bit degrees a word, index (U << bits) | V.
fn hue_table(bits: u32) -> Vec<u32> {
    let size = 1i32 << bits;
    let mid = size / 2;
    let degrees: Vec<u16> = (0..size)
        .flat_map(|u| (0..size).map(move |v| hue(u - mid, v - mid) as u16))
        .collect();
    degrees
        .chunks(2)
        .map(|pair| u32::from(pair[0]) | (u32::from(pair[1]) << 16))
        .collect()
}
