//! Picture adjustments that the histograms follow: mpv's contrast, brightness, gamma and
//! saturation (`1`–`8`, each −100..100), and auto-levels or histogram equalisation worked out on
//! the GPU from the frame's own histogram. They rewrite the converted frame before it is counted
//! and drawn (shaders/render/adjust.wgsl), so the histograms and scopes show the picture as
//! adjusted. Every step is integer arithmetic with a CPU twin here (`CpuAdjuster`), equal to the
//! GPU bit for bit.
//!
//! The definitions, on code values c of b bits (max = 2^b − 1):
//! - **saturation** S: with luma Y = 2126·R + 7152·G + 722·B (in 1/10000 codes), each channel
//!   becomes ⌊(Y + ⌊((10000·c − Y)·(100 + S) + 50) / 100⌋ + 5000) / 10000⌋ (division truncating),
//!   clamped: −100 is grey, +100 twice the chroma, as mpv's saturation scales chroma.
//! - **contrast** C, **brightness** B, **gamma** G, as mpv defines them: x = c / max,
//!   y = clamp((1 + C/100)·x + B/100, 0, 1)^(8^(−G/100)), c′ = round(y·max).
//! - **auto-levels:** per channel, the low point is the first code whose cumulative count exceeds
//!   0.1% of the pixels and the high point the first whose cumulative count reaches 99.9%; they
//!   move 1/8 of the way to each new frame's points (at once after a cut or a seek), are kept at
//!   least max/8 apart, and the channel is stretched linearly between them.
//! - **equalisation:** the luminance histogram's cumulative distribution becomes a curve applied
//!   to R, G and B alike (c′ = round(max·(cdf(c) − cdf_min) / (N − cdf_min))), smoothed the same
//!   way.
//!
//! Order: auto-levels or equalisation, then saturation, then the contrast/brightness/gamma curve.

use crate::colour::Depth;
use crate::engine::histogram::{histogram_packed, Histogram};
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget, SourceBinding, Stage};
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use wgpu::util::DeviceExt;

/// One of mpv's picture controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adjustment {
    Contrast,
    Brightness,
    Gamma,
    Saturation,
}

impl Adjustment {
    pub const ALL: [Self; 4] = [Self::Contrast, Self::Brightness, Self::Gamma, Self::Saturation];

    /// Its mpv property name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Contrast => "contrast",
            Self::Brightness => "brightness",
            Self::Gamma => "gamma",
            Self::Saturation => "saturation",
        }
    }
}

/// What the frame's own histogram does to the picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutoMode {
    #[default]
    Off,
    Levels,
    Equalize,
}

impl AutoMode {
    fn code(self) -> u32 {
        match self {
            AutoMode::Off => 0,
            AutoMode::Levels => 1,
            AutoMode::Equalize => 2,
        }
    }
}

/// Every picture adjustment, as the player and `--contrast` etc. set them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjustments {
    pub contrast: i32,
    pub brightness: i32,
    pub gamma: i32,
    pub saturation: i32,
    pub auto: AutoMode,
}

/// The range of each control, as in mpv.
pub const LIMIT: i32 = 100;

impl Adjustments {
    pub fn get(&self, adjustment: Adjustment) -> i32 {
        match adjustment {
            Adjustment::Contrast => self.contrast,
            Adjustment::Brightness => self.brightness,
            Adjustment::Gamma => self.gamma,
            Adjustment::Saturation => self.saturation,
        }
    }

    /// Sets a control, kept within −100..100.
    pub fn set(&mut self, adjustment: Adjustment, value: i32) {
        let value = value.clamp(-LIMIT, LIMIT);
        match adjustment {
            Adjustment::Contrast => self.contrast = value,
            Adjustment::Brightness => self.brightness = value,
            Adjustment::Gamma => self.gamma = value,
            Adjustment::Saturation => self.saturation = value,
        }
    }

