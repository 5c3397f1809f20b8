// Production chunk pass: each workgroup counts one chunk of CHUNK_PIXELS consecutive pixels of
// the frame (packed RGBA8, one u32 per pixel, four per vec4u load) into REPLICAS
// workgroup-private copies of the four histograms, then writes their sum as the chunk's
// histogram. Loads are coalesced across the workgroup and issued four at a time, so each
// invocation keeps 16 pixels in flight; replicas spread a flat picture's atomics over banks.

const WG_SIZE: u32 = WG_X;
const CHUNK_LOADS: u32 = WG_SIZE * LOADS_PER_INVOCATION; // vec4u loads per chunk
const CHUNK_PIXELS: u32 = CHUNK_LOADS * 4u;
const SLOTS: u32 = NUM_BINS * 4u * REPLICAS;

struct ChunkParams { // twin: ChunkParams in src/passes/chunk.rs
    pixel_count: u32,
    num_chunks: u32,
    _pad1: u32,
    _pad2: u32,
}

var<workgroup> bins: array<atomic<u32>, SLOTS>;

@group(0) @binding(0) var<storage, read> pixels: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(2) var<uniform> params: ChunkParams;

// Workgroup bins are channel-major, replicas interleaved word by word: one atomic instruction
// (one channel) spreads its lanes' bins over all 32 banks, and a bin's copies sit in
// neighbouring banks.
fn slot(channel: u32, bin: u32, replica: u32) -> u32 {
    return (channel * NUM_BINS + bin) * REPLICAS + replica;
}

fn count_pixel(rgba: u32, replica: u32) {
    let b = pixel_bins(vec3u(rgba & 0xffu, (rgba >> 8u) & 0xffu, (rgba >> 16u) & 0xffu));
    atomicAdd(&bins[slot(0u, b.x, replica)], 1u);
    atomicAdd(&bins[slot(1u, b.y, replica)], 1u);
    atomicAdd(&bins[slot(2u, b.z, replica)], 1u);
    atomicAdd(&bins[slot(3u, b.w, replica)], 1u);
}

fn count_four(p: vec4u, replica: u32) {
    count_pixel(p.x, replica);
    count_pixel(p.y, replica);
    count_pixel(p.z, replica);
    count_pixel(p.w, replica);
}

// The last chunk may end mid-load: count only pixels before pixel_count.
fn count_four_checked(p: vec4u, first_pixel: u32, replica: u32) {
    for (var i = 0u; i < 4u; i++) {
        if first_pixel + i < params.pixel_count {
            count_pixel(p[i], replica);
        }
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn count_chunk(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    // Workgroups past the last chunk (the dispatch grid is rounded up) have nothing to do.
    let chunk = workgroup_id.y * num_workgroups.x + workgroup_id.x;
    if chunk >= params.num_chunks {
        return;
    }
    for (var s = local_index; s < SLOTS; s += WG_SIZE) {
        atomicStore(&bins[s], 0u);
    }
    workgroupBarrier();

    let replica = local_index % REPLICAS;
    let first_load = chunk * CHUNK_LOADS + local_index;
    if (chunk + 1u) * CHUNK_PIXELS <= params.pixel_count {
        // Whole chunk inside the frame: four independent loads, then count them.
        for (var k = 0u; k < LOADS_PER_INVOCATION; k += 4u) {
            let at = first_load + k * WG_SIZE;
            let p0 = pixels[at];
            let p1 = pixels[at + WG_SIZE];
            let p2 = pixels[at + 2u * WG_SIZE];
            let p3 = pixels[at + 3u * WG_SIZE];
            count_four(p0, replica);
            count_four(p1, replica);
            count_four(p2, replica);
            count_four(p3, replica);
        }
    } else {
        let loads = (params.pixel_count + 3u) / 4u;
        for (var k = 0u; k < LOADS_PER_INVOCATION; k++) {
            let at = first_load + k * WG_SIZE;
            if at < loads {
                count_four_checked(pixels[at], at * 4u, replica);
            }
        }
    }
    workgroupBarrier();

    for (var bin = local_index; bin < NUM_BINS; bin += WG_SIZE) {
        var sum = vec4u(0u);
        for (var r = 0u; r < REPLICAS; r++) {
            for (var ch = 0u; ch < 4u; ch++) {
                sum[ch] += atomicLoad(&bins[slot(ch, bin, r)]);
            }
        }
        chunks[chunk * NUM_BINS + bin] = sum;
    }
}
