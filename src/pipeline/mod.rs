//! The work done to each video frame, wired in one place for every front end (the player,
//! `hist`, the benchmarks, the tests): a ring slot's planes are converted to RGB, counted by the
//! histogram engine, and, where there is somewhere to show them, drawn with the histogram quads.
//! A new pass (scopes, regions) is added here once. Comparing two files adds a stage beside A's
//! pipeline that reads both frames (`comparison`).

pub mod comparison;

use crate::colour::lut::LutTables;
use crate::colour::LogEncoding;
use crate::colour::{ColorVolume, Depth, Primaries, Transfer};
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget, SourceBinding};
use crate::gpu::texture::GpuFrame;
use crate::gpu::timing::PassTimer;
use crate::gpu::{GpuContext, GpuError};
use crate::marks::gpu::MarksStage;
use crate::marks::{Mark, MarkSettings};
use crate::render::adjust::{AdjustStage, Adjustments};
use crate::render::lut::LutStage;
use crate::render::peak::{PeakBinding, PeakPass};
use crate::render::picture::Signal;
use crate::render::scene::{Scene, SceneRenderer};
use crate::scope::gpu::{ScopeCounting, ScopePass, ScopeShape, ScopeTarget};
use crate::scope::region::{GatherBinding, GatherPass};
use crate::scope::{Region, ScopeError, ScopeKind};
use crate::signalstats::gpu::StatsStage;
use crate::video::convert::ConvertBinding;
use crate::video::format::FrameFormat;
use crate::video::ring::{FrameRing, RingError};
use std::cell::Cell;

/// One stream's GPU side: its ring of frames, the converted frame, the histogram engine and
/// target that count it at the stream's depth (8 or 10 bits), and for HDR streams the peak pass
/// that measures the light to tone-map from. Made once per file; nothing here is made per frame.
pub struct FramePipeline {
    pub ring: FrameRing,
    pub engine: HistogramEngine,
    pub target: HistogramTarget,
    pub volume: ColorVolume,
    binding: SourceBinding,
    peak: Option<(PeakPass, PeakBinding)>,
    /// The region of interest, once one has been set (kept when it is cleared: its buffer
    /// serves the next one).
    region: Option<RegionCounting>,
    region_active: bool,
    /// The scope counted each frame, if any, and the passes made so far (one per kind).
    scope: ScopeCounting,
    /// The picture adjustments, once any has been set (kept when reset: they serve the next).
    adjusting: Option<Adjusting>,
    adjust_active: bool,
    /// The LUT, once one has been loaded (kept while turned off: turning it on is then free).
    lut: Option<LutApplied>,
    lut_active: bool,
    /// What the histograms and scopes count while a LUT is on: the signal or the picture.
    scopes_on: ScopesOn,
    /// The marks on the picture, once any has been shown.
    marks: Option<MarksStage>,
    /// The camera log encoding the signal is in, if any: the marks' stops and scene-light
    /// zebras, the graticule's stops.
    exposure: Option<LogEncoding>,
    /// FFmpeg's signalstats of each frame's planes, once asked for.
    stats: Option<StatsStage>,
    /// Only the statistics are wanted (`report`): frames are not converted or counted.
    stats_only: bool,
    /// Frames go uncounted by the statistics stage for now (the window's overlay is down).
    stats_paused: bool,
}

/// While the picture is adjusted, slots are converted into `raw`, which the adjustment reads
/// and writes into the ring's output; everything downstream reads the output as ever.
struct Adjusting {
    raw: GpuFrame,
    converts: Vec<ConvertBinding>,
    stage: AdjustStage,
    /// Whether `raw` holds the frame last converted (the output then holds it adjusted).
    raw_current: Cell<bool>,
}

/// A LUT in force: the converted frame (the signal) goes through it into `picture`, which is
/// drawn; the histograms and scopes count either (`ScopesOn`). Frames as they play go through
/// it as they are converted (`converts`); the LUT pass (`stage`) applies it to a frame
/// converted already.
struct LutApplied {
    picture: GpuFrame,
    stage: LutStage,
    /// The conversion of each ring slot through the LUT.
    converts: Vec<ConvertBinding>,
    /// The engine bound to `picture`.
    binding: SourceBinding,
    /// Whether a frame was converted through the LUT since the signal's texture was last
    /// written: it is then behind, and written before it is drawn again.
    signal_texture_behind: Cell<bool>,
}

