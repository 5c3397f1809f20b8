// FFmpeg's signalstats (tout, vrep, brng) counted from a ring slot's Y'CbCr planes: the
// histograms of Y, U, V, saturation and hue, the differences from the previous frame, the bits
// used, the temporal outliers, each line's difference from the line four above, and the pixels
// outside broadcast range. Twin of `count` in src/signalstats/mod.rs, which gives the
// definitions; the CPU turns these counts into the values.
//
// - clear: zeroes `out` (the first dispatch of the pass).
// - luma: each workgroup takes a band of BAND rows and 2*WG_X columns; each invocation a pair
//   of neighbouring pixels down the band. Y's histogram is kept in workgroup memory, counted
//   by runs of equal pairs down a column.
// - chroma: the same over the chroma samples, with the U, V, saturation and hue histograms.
// The previous frame's samples are kept in `prev_luma` (two a word) and `prev_chroma` (U | V
// << 16), read and then replaced by each invocation for its own samples.
//
// `out`: Y, U, V and saturation histograms of HIST words each, the hue's 360, then the scalars
// (SCALARS: Y, U, V differences as 64-bit pairs, Y, U, V masks, TOUT, BRNG), then from ROWS each
// line's sum of |Y - Y four lines above|.
//
// Indices stay in bounds by construction (the module is built without bounds checks, see
// trusted_module in src/gpu/shaders.rs): samples are masked to HIST - 1 as they are loaded, so
// the histograms' bins, the saturation's (below sqrt(2) HIST / 2) and the hue table's index
// (below HIST^2, two entries a word) stay inside, and a run's NO_SAMPLE is never counted; the
// hue table's degrees are below 360 (`hue` in src/signalstats/mod.rs); texels are loaded only
// inside the planes (the window's columns and rows clamped, chroma from a pixel's own
// position); `prev_luma` and `prev_chroma` are indexed by a pair or a sample inside the
// picture, `band_rows` by a row inside the band, the rows loaded ahead by k < ROWS_AHEAD, and
// `out` below `clear_words` (ROWS + the picture's rows), all as StatsStage sizes them.

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

// Y's histogram (luma_stats), and U's, V's, saturation's and hue's (chroma_stats).
var<workgroup> hist_y: array<atomic<u32>, HIST>;
var<workgroup> hist_a: array<atomic<u32>, HIST>;
var<workgroup> hist_b: array<atomic<u32>, HIST>;
var<workgroup> hist_c: array<atomic<u32>, HIST>;
var<workgroup> hist_hue: array<atomic<u32>, HUE_BINS>;
// Each row's VREP sum in ROW_COPIES copies, a lane adding into copy `local % ROW_COPIES`: every
// invocation adds into its row's sum at the same step, and lanes meeting in one word would
// wait on each other.
const ROW_COPIES: u32 = 32u;
var<workgroup> band_rows: array<atomic<u32>, BAND * ROW_COPIES>;
// Rows whose loads an invocation issues before it counts them, in a loop of their own: on an
// H200 this runs the pass twice as fast at 4K and 8K as loads made where each value is used;
// more rows at a time (4, 8) were slower.
const ROWS_AHEAD: u32 = 1u;
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

// FFmpeg's outlier test, on the samples' low 8 bits as its 8-bit arguments take them, of the
// window's four columns at once: whether each column's sample of row b stands out of rows a
// (above) and c (below): (|a - b| + |c - b|) / 2 - |c - a| > 4.
fn outliers(a: vec4u, b: vec4u, c: vec4u) -> vec4<bool> {
    let x = a & vec4u(0xffu);
    let y = b & vec4u(0xffu);
    let z = c & vec4u(0xffu);
    let away = (max(x, y) - min(x, y) + max(z, y) - min(z, y)) >> vec4u(1u);
    return away > max(z, x) - min(z, x) + vec4u(4u);
}

