//! The waveform's and parade's graticule: lines at round levels of the signal in the unit the
//! viewer reads — percent (IRE for limited-range video), code values (8- or 10-bit, as counted:
//! 16–235 or 64–940 for limited range), or nits for PQ and HLG — and lines at levels the viewer
//! adds (`--graticule 16,235` or `5%,95%` or `100nits`). Each level's place on the scope's
//! vertical axis (0 the converted signal's black, 1 its white) and its label.

use crate::colour::transfer::{bt1886_inverse_eotf, hlg_oetf, pq_inverse_eotf};
use crate::colour::{LogEncoding, Range, Transfer};

/// The unit of the graticule's round levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Scale {
    /// Percent of the signal: 0, 25, 50, 75, 100.
    #[default]
    Percent,
    /// Code values as counted (8 or 10 bits), e.g. 16, 64, 128, 192, 235.
    Codes,
    /// Displayed light, for PQ and HLG: 1, 10, 100, 203, 1000 (and 4000, 10000 for PQ) nits.
    Nits,
    /// Stops from 18% grey, for camera log footage: −6 to +6 by 2, each labelled with its code
    /// value as counted.
    Stops,
}

impl Scale {
    /// The next scale a key gives: nits only where the signal is HDR, stops only where a log
    /// encoding is in force.
    pub fn next(self, hdr: bool, log: bool) -> Self {
        match self {
            Scale::Percent => Scale::Codes,
            Scale::Codes if hdr => Scale::Nits,
            Scale::Codes | Scale::Nits if log => Scale::Stops,
            _ => Scale::Percent,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scale::Percent => "percent",
            Scale::Codes => "code values",
            Scale::Nits => "nits",
            Scale::Stops => "stops",
        }
    }
}

/// What the scope's axis holds: the converted signal's depth, whether it came from limited-range
/// codes, its transfer, and the camera log encoding in force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub bits: u32,
    pub range: Range,
    pub transfer: Transfer,
    pub log: Option<LogEncoding>,
}

impl Axis {
    /// The code value (as counted) at place `at` on the axis.
    fn code_at(&self, at: f64) -> u32 {
        let scale = f64::from(1u32 << (self.bits - 8));
        let code = match self.range {
            Range::Limited => 16.0 * scale + at * 219.0 * scale,
            Range::Full => at * f64::from((1u32 << self.bits) - 1),
        };
        code.round().max(0.0) as u32
    }
}

/// A level the viewer adds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    Percent(f64),
    /// A code value at the counted depth (limited range: 16 is black, 235 white, at 8 bits).
    Code(u32),
    Nits(f64),
    /// Stops from 18% grey: of scene light through the log encoding in force, else of
    /// displayed light relative to white (100 nits for SDR, 203 for HDR).
    Stops(f64),
}

impl Level {
    /// `95%`, `235`, `1000nits`, `-2stops` (or `-2st`).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        if let Some(p) = text.strip_suffix('%') {
            return number(p).map(Level::Percent);
        }
        if let Some(n) = text.strip_suffix("nits") {
            return number(n).map(Level::Nits);
        }
        if let Some(n) = text.strip_suffix("stops").or_else(|| text.strip_suffix("st")) {
            return n.trim().parse::<f64>().ok().filter(|v| v.is_finite()).map(Level::Stops);
        }
        text.parse().ok().map(Level::Code)
    }

    /// Its place on the axis (0 black, 1 white); outside 0..=1 it is off the scope.
    pub fn at(self, axis: &Axis) -> f64 {
        match self {
            Level::Percent(p) => p / 100.0,
            Level::Code(c) => {
                let scale = f64::from(1u32 << (axis.bits - 8));
                match axis.range {
                    Range::Limited => (f64::from(c) - 16.0 * scale) / (219.0 * scale),
                    Range::Full => f64::from(c) / f64::from((1u32 << axis.bits) - 1),
                }
            }
            Level::Nits(n) => f64::from(match axis.transfer {
                Transfer::Pq => pq_inverse_eotf(n as f32),
                Transfer::Hlg => hlg_oetf((n as f32 / 1000.0).powf(1.0 / 1.2)),
                Transfer::Sdr => bt1886_inverse_eotf(n as f32 / 100.0),
            }),
            Level::Stops(s) => match axis.log {
                Some(encoding) => encoding.signal_at_stops(s),
                None => {
                    let white = if axis.transfer == Transfer::Sdr { 100.0 } else { 203.0 };
                    Level::Nits(white * 0.18 * s.exp2()).at(axis)
                }
            },
        }
    }

    fn label(self, axis: &Axis) -> String {
        match self {
            Level::Percent(p) => format!("{p}%"),
            Level::Code(c) => c.to_string(),
            Level::Nits(n) => format!("{n} nits"),
            Level::Stops(s) => {
                let code = axis.code_at(self.at(axis));
                if s == 0.0 {
                    format!("0 st 18% · {code}")
                } else {
                    format!("{s:+} st · {code}")
                }
            }
        }
    }
}