/// What the histograms and scopes count while the picture is shown through a LUT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScopesOn {
    /// The decoded signal, as without a LUT.
    #[default]
    Signal,
    /// The picture as shown, after the LUT.
    Display,
}

impl ScopesOn {
    pub fn name(self) -> &'static str {
        match self {
            Self::Signal => "signal",
            Self::Display => "display",
        }
    }
}

/// The LUT a picture is shown through (a `.cube` file's, or a camera log encoding's display
/// rendering), if any, and what the histograms and scopes count meanwhile: the headless
/// commands' `--lut`, `--input-colour` and `--scopes-on`, resolved for one file.
#[derive(Clone, Debug, Default)]
pub struct Look {
    pub lut: Option<std::sync::Arc<crate::colour::lut::Lut>>,
    pub scopes_on: ScopesOn,
}

impl Look {
    /// What the JSON says was counted: only with a LUT in force.
    pub fn counted(&self) -> Option<ScopesOn> {
        self.lut.as_ref().map(|_| self.scopes_on)
    }

    /// Whether the picture through the LUT is what is counted.
    pub fn counts_display(&self) -> bool {
        self.counted() == Some(ScopesOn::Display)
    }

    /// The LUT's tables for `bits`-bit frames, where the picture through it is counted (the
    /// CPU twins and stills apply them before counting).
    pub fn counted_tables(&self, bits: u32) -> Option<LutTables> {
        self.lut
            .as_ref()
            .filter(|_| self.counts_display())
            .map(|lut| LutTables::new(lut, bits))
    }
}

impl std::str::FromStr for ScopesOn {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "signal" => Ok(Self::Signal),
            "display" => Ok(Self::Display),
            _ => Err(format!("'{s}': the scopes count the signal or the display")),
        }
    }
}

/// A LUT's picture is display-referred BT.709.
const LUT_VOLUME: ColorVolume = ColorVolume {
    transfer: Transfer::Sdr,
    primaries: Primaries::Bt709,
    peak_nits: None,
};

/// The passes of a frame the player's stats overlay times, in `PassTimer` order.
pub const TIMED_PASSES: [&str; 5] = ["convert", "adjust", "histograms", "scope", "draw"];
/// Indices into `TIMED_PASSES`.
pub const TIMED_CONVERT: usize = 0;
pub const TIMED_ADJUST: usize = 1;
pub const TIMED_HISTOGRAMS: usize = 2;
pub const TIMED_SCOPE: usize = 3;
pub const TIMED_DRAW: usize = 4;

/// A region's pixels gathered into a buffer of their own, which the engine counts instead of
/// the frame.
struct RegionCounting {
    gather: GatherPass,
    pixels: wgpu::Buffer,
    gather_binding: GatherBinding,
    engine_binding: SourceBinding,
}

impl FramePipeline {
    /// A pipeline for frames of `format` (and `volume`) counted in `bins` bins, with a ring of
    /// `slots` frames.
    pub fn new(
        ctx: &GpuContext,
        bins: u32,
        format: FrameFormat,
        volume: ColorVolume,
        slots: usize,
    ) -> Result<Self, RingError> {
        let ring = FrameRing::new(ctx, format, slots)?;
        let config = EngineConfig {
            depth: Depth::from_bits(ring.output.bits),
            ..EngineConfig::default()
        };
        let engine = HistogramEngine::new(ctx, bins, config);
        let target = engine.target(ctx, format.width, format.height)?;
        let binding = engine.bind_source(ctx, &target, &ring.output.pixels);
        let peak = volume.is_hdr().then(|| {
            let pass = PeakPass::new(&ctx.device);
            let binding = pass.bind(&ctx.device, &target.histogram, format.width * format.height, &volume);
            (pass, binding)
        });
        Ok(Self {
            ring,
            engine,
            target,
            volume,
            binding,
            peak,
            region: None,
            region_active: false,
            scope: ScopeCounting::default(),
            adjusting: None,
            adjust_active: false,
            lut: None,
            lut_active: false,
            scopes_on: ScopesOn::Signal,
            marks: None,
            exposure: None,
            stats: None,
            stats_only: false,
            stats_paused: false,
        })
    }

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

