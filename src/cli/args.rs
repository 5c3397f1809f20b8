//! The options several commands share (picture adjustments, marks, the graticule, a
//! comparison) and the parsers of the values they take: sizes, memory sizes, speeds, bins.

use crate::compare::align::AlignBy;
use crate::compare::composite::CompareMode;
use crate::engine::histogram;
use crate::marks::scale::FalseColourScale;
use crate::marks::{Mark, MarkSet, MarkSettings};
use crate::render::adjust::{Adjustments, AutoMode};
use crate::scope::graticule::{Level, Scale};
use crate::scope::{self, Region};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Comparing two files: in the window (`histoplay A --compare B`) and in `render`.
#[derive(clap::Args, Clone, Debug)]
pub struct CompareArgs {
    /// Compare with this file, the one judged (the file played or rendered is the reference):
    /// wipe, side by side, difference and flicker; in the window, both histograms and the PSNR
    /// and SSIM of each pair.
    #[arg(long, value_name = "JUDGED")]
    pub compare: Option<PathBuf>,
    /// How the comparison shows the two (in the window, keys C, B, k and K change it).
    #[arg(long, value_enum, default_value_t = CompareMode::Wipe, requires = "compare")]
    pub compare_mode: CompareMode,
    /// Where the wipe's line is, as a share of the width from the left (in the window, a
    /// left-drag on the picture moves it).
    #[arg(long, default_value_t = 0.5, requires = "compare", value_parser = parse_share)]
    pub split: f64,
    /// The difference's gain, 1 to 64.
    #[arg(long, default_value_t = 8, requires = "compare", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub gain: u32,
    /// Pair frame K with the judged file's frame K+N (aligned by time: N of its frames later;
    /// in the window, Ctrl+, and Ctrl+. change it).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, requires = "compare")]
    pub offset: i64,
    /// Pair the frames by number, or by time (the judged file's latest frame at each frame's
    /// time, for files of different frame rates, as `compare --compare-by time`).
    #[arg(long, value_enum, default_value_t = AlignBy::Frame, requires = "compare")]
    pub compare_by: AlignBy,
    /// The model the window's VMAF (with the timeline shown) scores with: vmaf_v0.6.1 (the
    /// default), vmaf_v0.6.1neg, vmaf_4k_v0.6.1, or path=FILE.json (as `compare --vmaf-model`).
    #[arg(long, value_name = "MODEL", requires = "compare")]
    pub vmaf_model: Option<String>,
}

impl CompareArgs {
    /// The comparison asked for, its VMAF model loaded (an error where it is no model).
    pub fn options(&self) -> Result<Option<crate::compare::CompareOptions>> {
        let Some(path) = self.compare.clone() else {
            return Ok(None);
        };
        let model = self
            .vmaf_model
            .as_deref()
            .unwrap_or(crate::compare::vmaf::DEFAULT_MODEL);
        let vmaf_model = crate::compare::vmaf::load_model(model).map_err(anyhow::Error::msg)?;
        Ok(Some(crate::compare::CompareOptions {
            path,
            by: self.compare_by,
            offset: self.offset,
            mode: self.compare_mode,
            split: self.split,
            gain: self.gain,
            vmaf_model,
        }))
    }
}

/// A LUT, as options: the player starts with it, `hist`, `scope` and `render` apply it as the
/// player does.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LutArgs {
    /// Show the picture through a .cube LUT (1D, 3D up to 256³, or a 1D shaper and a 3D
    /// table), applied on the GPU with tetrahedral interpolation (key Ctrl+l turns it off and on).
    #[arg(long, value_name = "FILE")]
    pub lut: Option<std::path::PathBuf>,
    /// While a LUT is on, what the histograms and scopes count: the decoded signal, or the
    /// picture as shown through it (key Alt+l).
    #[arg(long, value_name = "signal|display", default_value = "signal")]
    pub scopes_on: crate::pipeline::ScopesOn,
    /// The camera log encoding the video is in (s-log3, s-log3-cine, logc3, logc4, v-log,
    /// c-log2, c-log3, log3g10, f-log, f-log2, bmd-film-gen5, d-log, apple-log): the picture is
    /// shown through its display rendering to BT.709 (or through --lut, a LUT made for it),
    /// false colour is in stops and zebras in scene light. `auto`: the one the file's metadata
    /// names, if any; `none`: the signal as video (key Alt+i cycles).
    #[arg(long, value_name = "NAME|auto|none", default_value = "auto")]
    pub input_colour: crate::colour::log::InputColour,
}

