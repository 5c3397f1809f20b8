// The VMAF passes' totals: each workgroup adds one run of partial sums (per-workgroup partials,
// or per-row sums that libvmaf rounds and shifts one by one before adding them), in 64 bits,
// wrapping as libvmaf's accumulators do.

// The values each invocation adds up (common.wgsl's `reduce_workgroup`).
const SUMS: u32 = 1u;

struct Total {
    start: u32,
    count: u32,
    stride: u32,
    shift: u32,
    round: i32,
    // 1: the sums are unsigned (shifted logically).
    unsigned: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> totals_wanted: array<Total>;
@group(0) @binding(1) var<storage, read> partials: array<i64>;
@group(0) @binding(2) var<storage, read_write> totals: array<i64>;

@compute @workgroup_size(256)
fn collect(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lid: u32) {
    let t = totals_wanted[wg.x];
    var sum = 0li;
    for (var i = lid; i < t.count; i += 256u) {
        let value = partials[t.start + i * t.stride] + wide(t.round);
        if t.unsigned == 1u {
            sum += i64(u64(value) >> t.shift);
        } else {
            sum += value >> t.shift;
        }
    }
    var values: array<i64, SUMS>;
    values[0] = sum;
    let total = reduce_workgroup(lid, values);
    if lid == 0u {
        totals[wg.x] = total[0];
    }
}
