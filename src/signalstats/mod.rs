//! QC statistics of a frame's Y'CbCr planes, as FFmpeg's `signalstats` filter gives them with
//! `stat=tout+vrep+brng` (libavfilter/vf_signalstats.c is the definition): minimum, 10% and
//! 90% points, average and maximum of Y, U, V and of the chroma's saturation, the hue's median
//! and average, the mean absolute difference from the previous frame, and the fractions of
//! temporal outliers, repeated lines and pixels outside broadcast range, at the source's depth.
//!
//! The work splits as on the GPU: `count` gathers a frame's `Counts` (histograms, sums and
//! tallies; the CPU twin of the GPU pass), and `Counts::stats` turns them into the values.

pub mod format;
pub mod gpu;

use crate::video::format::{PlaneData, PlaneLayout};

/// Hue bins: whole degrees.
pub const HUE_BINS: usize = 360;
/// Lines a repeated line is compared with: the one this many above (VREP_START).
const VREP_DISTANCE: usize = 4;

/// Why a frame's planes can't be measured.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    #[error("QC statistics read Y'CbCr video; this stream is {0}")]
    NotYuv(PlaneLayout),
    #[error("a frame's planes hold fewer samples than its {0}x{1} pixels")]
    Short(u32, u32),
}

/// One frame's Y'CbCr samples, one value per sample, at the source's depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YuvPlanes {
    pub width: usize,
    pub height: usize,
    pub chroma_width: usize,
    pub chroma_height: usize,
    /// Chroma subsampling: a pixel's chroma sample is (x >> shift_x, y >> shift_y).
    pub shift_x: u32,
    pub shift_y: u32,
    pub bits: u32,
    pub y: Vec<u16>,
    pub u: Vec<u16>,
    pub v: Vec<u16>,
}

/// How the statistics read a layout's Y'CbCr planes (the CPU twin and the GPU pass alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneShape {
    /// Chroma subsampling: a pixel's chroma sample is (x >> shift_x, y >> shift_y).
    pub shift_x: u32,
    pub shift_y: u32,
    pub bits: u32,
    /// U and V interleaved in the second plane (NV12, P010).
    pub semi: bool,
    /// Right shift of a stored sample to its value (P010 keeps 10 bits at the top of 16).
    pub sample_shift: u32,
}

impl PlaneShape {
    /// Planar Y'CbCr of any depth, NV12 or P010; anything else is not Y'CbCr to the statistics.
    pub fn of(layout: PlaneLayout) -> Result<Self, StatsError> {
        let semi = |bits, sample_shift| PlaneShape {
            shift_x: 1,
            shift_y: 1,
            bits,
            semi: true,
            sample_shift,
        };
        match layout {
            PlaneLayout::Yuv {
                chroma_shift_x,
                chroma_shift_y,
                bits,
            } => Ok(PlaneShape {
                shift_x: chroma_shift_x,
                shift_y: chroma_shift_y,
                bits,
                semi: false,
                sample_shift: 0,
            }),
            PlaneLayout::Nv12 => Ok(semi(8, 0)),
            PlaneLayout::P010 => Ok(semi(10, 6)),
            other => Err(StatsError::NotYuv(other)),
        }
    }

    /// Chroma samples across and down for a `width`×`height` frame: AV_CEIL_RSHIFT, a sample
    /// for every started group of pixels.
    pub fn chroma_size(&self, width: u32, height: u32) -> (u32, u32) {
        (width.div_ceil(1 << self.shift_x), height.div_ceil(1 << self.shift_y))
    }
}

