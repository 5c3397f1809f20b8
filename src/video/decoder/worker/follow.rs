//! Playing on: the frame after the cursor, from the cache or the decoder, handed to the upload
//! thread in a free ring slot; and, while frames come from the cache, the decoder taken ahead
//! to the end of the cached run.

use super::landing::Landing;
use super::{Progress, Task, Worker};
use crate::video::decoder::upload::Outgoing;
use crate::video::decoder::ReadyFrame;
use crate::video::source::Decoded;
use std::sync::Arc;

impl Worker {
    /// Decodes the next frame into the cache (which stays within its budget around `anchor`,
    /// keeping `keep`), unless the run passes it; its pts, or None at the end. A frame not
    /// `sending` on at once is copied back from a hardware decoder here.
    pub(super) fn decode(&mut self, anchor: i64, keep: Option<i64>, sending: bool) -> Result<Option<i64>, String> {
        let frame = match self.source.next_decoded().map_err(|e| e.to_string())? {
            Some(Decoded::Frame(frame)) => {
                // Kept for later, unless the cache has it already (then it goes, and with it
                // any hold on the decoder's memory).
                if !sending && !self.cache.contains(frame.pts) && frame.in_device() {
                    frame.video()?;
                }
                frame
            }
            Some(Decoded::Passed { pts }) => return Ok(Some(pts)),
            None => {
                self.decoder_ended = true;
                return Ok(None);
            }
        };
        let pts = frame.pts;
        self.note_frame_size(&frame);
        self.note_shape(pts);
        let previous = frame.previous;
        self.cache.insert(pts, Arc::new(*frame), previous);
        let keep: Vec<i64> = [Some(pts), keep, self.cursor].into_iter().flatten().collect();
        self.cache.evict(anchor, &keep);
        Ok(Some(pts))
    }

    /// Sends the frame after the cursor: from the cache, from the decoder if it is right after
    /// the cursor, else after repositioning the decoder there.
    pub(super) fn follow(&mut self) -> Result<Progress, String> {
        let Some(cursor) = self.cursor else {
            return Ok(Progress::Idle);
        };
        if let Some(next) = self.cache.next_of(cursor) {
            self.deliver(next, false)?;
            return Ok(Progress::Worked);
        }
        // The decoder is needed: a fill under way stops.
        self.fill = None;
        if self.source.position() != Some(cursor) {
            if self.decoder_ended && self.source.position().is_some_and(|p| p < cursor) {
                self.end();
                return Ok(Progress::Worked);
            }
            // Decode up to the cursor again, without showing it.
            let landing = Landing::quiet(cursor, Some(cursor), cursor);
            self.position(&landing);
            self.task = Task::Land(landing);
            return Ok(Progress::Worked);
        }
        match self.decode(cursor, None, true)? {
            Some(pts) => self.deliver(pts, false)?,
            None => self.end(),
        }
        Ok(Progress::Worked)
    }

    /// While playing frames from the cache, with time to spare (the ring is full): take the
    /// decoder to the last frame of the cached run ahead, a frame at a time, so that following
    /// on past that run decodes the next frame straight away instead of seeking and catching up
    /// through a GOP while the picture waits.
    pub(super) fn read_ahead(&mut self) -> Result<Progress, String> {
        let Some(cursor) = self.cursor else {
            return Ok(Progress::Idle);
        };
        let Some(tail) = self.cache.chain_ahead(cursor) else {
            return Ok(Progress::Idle);
        };
        if self.source.position() == Some(tail) || (self.ahead == Some(tail) && self.ahead_done) {
            return Ok(Progress::Idle);
        }
        if self.ahead != Some(tail) {
            let landing = Landing::quiet(tail, Some(tail), tail);
            log::debug!("playing from the cache: taking the decoder to the run's end at pts {tail}");
            self.position(&landing);
            self.ahead = Some(tail);
            return Ok(Progress::Worked);
        }
        // The frames on the way are in the cache already (or not wanted: keeping them would
        // evict the run's far end, the very frame the decoder is headed for).
        let pts = match self.source.next_decoded().map_err(|e| e.to_string())? {
            Some(Decoded::Frame(frame)) => {
                let pts = frame.pts;
                self.note_shape(pts);
                if self.cache.contains(pts) {
                    // Only the link to the frame before it is new: the frame itself goes.
                    let previous = frame.previous;
                    self.cache.insert(pts, Arc::new(*frame), previous);
                }
                pts
            }
            Some(Decoded::Passed { pts }) => pts,
            None => {
                self.decoder_ended = true;
                self.ahead_done = true;
                return Ok(Progress::Worked);
            }
        };
        if pts >= tail {
            // There (or past it, where the run had no frame at its pts): decode every frame on.
            self.source.catch_up(None);
            self.ahead_done = true;
        }
        Ok(Progress::Worked)
    }

    /// Sends the cached frame at `pts` as the next frame of this generation.
    pub(super) fn deliver(&mut self, pts: i64, preview: bool) -> Result<(), String> {
        if !preview {
            self.close_claim();
        }
        self.send(pts, preview)?;
        if !preview {
            self.cursor = Some(pts);
            self.filled_for = None;
            self.cache.evict(pts, &[pts]);
        }
        Ok(())
    }

    /// Hands the cached frame at `pts` to the upload thread, as the next frame of this
    /// generation, in the first free ring slot.
    fn send(&mut self, pts: i64, preview: bool) -> Result<(), String> {
        let slot = self.free.pop_front().ok_or("no free ring slot")?;
        self.send_in(slot, pts, preview)
    }

    /// As `send`, into ring slot `slot` (already taken from the free ones).
    pub(super) fn send_in(&mut self, slot: usize, pts: i64, preview: bool) -> Result<(), String> {
        let Some(layout) = self.fits_ring(slot, pts, preview) else {
            return Ok(());
        };
        let frame = Arc::clone(self.cache.get(pts).ok_or("a frame left the cache before it was sent")?);
        // The index may have read further since the frame was decoded (a stream the index
        // does not read, a live one, is numbered as its frames come: that number stands).
        let (index, exact) = match self.index.number_at(pts) {
            number if number.exact || !frame.exact => (number.n, number.exact),
            _ => (frame.index, true),
        };
        let ready = ReadyFrame {
            slot,
            index,
            exact,
            awaited: frame.awaited,
            pts,
            seconds: frame.seconds,
            generation: self.generation,
            preview,
            pict_type: frame.pict_type,
            packet: frame.packet,
            live_edge: false,
        };
        self.outgoing
            .send(Outgoing::Frame { frame, layout, ready })
            .map_err(|_| "the player stopped listening".to_string())
    }
}
