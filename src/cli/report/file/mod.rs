//! One file's report: FFmpeg's `signalstats` (tout, vrep, brng) of every frame of a range,
//! one JSON object (or CSV row) per frame, named as FFmpeg names them, or a QCTools report. A
//! stable interface.

pub use super::alerts::Alerts;
mod events;
mod live_sound;
mod sound;
mod stages;
pub use sound::report_sound;
use stages::GpuStages;
pub use stages::{ready_beside, ReadyStages};

use super::events::{EventSettings, EventWatch, PictureStream};
use super::html::HtmlReport;
use super::idet::ReportIdet;
use super::limits::{LimitWatch, Limits, OnClose, Run, Runs};
use super::pse::{PseLine, ReportPse};
use super::qctools::QctoolsReport;
use super::sound::audio_line;
pub use super::sound::AudioReport;
use super::ReportFormat;
use crate::cli::output::{write_line, Seconds};
use crate::events::freeze::gpu::{FreezeStage, RESULT_BYTES};
use crate::events::freeze::FreezeTwin;
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{self as hist, ClipError, FrameMeta, FrameRange};
use crate::idet::gpu::{IdetPass, RESULT_BYTES as IDET_BYTES};
use crate::pipeline::FramePipeline;
use crate::quit_signals::QuitSignals;
use crate::signalstats::{self, PlaneShape, SignalStats, YuvPlanes};
use crate::video::convert::convert_cpu;
use crate::video::deinterlace::Field;
use crate::video::index::FrameIndex;
use crate::video::source::VideoSource;
use serde::Serialize;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `{"frame":K,"pts":s,"interlaced_frame":0,"top_field_first":0,"YMIN":..,…,"BRNG":..}`.
#[derive(Serialize)]
struct ReportLine {
    frame: u64,
    /// `top` or `bottom`, where fields are reported apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'static str>,
    pts: Seconds,
    /// The decoder's flags, as ffprobe prints them.
    interlaced_frame: u8,
    top_field_first: u8,
    #[serde(flatten)]
    stats: SignalStats,
    #[serde(flatten)]
    pse: Option<PseLine>,
    /// idet's decisions and counts (`--idet`).
    #[serde(skip_serializing_if = "Option::is_none")]
    idet: Option<serde_json::Value>,
}

/// How a report runs, beyond what it writes.
#[derive(Default)]
pub struct ReportOptions<'a> {
    /// Limits whose runs of frames are returned (`--fail-on`), at the stream's depth.
    pub limits: Limits,
    /// Count with the CPU twin.
    pub cpu: bool,
    /// The GPU to count on (a batch shares one); None: one is opened.
    pub gpu: Option<&'a GpuContext>,
    /// Frames done, for a batch's one progress line; None: the run draws its own.
    pub counter: Option<&'a AtomicU64>,
    /// Stops the run (with an `Interrupted` error) once a signal has asked to quit.
    pub stop: Option<&'a QuitSignals>,
    /// Each run beyond the limits as it ends: on stderr (a live input's alerts), and appended
    /// to this file as a JSON line (`--alert-log`).
    pub alerts: Alerts,
    /// The limits the last frame counted is beyond, as each is counted (the window's warning).
    pub beyond: Option<Arc<std::sync::Mutex<Vec<String>>>>,
    /// The sound's part of the report.
    pub audio: AudioReport<'a>,
    /// The events listed and limited.
    pub events: EventSettings,
    /// Where the page a person reads is written (`--html`).
    pub html: Option<std::path::PathBuf>,
    /// The photosensitivity analysis, by this standard (`--pse`).
    pub pse: Option<crate::pse::Standard>,
    /// Each frame deinterlaced first (`--deinterlace`): the values are the pictures'.
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
    /// FFmpeg's interlace detection (`--idet`), of the frames as decoded.
    pub idet: Option<super::idet::IdetWanted>,
    /// Each field's values, as a picture of its own (`--fields`): top, then bottom.
    pub fields: bool,
    /// The pipeline and the passes made while the file's first frame decoded (`ready_beside`),
    /// taken where they are the run's.
    pub ready: Option<ReadyStages>,
    /// A live input's sound, its packets tapped as its pictures are read (`live_sound`).
    pub live_sound: Option<crate::video::source::Tapped>,
}

