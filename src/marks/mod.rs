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

mod cpu;
mod gamut;
pub mod gpu;
mod params;
pub mod scale;
mod words;

pub use cpu::{classify, unpack};
pub use gamut::{gamut_applies, gamut_margin, linear_table};
pub use params::{LumaClasses, MarkParams, LUMA_CLASSES, NEVER, PLANES_GREY, PLANES_NONE, PLANES_SEMI, PLANES_YUV};
pub use words::{pack_words, row_words, unpack_words, MarkStyle};

use crate::colour::{ColorVolume, LogEncoding};
use scale::FalseColourScale;

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

#[cfg(test)]
mod tests;
