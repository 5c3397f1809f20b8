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

const LOW_PASS = array<i64, 4>(15826li, 27411li, 7345li, -4240li);
const HIGH_PASS = array<i64, 4>(-4240li, -7345li, 27411li, -15826li);

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

// Approximation, h, v and d at one position of one picture.
fn transform(reference: bool, x: u32, y: u32) -> vec4i {
    let w = i32(params.width);
    let h = i32(params.height);
    var low: array<i64, 4>;
    var high: array<i64, 4>;
    for (var c = 0; c < 4; c++) {
        let column = fold(2 * i32(x) - 1 + c, w);
        var lo = 0li;
        var hi = 0li;
        for (var k = 0; k < 4; k++) {
            let at = u32(fold(2 * i32(y) - 1 + k, h) * w + column);
            let s = wide(select(source_judged[at], source_reference[at], reference));
            lo += LOW_PASS[k] * s;
            hi += HIGH_PASS[k] * s;
        }
        low[c] = wide(narrow((lo - wide(params.dc_offset) + wide(params.vertical_round)) >> params.vertical_shift));
        high[c] = wide(narrow((hi + wide(params.vertical_round)) >> params.vertical_shift));
    }
    var a = 0li;
    var v = 0li;
    var hh = 0li;
    var d = 0li;
    for (var c = 0; c < 4; c++) {
        a += LOW_PASS[c] * low[c];
        v += HIGH_PASS[c] * low[c];
        hh += LOW_PASS[c] * high[c];
        d += HIGH_PASS[c] * high[c];
    }
    let round = wide(params.horizontal_round);
    let shift = params.horizontal_shift;
    return vec4i(
        narrow((a + round) >> shift),
        narrow((hh + round) >> shift),
        narrow((v + round) >> shift),
        narrow((d + round) >> shift),
    );
}

@compute @workgroup_size(16, 16)
fn dwt(@builtin(global_invocation_id) id: vec3u) {
    let bw = (params.width + 1u) / 2u;
    let bh = (params.height + 1u) / 2u;
    if id.x >= bw || id.y >= bh {
        return;
    }
    let plane = bw * bh;
    let at = id.y * bw + id.x;
    let r = transform(true, id.x, id.y);
    let j = transform(false, id.x, id.y);
    for (var b = 0u; b < 4u; b++) {
        bands_reference[b * plane + at] = r[b];
        bands_judged[b * plane + at] = j[b];
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
