//! Buffers in the machine's memory that the GPU copies from, made through Vulkan's raw API (by
//! wgpu-hal's handles) and mapped for good: the CPU writes a frame's rows into them at the
//! speed of its own memory, and the GPU's copy reads them across the bus.
//!
//! A buffer wgpu maps for writing is in the GPU's own memory wherever the bus exposes it
//! (resizable BAR, on every recent discrete GPU): each byte the CPU writes then crosses the bus
//! as it is written, in write-combined stores, and the writing thread waits on them (a 1080p
//! 4:2:0 frame's 3 MB took the upload thread 0.45 ms). Mapping it again after each copy costs a
//! round through wgpu's mapping machinery too; this memory stays mapped.

use ash::vk;
use std::ptr::NonNull;

/// A wgpu buffer, a copy source, over host memory mapped for good.
pub struct HostBuffer {
    pub buffer: wgpu::Buffer,
    memory: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain memory that lives as long as `buffer`; it is written only
// through `&mut self`.
unsafe impl Send for HostBuffer {}
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    /// A buffer of `size` bytes in host memory that the GPU copies from: memory the CPU caches
    /// where the driver has it, and not the GPU's own where the driver has other. Fails where
    /// the GPU is not driven through Vulkan, or the driver refuses.
    pub fn new(device: &wgpu::Device, label: &str, size: u64) -> Result<Self, String> {
        // SAFETY: the raw handles are used only while `device` lives: the buffer made here
        // goes back before it does (wgpu drops it first, then `release` frees it).
        let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }.ok_or("the GPU is not driven through Vulkan")?;
        let raw = hal.raw_device().clone();
        let instance = hal.shared_instance().raw_instance().clone();
        let physical = hal.raw_physical_device();
        drop(hal);
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(vk::BufferUsageFlags::TRANSFER_SRC)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid device and description; destroyed on every error path below.
        let buffer = unsafe { raw.create_buffer(&info, None) }.map_err(|e| format!("vkCreateBuffer: {e}"))?;
        // SAFETY: the buffer just made.
        let needs = unsafe { raw.get_buffer_memory_requirements(buffer) };
        // SAFETY: a physical device of this instance.
        let types = unsafe { instance.get_physical_device_memory_properties(physical) };
        let Some((memory_type, _)) = host_memory_type(&types, needs.memory_type_bits) else {
            // SAFETY: made above, used by nothing.
            unsafe { raw.destroy_buffer(buffer, None) };
            return Err("the GPU has no memory the CPU can map".into());
        };
        let allocate = vk::MemoryAllocateInfo::default()
            .allocation_size(needs.size)
            .memory_type_index(memory_type);
        let made = (|| {
            // SAFETY: a valid description; the memory is freed with the buffer.
            let memory = unsafe { raw.allocate_memory(&allocate, None) }
                .map_err(|e| format!("vkAllocateMemory of {} MB: {e}", needs.size >> 20))?;
            // SAFETY: memory of the buffer's requirements, bound once, mapped once (host
            // visible and coherent: no flushes).
            let mapped = unsafe {
                raw.bind_buffer_memory(buffer, memory, 0)
                    .and_then(|()| raw.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()))
            };
            match mapped.ok().and_then(|p| NonNull::new(p.cast::<u8>())) {
                Some(pointer) => Ok((memory, pointer)),
                None => {
                    // SAFETY: bound to nothing the GPU uses yet.
                    unsafe { raw.free_memory(memory, None) };
                    Err("mapping the buffer's memory failed".to_string())
                }
            }
        })();
        let (memory, pointer) = match made {
            Ok(made) => made,
            Err(e) => {
                // SAFETY: made above, used by nothing.
                unsafe { raw.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // SAFETY: a buffer of this device with its memory bound, used by nothing else; every
        // copy from it reads rows written first.
        let buffer = unsafe {
            super::raw_buffer::adopt(
                device,
                raw,
                (buffer, memory),
                (label, size, wgpu::BufferUsages::COPY_SRC),
                || {},
            )
        };
        Ok(Self {
            buffer,
            memory: pointer,
            len: size as usize,
        })
    }

    /// The first byte of the buffer's memory.
    pub fn as_ptr(&self) -> *mut u8 {
        self.memory.as_ptr()
    }

    /// The buffer's size in bytes.
    pub fn byte_len(&self) -> usize {
        self.len
    }

    /// The buffer's bytes, for the CPU to write. The GPU must be done with its last copy from
    /// them: the caller waits for it.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `len` bytes mapped for as long as `buffer` lives, borrowed mutably once.
        unsafe { std::slice::from_raw_parts_mut(self.memory.as_ptr(), self.len) }
    }
}

/// The memory type a host buffer takes among `allowed` (a bit a type), and whether it is the
/// GPU's own (where the driver has no other the CPU can map: an integrated or a software GPU's,
/// which is the machine's anyway): one the CPU maps coherently; of those, not the GPU's own memory before the GPU's
/// own, then one the CPU caches before one it does not.
fn host_memory_type(types: &vk::PhysicalDeviceMemoryProperties, allowed: u32) -> Option<(u32, bool)> {
    let needed = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..types.memory_type_count)
        .filter(|&i| allowed & (1 << i) != 0)
        .map(|i| (i, types.memory_types[i as usize].property_flags))
        .filter(|(_, flags)| flags.contains(needed))
        .max_by_key(|&(i, flags)| {
            (
                !flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL),
                flags.contains(vk::MemoryPropertyFlags::HOST_CACHED),
                std::cmp::Reverse(i),
            )
        })
        .map(|(i, flags)| (i, flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(flags: &[vk::MemoryPropertyFlags]) -> vk::PhysicalDeviceMemoryProperties {
        let mut types = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: flags.len() as u32,
            ..Default::default()
        };
        for (i, &f) in flags.iter().enumerate() {
            types.memory_types[i].property_flags = f;
        }
        types
    }

    #[test]
    fn the_memory_is_the_machines_and_cached_where_the_driver_has_it() {
        use vk::MemoryPropertyFlags as F;
        let visible = F::HOST_VISIBLE | F::HOST_COHERENT;
        // A discrete GPU with resizable BAR: its own memory mapped, the machine's write-combined
        // and cached.
        let discrete = properties(&[
            F::DEVICE_LOCAL,
            F::DEVICE_LOCAL | visible,
            visible,
            visible | F::HOST_CACHED,
        ]);
        assert_eq!(host_memory_type(&discrete, 0b1111), Some((3, false)));
        assert_eq!(host_memory_type(&discrete, 0b0111), Some((2, false)));
        assert_eq!(host_memory_type(&discrete, 0b0011), Some((1, true)));
        assert_eq!(host_memory_type(&discrete, 0b0001), None);
        // A software or integrated GPU: one memory, the machine's.
        let unified = properties(&[F::DEVICE_LOCAL | visible | F::HOST_CACHED]);
        assert_eq!(host_memory_type(&unified, 0b1), Some((0, true)));
        // Not coherent: flushes would be needed, so not taken.
        let incoherent = properties(&[F::HOST_VISIBLE | F::HOST_CACHED]);
        assert_eq!(host_memory_type(&incoherent, 0b1), None);
    }
}
