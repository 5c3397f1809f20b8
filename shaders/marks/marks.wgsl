// Marks on the picture: classifies every pixel of the converted frame into a byte the picture
// pass draws from: what its luma says (its false-colour band and zebra levels) as one of 32
// classes, then its peaking edge, gamut and range warnings; four pixels to a u32, rows of
// `row_words` u32s. The CPU twin, with the definitions, is src/marks/mod.rs (`classify`, and
// `pack_words` for this form); every threshold is an integer code worked out there, and each
// luma code's class comes from a table made there.
//
// A workgroup takes a tile of 64x16 pixels, each invocation four neighbours in a row (one
// 16-byte load where rows are whole multiples of four pixels); for peaking, the tile's luma and
// a one-pixel border are loaded into workgroup memory first.
//
// Built without bounds checks (MarksStage), so every index is in bounds by construction: pixels
// are read at y·width + x with x < width, y < height (luma_at clamps); words at y·row_words +
// x/4; the tile below 66·18; a luma is at most white (its weights sum to 65536), and R', G', B'
// codes are at most white, the tables' last index; planes are read inside their sizes (chroma
// at x >> shift of a plane ⌈width / 2^shift⌉ wide), and only for Y'CbCr and grey sources. The
// stage asserts what this rests on: 8 or 10 bits, planes of the frame's format, and a pixel
// buffer of the frame's size.

struct MarkParams { // twin: MarkParams in src/marks/mod.rs
    width: u32,
    height: u32,
    compute: u32, // MARK_* bits
    ten_bit: u32, // packed pixels are RGB10A2 (else RGBA8)
    luma: vec4u, // R', G', B' weights in 16-bit fixed point
    zebra: vec4u, // the upper level's code, the lower's
    peaking: u32, // least |Gx| + |Gy| marked
    bands: u32,
    gamut: u32, // a source of wider primaries than BT.709: the gamut test applies
    gamut_tolerance: f32,
    band_lo: array<vec4u, 4>, // (bands, zebra, band_lo, band_hi: the CPU's, which the luma
                              // class table is made from)
    band_hi: array<vec4u, 4>,
    range: vec4u, // Y' min, max, chroma min, max at the planes' depth
    planes: vec4u, // PLANES_*, chroma shift across, down, (sample mask: the CPU's)
    sample_shift: u32, // bits below the sample in its texel (P010: 6)
    range_applies: u32, // a limited-range Y'CbCr source
    keep_range: u32, // keep the words' range bits (the planes are gone)
    row_words: u32, // u32s per row of words
    gamut_rows: array<vec4f, 4>, // the source's RGB to BT.709's R, G, B; its luminance
}

const MARK_FALSE_COLOUR: u32 = 1u;
const MARK_ZEBRA: u32 = 2u;
const MARK_PEAKING: u32 = 4u;
const MARK_GAMUT: u32 = 8u;
const MARK_RANGE: u32 = 16u;

// twin: PASS_* in src/marks/mod.rs (the luma's class in the low 5 bits)
const PASS_PEAKING: u32 = 32u;
const PASS_GAMUT: u32 = 64u;
const PASS_RANGE: u32 = 128u;

const PLANES_YUV: u32 = 0u;
const PLANES_SEMI: u32 = 1u;
const PLANES_GREY: u32 = 2u;


@group(0) @binding(0) var<uniform> params: MarkParams;
// The converted frame's packed pixels, four to a vec4u (the buffer is whole vec4us).
@group(0) @binding(1) var<storage, read> pixels: array<vec4u>;
@group(0) @binding(2) var<storage, read_write> words: array<u32>;
// Linear light of each code (the source's EOTF), for the gamut test.
@group(0) @binding(3) var<storage, read> linear: array<f32>;
@group(0) @binding(4) var plane0: texture_2d<u32>;
@group(0) @binding(5) var plane1: texture_2d<u32>;
@group(0) @binding(6) var plane2: texture_2d<u32>;
// Each luma code's class: its band and zebra bits, for the marks computed.
@group(0) @binding(7) var<storage, read> luma_classes: array<u32>;

