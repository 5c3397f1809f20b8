// Reduce pass: each invocation adds FAN_IN chunks, `stride` chunks apart, into the first of
// them, for one bin. Repeated with stride = 1, F, F^2, ... until chunk 0 holds the total.
// FAN_IN = 2 is the articles' pairwise reduce; a larger fan-in makes the tree short.

struct ReduceStep { // twin: ReduceStep in src/passes/reduce.rs
    stride: u32,
    num_chunks: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(1) var<uniform> reduce_step: ReduceStep;

@compute @workgroup_size(REDUCE_WG, 1, 1)
fn reduce_chunks(
    @builtin(global_invocation_id) id: vec3u,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    // Groups past 65535 spill from y into z.
    let group = id.z * num_workgroups.y + id.y;
    let first = group * FAN_IN * reduce_step.stride;
    let bin = id.x;
    if bin >= NUM_BINS || first >= reduce_step.num_chunks {
        return;
    }
    var sum = chunks[first * NUM_BINS + bin];
    for (var i = 1u; i < FAN_IN; i++) {
        let chunk = first + i * reduce_step.stride;
        if chunk < reduce_step.num_chunks {
            sum += chunks[chunk * NUM_BINS + bin];
        }
    }
    chunks[first * NUM_BINS + bin] = sum;
}