// The temporal outliers of the pair at x0 in row y, from the window's rows y-2 .. y+2: a pixel
// is one where its column and the columns beside it all stand out from the rows just above
// and below, and from the rows two above and below where there are such rows; FFmpeg leaves
// out the picture's first and last rows and columns. (The window's column j is x0 - 1 + j.)
fn pair_outliers(
    x0: u32,
    y: u32,
    two: bool,
    up2: vec4u,
    up1: vec4u,
    row: vec4u,
    down1: vec4u,
    down2: vec4u,
) -> u32 {
    if y < 1u || y + 1u >= params.height {
        return 0u;
    }
    let near = outliers(up1, row, down1);
    var first = near.x && near.y && near.z && x0 >= 1u && x0 + 1u < params.width;
    var second = two && near.y && near.z && near.w && x0 + 2u < params.width;
    if (first || second) && y >= 2u && y + 2u < params.height {
        let far = outliers(up2, row, down2);
        first = first && far.x && far.y && far.z;
        second = second && far.y && far.z && far.w;
    }
    return u32(first) + u32(second);
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

// A run's key past the picture's last column (a pair of one sample).
const NO_SAMPLE: u32 = 0xffffu;

// Adds `n` of each of a run's pair of samples (`run`: first | second << 16, a second of
// NO_SAMPLE past the picture's last column) into the workgroup's Y histogram.
fn count_luma_run(run: u32, n: u32) {
    let a = run & 0xffffu;
    let b = run >> 16u;
    if a == b {
        atomicAdd(&hist_y[a], 2u * n);
        return;
    }
    atomicAdd(&hist_y[a], n);
    if b != NO_SAMPLE {
        atomicAdd(&hist_y[b], n);
    }
}

// Each invocation takes a pair of columns down the band. Its pairs go into the Y histogram by
// runs: a pair equal to the one above adds to the run (smooth pictures make long ones), and a
// run is counted when it ends, so that neighbouring lanes seldom add into the same bin at once.
@compute @workgroup_size(WG_X, 1, 1)
fn luma_stats(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) local: u32) {
    for (var s = local; s < HIST; s += WG_SIZE) {
        atomicStore(&hist_y[s], 0u);
    }
    for (var s = local; s < BAND * ROW_COPIES; s += WG_SIZE) {
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
        let two = x0 + 1u < params.width;
        let top = i32(y0);
        var up4 = luma_row(x0, top - 4);
        var up3 = luma_row(x0, top - 3);
        var up2 = luma_row(x0, top - 2);
        var up1 = luma_row(x0, top - 1);
        var row = luma_row(x0, top);
        var down1 = luma_row(x0, top + 1);
        var run = 0u;
        var run_n = 0u;
        for (var y_step = y0; y_step < y1; y_step += ROWS_AHEAD) {
            // The rows' loads (the window's next rows, the kept pairs, the chroma), then the
            // rows counted.
            var downs: array<vec4u, ROWS_AHEAD>;
            var befores: array<u32, ROWS_AHEAD>;
            var c0s: array<vec2u, ROWS_AHEAD>;
            var c1s: array<vec2u, ROWS_AHEAD>;
            for (var k = 0u; k < ROWS_AHEAD; k++) {
                let y = y_step + k;
                if y < y1 {
                    downs[k] = luma_row(x0, i32(y) + 2);
                    befores[k] = prev_luma[y * pairs_per_row + pair];
                    let cy = y >> params.shift_y;
                    c0s[k] = chroma(x0 >> params.shift_x, cy);
                    c1s[k] = c0s[k];
                    if two && params.shift_x == 0u {
                        c1s[k] = chroma(x0 + 1u, cy);
                    }
                }
            }
            for (var k = 0u; k < ROWS_AHEAD; k++) {
                let y = y_step + k;
                if y >= y1 {
                    break;
                }
                let down2 = downs[k];
                let prev_at = y * pairs_per_row + pair;
                let before = befores[k];
                // The pair's pixels (the second past the picture's last column where `two` is not).
                let v = row.yz;
                let now = v.x | select(0u, v.y << 16u, two);
                mask |= v.x | select(0u, v.y, two);
                let p = vec2u(before & 0xffffu, before >> 16u);
                let d = max(v, p) - min(v, p);
                dif += d.x + select(0u, d.y, two);
                var row_dif = 0u;
                if y >= 4u {
                    let e = max(v, up4.yz) - min(v, up4.yz);
                    row_dif = e.x + select(0u, e.y, two);
                }
                // Both pixels of the pair share a chroma sample where chroma is halved across.
                let c0 = c0s[k];
                let c1 = c1s[k];
                let r = params.range;
                let low = vec4u(r.x);
                let high = vec4u(r.y, r.y, r.z, r.z);
                let first = vec4u(v.x, v.x, c0);
                let second = vec4u(v.y, v.y, c1);
                brng += u32(any(first < low) || any(first > high));
                brng += u32(two && (any(second < low) || any(second > high)));
                tout += pair_outliers(x0, y, two, up2, up1, row, down1, down2);
                prev_luma[prev_at] = now;
                let key = select(now | (NO_SAMPLE << 16u), now, two);
                if key != run {
                    if run_n != 0u {
                        count_luma_run(run, run_n);
                    }
                    run = key;
                    run_n = 0u;
                }
                run_n += 1u;
                if row_dif != 0u {
                    atomicAdd(&band_rows[(y - y0) * ROW_COPIES + local % ROW_COPIES], row_dif);
                }
                up4 = up3;
                up3 = up2;
                up2 = up1;
                up1 = row;
                row = down1;
                down1 = down2;
            }
        }
        if run_n != 0u {
            count_luma_run(run, run_n);
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
        flush_bin(s, atomicLoad(&hist_y[s]));
    }
    for (var s = local; s < y1 - min(y0, y1); s += WG_SIZE) {
        var n = 0u;
        for (var r = 0u; r < ROW_COPIES; r++) {
            n += atomicLoad(&band_rows[s * ROW_COPIES + r]);
        }
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

// Adds `n` of a run's chroma sample (`run`: U | V << 16) into the workgroup's U, V,
// saturation and hue histograms.
fn count_chroma_run(run: u32, n: u32) {
    let c = vec2u(run & 0xffffu, run >> 16u);
    atomicAdd(&hist_a[c.x], n);
    atomicAdd(&hist_b[c.y], n);
    let mid = i32(HIST / 2u);
    let du = i32(c.x) - mid;
    let dv = i32(c.y) - mid;
    atomicAdd(&hist_c[isqrt(u32(du * du + dv * dv))], n);
    let index = (c.x << DEPTH) | c.y;
    let hue = (hue_table[index >> 1u] >> (16u * (index & 1u))) & 0xffffu;
    atomicAdd(&hist_hue[hue], n);
}

// Each invocation takes a column of chroma samples down the band, counted by runs as the
// luma's pairs are (a run's saturation and hue found once).
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
    var dif_u = 0u;
    var dif_v = 0u;
    var mask = 0u;
    if x < params.chroma_width {
        var run = 0u;
        var run_n = 0u;
        for (var y_step = y0; y_step < y1; y_step += ROWS_AHEAD) {
            // ROWS_AHEAD rows' samples loaded at once, then counted.
            var cs: array<vec2u, ROWS_AHEAD>;
            var befores: array<u32, ROWS_AHEAD>;
            for (var k = 0u; k < ROWS_AHEAD; k++) {
                if y_step + k < y1 {
                    cs[k] = chroma(x, y_step + k);
                    befores[k] = prev_chroma[(y_step + k) * params.chroma_width + x];
                }
            }
            for (var k = 0u; k < ROWS_AHEAD; k++) {
                let y = y_step + k;
                if y >= y1 {
                    break;
                }
                let c = cs[k];
                let at = y * params.chroma_width + x;
                let before = befores[k];
                let key = c.x | (c.y << 16u);
                prev_chroma[at] = key;
                let p = vec2u(before & 0xffffu, before >> 16u);
                dif_u += max(c.x, p.x) - min(c.x, p.x);
                dif_v += max(c.y, p.y) - min(c.y, p.y);
                mask |= key;
                if key != run {
                    if run_n != 0u {
                        count_chroma_run(run, run_n);
                    }
                    run = key;
                    run_n = 0u;
                }
                run_n += 1u;
            }
        }
        if run_n != 0u {
            count_chroma_run(run, run_n);
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
        flush_bin(HUE_AT + s, atomicLoad(&hist_hue[s]));
    }
    if local == 0u {
        add64(DIF_AT + 2u, atomicLoad(&sums[0]));
        add64(DIF_AT + 4u, atomicLoad(&sums[1]));
        let m = atomicLoad(&sums[2]);
        atomicOr(&out[MASK_AT + 1u], m & 0xffffu);
        atomicOr(&out[MASK_AT + 2u], m >> 16u);
    }
}
