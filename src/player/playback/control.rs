//! What the viewer's commands do to playback: pause, seeks, steps, speed, loops, and going
//! back to a live input's newest frame.

use super::*;

impl<S: FrameSource> Playback<S> {
    /// Applies a playback command; false if it is not one (view and window commands).
    pub fn apply(&mut self, command: &Command, now: Instant) -> bool {
        let known = self.apply_command(command, now);
        self.tell_following();
        // A live input without timeshift is read on while paused (the decoder would otherwise
        // stop, and fill its cache behind by seeking).
        self.source
            .set_paused(self.clock.paused() && (self.timeshift || !self.live));
        known
    }

    fn apply_command(&mut self, command: &Command, now: Instant) -> bool {
        if self.live {
            let playing_order = "live: the input plays in the order it comes (no loops)";
            let as_it_comes = "live: the input plays as it arrives (no seeks, steps or speeds)";
            match *command {
                Command::SeekEnd => {
                    self.go_live(now);
                    return true;
                }
                Command::AbLoop | Command::ToggleLoopFile => {
                    self.note = Some(playing_order.into());
                    return true;
                }
                Command::SeekBy { .. }
                | Command::SeekTo { .. }
                | Command::SeekPercent { .. }
                | Command::SeekStart
                | Command::SeekFrame(_)
                | Command::StepForward
                | Command::StepBack
                | Command::SpeedBy(_)
                | Command::SpeedReset
                | Command::SpeedSet(_)
                    if !self.timeshift =>
                {
                    self.note = Some(as_it_comes.into());
                    return true;
                }
                Command::TogglePause if self.clock.paused() => {}
                // Paused, the picture is the past the moment after.
                Command::TogglePause | Command::Pause => self.behind = self.timeshift,
                Command::SeekPercent { percent, .. } => {
                    // Within the window.
                    if let Some((oldest, newest)) = self.source.live_window() {
                        self.seek_to(oldest + (newest - oldest) * percent / 100.0 - self.timeline.start, true);
                    }
                    return true;
                }
                Command::SeekStart => {
                    // The oldest frame the window holds.
                    self.seek_to(f64::MIN, true);
                    return true;
                }
                // Any other speed than the input's: the past, to the clock.
                Command::SpeedBy(_) | Command::SpeedSet(_) => self.behind = true,
                _ => {}
            }
        }
        match *command {
            Command::TogglePause if self.clock.paused() => self.resume(now),
            Command::TogglePause | Command::Pause => self.clock.pause(now),
            Command::Resume => self.resume(now),
            Command::SeekBy { seconds, exact } => self.seek_to(self.position() + seconds, exact),
            Command::SeekTo { seconds, exact } => self.seek_to(seconds, exact),
            Command::SeekPercent { percent, exact } => self.seek_to(self.timeline.duration * percent / 100.0, exact),
            Command::SeekStart => self.seek_frame(0),
            Command::SeekFrame(n) => self.seek_frame(n),
            Command::SeekEnd => match self.timeline.frame_count {
                Some(count) => self.seek_frame(count.saturating_sub(1)),
                None => {
                    self.source.seek(SeekTarget::End);
                    self.land(self.timeline.duration, None);
                }
            },
            Command::StepForward => {
                self.clock.pause(now);
                self.behind = self.live && self.timeshift;
                if !self.at_end() {
                    self.forward_steps += 1;
                }
            }
            Command::StepBack => {
                self.clock.pause(now);
                // The frame before the one shown (or before the one a pending step lands on);
                // the decoder knows its neighbours by pts, whether or not its number is exact.
                let from = match (self.landing, self.forward_steps) {
                    (None, 0) => self.shown.filter(|s| !s.preview),
                    _ => None,
                };
                match from {
                    Some(shown) if !(shown.exact && shown.index == 0) => {
                        self.source.seek(SeekTarget::Before(shown.pts));
                        let index = shown.index.checked_sub(1);
                        self.land(
                            shown.seconds - self.timeline.start - self.timeline.frame_duration,
                            index,
                        );
                    }
                    Some(_) => {}
                    None => {
                        if let Some(index) = self.target_index().filter(|&i| i > 0) {
                            self.seek_frame(index - 1);
                        }
                    }
                }
            }
            Command::SpeedBy(factor) => {
                self.clock.set_speed(now, self.clock.speed() * factor);
            }
            Command::SpeedReset => {
                self.clock.set_speed(now, 1.0);
            }
            Command::SpeedSet(speed) => {
                self.clock.set_speed(now, speed);
            }
            Command::AbLoop => self.ab = self.ab.next(self.position()),
            Command::ToggleLoopFile => self.loop_file = !self.loop_file,
            _ => return false,
        }
        true
    }

    /// Tells a live input's decoder whether the viewer follows its newest frames.
    pub(super) fn tell_following(&mut self) {
        if self.live && self.timeshift {
            self.source.follow_live(!self.behind);
        }
    }

    /// A live input's `End`: back to its newest frame, playing at its own speed.
    fn go_live(&mut self, now: Instant) {
        if self.timeshift {
            self.source.seek(SeekTarget::End);
            let newest = self
                .source
                .live_window()
                .map_or(self.position(), |(_, n)| n - self.timeline.start);
            self.land(newest, None);
            self.clock.set_speed(now, 1.0);
        }
        self.resume(now);
    }

    fn resume(&mut self, now: Instant) {
        if self.at_end() && !self.live {
            // Play again from the start, as players do at the end of a file.
            self.seek_frame(0);
        }
        self.clock.resume(now);
    }

    /// Exact or keyframe seek to `position` seconds from the start, clamped to the file.
    pub(super) fn seek_to(&mut self, position: f64, exact: bool) {
        // A live input without timeshift is read once: there is nothing to seek in. With it,
        // the decoder lands within the window it holds.
        let position = match (self.live, self.timeshift) {
            (true, false) => return,
            (true, true) => {
                let (oldest, newest) = self.source.live_window().unwrap_or((f64::MIN, f64::MAX));
                // (Not `clamp`: a stream whose clock went back may have them out of order.)
                (self.timeline.start + position).min(newest).max(oldest) - self.timeline.start
            }
            (false, _) => position.clamp(0.0, self.timeline.duration.max(0.0)),
        };
        let seconds = self.timeline.start + position;
        self.source.seek(SeekTarget::Time { seconds, exact });
        self.land(position, None);
    }

    /// Exact seek to frame `index`.
    pub fn seek_frame(&mut self, index: u64) {
        if self.live && !self.timeshift {
            return;
        }
        self.source.seek(SeekTarget::Frame(index));
        self.land(index as f64 * self.timeline.frame_duration, Some(index));
    }

    /// Forgets the queue: the next frame drawn is the first of the seek's generation.
    fn land(&mut self, position: f64, frame: Option<u64>) {
        let stale = std::mem::take(&mut self.queue);
        for frame in stale {
            self.source.release(frame.slot);
        }
        self.landing = Some(Landing { position, frame });
        self.forward_steps = 0;
        self.ended = false;
        self.tail.on = false;
        self.tail.at = None;
        self.behind = self.live && self.timeshift;
        self.last_number = None;
    }
}
