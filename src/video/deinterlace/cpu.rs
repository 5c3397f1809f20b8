//! The deinterlacers' arithmetic on the CPU, line for line as FFmpeg's `vf_bwdif.c` and
//! `vf_yadif.c` compute it (their C and SIMD agree), for the tests and as the GPU pass's twin
//! (shaders/video/deinterlace.wgsl).
//!
//! FFmpeg's quirks are kept, since its output is the reference: bwdif decides whether a line
//! near the top or bottom edge may reach 1 or 3 lines away by comparing with the sample's byte
//! size (so 10-bit planes reflect one line earlier than 8-bit ones) and, where 3 lines away is
//! outside, reads 1 line the other way; yadif leaves out
//! its spatial search in the 3 pixels at each end of a line and its spatial interlacing check on
//! the second and second-to-last lines.

use super::{FieldJob, Method};
use crate::video::format::{FrameFormat, PlaneData, PlaneLayout};

/// One plane as the filters see it: `width` pixels of `channels` interleaved samples a row
/// (NV12's U, V pairs; packed R, G, B), `height` rows, samples of `bits` held in one byte or,
/// `wide`, two (FFmpeg's `df`), `shift` bits above the value (P010's 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneGeometry {
    pub width: u32,
    pub height: u32,
    pub channels: u32,
    pub bits: u32,
    pub wide: bool,
    pub shift: u32,
}

impl PlaneGeometry {
    /// Each plane of `format`'s frames.
    pub fn of(format: &FrameFormat) -> Vec<Self> {
        let (width, height) = (format.width, format.height);
        let layout = format.layout;
        let bits = layout.bits();
        let plane = |index: usize, channels: u32, shift: u32| {
            let (width, height) = layout.plane_size(index, width, height);
            Self {
                width,
                height,
                channels,
                bits,
                wide: bits > 8,
                shift,
            }
        };
        match layout {
            PlaneLayout::Yuv { .. } | PlaneLayout::Gbr { .. } => (0..3).map(|i| plane(i, 1, 0)).collect(),
            PlaneLayout::Gray { .. } => vec![plane(0, 1, 0)],
            PlaneLayout::Nv12 => vec![plane(0, 1, 0), plane(1, 2, 0)],
            PlaneLayout::P010 => vec![plane(0, 1, 6), plane(1, 2, 6)],
            PlaneLayout::Rgb24 => vec![plane(0, 3, 0)],
            PlaneLayout::Rgba | PlaneLayout::Bgra => vec![plane(0, 4, 0)],
        }
    }

    /// Samples in a row (all channels).
    pub fn row_samples(&self) -> usize {
        (self.width * self.channels) as usize
    }

    /// Bytes in a row, packed.
    pub fn row_bytes(&self) -> usize {
        self.row_samples() * if self.wide { 2 } else { 1 }
    }

    pub fn samples(&self) -> usize {
        self.row_samples() * self.height as usize
    }

    /// The largest value.
    pub fn max(&self) -> i32 {
        (1 << self.bits) - 1
    }

    /// The plane's samples, row after row, from its rows in memory.
    pub fn read(&self, plane: &PlaneData) -> Vec<u16> {
        let row = self.row_samples();
        let mut out = Vec::with_capacity(self.samples());
        for y in 0..self.height as usize {
            let start = y * plane.stride;
            if self.wide {
                let bytes = &plane.data[start..start + 2 * row];
                out.extend(
                    bytes
                        .chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]]) >> self.shift),
                );
            } else {
                out.extend(plane.data[start..start + row].iter().map(|&b| u16::from(b)));
            }
        }
        out
    }

    /// `samples` as the plane's bytes, rows `stride` apart.
    pub fn write(&self, samples: &[u16], stride: usize) -> Vec<u8> {
        let row = self.row_samples();
        let mut out = vec![0u8; stride * self.height as usize];
        for (y, line) in samples.chunks_exact(row).enumerate() {
            let to = &mut out[y * stride..];
            for (x, &v) in line.iter().enumerate() {
                if self.wide {
                    to[2 * x..2 * x + 2].copy_from_slice(&(v << self.shift).to_le_bytes());
                } else {
                    to[x] = v as u8;
                }
            }
        }
        out
    }
}

