//! `report` timed against decoding alone: streaming its statistics, and the whole command on
//! a file looped to a minute.

use crate::video::source::{Decoding, VideoSource};
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// `report`'s rates against decoding alone (as `report` decodes: `Decoding::Throughput`):
/// streaming, and the whole command on a looped file.
pub(super) fn write_rates(out: &mut impl Write, path: &Path, decode_fps: f64) -> Result<()> {
    if let Some((reported, fps, steady)) = report_rate(path)? {
        writeln!(
            out,
            "report:       {reported} frames at {fps:.1} fps ({:.1}% of decode-only, best of 2), {steady:.1} fps ({:.1}%) from the first frame written: signalstats of every frame, as `histoplay report`",
            100.0 * fps / decode_fps,
            100.0 * steady / decode_fps
        )?;
    }
    if let Some(whole) = report_whole(path, REPORT_SECONDS)? {
        let (report, decode) = (whole.report.0.as_secs_f64(), whole.decode.0.as_secs_f64());
        writeln!(
            out,
            "report whole: {} frames ({} loops of the file): the command {report:.2} s, opening and decoding alone {decode:.2} s: {:.1}% of decode-only, from the file's opening, best of 2",
            whole.frames,
            whole.loops,
            100.0 * decode / report
        )?;
        writeln!(
            out,
            "report whole, the process's CPU (those runs): decoding alone {}; the command {}",
            whole.decode.1, whole.report.1
        )?;
    }
    Ok(())
}

/// How long a file `report`'s whole run is timed on, looped from the clip: QC files are long.
const REPORT_SECONDS: f64 = 60.0;

/// Output that notes when it is first written to, and writes nowhere.
struct FirstWrite(Option<Instant>);

impl Write for FirstWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.get_or_insert_with(Instant::now);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Frames and the best of two rates of `report` over the whole file (its statistics counted
/// on the GPU and read back, the JSON written nowhere), for a Y'CbCr file: from the start (the
/// GPU and the file opened, the pass made) and from the first frame written.
fn report_rate(path: &Path) -> Result<Option<(u64, f64, f64)>> {
    let mut best: Option<(u64, f64, f64)> = None;
    for _ in 0..2 {
        let source = VideoSource::open_for(path, Decoding::Throughput)?;
        if crate::signalstats::PlaneShape::of(source.info.format.layout).is_err() {
            return Ok(None);
        }
        let start = Instant::now();
        let everything = crate::headless::FrameRange { start: 0, end: None };
        let mut out = FirstWrite(None);
        let (frames, _) = crate::cli::report::file::report_video(
            source,
            everything,
            crate::cli::report::ReportFormat::Json,
            crate::cli::report::file::ReportOptions::default(),
            &mut out,
        )?;
        let fps = frames as f64 / start.elapsed().as_secs_f64();
        let first = out.0.unwrap_or(start);
        let steady = frames.saturating_sub(1) as f64 / first.elapsed().as_secs_f64().max(1e-9);
        if best.is_none_or(|(_, b, _)| fps > b) {
            best = Some((frames, fps, steady));
        }
    }
    Ok(best)
}

/// The process's CPU time over a stretch (user and kernel, seconds) and the page faults that
/// made pages (minor faults).
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    user: f64,
    system: f64,
    faults: i64,
}

impl Usage {
    fn now() -> Self {
        // SAFETY: rusage is plain integers, for which zero is a value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return Self::default();
        }
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Self {
            user: seconds(usage.ru_utime),
            system: seconds(usage.ru_stime),
            faults: usage.ru_minflt,
        }
    }

    fn since(self, before: Self) -> Self {
        Self {
            user: self.user - before.user,
            system: self.system - before.system,
            faults: self.faults - before.faults,
        }
    }
}

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2} s ({:.2} s in the kernel, {} page faults)",
            self.user + self.system,
            self.system,
            self.faults
        )
    }
}

/// `report_whole`'s measure: frames, loops, and the best of two runs each, with the process's
/// CPU over that run.
struct Whole {
    frames: u64,
    loops: u32,
    report: (Duration, Usage),
    decode: (Duration, Usage),
}

/// `report`'s whole run against decoding alone, both timed from the file's opening, on a stream
/// copy of `path` looped to about `seconds` (QC runs over whole files, minutes to hours long):
/// the GPU opens beside the file, as `histoplay report` opens it. None for a file that is not
/// Y'CbCr.
fn report_whole(path: &Path, seconds: f64) -> Result<Option<Whole>> {
    let source = VideoSource::open(path)?;
    if crate::signalstats::PlaneShape::of(source.info.format.layout).is_err() || source.info.duration <= 0.0 {
        return Ok(None);
    }
    let loops = (seconds / source.info.duration).ceil().max(1.0) as u32;
    drop(source);
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("mkv");
    let copy = std::env::temp_dir().join(format!("histoplay-report-{}.{extension}", std::process::id()));
    crate::cli::bench::clips::loop_copy(path, &copy, loops)?;
    let measured = (|| -> Result<Whole> {
        let least = (Duration::MAX, Usage::default());
        let (mut report, mut decode, mut frames) = (least, least, 0);
        let better = |best: &mut (Duration, Usage), start: Instant, usage: Usage| {
            let took = start.elapsed();
            if took < best.0 {
                *best = (took, Usage::now().since(usage));
            }
        };
        for _ in 0..2 {
            let (start, usage) = (Instant::now(), Usage::now());
            let mut source = VideoSource::open_for(&copy, Decoding::Throughput)?;
            while source.next_frame()?.is_some() {}
            drop(source);
            better(&mut decode, start, usage);
            let (start, usage) = (Instant::now(), Usage::now());
            // As the command runs: the GPU opened while the file opens and its first frame
            // decodes, and let go after the last line (the command exits without waiting).
            let gpu = crate::gpu::GpuOpening::start(true);
            let source = VideoSource::open_for(&copy, Decoding::Throughput)?;
            let everything = crate::headless::FrameRange { start: 0, end: None };
            let (gpu, source) = crate::headless::open_beside(gpu, source, everything);
            let options = crate::cli::report::file::ReportOptions {
                gpu: gpu.as_ref(),
                ..Default::default()
            };
            let json = crate::cli::report::ReportFormat::Json;
            (frames, _) =
                crate::cli::report::file::report_video(source, everything, json, options, &mut std::io::sink())?;
            better(&mut report, start, usage);
            drop(gpu);
        }
        Ok(Whole {
            frames,
            loops,
            report,
            decode,
        })
    })();
    let _ = std::fs::remove_file(&copy);
    measured.map(Some)
}
