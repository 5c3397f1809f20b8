// FFmpeg's signalstats (tout, vrep, brng) counted from a ring slot's Y'CbCr planes: the
// histograms of Y, U, V, saturation and hue, the differences from the previous frame, the bits
// used, the temporal outliers, each line's difference from the line four above, and the pixels
// outside broadcast range. Twin of `count` in src/signalstats/mod.rs, which gives the
// definitions; the CPU turns these counts into the values.
//
// - clear: zeroes `out` (the first dispatch of the pass).
// - luma: each workgroup takes a band of BAND rows and 2*WG_X columns; each invocation a pair
//   of neighbouring pixels down the band. Y's histogram is kept in workgroup memory.
// - chroma: the same over the chroma samples, with the U, V, saturation and hue histograms.
// The previous frame's samples are kept in `prev_luma` (two a word) and `prev_chroma` (U | V
// << 16), read and then replaced by each invocation for its own samples.
//
// `out`: Y, U, V and saturation histograms of HIST words each, the hue's 360, then the scalars
// (SCALARS: Y, U, V differences as 64-bit pairs, Y, U, V masks, TOUT, BRNG), then from ROWS each
// line's sum of |Y - Y four lines above|. Indices stay inside what StatsStage sizes for them.

const WG_SIZE: u32 = WG_X;
const HUE_BINS: u32 = 360u;
const U_AT: u32 = HIST;
const V_AT: u32 = 2u * HIST;
const SAT_AT: u32 = 3u * HIST;
const HUE_AT: u32 = 4u * HIST;
const SCALARS: u32 = 4u * HIST + HUE_BINS;
const DIF_AT: u32 = SCALARS; // 6 words: Y, U, V, low then high
const MASK_AT: u32 = SCALARS + 6u;
const TOUT_AT: u32 = SCALARS + 9u;
const BRNG_AT: u32 = SCALARS + 10u;
const ROWS: u32 = SCALARS + 12u;

struct StatsParams { // twin: StatsParams in src/signalstats/gpu.rs
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    shift_x: u32,
    shift_y: u32,
    // 1: U and V interleaved in plane1 (NV12, P010).
    semi: u32,
    // Right shift of a texel to its sample (P010: 6).
    sample_shift: u32,
    // 0 for a first frame: no difference.
    has_previous: u32,
    clear_words: u32,
    _pad0: u32,
    _pad1: u32,
    // Broadcast range at the depth: Y' low, Y' high, chroma high (the low is shared).
    range: vec4u,
}

@group(0) @binding(0) var<uniform> params: StatsParams;
@group(0) @binding(1) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> prev_luma: array<u32>;
@group(0) @binding(3) var<storage, read_write> prev_chroma: array<u32>;
// Hue of each (U, V) pair, two 16-bit degrees a word: index (U << DEPTH) | V.
@group(0) @binding(4) var<storage, read> hue_table: array<u32>;
@group(0) @binding(5) var plane0: texture_2d<u32>;
@group(0) @binding(6) var plane1: texture_2d<u32>;
@group(0) @binding(7) var plane2: texture_2d<u32>;

var<workgroup> hist_a: array<atomic<u32>, HIST>;
var<workgroup> hist_b: array<atomic<u32>, HIST>;
var<workgroup> hist_c: array<atomic<u32>, HIST>;
var<workgroup> hist_hue: array<atomic<u32>, HUE_BINS>;
var<workgroup> band_rows: array<atomic<u32>, BAND>;
// Sums of the workgroup: differences (one or two planes), masks, TOUT, BRNG.
var<workgroup> sums: array<atomic<u32>, 8>;

@compute @workgroup_size(WG_X, 1, 1)
fn clear(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
    let i = id.y * groups.x * WG_SIZE + id.x;
    if i < params.clear_words {
        atomicStore(&out[i], 0u);
    }
}

// Samples as the decoder gave them, kept to the depth (a stray high bit of a damaged stream
// must not index past a histogram; the CPU twin does the same).
fn luma(x: u32, y: u32) -> u32 {
    return (textureLoad(plane0, vec2u(x, y), 0).r >> params.sample_shift) & (HIST - 1u);
}

// Columns x0-1 .. x0+2 of row y, each taken inside the picture (clamped to its edge: what lies
// past an edge is never counted, see `is_outlier` and VREP's rows).
fn luma_row(x0: u32, y: i32) -> vec4u {
    let last = vec2i(i32(params.width) - 1, i32(params.height) - 1);
    let x = i32(x0);
    let at = clamp(vec4i(x - 1, x, x + 1, x + 2), vec4i(0), vec4i(last.x));
    let row = u32(clamp(y, 0, last.y));
    return vec4u(luma(u32(at.x), row), luma(u32(at.y), row), luma(u32(at.z), row), luma(u32(at.w), row));
}

