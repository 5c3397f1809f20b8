//! Look-up tables on R'G'B' code values (`--lut FILE`): a `.cube` file's 1D table, 3D table, or
//! 1D shaper before a 3D table, applied to each pixel.
//!
//! A table is read once (`cube::parse`) and turned, for a frame depth, into integer tables
//! (`LutTables`) that the GPU pass (`render::lut`, `shaders/render/lut.wgsl`) and the CPU twin
//! here (`LutTables::apply`) use alike, so the two agree bit for bit:
//! - every input code's place in the table is worked out here in f64: through the 1D table
//!   (linear between rows) and the domain, to a 3D cell index and the position within it in
//!   1/4096ths;
//! - the 3D table's values are held in 1/16384ths, in 16 bits (clamped to −2..2: a display
//!   LUT's outputs lie within 0..1, and the result is clamped to 0..1);
//! - the 3D table is read with **tetrahedral interpolation** (the cell split into six tetrahedra
//!   along its grey diagonal, the one holding the point weighting its four corners), as
//!   FFmpeg's `lut3d=interp=tetrahedral` does, in integers;
//! - a 1D-only table becomes a per-code table (FFmpeg's `lut1d`, linear);
//! - the result is rounded to the nearest code. FFmpeg's filters truncate instead, so a value
//!   may differ from theirs by one code, never more.

pub mod cube;

use super::log::{self, LogEncoding};
use std::path::Path;

/// A table's input range per channel: inputs are scaled from [min, max] to the table's ends
/// and clamped there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Domain {
    /// Where `x` falls in channel `c`'s range, 0..=1.
    fn position(&self, c: usize, x: f64) -> f64 {
        let (lo, hi) = (f64::from(self.min[c]), f64::from(self.max[c]));
        ((x - lo) / (hi - lo)).clamp(0.0, 1.0)
    }
}

/// A 1D table: one curve per channel.
#[derive(Clone, Debug, PartialEq)]
pub struct Table1d {
    pub domain: Domain,
    pub rows: Vec<[f32; 3]>,
}

impl Table1d {
    /// Channel `c` of `x`, linear between rows.
    pub fn apply(&self, c: usize, x: f64) -> f64 {
        let last = self.rows.len() - 1;
        let s = self.domain.position(c, x) * last as f64;
        let below = (s.floor() as usize).min(last - 1);
        let t = s - below as f64;
        let (a, b) = (f64::from(self.rows[below][c]), f64::from(self.rows[below + 1][c]));
        a + (b - a) * t
    }
}

/// A 3D table of `size`³ rows, red changing fastest.
#[derive(Clone, Debug, PartialEq)]
pub struct Table3d {
    pub domain: Domain,
    pub size: usize,
    pub rows: Vec<[f32; 3]>,
}

/// A `.cube` file's tables.
#[derive(Clone, Debug, PartialEq)]
pub struct Lut {
    pub title: Option<String>,
    /// The 1D table: the whole LUT, or the shaper before `cube`.
    pub shaper: Option<Table1d>,
    pub cube: Option<Table3d>,
    /// No table: the display rendering of a camera log encoding (`colour::log::display`),
    /// computed for each pixel.
    pub log: Option<LogEncoding>,
}

/// Why a LUT couldn't be loaded: one line, naming the file (and the line in it).
#[derive(Debug, thiserror::Error)]
pub enum LutError {
    #[error("{path}: {reason}")]
    Read { path: String, reason: std::io::Error },
    #[error("{path}: {reason}")]
    Parse { path: String, reason: cube::CubeError },
    #[error("{path}: not a .cube file (histoplay reads the .cube format of Resolve and Adobe)")]
    Format { path: String },
}

impl Lut {
    /// Reads a `.cube` file.
    pub fn load(path: &Path) -> Result<Self, LutError> {
        let shown = path.display().to_string();
        let is_cube = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("cube"));
        if !is_cube {
            return Err(LutError::Format { path: shown });
        }
        // (Its 256³ rows as text take about 400 MB: a larger file is no table, `/dev/zero`.)
        const LARGEST: u64 = 1 << 30;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| std::io::Read::read_to_end(&mut std::io::Read::take(file, LARGEST + 1), &mut bytes))
            .map_err(|reason| LutError::Read {
                path: shown.clone(),
                reason,
            })?;
        if bytes.len() as u64 > LARGEST {
            let reason = std::io::Error::other("larger than 1 GiB, which no .cube table is");
            return Err(LutError::Read { path: shown, reason });
        }
        let text = String::from_utf8_lossy(&bytes);
        let lut = cube::parse(&text).map_err(|reason| LutError::Parse {
            path: shown.clone(),
            reason,
        })?;
        // The 3D table's values are held within −2..2 (`VALUE_BITS`): said where some are not.
        let beyond = lut.cube.as_ref().map_or(0, |cube| {
            let most = f32::from(i16::MAX) / VALUE_ONE as f32;
            cube.rows.iter().flatten().filter(|v| v.abs() > most).count()
        });
        if beyond > 0 {
            ::log::warn!(
                "{shown}: {beyond} of its 3D table's values lie beyond -2..2, where histoplay holds them: \
                 taken as -2 or 2, the colours made from them are not the table's"
            );
        }
        Ok(lut)
    }

    /// The display rendering of a camera log encoding to BT.709, as a LUT.
    pub fn log_view(encoding: LogEncoding) -> Self {
        Self {
            title: Some(format!("{} to BT.709", encoding.label())),
            shaper: None,
            cube: None,
            log: Some(encoding),
        }
    }

    /// Its name for the OSD: the title, else the file's.
    pub fn describe(&self) -> String {
        if self.log.is_some() {
            return self.title.clone().unwrap_or_default();
        }
        let kind = match (&self.shaper, &self.cube) {
            (Some(s), Some(c)) => format!("1D {} + 3D {}³", s.rows.len(), c.size),
            (Some(s), None) => format!("1D {}", s.rows.len()),
            (None, Some(c)) => format!("3D {}³", c.size),
            (None, None) => "empty".into(),
        };
        match &self.title {
            Some(title) if !title.is_empty() => format!("{title} ({kind})"),
            _ => kind,
        }
    }
}