impl ReportOptions<'_> {
    /// Whether a picture that changes size mid-stream is measured at each size, as FFmpeg's
    /// filters configured again at the change measure it (`VideoSource::follow_size_changes`):
    /// where nothing reads frames with their neighbours or in a grid of the first size
    /// (deinterlacing, fields, idet, the photosensitivity analysis), which scale such frames
    /// to the first size.
    pub fn measures_each_size(&self) -> bool {
        self.deinterlace.is_none() && !self.fields && self.idet.is_none() && self.pse.is_none()
    }
}

/// Where each frame's statistics go: the output, in its format, and the limits' watch.
struct Sink<'a, W: Write> {
    out: Out<'a, W>,
    watch: LimitWatch,
    done: u64,
    /// The times of the first and the last frame written.
    span: Option<(f64, f64)>,
    counter: Option<&'a AtomicU64>,
    stop: Option<&'a QuitSignals>,
    /// Each frame's output is flushed as written (a live input's report, read as it grows).
    flush_each: bool,
    beyond: Option<Arc<std::sync::Mutex<Vec<String>>>>,
    /// The events followed (`--events`, limits on events).
    events: Option<EventWatch>,
    /// Whether the sound's events are followed (silence).
    sound_events: bool,
    /// The sound's frames reported.
    sound_frames: u64,
    /// A live input's sound, heard as its pictures are.
    live_sound: Option<live_sound::LiveSound>,
    /// When the last pictures were counted (their times, and the clock's), for the start of a
    /// run that ends later.
    counted_at: std::collections::VecDeque<(f64, std::time::SystemTime)>,
    /// Runs beyond the limits on events, and where they are told as they end.
    event_runs: Vec<Run>,
    event_teller: Option<OnClose>,
    /// The events' tags on the frame about to be written (a QCTools report's).
    frame_tags: Vec<(String, String)>,
    /// The page being gathered (`--html`).
    html: Option<HtmlReport>,
    /// The photosensitivity analysis, and the figures of the frame about to be written.
    pse: Option<ReportPse>,
    pse_line: Option<PseLine>,
    /// The interlace detection, and the decision of the frame about to be written.
    idet: Option<ReportIdet>,
    idet_decision: Option<crate::idet::Decision>,
    /// JSON Lines have idet's values (asked for, not only the page's).
    idet_lines: bool,
}

