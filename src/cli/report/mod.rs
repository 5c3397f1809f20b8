//! `histoplay report`: FFmpeg's `signalstats` of every frame, as JSON Lines, CSV or a QCTools
//! report, for one file (`file`) or a batch of them (`batch`), with limits that flag runs of
//! frames (`limits`).

pub mod alerts;
pub mod alongside;
pub mod batch;
pub mod events;
pub mod file;
pub mod html;
pub mod idet;
pub mod limits;
pub mod pse;
pub mod qctools;
pub mod sound;

use crate::events::{BlackOptions, FreezeOptions, SilenceOptions};
use crate::gpu::GpuOpening;
use crate::headless::FrameRange;
use crate::quit_signals::QuitSignals;
use crate::video::source::{Decoding, VideoError, VideoSource};
use anyhow::{bail, Context, Result};
use file::{report_video, Alerts, ReportOptions};
use limits::Limits;
use std::io::Write;
use std::path::{Path, PathBuf};

/// QC statistics of every frame, as FFmpeg's signalstats filter and QCTools give them.
///
/// The values of FFmpeg's signalstats filter with stat=tout+vrep+brng (those QCTools reports
/// show): Y, U, V and saturation minimum, 10% and 90% points, average and maximum; hue median
/// and average; differences from the previous frame; temporal outliers, repeated lines and
/// pixels outside broadcast range. One JSON line (or CSV row) per frame, at the source's depth,
/// or a QCTools report.
#[derive(clap::Args)]
pub struct Args {
    /// A video (or a file of sound alone: its sound's report); or several, or directories
    /// (searched for videos): a batch, with a report written beside each file (as --format,
    /// QCTools by default) and a summary table.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// A range of frames: A..B (B excluded), A..=B, A.. (to the end) [default: every frame].
    #[arg(long, value_parser = FrameRange::parse)]
    frames: Option<FrameRange>,
    /// CSV instead of JSON Lines, values printed as ffprobe prints them (as --format csv).
    #[arg(long, conflicts_with = "format")]
    csv: bool,
    /// json (JSON Lines on stdout), csv, or qctools: a QCTools report, gzipped ffprobe XML,
    /// written to --output (default INPUT.qctools.xml.gz).
    #[arg(long, value_enum)]
    format: Option<ReportFormat>,
    /// Where --format qctools writes the report; or, named PAGE.html with no --format, where
    /// the page a person reads goes (as --html).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Limits, e.g. 'YMAX>235,BRNG>0.01,SATMAX>=118.2' (>, >=, <, <=), and QCTools
    /// broadcast profiles by qct-parse's names (default or broadcast, highTolerance,
    /// midTolerance, lowTolerance; levels at the file's depth): each run of frames beyond
    /// one is listed on stderr (frames, times, worst value), and the exit status is 1 when
    /// there is any.
    #[arg(long, value_parser = Limits::parse)]
    fail_on: Option<Limits>,
    /// Count on the CPU (the reference implementation) instead of the GPU; the output is
    /// identical.
    #[arg(long)]
    cpu: bool,
    /// A batch: leave out the files whose report is already there (resuming a stopped one).
    #[arg(long)]
    skip_existing: bool,
    /// A batch: files reported at once [default: a quarter of the cores, 1 to 8].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    jobs: Option<u16>,
    /// Write the input's packets to this file as they are read, without re-encoding (the
    /// container from its extension, as `ffmpeg -i INPUT -c copy FILE`): one pass captures a
    /// live input and reports on it.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// JSON Lines: a line for each 100 ms of the sound after the frames' lines, with FFmpeg's
    /// astats and ebur128 values (a QCTools report always has them, and so does the report of
    /// a file of sound alone).
    #[arg(long)]
    audio: bool,
    /// Which audio stream is reported: its number from 1 (as mpv's --aid), or `auto` (FFmpeg's).
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = crate::audio::source::AudioTrack::parse)]
    aid: crate::audio::source::AudioTrack,
    /// Append each run of frames beyond --fail-on's limits to this file as it ends, one JSON
    /// line each: wall-clock start and end, frames, pts, the limit and the worst value.
    #[arg(long, value_name = "FILE", requires = "fail_on")]
    alert_log: Option<PathBuf>,
    /// JSON Lines: list the black stretches, frozen picture and silences as FFmpeg's
    /// blackdetect, freezedetect and silencedetect find them, a line each as it ends
    /// ({"event":"black","start":s,"end":s,"duration":s,"frames":[a,b]}). Limits on them:
    /// --fail-on black>2s,freeze>2s,silence>2s.
    #[arg(long)]
    events: bool,
    /// Also write a QC report a person reads to this file: one self-contained HTML page with the
    /// file's facts, the verdicts, the events with a picture of each, graphs over time (stdout
    /// only as --events, --csv, --format or --audio ask). `-o PAGE.html` does the same.
    #[arg(long, value_name = "PAGE.html")]
    html: Option<PathBuf>,
    /// Analyse flashes and patterns for photosensitive epilepsy (as `histoplay pse`): each
    /// frame's line gains pse_flashes, pse_red_flashes, pse_area, pse_red_area, pse_pattern,
    /// pse_pattern_pairs and pse_state, and each failing run is a run beyond the limits
    /// (pse:KIND), listed, logged and failing the report.
    #[arg(long)]
    pse: bool,
    /// The rules of --pse: bt1702, ofcom or wcag.
    #[arg(long, value_enum, default_value_t = crate::pse::Standard::Bt1702, requires = "pse")]
    pse_standard: crate::pse::Standard,
    /// blackdetect's options (implies --events): d (shortest stretch, s), pic_th (share of
    /// the picture black), pix_th (black level, share of the range) [default:
    /// d=2:pic_th=0.98:pix_th=0.1].
    #[arg(long, value_name = "OPTIONS", value_parser = BlackOptions::parse)]
    black: Option<BlackOptions>,
    /// freezedetect's options (implies --events): n (noise, as 0.001 or -60dB), d (shortest
    /// freeze, s) [default: n=-60dB:d=2].
    #[arg(long, value_name = "OPTIONS", value_parser = FreezeOptions::parse)]
    freeze: Option<FreezeOptions>,
    /// silencedetect's options (implies --events): n (noise, as 0.001 or -60dB), d (shortest
    /// silence, s), m (1: each channel on its own) [default: n=-60dB:d=2].
    #[arg(long, value_name = "OPTIONS", value_parser = SilenceOptions::parse)]
    silence: Option<SilenceOptions>,
    /// Detect interlacing as FFmpeg's idet does, in the frames as decoded: each frame's line
    /// gains "idet" (the repeated field, the single- and multi-frame decisions and their counts,
    /// named as lavfi.idet.*), and a last line the counts, what the content is and how the frames
    /// are flagged. OPTIONS in FFmpeg's syntax (intl_thres, prog_thres, rep_thres, half_life:
    /// --idet=half_life=1). A QCTools report has it always (with half_life=1, as QCTools runs it).
    /// --fail-on idet fails frames whose content contradicts their flags.
    #[arg(long, value_name = "OPTIONS", num_args = 0..=1, require_equals = true, default_missing_value = "",
          value_parser = crate::idet::IdetOptions::parse)]
    idet: Option<crate::idet::IdetOptions>,
    /// Each field's values apart, as FFmpeg's field filter makes a picture of it (every other
    /// line, half the height): two lines a frame, "field":"top" then "bottom", each field's
    /// differences from the same field of the frame before (JSON Lines or CSV).
    #[arg(long, conflicts_with_all = ["html", "pse", "events", "black", "freeze", "silence"])]
    fields: bool,
    #[command(flatten)]
    deinterlace: crate::cli::args::DeinterlaceArgs,
}

