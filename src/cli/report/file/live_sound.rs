//! A live input's sound in its report. A live input is read once, by the pictures' reader: the
//! sound's packets are tapped as it reads them (`VideoSource::tap_audio`) and decoded and
//! measured on a thread of their own (astats, ebur128, silencedetect, as a file's sound is);
//! each 100 ms frame is written among the pictures' lines as it comes, the silences as they
//! end, and the runs beyond the limits on sound told as they end.

use super::super::events::{Ended, EventSettings, EventWatch, PictureStream};
use super::super::limits::{AudioLimit, AudioWatch, OnClose, Run};
use super::Sink;
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
    Frame(Held),
    /// The sound ended (with the input, or where it can't be read: why), the silences going
    /// on ending with it.
    End {
        ended: Vec<Ended>,
        failed: Option<String>,
    },
}

/// A 100 ms frame, the silences that ended before it, and the tags silencedetect set in it.
struct Held {
    stream: AudioStream,
    frame: AudioFrame,
    ended: Vec<Ended>,
    tags: Vec<(String, String)>,
}

/// The sound of a live input being reported. Its frames are written as the pictures pass their
/// time (the sound, decoded ahead, waits for them), and, where a range of frames is reported,
/// only those of the range's span, its silences cut to it, as a file's are.
pub(super) struct LiveSound {
    heard: mpsc::Receiver<Heard>,
    held: VecDeque<Held>,
    /// The silences that ended with the sound, and why it could not be read.
    last: Vec<Ended>,
    failed: Option<String>,
    /// JSON Lines get its frames (`--audio`).
    lines: bool,
    watch: AudioWatch,
    /// Told of each run beyond the limits on sound as it ends (stderr, `--alert-log`).
    teller: Option<OnClose>,
    runs: Vec<Run>,
    ended: bool,
    /// A range of frames is reported: the sound of its span (to its last frame's end), and the
    /// shortest silence listed.
    cut: Option<Cut>,
    /// The sound's rate (its silences' times are of its samples).
    rate: i64,
}

#[derive(Clone, Copy)]
struct Cut {
    frame_duration: f64,
    shortest_listed_us: i64,
}

impl LiveSound {
    /// The sound of the live input `path` whose packets `options` has tapped (`live_sound`),
    /// for a report of the whole input, or of a range of frames each `frame_duration` long.
    pub fn of(
        options: &mut super::ReportOptions,
        path: &Path,
        whole: bool,
        frame_duration: f64,
    ) -> std::io::Result<Option<Self>> {
        let Some(tapped) = options.live_sound.take() else {
            return Ok(None);
        };
        let events = options.events.watches_sound().then(|| options.events.clone());
        let limits = (options.limits.audio(), options.alerts.teller()?);
        let cut = (!whole).then_some(Cut {
            frame_duration,
            shortest_listed_us: options.events.silence.duration_us,
        });
        Self::start(path, tapped, events, limits, (options.audio.lines, cut)).map(Some)
    }

    /// Starts decoding and measuring the sound of `path` whose packets `tapped` hands on (every
    /// one of them kept until read), its silences followed as `events` say (where they follow
    /// any), its frames followed by `limits`; `cut` where a range of frames is reported.
    fn start(
        path: &Path,
        tapped: Tapped,
        events: Option<EventSettings>,
        (limits, teller): (Vec<AudioLimit>, Option<OnClose>),
        (lines, cut): (bool, Option<Cut>),
    ) -> std::io::Result<Self> {
        let (send, heard) = mpsc::channel();
        let path = path.to_owned();
        tapped.packets.hold();
        let window = std::sync::Arc::clone(&tapped.packets);
        let started = std::thread::Builder::new().name("report-sound".into()).spawn(move || {
            // (However it ends, the input's reader no longer waits for it.)
            let _release = Release(std::sync::Arc::clone(&tapped.packets));
            hear(&path, tapped, events, &send)
        });
        if let Err(e) = started {
            window.release();
            return Err(e);
        }
        Ok(Self {
            heard,
            held: VecDeque::new(),
            last: Vec::new(),
            failed: None,
            lines,
            watch: AudioWatch::new(limits),
            teller,
            runs: Vec::new(),
            ended: false,
            cut,
            rate: 0,
        })
    }

    /// Runs beyond the limits on sound that ended: told, and kept.
    fn close(&mut self, runs: Vec<Run>) {
        for run in runs {
            if let Some(tell) = &mut self.teller {
                tell(&run);
            }
            self.runs.push(run);
        }
    }

    /// A silence that ended, cut to the span `from..until` of a range, to the sample, as
    /// `atrim` cuts the sound before silencedetect (None: outside it, or shorter than a listed
    /// silence is, once cut).
    fn cut(&self, mut e: Ended, (from, until): (f64, f64)) -> Option<Ended> {
        use crate::events::{rescale, seconds};
        let Some(cut) = self.cut else { return Some(e) };
        let rate = self.rate.max(1);
        let sample = |t: f64| (t * rate as f64).round().clamp(i64::MIN as f64, i64::MAX as f64) as i64;
        let (start, end) = (sample(e.event.start), e.event.end.map_or(i64::MAX, sample));
        let (first, last) = (start.max(sample(from)), end.min(sample(until)));
        let shortest = rescale(cut.shortest_listed_us, (1, 1_000_000), (1, rate));
        if last <= first || (e.limit.is_none() && last - first < shortest) {
            return None;
        }
        if (first, last) != (start, end) {
            let time = |ts: i64| seconds(ts, (1, rate));
            (e.event.start, e.event.end, e.event.duration) = (time(first), Some(time(last)), Some(time(last - first)));
        }
        Some(e)
    }
}

