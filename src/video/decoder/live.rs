//! The decode thread of a live input in the window: timeshift. A reader thread decodes the
//! input as it arrives, whatever the viewer does, into this thread's frame cache; this thread
//! sends frames on from the cache, the newest as it comes while the viewer is at the live
//! edge, and answers seeks and steps within what the cache holds. The cache lets go of the
//! oldest frames first, so it holds the last stretch of the input its budget allows: the
//! window that pause, steps and seeks move in.
//!
//! The input is never sought and never waits: a viewer paused for a minute loses only the
//! frames older than the window, and a stalled stream holds up no seek into the past.

use super::upload::Outgoing;
use super::{give_back, Command, DecoderEvent, ReadyFrame, SharedPackets, PAUSED_AHEAD};
use crate::video::cache::FrameCache;
use crate::video::convert::PlaneTextures;
use crate::video::source::{Decoded, DecodedFrame, FrameShape, SeekTarget, VideoSource};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, TrySendError};
use std::sync::Arc;

/// Frames of a live input waiting to be shown beyond which the newest is shown next: a frame
/// that arrives while the one before is still waiting (arrival jitter) is shown in turn; more
/// than this are a backlog the machine did not keep up with.
pub const LIVE_BACKLOG: usize = 2;

/// The span of the input the cache holds, in seconds of the stream's clock, as the player
/// reads it (to show how far behind live it is, and to seek by percent within the window).
#[derive(Default)]
pub struct LiveWindow {
    /// f64 bits of the oldest and the newest frames' times.
    oldest: AtomicU64,
    newest: AtomicU64,
    known: AtomicBool,
}

impl LiveWindow {
    /// The oldest and the newest frames' times, once a frame has come.
    pub fn read(&self) -> Option<(f64, f64)> {
        self.known.load(Ordering::Acquire).then(|| {
            (
                f64::from_bits(self.oldest.load(Ordering::Relaxed)),
                f64::from_bits(self.newest.load(Ordering::Relaxed)),
            )
        })
    }

    fn set(&self, oldest: f64, newest: f64) {
        self.oldest.store(oldest.to_bits(), Ordering::Relaxed);
        self.newest.store(newest.to_bits(), Ordering::Relaxed);
        self.known.store(true, Ordering::Release);
    }
}

/// A frame of a live input's timeshift window handed to a reader of its own (the histogram
/// timeline), with the format its planes are in.
pub struct TappedFrame {
    pub frame: Arc<DecodedFrame>,
    pub format: crate::video::format::FrameFormat,
}

/// A reader of the window's frames: each frame kept, oldest first, as fast as it takes them.
pub(super) struct Tap {
    frames: SyncSender<TappedFrame>,
    /// The key of the last frame handed over.
    cursor: Option<i64>,
}

impl Tap {
    pub(super) fn new(frames: SyncSender<TappedFrame>) -> Self {
        Self { frames, cursor: None }
    }
}

/// What the reader thread tells the live worker, through its command queue.
pub(super) enum Fed {
    Frame(Box<DecodedFrame>),
    /// The frames from the next one on are of this shape (the picture changed mid-stream).
    Shape(FrameShape),
    /// The input ended (with the error that ended it, if one did).
    Ended(Option<String>),
}

pub(super) struct LiveWorker {
    /// Handed to the reader thread when the worker starts.
    source: Option<VideoSource>,
    /// Asks the reader thread to share the input's packets (`Command::SharePackets`).
    share: Option<Sender<Sender<SharedPackets>>>,
    /// The worker's own command queue, for the reader thread.
    feed: Option<Sender<Command>>,
    interrupt: crate::video::input::Interrupt,
    slot_count: usize,
    free: VecDeque<usize>,
    commands: Receiver<Command>,
    outgoing: Sender<Outgoing>,
    generation: u64,
    cache: FrameCache<Arc<DecodedFrame>>,
    /// A seek to answer once a frame and a ring slot are there (the first frame is one: the
    /// newest).
    target: Option<SeekTarget>,
    /// The cache's key of the last frame sent in this generation.
    cursor: Option<i64>,
    /// The cache's key of the newest frame read.
    newest: Option<i64>,
    paused: bool,
    /// The viewer follows the newest frames: a backlog is passed over.
    following: bool,
    /// The input ended, with the error that ended it if one did.
    ended: Option<Option<String>>,
    /// The generation the end was told to.
    end_told: Option<u64>,
    trim_asked: Arc<AtomicBool>,
    window: Arc<LiveWindow>,
    /// The shapes of the frames kept: each from the key of its first frame on (the first from
    /// before the oldest), so that a window spanning a change sends each frame with its own.
    shapes: VecDeque<(i64, FrameShape)>,
    /// The shape of the frames the reader sends next, for the next frame kept.
    incoming: Option<FrameShape>,
    /// The shape of the ring's slots.
    ring_shape: FrameShape,
    /// A ring of another shape was asked for: nothing is sent until it comes.
    awaiting_ring: bool,
    /// Shapes the consumer could make no ring for: their frames are passed over.
    refused: Vec<FrameShape>,
    /// Where the window's frames are handed as they are kept (the histogram timeline).
    tap: Option<Tap>,
}

