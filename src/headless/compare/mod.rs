//! Measuring a pair of files frame by frame, for `histoplay compare`, its batch, the compare
//! window's background VMAF and the benchmarks: which frame of the judged file each of the
//! reference's pairs with (`Follower`), and the two paths that measure the pairs — on the GPU
//! (`gpu.rs`: the player's decode threads, rings, the metrics and VMAF passes) and on the CPU
//! (`cpu.rs`: the twins) — each handing every pair's figures, in order, to the caller.

mod cpu;
mod gpu;
mod pictures;

pub use cpu::{compare_cpu, Measured};
pub use gpu::compare_gpu;

use crate::compare::align::{AlignBy, Alignment, Want, SAME_INSTANT};
use crate::compare::metrics::FrameMetrics;
use crate::compare::vmaf::VmafFrame;
use crate::headless::{ClipError, FrameRange};
use crate::video::source::SeekTarget;

/// How a run of pairs went: the pairs measured, whether B's frames ran out (else A's did, or
/// the range asked for ended), and how many of A's frames of the range were read, paired or
/// not (fewer than the range's where A ends early).
#[derive(Clone, Copy, Debug)]
pub struct Paired {
    pub pairs: u64,
    pub b_ended: bool,
    pub read_a: u64,
}

/// One pair of frames: A's number and B's, A's time, and the metrics.
pub struct Compared {
    pub frame: u64,
    pub frame_b: u64,
    /// A's time; past A's last frame (`past_a`), the time B's frame stands at on A's clock.
    pub pts: f64,
    /// Aligned by time, B's frame comes after A's last, which stands for A (as FFmpeg's
    /// filters repeat it).
    pub past_a: bool,
    pub metrics: FrameMetrics,
    /// With `--vmaf`: the pair's VMAF and its features.
    pub vmaf: Option<VmafFrame>,
}

/// What `compare` measures: A's frames in `range`, each against B's frame `offset` later, or,
/// aligned by time, against B's latest frame at A's time `offset` of B's frames later.
#[derive(Clone, Copy, Debug)]
pub struct CompareJob {
    pub range: FrameRange,
    pub offset: i64,
    pub by: AlignBy,
    pub csv: bool,
    pub cpu: bool,
    /// Both files deinterlaced first (`--deinterlace`): their pictures are paired, by picture
    /// number (2K and 2K + 1 at field rate) or time.
    pub deinterlace: Option<crate::video::deinterlace::Deinterlacer>,
}

/// What became of A's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// B's `current` frame is its partner.
    Pair,
    /// B has no frame for it (the next of A's may have one).
    SkipA,
    /// B has no more frames.
    End,
}

/// B's frames as they come, following A's: the one paired last, and one read ahead.
pub(crate) struct Follower<F> {
    current: Option<F>,
    pending: Option<F>,
    /// B has no more frames (its end is read once).
    ended: bool,
}

impl<F> Follower<F> {
    pub(crate) fn new() -> Self {
        Self {
            current: None,
            pending: None,
            ended: false,
        }
    }

    /// Reads B's frames (`next`) up to the one `want` names, giving back (`release`) those
    /// passed; `key` is a frame's number and its seconds from B's first frame. Aligned by
    /// time, B's last frame stands for the rest of A's once B ends (as FFmpeg repeats it).
    pub(crate) fn advance(
        &mut self,
        want: Option<Want>,
        key: impl Fn(&F) -> (u64, f64),
        mut next: impl FnMut() -> Result<Option<F>, ClipError>,
        mut release: impl FnMut(F),
    ) -> Result<Step, ClipError> {
        let Some(want) = want else {
            // Before B's first frame.
            return Ok(Step::SkipA);
        };
        match want {
            Want::Frame(n) => {
                if let Some(done) = self.current.take() {
                    release(done);
                }
                loop {
                    let Some(f) = self.take(&mut next)? else {
                        return Ok(Step::End);
                    };
                    let index = key(&f).0;
                    if index < n {
                        release(f);
                    } else if index > n {
                        self.pending = Some(f);
                        return Ok(Step::SkipA);
                    } else {
                        self.current = Some(f);
                        return Ok(Step::Pair);
                    }
                }
            }
            Want::At(seconds) => {
                while let Some(f) = self.take(&mut next)? {
                    if key(&f).1 <= seconds + SAME_INSTANT {
                        if let Some(passed) = self.current.replace(f) {
                            release(passed);
                        }
                    } else {
                        self.pending = Some(f);
                        break;
                    }
                }
                Ok(if self.current.is_some() {
                    Step::Pair
                } else {
                    Step::SkipA
                })
            }
        }
    }

