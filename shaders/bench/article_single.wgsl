// The articles' first GPU version: one invocation walks every pixel.
@group(0) @binding(0) var<storage, read_write> histogram: array<vec4u>;
@group(0) @binding(1) var source: texture_2d<f32>;

@compute @workgroup_size(1, 1, 1)
fn single_invocation() {
    let size = textureDimensions(source, 0);
    for (var y = 0u; y < size.y; y++) {
        for (var x = 0u; x < size.x; x++) {
            let b = pixel_bins(texel_bytes(textureLoad(source, vec2u(x, y), 0)));
            for (var ch = 0u; ch < 4u; ch++) {
                histogram[b[ch]][ch] += 1u;
            }
        }
    }
}
