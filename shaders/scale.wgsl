// Scale pass: the articles' per-channel display scale max(1/max_bin, 0.2*N/pixels), with the
// max found in parallel by one workgroup. Reads the reduced histogram (chunk 0).

struct ScaleParams { // twin: ScaleParams in src/passes/scale.rs
    pixel_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct HistogramScale { // twin: HistogramScale in src/passes/scale.rs
    scale: vec4f,
    max_bin: vec4u,
}

const SCALE_WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> histogram: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> result: HistogramScale;
@group(0) @binding(2) var<uniform> params: ScaleParams;

var<workgroup> partial: array<vec4u, SCALE_WG>;

@compute @workgroup_size(SCALE_WG, 1, 1)
fn compute_scale(@builtin(local_invocation_index) index: u32) {
    var m = vec4u(0u);
    for (var bin = index; bin < NUM_BINS; bin += SCALE_WG) {
        m = max(m, histogram[bin]);
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
        let max_bin = partial[0];
        let floor_scale = 0.2 * f32(NUM_BINS) / f32(params.pixel_count);
        result.max_bin = max_bin;
        result.scale = max(1.0 / vec4f(max_bin), vec4f(floor_scale));
    }
}
