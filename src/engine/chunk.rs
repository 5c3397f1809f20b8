//! The chunk pass: counts each chunk of the frame's pixels into workgroup-private histograms,
//! then either merges them into the frame's histogram (and scale) itself or writes one histogram
//! per chunk for the reduce pass.

use super::reduce::spill;
use crate::colour::Depth;
use crate::gpu::shaders::{self, layout, Header};

/// Workgroup size and work per invocation of the chunk pass. A chunk is
/// `workgroup_size · loads_per_invocation · 4` consecutive pixels (one vec4u load is 4 pixels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkShape {
    pub workgroup_size: u32,
    /// A multiple of 4: loads are issued four at a time.
    pub loads_per_invocation: u32,
    /// Copies of the histograms in workgroup memory, against atomic contention on flat pictures.
    pub replicas: u32,
}

impl Default for ChunkShape {
    fn default() -> Self {
        // Measured best on an H100 at 1080p and 4K (see README's bench table); one replica is
        // enough once the bins are channel-major, since equal-address atomics don't conflict.
        Self {
            workgroup_size: 512,
            loads_per_invocation: 8,
            replicas: 1,
        }
    }
}

impl ChunkShape {
    pub fn chunk_pixels(&self) -> u32 {
        self.workgroup_size * self.loads_per_invocation * 4
    }

    pub fn num_chunks(&self, pixel_count: u32) -> u32 {
        pixel_count.div_ceil(self.chunk_pixels())
    }

    /// A workgroup no larger than the adapter runs (`most` invocations: 256 is all that
    /// downlevel and GL adapters promise), with as many loads each as keep the chunk's size.
    pub fn fit_invocations(mut self, most: u32) -> Self {
        if self.workgroup_size > most && most > 0 {
            let pixels = self.chunk_pixels();
            self.workgroup_size = most;
            self.loads_per_invocation = (pixels / (most * 4)).next_multiple_of(4).max(4);
        }
        self
    }

    /// The most replicas that fit in `workgroup_bytes` of workgroup memory (at least one),
    /// next to the pass's other workgroup words.
    pub fn fit_replicas(mut self, bins: u32, workgroup_bytes: u32) -> Self {
        let per_replica = bins * 4 * 4;
        self.replicas = self
            .replicas
            .min(workgroup_bytes.saturating_sub(EXTRA_WORKGROUP_BYTES) / per_replica)
            .max(1);
        self
    }
}

/// Workgroup memory the chunk pass uses beside its bins (ticket, epoch and four maxima, rounded
/// up).
pub const EXTRA_WORKGROUP_BYTES: u32 = 32;

/// Twin of `ChunkParams` in shaders/engine/chunk.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkParams {
    pub pixel_count: u32,
    pub num_chunks: u32,
    /// `count_bits`: how the one-dispatch engine finishes the frame (0: by ticket).
    pub count_bits: u32,
    /// Chunks across the frame where a chunk is a tile (`planes::PlanesCount`); 0 otherwise.
    pub tiles_across: u32,
}

impl ChunkParams {
    pub fn new(pixel_count: u32, num_chunks: u32, bins: u32) -> Self {
        Self {
            pixel_count,
            num_chunks,
            count_bits: count_bits(pixel_count, num_chunks, bins),
            tiles_across: 0,
        }
    }
}

/// The most storage atomics (chunks × words) a frame finished per word may take. Each is an
/// atomic that returns its value, and a word with nothing to add still takes one, so past this
/// the ticket's wait costs less: on an H100, a 1080p frame (127 chunks, 1024 words) is 1 µs
/// faster per word, a 4K frame (507 chunks) 0.8 µs slower.
const PER_WORD_MOST_ATOMICS: u64 = 1 << 18;

/// How the one-dispatch engine finishes a frame of `pixel_count` pixels in `num_chunks` chunks
/// (see shaders/engine/chunk.wgsl): per word, with a bin's count in the low `count_bits` bits
/// of the word and the number of workgroups that have added in the high bits, where both fit
/// and the atomics are few enough; else (0) by ticket.
pub fn count_bits(pixel_count: u32, num_chunks: u32, bins: u32) -> u32 {
    let bits = 32 - pixel_count.leading_zeros();
    let fits = bits < 32 && u64::from(num_chunks) <= 1u64 << (32 - bits);
    let atomics = u64::from(num_chunks) * u64::from(bins) * 4;
    if fits && atomics <= PER_WORD_MOST_ATOMICS {
        bits
    } else {
        0
    }
}

/// How the chunk pass ends: which entry point of shaders/engine/chunk.wgsl runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkEnding {
    /// `count_merge`: add the counts into the frame's totals; the last workgroup writes the
    /// histogram and scale. Binds the totals (3), histogram (4) and scale (5).
    Merge,
    /// `count_chunk`: write one histogram per chunk. Binds the chunks buffer (2).
    Write,
}