/// Lets the input's reader go on without the report's sound reader.
struct Release(std::sync::Arc<crate::video::source::tap::PacketWindow>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The sound's thread: decodes and measures what `tapped` hands on until the input ends (the
/// pictures' reader let go of it), or the report does (`send` finds no one).
fn hear(path: &Path, tapped: Tapped, events: Option<EventSettings>, send: &mpsc::Sender<Heard>) {
    // (The silences alone are followed here: the pictures' detectors are made and see none.)
    let mut events = events.map(|settings| EventWatch::new(&settings, PictureStream::NONE));
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
                    let heard = Heard::Frame(Held {
                        stream: stream.clone(),
                        frame: frame.clone(),
                        ended: std::mem::take(&mut *pending.borrow_mut()),
                        tags: super::sound::tags_within(&mut tags.borrow_mut(), frame),
                    });
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
    /// The live input's sound heard up to the last picture's time, written; `wait`: the
    /// pictures ended, all of it, to its end.
    pub(super) fn hear(&mut self, wait: bool) -> std::io::Result<()> {
        let Some(mut live) = self.live_sound.take() else {
            return Ok(());
        };
        let result = self.hear_from(&mut live, wait);
        self.live_sound = Some(live);
        result
    }

    fn hear_from(&mut self, live: &mut LiveSound, wait: bool) -> std::io::Result<()> {
        while !live.ended {
            let heard = match wait {
                true => live.heard.recv().ok(),
                false => live.heard.try_recv().ok(),
            };
            match heard {
                Some(Heard::Frame(held)) => {
                    live.rate = i64::from(held.frame.rate);
                    live.held.push_back(held);
                }
                Some(Heard::End { ended, failed }) => (live.ended, live.last, live.failed) = (true, ended, failed),
                // (Its thread ended without a word: it failed as it started.)
                None if wait => live.ended = true,
                None => break,
            }
        }
        // The span the sound is written up to: the last picture's time (the range's end, and
        // its last frame's length, once the pictures ended).
        let span = match (self.span, wait, live.cut) {
            (None, false, _) => return Ok(()),
            (None, true, Some(_)) => (f64::INFINITY, f64::NEG_INFINITY),
            (None, true, None) => (f64::NEG_INFINITY, f64::INFINITY),
            (Some((_, to)), false, None) => (f64::NEG_INFINITY, to),
            (Some((from, to)), false, Some(_)) => (from, to),
            (Some(_), true, None) => (f64::NEG_INFINITY, f64::INFINITY),
            (Some((from, to)), true, Some(cut)) => (from, to + cut.frame_duration),
        };
        // (The silences are cut at the range's end once it is known: at the pictures' end.)
        let cut = (span.0, if wait { span.1 } else { f64::INFINITY });
        while live.held.front().is_some_and(|held| held.frame.time < span.1) {
            let held = live.held.pop_front().expect("a frame held");
            self.live_sound_frame(live, held, cut)?;
        }
        if wait {
            // (Past the range: the silences that ended before its end are its.)
            for held in std::mem::take(&mut live.held) {
                let ended = held.ended.into_iter().filter_map(|e| live.cut(e, span)).collect();
                self.tell_events(ended)?;
            }
            let last = std::mem::take(&mut live.last);
            let last = last.into_iter().filter_map(|e| live.cut(e, span)).collect();
            self.tell_events(last)?;
            if let Some(e) = live.failed.take().filter(|_| !crate::video::input::quitting()) {
                eprintln!("note: {e}: the report has no sound");
            }
        }
        Ok(())
    }

    fn live_sound_frame(&mut self, live: &mut LiveSound, held: Held, span: (f64, f64)) -> std::io::Result<()> {
        let Held {
            stream,
            frame,
            ended,
            tags,
        } = held;
        let ended = ended.into_iter().filter_map(|e| live.cut(e, span)).collect();
        self.tell_events(ended)?;
        // (A range's sound is of the frames that overlap its span.)
        if live.cut.is_some() && frame.time + frame.duration <= span.0 {
            return Ok(());
        }
        live.watch.frame(frame.index, frame.time, frame.clipped);
        let closed = live.watch.take_closed();
        live.close(closed);
        self.sound_frame(&stream, &frame, &tags, live.lines)
    }

    /// The pictures ended: the sound heard to its end (the input's reader has let go of it),
    /// and its runs beyond the limits, the last ones told as they close.
    pub(super) fn live_sound_ended(&mut self) -> std::io::Result<Vec<Run>> {
        self.hear(true)?;
        let Some(mut live) = self.live_sound.take() else {
            return Ok(Vec::new());
        };
        let last = std::mem::replace(&mut live.watch, AudioWatch::new(Vec::new())).finish();
        live.close(last);
        Ok(live.runs)
    }
}
