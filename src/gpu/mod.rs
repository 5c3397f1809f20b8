//! The GPU device histoplay runs on, and helpers for the few places that read results back.

pub mod host_buffer;
pub mod mapping;
pub mod raw_buffer;
pub mod readback;
pub mod shaders;
pub mod texture;
pub mod timing;

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
    #[error("the GPU reported an error: {0}")]
    Failed(String),
    #[error("{width}x{height} is larger than this GPU's largest texture ({max}x{max})")]
    TooLarge { width: u32, height: u32, max: u32 },
    #[error("{width}x{height} is more pixels than this GPU can count in one buffer ({max_mb} MB)")]
    TooManyPixels { width: u32, height: u32, max_mb: u64 },
    #[error("{columns} columns of {bins} bins are more than this GPU can count in one buffer")]
    TooManyColumns { columns: u32, bins: u32 },
}

/// One wgpu device and queue, with the optional features histoplay makes use of. Clones share
/// the device.
#[derive(Clone)]
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The first error the GPU reported by itself (validation, out of memory), for headless
    /// work to end with; the player installs a handler of its own.
    uncaptured: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl GpuContext {
    /// Opens the best adapter: a discrete GPU before an integrated one, Vulkan before GL.
    pub fn new() -> Result<Self, GpuError> {
        // Vulkan, Metal or DX12 first; GL only when none of them has an adapter.
        for backends in [wgpu::Backends::PRIMARY, wgpu::Backends::GL] {
            let instance = wgpu::Instance::new(instance_descriptor(backends));
            if let Some(adapter) = pollster::block_on(best_adapter(&instance, None)) {
                crate::process::mark("the GPU's adapter found");
                return Self::with_adapter(instance, adapter);
            }
        }
        Err(GpuError::NoAdapter)
    }

    pub fn with_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        // 64-bit integers and doubles serve VMAF's pass (libvmaf's arithmetic); without them VMAF
        // is measured on the CPU.
        let wanted = wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::SUBGROUP
            | wgpu::Features::SHADER_INT64
            | wgpu::Features::SHADER_F64;
        let required_features = adapter.features() & wanted;
        // Histogram chunks want the adapter's full workgroup memory and buffer sizes.
        let required_limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("histoplay device"),
            required_features,
            required_limits,
            memory_hints: memory_hints(),
            ..Default::default()
        }))?;
        let info = adapter.get_info();
        log::info!("GPU: {} ({:?}, {:?})", info.name, info.backend, info.device_type);
        crate::process::mark("the GPU's device made");
        // wgpu's default for an error nobody scoped is a panic: instead the first is kept, and
        // the work waiting on the GPU ends with it.
        let uncaptured = std::sync::Arc::new(std::sync::Mutex::new(None));
        let first = uncaptured.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |error: wgpu::Error| {
            let text = error.to_string();
            log::debug!("GPU error: {text}");
            if let Ok(mut first) = first.lock() {
                first.get_or_insert_with(|| one_line(&text));
            }
        }));
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            uncaptured,
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
        // The histogram reads the frame as one storage buffer of packed pixels.
        let bytes = u64::from(width) * u64::from(height) * 4;
        let most = self.device.limits().max_storage_buffer_binding_size;
        if bytes > most {
            return Err(GpuError::TooManyPixels {
                width,
                height,
                max_mb: most >> 20,
            });
        }
        Ok(())
    }

    /// Blocks until the GPU has finished all submitted work; fails with the first error the
    /// GPU reported since the device was made.
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        self.check()
    }

    /// The first error the GPU reported by itself, if any.
    pub fn check(&self) -> Result<(), GpuError> {
        match self.uncaptured.lock().ok().and_then(|e| e.clone()) {
            Some(message) => Err(GpuError::Failed(message)),
            None => Ok(()),
        }
    }
}

