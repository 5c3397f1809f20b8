//! Each side of a comparison as the pictures measured: its frames as decoded, or, deinterlaced,
//! the pictures FFmpeg's filter makes of them (a frame late, numbered 2K and 2K + 1 at field
//! rate). On the GPU each picture is made, as it comes, into a slot of a small pool of the
//! side's own (the frame's planes are kept, so its decoder slot goes back at once, and a picture
//! the pairing holds stays whole while later frames come in); on the CPU the twin makes it.

use super::super::fields::{CpuFieldRun, CpuPicture, FieldRun, Picture};
use super::super::{ClipError, FrameMeta};
use crate::gpu::GpuContext;
use crate::video::convert::{PlaneTextures, UploadStaging};
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::deinterlace::gpu::DeinterlacePass;
use crate::video::deinterlace::kept::KeptFrames;
use crate::video::deinterlace::Deinterlacer;
use crate::video::format::{FrameFormat, PlaneData, PlaneLayout};
use crate::video::source::{DecodedFrame, VideoSource};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// Picture slots a deinterlaced side holds: the one paired, one read ahead, and the pictures of
/// a frame or two waiting.
const POOL: usize = 8;

/// A picture to measure: the slot it is in, its number and its frame's, its time.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pic {
    pub slot: usize,
    pub index: u64,
    pub frame: u64,
    pub seconds: f64,
}

/// One side on the GPU: its decoder, and where it deinterlaces, what makes its pictures.
pub(super) struct Side {
    pub decoder: DecodeThread,
    /// The decoder's ring.
    ring: Vec<Arc<PlaneTextures>>,
    made: Option<Made>,
    ended: bool,
}

struct Made {
    kept: KeptFrames,
    pass: DeinterlacePass,
    run: FieldRun,
    /// The slots the pictures are made into, and those free.
    pool: Vec<Arc<PlaneTextures>>,
    free: Vec<usize>,
    queue: VecDeque<Pic>,
}

/// A decoded frame of one side, waiting for its partner (None: the side ended).
pub(super) fn next_frame(decoder: &DecodeThread) -> Result<Option<ReadyFrame>, ClipError> {
    loop {
        // A decode that stalls for this long is stuck, not slow.
        let event = decoder
            .next_current(Duration::from_secs(60))
            .ok_or_else(|| ClipError::Decode("the decoder stopped responding".into()))?;
        match event {
            // A seek's keyframe preview is not a frame to measure (the frame follows).
            DecoderEvent::Frame(frame) if frame.preview => decoder.release(frame.slot),
            DecoderEvent::Frame(frame) => return Ok(Some(frame)),
            DecoderEvent::EndOfStream { .. } => return Ok(None),
            DecoderEvent::Failed { message, .. } => return Err(ClipError::Decode(message)),
            DecoderEvent::Reshaped(_) => {
                return Err(ClipError::Decode(
                    "the decoder asked for a ring of another shape".into(),
                ))
            }
        }
    }
}

