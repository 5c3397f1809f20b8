//! `report` over many files (`report DIR`, or several inputs): a report beside each file,
//! several files at once on one GPU, one progress line, and a summary table. A file that fails
//! is reported and the rest go on; `--skip-existing` resumes a stopped batch, since a report
//! is written under a temporary name and renamed only once whole. SIGINT or SIGTERM stops the
//! batch: the reports under way are removed, and the summary says what was finished.

use super::file::{report_sound, report_video, ReportOptions};
use super::limits::{Limits, Runs};
use super::ReportFormat;
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{ClipError, FrameRange};
use crate::output_file::OutputFile;
use crate::quit_signals::QuitSignals;
use crate::video::source::{Decoding, VideoError, VideoSource};
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// File name endings taken for video when a directory is given (any case).
const VIDEO_EXTENSIONS: [&str; 24] = [
    "mkv", "mp4", "m4v", "mov", "avi", "mxf", "ts", "m2ts", "mts", "webm", "dv", "mpg", "mpeg", "vob", "wmv", "flv",
    "ogv", "y4m", "nut", "3gp", "m2v", "264", "265", "hevc",
];

/// How one file went.
#[derive(Debug)]
pub enum Outcome {
    Done {
        frames: u64,
        runs: Runs,
        seconds: f64,
    },
    Skipped,
    Failed(String),
    /// Not reported, or not to its end: a signal stopped the batch.
    Stopped,
}

/// Refuses a live input among a batch's: a report goes beside its file, whose sound is read
/// again, and a live input has neither a place nor a second reading.
pub fn refuse_live(inputs: &[PathBuf]) -> anyhow::Result<()> {
    match inputs.iter().find(|i| crate::video::input::is_stream(i)) {
        Some(live) => anyhow::bail!(
            "'{}' is a live input: a batch reports files beside them (report it alone, with --output)",
            live.display()
        ),
        None => Ok(()),
    }
}

/// The files `inputs` name: files as given, directories searched (in name order, depth first)
/// for files with a video ending. Each file is taken once, however many times it is named or
/// found (two reports of one file would write one report beside it at once), and each directory
/// searched once (a link back up the tree is not followed round).
pub fn expand(inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut walk = Walk::default();
    for input in inputs {
        if input.is_dir() {
            walk.collect(input);
        } else {
            walk.take(input.clone());
        }
    }
    walk.files
}

/// The files found so far, and what has been seen of the disk (by canonical path).
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    seen_files: std::collections::HashSet<PathBuf>,
    seen_dirs: std::collections::HashSet<PathBuf>,
}

impl Walk {
    /// Takes `path` unless the file it names is taken already (a path that does not resolve is
    /// taken as given: opening it says what is wrong).
    fn take(&mut self, path: PathBuf) {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.seen_files.insert(key) {
            self.files.push(path);
        }
    }

    fn collect(&mut self, dir: &Path) {
        let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        if !self.seen_dirs.insert(key) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            // (Only files: a FIFO or a device found in a folder would wait for a writer.)
            if path.is_dir() {
                self.collect(&path);
            } else if path.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| VIDEO_EXTENSIONS.iter().any(|v| v.eq_ignore_ascii_case(e)))
            {
                self.take(path);
            }
        }
    }
}

/// Files reported at once: a decoder and its threads each, a quarter of the cores (at least
/// one, at most eight: more NVDEC sessions than that contend).
pub fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / 4).clamp(1, 8)
}

/// How a batch runs.
pub struct BatchOptions<'a> {
    pub format: ReportFormat,
    pub limits: Limits,
    pub cpu: bool,
    pub skip_existing: bool,
    /// JSON Lines get the sound's lines (`--audio`).
    pub audio: bool,
    /// Which audio stream of each file is reported (`--aid`).
    pub track: crate::audio::source::AudioTrack,
    /// Files reported at once.
    pub jobs: usize,
    /// Stops the batch once a signal has asked to quit.
    pub stop: Option<&'a QuitSignals>,
    /// Each frame deinterlaced first (`--deinterlace`).
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
    /// The interlace detection each file's report runs.
    pub idet: Option<super::idet::IdetWanted>,
}

/// Reports every file of `files`, `options.jobs` at a time; returns each one's outcome, in the
/// files' order.
pub fn report_batch(files: &[PathBuf], options: &BatchOptions) -> Vec<Outcome> {
    let queue = Mutex::new((0..files.len()).collect::<VecDeque<_>>());
    let outcomes: Vec<Mutex<Option<Outcome>>> = files.iter().map(|_| Mutex::new(None)).collect();
    let frames = AtomicU64::new(0);
    let gpu = if options.cpu { None } else { GpuContext::new().ok() };
    let mut progress = Progress::new(None);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..options.jobs.clamp(1, files.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    // A file at a time off the queue, until it is empty.
                    let next = || queue.lock().ok().and_then(|mut q| q.pop_front());
                    while let Some(at) = next() {
                        let outcome = match options.stop.is_some_and(QuitSignals::requested) {
                            true => Outcome::Stopped,
                            false => report_one(&files[at], options, gpu.as_ref(), &frames),
                        };
                        if let Ok(mut slot) = outcomes[at].lock() {
                            *slot = Some(outcome);
                        }
                    }
                })
            })
            .collect();
        while workers.iter().any(|w| !w.is_finished()) {
            progress.tick(frames.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    progress.finish();
    outcomes
        .into_iter()
        .map(|o| {
            o.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Outcome::Failed("the report stopped".into()))
        })
        .collect()
}

