// ADM as libvmaf 3.2.0's integer_adm computes it (src/compare/vmaf/adm/, the CPU twin), one
// scale at a time: `dwt` splits both pictures into the approximation and three detail bands,
// `decouple` splits the judged detail into what restores the reference's and the additive
// impairment and weights the impairment by contrast sensitivity, `mask` sums each scored row's
// masked cubes (numerator) and the reference's cubes (denominator); collect.wgsl rounds and
// shifts each row's sums into the scale's totals, as libvmaf does.
//
// Scale 0 keeps its coefficients in int16 (wrapping), the others in int32. Bands are stored
// as i32 planes: approximation, then the details h, v, d.

// The values each invocation adds up (common.wgsl's `reduce_workgroup`).
const SUMS: u32 = 6u;

struct Params {
    // The input's size (dwt) or the bands' (decouple, mask).
    width: u32,
    height: u32,
    // 1 at scale 0: coefficients wrap to int16.
    narrow16: u32,
    // The DWT's rounding and shifts, and the DC offset its low pass loses (scale 0).
    vertical_shift: u32,
    vertical_round: i32,
    horizontal_shift: u32,
    horizontal_round: i32,
    dc_offset: i32,
    // The region decouple fills (scored, widened by the masking's neighbours) and the scored
    // region mask sums: left, top, right, bottom.
    needed: vec4u,
    scored: vec4u,
    // The CSF: per orientation (h, v, d; w unused) the weight, its rounding and shift, then the
    // thirtieth's factor, rounding and shift.
    csf_weight: vec4u,
    csf_round: vec4i,
    csf_shift: vec4u,
    thirtieth: vec4i,
    // Masking: the restored detail's weight per orientation, then (rounding, shift, unused).
    mask_weight: vec4u,
    mask_weight_round_shift: vec4i,
    // The fifteenth's factor, rounding and shift.
    fifteenth: vec4i,
    threshold_shift: vec4u,
    square_round: vec4i,
    square_shift: vec4u,
    cube_round: vec4i,
    cube_shift: vec4u,
    // Denominator: the square's rounding and shift, the cube's rounding and shift.
    denominator: vec4u,
    // Where this scale's row sums start in `partials` (six to a row).
    row_offset: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    gain_limit: f64,
    cos_squared: f64,
    // 2^-vertical_shift and 2^-horizontal_shift.
    vertical_scale: f64,
    horizontal_scale: f64,
}

@group(0) @binding(0) var<uniform> params: Params;

fn narrow(v: i64) -> i32 {
    if params.narrow16 == 1u {
        return to_i16(v);
    }
    return i32(v);
}

// --- dwt ---------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> source_reference: array<i32>;
@group(0) @binding(2) var<storage, read> source_judged: array<i32>;
@group(0) @binding(3) var<storage, read_write> bands_reference: array<i32>;
@group(0) @binding(4) var<storage, read_write> bands_judged: array<i32>;

const LOW_PASS = array<f64, 4>(15826.0lf, 27411.0lf, 7345.0lf, -4240.0lf);
const HIGH_PASS = array<f64, 4>(-4240.0lf, -7345.0lf, 27411.0lf, -15826.0lf);

// The input index the DWT reads for position k of a line of n (dwt.rs `taps`).
fn fold(k: i32, n: i32) -> i32 {
    if k < 0 {
        return -k;
    }
    if k >= n {
        return 2 * n - 1 - k;
    }
    return k;
}

// A signed 32-bit value as a double, exactly (see `exact_f64`).
fn exact_signed(x: i32) -> f64 {
    return exact_f64(bitcast<u32>(x) ^ 0x80000000u) - 2147483648.0lf;
}

// A whole double wrapped into the coefficients' type (int16 at scale 0, else int32), as C's
// narrowing conversion wraps: exact, the modulus being a power of two.
fn narrow_f(v: f64) -> f64 {
    let m = select(4294967296.0lf, 65536.0lf, params.narrow16 == 1u);
    return v - m * floor((v + 0.5lf * m) / m);
}

// `(sum + round) >> shift`, narrowed; `scale` is 2^-shift. Sums are whole numbers below 2^50
// (taps below 2^15 times coefficients of 32 bits at most), so the doubles are exact whatever
// the order of the multiply-adds.
fn rounded(sum: f64, round: f64, scale: f64) -> f64 {
    return narrow_f(floor((sum + round) * scale));
}

