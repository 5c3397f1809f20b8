//! QC while the window plays a live input (`--record-report`, `--fail-on`, `--alert-log`):
//! `report`'s own run, on a thread of its own, over the input's packets as they are read (the
//! window's decoding hands them on, `VideoSource::share_packets`). Its values are `report`'s,
//! in its formats, written and flushed frame by frame; the runs beyond the limits are told on
//! stderr and in the alert log as they end, and the window warns of each as it starts. Every
//! frame is counted: a report that fell behind the input by more than the pipe's relay holds
//! (256 MiB of packets; a GPU slower than the stream for minutes) would hold up its reading,
//! and on quitting it counts what the relay still holds before the process ends.

use super::file::{report_video, Alerts, ReportOptions};
use super::limits::Limits;
use super::ReportFormat;
use crate::headless::FrameRange;
use crate::video::source::{Decoding, VideoSource};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The reports being written, so that the process lets each finish before it exits.
static RUNNING: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// What the window asked for.
#[derive(Clone, Debug, Default)]
pub struct QcOptions {
    /// The report to write, its format from its name: `.csv`, `.jsonl` or `.json` (JSON Lines),
    /// else QCTools' (`.qctools.xml.gz`).
    pub output: Option<PathBuf>,
    pub limits: Limits,
    pub alert_log: Option<PathBuf>,
}

/// The format a report's name asks for.
pub fn format_of(path: &Path) -> ReportFormat {
    let name = path.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".csv") {
        ReportFormat::Csv
    } else if name.ends_with(".jsonl") || name.ends_with(".json") {
        ReportFormat::Json
    } else {
        ReportFormat::Qctools
    }
}

/// Starts the report of the live input `source` reads, from the packets it reads next;
/// `beyond` is kept up to date with the limits the last frame counted is beyond.
pub fn start(source: &mut VideoSource, options: &QcOptions, beyond: Arc<Mutex<Vec<String>>>) -> Result<(), String> {
    let name = source.info.path.display().to_string();
    if !source.info.live {
        return Err(format!(
            "'{name}' is a file: --record-report and --fail-on in the window are for live inputs (run `histoplay report` on a file)"
        ));
    }
    // The report's file exists from the start, so a bad name fails now, not later.
    let out = match &options.output {
        Some(path) => {
            Some(std::fs::File::create(path).map_err(|e| format!("'{}' can't be written: {e}", path.display()))?)
        }
        None => None,
    };
    let location = source.share_packets().map_err(|e| e.to_string())?;
    // (The report reads the packets of the pictures the window hands on: not its sound.)
    let on_sound = options.limits.on_sound();
    if !on_sound.is_empty() {
        eprintln!(
            "note: the report beside the window is of the pictures: {} not watched (run `histoplay report` on the input or its recording)",
            on_sound.join(", ")
        );
    }
    let options = options.clone();
    let thread = std::thread::Builder::new()
        .name("histoplay qc".into())
        .spawn(move || {
            if let Err(e) = run(&location, &options, out, beyond) {
                eprintln!(
                    "error: {}",
                    crate::terminal::one_line(&format!("the report of '{name}' stopped: {e}"))
                );
            }
            // Read or not, the pipe's read end goes: the window's writes to it fail from then
            // on (its recording stops with a warning) instead of waiting for a reader.
            crate::video::input::close_internal(&location);
        })
        .map_err(|e| format!("cannot start the report: {e}"))?;
    RUNNING.lock().unwrap_or_else(|e| e.into_inner()).push(thread);
    Ok(())
}

fn run(
    location: &Path,
    options: &QcOptions,
    out: Option<std::fs::File>,
    beyond: Arc<Mutex<Vec<String>>>,
) -> Result<(), String> {
    // Decoded as `report` decodes (frame threads, every frame in order), so that a damaged
    // frame is concealed as `report` of the recording conceals it: slice threads, which the
    // window's own live decoding takes for latency, fill a broken frame's gaps otherwise.
    let source = VideoSource::open_for(location, Decoding::Throughput).map_err(|e| e.to_string())?;
    let counted = std::sync::atomic::AtomicU64::new(0);
    // A QCTools report has the detectors' tags, as `report`'s has them.
    let qctools = options
        .output
        .as_deref()
        .is_some_and(|path| format_of(path) == ReportFormat::Qctools);
    let report = ReportOptions {
        limits: options.limits.clone(),
        events: super::events::EventSettings {
            list: qctools,
            limits: options.limits.events(),
            ..Default::default()
        },
        idet: super::idet_wanted(None, Some(&options.limits), qctools),
        // A count, not a progress line, beside the window.
        counter: Some(&counted),
        alerts: Alerts {
            stderr: true,
            log: options.alert_log.clone(),
        },
        beyond: Some(beyond),
        ..Default::default()
    };
    let all = FrameRange { start: 0, end: None };
    match (out, &options.output) {
        (Some(file), Some(path)) => {
            let mut out = std::io::BufWriter::new(file);
            report_video(source, all, format_of(path), report, &mut out).map_err(|e| e.to_string())?;
        }
        // Only the limits watched: the statistics go nowhere.
        _ => {
            report_video(source, all, ReportFormat::Json, report, &mut std::io::sink()).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Waits for the reports to write their last frames: called once the recordings that feed
/// them are finished (`record::finish_all`), which ends their inputs.
pub fn finish_all() {
    let running = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(|e| e.into_inner()));
    for thread in running {
        let _ = thread.join();
    }
}
