//! The memory decoded frames live in. Every plane a software decoder decodes into (through its
//! `get_buffer2`), every frame copied back from a hardware decoder and every frame swscale
//! converts comes from here, and so do the GPU upload's staging buffers: one count of all the
//! frame memory in the process, which the frame cache keeps within its budget by making room
//! for what the decoders, the uploads and the other streams hold (`FrameCache::evict`).
//!
//! Blocks are mapped from the kernel and unmapped when the last frame using them goes, so the
//! memory really goes back: FFmpeg's own buffer pools (one per decoder thread) keep every buffer
//! they ever handed out, and the allocator keeps freed memory in its arenas. A few blocks are
//! kept aside for the next frame, as long as they are a small part of the whole.

pub mod direct;
mod frames;
mod process;
#[cfg(test)]
mod tests;
mod watch;

pub use direct::{get_buffer2_direct, DirectFrames};
pub use frames::{frame, get_buffer2, reference};
pub use process::{resident_recent, trim_allocator, tune_allocator};
pub use watch::Watch;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use watch::Watcher;

/// Blocks kept for reuse after their frames go, in bytes: at most this much, or three of the
/// largest block lent (so that two 8K frames' planes, 66 and 33 MB, are reused too: mapping
/// them afresh costs a page fault per 4 KiB, 10 ms a frame).
const SPARE_BYTES: usize = 64 << 20;

/// The process's frame memory.
pub static FRAME_MEMORY: FrameMemory = FrameMemory::new();

/// What the process may hold beyond its frame cache budget: the program and its libraries, the
/// GPU driver's and hardware decoder's mappings, the decoders' tables, the allocator's slack.
/// The cache gives up frames to keep the whole process within its budget and this.
pub const HEADROOM: usize = 512 << 20;

pub struct FrameMemory {
    /// Bytes in blocks handed out and not yet returned, staging included.
    lent: AtomicUsize,
    /// Bytes in `spare`.
    spare_bytes: AtomicUsize,
    spare: Mutex<Vec<Block>>,
    /// The most `lent + spare` has been.
    peak: AtomicUsize,
    /// Bytes mapped afresh so far (each costs a page fault per 4 KiB when first written): with
    /// no spare block, with spare blocks of other sizes only, and while pressed.
    mapped: [AtomicUsize; 3],
    /// The largest block lent so far.
    largest: AtomicUsize,
    /// Caches to tell when the memory held passes their budget (the smallest of which is
    /// `limit`): another stream's frames or a decoder's may grow while a cache's own decoder is
    /// idle, as when a paused player's timeline fills.
    watchers: Mutex<Vec<Watcher>>,
    limit: AtomicUsize,
    /// The smallest of the watchers' limits on resident memory.
    resident_limit: AtomicUsize,
    /// The process was near its limit when last looked at: blocks are unmapped, not kept.
    pressed: AtomicBool,
    next_watcher: AtomicUsize,
}

/// A mapping of `size` bytes.
struct Block {
    ptr: *mut u8,
    size: usize,
}

// SAFETY: a block is plain memory owned by whoever holds the Block.
unsafe impl Send for Block {}

impl Block {
    fn map(size: usize) -> Option<Self> {
        // SAFETY: an anonymous private mapping: no file, no aliasing; checked for failure.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(Block { ptr: ptr.cast(), size })
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast(), self.size);
        }
    }
}

impl Default for FrameMemory {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameMemory {
    pub const fn new() -> Self {
        Self {
            lent: AtomicUsize::new(0),
            spare_bytes: AtomicUsize::new(0),
            spare: Mutex::new(Vec::new()),
            peak: AtomicUsize::new(0),
            mapped: [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)],
            largest: AtomicUsize::new(0),
            watchers: Mutex::new(Vec::new()),
            limit: AtomicUsize::new(usize::MAX),
            resident_limit: AtomicUsize::new(usize::MAX),
            pressed: AtomicBool::new(false),
            next_watcher: AtomicUsize::new(0),
        }
    }

    /// Bytes of frame memory the process holds now: lent out, staging and spare blocks.
    pub fn held(&self) -> usize {
        self.lent.load(Ordering::Relaxed) + self.spare_bytes.load(Ordering::Relaxed)
    }

    /// Bytes in spare blocks kept outside the caches' budgets: all of them while they are a
    /// small pool (`SPARE_BYTES`, frames up to 4K); none for frames so large that three blocks
    /// pass it (8K), whose spare blocks count as frames.
    pub fn spare_pool(&self) -> usize {
        if self.spare_counts_as_frames() {
            0
        } else {
            self.spare_bytes.load(Ordering::Relaxed)
        }
    }

    /// The most `spare_pool` holds: SPARE_BYTES, or none where spare blocks count as frames.
    pub fn spare_pool_limit(&self) -> usize {
        if self.spare_counts_as_frames() {
            0
        } else {
            SPARE_BYTES
        }
    }

