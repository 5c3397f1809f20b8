//! The decode thread: decodes ahead into a bounded ring of GPU plane textures and answers seeks;
//! an upload thread beside it copies each frame into its slot while the next one decodes. A
//! generation number tags every frame so the consumer can drop frames decoded before its latest
//! seek.
//!
//! Decoded frames also go into a cache (`cache.rs`) within a memory budget, so steps back and
//! forth are answered without decoding. A seek shows the keyframe it starts from as a preview
//! before the exact frame; while paused the thread fills the cache with the frames before the
//! one shown, so stepping back keeps being instant across GOP boundaries. Work goes one frame
//! at a time, with commands read in between: a newer seek replaces an older one at once.

mod live;
mod preview;
mod upload;
mod worker;

use super::cache::{CacheFill, CacheGauge, FrameCache};
use super::convert::PlaneTextures;
use super::index::FrameIndex;
use super::source::{FrameShape, SeekTarget, VideoInfo, VideoSource};
use crate::video::interop::{FramePath, TransferCount, Transfers};
use crate::video::memory::FRAME_MEMORY;
use live::LiveWorker;
pub use live::{LiveWindow, TappedFrame, LIVE_BACKLOG};
use preview::PreviewThread;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;
use upload::Uploader;
use worker::{GpuCacheSetup, Worker};

/// The default memory budget for decoded frames kept for steps (`--cache-size`).
pub const DEFAULT_CACHE_BYTES: usize = 1 << 30;
/// Frames decoded ahead of the one shown while paused: enough for an instant step forward,
/// few enough that a step back doesn't pay for uploads it throws away.
const PAUSED_AHEAD: usize = 1;
/// Frames before an exact seek's target that are decoded in full and kept while playing, so the
/// first steps back from where a seek landed are instant (the paused fill takes over from
/// there): up to 24, and no more than 48 MiB of them, since each one lengthens the seek (4
/// frames at 4K). A seek made while paused keeps all the cache holds behind the frame shown.
const SEEK_KEEP_FRAMES: u64 = 24;
const SEEK_KEEP_BYTES: u64 = 48 << 20;
/// How many times a seek that landed after its target goes further back (1, 2, 4 ... s) before
/// starting from the beginning.
const LANDING_ATTEMPTS: u32 = 6;

/// Ring slot `slot` given back by the consumer: free again (once, and only a slot of the ring's
/// `slot_count`).
fn give_back(free: &mut std::collections::VecDeque<usize>, slot_count: usize, slot: usize) {
    if !free.contains(&slot) && slot < slot_count {
        free.push_back(slot);
    }
}

/// A frame uploaded into ring slot `slot`, ready for the GPU passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadyFrame {
    pub slot: usize,
    pub index: u64,
    /// Whether `index` is exact or estimated (the index hasn't read that far yet).
    pub exact: bool,
    /// The lowest frame number below `index` the decoder may still give out late (a damaged
    /// stream's: `DecodedFrame::awaited`).
    pub awaited: Option<u64>,
    pub pts: i64,
    pub seconds: f64,
    pub generation: u64,
    /// The keyframe a seek decodes from, shown while the exact frame is on its way.
    pub preview: bool,
    /// The picture's coding type (`I`, `P`, `B`, `?`), for reports.
    pub pict_type: char,
    /// Where its packet sat in the file, for reports.
    pub packet: crate::video::source::PacketProps,
    /// A live input's newest frame when it was sent: the viewer is at the live edge.
    pub live_edge: bool,
}

#[derive(Debug, PartialEq)]
pub enum DecoderEvent {
    Frame(ReadyFrame),
    /// No frames after the last one sent for this generation.
    EndOfStream {
        generation: u64,
    },
    /// Decoding stopped on an error (already described in the message).
    Failed {
        generation: u64,
        message: String,
    },
    /// The next frames are of another shape than the ring's (the picture changed size or
    /// sampling; `VideoSource::follow_format_changes`): none comes until the consumer,
    /// done with the frames it was sent, makes a ring of that shape and hands it over
    /// (`DecodeThread::set_ring`).
    Reshaped(FrameShape),
}