impl YuvPlanes {
    /// The samples of a decoded frame of `layout`: planar Y'CbCr of any depth, NV12 or P010.
    pub fn read(layout: PlaneLayout, width: u32, height: u32, planes: &[PlaneData]) -> Result<Self, StatsError> {
        let shape = PlaneShape::of(layout)?;
        let PlaneShape {
            shift_x, shift_y, bits, ..
        } = shape;
        let (w, h) = (width as usize, height as usize);
        let (cw, ch) = shape.chroma_size(width, height);
        let (cw, ch) = (cw as usize, ch as usize);
        let wide = bits > 8;
        let sample = |plane: &PlaneData, x: usize, y: usize, step: usize, offset: usize| -> u16 {
            let row = &plane.data[y * plane.stride..];
            if wide {
                let at = (x * step + offset) * 2;
                u16::from_le_bytes([row[at], row[at + 1]])
            } else {
                u16::from(row[x * step + offset])
            }
        };
        // Samples are kept to the depth: a stray high bit of a damaged stream must not index
        // past a histogram (the GPU pass does the same).
        let mask = ((1u32 << bits) - 1) as u16;
        let read = |plane: &PlaneData, w: usize, h: usize, step: usize, offset: usize, shift: u32| {
            let mut out = Vec::with_capacity(w * h);
            for y in 0..h {
                out.extend((0..w).map(|x| (sample(plane, x, y, step, offset) >> shift) & mask));
            }
            out
        };
        // Planes that don't hold the frame (a damaged or resized one) are an error, not a read
        // past their end.
        let bytes = if wide { 2 } else { 1 };
        let holds = |plane: Option<&PlaneData>, w: usize, h: usize, step: usize| {
            plane.is_some_and(|p| h == 0 || w == 0 || p.data.len() >= (h - 1) * p.stride + w * step * bytes)
        };
        let (chroma_step, chroma_planes) = if shape.semi { (2, [1, 1]) } else { (1, [1, 2]) };
        if !holds(planes.first(), w, h, 1)
            || chroma_planes
                .iter()
                .any(|&i| !holds(planes.get(i), cw, ch, chroma_step))
        {
            return Err(StatsError::Short(width, height));
        }
        let shift = shape.sample_shift;
        let y = read(&planes[0], w, h, 1, 0, shift);
        let (u, v) = if shape.semi {
            (
                read(&planes[1], cw, ch, 2, 0, shift),
                read(&planes[1], cw, ch, 2, 1, shift),
            )
        } else {
            (
                read(&planes[1], cw, ch, 1, 0, shift),
                read(&planes[2], cw, ch, 1, 0, shift),
            )
        };
        Ok(Self {
            width: w,
            height: h,
            chroma_width: cw,
            chroma_height: ch,
            shift_x,
            shift_y,
            bits,
            y,
            u,
            v,
        })
    }
}

/// What a frame's statistics are made from (the GPU pass's output, and its CPU twin's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts {
    pub bits: u32,
    pub width: u64,
    pub height: u64,
    pub chroma_samples: u64,
    /// Histograms of Y, U, V and saturation: 2^bits bins each.
    pub y: Vec<u32>,
    pub u: Vec<u32>,
    pub v: Vec<u32>,
    pub sat: Vec<u32>,
    pub hue: Vec<u32>,
    /// Sums of |this − previous| over Y, U and V.
    pub dif: [u64; 3],
    /// OR of every Y, U and V sample (bits used).
    pub mask: [u32; 3],
    /// Temporal outliers, repeated lines and pixels outside broadcast range.
    pub tout: u64,
    pub vrep_lines: u64,
    pub brng: u64,
}

/// A chroma sample's saturation as FFmpeg computes it: hypotf(u − mid, v − mid), in single
/// precision, truncated. Up to 12 bits that is ⌊hypot⌋ exactly (`whole_hypot`, the GPU
/// pass's way, which reads 8 and 10 bits); at 16, hypotf rounds some up to the next whole
/// number, and FFmpeg counts them there.
pub fn saturation(du: i32, dv: i32) -> u32 {
    (du as f32).hypot(dv as f32) as u32
}

/// ⌊hypot(du, dv)⌋ exactly, in integers: the GPU pass's saturation (`isqrt` in
/// shaders/signalstats/signalstats.wgsl).
pub fn whole_hypot(du: i32, dv: i32) -> u32 {
    let n = (du * du + dv * dv) as u32;
    let mut s = (n as f64).sqrt() as u32;
    while s * s > n {
        s -= 1;
    }
    while (s + 1) * (s + 1) <= n {
        s += 1;
    }
    s
}

/// A chroma sample's hue in whole degrees, as FFmpeg computes it: the angle of (u − mid,
/// v − mid) from +V towards +U, ⌊(180/π)·atan2f(du, dv) + 180⌋ modulo 360, through the same
/// single-precision atan2f.
pub fn hue(du: i32, dv: i32) -> u32 {
    let angle = (du as f32).atan2(dv as f32);
    let degrees = ((180.0 / std::f64::consts::PI) * f64::from(angle) + 180.0) as f32;
    (degrees.floor() % 360.0) as u32
}

/// FFmpeg's temporal-outlier test on a column of three samples, on their low 8 bits (the
/// filter passes every depth's samples through 8-bit arguments).
fn outlier(a: u16, b: u16, c: u16) -> bool {
    let (a, b, c) = (i32::from(a as u8), i32::from(b as u8), i32::from(c as u8));
    ((a - b).abs() + (c - b).abs()) / 2 - (c - a).abs() > 4
}

