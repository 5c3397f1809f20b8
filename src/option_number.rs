//! Numbers as FFmpeg's filter options read them (its `av_strtod` without expressions): the
//! freeze and silence levels, the black thresholds and the deinterlacers' modes share them.

/// A number as FFmpeg's options read one: a decimal (`2.5`, `1e-3`), hexadecimal digits after
/// `0x`, or decibels (`-60dB` is 0.001).
pub fn number(text: &str) -> Result<f64, String> {
    let (digits, decibels) = match text.strip_suffix("dB") {
        Some(digits) => (digits, true),
        None => (text, false),
    };
    let digits = digits.trim();
    let value: f64 = hexadecimal(digits)
        .or_else(|| digits.parse().ok())
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| format!("'{text}' is not a number"))?;
    // As FFmpeg's av_strtod works decibels out (ff_exp10: 2 to the power of x log2 10), which
    // is not always the same double as 10 to the power of x: at a sample's edge it decides.
    Ok(if decibels {
        (std::f64::consts::LOG2_10 * (value / 20.0)).exp2()
    } else {
        value
    })
}

/// `-0x1F` and the like: a sign, then `0x` and hexadecimal digits only.
fn hexadecimal(text: &str) -> Option<f64> {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, text.strip_prefix('+').unwrap_or(text)),
    };
    let hex = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X"))?;
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok().map(|n| sign * n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_ffmpegs_options_read_them() {
        assert_eq!(number("2.5"), Ok(2.5));
        assert_eq!(number("1e-3"), Ok(0.001));
        assert_eq!(number("-0x1F"), Ok(-31.0));
        assert_eq!(number("0dB"), Ok(1.0));
        for bad in ["0x+1", "0x", "1k", "nan", "inf", "send_field+0"] {
            assert!(number(bad).is_err(), "{bad}");
        }
    }
}
