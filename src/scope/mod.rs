//! Scopes beyond the histogram: the waveform (a luminance histogram per column), the RGB parade
//! (an R, G and B histogram per column) and the vectorscope (a 2-D histogram of chroma), with the
//! region of interest that every histogram and scope can be limited to. This module holds their
//! one definition and the CPU reference (twin of `shaders/scope/scope.wgsl`); `gpu` counts them
//! every frame, `draw` shows them.
//!
//! For a W×H frame (or region) of b-bit pixels and C columns of N bins:
//! - column of pixel x: ⌊x·C/W⌋;
//! - waveform bin: the luminance bin of `hist`, min(N−1, ⌊Y·N/((2^b−1)·10000)⌋) with
//!   Y = 2126·R + 7152·G + 722·B; parade bins: the channel bins min(N−1, ⌊c·N/(2^b−1)⌋);
//! - vectorscope: cb = ⌊(10000·B − Y + 2^(b−1)·18556) / (18556·2^(b−8))⌋ and
//!   cr = ⌊(10000·R − Y + 2^(b−1)·15748) / (15748·2^(b−8))⌋, both 0..=255, grey at (128, 128):
//!   BT.709's Cb and Cr from R′G′B′, in exact integers (at 8 bits, 10000·B − Y + 128·18556 over
//!   18556).
//! - CIE 1931 xy: see `cie`.

pub mod cie;
pub mod draw;
pub mod gpu;
pub mod graticule;
pub mod region;

use crate::colour::Depth;
use crate::engine::histogram::{channel_bin_at, luma_bin_at, luma_numerator};
pub use region::{Region, RegionError};

/// Why a region or scope could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error(transparent)]
    Region(#[from] RegionError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}

/// The vectorscope's side: 256 cb columns by 256 cr rows.
pub const VECTORSCOPE_SIDE: u32 = 256;
/// Denominators of cb and cr (BT.709: 2·(1 − Kb) and 2·(1 − Kr), times 10000).
pub const CB_DIVISOR: u32 = 18556;
pub const CR_DIVISOR: u32 = 15748;
/// The waveform's columns by default, and the most it takes.
pub const DEFAULT_COLUMNS: u32 = 1024;
pub const MAX_COLUMNS: u32 = 4096;

/// Which scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ScopeKind {
    /// Luminance bins per column.
    #[default]
    Waveform,
    /// R, G and B bins per column, side by side.
    Parade,
    /// Chroma: a 256×256 density of (cb, cr).
    Vectorscope,
    /// CIE 1931 xy chromaticity in linear light: an N×N density over x, y in [0, 1).
    Cie,
}

impl ScopeKind {
    pub fn name(self) -> &'static str {
        match self {
            ScopeKind::Waveform => "waveform",
            ScopeKind::Parade => "parade",
            ScopeKind::Vectorscope => "vectorscope",
            ScopeKind::Cie => "cie",
        }
    }

    /// The name people read (OSD, reports).
    pub fn title(self) -> &'static str {
        match self {
            ScopeKind::Waveform => "waveform",
            ScopeKind::Parade => "RGB parade",
            ScopeKind::Vectorscope => "vectorscope",
            ScopeKind::Cie => "CIE 1931 xy",
        }
    }

    /// Whether this scope is a 2-D density drawn in a square (the vectorscope and the CIE
    /// diagram) rather than columns across the frame.
    pub fn is_square(self) -> bool {
        matches!(self, ScopeKind::Vectorscope | ScopeKind::Cie)
    }

    /// The columns (the CIE diagram: cells a side) the player and `render` count this scope
    /// in; the vectorscope has none.
    pub fn display_columns(self) -> u32 {
        match self {
            ScopeKind::Cie => cie::DISPLAY_SIZE,
            _ => DEFAULT_COLUMNS,
        }
    }

    /// Planes of C×N counts a columns scope keeps: 1 (luminance) or 3 (R, G, B).
    pub fn planes(self) -> u32 {
        match self {
            ScopeKind::Parade => 3,
            _ => 1,
        }
    }
}

