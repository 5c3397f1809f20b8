// Marks on the picture: classifies every pixel of the converted frame into a byte the picture
// pass draws from: what its luma says (its false-colour band and zebra levels) as one of 32
// classes, then its peaking edge, gamut and range warnings; four pixels to a u32, rows of
// `row_words` u32s. The CPU twin, with the definitions, is src/marks/mod.rs (`classify`, and
// `pack_words` for this form); every threshold is an integer code worked out there, and each
// luma code's class comes from a table made there.
//
// Each invocation marks four neighbours in a row (one 16-byte load where rows are whole
// multiples of four pixels). Two entry points:
// - `marks`, without peaking: a workgroup takes 256x4 pixels, so that a subgroup's loads and
//   stores are whole lines;
// - `marks_peaking`: a workgroup takes a tile of 64x16 pixels, whose luma and a one-pixel
//   border are first loaded into workgroup memory (every load of an invocation out before the
//   first is used), as floats, for the Sobel operator's sums (whole numbers, exact in floats;
//   the GPU's float units outpace its integer ones).
// The range test reads each chroma sample once for the pixels it is drawn with.
//
// Two constants are set before this text (MarksStage): PEAKING_ALONE, for the pipeline that
// marks peaking with nothing but the range beside it (the other marks' tests out of its path:
// testing false, they still cost it a tenth of its time), and PACKED_LUMA, for 8-bit frames,
// whose luma is two 4x8-bit dot products (with the weights' high and low bytes) where
// unpacking the channels and three products took twice the instructions.
//
// Built without bounds checks (MarksStage), so every index is in bounds by construction: pixels
// are read at y·width + x with x < width, y < height (luma_at, tile_quad and side_at clamp);
// words at y·row_words + x/4; the tile below 18·18 (quads of rows of the bordered tile); a luma
// is at most white (its weights sum to 65536), and R', G', B' codes are at most white, the
// tables' last index; planes are read inside their sizes (chroma at x >> shift of a plane
// ⌈width / 2^shift⌉ wide), and only for Y'CbCr and grey sources. The stage asserts what this
// rests on: 8 or 10 bits, planes of the frame's format, and a pixel buffer of the frame's size.

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
const BORDERED_H: u32 = 18u;
// Quads a tile row holds: its 16, and one either side for the border pixels.
const ROW_QUADS: u32 = 18u;

// The tile's luma with a one-pixel border (clamped at the frame's edges), for peaking, four
// pixels to a vec4f: 18 rows of 18, the tile's 16 quads with one either side, of which only
// the pixel next to the tile is read. Written whole before it is read, so it is not zeroed
// first (MarksStage).
var<workgroup> tile: array<vec4f, 324>;

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

// The luma of a packed pixel. The same sum at 8 bits: each weight is 256·high + low, so it is
// 256 times the pixel's dot product with the high bytes plus its dot product with the low ones
// (alpha times a weight of 0).
fn luma_of(word: u32) -> u32 {
    if PACKED_LUMA {
        let w = params.luma;
        let low = (w.x & 255u) | ((w.y & 255u) << 8u) | ((w.z & 255u) << 16u);
        let high = (w.x >> 8u) | ((w.y >> 8u) << 8u) | ((w.z >> 8u) << 16u);
        return ((dot4U8Packed(word, high) << 8u) + dot4U8Packed(word, low) + 32768u) >> 16u;
    }
    return luma(unpack(word));
}

fn luma_at(x: i32, y: i32) -> u32 {
    let cx = u32(clamp(x, 0, i32(params.width) - 1));
    let cy = u32(clamp(y, 0, i32(params.height) - 1));
    return luma_of(pixel(cy * params.width + cx));
}

// Whole numbers below 2^23 as floats, exactly: their bits in a float of exponent 23, less 2^23.
fn to_float(l: vec4u) -> vec4f {
    return bitcast<vec4f>(l | vec4u(0x4b000000u)) - vec4f(8388608.0);
}

// And back, without conversion instructions either.
fn whole(f: vec4f) -> vec4u {
    return bitcast<vec4u>(f + vec4f(8388608.0)) - vec4u(0x4b000000u);
}

// Six lumas of a tile row: the pixel before quad `qc`, its four, the one after.
struct Six {
    left: f32,
    at: vec4f,
    right: f32,
}

fn six(row: u32, qc: u32) -> Six {
    let i = row * ROW_QUADS + qc;
    return Six(tile[i - 1u].w, tile[i], tile[i + 1u].x);
}

