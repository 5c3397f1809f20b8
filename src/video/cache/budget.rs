//! What a frame cache may hold and what it lets go: its budget against the process's frame
//! memory and resident memory, and eviction by distance from where the viewer is.

use super::{ByteSize, Entry, FrameCache};
use crate::video::memory::HEADROOM;

/// The cache keeps at least this many frames whatever the budget: the one shown and its
/// neighbours, so a decode run never has to repeat itself to go on.
pub const MIN_FRAMES: usize = 4;
/// ... but no more of them than this many bytes hold (at least one): an 8K frame is 100 MB.
const MIN_FRAMES_BYTES: usize = 64 << 20;
/// What a cache of no budget keeps (frames that only pass through, as a timeline's fill or
/// `hist` decode them): the frame being sent.
pub const PASS_THROUGH_FRAMES: usize = 1;
/// Room left below the process's limit (budget and headroom) for what comes between two looks
/// (a decoder opening beside this one maps a hundred MB or more at once): this, and two of the
/// largest frames.
pub(super) const RESIDENT_MARGIN: usize = 128 << 20;

/// Frames ahead of the anchor count this many times their distance when choosing what to
/// evict: three quarters of the budget goes to frames behind it.
const AHEAD_WEIGHT: i64 = 3;

impl<F: ByteSize> FrameCache<F> {
    /// The bytes of frames the cache may hold now. Counting all frame memory, its budget less
    /// the frame memory held outside it (a small pool of spare blocks aside), and no more than
    /// keeps the process's resident memory within the budget and `HEADROOM` (less a margin for
    /// what comes before the next look).
    ///
    /// Against the resident memory, frame memory is counted as `FrameMemory` holds it now and
    /// the spare pool at its full size: only the rest (the program, its libraries, the GPU
    /// driver's mappings) comes from the reading. The blocks of the frames the cache lets go
    /// refill the pool and stay resident, so a pool counted as it is now would have each frame
    /// let go take the room of another (two frames evicted for every one decoded, until the
    /// pool is full: a fill's or a landing's frames gone as they come); and frame memory read
    /// off a reading up to `memory::RESIDENT_EVERY` old would have each evict until the next
    /// reading let go as many frames again as the one before, for the frames that one unmapped.
    pub fn budget(&self) -> usize {
        let Some(memory) = self.memory else {
            return self.budget;
        };
        // Not the small pool of spare blocks: they are the next frames', and counting them
        // would let the cache grow into their room as soon as they are taken again, so that
        // the frame after has to be mapped afresh (`FrameMemory::spare_pool`).
        let held = memory.held();
        let outside = held.saturating_sub(memory.spare_pool() + self.bytes);
        let frames = self.budget.saturating_sub(outside);
        let process = match (self.resident)() {
            Some(resident) => {
                let limit = (self.budget + HEADROOM).saturating_sub(RESIDENT_MARGIN + 2 * self.largest);
                let other = resident.saturating_sub(self.held_when_read(resident, held));
                limit.saturating_sub(other + outside + memory.spare_pool_limit())
            }
            None => usize::MAX,
        };
        frames.min(process)
    }

    /// The frame memory held when `resident` was read, as near as the cache can tell: what was
    /// held when it first saw that reading (readings are at most `memory::RESIDENT_EVERY` old).
    fn held_when_read(&self, resident: usize, held: usize) -> usize {
        match self.reading.get() {
            Some((seen, then)) if seen == resident => then,
            _ => {
                self.reading.set(Some((resident, held)));
                held
            }
        }
    }

    /// The fewest frames kept: MIN_FRAMES, as many of them as MIN_FRAMES_BYTES holds (at least
    /// one), or PASS_THROUGH_FRAMES with no budget.
    fn min_frames(&self) -> usize {
        if self.budget == 0 {
            PASS_THROUGH_FRAMES
        } else {
            (MIN_FRAMES_BYTES / self.largest.max(1)).clamp(1, MIN_FRAMES)
        }
    }

    /// Drops frames, farthest from `anchor` first, until the cache is within its budget (but
    /// never below MIN_FRAMES frames, and never `keep`).
    pub fn evict(&mut self, anchor: i64, keep: &[i64]) {
        let room = self.budget();
        let min_frames = self.min_frames();
        // Frames shared with the uploads free nothing yet: the room is measured once. What
        // they free goes to the frame memory's spare blocks, which the next frames decoded
        // take again: a full cache streams without mapping anything afresh.
        while (self.bytes > room || self.gpu_bytes > self.gpu_budget) && self.entries.len() > min_frames {
            // Only frames that hold what is over the budget free any of it: those in memory,
            // or those in the GPU frame cache.
            let (over_memory, over_gpu) = (self.bytes > room, self.gpu_bytes > self.gpu_budget);
            let victim = |(pts, entry): (&i64, &Entry<F>)| {
                (!keep.contains(pts)
                    && (over_memory && entry.frame.bytes() > 0 || over_gpu && entry.frame.gpu_bytes() > 0))
                    .then_some(*pts)
            };
            let first = self.entries.iter().find_map(victim);
            let last = self.entries.iter().rev().find_map(victim);
            let cost = |pts: i64| {
                if pts <= anchor {
                    anchor.saturating_sub(pts)
                } else {
                    pts.saturating_sub(anchor).saturating_mul(AHEAD_WEIGHT)
                }
            };
            let victim = match (first, last) {
                (Some(a), Some(b)) => {
                    if cost(a) >= cost(b) {
                        a
                    } else {
                        b
                    }
                }
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => return,
            };
            if let Some(entry) = self.entries.remove(&victim) {
                self.bytes -= entry.frame.bytes();
                self.gpu_bytes -= entry.frame.gpu_bytes();
            }
        }
        if self.bytes > room && self.budget > 0 {
            // Down to its fewest frames: the blocks kept aside for reuse give way too (not for
            // a cache of no budget, which only passes frames through).
            if let Some(memory) = self.memory {
                memory.release_spare();
            }
        }
        self.publish();
    }
}
