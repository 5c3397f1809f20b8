//! The decode thread: decodes ahead into a bounded ring of GPU plane textures, uploading each
//! frame from this thread, and answers seeks. A generation number tags every frame so the
//! consumer can drop frames decoded before its latest seek.

use super::convert::PlaneTextures;
use super::source::{DecodedFrame, SeekTarget, VideoInfo, VideoSource};
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Bytes of decoded frames kept for instant back-steps: 10 frames of 1080p 4:2:0, 2 of 4K.
const CACHE_BYTES: usize = 32 << 20;

/// A frame uploaded into ring slot `slot`, ready for the GPU passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadyFrame {
    pub slot: usize,
    pub index: u64,
    pub pts: i64,
    pub seconds: f64,
    pub generation: u64,
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
}

enum Command {
    Release(usize),
    Seek { target: SeekTarget, generation: u64 },
    Stop,
}

/// The consumer's handle on the decode thread.
pub struct DecodeThread {
    pub info: VideoInfo,
    commands: Sender<Command>,
    events: Receiver<DecoderEvent>,
    generation: u64,
    handle: Option<JoinHandle<()>>,
}

impl DecodeThread {
    /// Starts decoding from the first frame into `slots` (the ring).
    pub fn spawn(source: VideoSource, queue: wgpu::Queue, slots: Vec<Arc<PlaneTextures>>) -> Self {
        Self::spawn_notifying(source, queue, slots, Box::new(|| {}))
    }

    /// As `spawn`, calling `notify` after each event it sends, so a consumer that sleeps (an
    /// event loop) can wake for it instead of polling.
    pub fn spawn_notifying(
        source: VideoSource,
        queue: wgpu::Queue,
        slots: Vec<Arc<PlaneTextures>>,
        notify: Box<dyn Fn() + Send>,
    ) -> Self {
        let info = source.info.clone();
        let (commands, command_rx) = mpsc::channel();
        let (event_tx, events) = mpsc::channel();
        let worker = Worker {
            source,
            queue,
            free: (0..slots.len()).collect(),
            slots,
            commands: command_rx,
            events: event_tx,
            notify,
            generation: 0,
            skip_before: None,
            cache: VecDeque::new(),
            cursor: None,
            landing_check: None,
            ended: false,
        };
        let handle = std::thread::Builder::new()
            .name("histoplay decode".into())
            .spawn(move || worker.run())
            .expect("spawning the decode thread");
        Self {
            info,
            commands,
            events,
            generation: 0,
            handle: Some(handle),
        }
    }

    /// The generation of frames that answer the latest seek.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Asks for `target`; frames of older generations that arrive afterwards are stale.
    pub fn seek(&mut self, target: SeekTarget) -> u64 {
        self.generation += 1;
        let _ = self.commands.send(Command::Seek {
            target,
            generation: self.generation,
        });
        self.generation
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
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Stop);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

struct Worker {
    source: VideoSource,
    queue: wgpu::Queue,
    slots: Vec<Arc<PlaneTextures>>,
    free: VecDeque<usize>,
    commands: Receiver<Command>,
    events: Sender<DecoderEvent>,
    notify: Box<dyn Fn() + Send>,
    generation: u64,
    /// After an exact seek: frames before this pts are decoded but not shown.
    skip_before: Option<i64>,
    /// The most recently decoded frames, consecutive, oldest first; the decoder is positioned
    /// just after the newest.
    cache: VecDeque<DecodedFrame>,
    /// Frame number to deliver next from the cache, when it is inside the cache.
    cursor: Option<u64>,
    /// After an exact seek, until its first frame: how many times it went further back.
    landing_check: Option<u32>,
    ended: bool,
}

impl Worker {
    fn run(mut self) {
        loop {
            // Commands first: a seek storm only ever acts on the latest request.
            while let Ok(command) = self.commands.try_recv() {
                if !self.handle(command) {
                    return;
                }
            }
            if self.ended || self.free.is_empty() {
                match self.commands.recv() {
                    Ok(command) => {
                        if self.handle(command) {
                            continue;
                        }
                        return;
                    }
                    Err(_) => return,
                }
            }
            if let Err(message) = self.deliver_next() {
                self.emit(DecoderEvent::Failed {
                    generation: self.generation,
                    message,
                });
                self.ended = true;
            }
        }
    }

    /// Applies a command; false means stop.
    fn handle(&mut self, command: Command) -> bool {
        match command {
            Command::Release(slot) => {
                if !self.free.contains(&slot) && slot < self.slots.len() {
                    self.free.push_back(slot);
                }
            }
            Command::Seek { target, generation } => {
                self.generation = generation;
                self.ended = false;
                self.seek(target);
            }
            Command::Stop => return false,
        }
        true
    }

