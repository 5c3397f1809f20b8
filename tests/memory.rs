//! The frame cache's budget covers all of the process's frame memory but a small pool of blocks
//! kept for the next frames: the frames the decoder holds in flight and the upload's staging
//! included, and the memory goes back when a file
//! closes. (A test file of its own: the frame memory is the process's, and other tests would
//! use it at the same time.)

mod common;

use common::pipeline::Pipeline;
use histoplay::video::memory::FRAME_MEMORY;
use histoplay::video::source::SeekTarget;

/// 120 frames of 640x360 H.264 in GOPs of 60: 345 KB a frame as decoded.
fn clip() -> std::path::PathBuf {
    common::fixture(
        "testsrc2-640x360-gop60.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=640x360:r=30:d=4",
            "-c:v",
            "libx264",
            "-g",
            "60",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

#[test]
fn frame_memory_stays_within_the_cache_budget_and_goes_back_when_the_file_closes() {
    let frame = 640 * 360 * 3 / 2;
    let budget = 16 << 20;
    let before = FRAME_MEMORY.held();
    let mut p = Pipeline::with_cache(&clip(), budget);
    let mut highest = 0;
    // The small pool of blocks kept for the next frames is outside the budget.
    let mut note = || highest = highest.max(FRAME_MEMORY.held() - FRAME_MEMORY.spare_pool() - before);
    // Played through, then stepped back over the GOP boundary, then a seek: the cache fills
    // (48 frames would take 16 MiB by themselves) and gives way to the decoder's frames.
    for _ in 0..120 {
        p.next();
        note();
    }
    p.seek(SeekTarget::Frame(100));
    note();
    for n in (40..100).rev() {
        p.seek(SeekTarget::Frame(n));
        note();
    }
    // What comes between the cache's looks: a frame or two decoded and not yet in it.
    assert!(
        highest <= budget + 2 * frame,
        "{highest} bytes of frame memory against a budget of {budget}"
    );
    assert!(highest >= budget / 2, "the cache was used: {highest} bytes at most");
    drop(p);
    // Every frame, plane and staging buffer is back with the system (blocks kept for reuse
    // aside, which the next stream would take).
    FRAME_MEMORY.release_spare();
    assert_eq!(FRAME_MEMORY.held(), before, "frame memory left after the file closed");
}
