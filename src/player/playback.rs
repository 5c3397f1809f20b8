//! One file's playback: the decoded frames waiting in the ring, which of them is due, late or
//! stale, and what pause, seeks and steps do. Knows the decoder only through `FrameSource`, so
//! it is tested with a scripted one, without threads or a GPU.

use super::commands::Command;
use super::pacing::{pick, pick_live};
use crate::clock::Clock;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::source::{FrameShape, SeekTarget};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The decode thread, as playback uses it.
pub trait FrameSource {
    /// Asks for `target`; returns the generation its frames will carry.
    fn seek(&mut self, target: SeekTarget) -> u64;
    /// Gives a ring slot back.
    fn release(&mut self, slot: usize);
    fn try_event(&mut self) -> Option<DecoderEvent>;
    fn generation(&self) -> u64;
    /// Playback paused or resumed (the decoder decodes less ahead and fills its cache behind).
    fn set_paused(&mut self, paused: bool);
    /// The oldest and the newest frames' times a live input's timeshift holds.
    fn live_window(&self) -> Option<(f64, f64)> {
        None
    }
    /// Whether the viewer follows a live input's newest frames (the decoder passes a backlog
    /// over) or plays its past (every frame in turn).
    fn follow_live(&mut self, _following: bool) {}
    /// The number of the picture a seek to `target` lands on, where the source numbers its
    /// pictures itself (deinterlaced at field rate, a step back from a field).
    fn landing(&self, _target: SeekTarget) -> Option<u64> {
        None
    }
    /// The picture (number, seconds) handed out next, where it is known before it can be made
    /// (deinterlaced: a frame's second field, made once its first's slot comes back; the first
    /// picture of a frame that waits for the frame after it).
    fn next_picture(&self) -> Option<(u64, f64)> {
        None
    }
}

impl FrameSource for DecodeThread {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        DecodeThread::seek(self, target)
    }

    fn release(&mut self, slot: usize) {
        DecodeThread::release(self, slot)
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        DecodeThread::try_event(self)
    }

    fn generation(&self) -> u64 {
        DecodeThread::generation(self)
    }

    fn set_paused(&mut self, paused: bool) {
        DecodeThread::set_paused(self, paused)
    }

    fn live_window(&self) -> Option<(f64, f64)> {
        DecodeThread::live_window(self)
    }

    fn follow_live(&mut self, following: bool) {
        DecodeThread::follow_live(self, following)
    }
}

/// What playback knows of the stream's extent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeline {
    /// Pts of the first frame, in seconds: positions are shown from here.
    pub start: f64,
    pub duration: f64,
    pub frame_duration: f64,
    /// Frames in the file, once the index has counted them all.
    pub frame_count: Option<u64>,
}

/// A seek in flight: the first frame of its generation is drawn as soon as it arrives.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Landing {
    /// Position asked for (from the start), shown while the seek is in flight.
    position: f64,
    /// The frame it lands on, when the seek named one.
    frame: Option<u64>,
}

/// A frame to draw, and when it was due (None for frames shown at once: the first, seeks, steps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NextFrame {
    pub frame: ReadyFrame,
    pub due: Option<Instant>,
}

/// When the app should next look at playback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// A frame is due: draw.
    Now,
    /// The next frame is due then.
    At(Instant),
    /// Waiting on the decoder, which can't wake the event loop: look again shortly.
    Poll,
    /// Nothing will change by itself (paused, or at the end).
    Idle,
}