enum Command {
    Release(usize),
    Seek {
        target: SeekTarget,
        generation: u64,
    },
    Paused(bool),
    /// The viewer follows a live input's newest frames (not its past).
    FollowLive(bool),
    /// The process holds more frame memory than the cache's budget: make room.
    Trim,
    /// A live input's reader thread decoded a frame, or met the input's end.
    Live(live::Fed),
    /// The consumer's ring for frames of this shape, after a `Reshaped` event: it has let go
    /// of every slot of the ring before.
    Ring(FrameShape, Vec<Arc<PlaneTextures>>),
    /// The consumer can make no ring for frames of this shape (after a `Reshaped`): they are
    /// passed over.
    RingRefused(FrameShape),
    /// Hand a live input's window frames to this reader too.
    Tap(live::Tap),
    /// The tap took frames: it has room for more.
    TapRoom,
    /// Share a live input's packets from the next keyframe read on
    /// (`VideoSource::share_packets`): where they are read from, or why not.
    SharePackets(Sender<SharedPackets>),
    Stop,
}

/// Where a live input's packets shared midway are read from, and the time their timestamps
/// count from (`DecodeThread::share_packets`); or why they are not shared.
pub type SharedPackets = Result<(std::path::PathBuf, f64), String>;

/// The consumer's handle on the decode thread.
pub struct DecodeThread {
    pub info: VideoInfo,
    index: Arc<FrameIndex>,
    commands: Sender<Command>,
    events: Receiver<DecoderEvent>,
    generation: u64,
    /// `generation`, as the upload thread reads it.
    latest: Arc<AtomicU64>,
    paused: bool,
    following_live: bool,
    handle: Option<std::thread::JoinHandle<()>>,
    preview: Option<std::thread::JoinHandle<()>>,
    uploader: Option<std::thread::JoinHandle<()>>,
    cache_gauge: Arc<CacheGauge>,
    frame_path: Arc<std::sync::Mutex<FramePath>>,
    transfers: Arc<Transfers>,
    /// Trims the cache when other frame memory grows while this thread decodes nothing.
    _watch: Option<crate::video::memory::Watch>,
    /// Makes a read the decode thread is blocked in (a stalled stream) give up, to stop it.
    interrupt: crate::video::input::Interrupt,
    /// What a live input's timeshift holds, where it has one.
    live_window: Option<Arc<LiveWindow>>,
}

impl DecodeThread {
    /// Starts decoding from the first frame into `slots` (the ring), keeping up to
    /// `cache_bytes` of decoded frames for steps.
    pub fn spawn(source: VideoSource, queue: wgpu::Queue, slots: Vec<Arc<PlaneTextures>>, cache_bytes: usize) -> Self {
        Self::spawn_notifying(source, queue, slots, cache_bytes, Box::new(|| {}))
    }

