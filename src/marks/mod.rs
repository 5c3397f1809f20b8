//! Marks on the picture: false colour, zebras, focus peaking, gamut and broadcast-range
//! warnings. A pass over the converted (and adjusted) frame classifies every pixel into a word
//! (`word`), which the picture pass draws from; `classify` is its CPU twin, on the same integer
//! codes. Everything the pass compares with is an integer code worked out here once
//! (`MarkParams`), so the two agree exactly; the gamut test alone is floating point.
//!
//! - Luma is the source matrix's weighted sum of the frame's R'G'B' codes, in 16-bit fixed
//!   point. Percent is of the converted range: 0 is black, 100 white (for limited-range video,
//!   Y' 16 and 235: IRE).
//! - False colour: the band of the scale (`scale`) holding the pixel's luma; levels in nits go
//!   through the source's EOTF (PQ; HLG at 1000 nits with its 1.2 system gamma; BT.1886 at 100
//!   nits for SDR).
//! - Zebras: luma at or above a level (95% by default), and a second, lower one if set.
//! - Focus peaking: a Sobel gradient of the luma (|Gx| + |Gy|, edges clamped) at or above the
//!   gradient of a step of `peaking` percent.
//! - Gamut: sources of wider primaries than BT.709 (BT.2020, Display P3; a BT.709 frame is
//!   inside BT.709 as converted): the pixel's linear light (through the source's EOTF), taken
//!   from its primaries to BT.709's, has a component below -`GAMUT_TOLERANCE` × its luminance.
//! - Range: limited-range Y'CbCr sources, read from the decoded planes as FFmpeg's
//!   `signalstats` reads them for BRNG: Y' outside 16–235 or the pixel's Cb or Cr outside 16–240
//!   (scaled to the depth).

pub mod gpu;
pub mod scale;

use crate::colour::primaries::gamut_rows;
use crate::colour::transfer::{bt1886_eotf, hlg_inverse_oetf, pq_eotf};
use crate::colour::{ColorVolume, LogEncoding, Primaries, Range, Transfer};
use crate::video::format::{Component, FrameFormat, PlaneLayout};
use scale::{FalseColourScale, Unit, MAX_BANDS};

/// One of the marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    FalseColour,
    Zebra,
    Peaking,
    Gamut,
    Range,
}

impl Mark {
    pub const ALL: [Mark; 5] = [Mark::FalseColour, Mark::Zebra, Mark::Peaking, Mark::Gamut, Mark::Range];

    /// Its bit in `MarkSet` (and in the pass's `compute`, the picture's `shown`).
    pub const fn bit(self) -> u32 {
        match self {
            Mark::FalseColour => 1,
            Mark::Zebra => 2,
            Mark::Peaking => 4,
            Mark::Gamut => 8,
            Mark::Range => 16,
        }
    }

    /// Its name on the command line (`render --overlay`) and in input.conf.
    pub fn name(self) -> &'static str {
        match self {
            Mark::FalseColour => "false-colour",
            Mark::Zebra => "zebra",
            Mark::Peaking => "peaking",
            Mark::Gamut => "gamut",
            Mark::Range => "range",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "false-color" => Some(Mark::FalseColour),
            _ => Mark::ALL.into_iter().find(|m| m.name() == name),
        }
    }
}

/// A set of marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MarkSet(pub u32);

impl MarkSet {
    pub fn has(self, mark: Mark) -> bool {
        self.0 & mark.bit() != 0
    }

    pub fn with(self, mark: Mark, on: bool) -> Self {
        if on {
            Self(self.0 | mark.bit())
        } else {
            Self(self.0 & !mark.bit())
        }
    }

    pub fn toggled(self, mark: Mark) -> Self {
        self.with(mark, !self.has(mark))
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Mark> {
        Mark::ALL.into_iter().filter(move |&m| self.has(m))
    }

    /// "zebra 95% + peaking", for the OSD.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Mark::name).collect()
    }
}

/// The bits of a pixel's word: its false-colour band (1..=15, 0: none) in the lowest four.
pub const WORD_BAND: u32 = 0xf;
pub const WORD_ZEBRA: u32 = 1 << 4;
pub const WORD_ZEBRA_LOW: u32 = 1 << 5;
pub const WORD_PEAKING: u32 = 1 << 6;
pub const WORD_GAMUT: u32 = 1 << 7;
pub const WORD_RANGE: u32 = 1 << 8;

/// A pixel is outside BT.709 when a linear component there is below -this × its luminance.
pub const GAMUT_TOLERANCE: f32 = 1.0 / 256.0;
/// The zebra level with none set, and the second one's when it is asked for without a level.
pub const DEFAULT_ZEBRA: f32 = 95.0;
pub const DEFAULT_ZEBRA_LOW: f32 = 70.0;
/// Peaking marks edges at least as steep as a step of this much of the range.
pub const DEFAULT_PEAKING: f32 = 12.0;
/// The steps peaking takes, in percent.
pub const PEAKING_RANGE: std::ops::RangeInclusive<f32> = 1.0..=50.0;

