//! The deinterlacing pass (shaders/video/deinterlace.wgsl): keeps the raw planes of the last
//! three frames in buffers laid out as the upload's staging memory, makes a field of the middle
//! one from them into a buffer of the same layout, and copies that into a ring slot's
//! textures, where conversion, statistics and the cache find it as if decoded so. Everything is
//! made once for a stream's format; a frame records copies and one dispatch.

use super::cpu::PlaneGeometry;
use super::{Deinterlacer, FieldJob, Method, Output};
use crate::gpu::shaders::{self, layout};
use crate::video::convert::{ConvertError, PlaneTextures};
use crate::video::format::{FrameFormat, PlaneData};
use crate::video::planes::{plane_rows, PlaneRows};
use wgpu::util::DeviceExt;

/// Frames kept: the previous, the current and the next.
const KEPT: usize = 3;
/// The `@workgroup_size` of shaders/video/deinterlace.wgsl, and the pairs of rows an
/// invocation takes (its `PAIRS`).
const WORKGROUP: u32 = 64;
const PAIRS: u32 = 4;
/// Bytes between the uniform's variants (a dynamic offset's alignment).
const VARIANT_STRIDE: u64 = 256;

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

/// The variant of the uniform a field is made with: the kept frames it reads (each a section
/// of `kept`), its parity, order and edge.
fn variant([prev, cur, next]: [usize; 3], job: FieldJob) -> u64 {
    let frames = (9 * prev + 3 * cur + next) as u64;
    8 * frames + u64::from(job.parity + 2 * u32::from(job.tff) + 4 * u32::from(job.edge))
}

pub struct DeinterlacePass {
    filter: Deinterlacer,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    _params: wgpu::Buffer,
    /// The last three frames' planes, a frame's bytes apart, frame `id` at section `id % 3`.
    kept: wgpu::Buffer,
    made: wgpu::Buffer,
    planes: Vec<PlaneRows>,
    bytes: u64,
    workgroups: [u32; 3],
    _counted: crate::video::memory::Reservation,
}

impl DeinterlacePass {
    pub fn new(device: &wgpu::Device, format: &FrameFormat, filter: Deinterlacer) -> Result<Self, ConvertError> {
        let (planes, bytes) = plane_rows(format);
        let geometry = PlaneGeometry::of(format);
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
        let mut uniform = vec![0u8; 8 * 27 * VARIANT_STRIDE as usize];
        for sections in 0..27usize {
            let [p, c, n] = [sections / 9, sections / 3 % 3, sections % 3];
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
                let at = (variant([p, c, n], job) * VARIANT_STRIDE) as usize;
                uniform[at..at + size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&params));
            }
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("deinterlace params"),
            contents: &uniform,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let buffer = |label: &str, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let kept = buffer("deinterlace frames kept", bytes * KEPT as u64);
        let made = buffer("deinterlaced frame", bytes);
        let compute = wgpu::ShaderStages::COMPUTE;
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("deinterlace pass"),
            entries: &[
                layout::uniform(0, compute, true),
                layout::storage(1, compute, true),
                layout::storage(2, compute, false),
            ],
        });
        let module = shaders::trusted_module(device, "deinterlace pass", shaders::DEINTERLACE.to_string());
        let pipeline = shaders::compute_pipeline(device, "deinterlace pass", &module, "deinterlace", &bind_layout);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("deinterlace pass"),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &params,
                        offset: 0,
                        size: wgpu::BufferSize::new(size_of::<Params>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: kept.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: made.as_entire_binding(),
                },
            ],
        });
        let widest = geometry
            .iter()
            .map(|p| p.row_samples().div_ceil(4) as u32)
            .max()
            .unwrap_or(0);
        let tallest = planes.iter().map(|p| p.rows as u32).max().unwrap_or(0);
        let counted = usize::try_from(bytes * (KEPT as u64 + 1)).unwrap_or(usize::MAX);
        Ok(Self {
            filter,
            pipeline,
            bind_group,
            _params: params,
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
        })
    }

    /// The deinterlacer the pass was made for.
    pub fn filter(&self) -> Deinterlacer {
        self.filter
    }

    /// Where frame `id`'s planes are kept in `kept`, and its section.
    fn section(id: u64) -> usize {
        (id % KEPT as u64) as usize
    }

    fn kept_at(&self, id: u64) -> u64 {
        Self::section(id) as u64 * self.bytes
    }

    /// Records keeping frame `id`'s planes, uploaded into `slot`, for the fields made from it
    /// (in the place of the frame three before it).
    pub fn encode_keep(&self, encoder: &mut wgpu::CommandEncoder, slot: &PlaneTextures, id: u64) {
        let at = self.kept_at(id);
        let planes: Vec<PlaneRows> = self
            .planes
            .iter()
            .map(|p| PlaneRows {
                offset: at + p.offset,
                ..*p
            })
            .collect();
        slot.encode_copy_out(encoder, &self.kept, &planes);
    }

    /// Keeps frame `id`'s planes from memory (the tests' and benchmarks' way in).
    pub fn keep_from_memory(&self, queue: &wgpu::Queue, id: u64, planes: &[PlaneData]) {
        let mut bytes = vec![0u8; self.bytes as usize];
        for (plane, rows) in planes.iter().zip(&self.planes) {
            for row in 0..rows.rows {
                let to = rows.offset as usize + row * rows.pitch as usize;
                let from = row * plane.stride;
                bytes[to..to + rows.row_bytes].copy_from_slice(&plane.data[from..from + rows.row_bytes]);
            }
        }
        queue.write_buffer(&self.kept, self.kept_at(id), &bytes);
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
        let sections = [output.prev, output.cur, output.next].map(Self::section);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("deinterlace"),
            timestamp_writes: writes,
        });
        pass.set_pipeline(&self.pipeline);
        let offset = variant(sections, job) * VARIANT_STRIDE;
        pass.set_bind_group(0, &self.bind_group, &[offset as u32]);
        let [x, y, z] = self.workgroups;
        pass.dispatch_workgroups(x, y, z);
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
