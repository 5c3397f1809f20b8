//! `compare --vmaf-log FILE`: the run's VMAF in libvmaf's own log formats (JSON, XML or CSV by
//! the file's name, as `vmaf --json/--xml/--csv` write them), so that the tools made for those
//! logs (FFmpeg-quality-metrics, easyVmaf, Netflix's plots) read histoplay's. The numbers are
//! printed as libvmaf prints them: six decimals, sixteen for a value with more than six zeros
//! after the point.

use crate::compare::vmaf::model::{c_fmt_g, Model};
use crate::compare::vmaf::pool::pool;
use crate::compare::vmaf::VmafFrame;
use std::io::Write;
use std::path::Path;

/// The log's format, by the file name's extension (JSON unless `.xml` or `.csv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Xml,
    Csv,
}

impl LogFormat {
    pub fn of(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("xml") => Self::Xml,
            Some("csv") => Self::Csv,
            _ => Self::Json,
        }
    }
}

/// The metrics' names in the log: libvmaf's, with the suffix libvmaf adds to a feature whose
/// model sets an option away from its default (`integer_adm2_egl_1` under the NEG model).
fn names(model: &Model) -> [String; 11] {
    let suffix = |limit: f64| match limit == 100.0 {
        true => String::new(),
        false => format!("_egl_{}", c_fmt_g(limit)),
    };
    let (adm, vif) = (suffix(model.adm_gain_limit()), suffix(model.vif_gain_limit()));
    VmafFrame::NAMES.map(|name| match name {
        n if n.starts_with("integer_adm") => format!("{n}{adm}"),
        n if n.starts_with("integer_vif") => format!("{n}{vif}"),
        n => n.to_string(),
    })
}

/// The run's scores, kept for the log written at its end.
pub struct VmafLog {
    names: [String; 11],
    /// (A's frame number, its scores).
    frames: Vec<(u64, VmafFrame)>,
    /// The size the features were measured at.
    size: (usize, usize),
}

impl VmafLog {
    pub fn new(model: &Model, size: (usize, usize)) -> Self {
        Self {
            names: names(model),
            frames: Vec::new(),
            size,
        }
    }

    pub fn add(&mut self, frame: u64, scores: VmafFrame) {
        self.frames.push((frame, scores));
    }

    /// Writes the log; `fps` is how many pairs a second the run measured. A log that can't be
    /// written whole leaves the file of its name as it was (`OutputFile`).
    pub fn write(&self, path: &Path, fps: f64) -> std::io::Result<()> {
        let file = crate::output_file::OutputFile::new(path);
        let written = (|| {
            let mut out = std::io::BufWriter::new(std::fs::File::create(file.written())?);
            match LogFormat::of(path) {
                LogFormat::Json => self.json(&mut out, fps)?,
                LogFormat::Xml => self.xml(&mut out, fps)?,
                LogFormat::Csv => self.csv(&mut out)?,
            }
            out.flush()
        })();
        file.settle(written)
    }

