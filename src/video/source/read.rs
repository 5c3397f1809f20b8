//! The read loop: packets from the demuxer to the decoder (recorded and tapped on the way),
//! frames out of it in presentation order, damaged packets counted and passed over.

use super::seek::Landed;
use super::{hardware, tap, Decoded, DecodedFrame, VideoError, VideoSource, ARRIVALS_KEPT};
use crate::video::stages;
use ffmpeg_next as ffmpeg;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The most memory the frames a run's decoder gives ahead of its consumer take outside the pool
/// (`prime_ahead`, `decode_ahead`), and, once the consumer takes them, where the stream has no
/// pool (`decode_ahead`).
const AHEAD_BYTES: usize = 256 << 20;
const AHEAD_UNPOOLED: usize = 32 << 20;

/// Whether `frame` lies in a hardware decoder's surface.
fn hardware_frame(frame: &ffmpeg::frame::Video) -> bool {
    // SAFETY: a frame the decoder gave, read only.
    unsafe { !(*frame.as_ptr()).hw_frames_ctx.is_null() }
}

/// The memory `frame`'s buffers hold.
fn frame_bytes(frame: &ffmpeg::frame::Video) -> usize {
    // SAFETY: a frame the decoder gave; its buffer references are null or valid.
    unsafe {
        let f = &*frame.as_ptr();
        f.buf.iter().filter(|b| !b.is_null()).map(|&b| (*b).size).sum()
    }
}

impl VideoSource {
    pub fn damaged_packets(&self) -> u64 {
        self.damaged_packets
    }

    /// The next frame in presentation order, or None at the end of the stream. Damaged packets
    /// are skipped with a warning: decoding goes on past them. Frames a catch-up run passes
    /// are left out.
    pub fn next_frame(&mut self) -> Result<Option<DecodedFrame>, VideoError> {
        loop {
            match self.next_decoded()? {
                Some(Decoded::Frame(frame)) => return Ok(Some(*frame)),
                Some(Decoded::Passed { .. }) => {}
                None => return Ok(None),
            }
        }
    }

    /// The next frame in presentation order, whole or (on a catch-up run that passes frames)
    /// passed; None at the end of the stream.
    pub fn next_decoded(&mut self) -> Result<Option<Decoded>, VideoError> {
        loop {
            let Some(frame) = self.primed.pop_front().map(|(f, _)| f).or_else(|| self.next_raw()) else {
                // The frames still missing at the end are lost, and those the index knows of
                // after the last given (a file cut inside its last frames).
                let tail = self.missing_at_end();
                for gap in self.gaps.close().into_iter().chain(tail) {
                    self.note_lost(gap);
                }
                self.note_unmarked_concealment();
                return Ok(None);
            };
            if let Some(decoded) = stages::FINISH.time(|| self.finish(frame))? {
                return Ok(Some(decoded));
            }
        }
    }

    /// Decodes the stream's first frame now, for `next_decoded` to give out: the wait for it
    /// (a hardware decoder's session made, frame threads filled with their first frames) then
    /// overlaps whatever its consumer still has to make ready. A live input's frames are taken
    /// as they come, not ahead.
    pub fn prime(&mut self) {
        if self.primed.is_empty() && !self.info.live {
            if let Some(first) = self.next_raw() {
                let outside = self.outside_pool(&first);
                self.primed.push_back((first, outside));
            }
        }
    }

