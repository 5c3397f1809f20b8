//! False-colour scales: bands of the signal, each drawn in a colour of its own, the rest of the
//! picture in grey. A band is a range of the signal in percent (IRE: 0 is black, 100 white) or
//! in nits of displayed light; the defaults follow ARRI's camera false colour for SDR and
//! BT.2408's reference levels for PQ and HLG. A scale can be loaded from a small text file:
//!
//! ```text
//! # histoplay false-colour scale
//! unit percent            # or: unit nits
//! 0    2.5  #8000ff  black clip
//! 38   42   #00c000  18% grey
//! 99   100  #ff0000  white clip
//! ```
//!
//! With `unit stops` (given before the bands), levels are stops from 18% grey and may be
//! negative; it is the default scale while a camera log encoding is in force (`stops`).
//!
//! Each band line is `FROM TO COLOUR [LABEL]`: the band holds the signal from FROM up to (not
//! including) TO, except that a band reaching 100% (or the signal's top: 10000 nits for PQ, 1000
//! for HLG, 100 for SDR) holds the top too. Where bands overlap, the first listed wins.

use std::fmt;

/// The most bands a scale holds. The pass keeps what a pixel's luma says (its band and zebra
/// levels) as one of 32 classes: 14 bands and 2 zebra levels cut the luma axis into at most 31.
pub const MAX_BANDS: usize = 14;

/// What a scale's numbers measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Percent of the signal's range, 0 = black, 100 = white (IRE for limited-range video).
    Percent,
    /// Displayed light in cd/m² (through the source's EOTF: PQ, HLG at 1000 nits, or BT.1886
    /// at 100 nits for SDR).
    Nits,
    /// Stops from 18% grey (may be negative): of scene light through the camera log encoding
    /// in force, else of displayed light relative to reference white.
    Stops,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub colour: [u8; 3],
    pub label: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FalseColourScale {
    pub unit: Unit,
    pub bands: Vec<Band>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("false-colour scale, line {line}: {message}")]
pub struct ScaleError {
    pub line: usize,
    pub message: String,
}

fn band(from: f64, to: f64, colour: u32, label: &str) -> Band {
    Band {
        from,
        to,
        colour: [(colour >> 16) as u8, (colour >> 8) as u8, colour as u8],
        label: label.to_string(),
    }
}

impl FalseColourScale {
    /// ARRI's false colour (ALEXA), in percent of the signal.
    pub fn sdr() -> Self {
        Self {
            unit: Unit::Percent,
            bands: vec![
                band(0.0, 2.5, 0x8000ff, "black clip"),
                band(2.5, 4.0, 0x2060ff, "just above black"),
                band(38.0, 42.0, 0x00c000, "18% grey"),
                band(52.0, 56.0, 0xff80c0, "one stop over grey (skin)"),
                band(97.0, 99.0, 0xffff00, "just below white"),
                band(99.0, 100.0, 0xff0000, "white clip"),
            ],
        }
    }

    /// For PQ and HLG, in nits: near black, BT.2408's 18% grey (26 nits) and reference white
    /// (203 nits), highlights above 1000 nits and the brightest above 4000.
    pub fn hdr() -> Self {
        Self {
            unit: Unit::Nits,
            bands: vec![
                band(0.0, 0.1, 0x8000ff, "black (below 0.1 nits)"),
                band(0.1, 0.5, 0x2060ff, "near black"),
                band(22.0, 30.0, 0x00c000, "18% grey (26 nits)"),
                band(180.0, 230.0, 0xff80c0, "reference white (203 nits)"),
                band(1000.0, 4000.0, 0xffa000, "highlights over 1000 nits"),
                band(4000.0, 10000.0, 0xff0000, "over 4000 nits"),
            ],
        }
    }

    /// Exposure in stops from 18% grey, for camera log footage: a band a stop wide around each
    /// whole stop from −6 to +6, 18% grey (0) in green as on ARRI's and the SDR scale, darker
    /// stops in purples and blues, brighter ones through yellow to red; the picture outside
    /// ±6½ stops in grey. The colours follow the run of the stop-by-stop false colour of
    /// cinematographers' monitors (Ed Lachman's EL Zone System among them), with histoplay's
    /// own choice of hues.
    pub fn stops() -> Self {
        const COLOURS: [(u32, &str); 13] = [
            (0x3c0078, "−6 stops"),
            (0x6600cc, "−5 stops"),
            (0x0030ff, "−4 stops"),
            (0x0080ff, "−3 stops"),
            (0x00c0ff, "−2 stops"),
            (0x80c8a0, "−1 stop"),
            (0x00c000, "18% grey"),
            (0xc0e000, "+1 stop"),
            (0xffff00, "+2 stops"),
            (0xffc000, "+3 stops"),
            (0xff8000, "+4 stops"),
            (0xff4000, "+5 stops"),
            (0xff0000, "+6 stops"),
        ];
        Self {
            unit: Unit::Stops,
            bands: COLOURS
                .iter()
                .zip(-6..=6)
                .map(|(&(colour, label), stop)| band(f64::from(stop) - 0.5, f64::from(stop) + 0.5, colour, label))
                .collect(),
        }
    }

    /// The default scale for a source of `transfer`.
    pub fn default_for(hdr: bool) -> Self {
        if hdr {
            Self::hdr()
        } else {
            Self::sdr()
        }
    }

