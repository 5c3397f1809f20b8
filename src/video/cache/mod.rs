//! Decoded frames kept for instant steps, by pts, within a memory budget. Each frame knows the
//! pts of the frame before it when one decode run showed both, so a step back or forward is
//! answered from here whenever the neighbour is known. Frames far from where the viewer is go
//! first, those behind (for steps back) kept over those ahead. The budget covers all the
//! process's frame memory (`video::memory`): what the decoders hold in flight and the uploads'
//! staging leave the cache less room.

mod budget;
#[cfg(test)]
mod tests;

pub use budget::{MIN_FRAMES, PASS_THROUGH_FRAMES};

use super::memory::FrameMemory;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How full a cache is, readable from other threads (the player's stats overlay).
#[derive(Debug, Default)]
pub struct CacheGauge {
    bytes: AtomicUsize,
    frames: AtomicUsize,
    budget: AtomicUsize,
    gpu_bytes: AtomicUsize,
    gpu_budget: AtomicUsize,
}

/// A reading of a `CacheGauge`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheFill {
    pub bytes: usize,
    pub frames: usize,
    pub budget: usize,
    /// Bytes of frames held in the GPU frame cache, and its budget (0 without one).
    pub gpu_bytes: usize,
    pub gpu_budget: usize,
}

impl CacheGauge {
    pub fn read(&self) -> CacheFill {
        CacheFill {
            bytes: self.bytes.load(Ordering::Relaxed),
            frames: self.frames.load(Ordering::Relaxed),
            budget: self.budget.load(Ordering::Relaxed),
            gpu_bytes: self.gpu_bytes.load(Ordering::Relaxed),
            gpu_budget: self.gpu_budget.load(Ordering::Relaxed),
        }
    }
}

/// Something with a size in memory.
pub trait ByteSize {
    /// Bytes in system memory.
    fn bytes(&self) -> usize;
    /// Bytes in the GPU frame cache.
    fn gpu_bytes(&self) -> usize {
        0
    }
}

impl ByteSize for super::source::DecodedFrame {
    fn bytes(&self) -> usize {
        self.byte_size()
    }

    fn gpu_bytes(&self) -> usize {
        self.gpu_byte_size()
    }
}

impl<F: ByteSize> ByteSize for std::sync::Arc<F> {
    fn bytes(&self) -> usize {
        F::bytes(self)
    }

    fn gpu_bytes(&self) -> usize {
        F::gpu_bytes(self)
    }
}

struct Entry<F> {
    frame: F,
    /// Pts of the frame shown just before this one, when known.
    previous: Option<i64>,
}

pub struct FrameCache<F> {
    entries: BTreeMap<i64, Entry<F>>,
    bytes: usize,
    budget: usize,
    /// Bytes of the frames held in the GPU frame cache, and what it may hold of them (the GPU
    /// frame cache's slots less those frames on their way take).
    gpu_bytes: usize,
    gpu_budget: usize,
    /// The process's frame memory, when the budget covers all of it: the frames the decoders
    /// hold in flight, the uploads and other streams take their room from the cache's.
    memory: Option<&'static FrameMemory>,
    /// The largest frame held so far.
    largest: usize,
    /// The process's resident memory (`memory::resident_recent`), where the budget covers it.
    resident: fn() -> Option<usize>,
    /// The last resident reading seen, and the frame memory held then (`held_when_read`).
    reading: Cell<Option<(usize, usize)>>,
    /// Pts of the stream's first frame, once seen: nothing comes before it.
    first: Option<i64>,
    gauge: Arc<CacheGauge>,
}

impl<F: ByteSize> FrameCache<F> {
    /// A cache of frames within `budget` bytes of its own.
    pub fn new(budget: usize) -> Self {
        let gauge = Arc::new(CacheGauge::default());
        gauge.budget.store(budget, Ordering::Relaxed);
        Self {
            entries: BTreeMap::new(),
            bytes: 0,
            budget,
            gpu_bytes: 0,
            gpu_budget: 0,
            memory: None,
            largest: 0,
            resident: || None,
            reading: Cell::new(None),
            first: None,
            gauge,
        }
    }

    /// A cache that keeps all of `memory` within `budget`: it holds what the rest leaves.
    pub fn within(budget: usize, memory: &'static FrameMemory) -> Self {
        Self {
            memory: Some(memory),
            resident: crate::video::memory::resident_recent,
            ..Self::new(budget)
        }
    }

    /// How full the cache is, as other threads see it (updated as frames come and go).
    pub fn gauge(&self) -> Arc<CacheGauge> {
        Arc::clone(&self.gauge)
    }

    fn publish(&self) {
        self.gauge.bytes.store(self.bytes, Ordering::Relaxed);
        self.gauge.frames.store(self.entries.len(), Ordering::Relaxed);
        self.gauge.gpu_bytes.store(self.gpu_bytes, Ordering::Relaxed);
    }

    /// What the cache may hold of frames in the GPU frame cache.
    pub fn set_gpu_budget(&mut self, bytes: usize) {
        self.gpu_budget = bytes;
        self.gauge.gpu_budget.store(bytes, Ordering::Relaxed);
    }

