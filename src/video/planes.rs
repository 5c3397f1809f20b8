//! A frame's planes on the GPU: the texture each plane is held in, and where each plane's rows
//! go in a buffer of whole frames (staging memory, the GPU frame cache) and how they are copied
//! into the textures. Below the conversion and the GPU frame cache, which both lay planes out so.

use super::format::{FrameFormat, PlaneLayout};

/// Where one plane's rows go in a buffer of a frame's planes (staging memory, the GPU frame
/// cache): rows `pitch` apart (a multiple of 256 bytes, as copies into textures need) from
/// `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneRows {
    pub offset: u64,
    pub pitch: u32,
    pub row_bytes: usize,
    pub rows: usize,
    pub extent: wgpu::Extent3d,
}

/// Each plane's rows in a buffer holding a frame of `format`, and the buffer's size.
pub fn plane_rows(format: &FrameFormat) -> (Vec<PlaneRows>, u64) {
    let mut planes = Vec::new();
    let mut size = 0u64;
    for index in 0..format.layout.plane_count() {
        let shape = PlaneShape::of(format, index);
        let pitch = (shape.row_bytes() as u64).next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT));
        planes.push(PlaneRows {
            offset: size,
            pitch: pitch as u32,
            row_bytes: shape.row_bytes(),
            rows: shape.height as usize,
            extent: shape.extent(),
        });
        size += pitch * u64::from(shape.height);
    }
    (planes, size)
}

/// Records copying a frame's planes, laid out as `planes` from `base` in `buffer`, into
/// `textures` (one per plane).
pub fn encode_plane_copies<'a>(
    encoder: &mut wgpu::CommandEncoder,
    buffer: &wgpu::Buffer,
    base: u64,
    planes: &[PlaneRows],
    textures: impl IntoIterator<Item = &'a wgpu::Texture>,
) {
    for (plane, texture) in planes.iter().zip(textures) {
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: base + plane.offset,
                    bytes_per_row: Some(plane.pitch),
                    rows_per_image: None,
                },
            },
            texture.as_image_copy(),
            plane.extent,
        );
    }
}

/// How one plane is held on the GPU.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlaneShape {
    pub format: wgpu::TextureFormat,
    pub texel_bytes: usize,
    pub width: u32,
    pub height: u32,
}

impl PlaneShape {
    pub fn of(frame: &FrameFormat, index: usize) -> Self {
        use wgpu::TextureFormat::{R16Uint, R8Uint, Rg16Uint, Rg8Uint, Rgba8Uint};
        let layout = frame.layout;
        let (width, height) = layout.plane_size(index, frame.width, frame.height);
        let (format, texel_bytes, width) = match layout {
            PlaneLayout::Yuv { .. } | PlaneLayout::Gray { .. } | PlaneLayout::Gbr { .. } if layout.bits() > 8 => {
                (R16Uint, 2, width)
            }
            PlaneLayout::Yuv { .. } | PlaneLayout::Gray { .. } | PlaneLayout::Gbr { .. } => (R8Uint, 1, width),
            PlaneLayout::Nv12 if index == 1 => (Rg8Uint, 2, width),
            PlaneLayout::P010 if index == 1 => (Rg16Uint, 4, width),
            PlaneLayout::P010 => (R16Uint, 2, width),
            PlaneLayout::Nv12 => (R8Uint, 1, width),
            // Three R8 texels a pixel: no three-byte texel format exists.
            PlaneLayout::Rgb24 => (R8Uint, 1, 3 * width),
            PlaneLayout::Rgba | PlaneLayout::Bgra => (Rgba8Uint, 4, width),
        };
        Self {
            format,
            texel_bytes,
            width,
            height,
        }
    }

    pub fn row_bytes(&self) -> usize {
        self.texel_bytes * self.width as usize
    }

    pub fn extent(&self) -> wgpu::Extent3d {
        wgpu::Extent3d {
            width: self.width,
            height: self.height,
            depth_or_array_layers: 1,
        }
    }
}