pub struct Playback<S> {
    pub source: S,
    timeline: Timeline,
    clock: Clock,
    /// Frames of the current generation, decoded and uploaded, not drawn yet, oldest first.
    queue: VecDeque<ReadyFrame>,
    /// The frame on screen (its slot may since have gone back to the decoder).
    shown: Option<ReadyFrame>,
    landing: Option<Landing>,
    /// `.` presses not yet drawn.
    forward_steps: u32,
    /// The decoder has no frames after the queued ones (for this generation).
    ended: bool,
    dropped: u64,
    error: Option<String>,
    /// Something the OSD shows changed without a new frame (playback paused at the end).
    changed: bool,
    /// Frames of the current generations taken from the decoder (for the decode rate).
    received: u64,
    /// Playback ran into the end of the file (not a step or seek to it): the playlist moves on.
    finished: bool,
    /// Start the file over at its end instead of pausing (`L`).
    pub loop_file: bool,
    /// mpv's A-B loop points, seconds from the start.
    ab: AbLoop,
    /// A live input: at the live edge, frames are shown as they arrive, not to a clock.
    live: bool,
    /// The live input's past is kept (the decoder's timeshift): pause, seeks and steps move
    /// within it. Without, it can't seek.
    timeshift: bool,
    /// Timeshifted: showing the live input's past, to the clock, as a file is shown.
    behind: bool,
    /// The number of the last frame of this generation received from a live input (the
    /// numbers the decoder passed over at the live edge count as dropped).
    last_number: Option<u64>,
    /// When the last frame of a live input arrived.
    last_received: Option<Instant>,
    /// Something to tell the user, once (a key a live input has no use for).
    note: Option<String>,
    /// The decoder's next frames are of this shape: it waits for a ring of it.
    reshaped: Option<FrameShape>,
    /// The sound running on past the last picture.
    tail: tail::Tail,
}

/// A live input with no frame for this long shows "no signal" over its last one.
pub const NO_SIGNAL_AFTER: Duration = Duration::from_millis(1500);
/// A timeshifted live input's next frame this much later than the one shown: the frames
/// between left the window (paused for longer than it holds), and the clock jumps over them.
const WINDOW_GAP: f64 = 1.0;

impl<S: FrameSource> Playback<S> {
    /// Starts playing from the first frame the decoder sends.
    pub fn new(source: S, timeline: Timeline, now: Instant) -> Self {
        let landing = Landing {
            position: 0.0,
            frame: Some(0),
        };
        let mut source = source;
        source.set_paused(false);
        Self {
            source,
            timeline,
            clock: Clock::new(now, timeline.start, false),
            queue: VecDeque::new(),
            shown: None,
            landing: Some(landing),
            forward_steps: 0,
            ended: false,
            dropped: 0,
            error: None,
            changed: false,
            received: 0,
            finished: false,
            loop_file: false,
            ab: AbLoop::default(),
            live: false,
            timeshift: false,
            behind: false,
            last_number: None,
            last_received: None,
            note: None,
            reshaped: None,
            tail: tail::Tail::default(),
        }
    }

    /// Plays a live input: at the live edge, each frame as it arrives, the newest when more
    /// wait. With `timeshift` (the decoder keeps its past) pause, seeks, steps and speeds move
    /// in that past, played to the clock as a file is, until `End` goes back to the edge;
    /// without, paused, the input goes on being read and its frames pass, and it can't seek.
    pub fn set_live(&mut self, timeshift: bool) {
        self.live = true;
        self.timeshift = timeshift;
    }

    pub fn is_live(&self) -> bool {
        self.live
    }

    /// How far a timeshifted live input is behind its newest frame, in seconds, and the
    /// span its window holds; None for a file or at the live edge.
    pub fn behind_live(&self) -> Option<(f64, f64)> {
        if !(self.live && self.behind) {
            return None;
        }
        let (oldest, newest) = self.source.live_window()?;
        let at = self.landing.map_or_else(
            || self.shown.map_or(newest, |s| s.seconds),
            |l| self.timeline.start + l.position,
        );
        Some(((newest - at).max(0.0), newest - oldest))
    }

    /// A live input whose frames stopped coming (a stalled or lost stream), not paused or
    /// ended.
    pub fn no_signal(&self, now: Instant) -> bool {
        self.live
            && !self.behind
            && !self.ended
            && !self.clock.paused()
            && self
                .last_received
                .is_some_and(|t| now.saturating_duration_since(t) >= NO_SIGNAL_AFTER)
    }