/// What the viewer chose: the marks shown and their levels.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkSettings {
    pub shown: MarkSet,
    /// Zebra levels in percent: the upper one, and a lower one if any.
    pub zebra: f32,
    pub zebra_low: Option<f32>,
    /// Peaking's step in percent of the range (lower is more sensitive).
    pub peaking: f32,
    /// The false-colour scale; None: the default for the source.
    pub scale: Option<FalseColourScale>,
    /// The camera log encoding in force, if any: the default false colour is then in stops
    /// from 18% grey (`FalseColourScale::stops`), and zebra levels are percent of scene light
    /// (100%: a white card's light, not the signal's top).
    pub exposure: Option<LogEncoding>,
}

impl Default for MarkSettings {
    fn default() -> Self {
        Self {
            shown: MarkSet::default(),
            zebra: DEFAULT_ZEBRA,
            zebra_low: None,
            peaking: DEFAULT_PEAKING,
            scale: None,
            exposure: None,
        }
    }
}

impl MarkSettings {
    /// The scale used for a source of `volume`.
    pub fn scale_for(&self, volume: &ColorVolume) -> FalseColourScale {
        self.scale.clone().unwrap_or_else(|| match self.exposure {
            Some(_) => FalseColourScale::stops(),
            None => FalseColourScale::default_for(volume.is_hdr()),
        })
    }
}

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

/// Linear light of each code of `bits` (index: code) for the gamut test: through the source's
/// EOTF, relative to its peak (PQ: 10000 nits; HLG: scene light; SDR: BT.1886).
pub fn linear_table(transfer: Transfer, bits: u32) -> Vec<f32> {
    let white = (1u32 << bits) - 1;
    (0..=white)
        .map(|c| {
            let signal = c as f32 / white as f32;
            match transfer {
                Transfer::Pq => pq_eotf(signal) / 10000.0,
                Transfer::Hlg => hlg_inverse_oetf(signal),
                Transfer::Sdr => bt1886_eotf(signal),
            }
        })
        .collect()
}

/// Whether the gamut warning applies to a source of `volume`: one of wider primaries than
/// BT.709 (on a BT.709 source it never marks a pixel).
pub fn gamut_applies(volume: &ColorVolume) -> bool {
    volume.primaries != Primaries::Bt709
}

/// How far inside BT.709 a pixel of codes `rgb` is: its least linear BT.709 component plus the
/// tolerance × its luminance (negative: outside), through `params.gamut_rows`. The test is
/// floating point, so the GPU may decide otherwise where this is within a few units of the
/// last place of zero.
pub fn gamut_margin(rgb: [u32; 3], table: &[f32], params: &MarkParams) -> f32 {
    let lin = rgb.map(|c| table[c as usize]);
    let row = |r: usize| {
        let w = params.gamut_rows[r];
        w[0] * lin[0] + w[1] * lin[1] + w[2] * lin[2]
    };
    let c = [row(0), row(1), row(2)];
    c[0].min(c[1]).min(c[2]) + params.gamut_tolerance * row(3)
}

