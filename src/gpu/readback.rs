//! Copies GPU results to the CPU for the headless commands and tests. Never on the display path:
//! these block until the GPU is done.

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

/// Reads a whole rgba8 texture as tightly packed rows.
pub fn read_texture_rgba(ctx: &GpuContext, texture: &wgpu::Texture) -> Result<Vec<u8>, GpuError> {
    let (width, height) = (texture.width(), texture.height());
    let row = 4 * width;
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