/// Bits of the position within a 3D cell.
pub const FRACTION_BITS: u32 = 12;
const FRACTION_ONE: u32 = 1 << FRACTION_BITS;
/// Bits below the point of the 3D table's values.
pub const VALUE_BITS: u32 = 14;
const VALUE_ONE: i32 = 1 << VALUE_BITS;

/// A LUT made ready for frames of one depth: what the GPU pass uploads and the CPU twin reads.
#[derive(Clone, Debug, PartialEq)]
pub struct LutTables {
    pub bits: u32,
    /// 0 when there is no 3D table (`codes` is the whole LUT).
    pub size: u32,
    /// 3D table: for each channel's input code (R's 2^bits, then G's, then B's), its cell
    /// index `<< 13` | its position in the cell in 1/4096ths (0..=4096).
    /// 1D-only: each channel's output code.
    pub codes: Vec<u32>,
    /// The 3D table's rows (r, g, b, 0) in 1/16384ths (each within an i16: −2 up to just under
    /// 2), red changing fastest.
    pub cube: Vec<[i32; 4]>,
    /// A log encoding's display rendering: the camera gamut's linear RGB → BT.709's, by rows;
    /// `codes` then holds each input code's scene light (f32 bits), and `size` is 0.
    pub log_rows: Option<[[f32; 4]; 3]>,
}

impl LutTables {
    pub fn new(lut: &Lut, bits: u32) -> Self {
        let codes_per_channel = 1usize << bits;
        let max = (codes_per_channel - 1) as f64;
        if let Some(encoding) = lut.log {
            let light: Vec<u32> = (0..codes_per_channel)
                .map(|code| (encoding.decode(code as f64 / max) as f32).to_bits())
                .collect();
            let rows = encoding
                .to_bt709()
                .map(|row| [row[0] as f32, row[1] as f32, row[2] as f32, 0.0]);
            return Self {
                bits,
                size: 0,
                codes: [light.as_slice(); 3].concat(),
                cube: Vec::new(),
                log_rows: Some(rows),
            };
        }
        let shaped = |c: usize, code: usize| -> f64 {
            let x = code as f64 / max;
            match &lut.shaper {
                Some(shaper) => shaper.apply(c, x),
                None => x,
            }
        };
        let mut codes = Vec::with_capacity(3 * codes_per_channel);
        match &lut.cube {
            None => {
                for c in 0..3 {
                    codes.extend(
                        (0..codes_per_channel).map(|code| (shaped(c, code).clamp(0.0, 1.0) * max).round() as u32),
                    );
                }
                Self {
                    bits,
                    size: 0,
                    codes,
                    cube: Vec::new(),
                    log_rows: None,
                }
            }
            Some(table) => {
                let last = table.size - 1;
                for c in 0..3 {
                    codes.extend((0..codes_per_channel).map(|code| {
                        let u = table.domain.position(c, shaped(c, code)) * last as f64;
                        let index = (u.floor() as usize).min(last - 1);
                        let fraction = ((u - index as f64) * f64::from(FRACTION_ONE)).round() as u32;
                        ((index as u32) << (FRACTION_BITS + 1)) | fraction.min(FRACTION_ONE)
                    }));
                }
                // In 16 bits (the GPU reads a row as 8 bytes): −2 up to just under 2.
                let fixed = |v: f32| {
                    (f64::from(v) * f64::from(VALUE_ONE))
                        .round()
                        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i32
                };
                let cube = table
                    .rows
                    .iter()
                    .map(|r| [fixed(r[0]), fixed(r[1]), fixed(r[2]), 0])
                    .collect();
                Self {
                    bits,
                    size: table.size as u32,
                    codes,
                    cube,
                    log_rows: None,
                }
            }
        }
    }

