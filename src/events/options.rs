//! The detectors' options, written as FFmpeg's filters take them: `d=2:pic_th=0.98:pix_th=0.1`
//! (`--black`), `n=-60dB:d=2` (`--freeze`), `n=-60dB:d=2:m=1` (`--silence`), with the filters'
//! long names too, their defaults and their ranges.

use crate::option_number::number;

/// blackdetect's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlackOptions {
    /// `d`: the shortest black stretch reported, in seconds.
    pub min_duration: f64,
    /// `pic_th`: the share of a picture's pixels that must be black for it to be black.
    pub picture_ratio: f64,
    /// `pix_th`: a pixel is black at or under this share of the luma range above black.
    pub pixel_threshold: f64,
}

impl Default for BlackOptions {
    fn default() -> Self {
        Self {
            min_duration: 2.0,
            picture_ratio: 0.98,
            pixel_threshold: 0.10,
        }
    }
}

/// freezedetect's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreezeOptions {
    /// `n`: the mean absolute difference (a share of the sample range) under which a picture
    /// is the one before it (0.001: -60 dB).
    pub noise: f64,
    /// `d`: the shortest freeze reported, in microseconds.
    pub duration_us: i64,
}

impl Default for FreezeOptions {
    fn default() -> Self {
        Self {
            noise: 0.001,
            duration_us: 2_000_000,
        }
    }
}

/// silencedetect's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SilenceOptions {
    /// `n`: a sample is silent strictly under this amplitude (1 = full scale; -60 dB).
    pub noise: f64,
    /// `d`: the shortest silence reported, in microseconds.
    pub duration_us: i64,
    /// `m`: each channel on its own (otherwise silence is all channels silent at once).
    pub mono: bool,
}

impl Default for SilenceOptions {
    fn default() -> Self {
        Self {
            noise: 0.001,
            duration_us: 2_000_000,
            mono: false,
        }
    }
}

/// `key=value` pairs separated by colons, each key given to `set`.
/// (A colon in a value is escaped or quoted, as FFmpeg's filters take it: `d=00\:01\:30`,
/// `d='00:01:30'`; within quotes every character stands for itself, to the end where one is
/// left open.)
fn pairs(text: &str, filter: &str, mut set: impl FnMut(&str, &str) -> Result<bool, String>) -> Result<(), String> {
    let mut split = Vec::new();
    let mut part = String::new();
    let mut chars = text.chars();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => quoted = !quoted,
            c if quoted => part.push(c),
            '\\' => part.extend(chars.next()),
            ':' => split.push(std::mem::take(&mut part)),
            c => part.push(c),
        }
    }
    split.push(part);
    for pair in split.iter().filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("'{pair}' in '{text}' is not key=value ({filter}'s options)"))?;
        if !set(key.trim(), value.trim())? {
            return Err(format!("{filter} has no option '{}'", key.trim()));
        }
    }
    Ok(())
}

/// A duration as FFmpeg's options read one, in microseconds: `2`, `2.5`, `1500ms`, `250000us`,
/// `2s`, `00:01:30.5` or `1:30`.
pub fn duration_us(text: &str) -> Result<i64, String> {
    let bad = || format!("'{text}' is not a duration (seconds, as 2.5 or 1500ms or 00:01:30)");
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    // Whole seconds and a fraction's digits, to the microsecond (more digits are dropped).
    let seconds_us = |s: &str| -> Option<i64> {
        let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
        if whole.is_empty() && fraction.is_empty()
            || !(whole.chars().chain(fraction.chars())).all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let whole: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
        let micros: String = fraction.chars().chain(std::iter::repeat('0')).take(6).collect();
        whole.checked_mul(1_000_000)?.checked_add(micros.parse::<i64>().ok()?)
    };
    let us = if body.contains(':') {
        let parts: Vec<&str> = body.split(':').collect();
        let (hours, minutes, seconds) = match parts.as_slice() {
            [m, s] => ("0", *m, *s),
            [h, m, s] => (*h, *m, *s),
            _ => return Err(bad()),
        };
        // (Digits only, as FFmpeg's av_parse_time takes them; no sign inside.)
        let whole = |s: &str| -> Option<i64> {
            (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())).then(|| s.parse().ok())?
        };
        let hours = whole(hours).ok_or_else(bad)?;
        let minutes = whole(minutes).ok_or_else(bad)?;
        let seconds = seconds_us(seconds).ok_or_else(bad)?;
        if minutes > 59 || seconds >= 60_000_000 {
            return Err(bad());
        }
        hours
            .checked_mul(3600)
            .and_then(|h| h.checked_add(minutes * 60))
            .and_then(|m| m.checked_mul(1_000_000))
            .and_then(|us| us.checked_add(seconds))
            .ok_or_else(bad)?
    } else if let Some(ms) = body.strip_suffix("ms") {
        seconds_us(ms).ok_or_else(bad)? / 1000
    } else if let Some(us) = body.strip_suffix("us") {
        seconds_us(us).ok_or_else(bad)? / 1_000_000
    } else {
        seconds_us(body.strip_suffix('s').unwrap_or(body)).ok_or_else(bad)?
    };
    Ok(if negative { -us } else { us })
}

/// `text` read as a `number` within `low..=high`; one that is not said as it was given (`99dB`).
fn within(text: &str, (low, high): (f64, f64), what: &str) -> Result<f64, String> {
    let value = number(text)?;
    // (Decibels are of full scale, 1: up to 0dB.)
    let decibels = match text.ends_with("dB") && high == 1.0 {
        true => " (0dB at most)",
        false => "",
    };
    match (low..=high).contains(&value) {
        true => Ok(value),
        false if high == f64::MAX => Err(format!("{what} must be {low} or more, not {text}")),
        false => Err(format!("{what} must be from {low} to {high}{decibels}, not {text}")),
    }
}