    /// Shows the picture through `tables` (made for this stream's depth) from the next frame
    /// on, or (None) as decoded; a LUT already loaded is replaced. The scene must be made again
    /// afterwards: it draws another frame.
    pub fn set_lut(&mut self, ctx: &GpuContext, tables: Option<&LutTables>) -> Result<(), RingError> {
        match tables {
            Some(tables) => {
                let output = &self.ring.output;
                let picture =
                    GpuFrame::with_bits(ctx, "picture through the LUT", output.width, output.height, output.bits)?;
                let stage = LutStage::new(ctx, tables, output, &picture)?;
                let converts = self.ring.bind_looking(ctx, stage.look())?;
                let binding = self.engine.bind_source(ctx, &self.target, &picture.pixels);
                // The frame shown now may have been converted through the LUT replaced.
                let behind = self.lut.as_ref().is_some_and(|lut| lut.signal_texture_behind.get());
                self.lut = Some(LutApplied {
                    picture,
                    stage,
                    converts,
                    binding,
                    signal_texture_behind: Cell::new(behind),
                });
                self.lut_active = true;
            }
            None => self.lut_active = false,
        }
        self.recount_what_changed(ctx)
    }

    /// Shows the picture through `look`'s LUT, if any, counting what it says.
    pub fn set_look(&mut self, ctx: &GpuContext, look: &Look) -> Result<(), RingError> {
        if let Some(lut) = &look.lut {
            self.set_lut(ctx, Some(&LutTables::new(lut, self.ring.output.bits)))?;
            self.set_scopes_on(ctx, look.scopes_on)?;
        }
        Ok(())
    }

    /// Turns the LUT loaded on or off (nothing without one): whether it is on now. The scene
    /// must be made again afterwards.
    pub fn show_lut(&mut self, ctx: &GpuContext, on: bool) -> Result<bool, RingError> {
        self.lut_active = on && self.lut.is_some();
        self.recount_what_changed(ctx)?;
        Ok(self.lut_active)
    }

    /// Whether the picture is shown through a LUT.
    pub fn lut_shown(&self) -> bool {
        self.lut_active
    }

    /// Whether the histograms and scopes count the signal or (with a LUT on) the picture.
    pub fn set_scopes_on(&mut self, ctx: &GpuContext, on: ScopesOn) -> Result<(), RingError> {
        self.scopes_on = on;
        self.recount_what_changed(ctx)
    }

    /// What the histograms and scopes count: `Display` only while a LUT is on.
    pub fn scopes_on(&self) -> ScopesOn {
        if self.lut_active {
            self.scopes_on
        } else {
            ScopesOn::Signal
        }
    }

    /// The frame the histograms and scopes count: the picture through the LUT, or the signal.
    fn counted_frame(&self) -> &GpuFrame {
        match (&self.lut, self.scopes_on()) {
            (Some(lut), ScopesOn::Display) => &lut.picture,
            _ => &self.ring.output,
        }
    }

    /// The colour volume of the frame counted.
    fn counted_volume(&self) -> ColorVolume {
        match self.scopes_on() {
            ScopesOn::Display => LUT_VOLUME,
            ScopesOn::Signal => self.volume,
        }
    }

    /// The region and the scope read the counted frame: made again on it.
    fn recount_what_changed(&mut self, ctx: &GpuContext) -> Result<(), RingError> {
        if let Some(lut) = &self.lut {
            // Frames converted through the LUT write the picture's packed pixels only while
            // something counts them.
            lut.stage
                .write_pixels(&ctx.queue, self.scopes_on() == ScopesOn::Display);
        }
        if let Some(region) = self.region.as_ref().map(|r| r.gather_binding.region()) {
            self.region = Some(self.make_region(ctx, region));
        }
        if let Some(scope) = self.scope.counted() {
            self.set_scope(ctx, Some(scope))?;
        }
        Ok(())
    }

