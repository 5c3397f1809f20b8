//! The GPU's run over a range of frames: the player's decode thread, ring and frame pipeline,
//! the results read back through a ring of mapped buffers, in order.

use super::fields::{FieldRun, Picture};
use super::progress::Progress;
use super::{frames_to_do, ClipError, FrameMeta, FrameRange};
use crate::gpu::readback::ReadbackRing;
use crate::gpu::{GpuContext, GpuOpening};
use crate::pipeline::FramePipeline;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::deinterlace::{Field, Output};
use crate::video::ring::RING_SLOTS;
use crate::video::source::{FrameShape, SeekTarget, VideoInfo, VideoSource};
use std::cell::RefCell;
use std::time::Duration;

/// Whether a run over `info`'s frames is done by the CPU twins: asked for (`--cpu`), or its
/// frames are larger than the GPU takes (a panorama past its largest texture), which a warning
/// says, as it does of such a picture.
pub fn on_the_cpu(gpu: &mut GpuOpening, info: &VideoInfo, cpu: bool) -> bool {
    let refused = (!cpu)
        .then(|| gpu.refuses(info.format.width, info.format.height))
        .flatten();
    if let Some(too_large) = &refused {
        log::warn!("{too_large}: counted on the CPU");
    }
    cpu || refused.is_some()
}

