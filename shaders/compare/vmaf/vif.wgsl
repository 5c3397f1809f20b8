// VIF as libvmaf 3.2.0's integer_vif computes it (src/compare/vmaf/vif.rs, the CPU twin):
// `stats` gives one scale's four sums (the information kept and carried, in Q11 logarithms,
// and the flat pixels' count and variance) as one partial per workgroup of 32x32 pixels;
// `decimate_rows` and `decimate_columns` blur and halve a scale into the next; `heat_map`
// writes scale 0's loss at each pixel instead of summing (the compare window's heat map). The module is
// built per scale: its filter (`TAPS` taps, `FILTER` in Q16 and `FILTER_F` as doubles) is
// put in front of it, so that the filter loops unroll.
//
// Each pixel's local moments come from a separable filter of up to 17 taps: the workgroup
// loads its samples with a mirrored border of 8, then, eight rows of pixels at a time, filters
// the columns (rounding the moments back to 16 and 32 bits as libvmaf's vertical pass does)
// and then the rows. The means are summed
// in 32-bit integers; the squares and the product in doubles, where every value is an integer
// below 2^48 (taps summing to 2^16 times squares below 2^32), so each multiply-add is exact
// and their order and fusing cannot change a bit. Rounding shifts of those sums are exact in
// double too (a power-of-two scale, then floor). The gain and the noise variance are computed
// in double, as libvmaf does; the product subtracted from σ₂² is multiplied by `one` (1, from
// the uniform), so that no compiler fuses it into a multiply-add whose single rounding would
// differ from C's two.

