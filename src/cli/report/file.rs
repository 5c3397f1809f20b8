//! One file's report: FFmpeg's `signalstats` (tout, vrep, brng) of every frame of a range,
//! one JSON object (or CSV row) per frame, named as FFmpeg names them, or a QCTools report. A
//! stable interface.

pub use super::alerts::Alerts;
use super::events::{Ended, EventSettings, EventWatch, PictureStream};
use super::html::{HtmlReport, SoundFacts};
use super::limits::{LimitWatch, Limits, OnClose, Run, Runs};
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
use crate::quit_signals::QuitSignals;
use crate::signalstats::gpu::StatsStage;
use crate::signalstats::{self, PlaneShape, SignalStats, YuvPlanes};
use crate::video::index::FrameIndex;
use crate::video::source::VideoSource;
use serde::Serialize;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `{"frame":K,"pts":s,"YMIN":..,…,"BRNG":..}`.
#[derive(Serialize)]
struct ReportLine {
    frame: u64,
    pts: Seconds,
    #[serde(flatten)]
    stats: SignalStats,
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
    /// Runs beyond the limits on events, and where they are told as they end.
    event_runs: Vec<Run>,
    event_teller: Option<OnClose>,
    /// The events' tags on the frame about to be written (a QCTools report's).
    frame_tags: Vec<(String, String)>,
    /// The page being gathered (`--html`).
    html: Option<HtmlReport>,
}

