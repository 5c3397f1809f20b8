// The articles' chunk sum: one workgroup, one invocation per bin, loops over every chunk.
const SUM_WG: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> chunks: array<vec4u>;

@compute @workgroup_size(SUM_WG, 1, 1)
fn article_sum(@builtin(local_invocation_id) local_id: vec3u) {
    let num_chunks = arrayLength(&chunks) / NUM_BINS;
    for (var bin = local_id.x; bin < NUM_BINS; bin += SUM_WG) {
        var sum = vec4u(0u);
        for (var i = 0u; i < num_chunks; i++) {
            sum += chunks[i * NUM_BINS + bin];
        }
        chunks[bin] = sum;
    }
}