/// What a report is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// JSON Lines: an object per frame.
    Json,
    /// A header row, then a row per frame; values as `ffprobe` prints them.
    Csv,
    /// A QCTools report: gzipped ffprobe XML.
    Qctools,
}

impl ReportFormat {
    /// The report's name beside `input`: `FILE.qctools.xml.gz` as QCTools names it,
    /// `FILE.signalstats.jsonl` or `FILE.signalstats.csv`.
    pub fn path_beside(self, input: &Path) -> PathBuf {
        let ending = match self {
            ReportFormat::Qctools => ".qctools.xml.gz",
            ReportFormat::Json => ".signalstats.jsonl",
            ReportFormat::Csv => ".signalstats.csv",
        };
        let mut name = input.as_os_str().to_owned();
        name.push(ending);
        PathBuf::from(name)
    }
}

pub fn run(args: Args) -> Result<()> {
    if args.inputs.len() > 1 || args.inputs[0].is_dir() {
        return run_batch(args);
    }
    let input = &args.inputs[0];
    let written = [
        ("-o", &args.output),
        ("--html", &args.html),
        ("--record", &args.record),
        ("--alert-log", &args.alert_log),
    ];
    let written: Vec<(&str, &Path)> = written
        .into_iter()
        .filter_map(|(option, path)| Some((option, path.as_deref()?)))
        .collect();
    for (_, output) in &written {
        crate::cli::output::refuse_input(output, &[input])?;
    }
    crate::cli::output::refuse_twice(&written)?;
    if args.skip_existing || args.jobs.is_some() {
        bail!("--skip-existing and --jobs are for a batch (several files, or a directory)");
    }
    // SIGINT and SIGTERM end the report and its recording, whole (blocked before any thread).
    let signals = QuitSignals::install();
    // `-o PAGE.html` with no format is the page alone.
    let page_named = args
        .output
        .as_ref()
        .filter(|o| args.format.is_none() && is_html(o))
        .cloned();
    if let (Some(html), Some(page)) = (&args.html, &page_named) {
        bail!(
            "--html '{}' and -o '{}' name two pages: give one",
            html.display(),
            page.display()
        );
    }
    let html = args.html.clone().or(page_named.clone());
    if html.as_deref() == Some(Path::new("-")) {
        bail!("--html writes the page to a file: name one (PAGE.html); the JSON Lines go to stdout");
    }
    let output = args.output.clone().filter(|_| page_named.is_none());
    if let Some(page) = &html {
        crate::cli::output::check_writable(page)
            .map_err(|e| anyhow::anyhow!("'{}' can't be written: {e}", page.display()))?;
    }
    let page_only = html.is_some() && args.format.is_none() && !args.csv && !args.events && !args.audio;
    let format = match (args.format, args.csv) {
        (Some(format), _) => format,
        (None, true) => ReportFormat::Csv,
        (None, false) => ReportFormat::Json,
    };
    if args.audio && format != ReportFormat::Json {
        bail!("--audio is for JSON Lines: a QCTools report has the sound already, CSV has none");
    }
    if output.is_some() && format != ReportFormat::Qctools {
        bail!("--output is where --format qctools (or a page, PAGE.html) is written; the other formats go to stdout");
    }
    let list = args.events || args.black.is_some() || args.freeze.is_some() || args.silence.is_some();
    if list && format == ReportFormat::Csv {
        bail!("--events (and --black, --freeze, --silence) list the events in JSON Lines, or a QCTools report");
    }
    // A QCTools report always has them, as the tags FFmpeg's detectors set; so does a page.
    let list = list || format == ReportFormat::Qctools || html.is_some();
    let range = args.frames.unwrap_or(FrameRange { start: 0, end: None });
    if format == ReportFormat::Qctools && output.is_none() && crate::video::input::is_stream(input) {
        bail!(
            "'{}' is not a file to write a report beside: give --output",
            input.display()
        );
    }
    let events = events::EventSettings {
        list,
        black: args.black.unwrap_or_default(),
        freeze: args.freeze.unwrap_or_default(),
        silence: args.silence.unwrap_or_default(),
        limits: args.fail_on.as_ref().map(Limits::events).unwrap_or_default(),
    };
    let destination = Destination {
        format,
        output,
        page_only,
        live: false,
    };
    let mut gpu = GpuOpening::start(!args.cpu);
    let mut source = match VideoSource::open_for(input, Decoding::Throughput) {
        Ok(source) if !source.info.cover_art => source,
        // A file of sound alone (a stem, a mix, a song with its cover): its sound's report.
        // (The GPU, opened beside the file before it was known to have no pictures, is let go
        // of first: a process that exits while the driver makes the device can crash in its
        // teardown.)
        Ok(_) | Err(VideoError::NoVideo(_)) => {
            drop(gpu);
            return report_sound_only(&args, html.as_deref(), destination, events, signals.as_ref());
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(record) = &args.record {
        source.record_to(record)?;
    }
    if !source.info.live {
        crate::audio::source::AudioSource::track_is_there(input, args.aid)?;
        sound::note_no_sound(&source, args.silence.is_some(), args.fail_on.as_ref());
    }
    if let Some(signals) = &signals {
        let interrupt = source.interrupter();
        signals.on_signal(Box::new(move || interrupt.interrupt()));
    }
    // A live input's runs are told as they end (there may be no end to wait for).
    let live = source.info.live;
    let live_sound = match live {
        true => {
            let on_sound = args.fail_on.as_ref().is_some_and(|l| !l.on_sound().is_empty());
            sound::tap_live(&mut source, &args, args.audio || list || on_sound)?
        }
        false => None,
    };
    if args.fields && (format == ReportFormat::Qctools || html.is_some()) {
        bail!("--fields reports each field in JSON Lines or CSV: a QCTools report and a page are of frames");
    }
    if args.fields && args.deinterlace.filter().is_some() {
        bail!("--fields reports the fields as decoded: there is nothing to deinterlace");
    }
    if args.fields && args.fail_on.as_ref().is_some_and(|l| !l.events().is_empty()) {
        bail!("--fields reports each field: the events (black, freeze, silence) are of frames");
    }
    let idet = idet_wanted(
        args.idet,
        args.fail_on.as_ref(),
        format == ReportFormat::Qctools || html.is_some(),
    );
    let options = ReportOptions {
        events,
        html,
        pse: args.pse.then_some(args.pse_standard),
        deinterlace: args.deinterlace.filter(),
        idet,
        fields: args.fields,
        limits: args.fail_on.unwrap_or_default(),
        cpu: crate::headless::on_the_cpu(&mut gpu, &source.info, args.cpu),
        alerts: Alerts {
            stderr: live,
            log: args.alert_log.clone(),
        },
        audio: file::AudioReport {
            path: Some(input),
            lines: args.audio,
            signals: signals.as_ref(),
            track: args.aid,
        },
        live_sound,
        ..Default::default()
    };
    let (gpu, ready, source) = file::ready_beside(gpu, source, range, &options);
    let options = ReportOptions {
        gpu: gpu.as_ref(),
        ready,
        ..options
    };
    let stopped = || !live && signals.as_ref().is_some_and(QuitSignals::requested);
    let (_, runs) = Destination { live, ..destination }.write(input, stopped, |mut out| {
        report_video(source, range, format, options, &mut out)
    })?;
    // Done with the GPU: its driver's teardown need not hold up the exit.
    if let Some(gpu) = gpu {
        crate::process::close_behind("the GPU", move || drop(gpu));
    }
    if let Some(failure) = crate::video::record::failure() {
        bail!("{failure}");
    }
    // (A live input's runs were told as they ended.)
    end(&runs, !live, signals.as_ref());
    Ok(())
}

/// Where one input's report goes: a QCTools report into a file, the page alone (nothing
/// written), or JSON Lines and CSV on stdout.
struct Destination {
    format: ReportFormat,
    /// Where a QCTools report goes (else beside the input).
    output: Option<PathBuf>,
    /// The page alone is written (nothing on stdout).
    page_only: bool,
    /// The input is live (its QCTools report written in place, readable as it grows).
    live: bool,
}

impl Destination {
    /// Runs `report` into where the report of `input` goes. A QCTools report is written beside
    /// its name and renamed into place once whole (`OutputFile`), one that fails or that a
    /// signal stopped short (`stopped`) leaving the file of that name as it was, as a batch
    /// does; a live input's (which may have no end) and a pipe's or a device's are written in
    /// place.
    fn write<T>(
        self,
        input: &Path,
        stopped: impl FnOnce() -> bool,
        report: impl FnOnce(&mut dyn Write) -> Result<T, crate::headless::ClipError>,
    ) -> Result<T> {
        if self.format == ReportFormat::Qctools {
            let path = self.output.unwrap_or_else(|| self.format.path_beside(input));
            let file = match self.live {
                true => crate::output_file::OutputFile::through(&path),
                false => crate::output_file::OutputFile::new(&path),
            };
            let created = std::fs::File::create(file.written())
                .with_context(|| format!("'{}' can't be written", path.display()))?;
            let written = (|| -> Result<T> {
                let mut out = std::io::BufWriter::new(created);
                let value = report(&mut out)?;
                let created = out.into_inner().map_err(|e| e.into_error())?;
                if file.beside() {
                    created.sync_all()?;
                }
                Ok(value)
            })();
            let value = match written {
                Ok(value) => value,
                Err(e) => {
                    file.abandon();
                    return Err(e.context(format!("'{}' was not written", path.display())));
                }
            };
            if stopped() {
                file.abandon();
                eprintln!("note: stopped before the end: '{}' was not written", path.display());
                return Ok(value);
            }
            file.finish()
                .with_context(|| format!("'{}' can't be written", path.display()))?;
            return Ok(value);
        }
        if self.page_only {
            return Ok(report(&mut std::io::sink())?);
        }
        Ok(report(&mut std::io::BufWriter::new(std::io::stdout().lock()))?)
    }
}

/// Ends a report: its runs beyond the limits (each listed where `list`, then their count) make
/// the exit status 1; a signal that stopped it, its own status.
fn end(runs: &limits::Runs, list: bool, signals: Option<&QuitSignals>) {
    if !runs.is_empty() {
        if list {
            for run in runs {
                eprintln!("{run}");
            }
        }
        eprintln!(
            "{} of frames beyond the limits",
            crate::terminal::counted(runs.len(), "run")
        );
        crate::process::end(1);
    }
    if let Some(status) = signals.and_then(QuitSignals::exit_status) {
        crate::process::end(status as u8);
    }
}

/// The report of a file of sound alone (`file::report_sound`), where what `args` ask for is of
/// sound: refused, with what it would need, where it is of pictures.
fn report_sound_only(
    args: &Args,
    html: Option<&Path>,
    destination: Destination,
    events: events::EventSettings,
    signals: Option<&QuitSignals>,
) -> Result<()> {
    let input = &args.inputs[0];
    let pictures = [
        (args.frames.is_some(), "--frames (a range of pictures)"),
        (args.pse, "--pse"),
        (args.idet.is_some(), "--idet"),
        (args.fields, "--fields"),
        (args.deinterlace.filter().is_some(), "--deinterlace"),
        (args.black.is_some(), "--black"),
        (args.freeze.is_some(), "--freeze"),
        (args.record.is_some(), "--record"),
    ];
    if let Some((_, what)) = pictures.iter().find(|(asked, _)| *asked) {
        bail!(
            "'{}' has no video stream: {what} is for video (without it, its sound is reported)",
            input.display()
        );
    }
    if let Some(limits) = &args.fail_on {
        let on_pictures = !limits.at_depth(8).is_empty()
            || limits.idet()
            || limits
                .events()
                .iter()
                .any(|e| e.kind != crate::events::EventKind::Silence);
        if on_pictures {
            bail!(
                "'{}' has no video stream: --fail-on takes limits on its sound only (silence>2s, clip>0)",
                input.display()
            );
        }
    }
    let options = ReportOptions {
        events,
        html: html.map(Path::to_owned),
        limits: args.fail_on.clone().unwrap_or_default(),
        alerts: Alerts {
            stderr: false,
            log: args.alert_log.clone(),
        },
        audio: file::AudioReport {
            path: Some(input),
            lines: true,
            signals,
            track: args.aid,
        },
        ..Default::default()
    };
    let format = destination.format;
    let stopped = || signals.is_some_and(QuitSignals::requested);
    let (_, runs) = destination.write(input, stopped, |mut out| file::report_sound(format, options, &mut out))?;
    end(&runs, true, signals);
    Ok(())
}

/// The interlace detection a report runs: asked for (`--idet`, `--fail-on idet`: with the
/// options given, or FFmpeg's defaults), or part of a QCTools report or a page (with QCTools'
/// options unless others are given).
fn idet_wanted(
    options: Option<crate::idet::IdetOptions>,
    limits: Option<&Limits>,
    always: bool,
) -> Option<idet::IdetWanted> {
    let asked = options.is_some() || limits.is_some_and(Limits::idet);
    match (asked, always) {
        (false, false) => None,
        (asked, _) => Some(idet::IdetWanted {
            options: options.unwrap_or(if asked {
                crate::idet::IdetOptions::default()
            } else {
                crate::idet::IdetOptions::QCTOOLS
            }),
            asked,
        }),
    }
}

/// Whether `path` names an HTML page.
fn is_html(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
}

/// Several files, or directories: a report beside each file and a summary table.
fn run_batch(args: Args) -> Result<()> {
    let events = args.events || args.black.is_some() || args.freeze.is_some() || args.silence.is_some();
    let one_input = [
        (args.html.is_some(), "--html writes one input's page"),
        (events, "--events (and --black, --freeze, --silence) list one input's events; a batch takes limits on them (--fail-on black>2s)"),
        (args.fields, "--fields reports one input's fields"),
        (args.pse, "--pse analyses one input (histoplay pse FILE for each of them)"),
        (
            args.frames.is_some() || args.output.is_some() || args.record.is_some() || args.alert_log.is_some(),
            "a batch reports whole files beside them: --frames, --output, --record and --alert-log are for one input",
        ),
    ];
    if let Some((_, why)) = one_input.iter().find(|(asked, _)| *asked) {
        bail!("{why}");
    }
    batch::refuse_live(&args.inputs)?;
    let format = match (args.format, args.csv) {
        (Some(format), _) => format,
        (None, true) => ReportFormat::Csv,
        (None, false) => ReportFormat::Qctools,
    };
    if args.audio && format != ReportFormat::Json {
        bail!("--audio is for JSON Lines: a QCTools report has the sound already, CSV has none");
    }
    let files = batch::expand(&args.inputs);
    if files.is_empty() {
        let names: Vec<String> = args.inputs.iter().map(|p| format!("'{}'", p.display())).collect();
        bail!("no video files in {}", names.join(", "));
    }
    // Before the batch starts any thread, so that none of them dies of the signals.
    let signals = QuitSignals::install();
    let idet = idet_wanted(args.idet, args.fail_on.as_ref(), format == ReportFormat::Qctools);
    let options = batch::BatchOptions {
        format,
        limits: args.fail_on.unwrap_or_default(),
        cpu: args.cpu,
        skip_existing: args.skip_existing,
        audio: args.audio,
        track: args.aid,
        jobs: args.jobs.map_or_else(batch::default_jobs, usize::from),
        stop: signals.as_ref(),
        deinterlace: args.deinterlace.filter(),
        idet,
    };
    let outcomes = batch::report_batch(&files, &options);
    let mut out = std::io::stdout().lock();
    batch::write_summary(&mut out, &files, &outcomes)?;
    out.flush()?;
    drop(out);
    if let Some(status) = signals.as_ref().and_then(QuitSignals::exit_status) {
        crate::process::end(status as u8);
    }
    // A file that failed is said on stderr too, for a script that keeps stdout.
    let failed: Vec<String> = files
        .iter()
        .zip(&outcomes)
        .filter_map(|(file, outcome)| match outcome {
            batch::Outcome::Failed(reason) => Some(format!("{}: {reason}", file.display())),
            _ => None,
        })
        .collect();
    if let [first, ..] = failed.as_slice() {
        let more = match failed.len() {
            1 => String::new(),
            n => format!(" (and {} more, in the summary)", n - 1),
        };
        eprintln!("error: {}", crate::terminal::one_line(&format!("{first}{more}")));
    }
    let bad = outcomes.iter().any(|o| match o {
        batch::Outcome::Failed(_) | batch::Outcome::Stopped => true,
        batch::Outcome::Done { runs, .. } => !runs.is_empty(),
        batch::Outcome::Skipped => false,
    });
    if bad {
        crate::process::end(1);
    }
    Ok(())
}
