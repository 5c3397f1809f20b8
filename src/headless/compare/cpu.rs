//! `compare`'s reference path: both files decoded in step on this thread, each pair measured by
//! the CPU twins of the metrics stage and of VMAF.

use super::pictures::{first_decoded, CpuPic, CpuSide};
use super::{b_start, starts, CompareJob, Compared, Follower, Step};
use crate::compare::align::Alignment;
use crate::compare::metrics::frame_metrics;
use crate::compare::vmaf::luma::Luma;
use crate::compare::vmaf::{samples_into, Vmaf, VmafFrame};
use crate::headless::progress::Progress;
use crate::headless::{seek_to_frame, ClipError};
use crate::video::format::{components, FrameFormat};
use crate::video::source::{SeekTarget, VideoSource};
use std::collections::VecDeque;

/// The reference path: both decoded in step, measured by the CPU twin; their frames come out as
/// `format` (the upload's, or as the metrics' filters read them: `measured_layout`).
pub fn compare_cpu(
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    format: FrameFormat,
    mut vmaf: Option<Vmaf>,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let align = Alignment::of(&a, &b, job.by, job.offset);
    let (start_a, _) = starts(job);
    a.set_exact_numbers(true);
    b.set_exact_numbers(true);
    let deinterlaced = job.deinterlace.is_some();
    seek_to_frame(&mut a, first_decoded(start_a, deinterlaced));
    let a_seconds = a.index().wait_pts_of(start_a).map(|pts| a.info.seconds(pts));
    // Aligned by time, B is read from its start (the reference path's way: simple, not fast);
    // at field rate too (B's pictures are numbered by field).
    let field_rate = job
        .deinterlace
        .is_some_and(|f| f.rate == crate::video::deinterlace::Rate::Field);
    if let (Some(SeekTarget::Frame(n)), false) = (b_start(&align, start_a, a_seconds), field_rate) {
        seek_to_frame(&mut b, first_decoded(n, deinterlaced));
    }
    let (mut side_a, mut side_b) = (CpuSide::new(&a, job.deinterlace), CpuSide::new(&b, job.deinterlace));
    let unsupported = || ClipError::Decode(format!("comparing needs Y'CbCr or grey frames, not {}", format.layout));
    let mut follower = Follower::new();
    let mut done = 0;
    // Pairs measured whose VMAF comes with the next pair (their motion needs it).
    let mut unscored: VecDeque<Compared> = VecDeque::new();
    // The two luma planes VMAF reads, refilled for each pair.
    let (mut ya, mut yb) = (Vec::new(), Vec::new());
    while let Some(fa) = side_a.next_picture(&mut a)? {
        if fa.frame() < start_a {
            continue;
        }
        if job.range.end.is_some_and(|e| fa.frame() >= e) {
            break;
        }
        let step = follower.advance(
            align.want(fa.index(), fa.seconds()),
            |f: &CpuPic| align.key(f.index(), f.seconds()),
            || side_b.next_picture(&mut b),
            drop,
        )?;
        match step {
            Step::End => break,
            Step::SkipA => continue,
            Step::Pair => {}
        }
        let fb = follower.current.as_ref().expect("paired");
        let (pa, pb) = (fa.planes(format.layout), fb.planes(format.layout));
        let (ca, bits) = components(&format, &pa).ok_or_else(unsupported)?;
        let (cb, _) = components(&format, &pb).ok_or_else(unsupported)?;
        let compared = Compared {
            frame: fa.index(),
            frame_b: fb.index(),
            pts: fa.seconds(),
            metrics: frame_metrics(&ca, &cb, bits),
            vmaf: None,
        };
        done += 1;
        progress.tick(done);
        let Some(vmaf) = &mut vmaf else {
            emit(compared)?;
            continue;
        };
        samples_into(&ca[0], &mut ya);
        samples_into(&cb[0], &mut yb);
        let luma = |data, width, height| Luma {
            data,
            width,
            height,
            bits,
        };
        unscored.push_back(compared);
        let scored = vmaf.push(
            &luma(&ya, ca[0].width, ca[0].height),
            &luma(&yb, cb[0].width, cb[0].height),
        );
        emit_scored(&mut unscored, scored, emit)?;
    }
    let last = vmaf.as_mut().and_then(Vmaf::finish);
    emit_scored(&mut unscored, last, emit)?;
    Ok(done)
}

/// The oldest pair waiting for its VMAF, with its `scores` once they come.
pub(super) fn emit_scored(
    unscored: &mut VecDeque<Compared>,
    scores: Option<VmafFrame>,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let Some(scores) = scores else { return Ok(()) };
    match unscored.pop_front() {
        Some(mut pair) => {
            pair.vmaf = Some(scores);
            emit(pair)
        }
        None => Ok(()),
    }
}
