//! The sound past the last picture: where a file's sound runs on after its last frame, the clock
//! runs on with it, the last frame kept up, until the sound ends (as mpv plays a file out), and
//! only then does playback pause at the end. The position shown runs on with the clock, and
//! stays at the sound's end once there.

use super::{FrameSource, Playback, Wake};
use std::time::{Duration, Instant};

/// How long before the sound's known extent the player looks again.
const LOOK_AHEAD: Duration = Duration::from_millis(200);

/// What playback knows of the sound beyond the last picture.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tail {
    /// The media time the sound playing is known to go on to (its end once its decoder has
    /// read it, else as far as it has decoded); None without sound.
    sound_until: Option<f64>,
    /// The last frame is up and the clock runs on with the sound (paused there, it goes on
    /// when resumed).
    pub(super) on: bool,
    /// How far the clock has run past the last picture (to the sound's end at most): the
    /// position shown, until a seek.
    pub(super) at: Option<f64>,
}

impl<S: FrameSource> Playback<S> {
    /// How far the sound playing goes on (`Tail::sound_until`), told as it decodes; None without
    /// sound.
    pub fn set_sound_until(&mut self, until: Option<f64>) {
        self.tail.sound_until = until;
    }

    /// Whether the clock runs on past the last picture, `playing` there with nothing more to
    /// come, and where it is.
    pub(super) fn run_tail(&mut self, now: Instant, playing: bool) {
        let was_on = self.tail.on;
        self.tail.on = (playing && self.sound_goes_on(now)) || (self.tail.on && self.clock.paused());
        if was_on || self.tail.on {
            let until = self.tail.sound_until.unwrap_or(f64::INFINITY);
            let at = self.clock.media_time(now).min(until);
            self.changed |= self.tail.at != Some(at);
            self.tail.at = Some(at);
        }
    }

    /// Whether the clock, running past the last picture, still has sound ahead of it.
    pub(super) fn sound_goes_on(&self, now: Instant) -> bool {
        !self.live
            && crate::audio::audible_at(self.clock.speed())
            && self
                .tail
                .sound_until
                .is_some_and(|until| self.clock.media_time(now) < until)
    }

    /// When to look again while the sound plays on past the last picture: a little before
    /// where it is known to go on to (by then its decoder has read further, and the player is
    /// told so as it looks), and there; and each frame's time meanwhile (5 times a second at
    /// least), for the position shown to run on as the picture's would.
    pub(super) fn tail_wake(&self, now: Instant) -> Wake {
        let frame = (self.timeline.frame_duration / self.clock.speed()).clamp(0.01, 0.2);
        let next = now + Duration::from_secs_f64(frame);
        match self.tail.sound_until.and_then(|until| self.clock.due(until)) {
            Some(due) if due > now + LOOK_AHEAD => Wake::At((due - LOOK_AHEAD).min(next)),
            Some(due) if due > now => Wake::At(due.min(next)),
            _ => Wake::Now,
        }
    }
}