/// The frame's R'G'B' codes from a packed word (RGBA8, or RGB10A2 with `ten_bit`).
pub fn unpack(word: u32, ten_bit: bool) -> [u32; 3] {
    if ten_bit {
        [word & 1023, (word >> 10) & 1023, (word >> 20) & 1023]
    } else {
        [word & 255, (word >> 8) & 255, (word >> 16) & 255]
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

/// A pass word (8 bits a pixel): the luma class in the low 5 bits, then peaking, gamut, range.
const PASS_PEAKING: u32 = 1 << 5;
const PASS_GAMUT: u32 = 1 << 6;
const PASS_RANGE: u32 = 1 << 7;

/// u32s per row of the pass's words, four pixels to each.
pub fn row_words(width: u32) -> u32 {
    width.div_ceil(4)
}

/// Pixels' words as the pass writes them: 8 bits each (`PASS_*`, the luma's class from
/// `classes`), four to a u32 (the first in the low byte), rows of `row_words`.
pub fn pack_words(words: &[u32], classes: &LumaClasses, width: usize, height: usize) -> Vec<u32> {
    let row = row_words(width as u32) as usize;
    let mut packed = vec![0; row * height];
    for y in 0..height {
        for x in 0..width {
            let word = words[y * width + x];
            let luma = word & (WORD_BAND | WORD_ZEBRA | WORD_ZEBRA_LOW);
            let class = classes
                .marks
                .iter()
                .position(|&m| m == luma)
                .expect("a class of the luma") as u32;
            let flag = |logical, pass| if word & logical != 0 { pass } else { 0 };
            let byte =
                class | flag(WORD_PEAKING, PASS_PEAKING) | flag(WORD_GAMUT, PASS_GAMUT) | flag(WORD_RANGE, PASS_RANGE);
            packed[y * row + x / 4] |= byte << (8 * (x % 4));
        }
    }
    packed
}

/// Each pixel's word from the pass's (`pack_words`).
pub fn unpack_words(packed: &[u32], classes: &LumaClasses, width: usize, height: usize) -> Vec<u32> {
    let row = row_words(width as u32) as usize;
    (0..width * height)
        .map(|i| {
            let (x, y) = (i % width, i / width);
            let byte = (packed[y * row + x / 4] >> (8 * (x % 4))) & 0xff;
            let flag = |pass, logical| if byte & pass != 0 { logical } else { 0 };
            classes.marks[(byte & 31) as usize]
                | flag(PASS_PEAKING, WORD_PEAKING)
                | flag(PASS_GAMUT, WORD_GAMUT)
                | flag(PASS_RANGE, WORD_RANGE)
        })
        .collect()
}

fn luma(params: &MarkParams, rgb: [u32; 3]) -> u32 {
    (params.luma[0] * rgb[0] + params.luma[1] * rgb[1] + params.luma[2] * rgb[2] + 32768) >> 16
}

/// The CPU twin of the pass: every pixel's word, from the frame's packed pixels (`width` ×
/// `height`, as `GpuFrame::pixels` holds them) and, for the range test, its decoded planes
/// (Y, then Cb and Cr where there are; `components`).
pub fn classify(params: &MarkParams, table: &[f32], pixels: &[u32], planes: Option<&[Component]>) -> Vec<u32> {
    let (w, h) = (params.width as usize, params.height as usize);
    let ten_bit = params.ten_bit != 0;
    let lumas: Vec<u32> = pixels[..w * h]
        .iter()
        .map(|&p| luma(params, unpack(p, ten_bit)))
        .collect();
    let luma_at = |x: isize, y: isize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        lumas[y * w + x] as i32
    };
    let compute = MarkSet(params.compute);
    let mut words = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let mut word = params.luma_marks(lumas[i]);
            if compute.has(Mark::Peaking) {
                let (xi, yi) = (x as isize, y as isize);
                let p = |dx, dy| luma_at(xi + dx, yi + dy);
                let gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
                let gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
                if gx.unsigned_abs() + gy.unsigned_abs() >= params.peaking {
                    word |= WORD_PEAKING;
                }
            }
            if compute.has(Mark::Gamut)
                && params.gamut != 0
                && gamut_margin(unpack(pixels[i], ten_bit), table, params) < 0.0
            {
                word |= WORD_GAMUT;
            }
            if compute.has(Mark::Range) && params.range_applies != 0 {
                if let Some(planes) = planes {
                    if out_of_range(params, planes, x, y) {
                        word |= WORD_RANGE;
                    }
                }
            }
            words[i] = word;
        }
    }
    words
}

/// signalstats' BRNG test of pixel (x, y): its Y', and the Cb and Cr it is drawn with.
fn out_of_range(params: &MarkParams, planes: &[Component], x: usize, y: usize) -> bool {
    let [y_min, y_max, c_min, c_max] = params.range;
    let luma = planes[0].sample(x, y);
    if luma < y_min || luma > y_max {
        return true;
    }
    if planes.len() < 3 {
        return false;
    }
    let (cx, cy) = (x >> params.planes[1], y >> params.planes[2]);
    planes[1..3].iter().any(|c| {
        let v = c.sample(cx, cy);
        v < c_min || v > c_max
    })
}

/// Twin of `MarkStyle` in shaders/render/picture.wgsl: what the picture pass draws from the
/// words.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MarkStyle {
    /// The marks drawn (`Mark::bit`s; 0: none).
    pub shown: u32,
    pub width: u32,
    pub height: u32,
    /// u32s per row of the pass's words (four pixels each).
    pub row_words: u32,
    /// Each band's colour (index: the word's band; alpha 0: grey).
    pub colours: [[f32; 4]; 16],
    /// Each luma class's marks (band and zebra bits), four to an entry.
    pub classes: [[u32; 4]; LUMA_CLASSES / 4],
}

impl MarkStyle {
    pub fn none() -> Self {
        bytemuck::Zeroable::zeroed()
    }

    /// The style of `shown` marks with `scale`'s colours, for words of a `width` × `height`
    /// frame whose luma classes are `classes`.
    pub fn new(shown: MarkSet, scale: &FalseColourScale, classes: &LumaClasses, width: u32, height: u32) -> Self {
        let mut colours = [[0.0; 4]; 16];
        for (i, band) in scale.bands.iter().take(MAX_BANDS).enumerate() {
            let [r, g, b] = band.colour.map(|c| f32::from(c) / 255.0);
            colours[i + 1] = [r, g, b, 1.0];
        }
        let mut class_marks = [[0; 4]; LUMA_CLASSES / 4];
        for (c, &m) in classes.marks.iter().enumerate() {
            class_marks[c / 4][c % 4] = m;
        }
        Self {
            shown: shown.0,
            width,
            height,
            row_words: row_words(width),
            colours,
            classes: class_marks,
        }
    }
}

#[cfg(test)]
mod tests;
