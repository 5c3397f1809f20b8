//! The comparison stage of the window: B's own frame pipeline (its ring, its converted frame,
//! its histograms), then, reading both converted frames, the composite the picture shows, the
//! difference's histogram, and the pair's PSNR and SSIM measured from both rings' planes and
//! copied out for the OSD. A's pipeline runs as for any file and never learns about B. Made
//! once when the pair is opened; a mode that needs a wider composite makes it the first time.

use super::FramePipeline;
use crate::colour::{ColorSpec, ColorVolume, Range};
use crate::compare::composite::{composite_frame, CompareMode, Composite, CompositeBinding, CompositePass, MAX_GAIN};
use crate::compare::gpu::{MetricsBinding, MetricsPass};
use crate::compare::metrics::FrameMetrics;
use crate::compare::vmaf::gpu::{GpuOptions, VmafBinding, VmafGpuError, VmafPass};
use crate::engine::{HistogramTarget, SourceBinding};
use crate::gpu::mapping::LatestReadback;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::marks::gpu::{MarksStage, MarksView};
use crate::marks::MarkSettings;
use crate::scope::gpu::{ScopeCounting, ScopePass, ScopeShape, ScopeTarget};
use crate::scope::ScopeKind;
use crate::video::format::{FrameFormat, PlaneLayout};
use crate::video::ring::RingError;

/// Metrics buffers in flight: the GPU may run two frames behind.
const METRICS_BUFFERS: usize = 3;

/// What a metrics readout belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairTag {
    /// The pair of files (readouts of a pair that was replaced are dropped).
    pub media: u64,
    pub frame: u64,
    pub frame_b: u64,
}

/// A composite output, the pass bound to write it, and the marks drawn on it (made the first
/// time a mark is shown with it).
struct Output {
    frame: GpuFrame,
    binding: CompositeBinding,
    marks: Option<MarksStage>,
}

