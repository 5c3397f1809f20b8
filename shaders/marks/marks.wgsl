// Marks on the picture: classifies every pixel of the converted frame into a word the picture
// pass draws from (its false-colour band, zebra levels, peaking edge, gamut and range warnings).
// The CPU twin, with the definitions, is src/marks/mod.rs; every threshold is an integer code
// worked out there.

struct MarkParams { // twin: MarkParams in src/marks/mod.rs
    width: u32,
    height: u32,
    compute: u32, // MARK_* bits
    ten_bit: u32, // packed pixels are RGB10A2 (else RGBA8)
    luma: vec4u, // R', G', B' weights in 16-bit fixed point
    zebra: vec4u, // the upper level's code, the lower's
    peaking: u32, // least |Gx| + |Gy| marked
    bands: u32,
    gamut: u32, // a BT.2020 source: the gamut test applies
    gamut_tolerance: f32,
    band_lo: array<vec4u, 4>, // band b holds codes band_lo[b] <= l < band_hi[b]
    band_hi: array<vec4u, 4>,
    range: vec4u, // Y' min, max, chroma min, max at the planes' depth
    planes: vec4u, // PLANES_*, chroma shift across, down, sample mask
    sample_shift: u32, // bits below the sample in its texel (P010: 6)
    range_applies: u32, // a limited-range Y'CbCr source
    keep_range: u32, // keep the words' range bits (the planes are gone)
    _pad: u32,
}

const MARK_FALSE_COLOUR: u32 = 1u;
const MARK_ZEBRA: u32 = 2u;
const MARK_PEAKING: u32 = 4u;
const MARK_GAMUT: u32 = 8u;
const MARK_RANGE: u32 = 16u;

// twin: WORD_* in src/marks/mod.rs
const WORD_ZEBRA: u32 = 16u;
const WORD_ZEBRA_LOW: u32 = 32u;
const WORD_PEAKING: u32 = 64u;
const WORD_GAMUT: u32 = 128u;
const WORD_RANGE: u32 = 256u;

const PLANES_YUV: u32 = 0u;
const PLANES_SEMI: u32 = 1u;
const PLANES_GREY: u32 = 2u;

const BT2020_LUMA: vec3f = vec3f(0.2627, 0.678, 0.0593);
const BT2020_TO_BT709_R: vec3f = vec3f(1.660491, -0.5876411, -0.0728499);
const BT2020_TO_BT709_G: vec3f = vec3f(-0.1245505, 1.1328999, -0.0083494);
const BT2020_TO_BT709_B: vec3f = vec3f(-0.0181508, -0.1005789, 1.1187297);

@group(0) @binding(0) var<uniform> params: MarkParams;
@group(0) @binding(1) var<storage, read> pixels: array<u32>;
@group(0) @binding(2) var<storage, read_write> words: array<u32>;
// Linear light of each code (the source's EOTF), for the gamut test.
@group(0) @binding(3) var<storage, read> linear: array<f32>;
@group(0) @binding(4) var plane0: texture_2d<u32>;
@group(0) @binding(5) var plane1: texture_2d<u32>;
@group(0) @binding(6) var plane2: texture_2d<u32>;

fn unpack(word: u32) -> vec3u {
    if params.ten_bit != 0u {
        return vec3u(word & 1023u, (word >> 10u) & 1023u, (word >> 20u) & 1023u);
    }
    return vec3u(word & 255u, (word >> 8u) & 255u, (word >> 16u) & 255u);
}

fn luma(rgb: vec3u) -> u32 {
    return (params.luma.x * rgb.x + params.luma.y * rgb.y + params.luma.z * rgb.z + 32768u) >> 16u;
}

fn luma_at(x: i32, y: i32) -> i32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return i32(luma(unpack(pixels[cy * params.width + cx])));
}

fn band_of(l: u32) -> u32 {
    for (var b = 0u; b < params.bands; b++) {
        if l >= params.band_lo[b / 4u][b % 4u] && l < params.band_hi[b / 4u][b % 4u] {
            return b + 1u;
        }
    }
    return 0u;
}

fn peaking_edge(x: i32, y: i32) -> bool {
    let nw = luma_at(x - 1, y - 1);
    let n = luma_at(x, y - 1);
    let ne = luma_at(x + 1, y - 1);
    let w = luma_at(x - 1, y);
    let e = luma_at(x + 1, y);
    let sw = luma_at(x - 1, y + 1);
    let s = luma_at(x, y + 1);
    let se = luma_at(x + 1, y + 1);
    let gx = ne + 2 * e + se - nw - 2 * w - sw;
    let gy = sw + 2 * s + se - nw - 2 * n - ne;
    return u32(abs(gx)) + u32(abs(gy)) >= params.peaking;
}

fn dot3(a: vec3f, b: vec3f) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn outside_bt709(rgb: vec3u) -> bool {
    let lin = vec3f(linear[rgb.x], linear[rgb.y], linear[rgb.z]);
    let y = dot3(BT2020_LUMA, lin);
    let c = vec3f(dot3(BT2020_TO_BT709_R, lin), dot3(BT2020_TO_BT709_G, lin), dot3(BT2020_TO_BT709_B, lin));
    return min(c.x, min(c.y, c.z)) + params.gamut_tolerance * y < 0.0;
}

fn sample(texel: vec4u, channel: u32) -> u32 {
    let raw = select(texel.r, texel.g, channel == 1u);
    return (raw >> params.sample_shift) & params.planes.w;
}

// FFmpeg signalstats' BRNG test of the pixel at `at`: its Y', and the Cb and Cr drawn with it.
fn out_of_range(at: vec2u) -> bool {
    let y = sample(textureLoad(plane0, at, 0), 0u);
    var out = y < params.range.x || y > params.range.y;
    if params.planes.x == PLANES_GREY {
        return out;
    }
    let c = vec2u(at.x >> params.planes.y, at.y >> params.planes.z);
    var cb: u32;
    var cr: u32;
    if params.planes.x == PLANES_SEMI {
        let texel = textureLoad(plane1, c, 0);
        cb = sample(texel, 0u);
        cr = sample(texel, 1u);
    } else {
        cb = sample(textureLoad(plane1, c, 0), 0u);
        cr = sample(textureLoad(plane2, c, 0), 0u);
    }
    out = out || cb < params.range.z || cb > params.range.w || cr < params.range.z || cr > params.range.w;
    return out;
}

@compute @workgroup_size(16, 16)
fn marks(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= params.width || id.y >= params.height {
        return;
    }
    let i = id.y * params.width + id.x;
    let rgb = unpack(pixels[i]);
    let l = luma(rgb);
    var word = 0u;
    if (params.compute & MARK_FALSE_COLOUR) != 0u {
        word |= band_of(l);
    }
    if (params.compute & MARK_ZEBRA) != 0u {
        word |= select(0u, WORD_ZEBRA, l >= params.zebra.x);
        word |= select(0u, WORD_ZEBRA_LOW, l >= params.zebra.y);
    }
    if (params.compute & MARK_PEAKING) != 0u && peaking_edge(i32(id.x), i32(id.y)) {
        word |= WORD_PEAKING;
    }
    if (params.compute & MARK_GAMUT) != 0u && params.gamut != 0u && outside_bt709(rgb) {
        word |= WORD_GAMUT;
    }
    if (params.compute & MARK_RANGE) != 0u && params.range_applies != 0u {
        if params.keep_range != 0u {
            word |= words[i] & WORD_RANGE;
        } else if out_of_range(id.xy) {
            word |= WORD_RANGE;
        }
    }
    words[i] = word;
}
