//! The decode thread's side: one frame of work at a time (landing a seek, following on,
//! filling the cache behind the frame shown while paused), with commands read in between. The
//! frames it sends are uploaded by the upload thread (`upload.rs`); how a seek lands is in
//! `landing.rs`, playing on in `follow.rs`, the paused fill in `fill.rs`, and the GPU frame
//! cache's set-up in `gpu_cache.rs`.

mod fill;
mod follow;
mod gpu_cache;
mod landing;
mod shapes;

pub(super) use gpu_cache::GpuCacheSetup;

use super::preview::{Claim, ClaimState, Job};
use super::upload::Outgoing;
use super::{give_back, Command, DecoderEvent, LANDING_ATTEMPTS, PAUSED_AHEAD, SEEK_KEEP_BYTES, SEEK_KEEP_FRAMES};
use crate::video::cache::FrameCache;
use crate::video::index::FrameIndex;
use crate::video::source::{CatchUp, DecodedFrame, SeekTarget, VideoSource};
use crate::video::stages;
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
    /// Bytes the cache may hold there once the GPU frame cache has grown.
    gpu_budget_grown: usize,
    /// The frames' shapes, where the source gives frames of another size out as they are.
    shapes: Option<shapes::Shapes>,
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
        let shapes = source.follows_sizes().then(|| shapes::Shapes::new(info.shape()));
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
            gpu_budget_grown: 0,
            shapes,
        }
    }

    /// Sets up a GPU frame cache first thing when the thread runs, where the stream may have
    /// one (`keep_frames_on_gpu`).
    pub(super) fn with_gpu_cache(self, gpu: Option<GpuCacheSetup>) -> Self {
        Self { gpu, ..self }
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
                let Ok(command) = stages::DECODE_IDLE.time(|| self.commands.recv()) else {
                    return;
                };
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
                self.forget_held();
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
            Command::Ring(shape, slots) => {
                if let Err(message) = self.take_ring(shape, slots) {
                    self.emit(DecoderEvent::Failed {
                        generation: self.generation,
                        message,
                    });
                    self.task = Task::Ended;
                }
            }
            Command::RingRefused(shape) => self.refuse_ring(shape),
            Command::Live(_) | Command::FollowLive(_) | Command::Tap(_) | Command::TapRoom => {}
            Command::SharePackets(reply) => {
                let _ = reply.send(Err("a file's packets are not shared: it is read again".into()));
            }
            Command::Stop => return false,
        }
        true
    }

    /// Frames the budget holds.
    fn budget_frames(&self) -> u64 {
        let per_frame = self.frame_bytes.max(1) as u64;
        let budget = if self.on_gpu {
            // What the GPU frame cache will hold, not what it has grown to in its first
            // milliseconds: a paused seek made then keeps what its steps back will want.
            self.cache.gpu_budget().max(self.gpu_budget_grown)
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
        // Nothing goes on until the consumer's ring for frames of another shape comes.
        if self.awaiting_ring() {
            return Ok(Progress::Idle);
        }
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
            // The ring full: a run's decoder goes on ahead (`decode_ahead`), where it may.
            if self.source.decode_ahead() {
                return Ok(Progress::Worked);
            }
            return self.read_ahead();
        }
        Ok(Progress::Idle)
    }

    fn end(&mut self) {
        self.close_claim();
        self.task = Task::Ended;
        self.emit(DecoderEvent::EndOfStream {
            generation: self.generation,
        });
    }

    fn emit(&self, event: DecoderEvent) {
        let _ = self.outgoing.send(Outgoing::Event(event));
    }
}
