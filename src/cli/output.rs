//! The machine-readable output formats, one place for all of them: `hist`'s JSON Lines and CSV
//! here, `scope`'s JSON Lines beside it (`cli/scope.rs`). They are a public interface (the
//! README documents them): the structs below are their schema, serialised with serde_json and
//! the csv crate, and tests/golden pins their bytes.

use crate::engine::histogram::Histogram;
use crate::scope::Region;
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
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
    /// With a LUT in force: whether the signal or the picture through it was counted.
    pub counted: Option<crate::pipeline::ScopesOn>,
    /// The field counted, where each is counted apart.
    pub field: Option<crate::video::deinterlace::Field>,
}

/// `hist`'s JSON line: `{"frame":K,"pts":s,"width":W,"height":H,"bins":N,"depth":D,"r":[...],
/// "g":[...],"b":[...],"l":[...]}`, with `"region":[X,Y,W,H]` after `"depth"` when a region was
/// counted.
#[derive(Serialize)]
struct HistLine<'a> {
    frame: u64,
    /// `top` or `bottom`, where each field is counted apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'static str>,
    pts: Seconds,
    width: u32,
    height: u32,
    bins: u32,
    depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<RegionBox>,
    /// "signal" or "display", with a LUT in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    counted: Option<&'static str>,
    r: Channel<'a>,
    g: Channel<'a>,
    b: Channel<'a>,
    l: Channel<'a>,
}

/// Seconds as a JSON number: shortest round-trip form, integers without a fraction (`0`, not
/// `0.0`), never an exponent; `null` where not finite.
pub struct Seconds(pub f64);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.is_finite() {
            return serializer.serialize_none();
        }
        // Rust's own formatting (never an exponent) as the number's text.
        match serde_json::value::RawValue::from_string(format!("{}", self.0)) {
            Ok(raw) => raw.serialize(serializer),
            Err(_) => serializer.serialize_f64(self.0),
        }
    }
}

/// A region as `[X,Y,W,H]`.
pub struct RegionBox(pub Region);

impl Serialize for RegionBox {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        [r.x, r.y, r.width, r.height].serialize(serializer)
    }
}

/// One channel's counts, bin after bin.
struct Channel<'a>(&'a Histogram, usize);

impl Serialize for Channel<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.counts.len()))?;
        for counts in &self.0.counts {
            seq.serialize_element(&counts[self.1])?;
        }
        seq.end()
    }
}

/// Whether a file can be written at `path`, asked before a run that writes it at its end (so that
/// a name in a folder that isn't there, or one the system keeps, fails at once, not after the
/// run): where the file is written until whole (`OutputFile`, beside its name) a file is made
/// and taken away again; a file there already, or one written through, is opened for writing,
/// untouched. A pipe is not
/// opened: that would wait for its reader, and closing it would end the reader's input.
pub fn check_writable(path: &std::path::Path) -> io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    if path.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a folder"));
    }
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty() && !p.is_dir()) {
        let text = format!("there is no folder '{}'", folder.display());
        return Err(io::Error::new(io::ErrorKind::NotFound, text));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket()) {
        return Ok(());
    }
    let file = crate::output_file::OutputFile::new(path);
    if file.beside() {
        // (One left by a run that was killed is this run's to take away.)
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(file.written())
            .map_err(|e| {
                let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
                let folder = folder.unwrap_or(std::path::Path::new("."));
                let text = format!("no file can be made in '{}' to write it into ({e})", folder.display());
                io::Error::new(e.kind(), text)
            })?;
        std::fs::remove_file(file.written())?;
        // (A file there already that can't be written is refused too, though a rename would
        // replace it: opened below.)
        if !path.exists() {
            return Ok(());
        }
    }
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => Ok(()),
        // A link that names no file yet: the file it names.
        // (A loop of links fails to open as one, not as a file not found.)
        Err(e) if e.kind() == io::ErrorKind::NotFound && path.is_symlink() => {
            let folder = path.parent().unwrap_or(std::path::Path::new(""));
            check_writable(&folder.join(std::fs::read_link(path)?))
        }
        Err(e) => Err(e),
    }
}

/// Whether a picture can be written at `output` by a run reading `inputs`: a name of a format
/// `still::save_image` writes, a place it can be written, not an input.
pub fn check_picture(output: &std::path::Path, inputs: &[&std::path::Path]) -> anyhow::Result<()> {
    crate::video::still::check_image_name(output).map_err(anyhow::Error::msg)?;
    check_writable(output).map_err(|e| anyhow::anyhow!("'{}' can't be written: {e}", output.display()))?;
    refuse_input(output, inputs)
}

