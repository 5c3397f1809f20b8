//! The sound past the last picture: where a file's sound runs on after its last frame, the clock
//! runs on with it, the last frame kept up, until the sound ends (as mpv plays a file out), and
//! only then does playback pause at the end.

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
}

impl<S: FrameSource> Playback<S> {
    /// How far the sound playing goes on (`Tail::sound_until`), told as it decodes; None without
    /// sound.
    pub fn set_sound_until(&mut self, until: Option<f64>) {
        self.tail.sound_until = until;
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
    /// told so as it looks), and there.
    pub(super) fn tail_wake(&self, now: Instant) -> Wake {
        match self.tail.sound_until.and_then(|until| self.clock.due(until)) {
            Some(due) if due > now + LOOK_AHEAD => Wake::At(due - LOOK_AHEAD),
            Some(due) if due > now => Wake::At(due),
            _ => Wake::Now,
        }
    }
}