    /// `prime`, then the frames after the first until `ready` is set (the consumer can take
    /// them), `AHEAD_BYTES` of them wait outside the pool of memory the GPU copies from (made
    /// as the GPU opens: its slots are the run's already) or `most` are decoded (a run of a few
    /// frames wants no more): a software decoder then goes on with its frames instead of idling
    /// while the GPU opens and the passes are made (at 1080p60 that is 150 ms, 250 frames;
    /// 256 MB of them cover a third). Going on into the pool as the GPU makes it was slower:
    /// the decoder's threads then take the cores the pipeline is made on (H200, 2026-12-01). A
    /// hardware decoder's frames stay one: they hold surfaces of a pool its decoding needs.
    pub fn prime_ahead(&mut self, ready: &AtomicBool, most: Option<u64>) {
        self.prime();
        let Some((first, _)) = self.primed.front() else { return };
        if hardware_frame(first) {
            return;
        }
        let most = most.map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        while self.outside_bytes() < AHEAD_BYTES && self.primed.len() < most && !ready.load(Ordering::Acquire) {
            let Some(frame) = self.next_raw() else { break };
            let outside = self.outside_pool(&frame);
            self.primed.push_back((frame, outside));
        }
        log::debug!(
            "{} frames decoded ahead, {} of them in the pool, the others {} MB",
            self.primed.len(),
            self.primed.iter().filter(|(_, outside)| *outside == 0).count(),
            self.outside_bytes() >> 20
        );
    }

    /// One more frame decoded ahead of the consumer, for it to take later: the decoder goes on
    /// while its consumer is busy (the GPU's ring full), instead of idling until it takes the
    /// next frame. Only a software decoder of a file, for a run that takes every frame (a
    /// hardware decoder's frames hold surfaces its decoding needs, and a player's decoder
    /// decodes what its seeks ask); into the pool of memory the GPU copies from while it has
    /// slots free beyond those the frame threads need (`DirectFrames::room_ahead`: the pool
    /// grows no larger for it), or without a pool within `AHEAD_UNPOOLED` bytes; never past
    /// `AHEAD_BYTES` outside it. Whether it decoded one (not at the end of the stream).
    pub fn decode_ahead(&mut self) -> bool {
        if !self.ahead_allowed {
            return false;
        }
        let outside = self.outside_bytes();
        let room = match self.direct.pool() {
            Some(_) => outside < AHEAD_BYTES && self.direct.room_ahead(),
            None => outside < AHEAD_UNPOOLED,
        };
        if !room {
            return false;
        }
        let Some(frame) = self.next_raw() else { return false };
        let outside = self.outside_pool(&frame);
        self.primed.push_back((frame, outside));
        true
    }

    /// The bytes the frames decoded ahead hold outside the pool.
    fn outside_bytes(&self) -> usize {
        self.primed.iter().map(|(_, outside)| outside).sum()
    }

    /// The bytes `frame` holds outside the pool of memory the GPU copies from: none where it
    /// was decoded into the pool.
    fn outside_pool(&self, frame: &ffmpeg::frame::Video) -> usize {
        match self.in_pool(frame) {
            true => 0,
            false => frame_bytes(frame),
        }
    }

    /// Whether `frame` was decoded into the pool of memory the GPU copies from.
    fn in_pool(&self, frame: &ffmpeg::frame::Video) -> bool {
        let Some(pool) = self.direct.pool() else { return false };
        // SAFETY: a frame the decoder gave, read only.
        pool.holds(unsafe { (*frame.as_ptr()).data[0] })
    }