/// The output being written.
enum Out<'a, W: Write> {
    Json(&'a mut W),
    Csv(&'a mut W),
    /// A QCTools report, and the index that gives frames their pts.
    Qctools(QctoolsReport<&'a mut W>, Arc<FrameIndex>),
}

impl<W: Write> Sink<'_, W> {
    fn frame(&mut self, frame: FrameMeta, stats: SignalStats) -> std::io::Result<()> {
        if self.stop.is_some_and(QuitSignals::requested) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "stopped by a signal",
            ));
        }
        let (index, seconds) = (frame.index, frame.seconds);
        self.watch.frame(index, seconds, &stats.values());
        if let Some(html) = &mut self.html {
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
        if let Some(counter) = self.counter {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        match &mut self.out {
            Out::Json(out) => write_line(
                *out,
                &ReportLine {
                    frame: index,
                    pts: Seconds(seconds),
                    stats,
                },
            ),
            Out::Csv(out) => {
                let values: Vec<String> = stats.printed().into_iter().map(|(_, v)| v).collect();
                writeln!(out, "{index},{seconds},{}", values.join(","))
            }
            Out::Qctools(xml, frames) => xml.frame(frames.pts_of(index), &frame, &stats, &self.frame_tags),
        }?;
        if self.flush_each {
            match &mut self.out {
                Out::Json(out) | Out::Csv(out) => out.flush()?,
                Out::Qctools(xml, _) => xml.flush()?,
            }
        }
        Ok(())
    }

    /// The events' part of a picture: `luma` its Y histogram of `samples` samples, `frozen`
    /// its freeze verdict; `in_range` false for the frame before the range (only compared).
    fn picture_events(
        &mut self,
        frame: &FrameMeta,
        luma: &[u32],
        samples: u64,
        frozen: bool,
        in_range: bool,
    ) -> std::io::Result<()> {
        if let (Some(html), true) = (&mut self.html, in_range) {
            html.luma(luma);
        }
        let Some(watch) = &mut self.events else { return Ok(()) };
        let at = (frame.index, frame.pts, frame.seconds);
        let ended = watch.picture(at, &|black| black.black_samples(luma), samples, frozen, in_range);
        self.frame_tags = watch.picture_tags();
        self.tell_events(ended)
    }

    /// Events that ended: the listed ones written (JSON Lines), the limits' ones that last
    /// beyond them kept as runs and told.
    fn tell_events(&mut self, ended: Vec<Ended>) -> std::io::Result<()> {
        for Ended { event, limit } in ended {
            match limit {
                None => {
                    if let Some(html) = &mut self.html {
                        html.event(&event);
                    }
                    if let Out::Json(out) = &mut self.out {
                        writeln!(out, "{}", event.json())?;
                    }
                }
                Some(i) => {
                    if let Some(run) = self.events.as_ref().and_then(|w| w.run(&event, i)) {
                        if let Some(tell) = &mut self.event_teller {
                            tell(&run);
                        }
                        self.event_runs.push(run);
                    }
                }
            }
        }
        Ok(())
    }

    /// The sound of `audio.path` after the video: its frames written where the format takes
    /// them (within `span`, the times of the frames reported, when not the whole file), its
    /// runs beyond `limits`, and its silences (the events). A file without sound is noted where
    /// its sound was asked for.
    fn audio(
        &mut self,
        audio: &AudioReport<'_>,
        limits: Vec<super::limits::AudioLimit>,
        span: Option<(f64, f64)>,
    ) -> Result<Vec<Run>, ClipError> {
        let Some(path) = &audio.path else { return Ok(Vec::new()) };
        let writes = match self.out {
            Out::Json(_) => audio.lines,
            Out::Csv(_) => false,
            Out::Qctools(..) => true,
        };
        let mut events = self.events.take().filter(|_| self.sound_events);
        if !writes && limits.is_empty() && events.is_none() {
            return Ok(Vec::new());
        }
        let mut watch = super::limits::AudioWatch::new(limits.clone());
        let (out, quit, html) = (&mut self.out, self.stop.or(audio.signals), &mut self.html);
        // Silences that ended, waiting for the next line to be written before them, and the
        // tags silencedetect set, for the frame they fall in.
        let pending: std::cell::RefCell<Vec<Ended>> = Default::default();
        let tags: std::cell::RefCell<std::collections::VecDeque<(f64, String, String)>> = Default::default();
        let mut silence_runs: Vec<Ended> = Vec::new();
        // Why the sound's pass ended early: a write that failed, a signal, or the range's end.
        let mut ended: Option<Result<(), std::io::Error>> = None;
        let stream = crate::audio::qc::report_file(
            path,
            |stream, raw| {
                let Some(events) = &mut events else { return };
                let tb = stream.time_base;
                let start = raw
                    .timestamp()
                    .or(raw.pts())
                    .map(|pts| pts as f64 * f64::from(tb.0) / f64::from(tb.1.max(1)));
                let end = start.map(|t| t + raw.samples() as f64 / f64::from(stream.rate.max(1)));
                if let (Some((from, to)), Some(start), Some(end)) = (span, start, end) {
                    if start >= to || end <= from {
                        return;
                    }
                }
                let ended = events.sound(raw, (usize::from(stream.channels), stream.rate, tb));
                tags.borrow_mut().extend(events.take_sound_tags());
                for e in ended {
                    match e.limit {
                        None => pending.borrow_mut().push(e),
                        Some(_) => silence_runs.push(e),
                    }
                }
            },
            |stream, frame| {
                if quit.is_some_and(QuitSignals::requested) {
                    // The report ends where it is, whole, as the frames' does.
                    ended = Some(Ok(()));
                    return Err("stopped".into());
                }
                if let Some((from, to)) = span {
                    if frame.time >= to {
                        ended = Some(Ok(()));
                        return Err("past the range".into());
                    }
                    if frame.time + frame.duration <= from {
                        return Ok(());
                    }
                }
                watch.frame(frame.index, frame.time, frame.clipped);
                if let Some(html) = html.as_mut() {
                    let sound = SoundFacts {
                        rate: stream.rate,
                        channels: stream.channels,
                    };
                    html.audio_frame(sound, frame);
                }
                let mut written = Ok(());
                for e in pending.borrow_mut().drain(..) {
                    if let Some(html) = html.as_mut() {
                        html.event(&e.event);
                    }
                    if let Out::Json(out) = out {
                        written = written.and_then(|()| writeln!(out, "{}", e.event.json()));
                    }
                }
                let mut waiting = tags.borrow_mut();
                let inside = waiting.iter().take_while(|t| t.0 < frame.time + frame.duration).count();
                let here: Vec<(String, String)> = waiting.drain(..inside).map(|(_, k, v)| (k, v)).collect();
                let written = written.and_then(|()| match out {
                    Out::Json(out) if writes => writeln!(out, "{}", audio_line(frame)),
                    Out::Qctools(xml, _) => xml.audio_frame(stream.index, stream.rate, frame, &here),
                    _ => Ok(()),
                });
                written.map_err(|e| {
                    let text = e.to_string();
                    ended = Some(Err(e));
                    text
                })
            },
        );
        // The silences still going on end with the sound (unless it was cut short).
        let mut last = pending.into_inner();
        if let Some(events) = &mut events {
            if ended.is_none() || span.is_some() {
                for e in events.sound_ended() {
                    match e.limit {
                        None => last.push(e),
                        Some(_) => silence_runs.push(e),
                    }
                }
            }
        }
        self.events = events;
        last.extend(silence_runs);
        if !matches!(ended, Some(Err(_))) {
            self.tell_events(last)?;
        }
        match (stream, ended) {
            (_, Some(Err(e))) => Err(e.into()),
            (Ok(_), _) | (Err(_), Some(Ok(()))) => Ok(watch.finish()),
            // A file without sound, or whose sound can't be read: the pictures' report stands.
            (Err(e), None) => {
                if audio.lines || !limits.is_empty() || !e.contains("has no audio stream") {
                    eprintln!("note: {e}: the report has no sound");
                }
                Ok(Vec::new())
            }
        }
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

/// The GPU being opened on a thread of its own while the file is opened: on an H100 opening the
/// device takes about 150 ms, as long as the demuxer and the hardware decoder take to start.
pub struct GpuOpening(Option<std::thread::JoinHandle<Result<GpuContext, crate::gpu::GpuError>>>);

impl GpuOpening {
    /// Starts opening the GPU if the run will count on it.
    pub fn start(wanted: bool) -> Self {
        Self(wanted.then(|| std::thread::spawn(GpuContext::new)))
    }

    /// The GPU opened; None if it wasn't wanted or failed to open (the run then opens it itself
    /// where it needs it, and says why it can't).
    pub fn finish(self) -> Option<GpuContext> {
        self.0?.join().ok()?.ok()
    }
}

/// Writes the statistics of every frame of `range` of `source`, counted on the GPU (or by the
/// CPU twin with `cpu`, or where the GPU pass does not read the stream's depth); returns how
/// many frames, and the runs of frames beyond `limits`.
pub fn report_video<W: Write>(
    mut source: VideoSource,
    range: FrameRange,
    format: ReportFormat,
    options: ReportOptions,
    out: &mut W,
) -> Result<(u64, Runs), ClipError> {
    source.set_exact_numbers(true);
    let info = source.info.format;
    // A live input's sound is not reported (its packets go to the picture's decoder only).
    let (live, frame_duration) = (source.info.live, source.info.frame_duration);
    let whole = range.start == 0 && range.end.is_none();
    // Y'CbCr the player converts on its way to the GPU (4:1:1 DV, 4:1:0, 4:4:0; 9, 14 or
    // 16 bits; with alpha): the CPU twin reads the decoded planes themselves, as FFmpeg's
    // filter does.
    let decoded = source.converted_yuv_layout();
    let layout = decoded.unwrap_or(info.layout);
    PlaneShape::of(layout).map_err(|e| ClipError::Decode(e.to_string()))?;
    let out = match format {
        ReportFormat::Json => Out::Json(out),
        ReportFormat::Csv => {
            writeln!(out, "frame,pts,{}", signalstats::NAMES.join(","))?;
            Out::Csv(out)
        }
        ReportFormat::Qctools => Out::Qctools(QctoolsReport::start(&source, out)?, source.index().clone()),
    };
    let mut sink = Sink {
        out,
        watch: {
            let watch = LimitWatch::new(options.limits.at_depth(PlaneShape::of(layout).map_or(8, |s| s.bits)));
            match (options.alerts.teller()?, source.info.live) {
                (Some(teller), true) => watch.on_close(teller).only_count_told(),
                (Some(teller), false) => watch.on_close(teller),
                (None, _) => watch,
            }
        },
        done: 0,
        span: None,
        counter: options.counter,
        stop: options.stop,
        flush_each: source.info.live,
        beyond: options.beyond,
        events: (options.events.watches_pictures() || options.events.watches_sound()).then(|| {
            EventWatch::new(
                &options.events,
                PictureStream {
                    bits: PlaneShape::of(layout).map_or(8, |s| s.bits),
                    full_range: source.info.pixel_format.starts_with("yuvj"),
                    time_base: source.info.time_base,
                    frame_duration,
                },
            )
        }),
        sound_events: options.events.watches_sound(),
        event_runs: Vec::new(),
        event_teller: options.alerts.teller()?,
        frame_tags: Vec::new(),
        html: options
            .html
            .as_ref()
            .map(|_| HtmlReport::new(&source, PlaneShape::of(layout).map_or(8, |s| s.bits))),
    };
    let freezes = options.events.freezes();
    let noise = options.events.freeze.noise;
    // The differences of the first frame reported are from the frame before it, as in a run
    // of the filter over the whole file: that frame is counted too, and not written.
    let primed = FrameRange {
        start: range.start.saturating_sub(1),
        end: range.end,
    };
    if let Some(layout) = decoded {
        source.keep_decoded_planes();
        report_cpu(source, layout, (primed, range), (freezes, noise), &mut sink)?;
    } else if options.cpu || !StatsStage::supports(&info) {
        report_cpu(source, info.layout, (primed, range), (freezes, noise), &mut sink)?;
    } else {
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
        hist::gpu_frames_on(
            ctx,
            source,
            primed,
            crate::engine::histogram::DEFAULT_BINS,
            progress,
            |ctx, pipeline| {
                log::debug!("report: the frame pipeline made at {:.1} ms", ms());
                if !pipeline.count_stats(ctx) {
                    return Err(ClipError::Decode(format!(
                        "the statistics pass cannot read {}",
                        pipeline.ring.format.layout
                    )));
                }
                pipeline.count_only_stats();
                if freezes {
                    pipeline.detect_freezes(ctx, noise);
                }
                log::debug!("report: the statistics stage made at {:.1} ms", ms());
                let freeze_bytes = pipeline.freeze().map_or(0, |_| RESULT_BYTES);
                Ok(pipeline.stats().expect("counted").counts_size() + freeze_bytes)
            },
            |pipeline, encoder, buffer| {
                let stats = pipeline.stats().expect("counted");
                encoder.copy_buffer_to_buffer(&stats.counts, 0, buffer, 0, stats.counts_size());
                if let Some(freeze) = pipeline.freeze() {
                    encoder.copy_buffer_to_buffer(&freeze.result, 0, buffer, stats.counts_size(), RESULT_BYTES);
                }
            },
            |pipeline, bytes, frame| {
                if sink.done == 0 {
                    log::debug!("report: the first frame's statistics read back at {:.1} ms", ms());
                }
                let stats = pipeline.stats().expect("counted");
                let words = crate::gpu::readback::words(bytes);
                let counts = stats.counts_from(&words);
                let frozen = pipeline
                    .freeze()
                    .is_some_and(|_| FreezeStage::verdict(&words[(stats.counts_size() / 4) as usize..]).frozen);
                let in_range = range.contains(frame.index);
                sink.picture_events(&frame, &counts.y, counts.width * counts.height, frozen, in_range)?;
                if !in_range {
                    return Ok(());
                }
                sink.frame(frame, counts.stats())
            },
        )?;
    }
    if let Some(watch) = &mut sink.events {
        let ended = watch.pictures_ended();
        sink.tell_events(ended)?;
    }
    // (A range with no frame in it has no sound either.)
    let audio = match (live, whole, sink.span) {
        (true, _, _) | (false, false, None) => Vec::new(),
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
    let html = sink.html.take();
    let (done, runs) = sink.finish(audio)?;
    if let (Some(page), Some(path)) = (html, &options.html) {
        page.write(path, &runs, !options.limits.is_empty(), options.gpu)
            .map_err(|e| ClipError::Decode(format!("'{}' can't be written: {e}", path.display())))?;
    }
    Ok((done, runs))
}

/// The CPU twin's run over the frames of `primed` (`range` and the frame before it), their
/// planes read as `layout`; each compared with the last that moved where freezes are followed
/// (at `noise`).
fn report_cpu<W: Write>(
    mut source: VideoSource,
    layout: crate::video::format::PlaneLayout,
    (primed, range): (FrameRange, FrameRange),
    (freezes, noise): (bool, f64),
    sink: &mut Sink<'_, W>,
) -> Result<(), ClipError> {
    let info = source.info.format;
    hist::seek_to_frame(&mut source, primed.start);
    let mut progress = match sink.counter {
        Some(_) => Progress::hidden(),
        None => Progress::new(range.end.map(|e| e.saturating_sub(range.start))),
    };
    let mut previous: Option<YuvPlanes> = None;
    let mut twin = FreezeTwin::default();
    while let Some(frame) = source.next_frame()? {
        if range.end.is_some_and(|e| frame.index >= e) {
            break;
        }
        if frame.index < primed.start {
            continue;
        }
        let planes = YuvPlanes::read(layout, info.width, info.height, &frame.planes(layout))
            .map_err(|e| ClipError::Decode(e.to_string()))?;
        let meta = FrameMeta {
            index: frame.index,
            pts: frame.pts,
            seconds: frame.seconds,
            pict_type: frame.pict_type,
            packet: frame.packet,
        };
        let in_range = range.contains(frame.index);
        let counts = signalstats::count(&planes, previous.as_ref());
        let frozen = freezes && twin.picture(&planes, noise).0;
        sink.picture_events(&meta, &counts.y, counts.width * counts.height, frozen, in_range)?;
        if in_range {
            sink.frame(meta, counts.stats())?;
            progress.tick(sink.done);
        }
        previous = Some(planes);
    }
    Ok(())
}
