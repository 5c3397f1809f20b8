// The one definition of a pixel's four bins, shared by every histogram shader.
// WGSL twin of src/engine/histogram.rs; NUM_BINS and DEPTH come from the generated header.

const LUMA_WEIGHTS = vec3u(2126u, 7152u, 722u);
const LUMA_DENOMINATOR: u32 = 2550000u; // 255 * 10000

// 8-bit channel values of an rgba8unorm texel. Exact: the texel holds c/255.
fn texel_bytes(texel: vec4f) -> vec3u {
    return vec3u(round(texel.rgb * 255.0));
}

// min(N-1, c*N/255) for bytes c, without a division: with t = c*N, (t + t/256) / 256, which is
// just t / 256 for N <= 256. Twin of channel_bin_by_shifts in src/histogram.rs, which checks
// that it equals the definition for every byte and bin count.
fn channel_bins(rgb: vec3u) -> vec3u {
    if NUM_BINS == 256u {
        return rgb; // t / 256 = c
    }
    let t = rgb * NUM_BINS;
    if NUM_BINS <= 256u {
        return t >> vec3u(8u);
    }
    return (t + (t >> vec3u(8u))) >> vec3u(8u);
}

// Bins [r, g, b, l] of one pixel: min(N-1, c*N/255) and min(N-1, Y*N/(255*10000)).
fn pixel_bins(rgb: vec3u) -> vec4u {
    let w = rgb * LUMA_WEIGHTS;
    let y = w.x + w.y + w.z;
    return vec4u(channel_bins(rgb), min(NUM_BINS - 1u, y * NUM_BINS / LUMA_DENOMINATOR));
}

// 10-bit channels: min(N-1, c*N/1023) as (t + t/1024) / 1024 with t = c*N. Twin of
// channel_bin10_by_shifts, checked against the definition for every code and bin count.
fn channel_bins10(rgb: vec3u) -> vec3u {
    let t = rgb * NUM_BINS;
    return min((t + (t >> vec3u(10u))) >> vec3u(10u), vec3u(NUM_BINS - 1u));
}

// 10-bit luminance: min(N-1, Y*N/(1023*10000)), where Y*N would overflow u32: with
// Y = 10000*q + r, (q*N + r*N/10000) / 1023. Twin of luma_bin10_split.
fn luma_bin10(y: u32) -> u32 {
    let q = y / 10000u;
    let r = y - q * 10000u;
    return min(NUM_BINS - 1u, (q * NUM_BINS + r * NUM_BINS / 10000u) / 1023u);
}

// Bins [r, g, b, l] of a pixel's R', G', B' codes: 8-bit when DEPTH is 8, 10-bit when it is 10.
fn rgb_bins(rgb: vec3u) -> vec4u {
    if DEPTH == 10u {
        let w = rgb * LUMA_WEIGHTS;
        return vec4u(channel_bins10(rgb), luma_bin10(w.x + w.y + w.z));
    }
    return pixel_bins(rgb);
}

// Bins [r, g, b, l] of a pixel's packed word: RGBA8 when DEPTH is 8, RGB10A2 when it is 10.
fn packed_bins(word: u32) -> vec4u {
    if DEPTH == 10u {
        return rgb_bins(vec3u(word & 0x3ffu, (word >> 10u) & 0x3ffu, (word >> 20u) & 0x3ffu));
    }
    return rgb_bins(vec3u(word & 0xffu, (word >> 8u) & 0xffu, (word >> 16u) & 0xffu));
}

struct HistogramScale { // twin: HistogramScale in src/engine/scale.rs
    scale: vec4f,
    max_bin: vec4u,
}

// What the engine gives with the histogram: the display scale of the frame counted last, in
// slot (epoch + 1) % 2. The one-dispatch engine accumulates a frame's scale in place, in one
// slot while the other holds the frame before's, and moves the epoch on once per frame.
struct HistogramResult { // twin: HistogramResult in src/engine/scale.rs
    epoch: u32,
    slots: array<HistogramScale, 2>,
}

// The articles' per-channel display scale: max(1/max_bin, 0.2*N/pixels).
fn display_scale(max_bin: vec4u, pixel_count: u32) -> vec4f {
    let floor_scale = 0.2 * f32(NUM_BINS) / f32(pixel_count);
    return max(1.0 / vec4f(max_bin), vec4f(floor_scale));
}
