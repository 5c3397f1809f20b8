//! The CPU twin of shaders/video/convert.wgsl, function for function.

use super::gpu::Kernel;
use super::*;

/// A plane as convert.wgsl sees it: `load` returns what textureLoad would.
struct CpuPlane<'a> {
    data: &'a [u8],
    stride: usize,
    shape: PlaneShape,
}

impl CpuPlane<'_> {
    fn load(&self, at: [u32; 2]) -> [u32; 4] {
        let start = self.stride * at[1] as usize + self.shape.texel_bytes * at[0] as usize;
        let b = &self.data[start..start + self.shape.texel_bytes];
        match self.shape.format {
            wgpu::TextureFormat::R16Uint => [u16::from_le_bytes([b[0], b[1]]).into(), 0, 0, 1],
            wgpu::TextureFormat::Rg8Uint => [b[0].into(), b[1].into(), 0, 1],
            wgpu::TextureFormat::Rg16Uint => [
                u16::from_le_bytes([b[0], b[1]]).into(),
                u16::from_le_bytes([b[2], b[3]]).into(),
                0,
                1,
            ],
            wgpu::TextureFormat::Rgba8Uint => [b[0].into(), b[1].into(), b[2].into(), b[3].into()],
            _ => [b[0].into(), 0, 0, 1],
        }
    }
}

/// Twin of `Taps` in convert.wgsl.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Taps {
    pub(super) cols: [u32; 2],
    pub(super) rows: [u32; 2],
    pub(super) col_weights: [i32; 2],
    pub(super) row_weights: [i32; 2],
}

pub(super) fn chroma_taps(params: &ConvertParams, pos: [u32; 2]) -> Taps {
    let left = pos[0] >> params.chroma_shift_x;
    let right = (left + 1).min(params.chroma_width - 1);
    let right_weight = ((pos[0] & 1) * params.chroma_shift_x) as i32;

    let near = pos[1] >> params.chroma_shift_y;
    let far = if pos[1] & 1 == 1 {
        (near + 1).min(params.chroma_height - 1)
    } else {
        near.max(1) - 1
    };
    let far_weight = params.chroma_shift_y as i32;

    Taps {
        cols: [left, right],
        rows: [near, far],
        col_weights: [2 - right_weight, right_weight],
        row_weights: [4 - far_weight, far_weight],
    }
}

fn upsample(t: &Taps, near_left: [i32; 2], near_right: [i32; 2], far_left: [i32; 2], far_right: [i32; 2]) -> [i32; 2] {
    std::array::from_fn(|i| {
        let near = t.col_weights[0] * near_left[i] + t.col_weights[1] * near_right[i];
        let far = t.col_weights[0] * far_left[i] + t.col_weights[1] * far_right[i];
        t.row_weights[0] * near + t.row_weights[1] * far
    })
}

/// A texel's sample: the bits the mask picks, shifted down to the lowest.
fn masked(params: &ConvertParams, texel: u32) -> i32 {
    ((texel & params.sample_mask) >> params.sample_mask.trailing_zeros()) as i32
}

fn sample(params: &ConvertParams, plane: &CpuPlane, at: [u32; 2]) -> i32 {
    masked(params, plane.load(at)[0])
}

fn planar_chroma(params: &ConvertParams, planes: &[CpuPlane], at: [u32; 2]) -> [i32; 2] {
    [sample(params, &planes[1], at), sample(params, &planes[2], at)]
}

fn nv12_chroma(params: &ConvertParams, planes: &[CpuPlane], at: [u32; 2]) -> [i32; 2] {
    let texel = planes[1].load(at);
    [masked(params, texel[0]), masked(params, texel[1])]
}

pub(super) fn channel(params: &ConvertParams, row: &Row, y8: i32, cb8: i32, cr8: i32) -> u32 {
    let sum = row.y * y8 + row.cb * cb8 + row.cr * cr8 + row.bias;
    let white = (1 << params.out_bits) - 1;
    (sum >> frac_bits(params.out_bits)).clamp(0, white) as u32
}

fn pack_rgba(r: u32, g: u32, b: u32) -> u32 {
    r | (g << 8) | (b << 16) | 0xff00_0000
}

fn pack_rgb10(r: u32, g: u32, b: u32) -> u32 {
    r | (g << 10) | (b << 20) | 0xc000_0000
}

