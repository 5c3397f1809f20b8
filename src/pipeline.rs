//! The work done to each video frame, wired in one place for every front end (the player,
//! `hist`, the benchmarks, the tests): a ring slot's planes are converted to RGB, counted by the
//! histogram engine, and, where there is somewhere to show them, drawn with the histogram quads.
//! A new pass (scopes, regions) is added here once.

use crate::engine::histogram::Depth;
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget, SourceBinding};
use crate::gpu::GpuContext;
use crate::render::peak::{PeakBinding, PeakPass};
use crate::render::picture::Signal;
use crate::render::scene::{Scene, SceneRenderer};
use crate::video::format::{ColorVolume, FrameFormat};
use crate::video::ring::{FrameRing, RingError};

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
        })
    }

    /// A scene that draws this pipeline's frame and its histograms.
    pub fn scene(&self, device: &wgpu::Device, renderer: &SceneRenderer) -> Scene {
        let signal = Signal {
            bits: self.ring.output.bits,
            volume: self.volume,
            peak: self.peak.as_ref().map(|(_, binding)| &binding.state),
        };
        renderer.scene(device, &self.target, &self.ring.output.view, signal)
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
        encoder.push_debug_group("convert and count");
        self.ring.encode_convert(encoder, slot);
        self.engine.encode(encoder, &self.target, &self.binding, None);
        if let Some((pass, binding)) = &self.peak {
            pass.encode(encoder, binding);
        }
        encoder.pop_debug_group();
    }

    /// Pixels of a frame.
    pub fn pixel_count(&self) -> u32 {
        self.target.width * self.target.height
    }
}
