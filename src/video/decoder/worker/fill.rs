//! The paused fill: while the viewer is paused, the frames before those kept behind the frame
//! shown are decoded into the cache, one per step, so that steps back stay instant.

use super::landing::Landing;
use super::{Progress, Worker};
use crate::video::source::Decoded;
use std::sync::Arc;

impl Worker {
    /// While paused: decode the frames before the earliest of those kept behind the cursor,
    /// one frame per call, so steps back stay instant (`fill_missing` says when, and how many).
    pub(super) fn fill_behind(&mut self) -> Result<Progress, String> {
        let Some(cursor) = self.cursor else {
            return Ok(Progress::Idle);
        };
        let fill = match self.fill {
            Some(fill) => fill,
            None => {
                let (behind, head) = self.cache.chain_behind(cursor);
                let Some(head) = head else {
                    return Ok(Progress::Idle);
                };
                let wanted = self.behind_frames();
                if self.cache.is_first(head) || self.filled_for == Some((cursor, Some(head))) {
                    return Ok(Progress::Idle);
                }
                let Some(missing) = fill_missing(behind as u64, wanted) else {
                    return Ok(Progress::Idle);
                };
                self.filled_for = Some((cursor, Some(head)));
                let limit = head - 1;
                let keep_from = limit.saturating_sub((missing as f64 * self.ticks_per_frame) as i64);
                let landing = Landing::quiet(limit, None, keep_from);
                self.position(&landing);
                landing
            }
        };
        let head = fill.limit + 1;
        match self.decode_behind(cursor, fill.keep_from)? {
            Some(pts) if pts < head => {
                let first = fill.decoded == 0;
                if first && self.is_stream_start(pts) {
                    self.cache.mark_first(pts);
                }
                self.fill = Some(Landing {
                    decoded: fill.decoded + 1,
                    ..fill
                });
            }
            Some(pts) => {
                // Reached the head (now linked to the frame before it), or the stream has
                // nothing before it.
                if fill.decoded == 0 && pts == head {
                    self.cache.mark_first(head);
                }
                self.source.catch_up(None);
                self.fill = None;
            }
            None => self.fill = None,
        }
        Ok(Progress::Worked)
    }

    /// Decodes the next frame of a paused fill into the cache, which holds it behind `cursor`
    /// as far as the budget allows (`FrameCache::insert_behind`); frames before `keep_from` are
    /// not the fill's (the run's first frame is given in full wherever it lies). Its pts, or
    /// None at the end.
    fn decode_behind(&mut self, cursor: i64, keep_from: i64) -> Result<Option<i64>, String> {
        let frame = match self.source.next_decoded().map_err(|e| e.to_string())? {
            Some(Decoded::Frame(frame)) if frame.pts >= keep_from => *frame,
            Some(Decoded::Frame(frame)) => return Ok(Some(frame.pts)),
            Some(Decoded::Passed { pts }) => return Ok(Some(pts)),
            None => {
                self.decoder_ended = true;
                return Ok(None);
            }
        };
        // Kept for later, unless the cache has it already (then only its link is new).
        if !self.cache.contains(frame.pts) && frame.in_device() {
            frame.video()?;
        }
        let pts = frame.pts;
        self.note_frame_size(&frame);
        self.note_shape(pts);
        let previous = frame.previous;
        self.cache.insert_behind(pts, Arc::new(frame), previous, cursor);
        Ok(Some(pts))
    }
}

/// How many frames a paused fill decodes before the chain behind the frame shown, which holds
/// `behind` of the `wanted` frames the budget holds behind it: none while it holds more than half
/// of them. A fill decodes the GOP's frames before the chain's head once more, and first moves
/// the decoder there, which holds up the answer to a step asked meanwhile by tens of
/// milliseconds (the frame threads' flush and start). Started whenever the chain is a frame
/// short, it would start again as soon as the one before ends, for the frames the steps back
/// took meanwhile, or as the budget moves with the process's resident memory: a run of steps
/// back, all answered from the cache, would wait for the decoder every few steps.
fn fill_missing(behind: u64, wanted: u64) -> Option<u64> {
    (behind <= wanted / 2).then(|| wanted - behind)
}

#[cfg(test)]
mod tests {
    use super::fill_missing;

    #[test]
    fn a_run_of_back_steps_starts_no_fill_while_half_the_frames_behind_are_left() {
        // A paused landing kept the 150 frames its budget holds (112 of them behind the frame
        // shown, once steps back have left frames ahead of it). 60 steps back from there start
        // no fill, though the chain is short of 112 from step 39 on: each would decode the GOP
        // again from its keyframe for the few frames the steps took, and hold up a step.
        let wanted = 112;
        for step in 0..60 {
            assert_eq!(fill_missing(150 - step, wanted), None, "step {step}");
        }
        // Down to half: a fill for all that is missing.
        assert_eq!(fill_missing(57, wanted), None);
        assert_eq!(fill_missing(56, wanted), Some(56));
        assert_eq!(fill_missing(1, wanted), Some(111));
        // The least budget (2 frames behind): the frame shown alone starts one.
        assert_eq!(fill_missing(1, 2), Some(1));
        assert_eq!(fill_missing(2, 2), None);
    }
}