fn pack(params: &ConvertParams, r: u32, g: u32, b: u32) -> u32 {
    if params.out_bits == 10 {
        pack_rgb10(r, g, b)
    } else {
        pack_rgba(r, g, b)
    }
}

fn ycbcr_to_rgb(params: &ConvertParams, y8: i32, chroma8: [i32; 2]) -> u32 {
    let r = channel(params, &params.r, y8, chroma8[0], chroma8[1]);
    let g = channel(params, &params.g, y8, chroma8[0], chroma8[1]);
    let b = channel(params, &params.b, y8, chroma8[0], chroma8[1]);
    pack(params, r, g, b)
}

/// A grey sample's code, by the stream's `GreyMap`.
fn grey_code(params: &ConvertParams, v: i32) -> u32 {
    let map = &params.grey;
    let half = (1 << map.shift) >> 1;
    let sum = ((v >> map.pre_shift) - map.offset) * map.scale + half;
    let white = (1 << params.out_bits) - 1;
    (sum >> map.shift).clamp(0, white) as u32
}

/// An R'G'B' sample at the output's depth: 12-bit samples rounded to 10 bits.
fn rgb_sample(params: &ConvertParams, plane: &CpuPlane, at: [u32; 2]) -> u32 {
    let shift = params.sample_mask.count_ones() - params.out_bits;
    let half = (1 << shift) >> 1;
    ((sample(params, plane, at) as u32 + half) >> shift).min((1 << params.out_bits) - 1)
}

/// The body of the kernel's entry point for one pixel.
fn convert_pixel(kernel: Kernel, params: &ConvertParams, planes: &[CpuPlane], pos: [u32; 2]) -> u32 {
    match kernel {
        Kernel::Yuv | Kernel::Nv12 => {
            let chroma = |at| match kernel {
                Kernel::Yuv => planar_chroma(params, planes, at),
                _ => nv12_chroma(params, planes, at),
            };
            let t = chroma_taps(params, pos);
            let chroma8 = upsample(
                &t,
                chroma([t.cols[0], t.rows[0]]),
                chroma([t.cols[1], t.rows[0]]),
                chroma([t.cols[0], t.rows[1]]),
                chroma([t.cols[1], t.rows[1]]),
            );
            ycbcr_to_rgb(params, sample(params, &planes[0], pos) << 3, chroma8)
        }
        Kernel::Gray => {
            let code = grey_code(params, sample(params, &planes[0], pos));
            pack(params, code, code, code)
        }
        Kernel::Gbr => {
            let g = rgb_sample(params, &planes[0], pos);
            let b = rgb_sample(params, &planes[1], pos);
            let r = rgb_sample(params, &planes[2], pos);
            pack(params, r, g, b)
        }
        Kernel::Rgb24 => {
            let first = [3 * pos[0], pos[1]];
            let r = planes[0].load(first)[0];
            let g = planes[0].load([first[0] + 1, first[1]])[0];
            let b = planes[0].load([first[0] + 2, first[1]])[0];
            pack_rgba(r, g, b)
        }
        Kernel::Rgba => {
            let texel = planes[0].load(pos);
            pack_rgba(texel[0], texel[1], texel[2])
        }
        Kernel::Bgra => {
            let texel = planes[0].load(pos);
            pack_rgba(texel[2], texel[1], texel[0])
        }
    }
}

/// What the conversion pass writes to the pixel buffer, computed on the CPU: one packed word per
/// pixel, row after row, RGBA8 or RGB10A2 as `format.layout.output_bits()` says.
///
/// # Panics
/// If `check_planes` fails: this is a reference for tests and CPU paths, whose callers check.
pub fn convert_cpu(format: &FrameFormat, planes: &[PlaneData]) -> Vec<u32> {
    if let Err(e) = check_planes(format, planes) {
        panic!("convert_cpu: {e}");
    }
    let params = ConvertParams::new(format).expect("check_planes checked the format");
    let cpu_planes: Vec<CpuPlane> = planes
        .iter()
        .take(format.layout.plane_count())
        .enumerate()
        .map(|(index, plane)| CpuPlane {
            data: plane.data,
            stride: plane.stride,
            shape: PlaneShape::of(format, index),
        })
        .collect();
    let kernel = Kernel::of(format.layout);
    let mut words = Vec::with_capacity(format.width as usize * format.height as usize);
    for y in 0..format.height {
        for x in 0..format.width {
            words.push(convert_pixel(kernel, &params, &cpu_planes, [x, y]));
        }
    }
    words
}
