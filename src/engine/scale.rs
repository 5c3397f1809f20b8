//! The scale pass of the three-pass engine: copies the reduced histogram out and computes its
//! per-channel display scale, on the GPU.

use crate::gpu::shaders::{self, layout, Header};
use bytemuck::Zeroable;

/// Twin of `ScaleParams` in shaders/engine/scale.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScaleParams {
    pub pixel_count: u32,
    pub _pad: [u32; 3],
}

/// Twin of `HistogramScale` in shaders/engine/histogram_common.wgsl: what the overlay draws with.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HistogramScale {
    pub scale: [f32; 4],
    pub max_bin: [u32; 4],
}

impl HistogramScale {
    /// A slot ready for the one-dispatch engine to fold a frame's scale into: no maximum yet,
    /// an infinite scale (see shaders/engine/chunk.wgsl).
    const READY: Self = Self {
        scale: [f32::INFINITY; 4],
        max_bin: [0; 4],
    };
}

/// Twin of `HistogramResult` in shaders/engine/histogram_common.wgsl: the scale of the frame
/// counted last, in slot `(epoch + 1) % 2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HistogramResult {
    pub epoch: u32,
    pub _pad: [u32; 3],
    pub slots: [HistogramScale; 2],
}

impl HistogramResult {
    /// Before any frame: slot 0 ready for the first, slot 1 (the one read) all zero.
    pub fn initial() -> Self {
        Self {
            epoch: 0,
            _pad: [0; 3],
            slots: [HistogramScale::READY, HistogramScale::zeroed()],
        }
    }

    /// The scale of the frame counted last.
    pub fn current(&self) -> HistogramScale {
        self.slots[(self.epoch.wrapping_add(1) % 2) as usize]
    }
}

pub struct ScalePass {
    pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

impl ScalePass {
    pub fn new(device: &wgpu::Device, bins: u32) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scale pass"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
                layout::uniform(2, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, false),
            ],
        });
        let module = shaders::module(
            device,
            "scale pass",
            shaders::compute_source(&Header::new(bins), shaders::SCALE),
        );
        let pipeline = shaders::compute_pipeline(device, "scale pass", &module, "compute_scale", &layout);
        Self { pipeline, layout }
    }

    pub fn bind(
        &self,
        device: &wgpu::Device,
        chunks: &wgpu::Buffer,
        histogram: &wgpu::Buffer,
        scale: &wgpu::Buffer,
        params: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scale pass"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: chunks.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: scale.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: histogram.as_entire_binding(),
                },
            ],
        })
    }

    pub fn encode(&self, pass: &mut wgpu::ComputePass, bind_group: &wgpu::BindGroup) {
        pass.push_debug_group("scale");
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.pop_debug_group();
    }
}