/// A line of the graticule.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Its place on the axis, 0 (black) to 1 (white).
    pub at: f32,
    pub label: String,
    /// A level the viewer added (drawn in amber), not one of the scale's.
    pub chosen: bool,
}

/// The most lines the scope draws: the scale's and the viewer's.
pub const MAX_LINES: usize = 16;

/// The lines of `scale` on `axis`, with `chosen` levels added (those on the scope, up to
/// `MAX_LINES` in all).
pub fn lines(scale: Scale, axis: &Axis, chosen: &[Level]) -> Vec<Line> {
    let scale_levels: Vec<Level> = match scale {
        Scale::Percent => [0.0, 25.0, 50.0, 75.0, 100.0].map(Level::Percent).to_vec(),
        Scale::Codes => {
            let k = 1u32 << (axis.bits - 8);
            let codes = match axis.range {
                Range::Limited => [16, 64, 128, 192, 235],
                Range::Full => [0, 64, 128, 192, 255],
            };
            codes
                .map(|c| Level::Code(if c == 255 { (1 << axis.bits) - 1 } else { c * k }))
                .to_vec()
        }
        Scale::Nits => {
            let top = if axis.transfer == Transfer::Pq { 10000.0 } else { 1000.0 };
            [1.0, 10.0, 100.0, 203.0, 1000.0, 4000.0, 10000.0]
                .into_iter()
                .filter(|&n| n <= top)
                .map(Level::Nits)
                .collect()
        }
        Scale::Stops => [-6.0, -4.0, -2.0, 0.0, 2.0, 4.0, 6.0].map(Level::Stops).to_vec(),
    };
    // Nits beyond the transfer's peak are off the scope (PQ's EOTF would clamp them to its top).
    let peak = match axis.transfer {
        Transfer::Pq => 10000.0,
        Transfer::Hlg => 1000.0,
        Transfer::Sdr => 100.0,
    };
    let on_scope = |l: Level| {
        let at = l.at(axis);
        (-1e-6..=1.0 + 1e-6).contains(&at) && !matches!(l, Level::Nits(n) if n > peak)
    };
    scale_levels
        .into_iter()
        .map(|l| (l, false))
        .chain(chosen.iter().map(|&l| (l, true)))
        .filter(|&(l, _)| on_scope(l))
        .take(MAX_LINES)
        .map(|(l, chosen)| Line {
            at: l.at(axis).clamp(0.0, 1.0) as f32,
            label: l.label(axis),
            chosen,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(bits: u32, range: Range, transfer: Transfer) -> Axis {
        Axis {
            bits,
            range,
            transfer,
            log: None,
        }
    }

    #[test]
    fn levels_parse_in_their_units() {
        assert_eq!(Level::parse("95%"), Some(Level::Percent(95.0)));
        assert_eq!(Level::parse("235"), Some(Level::Code(235)));
        assert_eq!(Level::parse("1000nits"), Some(Level::Nits(1000.0)));
        assert_eq!(Level::parse("bright"), None);
        assert_eq!(Level::parse("-5%"), None);
    }

    #[test]
    fn code_values_land_where_the_converter_puts_them() {
        let sdr8 = axis(8, Range::Limited, Transfer::Sdr);
        assert_eq!(Level::Code(16).at(&sdr8), 0.0);
        assert_eq!(Level::Code(235).at(&sdr8), 1.0);
        let sdr10 = axis(10, Range::Limited, Transfer::Sdr);
        assert_eq!(Level::Code(64).at(&sdr10), 0.0);
        assert_eq!(Level::Code(940).at(&sdr10), 1.0);
        let full = axis(8, Range::Full, Transfer::Sdr);
        assert_eq!(Level::Code(255).at(&full), 1.0);
        // The codes scale of 10-bit limited video: 64 to 940.
        let codes: Vec<String> = lines(Scale::Codes, &sdr10, &[]).into_iter().map(|l| l.label).collect();
        assert_eq!(codes, ["64", "256", "512", "768", "940"]);
    }

    #[test]
    fn nits_land_on_the_pq_signal_and_off_scope_levels_are_dropped() {
        let pq = axis(10, Range::Limited, Transfer::Pq);
        // BT.2408: reference white, 203 nits, is PQ 0.58.
        assert!((Level::Nits(203.0).at(&pq) - 0.5807).abs() < 1e-3);
        let nits = lines(
            Scale::Nits,
            &pq,
            &[Level::Percent(120.0), Level::Nits(600.0), Level::Nits(20000.0)],
        );
        assert_eq!(
            nits.len(),
            8,
            "seven levels of the scale and the one chosen on the scope"
        );
        assert!(nits.last().unwrap().chosen);
        let hlg = axis(10, Range::Limited, Transfer::Hlg);
        // HLG's 1000-nit peak is its signal's top.
        assert!((Level::Nits(1000.0).at(&hlg) - 1.0).abs() < 1e-4);
        assert_eq!(lines(Scale::Nits, &hlg, &[]).len(), 5);
    }

    #[test]
    fn the_key_steps_through_nits_only_for_hdr() {
        assert_eq!(Scale::Percent.next(false, false), Scale::Codes);
        assert_eq!(Scale::Codes.next(false, false), Scale::Percent);
        assert_eq!(Scale::Codes.next(true, false), Scale::Nits);
        assert_eq!(Scale::Codes.next(false, true), Scale::Stops);
        assert_eq!(Scale::Nits.next(true, true), Scale::Stops);
        assert_eq!(Scale::Stops.next(false, true), Scale::Percent);
        assert_eq!(Scale::Nits.next(true, false), Scale::Percent);
    }

    #[test]
    fn stops_land_on_the_log_curve_and_name_their_codes() {
        // S-Log3 in 10-bit limited-range video: 18% grey is signal 420/1023, Y' code
        // 64 + 876·420/1023 = 423.6.
        let slog3 = Axis {
            log: Some(LogEncoding::SLog3),
            ..axis(10, Range::Limited, Transfer::Sdr)
        };
        assert!((Level::Stops(0.0).at(&slog3) - 420.0 / 1023.0).abs() < 1e-9);
        let stops = lines(Scale::Stops, &slog3, &[Level::Stops(-1.0)]);
        let labels: Vec<&str> = stops.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "-6 st · 162",
                "-4 st · 211",
                "-2 st · 303",
                "0 st 18% · 424",
                "+2 st · 555",
                "+4 st · 688",
                "+6 st · 823",
                "-1 st · 361"
            ]
        );
        assert!(stops[7].chosen);
        assert_eq!(Level::parse("-2stops"), Some(Level::Stops(-2.0)));
        assert_eq!(Level::parse("+1st"), Some(Level::Stops(1.0)));
        // Without a log encoding, stops are of light relative to white: 18% of SDR white is
        // BT.1886 signal 0.18^(1/2.4).
        let sdr = axis(8, Range::Full, Transfer::Sdr);
        assert!((Level::Stops(0.0).at(&sdr) - 0.18f64.powf(1.0 / 2.4)).abs() < 1e-6);
    }
}
