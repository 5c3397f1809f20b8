//! Buffers of wgpu's Vulkan device whose memory can be shared with another API
//! (`VK_KHR_external_memory_fd`, which wgpu-hal enables wherever the driver has it): made with
//! Vulkan's raw API through wgpu-hal's handles, exported as a file descriptor, and handed to wgpu
//! as buffers it reads like its own.

use ash::vk;
use std::os::fd::{FromRawFd, OwnedFd};

/// wgpu's device, seen through Vulkan.
pub struct VulkanDevice {
    raw: ash::Device,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    memory_fd: ash::khr::external_memory_fd::Device,
    /// `VkPhysicalDeviceIDProperties::deviceUUID`: the GPU, as CUDA names it too.
    pub uuid: [u8; 16],
}

/// A buffer in device memory made exportable, not yet wgpu's.
pub struct ExportedBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// The buffer's size as asked.
    pub size: u64,
    /// The memory's size (what an importer maps), at least `size`.
    pub allocation_size: u64,
    /// Whether the memory is a dedicated allocation (an importer must say so).
    pub dedicated: bool,
    /// The memory exported: the importer takes it.
    pub fd: Option<OwnedFd>,
}

impl VulkanDevice {
    /// wgpu's device, where it runs on Vulkan and can export memory; else why not.
    pub fn of(device: &wgpu::Device) -> Result<Self, String> {
        // SAFETY: the raw handles are only used while `device` lives (the buffers made here
        // go back before it does: wgpu drops them first).
        let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }.ok_or("the GPU is not driven through Vulkan")?;
        if !hal
            .enabled_device_extensions()
            .contains(&ash::khr::external_memory_fd::NAME)
        {
            return Err("the Vulkan driver can't export memory (no VK_KHR_external_memory_fd)".into());
        }
        let raw = hal.raw_device().clone();
        let instance = hal.shared_instance().raw_instance().clone();
        let physical = hal.raw_physical_device();
        drop(hal);
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
        // SAFETY: a physical device of this instance; Vulkan 1.1, which wgpu requires.
        unsafe { instance.get_physical_device_properties2(physical, &mut properties) };
        let uuid = id.device_uuid;
        let memory_fd = ash::khr::external_memory_fd::Device::new(&instance, &raw);
        Ok(Self {
            raw,
            instance,
            physical,
            memory_fd,
            uuid,
        })
    }

    /// Bytes of the GPU's own memory (its largest device-local heap).
    pub fn local_memory(&self) -> u64 {
        // SAFETY: a physical device of this instance.
        let memory = unsafe { self.instance.get_physical_device_memory_properties(self.physical) };
        memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .filter(|heap| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|heap| heap.size)
            .max()
            .unwrap_or(0)
    }

    /// A buffer of `size` bytes in device-local memory, exported as an opaque fd, usable by wgpu
    /// as a copy source and destination and a storage buffer.
    pub fn export_buffer(&self, size: u64) -> Result<ExportedBuffer, String> {
        let mut external =
            vk::ExternalMemoryBufferCreateInfo::default().handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST
                    | vk::BufferUsageFlags::STORAGE_BUFFER,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: a valid device and description; the buffer is destroyed on every error path.
        let buffer = unsafe { self.raw.create_buffer(&info, None) }.map_err(|e| format!("vkCreateBuffer: {e}"))?;
        let mut exported = ExportedBuffer {
            buffer,
            memory: vk::DeviceMemory::null(),
            size,
            allocation_size: 0,
            dedicated: false,
            fd: None,
        };
        match self.allocate(&mut exported) {
            Ok(()) => Ok(exported),
            Err(e) => {
                // SAFETY: made above, used by nothing.
                unsafe { self.destroy(&exported) };
                Err(e)
            }
        }
    }

    fn allocate(&self, exported: &mut ExportedBuffer) -> Result<(), String> {
        let mut dedicated_needs = vk::MemoryDedicatedRequirements::default();
        let mut requirements = vk::MemoryRequirements2::default().push_next(&mut dedicated_needs);
        // SAFETY: the buffer made by `export_buffer`.
        unsafe {
            self.raw.get_buffer_memory_requirements2(
                &vk::BufferMemoryRequirementsInfo2::default().buffer(exported.buffer),
                &mut requirements,
            )
        };
        let needs = requirements.memory_requirements;
        let dedicated = dedicated_needs.prefers_dedicated_allocation == vk::TRUE
            || dedicated_needs.requires_dedicated_allocation == vk::TRUE;
        // SAFETY: a physical device of this instance.
        let types = unsafe { self.instance.get_physical_device_memory_properties(self.physical) };
        let memory_type = (0..types.memory_type_count)
            .find(|&i| {
                needs.memory_type_bits & (1 << i) != 0
                    && types.memory_types[i as usize]
                        .property_flags
                        .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            })
            .ok_or("no device-local memory can hold an exported buffer")?;
        let mut export =
            vk::ExportMemoryAllocateInfo::default().handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut dedicated_info = vk::MemoryDedicatedAllocateInfo::default().buffer(exported.buffer);
        let mut allocate = vk::MemoryAllocateInfo::default()
            .allocation_size(needs.size)
            .memory_type_index(memory_type)
            .push_next(&mut export);
        if dedicated {
            allocate = allocate.push_next(&mut dedicated_info);
        }
        // SAFETY: a valid description; the memory is freed with the buffer.
        exported.memory = unsafe { self.raw.allocate_memory(&allocate, None) }
            .map_err(|e| format!("vkAllocateMemory of {} MB: {e}", needs.size >> 20))?;
        exported.allocation_size = needs.size;
        exported.dedicated = dedicated;
        // SAFETY: memory of the buffer's requirements, bound once.
        unsafe { self.raw.bind_buffer_memory(exported.buffer, exported.memory, 0) }
            .map_err(|e| format!("vkBindBufferMemory: {e}"))?;
        let get = vk::MemoryGetFdInfoKHR::default()
            .memory(exported.memory)
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        // SAFETY: memory allocated exportable as an opaque fd; the fd is ours.
        let fd = unsafe { self.memory_fd.get_memory_fd(&get) }.map_err(|e| format!("vkGetMemoryFdKHR: {e}"))?;
        // SAFETY: a new descriptor nothing else owns.
        exported.fd = Some(unsafe { OwnedFd::from_raw_fd(fd) });
        Ok(())
    }

    /// Frees a buffer that never became wgpu's (its memory imported nowhere).
    pub fn discard(&self, exported: ExportedBuffer) {
        // SAFETY: not wgpu's, so unused by the GPU; no importer holds it.
        unsafe { self.destroy(&exported) };
    }

    /// # Safety
    /// The buffer must be unused by the GPU and by any importer.
    unsafe fn destroy(&self, exported: &ExportedBuffer) {
        self.raw.destroy_buffer(exported.buffer, None);
        if exported.memory != vk::DeviceMemory::null() {
            self.raw.free_memory(exported.memory, None);
        }
    }

    /// `exported` as a wgpu buffer. `importer` (another API's hold on the memory) is dropped
    /// once wgpu is done with the buffer, then the buffer and its memory are freed.
    pub fn wgpu_buffer(
        &self,
        device: &wgpu::Device,
        label: &str,
        exported: ExportedBuffer,
        importer: Box<dyn Send + Sync>,
    ) -> wgpu::Buffer {
        let (buffer, memory, size) = (exported.buffer, exported.memory, exported.size);
        drop(exported.fd);
        let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::STORAGE;
        // SAFETY: a buffer of this device with its memory bound, wgpu's alone from here; the
        // importer is dropped (its mapping undone) before the memory is freed, and every reader
        // here reads only what was copied in first.
        unsafe {
            crate::gpu::raw_buffer::adopt(
                device,
                self.raw.clone(),
                (buffer, memory),
                (label, size, usage),
                move || drop(importer),
            )
        }
    }
}