fn duration_within(us: i64, most: i64, what: &str) -> Result<i64, String> {
    match (0..=most).contains(&us) {
        true => Ok(us),
        false if most == i64::MAX => Err(format!("{what} must be 0 s or more")),
        false => Err(format!("{what} must be from 0 to {} s", most / 1_000_000)),
    }
}

impl BlackOptions {
    /// `d=2:pic_th=0.98:pix_th=0.1` (or `black_min_duration`, `picture_black_ratio_th`,
    /// `pixel_black_th`); what is not given keeps its default.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut o = Self::default();
        pairs(text, "blackdetect", |key, value| {
            match key {
                "d" | "black_min_duration" => o.min_duration = within(value, (0.0, f64::MAX), "d")?,
                "pic_th" | "picture_black_ratio_th" => o.picture_ratio = within(value, (0.0, 1.0), "pic_th")?,
                "pix_th" | "pixel_black_th" => o.pixel_threshold = within(value, (0.0, 1.0), "pix_th")?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(o)
    }
}

impl FreezeOptions {
    /// `n=-60dB:d=2` (or `noise`, `duration`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut o = Self::default();
        pairs(text, "freezedetect", |key, value| {
            match key {
                "n" | "noise" => o.noise = within(value, (0.0, 1.0), "n")?,
                "d" | "duration" => o.duration_us = duration_within(duration_us(value)?, i64::MAX, "d")?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(o)
    }
}

impl SilenceOptions {
    /// `n=-60dB:d=2:m=1` (or `noise`, `duration`, `mono`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut o = Self::default();
        pairs(text, "silencedetect", |key, value| {
            match key {
                "n" | "noise" => o.noise = within(value, (0.0, f64::MAX), "n")?,
                "d" | "duration" => o.duration_us = duration_within(duration_us(value)?, 24 * 3_600_000_000, "d")?,
                "m" | "mono" => {
                    o.mono = match value {
                        "1" | "true" | "y" | "yes" => true,
                        "0" | "false" | "n" | "no" => false,
                        _ => return Err(format!("'{value}' is not 0 or 1 (silencedetect's m)")),
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_as_ffmpegs_filters_read_them() {
        assert_eq!(BlackOptions::parse("").unwrap(), BlackOptions::default());
        let black = BlackOptions::parse("d=0.5:pix_th=0.2").unwrap();
        assert_eq!(
            (black.min_duration, black.picture_ratio, black.pixel_threshold),
            (0.5, 0.98, 0.2)
        );
        let freeze = FreezeOptions::parse("n=-40dB:d=1.5").unwrap();
        assert!((freeze.noise - 0.01).abs() < 1e-15);
        assert_eq!(freeze.duration_us, 1_500_000);
        let silence = SilenceOptions::parse("noise=0.02:duration=00\\:00\\:01.25:m=1").unwrap();
        assert_eq!(
            (silence.noise, silence.duration_us, silence.mono),
            (0.02, 1_250_000, true)
        );
        // Quoted, as FFmpeg's filters take it: every character as it is.
        let quoted = SilenceOptions::parse("d='00:00:02.5':n='-50dB'").unwrap();
        assert_eq!(quoted.duration_us, 2_500_000);
        assert!((quoted.noise - 10f64.powf(-2.5)).abs() < 1e-15);
        assert_eq!(SilenceOptions::parse("d='2").unwrap().duration_us, 2_000_000);
        // Decibels as FFmpeg works them out: here one ulp above 10^(x/20), which makes an
        // s16 level of 6 where 10^(x/20) makes 5.
        let level = number("-74.7457086151611dB").unwrap();
        assert_eq!(level, 0.000_183_111_056_855_983_26);
        assert_eq!((level * 32767.0) as i16, 6);
        assert_eq!(duration_us("1500ms"), Ok(1_500_000));
        assert_eq!(duration_us("1:30"), Ok(90_000_000));
        // Past what 64 bits of microseconds hold, or a sign inside: not a duration.
        assert!(duration_us("9999999999:00:00").is_err());
        assert!(duration_us("1:-30:00").is_err());
        assert!(duration_us("+1:00:00").is_err());
        assert_eq!(duration_us("2562047787:00:00"), Ok(2_562_047_787 * 3_600_000_000));
        assert_eq!(duration_us("0.1234567"), Ok(123_456));
        assert!(BlackOptions::parse("pic_th=2")
            .unwrap_err()
            .contains("pic_th must be from 0 to 1"));
        assert_eq!(BlackOptions::parse("d=-1").unwrap_err(), "d must be 0 or more, not -1");
        assert_eq!(FreezeOptions::parse("d=-1").unwrap_err(), "d must be 0 s or more");
        // A level past full scale is said as it was given.
        assert_eq!(
            FreezeOptions::parse("n=99dB").unwrap_err(),
            "n must be from 0 to 1 (0dB at most), not 99dB"
        );
        assert!(FreezeOptions::parse("x=1")
            .unwrap_err()
            .contains("freezedetect has no option 'x'"));
        assert!(SilenceOptions::parse("d=abc").unwrap_err().contains("not a duration"));
        assert!(BlackOptions::parse("d").unwrap_err().contains("not key=value"));
    }
}
