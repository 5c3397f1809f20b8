//! VMAF's features on the GPU, beside PSNR and SSIM in the comparison stage: one compute pass
//! per pair of frames gives the integer sums of VIF's four scales, ADM's four scales and the
//! reference's motion, equal bit for bit to the CPU twin's (`vif::vif_sums`, `adm::adm_sums`,
//! `motion::sad_int`). The sums are 41 64-bit numbers read back with the frame's other results;
//! the CPU turns them into scores (`Vmaf::push_sums`), as the twin does, so the score is the
//! twin's to the last bit.
//!
//! The passes, in order (`shaders/compare/vmaf/`): `load` copies both luma planes out of the
//! ring slots (the reference into a history of two frames, or three for the five-frame motion
//! window); `motion` sums the blurred difference from the frame before; `vif` measures each
//! scale and blurs and halves it into the next; `adm` transforms, decouples and masks each
//! scale, summing every scored row; `collect` adds the partial sums.
//!
//! The arithmetic needs 64-bit integers (`SHADER_INT64`) and, where libvmaf computes in double,
//! doubles (`SHADER_F64`): NVIDIA's and AMD's Vulkan drivers and lavapipe have both. Without
//! them `VmafPass::new` says so and VMAF is measured on the CPU.

mod builder;
mod params;
mod totals;

use super::adm::band_sizes;
use super::vif::log2_table;
use crate::gpu::shaders::{self, layout};
use crate::video::convert::PlaneTextures;
use crate::video::format::{FrameFormat, PlaneLayout};
use builder::{Bind, Builder, Step};
use params::{AdmParams, LoadParams, MotionParams, VifParams, STRIDE};
pub use totals::VmafSums;
use totals::{Layout, TOTALS};
use wgpu::util::DeviceExt;

#[derive(Debug, thiserror::Error)]
pub enum VmafGpuError {
    #[error("the GPU lacks 64-bit integers or doubles in shaders (SHADER_INT64, SHADER_F64)")]
    Features,
    #[error("VMAF on the GPU reads Y'CbCr or grey frames of 8 to 16 bits, not {0}")]
    Unsupported(PlaneLayout),
    #[error("VMAF needs pictures of at least {min}x{min}, not {0}x{1}", min = super::MIN_SIZE)]
    TooSmall(u32, u32),
    #[error("a {0}x{1} picture needs more GPU buffer than one binding holds")]
    TooLarge(u32, u32),
}

/// The part of the pass that makes VIF's loss map.
const HEAT_STAGE: &str = "VIF heat";

/// The options of a model that change what the GPU computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuOptions {
    pub adm_gain_limit: f64,
    pub vif_gain_limit: f64,
    /// Motion against the frame before last (`motion_five_frame_window`).
    pub five_frame_window: bool,
    /// Also write VIF's loss map of each pair (`vif::loss_map`).
    pub heat: bool,
}

impl GpuOptions {
    /// For VIF's loss map alone (the compare window's and `render`'s heat map): the default
    /// model's limits, the map made.
    pub fn loss_map() -> Self {
        let model = super::load_model(super::DEFAULT_MODEL).expect("the built-in model loads");
        Self {
            heat: true,
            ..super::Vmaf::new(model).gpu_options()
        }
    }
}

/// The passes for frames of one format and size, with every buffer they use, made once.
pub struct VmafPass {
    pipelines: Vec<wgpu::ComputePipeline>,
    steps: Vec<Step>,
    texture_layout: wgpu::BindGroupLayout,
    totals: wgpu::Buffer,
    /// VIF's loss at each pixel of the last pair, with `GpuOptions::heat`.
    heat: Option<wgpu::Buffer>,
    /// Which history slot the next pair's reference goes to.
    slot: std::cell::Cell<usize>,
    history: usize,
    pub width: u32,
    pub height: u32,
    pub bits: u32,
}

/// The pass bound to one pair of frames' plane textures (a slot of each ring).
pub struct VmafBinding {
    bind_group: wgpu::BindGroup,
}

fn groups(size: usize, per: u32) -> u32 {
    (size as u32).div_ceil(per)
}