pub struct CompareStage {
    /// B's frames: converted, adjusted and counted as A's are.
    pub b: FramePipeline,
    pass: CompositePass,
    /// At A's size, and (once side by side is shown) twice as wide.
    single: Output,
    double: Option<Output>,
    composite: Composite,
    /// The difference's histogram (counted in difference mode), bound to the single output.
    difference: HistogramTarget,
    difference_source: SourceBinding,
    metrics: MetricsPass,
    /// Each component's size, for reading the metrics' sums.
    metrics_sizes: Vec<(usize, usize)>,
    /// Every pair of A's and B's ring slots, bound once: `[a][b]`.
    metrics_bindings: Vec<Vec<MetricsBinding>>,
    readback: LatestReadback<PairTag>,
    /// The scope of the picture shown, counted after the composite: the wipe's waveform is
    /// A's left of the line and B's right of it, side by side's the two in turn. The passes
    /// made so far, one per kind.
    scope: ScopeCounting,
    /// The marks shown on the picture (none: nothing is marked).
    marks: MarkSettings,
    /// A's source, whose scale and primaries the marks follow, and its frames' format, whose
    /// matrix gives the marks' luma.
    volume: ColorVolume,
    format: FrameFormat,
    /// VIF's heat map: VMAF's pass with its loss map, made the first time it is shown, bound
    /// to every pair of slots (`[a][b]`).
    heat: Option<(VmafPass, Vec<Vec<VmafBinding>>)>,
    /// The slots of the pair encoded last.
    last_pair: Option<(usize, usize)>,
    /// The heat map holds that pair's, made as it was drawn in VIF mode. Paused, its slots
    /// may hold other pictures since (a slot given back is filled again), so the map is never
    /// made from them later: switched to VIF paused, the window draws the pair again.
    heat_made: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Ring(#[from] RingError),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    Metrics(#[from] crate::compare::gpu::MetricsError),
    #[error("no VIF heat map: {0}")]
    Heat(#[from] VmafGpuError),
}

impl CompareStage {
    /// The stage for A's pipeline `a` and B's frames, of A's format (`match_pair`), from a
    /// stream of `volume_b`, shown as `composite`.
    pub fn new(
        ctx: &GpuContext,
        a: &FramePipeline,
        volume_b: ColorVolume,
        composite: Composite,
    ) -> Result<Self, StageError> {
        let format = a.ring.format;
        let b = FramePipeline::new(ctx, a.engine.bins, format, volume_b, a.ring.slots.len())?;
        let bits = a.ring.output.bits;
        let pass = CompositePass::new(&ctx.device, bits);
        let size = (format.width, format.height);
        let output = |mode: CompareMode| -> Result<Output, StageError> {
            let frame = composite_frame(ctx, size, bits, mode)?;
            let binding = pass.bind(&ctx.device, (&a.ring.output, &b.ring.output), None, &frame, composite);
            Ok(Output {
                frame,
                binding,
                marks: None,
            })
        };
        let single = output(CompareMode::Wipe)?;
        let double = match composite.mode {
            CompareMode::SideBySide => Some(output(CompareMode::SideBySide)?),
            _ => None,
        };
        let difference = a.engine.target(ctx, format.width, format.height)?;
        let difference_source = a.engine.bind_source(ctx, &difference, &single.frame.pixels);
        let metrics = MetricsPass::new(&ctx.device, &format)?;
        let metrics_bindings = a
            .ring
            .slots
            .iter()
            .map(|sa| {
                b.ring
                    .slots
                    .iter()
                    .map(|sb| metrics.bind(&ctx.device, sa, sb))
                    .collect()
            })
            .collect();
        let readback = LatestReadback::new(&ctx.device, "metrics", MetricsPass::sums_size(), METRICS_BUFFERS);
        let mut stage = Self {
            b,
            pass,
            single,
            double,
            composite,
            difference,
            difference_source,
            metrics_sizes: metrics.sizes(),
            metrics,
            metrics_bindings,
            readback,
            scope: ScopeCounting::default(),
            marks: MarkSettings::default(),
            volume: a.volume,
            format,
            heat: None,
            last_pair: None,
            heat_made: false,
        };
        stage.set_composite(ctx, a, composite)?;
        Ok(stage)
    }

    pub fn composite(&self) -> Composite {
        self.composite
    }

    /// Shows `composite` from the next frame drawn (or recount) on; side by side the first
    /// time makes its wider output. The split is kept within the frame and the gain within
    /// ×1…×64.
    pub fn set_composite(
        &mut self,
        ctx: &GpuContext,
        a: &FramePipeline,
        composite: Composite,
    ) -> Result<(), StageError> {
        let (width, _) = a.frame_size();
        let composite = Composite {
            split: composite.split.min(width),
            gain: composite.gain.clamp(1, MAX_GAIN),
            ..composite
        };
        if composite.mode == CompareMode::Vif && self.heat.is_none() {
            self.make_heat(ctx, a, composite)?;
        }
        if composite.mode == CompareMode::SideBySide && self.double.is_none() {
            let size = a.frame_size();
            let frame = composite_frame(ctx, size, a.ring.output.bits, CompareMode::SideBySide)?;
            let binding = self.pass.bind(
                &ctx.device,
                (&a.ring.output, &self.b.ring.output),
                None,
                &frame,
                composite,
            );
            self.double = Some(Output {
                frame,
                binding,
                marks: None,
            });
        }
        let output = self.output_for(composite.mode);
        self.pass.update(&ctx.queue, &output.binding, composite);
        let resized = self.output_for(self.composite.mode).frame.width != output.frame.width;
        self.composite = composite;
        if resized {
            // The marks and the scope are of the other output now (the scene is made again
            // for it, so a marks stage made here is drawn).
            let marks = self.marks.clone();
            self.set_marks(ctx, &marks);
            let kind = self.scope.counted().map(|(kind, _)| kind);
            self.set_scope(ctx, a, kind)?;
        }
        Ok(())
    }

    /// VMAF's pass for VIF's loss map, bound to every pair of slots, and the single output
    /// bound to read the map.
    fn make_heat(&mut self, ctx: &GpuContext, a: &FramePipeline, composite: Composite) -> Result<(), StageError> {
        let pass = VmafPass::new(&ctx.device, &self.format, GpuOptions::loss_map())?;
        let bindings = (a.ring.slots.iter())
            .map(|sa| {
                self.b
                    .ring
                    .slots
                    .iter()
                    .map(|sb| pass.bind(&ctx.device, sa, sb))
                    .collect()
            })
            .collect();
        let outputs = (&a.ring.output, &self.b.ring.output);
        self.single.binding = self
            .pass
            .bind(&ctx.device, outputs, pass.heat(), &self.single.frame, composite);
        self.heat = Some((pass, bindings));
        Ok(())
    }

    /// Records VIF's loss map of the pair in slots `pair` (or clears it: no pair), when the
    /// heat map is shown.
    fn encode_heat(&self, encoder: &mut wgpu::CommandEncoder, pair: Option<(usize, usize)>) {
        let Some((pass, bindings)) = self.heat.as_ref().filter(|_| self.composite.mode == CompareMode::Vif) else {
            return;
        };
        match pair {
            Some((slot_a, slot_b)) => pass.encode_heat(encoder, &bindings[slot_a][slot_b]),
            None => encoder.clear_buffer(pass.heat().expect("made with its map"), 0, None),
        }
    }

    /// Shows `settings`' marks on the picture from the next frame (or recount) on: on the
    /// composite's pixels, as on a frame, but with no range test (the composite has no planes
    /// of its own). The first mark shown with an output makes its stage, and then the scene
    /// must be made again to draw it: returns whether it was made.
    pub fn set_marks(&mut self, ctx: &GpuContext, settings: &MarkSettings) -> bool {
        self.marks = settings.clone();
        let format = self.marks_format();
        let volume = self.volume;
        let output = match (self.composite.mode, &mut self.double) {
            (CompareMode::SideBySide, Some(double)) => double,
            _ => &mut self.single,
        };
        let made = output.marks.is_none() && !settings.shown.is_empty();
        if made {
            let frame = &output.frame;
            let format = FrameFormat {
                width: frame.width,
                height: frame.height,
                ..format
            };
            output.marks = Some(MarksStage::new(ctx, &[], &frame.pixels, format, volume, frame.bits));
        }
        if let Some(stage) = &mut output.marks {
            stage.set(&ctx.queue, settings);
        }
        made
    }

    /// The composite's format for the marks: packed R'G'B' with A's matrix (for the luma), of
    /// no range to test.
    fn marks_format(&self) -> FrameFormat {
        FrameFormat {
            layout: PlaneLayout::Rgba,
            color: ColorSpec {
                range: Range::Full,
                ..self.format.color
            },
            ..self.format
        }
    }

    /// The marks of the picture shown, for the picture pass, once a mark was shown with it.
    pub fn marks(&self) -> Option<MarksView<'_>> {
        self.output_for(self.composite.mode)
            .marks
            .as_ref()
            .map(MarksStage::view)
    }

    /// Counts `scope` of the picture shown from the next frame (or recount) on, or none. The
    /// first use of a kind builds its pipelines.
    pub fn set_scope(
        &mut self,
        ctx: &GpuContext,
        a: &FramePipeline,
        scope: Option<ScopeKind>,
    ) -> Result<(), crate::gpu::GpuError> {
        let Some(kind) = scope else {
            self.scope.clear();
            return Ok(());
        };
        let picture = &output_of(&self.single, &self.double, self.composite.mode).frame;
        let size = (picture.width, picture.height);
        let shape = ScopeShape {
            bins: a.engine.bins,
            depth: a.engine.depth,
            volume: a.volume,
        };
        self.scope
            .set(ctx, kind, shape, &picture.pixels, kind.display_columns(), size)
    }

    /// The scope of the picture shown, if one is counted: its pass and counts.
    pub fn scope(&self) -> Option<(&ScopePass, &ScopeTarget)> {
        self.scope.get()
    }

    fn output_for(&self, mode: CompareMode) -> &Output {
        output_of(&self.single, &self.double, mode)
    }

    /// The picture the window draws: the composite of the current mode.
    pub fn picture(&self) -> &GpuFrame {
        &self.output_for(self.composite.mode).frame
    }

    /// In VIF mode without the heat map of the pair shown (switched to it since the pair was
    /// drawn): the pair must be drawn again.
    pub fn heat_missing(&self) -> bool {
        self.composite.mode == CompareMode::Vif && !self.heat_made
    }

    /// The histograms the quads fill: the difference's in difference mode, else None (A's).
    pub fn filled(&self) -> Option<&HistogramTarget> {
        (self.composite.mode == CompareMode::Difference).then_some(&self.difference)
    }

    /// Records B's new frame in `slot_b` converted and counted, the pair's metrics (A's frame
    /// in ring slot `slot_a`, converted by A's pipeline already) copied out under `tag`, and
    /// the composite. Without a partner, B's picture is black and nothing is measured.
    pub fn encode_pair(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        a: &FramePipeline,
        slot_a: usize,
        partner: Option<(usize, PairTag)>,
    ) {
        encoder.push_debug_group("comparison");
        match partner {
            Some((slot_b, tag)) => {
                self.b.encode_frame(encoder, slot_b);
                self.last_pair = Some((slot_a, slot_b));
                self.encode_heat(encoder, self.last_pair);
                self.heat_made = self.composite.mode == CompareMode::Vif;
                let binding = &self.metrics_bindings[slot_a][slot_b];
                self.metrics.encode(encoder, binding);
                let sums = self.metrics.sums();
                self.readback.record(tag, |buffer| {
                    encoder.copy_buffer_to_buffer(sums, 0, buffer, 0, MetricsPass::sums_size());
                });
            }
            None => {
                let output = &self.b.ring.output;
                encoder.clear_buffer(&output.pixels, 0, None);
                self.b.encode_counts(encoder);
                self.last_pair = None;
                self.encode_heat(encoder, None);
                self.heat_made = self.composite.mode == CompareMode::Vif;
            }
        }
        self.encode_composite(encoder, a);
        encoder.pop_debug_group();
    }

    /// Records counting both frames again and compositing them, paused, after the region,
    /// the adjustments or the mode changed.
    pub fn encode_recount(&self, encoder: &mut wgpu::CommandEncoder, a: &FramePipeline) {
        encoder.push_debug_group("comparison again");
        self.b.encode_recount(encoder, None);
        // (Switched to VIF paused: no heat until the pair is drawn again.)
        if !self.heat_made {
            self.encode_heat(encoder, None);
        }
        self.encode_composite(encoder, a);
        encoder.pop_debug_group();
    }

    fn encode_composite(&self, encoder: &mut wgpu::CommandEncoder, a: &FramePipeline) {
        let output = self.output_for(self.composite.mode);
        self.pass.encode(encoder, &output.binding);
        if let Some(marks) = output.marks.as_ref().filter(|_| !self.marks.shown.is_empty()) {
            marks.encode(encoder, Some(0), None);
        }
        if self.composite.mode == CompareMode::Difference {
            a.engine
                .encode(encoder, &self.difference, &self.difference_source, None);
        }
        if let Some((pass, target)) = self.scope() {
            pass.encode(encoder, target, None);
        }
    }

    /// After the frame's encoder is submitted: starts mapping its metrics.
    pub fn submitted(&mut self) {
        self.readback.submitted();
    }

    pub fn pending(&self) -> bool {
        self.readback.pending()
    }

    /// The newest pair's metrics read back, if one has landed (after `device.poll`).
    pub fn take_metrics(&mut self) -> Option<(PairTag, FrameMetrics)> {
        let (metrics, sizes) = (&self.metrics, &self.metrics_sizes);
        self.readback
            .take_latest(|_, bytes| FrameMetrics::from_sums(&metrics.read(bytes), sizes, metrics.bits))
    }
}

/// The output `mode` draws into: the wider one side by side, once made.
fn output_of<'a>(single: &'a Output, double: &'a Option<Output>, mode: CompareMode) -> &'a Output {
    match (mode, double) {
        (CompareMode::SideBySide, Some(double)) => double,
        _ => single,
    }
}
