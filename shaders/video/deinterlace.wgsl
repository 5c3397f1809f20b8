// Deinterlacing: FFmpeg's bwdif and yadif on a frame's planes, line for line as
// src/video/deinterlace/cpu.rs (their twin, which equals FFmpeg's output). The planes of three
// frames (previous, current, next) are read from one buffer, each laid out as the upload's
// staging memory (rows `pitch` words apart); the frame made is written the same way, for a
// copy into the ring slot's textures.
//
// An invocation makes four samples of 2 PAIRS rows of one plane (z): one 32-bit word of 8-bit
// samples, two of 16-bit ones, a row. Rows of the field kept are copied. bwdif, whose taps are all in
// the sample's own column, works on the four at once (each word it reads is read once); yadif
// looks along the row too, and makes them one by one.
//
// Every index is in bounds by construction (the module is built without naga's checks): the
// frames' bases are whole frames apart within the buffer; rows are clamped to the plane's; a
// plane's samples lie within its rows' pitch (a multiple of 256 bytes at least its samples'
// bytes, so the second word of a 16-bit quad is still within the row); yadif reads along a
// row only from 3 pixels in from each end; the invocation's quad, rows and plane are checked
// against the plane's quads, rows and count.

struct Plane {
    // First word of the plane, words between rows, quads of samples a row, rows.
    offset: u32,
    pitch: u32,
    quads: u32,
    rows: u32,
    // Samples a row (all channels), channels interleaved, pixels a row, bits above the value.
    samples: u32,
    channels: u32,
    width: u32,
    shift: u32,
}