    /// Whether the picture is left as it is.
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }

    /// What the OSD says while something is adjusted, e.g. `contrast +5 gamma −3 auto-levels`.
    pub fn label(&self) -> Option<String> {
        let mut parts: Vec<String> = Adjustment::ALL
            .into_iter()
            .filter(|a| self.get(*a) != 0)
            .map(|a| format!("{} {:+}", a.name(), self.get(a)))
            .collect();
        match self.auto {
            AutoMode::Off => {}
            AutoMode::Levels => parts.push("auto-levels".into()),
            AutoMode::Equalize => parts.push("equalised".into()),
        }
        (!parts.is_empty()).then(|| parts.join("  "))
    }

    /// The contrast, brightness and gamma curve for `bits`-bit codes: 2^bits entries.
    pub fn curve(&self, bits: u32) -> Vec<u32> {
        let max = f64::from((1u32 << bits) - 1);
        let gain = 1.0 + f64::from(self.contrast) / 100.0;
        let lift = f64::from(self.brightness) / 100.0;
        let exponent = 8f64.powf(-f64::from(self.gamma) / 100.0);
        (0..1u32 << bits)
            .map(|code| {
                let y = (gain * (f64::from(code) / max) + lift).clamp(0.0, 1.0);
                (y.powf(exponent) * max).round() as u32
            })
            .collect()
    }

    fn params(&self, width: u32, height: u32, bits: u32) -> AdjustParams {
        AdjustParams {
            width,
            height,
            bits,
            saturation: 100 + self.saturation,
            mode: self.auto.code(),
            _pad: [0; 3],
        }
    }
}

/// Twin of `AdjustParams` in adjust.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct AdjustParams {
    width: u32,
    height: u32,
    bits: u32,
    saturation: i32,
    mode: u32,
    _pad: [u32; 3],
}

/// Smoothing: each frame moves 1/8 of the way (adjust.wgsl's SMOOTHING).
const SMOOTHING: i32 = 8;

/// What auto-levels and equalisation carry from frame to frame (the GPU keeps the same in its
/// state buffer): low and high points of R, G and B, and the equalisation curve, in 1/256 codes.
#[derive(Clone, Debug)]
pub struct AutoState {
    restart: bool,
    levels: [i32; 6],
    curve: Vec<i32>,
}

impl AutoState {
    pub fn new(bits: u32) -> Self {
        Self {
            restart: true,
            levels: [0; 6],
            curve: vec![0; 1 << bits],
        }
    }

    /// The next frame starts over, unsmoothed (a seek, a new file, a mode switched on).
    pub fn restart(&mut self) {
        self.restart = true;
    }

    /// Twin of adjust.wgsl's `levels`: the lookup table (R, G, B, each 2^bits entries) for a
    /// frame whose unadjusted histogram in 2^bits bins is `hist`.
    pub fn table(&mut self, hist: &Histogram, bits: u32, mode: AutoMode) -> Vec<u32> {
        let size = 1usize << bits;
        let max_code = (size - 1) as i32;
        let mut table: Vec<u32> = (0..3).flat_map(|_| 0..size as u32).collect();
        let restart = std::mem::take(&mut self.restart);
        match mode {
            AutoMode::Off => {}
            AutoMode::Levels => {
                for ch in 0..3 {
                    let total: u32 = hist.counts.iter().map(|c| c[ch]).sum();
                    let clip = total / 1000;
                    let mut cumulative = 0u32;
                    let (mut low, mut high) = (None, None);
                    for (bin, counts) in hist.counts.iter().enumerate() {
                        cumulative += counts[ch];
                        if cumulative > clip {
                            low = low.or(Some(bin));
                        }
                        if cumulative >= total - clip {
                            high = high.or(Some(bin));
                        }
                    }
                    let mut low = low.unwrap_or(size - 1) as i32 * 256;
                    let mut high = high.unwrap_or(size - 1) as i32 * 256;
                    let cut = max_code * 256 / 4;
                    let (old_low, old_high) = (self.levels[2 * ch], self.levels[2 * ch + 1]);
                    if !restart && (low - old_low).abs() <= cut && (high - old_high).abs() <= cut {
                        low = old_low + (low - old_low) / SMOOTHING;
                        high = old_high + (high - old_high) / SMOOTHING;
                    }
                    self.levels[2 * ch] = low;
                    self.levels[2 * ch + 1] = high;
                    let min_span = max_code * 256 / 8;
                    if high - low < min_span {
                        low = (low + high - min_span) / 2;
                        high = low + min_span;
                    }
                    let span = high - low;
                    for bin in 0..size {
                        let above = (bin as i32 * 256 - low).max(0);
                        table[ch * size + bin] = (max_code).min((above * max_code + span / 2) / span) as u32;
                    }
                }
            }
            AutoMode::Equalize => {
                let total: u32 = hist.counts.iter().map(|c| c[3]).sum();
                let mut cumulative = 0u32;
                let cdf: Vec<u32> = hist
                    .counts
                    .iter()
                    .map(|c| {
                        cumulative += c[3];
                        cumulative
                    })
                    .collect();
                let first = cdf.iter().copied().find(|&c| c > 0).unwrap_or(u32::MAX);
                let bit_length = 32 - total.leading_zeros() as i32;
                let shift = (bit_length - 21).max(0) as u32;
                let spread = if total > first { (total - first) >> shift } else { 0 };
                let targets: Vec<i32> = cdf
                    .iter()
                    .enumerate()
                    .map(|(bin, &cumulative)| {
                        let above = if cumulative > first {
                            (cumulative - first) >> shift
                        } else {
                            0
                        };
                        let code = (above * max_code as u32 + spread / 2)
                            .checked_div(spread)
                            .map_or(bin as u32, |code| code.min(max_code as u32));
                        code as i32 * 256
                    })
                    .collect();
                let change: u32 = targets
                    .iter()
                    .zip(&self.curve)
                    .map(|(t, old)| (t - old).unsigned_abs())
                    .sum();
                let jump = restart || change > size as u32 * max_code as u32 * 256 / 8;
                for (bin, target) in targets.into_iter().enumerate() {
                    let old = self.curve[bin];
                    let value = if jump { target } else { old + (target - old) / SMOOTHING };
                    self.curve[bin] = value;
                    let code = ((value + 128) / 256) as u32;
                    for ch in 0..3 {
                        table[ch * size + bin] = code;
                    }
                }
            }
        }
        table
    }
}