impl LiveWorker {
    pub(super) fn new(
        source: VideoSource,
        slot_count: usize,
        commands: (Sender<Command>, Receiver<Command>),
        outgoing: Sender<Outgoing>,
        cache: FrameCache<Arc<DecodedFrame>>,
        trim_asked: Arc<AtomicBool>,
        window: Arc<LiveWindow>,
    ) -> Self {
        let shape = source.info.shape();
        Self {
            shapes: VecDeque::from([(i64::MIN, shape.clone())]),
            incoming: None,
            ring_shape: shape,
            awaiting_ring: false,
            refused: Vec::new(),
            tap: None,
            interrupt: source.interrupter(),
            source: Some(source),
            share: None,
            feed: Some(commands.0),
            slot_count,
            free: (0..slot_count).collect(),
            commands: commands.1,
            outgoing,
            generation: 0,
            cache,
            target: Some(SeekTarget::End),
            cursor: None,
            newest: None,
            paused: false,
            following: true,
            ended: None,
            end_told: None,
            trim_asked,
            window,
        }
    }

    pub(super) fn run(mut self) {
        let (Some(source), Some(feed)) = (self.source.take(), self.feed.take()) else {
            return;
        };
        // Its hardware frames are copied to memory as they are decoded (the cache keeps them
        // for as long as the window lasts, not the decoder's few surfaces).
        source.copy_through_memory("a live input's frames are kept in memory for timeshift".into());
        let (share, shares) = std::sync::mpsc::channel();
        self.share = Some(share);
        let reader = std::thread::Builder::new()
            .name("histoplay live read".into())
            .spawn(move || read(source, &feed, &shares));
        match reader {
            Ok(reader) => {
                self.work();
                // The reader gives up the read it waits in, and ends.
                self.interrupt.interrupt();
                self.cache.clear();
                let _ = reader.join();
            }
            Err(e) => self.emit(DecoderEvent::Failed {
                generation: self.generation,
                message: format!("cannot start the live input's reader: {e}"),
            }),
        }
    }

    fn work(&mut self) {
        loop {
            while let Ok(command) = self.commands.try_recv() {
                if !self.handle(command) {
                    return;
                }
            }
            if !self.step() {
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
                self.generation = generation;
                self.cursor = None;
                self.target = Some(target);
                // Into the past, every frame in turn from there (before the player says so).
                self.following = matches!(target, SeekTarget::End);
            }
            Command::Paused(paused) => self.paused = paused,
            Command::FollowLive(following) => self.following = following,
            Command::Trim => {
                self.trim_asked.store(false, Ordering::Relaxed);
                self.evict();
            }
            Command::Live(Fed::Frame(frame)) => {
                self.keep(*frame);
                self.feed_tap();
            }
            Command::Tap(tap) => {
                self.tap = Some(tap);
                self.feed_tap();
            }
            Command::TapRoom => self.feed_tap(),
            Command::SharePackets(reply) => match &self.share {
                Some(share) => {
                    // (Gone, the reader has ended: the reply's sender goes with the request.)
                    let _ = share.send(reply);
                }
                None => {
                    let _ = reply.send(Err("the live input is not being read".into()));
                }
            },
            Command::Live(Fed::Shape(shape)) => self.incoming = Some(shape),
            Command::Ring(shape, slots) => self.take_ring(shape, slots),
            Command::RingRefused(shape) => {
                self.awaiting_ring = false;
                if !self.refused.contains(&shape) {
                    self.refused.push(shape);
                }
            }
            Command::Live(Fed::Ended(error)) => self.ended = Some(error),
            Command::Stop => return false,
        }
        true
    }

