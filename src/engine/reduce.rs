//! The reduce pass: sums the chunks into chunk 0, `fan_in` chunks per workgroup and step.
//! The same driver runs the articles' pairwise shader (fan-in 2, one invocation per bin).

use crate::gpu::shaders::{self, layout, Header};

/// One step's uniforms. Twin of `ReduceStep` in shaders/engine/reduce.wgsl and article_reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ReduceStep {
    pub stride: u32,
    pub num_chunks: u32,
    pub _pad: [u32; 2],
}

/// The strides and group counts that take `num_chunks` chunks down to one.
pub fn reduce_plan(num_chunks: u32, fan_in: u32) -> Vec<(u32, u32)> {
    let mut plan = Vec::new();
    let (mut stride, mut live) = (1u32, num_chunks);
    while live > 1 {
        let groups = live.div_ceil(fan_in);
        plan.push((stride, groups));
        live = groups;
        stride = stride.saturating_mul(fan_in);
    }
    plan
}

/// Splits a workgroup count over y and z, each at most 65535 (WebGPU's per-dimension limit).
pub fn spill(groups: u32) -> (u32, u32) {
    let z = groups.div_ceil(65535);
    (groups.div_ceil(z), z)
}

/// Which reduce shader runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// histoplay's: a workgroup per bin and group of `fan_in` chunks, tree in workgroup memory.
    Tree { fan_in: u32 },
    /// The articles': an invocation per bin adds two chunks.
    ArticlePairwise,
}

pub struct ReducePass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    bins: u32,
    kind: ReduceKind,
}

/// The reduce steps of one frame size: uniforms for every step in one buffer, bound with
/// dynamic offsets, made once.
pub struct ReduceSteps {
    bind_group: wgpu::BindGroup,
    steps: Vec<(u32, u32)>,
    offset_stride: u32,
    _uniforms: wgpu::Buffer,
}

impl ReducePass {
    pub fn new(device: &wgpu::Device, bins: u32, kind: ReduceKind) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("reduce pass"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, false),
                layout::uniform(1, wgpu::ShaderStages::COMPUTE, true),
            ],
        });
        let (source, entry_point) = match kind {
            ReduceKind::Tree { fan_in } => (
                shaders::compute_source(
                    &Header::new(bins)
                        .with("FAN_IN", fan_in)
                        .with("REDUCE_WG", fan_in.next_power_of_two().min(256)),
                    shaders::REDUCE,
                ),
                "reduce_chunks",
            ),
            ReduceKind::ArticlePairwise => (
                shaders::compute_source(&Header::new(bins), shaders::ARTICLE_REDUCE),
                "article_reduce",
            ),
        };
        let module = shaders::trusted_module(device, "reduce pass", source);
        let pipeline = shaders::compute_pipeline(device, "reduce pass", &module, entry_point, &layout);
        Self {
            pipeline,
            layout,
            bins,
            kind,
        }
    }

    fn fan_in(&self) -> u32 {
        match self.kind {
            ReduceKind::Tree { fan_in } => fan_in,
            ReduceKind::ArticlePairwise => 2,
        }
    }

    pub fn steps(&self, device: &wgpu::Device, chunks: &wgpu::Buffer, num_chunks: u32) -> ReduceSteps {
        let steps = reduce_plan(num_chunks, self.fan_in());
        let offset_stride = device.limits().min_uniform_buffer_offset_alignment.max(16);
        let mut bytes = vec![0u8; (offset_stride as usize) * steps.len().max(1)];
        for (i, &(stride, _)) in steps.iter().enumerate() {
            let step = ReduceStep {
                stride,
                num_chunks,
                _pad: [0; 2],
            };
            let at = i * offset_stride as usize;
            bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(&step));
        }
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("reduce steps"),
            size: bytes.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        uniforms
            .slice(..)
            .get_mapped_range_mut()
            .expect("a buffer mapped at creation is mapped")
            .copy_from_slice(&bytes);
        uniforms.unmap();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("reduce pass"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: chunks.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &uniforms,
                        offset: 0,
                        size: wgpu::BufferSize::new(16),
                    }),
                },
            ],
        });
        ReduceSteps {
            bind_group,
            steps,
            offset_stride,
            _uniforms: uniforms,
        }
    }

    pub fn encode(&self, pass: &mut wgpu::ComputePass, steps: &ReduceSteps) {
        if steps.steps.is_empty() {
            return;
        }
        pass.push_debug_group("reduce");
        pass.set_pipeline(&self.pipeline);
        for (i, &(_, groups)) in steps.steps.iter().enumerate() {
            pass.set_bind_group(0, &steps.bind_group, &[i as u32 * steps.offset_stride]);
            let (y, z) = spill(groups);
            let x = match self.kind {
                ReduceKind::Tree { .. } => self.bins,
                ReduceKind::ArticlePairwise => self.bins.div_ceil(256),
            };
            pass.dispatch_workgroups(x, y, z);
        }
        pass.pop_debug_group();
    }
}

#[cfg(test)]
mod tests {
    use super::{reduce_plan, spill};

    #[test]
    fn pairwise_plan_matches_the_articles() {
        // 10 chunks: 5 pairs, then 3, 2, 1 (the articles' log2 steps, rounding up)
        assert_eq!(reduce_plan(10, 2), vec![(1, 5), (2, 3), (4, 2), (8, 1)]);
        assert_eq!(reduce_plan(1, 2), vec![]);
    }

    #[test]
    fn large_dispatches_spill_into_z() {
        assert_eq!(spill(5), (5, 1));
        assert_eq!(spill(65535), (65535, 1));
        assert_eq!(spill(115133), (57567, 2));
    }

    #[test]
    fn wide_fan_in_makes_a_short_tree() {
        assert_eq!(reduce_plan(1013, 1024), vec![(1, 1)]);
        assert_eq!(reduce_plan(1020, 32), vec![(1, 32), (32, 1)]);
        assert_eq!(reduce_plan(32, 32), vec![(1, 1)]);
        assert_eq!(reduce_plan(33, 32), vec![(1, 2), (32, 1)]);
    }
}
