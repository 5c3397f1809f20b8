//! Frames decoded straight into memory the GPU copies from: a software decoder's frames laid
//! out in slots of host buffers (`HostBuffer`: the machine's memory, mapped for good and made
//! known to the GPU), so that a frame reaches its ring slot's textures by the GPU's copy alone,
//! without the upload thread writing its rows into staging memory first (at 1080p60 that write
//! took a core a fifth of the time, beside a decoder that wants every core).
//!
//! A stream decoded in software for a run that takes every frame (`Decoding::Throughput`) gets
//! a `DirectFrames` as it opens, empty: its frames come from the frame memory. A run (`report`,
//! `pse`, `hist`, `scope`) fills it with a pool (`make_pool`, once its first frame is through),
//! after which the decoder lays each frame out in a free slot; with no slot free, or a frame of
//! another size, it takes frame memory again, laid out alike (rows 256 bytes apart, as copies
//! into textures need: a decoder keeps its first frame's pitch for all its frames). A slot goes
//! back to the pool when the frame's last reference does, and the upload keeps one until the
//! GPU's copy is done. The player's frames stay as FFmpeg lays them out.

use crate::gpu::host_buffer::HostBuffer;
use ffmpeg::ffi;
use ffmpeg_next as ffmpeg;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};

/// Rows of a frame in a slot start this many bytes apart at least (copies into textures need
/// it), and so do its planes.
const ALIGN: usize = 256;

/// What FFmpeg's pool adds after each plane: room for decoders that read a little past its end.
const PLANE_PADDING: usize = 64;

/// The most memory a stream's pool takes: beyond it frames come from the frame memory.
const MOST_BYTES: usize = 384 << 20;

/// How long `grow` sleeps between looks at whether its pool is gone, and the chunks it adds
/// when frames found no slot free.
const GROW_WAIT: std::time::Duration = std::time::Duration::from_millis(100);
const GROW_CHUNKS: usize = 2;

/// Frames a pool holds beyond one per frame thread: the references the decoder keeps, and those
/// on their way to the GPU.
const SLOTS_BEYOND_THREADS: usize = 24;

/// One stream's slots, empty until a run fills them (`make_pool`). Shared by the stream's
/// decoder (its `get_buffer2`) and the thread that uploads its frames.
#[derive(Default)]
pub struct DirectFrames {
    /// A slot's bytes, for the stream's size (0: its frames can't be laid out so; set once the
    /// decoder is open).
    slot_bytes: AtomicUsize,
    /// Frame threads of the stream's decoder.
    threads: AtomicUsize,
    pool: OnceLock<Arc<Pool>>,
    /// No pool for this stream (`refuse`).
    refused: AtomicBool,
    /// Frames the decoder's threads concealed errors in, as FFmpeg logged them and not yet
    /// taken (`take_concealed`).
    concealed: AtomicUsize,
}

/// Host buffers cut into slots of one frame each.
pub struct Pool {
    /// Made one after the other (`make_pool`); a slot is free once its chunk is made.
    chunks: Vec<OnceLock<HostBuffer>>,
    slots_per_chunk: usize,
    slot_bytes: usize,
    /// Chunks made so far.
    made: AtomicUsize,
    free: Mutex<Vec<usize>>,
    /// Slots lent now, the most lent at once, and the frames that found none free.
    lent: AtomicUsize,
    most: AtomicUsize,
    missed: AtomicUsize,
    /// More slots wanted (a frame found none free), for `grow`.
    wanted: (Mutex<bool>, Condvar),
    /// The chunks' memory, counted as frame memory.
    counted: Mutex<Vec<super::Reservation>>,
}

/// Where one plane of a frame in a pool lies: the buffer, and the plane's offset and pitch in it.
pub struct PoolPlane<'a> {
    pub buffer: &'a wgpu::Buffer,
    pub offset: u64,
    pub pitch: u32,
}

impl DirectFrames {
    /// The decoder concealed errors in a frame (its log said so, from whichever of its threads
    /// decoded it).
    pub fn note_concealed(&self) {
        self.concealed.fetch_add(1, Ordering::Relaxed);
    }

    /// The frames the decoder concealed errors in since last asked.
    pub fn take_concealed(&self) -> usize {
        self.concealed.swap(0, Ordering::Relaxed)
    }

