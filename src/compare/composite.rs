//! The picture a comparison shows, a GPU stage with its CPU twin: from the two frames as
//! converted (A the reference, B the one judged, B at A's size), A left of a wipe line and B
//! right of it, the two side by side, their difference |A − B| per channel amplified ×1…×64
//! (bright where they differ, black where they agree), or either alone (flicker). Everything
//! after it (histograms, scopes, the picture) takes the composite as it takes a frame.

use crate::gpu::shaders;
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use wgpu::util::DeviceExt;

/// How the two are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareMode {
    /// The reference left of a vertical line, the judged file right of it.
    #[default]
    Wipe,
    /// The reference on the left, the judged file on the right, each whole.
    SideBySide,
    /// |reference − judged| per channel, amplified.
    Difference,
    /// The reference alone (flicker shows the two in turn).
    A,
    /// The judged file alone.
    B,
    /// VIF's information loss at each pixel (VMAF's detail feature), as a heat over the
    /// reference in grey: dark red to yellow to white where detail is lost (white at 64 bits
    /// over the gain), blue where an enhancement adds it.
    Vif,
}

impl CompareMode {
    fn code(self) -> u32 {
        match self {
            CompareMode::Wipe => 0,
            CompareMode::SideBySide => 1,
            CompareMode::Difference => 2,
            CompareMode::A => 3,
            CompareMode::B => 4,
            CompareMode::Vif => 5,
        }
    }

    /// The composite's size for frames of `size`.
    pub fn output_size(self, (width, height): (u32, u32)) -> (u32, u32) {
        if self == CompareMode::SideBySide {
            (2 * width, height)
        } else {
            (width, height)
        }
    }
}

/// What the composite shows: the mode, the wipe's first column of B, the difference's gain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Composite {
    pub mode: CompareMode,
    pub split: u32,
    pub gain: u32,
}

/// The largest gain of the difference.
pub const MAX_GAIN: u32 = 64;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    mode: u32,
    split: u32,
    gain: u32,
    bits: u32,
    _pad: [u32; 2],
}

/// A packed pixel's channels at `bits` (8: bytes; 10: `pack_rgb10`'s fields).
fn channels(word: u32, bits: u32) -> [u32; 3] {
    if bits == 10 {
        [word & 1023, (word >> 10) & 1023, (word >> 20) & 1023]
    } else {
        [word & 255, (word >> 8) & 255, (word >> 16) & 255]
    }
}

fn pack([r, g, b]: [u32; 3], bits: u32) -> u32 {
    if bits == 10 {
        r | g << 10 | b << 20 | 3 << 30
    } else {
        r | g << 8 | b << 16 | 255 << 24
    }
}

/// VIF's loss (Q11 bits) at which the heat is white at gain ×1: 64 bits. The difference's gain
/// (`k`, `K`) divides it: ×8, the default, whitens at 8 bits lost.
pub const HEAT_FULL_AT_GAIN_1: u32 = 64 * 2048;

/// A pixel of the VIF heat map: `a` (the reference's packed pixel) in grey at half its level,
/// under the heat of `loss` (`vif::loss_map`, Q11 bits): from dark red through red and yellow
/// to white at `HEAT_FULL_AT_GAIN_1 / gain`, opaque from a third of that; blue where the loss
/// is negative (an enhancement), opaque at half of it. Integer arithmetic, as the shader's.
fn heat_pixel(a: u32, loss: i32, bits: u32, gain: u32) -> u32 {
    let top = (1u32 << bits) - 1;
    let full = HEAT_FULL_AT_GAIN_1 / gain.clamp(1, MAX_GAIN);
    let [r, g, b] = channels(a, bits);
    let grey = (r + 2 * g + b) / 8;
    let (colour, weight) = if loss >= 0 {
        let t = loss.unsigned_abs().min(full);
        let third = full / 3;
        let ramp = |from: u32| (t.saturating_sub(from) * top / third).min(top);
        ([ramp(0), ramp(third), ramp(2 * third)], (3 * t).min(full))
    } else {
        let t = loss.unsigned_abs().min(full / 2);
        ([0, top / 2, top], 2 * t)
    };
    pack(colour.map(|c| (grey * (full - weight) + c * weight) / full), bits)
}