fn chroma(x: u32, y: u32) -> vec2u {
    var c: vec2u;
    if params.semi == 1u {
        c = textureLoad(plane1, vec2u(x, y), 0).rg;
    } else {
        c = vec2u(textureLoad(plane1, vec2u(x, y), 0).r, textureLoad(plane2, vec2u(x, y), 0).r);
    }
    return (c >> vec2u(params.sample_shift)) & vec2u(HIST - 1u);
}

// FFmpeg's outlier test, on the samples' low 8 bits as its 8-bit arguments take them: of three
// columns at once, whether each stands out of the rows above (a) and below (c).
fn outliers(a: vec3u, b: vec3u, c: vec3u) -> bool {
    let x = vec3i(a & vec3u(0xffu));
    let y = vec3i(b & vec3u(0xffu));
    let z = vec3i(c & vec3u(0xffu));
    return all((abs(x - y) + abs(z - y)) / vec3i(2) - abs(z - x) > vec3i(4));
}

// Columns x-1, x, x+1 of a row of the window (`luma_row`'s), for pixel x = x0 + k.
fn around(row: vec4u, k: u32) -> vec3u {
    return select(row.yzw, row.xyz, k == 0u);
}

// Whether pixel x (= x0 + k) of row y is a temporal outlier, from the window's rows y-2 .. y+2:
// columns x-1, x and x+1 all stand out from the rows two above and below (where there are
// such rows) and from the rows just above and below.
fn is_outlier(x: u32, y: u32, k: u32, up2: vec4u, up1: vec4u, row: vec4u, down1: vec4u, down2: vec4u) -> bool {
    if y < 1u || y + 1u >= params.height || x < 1u || x + 1u >= params.width {
        return false;
    }
    let mid = around(row, k);
    if y >= 2u && y + 2u < params.height && !outliers(around(up2, k), mid, around(down2, k)) {
        return false;
    }
    return outliers(around(up1, k), mid, around(down1, k));
}

// Adds a workgroup's sum to a 64-bit pair of `out`, carrying into the high word.
fn add64(at: u32, value: u32) {
    if value == 0u {
        return;
    }
    let old = atomicAdd(&out[at], value);
    if old > 0xffffffffu - value {
        atomicAdd(&out[at + 1u], 1u);
    }
}

// Each entry point clears and flushes only the workgroup memory it uses, so that the luma's
// workgroups hold one histogram, not four.
fn zero_sums(local: u32) {
    if local < 8u {
        atomicStore(&sums[local], 0u);
    }
}