    /// Takes in what the decoder sent: current frames are queued, stale ones given back.
    pub fn pump(&mut self, now: Instant) {
        while let Some(event) = self.source.try_event() {
            let current = self.source.generation();
            match event {
                DecoderEvent::Frame(frame) if frame.generation == current => {
                    self.received += 1;
                    if self.live {
                        self.last_received = Some(now);
                        // Passed over by the decoder: a backlog at the live edge.
                        if let Some(last) = self.last_number.filter(|&l| frame.index > l + 1 && !self.behind) {
                            self.dropped += frame.index - last - 1;
                        }
                        self.last_number = Some(frame.index);
                    }
                    self.queue.push_back(frame);
                }
                DecoderEvent::Frame(stale) => self.source.release(stale.slot),
                DecoderEvent::EndOfStream { generation } if generation == current => self.ended = true,
                DecoderEvent::Failed { generation, message } if generation == current => {
                    self.ended = true;
                    self.error = Some(message);
                }
                DecoderEvent::EndOfStream { .. } | DecoderEvent::Failed { .. } => {}
                // Whatever the generation: the decoder waits for the answer.
                DecoderEvent::Reshaped(shape) => self.reshaped = Some(shape),
            }
        }
        if self.live && !self.timeshift && self.clock.paused() && self.landing.is_none() {
            // The picture stays; the input goes on being read, its frames passing unseen.
            for frame in self.queue.drain(..) {
                self.source.release(frame.slot);
            }
        }
        if self.ended && self.queue.is_empty() {
            let playing = !self.clock.paused() && self.landing.is_none() && self.forward_steps == 0;
            // Nothing more will come: a seek or step that is still waiting has nothing to show.
            self.landing = None;
            self.forward_steps = 0;
            // The sound may run on past the last picture (paused there, it goes on when resumed).
            self.run_tail(now, playing);
            if self.tail.on {
                // Nothing is due until the sound ends.
            } else if playing && self.loop_file && !self.live {
                self.seek_frame(0);
            } else if !self.clock.paused() {
                // Keep the last frame up, paused (mpv --keep-open).
                self.clock.pause(now);
                self.changed = true;
                self.finished = playing;
            }
        }
    }

    /// The frame to draw now, if any; late frames before it are released undrawn. The caller
    /// releases the returned frame's slot once the work that converts it is submitted.
    pub fn next_frame(&mut self, now: Instant, lead: Duration) -> Option<NextFrame> {
        self.pump(now);
        if self.landing.is_some() {
            // A preview is shown only while the exact frame hasn't arrived too.
            while self.queue.len() > 1 && self.queue.front().is_some_and(|f| f.preview) {
                self.drop_front(1);
            }
            let frame = self.queue.pop_front()?;
            if !frame.preview {
                self.landing = None;
                // The clock restarts from the frame we land on, so playback goes on from there.
                self.clock.set(now, frame.seconds);
                // A live input's newest frame, playing: back at the live edge.
                self.behind = self.live && self.timeshift && (self.clock.paused() || !frame.live_edge);
                self.tell_following();
            }
            return Some(self.show(frame, None));
        }
        if self.forward_steps > 0 {
            let frame = self.queue.pop_front()?;
            self.forward_steps -= 1;
            self.clock.set(now, frame.seconds);
            return Some(self.show(frame, None));
        }
        if self.clock.paused() {
            return None;
        }
        if self.live && !self.behind {
            let pick = pick_live(self.queue.len());
            self.drop_front(pick.drop);
            let frame = self.queue.pop_front()?;
            self.clock.set(now, frame.seconds);
            return Some(self.show(frame, None));
        }
        if let (true, Some(shown), Some(next)) = (self.live, self.shown, self.queue.front()) {
            if next.seconds - shown.seconds > WINDOW_GAP {
                // The frames between left the timeshift window meanwhile.
                self.clock.set(now, next.seconds);
            }
        }
        let horizon = self.clock.media_time(now + lead);
        let pick = pick(self.queue.iter().map(|f| f.seconds), horizon);
        self.drop_front(pick.drop);
        if pick.show {
            if let Some((a, b)) = self.ab.span() {
                let from = self.shown.map(|s| s.seconds - self.timeline.start);
                let to = self.queue.front().map(|f| f.seconds - self.timeline.start);
                if from.is_some_and(|from| from <= b) && to.is_some_and(|to| to > b) {
                    // Playback passes B (B's own frame shown): back to A, exactly, still playing.
                    self.seek_to(a, true);
                    return None;
                }
            }
            let frame = self.queue.pop_front()?;
            let due = self.clock.due(frame.seconds);
            let newest = self
                .source
                .live_window()
                .is_none_or(|(_, newest)| frame.seconds >= newest);
            if self.live && frame.live_edge && newest {
                // Caught up with the input (played faster than it comes): live again.
                self.behind = false;
                self.tell_following();
                self.clock.set_speed(now, 1.0);
                self.note = Some("live".into());
            }
            return Some(self.show(frame, due));
        }
        None
    }