/// CPU twin of the whole adjustment, frame after frame.
pub struct CpuAdjuster {
    settings: Adjustments,
    bits: u32,
    curve: Vec<u32>,
    state: AutoState,
}

impl CpuAdjuster {
    pub fn new(settings: Adjustments, bits: u32) -> Self {
        Self {
            settings,
            bits,
            curve: settings.curve(bits),
            state: AutoState::new(bits),
        }
    }

    /// The next frame's auto-levels or equalisation start over, unsmoothed (a picture of
    /// another size, as the GPU's passes made again for it start).
    pub fn restart(&mut self) {
        self.state.restart();
    }

    /// The next frame's packed pixels (RGBA8, or RGB10A2 at 10 bits), adjusted.
    pub fn adjust(&mut self, words: &[u32]) -> Vec<u32> {
        let bits = self.bits;
        let size = 1usize << bits;
        let table = match self.settings.auto {
            AutoMode::Off => None,
            mode => {
                let depth = Depth::from_bits(bits);
                let hist = histogram_packed(words, size as u32, depth);
                Some(self.state.table(&hist, bits, mode))
            }
        };
        let saturation = 100 + self.settings.saturation;
        let max_code = (size - 1) as i32;
        words
            .iter()
            .map(|&word| {
                let mut c = unpack(word, bits);
                if let Some(table) = &table {
                    for (ch, value) in c.iter_mut().enumerate() {
                        *value = table[ch * size + *value as usize];
                    }
                }
                if saturation != 100 {
                    let luma = 2126 * c[0] as i32 + 7152 * c[1] as i32 + 722 * c[2] as i32;
                    for value in &mut c {
                        let away = (*value as i32 * 10000 - luma) * saturation;
                        let scaled = (away + 50) / 100;
                        *value = ((luma + scaled + 5000) / 10000).clamp(0, max_code) as u32;
                    }
                }
                pack(c.map(|value| self.curve[value as usize]), bits)
            })
            .collect()
    }
}

fn unpack(word: u32, bits: u32) -> [u32; 3] {
    let mask = (1 << bits) - 1;
    [word & mask, (word >> bits) & mask, (word >> (2 * bits)) & mask]
}

fn pack([r, g, b]: [u32; 3], bits: u32) -> u32 {
    if bits == 10 {
        r | (g << 10) | (b << 20) | 0xc000_0000
    } else {
        r | (g << 8) | (b << 16) | 0xff00_0000
    }
}

/// Offset of the equalisation curve in the state buffer (adjust.wgsl's STATE_CURVE).
const STATE_CURVE: u64 = 8;

/// The adjustment of one frame size and depth on the GPU: from `source` (the converted frame)
/// into `adjusted`, with the unadjusted frame counted in one bin per code value for
/// auto-levels and equalisation. Made once; `set` changes it with queue writes.
pub struct AdjustStage {
    adjust: wgpu::ComputePipeline,
    levels: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    params: wgpu::Buffer,
    curve: wgpu::Buffer,
    state: wgpu::Buffer,
    engine: HistogramEngine,
    target: HistogramTarget,
    source_binding: SourceBinding,
    settings: Adjustments,
    width: u32,
    height: u32,
    bits: u32,
}