    /// As `spawn`, calling `notify` after each event it sends, so a consumer that sleeps (an
    /// event loop) can wake for it instead of polling.
    pub fn spawn_notifying(
        source: VideoSource,
        queue: wgpu::Queue,
        slots: Vec<Arc<PlaneTextures>>,
        cache_bytes: usize,
        notify: Box<dyn Fn() + Send>,
    ) -> Self {
        let info = source.info.clone();
        let index = Arc::clone(source.index());
        let frame_path = source.frame_path();
        let transfers = source.transfers();
        let direct = source.direct_frames();
        let interrupt = source.interrupter();
        // NVDEC frames stay on the GPU where its memory can be shared with CUDA: set up on the
        // decode thread, which allocates the GPU frame cache before its first frame.
        let gpu = slots.first().map(|slot| GpuCacheSetup {
            device: slot.device().clone(),
            passing_through: cache_bytes == 0,
        });
        let (commands, command_rx) = mpsc::channel();
        let (event_tx, events) = mpsc::channel();
        let cache = FrameCache::within(cache_bytes, &FRAME_MEMORY);
        let cache_gauge = cache.gauge();
        let (outgoing_tx, outgoing) = mpsc::channel();
        // Keyframe previews decoded beside the stream's decoder, where it decodes in software.
        let (keyframes, preview) = match source.keyframe_decoder() {
            Some(decoder) => {
                let (jobs_tx, jobs) = mpsc::channel();
                let thread = PreviewThread {
                    decoder,
                    index: Arc::clone(&index),
                    jobs,
                    outgoing: outgoing_tx.clone(),
                };
                let handle = std::thread::Builder::new()
                    .name("histoplay preview".into())
                    .spawn(move || thread.run())
                    .map_err(|e| log::warn!("cannot start the preview thread: {e}"))
                    .ok();
                (handle.is_some().then_some(jobs_tx), handle)
            }
            None => (None, None),
        };
        let trim_asked = Arc::new(AtomicBool::new(false));
        let watch = (cache_bytes > 0).then(|| {
            let (commands, asked) = (commands.clone(), Arc::clone(&trim_asked));
            FRAME_MEMORY.watch(
                cache_bytes,
                Box::new(move || {
                    if !asked.swap(true, Ordering::Relaxed) {
                        let _ = commands.send(Command::Trim);
                    }
                }),
            )
        });
        // A live input in the window (a cache to keep its past in): timeshift, its reader
        // decoding it as it comes whatever the viewer does. Elsewhere (headless runs, which take
        // every frame) a live input is decoded as frames are taken, as a file is.
        let timeshift = info.live && cache_bytes > 0;
        let live_window = timeshift.then(|| Arc::new(LiveWindow::default()));
        let run: Box<dyn FnOnce() + Send> = match &live_window {
            Some(window) => {
                let worker = LiveWorker::new(
                    source,
                    slots.len(),
                    (commands.clone(), command_rx),
                    outgoing_tx,
                    cache,
                    trim_asked,
                    Arc::clone(window),
                );
                Box::new(move || worker.run())
            }
            None => {
                let worker = Worker::new(
                    source,
                    slots.len(),
                    command_rx,
                    outgoing_tx,
                    cache,
                    keyframes,
                    trim_asked,
                )
                .with_gpu_cache(gpu);
                Box::new(move || worker.run())
            }
        };
        let latest = Arc::new(AtomicU64::new(0));
        let uploader = Uploader {
            queue,
            slots,
            outgoing,
            events: event_tx,
            commands: commands.clone(),
            notify,
            latest: Arc::clone(&latest),
            transfers: Arc::clone(&transfers),
            direct,
        };
        let uploader = std::thread::Builder::new()
            .name("histoplay upload".into())
            .spawn(move || uploader.run())
            .map_err(|e| log::error!("cannot start the upload thread: {e}"))
            .ok();
        // Without an upload thread, the decode thread's sends fail at once: it stops.
        let handle = std::thread::Builder::new()
            .name("histoplay decode".into())
            .spawn(run)
            .map_err(|e| log::error!("cannot start the decode thread: {e}"))
            .ok();
        Self {
            info,
            index,
            commands,
            events,
            generation: 0,
            latest,
            paused: false,
            following_live: true,
            handle,
            preview,
            uploader,
            cache_gauge,
            frame_path,
            transfers,
            _watch: watch,
            interrupt,
            live_window,
        }
    }

    /// The oldest and the newest frames' times a live input's timeshift holds; None for a
    /// file, or before the first frame.
    pub fn live_window(&self) -> Option<(f64, f64)> {
        self.live_window.as_ref().and_then(|w| w.read())
    }

    /// Bytes of the stream's frames that have crossed between memory and the GPU so far.
    pub fn transfers(&self) -> TransferCount {
        self.transfers.read()
    }