/// The blocks wgpu takes the GPU's memory in: the first of each kind small (16 MB of the GPU's,
/// 8 MB of the machine's), later ones larger. wgpu's default makes a first block of 64 MB of
/// the machine's memory for the first buffer read back, however small: NVIDIA's driver takes
/// 18 ms to make and pin it, while a command's first frame waits (H200).
fn memory_hints() -> wgpu::MemoryHints {
    wgpu::MemoryHints::Manual {
        suballocated_device_memory_block_size: (16 << 20)..(256 << 20),
    }
}

/// wgpu's messages come over several lines; an error here is one.
pub fn one_line(message: &str) -> String {
    let parts: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    parts.join("; ")
}

/// Instance options for `backends`, unless WGPU_BACKEND and friends say otherwise.
pub fn instance_descriptor(backends: wgpu::Backends) -> wgpu::InstanceDescriptor {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    without_debug_labels(&mut desc);
    desc.with_env()
}

/// Debug builds would pass every debug group to the driver as a Vulkan debug label (release
/// builds never do); Mesa 22's lavapipe crashes on some of them (a comparison's second frame
/// pipeline), so they are off unless WGPU_DEBUG=1 asks for them.
pub fn without_debug_labels(desc: &mut wgpu::InstanceDescriptor) {
    desc.flags.remove(wgpu::InstanceFlags::DEBUG);
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

/// The GPU being opened on a thread of its own while the file is opened: on an H100 opening the
/// device takes about 150 ms, as long as the demuxer and the hardware decoder take to start.
pub struct GpuOpening(Option<Opening>, Option<GpuContext>);

/// The thread opening the GPU, and where it sends the GPU once open: the thread's own end is
/// not waited for (NVIDIA's driver takes about 12 ms over a thread's end once it has made a
/// device, H200).
struct Opening {
    thread: std::thread::JoinHandle<()>,
    opened: std::sync::mpsc::Receiver<Result<GpuContext, GpuError>>,
}

impl GpuOpening {
    /// Starts opening the GPU if the run will count on it.
    pub fn start(wanted: bool) -> Self {
        Self(
            wanted.then(|| {
                let (send, opened) = std::sync::mpsc::sync_channel(1);
                let thread = std::thread::spawn(move || {
                    let _ = send.send(GpuContext::new());
                });
                Opening { thread, opened }
            }),
            None,
        )
    }

    /// The GPU opened; None if it wasn't wanted or failed to open (the run then opens it itself
    /// where it needs it, and says why it can't).
    pub fn finish(mut self) -> Option<GpuContext> {
        match self.1.take() {
            Some(ctx) => Some(ctx),
            None => self.0.take()?.opened.recv().ok()?.ok(),
        }
    }

    /// Why the GPU being opened can't take a `width`x`height` frame, if it can't
    /// (`check_frame_size`'s error): a frame within WebGPU's default limits, which every
    /// adapter offers (8192 pixels a side, 128 MB of pixels), is not waited for; a larger one
    /// waits for the GPU to say. None where no GPU is wanted or it failed to open (the run says
    /// why).
    pub fn refuses(&mut self, width: u32, height: u32) -> Option<GpuError> {
        const LEAST: wgpu::Limits = wgpu::Limits::defaults();
        let side = LEAST.max_texture_dimension_2d;
        let bytes = u64::from(width) * u64::from(height) * 4;
        if width <= side && height <= side && bytes <= LEAST.max_storage_buffer_binding_size {
            return None;
        }
        if self.1.is_none() {
            self.1 = self.0.take().and_then(|opening| opening.opened.recv().ok()?.ok());
        }
        self.1.as_ref()?.check_frame_size(width, height).err()
    }
}

impl Drop for GpuOpening {
    /// Waits for an opening not taken (the run failed before it needed the GPU): a process
    /// that exits while the driver is still making the device can crash in the driver's
    /// teardown (NVIDIA's does).
    fn drop(&mut self) {
        if let Some(opening) = self.0.take() {
            let _ = opening.thread.join();
        }
    }
}
