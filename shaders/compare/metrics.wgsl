// The metrics of one component (Y, U or V) of a frame against its reference, as FFmpeg's psnr
// and ssim filters compute them: the sum of squared differences, and the SSIM of every 8x8
// window of four 4x4 blocks (stepping 4 samples), summed in fixed point. The CPU twin is
// src/compare/metrics.rs.
//
// A workgroup takes 16x16 blocks: each invocation sums its block (and the block's squared
// differences); the first 15x15 of them also own the window whose top-left block they are, and
// the squared differences of their block, so that workgroups overlap by one block (their
// windows' right and bottom blocks) and count everything once.

struct Params {
    // The component's size in samples.
    width: u32,
    height: u32,
    // Its depth: 8 to 12 bits.
    bits: u32,
    // The bits of a texel that hold the sample (P010 keeps 10 of 16 at the top).
    sample_mask: u32,
    // Which plane texture holds it, and which of a texel's channels (NV12's U, V: 0, 1).
    plane: u32,
    channel: u32,
    // Where its sums go in `sums` (4 words each).
    component: u32,
    // SSIM's constants as FFmpeg rounds them: (0.01 max)² 64 and (0.03 max)² 64 63.
    c1: u32,
    c2: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var a0: texture_2d<u32>;
@group(0) @binding(2) var a1: texture_2d<u32>;
@group(0) @binding(3) var a2: texture_2d<u32>;
@group(0) @binding(4) var b0: texture_2d<u32>;
@group(0) @binding(5) var b1: texture_2d<u32>;
@group(0) @binding(6) var b2: texture_2d<u32>;
// Per component: squared differences (low, high word), window SSIMs in fixed point (low, high).
@group(0) @binding(7) var<storage, read_write> sums: array<atomic<u32>>;

const TILE: u32 = 16u;
const OWNED: u32 = 15u;
// A window's SSIM v in [-1, 1] counts as round((v + 1) 2^22).
const FIXED_ONE: f32 = 4194304.0;

var<workgroup> blocks: array<vec4u, 256>;
var<workgroup> wg_sums: array<atomic<u32>, 4>;

fn masked(texel: vec4u) -> u32 {
    let raw = select(texel.r, texel.g, params.channel == 1u);
    return (raw & params.sample_mask) >> countTrailingZeros(params.sample_mask);
}

fn sample_a(at: vec2u) -> u32 {
    switch params.plane {
        case 0u: { return masked(textureLoad(a0, at, 0)); }
        case 1u: { return masked(textureLoad(a1, at, 0)); }
        default: { return masked(textureLoad(a2, at, 0)); }
    }
}

fn sample_b(at: vec2u) -> u32 {
    switch params.plane {
        case 0u: { return masked(textureLoad(b0, at, 0)); }
        case 1u: { return masked(textureLoad(b1, at, 0)); }
        default: { return masked(textureLoad(b2, at, 0)); }
    }
}

// Adds to a 64-bit count held as two words (low, high) at `at` and `at + 1`.
fn add_wide_wg(at: u32, value: u32) {
    let old = atomicAdd(&wg_sums[at], value);
    if old > 0xffffffffu - value {
        atomicAdd(&wg_sums[at + 1u], 1u);
    }
}

fn add_wide(at: u32, low: u32, high: u32) {
    let old = atomicAdd(&sums[at], low);
    var carry = 0u;
    if old > 0xffffffffu - low {
        carry = 1u;
    }
    if high + carry > 0u {
        atomicAdd(&sums[at + 1u], high + carry);
    }
}

// 64-bit two's complement integers as (low, high) words, for the window's terms beyond 8 bits
// (FFmpeg computes them in int64_t).
fn wide_mul(a: u32, b: u32) -> vec2u {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let low = al * bl;
    let mid1 = ah * bl;
    let mid2 = al * bh;
    var high = ah * bh + (mid1 >> 16u) + (mid2 >> 16u);
    let mid = (mid1 & 0xffffu) + (mid2 & 0xffffu) + (low >> 16u);
    high += mid >> 16u;
    return vec2u((mid << 16u) | (low & 0xffffu), high);
}

fn wide_add(a: vec2u, b: vec2u) -> vec2u {
    let low = a.x + b.x;
    return vec2u(low, a.y + b.y + select(0u, 1u, low < a.x));
}

fn wide_sub(a: vec2u, b: vec2u) -> vec2u {
    return vec2u(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn wide_shl(a: vec2u, n: u32) -> vec2u {
    return vec2u(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// The nearest f32 (ties to even), as C's conversion of an int64_t.
fn wide_to_f32(value: vec2u) -> f32 {
    let negative = (value.y >> 31u) == 1u;
    var m = value;
    if negative {
        m = wide_sub(vec2u(0u, 0u), value);
    }
    var magnitude: f32;
    if m.y == 0u {
        magnitude = f32(m.x);
    } else {
        // The top 32 bits, with any bit shifted out below them kept as the lowest (so that
        // the rounding to 24 bits sees it), then scaled back.
        let lz = countLeadingZeros(m.y);
        var top = m.y;
        var sticky = m.x;
        if lz > 0u {
            top = (m.y << lz) | (m.x >> (32u - lz));
            sticky = m.x << lz;
        }
        top |= select(0u, 1u, sticky != 0u);
        magnitude = ldexp(f32(top), i32(32u - lz));
    }
    return select(magnitude, -magnitude, negative);
}

// One window's SSIM from its sums (s1, s2, ss, s12), as FFmpeg's ssim_end1 (8 bits, int) and
// ssim_end1x (more, int64_t) compute it.
fn window_ssim(s: vec4u) -> f32 {
    if params.bits <= 8u {
        let c1 = i32(params.c1);
        let c2 = i32(params.c2);
        let s1 = i32(s.x);
        let s2 = i32(s.y);
        let vars = i32(s.z) * 64 - s1 * s1 - s2 * s2;
        let covar = i32(s.w) * 64 - s1 * s2;
        return f32(2 * s1 * s2 + c1) * f32(2 * covar + c2) / (f32(s1 * s1 + s2 * s2 + c1) * f32(vars + c2));
    }
    let c1 = vec2u(params.c1, 0u);
    let c2 = vec2u(params.c2, 0u);
    if params.bits <= 10u {
        // Up to 10 bits, s1 and s2 are below 2^16, so their products fit 32 bits; vars (at
        // least 0) and covar (at most half vars in magnitude, Cauchy-Schwarz) are below 2^31
        // with c2 added, so wrapping 32-bit arithmetic gives them exactly. Only the first
        // factors, up to 2^34, take two words.
        let s1s1 = s.x * s.x;
        let s2s2 = s.y * s.y;
        let s1s2 = s.x * s.y;
        let vars = (s.z << 6u) - s1s1 - s2s2;
        let covar = i32((s.w << 6u) - s1s2);
        let n1 = wide_add(wide_shl(vec2u(s1s2, 0u), 1u), c1);
        let d1 = wide_add(wide_add(vec2u(s1s1, 0u), vec2u(s2s2, 0u)), c1);
        return wide_to_f32(n1) * f32(2 * covar + i32(params.c2)) / (wide_to_f32(d1) * f32(vars + params.c2));
    }
    let s1s1 = wide_mul(s.x, s.x);
    let s2s2 = wide_mul(s.y, s.y);
    let s1s2 = wide_mul(s.x, s.y);
    let vars = wide_sub(wide_sub(wide_shl(vec2u(s.z, 0u), 6u), s1s1), s2s2);
    let covar = wide_sub(wide_shl(vec2u(s.w, 0u), 6u), s1s2);
    let n1 = wide_add(wide_shl(s1s2, 1u), c1);
    let n2 = wide_add(wide_shl(covar, 1u), c2);
    let d1 = wide_add(wide_add(s1s1, s2s2), c1);
    let d2 = wide_add(vars, c2);
    return wide_to_f32(n1) * wide_to_f32(n2) / (wide_to_f32(d1) * wide_to_f32(d2));
}

@compute @workgroup_size(16, 16)
fn metrics(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) index: u32,
) {
    let block = wg.xy * OWNED + local.xy;
    let origin = block * 4u;
    var s = vec4u(0u);
    var sse = 0u;
    for (var dy = 0u; dy < 4u; dy++) {
        for (var dx = 0u; dx < 4u; dx++) {
            let at = origin + vec2u(dx, dy);
            if at.x < params.width && at.y < params.height {
                let a = sample_a(at);
                let b = sample_b(at);
                let d = i32(a) - i32(b);
                sse += u32(d * d);
                s += vec4u(a, b, a * a + b * b, a * b);
            }
        }
    }
    blocks[index] = s;
    let owned = local.x < OWNED && local.y < OWNED;
    if owned && sse > 0u {
        add_wide_wg(0u, sse);
    }
    workgroupBarrier();
    let full = vec2u(params.width >> 2u, params.height >> 2u);
    if owned && block.x + 1u < full.x && block.y + 1u < full.y {
        let w = blocks[index] + blocks[index + 1u] + blocks[index + TILE] + blocks[index + TILE + 1u];
        let v = window_ssim(w);
        add_wide_wg(2u, u32(round((v + 1.0) * FIXED_ONE)));
    }
    workgroupBarrier();
    if index == 0u {
        let at = params.component * 4u;
        add_wide(at, atomicLoad(&wg_sums[0]), atomicLoad(&wg_sums[1]));
        add_wide(at + 2u, atomicLoad(&wg_sums[2]), atomicLoad(&wg_sums[3]));
    }
}