/// One plane of a frame with field `job` made by `method` from `prev`, `cur` and `next`
/// (samples as `PlaneGeometry::read` gives them); `spatial_check` as FFmpeg's modes 0 and 1.
pub fn make_field(
    method: Method,
    plane: &PlaneGeometry,
    job: FieldJob,
    spatial_check: bool,
    [prev, cur, next]: [&[u16]; 3],
) -> Vec<u16> {
    let mut out = cur.to_vec();
    let row = plane.row_samples();
    let lines = Lines {
        plane,
        prev,
        cur,
        next,
        order: job.order() == 1,
    };
    for y in 0..plane.height as i32 {
        if (y as u32 ^ job.parity) & 1 == 0 {
            continue;
        }
        let line = &mut out[y as usize * row..(y as usize + 1) * row];
        match method {
            Method::Bwdif => lines.bwdif(line, y, job.edge),
            Method::Yadif => lines.yadif(line, y, spatial_check),
        }
    }
    out
}

/// The three frames' samples of one plane.
struct Lines<'a> {
    plane: &'a PlaneGeometry,
    prev: &'a [u16],
    cur: &'a [u16],
    next: &'a [u16],
    /// `parity ^ tff`: the field made lies between `prev` and `cur` (`prev2` = prev, `next2` =
    /// cur) or between `cur` and `next`.
    order: bool,
}

/// Row `y` of a plane `h` high, within it (FFmpeg reads outside planes of 1 to 3 lines; these
/// read their last line there instead).
fn clamp_row(y: i32, h: i32) -> usize {
    y.clamp(0, h - 1) as usize
}

