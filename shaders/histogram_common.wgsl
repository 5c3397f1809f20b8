// The one definition of a pixel's four bins, shared by every histogram shader.
// WGSL twin of src/histogram.rs; NUM_BINS comes from the generated header.

const LUMA_WEIGHTS = vec3u(2126u, 7152u, 722u);
const LUMA_DENOMINATOR: u32 = 2550000u; // 255 * 10000

// 8-bit channel values of an rgba8unorm texel. Exact: the texel holds c/255.
fn texel_bytes(texel: vec4f) -> vec3u {
    return vec3u(round(texel.rgb * 255.0));
}

// Bins [r, g, b, l] of one pixel: min(N-1, c*N/255) and min(N-1, Y*N/(255*10000)).
fn pixel_bins(rgb: vec3u) -> vec4u {
    let w = rgb * LUMA_WEIGHTS;
    let y = w.x + w.y + w.z;
    let last = NUM_BINS - 1u;
    return vec4u(min(vec3u(last), rgb * NUM_BINS / 255u), min(last, y * NUM_BINS / LUMA_DENOMINATOR));
}
