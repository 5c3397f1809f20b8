//! `MarkParams`, what the marks pass compares with: every threshold worked out here once as an
//! integer code (luma weights, zebra levels, false-colour bands, peaking, range limits), so the
//! pass and its CPU twin agree exactly; and the luma classes the pass keeps.

use super::scale::{Unit, MAX_BANDS};
use super::{gamut_applies, row_words, Mark, MarkSet, MarkSettings, GAMUT_TOLERANCE, WORD_ZEBRA, WORD_ZEBRA_LOW};
use crate::colour::primaries::gamut_rows;
use crate::colour::transfer::{bt1886_eotf, hlg_inverse_oetf, pq_eotf};
use crate::colour::{ColorVolume, LogEncoding, Range, Transfer};
use crate::video::format::{FrameFormat, PlaneLayout};

/// A threshold never reached.
pub const NEVER: u32 = u32::MAX;

/// Twin of `MarkParams` in shaders/marks/marks.wgsl: what the pass compares with, all worked
/// out here.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MarkParams {
    pub width: u32,
    pub height: u32,
    /// The marks computed (`Mark::bit`s).
    pub compute: u32,
    /// Whether the packed pixels are RGB10A2 (else RGBA8).
    pub ten_bit: u32,
    /// Luma weights of R', G', B' in 16-bit fixed point (summing to 65536).
    pub luma: [u32; 4],
    /// Zebra thresholds (luma codes): the upper level, the lower (NEVER: none).
    pub zebra: [u32; 4],
    /// The least |Gx| + |Gy| marked.
    pub peaking: u32,
    pub bands: u32,
    /// Whether the gamut test applies (a source of wider primaries than BT.709).
    pub gamut: u32,
    pub gamut_tolerance: f32,
    /// Each band's luma codes: from `band_lo` up to (not including) `band_hi`. (The pass reads
    /// the bands and zebra levels from the class table `luma_classes` makes of them.)
    pub band_lo: [u32; 16],
    pub band_hi: [u32; 16],
    /// Range limits at the planes' depth: Y' min, max; chroma min, max.
    pub range: [u32; 4],
    /// The planes: kind (`PLANES_*`), chroma shift across, down, and the sample mask.
    pub planes: [u32; 4],
    /// The bits below a sample in its texel (P010: 6), whether the range test applies here
    /// (a limited-range Y'CbCr source), whether to keep the words' range bits rather than read
    /// the planes (a frame counted again, its planes gone), and the packed words' row.
    pub sample_shift: u32,
    pub range_applies: u32,
    pub keep_range: u32,
    /// u32s per row of the pass's words (four pixels each).
    pub row_words: u32,
    /// The gamut test's linear rows: the source's RGB to BT.709's R, G and B, then its
    /// luminance (the fourth of each row unused).
    pub gamut_rows: [[f32; 4]; 4],
}

/// `MarkParams::planes[0]`.
pub const PLANES_YUV: u32 = 0;
pub const PLANES_SEMI: u32 = 1;
pub const PLANES_GREY: u32 = 2;
pub const PLANES_NONE: u32 = 3;

/// Code of a luma level in percent: the least code at or above it.
fn percent_code(percent: f64, white: u32) -> u32 {
    let code = (percent / 100.0 * f64::from(white) - 1e-9).ceil();
    code.clamp(0.0, f64::from(white) + 1.0) as u32
}

/// How a luma code's level is read: the source's transfer, and the log encoding in force.
#[derive(Clone, Copy)]
struct Light {
    transfer: Transfer,
    exposure: Option<LogEncoding>,
}

/// The least code whose scene light (through `encoding`) is at least `percent` of a white
/// card's (1.0).
fn scene_percent_code(percent: f64, white: u32, encoding: LogEncoding) -> u32 {
    (0..=white)
        .find(|&c| encoding.decode(f64::from(c) / f64::from(white)) >= percent / 100.0 - 1e-12)
        .unwrap_or(white + 1)
}

/// The light of luma code `code` of `white`, in the scale's unit. Stops are from 18% grey: of
/// scene light through the log encoding in force, else of displayed light relative to
/// reference white (SDR white, HDR's 203 nits).
fn level_of(code: u32, white: u32, unit: Unit, light: Light) -> f64 {
    let signal = f64::from(code) / f64::from(white);
    let transfer = light.transfer;
    match unit {
        Unit::Stops => match light.exposure {
            Some(encoding) => encoding.stops(signal),
            None => {
                let nits = crate::colour::transfer::signal_to_nits([signal as f32; 3], transfer)[0];
                (f64::from(nits) / f64::from(crate::colour::transfer::REFERENCE_WHITE_NITS) / 0.18).log2()
            }
        },
        Unit::Percent => 100.0 * signal,
        Unit::Nits => match transfer {
            Transfer::Pq => f64::from(pq_eotf(signal as f32)),
            Transfer::Hlg => 1000.0 * f64::from(hlg_inverse_oetf(signal as f32)).powf(1.2),
            Transfer::Sdr => 100.0 * f64::from(bt1886_eotf(signal as f32)),
        },
    }
}

/// The codes `[lo, hi)` a band of `from`..`to` holds: the least code at or above each level
/// (the light rises with the code), the top code held by a band reaching the scale's top or the
/// light of the signal's white (1000 nits for HLG, 100 for SDR).
fn band_codes(from: f64, to: f64, top: f64, white: u32, unit: Unit, light: Light) -> (u32, u32) {
    let first_at = |level: f64| {
        (0..=white)
            .find(|&c| level_of(c, white, unit, light) >= level)
            .unwrap_or(white + 1)
    };
    // (Within rounding: HLG's white comes out of single precision a hair under 1000 nits.)
    let white_level = level_of(white, white, unit, light);
    let reaches_top = to >= top || to >= white_level - 1e-4 * white_level.abs();
    let hi = if reaches_top { white + 1 } else { first_at(to) };
    (first_at(from), hi)
}

