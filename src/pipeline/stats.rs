//! FFmpeg's signalstats of each frame's planes in the pipeline: made on demand, paused while
//! nothing shows them, or (`report`) the only thing counted; and beside them, freezedetect's
//! comparison with the last picture that moved (`report`'s events), and the light of the
//! converted frame's cells (the photosensitivity analysis).

use super::FramePipeline;
use crate::events::freeze::gpu::FreezeStage;
use crate::gpu::GpuContext;
use crate::signalstats::gpu::StatsStage;

impl FramePipeline {
    /// Counts each frame's QC statistics from the next one on (`StatsStage`), where the
    /// stream's planes allow it (8- or 10-bit Y'CbCr): returns whether they are counted.
    pub fn count_stats(&mut self, ctx: &GpuContext) -> bool {
        if self.stats.is_none() && StatsStage::supports(&self.ring.format) {
            let slots: Vec<_> = self.ring.slots.iter().map(|s| s.as_ref()).collect();
            // (Split fields are each compared with the same field of the frame before.)
            self.stats = Some(StatsStage::new(ctx, &slots, self.ring.format, self.splits_fields()));
        }
        self.stats.is_some()
    }

    /// Compares each frame with the last that moved from the next one on (`FreezeStage`,
    /// frozen at a mean difference of `noise` or less), where the stream's planes allow it:
    /// returns whether they are compared.
    pub fn detect_freezes(&mut self, ctx: &GpuContext, noise: f64) -> bool {
        if self.freeze.is_none() && FreezeStage::supports(&self.ring.format) {
            let slots: Vec<_> = self.ring.slots.iter().map(|s| s.as_ref()).collect();
            self.freeze = Some(FreezeStage::new(ctx, &slots, self.ring.format, noise));
        }
        self.freeze.is_some()
    }

    /// Sums each converted frame's light over the cells of a grid from the next one on
    /// (`PseStage`, through `model`), for the photosensitivity analysis.
    pub fn analyse_flashes(&mut self, ctx: &GpuContext, model: &crate::pse::light::LightModel) {
        if self.pse.is_none() {
            self.pse = Some(crate::pse::gpu::PseStage::new(ctx, &self.ring.output, model));
        }
    }

    /// The photosensitivity stage, once made.
    pub fn pse(&self) -> Option<&crate::pse::gpu::PseStage> {
        self.pse.as_ref()
    }

    /// The freeze stage, once made.
    pub fn freeze(&self) -> Option<&FreezeStage> {
        self.freeze.as_ref()
    }

    /// The statistics stage, once made.
    pub fn stats(&self) -> Option<&StatsStage> {
        self.stats.as_ref()
    }

    /// From now on each frame only has its statistics counted (`count_stats`), and is neither
    /// converted nor counted into histograms: what `report` needs, nothing more.
    pub fn count_only_stats(&mut self) {
        self.stats_only = true;
    }

    /// Whether the frames encoded next are counted by the statistics stage, once made.
    pub fn pause_stats(&mut self, paused: bool) {
        self.stats_paused = paused;
    }

    /// The statistics stage, while it counts the frames encoded.
    pub fn counting_stats(&self) -> Option<&StatsStage> {
        self.stats.as_ref().filter(|_| !self.stats_paused)
    }
}
