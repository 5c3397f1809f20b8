//! The decode thread's side: one frame of work at a time (landing a seek, following on,
//! filling the cache behind the frame shown while paused), with commands read in between. The
//! frames it sends are uploaded by the upload thread (`upload.rs`); how a seek lands is in
//! `landing.rs`.

mod landing;

use super::preview::{Claim, ClaimState, Job};
use super::upload::Outgoing;
use super::{
    give_back, Command, DecoderEvent, ReadyFrame, LANDING_ATTEMPTS, PAUSED_AHEAD, SEEK_KEEP_BYTES, SEEK_KEEP_FRAMES,
};
use crate::video::cache::{FrameCache, MIN_FRAMES, PASS_THROUGH_FRAMES};
use crate::video::convert::plane_rows;
use crate::video::format::PlaneLayout;
use crate::video::index::FrameIndex;
use crate::video::interop::{self, GpuFrameStore};
use crate::video::source::{CatchUp, Decoded, DecodedFrame, SeekTarget, VideoSource};
use landing::Landing;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

enum Task {
    Land(Landing),
    /// The landing is over at this pts: deliver it once a ring slot is free.
    Deliver(Landing, i64),
    /// Send the frames after the cursor, as ring slots allow.
    Follow,
    /// The end was reported for this generation.
    Ended,
}

enum Progress {
    Worked,
    /// Nothing to do until a command arrives.
    Idle,
}

pub(super) struct Worker {
    source: VideoSource,
    index: Arc<FrameIndex>,
    /// Ring slots: `free` ones may take a frame.
    slot_count: usize,
    free: VecDeque<usize>,
    commands: Receiver<Command>,
    /// Frames to upload and events, to the upload thread.
    outgoing: Sender<Outgoing>,
    generation: u64,
    cache: FrameCache<Arc<DecodedFrame>>,
    task: Task,
    /// While paused: a run filling the cache before the frames already there.
    fill: Option<Landing>,
    /// The (cursor, earliest frame) a fill last finished at, so it isn't repeated.
    filled_for: Option<(i64, Option<i64>)>,
    /// While playing from the cache: the end of the cached run ahead that the decoder is being
    /// taken to, and whether it got there (or as far as it could).
    ahead: Option<i64>,
    ahead_done: bool,
    /// Pts of the last frame sent in this generation.
    cursor: Option<i64>,
    paused: bool,
    /// The decoder's current run reached the end of the stream.
    decoder_ended: bool,
    /// Bytes of one decoded frame (for the budget in frames).
    frame_bytes: usize,
    /// Whether that frame was in the GPU frame cache (then its budget counts).
    on_gpu: bool,
    ticks_per_frame: f64,
    /// A pts past the stream's end, as far as the container tells.
    end_pts: i64,
    /// Keyframes to the preview thread, where there is one.
    keyframes: Option<Sender<Job>>,
    /// The ring slot set aside for the landing's preview.
    claim: Option<Arc<Claim>>,
    /// A `Trim` is on its way (cleared as it is handled).
    trim_asked: Arc<std::sync::atomic::AtomicBool>,
    /// The GPU frame cache to set up first, where the stream may have one.
    gpu: Option<GpuCacheSetup>,
    /// Frames of the GPU frame cache in flight besides the cache's.
    in_flight_on_gpu: usize,
}

/// What the decode thread needs to set up a GPU frame cache.
pub(super) struct GpuCacheSetup {
    pub device: wgpu::Device,
    /// The frame cache has no budget: frames only pass through (headless runs).
    pub passing_through: bool,
}

impl Worker {
    pub(super) fn new(
        mut source: VideoSource,
        slot_count: usize,
        commands: Receiver<Command>,
        outgoing: Sender<Outgoing>,
        cache: FrameCache<Arc<DecodedFrame>>,
        keyframes: Option<Sender<Job>>,
        trim_asked: Arc<std::sync::atomic::AtomicBool>,
    ) -> Self {
        // Frames sent on at once are copied back from a hardware decoder on the upload thread.
        source.defer_copies();
        let info = &source.info;
        let ticks_per_frame =
            (info.frame_duration * f64::from(info.time_base.1) / f64::from(info.time_base.0)).max(1.0);
        let end_pts = match info.duration {
            d if d > 0.0 => info.start_pts.unwrap_or(0).saturating_add(info.pts_at(d + 1.0)),
            _ => i64::MAX / 4,
        };
        Self {
            index: Arc::clone(source.index()),
            source,
            slot_count,
            free: (0..slot_count).collect(),
            commands,
            outgoing,
            generation: 0,
            cache,
            task: Task::Land(Landing::first_frame()),
            fill: None,
            filled_for: None,
            ahead: None,
            ahead_done: false,
            cursor: None,
            paused: false,
            decoder_ended: false,
            frame_bytes: 0,
            on_gpu: false,
            ticks_per_frame,
            end_pts,
            keyframes,
            claim: None,
            trim_asked,
            gpu: None,
            in_flight_on_gpu: 0,
        }
    }