    /// Auto-levels and equalisation start over at the next frame, unsmoothed (after a seek).
    pub fn restart_adjustments(&self, queue: &wgpu::Queue) {
        if let Some(adjusting) = &self.adjusting {
            adjusting.stage.restart(queue);
        }
    }

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

    /// Counts each frame's QC statistics from the next one on (`StatsStage`), where the
    /// stream's planes allow it (8- or 10-bit Y'CbCr): returns whether they are counted.
    pub fn count_stats(&mut self, ctx: &GpuContext) -> bool {
        if self.stats.is_none() && StatsStage::supports(&self.ring.format) {
            let slots: Vec<_> = self.ring.slots.iter().map(|s| s.as_ref()).collect();
            self.stats = Some(StatsStage::new(ctx, &slots, self.ring.format));
        }
        self.stats.is_some()
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
    fn encode_marks(&self, encoder: &mut wgpu::CommandEncoder, slot: Option<usize>) {
        if let Some(marks) = self.marks.as_ref().filter(|m| !m.shown().is_empty()) {
            marks.encode(encoder, slot, None);
        }
    }

    /// The frame's size.
    pub fn frame_size(&self) -> (u32, u32) {
        (self.target.width, self.target.height)
    }

    /// The region counted, if one is set.
    pub fn region(&self) -> Option<Region> {
        self.region
            .as_ref()
            .filter(|_| self.region_active)
            .map(|r| r.gather_binding.region())
    }

    /// Counts only `region` of each frame from the next frame on (None: the whole frame),
    /// histograms and scopes alike. Moving a region is a few small queue writes; the first one
    /// makes its buffer.
    pub fn set_region(&mut self, ctx: &GpuContext, region: Option<Region>) -> Result<(), ScopeError> {
        let (width, height) = self.frame_size();
        let region = match region {
            Some(r) => Some(r.check(width, height)?),
            None => None,
        };
        let was_active = self.region_active;
        match region {
            Some(r) => {
                match &mut self.region {
                    Some(counting) => counting.gather_binding.set_region(&ctx.queue, r, width),
                    None => self.region = Some(self.make_region(ctx, r)),
                }
                self.region_active = true;
            }
            None => self.region_active = false,
        }
        let counted = region.unwrap_or(Region::full(width, height));
        self.engine
            .set_pixel_count(ctx, &mut self.target, counted.pixel_count());
        if let Some((_, binding)) = &self.peak {
            binding.set_pixel_count(&ctx.queue, counted.pixel_count());
        }
        if was_active != self.region_active {
            // The scope reads another buffer now.
            if let Some(scope) = self.scope.counted() {
                self.set_scope(ctx, Some(scope))?;
            }
        } else {
            self.scope.resize(&ctx.queue, counted.width, counted.height);
        }
        Ok(())
    }

    fn make_region(&self, ctx: &GpuContext, region: Region) -> RegionCounting {
        let gather = GatherPass::new(&ctx.device);
        let pixels = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("region pixels"),
            size: self.ring.output.pixels.size(),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let gather_binding = gather.bind(
            &ctx.device,
            &self.counted_frame().pixels,
            &pixels,
            region,
            self.target.width,
        );
        let engine_binding = self.engine.bind_source(ctx, &self.target, &pixels);
        RegionCounting {
            gather,
            pixels,
            gather_binding,
            engine_binding,
        }
    }

    /// Counts `scope` (its kind and columns) of each frame from the next one on, or none. The
    /// first use of a kind builds its pipelines; later switches only make its counts buffer.
    pub fn set_scope(&mut self, ctx: &GpuContext, scope: Option<(ScopeKind, u32)>) -> Result<(), GpuError> {
        let Some((kind, columns)) = scope else {
            self.scope.clear();
            return Ok(());
        };
        let counted = self
            .region()
            .unwrap_or(Region::full(self.target.width, self.target.height));
        let shape = ScopeShape {
            bins: self.engine.bins,
            depth: self.engine.depth,
            volume: self.counted_volume(),
        };
        let display = self.scopes_on() == ScopesOn::Display;
        let pixels = match (&self.region, self.region_active, &self.lut) {
            (Some(counting), true, _) => &counting.pixels,
            (_, _, Some(lut)) if display => &lut.picture.pixels,
            _ => &self.ring.output.pixels,
        };
        self.scope
            .set(ctx, kind, shape, pixels, columns, (counted.width, counted.height))
    }

    /// The scope counted each frame: its pass and counts.
    pub fn scope(&self) -> Option<(&ScopePass, &ScopeTarget)> {
        self.scope.get()
    }

    /// The frame drawn: the converted frame, or the picture through the LUT while one is on.
    pub fn picture(&self) -> &GpuFrame {
        match (&self.lut, self.lut_active) {
            (Some(lut), true) => &lut.picture,
            _ => &self.ring.output,
        }
    }

    /// A scene that draws this pipeline's frame and its histograms.
    pub fn scene(&self, device: &wgpu::Device, renderer: &SceneRenderer) -> Scene {
        renderer.scene(device, &self.target, &self.picture().view, self.signal(), self.scope())
    }

    /// What a scope's vertical axis holds: the converted frame's depth, the source's range and
    /// transfer (for the graticule's levels).
    pub fn axis(&self) -> crate::scope::graticule::Axis {
        crate::scope::graticule::Axis {
            bits: self.ring.output.bits,
            range: self.ring.format.color.range,
            transfer: self.volume.transfer,
            log: self.exposure,
        }
    }

    /// What the converted frame holds: its depth, colour volume and, HDR, its measured peak.
    pub fn signal(&self) -> Signal<'_> {
        if self.lut_active {
            // Display-referred already: drawn as it is.
            return Signal {
                bits: self.ring.output.bits,
                volume: LUT_VOLUME,
                peak: None,
                marks: self.marks.as_ref().map(MarksStage::view),
            };
        }
        Signal {
            bits: self.ring.output.bits,
            volume: self.volume,
            peak: self.peak.as_ref().map(|(_, binding)| &binding.state),
            marks: self.marks.as_ref().map(MarksStage::view),
        }
    }