struct Params {
    planes: array<Plane, 3>,
    // 1: samples take two bytes (FFmpeg's df 2).
    wide: u32,
    max_value: u32,
    // Lines y with ((y ^ parity) & 1) == 1 are made.
    parity: u32,
    // parity ^ tff: 1 when the field made lies between the previous frame and this one.
    order: u32,
    // 1: the first or last field of a run (bwdif makes it from the frame alone).
    edge: u32,
    // 1: yadif's spatial interlacing check (modes send_frame and send_field).
    spatial: u32,
    // 0: bwdif, 1: yadif (read by the yadif entry point only).
    method: u32,
    _pad: u32,
    // Where the previous, current and next frames' planes start in `frames`, in words.
    prev_base: u32,
    cur_base: u32,
    next_base: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// The three frames kept, one after another.
@group(0) @binding(1) var<storage, read> frames: array<u32>;
@group(0) @binding(2) var<storage, read_write> made: array<u32>;

const PREV: u32 = 0u;
const CUR: u32 = 1u;
const NEXT: u32 = 2u;

var<private> plane: Plane;

fn word_of(frame: u32, i: u32) -> u32 {
    let base = select(select(params.next_base, params.cur_base, frame == CUR), params.prev_base, frame == PREV);
    return frames[base + i];
}

// The frames the field made lies between: FFmpeg's prev2 and next2.
fn prev2() -> u32 {
    return select(CUR, PREV, params.order == 1u);
}

fn next2() -> u32 {
    return select(NEXT, CUR, params.order == 1u);
}

// Four samples of row y of `frame` from sample s0 (a multiple of 4) on.
fn four(frame: u32, y: i32, s0: u32) -> vec4<i32> {
    let row = u32(clamp(y, 0, i32(plane.rows) - 1));
    let base = plane.offset + row * plane.pitch;
    if params.wide == 1u {
        let a = word_of(frame, base + s0 / 2u);
        let b = word_of(frame, base + s0 / 2u + 1u);
        let wide = vec4<u32>(a & 0xffffu, a >> 16u, b & 0xffffu, b >> 16u);
        return vec4<i32>(wide >> vec4<u32>(plane.shift));
    }
    let w = word_of(frame, base + s0 / 4u);
    return vec4<i32>((vec4<u32>(w) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu));
}

const ONE = vec4<u32>(1u);
const TWO = vec4<u32>(2u);
const THIRTEEN = vec4<u32>(13u);

// bwdif of the four samples from s0 on (`bwdif` one at a time, on four lanes).
fn bwdif_four(y: i32, s0: u32) -> vec4<i32> {
    let h = i32(plane.rows);
    let top = vec4<i32>(i32(params.max_value));
    let df = i32(params.wide) + 1;
    let p = select(y - 1, y + 1, y + df < h);
    let m = select(y + 1, y - 1, y > df - 1);
    if params.edge == 1u {
        let p3 = select(y - 1, y + 3, y + 3 * df < h);
        let m3 = select(y + 1, y - 3, y > 3 * df - 1);
        let near = four(CUR, m, s0) + four(CUR, p, s0);
        let far = four(CUR, m3, s0) + four(CUR, p3, s0);
        return clamp((5077 * near - 981 * far) >> THIRTEEN, vec4<i32>(0), top);
    }
    let c = four(CUR, m, s0);
    let e = four(CUR, p, s0);
    let p2 = four(prev2(), y, s0);
    let n2 = four(next2(), y, s0);
    let d = (p2 + n2) >> ONE;
    let diff0 = abs(p2 - n2);
    let diff1 = (abs(four(PREV, m, s0) - c) + abs(four(PREV, p, s0) - e)) >> ONE;
    let diff2 = (abs(four(NEXT, m, s0) - c) + abs(four(NEXT, p, s0) - e)) >> ONE;
    var diff = max(max(diff0 >> ONE, diff1), diff2);
    // No temporal change: the average, before the spatial check.
    let still = diff == vec4<i32>(0);
    let near_edge = y < 4 || y + 5 > h;
    var above2 = vec4<i32>(0);
    var below2 = vec4<i32>(0);
    if !near_edge || !(y < 2 || y + 3 > h) {
        above2 = four(prev2(), y - 2, s0) + four(next2(), y - 2, s0);
        below2 = four(prev2(), y + 2, s0) + four(next2(), y + 2, s0);
        let b = (above2 >> ONE) - c;
        let f = (below2 >> ONE) - e;
        let hi = max(max(d - e, d - c), min(b, f));
        let lo = min(min(d - e, d - c), max(b, f));
        diff = max(max(diff, lo), -hi);
    }
    var interpol: vec4<i32>;
    if near_edge {
        interpol = (c + e) >> ONE;
    } else {
        let far = four(CUR, y - 3, s0) + four(CUR, y + 3, s0);
        let spatial = (5077 * (c + e) - 981 * far) >> THIRTEEN;
        let both4 = four(prev2(), y - 4, s0) + four(next2(), y - 4, s0) + four(prev2(), y + 4, s0)
            + four(next2(), y + 4, s0);
        let high = (5570 * (p2 + n2) - 3801 * (above2 + below2) + 1016 * both4) >> TWO;
        let temporal = (high + 4309 * (c + e) - 213 * far) >> THIRTEEN;
        interpol = select(spatial, temporal, abs(c - e) > diff0);
    }
    let made = clamp(clamp(interpol, d - diff, d + diff), vec4<i32>(0), top);
    return select(made, d, still);
}

// Samples 12 before s0 to 15 after it of row y of the current frame: what yadif's search
// along the row reads (3 pixels each way, of up to 4 channels). Quads outside the row are
// read from its start instead: no sample the search uses is in them.
var<private> window_m: array<i32, 28>;
var<private> window_p: array<i32, 28>;

fn load_windows(m: i32, p: i32, s0: u32) {
    for (var q = 0u; q < 7u; q++) {
        let at = s0 + 4u * q;
        let start = select(0u, at - 12u, at >= 12u && at - 12u < plane.samples);
        let above = four(CUR, m, start);
        let below = four(CUR, p, start);
        for (var k = 0u; k < 4u; k++) {
            window_m[4u * q + k] = above[k];
            window_p[4u * q + k] = below[k];
        }
    }
}

// yadif's search along the row for lane k (sample s0 + k, at window index 12 + k): the
// direction whose three differences across the missing line are smallest, and its guess.
fn search(k: u32, c: i32, e: i32) -> i32 {
    let ch = i32(plane.channels);
    let i = 12 + i32(k);
    let up = &window_m;
    let down = &window_p;
    var score = abs((*up)[i - ch] - (*down)[i - ch]) + abs(c - e) + abs((*up)[i + ch] - (*down)[i + ch]) - 1;
    var guess = (c + e) >> 1u;
    // j = -1, then -2 only where -1 was better; then 1, and 2 likewise.
    for (var side = -1; side <= 1; side += 2) {
        for (var n = 1; n <= 2; n++) {
            let j = side * n;
            let here = abs((*up)[i + (j - 1) * ch] - (*down)[i + (-j - 1) * ch])
                + abs((*up)[i + j * ch] - (*down)[i - j * ch])
                + abs((*up)[i + (j + 1) * ch] - (*down)[i + (1 - j) * ch]);
            if here >= score {
                break;
            }
            score = here;
            guess = ((*up)[i + j * ch] + (*down)[i - j * ch]) >> 1u;
        }
    }
    return guess;
}

// yadif of the four samples from s0 on: the temporal part on four lanes, the search along the
// row lane by lane.
fn yadif_four(y: i32, s0: u32) -> vec4<i32> {
    let h = i32(plane.rows);
    let p = select(y - 1, y + 1, y + 1 < h);
    let m = select(y + 1, y - 1, y > 0);
    let c = four(CUR, m, s0);
    let e = four(CUR, p, s0);
    let p2 = four(prev2(), y, s0);
    let n2 = four(next2(), y, s0);
    let d = (p2 + n2) >> ONE;
    let diff1 = (abs(four(PREV, m, s0) - c) + abs(four(PREV, p, s0) - e)) >> ONE;
    let diff2 = (abs(four(NEXT, m, s0) - c) + abs(four(NEXT, p, s0) - e)) >> ONE;
    var diff = max(max(abs(p2 - n2) >> ONE, diff1), diff2);
    var guess = (c + e) >> ONE;
    load_windows(m, p, s0);
    for (var k = 0u; k < 4u; k++) {
        let x = i32((s0 + k) / plane.channels);
        if x >= 3 && x + 3 < i32(plane.width) {
            guess[k] = search(k, c[k], e[k]);
        }
    }
    // The second line and the second to last leave the spatial interlacing check out.
    if params.spatial == 1u && y != 1 && y + 2 != h {
        let b = (four(prev2(), y + 2 * (m - y), s0) + four(next2(), y + 2 * (m - y), s0)) >> ONE;
        let f = (four(prev2(), y + 2 * (p - y), s0) + four(next2(), y + 2 * (p - y), s0)) >> ONE;
        let hi = max(max(d - e, d - c), min(b - c, f - e));
        let lo = min(min(d - e, d - c), max(b - c, f - e));
        diff = max(max(diff, lo), -hi);
    }
    return clamp(guess, d - diff, d + diff);
}

// Row pairs an invocation takes: fewer, fuller workgroups (a row made is cheap, a workgroup
// scheduled is not).
const PAIRS: u32 = 4u;

// Row `row` of the plane at quad `quad`: copied from the current frame where its field is
// kept, made where it is not, by `method` (0: bwdif, 1: yadif). bwdif's entry point gives it
// as a constant, so that its code is compiled alone, with only the registers it needs: a
// third faster than with yadif's beside it.
fn one_row(row: u32, quad: u32, method: u32) {
    let words = 1u + params.wide;
    let index = plane.offset + row * plane.pitch + quad * words;
    if ((row ^ params.parity) & 1u) == 0u {
        for (var k = 0u; k < words; k++) {
            made[index + k] = frames[params.cur_base + index + k];
        }
        return;
    }
    let y = i32(row);
    let s0 = quad * 4u;
    var v: vec4<i32>;
    if method == 0u {
        v = bwdif_four(y, s0);
    } else {
        v = yadif_four(y, s0);
    }
    // Samples past the row's end (its last quad) are zero.
    let inside = vec4<u32>(s0) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(plane.samples);
    let out = select(vec4<u32>(0u), vec4<u32>(v) << vec4<u32>(plane.shift), inside);
    if params.wide == 1u {
        made[index] = out.x | (out.y << 16u);
        made[index + 1u] = out.z | (out.w << 16u);
    } else {
        made[index] = out.x | (out.y << 8u) | (out.z << 16u) | (out.w << 24u);
    }
}

// The rows of quad `id.x` of plane `id.z` from pair `id.y * PAIRS` on.
fn deinterlace(id: vec3<u32>, method: u32) {
    if id.z >= 3u {
        return;
    }
    plane = params.planes[id.z];
    let quad = id.x;
    if quad >= plane.quads {
        return;
    }
    for (var row = id.y * 2u * PAIRS; row < min((id.y + 1u) * 2u * PAIRS, plane.rows); row++) {
        one_row(row, quad, method);
    }
}

@compute @workgroup_size(64, 1, 1)
fn bwdif(@builtin(global_invocation_id) id: vec3<u32>) {
    deinterlace(id, 0u);
}

// yadif takes its filter from the uniform (1): compiled with bwdif's path beside its own it
// ran 10% faster than compiled alone (fewer of its invocations at once, each with its rows'
// windows in private memory: they stay in the cache).
@compute @workgroup_size(64, 1, 1)
fn yadif(@builtin(global_invocation_id) id: vec3<u32>) {
    deinterlace(id, params.method);
}