@compute @workgroup_size(16, 16)
fn dwt(@builtin(global_invocation_id) id: vec3u) {
    let bw = (params.width + 1u) / 2u;
    let bh = (params.height + 1u) / 2u;
    if id.x >= bw || id.y >= bh {
        return;
    }
    let w = i32(params.width);
    let h = i32(params.height);
    let dc = exact_signed(params.dc_offset);
    let vertical_round = exact_signed(params.vertical_round);
    let horizontal_round = exact_signed(params.horizontal_round);
    // Per picture (reference, judged) and input column: the vertical low and high passes.
    var low: array<vec2<f64>, 4>;
    var high: array<vec2<f64>, 4>;
    for (var c = 0; c < 4; c++) {
        let column = fold(2 * i32(id.x) - 1 + c, w);
        var lo = vec2<f64>(0.0lf, 0.0lf);
        var hi = vec2<f64>(0.0lf, 0.0lf);
        for (var k = 0; k < 4; k++) {
            let at = u32(fold(2 * i32(id.y) - 1 + k, h) * w + column);
            let s = vec2<f64>(exact_signed(source_reference[at]), exact_signed(source_judged[at]));
            lo = fma(vec2<f64>(LOW_PASS[k]), s, lo);
            hi = fma(vec2<f64>(HIGH_PASS[k]), s, hi);
        }
        for (var p = 0; p < 2; p++) {
            low[c][p] = rounded(lo[p] - dc, vertical_round, params.vertical_scale);
            high[c][p] = rounded(hi[p], vertical_round, params.vertical_scale);
        }
    }
    let plane = bw * bh;
    let at = id.y * bw + id.x;
    for (var p = 0; p < 2; p++) {
        var a = 0.0lf;
        var v = 0.0lf;
        var hh = 0.0lf;
        var d = 0.0lf;
        for (var c = 0; c < 4; c++) {
            a = fma(LOW_PASS[c], low[c][p], a);
            v = fma(HIGH_PASS[c], low[c][p], v);
            hh = fma(LOW_PASS[c], high[c][p], hh);
            d = fma(HIGH_PASS[c], high[c][p], d);
        }
        let bands = vec4i(
            i32(rounded(a, horizontal_round, params.horizontal_scale)),
            i32(rounded(hh, horizontal_round, params.horizontal_scale)),
            i32(rounded(v, horizontal_round, params.horizontal_scale)),
            i32(rounded(d, horizontal_round, params.horizontal_scale)),
        );
        for (var b = 0u; b < 4u; b++) {
            if p == 0 {
                bands_reference[b * plane + at] = bands[b];
            } else {
                bands_judged[b * plane + at] = bands[b];
            }
        }
    }
}

// --- decouple ----------------------------------------------------------------------------

@group(0) @binding(5) var<storage, read> detail_reference: array<i32>;
@group(0) @binding(6) var<storage, read> detail_judged: array<i32>;
// Per orientation (3 planes each): the restored detail, the weighted impairment, its thirtieths.
@group(0) @binding(7) var<storage, read_write> restored_out: array<i32>;
@group(0) @binding(11) var<storage, read_write> weighted_out: array<i32>;
@group(0) @binding(12) var<storage, read_write> thirtieth_out: array<i32>;

fn ratio_q15(o: i64, t: i64) -> i64 {
    let negative = o < 0li;
    let magnitude = u32(select(o, 0li - o, negative));
    var divisor = magnitude;
    var shift = 0u;
    if magnitude >= 32768u {
        shift = 17u - countLeadingZeros(magnitude);
        divisor = (magnitude + (1u << (shift - 1u))) >> shift;
    }
    let round = wide(bitcast<i32>(1u << (14u + shift)));
    let reciprocal = wide(1073741824 / i32(divisor));
    var q = reciprocal * t;
    if negative {
        q = 0li - q;
    }
    return (q + round) >> (15u + shift);
}

fn restore(o: i64, t: i64, aligned: bool) -> i64 {
    var k = 32768li;
    if o != 0li {
        k = ratio_q15(o, t);
    }
    if k < 0li {
        k = 0li;
    }
    if k > 32768li {
        k = 32768li;
    }
    let restored = (k * o + 16384li) >> 15u;
    let scaled = f64(restored) * params.gain_limit;
    let judged_value = f64(t);
    if aligned && k > 0li && o > 0li {
        return i64(select(judged_value, scaled, scaled < judged_value));
    }
    if aligned && k > 0li && o < 0li {
        return i64(select(judged_value, scaled, scaled > judged_value));
    }
    return restored;
}

fn within_one_degree(oh: i64, ov: i64, th: i64, tv: i64) -> bool {
    let dot = f64(f32(oh * th + ov * tv)) / 4096.0lf;
    let o_sq = f64(f32(oh * oh + ov * ov)) / 4096.0lf;
    let t_sq = f64(f32(th * th + tv * tv)) / 4096.0lf;
    return dot >= 0.0lf && dot * dot >= params.cos_squared * o_sq * t_sq;
}

