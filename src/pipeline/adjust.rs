//! The picture adjustments in the pipeline: slots converted into a frame of their own that the
//! adjustment stage reads, its output what everything downstream reads.

use super::FramePipeline;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::render::adjust::{AdjustStage, Adjustments};
use crate::video::convert::ConvertBinding;
use crate::video::ring::RingError;
use std::cell::Cell;

/// While the picture is adjusted, slots are converted into `raw`, which the adjustment reads
/// and writes into the ring's output; everything downstream reads the output as ever.
pub(super) struct Adjusting {
    pub(super) raw: GpuFrame,
    pub(super) converts: Vec<ConvertBinding>,
    pub(super) stage: AdjustStage,
    /// Whether `raw` holds the frame last converted (the output then holds it adjusted).
    pub(super) raw_current: Cell<bool>,
}

impl FramePipeline {
    /// The picture adjustments in force.
    pub fn adjustments(&self) -> Adjustments {
        match &self.adjusting {
            Some(adjusting) if self.adjust_active => adjusting.stage.settings(),
            _ => Adjustments::default(),
        }
    }

    /// Adjusts the picture from the next frame on (or, paused, with `encode_recount`), so that
    /// the histograms and scopes count it as adjusted. The first adjustment makes its frame and
    /// passes; later changes are queue writes.
    pub fn set_adjustments(&mut self, ctx: &GpuContext, settings: Adjustments) -> Result<(), RingError> {
        if self.adjusting.is_none() {
            if settings.is_identity() {
                return Ok(());
            }
            let output = &self.ring.output;
            let raw = GpuFrame::with_bits(ctx, "unadjusted frame", output.width, output.height, output.bits)?;
            let converts = self.ring.bind_into(ctx, &raw)?;
            let stage = AdjustStage::new(ctx, &raw, output)?;
            self.adjusting = Some(Adjusting {
                raw,
                converts,
                stage,
                raw_current: Cell::new(false),
            });
        }
        let adjusting = self.adjusting.as_mut().expect("made above");
        adjusting.stage.set(&ctx.queue, settings);
        self.adjust_active = !settings.is_identity();
        Ok(())
    }

    /// Auto-levels and equalisation start over at the next frame, unsmoothed (after a seek).
    pub fn restart_adjustments(&self, queue: &wgpu::Queue) {
        if let Some(adjusting) = &self.adjusting {
            adjusting.stage.restart(queue);
        }
    }
}
