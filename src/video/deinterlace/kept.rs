//! The raw planes of the last three frames, kept on the GPU for the passes that read a frame
//! with its neighbours (deinterlacing, interlace detection): one buffer, each frame's planes
//! laid out as the upload's staging memory, frame `id` in section `id % 3`.

use crate::video::convert::PlaneTextures;
use crate::video::format::{FrameFormat, PlaneData};
use crate::video::planes::{plane_rows, PlaneRows};

/// Frames kept: the previous, the current and the next.
pub const KEPT: usize = 3;

pub struct KeptFrames {
    buffer: wgpu::Buffer,
    format: FrameFormat,
    planes: Vec<PlaneRows>,
    bytes: u64,
    _counted: crate::video::memory::Reservation,
}

impl KeptFrames {
    pub fn new(device: &wgpu::Device, format: &FrameFormat) -> Self {
        let (planes, bytes) = plane_rows(format);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frames kept"),
            size: bytes * KEPT as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let counted = usize::try_from(bytes * KEPT as u64).unwrap_or(usize::MAX);
        Self {
            buffer,
            format: *format,
            planes,
            bytes,
            _counted: crate::video::memory::FRAME_MEMORY.reserve(counted),
        }
    }

    /// The buffer holding the three frames, `frame_bytes` apart.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    pub fn format(&self) -> &FrameFormat {
        &self.format
    }

    /// Where each plane's rows are within a frame's section.
    pub fn planes(&self) -> &[PlaneRows] {
        &self.planes
    }

    /// Bytes of one frame's section.
    pub fn frame_bytes(&self) -> u64 {
        self.bytes
    }

    /// The section frame `id` is kept in.
    pub fn section(id: u64) -> usize {
        (id % KEPT as u64) as usize
    }

    /// Where frame `id`'s section starts, in bytes.
    pub fn at(&self, id: u64) -> u64 {
        Self::section(id) as u64 * self.bytes
    }

    /// Records keeping frame `id`'s planes, uploaded into `slot` (in the place of the frame
    /// three before it).
    pub fn encode_keep(&self, encoder: &mut wgpu::CommandEncoder, slot: &PlaneTextures, id: u64) {
        let at = self.at(id);
        let planes: Vec<PlaneRows> = self
            .planes
            .iter()
            .map(|p| PlaneRows {
                offset: at + p.offset,
                ..*p
            })
            .collect();
        slot.encode_copy_out(encoder, &self.buffer, &planes);
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
        queue.write_buffer(&self.buffer, self.at(id), &bytes);
    }
}

/// Bytes between a pass's uniform variants (a dynamic offset's alignment).
pub const VARIANT_STRIDE: u64 = 256;
/// The ways the three frames a pass reads can lie in the sections.
pub const COMBINATIONS: usize = KEPT * KEPT * KEPT;

/// Which combination of sections frames `prev`, `cur` and `next` lie in (0..`COMBINATIONS`).
pub fn combination(frames: [u64; 3]) -> usize {
    frames.into_iter().fold(0, |at, id| KEPT * at + KeptFrames::section(id))
}

/// The sections of combination `at`: previous, current, next.
pub fn sections(at: usize) -> [usize; 3] {
    [at / (KEPT * KEPT), at / KEPT % KEPT, at % KEPT]
}

/// A compute pass over the frames kept: one entry point reading them (binding 1), writing
/// `output` (binding 2), with a uniform (binding 0) of variants `VARIANT_STRIDE` apart, one
/// chosen for each dispatch by its dynamic offset. Made once for a stream.
pub struct KeptPass {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    _params: wgpu::Buffer,
    label: &'static str,
}

impl KeptPass {
    /// The pass of `entry` in WGSL `source` (trusted: its indices are in bounds by
    /// construction), its uniform `variants` (each `params_size` bytes read).
    pub fn new(
        device: &wgpu::Device,
        kept: &KeptFrames,
        (label, source, entry): (&'static str, String, &str),
        (variants, params_size): (&[u8], u64),
        output: &wgpu::Buffer,
    ) -> Self {
        use crate::gpu::shaders::{self, layout};
        use wgpu::util::DeviceExt;
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: variants,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let compute = wgpu::ShaderStages::COMPUTE;
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &[
                layout::uniform(0, compute, true),
                layout::storage(1, compute, true),
                layout::storage(2, compute, false),
            ],
        });
        let module = shaders::trusted_module(device, label, source);
        let pipeline = shaders::compute_pipeline(device, label, &module, entry, &bind_layout);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &bind_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &params,
                        offset: 0,
                        size: wgpu::BufferSize::new(params_size),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: kept.buffer().as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: output.as_entire_binding(),
                },
            ],
        });
        Self {
            pipeline,
            bind_group,
            _params: params,
            label,
        }
    }

    /// Records a dispatch of `workgroups` with uniform variant `variant`, timed by `writes`.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        variant: u64,
        [x, y, z]: [u32; 3],
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.label),
            timestamp_writes: writes,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[(variant * VARIANT_STRIDE) as u32]);
        pass.dispatch_workgroups(x, y, z);
    }
}
