// Motion as libvmaf 3.2.0's integer_motion measures it (src/compare/vmaf/motion.rs): the
// difference of the reference from the frame before, blurred with a 5-tap filter (vertical
// pass rounded to whole codes, horizontal pass in Q16, mirrored edges), summed as absolute
// values. One partial sum per workgroup of 32x8 samples.

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
const TILE_H: u32 = 8u;
const HALF: u32 = 2u;
const IN_W: u32 = TILE_W + 2u * HALF;
const IN_H: u32 = TILE_H + 2u * HALF;
const FILTER = array<i64, 5>(3571li, 16004li, 26386li, 16004li, 3571li);

var<workgroup> difference: array<i32, IN_W * IN_H>;
var<workgroup> vertical: array<i32, IN_W * TILE_H>;

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
        difference[i] = i32(previous[at]) - i32(current[at]);
    }
    workgroupBarrier();
    let y_round = 1li << (params.bits - 1u);
    for (var i = lid; i < IN_W * TILE_H; i += 256u) {
        let column = i % IN_W;
        let row = i / IN_W;
        var sum = 0li;
        for (var k = 0u; k < 5u; k++) {
            sum += FILTER[k] * wide(difference[(row + k) * IN_W + column]);
        }
        vertical[i] = i32((sum + y_round) >> params.bits);
    }
    workgroupBarrier();
    var values: array<i64, 6>;
    let x = wg.x * TILE_W + local.x;
    let y = wg.y * TILE_H + local.y;
    if x < params.width && y < params.height {
        var sum = 0li;
        for (var k = 0u; k < 5u; k++) {
            sum += FILTER[k] * wide(vertical[local.y * IN_W + local.x + k]);
        }
        values[0] = wide(c_abs(i32((sum + 32768li) >> 16u)));
    }
    let total = reduce_workgroup(lid, values, 1u);
    if lid == 0u {
        partials[params.partial_offset + wg.y * groups.x + wg.x] = total[0];
    }
}