/// Refuses to write `output` where it is one of `inputs` (the same file, through any name or
/// link): the run would overwrite what it reads.
pub fn refuse_input(output: &std::path::Path, inputs: &[&std::path::Path]) -> anyhow::Result<()> {
    let Ok(written) = std::fs::metadata(output) else {
        return Ok(());
    };
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|read| same_file(&written, &read)) {
            anyhow::bail!(
                "'{}' is the input '{}': writing it would overwrite what is read",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Refuses two outputs (each with the option that names it) that are one file, through any
/// name or link: the one written last would take the other's place. (A device or a pipe named
/// twice, `/dev/stdout` and `/dev/stderr` on one terminal, is written to twice, as asked.)
pub fn refuse_twice(outputs: &[(&str, &std::path::Path)]) -> anyhow::Result<()> {
    // Where a file not there yet would be: its folder's own name, and its name.
    let place = |path: &std::path::Path| {
        let folder = path.parent().filter(|f| !f.as_os_str().is_empty());
        let folder = folder.unwrap_or(std::path::Path::new(".")).canonicalize().ok()?;
        Some(folder.join(path.file_name()?))
    };
    for (i, (first, a)) in outputs.iter().enumerate() {
        for (second, b) in &outputs[i + 1..] {
            let same = match (std::fs::metadata(a), std::fs::metadata(b)) {
                (Ok(x), Ok(y)) => x.is_file() && same_file(&x, &y),
                (Err(_), Err(_)) => place(a).is_some_and(|p| Some(p) == place(b)),
                _ => false,
            };
            if same {
                anyhow::bail!(
                    "{first} and {second} both name '{}': one would overwrite the other",
                    a.display()
                );
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// A value as one JSON line.
pub fn write_line(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)
}

pub fn write_json_line(out: &mut impl Write, report: &FrameReport) -> io::Result<()> {
    let h = report.histogram;
    write_line(
        out,
        &HistLine {
            frame: report.frame,
            field: report.field.map(crate::video::deinterlace::Field::name),
            pts: Seconds(report.pts),
            width: report.width,
            height: report.height,
            bins: h.bins(),
            depth: report.depth,
            region: report.region.map(RegionBox),
            counted: report.counted.map(crate::pipeline::ScopesOn::name),
            r: Channel(h, 0),
            g: Channel(h, 1),
            b: Channel(h, 2),
            l: Channel(h, 3),
        },
    )
}

/// `hist --csv`'s header: frame,pts,width,height,bins, then r0..rN-1, g0.., b0.., l0.., then
/// depth (last, so that the columns before it keep their places), `field` where each field is
/// counted apart, `region_x,region_y,region_w,region_h` where a region is counted, and `counted`
/// (`signal` or `display`) with a LUT in force: the columns `report`, the first frame's, has.
pub fn write_csv_header(out: &mut impl Write, report: &FrameReport) -> io::Result<()> {
    let bins = report.histogram.bins();
    let mut names: Vec<String> = ["frame", "pts", "width", "height", "bins"].map(String::from).to_vec();
    for name in ["r", "g", "b", "l"] {
        names.extend((0..bins).map(|i| format!("{name}{i}")));
    }
    names.push("depth".into());
    if report.field.is_some() {
        names.push("field".into());
    }
    if report.region.is_some() {
        names.extend(["region_x", "region_y", "region_w", "region_h"].map(String::from));
    }
    if report.counted.is_some() {
        names.push("counted".into());
    }
    write_csv_record(out, &names)
}

/// `hist --csv`'s row for a frame, its columns as the header names them.
pub fn write_csv_row(out: &mut impl Write, report: &FrameReport) -> io::Result<()> {
    let h = report.histogram;
    let mut fields = vec![
        report.frame.to_string(),
        seconds_text(report.pts),
        report.width.to_string(),
        report.height.to_string(),
        h.bins().to_string(),
    ];
    for ch in 0..4 {
        fields.extend(h.counts.iter().map(|c| c[ch].to_string()));
    }
    fields.push(report.depth.to_string());
    if let Some(field) = report.field {
        fields.push(field.name().to_string());
    }
    if let Some(r) = report.region {
        fields.extend([r.x, r.y, r.width, r.height].map(|v| v.to_string()));
    }
    if let Some(counted) = report.counted {
        fields.push(counted.name().to_string());
    }
    write_csv_record(out, &fields)
}

/// One CSV row of `fields`.
pub fn write_csv_record(out: &mut impl Write, fields: &[String]) -> io::Result<()> {
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(out);
    writer.write_record(fields)?;
    writer.flush()
}

/// Seconds as the CSV writes them: as in JSON, `null` where not finite.
fn seconds_text(seconds: f64) -> String {
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
    fn a_link_to_no_file_yet_and_a_pipe_can_be_written_and_two_outputs_of_one_file_are_refused() {
        let dir = std::env::temp_dir().join(format!("histoplay-writable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("shot.png");
        std::os::unix::fs::symlink("made.png", &link).unwrap();
        check_writable(&link).unwrap();
        assert!(!dir.join("made.png").exists());
        // (Opening a pipe would wait here for a reader.)
        let pipe = dir.join("pipe.png");
        assert!(std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap()
            .success());
        check_writable(&pipe).unwrap();
        let a = dir.join("a.xml");
        assert!(refuse_twice(&[("-o", &a), ("--html", &dir.join("b.html"))]).is_ok());
        let again = dir.join(".").join("a.xml");
        let err = refuse_twice(&[("-o", &a), ("--html", &again)]).unwrap_err();
        assert!(err.to_string().starts_with("-o and --html both name"), "{err}");
        std::fs::write(&a, b"").unwrap();
        std::fs::hard_link(&a, dir.join("hard.xml")).unwrap();
        assert!(refuse_twice(&[("-o", &a), ("--record", &dir.join("hard.xml"))]).is_err());
        // A pipe named twice is written to twice.
        assert!(refuse_twice(&[("-o", &pipe), ("--alert-log", &pipe)]).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_line_has_the_documented_shape() {
        let mut h = Histogram::zeroed(16);
        h.counts[0] = [1, 2, 3, 4];
        h.counts[15] = [5, 6, 7, 8];
        let mut out = Vec::new();
        let mut report = FrameReport {
            frame: 3,
            pts: 0.1,
            width: 2,
            height: 3,
            depth: 10,
            region: None,
            histogram: &h,
            counted: None,
            field: None,
        };
        write_json_line(&mut out, &report).unwrap();
        let zeros = "0,".repeat(14);
        let expected = format!(
            "{{\"frame\":3,\"pts\":0.1,\"width\":2,\"height\":3,\"bins\":16,\"depth\":10,\"r\":[1,{zeros}5],\"g\":[2,{zeros}6],\"b\":[3,{zeros}7],\"l\":[4,{zeros}8]}}\n"
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        // Whole seconds without a fraction, no exponent, null where there is no time; the
        // region after the depth.
        for (pts, text) in [(0.0, "0"), (2.0, "2"), (1e-7, "0.0000001"), (f64::NAN, "null")] {
            report.pts = pts;
            report.region = Some(Region {
                x: 1,
                y: 2,
                width: 3,
                height: 4,
            });
            let mut out = Vec::new();
            write_json_line(&mut out, &report).unwrap();
            let line = String::from_utf8(out).unwrap();
            assert!(
                line.starts_with(&format!("{{\"frame\":3,\"pts\":{text},\"width\":2,\"height\":3,\"bins\":16,\"depth\":10,\"region\":[1,2,3,4],\"r\":[1,")),
                "{line}"
            );
        }
    }

    #[test]
    fn csv_row_lines_up_with_its_header() {
        let h = Histogram::zeroed(16);
        let report = FrameReport {
            frame: 0,
            pts: 0.0,
            width: 1,
            height: 1,
            depth: 8,
            region: None,
            histogram: &h,
            counted: None,
            field: None,
        };
        let mut out = Vec::new();
        write_csv_header(&mut out, &report).unwrap();
        write_csv_row(&mut out, &report).unwrap();
        let text = String::from_utf8(out).unwrap();
        let (header, row) = text.split_once('\n').unwrap();
        let count = |s: &str| s.trim_end().split(',').count();
        assert_eq!(count(header), 5 + 64 + 1);
        assert_eq!(count(row), 5 + 64 + 1);
        assert!(row.starts_with("0,0,1,1,16,"));
        assert!(header.ends_with(",l15,depth"));
        assert!(row.trim_end().ends_with(",8"));
        // A region counted through a LUT: its box and what was counted, after the depth.
        let report = FrameReport {
            region: Some(Region {
                x: 1,
                y: 2,
                width: 3,
                height: 4,
            }),
            counted: Some(crate::pipeline::ScopesOn::Display),
            ..report
        };
        let mut out = Vec::new();
        write_csv_header(&mut out, &report).unwrap();
        write_csv_row(&mut out, &report).unwrap();
        let text = String::from_utf8(out).unwrap();
        let (header, row) = text.split_once('\n').unwrap();
        assert!(
            header.ends_with(",l15,depth,region_x,region_y,region_w,region_h,counted"),
            "{header}"
        );
        assert!(row.trim_end().ends_with(",8,1,2,3,4,display"), "{row}");
    }
}
