// Production chunk pass: each workgroup counts one CHUNK_W x CHUNK_H tile into REPLICAS
// workgroup-private copies of the four histograms, then writes their sum as one chunk.
// Each invocation walks PIXELS_Y rows down one column (reads stay coalesced across the
// workgroup) and merges runs of equal bins, so a flat picture costs few atomics.

const WG_SIZE: u32 = WG_X * WG_Y;
const CHUNK_W: u32 = WG_X * PIXELS_X;
const CHUNK_H: u32 = WG_Y * PIXELS_Y;
const SLOTS: u32 = NUM_BINS * 4u * REPLICAS;

var<workgroup> bins: array<atomic<u32>, SLOTS>;

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> chunks: array<vec4u>;

// Interleaving replicas word by word puts the copies of one bin in different banks.
fn add(bin: u32, channel: u32, replica: u32, n: u32) {
    atomicAdd(&bins[(bin * 4u + channel) * REPLICAS + replica], n);
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn count_chunk(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_id) local_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    for (var s = local_index; s < SLOTS; s += WG_SIZE) {
        atomicStore(&bins[s], 0u);
    }
    workgroupBarrier();

    let size = textureDimensions(source, 0);
    let origin = workgroup_id.xy * vec2u(CHUNK_W, CHUNK_H) + local_id.xy;
    let replica = local_index % REPLICAS;
    for (var i = 0u; i < PIXELS_X; i++) {
        let x = origin.x + i * WG_X;
        var prev = vec4u(0u);
        var run = vec4u(0u);
        for (var j = 0u; j < PIXELS_Y; j++) {
            let position = vec2u(x, origin.y + j * WG_Y);
            if any(position >= size) {
                break;
            }
            let b = pixel_bins(texel_bytes(textureLoad(source, position, 0)));
            for (var ch = 0u; ch < 4u; ch++) {
                if b[ch] == prev[ch] {
                    run[ch] += 1u;
                } else {
                    if run[ch] != 0u {
                        add(prev[ch], ch, replica, run[ch]);
                    }
                    prev[ch] = b[ch];
                    run[ch] = 1u;
                }
            }
        }
        for (var ch = 0u; ch < 4u; ch++) {
            if run[ch] != 0u {
                add(prev[ch], ch, replica, run[ch]);
            }
        }
    }
    workgroupBarrier();

    let chunk = workgroup_id.y * num_workgroups.x + workgroup_id.x;
    for (var bin = local_index; bin < NUM_BINS; bin += WG_SIZE) {
        var sum = vec4u(0u);
        for (var r = 0u; r < REPLICAS; r++) {
            for (var ch = 0u; ch < 4u; ch++) {
                sum[ch] += atomicLoad(&bins[(bin * 4u + ch) * REPLICAS + r]);
            }
        }
        chunks[chunk * NUM_BINS + bin] = sum;
    }
}
