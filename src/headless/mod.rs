//! Headless runs over a video's frames, shared by `hist`, `scope`, `report`, `compare`, the
//! timeline and the benchmarks: the frames of a range decoded and run through the same decode
//! thread, ring and frame pipeline as in the player (or through the CPU twins), their results
//! read back through a ring of mapped buffers, in order.

pub mod compare;
mod fields;
pub mod offscreen;
pub mod progress;

use crate::colour::Depth;
use crate::gpu::readback::ReadbackRing;
use crate::gpu::{GpuContext, GpuError, GpuOpening};
use crate::pipeline::FramePipeline;
use crate::scope::Region;
use crate::video::convert::convert_cpu;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::deinterlace::{Deinterlacer, Field, Output};
use crate::video::ring::RING_SLOTS;
use crate::video::source::{CatchUp, DecodedFrame, PacketProps, SeekTarget, VideoSource};
pub use fields::CpuPicture;
use fields::{CpuFieldRun, FieldRun, Picture};
use progress::Progress;
use std::time::Duration;
use thiserror::Error;

/// Frames `start..end` in presentation order (`end` None: to the last frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRange {
    pub start: u64,
    pub end: Option<u64>,
}

impl std::fmt::Display for FrameRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.end {
            Some(end) if end == self.start + 1 => write!(f, "frame {}", self.start),
            Some(end) => write!(f, "frames {}..{end}", self.start),
            None => write!(f, "frames {}..", self.start),
        }
    }
}

impl FrameRange {
    pub fn single(frame: u64) -> Self {
        Self {
            start: frame,
            end: Some(frame + 1),
        }
    }

    /// Parses `A..B`, `A..=B`, `A..` and `..B`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not a frame range like 100..200, 100..=199 or 100..");
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let number = |v: &str| v.trim().parse::<u64>().map_err(|_| bad());
        let start = if a.trim().is_empty() { 0 } else { number(a)? };
        let end = match b.strip_prefix('=') {
            Some(inclusive) => Some(number(inclusive)? + 1),
            None if b.trim().is_empty() => None,
            None => Some(number(b)?),
        };
        if end.is_some_and(|e| e <= start) {
            return Err(format!("'{s}' holds no frames"));
        }
        Ok(Self { start, end })
    }

    pub fn contains(&self, frame: u64) -> bool {
        frame >= self.start && self.end.is_none_or(|e| frame < e)
    }
}

