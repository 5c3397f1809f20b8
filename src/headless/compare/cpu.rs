//! `compare`'s reference path: both files decoded in step on this thread, each pair measured by
//! the CPU twins of the metrics stage and of VMAF.

use super::pictures::{first_decoded, CpuPic, CpuSide};
use super::{b_start, measures_past_a, starts, time_on_a, CompareJob, Compared, Follower, Paired, Step};
use crate::compare::align::Alignment;
use crate::compare::metrics::{frame_metrics, frame_metrics_with_ssim_of, FrameMetrics};
use crate::compare::vmaf::luma::Luma;
use crate::compare::vmaf::{samples_into, Vmaf, VmafFrame};
use crate::headless::progress::Progress;
use crate::headless::{seek_to_frame, ClipError};
use crate::video::format::{components, Component, FrameFormat};
use crate::video::source::{planar_layout, planes_of, FilterConversion, SeekTarget, VideoSource};
use ffmpeg_next::format::Pixel;
use std::collections::VecDeque;

/// The form both sides' frames are measured in on the CPU: their format (the upload's, or as
/// the metrics' filters read them: `measured_layout`), and whether their alpha planes are
/// measured too (frames given out in a format with one, as FFmpeg's psnr measures it); and
/// where FFmpeg's ssim reads them converted further, the format it reads them in.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub format: FrameFormat,
    pub alpha: bool,
    /// SSIM's format where the frames are measured in the pair's formats (`compare`'s
    /// `pair_formats`): the same components without alpha, converted from psnr's as ssim's own
    /// conversion converts them (10-bit Y'CbCr with alpha made 16-bit).
    pub ssim: Option<Pixel>,
}

/// The reference path: both decoded in step, measured by the CPU twin; their frames come out as
/// `measured` says.
pub fn compare_cpu(
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    measured: Measured,
    mut vmaf: Option<Vmaf>,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<Paired, ClipError> {
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
    let (mut side_a, mut side_b) = (CpuSide::new(&a, job.deinterlace)?, CpuSide::new(&b, job.deinterlace)?);
    let format = measured.format;
    let mut ssim_conversions = measured
        .ssim
        .map(|to| [FilterConversion::into(to), FilterConversion::into(to)]);
    let unsupported = || ClipError::Decode(format!("comparing needs Y'CbCr or grey frames, not {}", format.layout));
    let mut follower = Follower::new();
    let mut done = 0;
    // Pairs measured whose VMAF comes with the next pair (their motion needs it).
    let mut unscored: VecDeque<Compared> = VecDeque::new();
    // The two luma planes VMAF reads, refilled for each pair.
    let (mut ya, mut yb) = (Vec::new(), Vec::new());
    // A's frame paired (or, aligned by time, passed over) last, and whether A has no more.
    let (mut last_a, mut a_ended): (Option<CpuPic>, bool) = (None, false);
    // A's pictures of the range read, paired or not.
    let mut read_a = 0u64;
    let tail = measures_past_a(job, &align, b.info.live);
    loop {
        let next_a = match a_ended {
            false => side_a.next_picture(&mut a)?,
            true => None,
        };
        let (fa, past_a) = match next_a {
            Some(fa) => {
                if fa.frame() < start_a {
                    continue;
                }
                if job.range.end.is_some_and(|e| fa.frame() >= e) {
                    break;
                }
                read_a += 1;
                let step = follower.advance(
                    align.want(fa.index(), fa.seconds()),
                    |f: &CpuPic| align.key(f.index(), f.seconds()),
                    || side_b.next_picture(&mut b),
                    drop,
                )?;
                match step {
                    Step::End => break,
                    // (Kept where B's frames after A's last are measured against it: B may
                    // start after A's end.)
                    Step::SkipA => {
                        if tail {
                            last_a = Some(fa);
                        }
                        continue;
                    }
                    Step::Pair => (fa, false),
                }
            }
            // Aligned by time, B's frames after A's last are each measured against it.
            None => {
                a_ended = true;
                match last_a.take() {
                    Some(fa) if tail && follower.advance_past_a(|| side_b.next_picture(&mut b), drop)? => (fa, true),
                    _ => break,
                }
            }
        };
        let fb = follower.current.as_ref().expect("paired");
        let (pa, pb) = (fa.planes(format.layout), fb.planes(format.layout));
        let (ca, bits) = components(&format, &pa).ok_or_else(unsupported)?;
        let (cb, _) = components(&format, &pb).ok_or_else(unsupported)?;
        let pts = match past_a {
            true => time_on_a(&align, align.key(fb.index(), fb.seconds())),
            false => fa.seconds(),
        };
        let compared = Compared {
            frame: fa.index(),
            frame_b: fb.index(),
            pts,
            past_a,
            metrics: metrics_of(&measured, (&fa, &ca), (fb, &cb), bits, &mut ssim_conversions)?,
            vmaf: None,
        };
        done += 1;
        progress.tick(done);
        match &mut vmaf {
            None => emit(compared)?,
            Some(vmaf) => {
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
        }
        drop((pa, ca));
        last_a = Some(fa);
    }
    let last = vmaf.as_mut().and_then(Vmaf::finish);
    emit_scored(&mut unscored, last, emit)?;
    Ok(Paired {
        pairs: done,
        b_ended: follower.ended,
        read_a,
    })
}

/// A pair's metrics, its alpha planes' share where they are measured, and SSIM from its frames
/// converted as FFmpeg's ssim reads them where `Measured::ssim` says so (`conversions`: a side
/// each).
fn metrics_of(
    measured: &Measured,
    (fa, ca): (&CpuPic, &[Component]),
    (fb, cb): (&CpuPic, &[Component]),
    bits: u32,
    conversions: &mut Option<[FilterConversion; 2]>,
) -> Result<FrameMetrics, ClipError> {
    let alphas = match measured.alpha {
        true => fa.alpha_plane().zip(fb.alpha_plane()),
        false => None,
    };
    let alpha = alphas.map(|(pa, pb)| (Component::plane_like(pa, &ca[0]), Component::plane_like(pb, &cb[0])));
    let alpha = alpha.as_ref().map(|(a, b)| (a, b));
    let (Some([convert_a, convert_b]), Some(to)) = (conversions, measured.ssim) else {
        return Ok(frame_metrics(ca, cb, alpha, bits));
    };
    let failed = |e: String| ClipError::Decode(format!("SSIM's samples: {e}"));
    let (va, vb) = fa
        .video()
        .zip(fb.video())
        .ok_or_else(|| failed("no frame in memory".into()))?;
    let (va, vb) = (
        convert_a.convert(va).map_err(failed)?,
        convert_b.convert(vb).map_err(failed)?,
    );
    let layout = planar_layout(to).ok_or_else(|| failed(format!("{to:?} is not planar")))?;
    let format = FrameFormat {
        layout,
        ..measured.format
    };
    let (pa, pb) = (planes_of(va, layout), planes_of(vb, layout));
    let unsupported = || failed(format!("{layout} has no components"));
    let (sa, ssim_bits) = components(&format, &pa).ok_or_else(unsupported)?;
    let (sb, _) = components(&format, &pb).ok_or_else(unsupported)?;
    Ok(frame_metrics_with_ssim_of(ca, cb, alpha, bits, (&sa, &sb, ssim_bits)))
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
