//! The metrics stage on the GPU: one dispatch per component reads the two frames' plane
//! textures (ring slots, as uploaded) and adds the component's squared differences and window
//! SSIMs into a small buffer, which is copied out with the frame's other results. Exact to the
//! CPU twin (`metrics`) but for the last bit of a window's single-precision division, where the
//! GPU's may differ.

use super::metrics::{ssim_constants, ComponentSums};
use crate::gpu::shaders;
use crate::video::convert::PlaneTextures;
use crate::video::format::{places, FrameFormat, Place, PlaneLayout};
use wgpu::util::DeviceExt;

/// Blocks of 4x4 samples a workgroup sums, and the windows it owns, per side.
const TILE_BLOCKS: u32 = 16;
const OWNED_BLOCKS: u32 = 15;
/// Uniform offsets are multiples of this.
const PARAMS_STRIDE: u64 = 256;
/// The deepest samples the pass takes: a window's sum of squares (four 4x4 blocks of both
/// frames, 2.15e9 at 12 bits) stays within 32 bits.
pub const MAX_BITS: u32 = 12;

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("comparing needs Y'CbCr or grey frames of 8 to {MAX_BITS} bits, not {0}")]
    Unsupported(PlaneLayout),
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    width: u32,
    height: u32,
    bits: u32,
    sample_mask: u32,
    plane: u32,
    channel: u32,
    component: u32,
    c1: u32,
    c2: u32,
    _pad: [u32; 3],
}

/// The components of `format` (`video::format::places`), for the deepest samples the pass takes.
fn jobs(format: &FrameFormat) -> Result<(Vec<Place>, u32), MetricsError> {
    places(format)
        .filter(|&(_, bits)| bits <= MAX_BITS)
        .ok_or(MetricsError::Unsupported(format.layout))
}

/// The pass for frames of one format, with its buffers, made once.
pub struct MetricsPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
    /// Per component: squared differences and window SSIMs, each as two 32-bit words.
    sums: wgpu::Buffer,
    jobs: Vec<Place>,
    pub bits: u32,
    pub format: FrameFormat,
}

/// The pass bound to one pair of frames' plane textures (a slot of each ring).
pub struct MetricsBinding {
    bind_group: wgpu::BindGroup,
}

impl MetricsPass {
    pub fn new(device: &wgpu::Device, format: &FrameFormat) -> Result<Self, MetricsError> {
        let (jobs, bits) = jobs(format)?;
        // Samples are masked to their depth, as the conversion masks them: bits above it,
        // which no conforming stream has, would overflow the block sums (the CPU twin and
        // FFmpeg take them as they are).
        let sample_mask = if format.layout == PlaneLayout::P010 {
            0xffc0
        } else {
            (1 << bits) - 1
        };
        let (c1, c2) = ssim_constants(bits);
        let mut params = vec![0u8; PARAMS_STRIDE as usize * jobs.len()];
        for (i, job) in jobs.iter().enumerate() {
            let p = Params {
                width: job.width as u32,
                height: job.height as u32,
                bits,
                sample_mask,
                plane: job.plane as u32,
                channel: job.offset as u32,
                component: i as u32,
                c1: c1 as u32,
                c2: c2 as u32,
                _pad: [0; 3],
            };
            let at = i * PARAMS_STRIDE as usize;
            params[at..at + std::mem::size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&p));
        }
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("metrics params"),
            contents: &params,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let sums = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("metrics sums"),
            size: Self::sums_size(),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = bind_group_layout(device);
        let module = shaders::module(device, "metrics", shaders::METRICS.to_string());
        let pipeline = shaders::compute_pipeline(device, "metrics", &module, "metrics", &layout);
        Ok(Self {
            pipeline,
            layout,
            params,
            sums,
            jobs,
            bits,
            format: *format,
        })
    }

    /// Bytes of the sums buffer: four words for each of three components.
    pub const fn sums_size() -> u64 {
        3 * 4 * 4
    }

    pub fn sums(&self) -> &wgpu::Buffer {
        &self.sums
    }

    /// The components' sizes, in order.
    pub fn sizes(&self) -> Vec<(usize, usize)> {
        self.jobs.iter().map(|j| (j.width, j.height)).collect()
    }

    /// Binds `a` and `b` (slots of this pass's format); made once per pair of slots.
    pub fn bind(&self, device: &wgpu::Device, a: &PlaneTextures, b: &PlaneTextures) -> MetricsBinding {
        let view = |p: &PlaneTextures, i: usize| p.bound_view(i).clone();
        let views: Vec<wgpu::TextureView> = (0..3).map(|i| view(a, i)).chain((0..3).map(|i| view(b, i))).collect();
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.params,
                offset: 0,
                size: wgpu::BufferSize::new(std::mem::size_of::<Params>() as u64),
            }),
        }];
        entries.extend(views.iter().zip(1..).map(|(v, binding)| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::TextureView(v),
        }));
        entries.push(wgpu::BindGroupEntry {
            binding: 7,
            resource: self.sums.as_entire_binding(),
        });
        MetricsBinding {
            bind_group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("metrics"),
                layout: &self.layout,
                entries: &entries,
            }),
        }
    }

    /// Records the metrics of the bound pair: the sums cleared, then a dispatch per component.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, binding: &MetricsBinding) {
        self.encode_timed(encoder, binding, None);
    }

    /// `encode`, its compute pass timed with `timestamp_writes`.
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        binding: &MetricsBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        encoder.clear_buffer(&self.sums, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("metrics"),
            timestamp_writes,
        });
        pass.set_pipeline(&self.pipeline);
        for (i, job) in self.jobs.iter().enumerate() {
            pass.set_bind_group(0, &binding.bind_group, &[(i as u64 * PARAMS_STRIDE) as u32]);
            let (bw, bh) = ((job.width as u32).div_ceil(4), (job.height as u32).div_ceil(4));
            pass.dispatch_workgroups(bw.div_ceil(OWNED_BLOCKS), bh.div_ceil(OWNED_BLOCKS), 1);
        }
    }

    /// The sums as read back from `sums` (the first `sums_size` bytes).
    pub fn read(&self, bytes: &[u8]) -> Vec<ComponentSums> {
        let words = crate::gpu::readback::words(bytes);
        let wide = |at: usize| u64::from(words[at]) | (u64::from(words[at + 1]) << 32);
        (0..self.jobs.len())
            .map(|c| ComponentSums {
                sse: wide(4 * c),
                ssim: wide(4 * c + 2),
            })
            .collect()
    }
}

const _: () = assert!(TILE_BLOCKS == OWNED_BLOCKS + 1, "workgroups overlap by one block");

fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let compute = wgpu::ShaderStages::COMPUTE;
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: compute,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<Params>() as u64),
        },
        count: None,
    }];
    entries.extend((1..=6).map(|binding| crate::gpu::shaders::layout::uint_texture(binding, compute)));
    entries.push(wgpu::BindGroupLayoutEntry {
        binding: 7,
        visibility: compute,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(MetricsPass::sums_size()),
        },
        count: None,
    });
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("metrics"),
        entries: &entries,
    })
}
