// A look: a LUT (`--lut`: a 1D table, or a 3D table read with tetrahedral interpolation after
// an optional 1D shaper) or a camera log encoding's display rendering, applied to one packed
// pixel. Shared by the LUT pass (lut.wgsl), which applies it to a converted frame, and by the
// conversion pass (convert.wgsl), which applies it to each pixel as it converts it, so that
// playing through a LUT costs no pass of its own. Its bindings are group 1 in both; the
// packed-pixel functions (shaders/colour/packed.wgsl) come before it.
//
// Where each input code falls in the table was worked out on the CPU (`look_codes`);
// everything here is integer arithmetic, so the CPU twin (LutTables::apply in
// src/colour/lut/mod.rs) gives the same codes bit for bit. The log view (twin: display_f32 in
// src/colour/log.rs) takes each code's scene light from `look_codes`, then floating point, so
// the twin agrees to within a code where the GPU's pow and exp round otherwise.

struct LookParams { // twin: LookParams in src/render/lut.rs
    width: u32,
    height: u32,
    bits: u32,
    // The 3D table's size; 0: `look_codes` holds each channel's output code (a 1D table).
    size: u32,
    log_view: u32, // a log encoding's display rendering: `look_codes` hold scene light (f32 bits)
    // The conversion writes the picture's packed pixels too (the scopes count the picture);
    // otherwise only its texture, which is drawn.
    write_pixels: u32,
    pad0: u32,
    pad1: u32,
    rows: array<vec4f, 3>, // the camera gamut's linear RGB to BT.709's
}

@group(1) @binding(0) var<uniform> look: LookParams;
// 2^bits entries for R, then G, then B. With a 3D table: the cell's index along that
// channel's axis << 13 | the position in the cell (1/4096ths).
@group(1) @binding(1) var<storage, read> look_codes: array<u32>;
// The 3D table's rows in 1/16384ths, red changing fastest: R and G as the low and high
// halves of x, B as y's low half (i16 each).
@group(1) @binding(2) var<storage, read> look_cube: array<vec2u>;
@group(1) @binding(3) var look_texture: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(4) var<storage, read_write> look_pixels: array<u32>;

const FRACTION_BITS: u32 = 12u;
const PLACE_BITS: u32 = 13u; // FRACTION_BITS + 1: a position may be a whole cell (4096)
const VALUE_BITS: u32 = 14u;

fn corner(at: u32) -> vec3i {
    let v = look_cube[at];
    return vec3i((i32(v.x) << 16u) >> 16u, i32(v.x) >> 16u, (i32(v.y) << 16u) >> 16u);
}

fn tetrahedral(place: vec3u) -> vec3u {
    let index = place >> vec3u(PLACE_BITS);
    let d = vec3i(place & vec3u((1u << PLACE_BITS) - 1u));
    let one = i32(1u << FRACTION_BITS);
    let n = look.size;
    let n2 = n * n;
    let base = (index.z * n + index.y) * n + index.x;
    // The tetrahedron holding the point, without branches (the six cases' paths would split a
    // subgroup): its second corner steps along the axis of the largest fraction, its third
    // along every axis but the smallest's; the weights are the steps between the sorted
    // fractions. Where fractions tie, the corner they would choose between has weight 0, so
    // the sum is the CPU twin's (which takes the six cases one by one).
    let rg = d.x > d.y;
    let gb = d.y > d.z;
    let rb = d.x > d.z;
    let r_top = rg && rb;
    let g_top = !rg && gb;
    let r_low = !rg && !rb;
    let g_low = !r_low && !gb;
    let far = base + 1u + n + n2;
    let second = base + select(select(n2, n, g_top), 1u, r_top);
    let third = far - select(select(n2, n, g_low), 1u, r_low);
    let hi = max(d.x, max(d.y, d.z));
    let lo = min(d.x, min(d.y, d.z));
    let mid = d.x + d.y + d.z - hi - lo;
    let sum = (one - hi) * corner(base) + (hi - mid) * corner(second) + (mid - lo) * corner(third)
        + lo * corner(far);
    let rounded = (sum + vec3i(1 << (FRACTION_BITS - 1u))) >> vec3u(FRACTION_BITS);
    let v = vec3u(clamp(rounded, vec3i(0), vec3i(1 << VALUE_BITS)));
    let top = (1u << look.bits) - 1u;
    return (v * top + vec3u(1u << (VALUE_BITS - 1u))) >> vec3u(VALUE_BITS);
}

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
    let rows = look.rows;
    let lin = vec3f(dot(rows[0].xyz, scene), dot(rows[1].xyz, scene), dot(rows[2].xyz, scene));
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
    let top = f32((1u << look.bits) - 1u);
    return vec3u(floor(clamp(shown, vec3f(0.0), vec3f(1.0)) * top + 0.5));
}

// One packed pixel through the LUT (or the log view).
fn look_up(word: u32) -> u32 {
    let size = 1u << look.bits;
    let c = unpack_pixel(word, look.bits);
    let looked_up = vec3u(look_codes[c.x], look_codes[size + c.y], look_codes[2u * size + c.z]);
    var out = looked_up;
    if look.log_view != 0u {
        out = log_view(bitcast<vec3f>(looked_up));
    } else if look.size != 0u {
        out = tetrahedral(looked_up);
    }
    return pack_pixel(out, look.bits);
}

// The picture's pixel at `pos`: its texture's texel, and its packed word where `pixels`.
fn look_store(pos: vec2u, word: u32, pixels: bool) {
    if pixels {
        look_pixels[pos.y * look.width + pos.x] = word;
    }
    textureStore(look_texture, pos, pixel_texel(word, look.bits));
}