/// Column of pixel `x` in a `width`-pixel row split in `columns`: ⌊x·C/W⌋.
#[inline]
pub fn column_of(x: u32, width: u32, columns: u32) -> u32 {
    (u64::from(x) * u64::from(columns) / u64::from(width)) as u32
}

/// The first pixel of column `c`: ⌈c·W/C⌉ (so column c holds pixels first_pixel(c)..first_pixel(c+1)).
#[inline]
pub fn first_pixel(column: u32, width: u32, columns: u32) -> u32 {
    (u64::from(column) * u64::from(width)).div_ceil(u64::from(columns)) as u32
}

/// (cb, cr) of a pixel's b-bit R′G′B′, each 0..=255, grey at (128, 128).
#[inline]
pub fn chroma(rgb: [u32; 3], depth: Depth) -> (u32, u32) {
    let y = luma_numerator(rgb[0], rgb[1], rgb[2]);
    let half = 1u32 << (depth.bits() - 1);
    let extra = 1u32 << (depth.bits() - 8);
    let cb = (10_000 * rgb[2] + half * CB_DIVISOR - y) / (CB_DIVISOR * extra);
    let cr = (10_000 * rgb[0] + half * CR_DIVISOR - y) / (CR_DIVISOR * extra);
    (cb.min(255), cr.min(255))
}

/// Counts of a columns scope: `planes` planes (1 for the waveform; R, G, B for the parade) of
/// `columns` columns of `bins` counts, in that order (the GPU's layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnCounts {
    pub columns: u32,
    pub bins: u32,
    pub planes: u32,
    pub counts: Vec<u32>,
}

impl ColumnCounts {
    pub fn zeroed(planes: u32, columns: u32, bins: u32) -> Self {
        Self {
            columns,
            bins,
            planes,
            counts: vec![0; (planes * columns * bins) as usize],
        }
    }

    /// Bins of one column of one plane.
    pub fn column(&self, plane: u32, column: u32) -> &[u32] {
        let start = ((plane * self.columns + column) * self.bins) as usize;
        &self.counts[start..start + self.bins as usize]
    }

    /// Pixels counted in one plane.
    pub fn total(&self, plane: u32) -> u64 {
        let plane_len = (self.columns * self.bins) as usize;
        let start = plane as usize * plane_len;
        self.counts[start..start + plane_len]
            .iter()
            .map(|&c| u64::from(c))
            .sum()
    }
}

/// CPU reference: the waveform (`kind` Waveform) or parade of packed pixels, row by row,
/// `width` per row.
pub fn column_scope(kind: ScopeKind, words: &[u32], width: u32, columns: u32, bins: u32, depth: Depth) -> ColumnCounts {
    let mut out = ColumnCounts::zeroed(kind.planes(), columns, bins);
    let plane_len = (columns * bins) as usize;
    for row in words.chunks_exact(width as usize) {
        for (x, &word) in row.iter().enumerate() {
            let column = column_of(x as u32, width, columns) as usize;
            let rgb = depth.unpack(word);
            let at = column * bins as usize;
            if kind == ScopeKind::Parade {
                for (plane, &c) in rgb.iter().enumerate() {
                    out.counts[plane * plane_len + at + channel_bin_at(c, bins, depth) as usize] += 1;
                }
            } else {
                let y = luma_numerator(rgb[0], rgb[1], rgb[2]);
                out.counts[at + luma_bin_at(y, bins, depth) as usize] += 1;
            }
        }
    }
    out
}