    /// Keeps a frame the reader decoded, as the newest, and lets go of the oldest beyond the
    /// budget.
    fn keep(&mut self, frame: DecodedFrame) {
        // Keyed after the newest whatever its pts says (a stream whose clock goes back, or
        // stands still), so that every frame is kept, in the order it came.
        let pts = match self.newest {
            Some(newest) if frame.pts <= newest => newest + 1,
            _ => frame.pts,
        };
        if let Some(shape) = self.incoming.take() {
            self.shapes.push_back((pts, shape));
        }
        let previous = self.newest;
        self.cache.insert(pts, Arc::new(frame), previous);
        self.newest = Some(pts);
        self.evict();
    }

    /// Within the budget, the oldest frames first; never the one last sent, the one before it
    /// (paused, the one on screen: steps back go on from it), nor the newest.
    fn evict(&mut self) {
        let Some(newest) = self.newest else { return };
        let before = self
            .cursor
            .and_then(|c| self.cache.nearest_at_or_before(c.saturating_sub(1)));
        let keep: Vec<i64> = [Some(newest), self.cursor, before].into_iter().flatten().collect();
        self.cache.evict(newest, &keep);
        if let (Some((oldest_key, oldest)), Some((_, newest))) = (self.cache.oldest(), self.cache.newest()) {
            self.window.set(oldest.seconds, newest.seconds);
            // Shapes no frame kept has any longer.
            while self.shapes.get(1).is_some_and(|&(from, _)| from <= oldest_key) {
                self.shapes.pop_front();
            }
        }
    }

    /// The shape of the kept frame at `key`.
    fn shape_of(&self, key: i64) -> &FrameShape {
        let (_, shape) = (self.shapes.iter().rev())
            .find(|(from, _)| *from <= key)
            .unwrap_or(&self.shapes[0]);
        shape
    }

    /// Whether the frame at `key` may go into the ring as it is; when it is of another shape,
    /// the consumer is asked (once) for a ring of its shape, and nothing is sent until it comes.
    fn ring_fits(&mut self, key: i64) -> bool {
        if self.awaiting_ring {
            return false;
        }
        let shape = self.shape_of(key);
        if *shape == self.ring_shape {
            return true;
        }
        let event = DecoderEvent::Reshaped(shape.clone());
        self.awaiting_ring = true;
        self.emit(event);
        false
    }

    /// Whether the frame at `key` is of a shape the consumer could make no ring for.
    fn refused(&self, key: i64) -> bool {
        !self.refused.is_empty() && self.refused.contains(self.shape_of(key))
    }

    /// Hands the tap the frames kept after the last it took (oldest first: those the window
    /// lost meanwhile are passed over), for as long as it has room.
    fn feed_tap(&mut self) {
        let Some(tap) = &self.tap else { return };
        let mut cursor = tap.cursor;
        loop {
            let next = match cursor {
                Some(key) => self.cache.after(key),
                None => self.cache.oldest().map(|(key, _)| key),
            };
            let Some((key, frame)) = next.and_then(|key| Some((key, Arc::clone(self.cache.get(key)?)))) else {
                break;
            };
            let format = self.shape_of(key).format;
            match tap.frames.try_send(TappedFrame { frame, format }) {
                Ok(()) => cursor = Some(key),
                Err(TrySendError::Full(_)) => break,
                Err(TrySendError::Disconnected(_)) => {
                    self.tap = None;
                    return;
                }
            }
        }
        if let Some(tap) = &mut self.tap {
            tap.cursor = cursor;
        }
    }

    /// The consumer's ring of `shape`: every slot of the one before was given back.
    fn take_ring(&mut self, shape: FrameShape, slots: Vec<Arc<PlaneTextures>>) {
        self.ring_shape = shape;
        self.awaiting_ring = false;
        self.slot_count = slots.len();
        self.free = (0..slots.len()).collect();
        let _ = self.outgoing.send(Outgoing::Ring(slots));
    }

    /// One piece of work; false when there is none until a command comes.
    fn step(&mut self) -> bool {
        if let Some(target) = self.target {
            let Some(pts) = self.landing(target) else {
                // Nothing read yet: the input's end is all there is to tell.
                return self.tell_end();
            };
            if self.refused(pts) {
                // Not shown: playing goes on from it.
                (self.target, self.cursor) = (None, Some(pts));
                return true;
            }
            if self.free.is_empty() || !self.ring_fits(pts) {
                return false;
            }
            self.target = None;
            return self.deliver(pts);
        }
        let Some(cursor) = self.cursor else { return false };
        let in_flight = self.slot_count - self.free.len();
        let may_send = !self.free.is_empty() && (!self.paused || in_flight < PAUSED_AHEAD);
        match self.cache.after(cursor) {
            // The next frame kept (past any the window lost meanwhile); following live, the
            // newest past a backlog, as the window would show it.
            Some(next) => {
                let backlog = self.following && self.cache.later(cursor).nth(LIVE_BACKLOG).is_some();
                let next = match (backlog, self.newest) {
                    (true, Some(newest)) => newest,
                    _ => next,
                };
                if self.refused(next) {
                    self.cursor = Some(next);
                    return true;
                }
                may_send && self.ring_fits(next) && self.deliver(next)
            }
            None => self.tell_end(),
        }
    }