// Adds a workgroup's count of a bin into `out`'s.
fn flush_bin(at: u32, n: u32) {
    if n != 0u {
        atomicAdd(&out[at], n);
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn luma_stats(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) local: u32) {
    for (var s = local; s < HIST; s += WG_SIZE) {
        atomicStore(&hist_a[s], 0u);
    }
    for (var s = local; s < BAND; s += WG_SIZE) {
        atomicStore(&band_rows[s], 0u);
    }
    zero_sums(local);
    workgroupBarrier();

    let pair = group.x * WG_SIZE + local;
    let x0 = 2u * pair;
    let y0 = group.y * BAND;
    let y1 = min(y0 + BAND, params.height);
    let pairs_per_row = (params.width + 1u) / 2u;
    var dif = 0u;
    var mask = 0u;
    var tout = 0u;
    var brng = 0u;
    if x0 < params.width {
        let count = min(2u, params.width - x0);
        let top = i32(y0);
        var up4 = luma_row(x0, top - 4);
        var up3 = luma_row(x0, top - 3);
        var up2 = luma_row(x0, top - 2);
        var up1 = luma_row(x0, top - 1);
        var row = luma_row(x0, top);
        var down1 = luma_row(x0, top + 1);
        for (var y = y0; y < y1; y++) {
            let down2 = luma_row(x0, i32(y) + 2);
            let prev_at = y * pairs_per_row + pair;
            let before = prev_luma[prev_at];
            var now = 0u;
            var row_dif = 0u;
            let cy = y >> params.shift_y;
            // Both pixels of the pair share a chroma sample where chroma is halved across.
            let c0 = chroma(x0 >> params.shift_x, cy);
            for (var k = 0u; k < count; k++) {
                let x = x0 + k;
                let v = row[k + 1u];
                now |= v << (16u * k);
                atomicAdd(&hist_a[v], 1u);
                mask |= v;
                let p = (before >> (16u * k)) & 0xffffu;
                dif += max(v, p) - min(v, p);
                if y >= 4u {
                    let above = up4[k + 1u];
                    row_dif += max(v, above) - min(v, above);
                }
                var c = c0;
                if k == 1u && params.shift_x == 0u {
                    c = chroma(x, cy);
                }
                let r = params.range;
                if v < r.x || v > r.y || c.x < r.x || c.x > r.z || c.y < r.x || c.y > r.z {
                    brng += 1u;
                }
                if is_outlier(x, y, k, up2, up1, row, down1, down2) {
                    tout += 1u;
                }
            }
            prev_luma[prev_at] = now;
            if row_dif != 0u {
                atomicAdd(&band_rows[y - y0], row_dif);
            }
            up4 = up3;
            up3 = up2;
            up2 = up1;
            up1 = row;
            row = down1;
            down1 = down2;
        }
    }
    if params.has_previous == 0u {
        dif = 0u;
    }
    atomicAdd(&sums[0], dif);
    atomicOr(&sums[2], mask);
    atomicAdd(&sums[4], tout);
    atomicAdd(&sums[5], brng);
    workgroupBarrier();

    for (var s = local; s < HIST; s += WG_SIZE) {
        flush_bin(s, atomicLoad(&hist_a[s]));
    }
    for (var s = local; s < y1 - min(y0, y1); s += WG_SIZE) {
        let n = atomicLoad(&band_rows[s]);
        if n != 0u {
            atomicAdd(&out[ROWS + y0 + s], n);
        }
    }
    if local == 0u {
        add64(DIF_AT, atomicLoad(&sums[0]));
        atomicOr(&out[MASK_AT], atomicLoad(&sums[2]));
        atomicAdd(&out[TOUT_AT], atomicLoad(&sums[4]));
        atomicAdd(&out[BRNG_AT], atomicLoad(&sums[5]));
    }
}

// ⌊sqrt(n)⌋ exactly: the float root set right with integer squares.
fn isqrt(n: u32) -> u32 {
    var s = u32(sqrt(f32(n)));
    if s * s > n {
        s -= 1u;
    } else if (s + 1u) * (s + 1u) <= n {
        s += 1u;
    }
    return s;
}

@compute @workgroup_size(WG_X, 1, 1)
fn chroma_stats(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) local: u32) {
    for (var s = local; s < HIST; s += WG_SIZE) {
        atomicStore(&hist_a[s], 0u);
        atomicStore(&hist_b[s], 0u);
        atomicStore(&hist_c[s], 0u);
    }
    for (var s = local; s < HUE_BINS; s += WG_SIZE) {
        atomicStore(&hist_hue[s], 0u);
    }
    zero_sums(local);
    workgroupBarrier();

    let x = group.x * WG_SIZE + local;
    let y0 = group.y * BAND;
    let y1 = min(y0 + BAND, params.chroma_height);
    let mid = i32(HIST / 2u);
    var dif_u = 0u;
    var dif_v = 0u;
    var mask = 0u;
    if x < params.chroma_width {
        for (var y = y0; y < y1; y++) {
            let c = chroma(x, y);
            let at = y * params.chroma_width + x;
            let before = prev_chroma[at];
            prev_chroma[at] = c.x | (c.y << 16u);
            let p = vec2u(before & 0xffffu, before >> 16u);
            dif_u += max(c.x, p.x) - min(c.x, p.x);
            dif_v += max(c.y, p.y) - min(c.y, p.y);
            mask |= c.x | (c.y << 16u);
            atomicAdd(&hist_a[c.x], 1u);
            atomicAdd(&hist_b[c.y], 1u);
            let du = i32(c.x) - mid;
            let dv = i32(c.y) - mid;
            atomicAdd(&hist_c[isqrt(u32(du * du + dv * dv))], 1u);
            let index = (c.x << DEPTH) | c.y;
            let hue = (hue_table[index >> 1u] >> (16u * (index & 1u))) & 0xffffu;
            atomicAdd(&hist_hue[hue], 1u);
        }
    }
    if params.has_previous == 0u {
        dif_u = 0u;
        dif_v = 0u;
    }
    atomicAdd(&sums[0], dif_u);
    atomicAdd(&sums[1], dif_v);
    atomicOr(&sums[2], mask);
    workgroupBarrier();

    for (var s = local; s < HIST; s += WG_SIZE) {
        flush_bin(U_AT + s, atomicLoad(&hist_a[s]));
        flush_bin(V_AT + s, atomicLoad(&hist_b[s]));
        flush_bin(SAT_AT + s, atomicLoad(&hist_c[s]));
    }
    for (var s = local; s < HUE_BINS; s += WG_SIZE) {
        let n = atomicLoad(&hist_hue[s]);
        if n != 0u {
            atomicAdd(&out[HUE_AT + s], n);
        }
    }
    if local == 0u {
        add64(DIF_AT + 2u, atomicLoad(&sums[0]));
        add64(DIF_AT + 4u, atomicLoad(&sums[1]));
        let m = atomicLoad(&sums[2]);
        atomicOr(&out[MASK_AT + 1u], m & 0xffffu);
        atomicOr(&out[MASK_AT + 2u], m >> 16u);
    }
}
