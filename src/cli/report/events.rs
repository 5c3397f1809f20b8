//! `report --events` and the limits on events (`--fail-on black>2s,freeze>2s,silence>2s`):
//! FFmpeg's blackdetect, freezedetect and silencedetect followed over the report's frames and
//! sound. The events listed are written as JSON lines as each one ends; each limit follows its
//! own detector with `d` at the limit (the other options as given), and an event lasting longer
//! than the limit is a run beyond it.

use super::limits::{EventLimit, Run};
use crate::events::black::BlackDetect;
use crate::events::freeze::FreezeDetect;
use crate::events::silence::SilenceDetect;
use crate::events::{BlackOptions, Event, EventKind, FreezeOptions, SilenceOptions};
use ffmpeg_next as ffmpeg;

/// What a report follows of the events.
#[derive(Clone, Debug, Default)]
pub struct EventSettings {
    /// The events are listed (`--events`, or any detector's options given).
    pub list: bool,
    pub black: BlackOptions,
    pub freeze: FreezeOptions,
    pub silence: SilenceOptions,
    /// The limits on events (`black>2s`).
    pub limits: Vec<EventLimit>,
}

impl EventSettings {
    /// Whether anything follows the pictures' events (and so needs the freeze pass).
    pub fn watches_pictures(&self) -> bool {
        self.list || self.limits.iter().any(|l| l.kind != EventKind::Silence)
    }

    /// Whether anything follows the sound's.
    pub fn watches_sound(&self) -> bool {
        self.list || self.limits.iter().any(|l| l.kind == EventKind::Silence)
    }

    pub fn freezes(&self) -> bool {
        self.list || self.limits.iter().any(|l| l.kind == EventKind::Freeze)
    }
}

/// Detectors of one purpose (the list, or one limit).
struct Detectors {
    black: Option<BlackDetect>,
    freeze: Option<FreezeDetect>,
    silence: Option<SilenceDetect>,
    silence_options: Option<SilenceOptions>,
}

/// An event that ended, and the limit it is followed for (None: listed).
pub struct Ended {
    pub event: Event,
    pub limit: Option<usize>,
}

/// The stream the pictures come from.
#[derive(Clone, Copy, Debug)]
pub struct PictureStream {
    pub bits: u32,
    /// A `yuvj` format: black is 0 for blackdetect.
    pub full_range: bool,
    pub time_base: (i32, i32),
    pub frame_duration: f64,
}

impl PictureStream {
    /// No pictures (the sound's detectors alone are fed): a file of sound alone, a live
    /// input's sound measured apart.
    pub const NONE: Self = Self {
        bits: 8,
        full_range: false,
        time_base: (1, 1),
        frame_duration: 0.0,
    };
}

/// Follows every detector a report asks for.
pub struct EventWatch {
    /// The list's, then each limit's.
    sets: Vec<Detectors>,
    limits: Vec<EventLimit>,
    list: bool,
    /// The last picture's time, for a freeze going on at the end.
    last_seconds: f64,
    /// The frame the picture detectors last started again at (its pictures start them once).
    started_again: Option<u64>,
}

impl EventWatch {
    pub fn new(settings: &EventSettings, stream: PictureStream) -> Self {
        let frame_rate =
            (stream.frame_duration > 0.0).then(|| (1_000_000, (stream.frame_duration * 1e6).round().max(1.0) as i32));
        let black = |o: BlackOptions| BlackDetect::new(o, stream.bits, stream.full_range, stream.time_base);
        let freeze = |o: FreezeOptions| FreezeDetect::new(o, stream.time_base, frame_rate);
        let mut sets = Vec::new();
        if settings.list {
            sets.push(Detectors {
                black: Some(black(settings.black)),
                freeze: Some(freeze(settings.freeze)),
                silence: None,
                silence_options: Some(settings.silence),
            });
        }
        for limit in &settings.limits {
            let us = (limit.seconds * 1e6).round() as i64;
            sets.push(match limit.kind {
                EventKind::Black => Detectors {
                    black: Some(black(BlackOptions {
                        min_duration: limit.seconds,
                        ..settings.black
                    })),
                    freeze: None,
                    silence: None,
                    silence_options: None,
                },
                EventKind::Freeze => Detectors {
                    black: None,
                    freeze: Some(freeze(FreezeOptions {
                        duration_us: us,
                        ..settings.freeze
                    })),
                    silence: None,
                    silence_options: None,
                },
                EventKind::Silence => Detectors {
                    black: None,
                    freeze: None,
                    silence: None,
                    silence_options: Some(SilenceOptions {
                        duration_us: us,
                        ..settings.silence
                    }),
                },
            });
        }
        Self {
            sets,
            limits: settings.limits.clone(),
            list: settings.list,
            last_seconds: 0.0,
            started_again: None,
        }
    }

    /// The set at `i`'s purpose: None for the list.
    fn purpose(&self, i: usize) -> Option<usize> {
        match self.list {
            true => i.checked_sub(1),
            false => Some(i),
        }
    }