    /// The decoder `ctx` (open, in software, with `threads` frame threads) says the size of its
    /// frames.
    ///
    /// # Safety
    /// `ctx` is a valid, open decoder context.
    pub unsafe fn set_decoder(&self, ctx: *mut ffi::AVCodecContext, threads: usize) {
        // The size the decoder's frames are asked with (as FFmpeg's `ff_get_buffer` asks).
        let (w, h) = (
            (*ctx).width.max((*ctx).coded_width),
            (*ctx).height.max((*ctx).coded_height),
        );
        let format = (*ctx).pix_fmt;
        let slot_bytes = match super::frames::takes_frame_memory(ctx, format) {
            true => layout(ctx, format, w, h).map_or(0, |l| l.total),
            false => 0,
        };
        self.slot_bytes.store(slot_bytes, Ordering::Relaxed);
        self.threads.store(threads, Ordering::Relaxed);
    }

    /// The stream's frames stay in frame memory: `make_pool` makes none (for measuring and
    /// testing both ways; `HISTOPLAY_NO_DIRECT_FRAMES` refuses every stream's).
    pub fn refuse(&self) {
        self.refused.store(true, Ordering::Relaxed);
    }

    /// Makes the stream's pool on `device`: slots for a frame a frame thread and
    /// `SLOTS_BEYOND_THREADS`, more as frames find none free (`grow`, for the caller to run with
    /// the pool given back). Once: None for every other call, and where the stream has no pool.
    /// Fails where the memory can't be had; the frames then come from the frame memory.
    pub fn make_pool(&self, device: &wgpu::Device) -> Result<Option<Weak<Pool>>, String> {
        let slot_bytes = self.slot_bytes.load(Ordering::Relaxed);
        let refused = self.refused.load(Ordering::Relaxed) || std::env::var_os("HISTOPLAY_NO_DIRECT_FRAMES").is_some();
        if slot_bytes == 0 || self.pool.get().is_some() || refused {
            return Ok(None);
        }
        // Chunks of about 8 MB, made one after the other: the driver pins each as it makes it,
        // so the GPU's other work goes on between them, and the first chunk's slots are taken
        // while the next are made.
        let slots_per_chunk = ((8 << 20) / slot_bytes).max(1);
        let most = MOST_BYTES / (slots_per_chunk * slot_bytes);
        if most * slots_per_chunk < 2 {
            return Err("a frame is too large for the pool".into());
        }
        let threads = self.threads.load(Ordering::Relaxed);
        let first = (threads + SLOTS_BEYOND_THREADS).div_ceil(slots_per_chunk).min(most);
        let pool = Arc::new(Pool {
            chunks: (0..most).map(|_| OnceLock::new()).collect(),
            made: AtomicUsize::new(0),
            slots_per_chunk,
            slot_bytes,
            free: Mutex::new(Vec::new()),
            lent: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            missed: AtomicUsize::new(0),
            wanted: (Mutex::new(false), Condvar::new()),
            counted: Mutex::new(Vec::new()),
        });
        if self.pool.set(Arc::clone(&pool)).is_err() {
            return Ok(None);
        }
        pool.add_chunks(device, first)?;
        log::debug!(
            "{} frames of {} kB decoded into memory the GPU copies from",
            first * slots_per_chunk,
            slot_bytes >> 10
        );
        Ok(Some(Arc::downgrade(&pool)))
    }

    /// The pool, once made.
    pub fn pool(&self) -> Option<&Arc<Pool>> {
        self.pool.get()
    }

    /// Whether a frame decoded ahead of its consumer may take a slot of the pool (made): more are
    /// free than the decoder's frame threads may ask for at once, so that the frames they are
    /// decoding find one, and the pool grows no larger for it.
    pub fn room_ahead(&self) -> bool {
        let Some(pool) = self.pool.get() else { return false };
        let free = pool.free.lock().unwrap_or_else(|e| e.into_inner()).len();
        free > self.threads.load(Ordering::Relaxed)
    }
}

impl Pool {
    /// Whether `at` lies in one of the pool's chunks.
    pub fn holds(&self, at: *const u8) -> bool {
        self.chunks.iter().filter_map(OnceLock::get).any(|c| {
            let base = c.as_ptr() as usize;
            (base..base + c.byte_len()).contains(&(at as usize))
        })
    }

