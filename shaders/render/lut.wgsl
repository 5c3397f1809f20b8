// The LUT pass: a converted frame (the signal) through the look (look.wgsl, group 1) into the
// picture's packed pixels and texture, for a frame converted already: paused, when the look
// changes, or after the picture adjustments. Frames as they play go through the look in the
// conversion pass instead. Its second entry point writes the signal's own texture from its
// packed pixels, where frames converted through the look left it behind.

@group(0) @binding(0) var<storage, read> signal: array<u32>;
@group(0) @binding(1) var signal_texture: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(16, 16, 1)
fn apply(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= look.width || id.y >= look.height {
        return;
    }
    look_store(id.xy, look_up(signal[id.y * look.width + id.x]), true);
}

@compute @workgroup_size(16, 16, 1)
fn show_signal(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= look.width || id.y >= look.height {
        return;
    }
    textureStore(signal_texture, id.xy, pixel_texel(signal[id.y * look.width + id.x], look.bits));
}