impl LutArgs {
    /// The look for a file whose metadata names the log encoding `tagged`: the LUT `given`
    /// (`load`'s), else the display rendering of the encoding in force.
    pub fn look(
        &self,
        given: Option<&std::sync::Arc<crate::colour::lut::Lut>>,
        tagged: Option<crate::colour::LogEncoding>,
    ) -> crate::pipeline::Look {
        crate::pipeline::Look {
            lut: crate::colour::lut::picture_lut(given, self.input_colour.resolve(tagged)),
            scopes_on: self.scopes_on,
        }
    }

    /// The LUT named, read; None without --lut.
    pub fn load(&self) -> Result<Option<std::sync::Arc<crate::colour::lut::Lut>>, crate::colour::lut::LutError> {
        self.lut
            .as_deref()
            .map(|path| crate::colour::lut::Lut::load(path).map(std::sync::Arc::new))
            .transpose()
    }
}

/// The picture adjustments, as options: the player starts with them, `hist` and `render` apply
/// them as the player does (so a script can reproduce what the window shows).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct AdjustArgs {
    /// Contrast, -100 to 100 (as mpv's; keys 1 and 2).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    pub contrast: i32,
    /// Brightness, -100 to 100 (keys 3 and 4).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    pub brightness: i32,
    /// Gamma, -100 to 100 (keys 5 and 6).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    pub gamma: i32,
    /// Saturation, -100 (grey) to 100 (keys 7 and 8).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    pub saturation: i32,
    /// Stretch each channel so that 0.1% of the pixels clip at each end (key a).
    #[arg(long, conflicts_with = "equalize")]
    pub auto_levels: bool,
    /// Histogram equalisation of the luminance (key n).
    #[arg(long)]
    pub equalize: bool,
}

impl AdjustArgs {
    pub fn adjustments(self) -> Adjustments {
        Adjustments {
            contrast: self.contrast,
            brightness: self.brightness,
            gamma: self.gamma,
            saturation: self.saturation,
            auto: if self.auto_levels {
                AutoMode::Levels
            } else if self.equalize {
                AutoMode::Equalize
            } else {
                AutoMode::Off
            },
        }
    }
}

/// Deinterlacing, as options (mpv's `--deinterlace`, FFmpeg's filters by their syntax).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct DeinterlaceArgs {
    /// Deinterlace: no, yes (every frame) or auto (only frames flagged interlaced, as FFmpeg's
    /// deint=interlaced).
    #[arg(long, value_enum, default_value_t = Deinterlace::No)]
    pub deinterlace: Deinterlace,
    /// The deinterlacer, in FFmpeg's syntax: bwdif or yadif, with mode (send_frame: a frame
    /// for each frame, yadif's default; send_field: one for each field, at twice the rate,
    /// bwdif's default), parity (auto, tff, bff) and deint, e.g. 'bwdif=mode=send_frame' or
    /// 'yadif=1:tff'. The output equals FFmpeg's filter's.
    #[arg(long, value_name = "FILTER", default_value = "bwdif", value_parser = parse_deinterlacer)]
    pub deinterlacer: crate::video::deinterlace::Deinterlacer,
}

/// Whether frames are deinterlaced (mpv's option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Deinterlace {
    #[default]
    No,
    Yes,
    Auto,
}

fn parse_deinterlacer(s: &str) -> Result<crate::video::deinterlace::Deinterlacer, String> {
    s.parse()
}