    /// Where `planes` (a frame's, by their first byte and pitch) lie in the pool: None where any
    /// is outside it, or not aligned as a copy into a texture needs.
    pub fn locate(&self, planes: &[(*const u8, usize)]) -> Option<Vec<PoolPlane<'_>>> {
        planes
            .iter()
            .map(|&(at, pitch)| {
                let chunk = self.chunks.iter().filter_map(OnceLock::get).find(|c| {
                    let base = c.as_ptr() as usize;
                    (base..base + c.byte_len()).contains(&(at as usize))
                })?;
                let offset = at as usize - chunk.as_ptr() as usize;
                (pitch % ALIGN == 0 && offset % 4 == 0).then_some(PoolPlane {
                    buffer: &chunk.buffer,
                    offset: offset as u64,
                    pitch: u32::try_from(pitch).ok()?,
                })
            })
            .collect()
    }

    /// Makes `count` more chunks (as many as the pool has room for), their slots free as each
    /// is made.
    fn add_chunks(&self, device: &wgpu::Device, count: usize) -> Result<(), String> {
        let chunk_bytes = self.slots_per_chunk * self.slot_bytes;
        for _ in 0..count {
            let i = self.made.load(Ordering::Relaxed);
            let Some(chunk) = self.chunks.get(i) else {
                break;
            };
            let buffer = HostBuffer::new(device, &format!("decoded frames {i}"), chunk_bytes as u64)?;
            let _ = chunk.set(buffer);
            self.counted
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(super::FRAME_MEMORY.reserve(chunk_bytes));
            self.made.store(i + 1, Ordering::Relaxed);
            let first = i * self.slots_per_chunk;
            self.free
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend((first..first + self.slots_per_chunk).rev());
        }
        Ok(())
    }

    /// Adds chunks to `pool` whenever its frames find no slot free, until it is full or gone
    /// (its stream's decoder and frames let go): run on a thread of its own once it is made.
    pub fn grow(pool: Weak<Pool>, device: &wgpu::Device) {
        loop {
            let Some(pool) = pool.upgrade() else {
                return;
            };
            if pool.made.load(Ordering::Relaxed) >= pool.chunks.len() {
                return;
            }
            let (wanted, wake) = &pool.wanted;
            let asked = {
                let guard = wanted.lock().unwrap_or_else(|e| e.into_inner());
                let (mut guard, _) = wake
                    .wait_timeout_while(guard, GROW_WAIT, |asked| !*asked)
                    .unwrap_or_else(|e| e.into_inner());
                std::mem::take(&mut *guard)
            };
            // A few frames' room at a time: each frame that found none took frame memory.
            if asked && pool.add_chunks(device, GROW_CHUNKS).is_err() {
                return;
            }
        }
    }

    /// A free slot's first byte and its number, if one is free.
    fn take(&self) -> Option<(usize, *mut u8)> {
        let Some(slot) = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
            self.missed.fetch_add(1, Ordering::Relaxed);
            let (wanted, wake) = &self.wanted;
            *wanted.lock().unwrap_or_else(|e| e.into_inner()) = true;
            wake.notify_one();
            return None;
        };
        let lent = self.lent.fetch_add(1, Ordering::Relaxed) + 1;
        self.most.fetch_max(lent, Ordering::Relaxed);
        let chunk = self.chunks[slot / self.slots_per_chunk].get()?;
        // SAFETY: within the chunk: slots_per_chunk slots of slot_bytes each.
        let at = unsafe { chunk.as_ptr().add((slot % self.slots_per_chunk) * self.slot_bytes) };
        Some((slot, at))
    }

    fn give_back(&self, slot: usize) {
        self.lent.fetch_sub(1, Ordering::Relaxed);
        self.free.lock().unwrap_or_else(|e| e.into_inner()).push(slot);
    }

    /// How the slots were used: the most lent at once of how many, and the frames that found
    /// none free (and took frame memory).
    pub fn usage(&self) -> String {
        format!(
            "at most {} of {} slots lent at once; {} frames found none free",
            self.most.load(Ordering::Relaxed),
            self.made.load(Ordering::Relaxed) * self.slots_per_chunk,
            self.missed.load(Ordering::Relaxed)
        )
    }
}

/// A slot lent to a frame: its pool and number, given back when the frame's buffer goes.
struct Lent {
    pool: Arc<Pool>,
    slot: usize,
}

