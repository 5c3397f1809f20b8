//! The player's frame pipeline without a window: decode thread, ring, converter and histogram
//! engine, each frame's histogram read back for the test to check.

use histoplay::engine::histogram::Histogram;
use histoplay::gpu::GpuContext;
use histoplay::pipeline::FramePipeline;
use histoplay::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame, DEFAULT_CACHE_BYTES};
use histoplay::video::source::{SeekTarget, VideoSource};
use std::time::Duration;

/// The decode thread, ring, converter and histogram engine, as the player wires them.
pub struct Pipeline {
    pub ctx: GpuContext,
    frames: FramePipeline,
    pub decoder: DecodeThread,
}

impl Pipeline {
    /// With the player's default frame cache.
    pub fn open(path: &std::path::Path) -> Self {
        Self::with_cache(path, DEFAULT_CACHE_BYTES)
    }

    pub fn with_cache(path: &std::path::Path, cache_bytes: usize) -> Self {
        let ctx = super::gpu();
        let source = VideoSource::open(path).unwrap();
        let format = source.info.format;
        let frames = FramePipeline::new(&ctx, 256, format, Default::default(), 4).unwrap();
        let decoder = DecodeThread::spawn(source, ctx.queue.clone(), frames.ring.slots.clone(), cache_bytes);
        Self { ctx, frames, decoder }
    }

    /// The next current frame and its histogram; the slot goes back to the decoder.
    pub fn next(&self) -> (ReadyFrame, Histogram) {
        let frame = match self.decoder.next_current(Duration::from_secs(30)) {
            Some(DecoderEvent::Frame(frame)) => frame,
            other => panic!("expected a frame, got {other:?}"),
        };
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        self.frames.encode_frame(&mut encoder, frame.slot);
        self.ctx.queue.submit([encoder.finish()]);
        self.decoder.release(frame.slot);
        (
            frame,
            self.frames
                .engine
                .read_histogram(&self.ctx, &self.frames.target)
                .unwrap(),
        )
    }

    /// Waits until the decoder is done with what it was asked (frames it sends are released).
    pub fn drain(&self, quiet: Duration) {
        while let Some(event) = self.decoder.event_timeout(quiet) {
            if let DecoderEvent::Frame(f) = event {
                self.decoder.release(f.slot);
            }
        }
    }

    /// The frame a seek lands on (after its keyframe preview, if one comes first).
    pub fn seek(&mut self, target: SeekTarget) -> (ReadyFrame, Histogram) {
        self.decoder.seek(target);
        loop {
            let (frame, h) = self.next();
            if !frame.preview {
                return (frame, h);
            }
        }
    }
}

pub fn level(h: &Histogram) -> u8 {
    let r = h.channel(0);
    let filled: Vec<usize> = (0..r.len()).filter(|&i| r[i] > 0).collect();
    assert_eq!(filled.len(), 1);
    filled[0] as u8
}
