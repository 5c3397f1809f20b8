// The chunk pass's source where it counts a frame's decoded planes (chunk.wgsl, which this file
// follows, says how the counts end): 4:2:0 Y'CbCr, planar or with interleaved chroma (NV12,
// P010: INTERLEAVED), each pixel converted as it is counted exactly as the conversion pass
// converts it (shaders/video/convert.wgsl: chroma sited as MPEG-2 and H.264 site it, upsampled
// in eighths of a code, the same fixed-point matrix), so the counts equal those of the frame it
// converts, bit for bit, while a third of its bytes are read.
//
// A chunk is a tile TILE_COLUMNS luma columns wide and TILE_ROWS rows down. An invocation takes
// two columns of it (one chroma column) and walks down them four rows at a time, reading each
// 2x2 block of samples with one gather: per four rows two of luma and one of each chroma
// component, the chroma rows above carried from the step before. Gathers clamp to the plane's
// edge, as the conversion's taps do; samples of luma past the frame's edge are not counted.
//
// Every index here is a texture coordinate (clamped by the sampler) or a bin (below NUM_BINS).

const TILE_COLUMNS: u32 = 2u * WG_SIZE;
const TILE_ROWS: u32 = 2u * LOADS_PER_INVOCATION; // a chunk: CHUNK_PIXELS pixels
const OUT_FRAC: u32 = FRAC_BITS + 8u - DEPTH; // convert.wgsl's frac_bits() for DEPTH-bit codes
const WHITE: i32 = (1i << DEPTH) - 1i;

// (Row, GreyMap and ConvertParams: shaders/video/convert_params.wgsl, before this.)

@group(0) @binding(6) var<uniform> convert: ConvertParams;
@group(0) @binding(7) var luma: texture_2d<u32>;
// Cb, or the interleaved Cb, Cr; and Cr (the Cb, Cr plane again where interleaved).
@group(0) @binding(8) var chroma_b: texture_2d<u32>;
@group(0) @binding(9) var chroma_r: texture_2d<u32>;
@group(0) @binding(10) var nearest: sampler;

// The samples of four texels: the bits the mask picks, shifted down to the lowest.
fn masked4(texels: vec4u) -> vec4i {
    let mask = convert.sample_mask;
    return vec4i((texels & vec4u(mask)) >> vec4u(countTrailingZeros(mask)));
}

// Where a gather takes the 2x2 texels whose top left is `at`: their shared corner.
fn corner(at: vec2i, texel: vec2f) -> vec2f {
    return (vec2f(at) + 1.0) * texel;
}

// A gather's texels as top left, top right, bottom left, bottom right (WGSL gives bottom left,
// bottom right, top right, top left).
fn in_rows(g: vec4u) -> vec4i {
    return masked4(g.wzxy);
}

// The 2x2 luma samples from `at`.
fn luma_block(at: vec2i, texel: vec2f) -> vec4i {
    return in_rows(textureGather(0, luma, nearest, corner(at, texel)));
}

struct ChromaBlock {
    cb: vec4i,
    cr: vec4i,
}

// The 2x2 chroma samples from `at`, of each component.
fn chroma_block(at: vec2i, texel: vec2f) -> ChromaBlock {
    let uv = corner(at, texel);
    if INTERLEAVED == 1u {
        return ChromaBlock(
            in_rows(textureGather(0, chroma_b, nearest, uv)),
            in_rows(textureGather(1, chroma_b, nearest, uv)),
        );
    }
    return ChromaBlock(
        in_rows(textureGather(0, chroma_b, nearest, uv)),
        in_rows(textureGather(0, chroma_r, nearest, uv)),
    );
}

// Four luma rows y..y+3 (y even, chroma row k = y/2) from one chroma column's samples `x` of
// rows k-1..k+2, in eighths of a code: each row 3/4 from its own chroma row and 1/4 from the
// next one out (`chroma_taps` in convert.wgsl), `x` already weighted 2 across.
fn down_four(x: vec4i) -> vec4i {
    return vec4i(3 * x.y + x.x, 3 * x.y + x.z, 3 * x.z + x.y, 3 * x.z + x.w);
}