/// The output being written.
enum Out<'a, W: Write> {
    Json(&'a mut W),
    Csv(&'a mut W),
    /// A QCTools report, and the index that gives frames their pts.
    Qctools(QctoolsReport<&'a mut W>, Arc<FrameIndex>),
}

impl<'a, W: Write> Sink<'a, W> {
    /// A sink writing to `out` as `options` say, following nothing of the pictures or the sound
    /// yet: the pictures' report (`report_video`) and the sound's alone (`report_sound`) set
    /// what each follows.
    fn new(out: Out<'a, W>, options: &ReportOptions<'a>) -> std::io::Result<Self> {
        Ok(Self {
            out,
            watch: LimitWatch::new(Vec::new()),
            done: 0,
            span: None,
            counter: options.counter,
            stop: options.stop,
            flush_each: false,
            beyond: None,
            events: None,
            sound_events: options.events.watches_sound(),
            sound_frames: 0,
            live_sound: None,
            counted_at: Default::default(),
            event_runs: Vec::new(),
            event_teller: options.alerts.teller()?,
            frame_tags: Vec::new(),
            html: None,
            pse: None,
            pse_line: None,
            idet: None,
            idet_decision: None,
            idet_lines: false,
        })
    }
}

impl<W: Write> Sink<'_, W> {
    /// A picture's statistics; `size` the picture's (a field's, where fields are apart).
    fn frame(&mut self, frame: FrameMeta, stats: SignalStats, size: (u64, u64)) -> std::io::Result<()> {
        if self.stop.is_some_and(QuitSignals::requested) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "stopped by a signal",
            ));
        }
        let (index, seconds) = (frame.index, frame.seconds);
        self.watch.frame(index, seconds, &stats.values());
        if let Some(html) = &mut self.html {
            html.fields(frame.packet.fields);
            html.timecode(frame.packet.timecode);
            html.frame(seconds, &stats);
        }
        if let Some(beyond) = &self.beyond {
            self.watch
                .note_beyond(&mut beyond.lock().unwrap_or_else(|e| e.into_inner()));
        }
        self.done += 1;
        self.span = Some(
            self.span
                .map_or((seconds, seconds), |(from, to)| (from.min(seconds), to.max(seconds))),
        );
        self.counted(seconds);
        // (A live input's sound up to this picture, before it.)
        self.hear(false)?;
        if let Some(counter) = self.counter {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        match &mut self.out {
            Out::Json(out) => write_line(
                *out,
                &ReportLine {
                    frame: index,
                    field: frame.field.map(Field::name),
                    pts: Seconds(seconds),
                    interlaced_frame: u8::from(frame.packet.fields.interlaced),
                    top_field_first: u8::from(frame.packet.fields.top_first),
                    stats,
                    pse: self.pse_line.take(),
                    idet: self
                        .idet_decision
                        .as_ref()
                        .filter(|_| self.idet_lines)
                        .map(crate::idet::Decision::json),
                },
            ),
            Out::Csv(out) => {
                let values: Vec<String> = stats.printed().into_iter().map(|(_, v)| v).collect();
                match frame.field {
                    Some(field) => writeln!(out, "{index},{},{seconds},{}", field.name(), values.join(",")),
                    None => writeln!(out, "{index},{seconds},{}", values.join(",")),
                }
            }
            Out::Qctools(xml, frames) => {
                let idet = self.idet_decision.as_ref().map(crate::idet::Decision::tags);
                // (FFmpeg's best-effort timestamp where it differs from the frame's own pts.)
                let pts = match (frame.field, frame.packet.best_effort) {
                    (None, Some((best, _))) => Some(best),
                    _ => frames.pts_of(index),
                };
                // (A field's picture is told with its frame's size.)
                let size = frame.field.is_none().then_some((size.0 as u32, size.1 as u32));
                xml.frame(pts, &frame, &stats, size, idet.iter().flatten().chain(&self.frame_tags))
            }
        }?;
        self.idet_decision = None;
        if self.flush_each {
            match &mut self.out {
                Out::Json(out) | Out::Csv(out) => out.flush()?,
                Out::Qctools(xml, _) => xml.flush()?,
            }
        }
        Ok(())
    }

    /// Ends the output (the QCTools report's document closed and compressed to its end); the
    /// frames written and the runs beyond the limits (the sound's, `audio`, after the video's).
    fn finish(self, audio: Vec<Run>) -> std::io::Result<(u64, Runs)> {
        match self.out {
            Out::Json(out) | Out::Csv(out) => out.flush()?,
            Out::Qctools(xml, _) => xml.finish()?.flush()?,
        }
        let mut runs = self.watch.finish();
        runs.count += audio.len() + self.event_runs.len();
        runs.listed.extend(audio);
        runs.listed.extend(self.event_runs);
        runs.listed
            .sort_by(|a, b| a.audio.cmp(&b.audio).then(a.first.cmp(&b.first)));
        Ok((self.done, runs))
    }
}