impl AdjustStage {
    /// Adjusts `source` into `adjusted` (same size and depth).
    pub fn new(ctx: &GpuContext, source: &GpuFrame, adjusted: &GpuFrame) -> Result<Self, GpuError> {
        let device = &ctx.device;
        let (width, height, bits) = (source.width, source.height, source.bits);
        let size = 1u64 << bits;
        let compute = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("adjust"),
            entries: &[
                layout::uniform(0, compute, false),
                layout::storage(1, compute, true),
                layout::storage(2, compute, false),
                layout::storage_texture(3, compute, GpuFrame::texture_format(bits)),
                layout::storage(4, compute, true),
                layout::storage(5, compute, false),
                layout::storage(6, compute, true),
                layout::storage(7, compute, false),
            ],
        });
        let module = shaders::module(device, "adjust", shaders::adjust_source(bits));
        let adjust = shaders::compute_pipeline(device, "adjust", &module, "adjust", &layout);
        let levels = shaders::compute_pipeline(device, "adjust levels", &module, "levels", &layout);
        let settings = Adjustments::default();
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("adjust params"),
            contents: bytemuck::bytes_of(&settings.params(width, height, bits)),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let curve = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("adjust curve"),
            contents: bytemuck::cast_slice(&settings.curve(bits)),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let table = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("adjust table"),
            size: 3 * size * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let mut initial_state = vec![0i32; (STATE_CURVE + size) as usize];
        initial_state[0] = 1;
        let state = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("adjust state"),
            contents: bytemuck::cast_slice(&initial_state),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let engine = HistogramEngine::new(
            ctx,
            size as u32,
            EngineConfig {
                depth: Depth::from_bits(bits),
                ..EngineConfig::default()
            },
        );
        let target = engine.target(ctx, width, height)?;
        let source_binding = engine.bind_source(ctx, &target, &source.pixels);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("adjust"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: source.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: adjusted.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&adjusted.view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: curve.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: table.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 6,
                    resource: target.histogram.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 7,
                    resource: state.as_entire_binding(),
                },
            ],
        });
        Ok(Self {
            adjust,
            levels,
            bind_group,
            params,
            curve,
            state,
            engine,
            target,
            source_binding,
            settings,
            width,
            height,
            bits,
        })
    }

    pub fn settings(&self) -> Adjustments {
        self.settings
    }

    /// Applies `settings` from the next encode on (queue writes, only of what changed). Turning
    /// auto-levels or equalisation on starts it over.
    pub fn set(&mut self, queue: &wgpu::Queue, settings: Adjustments) {
        let old = self.settings;
        if settings == old {
            return;
        }
        self.settings = settings;
        queue.write_buffer(
            &self.params,
            0,
            bytemuck::bytes_of(&settings.params(self.width, self.height, self.bits)),
        );
        if (settings.contrast, settings.brightness, settings.gamma) != (old.contrast, old.brightness, old.gamma) {
            queue.write_buffer(&self.curve, 0, bytemuck::cast_slice(&settings.curve(self.bits)));
        }
        if settings.auto != old.auto {
            self.restart(queue);
        }
    }

    /// The next frame's auto-levels or equalisation start over, unsmoothed (after a seek).
    pub fn restart(&self, queue: &wgpu::Queue) {
        queue.write_buffer(&self.state, 0, bytemuck::bytes_of(&1i32));
    }

    /// Records adjusting the source frame: counting it first when its histogram is needed.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_timed(encoder, None);
    }

    /// `encode`, in one compute pass timed with `writes`.
    pub fn encode_timed(&self, encoder: &mut wgpu::CommandEncoder, writes: Option<wgpu::ComputePassTimestampWrites>) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("adjust"),
            timestamp_writes: writes,
        });
        if self.settings.auto != AutoMode::Off {
            self.engine
                .encode_into(&mut pass, &self.target, &self.source_binding, Stage::Scale);
        }
        pass.set_bind_group(0, &self.bind_group, &[]);
        if self.settings.auto != AutoMode::Off {
            pass.set_pipeline(&self.levels);
            pass.dispatch_workgroups(1, 1, 1);
        }
        pass.set_pipeline(&self.adjust);
        pass.dispatch_workgroups(self.width.div_ceil(16), self.height.div_ceil(16), 1);
    }
}

/// A still picture adjusted on the GPU (for `hist` and `render` of images): a new frame.
pub fn adjust_still(ctx: &GpuContext, picture: &GpuFrame, settings: Adjustments) -> Result<GpuFrame, GpuError> {
    let adjusted = GpuFrame::with_bits(ctx, "adjusted picture", picture.width, picture.height, picture.bits)?;
    let mut stage = AdjustStage::new(ctx, picture, &adjusted)?;
    stage.set(&ctx.queue, settings);
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("adjust picture"),
    });
    stage.encode(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    Ok(adjusted)
}

#[cfg(test)]
mod tests;
