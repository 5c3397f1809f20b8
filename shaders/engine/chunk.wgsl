// Production chunk pass: each workgroup counts one chunk of CHUNK_PIXELS pixels of the frame
// into REPLICAS workgroup-private copies of the four histograms (replicas spread a flat
// picture's atomics over banks). Where the pixels come from is the source's, which follows this
// file in the module and gives `count_pixels`: chunk_packed.wgsl (the converted frame, packed
// RGBA8 or RGB10A2 by DEPTH, consecutive pixels a chunk) or chunk_planes.wgsl (the decoded
// 4:2:0 planes, converted as they are counted, a tile a chunk). Two endings:
//
// - count_merge (histoplay's engine, one dispatch): each workgroup adds its counts into the
//   frame's totals with storage atomics, and the frame's histogram and display scale come out
//   of the same dispatch. No second dispatch, so no second launch and barrier. Two ways:
//   - Per word (where a count and the number of chunks fit in 32 bits together and the chunks
//     are few: 1080p at the default shape; see count_bits in src/engine/chunk.rs): every
//     workgroup adds to every word, its count in the low bits and one in the high bits, which
//     count the workgroups that have added. The workgroup whose addition completes a word
//     knows the word's total from the value its atomic returns: it writes that bin of the
//     histogram and zeroes the word. The per-channel maximum is the maximum of every running
//     total seen (each word's last running total is its total, and none is larger), so each
//     workgroup folds its own into the result with atomicMax, and the display scale, which
//     only falls as the maximum rises, with atomicMin on its float bits (positive floats order
//     as their bits do). Nothing waits for a last workgroup.
//   - By ticket (larger frames, or more bins): each workgroup adds its non-zero counts, then
//     takes a ticket; the one that finishes last copies the totals out as the histogram,
//     computes the scale and zeroes the totals.
//   The scale is accumulated in place, so the result has two slots, used by alternate frames
//   (see HistogramResult in histogram_common.wgsl): each frame's dispatch also readies the
//   other slot for the next.
// - count_chunk (the articles' shape): each workgroup writes its counts as the chunk's
//   histogram, for the reduce and scale passes.
//
// Indices stay in bounds by construction (the module is built without bounds checks, see
// trusted_module in src/gpu/shaders.rs): loads below the chunk's end or pixel_count, slots
// below SLOTS, totals below FINISHED + 1, histogram and chunk bins below NUM_BINS, result words
// below result_word(1, 8) (the HistogramResult's 20).

const WG_SIZE: u32 = WG_X;
const CHUNK_LOADS: u32 = WG_SIZE * LOADS_PER_INVOCATION; // vec4u loads per chunk
const CHUNK_PIXELS: u32 = CHUNK_LOADS * 4u;
const SLOTS: u32 = NUM_BINS * 4u * REPLICAS;
const TOTAL_WORDS: u32 = NUM_BINS * 4u;
const FINISHED: u32 = TOTAL_WORDS; // totals word that counts finished workgroups

struct ChunkParams { // twin: ChunkParams in src/engine/chunk.rs
    pixel_count: u32,
    num_chunks: u32,
    // Bits of a bin's count in the per-word finish (count_merge_words); 0: by ticket (count_merge).
    count_bits: u32,
    // Chunks across the frame, where a chunk is a tile (chunk_planes.wgsl); 0 otherwise.
    tiles_across: u32,
}

var<workgroup> bins: array<atomic<u32>, SLOTS>;
var<workgroup> ticket: u32;
var<workgroup> epoch: u32;
// The workgroup's per-channel maximum of the running totals, or of the totals (last workgroup).
var<workgroup> maxima: array<atomic<u32>, 4>;

// (Binding 0 and up from 6: the pixels' source, chunk_packed.wgsl or chunk_planes.wgsl.)
@group(0) @binding(1) var<uniform> params: ChunkParams;
// count_chunk
@group(0) @binding(2) var<storage, read_write> chunks: array<vec4u>;
// count_merge: the channel-major totals, then the FINISHED counter; all zero between
// dispatches.
@group(0) @binding(3) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> histogram: array<vec4u>;
// HistogramResult, as words (see result_word).
@group(0) @binding(5) var<storage, read_write> result: array<atomic<u32>>;