impl VmafPass {
    pub fn new(device: &wgpu::Device, format: &FrameFormat, options: GpuOptions) -> Result<Self, VmafGpuError> {
        if !Self::supported(device) {
            return Err(VmafGpuError::Features);
        }
        let (places, bits) = crate::video::format::places(format)
            .filter(|(_, bits)| (8..=16).contains(bits))
            .ok_or(VmafGpuError::Unsupported(format.layout))?;
        let luma = places[0];
        let (width, height) = (luma.width, luma.height);
        if width < super::MIN_SIZE || height < super::MIN_SIZE {
            return Err(VmafGpuError::TooSmall(width as u32, height as u32));
        }
        let bands = band_sizes(width, height);
        let largest = 4 * (4 * bands[0].0 * bands[0].1).max(width * height) as u64;
        if largest > device.limits().max_storage_buffer_binding_size {
            return Err(VmafGpuError::TooLarge(width as u32, height as u32));
        }
        let sample_mask = if format.layout == PlaneLayout::P010 {
            0xffc0
        } else {
            (1u32 << bits) - 1
        };

        let storage = |label: &str, bytes: usize| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(8) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let history_len = if options.five_frame_window { 3 } else { 2 };
        let samples = width * height;
        let history: Vec<wgpu::Buffer> = (0..history_len)
            .map(|_| storage("vmaf reference", 4 * samples))
            .collect();
        let judged = storage("vmaf judged", 4 * samples);

        // VIF's scales 1..3 (each half the last, rounded down), and the rows between.
        let mut vif_sizes = [(width, height); 4];
        for s in 1..4 {
            vif_sizes[s] = (vif_sizes[s - 1].0 / 2, vif_sizes[s - 1].1 / 2);
        }
        let vif_pictures: Vec<[wgpu::Buffer; 2]> = (1..4)
            .map(|s| {
                let n = 4 * vif_sizes[s].0 * vif_sizes[s].1;
                [storage("vif reference", n), storage("vif judged", n)]
            })
            .collect();
        let vif_rows = storage("vif rows", 4 * 2 * width * (height / 2));
        let table: Vec<u32> = log2_table().iter().map(|&v| u32::from(v)).collect();
        let table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vif log2"),
            contents: bytemuck::cast_slice(&table),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let adm_bands: Vec<[wgpu::Buffer; 2]> = bands
            .iter()
            .map(|&(w, h)| [storage("adm reference", 16 * w * h), storage("adm judged", 16 * w * h)])
            .collect();
        let decoupled: Vec<wgpu::Buffer> = ["adm restored", "adm weighted", "adm thirtieths"]
            .iter()
            .map(|label| storage(label, 12 * bands[0].0 * bands[0].1))
            .collect();

        // Where each pass's partial sums go, and the totals made of them.
        let vif_groups: Vec<[u32; 2]> = vif_sizes.iter().map(|&(w, h)| [groups(w, 32), groups(h, 32)]).collect();
        let adm_constants: Vec<_> = (0..4)
            .map(|s| super::adm::scale_constants(s, bits, width, height))
            .collect();
        let motion_groups = [groups(width, 32), groups(height, 32)];
        let Layout {
            wanted,
            vif_offsets,
            row_offsets,
            motion_offset,
            partials: next,
        } = totals::layout(&vif_groups, &adm_constants, motion_groups);
        let partials = storage("vmaf partials", 8 * next as usize);
        let totals = storage("vmaf totals", 8 * TOTALS);
        let wanted = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vmaf totals wanted"),
            contents: bytemuck::cast_slice(&wanted),
            usage: wgpu::BufferUsages::STORAGE,
        });

        // Every uniform block, STRIDE apart: load, motion, VIF's 4 stats and 3 decimations,
        // ADM's 4 DWTs and 4 band blocks.
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        let mut block = |bytes: &[u8]| {
            blocks.push(bytes.to_vec());
            (blocks.len() - 1) as u64 * STRIDE
        };
        let load_at = block(bytemuck::bytes_of(&LoadParams {
            width: width as u32,
            height: height as u32,
            sample_mask,
            _pad: 0,
        }));
        let motion_at = block(bytemuck::bytes_of(&MotionParams {
            width: width as u32,
            height: height as u32,
            bits,
            partial_offset: motion_offset,
        }));
        let vif_gain = options.vif_gain_limit;
        let stats_at: Vec<u64> = (0..4)
            .map(|s| {
                let shifts = if s == 0 { (bits, 2 * (bits - 8)) } else { (16, 16) };
                block(bytemuck::bytes_of(&VifParams::new(
                    vif_sizes[s],
                    shifts,
                    vif_offsets[s],
                    vif_gain,
                )))
            })
            .collect();
        let decimate_at: Vec<u64> = (1..4)
            .map(|s| {
                let shift = if s == 1 { bits } else { 16 };
                block(bytemuck::bytes_of(&VifParams::new(
                    vif_sizes[s - 1],
                    (shift, 0),
                    0,
                    vif_gain,
                )))
            })
            .collect();
        let adm_gain = options.adm_gain_limit;
        let dwt_at: Vec<u64> = (0..4)
            .map(|s| {
                let input = if s == 0 { (width, height) } else { bands[s - 1] };
                block(bytemuck::bytes_of(&AdmParams::new(
                    s,
                    &adm_constants[s],
                    input,
                    0,
                    adm_gain,
                )))
            })
            .collect();
        let band_at: Vec<u64> = (0..4)
            .map(|s| {
                let p = AdmParams::new(s, &adm_constants[s], bands[s], row_offsets[s], adm_gain);
                block(bytemuck::bytes_of(&p))
            })
            .collect();
        let mut uniform_bytes = vec![0u8; blocks.len() * STRIDE as usize];
        for (i, b) in blocks.iter().enumerate() {
            uniform_bytes[i * STRIDE as usize..][..b.len()].copy_from_slice(b);
        }
        let uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vmaf params"),
            contents: &uniform_bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let uniform = |at: u64, size: usize| Bind::Uniform(&uniforms, at, size as u64);
        let load_size = std::mem::size_of::<LoadParams>();
        let motion_size = std::mem::size_of::<MotionParams>();
        let vif_size = std::mem::size_of::<VifParams>();
        let adm_size = std::mem::size_of::<AdmParams>();

        let module = |label: &str, body: &str| shaders::trusted_module(device, label, shaders::vmaf_source(body));
        let load_module = module("vmaf load", shaders::VMAF_LOAD);
        let motion_module = module("vmaf motion", shaders::VMAF_MOTION);
        // VIF's module per scale, its filter built in.
        let vif_modules: Vec<wgpu::ShaderModule> = (0..4)
            .map(|s| shaders::trusted_module(device, "vmaf vif", shaders::vmaf_vif_source(super::vif::filter(s))))
            .collect();
        let heat = options.heat.then(|| storage("vif heat", 4 * samples));
        let adm_module = module("vmaf adm", shaders::VMAF_ADM);
        let collect_module = module("vmaf collect", shaders::VMAF_COLLECT);

        let compute = wgpu::ShaderStages::COMPUTE;
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("vmaf luma"),
            entries: &[layout::uint_texture(0, compute), layout::uint_texture(1, compute)],
        });
        let mut builder = Builder {
            device,
            texture_layout: &texture_layout,
            history_len,
            steps: Vec::new(),
            made: Vec::new(),
        };
        let previous = |slot: usize| (slot + history_len - if options.five_frame_window { 2 } else { 1 }) % history_len;
        let (w16, h16) = (groups(width, 16), groups(height, 16));

        builder.add("load", &load_module, "load", true, [w16, h16], &|slot| {
            vec![
                (0, uniform(load_at, load_size)),
                (1, Bind::Write(&history[slot])),
                (2, Bind::Write(&judged)),
            ]
        });
        builder.add("motion", &motion_module, "motion", true, motion_groups, &|slot| {
            vec![
                (0, uniform(motion_at, motion_size)),
                (1, Bind::Read(&history[slot])),
                (2, Bind::Read(&history[previous(slot)])),
                (3, Bind::Write(&partials)),
            ]
        });
        let picture = |s: usize, slot: usize| -> [&wgpu::Buffer; 2] {
            if s == 0 {
                [&history[slot], &judged]
            } else {
                [&vif_pictures[s - 1][0], &vif_pictures[s - 1][1]]
            }
        };
        for s in 0..4 {
            if s > 0 {
                let (w, h) = vif_sizes[s - 1];
                builder.add(
                    &format!("VIF scale {s}: decimate"),
                    &vif_modules[s],
                    "decimate_rows",
                    s == 1,
                    [groups(w, 16), groups(h / 2, 16)],
                    &|slot| {
                        let [r, d] = picture(s - 1, slot);
                        vec![
                            (0, uniform(decimate_at[s - 1], vif_size)),
                            (1, Bind::Read(r)),
                            (2, Bind::Read(d)),
                            (5, Bind::Write(&vif_rows)),
                        ]
                    },
                );
                let size = [groups(w / 2, 16), groups(h / 2, 16)];
                builder.add(
                    &format!("VIF scale {s}: decimate"),
                    &vif_modules[s],
                    "decimate_columns",
                    false,
                    size,
                    &|_| {
                        vec![
                            (0, uniform(decimate_at[s - 1], vif_size)),
                            (6, Bind::Read(&vif_rows)),
                            (7, Bind::Write(&vif_pictures[s - 1][0])),
                            (8, Bind::Write(&vif_pictures[s - 1][1])),
                        ]
                    },
                );
            }
            builder.add(
                &format!("VIF scale {s}: stats"),
                &vif_modules[s],
                "stats",
                s == 0,
                vif_groups[s],
                &|slot| {
                    let [r, d] = picture(s, slot);
                    vec![
                        (0, uniform(stats_at[s], vif_size)),
                        (1, Bind::Read(r)),
                        (2, Bind::Read(d)),
                        (3, Bind::Read(&table)),
                        (4, Bind::Write(&partials)),
                    ]
                },
            );
        }
        if let Some(heat) = &heat {
            builder.add(HEAT_STAGE, &vif_modules[0], "heat_map", true, vif_groups[0], &|slot| {
                let [r, d] = picture(0, slot);
                vec![
                    (0, uniform(stats_at[0], vif_size)),
                    (1, Bind::Read(r)),
                    (2, Bind::Read(d)),
                    (3, Bind::Read(&table)),
                    (9, Bind::Write(heat)),
                ]
            });
        }
        for s in 0..4 {
            let (bw, bh) = bands[s];
            builder.add(
                &format!("ADM scale {s}: DWT"),
                &adm_module,
                "dwt",
                s == 0,
                [groups(bw, 16), groups(bh, 16)],
                &|slot| {
                    let [r, d] = if s == 0 {
                        [&history[slot], &judged]
                    } else {
                        [&adm_bands[s - 1][0], &adm_bands[s - 1][1]]
                    };
                    vec![
                        (0, uniform(dwt_at[s], adm_size)),
                        (1, Bind::Read(r)),
                        (2, Bind::Read(d)),
                        (3, Bind::Write(&adm_bands[s][0])),
                        (4, Bind::Write(&adm_bands[s][1])),
                    ]
                },
            );
            builder.add(
                &format!("ADM scale {s}: decouple"),
                &adm_module,
                "decouple",
                false,
                [groups(bw, 16), groups(bh, 16)],
                &|_| {
                    vec![
                        (0, uniform(band_at[s], adm_size)),
                        (5, Bind::Read(&adm_bands[s][0])),
                        (6, Bind::Read(&adm_bands[s][1])),
                        (7, Bind::Write(&decoupled[0])),
                        (11, Bind::Write(&decoupled[1])),
                        (12, Bind::Write(&decoupled[2])),
                    ]
                },
            );
            let rows = (adm_constants[s].scored[3] - adm_constants[s].scored[1]) as u32;
            builder.add(
                &format!("ADM scale {s}: mask"),
                &adm_module,
                "mask",
                false,
                [rows, 1],
                &|_| {
                    vec![
                        (0, uniform(band_at[s], adm_size)),
                        (8, Bind::Read(&decoupled[0])),
                        (13, Bind::Read(&decoupled[1])),
                        (14, Bind::Read(&decoupled[2])),
                        (9, Bind::Read(&adm_bands[s][0])),
                        (10, Bind::Write(&partials)),
                    ]
                },
            );
        }
        builder.add("totals", &collect_module, "collect", false, [TOTALS as u32, 1], &|_| {
            vec![
                (0, Bind::Read(&wanted)),
                (1, Bind::Read(&partials)),
                (2, Bind::Write(&totals)),
            ]
        });

        let (pipelines, steps) = builder.finish();
        Ok(Self {
            pipelines,
            steps,
            texture_layout,
            totals,
            heat,
            slot: std::cell::Cell::new(0),
            history: history_len,
            width: width as u32,
            height: height as u32,
            bits,
        })
    }

    /// Whether `device` can run the pass (64-bit integers and doubles in shaders).
    pub fn supported(device: &wgpu::Device) -> bool {
        device
            .features()
            .contains(wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_F64)
    }

    /// Bytes of the totals buffer.
    pub const fn totals_size() -> u64 {
        8 * TOTALS as u64
    }

    pub fn totals(&self) -> &wgpu::Buffer {
        &self.totals
    }

    /// VIF's loss at each pixel of the last pair encoded, in Q11 bits (`i32`s in raster order,
    /// `vif::loss_map`'s), where the pass was made with `GpuOptions::heat`.
    pub fn heat(&self) -> Option<&wgpu::Buffer> {
        self.heat.as_ref()
    }

    /// Binds `a` (the reference) and `b` (the judged frame): made once per pair of slots.
    pub fn bind(&self, device: &wgpu::Device, a: &PlaneTextures, b: &PlaneTextures) -> VmafBinding {
        VmafBinding {
            bind_group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("vmaf luma"),
                layout: &self.texture_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(a.bound_view(0)),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(b.bound_view(0)),
                    },
                ],
            }),
        }
    }

    /// Records the sums of the bound pair, the next in its run (its reference becomes the
    /// previous frame of the pair after).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, binding: &VmafBinding) {
        self.encode_timed(encoder, binding, None);
    }

    /// `encode`, its compute pass timed with `timestamp_writes`.
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        binding: &VmafBinding,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vmaf"),
            timestamp_writes,
        });
        self.record(&mut pass, binding, 0..self.steps.len());
        drop(pass);
        self.slot.set((self.slot.get() + 1) % self.history);
    }

    fn record(&self, pass: &mut wgpu::ComputePass, binding: &VmafBinding, steps: std::ops::Range<usize>) {
        pass.set_bind_group(1, &binding.bind_group, &[]);
        for step in &self.steps[steps] {
            pass.set_pipeline(&self.pipelines[step.pipeline]);
            let group = &step.groups[self.slot.get().min(step.groups.len() - 1)];
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(step.size[0], step.size[1], 1);
        }
    }

    /// The parts of the pass, in order ("load", "motion", "VIF scale 0: stats", ...), for
    /// `encode_stage`.
    pub fn stages(&self) -> Vec<String> {
        let mut stages: Vec<String> = Vec::new();
        for step in &self.steps {
            if stages.last() != Some(&step.stage) {
                stages.push(step.stage.clone());
            }
        }
        stages
    }

    /// Records one part of the pass alone (for timing it: its inputs are whatever the buffers
    /// hold), the history left where it is.
    pub fn encode_stage(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        binding: &VmafBinding,
        stage: &str,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vmaf stage"),
            timestamp_writes,
        });
        self.record(&mut pass, binding, self.stage_steps(stage));
    }

    /// Records VIF's loss map of the bound pair and nothing else of VMAF (the luma loaded,
    /// then the map), for a pass made with `GpuOptions::heat`: the compare window's and
    /// `render`'s heat map, which need no score.
    pub fn encode_heat(&self, encoder: &mut wgpu::CommandEncoder, binding: &VmafBinding) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vif heat"),
            timestamp_writes: None,
        });
        for stage in ["load", HEAT_STAGE] {
            self.record(&mut pass, binding, self.stage_steps(stage));
        }
    }

    /// The steps of one part of the pass (none for a part it hasn't).
    fn stage_steps(&self, stage: &str) -> std::ops::Range<usize> {
        let first = (self.steps.iter())
            .position(|s| s.stage == stage)
            .unwrap_or(self.steps.len());
        let count = self.steps[first..].iter().take_while(|s| s.stage == stage).count();
        first..first + count
    }

    /// The sums as read back from `totals` (the first `totals_size` bytes).
    pub fn read(bytes: &[u8]) -> VmafSums {
        totals::read(bytes)
    }
}
