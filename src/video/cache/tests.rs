//! The frame cache's neighbours and chains, and its eviction within its budget: against the frame
//! memory held outside it, the process's resident memory, and the GPU frame cache's budget.

use super::budget::RESIDENT_MARGIN;
use super::*;
use crate::video::memory::HEADROOM;

struct Frame(usize);

impl ByteSize for Frame {
    fn bytes(&self) -> usize {
        self.0
    }
}

/// Frames `range` inserted as one decode run (each the neighbour of the one before).
fn run(cache: &mut FrameCache<Frame>, range: std::ops::Range<i64>) {
    let mut previous = None;
    for pts in range {
        cache.insert(pts, Frame(10), previous);
        previous = Some(pts);
    }
}

#[test]
fn neighbours_are_known_only_within_a_run() {
    let mut cache = FrameCache::new(usize::MAX);
    run(&mut cache, 10..20);
    run(&mut cache, 30..35);
    assert_eq!(cache.next_of(12), Some(13));
    assert_eq!(cache.previous_of(13), Some(12));
    assert_eq!(cache.next_of(19), None, "30 is not known to follow 19");
    assert_eq!(cache.previous_of(30), None);
    assert_eq!(cache.chain_behind(17), (8, Some(10)));
    assert_eq!(cache.chain_behind(32), (3, Some(30)));
    assert_eq!(cache.last_at_or_before(15), Some(15));
    assert_eq!(cache.last_at_or_before(25), None, "a frame may lie between 19 and 30");
    assert_eq!(cache.last_at_or_before(5), None);
    // A later run that passes 19 → 30 links them.
    cache.insert(30, Frame(10), Some(19));
    assert_eq!(cache.next_of(19), Some(30));
    assert_eq!(cache.last_at_or_before(25), Some(19));
    assert_eq!(cache.chain_behind(34), (15, Some(10)));
    assert_eq!(cache.bytes(), 150, "re-inserting keeps one copy");
}