impl DeinterlaceArgs {
    /// The deinterlacer asked for, if any.
    pub fn filter(self) -> Option<crate::video::deinterlace::Deinterlacer> {
        let filter = self.deinterlacer;
        match self.deinterlace {
            Deinterlace::No => None,
            Deinterlace::Yes => Some(filter),
            Deinterlace::Auto => Some(crate::video::deinterlace::Deinterlacer {
                only_interlaced: true,
                ..filter
            }),
        }
    }
}

/// Marks on the picture, as options: the player starts with them, `render` draws them as the
/// player does.
#[derive(clap::Args, Clone, Debug)]
pub struct MarkArgs {
    /// Marks drawn on the picture, comma-separated: false-colour, zebra, peaking, gamut, range
    /// (keys Y, X, U, D, N).
    #[arg(long, value_delimiter = ',', value_parser = parse_mark)]
    pub overlay: Vec<Mark>,
    /// Zebras over luma at or above this percent of the range (keys Alt+x, Alt+X).
    #[arg(long, default_value_t = crate::marks::DEFAULT_ZEBRA, value_parser = parse_percent)]
    pub zebra: f32,
    /// A second, lower zebra level (e.g. 70), striped the other way.
    #[arg(long, value_parser = parse_percent)]
    pub zebra_low: Option<f32>,
    /// Focus peaking marks edges as steep as a step of this percent of the range (lower marks
    /// more; keys Alt+u, Alt+U).
    #[arg(long, default_value_t = crate::marks::DEFAULT_PEAKING, value_parser = parse_peaking)]
    pub peaking: f32,
    /// A false-colour scale file (bands in percent, nits or stops; see docs/colour.md) instead of the
    /// built-in one.
    #[arg(long)]
    pub false_colour_scale: Option<PathBuf>,
}

impl MarkArgs {
    pub fn settings(&self) -> Result<MarkSettings> {
        let scale = match &self.false_colour_scale {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the false-colour scale '{}'", path.display()))?;
                Some(FalseColourScale::parse(&text).with_context(|| format!("'{}'", path.display()))?)
            }
            None => None,
        };
        Ok(MarkSettings {
            shown: self
                .overlay
                .iter()
                .fold(MarkSet::default(), |set, &m| set.with(m, true)),
            zebra: self.zebra,
            zebra_low: self.zebra_low,
            peaking: self.peaking,
            scale,
            exposure: None,
        })
    }
}

/// The waveform's and parade's graticule, as options: the player starts with it, `render`
/// draws it.
#[derive(clap::Args, Clone, Debug)]
pub struct GraticuleArgs {
    /// The waveform's and parade's graticule in percent, code values, nits (PQ and HLG) or
    /// stops (with a camera log encoding in force; key M).
    #[arg(long, value_enum, default_value_t = Scale::Percent)]
    pub waveform_scale: Scale,
    /// Lines in amber on the waveform and parade at these levels: code values (16,235),
    /// percent (5%,95%), nits (1000nits) or stops from 18% grey (-1st,+2st), comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_level, allow_hyphen_values = true)]
    pub graticule: Vec<Level>,
}

pub fn parse_level(text: &str) -> Result<Level, String> {
    Level::parse(text).ok_or_else(|| {
        format!("'{text}' is not a level: a code value (235), a percent (95%), nits (1000nits) or stops (-1st)")
    })
}

/// How the picture, the histograms and a scope are drawn: in the window (where the keys
/// change them) and in `render`.
#[derive(clap::Args, Clone, Debug)]
pub struct ViewArgs {
    /// Show the whole picture (letterboxed) instead of filling the output (key c in the window).
    #[arg(long)]
    pub contain: bool,
    /// Log-scaled histogram heights (key y).
    #[arg(long)]
    pub log: bool,
    /// Also draw a scope, as the player shows it (key H cycles them).
    #[arg(long, value_enum)]
    pub scope: Option<scope::ScopeKind>,
    /// The vectorscope magnified 2 or 4 times around its centre (key Alt+z).
    #[arg(long, default_value_t = 1, value_parser = parse_zoom)]
    pub vectorscope_zoom: u32,
}

