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

use ffmpeg::ffi;
use ffmpeg_next as ffmpeg;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Blocks kept for reuse after their frames go, in bytes: at most this much, or three of the
/// largest block lent (so that two 8K frames' planes, 66 and 33 MB, are reused too: mapping
/// them afresh costs a page fault per 4 KiB, 10 ms a frame).
const SPARE_BYTES: usize = 64 << 20;
/// What FFmpeg's own frame pool adds to each plane: room for decoders that read a little past
/// the end (16 bytes), and for aligning the plane's start (its STRIDE_ALIGN, 64 at most).
const PLANE_PADDING: usize = 16 + 64 - 1;
/// Rows of frames made here (swscale's output, hardware downloads) start at multiples of this.
const ROW_ALIGN: i32 = 64;

/// The process's frame memory.
pub static FRAME_MEMORY: FrameMemory = FrameMemory::new();

/// What the process may hold beyond its frame cache budget: the program and its libraries, the
/// GPU driver's and hardware decoder's mappings, the decoders' tables, the allocator's slack.
/// The cache gives up frames to keep the whole process within its budget and this.
pub const HEADROOM: usize = 512 << 20;

/// Resident memory is looked at, when frame memory is lent, at most this often.
const RESIDENT_EVERY: std::time::Duration = std::time::Duration::from_millis(2);

/// The process's resident memory in bytes, read at most every `RESIDENT_EVERY` (the frame
/// cache looks at it for every frame it keeps): the last reading while it is that recent.
pub fn resident_recent() -> Option<usize> {
    resident_reading().map(|(bytes, _)| bytes)
}

/// The resident memory at most `RESIDENT_EVERY` old, and whether it was read just now.
fn resident_reading() -> Option<(usize, bool)> {
    static LAST: Mutex<Option<(std::time::Instant, usize)>> = Mutex::new(None);
    let now = std::time::Instant::now();
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((at, bytes)) = *last {
        if now.duration_since(at) < RESIDENT_EVERY {
            return Some((bytes, false));
        }
    }
    let bytes = resident()?;
    *last = Some((now, bytes));
    Some((bytes, true))
}

/// The process's resident memory in bytes (Linux: /proc/self/statm; None elsewhere).
fn resident() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * usize::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096))
}

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

struct Watcher {
    id: usize,
    budget: usize,
    wake: Box<dyn Fn() + Send>,
}

impl Watcher {
    /// Resident memory past which the watcher is woken: a little before its budget and the
    /// headroom are reached, so that it makes room before the process passes them.
    fn resident_limit(&self) -> usize {
        (self.budget + HEADROOM).saturating_sub(HEADROOM / 2)
    }

    /// Resident memory past which spare blocks go back to the system: close to the limit, above
    /// where the cache keeps the process (`FrameCache::budget`), so that only what comes between
    /// two of its looks (a decoder opening) has the spare blocks unmapped.
    fn pressed_at(&self) -> usize {
        (self.budget + HEADROOM).saturating_sub(HEADROOM / 8)
    }
}