/// Writes the statistics of every frame of `range` of `source`, counted on the GPU (or by the
/// CPU twin with `cpu`, or where the GPU pass does not read the stream's depth); returns how
/// many frames, and the runs of frames beyond `limits`.
pub fn report_video<W: Write>(
    mut source: VideoSource,
    range: FrameRange,
    format: ReportFormat,
    mut options: ReportOptions,
    out: &mut W,
) -> Result<(u64, Runs), ClipError> {
    source.set_exact_numbers(true);
    if options.measures_each_size() {
        source.follow_size_changes();
    }
    let info = source.info.format;
    let source_path = source.info.path.clone();
    let (live, frame_duration) = (source.info.live, source.info.frame_duration);
    let whole = range.is_whole();
    // Y'CbCr the player converts on its way to the GPU (4:1:1 DV, 4:4:0; 9, 14 or 16 bits;
    // with alpha): the CPU twin reads the decoded planes themselves, as FFmpeg's filter does
    // (4:1:0 as the filter resamples it, to 4:2:0).
    let decoded = source.converted_yuv_layout();
    let layout = decoded.unwrap_or(info.layout);
    let deinterlacer = options.deinterlace.map(|d| d.method.name());
    if let Some((name, into)) = deinterlacer.and_then(|name| Some((name, source.deinterlaced_before_converting(name)?)))
    {
        log::warn!(
            "'{}' is {}: FFmpeg's {name} deinterlaces it as decoded, then converts it to {into} for \
             signalstats; histoplay deinterlaces it converted, so the figures may differ from FFmpeg's",
            source_path.display(),
            source.info.pixel_format,
        );
    }
    if decoded.is_some() && options.pse.is_some() {
        // Frames measured as FFmpeg measures them (R'G'B', palette and grey converted into
        // Y'CbCr; 4:1:1 and the like as decoded) keep their picture for the analysis, as
        // decoded (not deinterlaced or split into fields).
        if options.deinterlace.is_some() || options.fields {
            return Err(ClipError::Decode(format!(
                "--pse of {} frames reads their picture as decoded: not with --deinterlace or --fields",
                info.layout
            )));
        }
        source.keep_pictures();
    }
    PlaneShape::of(layout).map_err(|e| ClipError::Decode(e.to_string()))?;
    let stages = GpuStages::of(&source, &options, range);
    let out = match format {
        ReportFormat::Json => Out::Json(out),
        ReportFormat::Csv => {
            let field = if options.fields { "field," } else { "" };
            writeln!(out, "frame,{field}pts,{}", signalstats::NAMES.join(","))?;
            Out::Csv(out)
        }
        ReportFormat::Qctools => Out::Qctools(QctoolsReport::start(&source, out)?, source.index().clone()),
    };
    let bits = PlaneShape::of(layout).map_or(8, |s| s.bits);
    let base = Sink::new(out, &options)?;
    let mut sink = Sink {
        watch: {
            let watch = LimitWatch::new(options.limits.at_depth(bits));
            match (options.alerts.teller()?, source.info.live) {
                (Some(teller), true) => watch.on_close(teller).only_count_told(),
                (Some(teller), false) => watch.on_close(teller),
                (None, _) => watch,
            }
        },
        flush_each: source.info.live,
        beyond: options.beyond.take(),
        events: (options.events.watches_pictures() || options.events.watches_sound()).then(|| {
            EventWatch::new(
                &options.events,
                PictureStream {
                    bits,
                    full_range: crate::events::decoded::measured_full_range(source.decoded_format()),
                    time_base: source.info.time_base,
                    frame_duration,
                },
            )
        }),
        html: options.html.as_ref().map(|_| HtmlReport::new(&source, bits)),
        pse: options
            .pse
            .map(|standard| ReportPse::new(standard, &source, options.deinterlace)),
        idet_lines: options.idet.is_some_and(|w| w.asked),
        ..base
    };
    // The frames as their planes are read (idet reads Y'CbCr and grey as decoded; FFmpeg's
    // converts RGB first).
    let planes_format = crate::video::format::FrameFormat { layout, ..info };
    if let Some(wanted) = options.idet {
        if crate::idet::gpu::IdetPass::supports(&planes_format) {
            sink.idet = Some(ReportIdet::new(wanted.options, options.limits.idet()));
        } else if wanted.asked {
            return Err(ClipError::Decode(format!(
                "idet reads Y'CbCr or grey frames, not {layout}"
            )));
        }
    }
    sink.live_sound = live_sound::LiveSound::of(&mut options, &source_path, whole, frame_duration)?;
    let idet = sink.idet.is_some();
    if options.fields {
        crate::pipeline::field_format(&planes_format).map_err(ClipError::Decode)?;
    }
    let work = hist::PictureWork {
        deinterlace: options.deinterlace,
        idet,
        split: options.fields,
    };
    let (freezes, noise) = (options.events.freezes(), options.events.freeze.noise);
    events::detect_decoded(&mut source, &options, format, range.start);
    // The differences of the first frame reported are from the frame before it, as in a run
    // of the filter over the whole file: that frame is counted too, and not written.
    let primed = FrameRange {
        start: range.start.saturating_sub(1),
        end: range.end,
    };
    // (The range's own first frame is the one asked for: the one before it only primes.)
    if range.start > 0 {
        hist::check_in_range(&source, range.start)?;
    }
    if let Some(layout) = decoded {
        source.keep_decoded_planes();
        report_cpu(source, layout, (primed, range), (freezes, noise, work), &mut sink)?;
    } else if let Some(stages) = stages {
        let source = hist::prepare(source, primed, None)?;
        let started = std::time::Instant::now();
        let ms = move || started.elapsed().as_secs_f64() * 1000.0;
        let opened;
        let ctx = match options.gpu {
            Some(ctx) => ctx,
            None => {
                opened = GpuContext::new()?;
                log::debug!("report: the GPU opened in {:.1} ms", ms());
                &opened
            }
        };
        let progress = match options.counter {
            Some(_) => None,
            None => Some(Progress::new(hist::frames_to_do(&source, primed))),
        };
        let copy = |pipeline: &FramePipeline, encoder: &mut wgpu::CommandEncoder, buffer: &wgpu::Buffer| {
            let stats = pipeline.stats().expect("counted");
            let mut at = stats.counts_size();
            encoder.copy_buffer_to_buffer(&stats.counts, 0, buffer, 0, at);
            if let Some(freeze) = pipeline.freeze() {
                encoder.copy_buffer_to_buffer(&freeze.result, 0, buffer, at, RESULT_BYTES);
                at += RESULT_BYTES;
            }
            if let Some(idet) = pipeline.idet() {
                encoder.copy_buffer_to_buffer(&idet.result, 0, buffer, at, IDET_BYTES);
                at += IDET_BYTES;
            }
            if let Some(pse) = pipeline.pse() {
                pse.copy_out(encoder, buffer, at);
            }
        };
        let emit = |pipeline: &FramePipeline, bytes: &[u8], frame: FrameMeta| {
            if sink.done == 0 {
                log::debug!("report: the first frame's statistics read back at {:.1} ms", ms());
            }
            let stats = pipeline.stats().expect("counted");
            let words = crate::gpu::readback::words(bytes);
            let counts = stats.counts_from(&words);
            let after_counts = (stats.counts_size() / 4) as usize;
            let frozen = pipeline
                .freeze()
                .is_some_and(|_| FreezeStage::verdict(&words[after_counts..]).frozen);
            let in_range = range.contains(frame.frame);
            let mut at = after_counts + pipeline.freeze().map_or(0, |_| (RESULT_BYTES / 4) as usize);
            if pipeline.idet().is_some() {
                sink.picture_idet(&frame, Some(&IdetPass::sums(&words[at..])), in_range);
                at += (IDET_BYTES / 4) as usize;
            }
            if let Some(pse) = pipeline.pse() {
                sink.picture_pse(&frame, &pse.light_from(&words[at..]), in_range)?;
            }
            sink.picture_events(&frame, &counts.y, counts.width * counts.height, frozen, in_range)?;
            if !in_range {
                return Ok(());
            }
            sink.frame(frame, counts.stats(), (counts.width, counts.height))
        };
        let bins = crate::engine::histogram::DEFAULT_BINS;
        let setup = |ctx: &GpuContext, pipeline: &mut FramePipeline| stages.setup(ctx, pipeline);
        // A picture of another size from a frame on: the pipeline and the passes made again
        // for it (the statistics, the events' passes start again there).
        let stream = source.info.clone();
        let remake = |ctx: &GpuContext, shape: &crate::video::source::FrameShape| {
            let mut info = stream.clone();
            info.reshape(shape);
            hist::prepare_pipeline(ctx, &info, bins, setup)
        };
        let remake: Option<hist::Remake> = match source.follows_sizes() {
            true => Some(&remake),
            false => None,
        };
        let prepared = match options.ready.take().filter(|ready| ready.stages == stages) {
            Some(ready) => ready.prepared,
            None => {
                crate::process::mark("the GPU and the file open");
                hist::prepare_pipeline(ctx, &source.info, bins, setup)?
            }
        };
        hist::run_prepared(ctx, source, primed, progress, prepared, remake, copy, emit)?;
    } else {
        report_cpu(source, info.layout, (primed, range), (freezes, noise, work), &mut sink)?;
    }
    if let Some(watch) = &mut sink.events {
        let ended = watch.pictures_ended();
        sink.tell_events(ended)?;
    }
    // (A range with no frame in it has no sound either.)
    let audio = match (live, whole, sink.span) {
        (true, _, _) => sink.live_sound_ended()?,
        (false, false, None) => Vec::new(),
        (false, _, span) => {
            let span = span.filter(|_| !whole).map(|(from, to)| (from, to + frame_duration));
            let runs = sink.audio(&options.audio, options.limits.audio(), span)?;
            // Told as the pictures' runs are (`--alert-log`).
            if let Some(mut tell) = options.alerts.teller()? {
                runs.iter().for_each(&mut tell);
            }
            runs
        }
    };
    sink.pse_ended()?;
    sink.idet_ended()?;
    let html = sink.html.take();
    let (done, runs) = sink.finish(audio)?;
    // A file none of whose frames decodes has no report to pass (a live input stopped before
    // its first frame has nothing to say either).
    if done == 0 && !live && !crate::video::input::quitting() {
        return Err(ClipError::Decode(format!(
            "'{}': {}",
            source_path.display(),
            range.none_decoded()
        )));
    }
    if let (Some(page), Some(path)) = (html, &options.html) {
        page.write(path, &runs, !options.limits.is_empty(), options.gpu)
            .map_err(|e| ClipError::Decode(format!("'{}' can't be written: {e}", path.display())))?;
    }
    Ok((done, runs))
}

