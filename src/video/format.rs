//! What a decoded frame looks like: its plane layout, its colour matrix and range, and where
//! each of its Y'CbCr components lies. Shared by the decoder (which reads them from FFmpeg), the
//! converter (which turns planes into RGB), and what reads the decoded samples themselves (the
//! comparison's metrics, the range mark).

use crate::colour::ColorSpec;

/// How a frame's planes are laid out in memory and uploaded to the GPU, one texture per plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneLayout {
    /// Planar Y, U, V; chroma is subsampled by 2^chroma_shift_x across and 2^chroma_shift_y down
    /// (420: 1, 1; 422: 1, 0; 444: 0, 0). Samples of `bits` (8 to 12) take 1 or 2 bytes
    /// (little-endian, low bits used).
    Yuv {
        chroma_shift_x: u32,
        chroma_shift_y: u32,
        bits: u32,
    },
    /// Y plane, then one plane of interleaved U, V samples at 4:2:0 (nv12).
    Nv12,
    /// NV12's planes with 16-bit samples whose top 10 bits hold the value (p010le): what
    /// hardware decoders give for 10-bit video.
    P010,
    /// One luma plane of 8 to 16 bits (gray, gray9le ... gray16le; grey with alpha arrives
    /// without it).
    Gray { bits: u32 },
    /// Planar G, B, R (gbrp, gbrp10le, gbrp12le), samples as in `Yuv`.
    Gbr { bits: u32 },
    /// Packed R, G, B bytes.
    Rgb24,
    /// Packed R, G, B, A bytes.
    Rgba,
    /// Packed B, G, R, A bytes.
    Bgra,
}

/// How a layout reads in messages: "Y'CbCr 4:2:0, 10 bits", "NV12 (Y'CbCr 4:2:0, 8 bits)".
impl std::fmt::Display for PlaneLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            PlaneLayout::Yuv {
                chroma_shift_x,
                chroma_shift_y,
                bits,
            } => {
                let sampling = match (chroma_shift_x, chroma_shift_y) {
                    (0, 0) => "4:4:4",
                    (1, 0) => "4:2:2",
                    (1, 1) => "4:2:0",
                    (2, 0) => "4:1:1",
                    (1, 2) => "4:1:0",
                    _ => "subsampled",
                };
                write!(f, "Y'CbCr {sampling}, {bits} bits")
            }
            PlaneLayout::Nv12 => write!(f, "NV12 (Y'CbCr 4:2:0, 8 bits)"),
            PlaneLayout::P010 => write!(f, "P010 (Y'CbCr 4:2:0, 10 bits)"),
            PlaneLayout::Gray { bits } => write!(f, "grey, {bits} bits"),
            PlaneLayout::Gbr { bits } => write!(f, "planar RGB, {bits} bits"),
            PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra => write!(f, "packed RGB, 8 bits"),
        }
    }
}

impl PlaneLayout {
    /// Number of planes (textures) of the layout.
    pub fn plane_count(self) -> usize {
        match self {
            PlaneLayout::Yuv { .. } | PlaneLayout::Gbr { .. } => 3,
            PlaneLayout::Nv12 | PlaneLayout::P010 => 2,
            _ => 1,
        }
    }

    /// Whether the samples are Y'CbCr (converted with a matrix) rather than R'G'B'.
    pub fn is_yuv(self) -> bool {
        matches!(
            self,
            PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010 | PlaneLayout::Gray { .. }
        )
    }

    /// Bits per sample (8 to 12; grey up to 16).
    pub fn bits(self) -> u32 {
        match self {
            PlaneLayout::Yuv { bits, .. } | PlaneLayout::Gray { bits } | PlaneLayout::Gbr { bits } => bits,
            PlaneLayout::P010 => 10,
            _ => 8,
        }
    }

    /// Bits per channel of the converted picture: 8 for 8-bit sources, 10 for deeper ones
    /// (deeper samples are reduced to 10 bits, rounded to nearest).
    pub fn output_bits(self) -> u32 {
        if self.bits() > 8 {
            10
        } else {
            8
        }
    }

    /// Width and height of plane `index` for a frame of `width` x `height`, in samples
    /// (an Nv12 UV plane counts U, V pairs; packed RGB planes count pixels).
    pub fn plane_size(self, index: usize, width: u32, height: u32) -> (u32, u32) {
        match (self, index) {
            (
                PlaneLayout::Yuv {
                    chroma_shift_x,
                    chroma_shift_y,
                    ..
                },
                1 | 2,
            ) => (
                width.div_ceil(1 << chroma_shift_x),
                height.div_ceil(1 << chroma_shift_y),
            ),
            (PlaneLayout::Nv12 | PlaneLayout::P010, 1) => (width.div_ceil(2), height.div_ceil(2)),
            _ => (width, height),
        }
    }
}

/// The peak light an HDR stream's frames give in their own side data (HEVC and AV1 carry the
/// content light level and mastering display in the bitstream, where the container may not),
/// once the decode thread has seen one; shared with whoever shows the frames.
#[derive(Clone, Debug, Default)]
pub struct FrameLight(std::sync::Arc<std::sync::atomic::AtomicU32>);

impl FrameLight {
    /// The peak in nits, if a frame gave one.
    pub fn get(&self) -> Option<f32> {
        let bits = self.0.load(std::sync::atomic::Ordering::Relaxed);
        (bits != 0).then(|| f32::from_bits(bits))
    }

