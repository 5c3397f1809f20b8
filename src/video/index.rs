//! The frame-number index of a video stream: the presentation timestamps of its frames, read by
//! a demux-only thread with a format context of its own, in the background, so a file opens at
//! once whatever its length. Frame K is the K-th timestamp in presentation order (FFmpeg's
//! `select=eq(n\,K)`); a frame past what the index covers yet gets an estimated number.

use ffmpeg_next as ffmpeg;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Packets in decode order whose smallest pts bounds every later frame's pts from below. A
/// decoder holds at most 16 frames back for reordering (H.264's and HEVC's limit), so among
/// any 17 consecutive packets one has been output, and every later frame comes after it; the
/// window is twice that, for margin.
pub const REORDER_WINDOW: usize = 33;

/// A frame's number in presentation order, and whether the index vouches for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameNumber {
    pub n: u64,
    /// False while the index has not read that far: `n` is estimated from the frame rate.
    pub exact: bool,
}

/// The index as it grows, packet by packet in decode order. Pure: the reading thread feeds it,
/// tests feed it timestamps directly.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    /// Every frame's pts read so far, sorted, without duplicates.
    pts: Vec<i64>,
    /// Pts of the keyframes read so far, sorted.
    keyframes: Vec<i64>,
    /// The last REORDER_WINDOW packets' pts, oldest first.
    recent: std::collections::VecDeque<i64>,
    /// Every frame with a pts at or before this is in `pts`.
    covered: Option<i64>,
    complete: bool,
    /// A packet without any timestamp, or two frames with one: frames can't be numbered by
    /// the index.
    unusable: bool,
    /// The first timestamp frames share (the reason the index is unusable, where that is it);
    /// the frames at a time an earlier one has, at that first one and in all.
    shared_pts: Option<i64>,
    first_repeats: u64,
    repeats: u64,
    /// Packets without any timestamp, and the number (in decode order, from 0) of the first.
    untimed: u64,
    first_untimed: Option<u64>,
    packets: u64,
}

impl IndexBuilder {
    /// Takes in the next packet of the stream, in decode order.
    pub fn push(&mut self, pts: Option<i64>, key: bool) {
        self.packets += 1;
        let Some(pts) = pts else {
            self.unusable = true;
            self.untimed += 1;
            self.first_untimed.get_or_insert(self.packets - 1);
            return;
        };
        let at = self.pts.partition_point(|&p| p < pts);
        if self.pts.get(at) == Some(&pts) {
            // Two frames at one time: which is which can't be told by time.
            self.unusable = true;
            self.repeats += 1;
            if *self.shared_pts.get_or_insert(pts) == pts {
                self.first_repeats += 1;
            }
            return;
        }
        self.pts.insert(at, pts);
        if key {
            let at = self.keyframes.partition_point(|&p| p < pts);
            if self.keyframes.get(at) != Some(&pts) {
                self.keyframes.insert(at, pts);
            }
        }
        if self.recent.len() == REORDER_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(pts);
        if self.recent.len() == REORDER_WINDOW {
            let floor = self.recent.iter().copied().min().unwrap_or(i64::MIN);
            self.covered = Some(self.covered.map_or(floor, |c| c.max(floor)));
        }
    }

    /// The stream has no more packets.
    pub fn finish(&mut self) {
        self.complete = true;
        self.covered = Some(i64::MAX);
    }

    /// Why frames can't be numbered by the index, in a few words (where they can't).
    fn why_unusable(&self) -> String {
        match (self.shared_pts, self.first_untimed) {
            (Some(pts), _) => {
                let more = match self.repeats - self.first_repeats {
                    0 => String::new(),
                    1 => ", 1 more frame at another's time".into(),
                    n => format!(", {n} more frames at others' times"),
                };
                format!(
                    "frames share timestamps ({} at pts {pts}{more})",
                    self.first_repeats + 1
                )
            }
            (None, _) if self.untimed == self.packets => "frames have no timestamps".into(),
            (None, first) => format!(
                "{} of its {} frames {} no timestamp (the first is frame {} in decode order)",
                self.untimed,
                self.packets,
                if self.untimed == 1 { "has" } else { "have" },
                first.unwrap_or(0)
            ),
        }
    }

    pub fn is_complete(&self) -> bool {
        self.complete && !self.unusable
    }