impl ViewArgs {
    /// The view these options ask for, with both histogram quads and no timeline.
    pub fn view(&self) -> crate::render::scene::ViewOptions {
        crate::render::scene::ViewOptions {
            fit: if self.contain {
                crate::render::layout::Fit::Contain
            } else {
                crate::render::layout::Fit::Cover
            },
            quads: crate::render::scene::Quads::Both,
            log_scale: self.log,
            scope: self.scope,
            timeline: false,
            pse: false,
            pse_standard: crate::pse::Standard::Bt1702,
            vectorscope_zoom: self.vectorscope_zoom,
        }
    }
}

pub fn parse_zoom(text: &str) -> Result<u32, String> {
    match text.trim_start_matches(['x', '×']).parse::<u32>() {
        Ok(z) if crate::scope::draw::VECTORSCOPE_ZOOMS.contains(&z) => Ok(z),
        _ => Err(format!("'{text}' is not a magnification: 1, 2 or 4")),
    }
}

pub fn parse_mark(text: &str) -> Result<Mark, String> {
    Mark::parse(text).ok_or_else(|| {
        let names: Vec<&str> = Mark::ALL.iter().map(|m| m.name()).collect();
        format!("'{text}' is not one of {}", names.join(", "))
    })
}

pub fn parse_percent(text: &str) -> Result<f32, String> {
    match text.trim_end_matches('%').parse::<f32>() {
        Ok(v) if (0.0..=110.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a percent from 0 to 110")),
    }
}

pub fn parse_peaking(text: &str) -> Result<f32, String> {
    match text.trim_end_matches('%').parse::<f32>() {
        Ok(v) if (crate::marks::PEAKING_RANGE).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a peaking step from 1 to 50 (percent)")),
    }
}

pub fn parse_bins(s: &str) -> Result<u32, String> {
    let n: u32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    histogram::validate_bins(n).map_err(|e| e.to_string())
}

pub fn parse_region(s: &str) -> Result<Region, String> {
    Region::parse(s).map_err(|e| e.to_string())
}

pub fn parse_columns(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=scope::MAX_COLUMNS).contains(&n) => Ok(n),
        _ => Err(format!(
            "the columns must be a number from 1 to {}, not {s}",
            scope::MAX_COLUMNS
        )),
    }
}

pub fn parse_speed(s: &str) -> Result<f64, String> {
    let speed: f64 = s.parse().map_err(|_| format!("'{s}' is not a speed like 1.5"))?;
    if (crate::clock::MIN_SPEED..=crate::clock::MAX_SPEED).contains(&speed) {
        Ok(speed)
    } else {
        Err(format!("the speed must be from 1/64 to 64, not {s}"))
    }
}

/// `1GiB`, `512M`, `300MB`, `0`: a memory size in bytes (binary units unless spelt KB/MB/GB).
pub fn parse_byte_size(s: &str) -> Result<usize, String> {
    let bad = || format!("'{s}' is not a memory size like 1GiB, 512MiB or 300MB");
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 || bytes > usize::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as usize)
}

pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not a size like 1280x720"))?;
    let parse = |v: &str| v.trim().parse::<u64>().ok();
    match (parse(w), parse(h)) {
        (Some(w @ 1..=65536), Some(h @ 1..=65536)) => Ok((w as u32, h as u32)),
        (Some(_), Some(_)) => Err(format!("'{s}': a side is from 1 to 65536 pixels")),
        _ => Err(format!("'{s}' is not a size like 1280x720")),
    }
}

/// A share of a length: a number from 0 to 1.
pub fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a number from 0 to 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_two_sides_of_1_to_65536() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("65536X1"), Ok((65536, 1)));
        assert_eq!(
            parse_size("100000x100000"),
            Err("'100000x100000': a side is from 1 to 65536 pixels".into())
        );
        assert_eq!(
            parse_size("0x720"),
            Err("'0x720': a side is from 1 to 65536 pixels".into())
        );
        assert_eq!(parse_size("big"), Err("'big' is not a size like 1280x720".into()));
    }
}