    pub fn note(&self, nits: f32) {
        if nits > 0.0 && nits.is_finite() {
            self.0.store(nits.to_bits(), std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Everything the converter needs to know about a stream's frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameFormat {
    pub layout: PlaneLayout,
    pub width: u32,
    pub height: u32,
    pub color: ColorSpec,
}

/// One plane of a decoded frame in CPU memory: `stride` bytes per row, at least
/// `plane_size(..).1` rows.
#[derive(Clone, Copy, Debug)]
pub struct PlaneData<'a> {
    pub data: &'a [u8],
    pub stride: usize,
}

/// One component's samples: a plane, or one of the two interleaved in NV12's and P010's
/// second plane.
#[derive(Clone, Copy, Debug)]
pub struct Component<'a> {
    data: &'a [u8],
    stride: usize,
    pub width: usize,
    pub height: usize,
    /// Bytes per sample (1 or 2, little-endian).
    bytes: usize,
    /// Samples from one of this component's to the next along a row (2 where interleaved), and
    /// where the first one is.
    step: usize,
    offset: usize,
    /// Bits below the value (P010 keeps its 10 bits at the top of 16).
    shift: u32,
}

impl<'a> Component<'a> {
    /// A plane of its own of `like`'s size and depth: a frame's alpha plane beside its first
    /// colour component (yuva420p's beside Y, gbrap's beside R).
    pub fn plane_like(plane: PlaneData<'a>, like: &Component) -> Self {
        Self {
            data: plane.data,
            stride: plane.stride,
            width: like.width,
            height: like.height,
            bytes: like.bytes,
            step: 1,
            offset: 0,
            shift: 0,
        }
    }

    pub(crate) fn sample(&self, x: usize, y: usize) -> u32 {
        let at = y * self.stride + (x * self.step + self.offset) * self.bytes;
        let raw = if self.bytes == 1 {
            u32::from(self.data[at])
        } else {
            u32::from(u16::from_le_bytes([self.data[at], self.data[at + 1]]))
        };
        raw >> self.shift
    }
}

/// Where one component of a frame lies: its plane, its samples' place among the plane's
/// interleaved ones (`step` apart from `offset`: NV12's U and V are 2 apart, from 0 and 1),
/// and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub plane: usize,
    pub step: usize,
    pub offset: usize,
    pub width: usize,
    pub height: usize,
}

/// The components of frames of `format` the comparison's metrics are taken of, in the order
/// FFmpeg's filters print them (Y, U, V; grey's one; planar R'G'B''s R, G, B), with their
/// depth; None for packed R'G'B' (FFmpeg's filters take it planar).
pub fn places(format: &FrameFormat) -> Option<(Vec<Place>, u32)> {
    let (w, h) = (format.width as usize, format.height as usize);
    let place = |plane, step, offset, width, height| Place {
        plane,
        step,
        offset,
        width,
        height,
    };
    // FFmpeg's AV_CEIL_RSHIFT: chroma of an odd-sized picture covers its last column and row.
    let ceil = |n: usize, shift: u32| (n + (1 << shift) - 1) >> shift;
    match format.layout {
        PlaneLayout::Yuv {
            chroma_shift_x: sx,
            chroma_shift_y: sy,
            bits,
        } => {
            let (cw, ch) = (ceil(w, sx), ceil(h, sy));
            Some((
                vec![place(0, 1, 0, w, h), place(1, 1, 0, cw, ch), place(2, 1, 0, cw, ch)],
                bits,
            ))
        }
        PlaneLayout::Nv12 | PlaneLayout::P010 => {
            let bits = if format.layout == PlaneLayout::P010 { 10 } else { 8 };
            let (cw, ch) = (ceil(w, 1), ceil(h, 1));
            Some((
                vec![place(0, 1, 0, w, h), place(1, 2, 0, cw, ch), place(1, 2, 1, cw, ch)],
                bits,
            ))
        }
        PlaneLayout::Gray { bits } => Some((vec![place(0, 1, 0, w, h)], bits)),
        // (Planes G, B, R.)
        PlaneLayout::Gbr { bits } => Some((
            vec![place(2, 1, 0, w, h), place(0, 1, 0, w, h), place(1, 1, 0, w, h)],
            bits,
        )),
        PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra => None,
    }
}

/// The components of a frame of `format` (`places`), and their depth.
pub fn components<'a>(format: &FrameFormat, planes: &[PlaneData<'a>]) -> Option<(Vec<Component<'a>>, u32)> {
    let (places, bits) = places(format)?;
    // P010 keeps its 10 bits at the top of 16.
    let shift = if format.layout == PlaneLayout::P010 { 6 } else { 0 };
    let bytes = if bits > 8 { 2 } else { 1 };
    let components = places
        .iter()
        .map(|p| Component {
            data: planes[p.plane].data,
            stride: planes[p.plane].stride,
            width: p.width,
            height: p.height,
            bytes,
            step: p.step,
            offset: p.offset,
            shift,
        })
        .collect();
    Some((components, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_sizes_round_up() {
        let yuv420 = PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        };
        assert_eq!(yuv420.plane_size(0, 5, 3), (5, 3));
        assert_eq!(yuv420.plane_size(1, 5, 3), (3, 2));
        let yuv422 = PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 0,
            bits: 10,
        };
        assert_eq!(yuv422.plane_size(2, 5, 3), (3, 3));
        assert_eq!(PlaneLayout::Nv12.plane_size(1, 1, 1), (1, 1));
        assert_eq!(PlaneLayout::Rgb24.plane_count(), 1);
    }
}
