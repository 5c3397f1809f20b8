// A look-up table applied to the converted frame (`--lut`): a 1D table, or a 3D table read with
// tetrahedral interpolation after an optional 1D shaper. Where each input code falls in the
// table was worked out on the CPU (`codes`); everything here is integer arithmetic, so the CPU
// twin (LutTables::apply in src/colour/lut/mod.rs) gives the same codes bit for bit.
// Or a camera log encoding's display rendering (`log_view`, twin: display_f32 in
// src/colour/log.rs): each code's scene light from `codes`, then floating point, so the twin
// agrees to within a code where the GPU's pow and exp round otherwise.

struct LutParams { // twin: LutParams in src/render/lut.rs
    width: u32,
    height: u32,
    bits: u32,
    // The 3D table's size; 0: `codes` holds each channel's output code (a 1D table).
    size: u32,
    log_view: u32, // a log encoding's display rendering: `codes` hold scene light (f32 bits)
    pad0: u32,
    pad1: u32,
    pad2: u32,
    rows: array<vec4f, 3>, // the camera gamut's linear RGB to BT.709's
}

@group(0) @binding(0) var<uniform> params: LutParams;
@group(0) @binding(1) var<storage, read> source: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
@group(0) @binding(3) var output_texture: texture_storage_2d<rgba8unorm, write>;
// 2^bits entries for R, then G, then B: a 3D cell index << 13 | the position in it (1/4096ths).
@group(0) @binding(4) var<storage, read> codes: array<u32>;
// The 3D table's rows in 1/16384ths, red changing fastest.
@group(0) @binding(5) var<storage, read> cube: array<vec4i>;

const FRACTION_BITS: u32 = 12u;
const VALUE_BITS: u32 = 14u;

fn unpack(word: u32) -> vec3u {
    if params.bits == 10u {
        return vec3u(word & 0x3ffu, (word >> 10u) & 0x3ffu, (word >> 20u) & 0x3ffu);
    }
    return vec3u(word & 0xffu, (word >> 8u) & 0xffu, (word >> 16u) & 0xffu);
}

fn pack(c: vec3u) -> u32 {
    if params.bits == 10u {
        return c.x | (c.y << 10u) | (c.z << 20u) | 0xc0000000u;
    }
    return c.x | (c.y << 8u) | (c.z << 16u) | 0xff000000u;
}

fn corner(index: vec3u, offset: vec3u) -> vec3i {
    let at = index + offset;
    let n = params.size;
    return cube[(at.z * n + at.y) * n + at.x].xyz;
}

fn tetrahedral(place: vec3u) -> vec3u {
    let index = place >> vec3u(FRACTION_BITS + 1u);
    let d = vec3i(place & vec3u((1u << (FRACTION_BITS + 1u)) - 1u));
    let one = i32(1u << FRACTION_BITS);
    // The tetrahedron holding the point, without branches (the six cases' paths would split a
    // subgroup): its second corner steps along the axis of the largest fraction, its third
    // along the two largest (every axis but the smallest's); the weights are the steps between
    // the sorted fractions. Where fractions tie, the corner they would choose between has
    // weight 0, so the sum is the CPU twin's (which takes the six cases one by one).
    let rg = d.x > d.y;
    let gb = d.y > d.z;
    let rb = d.x > d.z;
    let r_top = rg && rb;
    let g_top = !rg && gb;
    let c1 = vec3u(u32(r_top), u32(g_top), u32(!r_top && !g_top));
    let r_low = !rg && !rb;
    let g_low = !r_low && !gb;
    let c2 = vec3u(u32(!r_low), u32(!g_low), u32(r_low || g_low));
    let hi = max(d.x, max(d.y, d.z));
    let lo = min(d.x, min(d.y, d.z));
    let mid = d.x + d.y + d.z - hi - lo;
    let w = vec4i(one - hi, hi - mid, mid - lo, lo);
    let sum = w.x * corner(index, vec3u(0u)) + w.y * corner(index, c1) + w.z * corner(index, c2)
        + w.w * corner(index, vec3u(1u));
    let rounded = (sum + vec3i(1 << (FRACTION_BITS - 1u))) >> vec3u(FRACTION_BITS);
    let v = vec3u(clamp(rounded, vec3i(0), vec3i(1 << VALUE_BITS)));
    let top = (1u << params.bits) - 1u;
    return (v * top + vec3u(1u << (VALUE_BITS - 1u))) >> vec3u(VALUE_BITS);
}

const BT709_LUMA: vec3f = vec3f(0.2126, 0.7152, 0.0722);
const SHOULDER: f32 = 0.36; // twin: SHOULDER in src/colour/log.rs

// The highlight roll-off on scene light (above SHOULDER, stops compressed toward a white
// card's light), then the BT.709 OETF.
fn view_channel(c: f32) -> f32 {
    var l = c;
    if c > SHOULDER {
        let room = log2(1.0 / SHOULDER);
        let u = log2(c / SHOULDER);
        l = SHOULDER * exp2(room * (1.0 - exp(-u / room)));
    }
    if l < 0.018 {
        return 4.5 * l;
    }
    return 1.099 * pow(l, 0.45) - 0.099;
}

// Scene light in the camera's gamut → BT.709, colours outside brought toward the grey of their
// luminance, each channel through view_channel; rounded to a code.
fn log_view(scene: vec3f) -> vec3u {
    let lin = vec3f(dot(params.rows[0].xyz, scene), dot(params.rows[1].xyz, scene), dot(params.rows[2].xyz, scene));
    let y = 0.2126 * lin.x + 0.7152 * lin.y + 0.0722 * lin.z;
    var inside = vec3f(0.0);
    if y > 0.0 {
        var t = 1.0;
        for (var i = 0; i < 3; i++) {
            if lin[i] < 0.0 {
                t = min(t, y / (y - lin[i]));
            }
        }
        inside = max(y + t * (lin - y), vec3f(0.0));
    }
    let shown = vec3f(view_channel(inside.x), view_channel(inside.y), view_channel(inside.z));
    let top = f32((1u << params.bits) - 1u);
    return vec3u(floor(clamp(shown, vec3f(0.0), vec3f(1.0)) * top + 0.5));
}

// One packed pixel through the LUT (or the log view).
fn look_up(word: u32) -> u32 {
    let size = 1u << params.bits;
    let c = unpack(word);
    let looked_up = vec3u(codes[c.x], codes[size + c.y], codes[2u * size + c.z]);
    var out = looked_up;
    if params.log_view != 0u {
        out = log_view(bitcast<vec3f>(looked_up));
    } else if params.size != 0u {
        out = tetrahedral(looked_up);
    }
    return pack(out);
}

fn store_texel(x: u32, y: u32, word: u32) {
    if params.bits == 10u {
        let c = unpack(word);
        textureStore(output_texture, vec2u(x, y), vec4f(vec3f(c) / 1023.0, 1.0));
    } else {
        textureStore(output_texture, vec2u(x, y), unpack4x8unorm(word));
    }
}

@compute @workgroup_size(16, 16, 1)
fn apply(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= params.width || id.y >= params.height {
        return;
    }
    let i = id.y * params.width + id.x;
    let word = look_up(source[i]);
    output[i] = word;
    store_texel(id.x, id.y, word);
}
