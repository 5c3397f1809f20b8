//! The memory a frame's planes cross on their way into the ring's textures: the CPU writes the
//! rows into a staging buffer, and the GPU copies them from there into the plane textures.

use super::{encode_plane_copies, plane_rows, PlaneRows};
use super::{ConvertError, FrameFormat, PlaneData};
use crate::gpu::host_buffer::HostBuffer;
use crate::gpu::mapping::{MapState, Mapping, MAP_SETTLE};
use crate::video::stages;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Memory the CPU writes a frame's rows into and the GPU copies the plane textures from, made
/// once, so uploads allocate nothing (a `write_texture` makes a staging buffer per plane per
/// call). A ring's slots share them, used in turn (one per slot up to 4K, `STAGING_BUFFERS` or
/// one for larger frames: see `FrameRing::new`), so that the mapped memory stays bounded for
/// the largest frames. Counted as frame memory.
///
/// The buffers are wgpu's own, mapped again after each copy: on a discrete GPU with resizable
/// BAR, its memory, which the CPU's writes cross the bus into. `in_host_memory` makes them the
/// machine's memory instead, mapped for good (`HostBuffer`), the GPU's copy taking them across
/// the bus. `bench --only upload` times both: on the H200 the machine's memory was no faster
/// at 1080p and half as fast at 4K (docs/performance.md), so the ring keeps wgpu's.
pub struct UploadStaging {
    buffers: Vec<Mutex<Staging>>,
    next: AtomicUsize,
    /// Where each plane's rows go in a buffer.
    planes: Vec<PlaneRows>,
    /// A buffer's bytes: what the GPU copies from memory for each frame.
    bytes: u64,
    _counted: crate::video::memory::Reservation,
}

/// Staging buffers a ring's slots share.
pub const STAGING_BUFFERS: usize = 2;

struct Staging {
    memory: Memory,
    /// The submission that copied from the buffer last: the buffer is written again after it.
    copied_in: Option<wgpu::SubmissionIndex>,
}

enum Memory {
    /// The machine's memory, mapped for good; `copied` is set once the GPU's last copy from it
    /// is done.
    Host {
        buffer: HostBuffer,
        copied: Arc<AtomicBool>,
    },
    /// wgpu's buffer, and its mapping for the next frame's rows.
    Mapped { buffer: wgpu::Buffer, mapping: Mapping },
}

impl UploadStaging {
    /// The bytes of one staging buffer for `format`'s frames.
    pub fn frame_bytes(format: &FrameFormat) -> u64 {
        plane_rows(format).1
    }

    /// `count` staging buffers for frames of `format`, wgpu's own.
    pub fn new(
        device: &wgpu::Device,
        label: &str,
        format: &FrameFormat,
        count: usize,
    ) -> Result<Arc<Self>, ConvertError> {
        Self::make(device, label, format, count, false)
    }

    /// `new`'s buffers in the machine's memory, mapped for good, where the GPU is driven
    /// through Vulkan (else wgpu's). The benchmarks time both ways of writing a frame.
    pub fn in_host_memory(
        device: &wgpu::Device,
        label: &str,
        format: &FrameFormat,
        count: usize,
    ) -> Result<Arc<Self>, ConvertError> {
        Self::make(device, label, format, count, true)
    }