struct Params {
    width: u32,
    height: u32,
    // The vertical pass's shifts: means to 16 bits, squares to 32.
    mean_shift: u32,
    square_shift: u32,
    partial_offset: u32,
    _pad0: u32,
    _pad1: u32,
    _pad3: u32,
    gain_limit: f64,
    gain_epsilon: f64,
    one: f64,
    // The vertical pass's rounding of the squares as a double: 2^(shift - 1) (0 for no shift)
    // and 2^-shift.
    square_half: f64,
    square_scale: f64,
    _pad2: f64,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> reference: array<u32>;
@group(0) @binding(2) var<storage, read> judged: array<u32>;
@group(0) @binding(3) var<storage, read> log2_table: array<u32>;
@group(0) @binding(4) var<storage, read_write> partials: array<i64>;

const TILE_W: u32 = 32u;
// Rows of pixels a workgroup measures, eight (its height) at a time.
const TILE_H: u32 = 32u;
const CHUNK_H: u32 = 8u;
const BORDER: u32 = 8u;
const IN_W: u32 = TILE_W + 2u * BORDER;
const IN_H: u32 = TILE_H + 2u * BORDER;
const NOISE_VARIANCE: i32 = 131072;
// The values each invocation adds up (common.wgsl's `reduce_workgroup`).
const SUMS: u32 = 4u;
const LOG2_NOISE_VARIANCE_Q11: i32 = 34816;

// Reference | judged << 16.
var<workgroup> samples: array<u32, IN_W * IN_H>;
// The vertical pass: means (reference | judged << 16), squares and product (whole numbers).
var<workgroup> means: array<u32, IN_W * CHUNK_H>;
var<workgroup> square1: array<f64, IN_W * CHUNK_H>;
var<workgroup> square2: array<f64, IN_W * CHUNK_H>;
var<workgroup> product: array<f64, IN_W * CHUNK_H>;

fn leading_zeros(v: u64) -> u32 {
    let high = u32(v >> 32u);
    if high != 0u {
        return countLeadingZeros(high);
    }
    return 32u + countLeadingZeros(u32(v & 0xfffffffflu));
}

// log2(v) in Q11 from its 16 leading bits (v >= 2^15).
fn log2_q11(v: u64) -> i32 {
    let shift = 48u - leading_zeros(v);
    let leading = u32(v >> shift);
    return i32(log2_table[leading - 32768u]) + 2048 * i32(shift);
}

// `round_shift` of a whole double below 2^53 by the vertical pass's square shift.
fn round_square(v: f64) -> f64 {
    return floor((v + params.square_half) * params.square_scale);
}

// A moment (a whole double below 2^48) less the product of two means, as libvmaf forms it in
// 32-bit arithmetic: both rounded, then subtracted, wrapping.
fn centred(moment: f64, a: u32, b: u32) -> i32 {
    let means = u32(round_shift(u64(a) * u64(b), 32u));
    let rounded = u32(floor((moment + 32768.0lf) * (1.0lf / 65536.0lf)));
    return bitcast<i32>(rounded - means);
}

// One pixel's terms in the sums: flat (its judged variance in `first`), or the information
// the reference carries there (`first`) and the part the judged keeps (`kept`), in Q11.
struct Terms {
    flat: bool,
    first: i32,
    kept: i32,
}

// A pixel's terms, from the vertical pass's row `row`, its leftmost neighbour at `first` (the
// body of libvmaf's horizontal loop).
fn pixel_terms(first: u32, row: u32) -> Terms {
    var mean1 = 0u;
    var mean2 = 0u;
    var sq1 = 0.0lf;
    var sq2 = 0.0lf;
    var prod = 0.0lf;
    for (var k = 0u; k < TAPS; k++) {
        let at = row * IN_W + first + k;
        let c = FILTER[k];
        let cf = FILTER_F[k];
        let m = means[at];
        mean1 += c * (m & 0xffffu);
        mean2 += c * (m >> 16u);
        sq1 = fma(cf, square1[at], sq1);
        sq2 = fma(cf, square2[at], sq2);
        prod = fma(cf, product[at], prod);
    }
    let sigma1_sq = centred(sq1, mean1, mean1);
    let sigma2_sq = max(centred(sq2, mean2, mean2), 0);
    let sigma12 = centred(prod, mean1, mean2);
    if sigma1_sq < NOISE_VARIANCE {
        return Terms(true, sigma2_sq, 0);
    }
    let carried = log2_q11(u64(bitcast<u32>(NOISE_VARIANCE + sigma1_sq))) - LOG2_NOISE_VARIANCE_Q11;
    var kept = 0;
    if sigma12 > 0 && sigma2_sq > 0 {
        var gain = f64(sigma12) / (f64(sigma1_sq) + params.gain_epsilon);
        let noise_f = f64(sigma2_sq) - (gain * f64(sigma12)) * params.one;
        let noise = select(0, i32(noise_f), noise_f > 0.0lf);
        gain = min(gain, params.gain_limit);
        let noise_floor = bitcast<u32>(noise + NOISE_VARIANCE);
        let signal = i64(gain * gain * f64(sigma1_sq)) + i64(noise_floor);
        kept = log2_q11(u64(signal)) - log2_q11(u64(noise_floor));
    }
    return Terms(false, carried, kept);
}

// The workgroup's samples, with their mirrored border.
fn load_tile(wg: vec3u, lid: u32) {
    let w = i32(params.width);
    let h = i32(params.height);
    let x0 = i32(wg.x * TILE_W) - i32(BORDER);
    let y0 = i32(wg.y * TILE_H) - i32(BORDER);
    for (var i = lid; i < IN_W * IN_H; i += 256u) {
        let x = mirror(x0 + i32(i % IN_W), w);
        let y = mirror(y0 + i32(i / IN_W), h);
        let at = u32(y * w + x);
        samples[i] = reference[at] | (judged[at] << 16u);
    }
}

// The vertical pass for chunk `chunk`'s rows, every column of the tile and its border.
fn vertical_pass(chunk: u32, lid: u32) {
    let skip = BORDER - TAPS / 2u;
    for (var i = lid; i < IN_W * CHUNK_H; i += 256u) {
        let column = i % IN_W;
        let row = chunk * CHUNK_H + i / IN_W;
        var mean1 = 0u;
        var mean2 = 0u;
        var sq1 = 0.0lf;
        var sq2 = 0.0lf;
        var prod = 0.0lf;
        for (var k = 0u; k < TAPS; k++) {
            let s = samples[(row + skip + k) * IN_W + column];
            let r = s & 0xffffu;
            let d = s >> 16u;
            let c = FILTER[k];
            mean1 += c * r;
            mean2 += c * d;
            let rf = exact_f64(r);
            let df = exact_f64(d);
            let weighted_r = exact_f64(c * r);
            sq1 = fma(weighted_r, rf, sq1);
            sq2 = fma(exact_f64(c * d), df, sq2);
            prod = fma(weighted_r, df, prod);
        }
        let m1 = u32(round_shift(u64(mean1), params.mean_shift)) & 0xffffu;
        let m2 = u32(round_shift(u64(mean2), params.mean_shift)) & 0xffffu;
        means[i] = m1 | (m2 << 16u);
        // libvmaf keeps these as uint32_t: below 2^32 whatever the depth.
        square1[i] = round_square(sq1);
        square2[i] = round_square(sq2);
        product[i] = round_square(prod);
    }
}

@compute @workgroup_size(32, 8)
fn stats(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(num_workgroups) groups: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    load_tile(wg, lid);
    workgroupBarrier();
    let skip = BORDER - TAPS / 2u;
    var values: array<i64, SUMS>;
    for (var chunk = 0u; chunk < TILE_H / CHUNK_H; chunk++) {
        vertical_pass(chunk, lid);
        workgroupBarrier();
        let x = wg.x * TILE_W + local.x;
        let y = wg.y * TILE_H + chunk * CHUNK_H + local.y;
        if x < params.width && y < params.height {
            let t = pixel_terms(local.x + skip, local.y);
            if t.flat {
                values[2] += wide(t.first);
                values[3] += 1li;
            } else {
                values[1] += wide(t.first);
                values[0] += wide(t.kept);
            }
        }
        workgroupBarrier();
    }
    let total = reduce_workgroup(lid, values);
    if lid == 0u {
        let at = (params.partial_offset + wg.y * groups.x + wg.x) * 4u;
        for (var k = 0u; k < 4u; k++) {
            partials[at + k] = total[k];
        }
    }
}

// VIF's loss map (scale 0): each pixel's information lost, in Q11 bits (`PixelTerms::loss_q11`
// of the CPU twin): what the reference carries less what the judged keeps, or a flat pixel's
// judged variance over 16384 x 65025 / 2048.
@group(0) @binding(9) var<storage, read_write> heat: array<i32>;

const FLAT_LOSS_DIVISOR: u32 = 520200u;

@compute @workgroup_size(32, 8)
fn heat_map(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    load_tile(wg, lid);
    workgroupBarrier();
    let skip = BORDER - TAPS / 2u;
    for (var chunk = 0u; chunk < TILE_H / CHUNK_H; chunk++) {
        vertical_pass(chunk, lid);
        workgroupBarrier();
        let x = wg.x * TILE_W + local.x;
        let y = wg.y * TILE_H + chunk * CHUNK_H + local.y;
        if x < params.width && y < params.height {
            let t = pixel_terms(local.x + skip, local.y);
            var loss = t.first - t.kept;
            if t.flat {
                loss = i32(bitcast<u32>(t.first) / FLAT_LOSS_DIVISOR);
            }
            heat[y * params.width + x] = loss;
        }
        workgroupBarrier();
    }
}

// The next scale's picture, first half: the even rows filtered vertically (`width` x
// `height / 2`), rounded to 16 bits. `mean_shift` is the shift (the depth from the samples,
// else 16).
@group(0) @binding(5) var<storage, read_write> rows_out: array<u32>;

@compute @workgroup_size(16, 16)
fn decimate_rows(@builtin(global_invocation_id) id: vec3u) {
    let out_h = params.height / 2u;
    if id.x >= params.width || id.y >= out_h {
        return;
    }
    let half = i32(TAPS / 2u);
    var r = 0u;
    var d = 0u;
    for (var k = 0u; k < TAPS; k++) {
        let y = mirror(2 * i32(id.y) + i32(k) - half, i32(params.height));
        let at = u32(y) * params.width + id.x;
        r += FILTER[k] * reference[at];
        d += FILTER[k] * judged[at];
    }
    let at = id.y * params.width + id.x;
    rows_out[at] = u32(round_shift(u64(r), params.mean_shift)) & 0xffffu;
    rows_out[params.width * out_h + at] = u32(round_shift(u64(d), params.mean_shift)) & 0xffffu;
}

// Second half: the even columns of those rows filtered horizontally, into the next scale's
// reference and judged pictures (`width / 2` x `height / 2`).
@group(0) @binding(6) var<storage, read> rows_in: array<u32>;
@group(0) @binding(7) var<storage, read_write> next_reference: array<u32>;
@group(0) @binding(8) var<storage, read_write> next_judged: array<u32>;

@compute @workgroup_size(16, 16)
fn decimate_columns(@builtin(global_invocation_id) id: vec3u) {
    let out_w = params.width / 2u;
    let out_h = params.height / 2u;
    if id.x >= out_w || id.y >= out_h {
        return;
    }
    let half = i32(TAPS / 2u);
    var r = 0u;
    var d = 0u;
    for (var k = 0u; k < TAPS; k++) {
        let x = mirror(2 * i32(id.x) + i32(k) - half, i32(params.width));
        let at = id.y * params.width + u32(x);
        r += FILTER[k] * rows_in[at];
        d += FILTER[k] * rows_in[params.width * out_h + at];
    }
    let at = id.y * out_w + id.x;
    next_reference[at] = u32(round_shift(u64(r), 16u)) & 0xffffu;
    next_judged[at] = u32(round_shift(u64(d), 16u)) & 0xffffu;
}
