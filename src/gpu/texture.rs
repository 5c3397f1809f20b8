//! Frames on the GPU: each picture is held twice, as a texture the picture pass samples and as
//! packed words (one u32 per pixel: RGBA8, or RGB10A2 for 10-bit frames) the histogram's chunk
//! pass reads with wide loads.

use super::{GpuContext, GpuError};

/// One picture (a still image, or a converted video frame) on the GPU.
pub struct GpuFrame {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    /// The same pixels, packed, rounded up to whole vec4u (4 pixels).
    pub pixels: wgpu::Buffer,
    pub width: u32,
    pub height: u32,
    /// Bits per channel: 8 or 10.
    pub bits: u32,
}

impl GpuFrame {
    /// The texture format of 8-bit frames (and of offscreen render targets).
    pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

    /// The texture format of `bits`-bit frames. 10-bit frames are held as half floats, which
    /// keep every code value k/1023 within a quarter of a code and, unlike RGB10A2, are a
    /// storage format on every adapter.
    pub fn texture_format(bits: u32) -> wgpu::TextureFormat {
        if bits > 8 {
            wgpu::TextureFormat::Rgba16Float
        } else {
            Self::FORMAT
        }
    }

    /// The WGSL name of `texture_format(bits)`.
    pub fn storage_format_name(bits: u32) -> &'static str {
        if bits > 8 {
            "rgba16float"
        } else {
            "rgba8unorm"
        }
    }

    /// An empty 8-bit frame. STORAGE_BINDING lets the video converter write it on the GPU.
    pub fn new(ctx: &GpuContext, label: &str, width: u32, height: u32) -> Result<Self, GpuError> {
        Self::with_bits(ctx, label, width, height, 8)
    }

    /// An empty frame of `bits` (8 or 10) bits per channel.
    pub fn with_bits(ctx: &GpuContext, label: &str, width: u32, height: u32, bits: u32) -> Result<Self, GpuError> {
        ctx.check_frame_size(width, height)?;
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: Self::texture_format(bits),
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let pixels = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: pixel_buffer_size(width, height),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Ok(Self {
            texture,
            view,
            pixels,
            width,
            height,
            bits,
        })
    }

    /// A frame filled from tightly packed RGBA8 pixels.
    pub fn from_rgba(ctx: &GpuContext, label: &str, width: u32, height: u32, rgba: &[u8]) -> Result<Self, GpuError> {
        let frame = Self::new(ctx, label, width, height)?;
        frame.write_rgba(&ctx.queue, rgba);
        Ok(frame)
    }

    /// Fills an 8-bit frame.
    pub fn write_rgba(&self, queue: &wgpu::Queue, rgba: &[u8]) {
        debug_assert_eq!(self.bits, 8);
        queue.write_buffer(&self.pixels, 0, rgba);
        queue.write_texture(
            self.texture.as_image_copy(),
            rgba,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * self.width),
                rows_per_image: Some(self.height),
            },
            self.texture.size(),
        );
    }

    pub fn pixel_count(&self) -> u32 {
        self.width * self.height
    }
}

/// Bytes of a packed pixel buffer: whole vec4u, at least one.
pub fn pixel_buffer_size(width: u32, height: u32) -> u64 {
    (u64::from(width) * u64::from(height)).div_ceil(4).max(1) * 16
}