/// A cache watching the memory; it stops watching when this goes.
pub struct Watch {
    memory: &'static FrameMemory,
    id: usize,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut watchers = self.memory.watchers.lock().unwrap_or_else(|e| e.into_inner());
        watchers.retain(|w| w.id != self.id);
        self.memory.set_limit(&watchers);
    }
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

    /// Calls `wake` whenever frame memory is lent while more than `budget` is held, until the
    /// guard goes: the cache it wakes makes room.
    pub fn watch(&'static self, budget: usize, wake: Box<dyn Fn() + Send>) -> Watch {
        let id = self.next_watcher.fetch_add(1, Ordering::Relaxed);
        let mut watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
        watchers.push(Watcher { id, budget, wake });
        self.set_limit(&watchers);
        Watch { memory: self, id }
    }

    fn set_limit(&self, watchers: &[Watcher]) {
        let limit = watchers.iter().map(|w| w.budget).min().unwrap_or(usize::MAX);
        self.limit.store(limit, Ordering::Relaxed);
        let resident = watchers.iter().map(Watcher::resident_limit).min().unwrap_or(usize::MAX);
        self.resident_limit.store(resident, Ordering::Relaxed);
    }

    /// Notes `held` bytes held after lending: the peak, and the watchers it (or the process's
    /// resident memory, looked at now and then) is too much for.
    fn lent_to(&self, held: usize) {
        self.peak.fetch_max(held, Ordering::Relaxed);
        let resident = self.resident_now();
        if let Some(resident) = resident {
            let watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
            let pressed = watchers.iter().any(|w| resident > w.pressed_at());
            drop(watchers);
            self.pressed.store(pressed, Ordering::Relaxed);
            if pressed {
                self.release_spare();
            }
        }
        let over = |w: &Watcher| held > w.budget || resident.is_some_and(|r| r > w.resident_limit());
        if held > self.limit.load(Ordering::Relaxed)
            || resident.is_some_and(|r| r > self.resident_limit.load(Ordering::Relaxed))
        {
            let watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
            for watcher in watchers.iter().filter(|w| over(w)) {
                (watcher.wake)();
            }
        }
    }

    /// The resident memory, where there are watchers and it was not looked at just now.
    fn resident_now(&self) -> Option<usize> {
        if self.resident_limit.load(Ordering::Relaxed) == usize::MAX {
            return None;
        }
        resident_reading().and_then(|(bytes, fresh)| fresh.then_some(bytes))
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

    /// An FFmpeg buffer of `size` bytes from here, going back when its last reference goes;
    /// null if the memory can't be had.
    pub fn buffer(&'static self, size: usize) -> *mut ffi::AVBufferRef {
        let Some(block) = self.lend(size) else {
            return std::ptr::null_mut();
        };
        let ptr = block.ptr;
        std::mem::forget(block);
        // SAFETY: the block's memory, `size` bytes; `free_buffer` gets it back with its size.
        let buffer = unsafe { ffi::av_buffer_create(ptr, size, Some(free_buffer), size as *mut libc::c_void, 0) };
        if buffer.is_null() {
            self.give_back(Block { ptr, size });
        }
        buffer
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

/// AVBuffer's free callback: the block goes back (its size rides in `opaque`).
unsafe extern "C" fn free_buffer(opaque: *mut libc::c_void, data: *mut u8) {
    FRAME_MEMORY.give_back(Block {
        ptr: data,
        size: opaque as usize,
    });
}

/// Gives `frame` (its format, width and height set) planes from `FRAME_MEMORY`, laid out as
/// FFmpeg lays out a decoder's frames: rows of `linesize` bytes, each plane in a buffer of its
/// own with FFmpeg's padding after it. Fails with an FFmpeg error code.
///
/// # Safety
/// `frame` is a valid frame without buffers; `linesize` holds the pitch of each of its planes.
unsafe fn fill_planes(frame: *mut ffi::AVFrame, linesize: [i32; 4], height: i32) -> Result<(), i32> {
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let pitches = linesize.map(|l| l as isize);
    let mut sizes = [0usize; 4];
    let filled = ffi::av_image_fill_plane_sizes(sizes.as_mut_ptr(), format, height, pitches.as_ptr());
    if filled < 0 {
        return Err(filled);
    }
    for (i, &size) in sizes.iter().enumerate() {
        if size == 0 {
            break;
        }
        let buffer = FRAME_MEMORY.buffer(size + PLANE_PADDING);
        if buffer.is_null() {
            for j in 0..i {
                ffi::av_buffer_unref(&mut (*frame).buf[j]);
                (*frame).data[j] = std::ptr::null_mut();
            }
            return Err(ffi::AVERROR(libc::ENOMEM));
        }
        (*frame).buf[i] = buffer;
        (*frame).data[i] = (*buffer).data;
        (*frame).linesize[i] = linesize[i];
    }
    (*frame).extended_data = (*frame).data.as_mut_ptr();
    Ok(())
}

/// A frame of `format` and size with planes from `FRAME_MEMORY`, rows aligned to 64 bytes.
pub fn frame(format: ffmpeg::format::Pixel, width: u32, height: u32) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
    let mut frame = ffmpeg::frame::Video::empty();
    let (w, h) = (
        i32::try_from(width).map_err(|_| ffmpeg::Error::InvalidData)?,
        i32::try_from(height).map_err(|_| ffmpeg::Error::InvalidData)?,
    );
    // SAFETY: a fresh frame, given its format and size, then planes sized for them by FFmpeg.
    unsafe {
        let f = frame.as_mut_ptr();
        (*f).format = ffi::AVPixelFormat::from(format) as i32;
        (*f).width = w;
        (*f).height = h;
        let mut linesize = [0i32; 4];
        let done = ffi::av_image_fill_linesizes(linesize.as_mut_ptr(), ffi::AVPixelFormat::from(format), w);
        if done < 0 {
            return Err(ffmpeg::Error::from(done));
        }
        let linesize = linesize.map(|l| (l + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN);
        fill_planes(f, linesize, h).map_err(ffmpeg::Error::from)?;
    }
    Ok(frame)
}

/// `AVCodecContext.get_buffer2` for software decoders: frames from `FRAME_MEMORY`, laid out as
/// FFmpeg's default does (its alignment of the picture's size and of the rows, per codec).
/// Hardware frames, palette formats and decoders that can't take frames from elsewhere get
/// FFmpeg's own.
///
/// # Safety
/// Called by FFmpeg with a valid context and a frame to fill.
pub unsafe extern "C" fn get_buffer2(ctx: *mut ffi::AVCodecContext, frame: *mut ffi::AVFrame, flags: i32) -> i32 {
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let desc = ffi::av_pix_fmt_desc_get(format);
    let own_kind = ffi::AV_PIX_FMT_FLAG_PAL as u64 | ffi::AV_PIX_FMT_FLAG_HWACCEL as u64;
    let direct = !(*ctx).codec.is_null() && (*(*ctx).codec).capabilities & ffi::AV_CODEC_CAP_DR1 as i32 != 0;
    if desc.is_null() || (*desc).flags & own_kind != 0 || !direct || !(*ctx).hw_frames_ctx.is_null() {
        return ffi::avcodec_default_get_buffer2(ctx, frame, flags);
    }
    let (mut w, mut h) = ((*frame).width, (*frame).height);
    let mut align = [0i32; ffi::AV_NUM_DATA_POINTERS as usize];
    ffi::avcodec_align_dimensions2(ctx, &mut w, &mut h, align.as_mut_ptr());
    // As FFmpeg's pool does: widen until every plane's rows meet their alignment (not each
    // row aligned by itself, which would break 4:2:2's chroma being half the luma's pitch).
    let mut linesize = [0i32; 4];
    loop {
        if ffi::av_image_fill_linesizes(linesize.as_mut_ptr(), format, w) < 0 {
            return ffi::avcodec_default_get_buffer2(ctx, frame, flags);
        }
        let unaligned = (0..4).any(|i| align[i] > 0 && linesize[i] % align[i] != 0);
        if !unaligned {
            break;
        }
        w += w & !(w - 1);
    }
    match fill_planes(frame, linesize, h) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// Tunes glibc's allocator for a process whose big buffers come and go: allocations of 256 KiB
/// and more are mapped on their own (glibc would raise that threshold to 32 MiB as buffers are
/// freed, keeping them in its heaps afterwards), and at most 8 arenas (glibc makes up to 8 per
/// core for the decoders' many threads, each holding on to what it freed). Call it first thing,
/// before any thread starts.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 8);
    }
}

/// Gives the allocator's free memory back to the system (glibc keeps freed memory at the top
/// of its heaps and in arenas), for moments when much has just been freed.
pub fn trim_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_counted_while_they_live_and_reused_after() {
        // Other tests in this process use the same memory: look at differences only, of a
        // size no other test uses.
        let size = (3 << 20) + 4096 * 7;
        let before = FRAME_MEMORY.lent.load(Ordering::Relaxed);
        let a = FRAME_MEMORY.buffer(size);
        assert!(!a.is_null());
        assert!(FRAME_MEMORY.lent.load(Ordering::Relaxed) >= before + size);
        // SAFETY: a buffer of `size` bytes, written and dropped once.
        let first = unsafe {
            (*a).data.write_bytes(7, size);
            let data = (*a).data;
            let mut a = a;
            ffi::av_buffer_unref(&mut a);
            data
        };
        let b = FRAME_MEMORY.buffer(size);
        // SAFETY: as above.
        let again = unsafe { (*b).data };
        assert_eq!(again, first, "the spare block is used again");
        let mut b = b;
        // SAFETY: dropped once.
        unsafe { ffi::av_buffer_unref(&mut b) };
        let guard = FRAME_MEMORY.reserve(1 << 20);
        assert!(FRAME_MEMORY.held() >= 1 << 20);
        drop(guard);
    }

    #[test]
    fn watchers_are_woken_when_the_memory_passes_their_budget() {
        use std::sync::atomic::AtomicU32;
        use std::sync::Arc;
        let memory: &'static FrameMemory = Box::leak(Box::new(FrameMemory::new()));
        let woken = Arc::new(AtomicU32::new(0));
        let counter = Arc::clone(&woken);
        // A budget far above what this test process holds, so that only the bytes counted here
        // (never the process's resident memory, which other tests running beside it raise)
        // pass it.
        let budget = 8 << 30;
        let watch = memory.watch(
            budget,
            Box::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
            }),
        );
        let within = memory.reserve(budget);
        assert_eq!(woken.load(Ordering::Relaxed), 0, "at the budget: nothing to do");
        let over = memory.reserve(1);
        assert_eq!(woken.load(Ordering::Relaxed), 1);
        drop((within, over, watch));
        let _again = memory.reserve(2 * budget);
        assert_eq!(woken.load(Ordering::Relaxed), 1, "no longer watching");
    }

    #[test]
    fn frames_made_here_have_aligned_rows_and_every_plane() {
        let frame = frame(ffmpeg::format::Pixel::YUV420P10LE, 1921, 1081).unwrap();
        assert_eq!(frame.planes(), 3);
        for plane in 0..3 {
            assert_eq!(frame.stride(plane) % 64, 0);
            assert!(frame.stride(plane) >= 2 * frame.plane_width(plane) as usize);
            assert!(frame.data(plane).len() >= frame.stride(plane) * frame.plane_height(plane) as usize);
        }
    }
}
