//! The marks on the picture (zebras, false colour, gamut...) in the pipeline, and the camera
//! log encoding they and the graticule read the signal in.

use super::FramePipeline;
use crate::colour::LogEncoding;
use crate::gpu::GpuContext;
use crate::marks::gpu::MarksStage;
use crate::marks::{Mark, MarkSettings};

impl FramePipeline {
    /// Shows `settings`' marks on the picture from the next frame on (or, paused, with
    /// `encode_recount`). The first mark shown makes the stage, and then the scene must be made
    /// again to draw it: returns whether it was made.
    pub fn set_marks(&mut self, ctx: &GpuContext, settings: &MarkSettings) -> bool {
        let settings = &MarkSettings {
            exposure: self.exposure,
            ..settings.clone()
        };
        let mut made = false;
        if self.marks.is_none() {
            if settings.shown.is_empty() {
                return false;
            }
            let slots: Vec<_> = self.ring.slots.iter().map(|s| s.as_ref()).collect();
            let output = &self.ring.output;
            self.marks = Some(MarksStage::new(
                ctx,
                &slots,
                &output.pixels,
                self.ring.format,
                self.volume,
                output.bits,
            ));
            made = true;
        }
        // While any mark shows, the range test runs too, so that its marks are there to show
        // when it is turned on over a paused frame (whose planes are gone by then).
        let compute = settings.shown.with(Mark::Range, !settings.shown.is_empty());
        self.marks
            .as_mut()
            .expect("made above")
            .set_computing(&ctx.queue, settings, compute);
        made
    }

    /// Reads the signal as camera log in `encoding` (None: as video) for the marks and the
    /// graticule from the next frame on. The picture it is shown through is `set_lut`'s.
    pub fn set_exposure(&mut self, ctx: &GpuContext, encoding: Option<LogEncoding>) {
        self.exposure = encoding;
        // The marks shown are worked out again for it (`set_marks` reads it).
        if let Some(settings) = self.marks.as_ref().map(|m| m.settings().clone()) {
            self.set_marks(ctx, &settings);
        }
    }

    /// The camera log encoding the signal is read in, if any.
    pub fn exposure(&self) -> Option<LogEncoding> {
        self.exposure
    }

    /// The marks stage, once made.
    pub fn marks(&self) -> Option<&MarksStage> {
        self.marks.as_ref()
    }

    /// Records the marks of the converted frame, if any are shown: from ring slot `slot`, or
    /// (None) the frame counted again.
    pub(super) fn encode_marks(&self, encoder: &mut wgpu::CommandEncoder, slot: Option<usize>) {
        if let Some(marks) = self.marks.as_ref().filter(|m| !m.shown().is_empty()) {
            marks.encode(encoder, slot, None);
        }
    }
}