    /// Frames so large that three of their blocks pass SPARE_BYTES (8K): their spare blocks are
    /// no small pool, and count as frames.
    fn spare_counts_as_frames(&self) -> bool {
        3 * self.largest.load(Ordering::Relaxed) > SPARE_BYTES
    }

    /// The most the process has held at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// The bytes mapped afresh so far, rather than taken from the spare blocks.
    pub fn mapped(&self) -> usize {
        self.mapped_by_cause().iter().sum()
    }

    /// `mapped`, by cause: no spare block, spare blocks of other sizes only, and memory pressed.
    pub fn mapped_by_cause(&self) -> [usize; 3] {
        self.mapped.each_ref().map(|m| m.load(Ordering::Relaxed))
    }

    /// Unmaps the spare blocks (the cache needs their room).
    pub fn release_spare(&self) {
        let blocks = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|e| e.into_inner()));
        let bytes: usize = blocks.iter().map(|b| b.size).sum();
        self.spare_bytes.fetch_sub(bytes, Ordering::Relaxed);
        drop(blocks);
    }

    fn lend(&self, size: usize) -> Option<Block> {
        let reused = {
            let mut spare = self.spare.lock().unwrap_or_else(|e| e.into_inner());
            // The newest of the size: its pages are the likeliest still in the CPU's caches.
            let at = spare.iter().rposition(|b| b.size == size);
            at.map(|i| spare.remove(i))
        };
        let block = match reused {
            Some(block) => {
                self.spare_bytes.fetch_sub(size, Ordering::Relaxed);
                block
            }
            None => {
                let block = Block::map(size)?;
                let why = if self.pressed.load(Ordering::Relaxed) {
                    2
                } else {
                    usize::from(self.spare_bytes.load(Ordering::Relaxed) > 0)
                };
                self.mapped[why].fetch_add(size, Ordering::Relaxed);
                self.largest.fetch_max(size, Ordering::Relaxed);
                block
            }
        };
        let lent = self.lent.fetch_add(size, Ordering::Relaxed) + size;
        self.lent_to(lent + self.spare_bytes.load(Ordering::Relaxed));
        Some(block)
    }

    fn give_back(&self, block: Block) {
        let size = block.size;
        let mut spare = self.spare.lock().unwrap_or_else(|e| e.into_inner());
        let cap = SPARE_BYTES.max(3 * self.largest.load(Ordering::Relaxed));
        let mut unmapped = Vec::new();
        if !self.pressed.load(Ordering::Relaxed) && size <= cap {
            // Room is made by the oldest block of the same size (a frame's planes come back
            // as they are taken again, so the mix of sizes stays the one decoded), else by the
            // oldest of all (a preview's or another stream's frames don't crowd out the
            // stream's).
            let mut kept = self.spare_bytes.load(Ordering::Relaxed);
            while kept + size > cap && !spare.is_empty() {
                let at = spare.iter().position(|b| b.size == size).unwrap_or(0);
                let old = spare.remove(at);
                kept -= old.size;
                self.spare_bytes.fetch_sub(old.size, Ordering::Relaxed);
                unmapped.push(old);
            }
            self.spare_bytes.fetch_add(size, Ordering::Relaxed);
            spare.push(block);
        } else {
            unmapped.push(block);
        }
        // Counted out only once it is in the spare count or unmapped below.
        self.lent.fetch_sub(size, Ordering::Relaxed);
        drop(spare);
        drop(unmapped);
    }

    /// A block of `size` bytes (none if it can't be mapped), as frames get theirs: for tests
    /// of what holds frames.
    #[cfg(test)]
    pub fn lend_block(&'static self, size: usize) -> Lent {
        Lent {
            memory: self,
            block: self.lend(size),
        }
    }

    /// Counts `bytes` held elsewhere for frames (the GPU upload's staging buffers) as frame
    /// memory until the guard goes.
    pub fn reserve(&'static self, bytes: usize) -> Reservation {
        let lent = self.lent.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.lent_to(lent + self.spare_bytes.load(Ordering::Relaxed));
        Reservation { memory: self, bytes }
    }
}

/// A block of frame memory lent to a test, going back when this goes.
#[cfg(test)]
pub struct Lent {
    memory: &'static FrameMemory,
    block: Option<Block>,
}

#[cfg(test)]
impl Lent {
    pub fn size(&self) -> usize {
        self.block.as_ref().map_or(0, |b| b.size)
    }
}

#[cfg(test)]
impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(block) = self.block.take() {
            self.memory.give_back(block);
        }
    }
}

/// Frame memory held outside this module, counted while this lives.
pub struct Reservation {
    memory: &'static FrameMemory,
    bytes: usize,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.memory.lent.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

/// The machine's memory in bytes (`MemTotal` in /proc/meminfo); None where it can't be read.
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