    fn usable(&self) -> bool {
        !self.unusable
    }

    /// Frames whose numbers are certain: those with pts at or before the covered bound.
    fn exact_count(&self) -> usize {
        match self.covered {
            Some(bound) if self.usable() => self.pts.partition_point(|&p| p <= bound),
            _ => 0,
        }
    }

    /// Number of the frame shown at `pts` (the last one at or before it), estimated from
    /// `ticks_per_frame` past the covered part.
    pub fn number_at(&self, pts: i64, ticks_per_frame: f64, first_pts: Option<i64>) -> FrameNumber {
        let exact = self.usable() && self.covered.is_some_and(|c| pts <= c);
        if exact {
            let n = self.pts.partition_point(|&p| p <= pts).saturating_sub(1);
            return FrameNumber { n: n as u64, exact };
        }
        let known = self.exact_count();
        let (n0, p0) = match known.checked_sub(1) {
            Some(last) if self.pts[last] <= pts => (last as f64, self.pts[last]),
            _ => (0.0, self.pts.first().copied().or(first_pts).unwrap_or(pts).min(pts)),
        };
        let n = n0 + ((pts - p0) as f64 / ticks_per_frame.max(1e-9)).round();
        FrameNumber {
            n: n.max(0.0) as u64,
            exact: false,
        }
    }

    /// Pts of frame `n`, when the index vouches for it.
    pub fn pts_of(&self, n: u64) -> Option<i64> {
        (n < self.exact_count() as u64).then(|| self.pts[n as usize])
    }

    /// Frames in the stream, once the whole of it has been read.
    pub fn frame_count(&self) -> Option<u64> {
        self.is_complete().then_some(self.pts.len() as u64)
    }

    /// The last keyframe at or before `pts`, if the index has read that far.
    pub fn keyframe_at_or_before(&self, pts: i64) -> Option<i64> {
        if !self.usable() || self.covered.is_none_or(|c| c < pts) {
            return None;
        }
        let at = self.keyframes.partition_point(|&k| k <= pts);
        at.checked_sub(1).map(|i| self.keyframes[i])
    }

    /// Whether the index is certain there is a keyframe in (`after`, `until`]; None when it has
    /// not read that far.
    pub fn keyframe_between(&self, after: i64, until: i64) -> Option<bool> {
        if !self.usable() || self.covered.is_none_or(|c| c < until) {
            return None;
        }
        let from = self.keyframes.partition_point(|&k| k <= after);
        Some(self.keyframes.get(from).is_some_and(|&k| k <= until))
    }

    /// The pts of the stream's first frame, once the index has read far enough to know it.
    pub fn first_pts(&self) -> Option<i64> {
        (self.usable() && self.covered.is_some())
            .then(|| self.pts.first().copied())
            .flatten()
    }

    /// Frame numbers of the keyframes, once complete.
    pub fn keyframe_numbers(&self) -> Option<Vec<u64>> {
        self.is_complete().then(|| {
            self.keyframes
                .iter()
                .map(|k| self.pts.partition_point(|p| p < k) as u64)
                .collect()
        })
    }

    /// The pts of the first and last frames read so far.
    fn pts_span(&self) -> Option<(i64, i64)> {
        Some((*self.pts.first()?, *self.pts.last()?))
    }

    /// The pts of the first and last frames, once complete.
    pub fn span(&self) -> Option<(i64, i64)> {
        self.is_complete().then(|| self.pts_span()).flatten()
    }
}

/// How far the reading thread has got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexProgress {
    pub packets: u64,
    /// Bytes of the file read through the index's own IO.
    pub bytes: u64,
    pub complete: bool,
    /// The reading stopped on an error or a packet without timestamps: frame numbers past what
    /// it read stay estimates.
    pub failed: bool,
}

struct Shared {
    builder: IndexBuilder,
    progress: IndexProgress,
}

/// The index of one stream, shared by the decoder, the player's display and `hist`.
pub struct FrameIndex {
    shared: Mutex<Shared>,
    grown: Condvar,
    stop: AtomicBool,
    /// Makes the reading thread's blocking reads give up once stopped (a stalled server).
    interrupt: crate::video::input::Interrupt,
    reader: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Stream time-base ticks per frame, for estimates.
    ticks_per_frame: f64,
    /// The stream's start as the container states it, for estimates before any frame is read.
    start_pts: Option<i64>,
    /// Frames in the stream as the container states or its duration implies; None if unknown.
    pub estimated_count: Option<u64>,
    /// Where the file's timestamps start over, as the reading finds it (`continuity`).
    clock: Arc<crate::video::continuity::FileClock>,
}

