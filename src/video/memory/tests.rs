//! Frame memory counted while it is lent and reused after, watchers woken past their budget, and
//! the layout of the frames made from it.

use super::*;
use ffmpeg::ffi;
use ffmpeg_next as ffmpeg;

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
