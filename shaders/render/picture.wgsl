// Draws the frame into a clip-space rectangle (cover or contain fit, computed on the CPU).
// uv_x / uv_y map the quad's texcoord to the texture's, which turns and flips the picture.
// HDR signals are tone-mapped for the SDR screen (tonemap.wgsl, prepended), from the peak the
// peak pass measured; pictures of wider primaries (Display P3, BT.2020) are converted to the
// screen's BT.709, SDR or HDR; frames deeper than the screen are dithered to it.

struct PictureUniforms { // twin: PictureUniforms in src/render/picture.rs
    rect: vec4f, // left, bottom, right, top in clip space
    uv_x: vec4f, // u = dot(uv_x.xy, t) + uv_x.z
    uv_y: vec4f, // v = dot(uv_y.xy, t) + uv_y.z
    transfer: u32, // TRANSFER_* (HDR tone-mapped; SDR shown as it is)
    wide: u32, // a picture of wider primaries than BT.709: to_bt709 converts it
    dither_step: f32, // one step of the screen's codes, 0 for no dither
    split: f32, // a comparison's wipe line at this texture u; negative: none
    // The region of interest in texture coordinates (u0, v0, u1, v1); u0 < 0: none.
    region: vec4f,
    to_bt709: array<vec4f, 3>, // the source's linear RGB to BT.709's, by rows
}

const REGION_EDGE: vec3f = vec3f(1.0, 0.85, 0.2);
// Outside a region the picture is dimmed to this, so the region stands out.
const OUTSIDE_REGION: f32 = 0.55;

struct PeakState { // twin: PeakState in src/render/peak.rs
    peak_nits: f32,
    smoothed_signal: f32,
    smoothed_average: f32,
    frames: u32,
}

struct VertexOutput {
    @builtin(position) position: vec4f,
    @location(0) texcoord: vec2f,
}

@group(0) @binding(0) var frame: texture_2d<f32>;
@group(0) @binding(1) var frame_sampler: sampler;
@group(0) @binding(2) var<uniform> uni: PictureUniforms;
@group(0) @binding(3) var<storage, read> peak: PeakState;

struct MarkStyle { // twin: MarkStyle in src/marks/mod.rs
    shown: u32, // the marks drawn: false colour 1, zebra 2, peaking 4, gamut 8, range 16
    width: u32, // the frame's, which the words cover
    height: u32,
    row_words: u32, // u32s per row of words, four pixels' to each
    colours: array<vec4f, 16>, // per false-colour band (alpha 0: grey)
    classes: array<vec4u, 8>, // each luma class's band and zebra bits
}

// Each frame pixel's marks (src/marks), a byte each, four to a u32: its luma's class (which
// `classes` turns into a false-colour band in the lowest 4 bits, then the zebra and lower zebra
// flags), then peaking, gamut and range flags.
@group(0) @binding(4) var<storage, read> mark_words: array<u32>;
@group(0) @binding(5) var<uniform> marks: MarkStyle;

const PEAKING_COLOUR: vec3f = vec3f(1.0, 0.1, 0.1);
const GAMUT_COLOUR: vec3f = vec3f(1.0, 0.0, 1.0);
// FFmpeg signalstats' own highlight for out-of-range pixels.
const RANGE_COLOUR: vec3f = vec3f(1.0, 1.0, 0.0);
const ZEBRA_LOW_SHADE: vec3f = vec3f(0.35);

@vertex
fn picture_vs(@builtin(vertex_index) vertex_index: u32) -> VertexOutput {
    let corners = array(
        vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
        vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0),
    );
    let xy = corners[vertex_index];
    var out: VertexOutput;
    out.position = vec4f(mix(uni.rect.xy, uni.rect.zw, xy), 0.0, 1.0);
    // texcoord (0, 0) is the picture's top left
    let t = vec2f(xy.x, 1.0 - xy.y);
    out.texcoord = vec2f(dot(uni.uv_x.xy, t) + uni.uv_x.z, dot(uni.uv_y.xy, t) + uni.uv_y.z);
    return out;
}

// An 8x8 ordered (Bayer) dither threshold in (0, 1): the bits of x ^ y and y, interleaved
// and reversed.
fn bayer(position: vec2f) -> f32 {
    let y = u32(position.y) & 7u;
    let v = (u32(position.x) & 7u) ^ y;
    let m = ((v & 1u) << 5u) | ((y & 1u) << 4u) | ((v & 2u) << 2u) | ((y & 2u) << 1u) | ((v & 4u) >> 1u) | ((y & 4u) >> 2u);
    return (f32(m) + 0.5) / 64.0;
}

