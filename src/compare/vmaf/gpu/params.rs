//! The uniforms of the VMAF passes, laid out as the WGSL structs in `shaders/compare/vmaf/`,
//! filled from the CPU twin's own constants so that the two cannot drift apart.

use super::super::adm::ScaleConstants;
use super::super::vif;

/// Uniform blocks sit this far apart (a multiple of every adapter's offset alignment).
pub const STRIDE: u64 = 512;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LoadParams {
    pub width: u32,
    pub height: u32,
    pub sample_mask: u32,
    pub _pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MotionParams {
    pub width: u32,
    pub height: u32,
    pub bits: u32,
    pub partial_offset: u32,
}

/// vif.wgsl's `Params`: size, the vertical pass's shifts, where the partials go; the gain
/// limit, the gain's epsilon, 1, and the square shift's half and scale in double.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VifParams {
    words: [u32; 8],
    floats: [f64; 6],
}

impl VifParams {
    /// A `width` x `height` picture; the vertical pass's shifts (`mean_shift` also serves the
    /// decimation), the first partial's index.
    pub fn new(
        (width, height): (usize, usize),
        (mean_shift, square_shift): (u32, u32),
        partial_offset: u32,
        gain_limit: f64,
    ) -> Self {
        Self {
            words: [
                width as u32,
                height as u32,
                mean_shift,
                square_shift,
                partial_offset,
                0,
                0,
                0,
            ],
            floats: [
                gain_limit,
                vif::GAIN_EPSILON,
                1.0,
                if square_shift == 0 {
                    0.0
                } else {
                    2f64.powi(square_shift as i32 - 1)
                },
                2f64.powi(-(square_shift as i32)),
                0.0,
            ],
        }
    }
}

/// adm.wgsl's `Params`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AdmParams {
    head: [u32; 8],
    vectors: [[u32; 4]; 15],
    row: [u32; 4],
    floats: [f64; 4],
}

impl AdmParams {
    /// Scale `scale`'s constants over `width` x `height` coefficients (the DWT's input, or the
    /// bands), its row sums from `row_offset` on.
    pub fn new(
        scale: usize,
        c: &ScaleConstants,
        (width, height): (usize, usize),
        row_offset: u32,
        gain_limit: f64,
    ) -> Self {
        let signed = |v: i64| v as i32 as u32;
        let m = &c.masking;
        let corners = |r: [usize; 4]| r.map(|v| v as u32);
        let triple = |v: [u32; 3]| [v[0], v[1], v[2], 0];
        let den = c.denominator;
        Self {
            head: [
                width as u32,
                height as u32,
                u32::from(scale == 0),
                c.dwt.vertical_shift,
                signed(c.dwt.vertical_round),
                c.dwt.horizontal_shift,
                signed(c.dwt.horizontal_round),
                signed(c.dwt.dc_offset),
            ],
            vectors: [
                corners(c.needed),
                corners(c.scored),
                triple(c.csf.weight.map(|w| w as u32)),
                triple(c.csf.weight_round.map(signed)),
                triple(c.csf.weight_shift),
                [
                    signed(c.csf.one_by_30),
                    signed(c.csf.one_by_30_round),
                    c.csf.one_by_30_shift,
                    0,
                ],
                triple(m.weight.map(|w| w as u32)),
                [signed(m.weight_round), m.weight_shift, 0, 0],
                [signed(m.one_by_15), signed(m.one_by_15_round), m.one_by_15_shift, 0],
                triple(m.threshold_shift),
                triple(m.square_round.map(signed)),
                triple(m.square_shift),
                triple(m.cube_round.map(signed)),
                triple(m.cube_shift),
                [den[0].0 as u32, den[0].1, den[1].0 as u32, den[1].1],
            ],
            row: [row_offset, 0, 0, 0],
            floats: [
                gain_limit,
                f64::from(c.cos_squared),
                2f64.powi(-(c.dwt.vertical_shift as i32)),
                2f64.powi(-(c.dwt.horizontal_shift as i32)),
            ],
        }
    }
}

/// collect.wgsl's `Total`: a run of partials to add, each rounded and shifted first.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Total {
    pub start: u32,
    pub count: u32,
    pub stride: u32,
    pub shift: u32,
    pub round: i32,
    pub unsigned: u32,
    pub _pad: [u32; 2],
}

impl Total {
    pub fn plain(start: u32, count: u32, stride: u32) -> Self {
        Self {
            start,
            count,
            stride,
            shift: 0,
            round: 0,
            unsigned: 0,
            _pad: [0; 2],
        }
    }
}

/// The rounding and shift of scale `scale`'s row sums: the numerator's, the denominator's.
pub fn row_shifts(c: &ScaleConstants) -> [(i32, u32); 2] {
    [
        (c.masking.row_round as i32, c.masking.row_shift),
        (c.denominator[2].0 as i32, c.denominator[2].1),
    ]
}