    /// One picture: its number and pts; its black samples by each black detector's threshold
    /// (`black_of`), its luma samples, and whether it is frozen against the freeze reference;
    /// `in_range` false for the frame before the range, which no detector is shown.
    pub fn picture(
        &mut self,
        (index, pts, seconds): (u64, i64, f64),
        black_of: &dyn Fn(&BlackDetect) -> u64,
        samples: u64,
        frozen: bool,
        in_range: bool,
    ) -> Vec<Ended> {
        self.last_seconds = seconds;
        let mut ended = Vec::new();
        for i in 0..self.sets.len() {
            let limit = self.purpose(i);
            let set = &mut self.sets[i];
            if let (Some(black), true) = (&mut set.black, in_range) {
                let n = black_of(black);
                ended.extend(
                    black
                        .picture(index, pts, n, samples)
                        .map(|event| Ended { event, limit }),
                );
            }
            if let (Some(freeze), true) = (&mut set.freeze, in_range) {
                ended.extend(
                    freeze
                        .picture(index, Some(pts), frozen)
                        .map(|event| Ended { event, limit }),
                );
            }
        }
        ended
    }

    /// The tags FFmpeg's detectors set on the last picture (the listed ones'; a QCTools
    /// report writes them as ffprobe would after `signalstats,blackdetect,freezedetect`).
    pub fn picture_tags(&self) -> Vec<(String, String)> {
        let Some(set) = self.sets.first().filter(|_| self.list) else {
            return Vec::new();
        };
        let black = set.black.iter().flat_map(|b| b.tags().iter().cloned());
        let freeze = set.freeze.iter().flat_map(|f| f.tags().iter().cloned());
        black.chain(freeze).collect()
    }

    /// The tags silencedetect set since last asked (the listed detector's), each with the time
    /// of the sample that set it.
    pub fn take_sound_tags(&mut self) -> Vec<(f64, String, String)> {
        match (self.list, self.sets.first_mut().and_then(|s| s.silence.as_mut())) {
            (true, Some(detect)) => detect.take_tags(),
            _ => Vec::new(),
        }
    }

    /// The pictures ended: the stretches going on end (black at the last picture; a freeze with
    /// no end).
    pub fn pictures_ended(&mut self) -> Vec<Ended> {
        self.end_pictures(FreezeDetect::finish)
    }

    /// The picture detectors start again at frame `frame` (a change of the pictures' size or
    /// format, where FFmpeg's tool configures its filters again), once: the stretches going on
    /// end as at the pictures' end, and the frame's picture is compared with nothing.
    pub fn pictures_start_again(&mut self, frame: u64) -> Vec<Ended> {
        if self.started_again.replace(frame) == Some(frame) {
            return Vec::new();
        }
        self.end_pictures(FreezeDetect::start_again)
    }

    fn end_pictures(&mut self, end_freeze: fn(&mut FreezeDetect) -> Option<Event>) -> Vec<Ended> {
        let mut ended = Vec::new();
        for i in 0..self.sets.len() {
            let limit = self.purpose(i);
            let set = &mut self.sets[i];
            if let Some(black) = &mut set.black {
                ended.extend(black.finish().map(|event| Ended { event, limit }));
            }
            if let Some(freeze) = &mut set.freeze {
                ended.extend(end_freeze(freeze).map(|event| Ended { event, limit }));
            }
        }
        ended
    }

    /// One decoded frame of the sound (`channels` at `rate`, its timestamps in `time_base`), of
    /// its samples those `within` a span (seconds) where one is given.
    pub fn sound(
        &mut self,
        frame: &ffmpeg::frame::Audio,
        (channels, rate, time_base): (usize, u32, (i32, i32)),
        within: Option<(f64, f64)>,
    ) -> Vec<Ended> {
        let mut ended = Vec::new();
        for i in 0..self.sets.len() {
            let limit = self.purpose(i);
            let set = &mut self.sets[i];
            let Some(options) = set.silence_options else { continue };
            let detect = set
                .silence
                .get_or_insert_with(|| SilenceDetect::new(options, channels, rate));
            detect.frame(frame, time_base, within);
            ended.extend(detect.take_events().into_iter().map(|event| Ended { event, limit }));
        }
        ended
    }

    /// The sound ended: a silence going on ends with it.
    pub fn sound_ended(&mut self) -> Vec<Ended> {
        let mut ended = Vec::new();
        for i in 0..self.sets.len() {
            let limit = self.purpose(i);
            if let Some(detect) = &mut self.sets[i].silence {
                ended.extend(detect.finish().into_iter().map(|event| Ended { event, limit }));
            }
        }
        ended
    }

    /// The run an event is beyond limit `i` by, if it lasted longer than the limit.
    pub fn run(&self, event: &Event, i: usize) -> Option<Run> {
        let limit = &self.limits[i];
        let end = event.end.unwrap_or(self.last_seconds.max(event.start));
        let lasted = event.duration.unwrap_or(end - event.start);
        if lasted <= limit.seconds && event.end.is_some() {
            return None;
        }
        let now = std::time::SystemTime::now();
        // (The sound's runs are numbered by the report's 100 ms audio frames.)
        let (first, last) = match event.frames {
            Some(frames) => frames,
            None => (
                (event.start * 10.0).floor() as u64,
                ((end * 10.0).ceil() as u64).saturating_sub(1),
            ),
        };
        Some(Run {
            limit: limit.text.clone(),
            first,
            last: last.max(first),
            first_pts: event.start,
            last_pts: end,
            worst: (lasted * 1000.0).round() / 1000.0,
            started: now,
            ended: now,
            audio: event.kind == EventKind::Silence,
        })
    }
}