    fn make(
        device: &wgpu::Device,
        label: &str,
        format: &FrameFormat,
        count: usize,
        host: bool,
    ) -> Result<Arc<Self>, ConvertError> {
        super::check_format(format)?;
        let (planes, size) = plane_rows(format);
        let buffers = (0..count.max(1))
            .map(|i| {
                let label = format!("{label} staging {i}");
                let host = match host {
                    true => HostBuffer::new(device, &label, size),
                    false => Err("asked for".into()),
                };
                let memory = match host {
                    Ok(buffer) => Memory::Host {
                        buffer,
                        copied: Arc::new(AtomicBool::new(true)),
                    },
                    Err(why) => {
                        log::debug!("{label}: in wgpu's mapped memory ({why})");
                        Memory::Mapped {
                            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                                label: Some(&label),
                                size,
                                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                                mapped_at_creation: true,
                            }),
                            mapping: Mapping::mapped(),
                        }
                    }
                };
                Mutex::new(Staging {
                    memory,
                    copied_in: None,
                })
            })
            .collect::<Vec<_>>();
        let bytes = usize::try_from(size)
            .unwrap_or(usize::MAX)
            .saturating_mul(buffers.len());
        Ok(Arc::new(Self {
            buffers,
            next: Default::default(),
            planes,
            bytes: size,
            _counted: crate::video::memory::FRAME_MEMORY.reserve(bytes),
        }))
    }

    /// A buffer's bytes: what the GPU copies from memory for each frame.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether the buffers are the machine's memory, mapped for good.
    pub fn is_host_memory(&self) -> bool {
        self.buffers
            .iter()
            .all(|b| matches!(b.lock().unwrap_or_else(|e| e.into_inner()).memory, Memory::Host { .. }))
    }

    /// Writes `planes`' rows into the next buffer (any stride in, the copy's pitch out) and
    /// queues copying them into `textures` in a submission of its own. Waits only if that
    /// buffer's previous copy has not finished.
    pub fn upload<'a>(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        planes: &[PlaneData],
        textures: impl Iterator<Item = &'a wgpu::Texture>,
    ) -> Result<(), ConvertError> {
        let turn = self.next.fetch_add(1, Ordering::Relaxed) % self.buffers.len();
        let mut staging = self.buffers[turn].lock().unwrap_or_else(|e| e.into_inner());
        stages::STAGING_WAIT.time(|| staging.wait_writable(device))?;
        let rows_start = std::time::Instant::now();
        match &mut staging.memory {
            Memory::Host { buffer, .. } => {
                let memory = buffer.bytes_mut();
                write_rows(
                    |at, row| memory[at..at + row.len()].copy_from_slice(row),
                    planes,
                    &self.planes,
                );
            }
            Memory::Mapped { buffer, .. } => {
                let mut memory = buffer
                    .slice(..)
                    .get_mapped_range_mut()
                    .map_err(|e| ConvertError::Staging(e.to_string()))?;
                write_rows(
                    |at, row| memory.slice(at..at + row.len()).copy_from_slice(row),
                    planes,
                    &self.planes,
                );
                drop(memory);
                buffer.unmap();
            }
        }
        stages::ROWS.add(rows_start.elapsed());
        let copy_start = std::time::Instant::now();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("upload") });
        let source = match &staging.memory {
            Memory::Host { buffer, .. } => &buffer.buffer,
            Memory::Mapped { buffer, .. } => buffer,
        };
        encode_plane_copies(&mut encoder, source, 0, &self.planes, textures);
        staging.copied_in = Some(queue.submit([encoder.finish()]));
        match &mut staging.memory {
            Memory::Host { copied, .. } => {
                copied.store(false, Ordering::Release);
                let copied = copied.clone();
                queue.on_submitted_work_done(move || copied.store(true, Ordering::Release));
            }
            Memory::Mapped { buffer, mapping } => *mapping = Mapping::write(buffer),
        }
        stages::COPY_QUEUED.add(copy_start.elapsed());
        Ok(())
    }
}

/// Each plane's rows put (`put(at, bytes)`) where `rows` lays them out.
fn write_rows(mut put: impl FnMut(usize, &[u8]), planes: &[PlaneData], rows: &[PlaneRows]) {
    for (plane, rows) in planes.iter().zip(rows) {
        let row_bytes = rows.row_bytes;
        let (offset, pitch, rows) = (rows.offset as usize, rows.pitch as usize, rows.rows);
        if plane.stride == pitch {
            // Decoders often pad rows to the same pitch: the plane in one copy.
            put(offset, &plane.data[..pitch * (rows - 1) + row_bytes]);
        } else {
            for row in 0..rows {
                let from = row * plane.stride;
                put(offset + row * pitch, &plane.data[from..from + row_bytes]);
            }
        }
    }
}

impl Staging {
    /// Waits until the GPU's last copy from the buffer is done (and, for wgpu's buffer, the
    /// buffer is mapped again).
    fn wait_writable(&self, device: &wgpu::Device) -> Result<(), ConvertError> {
        let waiting = match &self.memory {
            Memory::Host { copied, .. } => !copied.load(Ordering::Acquire),
            Memory::Mapped { mapping, .. } => mapping.state() == MapState::Mapping,
        };
        let waited = match waiting {
            true => device.poll(wgpu::PollType::Wait {
                submission_index: self.copied_in.clone(),
                timeout: Some(MAP_SETTLE),
            }),
            false => Ok(wgpu::PollStatus::QueueEmpty),
        };
        let unfinished = || ConvertError::Staging("the GPU did not finish the previous upload".into());
        match &self.memory {
            Memory::Host { .. } => match waited {
                Ok(status) if status.wait_finished() => Ok(()),
                _ => Err(unfinished()),
            },
            Memory::Mapped { mapping, .. } => match mapping.settled(MAP_SETTLE) {
                MapState::Mapped => Ok(()),
                MapState::Failed => Err(ConvertError::Staging("mapping the upload buffer failed".into())),
                MapState::Mapping => Err(unfinished()),
            },
        }
    }
}