/// CPU reference: the vectorscope, 256 rows (cr) of 256 columns (cb).
pub fn vectorscope(words: &[u32], depth: Depth) -> Vec<u32> {
    let mut counts = vec![0u32; (VECTORSCOPE_SIDE * VECTORSCOPE_SIDE) as usize];
    for &word in words {
        let (cb, cr) = chroma(depth.unpack(word), depth);
        counts[(cr * VECTORSCOPE_SIDE + cb) as usize] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::depth::pack_rgb10;

    #[test]
    fn columns_split_rows_evenly() {
        assert_eq!(column_of(0, 1920, 1024), 0);
        assert_eq!(column_of(1919, 1920, 1024), 1023);
        assert_eq!(column_of(15, 16, 4), 3);
        // More columns than pixels: some columns stay empty.
        assert_eq!((0..3).map(|x| column_of(x, 3, 8)).collect::<Vec<_>>(), [0, 2, 5]);
        for (width, columns) in [(1920, 1024), (3840, 1024), (7, 3), (3, 8), (1, 1024)] {
            for c in 0..columns {
                let (first, end) = (first_pixel(c, width, columns), first_pixel(c + 1, width, columns));
                for x in first..end {
                    assert_eq!(column_of(x, width, columns), c, "{width} px, {columns} columns");
                }
            }
            assert_eq!(first_pixel(columns, width, columns), width);
        }
    }

    #[test]
    fn chroma_of_grey_is_the_centre_and_of_primaries_the_edges() {
        for v in [0, 1, 128, 254, 255] {
            assert_eq!(chroma([v, v, v], Depth::Eight), (128, 128), "grey {v}");
        }
        for v in [0, 512, 1023] {
            assert_eq!(chroma([v, v, v], Depth::Ten), (128, 128), "10-bit grey {v}");
        }
        // Blue: cb = (2550000 − 184110 + 2375168) / 18556 = 255.5; red: cr = 255.5.
        assert_eq!(chroma([0, 0, 255], Depth::Eight).0, 255);
        assert_eq!(chroma([255, 0, 0], Depth::Eight).1, 255);
        // Yellow has the least blue, cyan the least red.
        assert_eq!(chroma([255, 255, 0], Depth::Eight).0, 0);
        assert_eq!(chroma([0, 255, 255], Depth::Eight).1, 0);
        // Every 8-bit colour's numerators stay positive and within 0..=255 before the min.
        let (mut lo, mut hi) = (u32::MAX, 0);
        for r in (0..=255).step_by(5) {
            for g in (0..=255).step_by(5) {
                for b in (0..=255).step_by(5) {
                    let (cb, cr) = chroma([r, g, b], Depth::Eight);
                    lo = lo.min(cb).min(cr);
                    hi = hi.max(cb).max(cr);
                }
            }
        }
        assert_eq!((lo, hi), (0, 255));
    }

    #[test]
    fn scopes_count_every_pixel_in_its_column() {
        // 4×2: a black, grey, white and red column pair.
        let px = |r: u8, g: u8, b: u8| u32::from_le_bytes([r, g, b, 255]);
        let row = [px(0, 0, 0), px(128, 128, 128), px(255, 255, 255), px(255, 0, 0)];
        let words: Vec<u32> = row.iter().chain(row.iter()).copied().collect();
        let wave = column_scope(ScopeKind::Waveform, &words, 4, 2, 16, Depth::Eight);
        assert_eq!(wave.total(0), 8);
        assert_eq!(wave.column(0, 0)[0], 2);
        assert_eq!(wave.column(0, 0)[8], 2);
        assert_eq!(wave.column(0, 1)[15], 2);
        assert_eq!(wave.column(0, 1)[3], 2); // red: 0.2126·16 = 3.4
        let parade = column_scope(ScopeKind::Parade, &words, 4, 4, 16, Depth::Eight);
        assert_eq!(parade.column(0, 3)[15], 2);
        assert_eq!(parade.column(1, 3)[0], 2);
        assert_eq!(parade.column(2, 3)[0], 2);
        assert_eq!((parade.total(0), parade.total(1), parade.total(2)), (8, 8, 8));
        let vs = vectorscope(&words, Depth::Eight);
        assert_eq!(vs[(128 * 256 + 128) as usize], 6);
        let (cb, cr) = chroma([255, 0, 0], Depth::Eight);
        assert_eq!(vs[(cr * 256 + cb) as usize], 2);
        let ten = vectorscope(&[pack_rgb10(1023, 0, 0)], Depth::Ten);
        let (cb10, cr10) = chroma([1023, 0, 0], Depth::Ten);
        assert_eq!((cb10, cr10), (cb, cr));
        assert_eq!(ten[(cr10 * 256 + cb10) as usize], 1);
    }
}