    /// The decoder's next frame as it gives it out; None at the end of the stream.
    fn next_raw(&mut self) -> Option<ffmpeg::frame::Video> {
        let mut frame = ffmpeg::frame::Video::empty();
        loop {
            // What FFmpeg logs on this thread as it decodes is its reason for an error that
            // follows ("Invalid buffer size, packet size ... < expected frame_size ...").
            crate::video::ffmpeg_log::clear();
            match stages::RECEIVE.time(|| self.decoder.receive_frame(&mut frame)) {
                Ok(()) => return Some(frame),
                Err(ffmpeg::Error::Eof) => match self.lost.take() {
                    // Drained: the connection is opened again, and the decoder takes packets.
                    Some(lost) if self.reconnect(&lost) => {
                        self.eof_sent = false;
                        continue;
                    }
                    _ => {
                        if let Some(mut lost) = self.live_lost.take() {
                            lost.finish(self.info.path.display());
                        }
                        return None;
                    }
                },
                Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::error::EAGAIN => {}
                Err(e) => {
                    self.note_damage(&crate::video::ffmpeg_log::reason(e));
                    continue;
                }
            }
            if self.eof_sent {
                return None;
            }
            // A quit signal ends the stream where its interrupt says so: FFmpeg's demuxers ask it
            // as they wait, but a filter graph's (`--input-format lavfi`) makes frames for ever
            // without asking.
            if crate::video::input::quitting() && self.interrupted() {
                self.eof_sent = true;
                let _ = self.decoder.send_eof();
                continue;
            }
            let mut packet = ffmpeg::Packet::empty();
            // (A live input's read may wait in the kernel: a pipe whose writer sends nothing.)
            let reading = self.info.live.then(|| self.interrupt.reading());
            let read = stages::READ.time(|| packet.read(&mut self.input));
            drop(reading);
            match read {
                Ok(()) => {
                    if let Some(stream) = self.input.stream(packet.stream()) {
                        let time_base = stream.time_base();
                        if let Some(continuity) = &mut self.continuity {
                            let offset = continuity.apply(&mut packet, time_base);
                            if let (Some(lost), true) = (&mut self.live_lost, packet.stream() == self.stream_index) {
                                lost.packet(&packet, offset, self.info.path.display());
                            }
                        }
                        if let Some(continuity) = &mut self.file_continuity {
                            continuity.apply(&mut packet, time_base);
                        }
                    }
                    for recorder in &self.recorders {
                        recorder.write(&packet);
                    }
                    if let Some((stream, _, window)) = &self.audio_tap {
                        if packet.stream() == *stream {
                            // Kept while it has a reader (the oldest going beyond the budget).
                            match Arc::strong_count(window) > 1 {
                                true => window.push(packet.clone(), tap::PACKET_WINDOW_BYTES),
                                false => self.audio_tap = None,
                            }
                        }
                    }
                    if packet.stream() != self.stream_index {
                        continue;
                    }
                    match self.landed(&packet) {
                        Landed::Send => self.send(&packet),
                        Landed::Pass => {}
                        Landed::Again => self.seek_further_back(),
                    }
                }
                Err(ffmpeg::Error::Eof) if self.run.to_keyframe.is_some() => self.seek_further_back(),
                // A lost connection (its end, or an error) is opened again.
                // A lost connection: the decoder gives out what it holds, then it is opened again.
                Err(e) if self.reconnects_after(&e) => {
                    log::warn!(
                        "{}: the connection was lost ({e}): reconnecting",
                        self.info.path.display()
                    );
                    self.lost = Some(e);
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
                Err(ffmpeg::Error::Eof) => {
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
                Err(e) => {
                    // A read error mid-file: treat what was read as the whole stream. A read
                    // ended by the source's own interrupt, or by a quit signal, is no error.
                    let asked = self.interrupt.is_set() || crate::video::input::quitting();
                    match (asked, self.info.live) {
                        (true, _) => {}
                        (false, true) => log::warn!("{}: the input ended: {e}", self.info.path.display()),
                        (false, false) => log::warn!("{}: read error, stopping there: {e}", self.info.path.display()),
                    }
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
            }
        }
    }

    /// Whether the stream is ending on request (a quit signal, the source stopped): its decoder
    /// gives out what it holds, and frames after a gap whose pictures were never read (B-frames
    /// behind the last P) are no damage.
    pub(super) fn ending_on_request(&self) -> bool {
        self.eof_sent && (self.interrupt.is_set() || crate::video::input::quitting())
    }

    /// The pts a frame at `pts` is given out at: a frame at the time of one the run gave out
    /// already (a muxer that repeats a timestamp, or rounds several to one) would be that frame
    /// to everything that keys frames by time, so it is moved a tick after the latest given
    /// (the index numbers such a stream from its start).
    pub(super) fn untied(&self, pts: i64) -> i64 {
        self.given.untie(pts)
    }

    /// Whether the input's interrupt callback says to stop reading.
    fn interrupted(&self) -> bool {
        // SAFETY: the context is open; its callback and opaque are the ones `input::open` set,
        // which live as long as it.
        unsafe {
            let callback = (*self.input.as_ptr()).interrupt_callback;
            callback.callback.is_some_and(|f| f(callback.opaque) != 0)
        }
    }

    /// Sends one packet to the decoder, deciding whether it may skip it.
    fn send(&mut self, packet: &ffmpeg::Packet) {
        let pts = packet.pts().or(packet.dts());
        if self.run.flush_pending {
            self.run.flush_pending = false;
            // An IDR picture resets what a flush would (references, picture order); the frames
            // the decoder still holds come out before it and are told apart by their pts.
            // Other keyframes (open GOPs) carry the picture order over: those need the flush.
            let idr = self
                .keep_decoder
                .is_some_and(|framing| pts.is_some() && hardware::h264_idr(packet.data().unwrap_or(&[]), framing));
            if idr {
                self.run.stale_filter = Some(BTreeSet::new());
            } else {
                self.decoder.flush();
            }
        }
        if self.info.live {
            if let Some(p) = pts {
                if self.arrivals.len() == ARRIVALS_KEPT {
                    self.arrivals.pop_front();
                }
                self.arrivals.push_back((p, std::time::Instant::now()));
            }
        }
        let run = &mut self.run;
        if run.packets == 0 {
            run.start = pts;
        }
        if let (Some(sent), Some(p)) = (run.stale_filter.as_mut(), pts) {
            sent.insert(p);
        }
        run.packets += 1;
        // A frame may be skipped when it is older than the frames kept, and a later frame at
        // or before the limit has been seen (so it can't be the one landed on).
        let skip = match (run.catch_up, pts) {
            (Some(c), Some(p)) => {
                let skip = p < c.keep_from && run.newest_before_limit.is_some_and(|q| q > p);
                if p <= c.limit {
                    run.newest_before_limit = Some(run.newest_before_limit.map_or(p, |q| q.max(p)));
                }
                skip
            }
            _ => false,
        };
        if skip {
            if let Some(p) = pts {
                run.skippable.insert(p);
            }
        }
        self.apply_skipping(skip);
        crate::video::ffmpeg_log::clear();
        if let Err(e) = stages::SEND.time(|| self.decoder.send_packet(packet)) {
            self.note_damage(&crate::video::ffmpeg_log::reason(e));
        }
    }

    /// Frames that never came (`frames::missing`'s words), warned of with a count of their own:
    /// which frames a damaged stream lost is what its reader needs, however many packets' errors
    /// were said before.
    pub(super) fn note_missing(&mut self, missing: &dyn std::fmt::Display) {
        self.missing_warned += 1;
        match self.missing_warned {
            1..=3 => log::warn!("{}: damaged video, playing on: {missing}", self.info.path.display()),
            4 => log::warn!(
                "{}: more frames missing; further warnings suppressed",
                self.info.path.display()
            ),
            _ => {}
        }
    }

    pub(super) fn note_damage(&mut self, error: &dyn std::fmt::Display) {
        self.damaged_packets += 1;
        if self.damaged_packets <= 3 {
            log::warn!("{}: damaged video, playing on: {error}", self.info.path.display());
        } else if self.damaged_packets == 4 {
            log::warn!("{}: more damage; further warnings suppressed", self.info.path.display());
        }
    }
}

/// The pts a decode run has given its frames out at (the latest `GIVEN_KEPT` of them), to tell
/// a timestamp given twice.
#[derive(Debug, Default)]
pub(super) struct GivenPts {
    pts: BTreeSet<i64>,
}

/// Pts kept: far more than a stream's frames out of order.
const GIVEN_KEPT: usize = 256;

impl GivenPts {
    /// `pts`, or where the run gave a frame out at it already, a tick after the latest given.
    fn untie(&self, pts: i64) -> i64 {
        // (The latest given is the set's last: only the earliest are let go.)
        match self.pts.last() {
            Some(&latest) if self.pts.contains(&pts) => latest + 1,
            _ => pts,
        }
    }

    /// A frame was given out at `pts` (as untied).
    pub(super) fn note(&mut self, pts: i64) {
        self.pts.insert(pts);
        if self.pts.len() > GIVEN_KEPT {
            self.pts.pop_first();
        }
    }

    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }
}