const TILE_W: u32 = 64u;
const TILE_H: u32 = 16u;
const BORDERED_W: u32 = 66u;
const BORDERED_H: u32 = 18u;

// The tile's luma with a one-pixel border (clamped at the frame's edges), for peaking: written
// whole before it is read, so it is not zeroed first (MarksStage).
var<workgroup> tile: array<u32, 1188>;

fn pixel(i: u32) -> u32 {
    return pixels[i >> 2u][i & 3u];
}

fn unpack(word: u32) -> vec3u {
    if params.ten_bit != 0u {
        return vec3u(word & 1023u, (word >> 10u) & 1023u, (word >> 20u) & 1023u);
    }
    return vec3u(word & 255u, (word >> 8u) & 255u, (word >> 16u) & 255u);
}

fn luma(rgb: vec3u) -> u32 {
    return (params.luma.x * rgb.x + params.luma.y * rgb.y + params.luma.z * rgb.z + 32768u) >> 16u;
}

fn luma_at(x: i32, y: i32) -> u32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return luma(unpack(pixel(cy * params.width + cx)));
}

// The peaking bits (PASS_PEAKING in each byte) of the four pixels from (tx, ty) of the tile:
// Sobel over the 3x6 luma around them, read from the tile once.
fn peaking_edges(tx: u32, ty: u32) -> u32 {
    var above: array<i32, 6>;
    var row: array<i32, 6>;
    var below: array<i32, 6>;
    let at = ty * BORDERED_W + tx;
    for (var i = 0u; i < 6u; i++) {
        above[i] = i32(tile[at + i]);
        row[i] = i32(tile[at + BORDERED_W + i]);
        below[i] = i32(tile[at + 2u * BORDERED_W + i]);
    }
    var bits = 0u;
    for (var h = 0u; h < 4u; h++) {
        let gx = above[h + 2u] + 2 * row[h + 2u] + below[h + 2u] - above[h] - 2 * row[h] - below[h];
        let gy = below[h] + 2 * below[h + 1u] + below[h + 2u] - above[h] - 2 * above[h + 1u] - above[h + 2u];
        if u32(abs(gx)) + u32(abs(gy)) >= params.peaking {
            bits |= PASS_PEAKING << (8u * h);
        }
    }
    return bits;
}