// Workgroup bins are channel-major, replicas interleaved word by word: one atomic instruction
// (one channel) spreads its lanes' bins over all 32 banks, and a bin's copies sit in
// neighbouring banks.
fn slot(channel: u32, bin: u32, replica: u32) -> u32 {
    return (channel * NUM_BINS + bin) * REPLICAS + replica;
}

// Adds one pixel's bins [r, g, b, l] to the workgroup's bins.
fn count_bins(b: vec4u, replica: u32) {
    atomicAdd(&bins[slot(0u, b.x, replica)], 1u);
    atomicAdd(&bins[slot(1u, b.y, replica)], 1u);
    atomicAdd(&bins[slot(2u, b.z, replica)], 1u);
    atomicAdd(&bins[slot(3u, b.w, replica)], 1u);
}

// Zeroes the workgroup's bins and maxima, and waits for the whole workgroup: the start of
// `count_pixels`, which every invocation calls.
fn clear_bins(local_index: u32) {
    for (var s = local_index; s < SLOTS; s += WG_SIZE) {
        atomicStore(&bins[s], 0u);
    }
    for (var ch = local_index; ch < 4u; ch += WG_SIZE) {
        atomicStore(&maxima[ch], 0u);
    }
    workgroupBarrier();
}

// A bin's count in one channel, summed over the replicas.
fn bin_count(channel: u32, bin: u32) -> u32 {
    var sum = 0u;
    for (var r = 0u; r < REPLICAS; r++) {
        sum += atomicLoad(&bins[slot(channel, bin, r)]);
    }
    return sum;
}

// The dispatch grid is rounded up (and may spill into y): workgroups past the last chunk have
// nothing to do.
fn chunk_index(workgroup_id: vec3u, num_workgroups: vec3u) -> u32 {
    return workgroup_id.y * num_workgroups.x + workgroup_id.x;
}

@compute @workgroup_size(WG_X, 1, 1)
fn count_chunk(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let chunk = chunk_index(workgroup_id, num_workgroups);
    if chunk >= params.num_chunks {
        return;
    }
    count_pixels(chunk, local_index);
    workgroupBarrier();
    for (var bin = local_index; bin < NUM_BINS; bin += WG_SIZE) {
        let sum = vec4u(bin_count(0u, bin), bin_count(1u, bin), bin_count(2u, bin), bin_count(3u, bin));
        chunks[chunk * NUM_BINS + bin] = sum;
    }
}

// Word `i` of the HistogramResult: the epoch (0), or of slot `slot`, the scale's float bits
// (i = 0..3) and max_bin (i = 4..7).
fn result_word(slot: u32, i: u32) -> u32 {
    return 4u + slot * 8u + i;
}

// The frame in slot `slot` is done: move the epoch on, and ready the other slot for the next
// frame to fold into (no maximum yet, an infinite scale).
fn next_frame(slot: u32) {
    atomicAdd(&result[0], 1u);
    for (var ch = 0u; ch < 4u; ch++) {
        atomicStore(&result[result_word(1u - slot, ch)], 0x7f800000u);
        atomicStore(&result[result_word(1u - slot, 4u + ch)], 0u);
    }
}

// Folds an invocation's per-channel maxima into the workgroup's, then waits for the whole
// workgroup's.
fn fold_maxima(m: vec4u) {
    for (var ch = 0u; ch < 4u; ch++) {
        if m[ch] != 0u {
            atomicMax(&maxima[ch], m[ch]);
        }
    }
    workgroupBarrier();
}

fn channel_scale(max_bin: u32) -> u32 {
    return bitcast<u32>(display_scale(vec4u(max_bin), params.pixel_count).x);
}

// Counts the chunk into the workgroup's bins and returns the result slot of this frame, for the
// per-word finish, where every workgroup needs it. Every invocation of the workgroup calls it.
fn count_for_merge(chunk: u32, local_index: u32) -> u32 {
    // Read now (by one invocation: same-address atomics queue up), used once the pixels are
    // counted: by then it has long arrived.
    var frame_epoch = 0u;
    if local_index == 0u {
        frame_epoch = atomicLoad(&result[0]);
    }
    count_pixels(chunk, local_index);
    if local_index == 0u {
        epoch = frame_epoch;
    }
    workgroupBarrier();
    return epoch & 1u;
}