impl MarkParams {
    /// The pass's settings for frames of `format` and `volume`, converted to `bits` (8 or 10),
    /// computing `compute`.
    pub fn new(
        settings: &MarkSettings,
        compute: MarkSet,
        format: &FrameFormat,
        volume: &ColorVolume,
        bits: u32,
    ) -> Self {
        let white = (1u32 << bits) - 1;
        let (kr, kb) = format.color.matrix.kr_kb();
        let wr = (kr * 65536.0).round() as u32;
        let wb = (kb * 65536.0).round() as u32;
        // Each weight is below 65536: the pass's 8-bit luma takes their two bytes apart.
        assert!(wr > 0 && wb > 0 && wr + wb < 65536, "luma weights of {kr}, {kb}");
        let scale = settings.scale_for(volume);
        let light = Light {
            transfer: volume.transfer,
            exposure: settings.exposure,
        };
        let mut band_lo = [NEVER; 16];
        let mut band_hi = [0; 16];
        for (i, band) in scale.bands.iter().take(MAX_BANDS).enumerate() {
            (band_lo[i], band_hi[i]) = band_codes(band.from, band.to, scale.top(), white, scale.unit, light);
        }
        let zebra_code = |p: f32| match settings.exposure {
            Some(encoding) => scene_percent_code(f64::from(p), white, encoding),
            None => percent_code(f64::from(p), white),
        };
        let zebra_low = settings.zebra_low.map_or(NEVER, zebra_code);
        let step = percent_code(f64::from(settings.peaking), white);
        let (planes, range, sample_shift, range_applies) = range_params(format);
        Self {
            width: format.width,
            height: format.height,
            compute: compute.0,
            ten_bit: u32::from(bits > 8),
            luma: [wr, 65536 - wr - wb, wb, 0],
            zebra: [zebra_code(settings.zebra), zebra_low, 0, 0],
            // A step of `step` codes gives |Gx| = 4 step across it.
            peaking: (4 * step).max(1),
            bands: scale.bands.len().min(MAX_BANDS) as u32,
            gamut: u32::from(gamut_applies(volume)),
            gamut_tolerance: GAMUT_TOLERANCE,
            band_lo,
            band_hi,
            range,
            planes,
            sample_shift,
            range_applies,
            keep_range: 0,
            row_words: row_words(format.width),
            gamut_rows: gamut_rows(volume.primaries),
        }
    }
}

/// The planes' kind and shifts, the range limits at their depth, the sample shift, and whether
/// the range test applies.
fn range_params(format: &FrameFormat) -> ([u32; 4], [u32; 4], u32, u32) {
    let limits = |bits: u32| {
        let mult = 1 << (bits - 8);
        [16 * mult, 235 * mult, 16 * mult, 240 * mult]
    };
    let limited = u32::from(format.color.range == Range::Limited);
    match format.layout {
        PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            bits,
        } => (
            [PLANES_YUV, chroma_shift_x, chroma_shift_y, (1 << bits) - 1],
            limits(bits),
            0,
            limited,
        ),
        PlaneLayout::Nv12 => ([PLANES_SEMI, 1, 1, 0xff], limits(8), 0, limited),
        PlaneLayout::P010 => ([PLANES_SEMI, 1, 1, 0x3ff], limits(10), 6, limited),
        PlaneLayout::Gray { bits } => ([PLANES_GREY, 0, 0, (1 << bits) - 1], limits(bits), 0, limited),
        _ => ([PLANES_NONE, 0, 0, 0], [0; 4], 0, 0),
    }
}

impl MarkParams {
    /// The marks of luma code `l` alone, for those computed: its band and zebra bits.
    pub fn luma_marks(&self, l: u32) -> u32 {
        let compute = MarkSet(self.compute);
        let mut word = 0;
        if compute.has(Mark::FalseColour) {
            if let Some(b) = (0..self.bands as usize).find(|&b| l >= self.band_lo[b] && l < self.band_hi[b]) {
                word |= b as u32 + 1;
            }
        }
        if compute.has(Mark::Zebra) {
            if l >= self.zebra[0] {
                word |= WORD_ZEBRA;
            }
            if l >= self.zebra[1] {
                word |= WORD_ZEBRA_LOW;
            }
        }
        word
    }

    /// What the pass keeps of each luma code: its class (`LumaClasses`).
    pub fn luma_classes(&self) -> LumaClasses {
        let white = if self.ten_bit != 0 { 1023 } else { 255 };
        let mut classes = LumaClasses::default();
        for l in 0..=white {
            let marks = self.luma_marks(l);
            let class = match classes.marks.iter().position(|&m| m == marks) {
                Some(class) => class,
                None => {
                    classes.marks.push(marks);
                    classes.marks.len() - 1
                }
            };
            classes.of_luma.push(class as u32);
        }
        assert!(
            classes.marks.len() <= LUMA_CLASSES,
            "{MAX_BANDS} bands and 2 zebra levels cut the luma axis into at most 31 classes"
        );
        classes
    }
}

/// The pass keeps a pixel's luma marks (band and zebra bits) as a class: each distinct value
/// of `luma_marks` along the luma axis is one, in order of first appearance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LumaClasses {
    /// Each luma code's class.
    pub of_luma: Vec<u32>,
    /// Each class's marks.
    pub marks: Vec<u32>,
}

/// The classes a pass word holds (5 bits).
pub const LUMA_CLASSES: usize = 32;
