//! The GPU stages of a report's frames beyond the statistics (deinterlacing, fields, idet,
//! the photosensitivity analysis, freezedetect), and the pipeline made with them while the
//! file's first frame decodes.

use super::super::pse::ReportPse;
use super::ReportOptions;
use crate::events::freeze::gpu::RESULT_BYTES;
use crate::gpu::GpuContext;
use crate::headless::{self as hist, ClipError, FrameRange};
use crate::idet::gpu::{IdetPass, RESULT_BYTES as IDET_BYTES};
use crate::pipeline::FramePipeline;
use crate::signalstats::gpu::StatsStage;
use crate::video::source::VideoSource;

/// The GPU stages a report's frames go through beyond the statistics, from what the report
/// asks and what the stream is.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuStages {
    work: hist::PictureWork,
    /// The photosensitivity analysis's light model (it reads the converted frame).
    pse: Option<crate::pse::light::LightModel>,
    /// freezedetect, at this noise.
    freezes: Option<f64>,
    /// The range's first frame: freezedetect starts there (not at the frame before it, which
    /// the statistics' differences read).
    freeze_from: u64,
}

impl GpuStages {
    /// The stages of `options`' report of `source`, where its frames are counted on the GPU;
    /// None where the CPU twin counts them.
    pub fn of(source: &VideoSource, options: &ReportOptions, range: FrameRange) -> Option<Self> {
        let info = &source.info.format;
        if source.converted_yuv_layout().is_some() || options.cpu || !StatsStage::supports(info) {
            return None;
        }
        Some(Self {
            work: hist::PictureWork {
                deinterlace: options.deinterlace,
                idet: options.idet.is_some() && IdetPass::supports(info),
                split: options.fields,
            },
            pse: options.pse.map(|standard| ReportPse::new(standard, source, None).model),
            freezes: options.events.freezes().then_some(options.events.freeze.noise),
            freeze_from: range.start,
        })
    }

    /// Sets `pipeline` up with the stages; the bytes of a frame's results.
    pub(super) fn setup(&self, ctx: &GpuContext, pipeline: &mut FramePipeline) -> Result<u64, ClipError> {
        if self.work.split {
            pipeline.split_fields(ctx).map_err(ClipError::Decode)?;
        }
        if let Some(filter) = self.work.deinterlace {
            pipeline.deinterlace(ctx, filter);
        }
        if self.work.idet {
            pipeline.detect_interlace(ctx);
        }
        if !pipeline.count_stats(ctx) {
            return Err(ClipError::Decode(format!(
                "the statistics pass cannot read {}",
                pipeline.ring.format.layout
            )));
        }
        match &self.pse {
            // (The analysis reads the converted frame.)
            Some(model) => pipeline.analyse_flashes(ctx, model),
            None => pipeline.count_only_stats(),
        }
        if let Some(noise) = self.freezes {
            pipeline.detect_freezes(ctx, noise);
        }
        if let (Some(freeze), true) = (pipeline.freeze(), self.freeze_from > 0) {
            freeze.restart_at(self.freeze_from);
        }
        let freeze_bytes = pipeline.freeze().map_or(0, |_| RESULT_BYTES);
        let idet_bytes = pipeline.idet().map_or(0, |_| IDET_BYTES);
        let pse_bytes = pipeline.pse().map_or(0, |p| p.readback_size());
        Ok(pipeline.stats().expect("counted").counts_size() + freeze_bytes + idet_bytes + pse_bytes)
    }
}

/// A report's pipeline and passes, made ahead for its stages.
pub struct ReadyStages {
    pub(super) stages: GpuStages,
    pub(super) prepared: hist::Prepared,
}

/// The GPU opened beside `source` (`headless::open_beside`) and, where `options`' report of it
/// counts on the GPU, its pipeline and passes made while the first frame of `range` decodes.
pub fn ready_beside(
    gpu: crate::gpu::GpuOpening,
    mut source: VideoSource,
    range: FrameRange,
    options: &ReportOptions,
) -> (Option<GpuContext>, Option<ReadyStages>, VideoSource) {
    // (Before the first frames decode.)
    if options.measures_each_size() {
        source.follow_size_changes();
    }
    let stages = GpuStages::of(&source, options, range);
    let setup = stages
        .clone()
        .map(|s| move |ctx: &GpuContext, p: &mut FramePipeline| s.setup(ctx, p));
    let (ctx, prepared, source) = hist::open_beside(gpu, source, range, crate::engine::histogram::DEFAULT_BINS, setup);
    let ready = stages
        .zip(prepared)
        .map(|(stages, prepared)| ReadyStages { stages, prepared });
    (ctx, ready, source)
}
