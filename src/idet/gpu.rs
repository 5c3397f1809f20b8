//! The interlace detection pass (shaders/idet/idet.wgsl): a frame's idet sums from the three
//! frames kept (`KeptFrames`), in one dispatch, into 40 bytes read back with the frame's other
//! results. Made once for a stream's format; a frame records a clear and a dispatch.

use super::Sums;
use crate::gpu::shaders;
use crate::video::deinterlace::cpu::PlaneGeometry;
use crate::video::deinterlace::kept::{self, KeptFrames, KeptPass, COMBINATIONS, VARIANT_STRIDE};
use crate::video::deinterlace::Output;
use crate::video::format::{FrameFormat, PlaneLayout};

/// `ROWS` of shaders/idet/idet.wgsl: lines a workgroup takes.
const ROWS: u32 = 4;
/// Bytes of a frame's sums: five 64-bit sums.
pub const RESULT_BYTES: u64 = 40;

/// Twin of `Plane` in shaders/idet/idet.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct PlaneParams {
    offset: u32,
    pitch: u32,
    quads: u32,
    rows: u32,
    samples: u32,
    _pad: [u32; 3],
}

/// Twin of `Params` in shaders/idet/idet.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    planes: [PlaneParams; 3],
    planes_used: u32,
    wide: u32,
    shift: u32,
    _pad: u32,
    prev_base: u32,
    cur_base: u32,
    next_base: u32,
    _pad2: u32,
}

pub struct IdetPass {
    pass: KeptPass,
    /// The last frame's sums (`RESULT_BYTES`), for a readback.
    pub result: wgpu::Buffer,
    workgroups: [u32; 3],
}

impl IdetPass {
    /// Whether idet reads frames of `format` as FFmpeg's filter does: Y'CbCr (NV12 and P010
    /// as the planar frames they convert to) and grey. FFmpeg converts RGB to Y'CbCr first.
    pub fn supports(format: &FrameFormat) -> bool {
        matches!(
            format.layout,
            PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010 | PlaneLayout::Gray { .. }
        )
    }

    /// The pass over the frames `kept` (whose format `supports`).
    pub fn new(device: &wgpu::Device, kept: &KeptFrames) -> Self {
        let geometry = PlaneGeometry::of(kept.format());
        let mut base = Params {
            planes_used: geometry.len() as u32,
            wide: u32::from(geometry[0].wide),
            shift: geometry[0].shift,
            ..Params::default()
        };
        for ((params, rows), plane) in base.planes.iter_mut().zip(kept.planes()).zip(&geometry) {
            *params = PlaneParams {
                offset: (rows.offset / 4) as u32,
                pitch: rows.pitch / 4,
                quads: plane.row_samples().div_ceil(4) as u32,
                rows: plane.height,
                samples: plane.row_samples() as u32,
                _pad: [0; 3],
            };
        }
        let words = (kept.frame_bytes() / 4) as u32;
        // A variant for each combination of sections the three frames lie in.
        let mut uniform = vec![0u8; COMBINATIONS * VARIANT_STRIDE as usize];
        for combination in 0..COMBINATIONS {
            let [p, c, n] = kept::sections(combination).map(|s| s as u32 * words);
            let params = Params {
                prev_base: p,
                cur_base: c,
                next_base: n,
                ..base
            };
            let at = combination * VARIANT_STRIDE as usize;
            uniform[at..at + size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&params));
        }
        let result = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("idet sums"),
            size: RESULT_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pass = KeptPass::new(
            device,
            kept,
            ("idet pass", shaders::IDET.to_string(), "idet"),
            (&uniform, size_of::<Params>() as u64),
            &result,
        );
        let tallest = geometry.iter().map(|p| p.height).max().unwrap_or(0);
        Self {
            pass,
            result,
            workgroups: [
                tallest.saturating_sub(4).div_ceil(ROWS).max(1),
                1,
                geometry.len() as u32,
            ],
        }
    }

    /// Records the sums of `frame.cur` between `frame.prev` and `frame.next` (all kept) into
    /// `result`.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, frame: &Output) {
        self.encode_timed(encoder, frame, None);
    }

    /// `encode`, its pass timed by `writes`.
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &Output,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        encoder.clear_buffer(&self.result, 0, None);
        let variant = kept::combination([frame.prev, frame.cur, frame.next]) as u64;
        self.pass.encode(encoder, variant, self.workgroups, writes);
    }

    /// The sums a readback of `result` holds.
    pub fn sums(words: &[u32]) -> Sums {
        let at = |i: usize| u64::from(words[2 * i]) | (u64::from(words[2 * i + 1]) << 32);
        Sums {
            alpha: [at(0), at(1)],
            delta: at(2),
            gamma: [at(3), at(4)],
        }
    }
}