    /// Bounds an HDR stream's peak by what its frames' side data says (`FrameLight`), where its
    /// container said nothing.
    pub fn bound_peak(&self, queue: &wgpu::Queue, nits: f32) {
        if let Some((_, binding)) = &self.peak {
            if self.volume.peak_nits.is_none() {
                binding.set_bound(queue, nits);
            }
        }
    }

    /// The peak state buffer of an HDR stream (for the OSD's readout).
    pub fn peak_state(&self) -> Option<&wgpu::Buffer> {
        self.peak.as_ref().map(|(_, binding)| &binding.state)
    }

    /// Records converting ring slot `slot` and counting it: afterwards the ring's output holds
    /// the frame and the target its histogram (and scale). The slot may be refilled once the
    /// encoder is submitted.
    pub fn encode_frame(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        self.encode_frame_timed(encoder, slot, None);
    }

    /// `encode_frame`, its passes timed by `timer` (see `TIMED_PASSES`).
    pub fn encode_frame_timed(&self, encoder: &mut wgpu::CommandEncoder, slot: usize, timer: Option<&PassTimer>) {
        if let (Some(stats), true) = (&self.stats, self.stats_only) {
            stats.encode(encoder, slot);
            return;
        }
        let writes = |pass| timer.map(|t| t.compute_writes(pass));
        encoder.push_debug_group("convert and count");
        match (&self.adjusting, self.active_lut()) {
            (Some(adjusting), lut) if self.adjust_active => {
                self.ring
                    .encode_convert_with(encoder, &adjusting.converts[slot], writes(TIMED_CONVERT));
                adjusting.stage.encode_timed(encoder, writes(TIMED_ADJUST));
                adjusting.raw_current.set(true);
                // The adjusted frame through the LUT.
                if let Some(lut) = lut {
                    lut.stage.encode(encoder);
                    lut.signal_texture_behind.set(false);
                }
            }
            (adjusting, _) => {
                self.encode_conversion(encoder, slot, writes(TIMED_CONVERT));
                if let Some(adjusting) = adjusting {
                    adjusting.raw_current.set(false);
                }
            }
        }
        self.encode_marks(encoder, Some(slot));
        if let Some(stats) = self.counting_stats() {
            stats.encode(encoder, slot);
        }
        self.encode_counts_timed(encoder, timer);
        encoder.pop_debug_group();
    }

