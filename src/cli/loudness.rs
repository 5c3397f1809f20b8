//! `histoplay loudness`: the EBU R128 loudness of a file's sound, as FFmpeg's `ebur128` filter
//! measures it (`audio::loudness`), with limits for a QC gate.

use crate::audio::loudness::{measure_file, Summary};
use crate::audio::source::AudioTrack;
use anyhow::{bail, Result};
use std::io::Write;
use std::path::PathBuf;

/// Measure the loudness of a file's sound (EBU R128), as FFmpeg's ebur128 filter does
///
/// Prints one JSON line: the integrated loudness and its gate's threshold, the loudness range
/// (LRA), its threshold, low and high, and the sample and true peaks, to FFmpeg's precision
/// (0.1 LU, 0.1 dB; a peak of silence is null). With --series, each 100 ms step's momentary,
/// short-term and integrated loudness and range come first, a line each.
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    /// Each 100 ms step's readings first, one JSON line each: t (its last sample's time), M, S,
    /// I, LRA
    #[arg(long, alias = "frames")]
    series: bool,
    /// Limits whose breach makes the exit status 1, comma-separated: I>-22, I<-24, TP>-1,
    /// LRA>20, SP>-1 (I in LUFS, TP and SP in dBFS, LRA in LU), or the profiles r128 (EBU R128:
    /// I within -23±0.5 LUFS, TP ≤ -1 dBTP) and a85 (ATSC A/85: I within -24±2, TP ≤ -2)
    #[arg(long, value_parser = LoudnessLimits::parse)]
    fail_on: Option<LoudnessLimits>,
    /// Which audio stream to measure: its number from 1, in the file's order (as mpv's --aid;
    /// `ffmpeg -map 0:a:N-1`), or `auto` for the one FFmpeg picks
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = AudioTrack::parse)]
    aid: AudioTrack,
}

/// `--fail-on`'s limits.
#[derive(Clone, Debug, PartialEq)]
pub struct LoudnessLimits(Vec<LoudnessLimit>);

impl LoudnessLimits {
    fn parse(text: &str) -> Result<Self, String> {
        LoudnessLimit::parse_list(text).map(Self)
    }
}

/// What a loudness limit is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measure {
    Integrated,
    Range,
    TruePeak,
    SamplePeak,
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Measure::Integrated => "I",
            Measure::Range => "LRA",
            Measure::TruePeak => "TP",
            Measure::SamplePeak => "SP",
        }
    }

    fn of(self, summary: &Summary) -> f64 {
        match self {
            Measure::Integrated => summary.integrated,
            Measure::Range => summary.range,
            Measure::TruePeak => summary.true_peak,
            Measure::SamplePeak => summary.sample_peak,
        }
    }
}

/// `I>-22`: a measure above (or below) a value is beyond the limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoudnessLimit {
    measure: Measure,
    above: bool,
    value: f64,
}

impl LoudnessLimit {
    /// A comma-separated list of limits and profiles.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        let mut limits = Vec::new();
        if text.trim().is_empty() {
            return Err("no loudness limit given".into());
        }
        for item in text.split(',').map(str::trim) {
            match item.to_ascii_lowercase().as_str() {
                "" => return Err(format!("'{text}' has an empty limit between its commas")),
                "r128" => limits.extend(Self::parse_list("I>-22.5,I<-23.5,TP>-1")?),
                "a85" => limits.extend(Self::parse_list("I>-22,I<-26,TP>-2")?),
                _ => limits.push(Self::parse(item)?),
            }
        }
        match limits.is_empty() {
            true => Err("no loudness limit given".into()),
            false => Ok(limits),
        }
    }

    fn parse(text: &str) -> Result<Self, String> {
        let not_a_limit =
            || format!("'{text}' is not a loudness limit (I>-22, I<-24, TP>-1, LRA>20, SP>-1, r128, a85)");
        let (at, above) = match (text.find('>'), text.find('<')) {
            (Some(at), None) => (at, true),
            (None, Some(at)) => (at, false),
            _ => return Err(not_a_limit()),
        };
        let measure = match text[..at].trim().to_ascii_uppercase().as_str() {
            "I" => Measure::Integrated,
            "LRA" => Measure::Range,
            "TP" => Measure::TruePeak,
            "SP" => Measure::SamplePeak,
            _ => return Err(not_a_limit()),
        };
        let value = text[at + 1..]
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(not_a_limit)?;
        Ok(Self { measure, above, value })
    }

    /// The measure's value where it is beyond the limit, as printed (to 0.1; the peak of
    /// digital silence, -inf, is below any limit).
    fn breached(&self, summary: &Summary) -> Option<String> {
        let measured = self.measure.of(summary);
        let value = printed(measured).unwrap_or(measured);
        let beyond = if self.above {
            value > self.value
        } else {
            value < self.value
        };
        beyond.then(|| format!("{value}"))
    }
}

impl std::fmt::Display for LoudnessLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = if self.above { '>' } else { '<' };
        write!(f, "{}{op}{}", self.measure.name(), self.value)
    }
}

/// A figure as FFmpeg prints it, to 0.1; None for -inf (silence's peak).
fn printed(value: f64) -> Option<f64> {
    value
        .is_finite()
        .then(|| format!("{value:.1}").parse().unwrap_or(value))
}

fn json_figure(value: f64) -> serde_json::Value {
    printed(value).map_or(serde_json::Value::Null, serde_json::Value::from)
}

pub fn run(args: Args) -> Result<()> {
    let summary = measure(&args)?;
    let line = serde_json::json!({
        "integrated": json_figure(summary.integrated),
        "integrated_threshold": json_figure(summary.integrated_threshold),
        "lra": json_figure(summary.range),
        "lra_threshold": json_figure(summary.range_threshold),
        "lra_low": json_figure(summary.range_low),
        "lra_high": json_figure(summary.range_high),
        "sample_peak": json_figure(summary.sample_peak),
        "true_peak": json_figure(summary.true_peak),
        "seconds": (summary.seconds * 1000.0).round() / 1000.0,
    });
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    let breached: Vec<String> = (args.fail_on.iter().flat_map(|limits| &limits.0))
        .filter_map(|limit| limit.breached(&summary).map(|value| format!("{limit}: {value}")))
        .collect();
    if !breached.is_empty() {
        for line in &breached {
            eprintln!("{line}");
        }
        eprintln!(
            "{} breached",
            crate::terminal::counted(breached.len(), "loudness limit")
        );
        crate::process::end(1);
    }
    Ok(())
}

/// Decodes the input's sound and measures it; with `--series`, writes each step's line.
fn measure(args: &Args) -> Result<Summary> {
    let mut out = std::io::stdout().lock();
    let mut write_failed = None;
    let series = |_, block: &crate::audio::loudness::Block| {
        if !args.series {
            return Ok(());
        }
        let line = serde_json::json!({
            "t": (block.time * 1e6).round() / 1e6,
            "M": json_figure(block.momentary),
            "S": json_figure(block.short_term),
            "I": json_figure(block.integrated),
            "LRA": json_figure(block.range),
        });
        writeln!(out, "{line}").map_err(|e| {
            let text = e.to_string();
            write_failed = Some(e);
            text
        })
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let measured = measure_file(&args.input, args.aid, true, args.series, &never, series);
    // (A write's own error, so that a reader gone from a pipe ends the command quietly.)
    if let Some(e) = write_failed {
        return Err(e.into());
    }
    let summary = measured.map_err(anyhow::Error::msg)?;
    if summary.seconds == 0.0 {
        bail!("'{}': its audio stream has no sound to measure", args.input.display());
    }
    Ok(summary)
}