    /// Aligned by time, once A has no more frames: B's next frame, the one paired last given
    /// back; none at B's end. FFmpeg's filters measure each of B's frames after A's last
    /// against A's last frame.
    pub(crate) fn advance_past_a(
        &mut self,
        mut next: impl FnMut() -> Result<Option<F>, ClipError>,
        mut release: impl FnMut(F),
    ) -> Result<bool, ClipError> {
        let Some(f) = self.take(&mut next)? else {
            return Ok(false);
        };
        if let Some(passed) = self.current.replace(f) {
            release(passed);
        }
        Ok(true)
    }

    /// B's next frame: the one read ahead, else the next from `next` (B's end is read once).
    fn take(&mut self, next: &mut impl FnMut() -> Result<Option<F>, ClipError>) -> Result<Option<F>, ClipError> {
        if let Some(f) = self.pending.take() {
            return Ok(Some(f));
        }
        if self.ended {
            return Ok(None);
        }
        let f = next()?;
        self.ended = f.is_none();
        Ok(f)
    }

    /// Gives back what is still held.
    pub(crate) fn finish(self, mut release: impl FnMut(F)) {
        self.current.into_iter().chain(self.pending).for_each(&mut release);
    }
}

/// Whether B's frames after A's last are measured against it: aligned by time, where A runs to
/// its end (no range ends it) and B has an end of its own (a live input may have none).
pub(crate) fn measures_past_a(job: &CompareJob, align: &Alignment, b_live: bool) -> bool {
    align.by == AlignBy::Time && job.range.end.is_none() && !b_live
}

/// Aligned by time, where B's frame with `key` (`Alignment::key`) stands on A's clock: the
/// inverse of `Alignment::want` (B's first frame at A's first plus the offset).
pub(crate) fn time_on_a(align: &Alignment, key: (u64, f64)) -> f64 {
    let seconds = align.start_a + key.1 - align.offset as f64 * align.frame_b;
    // (To the nanosecond: the sum's rounding would print 0.35999999999999993.)
    (seconds * 1e9).round() / 1e9
}

/// Where B starts for A's first frame `a_start` at `a_seconds`: its frame, or its time.
pub(crate) fn b_start(align: &Alignment, a_start: u64, a_seconds: Option<f64>) -> Option<SeekTarget> {
    let want = match align.by {
        AlignBy::Frame => align.want(a_start, 0.0)?,
        AlignBy::Time => align.want(a_start, a_seconds?)?,
    };
    let at_start = match want {
        Want::Frame(n) => n == 0,
        Want::At(t) => t <= 0.0,
    };
    (!at_start).then(|| want.seek_target(align.start_b))
}

/// Where A starts and, aligned by frame, B: A's first frame in the range whose partner exists
/// (B's frame numbers start at 0 too).
pub fn starts(job: &CompareJob) -> (u64, u64) {
    // At field rate an offset counts pictures, not frames: A's pictures without a partner are
    // passed over as they come.
    let field_rate = job
        .deinterlace
        .is_some_and(|f| f.rate == crate::video::deinterlace::Rate::Field);
    if job.by == AlignBy::Time || field_rate {
        return (job.range.start, 0);
    }
    let a = job.range.start.max(job.offset.min(0).unsigned_abs());
    (a, a.saturating_add_signed(job.offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_starts_each_side_where_its_partner_exists() {
        let job = |start, offset| CompareJob {
            range: FrameRange { start, end: None },
            offset,
            by: AlignBy::Frame,
            csv: false,
            cpu: false,
            deinterlace: None,
        };
        assert_eq!(starts(&job(0, 0)), (0, 0));
        assert_eq!(starts(&job(0, 3)), (0, 3));
        // B 2 frames behind: A's frames 0 and 1 have no partner.
        assert_eq!(starts(&job(0, -2)), (2, 0));
        assert_eq!(starts(&job(10, -2)), (10, 8));
        // At field rate the offset counts pictures: A starts where its range does.
        let fields = CompareJob {
            deinterlace: Some("bwdif=send_field".parse().unwrap()),
            ..job(2, -3)
        };
        assert_eq!(starts(&fields).0, 2);
    }
}
