//! Frames that stay on the GPU: NVDEC's decoded frames copied on the device into Vulkan memory
//! that wgpu reads (the GPU frame cache, `store.rs`), instead of back into system memory and up
//! again. CUDA imports memory Vulkan exports (`vulkan.rs`, `cuda.rs`); the decode thread copies
//! each frame's planes into a slot of it with `cuMemcpy2DAsync` and waits for the copy; the
//! upload thread copies the slot into a ring slot's plane textures, a copy within the GPU, and
//! again whenever the frame cache shows the frame again (steps, replays).
//!
//! Where that can't be set up (no NVIDIA driver, another GPU, lavapipe, VA-API) frames are
//! copied through memory as before; `FramePath` says which path carries a stream's frames and
//! why, and `Transfers` counts the bytes of its frames that cross between memory and the GPU.
//!
//! VA-API would come the same way, by DMA-BUF: `vaExportSurfaceHandle` gives each surface's
//! planes as DMA-BUF fds with their DRM modifiers, which Vulkan imports
//! (`VK_EXT_external_memory_dma_buf`, `VK_EXT_image_drm_format_modifier`) as an image per plane
//! to copy from; it isn't built, as there is no VA-API hardware to check it on.

mod cuda;
mod store;
mod vulkan;

pub use cuda::CudaStream;
pub use store::{GpuFrameStore, GpuPlanes};

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Which path carries a stream's frames to the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FramePath {
    /// Not known yet (the decode thread is starting).
    Starting,
    /// Decoded in software, uploaded from memory.
    Software,
    /// NVDEC's frames copied into Vulkan memory on the GPU: none cross into memory.
    OnGpu {
        /// Frames the GPU frame cache holds, and bytes each.
        frames: usize,
        frame_bytes: u64,
    },
    /// A hardware decoder's frames, copied back into memory and uploaded again.
    CopiedBack { decoder: &'static str, reason: String },
}

impl std::fmt::Display for FramePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FramePath::Starting => write!(f, "starting"),
            FramePath::Software => write!(f, "software decoding, uploaded from memory"),
            FramePath::OnGpu { frames, frame_bytes } => write!(
                f,
                "NVDEC to Vulkan on the GPU (GPU cache {} frames, {} MiB)",
                frames,
                (*frames as u64 * frame_bytes) >> 20
            ),
            FramePath::CopiedBack { decoder, reason } => {
                write!(f, "{decoder} copied through memory: {reason}")
            }
        }
    }
}

/// Bytes of one stream's frames that crossed between system memory and the GPU.
#[derive(Debug, Default)]
pub struct Transfers {
    to_device: AtomicU64,
    to_host: AtomicU64,
    in_place: AtomicU64,
}

/// A reading of `Transfers`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferCount {
    /// Frame bytes uploaded from memory.
    pub to_device: u64,
    /// Frame bytes copied back from a hardware decoder.
    pub to_host: u64,
    /// Frames the GPU copied from where they were decoded (`DirectFrames`), without the CPU
    /// writing their rows into staging memory first (counted in `to_device` too).
    pub in_place: u64,
}

impl Transfers {
    pub fn to_device(&self, bytes: u64) {
        self.to_device.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn to_host(&self, bytes: u64) {
        self.to_host.fetch_add(bytes, Ordering::Relaxed);
    }

    /// A frame of `bytes` the GPU copied from where it was decoded.
    pub fn in_place(&self, bytes: u64) {
        self.to_device(bytes);
        self.in_place.fetch_add(1, Ordering::Relaxed);
    }

    pub fn read(&self) -> TransferCount {
        TransferCount {
            to_device: self.to_device.load(Ordering::Relaxed),
            to_host: self.to_host.load(Ordering::Relaxed),
            in_place: self.in_place.load(Ordering::Relaxed),
        }
    }
}

/// The GPU frame cache's budget per stream (`--gpu-cache-size`); 0: from the GPU's memory.
static GPU_CACHE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Sets the GPU frame cache's budget for streams opened from now on; None: the default.
pub fn set_gpu_cache_size(bytes: Option<usize>) {
    GPU_CACHE_BYTES.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The default GPU frame cache: an eighth of the GPU's own memory, from 256 MiB to 8 GiB (an
/// 80 GB card keeps 8 GiB: 80 frames of 8K HDR, 680 of 4K).
pub fn default_gpu_cache_bytes(device_memory: u64) -> usize {
    usize::try_from((device_memory / 8).clamp(256 << 20, 8 << 30)).unwrap_or(usize::MAX)
}

/// The GPU frame cache's budget on `device` (set, or the default for its memory).
pub fn gpu_cache_budget(device: &wgpu::Device) -> usize {
    match GPU_CACHE_BYTES.load(Ordering::Relaxed) {
        0 => default_gpu_cache_bytes(vulkan::VulkanDevice::of(device).map_or(0, |v| v.local_memory())),
        bytes => bytes,
    }
}

/// Whether CUDA's driver is here, and why not.
pub fn cuda_available() -> Result<(), String> {
    cuda::available()
}

#[cfg(test)]
mod tests;