    /// The 3D table's rows as the GPU reads them, 8 bytes each: R and G in the low and high
    /// halves of the first word, B in the low half of the second.
    pub fn packed_cube(&self) -> Vec<[u32; 2]> {
        let half = |v: i32| u32::from(v as i16 as u16);
        self.cube
            .iter()
            .map(|v| [half(v[0]) | half(v[1]) << 16, half(v[2])])
            .collect()
    }

    /// Packed pixels (RGBA8 words, or RGB10A2 at 10 bits, as frames are held) through the
    /// table: the CPU twin of the whole pass.
    pub fn apply_words(&self, words: &[u32]) -> Vec<u32> {
        let (shift, mask) = if self.bits == 10 { (10, 0x3ff) } else { (8, 0xff) };
        let alpha = if self.bits == 10 { 0xc000_0000 } else { 0xff00_0000 };
        words
            .iter()
            .map(|&w| {
                let out = self.apply([w & mask, (w >> shift) & mask, (w >> (2 * shift)) & mask]);
                out[0] | (out[1] << shift) | (out[2] << (2 * shift)) | alpha
            })
            .collect()
    }

    /// The output codes of an input pixel's R', G' and B' codes: the CPU twin of
    /// `shaders/render/lut.wgsl`, step for step.
    pub fn apply(&self, rgb: [u32; 3]) -> [u32; 3] {
        let per_channel = 1usize << self.bits;
        let code = |c: usize| self.codes[c * per_channel + rgb[c] as usize];
        if let Some(rows) = &self.log_rows {
            let top = ((1u32 << self.bits) - 1) as f32;
            let shown = log::display_f32([0, 1, 2].map(|c| f32::from_bits(code(c))), rows);
            return shown.map(|v| (v.clamp(0.0, 1.0) * top + 0.5).floor() as u32);
        }
        if self.size == 0 {
            return [code(0), code(1), code(2)];
        }
        let mask = (1u32 << (FRACTION_BITS + 1)) - 1;
        let place = [code(0), code(1), code(2)];
        let index = place.map(|p| p >> (FRACTION_BITS + 1));
        let d = place.map(|p| (p & mask) as i32);
        let n = self.size;
        let at = |dr: u32, dg: u32, db: u32| -> [i32; 4] {
            self.cube[(((index[2] + db) * n + index[1] + dg) * n + index[0] + dr) as usize]
        };
        let one = FRACTION_ONE as i32;
        let (r, g, b) = (d[0], d[1], d[2]);
        // The tetrahedron holding the point, and its corners' weights (they sum to `one`).
        let corners: [([u32; 3], i32); 4] = if r > g {
            if g > b {
                [
                    ([0, 0, 0], one - r),
                    ([1, 0, 0], r - g),
                    ([1, 1, 0], g - b),
                    ([1, 1, 1], b),
                ]
            } else if r > b {
                [
                    ([0, 0, 0], one - r),
                    ([1, 0, 0], r - b),
                    ([1, 0, 1], b - g),
                    ([1, 1, 1], g),
                ]
            } else {
                [
                    ([0, 0, 0], one - b),
                    ([0, 0, 1], b - r),
                    ([1, 0, 1], r - g),
                    ([1, 1, 1], g),
                ]
            }
        } else if b > g {
            [
                ([0, 0, 0], one - b),
                ([0, 0, 1], b - g),
                ([0, 1, 1], g - r),
                ([1, 1, 1], r),
            ]
        } else if b > r {
            [
                ([0, 0, 0], one - g),
                ([0, 1, 0], g - b),
                ([0, 1, 1], b - r),
                ([1, 1, 1], r),
            ]
        } else {
            [
                ([0, 0, 0], one - g),
                ([0, 1, 0], g - r),
                ([1, 1, 0], r - b),
                ([1, 1, 1], b),
            ]
        };
        let mut sum = [0i32; 3];
        for (offset, weight) in corners {
            let value = at(offset[0], offset[1], offset[2]);
            for c in 0..3 {
                sum[c] += weight * value[c];
            }
        }
        let max = (1u32 << self.bits) - 1;
        sum.map(|s| {
            // 1/2^26ths to 1/16384ths, rounded, clamped to 0..=1, then to the nearest code.
            let v = ((s + (1 << (FRACTION_BITS - 1))) >> FRACTION_BITS).clamp(0, VALUE_ONE) as u32;
            (v * max + (1 << (VALUE_BITS - 1))) >> VALUE_BITS
        })
    }
}

/// The LUT the picture is shown through: the one given (`--lut`, made for the footage), else
/// the display rendering of the log encoding in force, else none.
pub fn picture_lut(given: Option<&std::sync::Arc<Lut>>, encoding: Option<LogEncoding>) -> Option<std::sync::Arc<Lut>> {
    given
        .cloned()
        .or_else(|| encoding.map(|e| std::sync::Arc::new(Lut::log_view(e))))
}

#[cfg(test)]
mod tests;
