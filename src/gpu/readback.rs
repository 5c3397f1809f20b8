//! Copies GPU results to the CPU for the headless commands and tests. Never on the display path:
//! these block until the GPU is done.

use super::mapping::{MapState, Mapping, MAP_SETTLE};
use super::{GpuContext, GpuError};

/// Reads `size` bytes of `buffer` from `offset` (both multiples of 4).
pub fn read_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>, GpuError> {
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback staging"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("readback"),
    });
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    ctx.queue.submit([encoder.finish()]);
    map_and_copy(ctx, &staging)
}

/// Reads a whole texture (rgba8, or rgba16float for 10-bit frames) as tightly packed rows.
pub fn read_texture(ctx: &GpuContext, texture: &wgpu::Texture) -> Result<Vec<u8>, GpuError> {
    let (width, height) = (texture.width(), texture.height());
    let texel = texture.format().block_copy_size(None).unwrap_or(4);
    let row = texel * width;
    let padded_row = row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texture readback staging"),
        size: u64::from(padded_row) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("texture readback"),
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    ctx.queue.submit([encoder.finish()]);
    let padded = map_and_copy(ctx, &staging)?;
    let mut rgba = Vec::with_capacity((row * height) as usize);
    for y in 0..height as usize {
        let start = y * padded_row as usize;
        rgba.extend_from_slice(&padded[start..start + row as usize]);
    }
    Ok(rgba)
}

/// Maps a MAP_READ buffer, waits for it and copies its contents out.
pub fn map_and_copy(ctx: &GpuContext, staging: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    staging.slice(..).map_async(wgpu::MapMode::Read, move |result| {
        let _ = sender.send(result);
    });
    ctx.wait_idle()?;
    receiver
        .recv()
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}

/// Little-endian u32 words of a byte buffer.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// A few MAP_READ buffers used in turn, so streaming results back (one histogram per frame)
/// never waits on the frame just submitted: frame n is read while frames n+1.. are in flight.
pub struct ReadbackRing<T> {
    buffers: Vec<wgpu::Buffer>,
    /// (buffer, what it holds, set once mapped), oldest first.
    pending: std::collections::VecDeque<(usize, T, Mapping)>,
    next: usize,
}

impl<T> ReadbackRing<T> {
    pub fn new(device: &wgpu::Device, size: u64, count: usize) -> Self {
        let buffers = (0..count)
            .map(|i| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("readback ring {i}")),
                    size,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
            .collect();
        Self {
            buffers,
            pending: Default::default(),
            next: 0,
        }
    }

    /// The buffer the next copy goes to. Call `read_oldest` first while `is_full`.
    pub fn next_buffer(&self) -> &wgpu::Buffer {
        &self.buffers[self.next]
    }

    pub fn is_full(&self) -> bool {
        self.pending.len() == self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// After submitting the copy into `next_buffer`: starts mapping it.
    pub fn submitted(&mut self, tag: T) {
        let mapping = Mapping::read(&self.buffers[self.next]);
        self.pending.push_back((self.next, tag, mapping));
        self.next = (self.next + 1) % self.buffers.len();
    }

    /// Waits for the oldest pending buffer, hands its bytes and tag to `read`, unmaps it.
    pub fn read_oldest<R>(
        &mut self,
        ctx: &GpuContext,
        read: impl FnOnce(&[u8], T) -> R,
    ) -> Result<Option<R>, GpuError> {
        let Some((index, tag, mapped)) = self.pending.pop_front() else {
            return Ok(None);
        };
        if mapped.state() == MapState::Mapping {
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| GpuError::Readback(e.to_string()))?;
        }
        // Any error the GPU reported since (a rejected write, say) spoils the result.
        ctx.check()?;
        if mapped.settled(MAP_SETTLE) != MapState::Mapped {
            return Err(GpuError::Readback("mapping a readback buffer failed".into()));
        }
        let buffer = &self.buffers[index];
        let result = {
            let view = buffer
                .get_mapped_range(..)
                .map_err(|e| GpuError::Readback(e.to_string()))?;
            read(&view, tag)
        };
        buffer.unmap();
        Ok(Some(result))
    }
}