    /// Sets up a GPU frame cache first thing when the thread runs, where the stream may have
    /// one (`keep_frames_on_gpu`).
    pub(super) fn with_gpu_cache(self, gpu: Option<GpuCacheSetup>) -> Self {
        Self { gpu, ..self }
    }

    /// Sets up the GPU frame cache for an NVDEC stream: its frames are then copied there on the
    /// device as decoded, and shown from there. It holds the cache's frames (its budget, or
    /// only what passes through a cache of no budget) and those on their way to the ring
    /// besides; where it can't be made, the frame path says why.
    fn keep_frames_on_gpu(&mut self, setup: GpuCacheSetup) {
        let Some(cuda) = self.source.cuda_stream() else {
            return;
        };
        let format = self.source.info.format;
        if !matches!(format.layout, PlaneLayout::Nv12 | PlaneLayout::P010) {
            self.source
                .copy_through_memory("its frames are converted to another layout in memory".into());
            return;
        }
        let frame_bytes = usize::try_from(plane_rows(&format).1).unwrap_or(usize::MAX).max(1);
        // The ring's slots in flight, the frame decoded meanwhile and the one sent.
        let in_flight = self.slot_count + 2;
        let budget = interop::gpu_cache_budget(&setup.device);
        let cached = if setup.passing_through {
            PASS_THROUGH_FRAMES
        } else {
            // No more than the stream has frames.
            let info = &self.source.info;
            let stream_frames = match info.duration {
                d if d > 0.0 && info.frame_duration > 0.0 => {
                    ((d / info.frame_duration).ceil() as usize).saturating_add(1)
                }
                _ => usize::MAX,
            };
            (budget / frame_bytes)
                .saturating_sub(in_flight)
                .min(stream_frames)
                .max(MIN_FRAMES)
        };
        let frames = cached + in_flight;
        if !setup.passing_through && frames.saturating_mul(frame_bytes) > budget {
            self.source.copy_through_memory(format!(
                "the GPU frame cache's budget ({} MiB) holds fewer than the {frames} frames it needs",
                budget >> 20
            ));
            return;
        }
        self.in_flight_on_gpu = in_flight;
        // Made with the first frame the decoder gives out on the GPU: none is made for a stream
        // it decodes in software after all, or whose frames are resized.
        let device = setup.device;
        self.source.keep_on_gpu_from(Box::new(move || {
            let started = std::time::Instant::now();
            let store = GpuFrameStore::new(&device, cuda, format, frames, in_flight + MIN_FRAMES)?;
            log::info!(
                "NVDEC frames stay on the GPU: a GPU frame cache of {} frames ({} MiB), its first {} in {:.0} ms",
                store.capacity,
                (store.capacity as u64 * store.slot_bytes) >> 20,
                store.ready(),
                started.elapsed().as_secs_f64() * 1e3
            );
            Ok(store)
        }));
    }

    pub(super) fn run(mut self) {
        if let Some(setup) = self.gpu.take() {
            self.keep_frames_on_gpu(setup);
        }
        self.work();
        // The decoder goes with the thread (a hardware decoder's session and surfaces too).
        let stopping = std::time::Instant::now();
        self.cache.clear();
        let cleared = stopping.elapsed();
        let Worker { source, .. } = self;
        drop(source);
        log::debug!(
            "decoder closed in {:.1} ms (its cache cleared in {:.1} ms)",
            stopping.elapsed().as_secs_f64() * 1e3,
            cleared.as_secs_f64() * 1e3
        );
    }

    /// Decodes and answers commands until told to stop or nobody listens.
    fn work(&mut self) {
        loop {
            // Commands first: a seek storm only ever acts on the latest request.
            while let Ok(command) = self.commands.try_recv() {
                if !self.handle(command) {
                    return;
                }
            }
            let progress = match self.step() {
                Ok(progress) => progress,
                Err(message) => {
                    self.emit(DecoderEvent::Failed {
                        generation: self.generation,
                        message,
                    });
                    self.task = Task::Ended;
                    Progress::Idle
                }
            };
            if let Progress::Idle = progress {
                let Ok(command) = self.commands.recv() else { return };
                if !self.handle(command) {
                    return;
                }
            }
        }
    }

