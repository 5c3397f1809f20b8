// Colour conversion: one invocation per pixel turns a decoded frame's planes into one packed
// word, RGBA8 for 8-bit sources and RGB10A2 for deeper ones, written both to the frame's pixel
// buffer (which the histogram counts) and to its texture (which the picture pass samples:
// rgba8unorm, or rgba16float for 10 bits, swapped in by src/gpu/shaders.rs, which puts
// shaders/colour/packed.wgsl before it). All per-pixel
// arithmetic is in i32, so the CPU twin (convert_cpu in src/video/convert/cpu.rs) reproduces it
// bit for bit; the functions that compute have twins of the same name there, and convert_pixel
// there mirrors the entry points.
//
// Fixed point: luma is multiplied by 8 and chroma comes out of the upsampling filter in eighths
// of a code (its weights total 8), so both are in eighths; a coefficient is the output change
// per eighth of a code, scaled by 2^frac_bits(). bias holds the offsets and half an output code.

// (FRAC_BITS, Row, GreyMap and ConvertParams: shaders/video/convert_params.wgsl, before this.)

@group(0) @binding(0) var<uniform> params: ConvertParams;
@group(0) @binding(1) var out_texture: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var<storage, read_write> out_pixels: array<u32>;
// Y (or the packed RGB plane), then U and V, or NV12's interleaved UV.
@group(0) @binding(3) var plane0: texture_2d<u32>;
@group(0) @binding(4) var plane1: texture_2d<u32>;
@group(0) @binding(5) var plane2: texture_2d<u32>;

// Which chroma samples a pixel blends, and how much of each.
struct Taps { // twin: Taps in src/video/convert/cpu.rs
    cols: vec2u, // left, right
    rows: vec2u, // near, far
    col_weights: vec2i, // total 2
    row_weights: vec2i, // total 4
}

// MPEG-2 / H.264 siting. Across, chroma column j sits on luma column 2j: even columns take it
// whole, odd ones the mean of j and j + 1. Down (4:2:0), chroma row k sits between luma rows
// 2k and 2k + 1, so each luma row is 1/4 from its own chroma row and 3/4 from the next one out.
// Edge samples repeat. Without subsampling the far tap weighs 0.
fn chroma_taps(pos: vec2u) -> Taps {
    let left = pos.x >> params.chroma_shift_x;
    let right = min(left + 1u, params.chroma_width - 1u);
    let right_weight = i32((pos.x & 1u) * params.chroma_shift_x);

    let near = pos.y >> params.chroma_shift_y;
    let far = select(max(near, 1u) - 1u, min(near + 1u, params.chroma_height - 1u), (pos.y & 1u) == 1u);
    let far_weight = i32(params.chroma_shift_y);

    return Taps(
        vec2u(left, right),
        vec2u(near, far),
        vec2i(2 - right_weight, right_weight),
        vec2i(4 - far_weight, far_weight),
    );
}

// Eighths of a code, exactly: no rounding until the matrix's final shift.
fn upsample(t: Taps, near_left: vec2i, near_right: vec2i, far_left: vec2i, far_right: vec2i) -> vec2i {
    let near = t.col_weights.x * near_left + t.col_weights.y * near_right;
    let far = t.col_weights.x * far_left + t.col_weights.y * far_right;
    return t.row_weights.x * near + t.row_weights.y * far;
}

// A texel's sample: the bits the mask picks (the unused bits of 2-byte samples are ignored),
// shifted down to the lowest.
fn masked(texel: u32) -> i32 {
    return i32((texel & params.sample_mask) >> countTrailingZeros(params.sample_mask));
}

fn sample(plane: texture_2d<u32>, at: vec2u) -> i32 {
    return masked(textureLoad(plane, at, 0).r);
}

fn planar_chroma(at: vec2u) -> vec2i {
    return vec2i(sample(plane1, at), sample(plane2, at));
}

// NV12's and P010's interleaved U, V.
fn nv12_chroma(at: vec2u) -> vec2i {
    let texel = textureLoad(plane1, at, 0);
    return vec2i(masked(texel.r), masked(texel.g));
}

fn frac_bits() -> u32 {
    return FRAC_BITS + 8u - params.out_bits;
}

// Rounded to nearest by the half code in bias; the shift floors, also below zero.
fn channel(row: Row, y8: i32, cb8: i32, cr8: i32) -> u32 {
    let sum = row.y * y8 + row.cb * cb8 + row.cr * cr8 + row.bias;
    let white = i32((1u << params.out_bits) - 1u);
    return u32(clamp(sum >> frac_bits(), 0, white));
}

