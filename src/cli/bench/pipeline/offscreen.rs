//! The player's pipeline for one file as the benchmarks drive it, drawing offscreen: a decode
//! thread feeding a `FramePipeline` and a scene, and seeks timed to the frames they land on.

use super::Shown;
use crate::geometry::Orientation;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::pipeline::FramePipeline;
use crate::player::deinterlaced::{Deinterlaced, FieldSetup};
use crate::player::playback::FrameSource;
use crate::render::scene::{Scene, SceneRenderer, ViewOptions};
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::ring::RING_SLOTS;
use crate::video::source::{SeekTarget, VideoSource};
use anyhow::{bail, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// The player's pipeline for one file, drawing offscreen.
pub(super) struct Pipeline {
    pub(super) ctx: GpuContext,
    pub(super) frames: FramePipeline,
    pub(super) renderer: SceneRenderer,
    pub(super) scene: Scene,
    pub(super) output: GpuFrame,
    /// The decode thread, deinterlaced where asked (`Deinterlaced::set_filter`: its
    /// `FrameSource` calls then carry the pictures).
    pub(super) decoder: Deinterlaced<DecodeThread>,
}

impl Pipeline {
    pub(super) fn open(
        ctx: GpuContext,
        path: &Path,
        size: (u32, u32),
        cache_bytes: usize,
        shown: &Shown,
    ) -> Result<Self> {
        let source = VideoSource::open(path)?;
        let info = source.info.clone();
        // The decoder's slots, and one kept for a deinterlaced last frame's pictures.
        let mut frames = FramePipeline::new(&ctx, 256, info.format, info.volume, RING_SLOTS + 1)?;
        let exposure = shown.input_colour.resolve(info.log);
        frames.set_exposure(&ctx, exposure);
        frames.set_marks(&ctx, &shown.marks);
        if let Some(lut) = crate::colour::lut::picture_lut(shown.lut.as_ref(), exposure) {
            let bits = frames.ring.output.bits;
            frames.set_lut(&ctx, Some(&crate::colour::lut::LutTables::new(&lut, bits)))?;
        }
        if let Some(kind) = shown.scope {
            frames.set_scope(&ctx, Some((kind, kind.display_columns())))?;
        }
        let renderer = SceneRenderer::new(&ctx.device, GpuFrame::FORMAT);
        let scene = frames.scene(&ctx.device, &renderer);
        let output = GpuFrame::new(&ctx, "bench output", size.0, size.1)?;
        let orientation = Orientation {
            quarter_turns: info.quarter_turns,
            half: None,
        };
        scene.layout(
            &ctx.queue,
            info.display_aspect,
            orientation,
            size,
            ViewOptions::default(),
        );
        let setup = FieldSetup {
            device: ctx.device.clone(),
            queue: ctx.queue.clone(),
            slots: frames.ring.slots.clone(),
            index: std::sync::Arc::clone(source.index()),
            time_base: info.time_base,
        };
        let thread = DecodeThread::spawn(
            source,
            ctx.queue.clone(),
            frames.ring.slots[..RING_SLOTS].to_vec(),
            cache_bytes,
        );
        let decoder = Deinterlaced::new(thread, setup);
        Ok(Self {
            ctx,
            frames,
            renderer,
            scene,
            output,
            decoder,
        })
    }

    /// Records and submits one frame's GPU work; gives the slot back.
    pub(super) fn process(&mut self, frame: &ReadyFrame) {
        let mut encoder = self.ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("bench frame"),
        });
        self.frames.encode_frame(&mut encoder, frame.slot);
        self.renderer.encode(
            &mut encoder,
            &self.output.view,
            &self.scene,
            ViewOptions::default().quads,
        );
        self.ctx.queue.submit([encoder.finish()]);
        FrameSource::release(&mut self.decoder, frame.slot);
    }

    pub(super) fn next(&self) -> Result<Option<ReadyFrame>> {
        match self.decoder.next_current(Duration::from_secs(60)) {
            Some(DecoderEvent::Frame(frame)) => Ok(Some(frame)),
            Some(DecoderEvent::EndOfStream { .. }) => Ok(None),
            Some(DecoderEvent::Failed { message, .. }) => bail!(message),
            Some(DecoderEvent::Reshaped(_)) => bail!("the decoder asked for a ring of another shape"),
            None => bail!("the decoder stopped responding"),
        }
    }

    /// Processes frames until one that is not a preview: when the first frame (preview or not)
    /// and that one were counted on the GPU, and the frame.
    pub(super) fn settle(&mut self, start: Instant) -> Result<Landed> {
        let mut first = None;
        loop {
            let Some(frame) = self.next()? else {
                bail!("the stream ended before a seek landed");
            };
            self.process(&frame);
            self.ctx.wait_idle()?;
            let now = start.elapsed();
            let first = *first.get_or_insert(now);
            if !frame.preview {
                return Ok(Landed {
                    first,
                    exact: now,
                    previewed: first < now,
                    frame,
                });
            }
        }
    }

    /// Seeks and waits until the frame it lands on is converted and counted on the GPU; the
    /// times to the first frame (a preview, if any) and to the exact one.
    pub(super) fn timed_seek(&mut self, target: SeekTarget) -> Result<Landed> {
        let start = Instant::now();
        self.decoder.seek(target);
        self.settle(start)
    }
}

/// How a seek landed: times from the command to the first frame counted on the GPU and to the
/// exact one, whether a keyframe preview came first, and the frame.
pub(super) struct Landed {
    pub(super) first: Duration,
    pub(super) exact: Duration,
    pub(super) previewed: bool,
    pub(super) frame: ReadyFrame,
}