/// A frame of 100 bytes of `memory`.
struct Counted(#[allow(dead_code)] crate::video::memory::Reservation);

impl ByteSize for Counted {
    fn bytes(&self) -> usize {
        100
    }
}

#[test]
fn frame_memory_held_outside_the_cache_takes_its_room() {
    // Frames of 100 bytes, a budget of 1000 bytes over all of a frame memory in which 600
    // bytes of staging are held besides: room for 4 frames.
    let memory: &'static FrameMemory = Box::leak(Box::new(FrameMemory::new()));
    let mut cache = FrameCache::within(1000, memory);
    // The process's resident memory is not this test's business.
    cache.resident = || None;
    let staging = memory.reserve(600);
    let insert = |cache: &mut FrameCache<Counted>, range: std::ops::Range<i64>| {
        for pts in range {
            cache.insert(pts, Counted(memory.reserve(100)), pts.checked_sub(1));
        }
    };
    insert(&mut cache, 0..8);
    assert_eq!(cache.budget(), 400);
    cache.evict(7, &[]);
    assert_eq!(cache.len(), 4, "400 bytes hold 4 frames");
    assert_eq!(memory.held(), 1000);
    // With the staging gone the room comes back.
    drop(staging);
    assert_eq!(cache.budget(), 1000);
    insert(&mut cache, 8..20);
    cache.evict(19, &[]);
    assert_eq!(cache.len(), 10);
}

/// A frame in a block of `memory`, shared with the uploads, given back when the last of
/// them lets go.
struct InBlock(std::rc::Rc<crate::video::memory::Lent>);

impl ByteSize for InBlock {
    fn bytes(&self) -> usize {
        self.0.size()
    }
}

#[test]
fn a_full_cache_streams_through_the_blocks_of_the_frames_it_lets_go() {
    // Room for 100 frames of 1 MiB; the last 3 frames are still being uploaded as the next
    // decodes, and now and then the decoder holds 8 more frames for a while (a burst of
    // frame threads). Once full, each frame evicted leaves its block for one decoded
    // later: nothing is mapped afresh but for the burst's own frames.
    let memory: &'static FrameMemory = Box::leak(Box::new(FrameMemory::new()));
    let size = 1 << 20;
    let mut cache = FrameCache::within(100 * size, memory);
    cache.resident = || None;
    let mut uploading = std::collections::VecDeque::new();
    let mut burst = Vec::new();
    let mut stream = |cache: &mut FrameCache<InBlock>, range: std::ops::Range<i64>| {
        for pts in range {
            match pts % 50 {
                0 => burst = (0..8).map(|_| memory.lend_block(size)).collect(),
                10 => burst.clear(),
                _ => {}
            }
            let frame = std::rc::Rc::new(memory.lend_block(size));
            uploading.push_back(std::rc::Rc::clone(&frame));
            if uploading.len() > 3 {
                uploading.pop_front();
            }
            cache.insert(pts, InBlock(frame), pts.checked_sub(1));
            cache.evict(pts, &[]);
        }
    };
    stream(&mut cache, 0..300);
    let mapped = memory.mapped();
    assert!(mapped >= 50 * size, "the cache's frames were mapped: {mapped}");
    stream(&mut cache, 300..600);
    assert!(
        memory.mapped() - mapped <= 6 * 8 * size,
        "streaming on maps {} MiB afresh",
        (memory.mapped() - mapped) >> 20
    );
    assert!(cache.len() >= 30, "the cache keeps its frames: {}", cache.len());
}

#[test]
fn a_cache_of_no_budget_leaves_the_spare_blocks_to_the_next_frames() {
    // A pass-through cache (the timeline's decoder) keeps one frame: each frame it lets go
    // is the block the next one decodes into.
    let memory: &'static FrameMemory = Box::leak(Box::new(FrameMemory::new()));
    let size = 1 << 20;
    let mut cache = FrameCache::within(0, memory);
    cache.resident = || None;
    for pts in 0..100 {
        cache.insert(
            pts,
            InBlock(std::rc::Rc::new(memory.lend_block(size))),
            pts.checked_sub(1),
        );
        cache.evict(pts, &[]);
    }
    assert_eq!(cache.len(), PASS_THROUGH_FRAMES);
    assert_eq!(memory.mapped(), 2 * size, "two blocks in turn");
}

#[test]
fn the_process_resident_memory_limits_the_cache_too() {
    // A budget of 1 GiB and frames of 100 bytes; the process's resident memory is 160 MiB
    // below what its budget and headroom allow, less the margin, with the cache's frames in it.
    let memory: &'static FrameMemory = Box::leak(Box::new(FrameMemory::new()));
    let mut cache = FrameCache::within(1 << 30, memory);
    fn resident() -> Option<usize> {
        Some((1 << 30) + HEADROOM - RESIDENT_MARGIN - 200 - (160 << 20))
    }
    cache.resident = resident;
    cache.insert(0, Counted(memory.reserve(100)), None);
    cache.insert(1, Counted(memory.reserve(100)), Some(0));
    // Room: the 160 MiB below the limit and the cache's own 200 bytes, less a full spare
    // pool's (the blocks of the frames it lets go wait there, still resident).
    assert_eq!(cache.budget(), (160 << 20) + 200 - memory.spare_pool_limit());
    fn crowded() -> Option<usize> {
        Some(4 << 30)
    }
    cache.resident = crowded;
    assert_eq!(cache.budget(), 0);
    cache.evict(1, &[]);
    assert_eq!(cache.len(), MIN_FRAMES.min(2), "small frames: the minimum stays");
}

/// The frame memory of `frames_a_landing_kept_stay_through_a_run_of_back_steps`, which its
/// resident reading counts.
static STEPPED: FrameMemory = FrameMemory::new();

#[test]
fn frames_a_landing_kept_stay_through_a_run_of_back_steps() {
    // Frames of 1 MiB within a budget of 1 GiB, which the process's resident memory limits:
    // besides its frame memory, the process holds what leaves 104 MiB below the limit (as a
    // GPU driver's mappings do). A landing decodes frames 0..100, evicting as it goes, and
    // the decoder then holds 5 frames in flight. What the cache holds then is what its
    // budget holds: a run of 30 steps back, each answered from the cache (the frame shown,
    // then the one after it, sent ahead while paused), must not let any of it go. The blocks
    // of the frames the cache lets go wait in the spare pool, still resident: counted as it
    // fills, every frame let go would take the room of another at the next look, and each
    // step would cost two frames more.
    const MIB: usize = 1 << 20;
    const LIMIT: usize = (1 << 30) + HEADROOM - RESIDENT_MARGIN - 2 * MIB;
    fn resident() -> Option<usize> {
        Some(LIMIT - 104 * MIB + STEPPED.held())
    }
    let mut cache = FrameCache::within(1 << 30, &STEPPED);
    cache.resident = resident;
    for pts in 0..100 {
        let frame = InBlock(std::rc::Rc::new(STEPPED.lend_block(MIB)));
        cache.insert(pts, frame, pts.checked_sub(1));
        cache.evict(pts, &[pts]);
    }
    let in_flight: Vec<_> = (0..5).map(|_| STEPPED.lend_block(MIB)).collect();
    cache.evict(99, &[99]);
    let held = |cache: &FrameCache<InBlock>| (0..100).filter(|&p| cache.contains(p)).collect::<Vec<i64>>();
    let landed = held(&cache);
    for here in (69..99).rev() {
        cache.evict(here, &[here]);
        cache.evict(here + 1, &[here + 1]);
    }
    assert_eq!(held(&cache), landed, "the steps back let frames go");
    // 104 MiB: a full spare pool, the 5 frames in flight, and the 35 frames nearest 99.
    let room = 104 - 5 - STEPPED.spare_pool_limit() / MIB;
    assert_eq!(landed, (100 - room as i64..100).collect::<Vec<_>>());
    assert!(resident().is_some_and(|r| r <= LIMIT), "within the budget and headroom");
    drop(in_flight);
}

/// The frame memory of `a_fill_never_makes_a_hole_in_the_frames_behind_the_anchor`, and the
/// rest of the process's resident memory there (moving as the GPU driver maps or unmaps).
static FILLED: FrameMemory = FrameMemory::new();
static FILLED_OTHER: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_fill_never_makes_a_hole_in_the_frames_behind_the_anchor() {
    // Frames of 100 bytes; the resident memory leaves room for 21 of them beside a full
    // spare pool. The cache holds frames 20..=40 behind the frame shown (40), all linked.
    fn resident() -> Option<usize> {
        Some(FILLED_OTHER.load(Ordering::Relaxed) + FILLED.held())
    }
    let limit = (1 << 30) + HEADROOM - RESIDENT_MARGIN - 200;
    let other = limit - FILLED.spare_pool_limit() - 21 * 100;
    FILLED_OTHER.store(other, Ordering::Relaxed);
    let mut cache = FrameCache::within(1 << 30, &FILLED);
    cache.resident = resident;
    for pts in 20..=40 {
        cache.insert(pts, Counted(FILLED.reserve(100)), pts.checked_sub(1));
        cache.evict(40, &[40]);
    }
    assert_eq!(cache.chain_behind(40), (21, Some(20)));
    // The process maps 300 bytes more, and a fill started for frames 10..20 (before the
    // head, 20) brings them in order: they are the farthest from 40, and go first. So do
    // the three farthest of the chain, but never one between them and 40.
    FILLED_OTHER.store(other + 300, Ordering::Relaxed);
    for pts in 10..20 {
        cache.insert_behind(pts, Counted(FILLED.reserve(100)), pts.checked_sub(1), 40);
    }
    assert_eq!(cache.chain_behind(40), (18, Some(23)));
    assert_eq!(
        cache.len(),
        18,
        "nothing else is held: {:?}",
        (10..=40).filter(|&p| cache.contains(p)).collect::<Vec<_>>()
    );
}

#[test]
fn eviction_keeps_what_is_near_and_behind_the_anchor() {
    let mut cache = FrameCache::new(100);
    run(&mut cache, 0..40);
    cache.evict(30, &[]);
    assert_eq!(cache.len(), 10);
    // Behind counts once, ahead three times: 23..=29 behind (costs 7..1), 31 and 32 ahead
    // (costs 3, 6) stay; 22 (8) and 33 (9) go.
    let kept: Vec<i64> = (0..40).filter(|&p| cache.contains(p)).collect();
    assert_eq!(kept, vec![23, 24, 25, 26, 27, 28, 29, 30, 31, 32]);
    // The budget never goes below MIN_FRAMES frames, and a cache of no budget keeps what
    // passes through.
    let mut tiny = FrameCache::new(1);
    run(&mut tiny, 0..10);
    tiny.evict(9, &[]);
    assert_eq!(tiny.len(), MIN_FRAMES);
    let mut none = FrameCache::new(0);
    run(&mut none, 0..10);
    none.evict(9, &[]);
    assert_eq!(none.len(), PASS_THROUGH_FRAMES);
    // Kept frames survive whatever their distance.
    let mut cache = FrameCache::new(50);
    run(&mut cache, 0..20);
    cache.evict(19, &[0]);
    assert!(cache.contains(0) && cache.contains(19) && !cache.contains(1));
}

/// A frame in the GPU frame cache: nothing in memory.
struct OnGpu(usize);

impl ByteSize for OnGpu {
    fn bytes(&self) -> usize {
        0
    }

    fn gpu_bytes(&self) -> usize {
        self.0
    }
}

#[test]
fn frames_on_the_gpu_are_kept_within_the_gpu_budget_not_the_memory_one() {
    // No memory budget at all: frames on the GPU don't take any.
    let mut cache = FrameCache::new(0);
    cache.set_gpu_budget(100);
    let mut previous = None;
    for pts in 0..30 {
        cache.insert(pts, OnGpu(10), previous);
        previous = Some(pts);
        cache.evict(pts, &[pts]);
    }
    // Ten frames of 10 bytes: the newest, nearest the anchor.
    assert_eq!(cache.len(), 10);
    assert_eq!(cache.bytes(), 0);
    assert_eq!((20..30).filter(|&p| cache.contains(p)).count(), 10);
    let fill = cache.gauge().read();
    assert_eq!((fill.gpu_bytes, fill.gpu_budget, fill.frames), (100, 100, 10));
    // Stepping back from 25: frames behind it are worth three times those ahead.
    cache.set_gpu_budget(60);
    cache.evict(25, &[25]);
    let held: Vec<i64> = (0..30).filter(|&p| cache.contains(p)).collect();
    assert_eq!(held, vec![21, 22, 23, 24, 25, 26]);
    cache.clear();
    assert_eq!(cache.gauge().read().gpu_bytes, 0);
}

#[test]
fn only_frames_of_the_kind_over_its_budget_are_let_go() {
    // A stream whose frames went to the GPU frame cache, but for a few that went through
    // memory (the GPU frame cache was full).
    enum Either {
        Memory(Frame),
        Gpu(OnGpu),
    }
    impl ByteSize for Either {
        fn bytes(&self) -> usize {
            match self {
                Either::Memory(f) => f.bytes(),
                Either::Gpu(f) => f.bytes(),
            }
        }
        fn gpu_bytes(&self) -> usize {
            match self {
                Either::Memory(f) => f.gpu_bytes(),
                Either::Gpu(f) => f.gpu_bytes(),
            }
        }
    }
    let mut cache = FrameCache::new(25);
    cache.set_gpu_budget(1000);
    let mut previous = None;
    for pts in 0..10 {
        let frame = match pts % 3 {
            0 => Either::Memory(Frame(10)),
            _ => Either::Gpu(OnGpu(10)),
        };
        cache.insert(pts, frame, previous);
        previous = Some(pts);
    }
    // 40 bytes in memory (frames 0, 3, 6, 9) against 25: the farthest of those go, not the
    // frames on the GPU around them.
    cache.evict(9, &[9]);
    let held: Vec<i64> = (0..10).filter(|&p| cache.contains(p)).collect();
    assert_eq!(held, vec![1, 2, 4, 5, 6, 7, 8, 9]);
    assert_eq!((cache.bytes(), cache.gauge().read().gpu_bytes), (20, 60));
    // And over the GPU's budget, only frames on the GPU go.
    cache.set_gpu_budget(30);
    cache.evict(9, &[9]);
    let held: Vec<i64> = (0..10).filter(|&p| cache.contains(p)).collect();
    assert_eq!(held, vec![5, 6, 7, 8, 9]);
    assert_eq!((cache.bytes(), cache.gauge().read().gpu_bytes), (20, 30));
}
