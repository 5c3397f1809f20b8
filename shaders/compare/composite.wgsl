// The picture a comparison shows, made from the two frames as converted (packed words, 8 or
// 10 bits a channel): A left of the wipe line and B right of it, A and B side by side, their
// difference |A - B| per channel amplified, one of them alone (flicker), or VIF's loss at
// each pixel as a heat over A in grey. B has A's size. The CPU twin is `composite_cpu` in
// src/compare/composite.rs.

struct Params {
    // A's (and B's) size; the output is twice as wide side by side.
    width: u32,
    height: u32,
    // 0: wipe, 1: side by side, 2: difference, 3: A alone, 4: B alone, 5: VIF's heat.
    mode: u32,
    // The wipe's first column of B.
    split: u32,
    // The difference's gain, 1 to 64.
    gain: u32,
    bits: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a_pixels: array<u32>;
@group(0) @binding(2) var<storage, read> b_pixels: array<u32>;
@group(0) @binding(3) var out_texture: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(4) var<storage, read_write> out_pixels: array<u32>;
// VIF's loss at each pixel, Q11 bits (mode 5).
@group(0) @binding(5) var<storage, read> heat: array<i32>;

const HEAT_FULL_AT_GAIN_1: u32 = 131072u;

// A pixel of the VIF heat map (`heat_pixel` of the CPU twin): A in grey at half its level,
// under the heat of `loss` (white at 64 bits over the gain), in integers.
fn heat_pixel(a: u32, loss: i32) -> u32 {
    let top = (1u << params.bits) - 1u;
    let full = HEAT_FULL_AT_GAIN_1 / params.gain;
    let c = channels(a);
    let grey = (c.x + 2u * c.y + c.z) / 8u;
    var colour: vec3u;
    var weight: u32;
    if loss >= 0 {
        let t = min(u32(loss), full);
        let third = full / 3u;
        let starts = vec3u(0u, third, 2u * third);
        colour = min((max(vec3u(t), starts) - starts) * top / third, vec3u(top));
        weight = min(3u * t, full);
    } else {
        let t = min(u32(-loss), full / 2u);
        colour = vec3u(0u, top / 2u, top);
        weight = 2u * t;
    }
    return pack((vec3u(grey) * (full - weight) + colour * weight) / full);
}

fn channels(word: u32) -> vec3u {
    if params.bits == 10u {
        return vec3u(word, word >> 10u, word >> 20u) & vec3u(1023u);
    }
    return vec3u(word, word >> 8u, word >> 16u) & vec3u(255u);
}

fn pack(c: vec3u) -> u32 {
    if params.bits == 10u {
        return c.x | (c.y << 10u) | (c.z << 20u) | (3u << 30u);
    }
    return c.x | (c.y << 8u) | (c.z << 16u) | (255u << 24u);
}

fn store(pos: vec2u, out_width: u32, word: u32) {
    out_pixels[pos.y * out_width + pos.x] = word;
    if params.bits == 10u {
        textureStore(out_texture, pos, vec4f(vec3f(channels(word)) / 1023.0, 1.0));
    } else {
        textureStore(out_texture, pos, unpack4x8unorm(word));
    }
}

@compute @workgroup_size(32, 4)
fn composite(@builtin(global_invocation_id) id: vec3u) {
    let side_by_side = params.mode == 1u;
    let out_width = select(params.width, 2u * params.width, side_by_side);
    let pos = id.xy;
    if pos.x >= out_width || pos.y >= params.height {
        return;
    }
    var from_b = false;
    var x = pos.x;
    switch params.mode {
        case 0u: { from_b = pos.x >= params.split; }
        case 1u: {
            from_b = pos.x >= params.width;
            x = pos.x - select(0u, params.width, from_b);
        }
        case 4u: { from_b = true; }
        default: {}
    }
    let at = pos.y * params.width + x;
    if params.mode == 5u {
        store(pos, out_width, heat_pixel(a_pixels[at], heat[at]));
        return;
    }
    if params.mode == 2u {
        let a = channels(a_pixels[at]);
        let b = channels(b_pixels[at]);
        let top = (1u << params.bits) - 1u;
        let d = max(a, b) - min(a, b);
        store(pos, out_width, pack(min(d * params.gain, vec3u(top))));
        return;
    }
    store(pos, out_width, select(a_pixels[at], b_pixels[at], from_b));
}