@compute @workgroup_size(16, 16)
fn decouple(@builtin(global_invocation_id) id: vec3u) {
    let bw = params.width;
    let bh = params.height;
    if id.x >= bw || id.y >= bh {
        return;
    }
    let plane = bw * bh;
    let at = id.y * bw + id.x;
    let n = params.needed;
    if id.x < n.x || id.y < n.y || id.x >= n.z || id.y >= n.w {
        for (var b = 0u; b < 3u; b++) {
            restored_out[b * plane + at] = 0;
            weighted_out[b * plane + at] = 0;
            thirtieth_out[b * plane + at] = 0;
        }
        return;
    }
    var o: array<i64, 3>;
    var t: array<i64, 3>;
    for (var b = 0u; b < 3u; b++) {
        o[b] = wide(detail_reference[(b + 1u) * plane + at]);
        t[b] = wide(detail_judged[(b + 1u) * plane + at]);
    }
    let aligned = within_one_degree(o[0], o[1], t[0], t[1]);
    for (var b = 0u; b < 3u; b++) {
        let r = narrow(restore(o[b], t[b], aligned));
        let additive = narrow(t[b] - wide(r));
        let weighted_value = narrow((i64(params.csf_weight[b]) * wide(additive) + wide(params.csf_round[b])) >> params.csf_shift[b]);
        let thirtieth_value = narrow((wide(params.thirtieth.x) * wide(c_abs(weighted_value)) + wide(params.thirtieth.y)) >> u32(params.thirtieth.z));
        restored_out[b * plane + at] = r;
        weighted_out[b * plane + at] = weighted_value;
        thirtieth_out[b * plane + at] = thirtieth_value;
    }
}

// --- mask --------------------------------------------------------------------------------

@group(0) @binding(8) var<storage, read> restored: array<i32>;
@group(0) @binding(13) var<storage, read> weighted: array<i32>;
@group(0) @binding(14) var<storage, read> thirtieths: array<i32>;
@group(0) @binding(9) var<storage, read> reference_detail: array<i32>;
@group(0) @binding(10) var<storage, read_write> row_sums: array<i64>;

fn neighbour(i: u32, delta: i32, n: u32) -> u32 {
    if delta < 0 {
        return select(i - 1u, 1u, i == 0u);
    }
    if delta > 0 {
        return select(i + 1u, n - 1u, i == n - 1u);
    }
    return i;
}

fn masked_cube(b: u32, detail: i64, threshold: i32) -> i64 {
    let x_weighted = (i64(params.mask_weight[b]) * detail + wide(params.mask_weight_round_shift.x))
        >> u32(params.mask_weight_round_shift.y);
    let x = wide(max(c_abs(i32(x_weighted)) - (threshold << params.threshold_shift[b]), 0));
    let square = i32((x * x + wide(params.square_round[b])) >> params.square_shift[b]);
    return (wide(square) * x + wide(params.cube_round[b])) >> params.cube_shift[b];
}

@compute @workgroup_size(256)
fn mask(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lid: u32) {
    let bw = params.width;
    let bh = params.height;
    let plane = bw * bh;
    let s = params.scored;
    let y = s.y + wg.x;
    var values: array<i64, SUMS>;
    for (var x = s.x + lid; x < s.z; x += 256u) {
        var threshold = 0;
        for (var b = 0u; b < 3u; b++) {
            var sum = 0;
            for (var dy = -1; dy <= 1; dy++) {
                for (var dx = -1; dx <= 1; dx++) {
                    if dx == 0 && dy == 0 {
                        let a = weighted[b * plane + y * bw + x];
                        let f = params.fifteenth;
                        sum += narrow((wide(f.x) * wide(c_abs(a)) + wide(f.y)) >> u32(f.z));
                    } else {
                        let at = neighbour(y, dy, bh) * bw + neighbour(x, dx, bw);
                        sum += thirtieths[b * plane + at];
                    }
                }
            }
            threshold += sum;
        }
        let at = y * bw + x;
        for (var b = 0u; b < 3u; b++) {
            values[b] += masked_cube(b, wide(restored[b * plane + at]), threshold);
            let c = u64(bitcast<u32>(c_abs(reference_detail[(b + 1u) * plane + at])));
            let d = params.denominator;
            let square = (c * c + u64(d.x)) >> d.y;
            let cube = (square * c + u64(d.z)) >> d.w;
            values[3u + b] += i64(cube);
        }
    }
    let total = reduce_workgroup(lid, values);
    if lid == 0u {
        for (var k = 0u; k < 6u; k++) {
            row_sums[(params.row_offset + wg.x) * 6u + k] = total[k];
        }
    }
}