    /// Which path the stream's frames take to the GPU, and why.
    pub fn frame_path(&self) -> FramePath {
        self.frame_path.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How full the decoded-frame cache is.
    pub fn cache_fill(&self) -> CacheFill {
        self.cache_gauge.read()
    }

    /// The stream's frame index, filling in the background.
    pub fn index(&self) -> &Arc<FrameIndex> {
        &self.index
    }

    /// The generation of frames that answer the latest seek.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Asks for `target`; frames of older generations that arrive afterwards are stale (those
    /// not yet uploaded are given back by the upload thread and never arrive).
    pub fn seek(&mut self, target: SeekTarget) -> u64 {
        self.generation += 1;
        self.latest.store(self.generation, Ordering::Release);
        let _ = self.commands.send(Command::Seek {
            target,
            generation: self.generation,
        });
        self.generation
    }

    /// Playback paused or resumed: paused, the thread decodes only a little ahead and fills the
    /// cache with the frames before the one shown instead.
    pub fn set_paused(&mut self, paused: bool) {
        if paused != self.paused {
            self.paused = paused;
            let _ = self.commands.send(Command::Paused(paused));
        }
    }

    /// Whether the viewer follows a live input's newest frames: then, past `LIVE_BACKLOG`
    /// frames not yet sent, the newest is sent next (those between are passed over); behind
    /// live, every frame is sent in turn.
    pub fn follow_live(&mut self, following: bool) {
        if following != self.following_live {
            self.following_live = following;
            let _ = self.commands.send(Command::FollowLive(following));
        }
    }

    /// Frames go into `slots`, of `shape`, from now on: the answer to `Reshaped`, once no slot
    /// of the ring before is held (the frames sent before it shown or given back).
    pub fn set_ring(&self, shape: FrameShape, slots: Vec<Arc<PlaneTextures>>) {
        let _ = self.commands.send(Command::Ring(shape, slots));
    }

    /// A live input's timeshift window, frame by frame, oldest first, then each frame as it is
    /// read: up to `room` frames wait in the channel, and the reader calls the function
    /// returned each time it has taken one (it is handed more). None without a window.
    #[allow(clippy::type_complexity)]
    pub fn tap_window(&self, room: usize) -> Option<(Receiver<TappedFrame>, Box<dyn Fn() + Send>)> {
        self.live_window.as_ref()?;
        let (frames, taken) = mpsc::sync_channel(room.max(1));
        let _ = self.commands.send(Command::Tap(live::Tap::new(frames)));
        let commands = self.commands.clone();
        let took: Box<dyn Fn() + Send> = Box::new(move || {
            let _ = commands.send(Command::TapRoom);
        });
        Some((taken, took))
    }

    /// A live input's packets, from the next keyframe read on, shared with a reader in this
    /// process (the photosensitivity analysis started midway): the location to read them from,
    /// and the time their timestamps count from (`VideoSource::packets_start`), come on the
    /// channel returned once the input's reader has made it (or why it could not).
    pub fn share_packets(&self) -> Receiver<SharedPackets> {
        let (reply, answer) = mpsc::channel();
        let _ = self.commands.send(Command::SharePackets(reply));
        answer
    }

    /// A live input's timeshift window as the decode thread keeps it (shared, read as it
    /// changes); None without one.
    pub fn window(&self) -> Option<Arc<LiveWindow>> {
        self.live_window.clone()
    }

    /// The answer to `Reshaped` when no ring of that shape can be made: frames of that shape are
    /// passed over (not shown), and the rest go on into the ring there is.
    pub fn refuse_ring(&self, shape: FrameShape) {
        let _ = self.commands.send(Command::RingRefused(shape));
    }

    /// Gives a ring slot back once the GPU work that reads it has been submitted.
    pub fn release(&self, slot: usize) {
        let _ = self.commands.send(Command::Release(slot));
    }

    pub fn try_event(&self) -> Option<DecoderEvent> {
        self.events.try_recv().ok()
    }

    /// Waits up to `timeout` for the next event; None on timeout or when the thread is gone.
    pub fn event_timeout(&self, timeout: Duration) -> Option<DecoderEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// The next current-generation event, releasing the slots of stale frames on the way.
    pub fn next_current(&self, timeout: Duration) -> Option<DecoderEvent> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let event = self.event_timeout(left)?;
            match &event {
                DecoderEvent::Frame(f) if f.generation != self.generation => self.release(f.slot),
                DecoderEvent::EndOfStream { generation } | DecoderEvent::Failed { generation, .. }
                    if *generation != self.generation => {}
                _ => return Some(event),
            }
        }
    }
}

impl Drop for DecodeThread {
    /// Stops the threads and waits for them: the decode thread finishes the frame in hand (a
    /// few milliseconds) and lets go of the file, the upload thread the uploads it was sent, then
    /// of the GPU. The player drops files off its UI thread.
    /// (Where the process ends at once, the waiting is done on a thread of its own:
    /// `process::close_behind`.)
    fn drop(&mut self) {
        let started = std::time::Instant::now();
        let _ = self.commands.send(Command::Stop);
        self.interrupt.interrupt();
        // The preview thread stops once the decode thread has let go of its jobs.
        let handles: Vec<_> = [self.handle.take(), self.preview.take(), self.uploader.take()]
            .into_iter()
            .flatten()
            .collect();
        let path = self.info.path.clone();
        crate::process::close_behind("a decoder", move || {
            for handle in handles {
                let _ = handle.join();
            }
            let joined = started.elapsed();
            // The decoder's contexts and tables went with it: memory the allocator may now
            // return.
            crate::video::memory::trim_allocator();
            log::debug!(
                "decode thread of {} stopped in {:.1} ms, memory trimmed in {:.1} ms",
                path.display(),
                joined.as_secs_f64() * 1e3,
                (started.elapsed() - joined).as_secs_f64() * 1e3
            );
        });
    }
}
