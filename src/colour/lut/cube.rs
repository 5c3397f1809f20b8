//! Reading `.cube` files, the format DaVinci Resolve and Adobe write: a 1D table, a 3D table, or
//! (Resolve) a 1D shaper followed by a 3D table.
//!
//! ```text
//! TITLE "name"                     optional
//! LUT_1D_SIZE n                    2..=65536 rows of r g b
//! LUT_3D_SIZE n                    2..=256: n³ rows, red changing fastest
//! DOMAIN_MIN r g b / DOMAIN_MAX r g b          the input range of the table (Adobe)
//! LUT_1D_INPUT_RANGE lo hi / LUT_3D_INPUT_RANGE lo hi   the same, one for all channels (Resolve)
//! 0.0 0.0 0.0                      rows: three numbers
//! ```
//! Blank lines and `#` comments are skipped; keywords come before the rows; keywords this reader
//! doesn't know are skipped with a warning. Anything else is an error naming its line.

use super::{Domain, Lut, Table1d, Table3d};
use std::fmt;

/// A file that isn't a `.cube` histoplay can read: what is wrong and on which line (1-based;
/// 0 when the file as a whole is at fault).
#[derive(Debug, Clone, PartialEq)]
pub struct CubeError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for CubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for CubeError {}

/// The largest 1D and 3D tables read (65536 rows; 256³ = 16.7M rows, 200 MB as text).
pub const MAX_1D_SIZE: usize = 65536;
pub const MAX_3D_SIZE: usize = 256;

fn error(line: usize, message: impl Into<String>) -> CubeError {
    CubeError {
        line,
        message: message.into(),
    }
}

/// Parses a `.cube` file's text.
pub fn parse(text: &str) -> Result<Lut, CubeError> {
    let mut title = None;
    let (mut size_1d, mut size_3d) = (None, None);
    let (mut domain_min, mut domain_max) = (None, None);
    let (mut range_1d, mut range_3d) = (None, None);
    let mut rows: Vec<[f32; 3]> = Vec::new();
    let mut last_line = 0;
    // (A byte order mark some editors write is not part of the first keyword.)
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        last_line = number;
        let mut words = line.split_whitespace();
        let first = words.next().expect("not empty");
        // A keyword is upper case (TITLE, LUT_3D_SIZE, Resolve's LUT_IN_VIDEO_RANGE); a line
        // starting with anything else (`nan 0 0`, `x 0 0`) is a row, and says what is wrong.
        let keyword = first.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
            && first
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if keyword {
            if !rows.is_empty() {
                return Err(error(number, format!("{first} after the table's rows")));
            }
            let rest: Vec<&str> = words.collect();
            match first {
                "TITLE" => title = Some(line["TITLE".len()..].trim().trim_matches('"').to_owned()),
                "LUT_1D_SIZE" => size_1d = Some(size(number, first, &rest, MAX_1D_SIZE)?),
                "LUT_3D_SIZE" => size_3d = Some(size(number, first, &rest, MAX_3D_SIZE)?),
                "DOMAIN_MIN" => domain_min = Some(triple(number, first, &rest)?),
                "DOMAIN_MAX" => domain_max = Some(triple(number, first, &rest)?),
                "LUT_1D_INPUT_RANGE" => range_1d = Some(pair(number, first, &rest)?),
                "LUT_3D_INPUT_RANGE" => range_3d = Some(pair(number, first, &rest)?),
                _ => log::warn!("LUT line {number}: {first} is not a keyword histoplay reads; skipped"),
            }
            continue;
        }
        let values = numbers(number, line)?;
        let [r, g, b] = values[..] else {
            return Err(error(
                number,
                format!("a row has three numbers (r g b), this one {}", values.len()),
            ));
        };
        rows.push([r, g, b]);
    }
    let rows_1d = size_1d.unwrap_or(0);
    let rows_3d = size_3d.map_or(0, |n| n * n * n);
    if size_1d.is_none() && size_3d.is_none() {
        return Err(error(0, "no LUT_1D_SIZE or LUT_3D_SIZE line: not a .cube table"));
    }
    let expected = rows_1d + rows_3d;
    if rows.len() != expected {
        let what = match (size_1d, size_3d) {
            (Some(a), Some(b)) => format!("{a} rows of the 1D shaper and {b}³ of the 3D table"),
            (Some(a), None) => format!("{a} rows (LUT_1D_SIZE {a})"),
            (None, Some(b)) => format!("{b}³ = {} rows (LUT_3D_SIZE {b})", b * b * b),
            (None, None) => unreachable!(),
        };
        return Err(error(
            last_line,
            format!("the table has {} rows where it should have {what}", rows.len()),
        ));
    }
    // Adobe's DOMAIN_MIN/MAX, where given, are the domain of whichever table comes first;
    // Resolve's ranges name their table.
    let domain = |range: Option<(f32, f32)>, line_of: &str| -> Result<Domain, CubeError> {
        let domain = match (range, domain_min, domain_max) {
            (Some((lo, hi)), _, _) => Domain {
                min: [lo; 3],
                max: [hi; 3],
            },
            (None, min, max) => Domain {
                min: min.unwrap_or([0.0; 3]),
                max: max.unwrap_or([1.0; 3]),
            },
        };
        if (0..3).any(|i| domain.max[i] <= domain.min[i]) {
            return Err(error(
                0,
                format!("the {line_of} input range is empty (its maximum is not above its minimum)"),
            ));
        }
        Ok(domain)
    };
    let shaper = match size_1d {
        Some(n) => Some(Table1d {
            domain: domain(range_1d, "1D table's")?,
            rows: rows[..n].to_vec(),
        }),
        None => None,
    };
    let cube = match size_3d {
        Some(n) => Some(Table3d {
            // With a shaper before it, DOMAIN_MIN/MAX were the shaper's: the 3D table's
            // range is its own line's, or 0..1.
            domain: match shaper {
                Some(_) => domain(range_3d.or(Some((0.0, 1.0))), "3D table's")?,
                None => domain(range_3d, "3D table's")?,
            },
            size: n,
            rows: rows[rows_1d..].to_vec(),
        }),
        None => None,
    };
    Ok(Lut {
        title,
        shaper,
        cube,
        log: None,
    })
}

fn numbers(line: usize, text: &str) -> Result<Vec<f32>, CubeError> {
    text.split_whitespace()
        .map(|word| match word.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(error(line, format!("'{word}' is not a number"))),
        })
        .collect()
}

fn size(line: usize, keyword: &str, rest: &[&str], max: usize) -> Result<usize, CubeError> {
    match rest {
        [word] => match word.parse::<usize>() {
            Ok(n) if (2..=max).contains(&n) => Ok(n),
            Ok(n) => Err(error(line, format!("{keyword} {n}: the size must be 2 to {max}"))),
            Err(_) => Err(error(
                line,
                format!("{keyword} '{word}': the size must be a whole number"),
            )),
        },
        _ => Err(error(line, format!("{keyword} takes one number, the table's size"))),
    }
}

fn triple(line: usize, keyword: &str, rest: &[&str]) -> Result<[f32; 3], CubeError> {
    let values = numbers(line, &rest.join(" "))?;
    values
        .try_into()
        .map_err(|_| error(line, format!("{keyword} takes three numbers (r g b)")))
}

fn pair(line: usize, keyword: &str, rest: &[&str]) -> Result<(f32, f32), CubeError> {
    match numbers(line, &rest.join(" "))?[..] {
        [lo, hi] => Ok((lo, hi)),
        _ => Err(error(line, format!("{keyword} takes two numbers (min max)"))),
    }
}