    /// While nothing can be drawn (minimized), playback goes on: superseded frames are dropped
    /// so the decoder keeps going and the picture is current when the window comes back.
    pub fn drop_late(&mut self, now: Instant, lead: Duration) {
        self.pump(now);
        if self.landing.is_none() && self.forward_steps == 0 && !self.clock.paused() {
            let drop = match self.live && !self.behind {
                true => self.queue.len().saturating_sub(1),
                false => pick(self.queue.iter().map(|f| f.seconds), self.clock.media_time(now + lead)).drop,
            };
            self.drop_front(drop);
        }
    }

    fn drop_front(&mut self, count: usize) {
        for frame in self.queue.drain(..count.min(self.queue.len())) {
            self.source.release(frame.slot);
            self.dropped += 1;
        }
    }

    fn show(&mut self, frame: ReadyFrame, due: Option<Instant>) -> NextFrame {
        self.shown = Some(frame);
        NextFrame { frame, due }
    }

    /// When to look again; `renderable` is false while the window can't be drawn.
    pub fn wake(&self, now: Instant, lead: Duration, renderable: bool) -> Wake {
        if self.landing.is_some() || self.forward_steps > 0 {
            return match (self.queue.is_empty(), renderable) {
                (true, _) if self.ended => Wake::Idle,
                (true, _) => Wake::Poll,
                (false, true) => Wake::Now,
                // The frame waits for the window to come back (its events wake us).
                (false, false) => Wake::Idle,
            };
        }
        if self.clock.paused() {
            return Wake::Idle;
        }
        if self.tail.on {
            return self.tail_wake(now);
        }
        if self.live && !self.behind {
            // Frames wake the loop as they arrive; until then, the moment "no signal" shows.
            return match (self.queue.is_empty(), renderable) {
                (false, true) => Wake::Now,
                _ if self.ended || self.no_signal(now) => Wake::Idle,
                _ => self.last_received.map_or(Wake::Idle, |t| Wake::At(t + NO_SIGNAL_AFTER)),
            };
        }
        // Minimized, the next thing to do is to drop the front frame when the one after is due.
        let next = if renderable {
            self.queue.front()
        } else {
            self.queue.get(1)
        };
        match next.and_then(|f| self.clock.due(f.seconds)) {
            Some(due) => match due.checked_sub(lead) {
                Some(start) if start > now => Wake::At(start),
                _ => Wake::Now,
            },
            None if self.ended => Wake::Idle,
            None => Wake::Poll,
        }
    }

    /// Pictures are fields (deinterlacing at field rate: twice the frames, half as long) or
    /// frames, of `frame_duration` seconds.
    pub fn set_field_rate(&mut self, field: bool, frame_duration: f64) {
        self.timeline.frame_duration = if field { frame_duration / 2.0 } else { frame_duration };
    }

    /// The file's extent as far as the index knows it (it counts frames in the background).
    pub fn set_extent(&mut self, frame_count: Option<u64>, duration: Option<f64>) {
        self.timeline.frame_count = frame_count;
        if let Some(duration) = duration.filter(|&d| d > 0.0) {
            self.timeline.duration = duration;
        }
    }

    /// The frame number playback is at once pending seeks and steps are drawn, if known.
    pub fn target_index(&self) -> Option<u64> {
        match self.landing {
            Some(landing) => landing.frame,
            None => self.shown.map(|s| s.index + u64::from(self.forward_steps)),
        }
    }