/// Packets read between two publications to the shared index (and checks of the stop flag).
const BATCH: usize = 64;

impl FrameIndex {
    /// An index that has everything already (tests, and formats read whole anyway).
    pub fn from_packets(packets: impl IntoIterator<Item = (Option<i64>, bool)>, ticks_per_frame: f64) -> Arc<Self> {
        let mut builder = IndexBuilder::default();
        for (pts, key) in packets {
            builder.push(pts, key);
        }
        builder.finish();
        let index = Self::empty(ticks_per_frame, None, None);
        {
            let mut shared = index.lock();
            shared.progress.complete = true;
            shared.progress.failed = builder.unusable;
            shared.builder = builder;
        }
        Arc::new(index)
    }

    fn empty(ticks_per_frame: f64, start_pts: Option<i64>, estimated_count: Option<u64>) -> Self {
        Self {
            shared: Mutex::new(Shared {
                builder: IndexBuilder::default(),
                progress: IndexProgress::default(),
            }),
            grown: Condvar::new(),
            stop: AtomicBool::new(false),
            interrupt: Default::default(),
            reader: Mutex::new(None),
            ticks_per_frame,
            start_pts,
            estimated_count,
            clock: Arc::default(),
        }
    }

    /// An index that reads nothing (a live input, read once by its decoder): frames are
    /// numbered as they come, counted from the first.
    pub fn unread(ticks_per_frame: f64, start_pts: Option<i64>) -> Arc<Self> {
        let index = Self::empty(ticks_per_frame, start_pts, None);
        index.lock().progress.failed = true;
        Arc::new(index)
    }