/// The CPU twin: the composite of packed frames `a` and `b` of `width` x `height` at `bits`
/// (`heat`: VIF's loss map, for `CompareMode::Vif`).
pub fn composite_cpu(
    a: &[u32],
    b: &[u32],
    heat: Option<&[i32]>,
    (width, height): (u32, u32),
    bits: u32,
    c: Composite,
) -> Vec<u32> {
    let (out_width, _) = c.mode.output_size((width, height));
    let top = (1u32 << bits) - 1;
    let gain = c.gain.clamp(1, MAX_GAIN);
    let mut out = Vec::with_capacity((out_width * height) as usize);
    for y in 0..height {
        for ox in 0..out_width {
            let (from_b, x) = match c.mode {
                CompareMode::Wipe => (ox >= c.split, ox),
                CompareMode::SideBySide => (ox >= width, ox % width),
                CompareMode::B => (true, ox),
                CompareMode::A | CompareMode::Difference | CompareMode::Vif => (false, ox),
            };
            let at = (y * width + x) as usize;
            out.push(if c.mode == CompareMode::Vif {
                heat_pixel(a[at], heat.map_or(0, |h| h[at]), bits, gain)
            } else if c.mode == CompareMode::Difference {
                let (p, q) = (channels(a[at], bits), channels(b[at], bits));
                pack(std::array::from_fn(|i| (p[i].abs_diff(q[i]) * gain).min(top)), bits)
            } else if from_b {
                b[at]
            } else {
                a[at]
            });
        }
    }
    out
}

/// The composite pass for frames of one depth, built once.
pub struct CompositePass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    /// Bound where no VIF heat map is (every mode but `Vif`).
    no_heat: wgpu::Buffer,
    bits: u32,
}

/// The pass bound to two frames and the composite it writes, with its parameters' buffer
/// (rewritten, never remade, when the mode, line or gain change).
pub struct CompositeBinding {
    bind_group: wgpu::BindGroup,
    params: wgpu::Buffer,
    size: (u32, u32),
    workgroups: (u32, u32),
}

const WORKGROUP: (u32, u32) = (32, 4);

impl CompositePass {
    pub fn new(device: &wgpu::Device, bits: u32) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: compute,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("composite"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: compute,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: compute,
                    ty: wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: GpuFrame::texture_format(bits),
                        view_dimension: wgpu::TextureViewDimension::D2,
                    },
                    count: None,
                },
                storage(4, false),
                storage(5, true),
            ],
        });
        let no_heat = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("composite: no heat"),
            size: 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let module = shaders::module(device, "composite", shaders::composite_source(bits));
        let pipeline = shaders::compute_pipeline(device, "composite", &module, "composite", &layout);
        Self {
            pipeline,
            layout,
            no_heat,
            bits,
        }
    }

    /// Binds frames `a` and `b` (one size, this pass's depth), `out` (the mode's output size
    /// for them) and, for `CompareMode::Vif`, `heat` (VIF's loss map of the pair, `i32`s).
    pub fn bind(
        &self,
        device: &wgpu::Device,
        (a, b): (&GpuFrame, &GpuFrame),
        heat: Option<&wgpu::Buffer>,
        out: &GpuFrame,
        composite: Composite,
    ) -> CompositeBinding {
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("composite params"),
            contents: bytemuck::bytes_of(&self.params((a.width, a.height), composite)),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("composite"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: a.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: b.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&out.view),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: out.pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: heat.unwrap_or(&self.no_heat).as_entire_binding(),
                },
            ],
        });
        CompositeBinding {
            bind_group,
            params,
            size: (a.width, a.height),
            workgroups: (out.width.div_ceil(WORKGROUP.0), out.height.div_ceil(WORKGROUP.1)),
        }
    }

    fn params(&self, (width, height): (u32, u32), c: Composite) -> Params {
        Params {
            width,
            height,
            mode: c.mode.code(),
            split: c.split,
            gain: c.gain.clamp(1, MAX_GAIN),
            bits: self.bits,
            _pad: [0; 2],
        }
    }

    /// Changes what a binding shows (a line moved, the gain changed, flicker's turn) within
    /// its output's size.
    pub fn update(&self, queue: &wgpu::Queue, binding: &CompositeBinding, composite: Composite) {
        queue.write_buffer(
            &binding.params,
            0,
            bytemuck::bytes_of(&self.params(binding.size, composite)),
        );
    }

    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, binding: &CompositeBinding) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("composite"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &binding.bind_group, &[]);
        pass.dispatch_workgroups(binding.workgroups.0, binding.workgroups.1, 1);
    }
}