    /// Seconds from the start: where a pending seek goes, else the frame in the picture (or
    /// the clock, past the last picture while the sound plays on).
    pub fn position(&self) -> f64 {
        match (self.landing, self.shown) {
            (Some(landing), _) => landing.position,
            (None, Some(shown)) => self.tail.at.map_or(shown.seconds, |at| at.max(shown.seconds)) - self.timeline.start,
            (None, None) => 0.0,
        }
    }

    /// What the sound follows: the clock, heard while it runs (at a speed the sound can be
    /// stretched to) on a landed picture, not while paused, seeking or stepping.
    pub fn audio_cue(&self) -> crate::audio::Cue {
        crate::audio::Cue {
            clock: self.clock,
            audible: self.landing.is_none()
                && self.forward_steps == 0
                && !self.clock.paused()
                && crate::audio::audible_at(self.clock.speed())
                && !self.at_end(),
        }
    }

    /// The sound is playing on its own clock and `heard` is being heard now: the picture
    /// follows it (the sound device's clock drifts from the system's, and skipping sound to
    /// stay on the picture would click). A clock that differs by more than the sound's
    /// realignment threshold is the picture's news (a seek), not the sound's.
    pub fn follow_audio(&mut self, now: Instant, heard: f64) {
        // A live input's picture is shown as it arrives: its sound follows it.
        if self.live || !self.audio_cue().audible {
            return;
        }
        if (heard - self.clock.media_time(now)).abs() < crate::audio::sync::REALIGN {
            self.clock.set(now, heard);
        }
    }

    /// Paused on the last frame with nothing more to come.
    pub fn at_end(&self) -> bool {
        self.ended && self.queue.is_empty() && self.landing.is_none() && !self.tail.on
    }

    pub fn shown(&self) -> Option<ReadyFrame> {
        self.shown
    }

    /// The picture on screen: its number and its time as `position` counts it (a seek's
    /// keyframe preview's own, not the time the seek is on its way to).
    pub fn shown_at(&self) -> Option<(u64, f64)> {
        self.shown.map(|s| (s.index, s.seconds - self.timeline.start))
    }

    pub fn paused(&self) -> bool {
        self.clock.paused()
    }

    pub fn speed(&self) -> f64 {
        self.clock.speed()
    }

    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// Frames released undrawn because a later one was already due.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The decoder generation that frames answering the latest seek carry.
    pub fn generation(&self) -> u64 {
        self.source.generation()
    }

    /// A decoder failure to report, once.
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    /// A note for the user, once.
    pub fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    /// The shown frame's number: the index's, or for a stream the index does not read (a
    /// live one) the number it was given as it came.
    pub fn shown_number(&self, index: &crate::video::index::FrameIndex) -> Option<crate::video::index::FrameNumber> {
        let shown = self.shown?;
        Some(match index.number_at(shown.pts) {
            number if number.exact || !shown.exact => number,
            _ => crate::video::index::FrameNumber {
                n: shown.index,
                exact: true,
            },
        })
    }

    /// Frames taken from the decoder so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The A-B loop points.
    pub fn ab_loop(&self) -> AbLoop {
        self.ab
    }

    /// Whether playback ran into the end of the file since last asked; resets it.
    pub fn take_finished(&mut self) -> bool {
        std::mem::take(&mut self.finished)
    }

    /// Whether the OSD needs a redraw for a change that came with no frame; resets it.
    pub fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }

    /// The shape the decoder's next frames have, once every frame it sent before in the ring
    /// it has now was taken (shown or given back) and a frame is wanted (paused, the picture
    /// stays until a step or seek asks for one): the caller makes a ring of that shape and
    /// hands it to the decoder.
    pub fn take_reshaped(&mut self) -> Option<FrameShape> {
        let wanted = !self.clock.paused() || self.landing.is_some() || self.forward_steps > 0;
        match self.queue.is_empty() && wanted {
            true => self.reshaped.take(),
            false => None,
        }
    }

    /// Gives every held slot back (before the decoder goes away).
    pub fn release_all(&mut self) {
        let held = std::mem::take(&mut self.queue);
        for frame in held {
            self.source.release(frame.slot);
        }
    }
}

mod control;
mod loops;
mod tail;

pub use loops::{chapter_target, AbLoop, ChapterTarget};

#[cfg(test)]
mod tests;
