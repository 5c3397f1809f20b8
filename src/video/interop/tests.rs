use super::vulkan::VulkanDevice;
use super::*;
use crate::gpu::GpuContext;
use std::sync::Arc;

/// Drops tell a shared counter (an importer's hold on exported memory, in these tests).
struct Hold(Arc<AtomicUsize>);

impl Drop for Hold {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn exported_memory_is_a_wgpu_buffer_that_copies_into_textures_and_frees_after_its_importer() {
    let ctx = GpuContext::new().unwrap();
    let vulkan = VulkanDevice::of(&ctx.device).expect("Mesa's Vulkan exports memory as fds");
    assert!(vulkan.local_memory() > 0);
    // Two planes of 4 rows, 256 bytes apart: a 200x4 R8 plane, then a 50x4 Rg16 one.
    let exported = vulkan.export_buffer(2 * 4 * 256).unwrap();
    assert!(exported.fd.is_some(), "exported as a descriptor");
    assert!(exported.allocation_size >= 2 * 4 * 256);
    let dropped = Arc::new(AtomicUsize::new(0));
    let buffer = vulkan.wgpu_buffer(&ctx.device, "exported", exported, Box::new(Hold(Arc::clone(&dropped))));
    let bytes: Vec<u8> = (0..2 * 4 * 256).map(|i| (i * 7 % 251) as u8).collect();
    ctx.queue.write_buffer(&buffer, 0, &bytes);
    let texture = |format, width| {
        ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width,
                height: 4,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    };
    let luma = texture(wgpu::TextureFormat::R8Uint, 200);
    let chroma = texture(wgpu::TextureFormat::Rg16Uint, 50);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for (offset, target) in [(0, &luma), (4 * 256, &chroma)] {
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(256),
                    rows_per_image: None,
                },
            },
            target.as_image_copy(),
            target.size(),
        );
    }
    ctx.queue.submit([encoder.finish()]);
    let luma_rows = crate::gpu::readback::read_texture(&ctx, &luma).unwrap();
    let chroma_rows = crate::gpu::readback::read_texture(&ctx, &chroma).unwrap();
    for row in 0..4 {
        assert_eq!(
            luma_rows[row * 200..][..200],
            bytes[row * 256..][..200],
            "luma row {row}"
        );
        assert_eq!(
            chroma_rows[row * 200..][..200],
            bytes[1024 + row * 256..][..200],
            "chroma row {row}"
        );
    }
    assert_eq!(dropped.load(Ordering::SeqCst), 0, "held while wgpu has the buffer");
    drop(buffer);
    ctx.wait_idle().unwrap();
    assert_eq!(dropped.load(Ordering::SeqCst), 1, "the importer let go once wgpu did");
}

#[test]
fn a_buffer_that_never_became_wgpus_is_freed_with_its_descriptor() {
    let ctx = GpuContext::new().unwrap();
    let vulkan = VulkanDevice::of(&ctx.device).unwrap();
    let exported = vulkan.export_buffer(1 << 16).unwrap();
    let fd = {
        use std::os::fd::AsRawFd;
        exported.fd.as_ref().unwrap().as_raw_fd()
    };
    let identity = |fd| {
        // SAFETY: fstat of a descriptor number into a local; fails if it is not open.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        (unsafe { libc::fstat(fd, &mut stat) } == 0).then_some((stat.st_dev, stat.st_ino))
    };
    let before = identity(fd);
    assert!(before.is_some());
    vulkan.discard(exported);
    // Closed: the number is free, or another test's file has it now.
    assert_ne!(identity(fd), before, "closed");
}

#[test]
fn without_cuda_the_frames_are_copied_through_memory_and_the_reason_says_so() {
    // This machine has no NVIDIA driver; where one is, CUDA opens.
    match cuda_available() {
        Ok(()) => assert!(std::path::Path::new("/proc/driver/nvidia").exists()),
        Err(reason) => assert!(reason.starts_with("no CUDA driver (libcuda.so.1"), "{reason}"),
    }
}

#[test]
fn the_gpu_cache_budget_is_an_eighth_of_the_gpus_memory_within_bounds() {
    assert_eq!(default_gpu_cache_bytes(80 << 30), 8 << 30);
    assert_eq!(default_gpu_cache_bytes(24 << 30), 3 << 30);
    assert_eq!(default_gpu_cache_bytes(1 << 30), 256 << 20);
    assert_eq!(default_gpu_cache_bytes(0), 256 << 20);
    let ctx = GpuContext::new().unwrap();
    set_gpu_cache_size(Some(300 << 20));
    assert_eq!(gpu_cache_budget(&ctx.device), 300 << 20);
    set_gpu_cache_size(None);
    let memory = VulkanDevice::of(&ctx.device).unwrap().local_memory();
    assert_eq!(gpu_cache_budget(&ctx.device), default_gpu_cache_bytes(memory));
}

#[test]
fn frame_paths_say_where_frames_go() {
    let on_gpu = FramePath::OnGpu {
        frames: 80,
        frame_bytes: 100 << 20,
    };
    assert_eq!(
        on_gpu.to_string(),
        "NVDEC to Vulkan on the GPU (GPU cache 80 frames, 8000 MiB)"
    );
    let back = FramePath::CopiedBack {
        decoder: "vaapi",
        reason: "VA-API frames are copied through memory".into(),
    };
    assert_eq!(
        back.to_string(),
        "vaapi copied through memory: VA-API frames are copied through memory"
    );
}
