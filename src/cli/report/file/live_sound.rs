//! A live input's sound in its report. A live input is read once, by the pictures' reader: the
//! sound's packets are tapped as it reads them (`VideoSource::tap_audio`) and decoded and
//! measured on a thread of their own (astats, ebur128, silencedetect, as a file's sound is);
//! each 100 ms frame is written among the pictures' lines as it comes, the silences as they
//! end, and the runs beyond the limits on sound told as they end.

use super::super::events::{Ended, EventSettings, EventWatch, PictureStream};
use super::super::html::SoundFacts;
use super::super::limits::{AudioLimit, AudioWatch, OnClose, Run};
use super::{audio_line, Out, Sink};
use crate::audio::qc::{AudioFrame, AudioStream};
use crate::audio::source::AudioSource;
use crate::video::source::Tapped;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;

/// What the sound's thread hands on.
enum Heard {
    /// A 100 ms frame, the silences that ended before it, and the tags silencedetect set in it.
    Frame {
        stream: AudioStream,
        frame: AudioFrame,
        ended: Vec<Ended>,
        tags: Vec<(String, String)>,
    },
    /// The sound ended (with the input, or where it can't be read: why), the silences going
    /// on ending with it.
    End { ended: Vec<Ended>, failed: Option<String> },
}

/// The sound of a live input being reported.
pub(super) struct LiveSound {
    heard: mpsc::Receiver<Heard>,
    /// JSON Lines get its frames (`--audio`).
    lines: bool,
    watch: AudioWatch,
    /// Told of each run beyond the limits on sound as it ends (stderr, `--alert-log`).
    teller: Option<OnClose>,
    runs: Vec<Run>,
    ended: bool,
}

impl LiveSound {
    /// Starts decoding and measuring the sound of `path` whose packets `tapped` hands on, its
    /// silences followed as `events` say (where they follow any), its frames followed by
    /// `limits`.
    pub fn start(
        path: &Path,
        tapped: Tapped,
        events: Option<EventSettings>,
        (limits, teller): (Vec<AudioLimit>, Option<OnClose>),
        lines: bool,
    ) -> std::io::Result<Self> {
        let (send, heard) = mpsc::channel();
        let path = path.to_owned();
        std::thread::Builder::new()
            .name("report-sound".into())
            .spawn(move || hear(&path, tapped, events, &send))?;
        Ok(Self {
            heard,
            lines,
            watch: AudioWatch::new(limits),
            teller,
            runs: Vec::new(),
            ended: false,
        })
    }
}

/// The sound's thread: decodes and measures what `tapped` hands on until the input ends (the
/// pictures' reader let go of it), or the report does (`send` finds no one).
fn hear(path: &Path, tapped: Tapped, events: Option<EventSettings>, send: &mpsc::Sender<Heard>) {
    // (The silences alone are followed here: the pictures' detectors are made and see none.)
    let no_pictures = PictureStream {
        bits: 8,
        full_range: false,
        time_base: (1, 1),
        frame_duration: 0.0,
    };
    let mut events = events.map(|settings| EventWatch::new(&settings, no_pictures));
    let pending: RefCell<Vec<Ended>> = Default::default();
    let tags: RefCell<VecDeque<(f64, String, String)>> = Default::default();
    let heard = AudioSource::fed_as_is(path, tapped)
        .map_err(|e| e.to_string())
        .and_then(|source| {
            crate::audio::qc::report_source(
                source,
                |stream, raw| {
                    let Some(events) = &mut events else { return };
                    let shape = (usize::from(stream.channels), stream.rate, stream.time_base);
                    pending.borrow_mut().extend(events.sound(raw, shape, None));
                    tags.borrow_mut().extend(events.take_sound_tags());
                },
                |stream, frame| {
                    let mut waiting = tags.borrow_mut();
                    let inside = waiting.iter().take_while(|t| t.0 < frame.time + frame.duration).count();
                    let heard = Heard::Frame {
                        stream: stream.clone(),
                        frame: frame.clone(),
                        ended: std::mem::take(&mut *pending.borrow_mut()),
                        tags: waiting.drain(..inside).map(|(_, k, v)| (k, v)).collect(),
                    };
                    send.send(heard).map_err(|_| String::new())
                },
            )
        });
    let mut ended = pending.into_inner();
    if let Some(events) = &mut events {
        ended.extend(events.sound_ended());
    }
    let _ = send.send(Heard::End {
        ended,
        failed: heard.err().filter(|e| !e.is_empty()),
    });
}

impl<W: Write> Sink<'_, W> {
    /// The live input's sound heard since last asked, written (`wait`: all of it, to its end).
    pub(super) fn hear(&mut self, wait: bool) -> std::io::Result<()> {
        let Some(mut live) = self.live_sound.take() else {
            return Ok(());
        };
        let result = (|| {
            while !live.ended {
                let heard = match wait {
                    true => live.heard.recv().ok(),
                    false => live.heard.try_recv().ok(),
                };
                match heard {
                    Some(Heard::Frame {
                        stream,
                        frame,
                        ended,
                        tags,
                    }) => self.live_sound_frame(&mut live, &stream, &frame, ended, &tags)?,
                    Some(Heard::End { ended, failed }) => {
                        live.ended = true;
                        self.tell_events(ended)?;
                        if let Some(e) = failed.filter(|_| !crate::video::input::quitting()) {
                            eprintln!("note: {e}: the report has no sound");
                        }
                    }
                    // (Its thread ended without a word: it failed as it started.)
                    None if wait => live.ended = true,
                    None => break,
                }
            }
            Ok(())
        })();
        self.live_sound = Some(live);
        result
    }

    fn live_sound_frame(
        &mut self,
        live: &mut LiveSound,
        stream: &AudioStream,
        frame: &AudioFrame,
        ended: Vec<Ended>,
        tags: &[(String, String)],
    ) -> std::io::Result<()> {
        live.watch.frame(frame.index, frame.time, frame.clipped);
        for run in live.watch.take_closed() {
            if let Some(tell) = &mut live.teller {
                tell(&run);
            }
            live.runs.push(run);
        }
        self.sound_frames += 1;
        if let Some(html) = &mut self.html {
            let sound = SoundFacts {
                rate: frame.rate,
                channels: stream.channels,
                index: stream.index,
            };
            html.audio_frame(sound, frame);
        }
        self.tell_events(ended)?;
        match &mut self.out {
            Out::Json(out) if live.lines => writeln!(out, "{}", audio_line(frame))?,
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

    /// The pictures ended: the sound heard to its end (the input's reader has let go of it),
    /// and its runs beyond the limits, the last ones told as they close.
    pub(super) fn live_sound_ended(&mut self) -> std::io::Result<Vec<Run>> {
        self.hear(true)?;
        let Some(mut live) = self.live_sound.take() else {
            return Ok(Vec::new());
        };
        for run in live.watch.finish() {
            if let Some(tell) = &mut live.teller {
                tell(&run);
            }
            live.runs.push(run);
        }
        Ok(live.runs)
    }
}
