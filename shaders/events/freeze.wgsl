// FFmpeg's freezedetect on a ring slot's Y'CbCr planes: the sum of absolute differences from
// the reference picture (the last that moved), whether that makes the picture frozen, and the
// reference replaced by the picture when it is not, all on the GPU (no readback waited for).
// Twin of `FreezeTwin` in src/events/freeze/mod.rs.
//
// - luma_sad, chroma_sad: each workgroup sums a band of BAND rows (luma: 2*WG_X columns, a
//   pair of samples an invocation; chroma: WG_X columns) into `partials`.
// - decide: one workgroup adds the partials into a 64-bit sum, and compares it with the
//   largest sum still frozen (found on the CPU from the filter's own test): `result` holds the
//   sum (low, high) and the verdict.
// - replace_luma, replace_chroma: a picture that is not frozen (or the first) becomes the
//   reference. The reference keeps luma two samples a word, chroma as U | V << 16.
//
// Chroma is compared over `chroma_rows` rows, the picture's height shifted down, as the filter
// sizes its planes.

struct FreezeParams { // twin: FreezeParams in src/events/freeze/gpu.rs
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_rows: u32,
    // 1: U and V interleaved in plane1 (NV12, P010).
    semi: u32,
    // Right shift of a texel to its sample (P010: 6).
    sample_shift: u32,
    // 0: no reference yet (the picture becomes it).
    has_reference: u32,
    // Where the chroma's partials start, and how many there are in all.
    luma_groups: u32,
    partial_count: u32,
    // The largest sum that is still frozen (low, high); limit_valid 0: none is.
    limit_low: u32,
    limit_high: u32,
    limit_valid: u32,
}

@group(0) @binding(0) var<uniform> params: FreezeParams;
@group(0) @binding(1) var<storage, read_write> reference_luma: array<u32>;
@group(0) @binding(2) var<storage, read_write> reference_chroma: array<u32>;
@group(0) @binding(3) var<storage, read_write> partials: array<u32>;
@group(0) @binding(4) var<storage, read_write> result: array<u32>;
@group(0) @binding(5) var plane0: texture_2d<u32>;
@group(0) @binding(6) var plane1: texture_2d<u32>;
@group(0) @binding(7) var plane2: texture_2d<u32>;

var<workgroup> group_sum: atomic<u32>;
var<workgroup> low_sums: array<u32, WG_X>;
var<workgroup> high_sums: array<u32, WG_X>;

fn luma(x: u32, y: u32) -> u32 {
    return (textureLoad(plane0, vec2u(x, y), 0).r >> params.sample_shift) & (HIST - 1u);
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

fn difference(a: u32, b: u32) -> u32 {
    return max(a, b) - min(a, b);
}

// The workgroup's sum into its partial.
fn store_partial(local: u32, sum: u32, at: u32) {
    atomicAdd(&group_sum, sum);
    workgroupBarrier();
    if local == 0u {
        partials[at] = atomicLoad(&group_sum);
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn luma_sad(
    @builtin(global_invocation_id) id: vec3u,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3u,
    @builtin(num_workgroups) groups: vec3u,
) {
    if local == 0u {
        atomicStore(&group_sum, 0u);
    }
    workgroupBarrier();
    let x = 2u * id.x;
    let pairs = (params.width + 1u) / 2u;
    var sum = 0u;
    if x < params.width && params.has_reference == 1u {
        for (var y = group.y * BAND; y < min(group.y * BAND + BAND, params.height); y++) {
            let kept = reference_luma[y * pairs + id.x];
            sum += difference(luma(x, y), kept & 0xffffu);
            if x + 1u < params.width {
                sum += difference(luma(x + 1u, y), kept >> 16u);
            }
        }
    }
    store_partial(local, sum, group.y * groups.x + group.x);
}

@compute @workgroup_size(WG_X, 1, 1)
fn chroma_sad(
    @builtin(global_invocation_id) id: vec3u,
    @builtin(local_invocation_index) local: u32,
    @builtin(workgroup_id) group: vec3u,
    @builtin(num_workgroups) groups: vec3u,
) {
    if local == 0u {
        atomicStore(&group_sum, 0u);
    }
    workgroupBarrier();
    let x = id.x;
    var sum = 0u;
    if x < params.chroma_width && params.has_reference == 1u {
        for (var y = group.y * BAND; y < min(group.y * BAND + BAND, params.chroma_rows); y++) {
            let kept = reference_chroma[y * params.chroma_width + x];
            let c = chroma(x, y);
            sum += difference(c.x, kept & 0xffffu) + difference(c.y, kept >> 16u);
        }
    }
    store_partial(local, sum, params.luma_groups + group.y * groups.x + group.x);
}

@compute @workgroup_size(WG_X, 1, 1)
fn decide(@builtin(local_invocation_index) local: u32) {
    // (Each partial is under 2^24 and each invocation adds a few thousand at most at 8K.)
    var low = 0u;
    for (var i = local; i < params.partial_count; i += WG_X) {
        low += partials[i];
    }
    low_sums[local] = low;
    high_sums[local] = 0u;
    workgroupBarrier();
    for (var stride = WG_X / 2u; stride > 0u; stride /= 2u) {
        if local < stride {
            let a = low_sums[local];
            let b = low_sums[local + stride];
            low_sums[local] = a + b;
            high_sums[local] += high_sums[local + stride] + select(0u, 1u, a > 0xffffffffu - b);
        }
        workgroupBarrier();
    }
    if local == 0u {
        let sad_low = low_sums[0];
        let sad_high = high_sums[0];
        let within = sad_high < params.limit_high || (sad_high == params.limit_high && sad_low <= params.limit_low);
        let frozen = params.has_reference == 1u && params.limit_valid == 1u && within;
        result[0] = sad_low;
        result[1] = sad_high;
        result[2] = select(0u, 1u, frozen);
        result[3] = 0u;
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn replace_luma(@builtin(global_invocation_id) id: vec3u, @builtin(workgroup_id) group: vec3u) {
    let x = 2u * id.x;
    if x >= params.width || result[2] == 1u {
        return;
    }
    let pairs = (params.width + 1u) / 2u;
    for (var y = group.y * BAND; y < min(group.y * BAND + BAND, params.height); y++) {
        var word = luma(x, y);
        if x + 1u < params.width {
            word |= luma(x + 1u, y) << 16u;
        }
        reference_luma[y * pairs + id.x] = word;
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn replace_chroma(@builtin(global_invocation_id) id: vec3u, @builtin(workgroup_id) group: vec3u) {
    let x = id.x;
    if x >= params.chroma_width || result[2] == 1u {
        return;
    }
    for (var y = group.y * BAND; y < min(group.y * BAND + BAND, params.chroma_rows); y++) {
        let c = chroma(x, y);
        reference_chroma[y * params.chroma_width + x] = c.x | (c.y << 16u);
    }
}
