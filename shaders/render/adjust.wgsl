// Picture adjustments, applied to the converted frame before anything counts or draws it:
// auto-levels or histogram equalisation (a per-channel lookup table the `levels` entry point
// builds on the GPU from the unadjusted frame's histogram, smoothed over frames), then mpv's
// saturation, then one curve for contrast, brightness and gamma (made on the CPU). Everything is
// integer arithmetic: the CPU twin in src/render/adjust.rs gives the same words bit for bit.

struct AdjustParams { // twin: AdjustParams in src/render/adjust.rs
    width: u32,
    height: u32,
    bits: u32,
    // 100 + mpv's saturation (−100..100): 0 is grey, 100 unchanged, 200 twice the chroma.
    saturation: i32,
    // 0: no lookup table, 1: auto-levels, 2: equalisation.
    mode: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: AdjustParams;
@group(0) @binding(1) var<storage, read> source: array<u32>;
@group(0) @binding(2) var<storage, read_write> adjusted: array<u32>;
@group(0) @binding(3) var adjusted_texture: texture_storage_2d<rgba8unorm, write>;
// Contrast, brightness and gamma: 2^bits entries.
@group(0) @binding(4) var<storage, read> curve: array<u32>;
// Auto-levels or equalisation: 2^bits entries for R, then G, then B.
@group(0) @binding(5) var<storage, read_write> table: array<u32>;
// The unadjusted frame's histogram in 2^bits bins (r, g, b, l), one bin per code value.
@group(0) @binding(6) var<storage, read> histogram: array<vec4u>;
// [0]: start over (no smoothing) when not 0; [1..7]: low and high points of R, G and B in
// 1/256 codes; [8..8+2^bits]: the equalisation curve in 1/256 codes.
@group(0) @binding(7) var<storage, read_write> state: array<i32>;

const STATE_LEVELS: u32 = 1u;
const STATE_CURVE: u32 = 8u;
// Auto-levels clips this many pixels per thousand at each end.
const CLIP_PER_MILLE: u32 = 1u;
// Smoothing: each frame moves 1/SMOOTHING of the way to the new value, unless the change is a
// cut (more than a quarter of the range for a level, an eighth on average for the curve).
const SMOOTHING: i32 = 8;

// mpv's saturation on R'G'B': each channel moves away from (or towards) BT.709 luma.
fn saturate_channel(c: u32, luma: i32, max_code: i32) -> u32 {
    let away = (i32(c) * 10000 - luma) * params.saturation;
    let scaled = (away + 50) / 100;
    return u32(clamp((luma + scaled + 5000) / 10000, 0, max_code));
}

@compute @workgroup_size(16, 16, 1)
fn adjust(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= params.width || id.y >= params.height {
        return;
    }
    let i = id.y * params.width + id.x;
    let size = 1u << params.bits;
    let max_code = i32(size - 1u);
    var c = unpack_pixel(source[i], params.bits);
    if params.mode != 0u {
        c = vec3u(table[c.x], table[size + c.y], table[2u * size + c.z]);
    }
    if params.saturation != 100 {
        let luma = 2126 * i32(c.x) + 7152 * i32(c.y) + 722 * i32(c.z);
        c = vec3u(
            saturate_channel(c.x, luma, max_code),
            saturate_channel(c.y, luma, max_code),
            saturate_channel(c.z, luma, max_code),
        );
    }
    c = vec3u(curve[c.x], curve[c.y], curve[c.z]);
    let word = pack_pixel(c, params.bits);
    adjusted[i] = word;
    textureStore(adjusted_texture, id.xy, pixel_texel(word, params.bits));
}

var<workgroup> sums: array<u32, 256>;
var<workgroup> low_at: array<atomic<u32>, 3>;
var<workgroup> high_at: array<atomic<u32>, 3>;
var<workgroup> first_count: atomic<u32>;
var<workgroup> change: atomic<u32>;
var<workgroup> levels_now: array<i32, 6>;

// Inclusive prefix sums of `sums` (Hillis–Steele); every thread calls it.
fn scan(t: u32) {
    for (var offset = 1u; offset < 256u; offset <<= 1u) {
        var v = sums[t];
        if t >= offset {
            v += sums[t - offset];
        }
        workgroupBarrier();
        sums[t] = v;
        workgroupBarrier();
    }
}

// Loads this thread's bins of channel `channel` into `sums` and scans them: afterwards the
// pixels below the thread's first bin are `before(t)`, all of them `sums[255]`.
fn scan_channel(t: u32, per_thread: u32, channel: u32) {
    var local = 0u;
    for (var k = 0u; k < per_thread; k++) {
        local += histogram[t * per_thread + k][channel];
    }
    sums[t] = local;
    workgroupBarrier();
    scan(t);
}

fn before(t: u32) -> u32 {
    if t == 0u {
        return 0u;
    }
    return sums[t - 1u];
}

// Builds `table` for this frame. One workgroup.
@compute @workgroup_size(256, 1, 1)
fn levels(@builtin(local_invocation_index) t: u32) {
    let size = 1u << params.bits;
    let per_thread = size / 256u;
    let max_code = i32(size - 1u);
    let restart = state[0] != 0;
    if t < 3u {
        atomicStore(&low_at[t], size - 1u);
        atomicStore(&high_at[t], size - 1u);
    }
    if t == 0u {
        atomicStore(&first_count, 0xffffffffu);
        atomicStore(&change, 0u);
    }
    workgroupBarrier();
    if params.mode == 1u {
        for (var ch = 0u; ch < 3u; ch++) {
            scan_channel(t, per_thread, ch);
            let total = sums[255];
            let clip = total / 1000u * CLIP_PER_MILLE;
            var cumulative = before(t);
            for (var k = 0u; k < per_thread; k++) {
                let bin = t * per_thread + k;
                cumulative += histogram[bin][ch];
                if cumulative > clip {
                    atomicMin(&low_at[ch], bin);
                }
                if cumulative >= total - clip {
                    atomicMin(&high_at[ch], bin);
                }
            }
            workgroupBarrier();
        }
        if t < 3u {
            let cut = max_code * 256 / 4;
            var low = i32(atomicLoad(&low_at[t])) * 256;
            var high = i32(atomicLoad(&high_at[t])) * 256;
            let old_low = state[STATE_LEVELS + 2u * t];
            let old_high = state[STATE_LEVELS + 2u * t + 1u];
            if !restart && abs(low - old_low) <= cut && abs(high - old_high) <= cut {
                low = old_low + (low - old_low) / SMOOTHING;
                high = old_high + (high - old_high) / SMOOTHING;
            }
            state[STATE_LEVELS + 2u * t] = low;
            state[STATE_LEVELS + 2u * t + 1u] = high;
            // At most an 8× stretch: a flat channel keeps its middle.
            let min_span = max_code * 256 / 8;
            if high - low < min_span {
                low = (low + high - min_span) / 2;
                high = low + min_span;
            }
            levels_now[2u * t] = low;
            levels_now[2u * t + 1u] = high;
        }
        workgroupBarrier();
        for (var ch = 0u; ch < 3u; ch++) {
            let low = levels_now[2u * ch];
            let span = levels_now[2u * ch + 1u] - low;
            for (var k = 0u; k < per_thread; k++) {
                let bin = t * per_thread + k;
                let above = max(0, i32(bin) * 256 - low);
                table[ch * size + bin] = u32(min(max_code, (above * max_code + span / 2) / span));
            }
        }
    } else if params.mode == 2u {
        scan_channel(t, per_thread, 3u);
        let total = sums[255];
        var cumulative = before(t);
        for (var k = 0u; k < per_thread; k++) {
            cumulative += histogram[t * per_thread + k][3];
            if cumulative > 0u {
                atomicMin(&first_count, cumulative);
            }
        }
        workgroupBarrier();
        let first = atomicLoad(&first_count);
        // Counts shifted so that q · max_code fits in 32 bits.
        let shift = u32(max(0, i32(firstLeadingBit(total)) + 1 - 21));
        let spread = select(0u, (total - first) >> shift, total > first);
        var targets: array<i32, 4>;
        cumulative = before(t);
        for (var k = 0u; k < per_thread; k++) {
            let bin = t * per_thread + k;
            cumulative += histogram[bin][3];
            var code = bin;
            if spread > 0u {
                let above = select(0u, (cumulative - first) >> shift, cumulative > first);
                code = min(u32(max_code), (above * u32(max_code) + spread / 2u) / spread);
            }
            targets[k] = i32(code) * 256;
            atomicAdd(&change, u32(abs(targets[k] - state[STATE_CURVE + bin])));
        }
        workgroupBarrier();
        let jump = restart || atomicLoad(&change) > size * u32(max_code) * 256u / 8u;
        for (var k = 0u; k < per_thread; k++) {
            let bin = t * per_thread + k;
            var value = targets[k];
            if !jump {
                let old = state[STATE_CURVE + bin];
                value = old + (value - old) / SMOOTHING;
            }
            state[STATE_CURVE + bin] = value;
            let code = u32((value + 128) / 256);
            table[bin] = code;
            table[size + bin] = code;
            table[2u * size + bin] = code;
        }
    }
    workgroupBarrier();
    if t == 0u {
        state[0] = 0;
    }
}