/// A composite frame of `composite`'s output size for frames of `size`, at `bits`.
pub fn composite_frame(ctx: &GpuContext, size: (u32, u32), bits: u32, mode: CompareMode) -> Result<GpuFrame, GpuError> {
    let (w, h) = mode.output_size(size);
    GpuFrame::with_bits(ctx, "comparison", w, h, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_takes_its_pixels_from_where_it_should() {
        // 4x2 frames: A's pixels are their index, B's 100 more, in the red channel.
        let a: Vec<u32> = (0..8).map(|i| pack([i, 0, 0], 8)).collect();
        let b: Vec<u32> = (0..8).map(|i| pack([i + 100, 7, 0], 8)).collect();
        let red = |v: Vec<u32>| v.iter().map(|w| w & 255).collect::<Vec<_>>();
        let run = |mode, split, gain| red(composite_cpu(&a, &b, None, (4, 2), 8, Composite { mode, split, gain }));
        assert_eq!(run(CompareMode::Wipe, 1, 1), [0, 101, 102, 103, 4, 105, 106, 107]);
        assert_eq!(
            run(CompareMode::SideBySide, 0, 1),
            [0, 1, 2, 3, 100, 101, 102, 103, 4, 5, 6, 7, 104, 105, 106, 107]
        );
        assert_eq!(run(CompareMode::A, 0, 1), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(run(CompareMode::B, 0, 1), [100, 101, 102, 103, 104, 105, 106, 107]);
        // |A − B| is 100 in red and 7 in green: ×2 gives 200 and 14; ×4 clips red at 255.
        let diff = composite_cpu(
            &a,
            &b,
            None,
            (4, 2),
            8,
            Composite {
                mode: CompareMode::Difference,
                split: 0,
                gain: 2,
            },
        );
        assert!(diff.iter().all(|&w| channels(w, 8) == [200, 14, 0]));
        let diff = composite_cpu(
            &a,
            &b,
            None,
            (4, 2),
            8,
            Composite {
                mode: CompareMode::Difference,
                split: 0,
                gain: 4,
            },
        );
        assert!(diff.iter().all(|&w| channels(w, 8) == [255, 28, 0]));
        // At 10 bits the same, within 1023.
        let a10: Vec<u32> = (0..8).map(|i| pack([i * 100, 0, 1000], 10)).collect();
        let b10: Vec<u32> = (0..8).map(|_| pack([0, 0, 990], 10)).collect();
        let diff = composite_cpu(
            &a10,
            &b10,
            None,
            (4, 2),
            10,
            Composite {
                mode: CompareMode::Difference,
                split: 0,
                gain: 8,
            },
        );
        assert_eq!(channels(diff[1], 10), [800, 0, 80]);
        assert_eq!(channels(diff[7], 10), [1023, 0, 80]);
    }

    #[test]
    fn the_vif_heat_runs_from_the_grey_reference_through_red_and_yellow_to_white() {
        let grey = pack([200, 200, 200], 8);
        let heat = |loss| channels(heat_pixel(grey, loss, 8, 8), 8);
        // No loss: the reference in grey at half its level.
        assert_eq!(heat(0), [100, 100, 100]);
        // At ×8, white is 8 bits lost (16384 in Q11): a third of it is opaque pure red, two
        // thirds yellow, all of it (and beyond) white.
        assert_eq!(heat(5462), [255, 0, 0]);
        assert_eq!(heat(10922), [255, 255, 0]);
        assert_eq!(heat(16384), [255, 255, 255]);
        assert_eq!(heat(90000), [255, 255, 255]);
        // A little loss tints the grey red.
        assert_eq!(heat(1820), [94, 66, 66]);
        // An enhancement: blue, opaque from 4 bits gained.
        assert_eq!(heat(-8192), [0, 127, 255]);
        // The gain scales it: at ×64, one bit lost is white.
        assert_eq!(channels(heat_pixel(grey, 2048, 8, 64), 8), [255, 255, 255]);
        assert_eq!(
            channels(heat_pixel(pack([1000, 1000, 1000], 10), 16384, 10, 8), 10),
            [1023; 3]
        );
    }
}
