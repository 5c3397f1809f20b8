// The articles' scale pass: a single invocation finds each channel's max.
// (HistogramScale comes from histogram_common.wgsl.)
@group(0) @binding(0) var<storage, read> histogram: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> result: HistogramScale;
@group(0) @binding(2) var source: texture_2d<f32>;

@compute @workgroup_size(1, 1, 1)
fn article_scale() {
    let size = textureDimensions(source, 0);
    let num_entries = f32(size.x * size.y);
    var m = vec4u(0u);
    for (var i = 0u; i < NUM_BINS; i++) {
        m = max(m, histogram[i]);
    }
    result.max_bin = m;
    result.scale = max(1.0 / vec4f(m), vec4f(0.2 * f32(NUM_BINS) / num_entries));
}
