// Reduce pass: sums FAN_IN chunks, `stride` chunks apart, into the first of them. One workgroup
// per bin and group of chunks: each invocation adds every REDUCE_WG-th chunk of the group, then
// a pairwise tree in workgroup memory adds the invocations' sums. Repeated with stride = 1, F,
// F^2, ... until chunk 0 holds the total; a wide fan-in makes that one or two steps.
// REDUCE_WG is a power of two, as the tree needs.

struct ReduceStep { // twin: ReduceStep in src/passes/reduce.rs
    stride: u32,
    num_chunks: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(1) var<uniform> reduce_step: ReduceStep;

var<workgroup> partial: array<vec4u, REDUCE_WG>;

@compute @workgroup_size(REDUCE_WG, 1, 1)
fn reduce_chunks(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    // Groups past 65535 spill from y into z.
    let group = workgroup_id.z * num_workgroups.y + workgroup_id.y;
    let bin = workgroup_id.x;
    let first = group * FAN_IN * reduce_step.stride;
    var sum = vec4u(0u);
    for (var i = index; i < FAN_IN; i += REDUCE_WG) {
        let chunk = first + i * reduce_step.stride;
        if chunk < reduce_step.num_chunks {
            sum += chunks[chunk * NUM_BINS + bin];
        }
    }
    partial[index] = sum;
    workgroupBarrier();
    for (var width = REDUCE_WG / 2u; width > 0u; width /= 2u) {
        if index < width {
            partial[index] += partial[index + width];
        }
        workgroupBarrier();
    }
    if index == 0u && first < reduce_step.num_chunks {
        chunks[first * NUM_BINS + bin] = partial[0];
    }
}
