//! GPU memory for one NVDEC stream's frames: slots of Vulkan memory that CUDA copies decoded
//! frames into on the device, and that the upload thread copies into ring slots (a GPU copy),
//! as often as a frame is shown again from the frame cache. Sized by the GPU cache's budget and
//! allocated in chunks of up to `CHUNK_BYTES`: the first, for the frames in flight and a few
//! more, as the stream starts; the rest by a thread of its own while the first frames decode.
//! Nothing is allocated per frame.

use super::cuda::{CuDevicePtr, CudaStream, PlaneCopy};
use super::vulkan::VulkanDevice;
use crate::gpu::mapping::MAP_SETTLE;
use crate::video::format::FrameFormat;
use crate::video::planes::{encode_plane_copies, plane_rows, PlaneRows};
use ffmpeg_next as ffmpeg;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The largest single allocation: whole frames up to this many bytes share one buffer (an 8K
/// 10-bit frame, 100 MB, has one of its own beyond it).
const CHUNK_BYTES: u64 = 1 << 30;

struct Chunk {
    buffer: wgpu::Buffer,
    /// The buffer's first byte as CUDA addresses it.
    pointer: CuDevicePtr,
}

/// A free slot, and the submission that last read it (a copy into it waits for that first).
struct Free {
    slot: usize,
    read_in: Option<wgpu::SubmissionIndex>,
}

/// Device memory holding up to `capacity` frames of one stream's format.
pub struct GpuFrameStore {
    pub format: FrameFormat,
    /// Frames it holds once grown.
    pub capacity: usize,
    /// Bytes of one frame's slot: its planes, rows `plane_rows` apart.
    pub slot_bytes: u64,
    planes: Vec<PlaneRows>,
    /// Each slot's chunk and offset in it.
    places: Vec<(usize, u64)>,
    /// Set as each is allocated: the first when the store is made, the rest by a thread of
    /// its own meanwhile (`grow`).
    chunks: Vec<OnceLock<Chunk>>,
    /// Slots whose chunk is allocated.
    ready: AtomicUsize,
    /// Growing stopped short of `capacity` (an allocation failed).
    stunted: std::sync::atomic::AtomicBool,
    /// Oldest freed first: the GPU has long finished reading those.
    free: Mutex<VecDeque<Free>>,
    cuda: CudaStream,
    device: wgpu::Device,
}

/// One frame's planes in a store's slot; the slot is free again once this is dropped (and the
/// GPU has finished copying from it).
pub struct GpuPlanes {
    store: Arc<GpuFrameStore>,
    slot: usize,
    /// The submission that copied from the slot last.
    read_in: Mutex<Option<wgpu::SubmissionIndex>>,
}

impl GpuFrameStore {
    /// Memory for `frames` frames of `format` (at least one), shared between wgpu's `device`
    /// and the decoder's CUDA context; why not, where they can't share it. The first `first`
    /// frames' memory is there on return; the rest is allocated by a thread of its own, in
    /// chunks, so that the stream's first frame doesn't wait for gigabytes.
    pub fn new(
        device: &wgpu::Device,
        cuda: CudaStream,
        format: FrameFormat,
        frames: usize,
        first: usize,
    ) -> Result<Arc<Self>, String> {
        let vulkan = VulkanDevice::of(device)?;
        if cuda.device_uuid()? != vulkan.uuid {
            return Err("CUDA decodes on another GPU than the one Vulkan draws on".into());
        }
        let (planes, slot_bytes) = plane_rows(&format);
        let capacity = frames.max(1);
        let first = first.clamp(1, capacity);
        let per_chunk = usize::try_from(CHUNK_BYTES / slot_bytes.max(1)).unwrap_or(1).max(1);
        // The first chunk, then whole chunks.
        let mut sizes = vec![first];
        let mut left = capacity - first;
        while left > 0 {
            sizes.push(per_chunk.min(left));
            left -= per_chunk.min(left);
        }
        let places = sizes
            .iter()
            .enumerate()
            .flat_map(|(chunk, &slots)| (0..slots).map(move |i| (chunk, i as u64 * slot_bytes)))
            .collect();
        let store = Arc::new(Self {
            format,
            capacity,
            slot_bytes,
            planes,
            places,
            chunks: sizes.iter().map(|_| OnceLock::new()).collect(),
            ready: AtomicUsize::new(0),
            stunted: Default::default(),
            free: Mutex::new(VecDeque::new()),
            cuda,
            device: device.clone(),
        });
        store.add_chunk(&vulkan, 0, first)?;
        if sizes.len() > 1 {
            let weak = Arc::downgrade(&store);
            std::thread::Builder::new()
                .name("histoplay gpu cache".into())
                .spawn(move || grow(weak, vulkan, &sizes))
                .map_err(|e| log::warn!("cannot grow the GPU frame cache: {e}"))
                .ok();
        }
        Ok(store)
    }

    /// Allocates chunk `index` of `slots` slots, shared with CUDA, and frees its slots.
    fn add_chunk(&self, vulkan: &VulkanDevice, index: usize, slots: usize) -> Result<(), String> {
        let mut exported = vulkan.export_buffer(self.slot_bytes * slots as u64)?;
        let Some(fd) = exported.fd.take() else {
            vulkan.discard(exported);
            return Err("the exported memory has no descriptor".into());
        };
        let imported = match self.cuda.import(fd, exported.allocation_size, exported.dedicated) {
            Ok(imported) => imported,
            Err(e) => {
                vulkan.discard(exported);
                return Err(e);
            }
        };
        let pointer = imported.pointer;
        let label = format!("GPU frame cache {index}");
        let buffer = vulkan.wgpu_buffer(&self.device, &label, exported, Box::new(imported));
        let _ = self.chunks[index].set(Chunk { buffer, pointer });
        let first_slot = self.places.iter().position(|&(chunk, _)| chunk == index).unwrap_or(0);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend((first_slot..first_slot + slots).map(|slot| Free { slot, read_in: None }));
        self.ready.fetch_add(slots, Ordering::AcqRel);
        Ok(())
    }

    /// The chunk that holds `slot`, and the slot's offset in it. Only slots of allocated
    /// chunks are ever handed out.
    fn place(&self, slot: usize) -> (&Chunk, u64) {
        let (chunk, offset) = self.places[slot];
        (
            self.chunks[chunk].get().expect("a slot handed out is allocated"),
            offset,
        )
    }

    /// Frames the store holds now (it grows to `capacity`).
    pub fn ready(&self) -> usize {
        self.ready.load(Ordering::Acquire)
    }

    /// Frames the store will hold once grown: its capacity, or what it holds where growing
    /// failed.
    pub fn grown(&self) -> usize {
        match self.stunted.load(Ordering::Acquire) {
            true => self.ready(),
            false => self.capacity,
        }
    }

    /// Copies an NVDEC frame (a CUDA frame of this store's format and size) into a free slot
    /// on the device, and waits for the copy; None when every slot is taken (the caller copies
    /// it through memory instead).
    pub fn copy_in(self: &Arc<Self>, frame: &ffmpeg::frame::Video) -> Result<Option<GpuPlanes>, String> {
        let Some(free) = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop_front() else {
            return Ok(None);
        };
        // Its last copy into a ring slot has finished, unless every slot was taken lately; one
        // the GPU is still reading after all is left for later.
        if let Some(read_in) = &free.read_in {
            let done = self.device.poll(wgpu::PollType::Wait {
                submission_index: Some(read_in.clone()),
                timeout: Some(MAP_SETTLE),
            });
            if done.is_err() {
                self.free.lock().unwrap_or_else(|e| e.into_inner()).push_back(free);
                return Ok(None);
            }
        }
        let planes = GpuPlanes {
            store: Arc::clone(self),
            slot: free.slot,
            read_in: Mutex::new(None),
        };
        let (chunk, offset) = self.place(free.slot);
        let copies = self
            .planes
            .iter()
            .enumerate()
            .map(|(index, plane)| {
                // SAFETY: a CUDA frame's data pointers are device pointers, its linesizes their
                // pitches (FFmpeg's hwcontext_cuda).
                let (from, pitch) = unsafe {
                    let raw = frame.as_ptr();
                    ((*raw).data[index] as CuDevicePtr, (*raw).linesize[index])
                };
                PlaneCopy {
                    from,
                    from_pitch: usize::try_from(pitch).unwrap_or(0),
                    to: chunk.pointer + offset + plane.offset,
                    to_pitch: plane.pitch as usize,
                    width_bytes: plane.row_bytes,
                    rows: plane.rows,
                }
            })
            .collect::<Vec<_>>();
        if copies.iter().any(|c| c.from == 0 || c.from_pitch < c.width_bytes) {
            return Err("the decoder's frame has no device planes".into());
        }
        self.cuda.copy_planes(&copies)?;
        Ok(Some(planes))
    }
}

impl GpuPlanes {
    /// Records copying the frame's planes into `textures` (one per plane, of the store's
    /// format and size).
    pub fn encode_copy<'a>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        textures: impl IntoIterator<Item = &'a wgpu::Texture>,
    ) {
        let (chunk, offset) = self.store.place(self.slot);
        encode_plane_copies(encoder, &chunk.buffer, offset, &self.store.planes, textures);
    }

    /// The copy recorded by `encode_copy` went in `submission`.
    pub fn copied_in(&self, submission: wgpu::SubmissionIndex) {
        *self.read_in.lock().unwrap_or_else(|e| e.into_inner()) = Some(submission);
    }

    /// The format of the frames the store holds.
    pub fn format(&self) -> FrameFormat {
        self.store.format
    }

    /// Bytes the slot holds.
    pub fn bytes(&self) -> usize {
        usize::try_from(self.store.slot_bytes).unwrap_or(usize::MAX)
    }
}

/// Allocates the store's chunks after the first, while it is in use; stops early if the store
/// goes, or on an error (it then holds fewer frames: the log says why).
fn grow(store: std::sync::Weak<GpuFrameStore>, vulkan: VulkanDevice, sizes: &[usize]) {
    let started = std::time::Instant::now();
    for (index, &slots) in sizes.iter().enumerate().skip(1) {
        let Some(store) = store.upgrade() else { return };
        if let Err(e) = store.add_chunk(&vulkan, index, slots) {
            store.stunted.store(true, Ordering::Release);
            log::warn!("the GPU frame cache stays at {} frames: {e}", store.ready());
            return;
        }
    }
    log::debug!(
        "GPU frame cache grown in {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
}

impl Drop for GpuPlanes {
    fn drop(&mut self) {
        let read_in = self.read_in.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.store
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(Free {
                slot: self.slot,
                read_in,
            });
    }
}