    /// Each metric's min, max, mean and harmonic mean over the run, in libvmaf's names.
    fn pooled(&self) -> Vec<(&str, [(&'static str, f64); 4])> {
        (0..VmafFrame::NAMES.len())
            .map(|i| {
                let column: Vec<f64> = self.frames.iter().map(|(_, f)| f.values()[i]).collect();
                let p = pool(&column);
                let pooled = [
                    ("min", p.min),
                    ("max", p.max),
                    ("mean", p.mean),
                    ("harmonic_mean", p.harmonic_mean),
                ];
                (self.names[i].as_str(), pooled)
            })
            .collect()
    }

    fn json(&self, out: &mut impl Write, fps: f64) -> std::io::Result<()> {
        writeln!(out, "{{")?;
        writeln!(out, "  \"version\": \"histoplay {}\",", env!("CARGO_PKG_VERSION"))?;
        match fps.is_finite() {
            true => writeln!(out, "  \"fps\": {fps:.2},")?,
            false => writeln!(out, "  \"fps\": null,")?,
        }
        write!(out, "  \"frames\": [")?;
        for (i, (frame, scores)) in self.frames.iter().enumerate() {
            write!(out, "{}", if i > 0 { ",\n" } else { "\n" })?;
            writeln!(out, "    {{")?;
            writeln!(out, "      \"frameNum\": {frame},")?;
            writeln!(out, "      \"metrics\": {{")?;
            for (k, (name, value)) in self.names.iter().zip(scores.values()).enumerate() {
                let comma = if k + 1 < self.names.len() { "," } else { "" };
                writeln!(out, "        \"{name}\": {}{comma}", json_number(value))?;
            }
            writeln!(out, "      }}")?;
            write!(out, "    }}")?;
        }
        writeln!(out, "\n  ],")?;
        write!(out, "  \"pooled_metrics\": {{")?;
        for (i, (name, pooled)) in self.pooled().into_iter().enumerate() {
            write!(out, "{}", if i > 0 { ",\n" } else { "\n" })?;
            write!(out, "    \"{name}\": {{")?;
            for (j, (method, value)) in pooled.into_iter().enumerate() {
                write!(out, "{}", if j > 0 { ",\n" } else { "\n" })?;
                write!(out, "      \"{method}\": {}", json_number(value))?;
            }
            write!(out, "\n    }}")?;
        }
        writeln!(out, "\n  }},")?;
        writeln!(out, "  \"aggregate_metrics\": {{\n  }}")?;
        writeln!(out, "}}")
    }

    fn xml(&self, out: &mut impl Write, fps: f64) -> std::io::Result<()> {
        writeln!(out, "<VMAF version=\"histoplay {}\">", env!("CARGO_PKG_VERSION"))?;
        let (width, height) = self.size;
        writeln!(out, "  <params qualityWidth=\"{width}\" qualityHeight=\"{height}\" />")?;
        writeln!(out, "  <fyi fps=\"{fps:.2}\" />")?;
        writeln!(out, "  <frames>")?;
        for (frame, scores) in &self.frames {
            write!(out, "    <frame frameNum=\"{frame}\" ")?;
            for (name, value) in self.names.iter().zip(scores.values()) {
                write!(out, "{name}=\"{}\" ", number(value))?;
            }
            writeln!(out, "/>")?;
        }
        writeln!(out, "  </frames>")?;
        writeln!(out, "  <pooled_metrics>")?;
        for (name, pooled) in self.pooled() {
            write!(out, "    <metric name=\"{name}\" ")?;
            for (method, value) in pooled {
                write!(out, "{method}=\"{}\" ", number(value))?;
            }
            writeln!(out, "/>")?;
        }
        writeln!(out, "  </pooled_metrics>")?;
        writeln!(out, "  <aggregate_metrics />")?;
        writeln!(out, "</VMAF>")
    }

    fn csv(&self, out: &mut impl Write) -> std::io::Result<()> {
        write!(out, "Frame,")?;
        for name in &self.names {
            write!(out, "{name},")?;
        }
        writeln!(out)?;
        for (frame, scores) in &self.frames {
            write!(out, "{frame},")?;
            for value in scores.values() {
                write!(out, "{},", number(value))?;
            }
            writeln!(out)?;
        }
        Ok(())
    }
}

/// How libvmaf prints a score: six decimals, or sixteen when more than six zeros follow the
/// point (a value under 1e-6 would print as 0.000000).
fn number(value: f64) -> String {
    // libvmaf counts the zeros by scaling the fraction up until it reaches 1.
    let mut fraction = value.abs() - value.abs().trunc();
    let mut zeros = 0;
    while fraction < 1.0 && fraction != 0.0 {
        fraction *= 10.0;
        zeros += 1;
    }
    match zeros <= 6 {
        true => format!("{value:.6}"),
        false => format!("{value:.16}"),
    }
}

/// A JSON number as libvmaf writes it; `null` for one that is not finite.
fn json_number(value: f64) -> String {
    match value.is_finite() {
        true => number(value),
        false => "null".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn scores_are_printed_as_libvmaf_prints_them() {
        assert_eq!(number(46.369628), "46.369628");
        assert_eq!(number(0.0), "0.000000");
        assert_eq!(number(1.0), "1.000000");
        assert_eq!(number(0.0000012), "0.000001");
        assert_eq!(number(0.00000012), "0.0000001200000000");
        assert_eq!(number(3.00000001), "3.0000000099999999");
    }
}