/// CPU twin of the statistics pass: the counts of `cur`, with `prev` the frame before (None for
/// the first: no difference). A large frame is counted in bands of rows on threads of their
/// own, which add up to the same counts.
pub fn count(cur: &YuvPlanes, prev: Option<&YuvPlanes>) -> Counts {
    let prev = prev.unwrap_or(cur);
    let bands = (cur.width * cur.height / BAND_PIXELS).clamp(1, max_bands());
    if bands == 1 {
        return count_band(cur, prev, 0..cur.height, 0..cur.chroma_height);
    }
    let cut = |n: usize, rows: usize| n * rows / bands;
    std::thread::scope(|scope| {
        let counting: Vec<_> = (0..bands)
            .map(|b| {
                let rows = cut(b, cur.height)..cut(b + 1, cur.height);
                let chroma = cut(b, cur.chroma_height)..cut(b + 1, cur.chroma_height);
                scope.spawn(move || count_band(cur, prev, rows, chroma))
            })
            .collect();
        let mut bands = counting
            .into_iter()
            .map(|band| band.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        let first = bands.next().expect("a band at least");
        bands.fold(first, Counts::add)
    })
}

/// A chroma sample's saturation and hue (`saturation`, `hue`).
fn sat_hue(du: i32, dv: i32) -> [u16; 2] {
    [saturation(du, dv) as u16, hue(du, dv) as u16]
}

/// `sat_hue` of every pair of 8-bit Cb and Cr (index Cb·256 + Cr), made once.
fn sat_hue_8() -> &'static [[u16; 2]] {
    static TABLE: std::sync::OnceLock<Vec<[u16; 2]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..1 << 16)
            .map(|i: i32| sat_hue((i >> 8) - 128, (i & 255) - 128))
            .collect()
    })
}

/// Pixels a band of rows counts on a thread of its own, about.
const BAND_PIXELS: usize = 1 << 18;

/// Bands counted at once at most: the machine's threads, up to 16 (asked once).
fn max_bands() -> usize {
    static BANDS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BANDS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(16))
}

/// The counts of `rows` of `cur`'s luma and `chroma_rows` of its chroma (each row's
/// neighbours read wherever they are).
fn count_band(
    cur: &YuvPlanes,
    prev: &YuvPlanes,
    rows: std::ops::Range<usize>,
    chroma_rows: std::ops::Range<usize>,
) -> Counts {
    let size = 1usize << cur.bits;
    let mid = 1i32 << (cur.bits - 1);
    let (w, h, cw) = (cur.width, cur.height, cur.chroma_width);
    let mut c = Counts {
        bits: cur.bits,
        width: w as u64,
        height: h as u64,
        chroma_samples: (cur.chroma_width * cur.chroma_height) as u64,
        y: vec![0; size],
        u: vec![0; size],
        v: vec![0; size],
        sat: vec![0; size],
        hue: vec![0; HUE_BINS],
        dif: [0; 3],
        mask: [0; 3],
        tout: 0,
        vrep_lines: 0,
        brng: 0,
    };
    let luma_band = rows.start * w..rows.end * w;
    let chroma_band = chroma_rows.start * cw..chroma_rows.end * cw;
    for (plane, (samples, before)) in [
        (&cur.y[luma_band.clone()], &prev.y[luma_band]),
        (&cur.u[chroma_band.clone()], &prev.u[chroma_band.clone()]),
        (&cur.v[chroma_band.clone()], &prev.v[chroma_band.clone()]),
    ]
    .into_iter()
    .enumerate()
    {
        let hist = match plane {
            0 => &mut c.y,
            1 => &mut c.u,
            _ => &mut c.v,
        };
        for (&s, &p) in samples.iter().zip(before.iter()) {
            hist[s as usize] += 1;
            c.mask[plane] |= u32::from(s);
            c.dif[plane] += u64::from(s.abs_diff(p));
        }
    }
    let eight_bit = (cur.bits == 8).then(sat_hue_8);
    for (&u, &v) in cur.u[chroma_band.clone()].iter().zip(&cur.v[chroma_band]) {
        let [sat, hue] = match eight_bit {
            Some(table) => table[usize::from(u) << 8 | usize::from(v)],
            None => sat_hue(i32::from(u) - mid, i32::from(v) - mid),
        };
        c.sat[sat as usize] += 1;
        c.hue[hue as usize] += 1;
    }
    let luma = |x: usize, y: usize| cur.y[y * w + x];
    // Temporal outliers: the pixels of rows 1..h−1 and columns 1..w−1 that stand out from the
    // rows above and below (one and two away where both exist, to leave interlacing be).
    for y in rows.start.max(1)..rows.end.min(h.saturating_sub(1)) {
        let both = y >= 2 && y + 2 < h;
        for x in 1..w.saturating_sub(1) {
            // Columns x−1, x and x+1 all stand out from the rows j above and below.
            let stands_out =
                |j: usize| (x - 1..=x + 1).all(|xx| outlier(luma(xx, y - j), luma(xx, y), luma(xx, y + j)));
            if (!both || stands_out(2)) && stands_out(1) {
                c.tout += 1;
            }
        }
    }
    // Repeated lines: a line within a sample a pixel on average of the one VREP_DISTANCE above.
    for y in rows.start.max(VREP_DISTANCE)..rows.end {
        let total: u64 = (0..w)
            .map(|x| u64::from(luma(x, y - VREP_DISTANCE).abs_diff(luma(x, y))))
            .sum();
        if total < w as u64 {
            c.vrep_lines += 1;
        }
    }
    // Broadcast range: Y' outside 16–235 or Cb, Cr outside 16–240, scaled to the depth.
    let scale = 1u16 << (cur.bits - 8);
    let (lo, y_hi, c_hi) = (16 * scale, 235 * scale, 240 * scale);
    for y in rows {
        let crow = (y >> cur.shift_y) * cur.chroma_width;
        for x in 0..w {
            let at = crow + (x >> cur.shift_x);
            let (l, u, v) = (luma(x, y), cur.u[at], cur.v[at]);
            if l < lo || l > y_hi || u < lo || u > c_hi || v < lo || v > c_hi {
                c.brng += 1;
            }
        }
    }
    c
}