// The two finishes are entry points of their own (picked per frame by count_bits), so that
// neither's registers limit the other's occupancy.
@compute @workgroup_size(WG_X, 1, 1)
fn count_merge_words(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let chunk = chunk_index(workgroup_id, num_workgroups);
    if chunk >= params.num_chunks {
        return;
    }
    let slot = count_for_merge(chunk, local_index);

    // The low bits of a word hold its count, the high bits count the workgroups that have added.
    let shift = params.count_bits;
    let unit = 1u << shift;
    let last = params.num_chunks - 1u;
    var running_max = vec4u(0u);
    for (var s = local_index; s < TOTAL_WORDS; s += WG_SIZE) {
        let channel = s / NUM_BINS;
        let count = bin_count(channel, s % NUM_BINS);
        let before = atomicAdd(&totals[s], unit + count);
        let running = (before & (unit - 1u)) + count;
        if before >> shift == last {
            // Every workgroup has added to this word: `running` is its total.
            histogram[s % NUM_BINS][channel] = running;
            atomicStore(&totals[s], 0u);
            if s == 0u {
                // Every workgroup has read the epoch (before adding to word 0).
                next_frame(slot);
            }
        }
        running_max[channel] = max(running_max[channel], running);
    }
    fold_maxima(running_max);
    // Every workgroup counted at least one pixel, so each channel's maximum is at least 1.
    for (var ch = local_index; ch < 4u; ch += WG_SIZE) {
        let m = atomicLoad(&maxima[ch]);
        atomicMax(&result[result_word(slot, 4u + ch)], m);
        atomicMin(&result[result_word(slot, ch)], channel_scale(m));
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn count_merge(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let chunk = chunk_index(workgroup_id, num_workgroups);
    if chunk >= params.num_chunks {
        return;
    }
    count_pixels(chunk, local_index);
    workgroupBarrier();

    // Channel-major like the workgroup bins: consecutive invocations add to consecutive words.
    // A bin no pixel of this chunk fell in costs no storage atomic.
    for (var s = local_index; s < TOTAL_WORDS; s += WG_SIZE) {
        let count = bin_count(s / NUM_BINS, s % NUM_BINS);
        if count != 0u {
            atomicAdd(&totals[s], count);
        }
    }

    // storageBarrier orders storage memory at device scope as naga lowers it (SPIR-V:
    // OpControlBarrier with Device memory scope and AcquireRelease semantics; GLSL:
    // memoryBarrierBuffer; HLSL: DeviceMemoryBarrierWithGroupSync), though WGSL promises only
    // workgroup scope: this workgroup's additions are visible before its ticket is, and the last
    // workgroup sees everyone's after reading its ticket.
    storageBarrier();
    if local_index == 0u {
        ticket = atomicAdd(&totals[FINISHED], 1u);
    }
    if workgroupUniformLoad(&ticket) != params.num_chunks - 1u {
        return;
    }
    storageBarrier();

    // The last workgroup: totals -> interleaved histogram, zero the totals, and the scale.
    // Only it reads the epoch: the others keep one register fewer while they count.
    let slot = atomicLoad(&result[0]) & 1u;
    var max_bin = vec4u(0u);
    for (var s = local_index; s < TOTAL_WORDS; s += WG_SIZE) {
        let count = atomicLoad(&totals[s]);
        atomicStore(&totals[s], 0u);
        let channel = s / NUM_BINS;
        histogram[s % NUM_BINS][channel] = count;
        max_bin[channel] = max(max_bin[channel], count);
    }
    fold_maxima(max_bin);
    for (var ch = local_index; ch < 4u; ch += WG_SIZE) {
        let m = atomicLoad(&maxima[ch]);
        atomicStore(&result[result_word(slot, 4u + ch)], m);
        atomicStore(&result[result_word(slot, ch)], channel_scale(m));
    }
    if local_index == 0u {
        atomicStore(&totals[FINISHED], 0u);
        next_frame(slot);
    }
}