impl Side {
    /// The side decoded by `decoder` into `slots`, its pictures made by `filter` where there is
    /// one (frames of `format`, in `time_base`).
    pub fn new(
        ctx: &GpuContext,
        (decoder, ring): (DecodeThread, Vec<Arc<PlaneTextures>>),
        (format, time_base): (FrameFormat, (i32, i32)),
        filter: Option<Deinterlacer>,
        name: &str,
    ) -> Result<Self, ClipError> {
        let Some(filter) = filter else {
            return Ok(Self {
                decoder,
                ring,
                made: None,
                ended: false,
            });
        };
        filter.check_size(&format).map_err(ClipError::Decode)?;
        let decode = |e: crate::video::convert::ConvertError| ClipError::Decode(e.to_string());
        let staging = UploadStaging::new(&ctx.device, name, &format, 1).map_err(decode)?;
        let pool = (0..POOL)
            .map(|i| {
                PlaneTextures::sharing(
                    &ctx.device,
                    &format!("{name} picture {i}"),
                    format,
                    Arc::clone(&staging),
                )
                .map(Arc::new)
                .map_err(decode)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let kept = KeptFrames::new(&ctx.device, &format);
        let pass = DeinterlacePass::new(&ctx.device, &kept, filter);
        Ok(Self {
            decoder,
            ring,
            made: Some(Made {
                kept,
                pass,
                run: FieldRun::new(Some(filter), time_base),
                pool,
                free: (0..POOL).rev().collect(),
                queue: VecDeque::new(),
            }),
            ended: false,
        })
    }

    /// The slots its pictures are in, to bind.
    pub fn slots(&self) -> &[Arc<PlaneTextures>] {
        self.made.as_ref().map_or(&self.ring, |made| &made.pool)
    }

    /// The next picture (None: the side ended).
    pub fn next_picture(&mut self, ctx: &GpuContext) -> Result<Option<Pic>, ClipError> {
        loop {
            let Some(made) = &mut self.made else {
                return Ok(next_frame(&self.decoder)?.map(|f| Pic {
                    slot: f.slot,
                    index: f.index,
                    frame: f.index,
                    seconds: f.seconds,
                }));
            };
            if let Some(pic) = made.queue.pop_front() {
                return Ok(Some(pic));
            }
            if self.ended {
                return Ok(None);
            }
            let (pictures, done) = match next_frame(&self.decoder)? {
                Some(frame) => {
                    let mut encoder = ctx.device.create_command_encoder(&Default::default());
                    made.kept
                        .encode_keep(&mut encoder, &self.ring[frame.slot], made.run.keep_id());
                    ctx.queue.submit([encoder.finish()]);
                    made.run.push(frame)
                }
                None => {
                    self.ended = true;
                    made.run.finish()
                }
            };
            made.make(ctx, pictures)?;
            done.into_iter().for_each(|slot| self.decoder.release(slot));
        }
    }

    /// The side's decoder, the rest dropped (to close it on a thread of its own).
    pub fn into_decoder(self) -> DecodeThread {
        self.decoder
    }

    /// A picture measured (and submitted): its slot back.
    pub fn release(&mut self, pic: Pic) {
        match &mut self.made {
            Some(made) => made.free.push(pic.slot),
            None => self.decoder.release(pic.slot),
        }
    }
}

impl Made {
    /// Makes each picture into a free slot of the pool, now, while its frames are kept.
    fn make(&mut self, ctx: &GpuContext, pictures: Vec<Picture>) -> Result<(), ClipError> {
        for picture in pictures {
            let slot = self
                .free
                .pop()
                .ok_or_else(|| ClipError::Decode("more pictures held than the comparison keeps".into()))?;
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            self.pass.encode(&mut encoder, &picture.output, &self.pool[slot]);
            ctx.queue.submit([encoder.finish()]);
            self.queue.push_back(Pic {
                slot,
                index: picture.meta.index,
                frame: picture.meta.frame,
                seconds: picture.meta.seconds,
            });
        }
        Ok(())
    }
}

/// A picture the CPU path measures: a frame as decoded, or one the twin made of frames.
pub(super) enum CpuPic {
    Decoded(DecodedFrame),
    Made(CpuPicture),
}

impl CpuPic {
    pub fn index(&self) -> u64 {
        match self {
            Self::Decoded(f) => f.index,
            Self::Made(p) => p.meta.index,
        }
    }

    pub fn frame(&self) -> u64 {
        match self {
            Self::Decoded(f) => f.index,
            Self::Made(p) => p.meta.frame,
        }
    }

    pub fn seconds(&self) -> f64 {
        match self {
            Self::Decoded(f) => f.seconds,
            Self::Made(p) => p.meta.seconds,
        }
    }

    pub fn planes(&self, layout: PlaneLayout) -> Vec<PlaneData<'_>> {
        match self {
            Self::Decoded(f) => f.planes(layout),
            Self::Made(p) => p.plane_data(),
        }
    }

    /// The frame as decoded (None for a picture the twin made).
    pub fn video(&self) -> Option<&ffmpeg_next::frame::Video> {
        match self {
            Self::Decoded(f) => f.video().ok(),
            Self::Made(_) => None,
        }
    }

    /// The frame's fourth plane, its alpha where it is given out in a format with one
    /// (yuva420p, gbrap: `Measured::alpha`); None for a picture the twin made.
    pub fn alpha_plane(&self) -> Option<PlaneData<'_>> {
        let frame = self.video()?;
        (frame.planes() > 3).then(|| PlaneData {
            data: frame.data(3),
            stride: frame.stride(3),
        })
    }
}

/// One side on the CPU: its frames, or the pictures the twin makes of them.
pub(super) struct CpuSide {
    run: Option<CpuFieldRun>,
    queue: VecDeque<CpuPicture>,
    ended: bool,
}

impl CpuSide {
    pub fn new(source: &VideoSource, filter: Option<Deinterlacer>) -> Result<Self, ClipError> {
        let info = &source.info;
        if let Some(filter) = filter {
            filter.check_size(&info.format).map_err(ClipError::Decode)?;
        }
        Ok(Self {
            run: filter.map(|f| CpuFieldRun::new(Some(f), false, &info.format, info.time_base)),
            queue: VecDeque::new(),
            ended: false,
        })
    }

    /// The next picture of `source` (None: it ended).
    pub fn next_picture(&mut self, source: &mut VideoSource) -> Result<Option<CpuPic>, ClipError> {
        let Some(run) = &mut self.run else {
            return Ok(source.next_frame()?.map(CpuPic::Decoded));
        };
        loop {
            if let Some(picture) = self.queue.pop_front() {
                return Ok(Some(CpuPic::Made(picture)));
            }
            if self.ended {
                return Ok(None);
            }
            let layout = source.info.format.layout;
            match source.next_frame()? {
                Some(frame) => {
                    let planes = frame.planes(layout);
                    self.queue.extend(run.push(FrameMeta::from(&frame), &planes));
                }
                None => {
                    self.ended = true;
                    self.queue.extend(run.finish());
                }
            }
        }
    }
}

/// Where a deinterlaced side starts decoding for the pictures of frame `frame` on: the frame
/// before, which its first picture is made with.
pub(super) fn first_decoded(frame: u64, deinterlaced: bool) -> u64 {
    if deinterlaced {
        frame.saturating_sub(1)
    } else {
        frame
    }
}
