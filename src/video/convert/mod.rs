//! Colour conversion, the last step of video in: a decoded frame's planes, uploaded into GPU
//! textures, become the R'G'B' picture that the histogram counts and the screen shows, at 8 bits
//! per channel for 8-bit sources (packed RGBA8) and at 10 for deeper ones (packed RGB10A2). The
//! arithmetic is fixed point in i32, and `convert_cpu` is its line-for-line twin, equal bit for bit.
//!
//! Deeper sources are reduced to 10 bits by rounding to nearest: 12-bit Y'CbCr through the
//! matrix, which lands on 10-bit codes directly, 12-bit R'G'B' as ⌊(c + 2) / 4⌋, at most 1023.

mod cpu;
mod gpu;
mod staging;
#[cfg(test)]
mod tests;

pub use cpu::convert_cpu;
pub use gpu::{ConvertBinding, ConvertPass, PlaneTextures};
pub use staging::{UploadStaging, STAGING_BUFFERS};

use super::format::{FrameFormat, PlaneData, PlaneLayout};
use super::planes::PlaneShape;
use super::planes::{encode_plane_copies, plane_rows, PlaneRows};
use crate::colour::ycbcr::{code_range, matrix};
use crate::colour::Range;
use thiserror::Error;

/// Sums are in 2^-FRAC_BITS of an 8-bit output code (twin of FRAC_BITS in
/// shaders/video/convert.wgsl): coefficients are exact to about 1e-6 of a code and the largest
/// sum stays under 2^30. Each output bit beyond 8 takes one bit from the fraction, so that the
/// bound holds at 10 bits too (see `frac_bits`).
pub const FRAC_BITS: u32 = 20;

/// The fraction bits of sums for `out_bits`-bit output codes.
pub const fn frac_bits(out_bits: u32) -> u32 {
    FRAC_BITS + 8 - out_bits
}
/// Samples enter the matrix in eighths of a code, because the chroma filter's weights total 8.
const SAMPLE_EIGHTHS: i32 = 8;
/// The `@workgroup_size` of every entry point in shaders/video/convert.wgsl.
const WORKGROUP: [u32; 2] = [32, 4];

#[derive(Debug, Error)]
pub enum ConvertError {
    #[error("{0:?} frames are not supported (8- to 12-bit samples, 16 for grey, chroma halved at most)")]
    Unsupported(PlaneLayout),
    #[error("a {width}x{height} frame has no pixels")]
    Empty { width: u32, height: u32 },
    #[error("plane {plane} is {width}x{height} texels, more than this GPU's largest texture side ({max})")]
    TooLarge {
        plane: usize,
        width: u32,
        height: u32,
        max: u32,
    },
    #[error("{layout:?} frames have {expected} planes, got {got}")]
    MissingPlanes {
        layout: PlaneLayout,
        expected: usize,
        got: usize,
    },
    #[error("plane {plane}: a stride of {stride} bytes does not fit its rows of {row_bytes} bytes")]
    BadStride {
        plane: usize,
        stride: usize,
        row_bytes: usize,
    },
    #[error("plane {plane} has {got} bytes, needs {needed}")]
    PlaneTooShort { plane: usize, got: usize, needed: usize },
    #[error("uploading a frame: {0}")]
    Staging(String),
    #[error("{from}-bit frames cannot be converted into a {to}-bit picture")]
    DepthMismatch { from: u32, to: u32 },
    #[error("a {from_width}x{from_height} frame cannot be converted into a {to_width}x{to_height} picture")]
    SizeMismatch {
        from_width: u32,
        from_height: u32,
        to_width: u32,
        to_height: u32,
    },
}

/// Twin of `Row` in shaders/video/convert.wgsl: one output channel as a weighted sum of Y, Cb and Cr,
/// each in eighths of a code, plus a bias, all in 2^-FRAC_BITS of an output code.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Row {
    pub y: i32,
    pub cb: i32,
    pub cr: i32,
    pub bias: i32,
}

/// Twin of `GreyMap` in shaders/video/convert.wgsl: how a grey sample `v` becomes an output
/// code, exactly as swscale turns grey into R'G'B' (so a grey frame counts as FFmpeg's own
/// conversion of it does): `clamp((((v >> pre_shift) − offset) · scale + half) >> shift, 0,
/// white)`, where half is half of the last shift's unit.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GreyMap {
    pub pre_shift: u32,
    pub offset: i32,
    pub scale: i32,
    pub shift: u32,
}

impl GreyMap {
    /// swscale's grey → R'G'B' for `bits`-bit samples and `out_bits`-bit codes. Full range
    /// shifts: up with zeros below (9-bit 511 is 1022), down rounding half up (16-bit v is
    /// ⌊(v + 32) / 64⌋, at most 1023). Limited range expands by 9539/8192 (its fixed-point
    /// 255/219, so 8-bit limited grey lands exactly on round((v − 16)·255/219)); at 10 bits
    /// that puts limited white (940) at 1020, as FFmpeg does, and 16-bit samples lose their
    /// lowest bit first.
    pub fn swscale(bits: u32, out_bits: u32, range: Range) -> Self {
        match range {
            Range::Full if out_bits >= bits => Self {
                pre_shift: 0,
                offset: 0,
                scale: 1 << (out_bits - bits),
                shift: 0,
            },
            Range::Full => Self {
                pre_shift: 0,
                offset: 0,
                scale: 1,
                shift: bits - out_bits,
            },
            Range::Limited => {
                let pre_shift = u32::from(bits == 16 && out_bits <= 14);
                let bits = bits - pre_shift;
                Self {
                    pre_shift,
                    offset: 16 << (bits - 8),
                    scale: 9539,
                    shift: 13 + bits - out_bits,
                }
            }
        }
    }
}

