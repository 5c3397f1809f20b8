//! How the VMAF pass's steps are made: each kernel's bind group layout from its first step's
//! bindings, its pipeline once per module and entry point (compiled side by side), and every
//! step's bind groups, one per history slot where the step reads the history.

use crate::gpu::shaders::{self, layout};

/// A dispatch: its pipeline, its bind group (one per history slot where it reads the history),
/// its workgroups.
pub(super) struct Step {
    /// Which part of VMAF it serves ("VIF scale 1"), for timing parts apart.
    pub stage: String,
    pub pipeline: usize,
    pub groups: Vec<wgpu::BindGroup>,
    pub size: [u32; 2],
}

/// What each bind group entry is.
pub(super) enum Bind<'a> {
    Uniform(&'a wgpu::Buffer, u64, u64),
    Read(&'a wgpu::Buffer),
    Write(&'a wgpu::Buffer),
}

fn bind_layout(device: &wgpu::Device, label: &str, entries: &[(u32, Bind)]) -> wgpu::BindGroupLayout {
    let compute = wgpu::ShaderStages::COMPUTE;
    let layout_entries: Vec<_> = entries
        .iter()
        .map(|(binding, bind)| match bind {
            Bind::Uniform(..) => layout::uniform(*binding, compute, false),
            Bind::Read(_) => layout::storage(*binding, compute, true),
            Bind::Write(_) => layout::storage(*binding, compute, false),
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &layout_entries,
    })
}

fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    entries: &[(u32, Bind)],
) -> wgpu::BindGroup {
    let group_entries: Vec<_> = entries
        .iter()
        .map(|(binding, bind)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: match bind {
                Bind::Uniform(buffer, offset, size) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: *offset,
                    size: wgpu::BufferSize::new(*size),
                }),
                Bind::Read(buffer) | Bind::Write(buffer) => buffer.as_entire_binding(),
            },
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &group_entries,
    })
}

/// Makes the steps: each entry point's pipeline and layout once, at its first step.
pub(super) struct Builder<'d> {
    pub device: &'d wgpu::Device,
    pub texture_layout: &'d wgpu::BindGroupLayout,
    pub history_len: usize,
    pub steps: Vec<Step>,
    /// Per module and entry point: its key, module, entry point and bind group layout, in
    /// the order of the pipelines `finish` makes.
    pub made: Vec<(String, &'d wgpu::ShaderModule, &'static str, wgpu::BindGroupLayout)>,
}

impl<'d> Builder<'d> {
    /// A step whose bind groups are made by `entries(slot)` for each history slot
    /// (`per_slot`) or once.
    pub fn add<'b>(
        &mut self,
        stage: &str,
        module: &'d wgpu::ShaderModule,
        entry: &'static str,
        per_slot: bool,
        size: [u32; 2],
        entries: &dyn Fn(usize) -> Vec<(u32, Bind<'b>)>,
    ) {
        let device = self.device;
        let label = &format!("vmaf {entry}");
        let key = format!("{module:p} {entry}");
        if !self.made.iter().any(|(k, ..)| *k == key) {
            let layout = bind_layout(device, label, &entries(0));
            self.made.push((key.clone(), module, entry, layout));
        }
        let pipeline = self.made.iter().position(|(k, ..)| *k == key).expect("made above");
        let layout = &self.made[pipeline].3;
        let slots = if per_slot { self.history_len } else { 1 };
        self.steps.push(Step {
            stage: stage.to_string(),
            pipeline,
            groups: (0..slots)
                .map(|slot| bind_group(device, label, layout, &entries(slot)))
                .collect(),
            size,
        });
    }

    /// The pipelines, compiled side by side (a driver compiles each on the thread that asks),
    /// and the steps.
    pub fn finish(self) -> (Vec<wgpu::ComputePipeline>, Vec<Step>) {
        let (device, texture_layout) = (self.device, self.texture_layout);
        let make = |module: &wgpu::ShaderModule, entry: &str, layout: &wgpu::BindGroupLayout| {
            let label = &format!("vmaf {entry}");
            if entry == "load" {
                let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(label),
                    bind_group_layouts: &[Some(layout), Some(texture_layout)],
                    immediate_size: 0,
                });
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: Some(&pipeline_layout),
                    module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            } else {
                // Every workgroup variable is written before it is read.
                shaders::compute_pipeline_with(device, label, module, entry, layout, false)
            }
        };
        let pipelines = std::thread::scope(|scope| {
            let compiling: Vec<_> = self
                .made
                .iter()
                .map(|(_, module, entry, layout)| scope.spawn(move || make(module, entry, layout)))
                .collect();
            compiling
                .into_iter()
                .map(|c| c.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        (pipelines, self.steps)
    }
}
