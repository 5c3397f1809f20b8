// Deinterlacing: FFmpeg's bwdif and yadif on a frame's planes, line for line as
// src/video/deinterlace/cpu.rs (their twin, which equals FFmpeg's output). The planes of three
// frames (previous, current, next) are read from buffers laid out as the upload's staging
// memory (rows `pitch` words apart); the frame made is written the same way, for a copy into
// the ring slot's textures.
//
// An invocation makes one 32-bit word of one row of one plane (z): four 8-bit samples or two
// 16-bit ones. Rows of the field kept are copied; the others are made sample by sample.

struct Plane {
    // First word of the plane, words between rows, words a row writes, rows.
    offset: u32,
    pitch: u32,
    words: u32,
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
    // 0: bwdif, 1: yadif.
    method: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> prev_frame: array<u32>;
@group(0) @binding(2) var<storage, read> cur_frame: array<u32>;
@group(0) @binding(3) var<storage, read> next_frame: array<u32>;
@group(0) @binding(4) var<storage, read_write> made: array<u32>;

const PREV: u32 = 0u;
const CUR: u32 = 1u;
const NEXT: u32 = 2u;

var<private> plane: Plane;

fn word_of(frame: u32, i: u32) -> u32 {
    switch frame {
        case 0u: {
            return prev_frame[i];
        }
        case 1u: {
            return cur_frame[i];
        }
        default: {
            return next_frame[i];
        }
    }
}

// Sample s (counted across channels) of row y of `frame`, y kept within the plane.
fn at(frame: u32, y: i32, s: u32) -> i32 {
    let row = u32(clamp(y, 0, i32(plane.rows) - 1));
    let base = plane.offset + row * plane.pitch;
    if params.wide == 1u {
        let w = word_of(frame, base + s / 2u);
        return i32(((w >> (16u * (s & 1u))) & 0xffffu) >> plane.shift);
    }
    let w = word_of(frame, base + s / 4u);
    return i32((w >> (8u * (s & 3u))) & 0xffu);
}

// The frames the field made lies between: FFmpeg's prev2 and next2.
fn prev2() -> u32 {
    return select(CUR, PREV, params.order == 1u);
}

fn next2() -> u32 {
    return select(NEXT, CUR, params.order == 1u);
}

fn temporal_at(y: i32, s: u32) -> i32 {
    return (at(prev2(), y, s) + at(next2(), y, s)) >> 1u;
}

// FFmpeg's FILTER1: above (c), the temporal average (d), below (e), the largest change allowed.
fn temporal(y: i32, m: i32, p: i32, s: u32) -> vec4<i32> {
    let c = at(CUR, m, s);
    let e = at(CUR, p, s);
    let p2 = at(prev2(), y, s);
    let n2 = at(next2(), y, s);
    let diff0 = abs(p2 - n2);
    let diff1 = (abs(at(PREV, m, s) - c) + abs(at(PREV, p, s) - e)) >> 1u;
    let diff2 = (abs(at(NEXT, m, s) - c) + abs(at(NEXT, p, s) - e)) >> 1u;
    return vec4<i32>(c, (p2 + n2) >> 1u, e, max(max(diff0 >> 1u, diff1), diff2));
}

fn bwdif(y: i32, s: u32) -> i32 {
    let h = i32(plane.rows);
    let top = i32(params.max_value);
    // FFmpeg compares with the sample's size in bytes here, not with 1 and 3.
    let df = i32(params.wide) + 1;
    let p = select(y - 1, y + 1, y + df < h);
    let m = select(y + 1, y - 1, y > df - 1);
    if params.edge == 1u {
        // Where 3 lines away is out of the plane, FFmpeg reads 1 line the other way.
        let p3 = select(y - 1, y + 3, y + 3 * df < h);
        let m3 = select(y + 1, y - 3, y > 3 * df - 1);
        let v = (5077 * (at(CUR, m, s) + at(CUR, p, s)) - 981 * (at(CUR, m3, s) + at(CUR, p3, s))) >> 13u;
        return clamp(v, 0, top);
    }
    let near_edge = y < 4 || y + 5 > h;
    let t = temporal(y, m, p, s);
    let c = t.x;
    let d = t.y;
    let e = t.z;
    var diff = t.w;
    if diff == 0 {
        return d;
    }
    if !near_edge || !(y < 2 || y + 3 > h) {
        let b = temporal_at(y - 2, s) - c;
        let f = temporal_at(y + 2, s) - e;
        let hi = max(max(d - e, d - c), min(b, f));
        let lo = min(min(d - e, d - c), max(b, f));
        diff = max(max(diff, lo), -hi);
    }
    var interpol: i32;
    if near_edge {
        interpol = (c + e) >> 1u;
    } else if abs(c - e) > abs(at(prev2(), y, s) - at(next2(), y, s)) {
        let both0 = at(prev2(), y, s) + at(next2(), y, s);
        let both2 = at(prev2(), y - 2, s) + at(next2(), y - 2, s) + at(prev2(), y + 2, s) + at(next2(), y + 2, s);
        let both4 = at(prev2(), y - 4, s) + at(next2(), y - 4, s) + at(prev2(), y + 4, s) + at(next2(), y + 4, s);
        let high = (5570 * both0 - 3801 * both2 + 1016 * both4) >> 2u;
        interpol = (high + 4309 * (c + e) - 213 * (at(CUR, y - 3, s) + at(CUR, y + 3, s))) >> 13u;
    } else {
        interpol = (5077 * (c + e) - 981 * (at(CUR, y - 3, s) + at(CUR, y + 3, s))) >> 13u;
    }
    return clamp(clamp(interpol, d - diff, d + diff), 0, top);
}

// One spatial direction j pixels along: its score and its guess, against the best so far.
fn direction(m: i32, p: i32, s: u32, j: i32, best: ptr<function, vec2<i32>>) -> bool {
    let step = i32(plane.channels);
    let i = i32(s);
    let score = abs(at(CUR, m, u32(i + (j - 1) * step)) - at(CUR, p, u32(i + (-j - 1) * step)))
        + abs(at(CUR, m, u32(i + j * step)) - at(CUR, p, u32(i - j * step)))
        + abs(at(CUR, m, u32(i + (j + 1) * step)) - at(CUR, p, u32(i + (1 - j) * step)));
    if score < (*best).x {
        *best = vec2<i32>(score, (at(CUR, m, u32(i + j * step)) + at(CUR, p, u32(i - j * step))) >> 1u);
        return true;
    }
    return false;
}

fn yadif(y: i32, s: u32) -> i32 {
    let h = i32(plane.rows);
    let p = select(y - 1, y + 1, y + 1 < h);
    let m = select(y + 1, y - 1, y > 0);
    let t = temporal(y, m, p, s);
    let c = t.x;
    let d = t.y;
    let e = t.z;
    var diff = t.w;
    // x: (score, guess)
    var best = vec2<i32>(0, (c + e) >> 1u);
    let x = i32(s / plane.channels);
    if x >= 3 && x + 3 < i32(plane.width) {
        let step = i32(plane.channels);
        let i = i32(s);
        best.x = abs(at(CUR, m, u32(i - step)) - at(CUR, p, u32(i - step))) + abs(c - e)
            + abs(at(CUR, m, u32(i + step)) - at(CUR, p, u32(i + step))) - 1;
        // Two pixels along is tried only where one along was better.
        if direction(m, p, s, -1, &best) {
            direction(m, p, s, -2, &best);
        }
        if direction(m, p, s, 1, &best) {
            direction(m, p, s, 2, &best);
        }
    }
    // The second line and the second to last leave the spatial interlacing check out.
    if params.spatial == 1u && y != 1 && y + 2 != h {
        let b = temporal_at(y + 2 * (m - y), s);
        let f = temporal_at(y + 2 * (p - y), s);
        let hi = max(max(d - e, d - c), min(b - c, f - e));
        let lo = min(min(d - e, d - c), max(b - c, f - e));
        diff = max(max(diff, lo), -hi);
    }
    return clamp(best.y, d - diff, d + diff);
}

@compute @workgroup_size(64, 1, 1)
fn deinterlace(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.z >= 3u {
        return;
    }
    plane = params.planes[id.z];
    let column = id.x;
    let row = id.y;
    if column >= plane.words || row >= plane.rows {
        return;
    }
    let index = plane.offset + row * plane.pitch + column;
    if ((row ^ params.parity) & 1u) == 0u {
        made[index] = cur_frame[index];
        return;
    }
    let y = i32(row);
    let per_word = select(4u, 2u, params.wide == 1u);
    let bits = 32u / per_word;
    var word = 0u;
    for (var k = 0u; k < per_word; k++) {
        let s = column * per_word + k;
        if s >= plane.samples {
            break;
        }
        var v: i32;
        if params.method == 0u {
            v = bwdif(y, s);
        } else {
            v = yadif(y, s);
        }
        word |= (u32(v) << plane.shift) << (bits * k);
    }
    made[index] = word;
}
