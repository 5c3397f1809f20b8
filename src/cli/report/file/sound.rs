//! The sound's pass of a report, after the pictures': its 100 ms frames written where the
//! format takes them, its limits, and its silences (the events) with their tags.

use super::super::events::{Ended, EventWatch, PictureStream};
use super::super::html::{HtmlReport, SoundFacts};
use super::super::limits::{AudioLimit, AudioWatch, Run, Runs};
use super::super::qctools::QctoolsReport;
use super::super::ReportFormat;
use super::{audio_line, AudioReport, Out, ReportOptions, Sink};
use crate::audio::qc::{AudioFrame, AudioStream};
use crate::headless::ClipError;
use crate::quit_signals::QuitSignals;
use crate::video::index::FrameIndex;
use std::io::Write;

/// The report of a file of sound alone (a stem, a mix): its 100 ms frames with astats' and
/// ebur128's values (JSON Lines, `--audio` or not, or a QCTools report of audio frames), its
/// silences (`--events`), its runs beyond the limits on sound, and its page (`--html`: its
/// facts, verdicts, silences and loudness), as a video's report has them after its pictures;
/// how many of its frames, and the runs. (The limits on pictures,
/// which a batch's limits may have, have nothing to follow here.)
pub fn report_sound<W: Write>(
    format: ReportFormat,
    options: ReportOptions,
    out: &mut W,
) -> Result<(u64, Runs), ClipError> {
    // (The sound's pass takes a file without sound as a report without it: here there would
    // be nothing to report.)
    if let Some(path) = options.audio.path {
        use crate::audio::source::{AudioError, AudioSource};
        // (Its sound would be read by opening it again, which a live input can't be.)
        if crate::video::input::is_stream(path) {
            return Err(ClipError::Decode(format!(
                "'{}' has no video stream: a live input's report is of its pictures (a file of sound alone has its sound's)",
                path.display()
            )));
        }
        AudioSource::open_as_is(path, options.audio.track).map_err(|e| {
            ClipError::Decode(match e {
                AudioError::NoAudio(_) => format!("'{}' has neither a video nor an audio stream", path.display()),
                e => e.to_string(),
            })
        })?;
    }
    let out = match format {
        ReportFormat::Json => Out::Json(out),
        ReportFormat::Qctools => Out::Qctools(QctoolsReport::start_sound(out)?, FrameIndex::from_packets([], 1.0)),
        ReportFormat::Csv => {
            return Err(ClipError::Decode(
                "CSV has no sound: a file of sound alone is reported in JSON Lines or a QCTools report".into(),
            ))
        }
    };
    // (The pictures' detectors are made, as the list has them, and see no picture.)
    let stream = PictureStream::NONE;
    let base = Sink::new(out, &options)?;
    let mut sink = Sink {
        events: options
            .events
            .watches_sound()
            .then(|| EventWatch::new(&options.events, stream)),
        html: options
            .html
            .as_ref()
            .zip(options.audio.path)
            .map(|(_, path)| HtmlReport::sound_only(path)),
        ..base
    };
    let audio = AudioReport {
        lines: true,
        ..options.audio
    };
    let runs = sink.audio(&audio, options.limits.audio(), None)?;
    if let Some(mut tell) = options.alerts.teller()? {
        runs.iter().for_each(&mut tell);
    }
    let frames = sink.sound_frames;
    let stopped = sink.stop.or(options.audio.signals).is_some_and(QuitSignals::requested);
    if let (0, Some(path), false) = (frames, options.audio.path, stopped) {
        return Err(ClipError::Decode(format!(
            "'{}': its audio stream has no sound to report",
            path.display()
        )));
    }
    let html = sink.html.take();
    let (_, runs) = sink.finish(runs)?;
    if let (Some(page), Some(path)) = (html, &options.html) {
        page.write(path, &runs, !options.limits.is_empty(), None)
            .map_err(|e| ClipError::Decode(format!("'{}' can't be written: {e}", path.display())))?;
    }
    Ok((frames, runs))
}

/// The tags silencedetect set (each with the time of the sample that set it) that fall in
/// `frame`, taken from `waiting`.
pub(super) fn tags_within(
    waiting: &mut std::collections::VecDeque<(f64, String, String)>,
    frame: &AudioFrame,
) -> Vec<(String, String)> {
    let inside = waiting.iter().take_while(|t| t.0 < frame.time + frame.duration).count();
    waiting.drain(..inside).map(|(_, k, v)| (k, v)).collect()
}

impl<W: Write> Sink<'_, W> {
    /// One of the sound's 100 ms frames, counted, on the page, and written where the format
    /// takes it: JSON Lines with `lines`, a QCTools report with silencedetect's `tags` in it.
    pub(super) fn sound_frame(
        &mut self,
        stream: &AudioStream,
        frame: &AudioFrame,
        tags: &[(String, String)],
        lines: bool,
    ) -> std::io::Result<()> {
        self.sound_frames += 1;
        if let Some(html) = &mut self.html {
            let sound = SoundFacts {
                rate: frame.rate,
                channels: stream.channels,
                index: stream.index,
            };
            html.audio_frame(sound, frame);
        }
        match &mut self.out {
            Out::Json(out) if lines => writeln!(out, "{}", audio_line(frame))?,
            Out::Qctools(xml, _) => xml.audio_frame(stream.index, frame.rate, frame, tags)?,
            _ => {}
        }
        if self.flush_each {
            match &mut self.out {
                Out::Json(out) | Out::Csv(out) => out.flush()?,
                Out::Qctools(xml, _) => xml.flush()?,
            }
        }
        Ok(())
    }

    /// The sound of `audio.path` after the video: its frames written where the format takes
    /// them (within `span`, the times of the frames reported, when not the whole file), its
    /// runs beyond `limits`, and its silences (the events). A file without sound is noted where
    /// its sound was asked for.
    pub(super) fn audio(
        &mut self,
        audio: &AudioReport<'_>,
        limits: Vec<AudioLimit>,
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
        let mut watch = AudioWatch::new(limits.clone());
        let quit = self.stop.or(audio.signals);
        // Silences that ended, waiting for the next line to be written before them, and the
        // tags silencedetect set, for the frame they fall in.
        let pending: std::cell::RefCell<Vec<Ended>> = Default::default();
        let tags: std::cell::RefCell<std::collections::VecDeque<(f64, String, String)>> = Default::default();
        let mut silence_runs: Vec<Ended> = Vec::new();
        // Why the sound's pass ended early: a write that failed, a signal, or the range's end.
        let mut ended: Option<Result<(), std::io::Error>> = None;
        let stream = crate::audio::qc::report_file(
            path,
            audio.track,
            |stream, raw| {
                let Some(events) = &mut events else { return };
                // (Every frame, those outside the range too: each is placed in time after the
                // one before, as `ffmpeg` places them, and the range's samples cut from them.)
                let shape = (usize::from(stream.channels), stream.rate, stream.time_base);
                let ended = events.sound(raw, shape, span);
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
                let listed = std::mem::take(&mut *pending.borrow_mut());
                let here = tags_within(&mut tags.borrow_mut(), frame);
                let written =
                    (self.tell_events(listed)).and_then(|()| self.sound_frame(stream, frame, &here, audio.lines));
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
            // (A signal that stopped the report stopped the sound's opening too: not told.)
            (Err(e), None) => {
                let told = audio.lines || !limits.is_empty() || !e.contains("has no audio stream");
                if told && !crate::video::input::quitting() {
                    eprintln!("note: {e}: the report has no sound");
                }
                Ok(Vec::new())
            }
        }
    }
}