    pub fn gpu_budget(&self) -> usize {
        self.gpu_budget
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps `frame` at `pts`. A frame already here stays (it is the same picture); only its
    /// link to the previous frame is learnt, if it was missing.
    pub fn insert(&mut self, pts: i64, frame: F, previous: Option<i64>) {
        if let Some(entry) = self.entries.get_mut(&pts) {
            entry.previous = entry.previous.or(previous);
            return;
        }
        self.bytes += frame.bytes();
        self.gpu_bytes += frame.gpu_bytes();
        self.largest = self.largest.max(frame.bytes());
        self.entries.insert(pts, Entry { frame, previous });
        self.publish();
    }

    /// Keeps `frame` at `pts`, decoded for the frames behind `anchor` (a paused fill's), only as
    /// far as the budget holds it there: the frames farthest from the anchor go first, this one
    /// among them, and never one between it and the anchor in its place. Held whatever its
    /// distance, as a frame a decode run is about to deliver is, it would have the cache let go
    /// of the next-farthest instead whenever the budget fell short of what the fill was started
    /// for: the frames just above the head of those kept behind the anchor, a hole in what the
    /// steps back are about to need.
    pub fn insert_behind(&mut self, pts: i64, frame: F, previous: Option<i64>, anchor: i64) {
        self.insert(pts, frame, previous);
        self.evict(anchor, &[anchor]);
    }

    pub fn get(&self, pts: i64) -> Option<&F> {
        self.entries.get(&pts).map(|e| &e.frame)
    }

    pub fn contains(&self, pts: i64) -> bool {
        self.entries.contains_key(&pts)
    }

    /// The stream has no frame before `pts`.
    pub fn mark_first(&mut self, pts: i64) {
        self.first = Some(pts);
    }

    pub fn is_first(&self, pts: i64) -> bool {
        self.first == Some(pts)
    }

    /// The frame shown just before the one at `pts`, if both are here and known neighbours.
    pub fn previous_of(&self, pts: i64) -> Option<i64> {
        let previous = self.entries.get(&pts)?.previous?;
        self.entries.contains_key(&previous).then_some(previous)
    }

    /// The frame shown just after the one at `pts`, if both are here and known neighbours.
    pub fn next_of(&self, pts: i64) -> Option<i64> {
        let (&next, entry) = self.entries.range(pts + 1..).next()?;
        (entry.previous == Some(pts) && self.entries.contains_key(&pts)).then_some(next)
    }

    /// The first frame held after `pts`, whatever is known of its neighbours.
    pub fn after(&self, pts: i64) -> Option<i64> {
        self.entries.range(pts.saturating_add(1)..).next().map(|(&pts, _)| pts)
    }

    /// The frames held after `pts`, in order.
    pub fn later(&self, pts: i64) -> impl Iterator<Item = i64> + '_ {
        self.entries.range(pts.saturating_add(1)..).map(|(&pts, _)| pts)
    }

    /// The earliest and the latest frames held.
    pub fn oldest(&self) -> Option<(i64, &F)> {
        self.entries.iter().next().map(|(&pts, e)| (pts, &e.frame))
    }

    pub fn newest(&self) -> Option<(i64, &F)> {
        self.entries.iter().next_back().map(|(&pts, e)| (pts, &e.frame))
    }

    /// The frames held, in pts order.
    pub fn frames(&self) -> impl Iterator<Item = (i64, &F)> {
        self.entries.iter().map(|(&pts, e)| (pts, &e.frame))
    }

    /// The latest frame held at or before `limit`, whatever is known of its neighbours.
    pub fn nearest_at_or_before(&self, limit: i64) -> Option<i64> {
        self.entries.range(..=limit).next_back().map(|(&pts, _)| pts)
    }

    /// The last frame at or before `limit`, when the cache can tell: it holds that frame and
    /// the one after it as neighbours (or `limit` is exactly a frame here).
    pub fn last_at_or_before(&self, limit: i64) -> Option<i64> {
        let (&pts, _) = self.entries.range(..=limit).next_back()?;
        (pts == limit || self.next_of(pts).is_some()).then_some(pts)
    }

    /// How many known neighbours go back from `from` without a gap, and the earliest of them.
    pub fn chain_behind(&self, from: i64) -> (usize, Option<i64>) {
        if !self.entries.contains_key(&from) {
            return (0, None);
        }
        let (mut count, mut head) = (1, from);
        while let Some(previous) = self.previous_of(head) {
            count += 1;
            head = previous;
        }
        (count, Some(head))
    }

    /// The last of the known neighbours that go on from `from` without a gap; None when the
    /// frame after `from` is not here.
    pub fn chain_ahead(&self, from: i64) -> Option<i64> {
        let mut tail = self.next_of(from)?;
        while let Some(next) = self.next_of(tail) {
            tail = next;
        }
        Some(tail)
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.gpu_bytes = 0;
        self.publish();
    }
}