pub struct ChunkPass {
    pipeline: wgpu::ComputePipeline,
    /// `ChunkEnding::Merge`: `count_merge_words`, for frames finished per word (`pipeline`
    /// finishes by ticket).
    per_word: Option<wgpu::ComputePipeline>,
    layout: wgpu::BindGroupLayout,
    pub shape: ChunkShape,
}

impl ChunkPass {
    pub fn new(device: &wgpu::Device, bins: u32, depth: Depth, shape: ChunkShape, ending: ChunkEnding) -> Self {
        let storage = |binding| layout::storage(binding, wgpu::ShaderStages::COMPUTE, false);
        let mut entries = vec![
            layout::storage(0, wgpu::ShaderStages::COMPUTE, true),
            layout::uniform(1, wgpu::ShaderStages::COMPUTE, false),
        ];
        let entry_point = match ending {
            ChunkEnding::Merge => {
                entries.extend([storage(3), storage(4), storage(5)]);
                "count_merge"
            }
            ChunkEnding::Write => {
                entries.push(storage(2));
                "count_chunk"
            }
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("chunk pass"),
            entries: &entries,
        });
        let header = Header::new(bins)
            .depth(depth)
            .with("WG_X", shape.workgroup_size)
            .with("LOADS_PER_INVOCATION", shape.loads_per_invocation)
            .with("REPLICAS", shape.replicas);
        let source = shaders::chunk_packed_source(&header);
        let module = shaders::trusted_module(device, "chunk pass", source);
        let pipeline = shaders::compute_pipeline(device, "chunk pass", &module, entry_point, &layout);
        let per_word = (ending == ChunkEnding::Merge)
            .then(|| shaders::compute_pipeline(device, "chunk pass", &module, "count_merge_words", &layout));
        Self {
            pipeline,
            per_word,
            layout,
            shape,
        }
    }

    /// Binds a frame's pixels and the pass's uniforms with `outputs`, the (binding, buffer)
    /// pairs its ending writes.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        pixels: &wgpu::Buffer,
        params: &wgpu::Buffer,
        outputs: &[(u32, &wgpu::Buffer)],
    ) -> wgpu::BindGroup {
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: pixels.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: params.as_entire_binding(),
            },
        ];
        entries.extend(outputs.iter().map(|&(binding, buffer)| wgpu::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        }));
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("chunk pass"),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Records the pass over `num_chunks` chunks; `count_bits` (of the frame's `ChunkParams`)
    /// picks how a merging pass finishes.
    pub fn encode(&self, pass: &mut wgpu::ComputePass, bind_group: &wgpu::BindGroup, num_chunks: u32, count_bits: u32) {
        pass.push_debug_group("chunk");
        match &self.per_word {
            Some(per_word) if count_bits != 0 => pass.set_pipeline(per_word),
            _ => pass.set_pipeline(&self.pipeline),
        }
        pass.set_bind_group(0, bind_group, &[]);
        let (x, y) = spill(num_chunks);
        pass.dispatch_workgroups(x, y, 1);
        pass.pop_debug_group();
    }
}

#[cfg(test)]
mod tests {
    use super::{count_bits, ChunkShape};

    #[test]
    fn frames_up_to_about_1080p_finish_per_word() {
        let shape = ChunkShape::default();
        let bits = |width: u32, height: u32, bins| {
            let pixels = width * height;
            count_bits(pixels, shape.num_chunks(pixels), bins)
        };
        // 2073600 pixels need 21 bits; 127 chunks fit in the other 11.
        assert_eq!(bits(1920, 1080, 256), 21);
        assert_eq!(bits(1280, 720, 256), 20);
        assert_eq!(bits(1, 1, 256), 1);
        // Too many atomics: 4K (507 chunks), or 1080p at 1024 bins.
        assert_eq!(bits(3840, 2160, 256), 0);
        assert_eq!(bits(1920, 1080, 1024), 0);
        // Counts and chunks that don't fit in a word together.
        assert_eq!(count_bits(1 << 28, 17, 4), 0);
        assert_eq!(count_bits((1 << 28) - 1, 16, 4), 28);
        assert_eq!(count_bits(u32::MAX, 1, 4), 0);
    }

    #[test]
    fn workgroups_shrink_to_what_the_adapter_runs() {
        let shape = ChunkShape::default();
        assert_eq!(shape.fit_invocations(1024), shape);
        let small = shape.fit_invocations(256);
        assert_eq!((small.workgroup_size, small.loads_per_invocation), (256, 16));
        assert_eq!(small.chunk_pixels(), shape.chunk_pixels());
        let odd = shape.fit_invocations(96);
        assert_eq!((odd.workgroup_size, odd.loads_per_invocation % 4), (96, 0));
        assert!(odd.chunk_pixels() >= shape.chunk_pixels() * 9 / 10);
    }
}
