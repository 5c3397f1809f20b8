// Motion as libvmaf 3.2.0's integer_motion measures it (src/compare/vmaf/motion.rs): the
// difference of the reference from the frame before, blurred with a 5-tap filter (vertical
// pass rounded to whole codes, horizontal pass in Q16, mirrored edges), summed as absolute
// values. One partial sum per workgroup of 32x32 samples, eight rows at a time.
//
// The filter sums are whole numbers below 2^33 (taps summing to 2^16 times differences of
// 16 bits at most), computed in double: exact, whatever the order, and the floor of a
// power-of-two scale is the arithmetic right shift libvmaf rounds with.

// The values each invocation adds up (common.wgsl's `reduce_workgroup`).
const SUMS: u32 = 1u;

struct Params {
    width: u32,
    height: u32,
    bits: u32,
    // Where this pass's partials start in `partials`.
    partial_offset: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> current: array<u32>;
@group(0) @binding(2) var<storage, read> previous: array<u32>;
@group(0) @binding(3) var<storage, read_write> partials: array<i64>;

const TILE_W: u32 = 32u;
const TILE_H: u32 = 32u;
const CHUNK_H: u32 = 8u;
const HALF: u32 = 2u;
const IN_W: u32 = TILE_W + 2u * HALF;
const IN_H: u32 = TILE_H + 2u * HALF;
const FILTER = array<f64, 5>(3571.0lf, 16004.0lf, 26386.0lf, 16004.0lf, 3571.0lf);

var<workgroup> difference: array<f64, IN_W * IN_H>;
var<workgroup> vertical: array<f64, IN_W * CHUNK_H>;

@compute @workgroup_size(32, 8)
fn motion(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(num_workgroups) groups: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let w = i32(params.width);
    let h = i32(params.height);
    let x0 = i32(wg.x * TILE_W) - i32(HALF);
    let y0 = i32(wg.y * TILE_H) - i32(HALF);
    // The tile's samples and a border of two, mirrored, as previous - current.
    for (var i = lid; i < IN_W * IN_H; i += 256u) {
        let x = mirror(x0 + i32(i % IN_W), w);
        let y = mirror(y0 + i32(i / IN_W), h);
        let at = u32(y * w + x);
        difference[i] = exact_f64(previous[at]) - exact_f64(current[at]);
    }
    workgroupBarrier();
    let y_round = exact_f64(1u << (params.bits - 1u));
    let y_scale = 1.0lf / exact_f64(1u << params.bits);
    var values: array<i64, SUMS>;
    for (var chunk = 0u; chunk < TILE_H / CHUNK_H; chunk++) {
        for (var i = lid; i < IN_W * CHUNK_H; i += 256u) {
            let column = i % IN_W;
            let row = chunk * CHUNK_H + i / IN_W;
            var sum = 0.0lf;
            for (var k = 0u; k < 5u; k++) {
                sum = fma(FILTER[k], difference[(row + k) * IN_W + column], sum);
            }
            vertical[i] = floor((sum + y_round) * y_scale);
        }
        workgroupBarrier();
        let x = wg.x * TILE_W + local.x;
        let y = wg.y * TILE_H + chunk * CHUNK_H + local.y;
        if x < params.width && y < params.height {
            var sum = 0.0lf;
            for (var k = 0u; k < 5u; k++) {
                sum = fma(FILTER[k], vertical[local.y * IN_W + local.x + k], sum);
            }
            values[0] += i64(abs(floor((sum + 32768.0lf) * (1.0lf / 65536.0lf))));
        }
        workgroupBarrier();
    }
    let total = reduce_workgroup(lid, values);
    if lid == 0u {
        partials[params.partial_offset + wg.y * groups.x + wg.x] = total[0];
    }
}