impl Lines<'_> {
    /// Sample `s` (counted across channels) of row `y` of `frame`.
    fn at(&self, frame: &[u16], y: i32, s: usize) -> i32 {
        let h = self.plane.height as i32;
        i32::from(frame[clamp_row(y, h) * self.plane.row_samples() + s])
    }

    fn prev2(&self) -> &[u16] {
        if self.order {
            self.prev
        } else {
            self.cur
        }
    }

    fn next2(&self) -> &[u16] {
        if self.order {
            self.cur
        } else {
            self.next
        }
    }

    /// The temporal part both filters share (FFmpeg's `FILTER1`): the line above and below
    /// (`c`, `e` at rows `m`, `p`), the temporal average `d` and the largest difference allowed.
    fn temporal(&self, y: i32, m: i32, p: i32, s: usize) -> (i32, i32, i32, i32) {
        let c = self.at(self.cur, m, s);
        let e = self.at(self.cur, p, s);
        let (p2, n2) = (self.at(self.prev2(), y, s), self.at(self.next2(), y, s));
        let d = (p2 + n2) >> 1;
        let diff0 = (p2 - n2).abs();
        let diff1 = ((self.at(self.prev, m, s) - c).abs() + (self.at(self.prev, p, s) - e).abs()) >> 1;
        let diff2 = ((self.at(self.next, m, s) - c).abs() + (self.at(self.next, p, s) - e).abs()) >> 1;
        (c, d, e, (diff0 >> 1).max(diff1).max(diff2))
    }

    /// The average of `prev2` and `next2` at row `y`.
    fn temporal_at(&self, y: i32, s: usize) -> i32 {
        (self.at(self.prev2(), y, s) + self.at(self.next2(), y, s)) >> 1
    }

    fn bwdif(&self, line: &mut [u16], y: i32, edge: bool) {
        const LF: [i32; 2] = [4309, 213];
        const HF: [i32; 3] = [5570, 3801, 1016];
        const SP: [i32; 2] = [5077, 981];
        let h = self.plane.height as i32;
        let max = self.plane.max();
        // FFmpeg compares with the sample's size in bytes here, not with 1 and 3.
        let df = if self.plane.wide { 2 } else { 1 };
        let p = if y + df < h { y + 1 } else { y - 1 };
        let m = if y > df - 1 { y - 1 } else { y + 1 };
        for (s, out) in line.iter_mut().enumerate() {
            if edge {
                // Where 3 lines away is out of the plane, FFmpeg reads 1 line the other way.
                let p3 = if y + 3 * df < h { y + 3 } else { y - 1 };
                let m3 = if y > 3 * df - 1 { y - 3 } else { y + 1 };
                let cur = |r| self.at(self.cur, r, s);
                let v = (SP[0] * (cur(m) + cur(p)) - SP[1] * (cur(m3) + cur(p3))) >> 13;
                *out = v.clamp(0, max) as u16;
                continue;
            }
            let near_edge = y < 4 || y + 5 > h;
            let (c, d, e, mut diff) = self.temporal(y, m, p, s);
            if diff == 0 {
                *out = d as u16;
                continue;
            }
            let spatial = !near_edge || !(y < 2 || y + 3 > h);
            if spatial {
                let b = self.temporal_at(y - 2, s) - c;
                let f = self.temporal_at(y + 2, s) - e;
                let (dc, de) = (d - c, d - e);
                let hi = de.max(dc).max(b.min(f));
                let lo = de.min(dc).min(b.max(f));
                diff = diff.max(lo).max(-hi);
            }
            let interpol = if near_edge {
                (c + e) >> 1
            } else {
                let cur = |r| self.at(self.cur, r, s);
                let both = |r| self.at(self.prev2(), r, s) + self.at(self.next2(), r, s);
                if (c - e).abs() > (self.at(self.prev2(), y, s) - self.at(self.next2(), y, s)).abs() {
                    (((HF[0] * both(y) - HF[1] * (both(y - 2) + both(y + 2)) + HF[2] * (both(y - 4) + both(y + 4)))
                        >> 2)
                        + LF[0] * (c + e)
                        - LF[1] * (cur(y - 3) + cur(y + 3)))
                        >> 13
                } else {
                    (SP[0] * (c + e) - SP[1] * (cur(y - 3) + cur(y + 3))) >> 13
                }
            };
            *out = interpol.clamp(d - diff, d + diff).clamp(0, max) as u16;
        }
    }

    fn yadif(&self, line: &mut [u16], y: i32, spatial_check: bool) {
        let h = self.plane.height as i32;
        let (width, channels) = (self.plane.width as i32, self.plane.channels as usize);
        let p = if y + 1 < h { y + 1 } else { y - 1 };
        let m = if y > 0 { y - 1 } else { y + 1 };
        // The second line and the second to last leave the spatial interlacing check out.
        let check = spatial_check && y != 1 && y + 2 != h;
        for (s, out) in line.iter_mut().enumerate() {
            let x = (s / channels) as i32;
            let (c, d, e, mut diff) = self.temporal(y, m, p, s);
            let mut pred = (c + e) >> 1;
            if x >= 3 && x + 3 < width {
                // Sample `j` pixels along, above (row m) and below (row p).
                let up = |j: i32| self.at(self.cur, m, (s as i32 + j * channels as i32) as usize);
                let down = |j: i32| self.at(self.cur, p, (s as i32 + j * channels as i32) as usize);
                let mut score = (up(-1) - down(-1)).abs() + (c - e).abs() + (up(1) - down(1)).abs() - 1;
                let better = |j: i32, score: &mut i32, pred: &mut i32| {
                    let here =
                        (up(j - 1) - down(-j - 1)).abs() + (up(j) - down(-j)).abs() + (up(j + 1) - down(-j + 1)).abs();
                    if here < *score {
                        *score = here;
                        *pred = (up(j) + down(-j)) >> 1;
                        return true;
                    }
                    false
                };
                // Two pixels along is tried only where one along was better.
                if better(-1, &mut score, &mut pred) {
                    better(-2, &mut score, &mut pred);
                }
                if better(1, &mut score, &mut pred) {
                    better(2, &mut score, &mut pred);
                }
            }
            if check {
                let b = self.temporal_at(y + 2 * (m - y), s);
                let f = self.temporal_at(y + 2 * (p - y), s);
                let hi = (d - e).max(d - c).max((b - c).min(f - e));
                let lo = (d - e).min(d - c).min((b - c).max(f - e));
                diff = diff.max(lo).max(-hi);
            }
            *out = pred.clamp(d - diff, d + diff) as u16;
        }
    }
}
