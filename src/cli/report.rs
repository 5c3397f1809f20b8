//! The `hist` command's output formats. JSON Lines is a public interface: keep it stable.

use crate::engine::histogram::Histogram;
use crate::scope::Region;
use std::io::{self, Write};

/// One frame's histogram with where it came from.
pub struct FrameReport<'a> {
    pub frame: u64,
    pub pts: f64,
    pub width: u32,
    pub height: u32,
    /// Bits per channel counted: 8, or 10 for deeper sources.
    pub depth: u32,
    /// The rectangle counted, where not the whole frame.
    pub region: Option<Region>,
    pub histogram: &'a Histogram,
}

/// `{"frame":K,"pts":s,"width":W,"height":H,"bins":N,"depth":D,"r":[...],"g":[...],"b":[...],"l":[...]}`,
/// with `"region":[X,Y,W,H]` after `"depth"` when a region was counted.
pub fn write_json_line(out: &mut impl Write, report: &FrameReport) -> io::Result<()> {
    write!(
        out,
        "{{\"frame\":{},\"pts\":{},\"width\":{},\"height\":{},\"bins\":{},\"depth\":{}",
        report.frame,
        json_number(report.pts),
        report.width,
        report.height,
        report.histogram.bins(),
        report.depth
    )?;
    write_region(out, report.region)?;
    for (ch, name) in ["r", "g", "b", "l"].iter().enumerate() {
        write!(out, ",\"{name}\":[")?;
        write_counts(out, report.histogram, ch, ",")?;
        write!(out, "]")?;
    }
    writeln!(out, "}}")
}

/// `,"region":[X,Y,W,H]`, or nothing for the whole frame.
pub fn write_region(out: &mut impl Write, region: Option<Region>) -> io::Result<()> {
    match region {
        Some(r) => write!(out, ",\"region\":[{},{},{},{}]", r.x, r.y, r.width, r.height),
        None => Ok(()),
    }
}

/// CSV header: frame,pts,width,height,bins, then r0..rN-1, g0.., b0.., l0.., then depth (last,
/// so that the columns before it keep their places).
pub fn write_csv_header(out: &mut impl Write, bins: u32) -> io::Result<()> {
    write!(out, "frame,pts,width,height,bins")?;
    for name in ["r", "g", "b", "l"] {
        for i in 0..bins {
            write!(out, ",{name}{i}")?;
        }
    }
    writeln!(out, ",depth")
}

pub fn write_csv_row(out: &mut impl Write, report: &FrameReport) -> io::Result<()> {
    write!(
        out,
        "{},{},{},{},{}",
        report.frame,
        json_number(report.pts),
        report.width,
        report.height,
        report.histogram.bins()
    )?;
    for ch in 0..4 {
        write!(out, ",")?;
        write_counts(out, report.histogram, ch, ",")?;
    }
    writeln!(out, ",{}", report.depth)
}

fn write_counts(out: &mut impl Write, histogram: &Histogram, channel: usize, sep: &str) -> io::Result<()> {
    for (i, c) in histogram.counts.iter().enumerate() {
        if i > 0 {
            out.write_all(sep.as_bytes())?;
        }
        write!(out, "{}", c[channel])?;
    }
    Ok(())
}

/// Seconds as a JSON number: shortest round-trip form, integers without a fraction.
pub fn json_number(seconds: f64) -> String {
    if seconds.is_finite() {
        format!("{seconds}")
    } else {
        "null".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_line_has_the_documented_shape() {
        let mut h = Histogram::zeroed(16);
        h.counts[0] = [1, 2, 3, 4];
        h.counts[15] = [5, 6, 7, 8];
        let mut out = Vec::new();
        write_json_line(
            &mut out,
            &FrameReport {
                frame: 3,
                pts: 0.1,
                width: 2,
                height: 3,
                depth: 10,
                region: None,
                histogram: &h,
            },
        )
        .unwrap();
        let zeros = "0,".repeat(14);
        let expected = format!(
            "{{\"frame\":3,\"pts\":0.1,\"width\":2,\"height\":3,\"bins\":16,\"depth\":10,\"r\":[1,{zeros}5],\"g\":[2,{zeros}6],\"b\":[3,{zeros}7],\"l\":[4,{zeros}8]}}\n"
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn csv_row_lines_up_with_its_header() {
        let h = Histogram::zeroed(16);
        let (mut header, mut row) = (Vec::new(), Vec::new());
        write_csv_header(&mut header, 16).unwrap();
        let report = FrameReport {
            frame: 0,
            pts: 0.0,
            width: 1,
            height: 1,
            depth: 8,
            region: None,
            histogram: &h,
        };
        write_csv_row(&mut row, &report).unwrap();
        let count = |b: &[u8]| String::from_utf8_lossy(b).trim_end().split(',').count();
        assert_eq!(count(&header), 5 + 64 + 1);
        assert_eq!(count(&row), 5 + 64 + 1);
        assert!(String::from_utf8_lossy(&row).starts_with("0,0,1,1,16,"));
        assert!(String::from_utf8_lossy(&header).trim_end().ends_with(",l15,depth"));
        assert!(String::from_utf8_lossy(&row).trim_end().ends_with(",8"));
    }
}
