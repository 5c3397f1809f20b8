//! `compare`'s GPU path: both files decoded by the player's decode threads into rings of plane
//! textures, each pair measured by the metrics stage (and VMAF's pass) and read back a few
//! frames later.

use super::cpu::emit_scored;
use super::pictures::{first_decoded, Pic, Side};
use super::{b_start, measures_past_a, starts, time_on_a, CompareJob, Compared, Follower, Paired, Step};
use crate::compare::align::Alignment;
use crate::compare::gpu::{MetricsBinding, MetricsPass};
use crate::compare::metrics::FrameMetrics;
use crate::compare::vmaf::gpu::{VmafBinding, VmafPass};
use crate::compare::vmaf::Vmaf;
use crate::gpu::readback::ReadbackRing;
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::ClipError;
use crate::video::convert::{PlaneTextures, UploadStaging, STAGING_BUFFERS};
use crate::video::decoder::DecodeThread;
use crate::video::ring::RING_SLOTS;
use crate::video::source::{SeekTarget, VideoSource};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

/// The GPU path: both decoded by the player's decode threads into rings of plane textures,
/// each pair measured by the metrics pass and read back a few frames later.
pub fn compare_gpu(
    ctx: &GpuContext,
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    mut vmaf: Option<Vmaf>,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<Paired, ClipError> {
    // Frames are paired, ranged and printed by number: exact numbers only, never estimates
    // from a frame rate the index has not confirmed yet.
    a.set_exact_numbers(true);
    b.set_exact_numbers(true);
    let format = a.info.format;
    // Each side's slots share two staging buffers: with nothing drawn, the GPU has copied an
    // upload out long before the upload after next needs its buffer, and a buffer per slot
    // would be 50 MB more to map for each 4K file before its first frame.
    let ring = |side: &str| -> Result<Vec<Arc<PlaneTextures>>, ClipError> {
        let decode = |e: crate::video::convert::ConvertError| ClipError::Decode(e.to_string());
        let staging = UploadStaging::new(&ctx.device, side, &format, STAGING_BUFFERS).map_err(decode)?;
        (0..RING_SLOTS)
            .map(|i| {
                PlaneTextures::sharing(&ctx.device, &format!("{side} slot {i}"), format, Arc::clone(&staging))
                    .map(Arc::new)
                    .map_err(decode)
            })
            .collect()
    };
    let (slots_a, slots_b) = (ring("A")?, ring("B")?);
    let align = Alignment::of(&a, &b, job.by, job.offset);
    let (start_a, _) = starts(job);
    let a_seconds = a.index().wait_pts_of(start_a).map(|pts| a.info.seconds(pts));
    let b_start = b_start(&align, start_a, a_seconds);
    let deinterlaced = job.deinterlace.is_some();
    let field_rate = job
        .deinterlace
        .is_some_and(|f| f.rate == crate::video::deinterlace::Rate::Field);
    let (tb_a, tb_b) = (a.info.time_base, b.info.time_base);
    let tail = measures_past_a(job, &align, b.info.live);
    let mut da = DecodeThread::spawn(a, ctx.queue.clone(), slots_a.clone(), 0);
    let mut db = DecodeThread::spawn(b, ctx.queue.clone(), slots_b.clone(), 0);
    // Deinterlaced, a side decodes from the frame before its first (its first picture is made
    // with it); at field rate B's pictures are numbered by field, and B is read from its start.
    if start_a > 0 {
        da.seek(SeekTarget::Frame(first_decoded(start_a, deinterlaced)));
    }
    let b_seek = match b_start {
        Some(SeekTarget::Frame(n)) if !field_rate => Some(SeekTarget::Frame(first_decoded(n, deinterlaced))),
        Some(target) if !deinterlaced => Some(target),
        _ => None,
    };
    if let Some(target) = b_seek {
        db.seek(target);
    }
    let mut side_a = Side::new(ctx, (da, slots_a), (format, tb_a), job.deinterlace, "A")?;
    let side_b = RefCell::new(Side::new(ctx, (db, slots_b), (format, tb_b), job.deinterlace, "B")?);
    // The metrics' pipelines are built while the decoders start.
    let pass = MetricsPass::new(&ctx.device, &format).map_err(|e| ClipError::Decode(e.to_string()))?;
    // Every pair of slots bound once.
    let bindings: Vec<Vec<MetricsBinding>> = side_a
        .slots()
        .iter()
        .map(|sa| {
            side_b
                .borrow()
                .slots()
                .iter()
                .map(|sb| pass.bind(&ctx.device, sa, sb))
                .collect()
        })
        .collect();
    let sizes = pass.sizes();
    // VMAF's pass beside it, bound the same way; its totals read back after the sums.
    let vmaf_pass = match &vmaf {
        Some(model) => Some(
            VmafPass::new(&ctx.device, &format, model.gpu_options()).map_err(|e| ClipError::Decode(e.to_string()))?,
        ),
        None => None,
    };
    let vmaf_bindings: Vec<Vec<VmafBinding>> = match &vmaf_pass {
        Some(p) => side_a
            .slots()
            .iter()
            .map(|sa| {
                side_b
                    .borrow()
                    .slots()
                    .iter()
                    .map(|sb| p.bind(&ctx.device, sa, sb))
                    .collect()
            })
            .collect(),
        None => Vec::new(),
    };
    let sums_size = MetricsPass::sums_size();
    let totals_size = if vmaf.is_some() { VmafPass::totals_size() } else { 0 };
    let mut readback = ReadbackRing::new(&ctx.device, sums_size + totals_size, 4);
    let mut done = 0u64;
    // Pairs measured whose VMAF comes with the next pair (their motion needs it).
    let mut unscored: VecDeque<Compared> = VecDeque::new();
    let vmaf_size = vmaf_pass.as_ref().map(|p| (p.width as usize, p.height as usize));
    let mut take = |bytes: &[u8], (frame, frame_b, pts, past_a): (u64, u64, f64, bool)| {
        done += 1;
        let sums = pass.read(bytes);
        let compared = Compared {
            frame,
            frame_b,
            pts,
            past_a,
            metrics: FrameMetrics::from_sums(&sums, &sizes, pass.bits),
            vmaf: None,
        };
        match (&mut vmaf, vmaf_size) {
            (Some(model), Some((width, height))) => {
                let totals = VmafPass::read(&bytes[sums_size as usize..]);
                unscored.push_back(compared);
                let scored = model.push_sums(&totals, width, height);
                emit_scored(&mut unscored, scored, emit)
            }
            _ => emit(compared),
        }
    };
    let mut follower = Follower::new();
    let mut submitted = 0u64;
    // A's picture paired (or, aligned by time, passed over) last: it stands for A past its
    // end; and whether A has no more.
    let (mut last_a, mut a_ended): (Option<Pic>, bool) = (None, false);
    // A's pictures of the range read, paired or not.
    let mut read_a = 0u64;
    loop {
        let next_a = match a_ended {
            false => side_a.next_picture(ctx)?,
            true => None,
        };
        let (fa, past_a) = match next_a {
            Some(fa) => {
                if fa.frame < start_a {
                    side_a.release(fa);
                    continue;
                }
                if job.range.end.is_some_and(|e| fa.frame >= e) {
                    side_a.release(fa);
                    break;
                }
                read_a += 1;
                // B's pictures passed by are given back only after the work already submitted
                // that reads them: the decoder uploads into a slot behind it in the queue.
                let step = follower.advance(
                    align.want(fa.index, fa.seconds),
                    |f: &Pic| align.key(f.index, f.seconds),
                    || side_b.borrow_mut().next_picture(ctx),
                    |f: Pic| side_b.borrow_mut().release(f),
                )?;
                if step == Step::SkipA && tail {
                    // A's last picture stands for A past its end whether or not it was paired:
                    // B may start after it.
                    if let Some(before) = last_a.replace(fa) {
                        side_a.release(before);
                    }
                    continue;
                }
                if step != Step::Pair {
                    side_a.release(fa);
                    if step == Step::End {
                        break;
                    }
                    continue;
                }
                if let Some(before) = last_a.replace(fa) {
                    side_a.release(before);
                }
                (fa, false)
            }
            // Aligned by time, B's pictures after A's last are each measured against it.
            None => {
                a_ended = true;
                let more = tail
                    && last_a.is_some()
                    && follower.advance_past_a(
                        || side_b.borrow_mut().next_picture(ctx),
                        |f: Pic| side_b.borrow_mut().release(f),
                    )?;
                match last_a {
                    Some(fa) if more => (fa, true),
                    _ => break,
                }
            }
        };
        let fb = follower.current.expect("paired");
        if readback.is_full() {
            readback.read_oldest(ctx, &mut take)?.transpose()?;
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("compare") });
        pass.encode(&mut encoder, &bindings[fa.slot][fb.slot]);
        let target = readback.next_buffer();
        encoder.copy_buffer_to_buffer(pass.sums(), 0, target, 0, sums_size);
        if let Some(vmaf_pass) = &vmaf_pass {
            vmaf_pass.encode(&mut encoder, &vmaf_bindings[fa.slot][fb.slot]);
            encoder.copy_buffer_to_buffer(vmaf_pass.totals(), 0, target, sums_size, totals_size);
        }
        ctx.queue.submit([encoder.finish()]);
        let pts = match past_a {
            true => time_on_a(&align, align.key(fb.index, fb.seconds)),
            false => fa.seconds,
        };
        readback.submitted((fa.index, fb.index, pts, past_a));
        submitted += 1;
        progress.tick(submitted);
    }
    if let Some(fa) = last_a {
        side_a.release(fa);
    }
    let mut side_b = side_b.into_inner();
    let b_ended = follower.ended;
    follower.finish(|f| side_b.release(f));
    let (da, db) = (side_a.into_decoder(), side_b.into_decoder());
    // The decoders close side by side while the last results come back: closing one takes up
    // to a few hundred milliseconds (a hardware decoder's session), which the command would
    // otherwise wait for twice, after its work. The last pair's VMAF is scored (its motion
    // known at the end) before waiting for them.
    let closing = [
        std::thread::spawn(move || drop(da)),
        std::thread::spawn(move || drop(db)),
    ];
    while !readback.is_empty() {
        readback.read_oldest(ctx, &mut take)?.transpose()?;
    }
    let last = vmaf.as_mut().and_then(Vmaf::finish);
    emit_scored(&mut unscored, last, emit)?;
    for thread in closing {
        // A decoder that panicked while closing has nothing left to give.
        let _ = thread.join();
    }
    Ok(Paired {
        pairs: done,
        b_ended,
        read_a,
    })
}
