// Packed pixels as frames hold them: RGBA8 words, or RGB10A2 at 10 bits (twin:
// colour::depth), and the texel a frame's texture holds for one (rgba8unorm, or rgba16float
// at 10 bits, where k / 1023 stores back as k).

fn unpack_pixel(word: u32, bits: u32) -> vec3u {
    if bits == 10u {
        return vec3u(word & 0x3ffu, (word >> 10u) & 0x3ffu, (word >> 20u) & 0x3ffu);
    }
    return vec3u(word & 0xffu, (word >> 8u) & 0xffu, (word >> 16u) & 0xffu);
}

fn pack_pixel(c: vec3u, bits: u32) -> u32 {
    if bits == 10u {
        return c.x | (c.y << 10u) | (c.z << 20u) | 0xc0000000u;
    }
    return c.x | (c.y << 8u) | (c.z << 16u) | 0xff000000u;
}

fn pixel_texel(word: u32, bits: u32) -> vec4f {
    if bits == 10u {
        return vec4f(vec3f(unpack_pixel(word, bits)) / 1023.0, 1.0);
    }
    // k / 255 stores back as k, so the texture holds the very same bytes.
    return unpack4x8unorm(word);
}
