//! The GPU device histoplay runs on, and helpers for the few places that read results back.

pub mod readback;
pub mod shaders;
pub mod texture;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum GpuError {
    #[error(
        "no usable GPU adapter found; install a Vulkan driver for your GPU, or Mesa's software \
         one (`apt-get install mesa-vulkan-drivers`)"
    )]
    NoAdapter,
    #[error("could not open the GPU device: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    #[error("reading back from the GPU failed: {0}")]
    Readback(String),
    #[error("{width}x{height} is larger than this GPU's largest texture ({max}x{max})")]
    TooLarge { width: u32, height: u32, max: u32 },
}

/// One wgpu device and queue, with the optional features histoplay makes use of. Clones share
/// the device.
#[derive(Clone)]
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl GpuContext {
    /// Opens the best adapter: a discrete GPU before an integrated one, Vulkan before GL.
    pub fn new() -> Result<Self, GpuError> {
        // Vulkan, Metal or DX12 first; GL only when none of them has an adapter.
        for backends in [wgpu::Backends::PRIMARY, wgpu::Backends::GL] {
            let instance = wgpu::Instance::new(instance_descriptor(backends));
            if let Some(adapter) = pollster::block_on(best_adapter(&instance, None)) {
                return Self::with_adapter(instance, adapter);
            }
        }
        Err(GpuError::NoAdapter)
    }

    pub fn with_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP;
        let required_features = adapter.features() & wanted;
        // Histogram chunks want the adapter's full workgroup memory and buffer sizes.
        let required_limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("histoplay device"),
            required_features,
            required_limits,
            ..Default::default()
        }))?;
        let info = adapter.get_info();
        log::info!("GPU: {} ({:?}, {:?})", info.name, info.backend, info.device_type);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// One line naming the adapter, for reports.
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!(
            "{} ({:?}, {:?}, driver {} {})",
            info.name, info.backend, info.device_type, info.driver, info.driver_info
        )
    }

    pub fn has_timestamps(&self) -> bool {
        self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    pub fn max_texture_side(&self) -> u32 {
        self.device.limits().max_texture_dimension_2d
    }

    /// Fails with a clear message when a frame is larger than the GPU can hold.
    pub fn check_frame_size(&self, width: u32, height: u32) -> Result<(), GpuError> {
        let max = self.max_texture_side();
        if width > max || height > max {
            return Err(GpuError::TooLarge { width, height, max });
        }
        Ok(())
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Readback(e.to_string()))
    }
}

/// Instance options for `backends`, unless WGPU_BACKEND and friends say otherwise.
pub fn instance_descriptor(backends: wgpu::Backends) -> wgpu::InstanceDescriptor {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.with_env()
}

/// Picks an adapter: discrete, then integrated, then virtual, then software; Vulkan first.
pub async fn best_adapter(instance: &wgpu::Instance, surface: Option<&wgpu::Surface<'_>>) -> Option<wgpu::Adapter> {
    let mut adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
    if let Some(surface) = surface {
        adapters.retain(|a| a.is_surface_supported(surface));
    }
    adapters.sort_by_key(|a| {
        let info = a.get_info();
        let kind = match info.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        let backend = if info.backend == wgpu::Backend::Vulkan { 0 } else { 1 };
        (kind, backend)
    });
    adapters.into_iter().next()
}