// Four sums to codes: rounded by the half code in the bias, the shift flooring (below zero
// too), as convert.wgsl's `channel`.
fn codes4(sum: vec4i) -> vec4u {
    return vec4u(clamp(sum >> vec4u(OUT_FRAC), vec4i(0), vec4i(WHITE)));
}

struct Codes {
    r: vec4u,
    g: vec4u,
    b: vec4u,
}

// Four pixels of a column down (luma in codes, chroma in eighths): convert.wgsl's `channel`
// for each of R', G' and B', the sums the same. Every Y'CbCr matrix (colour::ycbcr::matrix)
// weighs Y' alike in the three and has no Cb in R' nor Cr in B' (`PlanesCount::new` checks),
// so those terms are left out.
fn convert4(y: vec4i, cb8: vec4i, cr8: vec4i) -> Codes {
    let luma = convert.r.y * (y << vec4u(3u));
    return Codes(
        codes4(luma + convert.r.cr * cr8 + vec4i(convert.r.bias)),
        codes4(luma + convert.g.cb * cb8 + convert.g.cr * cr8 + vec4i(convert.g.bias)),
        codes4(luma + convert.b.cb * cb8 + vec4i(convert.b.bias)),
    );
}

// Counts the first `rows` (1 to 4) of four pixels down a column.
fn count_column(c: Codes, rows: u32, replica: u32) {
    count_bins(rgb_bins(vec3u(c.r.x, c.g.x, c.b.x)), replica);
    if rows > 1u {
        count_bins(rgb_bins(vec3u(c.r.y, c.g.y, c.b.y)), replica);
    }
    if rows > 2u {
        count_bins(rgb_bins(vec3u(c.r.z, c.g.z, c.b.z)), replica);
    }
    if rows > 3u {
        count_bins(rgb_bins(vec3u(c.r.w, c.g.w, c.b.w)), replica);
    }
}

// Counts chunk `chunk` (a tile) into the workgroup's bins; every invocation of the workgroup
// calls it.
fn count_pixels(chunk: u32, local_index: u32) {
    clear_bins(local_index);
    let replica = local_index % REPLICAS;
    let tile = vec2u(chunk % params.tiles_across, chunk / params.tiles_across);
    let j = tile.x * WG_SIZE + local_index; // the chroma column: luma columns x and x + 1
    let x = 2u * j;
    let y0 = tile.y * TILE_ROWS;
    let size = vec2u(convert.width, convert.height);
    if x < size.x {
        let luma_texel = 1.0 / vec2f(size);
        let chroma_texel = 1.0 / vec2f(f32(convert.chroma_width), f32(convert.chroma_height));
        let odd_column = x + 1u < size.x;
        // Chroma rows k-1 and k above each step's four luma rows (row -1 clamps to row 0).
        var above = chroma_block(vec2i(i32(j), i32(y0 / 2u) - 1), chroma_texel);
        for (var s = 0u; s < TILE_ROWS / 4u; s++) {
            let y = y0 + 4u * s;
            if y < size.y {
                let k = i32(y / 2u);
                let below = chroma_block(vec2i(i32(j), k + 1), chroma_texel);
                let top = luma_block(vec2i(i32(x), i32(y)), luma_texel);
                let bottom = luma_block(vec2i(i32(x), i32(y) + 2), luma_texel);
                // Chroma rows k-1..k+2 of columns j and j + 1.
                let cb = array(vec4i(above.cb.x, above.cb.z, below.cb.x, below.cb.z),
                               vec4i(above.cb.y, above.cb.w, below.cb.y, below.cb.w));
                let cr = array(vec4i(above.cr.x, above.cr.z, below.cr.x, below.cr.z),
                               vec4i(above.cr.y, above.cr.w, below.cr.y, below.cr.w));
                let rows = min(size.y - y, 4u);
                // Even columns sit on chroma column j; odd ones take the mean of j and j + 1.
                let even = convert4(
                    vec4i(top.x, top.z, bottom.x, bottom.z),
                    down_four(2 * cb[0]),
                    down_four(2 * cr[0]),
                );
                count_column(even, rows, replica);
                if odd_column {
                    let odd = convert4(
                        vec4i(top.y, top.w, bottom.y, bottom.w),
                        down_four(cb[0] + cb[1]),
                        down_four(cr[0] + cr[1]),
                    );
                    count_column(odd, rows, replica);
                }
                above = below;
            }
        }
    }
}