    /// The frame a seek lands on, within the window: the nearest the window holds to where it
    /// asks, the oldest before it, the newest after it.
    fn landing(&self, target: SeekTarget) -> Option<i64> {
        let (oldest, _) = self.cache.oldest()?;
        let newest = self.newest?;
        Some(match target {
            SeekTarget::End => newest,
            SeekTarget::Before(pts) => self.cache.nearest_at_or_before(pts.saturating_sub(1)).unwrap_or(oldest),
            SeekTarget::Time { seconds, .. } => self
                .cache
                .frames()
                .take_while(|(_, frame)| frame.seconds <= seconds + 1e-9)
                .last()
                .map_or(oldest, |(pts, _)| pts),
            SeekTarget::Frame(n) => self
                .cache
                .frames()
                .find(|(_, frame)| frame.index >= n)
                .map_or(newest, |(pts, _)| pts),
        })
    }

    /// Tells this generation the input ended, once, when it has: false when there is nothing
    /// to do.
    fn tell_end(&mut self) -> bool {
        let Some(error) = &self.ended else { return false };
        if self.end_told == Some(self.generation) {
            return false;
        }
        self.end_told = Some(self.generation);
        let generation = self.generation;
        self.emit(match error {
            Some(message) => DecoderEvent::Failed {
                generation,
                message: message.clone(),
            },
            None => DecoderEvent::EndOfStream { generation },
        });
        true
    }

    /// Sends the cached frame at `pts` on, as the next of this generation; false if the player
    /// stopped listening.
    fn deliver(&mut self, pts: i64) -> bool {
        let Some(frame) = self.cache.get(pts).cloned() else {
            return false;
        };
        let Some(slot) = self.free.pop_front() else {
            return false;
        };
        self.cursor = Some(pts);
        let ready = ReadyFrame {
            slot,
            // Numbered as they came: the index does not read a live input.
            index: frame.index,
            exact: frame.exact,
            awaited: frame.awaited,
            pts,
            seconds: frame.seconds,
            generation: self.generation,
            preview: false,
            pict_type: frame.pict_type,
            packet: frame.packet,
            live_edge: Some(pts) == self.newest,
        };
        let layout = self.shape_of(pts).format.layout;
        self.outgoing.send(Outgoing::Frame { frame, layout, ready }).is_ok()
    }

    fn emit(&self, event: DecoderEvent) {
        let _ = self.outgoing.send(Outgoing::Event(event));
    }
}

/// The reader thread: decodes the input as it comes, for as long as it lasts or the worker
/// listens; between frames, shares its packets where asked (`shares`).
fn read(mut source: VideoSource, feed: &Sender<Command>, shares: &Receiver<Sender<SharedPackets>>) {
    let (mut format, mut aspect) = (source.info.format, source.info.display_aspect);
    loop {
        while let Ok(reply) = shares.try_recv() {
            let shared = source.share_packets().map(|path| (path, source.packets_start()));
            let _ = reply.send(shared.map_err(|e| e.to_string()));
        }
        let fed = match source.next_decoded() {
            Ok(Some(Decoded::Frame(frame))) => {
                // Decoded in another shape than the frames before it (`follow_format_changes`).
                if (source.info.format, source.info.display_aspect) != (format, aspect) {
                    (format, aspect) = (source.info.format, source.info.display_aspect);
                    if feed.send(Command::Live(Fed::Shape(source.info.shape()))).is_err() {
                        return;
                    }
                }
                // Copied back now: kept, it would hold one of the decoder's few surfaces.
                let copied = match frame.in_device() {
                    true => frame.video().map(|_| ()),
                    false => Ok(()),
                };
                match copied {
                    Ok(()) => Fed::Frame(frame),
                    Err(e) => Fed::Ended(Some(e)),
                }
            }
            Ok(Some(Decoded::Passed { .. })) => continue,
            Ok(None) => Fed::Ended(None),
            Err(e) => Fed::Ended(Some(e.to_string())),
        };
        let last = matches!(fed, Fed::Ended(_));
        if feed.send(Command::Live(fed)).is_err() || last {
            return;
        }
    }
}