fn dot3(a: vec3f, b: vec3f) -> f32 {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

fn outside_bt709(rgb: vec3u) -> bool {
    let lin = vec3f(linear[rgb.x], linear[rgb.y], linear[rgb.z]);
    let y = dot3(params.gamut_rows[3].xyz, lin);
    let c = vec3f(
        dot3(params.gamut_rows[0].xyz, lin),
        dot3(params.gamut_rows[1].xyz, lin),
        dot3(params.gamut_rows[2].xyz, lin),
    );
    return min(c.x, min(c.y, c.z)) + params.gamut_tolerance * y < 0.0;
}

// A sample as the decoder gave it (not masked: signalstats and the CPU twin take stray high
// bits as they are).
fn sample(texel: vec4u, channel: u32) -> u32 {
    let raw = select(texel.r, texel.g, channel == 1u);
    return raw >> params.sample_shift;
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
    return out || cb < params.range.z || cb > params.range.w || cr < params.range.z || cr > params.range.w;
}

// Fills the tile (from `origin` in the frame, one pixel out all round) with luma: its 64-pixel
// rows four pixels to a load where rows are whole vec4us, its border columns one at a time.
fn fill_tile(origin: vec2i, index: u32) {
    if (params.width & 3u) != 0u {
        for (var k = index; k < BORDERED_W * BORDERED_H; k += 256u) {
            tile[k] = luma_at(origin.x + i32(k % BORDERED_W) - 1, origin.y + i32(k / BORDERED_W) - 1);
        }
        return;
    }
    for (var k = index; k < BORDERED_H * 16u; k += 256u) {
        let row = k / 16u;
        let x = origin.x + 4 * i32(k % 16u);
        let y = origin.y + i32(row) - 1;
        let at = row * BORDERED_W + 1u + 4u * (k % 16u);
        if x + 3 < i32(params.width) {
            let cy = u32(clamp(y, 0, i32(params.height) - 1));
            let quad = pixels[(cy * params.width + u32(x)) >> 2u];
            tile[at] = luma(unpack(quad.x));
            tile[at + 1u] = luma(unpack(quad.y));
            tile[at + 2u] = luma(unpack(quad.z));
            tile[at + 3u] = luma(unpack(quad.w));
        } else {
            for (var h = 0; h < 4; h++) {
                tile[at + u32(h)] = luma_at(x + h, y);
            }
        }
    }
    for (var k = index; k < BORDERED_H * 2u; k += 256u) {
        let row = k / 2u;
        let side = k % 2u;
        let at = row * BORDERED_W + side * (BORDERED_W - 1u);
        tile[at] = luma_at(origin.x - 1 + i32(side * (BORDERED_W - 1u)), origin.y + i32(row) - 1);
    }
}

fn peaking() -> bool {
    return (params.compute & MARK_PEAKING) != 0u;
}

fn gamut() -> bool {
    return (params.compute & MARK_GAMUT) != 0u && params.gamut != 0u;
}

// Whether the pixels' colours are read here: for the gamut, and for the luma where peaking has
// not put it in the tile.
fn reads_pixels() -> bool {
    return gamut() || (!peaking() && (params.compute & (MARK_FALSE_COLOUR | MARK_ZEBRA)) != 0u);
}

// The byte of a pixel of packed colour `packed` and luma `l` (from the tile, with peaking)
// without its peaking and range bits.
fn mark(packed: u32, l: u32) -> u32 {
    var byte = 0u;
    if peaking() {
        byte = luma_classes[l];
    } else if (params.compute & (MARK_FALSE_COLOUR | MARK_ZEBRA)) != 0u {
        byte = luma_classes[luma(unpack(packed))];
    }
    if gamut() && outside_bt709(unpack(packed)) {
        byte |= PASS_GAMUT;
    }
    return byte;
}

@compute @workgroup_size(16, 16)
fn marks(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) index: u32,
) {
    let origin = vec2i(i32(wg.x * TILE_W), i32(wg.y * TILE_H));
    if peaking() {
        fill_tile(origin, index);
        workgroupBarrier();
    }
    let y = wg.y * TILE_H + local.y;
    let x = wg.x * TILE_W + 4u * local.x;
    if y >= params.height || x >= params.width {
        return;
    }
    // The four pixels' colours: one load where rows are whole vec4us.
    let first = y * params.width + x;
    var quad = vec4u(0u);
    if reads_pixels() {
        if (params.width & 3u) == 0u {
            quad = pixels[first >> 2u];
        } else {
            for (var h = 0u; h < 4u && x + h < params.width; h++) {
                quad[h] = pixel(first + h);
            }
        }
    }
    let at = y * params.row_words + x / 4u;
    let count = min(4u, params.width - x);
    let tx = 4u * local.x;
    var packed = 0u;
    for (var h = 0u; h < count; h++) {
        var l = 0u;
        if peaking() {
            l = tile[(local.y + 1u) * BORDERED_W + tx + h + 1u];
        }
        packed |= mark(quad[h], l) << (8u * h);
    }
    if peaking() {
        // (Past the frame's right edge the bytes are cut off below.)
        packed |= peaking_edges(tx, local.y);
    }
    if (params.compute & MARK_RANGE) != 0u && params.range_applies != 0u {
        if params.keep_range != 0u {
            packed |= words[at] & (PASS_RANGE * 0x01010101u);
        } else {
            for (var h = 0u; h < count; h++) {
                if out_of_range(vec2u(x + h, y)) {
                    packed |= PASS_RANGE << (8u * h);
                }
            }
        }
    }
    if count < 4u {
        packed &= (1u << (8u * count)) - 1u;
    }
    words[at] = packed;
}