// The peaking bits (PASS_PEAKING in each byte) of the four pixels of quad `qc` of tile row
// `ty` + 1: Sobel over the lumas round them, separated: each column smoothed down (v = above +
// 2·row + below) and differenced down (d = below − above), then Gx = v after − v before and
// Gy = d before + 2·d + d after. In floats, exact: every sum is a whole number below 2^13.
fn peaking_edges(qc: u32, ty: u32) -> u32 {
    let a = six(ty, qc);
    let m = six(ty + 1u, qc);
    let b = six(ty + 2u, qc);
    let v = Six(a.left + 2.0 * m.left + b.left, a.at + 2.0 * m.at + b.at, a.right + 2.0 * m.right + b.right);
    let d = Six(b.left - a.left, b.at - a.at, b.right - a.right);
    let gx = vec4f(v.at.yzw, v.right) - vec4f(v.left, v.at.xyz);
    let gy = vec4f(d.left, d.at.xyz) + 2.0 * d.at + vec4f(d.at.yzw, d.right);
    let edge = abs(gx) + abs(gy) >= vec4f(f32(params.peaking));
    return select(0u, PASS_PEAKING, edge.x) | select(0u, PASS_PEAKING << 8u, edge.y)
        | select(0u, PASS_PEAKING << 16u, edge.z) | select(0u, PASS_PEAKING << 24u, edge.w);
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

// FFmpeg signalstats' BRNG test of a pixel's Y'.
fn luma_out_of_range(at: vec2u) -> bool {
    let y = sample(textureLoad(plane0, at, 0), 0u);
    return y < params.range.x || y > params.range.y;
}

// The same of the chroma sample at `c` (Cb or Cr outside).
fn chroma_out_of_range(c: vec2u) -> bool {
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
    return cb < params.range.z || cb > params.range.w || cr < params.range.z || cr > params.range.w;
}

// The range bits (PASS_RANGE in each byte) of the pixels (x + h, y), h < count: each chroma
// sample read once for the pixels side by side it is drawn with.
fn range_bits(x: u32, y: u32, count: u32) -> u32 {
    let cy = y >> params.planes.z;
    var bits = 0u;
    var last = 0xffffffffu;
    var chroma_out = false;
    for (var h = 0u; h < count; h++) {
        if params.planes.x != PLANES_GREY {
            let cx = (x + h) >> params.planes.y;
            if cx != last {
                chroma_out = chroma_out_of_range(vec2u(cx, cy));
                last = cx;
            }
        }
        if chroma_out || luma_out_of_range(vec2u(x + h, y)) {
            bits |= PASS_RANGE << (8u * h);
        }
    }
    return bits;
}

// Fills the tile (from `origin` in the frame, one pixel out all round, clamped at the frame's
// edges) with luma.
fn fill_tile(origin: vec2i, index: u32) {
    if (params.width & 3u) != 0u {
        for (var k = index; k < ROW_QUADS * BORDERED_H; k += 256u) {
            let x = origin.x + 4 * (i32(k % ROW_QUADS) - 1);
            let y = origin.y + i32(k / ROW_QUADS) - 1;
            tile[k] = to_float(vec4u(luma_at(x, y), luma_at(x + 1, y), luma_at(x + 2, y), luma_at(x + 3, y)));
        }
        return;
    }
    // Each invocation's loads go out together: a quad of the tile's 16 rows, the first 32 a
    // quad of the rows above and below it, the next 36 a pixel of the columns either side.
    let main = tile_quad(origin, 1u + index / 16u, index % 16u);
    var extra = vec4u(0u);
    var side_pixel = 0u;
    let k = index - 32u;
    let halo = select(0u, BORDERED_H - 1u, index >= 16u);
    if index < 32u {
        extra = tile_quad(origin, halo, index % 16u);
    } else if k < 2u * BORDERED_H {
        side_pixel = side_at(origin, k);
    }
    store_quad(1u + index / 16u, index % 16u, main);
    if index < 32u {
        store_quad(halo, index % 16u, extra);
    } else if k < 2u * BORDERED_H {
        // The pixel left of the tile is the last of quad 0, the one right of it the first of
        // quad 17.
        let l = luma_of(side_pixel);
        let side = k % 2u;
        tile[(k / 2u) * ROW_QUADS + side * (ROW_QUADS - 1u)] = to_float(vec4u(l));
    }
}

// The packed pixels of quad `col` of tile row `row` (clamped at the frame's edges).
fn tile_quad(origin: vec2i, row: u32, col: u32) -> vec4u {
    let x = origin.x + 4 * i32(col);
    let cy = u32(clamp(origin.y + i32(row) - 1, 0, i32(params.height) - 1));
    if x + 3 < i32(params.width) {
        return pixels[(cy * params.width + u32(x)) >> 2u];
    }
    var quad = vec4u(0u);
    for (var h = 0; h < 4; h++) {
        let cx = u32(clamp(x + h, 0, i32(params.width) - 1));
        quad[h] = pixel(cy * params.width + cx);
    }
    return quad;
}

// Writes the lumas of `quad`, at quad `col` of tile row `row`.
fn store_quad(row: u32, col: u32, quad: vec4u) {
    tile[row * ROW_QUADS + 1u + col] = to_float(vec4u(luma_of(quad.x), luma_of(quad.y), luma_of(quad.z), luma_of(quad.w)));
}

// The packed pixel of border pixel `k` (rows down, left then right).
fn side_at(origin: vec2i, k: u32) -> u32 {
    let cx = u32(clamp(origin.x - 1 + i32((k % 2u) * (TILE_W + 1u)), 0, i32(params.width) - 1));
    let cy = u32(clamp(origin.y + i32(k / 2u) - 1, 0, i32(params.height) - 1));
    return pixel(cy * params.width + cx);
}

fn range() -> bool {
    return (params.compute & MARK_RANGE) != 0u && params.range_applies != 0u;
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
    if (params.compute & (MARK_FALSE_COLOUR | MARK_ZEBRA)) != 0u {
        if peaking() {
            byte = luma_classes[l];
        } else {
            byte = luma_classes[luma_of(packed)];
        }
    }
    if gamut() && outside_bt709(unpack(packed)) {
        byte |= PASS_GAMUT;
    }
    return byte;
}

// The range bits of the word at `at` (pixels x.., row y, `count` of them in the frame).
fn range_word(at: u32, x: u32, y: u32, count: u32) -> u32 {
    if !range() {
        return 0u;
    }
    if params.keep_range != 0u {
        return words[at] & (PASS_RANGE * 0x01010101u);
    }
    return range_bits(x, y, count);
}

// Writes the word at `at`, cutting off the bytes past the frame's right edge.
fn store_word(at: u32, packed: u32, count: u32) {
    var word = packed;
    if count < 4u {
        word &= (1u << (8u * count)) - 1u;
    }
    words[at] = word;
}

// The four pixels' colours from `first`: one load where rows are whole vec4us.
fn load_colours(first: u32, count: u32) -> vec4u {
    var quad = vec4u(0u);
    if reads_pixels() {
        if (params.width & 3u) == 0u {
            quad = pixels[first >> 2u];
        } else {
            for (var h = 0u; h < count; h++) {
                quad[h] = pixel(first + h);
            }
        }
    }
    return quad;
}

// Without peaking: no tile.
@compute @workgroup_size(64, 4)
fn marks(@builtin(global_invocation_id) id: vec3u) {
    let x = 4u * id.x;
    let y = id.y;
    if y >= params.height || x >= params.width {
        return;
    }
    let count = min(4u, params.width - x);
    let quad = load_colours(y * params.width + x, count);
    let at = y * params.row_words + id.x;
    let packed = mark(quad.x, 0u) | (mark(quad.y, 0u) << 8u) | (mark(quad.z, 0u) << 16u) | (mark(quad.w, 0u) << 24u);
    store_word(at, packed | range_word(at, x, y, count), count);
}

// With peaking (and any other marks).
@compute @workgroup_size(16, 16)
fn marks_peaking(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) index: u32,
) {
    fill_tile(vec2i(i32(wg.x * TILE_W), i32(wg.y * TILE_H)), index);
    workgroupBarrier();
    let y = wg.y * TILE_H + local.y;
    let x = wg.x * TILE_W + 4u * local.x;
    if y >= params.height || x >= params.width {
        return;
    }
    let count = min(4u, params.width - x);
    let at = y * params.row_words + x / 4u;
    let qc = local.x + 1u;
    var packed = 0u;
    if !PEAKING_ALONE {
        let quad = load_colours(y * params.width + x, count);
        let l = whole(tile[(local.y + 1u) * ROW_QUADS + qc]);
        packed = mark(quad.x, l.x) | (mark(quad.y, l.y) << 8u) | (mark(quad.z, l.z) << 16u) | (mark(quad.w, l.w) << 24u);
    }
    packed |= peaking_edges(qc, local.y);
    store_word(at, packed | range_word(at, x, y, count), count);
}
