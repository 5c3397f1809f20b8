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
