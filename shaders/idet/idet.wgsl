// Interlace detection: the sums FFmpeg's idet decides a frame from, over the planes of three
// frames kept (previous, current, next) in one buffer, each laid out as the upload's staging
// memory (rows `pitch` words apart). Twin of src/idet/cpu.rs.
//
// For each line y from 2 to rows - 3 of each plane, with a = cur[y - 1] + cur[y + 1]:
//   alpha[y & 1]       += |a - 2 prev[y]|      alpha[(y & 1) ^ 1] += |a - 2 next[y]|
//   delta              += |a - 2 cur[y]|       gamma[(y & 1) ^ 1] += |2 cur[y] - 2 prev[y]|
//
// A workgroup takes ROWS lines of one plane (z), a line for each row of its invocations, which
// take four samples at a time (one 32-bit word of 8-bit samples, two of 16-bit ones) along the
// line, WG_X apart. Each invocation's sums stay within 32 bits (a line of at most 2^14 samples
// of 16 bits); the workgroup adds them in 64 bits, and adds its five sums into `sums` (low,
// high words) with the carry.
//
// Every index is in bounds by construction (the module is built without naga's checks): the
// frames' bases are whole frames apart within the buffer; rows read are within 1 of a line in
// 2..rows - 3; a quad's words lie within its row's pitch (a multiple of 256 bytes, at least the
// samples' bytes); the shared arrays are indexed by sum * WG + local.

struct Plane {
    // First word of the plane, words between rows, quads of samples a row, rows, samples a row.
    offset: u32,
    pitch: u32,
    quads: u32,
    rows: u32,
    samples: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct Params {
    planes: array<Plane, 3>,
    planes_used: u32,
    // 1: samples take two bytes; bits above the value (P010's 6).
    wide: u32,
    shift: u32,
    _pad: u32,
    // Where the previous, current and next frames' planes start in `frames`, in words.
    prev_base: u32,
    cur_base: u32,
    next_base: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> frames: array<u32>;
// alpha[0], alpha[1], delta, gamma[0], gamma[1]: low and high words each.
@group(0) @binding(2) var<storage, read_write> sums: array<atomic<u32>, 10>;

const WG_X: u32 = 64u;
const ROWS: u32 = 4u;
// Invocations in a workgroup.
const WG: u32 = WG_X * ROWS;

var<workgroup> low: array<u32, 1280>;
var<workgroup> high: array<u32, 1280>;

// Four samples of row `row` of the frame at `base`, from quad q.
fn four(base: u32, plane: Plane, row: u32, q: u32) -> vec4<i32> {
    let at = base + plane.offset + row * plane.pitch;
    if params.wide == 1u {
        let a = frames[at + 2u * q];
        let b = frames[at + 2u * q + 1u];
        let wide = vec4<u32>(a & 0xffffu, a >> 16u, b & 0xffffu, b >> 16u);
        return vec4<i32>(wide >> vec4<u32>(params.shift));
    }
    let w = frames[at + q];
    return vec4<i32>((vec4<u32>(w) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu));
}

fn total(v: vec4<i32>) -> u32 {
    let u = vec4<u32>(v);
    return u.x + u.y + u.z + u.w;
}

// The five rows' quads at quad q of line y.
struct Quads {
    above: vec4<i32>,
    below: vec4<i32>,
    here: vec4<i32>,
    prev: vec4<i32>,
    next: vec4<i32>,
}

fn quads(plane: Plane, y: u32, q: u32) -> Quads {
    return Quads(
        four(params.cur_base, plane, y - 1u, q),
        four(params.cur_base, plane, y + 1u, q),
        four(params.cur_base, plane, y, q),
        four(params.prev_base, plane, y, q),
        four(params.next_base, plane, y, q),
    );
}

// alpha (with the previous frame's line, with the next's), delta, gamma of quad q's samples
// within the line.
fn sums_of(plane: Plane, v: Quads, q: u32) -> vec4<u32> {
    let lanes = vec4<u32>(4u * q) + vec4<u32>(0u, 1u, 2u, 3u);
    let inside = vec4<i32>(lanes < vec4<u32>(plane.samples));
    let a = v.above + v.below;
    return vec4<u32>(
        total(abs(a - 2 * v.prev) * inside),
        total(abs(a - 2 * v.next) * inside),
        total(abs(a - 2 * v.here) * inside),
        total(abs(2 * v.here - 2 * v.prev) * inside),
    );
}

@compute @workgroup_size(64, 4, 1)
fn idet(
    @builtin(local_invocation_id) at: vec3u,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3u,
) {
    // alpha[0], alpha[1], delta, gamma[0], gamma[1] of this invocation's samples.
    var mine = array<u32, 5>(0u, 0u, 0u, 0u, 0u);
    if group.z < params.planes_used {
        let plane = params.planes[group.z];
        let y = 2u + group.x * ROWS + at.y;
        if y + 2u < plane.rows {
            let parity = y & 1u;
            // Two quads a turn, WG_X apart, their loads issued together (lanes past the row's
            // samples count nothing; a second quad past the row's quads is read as the first).
            var line = vec4<u32>(0u);
            for (var q = at.x; q < plane.quads; q += 2u * WG_X) {
                let q2 = select(q, q + WG_X, q + WG_X < plane.quads);
                let first = quads(plane, y, q);
                let second = quads(plane, y, q2);
                line += sums_of(plane, first, q);
                line += select(vec4<u32>(0u), sums_of(plane, second, q2), q2 != q);
            }
            mine[parity] += line.x;
            mine[parity ^ 1u] += line.y;
            mine[2u] += line.z;
            mine[3u + (parity ^ 1u)] += line.w;
        }
    }
    for (var k = 0u; k < 5u; k++) {
        low[k * WG + local] = mine[k];
        high[k * WG + local] = 0u;
    }
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
        if local < stride {
            for (var k = 0u; k < 5u; k++) {
                let i = k * WG + local;
                let a = low[i];
                let b = low[i + stride];
                low[i] = a + b;
                high[i] += high[i + stride] + select(0u, 1u, a > 0xffffffffu - b);
            }
        }
        workgroupBarrier();
    }
    if local < 5u {
        let add = low[local * WG];
        let old = atomicAdd(&sums[2u * local], add);
        let carry = select(0u, 1u, old > 0xffffffffu - add);
        let up = high[local * WG] + carry;
        if up != 0u {
            atomicAdd(&sums[2u * local + 1u], up);
        }
    }
}