/// Twin of `ConvertParams` in shaders/video/convert.wgsl; constant for a stream, so made in `bind`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ConvertParams {
    pub r: Row,
    pub g: Row,
    pub b: Row,
    /// Grey's one sample to a code (unused by the other layouts).
    pub grey: GreyMap,
    pub width: u32,
    pub height: u32,
    pub chroma_width: u32,
    pub chroma_height: u32,
    pub chroma_shift_x: u32,
    pub chroma_shift_y: u32,
    /// The bits of a texel that hold the sample: 2^bits − 1, or P010's top 10 of 16.
    pub sample_mask: u32,
    /// Bits per output channel: 8 (packed RGBA8) or 10 (packed RGB10A2).
    pub out_bits: u32,
}

impl ConvertParams {
    pub fn new(format: &FrameFormat) -> Result<Self, ConvertError> {
        check_format(format)?;
        let layout = format.layout;
        let bits = layout.bits();
        let out_bits = layout.output_bits();
        let [r, g, b] = match layout {
            PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010 => {
                fixed_rows(matrix(format.color, bits, out_bits), format.color.range, bits, out_bits)
            }
            // Copied through (R'G'B' deeper than 10 bits is rounded), or grey by its own map:
            // the rows are unused.
            PlaneLayout::Gray { .. }
            | PlaneLayout::Gbr { .. }
            | PlaneLayout::Rgb24
            | PlaneLayout::Rgba
            | PlaneLayout::Bgra => [Row::default(); 3],
        };
        let grey = match layout {
            PlaneLayout::Gray { .. } => GreyMap::swscale(bits, out_bits, format.color.range),
            _ => GreyMap::default(),
        };
        let (chroma_shift_x, chroma_shift_y) = match layout {
            PlaneLayout::Yuv {
                chroma_shift_x,
                chroma_shift_y,
                ..
            } => (chroma_shift_x, chroma_shift_y),
            PlaneLayout::Nv12 | PlaneLayout::P010 => (1, 1),
            _ => (0, 0),
        };
        let chroma = if layout.plane_count() > 1 { 1 } else { 0 };
        let (chroma_width, chroma_height) = layout.plane_size(chroma, format.width, format.height);
        Ok(Self {
            r,
            g,
            b,
            grey,
            width: format.width,
            height: format.height,
            chroma_width,
            chroma_height,
            chroma_shift_x,
            chroma_shift_y,
            // P010 keeps its 10 bits at the top of 16.
            sample_mask: if layout == PlaneLayout::P010 {
                0xffc0
            } else {
                (1 << bits) - 1
            },
            out_bits,
        })
    }
}

/// The matrix per eighth of a code, scaled by 2^frac_bits; the offsets and half an output code
/// (to round to nearest) are folded into the bias, leaving the shader three multiplies a channel.
fn fixed_rows(matrix: [[f64; 3]; 3], range: Range, bits: u32, out_bits: u32) -> [Row; 3] {
    let codes = code_range(range, bits);
    let frac = frac_bits(out_bits);
    let fixed = |k: f64| (k * f64::from(1 << frac) / f64::from(SAMPLE_EIGHTHS)).round() as i32;
    matrix.map(|[y, cb, cr]| {
        let (y, cb, cr) = (fixed(y), fixed(cb), fixed(cr));
        // From the rounded coefficients, so that black with zero chroma sums to exactly 0.
        let offsets = SAMPLE_EIGHTHS * (y * codes.black + (cb + cr) * codes.chroma_zero);
        Row {
            y,
            cb,
            cr,
            bias: (1 << (frac - 1)) - offsets,
        }
    })
}

/// Fails on what the shader cannot take: other bit depths, chroma quartered, empty frames.
fn check_format(format: &FrameFormat) -> Result<(), ConvertError> {
    let supported = match format.layout {
        PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            bits,
        } => chroma_shift_x <= 1 && chroma_shift_y <= 1 && (8..=12).contains(&bits),
        PlaneLayout::Gray { bits } => (8..=16).contains(&bits),
        PlaneLayout::Gbr { bits } => (8..=12).contains(&bits),
        PlaneLayout::Nv12 | PlaneLayout::P010 | PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra => true,
    };
    if !supported {
        return Err(ConvertError::Unsupported(format.layout));
    }
    if format.width == 0 || format.height == 0 {
        return Err(ConvertError::Empty {
            width: format.width,
            height: format.height,
        });
    }
    Ok(())
}

/// Checks that `planes` hold a whole frame of `format` (the last row needs no padding), so that
/// neither the upload nor the CPU twin reads past them.
pub fn check_planes(format: &FrameFormat, planes: &[PlaneData]) -> Result<(), ConvertError> {
    check_format(format)?;
    let expected = format.layout.plane_count();
    if planes.len() < expected {
        return Err(ConvertError::MissingPlanes {
            layout: format.layout,
            expected,
            got: planes.len(),
        });
    }
    for (index, plane) in planes.iter().take(expected).enumerate() {
        let shape = PlaneShape::of(format, index);
        let row_bytes = shape.row_bytes();
        if plane.stride < row_bytes || u32::try_from(plane.stride).is_err() {
            return Err(ConvertError::BadStride {
                plane: index,
                stride: plane.stride,
                row_bytes,
            });
        }
        let needed = plane.stride * (shape.height as usize - 1) + row_bytes;
        if plane.data.len() < needed {
            return Err(ConvertError::PlaneTooShort {
                plane: index,
                got: plane.data.len(),
                needed,
            });
        }
    }
    Ok(())
}