unsafe extern "C" fn give_back(opaque: *mut libc::c_void, _data: *mut u8) {
    // SAFETY: made by `Box::into_raw` in `fill_slot`, freed here once.
    let lent = unsafe { Box::from_raw(opaque.cast::<Lent>()) };
    lent.pool.give_back(lent.slot);
}

/// A frame's layout in a slot: each plane's pitch and offset, the slot's bytes, and the rows
/// the decoder asks room for.
struct Layout {
    pub linesize: [i32; 4],
    offsets: [usize; 4],
    total: usize,
    pub rows: i32,
}

/// The frame layout of `format` at `w` x `h` as the decoder `ctx` needs it (its alignment of the
/// size and of the rows), rows a multiple of `ALIGN` apart.
///
/// # Safety
/// `ctx` is a valid decoder context.
unsafe fn layout(ctx: *mut ffi::AVCodecContext, format: ffi::AVPixelFormat, w: i32, h: i32) -> Option<Layout> {
    // (Only for formats whose frames come from the frame memory: the caller checks.)
    let (linesize, h) = super::frames::decoder_linesizes(ctx, format, (w, h), ALIGN as i32)?;
    let pitches = linesize.map(|l| l as isize);
    let mut sizes = [0usize; 4];
    if ffi::av_image_fill_plane_sizes(sizes.as_mut_ptr(), format, h, pitches.as_ptr()) < 0 {
        return None;
    }
    let mut offsets = [0usize; 4];
    let mut total = 0usize;
    for (i, &size) in sizes.iter().enumerate() {
        if size == 0 {
            break;
        }
        offsets[i] = total;
        total = total.checked_add(size + PLANE_PADDING)?.next_multiple_of(ALIGN);
    }
    Some(Layout {
        linesize,
        offsets,
        total,
        rows: h,
    })
}

/// `AVCodecContext.get_buffer2` for a software decoder whose `opaque` is its stream's
/// `DirectFrames`: a frame in a slot of its pool where it has one free, else laid out alike in
/// frame memory.
///
/// # Safety
/// Called by FFmpeg with a valid context and a frame to fill; `opaque` is null or a
/// `DirectFrames` that outlives the context.
pub unsafe extern "C" fn get_buffer2_direct(
    ctx: *mut ffi::AVCodecContext,
    frame: *mut ffi::AVFrame,
    flags: i32,
) -> i32 {
    let direct = (*ctx).opaque as *const DirectFrames;
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let layout = match direct.is_null() || !super::frames::takes_frame_memory(ctx, format) {
        true => None,
        false => layout(ctx, format, (*frame).width, (*frame).height),
    };
    let Some(layout) = layout else {
        return super::frames::get_buffer2(ctx, frame, flags);
    };
    let filled = match fill_slot(&*direct, &layout, frame) {
        true => Ok(()),
        false => super::frames::fill_planes(frame, layout.linesize, layout.rows),
    };
    match filled {
        Ok(()) => {
            super::frames::clear_if_unwritten(ctx, frame);
            0
        }
        Err(code) => code,
    }
}

/// `get_buffer2`'s way into the pool: lays `frame` out as `layout` says in a free slot of
/// `direct`'s pool, if it has one and the frame fits it; false where it doesn't (the frame
/// takes frame memory, laid out alike: a decoder keeps its first frame's pitch for all).
///
/// # Safety
/// As `get_buffer2`: `frame` is FFmpeg's, without buffers.
unsafe fn fill_slot(direct: &DirectFrames, layout: &Layout, frame: *mut ffi::AVFrame) -> bool {
    let Some(pool) = direct.pool.get() else {
        return false;
    };
    let Layout {
        linesize,
        offsets,
        total,
        ..
    } = *layout;
    if total > pool.slot_bytes {
        return false;
    }
    let Some((slot, at)) = pool.take() else {
        return false;
    };
    let lent = Box::into_raw(Box::new(Lent {
        pool: Arc::clone(pool),
        slot,
    }));
    let buffer = ffi::av_buffer_create(at, total, Some(give_back), lent.cast(), 0);
    if buffer.is_null() {
        give_back(lent.cast(), at);
        return false;
    }
    (*frame).buf[0] = buffer;
    for i in 0..4 {
        if linesize[i] > 0 {
            (*frame).data[i] = at.add(offsets[i]);
            (*frame).linesize[i] = linesize[i];
        }
    }
    (*frame).extended_data = (*frame).data.as_mut_ptr();
    true
}