    /// Applies a command; false means stop.
    fn handle(&mut self, command: Command) -> bool {
        match command {
            Command::Release(slot) => give_back(&mut self.free, self.slot_count, slot),
            Command::Seek { target, generation } => {
                self.close_claim();
                self.generation = generation;
                self.cursor = None;
                // A fill under way goes on unless the seek needs the decoder.
                self.task = Task::Land(self.landing(target));
            }
            Command::Paused(paused) => self.paused = paused,
            Command::Trim => {
                self.trim_asked.store(false, std::sync::atomic::Ordering::Relaxed);
                // Never the frames the work under way still needs: the one shown, the one a
                // landing is about to deliver, the one it has landed on so far.
                let (pending, candidate) = match &self.task {
                    Task::Deliver(landing, pts) => (Some(*pts), landing.candidate),
                    Task::Land(landing) => (None, landing.candidate),
                    _ => (None, None),
                };
                let keep: Vec<i64> = [self.cursor, pending, candidate].into_iter().flatten().collect();
                if let Some(&anchor) = keep.first() {
                    self.cache.evict(anchor, &keep);
                }
            }
            // Only a live input's worker has a reader, and a live edge.
            Command::Live(_)
            | Command::FollowLive(_)
            | Command::Ring(..)
            | Command::RingRefused(_)
            | Command::Tap(_)
            | Command::TapRoom => {}
            Command::Stop => return false,
        }
        true
    }

    /// The decode run a seek needs.
    fn landing(&self, target: SeekTarget) -> Landing {
        let tpf = self.ticks_per_frame;
        // While paused the viewer is inspecting: a seek keeps all of its run the budget holds, so
        // that steps back from where it lands never wait for the paused fill to decode the GOP
        // again (nothing is ahead of it yet: the frames steps back pass over take their share of
        // the budget from the farthest behind as they come). While playing it keeps a few, each
        // of which lengthens the seek.
        let frame_bytes = self.frame_bytes.max(1) as u64;
        let seek_keep = if self.paused {
            self.budget_frames()
        } else {
            SEEK_KEEP_FRAMES.min(SEEK_KEEP_BYTES / frame_bytes)
        };
        let (limit, exact, preview, keep) = match target {
            SeekTarget::Time { seconds, exact } => (self.source.info.pts_at(seconds), exact, true, seek_keep),
            SeekTarget::Frame(n) => {
                let pts = if self.source.exact_numbers() {
                    self.index.wait_pts_of(n)
                } else {
                    self.index.pts_of(n)
                };
                let pts = pts.unwrap_or_else(|| match self.index.frame_count() {
                    // Past the end: the last frame.
                    Some(_) => i64::MAX,
                    None => self.index.estimated_pts_of(n),
                });
                (pts, true, true, seek_keep)
            }
            // A step back keeps everything it decodes, for the steps after it.
            SeekTarget::Before(pts) => (pts.saturating_sub(1), true, false, self.budget_frames()),
            SeekTarget::End => (i64::MAX, true, false, seek_keep),
        };
        // At least the frame before the limit is kept whole: the target is at or after it.
        let keep = keep.min(self.budget_frames()).max(1);
        let number = self.index.number_at(limit);
        let target = number.exact.then(|| self.index.pts_of(number.n)).flatten();
        Landing {
            limit,
            exact,
            target,
            keep_from: limit.saturating_sub((keep as f64 * tpf) as i64),
            preview,
            claimed: false,
            deliver: true,
            started: false,
            decoded: 0,
            candidate: None,
            attempt: 0,
            asked: Some(std::time::Instant::now()),
        }
    }

    /// Frames the budget holds.
    fn budget_frames(&self) -> u64 {
        let per_frame = self.frame_bytes.max(1) as u64;
        let budget = if self.on_gpu {
            self.cache.gpu_budget()
        } else {
            self.cache.budget()
        };
        (budget as u64 / per_frame).max(2)
    }

    /// Frames the budget holds behind the one shown: three quarters of them, as eviction shares
    /// it out (`cache::AHEAD_WEIGHT`).
    fn behind_frames(&self) -> u64 {
        (self.budget_frames() * 3 / 4).max(2)
    }

    fn in_flight(&self) -> usize {
        self.slot_count - self.free.len()
    }

