//! The deinterlacing pass (shaders/video/deinterlace.wgsl): makes a field of the middle one of
//! the three frames kept (`KeptFrames`) into a buffer laid out as the upload's staging memory,
//! and copies that into a ring slot's textures, where conversion, statistics and the cache find
//! it as if decoded so. Everything is made once for a stream's format; a frame records copies
//! and one dispatch.

use super::cpu::PlaneGeometry;
use super::kept::{self, KeptFrames, KeptPass, COMBINATIONS, VARIANT_STRIDE};
use super::{Deinterlacer, FieldJob, Method, Output};
use crate::gpu::shaders;
use crate::video::convert::PlaneTextures;
use crate::video::planes::PlaneRows;

/// The `@workgroup_size` of shaders/video/deinterlace.wgsl, and the pairs of rows an
/// invocation takes (its `PAIRS`).
const WORKGROUP: u32 = 64;
const PAIRS: u32 = 4;

/// Twin of `Plane` in shaders/video/deinterlace.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct PlaneParams {
    offset: u32,
    pitch: u32,
    quads: u32,
    rows: u32,
    samples: u32,
    channels: u32,
    width: u32,
    shift: u32,
}

/// Twin of `Params` in shaders/video/deinterlace.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    planes: [PlaneParams; 3],
    wide: u32,
    max_value: u32,
    parity: u32,
    order: u32,
    edge: u32,
    spatial: u32,
    method: u32,
    _pad: u32,
    prev_base: u32,
    cur_base: u32,
    next_base: u32,
    _pad2: u32,
}

/// The variant of the uniform a field is made with: the combination of sections the frames it
/// reads lie in (`kept::combination`), its parity, order and edge.
fn variant(combination: usize, job: FieldJob) -> u64 {
    8 * combination as u64 + u64::from(job.parity + 2 * u32::from(job.tff) + 4 * u32::from(job.edge))
}

pub struct DeinterlacePass {
    filter: Deinterlacer,
    pass: KeptPass,
    /// The frames kept's buffer (the sections it reads), and the picture made.
    kept: wgpu::Buffer,
    made: wgpu::Buffer,
    planes: Vec<PlaneRows>,
    bytes: u64,
    workgroups: [u32; 3],
    _counted: crate::video::memory::Reservation,
}

impl DeinterlacePass {
    /// The pass making pictures from the frames `kept`.
    pub fn new(device: &wgpu::Device, kept: &KeptFrames, filter: Deinterlacer) -> Self {
        let (planes, bytes) = (kept.planes().to_vec(), kept.frame_bytes());
        let geometry = PlaneGeometry::of(kept.format());
        let mut base = Params {
            wide: u32::from(geometry[0].wide),
            max_value: geometry[0].max() as u32,
            spatial: u32::from(!filter.no_spatial_check),
            method: match filter.method {
                Method::Bwdif => 0,
                Method::Yadif => 1,
            },
            ..Params::default()
        };
        for ((params, rows), plane) in base.planes.iter_mut().zip(&planes).zip(&geometry) {
            *params = PlaneParams {
                offset: (rows.offset / 4) as u32,
                pitch: rows.pitch / 4,
                quads: plane.row_samples().div_ceil(4) as u32,
                rows: rows.rows as u32,
                samples: plane.row_samples() as u32,
                channels: plane.channels,
                width: plane.width,
                shift: plane.shift,
            };
        }
        let words = (bytes / 4) as u32;
        let mut uniform = vec![0u8; 8 * COMBINATIONS * VARIANT_STRIDE as usize];
        for combination in 0..COMBINATIONS {
            let [p, c, n] = kept::sections(combination);
            for v in 0..8u32 {
                let (parity, tff, edge) = (v & 1, v & 2 != 0, v & 4 != 0);
                let params = Params {
                    parity,
                    order: parity ^ u32::from(tff),
                    edge: u32::from(edge),
                    prev_base: p as u32 * words,
                    cur_base: c as u32 * words,
                    next_base: n as u32 * words,
                    ..base
                };
                let job = FieldJob { parity, tff, edge };
                let at = (variant(combination, job) * VARIANT_STRIDE) as usize;
                uniform[at..at + size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&params));
            }
        }
        let made = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("deinterlaced frame"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pass = KeptPass::new(
            device,
            kept,
            (
                "deinterlace pass",
                shaders::DEINTERLACE.to_string(),
                filter.method.name(),
            ),
            (&uniform, size_of::<Params>() as u64),
            &made,
        );
        let kept = kept.buffer().clone();
        let widest = geometry
            .iter()
            .map(|p| p.row_samples().div_ceil(4) as u32)
            .max()
            .unwrap_or(0);
        let tallest = planes.iter().map(|p| p.rows as u32).max().unwrap_or(0);
        let counted = usize::try_from(bytes).unwrap_or(usize::MAX);
        Self {
            filter,
            pass,
            kept,
            made,
            workgroups: [
                widest.div_ceil(WORKGROUP),
                tallest.div_ceil(2 * PAIRS),
                planes.len() as u32,
            ],
            planes,
            bytes,
            _counted: crate::video::memory::FRAME_MEMORY.reserve(counted),
        }
    }

    /// The deinterlacer the pass was made for.
    pub fn filter(&self) -> Deinterlacer {
        self.filter
    }

    fn kept_at(&self, id: u64) -> u64 {
        KeptFrames::section(id) as u64 * self.bytes
    }

    /// Records making `output`'s picture in the pass's buffer (`made`).
    pub fn encode_made(&self, encoder: &mut wgpu::CommandEncoder, output: &Output) {
        self.encode_made_timed(encoder, output, None);
    }

    /// `encode_made`, timed by `writes`.
    pub fn encode_made_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        output: &Output,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let Some(job) = output.field else {
            encoder.copy_buffer_to_buffer(&self.kept, self.kept_at(output.cur), &self.made, 0, self.bytes);
            return;
        };
        let combination = kept::combination([output.prev, output.cur, output.next]);
        self.pass
            .encode(encoder, variant(combination, job), self.workgroups, writes);
    }

    /// Records making `output`'s picture into `slot`'s textures.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, output: &Output, slot: &PlaneTextures) {
        encoder.push_debug_group("deinterlace");
        self.encode_made(encoder, output);
        slot.encode_copy_in(encoder, &self.made, &self.planes);
        encoder.pop_debug_group();
    }

    /// The buffer the picture is made in, laid out as `planes`.
    pub fn made(&self) -> &wgpu::Buffer {
        &self.made
    }

    /// Where each plane's rows are in the buffers.
    pub fn planes(&self) -> &[PlaneRows] {
        &self.planes
    }
}