    /// Records converting ring slot `slot` into the ring's output, unadjusted, and through the
    /// LUT while one is on (in the one pass: the picture then holds the frame through it),
    /// `writes` timing the pass.
    pub fn encode_conversion(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        match self.active_lut() {
            Some(lut) => {
                self.ring.encode_convert_with(encoder, &lut.converts[slot], writes);
                lut.signal_texture_behind.set(true);
            }
            None => {
                self.ring.encode_convert_timed(encoder, slot, writes);
                if let Some(lut) = &self.lut {
                    lut.signal_texture_behind.set(false);
                }
            }
        }
    }

    /// Records counting the frame shown again, paused, after the region, the scope or the
    /// adjustments changed: the adjustments are applied anew to the unadjusted frame first.
    pub fn encode_recount(&self, encoder: &mut wgpu::CommandEncoder, timer: Option<&PassTimer>) {
        if let Some(adjusting) = &self.adjusting {
            let output = &self.ring.output;
            let writes = timer.map(|t| t.compute_writes(TIMED_ADJUST));
            match (adjusting.raw_current.get(), self.adjust_active) {
                (true, true) => adjusting.stage.encode_timed(encoder, writes),
                (true, false) => {
                    copy_frame(encoder, &adjusting.raw, output);
                    adjusting.raw_current.set(false);
                    // The unadjusted frame's texture may be one a conversion through the LUT
                    // left behind (its packed pixels are current): written again below.
                    if let Some(lut) = &self.lut {
                        lut.signal_texture_behind.set(true);
                    }
                }
                (false, true) => {
                    copy_frame(encoder, output, &adjusting.raw);
                    adjusting.stage.encode_timed(encoder, writes);
                    adjusting.raw_current.set(true);
                }
                (false, false) => {}
            }
        }
        match (&self.lut, self.lut_active) {
            (Some(lut), true) => lut.stage.encode(encoder),
            (Some(lut), false) if lut.signal_texture_behind.get() => {
                lut.stage.encode_show_signal(encoder);
                lut.signal_texture_behind.set(false);
            }
            _ => {}
        }
        self.encode_marks(encoder, None);
        self.encode_counts_timed(encoder, timer);
    }

    /// The LUT the picture is shown through, while one is on.
    fn active_lut(&self) -> Option<&LutApplied> {
        self.lut.as_ref().filter(|_| self.lut_active)
    }

    /// Records counting the converted frame (or its region): the histograms, the peak and the
    /// scope.
    pub fn encode_counts(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_counts_timed(encoder, None);
    }

    /// `encode_counts`, the histograms' and the scope's passes timed by `timer`.
    pub fn encode_counts_timed(&self, encoder: &mut wgpu::CommandEncoder, timer: Option<&PassTimer>) {
        let binding = match (&self.region, self.region_active) {
            (Some(counting), true) => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("region"),
                    timestamp_writes: None,
                });
                counting.gather.encode(&mut pass, &counting.gather_binding);
                &counting.engine_binding
            }
            _ => match (&self.lut, self.scopes_on()) {
                (Some(lut), ScopesOn::Display) => &lut.binding,
                _ => &self.binding,
            },
        };
        let writes = |pass| timer.map(|t| t.compute_writes(pass));
        self.engine
            .encode(encoder, &self.target, binding, writes(TIMED_HISTOGRAMS));
        if let Some((pass, binding)) = &self.peak {
            pass.encode(encoder, binding);
        }
        if let Some((pass, target)) = self.scope() {
            pass.encode(encoder, target, writes(TIMED_SCOPE));
        }
    }

    /// Pixels counted: the frame's, or its region's.
    pub fn pixel_count(&self) -> u32 {
        self.target.pixel_count
    }
}

/// Records copying one frame's texture and packed pixels into another of the same size.
fn copy_frame(encoder: &mut wgpu::CommandEncoder, from: &GpuFrame, to: &GpuFrame) {
    encoder.copy_buffer_to_buffer(&from.pixels, 0, &to.pixels, 0, from.pixels.size());
    encoder.copy_texture_to_texture(
        from.texture.as_image_copy(),
        to.texture.as_image_copy(),
        from.texture.size(),
    );
}