#[derive(Debug, Error)]
pub enum ClipError {
    #[error(transparent)]
    Video(#[from] crate::video::source::VideoError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Ring(#[from] crate::video::ring::RingError),
    #[error("writing the output failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Decode(String),
    #[error(transparent)]
    Scope(#[from] crate::scope::ScopeError),
    #[error(transparent)]
    Region(#[from] crate::scope::RegionError),
    #[error(transparent)]
    Pair(#[from] crate::compare::align::PairError),
    #[error("frame {asked} is past the end: '{path}' has {count} frames")]
    PastEnd { asked: u64, count: u64, path: String },
}

/// Readies a source for a headless pass over `range`: exact frame numbers, the range's start
/// and the region checked before anything is decoded.
pub fn prepare(mut source: VideoSource, range: FrameRange, region: Option<Region>) -> Result<VideoSource, ClipError> {
    // Frame K must be frame K: numbers wait for the index, which reads only as far as needed.
    source.set_exact_numbers(true);
    check_in_range(&source, range.start)?;
    if let Some(region) = region {
        let format = source.info.format;
        region.check(format.width, format.height)?;
    }
    Ok(source)
}

/// Fails if the stream has no frame `frame` (once the index has read far enough to say).
fn check_in_range(source: &VideoSource, frame: u64) -> Result<(), ClipError> {
    let index = source.index();
    if index.wait_pts_of(frame).is_none() {
        if let Some(count) = index.frame_count() {
            return Err(ClipError::PastEnd {
                asked: frame,
                count,
                path: source.info.path.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Positions `source` to decode from the keyframe before frame `frame`, skipping what it can
/// on the way (a source that can't number frames starts from the beginning).
pub(crate) fn seek_to_frame(source: &mut VideoSource, frame: u64) {
    if frame == 0 {
        return;
    }
    if let Some(pts) = source.index().wait_pts_of(frame) {
        source.seek_before(pts);
        source.catch_up(Some(CatchUp {
            limit: pts,
            keep_from: pts,
            pass: true,
        }));
    }
}

/// Decodes the frames of `range` and converts each on the CPU (the reference path), handing
/// `each` the packed pixels at their depth; returns how many frames it was handed.
pub fn cpu_frames(
    source: VideoSource,
    range: FrameRange,
    each: impl FnMut(&[u32], Depth, FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    cpu_frames_with(source, range, PictureWork::default(), each)
}

/// `cpu_frames`, each frame deinterlaced first by the twin, or split into its fields, as `work`
/// says: `each` gets its pictures (a field's as a picture of half the frame's height).
pub fn cpu_frames_with(
    mut source: VideoSource,
    range: FrameRange,
    work: PictureWork,
    mut each: impl FnMut(&[u32], Depth, FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let mut progress = Progress::new(frames_to_do(&source, range));
    let mut format = source.info.format;
    if work.split {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
    }
    let depth = Depth::from_bits(format.layout.output_bits());
    let mut done = 0;
    cpu_pictures_with(&mut source, range, format.layout, work, |planes, meta, _| {
        each(&convert_cpu(&format, planes), depth, meta)?;
        done += 1;
        progress.tick(done);
        Ok(())
    })?;
    Ok(done)
}

/// Decodes the frames of `range`, their planes read as `layout`, and hands `each` the planes
/// of each picture: each frame's, or, with `filter`, the pictures the twin makes of them.
pub fn cpu_pictures(
    source: &mut VideoSource,
    range: FrameRange,
    layout: crate::video::format::PlaneLayout,
    filter: Option<Deinterlacer>,
    mut each: impl FnMut(&[crate::video::format::PlaneData], FrameMeta) -> Result<(), ClipError>,
) -> Result<(), ClipError> {
    let work = PictureWork {
        deinterlace: filter,
        ..PictureWork::default()
    };
    cpu_pictures_with(source, range, layout, work, |planes, meta, _| each(planes, meta))
}

/// What the CPU paths do with each frame beyond decoding it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PictureWork {
    /// Make its pictures with this deinterlacer (the twin).
    pub deinterlace: Option<Deinterlacer>,
    /// Take its idet sums.
    pub idet: bool,
    /// Hand on each of its fields as a picture of its own (top, then bottom), not the frame.
    pub split: bool,
}

/// `cpu_pictures`, and with `work.idet` each frame's idet sums (the twin's), with its first
/// picture, the frame taken between those before and after it; with `work.split`, each picture
/// as its two fields (every other line of each plane).
pub fn cpu_pictures_with(
    source: &mut VideoSource,
    range: FrameRange,
    layout: crate::video::format::PlaneLayout,
    work: PictureWork,
    mut each: impl FnMut(&[crate::video::format::PlaneData], FrameMeta, Option<crate::idet::Sums>) -> Result<(), ClipError>,
) -> Result<(), ClipError> {
    let PictureWork {
        deinterlace: filter,
        idet,
        split,
    } = work;
    let mut each = |planes: &[crate::video::format::PlaneData], meta: FrameMeta, sums| {
        if !split {
            return each(planes, meta, sums);
        }
        for field in Field::BOTH {
            let meta = FrameMeta {
                field: Some(field),
                ..meta
            };
            each(
                &fields::field_rows(planes, field),
                meta,
                sums.filter(|_| field == Field::Top),
            )?;
        }
        Ok(())
    };
    let format = crate::video::format::FrameFormat {
        layout,
        ..source.info.format
    };
    let mut fields = (filter.is_some() || idet).then(|| CpuFieldRun::new(filter, idet, &format, source.info.time_base));
    // Deinterlaced, the range's first frame is made with the one before, its last with the
    // one after.
    let decoded = match fields {
        Some(_) => FieldRun::decoded(range),
        None => range,
    };
    seek_to_frame(source, decoded.start);
    while let Some(frame) = source.next_frame()? {
        let past = range.end.is_some_and(|e| frame.index >= e);
        let after_last = fields.is_some() && range.end == Some(frame.index);
        if !decoded.contains(frame.index) && !after_last {
            if past {
                return Ok(());
            }
            continue;
        }
        let meta = FrameMeta::from(&frame);
        let planes = frame.planes(layout);
        match &mut fields {
            None => each(&planes, meta, None)?,
            Some(fields) => {
                for made in fields.push(meta, &planes) {
                    if range.contains(made.meta.frame) {
                        each(&made.plane_data(), made.meta, made.sums)?;
                    }
                }
            }
        }
        if past {
            return Ok(());
        }
    }
    for made in fields.as_mut().map(CpuFieldRun::finish).unwrap_or_default() {
        if range.contains(made.meta.frame) {
            each(&made.plane_data(), made.meta, made.sums)?;
        }
    }
    Ok(())
}

/// How many frames a range holds, as far as the file says (exactly, or from its estimate).
pub fn frames_to_do(source: &VideoSource, range: FrameRange) -> Option<u64> {
    let end = range
        .end
        .or_else(|| source.index().frame_count())
        .or(source.index().estimated_count)?;
    Some(end.saturating_sub(range.start))
}

/// Frame `frame` of a video, decoded (its planes in `source.info.format`).
pub fn decode_frame(source: &mut VideoSource, frame: u64) -> Result<DecodedFrame, ClipError> {
    source.set_exact_numbers(true);
    check_in_range(source, frame)?;
    seek_to_frame(source, frame);
    while let Some(decoded) = source.next_frame()? {
        if decoded.index == frame {
            return Ok(decoded);
        }
        if decoded.index > frame {
            break;
        }
    }
    Err(ClipError::Decode(format!(
        "frame {frame} of '{}' could not be decoded",
        source.info.path.display()
    )))
}

/// Picture `picture` of a video deinterlaced by `filter` (the twin's): frame `picture`'s, or at
/// field rate field `picture % 2` of frame `picture / 2`.
pub fn decode_picture(source: &mut VideoSource, picture: u64, filter: Deinterlacer) -> Result<CpuPicture, ClipError> {
    source.set_exact_numbers(true);
    let frame = match filter.rate {
        crate::video::deinterlace::Rate::Frame => picture,
        crate::video::deinterlace::Rate::Field => picture / 2,
    };
    check_in_range(source, frame)?;
    let layout = source.info.format.layout;
    let mut found = None;
    cpu_pictures(
        source,
        FrameRange::single(frame),
        layout,
        Some(filter),
        |planes, meta| {
            if meta.index == picture && found.is_none() {
                found = Some(CpuPicture::copied(planes, meta));
            }
            Ok(())
        },
    )?;
    found.ok_or_else(|| {
        ClipError::Decode(format!(
            "picture {picture} of '{}' could not be made",
            source.info.path.display()
        ))
    })
}

/// A decoded frame (the decode thread's, or one decoded on this thread), as itself.
macro_rules! frame_meta_from {
    ($frame:ty) => {
        impl From<&$frame> for FrameMeta {
            fn from(frame: &$frame) -> Self {
                Self {
                    index: frame.index,
                    frame: frame.index,
                    pts: frame.pts,
                    seconds: frame.seconds,
                    pict_type: frame.pict_type,
                    packet: frame.packet,
                    field: None,
                }
            }
        }
    };
}
frame_meta_from!(ReadyFrame);
frame_meta_from!(DecodedFrame);

/// Which frame a result belongs to.
#[derive(Clone, Copy, Debug)]
pub struct FrameMeta {
    /// The picture's number: the frame's, or at field rate (deinterlacing) 2k and 2k + 1 for
    /// frame k's fields.
    pub index: u64,
    /// The decoded frame the picture is (or is made from).
    pub frame: u64,
    /// In the stream's time base.
    pub pts: i64,
    pub seconds: f64,
    /// The picture's coding type (`I`, `P`, `B`, `?`).
    pub pict_type: char,
    /// Where its packet sat in the file.
    pub packet: PacketProps,
    /// Which field of the frame the picture is, where fields are counted apart.
    pub field: Option<Field>,
}

/// Runs the frames of `range` through the GPU frame pipeline (the player's decode thread, ring,
/// converter and passes): `setup` configures the pipeline (region, scope) and says how many
/// bytes each frame's result holds, `copy` records copying a frame's result into a readback
/// buffer, and `emit` gets each result back, in order. `gpu`: the GPU opened beside the file
/// (or opened here). Returns how many frames were emitted.
pub fn gpu_frames(
    gpu: GpuOpening,
    source: VideoSource,
    range: FrameRange,
    bins: u32,
    setup: impl FnOnce(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
    copy: impl Fn(&FramePipeline, &mut wgpu::CommandEncoder, &wgpu::Buffer),
    emit: impl FnMut(&FramePipeline, &[u8], FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let ctx = match gpu.finish() {
        Some(ctx) => ctx,
        None => GpuContext::new()?,
    };
    let progress = Progress::new(frames_to_do(&source, range));
    let frames = gpu_frames_on(&ctx, source, range, bins, Some(progress), setup, copy, emit);
    crate::process::mark("the pipeline let go");
    crate::process::close_behind("the GPU", move || drop(ctx));
    frames
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
    mut progress: Option<Progress>,
    setup: impl FnOnce(&GpuContext, &mut FramePipeline) -> Result<u64, ClipError>,
    copy: impl Fn(&FramePipeline, &mut wgpu::CommandEncoder, &wgpu::Buffer),
    mut emit: impl FnMut(&FramePipeline, &[u8], FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let format = source.info.format;
    // A decode that stalls for this long is stuck, not slow; a live input may pause for as
    // long as its sender does (a signal ends it).
    let live = source.info.live;
    let stalled = match live {
        true => Duration::from_secs(365 * 86_400),
        false => Duration::from_secs(60),
    };
    // The colour volume matters to the CIE diagram (linear light) and the marks.
    crate::process::mark("the GPU and the file open");
    let mut pipeline = FramePipeline::new(ctx, bins, format, source.info.volume, RING_SLOTS)?;
    crate::process::mark("the pipeline made");
    let result_bytes = setup(ctx, &mut pipeline)?;
    crate::process::mark("the command's passes made");
    let mut readback = ReadbackRing::new(&ctx.device, result_bytes, READBACKS);
    let mut submitted = 0u64;
    let mut emitted = 0u64;
    // Frames go by once: nothing is kept for steps.
    let mut fields = pipeline
        .kept()
        .map(|_| FieldRun::new(pipeline.deinterlacer().map(|p| p.filter()), source.info.time_base));
    // Deinterlaced, the range's first frame is made with the frame before it.
    let decoded = match fields {
        Some(_) => FieldRun::decoded(range),
        None => range,
    };
    let mut decoder = DecodeThread::spawn(source, ctx.queue.clone(), pipeline.decoded_ring().slots.clone(), 0);
    // (A live input can't seek: its frames before the range go by.)
    if decoded.start > 0 && !decoder.info.live {
        decoder.seek(SeekTarget::Frame(decoded.start));
    }
    let mut take = |bytes: &[u8], frame: FrameMeta| {
        if emitted == 0 {
            crate::process::mark("the first frame's results read back");
        }
        emitted += 1;
        emit(&pipeline, bytes, frame)
    };
    // Runs the picture in ring slot `slot` through the pipeline, made first by the
    // deinterlacer where `made` says how.
    // Where fields are split, each of the frame's fields (from the frame kept) in its turn.
    let parts: &[Option<Field>] = match pipeline.splits_fields() {
        true => &[Some(Field::Top), Some(Field::Bottom)],
        false => &[None],
    };
    let mut run = |slot: usize, meta: FrameMeta, made: Option<&Output>| -> Result<(), ClipError> {
        for &field in parts {
            if readback.is_full() {
                readback.read_oldest(ctx, &mut take)?.transpose()?;
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
            pipeline.encode_frame(&mut encoder, slot);
            copy(&pipeline, &mut encoder, readback.next_buffer());
            ctx.queue.submit([encoder.finish()]);
            readback.submitted(FrameMeta { field, ..meta });
        }
        submitted += 1;
        if let Some(progress) = &mut progress {
            progress.tick(submitted);
        }
        // A live input's results go out as its frames come, not a ring's worth later (its
        // next frame may be a while: the report and its alerts are as late as the stream).
        while live && !readback.is_empty() {
            readback.read_oldest(ctx, &mut take)?.transpose()?;
        }
        Ok(())
    };
    let mut first_frame = true;
    loop {
        let event = decoder
            .next_current(stalled)
            .ok_or_else(|| ClipError::Decode("the decoder stopped responding".into()))?;
        let frame = match event {
            DecoderEvent::Frame(frame) => {
                if first_frame {
                    crate::process::mark("the first frame decoded and uploaded");
                    first_frame = false;
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
            // Headless sources scale a changed picture to the first shape: never asked.
            DecoderEvent::Reshaped(_) => {
                return Err(ClipError::Decode(
                    "the decoder asked for a ring of another shape".into(),
                ))
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
                    keep_planes(ctx, &pipeline, &frame);
                    let (pictures, done) = fields.push(frame);
                    run_pictures(pictures, range, &mut run)?;
                    done.into_iter()
                        .chain(fields.release())
                        .for_each(|slot| decoder.release(slot));
                }
                None => decoder.release(frame.slot),
            }
            if !frame.preview && range.end.is_some_and(|e| frame.index >= e) {
                break;
            }
            continue;
        }
        let Some(fields) = &mut fields else {
            run(frame.slot, FrameMeta::from(&frame), None)?;
            decoder.release(frame.slot);
            continue;
        };
        keep_planes(ctx, &pipeline, &frame);
        let (pictures, done) = fields.push(frame);
        run_pictures(pictures, range, &mut run)?;
        done.into_iter().for_each(|slot| decoder.release(slot));
    }
    while !readback.is_empty() {
        readback.read_oldest(ctx, &mut take)?.transpose()?;
    }
    crate::process::mark("the last frame's results read back");
    drop(decoder);
    crate::process::mark("the decoder let go");
    Ok(emitted)
}

/// Records keeping a frame's planes for the stages that read it with its neighbours (ahead of
/// the pictures made with it).
fn keep_planes(ctx: &GpuContext, pipeline: &FramePipeline, frame: &ReadyFrame) {
    if let Some(kept) = pipeline.kept() {
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("keep a frame's planes"),
        });
        kept.encode_keep(&mut encoder, &pipeline.decoded_ring().slots[frame.slot], frame.index);
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

#[cfg(test)]
mod tests {
    use super::FrameRange;

    #[test]
    fn ranges_parse_like_rust() {
        assert_eq!(
            FrameRange::parse("10..20"),
            Ok(FrameRange {
                start: 10,
                end: Some(20)
            })
        );
        assert_eq!(
            FrameRange::parse("10..=20"),
            Ok(FrameRange {
                start: 10,
                end: Some(21)
            })
        );
        assert_eq!(FrameRange::parse("100.."), Ok(FrameRange { start: 100, end: None }));
        assert_eq!(FrameRange::parse("..5"), Ok(FrameRange { start: 0, end: Some(5) }));
        assert!(FrameRange::parse("5..5").is_err());
        assert!(FrameRange::parse("5").is_err());
        assert!(FrameRange::parse("a..b").is_err());
        assert!(FrameRange::single(3).contains(3));
        assert!(!FrameRange::single(3).contains(4));
    }
}