impl Counts {
    /// Two bands' counts of one frame, together.
    fn add(mut self, other: Counts) -> Counts {
        for (mine, theirs) in [
            (&mut self.y, &other.y),
            (&mut self.u, &other.u),
            (&mut self.v, &other.v),
            (&mut self.sat, &other.sat),
            (&mut self.hue, &other.hue),
        ] {
            mine.iter_mut().zip(theirs).for_each(|(a, b)| *a += b);
        }
        for plane in 0..3 {
            self.dif[plane] += other.dif[plane];
            self.mask[plane] |= other.mask[plane];
        }
        self.tout += other.tout;
        self.vrep_lines += other.vrep_lines;
        self.brng += other.brng;
        self
    }
}

/// The statistics' names, in FFmpeg's order (`SignalStats`'s fields).
pub const NAMES: [&str; 31] = [
    "YMIN",
    "YLOW",
    "YAVG",
    "YHIGH",
    "YMAX",
    "UMIN",
    "ULOW",
    "UAVG",
    "UHIGH",
    "UMAX",
    "VMIN",
    "VLOW",
    "VAVG",
    "VHIGH",
    "VMAX",
    "SATMIN",
    "SATLOW",
    "SATAVG",
    "SATHIGH",
    "SATMAX",
    "HUEMED",
    "HUEAVG",
    "YDIF",
    "UDIF",
    "VDIF",
    "YBITDEPTH",
    "UBITDEPTH",
    "VBITDEPTH",
    "TOUT",
    "VREP",
    "BRNG",
];

/// One frame's statistics, named as FFmpeg names them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[allow(non_snake_case)]
pub struct SignalStats {
    pub YMIN: i64,
    pub YLOW: i64,
    pub YAVG: f64,
    pub YHIGH: i64,
    pub YMAX: i64,
    pub UMIN: i64,
    pub ULOW: i64,
    pub UAVG: f64,
    pub UHIGH: i64,
    pub UMAX: i64,
    pub VMIN: i64,
    pub VLOW: i64,
    pub VAVG: f64,
    pub VHIGH: i64,
    pub VMAX: i64,
    pub SATMIN: i64,
    pub SATLOW: i64,
    pub SATAVG: f64,
    pub SATHIGH: i64,
    pub SATMAX: i64,
    pub HUEMED: i64,
    pub HUEAVG: f64,
    pub YDIF: f64,
    pub UDIF: f64,
    pub VDIF: f64,
    pub YBITDEPTH: u32,
    pub UBITDEPTH: u32,
    pub VBITDEPTH: u32,
    pub TOUT: f64,
    pub VREP: f64,
    pub BRNG: f64,
}

