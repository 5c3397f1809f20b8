// The articles' second GPU version: one invocation per pixel, atomics on the storage buffer.
@group(0) @binding(0) var<storage, read_write> histogram: array<array<atomic<u32>, 4>>;
@group(0) @binding(1) var source: texture_2d<f32>;

@compute @workgroup_size(1, 1, 1)
fn per_pixel(@builtin(global_invocation_id) id: vec3u) {
    let b = pixel_bins(texel_bytes(textureLoad(source, id.xy, 0)));
    for (var ch = 0u; ch < 4u; ch++) {
        atomicAdd(&histogram[b[ch]][ch], 1u);
    }
}