    /// Starts reading stream `stream_index` of `path` on a thread of its own, at low priority.
    pub fn start(
        path: &Path,
        stream_index: usize,
        ticks_per_frame: f64,
        start_pts: Option<i64>,
        estimated_count: Option<u64>,
    ) -> Arc<Self> {
        let mut index = Self::empty(ticks_per_frame, start_pts, estimated_count);
        index.clock = crate::video::continuity::FileClock::register(path);
        let index = Arc::new(index);
        let reader = Arc::clone(&index);
        let path = path.to_owned();
        let spawned = std::thread::Builder::new()
            .name("histoplay index".into())
            .spawn(move || {
                lower_priority();
                reader.read(&path, stream_index);
            });
        match spawned {
            Ok(handle) => *index.reader.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle),
            Err(e) => {
                log::warn!("cannot start the frame index: {e}; frame numbers are estimates");
                index.lock().progress.failed = true;
            }
        }
        index
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stops the reading thread (the file was closed) and waits for it: it checks between
    /// batches of packets, so this takes a moment at most.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.interrupt.interrupt();
        let reader = self.reader.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(reader) = reader {
            if reader.thread().id() != std::thread::current().id() {
                let _ = reader.join();
            }
        }
    }

    fn read(&self, path: &Path, stream_index: usize) {
        let failed = match self.read_packets(path, stream_index) {
            Ok(()) => false,
            Err(reason) => {
                if !self.stop.load(Ordering::Relaxed) {
                    log::warn!(
                        "{}: the frame index stopped ({reason}); later frame numbers are estimates",
                        path.display()
                    );
                }
                true
            }
        };
        let mut shared = self.lock();
        if failed {
            shared.progress.failed = true;
        } else {
            shared.builder.finish();
            shared.progress.complete = true;
            shared.progress.failed = shared.builder.unusable;
            // (One picture, a song's cover, is frame 0 with a timestamp or without.)
            if shared.builder.unusable && shared.builder.packets > 1 && !self.stop.load(Ordering::Relaxed) {
                let why = shared.builder.why_unusable();
                log::warn!("{}: {why}; frame numbers count from the start", path.display());
            }
        }
        drop(shared);
        self.grown.notify_all();
    }

    fn read_packets(&self, path: &Path, stream_index: usize) -> Result<(), String> {
        let mut input = crate::video::input::open(path, &self.interrupt)?;
        // Only the video stream's packets matter: demuxers skip the others' data. Where the
        // timestamps may start over, the sound's are read too, as every reader of the file
        // reads them (`continuity`).
        super::demux::discard_other_streams(&mut input, stream_index);
        let mut continuity = super::continuity::IndexReading::of(&mut input, stream_index, Arc::clone(&self.clock));
        // Frames a demuxer dropped as damage (a Matroska cluster it could not read).
        let mut lost = super::missing::LostFromFile::new(&input, stream_index, continuity.is_some());
        let mut batch: Vec<(Option<i64>, bool)> = Vec::with_capacity(BATCH);
        let codec = input.stream(stream_index).map(|s| s.parameters().id());
        let mut anchors = super::anchors::AnchorTimes::new(codec.unwrap_or(ffmpeg::codec::Id::None));
        let mut damage = super::missing::ContainerDamage::default();
        let mut packets = 0u64;
        loop {
            let mut packet = ffmpeg::Packet::empty();
            // What FFmpeg logs as it reads is damage the demuxer read past.
            crate::video::ffmpeg_log::clear();
            let end = match packet.read(&mut input) {
                Ok(()) => false,
                Err(ffmpeg::Error::Eof) => true,
                Err(e) => return Err(format!("read error: {e}")),
            };
            // (A read the interrupt cut short, the file being closed (`stop` sets it) or the
            // process quitting, is no damage: what FFmpeg makes of the packet it was reading is
            // not the file's.)
            let closing = || self.interrupt.is_set() || crate::video::input::quitting();
            if let Some(line) = crate::video::ffmpeg_log::take().filter(|_| !closing()) {
                damage.note(&line, end, path);
                lost.damaged();
            }
            if let (false, Some(continuity)) = (end, &mut continuity) {
                continuity.take(&mut packet, &input, path);
            }
            if !end && packet.stream() == stream_index {
                lost.packet(&packet, self.stop.load(Ordering::Relaxed), path);
                // Packets the decoder is told to discard (before an edit list's start) never
                // become frames. (Read from the packet itself: ffmpeg-next's flags know only
                // KEY and CORRUPT, and drop the rest.)
                // SAFETY: reads one plain field of a valid packet.
                let flags = unsafe { (*ffmpeg::packet::Ref::as_ptr(&packet)).flags };
                let discard = flags & ffmpeg::ffi::AV_PKT_FLAG_DISCARD != 0;
                if !discard {
                    anchors.take(packet.pts(), packet.dts(), packet.is_key(), |t, key| {
                        batch.push((t, key))
                    });
                }
                packets += 1;
            }
            if end || batch.len() >= BATCH {
                if self.stop.load(Ordering::Relaxed) {
                    return Err("stopped".into());
                }
                // SAFETY: a valid input context; pb is its IO context (null for some formats).
                let bytes = unsafe {
                    let pb = (*input.as_ptr()).pb;
                    if pb.is_null() {
                        0
                    } else {
                        (*pb).bytes_read.max(0) as u64
                    }
                };
                let mut shared = self.lock();
                for (pts, key) in batch.drain(..) {
                    shared.builder.push(pts, key);
                }
                if end {
                    let latest = shared.builder.pts.last().copied();
                    anchors.finish(latest, self.ticks_per_frame, |pts, key| shared.builder.push(pts, key));
                }
                shared.progress.packets = packets;
                shared.progress.bytes = bytes;
                drop(shared);
                self.grown.notify_all();
            }
            if end {
                if !self.stop.load(Ordering::Relaxed) {
                    if let Some(continuity) = &mut continuity {
                        continuity.finish(path);
                    }
                    lost.finish(path);
                    let span = self.lock().builder.pts_span();
                    super::missing::say_if_cut_short(path, &input, stream_index, (packets, span, self.ticks_per_frame));
                }
                return Ok(());
            }
        }
    }

    /// Number of the frame shown at `pts`: exact once the index has read that far.
    pub fn number_at(&self, pts: i64) -> FrameNumber {
        self.lock().builder.number_at(pts, self.ticks_per_frame, self.start_pts)
    }

    /// Pts of frame `n`, if the index vouches for it already.
    pub fn pts_of(&self, n: u64) -> Option<i64> {
        self.lock().builder.pts_of(n)
    }

    /// An estimate of frame `n`'s pts, for seeks the index can't answer yet.
    pub fn estimated_pts_of(&self, n: u64) -> i64 {
        let shared = self.lock();
        let builder = &shared.builder;
        let known = builder.exact_count();
        let (n0, p0) = match known.checked_sub(1) {
            Some(last) if (last as u64) <= n => (last as u64, builder.pts[last]),
            _ => (0, builder.pts.first().copied().or(self.start_pts).unwrap_or(0)),
        };
        p0 + ((n - n0) as f64 * self.ticks_per_frame).round() as i64
    }

    /// Waits until `answer` has one, or the index will read no more (then `answer` gets its
    /// last say with `done` true).
    fn wait_for<T>(&self, answer: impl Fn(&IndexBuilder, bool) -> Option<T>) -> T {
        let mut shared = self.lock();
        loop {
            let done = shared.progress.complete || shared.progress.failed;
            if let Some(value) = answer(&shared.builder, done) {
                return value;
            }
            shared = self
                .grown
                .wait_timeout(shared, Duration::from_millis(100))
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Waits until the index vouches for frame `n`: its pts, or None if the stream has fewer
    /// frames (or the index can't number frames).
    pub fn wait_pts_of(&self, n: u64) -> Option<i64> {
        self.wait_for(|builder, done| match builder.pts_of(n) {
            Some(pts) => Some(Some(pts)),
            None => done.then_some(None),
        })
    }

    /// Waits until the number of the frame at `pts` is exact (or can never be).
    pub fn wait_number_at(&self, pts: i64) -> FrameNumber {
        self.wait_for(|builder, done| {
            let number = builder.number_at(pts, self.ticks_per_frame, self.start_pts);
            (number.exact || done).then_some(number)
        })
    }

    /// Waits until the whole stream is indexed; its frame count, if it could be numbered.
    pub fn wait_complete(&self) -> Option<u64> {
        self.wait_for(|builder, done| done.then(|| builder.frame_count()))
    }

    /// Frames in the stream, once all of it is indexed.
    pub fn frame_count(&self) -> Option<u64> {
        self.lock().builder.frame_count()
    }

    /// Frame numbers of the keyframes, once all of the stream is indexed.
    pub fn keyframe_numbers(&self) -> Option<Vec<u64>> {
        self.lock().builder.keyframe_numbers()
    }

    /// Pts of the stream's first frame, once known.
    pub fn first_pts(&self) -> Option<i64> {
        self.lock().builder.first_pts()
    }

    /// Pts of the first and last frame, once all of it is indexed.
    pub fn span(&self) -> Option<(i64, i64)> {
        self.lock().builder.span()
    }

    /// Whether a keyframe lies in (`after`, `until`]; None if the index hasn't read that far.
    pub fn keyframe_between(&self, after: i64, until: i64) -> Option<bool> {
        self.lock().builder.keyframe_between(after, until)
    }

    /// The last keyframe at or before `pts`, if the index has read that far.
    pub fn keyframe_at_or_before(&self, pts: i64) -> Option<i64> {
        self.lock().builder.keyframe_at_or_before(pts)
    }

    /// Where the file's timestamps start over, for readers that seek.
    pub fn clock(&self) -> Arc<crate::video::continuity::FileClock> {
        Arc::clone(&self.clock)
    }

    pub fn progress(&self) -> IndexProgress {
        self.lock().progress
    }
}

/// The index only reads ahead of need: it yields the CPU to decoding and drawing.
pub(crate) fn lower_priority() {
    set_nice(19);
}

/// Raises this thread's nice value to `nice` (a thread already nicer keeps its own), which the
/// threads it starts inherit.
pub(crate) fn set_nice(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: getpriority and setpriority on this thread's own id (Linux applies nice values per
    // thread).
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        if current < nice {
            libc::setpriority(libc::PRIO_PROCESS, tid, nice);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode order of an IBBP stream with 3 B-frames: I0 P4 B2 B1 B3 P8 B6 B5 B7 ...
    fn ibbbp(frames: i64) -> Vec<(Option<i64>, bool)> {
        let mut out = vec![(Some(0), true)];
        let mut anchor = 0;
        while anchor + 4 < frames {
            let p = anchor + 4;
            out.extend([p, anchor + 2, anchor + 1, anchor + 3].map(|t| (Some(t), false)));
            anchor = p;
        }
        for t in anchor + 1..frames {
            out.push((Some(t), false));
        }
        out
    }

    #[test]
    fn numbers_are_exact_only_where_every_earlier_frame_has_been_read() {
        let packets = ibbbp(200);
        let mut b = IndexBuilder::default();
        for (i, &(pts, key)) in packets.iter().enumerate() {
            b.push(pts, key);
            if let Some(covered) = b.covered {
                // Nothing still to come may fall at or before the covered bound.
                assert!(packets[i + 1..].iter().all(|&(p, _)| p.unwrap() > covered));
                for t in 0..=covered {
                    assert_eq!(
                        b.number_at(t, 1.0, None),
                        FrameNumber {
                            n: t as u64,
                            exact: true
                        }
                    );
                }
            }
        }
        assert_eq!(b.frame_count(), None, "not complete until the end");
        b.finish();
        assert_eq!(b.frame_count(), Some(200));
        assert_eq!(b.pts_of(199), Some(199));
        assert_eq!(b.pts_of(200), None);
        assert_eq!(b.span(), Some((0, 199)));
    }

    #[test]
    fn frames_past_the_covered_part_are_estimated_from_the_rate() {
        let mut b = IndexBuilder::default();
        // 100 frames at 3000 ticks each, in order.
        for n in 0..100 {
            b.push(Some(n * 3000), n % 25 == 0);
        }
        let covered = b.covered.unwrap();
        assert_eq!(covered, (100 - REORDER_WINDOW as i64) * 3000);
        assert_eq!(b.number_at(covered, 3000.0, None), FrameNumber { n: 67, exact: true });
        let far = b.number_at(1000 * 3000 + 10, 3000.0, None);
        assert_eq!(far, FrameNumber { n: 1000, exact: false });
        assert_eq!(b.pts_of(67), Some(covered));
        assert_eq!(b.pts_of(68), None);
        assert_eq!(b.keyframe_at_or_before(60 * 3000), Some(50 * 3000));
        assert_eq!(b.keyframe_at_or_before(90 * 3000), None, "not covered yet");
        assert_eq!(b.keyframe_between(10 * 3000, 30 * 3000), Some(true));
        assert_eq!(b.keyframe_between(26 * 3000, 49 * 3000), Some(false));
        // Before anything is read, estimates count from the container's start.
        let empty = IndexBuilder::default();
        assert_eq!(
            empty.number_at(1500 + 9000, 3000.0, Some(1500)),
            FrameNumber { n: 3, exact: false }
        );
    }

    #[test]
    fn duplicates_and_missing_timestamps() {
        let mut b = IndexBuilder::default();
        for pts in [0, 1, 1, 2] {
            b.push(Some(pts), false);
        }
        b.finish();
        assert_eq!(
            b.frame_count(),
            None,
            "two frames at one time can't be told apart by time"
        );
        assert!(!b.number_at(1, 1.0, None).exact);
        assert_eq!(b.shared_pts, Some(1));
        assert_eq!(b.why_unusable(), "frames share timestamps (2 at pts 1)");
        for pts in [1, 2] {
            b.push(Some(pts), false);
        }
        assert_eq!(
            b.why_unusable(),
            "frames share timestamps (3 at pts 1, 1 more frame at another's time)"
        );
        let mut b = IndexBuilder::default();
        b.push(Some(0), true);
        b.push(None, false);
        b.push(Some(2), false);
        b.finish();
        assert_eq!(b.frame_count(), None);
        assert!(!b.number_at(0, 1.0, None).exact);
        assert_eq!(
            b.why_unusable(),
            "1 of its 3 frames has no timestamp (the first is frame 1 in decode order)"
        );
        let mut b = IndexBuilder::default();
        b.push(None, true);
        b.push(None, false);
        assert_eq!(b.why_unusable(), "frames have no timestamps");
    }

    #[test]
    fn a_shared_index_answers_waits_once_complete() {
        let index = FrameIndex::from_packets(ibbbp(40), 1.0);
        assert_eq!(index.wait_pts_of(39), Some(39));
        assert_eq!(index.wait_pts_of(40), None);
        assert_eq!(index.wait_complete(), Some(40));
        assert_eq!(index.number_at(17), FrameNumber { n: 17, exact: true });
        assert_eq!(index.estimated_pts_of(45), 45);
    }
}