// The region drawn over the picture: a two-pixel edge, and the picture outside it dimmed. In
// texture coordinates, so it follows the fit, the window's size and the picture's rotation.
fn mark_region(rgb: vec3f, t: vec2f) -> vec3f {
    let px = fwidth(t);
    let inside = all(t >= uni.region.xy) && all(t <= uni.region.zw);
    let near = all(t >= uni.region.xy - px) && all(t <= uni.region.zw + px);
    let edge = near && (any(abs(t - uni.region.xy) <= px) || any(abs(t - uni.region.zw) <= px));
    if edge {
        return REGION_EDGE;
    }
    return select(rgb * OUTSIDE_REGION, rgb, inside);
}

// The marks over the frame pixel under `t`: false colour replaces the picture (bands in their
// colours, the rest in grey); zebras are 45° stripes 4 screen pixels wide (black over the upper
// level, rising; grey over the lower, falling); peaking edges are red; gamut and range
// warnings a 2x2 checker of magenta and of yellow.
fn draw_marks(rgb: vec3f, t: vec2f, position: vec2f) -> vec3f {
    let size = vec2f(f32(marks.width), f32(marks.height));
    let texel = vec2u(clamp(t * size, vec2f(0.0), size - 1.0));
    let byte = (mark_words[texel.y * marks.row_words + texel.x / 4u] >> (8u * (texel.x & 3u))) & 255u;
    let luma_class = byte & 31u;
    // As src/marks/mod.rs has it: band, zebra 16, lower zebra 32, peaking 64, gamut 128, range 256.
    let word = marks.classes[luma_class / 4u][luma_class % 4u] | ((byte >> 5u) << 6u);
    let screen = vec2u(position);
    var out = rgb;
    if (marks.shown & 1u) != 0u {
        let colour = marks.colours[word & 15u];
        out = select(vec3f(dot(rgb, BT709_LUMA)), colour.rgb, colour.a > 0.0);
    }
    if (marks.shown & 2u) != 0u {
        if (word & 16u) != 0u {
            if ((screen.x + screen.y) & 7u) < 4u {
                out = vec3f(0.0);
            }
        } else if (word & 32u) != 0u && ((screen.x - screen.y) & 7u) < 4u {
            out = ZEBRA_LOW_SHADE;
        }
    }
    if (marks.shown & 4u) != 0u && (word & 64u) != 0u {
        out = PEAKING_COLOUR;
    }
    let checker = (((screen.x >> 1u) + (screen.y >> 1u)) & 1u) == 0u;
    if (marks.shown & 8u) != 0u && (word & 128u) != 0u && checker {
        out = GAMUT_COLOUR;
    }
    if (marks.shown & 16u) != 0u && (word & 256u) != 0u && !checker {
        out = RANGE_COLOUR;
    }
    return out;
}

@fragment
fn picture_fs(in: VertexOutput) -> @location(0) vec4f {
    // One field line-doubled (uv_y.w: the texture's rows): each screen row shows one row of
    // the texture, the one it lies in, not a blend of two.
    var at = in.texcoord;
    if uni.uv_y.w > 0.0 {
        at.y = (floor(at.y * uni.uv_y.w) + 0.5) / uni.uv_y.w;
    }
    var rgb = textureSample(frame, frame_sampler, at).rgb;
    if uni.transfer != TRANSFER_SDR {
        let wide = uni.wide != 0u;
        rgb = tone_map_pixel(rgb, uni.transfer, peak.peak_nits, wide, uni.to_bt709[0].xyz, uni.to_bt709[1].xyz, uni.to_bt709[2].xyz);
    } else if uni.wide != 0u {
        rgb = sdr_to_bt709(rgb, uni.to_bt709[0].xyz, uni.to_bt709[1].xyz, uni.to_bt709[2].xyz);
    }
    rgb += (bayer(in.position.xy) - 0.5) * uni.dither_step;
    if marks.shown != 0u {
        rgb = draw_marks(rgb, in.texcoord, in.position.xy);
    }
    if uni.region.x >= 0.0 {
        rgb = mark_region(rgb, in.texcoord);
    }
    if uni.split >= 0.0 {
        // One pixel wide, on the first column of the judged file.
        let px = fwidth(in.texcoord.x);
        if in.texcoord.x >= uni.split && in.texcoord.x < uni.split + px {
            rgb = REGION_EDGE;
        }
    }
    return vec4f(rgb, 1.0);
}