    pub fn parse(text: &str) -> Result<Self, ScaleError> {
        // (A file saved with a byte order mark begins with one.)
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (mut unit, mut unit_line) = (Unit::Percent, None);
        let mut bands = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = strip_comment(raw);
            let err = |message: String| ScaleError { line: i + 1, message };
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["unit", _] if !bands.is_empty() || unit_line.is_some() => {
                    return Err(err(match unit_line {
                        Some(first) => format!("a scale has one unit line (it is line {first})"),
                        None => "the unit line comes before the bands".into(),
                    }))
                }
                ["unit", u] => {
                    unit_line = Some(i + 1);
                    unit = match *u {
                        "percent" | "%" | "ire" => Unit::Percent,
                        "nits" => Unit::Nits,
                        "stops" => Unit::Stops,
                        other => return Err(err(format!("unit is `percent`, `nits` or `stops`, not `{other}`"))),
                    }
                }
                [from, to, colour, label @ ..] => {
                    // Stops run below 0 (18% grey); percent and nits don't.
                    let least = if unit == Unit::Stops { f64::NEG_INFINITY } else { 0.0 };
                    let number = |s: &str| {
                        s.parse::<f64>()
                            .ok()
                            .filter(|v| v.is_finite() && *v >= least)
                            .ok_or_else(|| match unit {
                                Unit::Stops => err(format!("`{s}` is not a level (a number of stops)")),
                                _ => err(format!("`{s}` is not a level (a number, 0 or more)")),
                            })
                    };
                    let (from, to) = (number(from)?, number(to)?);
                    if to <= from {
                        return Err(err(format!(
                            "a band runs from a lower level to a higher one, not {from} to {to}"
                        )));
                    }
                    let colour =
                        parse_colour(colour).ok_or_else(|| err(format!("`{colour}` is not a colour (#rrggbb)")))?;
                    bands.push(Band {
                        from,
                        to,
                        colour,
                        label: label.join(" "),
                    });
                }
                _ => {
                    return Err(err(format!(
                        "expected `FROM TO #rrggbb [label]` or `unit percent|nits`, not `{}`",
                        line.trim()
                    )))
                }
            }
        }
        if bands.is_empty() {
            return Err(ScaleError {
                line: 0,
                message: "no bands".into(),
            });
        }
        if bands.len() > MAX_BANDS {
            return Err(ScaleError {
                line: 0,
                message: format!("{} bands; at most {MAX_BANDS}", bands.len()),
            });
        }
        Ok(Self { unit, bands })
    }

    /// The top of the unit's range: a band reaching it holds the top too.
    pub fn top(&self) -> f64 {
        match self.unit {
            Unit::Percent => 100.0,
            Unit::Nits => 10000.0,
            // Past any camera's brightest: only the signal's own white reaches the top.
            Unit::Stops => 64.0,
        }
    }
}

/// `raw` without its comment: a word beginning with '#' starts one, unless it is a band's
/// colour (the third word of a line that is no `unit` line, right or wrong: a colour mistyped
/// is an error, not a comment) or a colour written out after it.
fn strip_comment(raw: &str) -> String {
    let mut kept = Vec::new();
    for (i, word) in raw.split_whitespace().enumerate() {
        let colour = (i == 2 && kept.first() != Some(&"unit")) || parse_colour(word).is_some();
        if word.starts_with('#') && !colour {
            break;
        }
        kept.push(word);
    }
    kept.join(" ")
}

fn parse_colour(s: &str) -> Option<[u8; 3]> {
    let hex = s.strip_prefix('#')?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(hex, 16).ok()?;
    Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}–{}", self.from, self.to)?;
        if !self.label.is_empty() {
            write!(f, " {}", self.label)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scale_file_reads_its_unit_bands_colours_and_labels() {
        let text = "# mine\nunit nits\n0 0.5 #102030 deep black # very\n\n100 10000 #ff0000\n";
        let scale = FalseColourScale::parse(text).unwrap();
        assert_eq!(scale.unit, Unit::Nits);
        assert_eq!(
            scale.bands,
            vec![
                Band {
                    from: 0.0,
                    to: 0.5,
                    colour: [0x10, 0x20, 0x30],
                    label: "deep black".into()
                },
                Band {
                    from: 100.0,
                    to: 10000.0,
                    colour: [255, 0, 0],
                    label: String::new()
                },
            ]
        );
    }

    #[test]
    fn bad_scale_lines_are_named_by_number() {
        let bad = |text: &str| FalseColourScale::parse(text).unwrap_err();
        assert_eq!(bad("0 5 #ff0000\n5 2 #00ff00").line, 2);
        assert_eq!(bad("unit lumens").line, 1);
        assert_eq!(bad("unit percent\n-1 5 #ff0000").line, 2);
        assert_eq!(bad("0 5 red").line, 1);
        assert_eq!(bad("0 5 #ff000 red").message, "`#ff000` is not a colour (#rrggbb)");
        assert_eq!(
            bad("0 5 #ff0000\nunit nits").message,
            "the unit line comes before the bands"
        );
        assert_eq!(
            bad("unit nits\nunit %").message,
            "a scale has one unit line (it is line 1)"
        );
        // A byte order mark, a comment after a unit and a colour after a label's '#'.
        let scale = FalseColourScale::parse("\u{feff}unit nits # mine\n0 5 #ff0000 zone #1 #00ff00").unwrap();
        assert_eq!((scale.unit, scale.bands[0].label.as_str()), (Unit::Nits, "zone"));
        assert_eq!(bad("# nothing").message, "no bands");
        let many: String = (0..15).map(|i| format!("{i} {} #000000\n", i + 1)).collect();
        assert!(bad(&many).message.contains("at most 14"));
    }
}
