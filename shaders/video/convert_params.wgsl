// The conversion's parameters, shared by the conversion pass (convert.wgsl) and the histograms
// counted from the decoded planes (shaders/engine/chunk_planes.wgsl), which convert as it does.

const FRAC_BITS: u32 = 20u; // at 8-bit output; one less per output bit beyond 8

struct Row { // twin: Row in src/video/convert/mod.rs; one output channel
    y: i32,
    cb: i32,
    cr: i32,
    bias: i32,
}

// A grey sample v to a code, as swscale converts grey:
// clamp((((v >> pre_shift) - offset) * scale + half) >> shift, 0, white).
struct GreyMap { // twin: GreyMap in src/video/convert/mod.rs
    pre_shift: u32,
    offset: i32,
    scale: i32,
    shift: u32,
}

struct ConvertParams { // twin: ConvertParams in src/video/convert/mod.rs
    r: Row,
    g: Row,
    b: Row,
    grey: GreyMap,
    width: u32,
    height: u32,
    chroma_width: u32,
    chroma_height: u32,
    chroma_shift_x: u32, // 0 or 1
    chroma_shift_y: u32, // 0 or 1
    sample_mask: u32, // the bits of a texel that hold the sample: 2^bits - 1, or P010's top 10
    out_bits: u32, // 8 (RGBA8) or 10 (RGB10A2)
}
