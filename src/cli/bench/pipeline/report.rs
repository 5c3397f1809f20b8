//! `report` timed against decoding alone: streaming its statistics, and whole commands
//! (`report`, `pse`) on a file looped to a minute, each a process of its own.

use crate::video::source::{Decoding, VideoSource};
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// `report`'s rates against decoding alone (as `report` decodes: `Decoding::Throughput`):
/// streaming, and the whole command on a looped file.
/// On a CPU adapter (lavapipe) the whole commands run over `CPU_ADAPTER_SECONDS` of the file:
/// its figures are no GPU's, and the photosensitivity pass takes it milliseconds a frame.
pub(super) fn write_rates(out: &mut impl Write, path: &Path, decode_fps: f64, cpu_adapter: bool) -> Result<()> {
    if let Some((reported, fps, steady)) = report_rate(path)? {
        let from_first = match reported {
            0 | 1 => "no rate from the first frame written (one frame)".to_string(),
            _ => format!(
                "{steady:.1} fps ({:.1}%) from the first frame written",
                100.0 * steady / decode_fps
            ),
        };
        writeln!(
            out,
            "report:       {reported} frames at {fps:.1} fps ({:.1}% of decode-only, best of 2), {from_first}: signalstats of every frame, as `histoplay report`",
            100.0 * fps / decode_fps,
        )?;
    }
    let seconds = if cpu_adapter {
        CPU_ADAPTER_SECONDS
    } else {
        REPORT_SECONDS
    };
    if let Some(whole) = report_whole(path, seconds)? {
        let decode = whole.decode.0.as_secs_f64();
        for (name, run) in [("report", whole.report), ("pse", whole.pse)] {
            let took = run.0.as_secs_f64();
            writeln!(
                out,
                "{name} whole: {} frames ({} loops of the file), each a process from its start to its end: `histoplay {name}` {took:.2} s, decoding alone {decode:.2} s: {:.1}% of decode-only, best of 2",
                whole.frames,
                whole.loops,
                100.0 * decode / took
            )?;
        }
        writeln!(
            out,
            "whole, the processes' CPU (those runs): decoding alone {}; report {}; pse {}",
            whole.decode.1, whole.report.1, whole.pse.1
        )?;
    }
    Ok(())
}

/// How long a file `report`'s whole run is timed on, looped from the clip: QC files are long.
const REPORT_SECONDS: f64 = 60.0;
const CPU_ADAPTER_SECONDS: f64 = 10.0;

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

/// The CPU time (user and kernel, seconds) and the page faults that made pages (minor faults)
/// of the children waited for so far.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    user: f64,
    system: f64,
    faults: i64,
}

impl Usage {
    fn children() -> Self {
        // SAFETY: rusage is plain integers, for which zero is a value.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
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

/// A process's wall time, from its start to its end, and what it used; the best of its runs.
type Timed = (Duration, Usage);

/// `report_whole`'s measure: frames, loops, and the best of two runs of each process.
struct Whole {
    frames: u64,
    loops: u32,
    report: Timed,
    pse: Timed,
    decode: Timed,
}

/// Runs this program with `args` (the decoder chosen as this process's), its output thrown
/// away: how long the process took from its start to its end, and what it used. Fails with its
/// error where it fails (a verdict, as `pse`'s fail, is not a failure).
fn run_timed(args: &[&std::ffi::OsStr]) -> Result<Timed> {
    let exe = std::env::current_exe()?;
    let hwdec = clap::ValueEnum::to_possible_value(&crate::video::source::hardware::preference())
        .map(|v| v.get_name().to_string())
        .unwrap_or_else(|| "auto".into());
    let before = Usage::children();
    let start = Instant::now();
    let out = std::process::Command::new(exe)
        .args(args)
        .arg("--hwdec")
        .arg(hwdec)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()?;
    let took = start.elapsed();
    // (Exit status 1 with no error is a verdict: a failing `pse`, runs beyond limits.)
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error = stderr.lines().find_map(|l| l.strip_prefix("error: "));
    if !out.status.success() && (error.is_some() || out.status.code() != Some(1)) {
        let command: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        anyhow::bail!(
            "histoplay {} failed: {}",
            command.join(" "),
            error.unwrap_or("it ended without saying why")
        );
    }
    Ok((took, Usage::children().since(before)))
}

/// The frames of a file decoded alone, as `report`, `hist`, `compare` and the timeline decode
/// them (`Decoding::Throughput`), in a process of its own (`bench-pipeline --decode-alone`):
/// what a command's run is measured against, its start (a hardware decoder's device made)
/// and its end (the command's way, `process::end`) included. Prints the frames decoded.
pub fn decode_alone(path: &Path) -> Result<()> {
    crate::process::end_at_once();
    let mut source = VideoSource::open_for(path, Decoding::Throughput)?;
    crate::process::mark("the file open");
    let mut frames = 0u64;
    while source.next_frame()?.is_some() {
        if frames == 0 {
            crate::process::mark("the first frame decoded");
        }
        frames += 1;
    }
    crate::process::mark("the last frame decoded");
    println!("{frames}");
    crate::process::close_behind("the decoder", move || drop(source));
    Ok(())
}

/// Whole commands against decoding alone, each a process of its own timed from its start to
/// its end, as a person running them waits for them: `histoplay report` and `histoplay pse`
/// of a stream copy of `path` looped to about `seconds` (QC runs over whole files, minutes to
/// hours long), against `bench-pipeline --decode-alone` of the same copy. A command opens its
/// GPU while its hardware decoder's device is made and its first frame decodes, as a process
/// does from its start: timed in this process, where that device is made already, the GPU's
/// start would stand alone. None for a file that is not Y'CbCr.
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
        let (mut report, mut pse, mut decode) = (least, least, least);
        let better = |best: &mut Timed, run: Timed| {
            if run.0 < best.0 {
                *best = run;
            }
        };
        let file = copy.as_os_str();
        for _ in 0..2 {
            better(
                &mut decode,
                run_timed(&["bench-pipeline".as_ref(), file, "--decode-alone".as_ref()])?,
            );
            better(&mut report, run_timed(&["report".as_ref(), file])?);
            better(&mut pse, run_timed(&["pse".as_ref(), file])?);
        }
        let frames = VideoSource::open(&copy)?.index().wait_complete().unwrap_or(0);
        Ok(Whole {
            frames,
            loops,
            report,
            pse,
            decode,
        })
    })();
    let _ = std::fs::remove_file(&copy);
    measured.map(Some)
}