fn pack_rgba(r: u32, g: u32, b: u32) -> u32 {
    return r | (g << 8u) | (b << 16u) | 0xff000000u;
}

fn pack_rgb10(r: u32, g: u32, b: u32) -> u32 {
    return r | (g << 10u) | (b << 20u) | 0xc0000000u;
}

fn pack(r: u32, g: u32, b: u32) -> u32 {
    if params.out_bits == 10u {
        return pack_rgb10(r, g, b);
    }
    return pack_rgba(r, g, b);
}

fn ycbcr_to_rgb(y8: i32, chroma8: vec2i) -> u32 {
    let r = channel(params.r, y8, chroma8.x, chroma8.y);
    let g = channel(params.g, y8, chroma8.x, chroma8.y);
    let b = channel(params.b, y8, chroma8.x, chroma8.y);
    return pack(r, g, b);
}

fn grey_code(v: i32) -> u32 {
    let map = params.grey;
    let half = i32((1u << map.shift) >> 1u);
    let sum = ((v >> map.pre_shift) - map.offset) * map.scale + half;
    let white = i32((1u << params.out_bits) - 1u);
    return u32(clamp(sum >> map.shift, 0, white));
}

// An R'G'B' sample at the output's depth: 12-bit samples rounded to 10 bits.
fn rgb_sample(plane: texture_2d<u32>, at: vec2u) -> u32 {
    let shift = countOneBits(params.sample_mask) - params.out_bits;
    let half = (1u << shift) >> 1u;
    return min((u32(sample(plane, at)) + half) >> shift, (1u << params.out_bits) - 1u);
}

fn in_frame(pos: vec2u) -> bool {
    return all(pos < vec2u(params.width, params.height));
}

// The converted pixel, as the signal: its packed word and its texel.
fn store_signal(pos: vec2u, word: u32) {
    out_pixels[pos.y * params.width + pos.x] = word;
    textureStore(out_texture, pos, pixel_texel(word, params.out_bits));
}

// Where the frame is shown through a look, src/gpu/shaders.rs swaps this for convert_look.wgsl's.
fn store(pos: vec2u, word: u32) {
    store_signal(pos, word);
}

@compute @workgroup_size(32, 4)
fn convert_yuv(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let t = chroma_taps(pos);
    let chroma8 = upsample(
        t,
        planar_chroma(vec2u(t.cols.x, t.rows.x)),
        planar_chroma(vec2u(t.cols.y, t.rows.x)),
        planar_chroma(vec2u(t.cols.x, t.rows.y)),
        planar_chroma(vec2u(t.cols.y, t.rows.y)),
    );
    store(pos, ycbcr_to_rgb(sample(plane0, pos) << 3u, chroma8));
}

@compute @workgroup_size(32, 4)
fn convert_nv12(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let t = chroma_taps(pos);
    let chroma8 = upsample(
        t,
        nv12_chroma(vec2u(t.cols.x, t.rows.x)),
        nv12_chroma(vec2u(t.cols.y, t.rows.x)),
        nv12_chroma(vec2u(t.cols.x, t.rows.y)),
        nv12_chroma(vec2u(t.cols.y, t.rows.y)),
    );
    store(pos, ycbcr_to_rgb(sample(plane0, pos) << 3u, chroma8));
}

@compute @workgroup_size(32, 4)
fn convert_gray(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let code = grey_code(sample(plane0, pos));
    store(pos, pack(code, code, code));
}

// Planar G, B, R, as FFmpeg's gbrp formats order them.
@compute @workgroup_size(32, 4)
fn convert_gbr(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    store(pos, pack(rgb_sample(plane2, pos), rgb_sample(plane0, pos), rgb_sample(plane1, pos)));
}

// plane0 holds the R, G, B bytes as three R8 texels per pixel.
@compute @workgroup_size(32, 4)
fn convert_rgb24(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let first = vec2u(3u * pos.x, pos.y);
    let r = textureLoad(plane0, first, 0).r;
    let g = textureLoad(plane0, first + vec2u(1u, 0u), 0).r;
    let b = textureLoad(plane0, first + vec2u(2u, 0u), 0).r;
    store(pos, pack_rgba(r, g, b));
}

@compute @workgroup_size(32, 4)
fn convert_rgba(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let texel = textureLoad(plane0, pos, 0);
    store(pos, pack_rgba(texel.r, texel.g, texel.b));
}

@compute @workgroup_size(32, 4)
fn convert_bgra(@builtin(global_invocation_id) id: vec3u) {
    let pos = id.xy;
    if !in_frame(pos) {
        return;
    }
    let texel = textureLoad(plane0, pos, 0);
    store(pos, pack_rgba(texel.b, texel.g, texel.r));
}