    fn step(&mut self) -> Result<Progress, String> {
        // A landing decodes while the ring is full (the consumer is still giving back the
        // slots of the frames before the seek); only its frame waits for a slot.
        match self.task {
            Task::Land(landing) => return self.land(landing),
            Task::Deliver(..) if self.free.is_empty() => return Ok(Progress::Idle),
            Task::Deliver(landing, pts) => {
                self.settle(landing, pts)?;
                return Ok(Progress::Worked);
            }
            Task::Follow | Task::Ended => {}
        }
        let may_send = !self.free.is_empty() && (!self.paused || self.in_flight() < PAUSED_AHEAD);
        if matches!(self.task, Task::Follow) && may_send {
            return self.follow();
        }
        if self.paused {
            return self.fill_behind();
        }
        if matches!(self.task, Task::Follow) {
            return self.read_ahead();
        }
        Ok(Progress::Idle)
    }

    /// Decodes the next frame into the cache (which stays within its budget around `anchor`,
    /// keeping `keep`), unless the run passes it; its pts, or None at the end. A frame not
    /// `sending` on at once is copied back from a hardware decoder here.
    fn decode(&mut self, anchor: i64, keep: Option<i64>, sending: bool) -> Result<Option<i64>, String> {
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
        let previous = frame.previous;
        self.cache.insert(pts, Arc::new(frame), previous);
        let keep: Vec<i64> = [Some(pts), keep, self.cursor].into_iter().flatten().collect();
        self.cache.evict(anchor, &keep);
        Ok(Some(pts))
    }

    /// Sends the frame after the cursor: from the cache, from the decoder if it is right after
    /// the cursor, else after repositioning the decoder there.
    fn follow(&mut self) -> Result<Progress, String> {
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
    fn read_ahead(&mut self) -> Result<Progress, String> {
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
                if self.cache.contains(pts) {
                    // Only the link to the frame before it is new: the frame itself goes.
                    let previous = frame.previous;
                    self.cache.insert(pts, Arc::new(frame), previous);
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

    /// While paused: decode the frames before the earliest of those kept behind the cursor,
    /// one frame per call, so steps back stay instant (`fill_missing` says when, and how many).
    fn fill_behind(&mut self) -> Result<Progress, String> {
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

    /// Notes a decoded frame's size (the budgets in frames follow it) and, for one in the GPU
    /// frame cache, the room the GPU frame cache has grown to: what its slots hold beyond
    /// those in flight.
    fn note_frame_size(&mut self, frame: &DecodedFrame) {
        self.frame_bytes = frame.byte_size() + frame.gpu_byte_size();
        self.on_gpu = frame.gpu_byte_size() > 0;
        match self.source.gpu_store() {
            Some(store) => {
                let slot_bytes = usize::try_from(store.slot_bytes).unwrap_or(usize::MAX);
                let room = store.ready().saturating_sub(self.in_flight_on_gpu);
                self.cache.set_gpu_budget(room.saturating_mul(slot_bytes));
            }
            // Turned off after a failed copy: the frames still there go, and the store with them.
            None => self.cache.set_gpu_budget(0),
        }
    }

    /// Decodes the next frame of a paused fill into the cache, which holds it behind `cursor`
    /// as far as the budget allows (`FrameCache::insert_behind`); frames before `keep_from` are
    /// not the fill's (the run's first frame is given in full wherever it lies). Its pts, or
    /// None at the end.
    fn decode_behind(&mut self, cursor: i64, keep_from: i64) -> Result<Option<i64>, String> {
        let frame = match self.source.next_decoded().map_err(|e| e.to_string())? {
            Some(Decoded::Frame(frame)) if frame.pts >= keep_from => frame,
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
        let previous = frame.previous;
        self.cache.insert_behind(pts, Arc::new(frame), previous, cursor);
        Ok(Some(pts))
    }

    fn end(&mut self) {
        self.close_claim();
        self.task = Task::Ended;
        self.emit(DecoderEvent::EndOfStream {
            generation: self.generation,
        });
    }

    /// Sends the cached frame at `pts` as the next frame of this generation.
    fn deliver(&mut self, pts: i64, preview: bool) -> Result<(), String> {
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
    fn send_in(&mut self, slot: usize, pts: i64, preview: bool) -> Result<(), String> {
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
            pts,
            seconds: frame.seconds,
            generation: self.generation,
            preview,
            pict_type: frame.pict_type,
            packet: frame.packet,
            live_edge: false,
        };
        let layout = self.source.info.format.layout;
        self.outgoing
            .send(Outgoing::Frame { frame, layout, ready })
            .map_err(|_| "the player stopped listening".to_string())
    }

    fn emit(&self, event: DecoderEvent) {
        let _ = self.outgoing.send(Outgoing::Event(event));
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