/// The CPU twin's run over the frames of `primed` (`range` and the frame before it), their
/// planes read as `layout` (deinterlaced first by the twin, where there is a deinterlacer);
/// each compared with the last that moved where freezes are followed (at `noise`).
fn report_cpu<W: Write>(
    mut source: VideoSource,
    layout: crate::video::format::PlaneLayout,
    (primed, range): (FrameRange, FrameRange),
    (freezes, noise, work): (bool, f64, hist::PictureWork),
    sink: &mut Sink<'_, W>,
) -> Result<(), ClipError> {
    let info = source.info.format;
    let mut progress = match sink.counter {
        Some(_) => Progress::hidden(),
        None => Progress::new(range.end.map(|e| e.saturating_sub(range.start))),
    };
    let mut previous: [Option<YuvPlanes>; 2] = [None, None];
    let mut twin = FreezeTwin::default();
    // (The frame the twin last started again at: a frame of another size or format than the
    // one before.)
    let mut restarted = None;
    let mut stats_restarted = [None, None];
    hist::cpu_pictures_with(
        &mut source,
        primed,
        layout,
        work,
        |planes, picture, meta, sums, read| {
            // (A field is half the frame's height, and compared with the same field of the frame
            // before.)
            let (width, height) = (read.width, read.height);
            let yuv = YuvPlanes::read(layout, width, height, planes).map_err(|e| ClipError::Decode(e.to_string()))?;
            let in_range = range.contains(meta.frame);
            let part = meta.field.map_or(0, |f| f as usize);
            let previous = &mut previous[part];
            // (A frame of another size or format than the one before: no difference, as FFmpeg's
            // filters configured again; at field rate, from its first picture.)
            if meta.packet.restarts && stats_restarted[part].replace(meta.frame) != Some(meta.frame) {
                *previous = None;
            }
            let counts = signalstats::count(&yuv, previous.as_ref());
            // (The frame before the range is not compared: freezedetect starts at the range, and
            // again where the frames change size or format.)
            if meta.packet.restarts && restarted.replace(meta.frame) != Some(meta.frame) {
                twin = FreezeTwin::default();
            }
            let frozen = freezes && in_range && twin.picture(&yuv, noise).0;
            if work.idet {
                sink.picture_idet(&meta, sums.as_ref(), in_range);
            }
            if let Some(pse) = &mut sink.pse {
                let light = pse.light_cpu(&convert_cpu(&info, picture));
                sink.picture_pse(&meta, &light, in_range)?;
            }
            sink.picture_events(&meta, &counts.y, counts.width * counts.height, frozen, in_range)?;
            if in_range {
                sink.frame(meta, counts.stats(), (counts.width, counts.height))?;
                progress.tick(sink.done);
            }
            *previous = Some(yuv);
            Ok(())
        },
    )
}
