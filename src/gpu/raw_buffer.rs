//! Vulkan buffers made through Vulkan's raw API on wgpu's device (memory wgpu's allocator
//! can't make: exportable to CUDA, or in the machine's memory) and handed to wgpu as buffers it
//! uses like its own.

use ash::vk;

/// `buffer`, with `memory` bound, as a wgpu buffer of `size` bytes for `usage`. Once wgpu lets
/// go of it, `release` runs, then the buffer is destroyed and its memory freed.
///
/// # Safety
/// `buffer` and `memory` are `raw`'s (the Vulkan device under `device`), bound to each other,
/// and used by nothing else once handed over. wgpu treats the buffer's contents as initialised:
/// its readers must read only what was written first.
pub unsafe fn adopt(
    device: &wgpu::Device,
    raw: ash::Device,
    (buffer, memory): (vk::Buffer, vk::DeviceMemory),
    (label, size, usage): (&str, u64, wgpu::BufferUsages),
    release: impl FnOnce() + Send + Sync + 'static,
) -> wgpu::Buffer {
    let destroy = Box::new(move || {
        release();
        // SAFETY: wgpu has let go of the buffer (this runs when its hal buffer drops), and so
        // has the GPU; freeing the memory unmaps it.
        unsafe {
            raw.destroy_buffer(buffer, None);
            raw.free_memory(memory, None);
        }
    });
    // SAFETY: as the caller promises; wgpu never destroys the buffer (`destroy` does).
    unsafe {
        let hal = wgpu::hal::vulkan::Buffer::from_raw_externally_owned(buffer, destroy);
        device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
            hal,
            &wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            },
        )
    }
}