    fn seek(&mut self, target: SeekTarget) {
        let exact = !matches!(target, SeekTarget::Time { exact: false, .. });
        let Some((index, pts)) = self.source.resolve(target) else {
            // No index: restart and count from the beginning.
            self.cache.clear();
            self.cursor = None;
            self.landing_check = None;
            self.source.seek_before(i64::MIN / 2);
            self.source.catch_up_to(None);
            self.skip_before = match target {
                SeekTarget::Time { seconds, .. } => Some(self.source.info.pts_at(seconds)),
                SeekTarget::Frame(_) => None,
            };
            return;
        };
        if exact && self.cached(index) {
            self.cursor = Some(index);
            self.skip_before = None;
            return;
        }
        // Stepping back past the cache decodes every frame on the way, so that the steps after
        // it find their frames cached; other exact seeks skip what they can to land sooner.
        let back_step = self.cache.front().is_some_and(|f| f.index == index + 1);
        self.cache.clear();
        self.cursor = None;
        self.source.seek_before(pts);
        self.source.catch_up_to((exact && !back_step).then_some(pts));
        self.skip_before = exact.then_some(pts);
        self.landing_check = exact.then_some(0);
    }

    fn cached(&self, index: u64) -> bool {
        match (self.cache.front(), self.cache.back()) {
            (Some(first), Some(last)) => (first.index..=last.index).contains(&index),
            _ => false,
        }
    }

    /// Sends the next frame: from the cache when the cursor is inside it, else decoded.
    fn deliver_next(&mut self) -> Result<(), String> {
        if let Some(cursor) = self.cursor {
            if let Some(at) = self.cache.iter().position(|f| f.index == cursor) {
                self.cursor = Some(cursor + 1);
                let slot = self.upload(at)?;
                return self.send(slot, at);
            }
            self.cursor = None;
        }
        loop {
            let Some(frame) = self.source.next_frame().map_err(|e| e.to_string())? else {
                self.ended = true;
                self.emit(DecoderEvent::EndOfStream {
                    generation: self.generation,
                });
                return Ok(());
            };
            // A seek that landed after its target (a demuxer may index by dts, or a keyframe
            // may be missing) goes back further: 1, 2, 4 ... seconds, then from the start.
            if let (Some(target), Some(attempt)) = (self.skip_before, self.landing_check.take()) {
                if frame.pts > target && attempt < 6 {
                    let back = self.source.info.pts_at(f64::from(1u32 << attempt)).max(1);
                    let earlier = if attempt == 5 {
                        i64::MIN / 2
                    } else {
                        target.saturating_sub(back)
                    };
                    self.source.seek_before(earlier);
                    self.landing_check = Some(attempt + 1);
                    continue;
                }
            }
            let skipped = self.skip_before.is_some_and(|target| frame.pts < target);
            self.remember(frame);
            if skipped {
                continue;
            }
            self.skip_before = None;
            let at = self.cache.len() - 1;
            let slot = self.upload(at)?;
            return self.send(slot, at);
        }
    }

    fn remember(&mut self, frame: DecodedFrame) {
        if self.cache.back().is_some_and(|last| last.index + 1 != frame.index) {
            self.cache.clear();
        }
        self.cache.push_back(frame);
        let mut bytes: usize = self.cache.iter().map(DecodedFrame::byte_size).sum();
        while self.cache.len() > 1 && bytes > CACHE_BYTES {
            bytes -= self.cache.front().map_or(0, DecodedFrame::byte_size);
            self.cache.pop_front();
        }
    }

    fn upload(&mut self, at: usize) -> Result<usize, String> {
        let slot = self.free.pop_front().ok_or("no free ring slot")?;
        let frame = &self.cache[at];
        let layout = self.source.info.format.layout;
        self.slots[slot]
            .upload(&self.queue, &frame.planes(layout))
            .map_err(|e| e.to_string())?;
        Ok(slot)
    }

    fn send(&mut self, slot: usize, at: usize) -> Result<(), String> {
        let frame = &self.cache[at];
        let ready = ReadyFrame {
            slot,
            index: frame.index,
            pts: frame.pts,
            seconds: frame.seconds,
            generation: self.generation,
        };
        self.events
            .send(DecoderEvent::Frame(ready))
            .map_err(|_| "the player stopped listening".to_string())?;
        (self.notify)();
        Ok(())
    }

    fn emit(&self, event: DecoderEvent) {
        if self.events.send(event).is_ok() {
            (self.notify)();
        }
    }
}