/// Runs the frames of `range` through the GPU frame pipeline (the player's decode thread, ring,
/// converter and passes): `setup` configures the pipeline (region, scope) and says how many
/// bytes each frame's result holds, `copy` records copying a frame's result into a readback
/// buffer, and `emit` gets each result back, in order. `gpu`: the GPU opened beside the file
/// (or opened here). Returns how many frames were emitted. A source that follows size changes
/// (`VideoSource::follow_size_changes`) has its frames of another size counted at that size
/// (`FramePipeline::frame_size`), the pipeline and passes made again (`setup`) at the change.
///
/// A run from the first frame has its decoder give that frame (`beside`) while the GPU
/// finishes opening and the pipeline and the command's passes are made (`prepare`).
pub fn gpu_frames(
    gpu: GpuOpening,
    source: VideoSource,
    range: FrameRange,
    bins: u32,
    setup: impl Fn(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
    copy: impl Fn(&FramePipeline, &mut wgpu::CommandEncoder, &wgpu::Buffer),
    emit: impl FnMut(&FramePipeline, &[u8], FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let progress = Some(Progress::new(frames_to_do(&source, range)));
    let info = source.info.clone();
    let (made, source) = beside(gpu, source, range, |ctx| {
        let ctx = match ctx {
            Some(ctx) => ctx,
            None => GpuContext::new()?,
        };
        let prepared = prepare_pipeline(&ctx, &info, bins, &setup)?;
        Ok::<_, ClipError>((ctx, prepared))
    });
    let (ctx, prepared) = made?;
    // Where the source follows a picture's changes of size, the pipeline and the command's
    // passes are made again for the new size.
    let remake = |ctx: &GpuContext, shape: &FrameShape| {
        let mut info = info.clone();
        info.reshape(shape);
        prepare_pipeline(ctx, &info, bins, &setup)
    };
    let remake: Option<Remake> = match source.follows_sizes() {
        true => Some(&remake),
        false => None,
    };
    let frames = run_prepared(&ctx, source, range, progress, prepared, remake, copy, emit);
    crate::process::mark("the pipeline let go");
    crate::process::close_behind("the GPU", move || drop(ctx));
    frames
}

/// The GPU, once its opening is done, and `source`, its first frame decoded meanwhile where the
/// run starts there (`VideoSource::prime`): a decoder takes a while to give its first frame (a
/// hardware decoder's session made, software frame threads filled), which then overlaps the
/// GPU's start. (A run from a later frame seeks first.) Where `setup` is given, the pipeline
/// and the command's passes are made too, once the GPU is open, while the first frame still
/// decodes (None if they can't be: the run makes them again, and says why).
pub fn open_beside<S>(
    gpu: GpuOpening,
    source: VideoSource,
    range: FrameRange,
    bins: u32,
    setup: Option<S>,
) -> (Option<GpuContext>, Option<Prepared>, VideoSource)
where
    S: FnOnce(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
{
    let info = source.info.clone();
    let ((ctx, prepared), source) = beside(gpu, source, range, |ctx| {
        let prepared = match (&ctx, setup) {
            (Some(ctx), Some(setup)) => prepare_pipeline(ctx, &info, bins, setup)
                .inspect_err(|e| log::debug!("the passes not made ahead: {e}"))
                .ok(),
            _ => None,
        };
        (ctx, prepared)
    });
    (ctx, prepared, source)
}

/// `make` given the GPU once its opening is done, while `source` gives its first frames on a
/// thread of its own where the run starts there (`VideoSource::prime_ahead`), into the pool of
/// memory the GPU copies from once the GPU is open; what it made, and the source.
fn beside<T>(
    gpu: GpuOpening,
    source: VideoSource,
    range: FrameRange,
    make: impl FnOnce(Option<GpuContext>) -> T,
) -> (T, VideoSource) {
    let direct = source.direct_frames();
    let ready = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let priming = scope.spawn(|| {
            let mut source = source;
            if range.start == 0 {
                // The range's frames, and the one after (a deinterlaced run's last picture is
                // made with it).
                source.prime_ahead(&ready, range.end.map(|last| last.saturating_add(2)));
                crate::process::mark("the first frames decoded ahead");
            }
            source
        });
        let ctx = gpu.finish();
        crate::process::mark("the GPU open");
        if let Some(ctx) = &ctx {
            make_pool(direct, ctx.device.clone());
        }
        let made = make(ctx);
        ready.store(true, std::sync::atomic::Ordering::Release);
        let source = priming.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        crate::process::mark("the source back from its first frames");
        (made, source)
    })
}

/// Makes the pool of memory a software decoder's frames go into (`DirectFrames`) on a thread
/// of its own, then keeps it growing as its frames need; once for a stream (nothing for a
/// hardware decoder's).
fn make_pool(direct: std::sync::Arc<crate::video::memory::direct::DirectFrames>, device: wgpu::Device) {
    let _ = std::thread::Builder::new()
        .name("histoplay frames pool".into())
        .spawn(move || match direct.make_pool(&device) {
            // (Only the pool is held from here: it goes with the stream.)
            Ok(Some(pool)) => {
                drop(direct);
                crate::video::memory::direct::Pool::grow(pool, &device);
            }
            Ok(None) => {}
            Err(e) => log::debug!("frames decoded into frame memory: {e}"),
        });
}

/// Frames whose results are in flight at once on the way back from the GPU: enough that the
/// decoder never waits on a readback of a frame just submitted.
const READBACKS: usize = 12;

/// `gpu_frames` on a GPU the caller already has (the player's), with a progress line or none.
/// `emit` failing stops the run (with its error).
#[allow(clippy::too_many_arguments)]
pub fn gpu_frames_on(
    ctx: &GpuContext,
    source: VideoSource,
    range: FrameRange,
    bins: u32,
    progress: Option<Progress>,
    setup: impl FnOnce(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
    copy: impl Fn(&FramePipeline, &mut wgpu::CommandEncoder, &wgpu::Buffer),
    emit: impl FnMut(&FramePipeline, &[u8], FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    crate::process::mark("the GPU and the file open");
    let prepared = prepare_pipeline(ctx, &source.info, bins, setup)?;
    run_prepared(ctx, source, range, progress, prepared, None, copy, emit)
}

/// The frame pipeline for a stream's frames with the command's passes (`setup`), and the
/// bytes of each frame's result.
pub struct Prepared {
    pipeline: FramePipeline,
    result_bytes: u64,
}

/// The frame pipeline and the command's passes (`setup`) made for `info`'s frames.
pub fn prepare_pipeline(
    ctx: &GpuContext,
    info: &VideoInfo,
    bins: u32,
    setup: impl FnOnce(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
) -> Result<Prepared, ClipError> {
    // The colour volume matters to the CIE diagram (linear light) and the marks.
    let mut pipeline = FramePipeline::new(ctx, bins, info.format, info.volume, RING_SLOTS)?;
    crate::process::mark("the pipeline made");
    let result_bytes = setup(ctx, &mut pipeline)?;
    crate::process::mark("the command's passes made");
    Ok(Prepared { pipeline, result_bytes })
}

/// The pipeline and passes for frames of another shape, made where a picture changes size
/// mid-stream and the source gives such frames out as they are
/// (`VideoSource::follow_size_changes`).
pub type Remake<'a> = &'a dyn Fn(&GpuContext, &FrameShape) -> Result<Prepared, ClipError>;

/// `gpu_frames_on` with its pipeline made (`open_beside`); with `remake`, made again for
/// frames of another shape (the results before the change all read back first).
#[allow(clippy::too_many_arguments)]
pub fn run_prepared(
    ctx: &GpuContext,
    source: VideoSource,
    range: FrameRange,
    mut progress: Option<Progress>,
    prepared: Prepared,
    remake: Option<Remake>,
    copy: impl Fn(&FramePipeline, &mut wgpu::CommandEncoder, &wgpu::Buffer),
    mut emit: impl FnMut(&FramePipeline, &[u8], FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    // A decode that stalls for this long is stuck, not slow; a live input may pause for as
    // long as its sender does (a signal ends it).
    let live = source.info.live;
    let stalled = match live {
        true => Duration::from_secs(365 * 86_400),
        false => Duration::from_secs(60),
    };
    let Prepared { pipeline, result_bytes } = prepared;
    // (Made again where the frames change shape: `remake`.)
    let pipeline = RefCell::new(pipeline);
    let readback = RefCell::new(ReadbackRing::new(&ctx.device, result_bytes, READBACKS));
    crate::process::mark("the readback ring made");
    let mut submitted = 0u64;
    let mut emitted = 0u64;
    if let (Some(pass), Some(kept)) = (pipeline.borrow().deinterlacer(), pipeline.borrow().kept()) {
        pass.filter().check_size(kept.format()).map_err(ClipError::Decode)?;
    }
    // Frames go by once: nothing is kept for steps.
    let mut fields = (pipeline.borrow()).kept().map(|_| {
        FieldRun::new(
            pipeline.borrow().deinterlacer().map(|p| p.filter()),
            source.info.time_base,
        )
    });
    // Deinterlaced, the range's first frame is made with the frame before it.
    let decoded = match fields {
        Some(_) => FieldRun::decoded(range),
        None => range,
    };
    // A live input, or a stream whose frames have no timestamps, can't be sought: its frames
    // before the range are decoded and go by (the index says so once it has read that far).
    let seekable = decoded.start > 0 && !source.info.live && source.index().wait_pts_of(decoded.start).is_some();
    // A software decoder's frames go straight into memory the GPU copies from once it is made:
    // beside the GPU's opening (`beside`), or else after the first frame (making it holds the
    // process's mappings, which the decoder's first frames wait on).
    let direct = source.direct_frames();
    let pool_of = std::sync::Arc::clone(&direct);
    let mut pool_after_first = Some(move |device: wgpu::Device| make_pool(direct, device));
    let slots = pipeline.borrow().decoded_ring().slots.clone();
    let mut decoder = DecodeThread::spawn(source, ctx.queue.clone(), slots, 0);
    crate::process::mark("the decode thread started");
    if seekable {
        decoder.seek(SeekTarget::Frame(decoded.start));
    }
    // (Shared by the run of each frame and the reads of every result left.)
    let take = RefCell::new(|bytes: &[u8], frame: FrameMeta| {
        if emitted == 0 {
            crate::process::mark("the first frame's results read back");
        }
        emitted += 1;
        emit(&pipeline.borrow(), bytes, frame)
    });
    let take = |bytes: &[u8], frame: FrameMeta| (take.borrow_mut())(bytes, frame);
    // Runs the picture in ring slot `slot` through the pipeline, made first by the
    // deinterlacer where `made` says how.
    // Where fields are split, each of the frame's fields (from the frame kept) in its turn.
    let parts: &[Option<Field>] = match pipeline.borrow().splits_fields() {
        true => &[Some(Field::Top), Some(Field::Bottom)],
        false => &[None],
    };
    let mut run = |slot: usize, meta: FrameMeta, made: Option<&Output>| -> Result<(), ClipError> {
        let pipeline = pipeline.borrow();
        let mut readback = readback.borrow_mut();
        for &field in parts {
            if readback.is_full() {
                readback.read_oldest(ctx, take)?.transpose()?;
            }
            let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("headless frame"),
            });
            // (A frame passed as it is is in its own slot already.)
            if let (Some(output @ Output { field: Some(_), .. }), Some(pass)) = (made, pipeline.deinterlacer()) {
                pass.encode(&mut encoder, output, &pipeline.ring.slots[slot]);
            }
            // The frame's idet sums, once (at field rate, or with fields split, its second
            // picture reads them again).
            let first = field != Some(Field::Bottom);
            if let (Some(output @ Output { second: false, .. }), Some(idet), true) = (made, pipeline.idet(), first) {
                idet.encode(&mut encoder, output);
            }
            let slot = match (field, made) {
                (Some(field), Some(output)) => pipeline.encode_field(&mut encoder, output.cur, field),
                _ => slot,
            };
            // (A change of the frames' size or format: signalstats has no previous frame to
            // differ from, as FFmpeg's filters configured again.)
            let restarts = meta.packet.restarts && first && !made.is_some_and(|o| o.second);
            if let (Some(stats), true) = (pipeline.stats(), restarts) {
                stats.restart();
            }
            // (The freeze pass starts again where the caller asked: `FreezeStage::restart_at`.)
            if let (Some(freeze), true) = (pipeline.freeze(), first) {
                freeze.frame_coming(meta.frame);
                // (A change of the frames' size or format: freezedetect compares afresh, from
                // the frame's first picture.)
                if restarts {
                    freeze.restart();
                }
            }
            pipeline.encode_frame(&mut encoder, slot);
            copy(&pipeline, &mut encoder, readback.next_buffer());
            ctx.queue.submit([encoder.finish()]);
            readback.submitted(meta.as_field(field));
        }
        submitted += 1;
        if let Some(progress) = &mut progress {
            progress.tick(submitted);
        }
        // A live input's results go out as its frames come, not a ring's worth later (its
        // next frame may be a while: the report and its alerts are as late as the stream).
        while live && !readback.is_empty() {
            readback.read_oldest(ctx, take)?.transpose()?;
        }
        Ok(())
    };
    // Every result in flight read back, in order.
    let drain = || -> Result<(), ClipError> {
        let mut readback = readback.borrow_mut();
        while !readback.is_empty() {
            readback.read_oldest(ctx, take)?.transpose()?;
        }
        Ok(())
    };
    let mut first_frame = true;
    // The last frame run (without fields), and the frame the decoder may still give late.
    let mut ran_through: Option<(u64, Option<u64>)> = None;
    loop {
        let event = decoder
            .next_current(stalled)
            .ok_or_else(|| ClipError::Decode("the decoder stopped responding".into()))?;
        let frame = match event {
            DecoderEvent::Frame(frame) => {
                if first_frame {
                    crate::process::mark("the first frame decoded and uploaded");
                    first_frame = false;
                    if let Some(make_pool) = pool_after_first.take() {
                        make_pool(ctx.device.clone());
                    }
                }
                frame
            }
            DecoderEvent::EndOfStream { .. } => {
                if let Some(fields) = &mut fields {
                    let (pictures, done) = fields.finish();
                    run_pictures(pictures, range, &mut run)?;
                    done.into_iter().for_each(|slot| decoder.release(slot));
                }
                break;
            }
            DecoderEvent::Failed { message, .. } => return Err(ClipError::Decode(message)),
            // Frames of another size from here on (every frame before was run and its ring
            // slot given back): their results read back, the pipeline made again for them.
            DecoderEvent::Reshaped(shape) => {
                // The range's last frame run already (the change comes after it): nothing
                // more to make the pipeline for.
                if fields.is_none() && ran_through.is_some_and(|(n, awaited)| range.ended_by(n + 1, awaited)) {
                    break;
                }
                let Some(remake) = remake else {
                    return Err(ClipError::Decode(
                        "the decoder asked for a ring of another shape".into(),
                    ));
                };
                drain()?;
                let Prepared {
                    pipeline: made,
                    result_bytes,
                } = remake(ctx, &shape)?;
                decoder.set_ring(shape, made.decoded_ring().slots.clone());
                *pipeline.borrow_mut() = made;
                *readback.borrow_mut() = ReadbackRing::new(&ctx.device, result_bytes, READBACKS);
                continue;
            }
        };
        // A seek's keyframe preview is not a frame of the range (the frame it stands in for
        // follows).
        if frame.preview || !decoded.contains(frame.index) {
            let last = !frame.preview && range.end == Some(frame.index);
            match fields.as_mut().filter(|_| last) {
                // Deinterlaced, the frame after the range's last is the one its pictures are
                // made with.
                Some(fields) => {
                    keep_planes(ctx, &pipeline.borrow(), &frame, fields.keep_id());
                    let (pictures, done) = fields.push(frame);
                    run_pictures(pictures, range, &mut run)?;
                    done.into_iter()
                        .chain(fields.release())
                        .for_each(|slot| decoder.release(slot));
                }
                None => decoder.release(frame.slot),
            }
            if !frame.preview && range.ended_by(frame.index, frame.awaited) {
                break;
            }
            continue;
        }
        let Some(fields) = &mut fields else {
            run(frame.slot, FrameMeta::from(&frame), None)?;
            decoder.release(frame.slot);
            ran_through = Some((frame.index, frame.awaited));
            continue;
        };
        keep_planes(ctx, &pipeline.borrow(), &frame, fields.keep_id());
        let (pictures, done) = fields.push(frame);
        run_pictures(pictures, range, &mut run)?;
        done.into_iter().for_each(|slot| decoder.release(slot));
    }
    drain()?;
    crate::process::mark("the last frame's results read back");
    crate::process::log_threads("the last frame's results read back");
    if let Some(pool) = pool_of.pool() {
        log::debug!("frames decoded in place: {}", pool.usage());
    }
    drop(decoder);
    crate::process::mark("the decoder let go");
    Ok(emitted)
}

/// Records keeping a frame's planes, by `id` (`FieldRun::keep_id`), for the stages that read
/// it with its neighbours (ahead of the pictures made with it).
fn keep_planes(ctx: &GpuContext, pipeline: &FramePipeline, frame: &ReadyFrame, id: u64) {
    if let Some(kept) = pipeline.kept() {
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("keep a frame's planes"),
        });
        kept.encode_keep(&mut encoder, &pipeline.decoded_ring().slots[frame.slot], id);
        ctx.queue.submit([encoder.finish()]);
    }
}

/// Runs the deinterlaced pictures of `range`'s frames (the others were only made with).
fn run_pictures(
    pictures: Vec<Picture>,
    range: FrameRange,
    run: &mut impl FnMut(usize, FrameMeta, Option<&Output>) -> Result<(), ClipError>,
) -> Result<(), ClipError> {
    for picture in pictures.into_iter().filter(|p| range.contains(p.meta.frame)) {
        run(picture.slot, picture.meta, Some(&picture.output))?;
    }
    Ok(())
}
