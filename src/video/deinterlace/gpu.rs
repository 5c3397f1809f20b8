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
/// The `@workgroup_size` of shaders/video/deinterlace.wgsl.
const WORKGROUP: u32 = 64;
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
}

/// The variant of the uniform a field is made with: its parity, order and edge.
fn variant(job: FieldJob) -> u32 {
    job.parity + 2 * u32::from(job.tff) + 4 * u32::from(job.edge)
}

pub struct DeinterlacePass {
    filter: Deinterlacer,
    pipeline: wgpu::ComputePipeline,
    /// By the kept buffers bound as previous, current and next: `9 p + 3 c + n`.
    bind_groups: Vec<wgpu::BindGroup>,
    _params: wgpu::Buffer,
    kept: Vec<wgpu::Buffer>,
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
        let mut uniform = vec![0u8; 8 * VARIANT_STRIDE as usize];
        for v in 0..8u32 {
            let (parity, tff, edge) = (v & 1, v & 2 != 0, v & 4 != 0);
            let params = Params {
                parity,
                order: parity ^ u32::from(tff),
                edge: u32::from(edge),
                ..base
            };
            let at = (u64::from(v) * VARIANT_STRIDE) as usize;
            uniform[at..at + size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&params));
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("deinterlace params"),
            contents: &uniform,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let buffer = |label: &str, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let copies = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let kept: Vec<_> = (0..KEPT)
            .map(|i| buffer(&format!("deinterlace frame kept {i}"), copies))
            .collect();
        let made = buffer("deinterlaced frame", copies);
        let compute = wgpu::ShaderStages::COMPUTE;
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("deinterlace pass"),
            entries: &[
                layout::uniform(0, compute, true),
                layout::storage(1, compute, true),
                layout::storage(2, compute, true),
                layout::storage(3, compute, true),
                layout::storage(4, compute, false),
            ],
        });
        let module = shaders::trusted_module(device, "deinterlace pass", shaders::DEINTERLACE.to_string());
        let pipeline = shaders::compute_pipeline(device, "deinterlace pass", &module, "deinterlace", &bind_layout);
        let bind_groups = (0..KEPT * KEPT * KEPT)
            .map(|i| {
                let [p, c, n] = [i / 9, i / 3 % 3, i % 3];
                device.create_bind_group(&wgpu::BindGroupDescriptor {
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
                            resource: kept[p].as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: kept[c].as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: kept[n].as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: made.as_entire_binding(),
                        },
                    ],
                })
            })
            .collect();
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
            bind_groups,
            _params: params,
            kept,
            made,
            workgroups: [widest.div_ceil(WORKGROUP), tallest, planes.len() as u32],
            planes,
            bytes,
            _counted: crate::video::memory::FRAME_MEMORY.reserve(counted),
        })
    }

    /// The deinterlacer the pass was made for.
    pub fn filter(&self) -> Deinterlacer {
        self.filter
    }

    fn kept_of(&self, id: u64) -> &wgpu::Buffer {
        &self.kept[(id % KEPT as u64) as usize]
    }

    /// Records keeping frame `id`'s planes, uploaded into `slot`, for the fields made from it
    /// (the buffer of the frame three before it is reused).
    pub fn encode_keep(&self, encoder: &mut wgpu::CommandEncoder, slot: &PlaneTextures, id: u64) {
        slot.encode_copy_out(encoder, self.kept_of(id), &self.planes);
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
        queue.write_buffer(self.kept_of(id), 0, &bytes);
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
            encoder.copy_buffer_to_buffer(self.kept_of(output.cur), 0, &self.made, 0, self.bytes);
            return;
        };
        let which = |id: u64| (id % KEPT as u64) as usize;
        let group = 9 * which(output.prev) + 3 * which(output.cur) + which(output.next);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("deinterlace"),
            timestamp_writes: writes,
        });
        pass.set_pipeline(&self.pipeline);
        let offset = u64::from(variant(job)) * VARIANT_STRIDE;
        pass.set_bind_group(0, &self.bind_groups[group], &[offset as u32]);
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
