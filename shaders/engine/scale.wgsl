// Scale pass of the three-pass engine: copies the reduced histogram (chunk 0) out and computes
// the articles' per-channel display scale, with the max found in parallel by one workgroup.

struct ScaleParams { // twin: ScaleParams in src/passes/scale.rs
    pixel_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const SCALE_WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> chunks: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> result: HistogramResult;
@group(0) @binding(2) var<uniform> params: ScaleParams;
@group(0) @binding(3) var<storage, read_write> histogram: array<vec4u>;

var<workgroup> partial: array<vec4u, SCALE_WG>;

@compute @workgroup_size(SCALE_WG, 1, 1)
fn compute_scale(@builtin(local_invocation_index) index: u32) {
    var m = vec4u(0u);
    for (var bin = index; bin < NUM_BINS; bin += SCALE_WG) {
        let counts = chunks[bin];
        histogram[bin] = counts;
        m = max(m, counts);
    }
    partial[index] = m;
    workgroupBarrier();
    for (var width = SCALE_WG / 2u; width > 0u; width /= 2u) {
        if index < width {
            partial[index] = max(partial[index], partial[index + width]);
        }
        workgroupBarrier();
    }
    if index == 0u {
        // One slot is enough for a pass of its own: slot 0, always.
        result.slots[0] = HistogramScale(display_scale(partial[0], params.pixel_count), partial[0]);
        result.epoch = 1u;
    }
}
