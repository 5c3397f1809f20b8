//! The work done to each video frame, wired in one place for every front end (the player,
//! `hist`, the benchmarks, the tests): a ring slot's planes are converted to RGB, counted by the
//! histogram engine, and, where there is somewhere to show them, drawn with the histogram quads.
//! A new pass (scopes, regions) is added here once. Comparing two files adds a stage beside A's
//! pipeline that reads both frames (`comparison`).

mod adjust;
pub mod comparison;
mod counting;
mod encode;
mod fields;
mod look;
mod marks;
mod stats;

pub use fields::field_format;
pub use look::{Look, ScopesOn};

use crate::colour::{ColorVolume, Depth, LogEncoding};
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget, SourceBinding};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::marks::gpu::MarksStage;
use crate::render::peak::{PeakBinding, PeakPass};
use crate::render::picture::Signal;
use crate::render::scene::{Scene, SceneRenderer};
use crate::scope::gpu::ScopeCounting;
use crate::signalstats::gpu::StatsStage;
use crate::video::format::FrameFormat;
use crate::video::ring::{FrameRing, RingError};
use adjust::Adjusting;
use counting::RegionCounting;
use look::{LutApplied, LUT_VOLUME};

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
    /// FFmpeg's freezedetect of each frame against the last that moved, once asked for.
    freeze: Option<crate::events::freeze::gpu::FreezeStage>,
    /// The photosensitivity analysis's light of each cell of the converted frame, once asked for.
    pse: Option<crate::pse::gpu::PseStage>,
    /// The last three frames' planes, for the stages that read a frame with its neighbours.
    kept: Option<crate::video::deinterlace::kept::KeptFrames>,
    /// The deinterlacing of each frame's planes before anything reads them, once asked for.
    deinterlace: Option<crate::video::deinterlace::gpu::DeinterlacePass>,
    /// FFmpeg's idet of each frame's planes (as decoded), once asked for.
    idet: Option<crate::idet::gpu::IdetPass>,
    /// The ring the frames are decoded into where their fields are counted apart (the
    /// pipeline's own ring then holds the fields).
    split: Option<fields::SplitFields>,
    /// The window shows each frame with its fields apart.
    fields_apart: Option<fields::FieldsApart>,
    /// Only the statistics are wanted (`report`): frames are not converted or counted.
    stats_only: bool,
    /// Frames go uncounted by the statistics stage for now (the window's overlay is down).
    stats_paused: bool,
}

/// The passes of a frame the player's stats overlay times, in `PassTimer` order.
pub const TIMED_PASSES: [&str; 5] = ["convert", "adjust", "histograms", "scope", "draw"];
/// Indices into `TIMED_PASSES`.
pub const TIMED_CONVERT: usize = 0;
pub const TIMED_ADJUST: usize = 1;
pub const TIMED_HISTOGRAMS: usize = 2;
pub const TIMED_SCOPE: usize = 3;
pub const TIMED_DRAW: usize = 4;

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
        // The histogram engine's passes are made on a thread of their own while the ring's
        // conversion and memory are: the shaders' translation and the driver's compiling of
        // each take tens of milliseconds, which a command's first frame waits on.
        let config = EngineConfig {
            depth: Depth::from_bits(format.layout.output_bits()),
            ..EngineConfig::default()
        };
        let (ring, made) = std::thread::scope(|scope| {
            let engine = scope.spawn(|| {
                let engine = HistogramEngine::new(ctx, bins, config);
                let target = engine.target(ctx, format.width, format.height);
                (engine, target)
            });
            let ring = FrameRing::new(ctx, format, slots);
            (ring, engine.join())
        });
        let ring = ring?;
        let (engine, target) = made.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let target = target?;
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
            freeze: None,
            pse: None,
            kept: None,
            deinterlace: None,
            idet: None,
            split: None,
            fields_apart: None,
            stats_only: false,
            stats_paused: false,
        })
    }

    /// The frame's size.
    pub fn frame_size(&self) -> (u32, u32) {
        (self.target.width, self.target.height)
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

    /// Pixels counted: the frame's, or its region's.
    pub fn pixel_count(&self) -> u32 {
        self.target.pixel_count
    }
}
