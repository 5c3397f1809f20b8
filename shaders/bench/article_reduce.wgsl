// The articles' pairwise reduce: one invocation per bin adds chunk `stride` away into the
// first of a pair. Run with stride = 1, 2, 4, ... until chunk 0 holds the total.

struct ReduceStep { // twin: ReduceStep in src/passes/reduce.rs
    stride: u32,
    num_chunks: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(1) var<uniform> reduce_step: ReduceStep;

@compute @workgroup_size(256, 1, 1)
fn article_reduce(
    @builtin(global_invocation_id) id: vec3u,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let bin = id.x;
    let pair = id.z * num_workgroups.y + id.y;
    let chunk0 = pair * reduce_step.stride * 2u;
    let chunk1 = chunk0 + reduce_step.stride;
    if bin >= NUM_BINS || chunk1 >= reduce_step.num_chunks {
        return;
    }
    chunks[chunk0 * NUM_BINS + bin] = chunks[chunk0 * NUM_BINS + bin] + chunks[chunk1 * NUM_BINS + bin];
}