/// Minimum, 10% point, average numerator, 90% point and maximum of a histogram, as FFmpeg finds
/// them: the points are the first bins whose running count reaches lrint(10% and 90% of the
/// samples).
fn spread(hist: &[u32], samples: u64) -> (i64, i64, u64, i64, i64) {
    let low_at = ((samples * 10) as f64 / 100.0).round_ties_even() as u64;
    let high_at = ((samples * 90) as f64 / 100.0).round_ties_even() as u64;
    let (mut min, mut low, mut high, mut max) = (-1, -1, -1, -1);
    let (mut total, mut acc) = (0u64, 0u64);
    for (bin, &n) in hist.iter().enumerate() {
        let bin_i = bin as i64;
        if n > 0 {
            if min < 0 {
                min = bin_i;
            }
            max = bin_i;
        }
        total += u64::from(n) * bin as u64;
        acc += u64::from(n);
        if low == -1 && acc >= low_at {
            low = bin_i;
        }
        if high == -1 && acc >= high_at {
            high = bin_i;
        }
    }
    (min, low, total, high, max)
}

impl Counts {
    /// The statistics these counts give.
    pub fn stats(&self) -> SignalStats {
        let fs = self.width * self.height;
        let cfs = self.chroma_samples;
        let (ymin, ylow, ytot, yhigh, ymax) = spread(&self.y, fs);
        let (umin, ulow, utot, uhigh, umax) = spread(&self.u, cfs);
        let (vmin, vlow, vtot, vhigh, vmax) = spread(&self.v, cfs);
        let (smin, slow, stot, shigh, smax) = spread(&self.sat, cfs);
        let (mut acc, mut total, mut median) = (0u64, 0u64, -1i64);
        for (bin, &n) in self.hue.iter().enumerate() {
            total += u64::from(n) * bin as u64;
            acc += u64::from(n);
            if median == -1 && acc > cfs / 2 {
                median = bin as i64;
            }
        }
        let (fs_f, cfs_f) = (fs as f64, cfs as f64);
        SignalStats {
            YMIN: ymin,
            YLOW: ylow,
            YAVG: ytot as f64 / fs_f,
            YHIGH: yhigh,
            YMAX: ymax,
            UMIN: umin,
            ULOW: ulow,
            UAVG: utot as f64 / cfs_f,
            UHIGH: uhigh,
            UMAX: umax,
            VMIN: vmin,
            VLOW: vlow,
            VAVG: vtot as f64 / cfs_f,
            VHIGH: vhigh,
            VMAX: vmax,
            SATMIN: smin,
            SATLOW: slow,
            SATAVG: stot as f64 / cfs_f,
            SATHIGH: shigh,
            SATMAX: smax,
            HUEMED: median,
            HUEAVG: total as f64 / cfs_f,
            YDIF: self.dif[0] as f64 / fs_f,
            UDIF: self.dif[1] as f64 / cfs_f,
            VDIF: self.dif[2] as f64 / cfs_f,
            YBITDEPTH: self.mask[0].count_ones(),
            UBITDEPTH: self.mask[1].count_ones(),
            VBITDEPTH: self.mask[2].count_ones(),
            TOUT: self.tout as f64 / fs_f,
            VREP: (self.vrep_lines * self.width) as f64 / fs_f,
            BRNG: self.brng as f64 / fs_f,
        }
    }
}

impl SignalStats {
    /// The values in `NAMES` order.
    pub fn values(&self) -> [f64; 31] {
        let i = |v: i64| v as f64;
        [
            i(self.YMIN),
            i(self.YLOW),
            self.YAVG,
            i(self.YHIGH),
            i(self.YMAX),
            i(self.UMIN),
            i(self.ULOW),
            self.UAVG,
            i(self.UHIGH),
            i(self.UMAX),
            i(self.VMIN),
            i(self.VLOW),
            self.VAVG,
            i(self.VHIGH),
            i(self.VMAX),
            i(self.SATMIN),
            i(self.SATLOW),
            self.SATAVG,
            i(self.SATHIGH),
            i(self.SATMAX),
            i(self.HUEMED),
            self.HUEAVG,
            self.YDIF,
            self.UDIF,
            self.VDIF,
            f64::from(self.YBITDEPTH),
            f64::from(self.UBITDEPTH),
            f64::from(self.VBITDEPTH),
            self.TOUT,
            self.VREP,
            self.BRNG,
        ]
    }

    /// The statistics by FFmpeg's names (`NAMES`), each value as `ffprobe` prints it: C's %g,
    /// which writes the integer ones (all below 10^6) as FFmpeg's %d does.
    pub fn printed(&self) -> Vec<(&'static str, String)> {
        NAMES.into_iter().zip(self.values().map(format::g)).collect()
    }
}

#[cfg(test)]
mod tests;