fn report_one(input: &Path, options: &BatchOptions, gpu: Option<&GpuContext>, frames: &AtomicU64) -> Outcome {
    let target = options.format.path_beside(input);
    if options.skip_existing && std::fs::metadata(&target).is_ok_and(|m| m.len() > 0) {
        return Outcome::Skipped;
    }
    let written = OutputFile::new(&target);
    let started = Instant::now();
    let run = || -> Result<(u64, Runs), ClipError> {
        // A file of sound alone: its sound's report (its frames the sound's 100 ms ones).
        let source = match VideoSource::open_for(input, Decoding::Throughput) {
            Err(VideoError::NoVideo(_)) => None,
            source => Some(source?),
        };
        crate::audio::source::AudioSource::track_is_there(input, options.track)
            .map_err(|e| ClipError::Decode(e.to_string()))?;
        let report = ReportOptions {
            limits: options.limits.clone(),
            cpu: options.cpu,
            gpu,
            ready: None,
            counter: Some(frames),
            stop: options.stop,
            alerts: Default::default(),
            beyond: None,
            audio: super::file::AudioReport {
                path: Some(input),
                lines: options.audio,
                signals: options.stop,
                track: options.track,
            },
            events: super::events::EventSettings {
                // (A QCTools report always has them, as tags.)
                list: options.format == super::ReportFormat::Qctools,
                limits: options.limits.events(),
                ..Default::default()
            },
            html: None,
            pse: None,
            deinterlace: options.deinterlace,
            idet: options.idet,
            fields: false,
            live_sound: None,
        };
        let everything = FrameRange { start: 0, end: None };
        let file = std::fs::File::create(written.written())
            .map_err(|e| ClipError::Decode(format!("'{}' can't be written: {e}", written.written().display())))?;
        let mut out = std::io::BufWriter::new(file);
        match source {
            Some(source) => report_video(source, everything, options.format, report, &mut out),
            None => report_sound(options.format, report, &mut out),
        }
    };
    let result = run();
    match written.settle(result) {
        Ok((frames, runs)) => Outcome::Done {
            frames,
            runs,
            seconds: started.elapsed().as_secs_f64(),
        },
        Err(e) => match options.stop.is_some_and(QuitSignals::requested) {
            true => Outcome::Stopped,
            false => Outcome::Failed(e.to_string()),
        },
    }
}

/// The summary table: a row per file (frames, time, rate, what came of it), then the totals.
pub fn write_summary(out: &mut impl Write, files: &[PathBuf], outcomes: &[Outcome]) -> std::io::Result<()> {
    let width = files
        .iter()
        .map(|f| f.display().to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<width$}  {:>8}  {:>8}  {:>8}  result",
        "file", "frames", "seconds", "fps"
    )?;
    let (mut done, mut skipped, mut failed, mut flagged, mut stopped) = (0, 0, 0, 0, 0);
    for (file, outcome) in files.iter().zip(outcomes) {
        let name = file.display();
        match outcome {
            Outcome::Done { frames, runs, seconds } => {
                done += 1;
                let result = if runs.is_empty() {
                    "ok".to_string()
                } else {
                    flagged += 1;
                    format!("{} beyond the limits", crate::terminal::counted(runs.len(), "run"))
                };
                let fps = *frames as f64 / seconds.max(1e-9);
                writeln!(out, "{name:<width$}  {frames:>8}  {seconds:>8.1}  {fps:>8.1}  {result}")?;
                for run in runs {
                    writeln!(out, "{:<width$}    {run}", "")?;
                }
            }
            Outcome::Skipped => {
                skipped += 1;
                writeln!(
                    out,
                    "{name:<width$}  {:>8}  {:>8}  {:>8}  skipped: its report is there",
                    "-", "-", "-"
                )?;
            }
            Outcome::Stopped => {
                stopped += 1;
                writeln!(
                    out,
                    "{name:<width$}  {:>8}  {:>8}  {:>8}  stopped: not reported",
                    "-", "-", "-"
                )?;
            }
            Outcome::Failed(reason) => {
                failed += 1;
                writeln!(
                    out,
                    "{name:<width$}  {:>8}  {:>8}  {:>8}  failed: {reason}",
                    "-", "-", "-"
                )?;
            }
        }
    }
    let stopped = match stopped {
        0 => String::new(),
        n => format!(", {n} stopped"),
    };
    writeln!(
        out,
        "{}: {done} reported ({flagged} beyond the limits), {skipped} skipped, {failed} failed{stopped}",
        crate::terminal::counted(files.len(), "file")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_give_their_videos_in_name_order() {
        let dir = std::env::temp_dir().join(format!("histoplay-batch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("day2")).unwrap();
        for name in ["b.MKV", "a.mp4", "notes.txt", "day2/c.mov", "a.mp4.qctools.xml.gz"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let files = expand(&[dir.clone(), PathBuf::from("/given/as/is.bin")]);
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(&dir).unwrap_or(f).display().to_string())
            .collect();
        assert_eq!(names, ["a.mp4", "b.MKV", "day2/c.mov", "/given/as/is.bin"]);
        // A link back up the tree is searched once; a file named twice, or found again, once.
        let _ = std::fs::remove_file(dir.join("day2/up"));
        std::os::unix::fs::symlink("..", dir.join("day2/up")).unwrap();
        let files = expand(&[dir.clone(), dir.join("a.mp4"), dir.join("day2/../a.mp4")]);
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(&dir).unwrap_or(f).display().to_string())
            .collect();
        assert_eq!(names, ["a.mp4", "b.MKV", "day2/c.mov"]);
        assert_eq!(
            ReportFormat::Csv.path_beside(Path::new("/x/a.mp4")),
            Path::new("/x/a.mp4.signalstats.csv")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
