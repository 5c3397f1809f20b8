// What every VMAF pass shares: libvmaf's edge mirroring, and the workgroup sum of up to six
// 64-bit values that each reducing pass ends with. The CPU twin is src/compare/vmaf/.
//
// Integer sums are exact in any order, so a pass adds its invocations' values in the
// workgroup, writes one partial per workgroup, and `collect` (collect.wgsl) adds the partials.

// The sample that position `i` of a line of `len` samples reads: past either end the line is
// mirrored about its end samples (-1 reads 1, len reads len - 2), folding again where the
// mirror still falls outside (vif.rs `mirror`, integer_motion.c `mirror`).
fn mirror(i: i32, len: i32) -> i32 {
    if i >= 0 && i < len {
        return i;
    }
    if len < 2 {
        return 0;
    }
    let period = 2 * (len - 1);
    var f = i % period;
    if f < 0 {
        f += period;
    }
    return select(period - f, f, f < len);
}

// `(value + 2^(shift - 1)) >> shift` on an unsigned 64-bit value; no rounding for a shift of 0.
fn round_shift(value: u64, shift: u32) -> u64 {
    if shift == 0u {
        return value;
    }
    return (value + (1lu << (shift - 1u))) >> shift;
}

// C's abs of an int32_t as x86 computes it: INT_MIN stays INT_MIN.
fn c_abs(v: i32) -> i32 {
    return select(0 - v, v, v >= 0);
}

// Widens a signed 32-bit value to 64 bits. Written out through the unsigned conversion: Mesa's
// lavapipe compares a directly widened negative value with a constant as if it were positive
// (`i64(x) < 0` is false for x = -5), and every other use of a widened value goes through here too.
fn wide(x: i32) -> i64 {
    return i64(u64(bitcast<u32>(x))) - select(0li, 4294967296li, x < 0);
}

// Narrows to libvmaf's int16_t, wrapping.
fn to_i16(v: i64) -> i32 {
    return (i32(v) << 16u) >> 16u;
}

// Each module says how many values its invocations add up (`SUMS`).
const REDUCE_WG: u32 = 256u;
var<workgroup> reduced: array<array<i64, SUMS>, REDUCE_WG>;

// Adds `values` over the workgroup (every invocation calls it; `lid` is its local index);
// invocation 0 gets the sums.
fn reduce_workgroup(lid: u32, values: array<i64, SUMS>) -> array<i64, SUMS> {
    reduced[lid] = values;
    for (var stride = REDUCE_WG / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if lid < stride {
            for (var k = 0u; k < SUMS; k++) {
                reduced[lid][k] += reduced[lid + stride][k];
            }
        }
    }
    workgroupBarrier();
    return reduced[0];
}

// A 32-bit unsigned value as a double, exactly, without a conversion instruction (slow on many
// GPUs): 2^52 + x has x as its mantissa.
fn exact_f64(x: u32) -> f64 {
    return bitcast<f64>(u64(x) | 0x4330000000000000lu) - 4503599627370496.0lf;
}
