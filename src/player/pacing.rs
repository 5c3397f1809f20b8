//! Frame pacing: which decoded frames are due or late at a media time, how early to start
//! drawing one, and times as the OSD shows them. Pure, so pacing and dropping are tested without
//! a window or a GPU.

use std::time::Duration;

/// What to do with the queue of decoded frames (oldest first) at a given media time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    /// Frames at the front that a later due frame supersedes: release them without drawing.
    pub drop: usize,
    /// Whether the frame after the dropped ones is due and should be drawn now.
    pub show: bool,
}

/// Frames whose pts is at or before `horizon` (the media time the next present will be seen at)
/// are due; all but the newest due one are late and dropped, so the picture never drifts behind
/// the clock however slow a frame was.
pub fn pick(queue_seconds: impl IntoIterator<Item = f64>, horizon: f64) -> Pick {
    let due = queue_seconds.into_iter().take_while(|&s| s <= horizon).count();
    Pick {
        drop: due.saturating_sub(1),
        show: due > 0,
    }
}

pub use crate::video::decoder::LIVE_BACKLOG;

/// A live input shows each frame as soon as it arrives, in order, with no clock to wait for;
/// past `LIVE_BACKLOG` frames waiting, all but the newest are dropped.
pub fn pick_live(queued: usize) -> Pick {
    Pick {
        drop: if queued > LIVE_BACKLOG { queued - 1 } else { 0 },
        show: queued > 0,
    }
}

/// Wall time a present is expected to take, learned from the last few: frames are started this
/// much before their due time so they reach the screen on time.
#[derive(Clone, Copy, Debug)]
pub struct RenderLead {
    average: Duration,
}

impl Default for RenderLead {
    fn default() -> Self {
        Self {
            average: Duration::from_millis(2),
        }
    }
}

impl RenderLead {
    /// Adds one measured frame (wake-up to present).
    pub fn record(&mut self, took: Duration) {
        // An exponential average over ~8 frames: quick to follow, deaf to one slow frame.
        let (old, new) = (self.average.as_secs_f64(), took.as_secs_f64().min(1.0));
        self.average = Duration::from_secs_f64(old + (new - old) / 8.0);
    }

    /// How early to start a frame of `frame_duration` (media seconds) at `speed`: the expected
    /// render time, but never more than half a frame, so a slow renderer drops frames instead
    /// of showing each one early.
    pub fn lead(&self, frame_duration: f64, speed: f64) -> Duration {
        let half_frame = Duration::from_secs_f64((frame_duration / speed / 2.0).clamp(0.0, 1.0));
        self.average.min(half_frame) + Duration::from_millis(1)
    }
}

pub use crate::clock::format_time;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_frames_show_in_turn_until_a_backlog_then_the_newest() {
        assert_eq!(pick_live(0), Pick { drop: 0, show: false });
        assert_eq!(pick_live(1), Pick { drop: 0, show: true });
        assert_eq!(pick_live(2), Pick { drop: 0, show: true });
        assert_eq!(pick_live(3), Pick { drop: 2, show: true });
        assert_eq!(pick_live(10), Pick { drop: 9, show: true });
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn only_the_newest_due_frame_is_shown() {
        let frames = [1.0, 1.1, 1.2, 1.3];
        assert_eq!(pick(frames, 0.9), Pick { drop: 0, show: false });
        assert_eq!(pick(frames, 1.0), Pick { drop: 0, show: true });
        assert_eq!(pick(frames, 1.15), Pick { drop: 1, show: true });
        // Far behind: everything but the last frame is late.
        assert_eq!(pick(frames, 9.0), Pick { drop: 3, show: true });
        assert_eq!(pick([], 9.0), Pick { drop: 0, show: false });
    }

    #[test]
    fn the_render_lead_learns_but_stays_under_half_a_frame() {
        let mut lead = RenderLead::default();
        for _ in 0..100 {
            lead.record(ms(10));
        }
        let l = lead.lead(1.0 / 30.0, 1.0);
        assert!(l > ms(10) && l < ms(12), "{l:?}");
        // At 8x a 30 fps frame lasts ~4 ms of wall time: lead at most half of it.
        assert!(lead.lead(1.0 / 30.0, 8.0) <= ms(4));
    }
}
