// Draws one histogram quad, as in the articles' part 2: the bin comes from texcoord.x, each
// channel's height is compared with texcoord.y, and the four "above" bits (masked by
// channel_mult) index a 16-colour table. Colour 0 is the translucent backdrop. Gridlines (the
// nits scale of a PQ signal) and the probed pixel's markers are one pixel wide, over the bars.
// Comparing two files, the second one's histogram is drawn as an outline over the first's bars
// (each channel in a lighter tint of its colour), both on one scale: the larger of the two
// tallest bins.

const GRIDLINE_COLOR: vec4f = vec4f(1.0, 0.75, 0.2, 0.8);
// The outline's colour per channel r, g, b, l.
const OUTLINE_COLORS = array(
    vec4f(1.0, 0.6, 0.6, 1.0),
    vec4f(0.6, 1.0, 0.6, 1.0),
    vec4f(0.6, 0.8, 1.0, 1.0),
    vec4f(1.0, 0.8, 0.1, 1.0),
);

struct OverlayUniforms { // twin: OverlayUniforms in src/render/overlay.rs
    rect: vec4f, // left, bottom, right, top in clip space
    colors: array<vec4f, 16>,
    channel_mult: vec4u,
    gridlines: vec4f, // x across the quad (0..1); negative: none
    log_scale: u32,
    // Whether the outline histogram is drawn.
    outline: u32,
    _pad1: u32,
    _pad2: u32,
    // The probed pixel's bins, x across the quad (0..1) per channel r, g, b, l; negative: none.
    markers: vec4f,
}

struct HistogramScale { // twin: HistogramScale in src/engine/scale.rs
    scale: vec4f,
    max_bin: vec4u,
}

struct HistogramResult { // twin: HistogramResult in src/engine/scale.rs
    epoch: u32,
    slots: array<HistogramScale, 2>,
}

struct VertexOutput {
    @builtin(position) position: vec4f,
    @location(0) texcoord: vec2f,
}

@group(0) @binding(0) var<storage, read> histogram: array<vec4u>;
@group(0) @binding(1) var<storage, read> result: HistogramResult;
@group(0) @binding(2) var<uniform> uni: OverlayUniforms;
// The outlined histogram and its scale (the filled one's again where there is none).
@group(0) @binding(3) var<storage, read> outline_histogram: array<vec4u>;
@group(0) @binding(4) var<storage, read> outline_result: HistogramResult;

@vertex
fn overlay_vs(@builtin(vertex_index) vertex_index: u32) -> VertexOutput {
    let corners = array(
        vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
        vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0),
    );
    let xy = corners[vertex_index];
    var out: VertexOutput;
    out.position = vec4f(mix(uni.rect.xy, uni.rect.zw, xy), 0.0, 1.0);
    out.texcoord = xy;
    return out;
}

@fragment
fn overlay_fs(in: VertexOutput) -> @location(0) vec4f {
    // The quad's width in texcoord per pixel: a gridline covers the pixel its x falls in.
    let pixel = fwidth(in.texcoord.x);
    let row = fwidth(in.texcoord.y);
    let on_line = abs(vec4f(in.texcoord.x) - uni.gridlines) <= vec4f(0.5 * pixel) & uni.gridlines >= vec4f(0.0);
    if any(on_line) {
        return GRIDLINE_COLOR;
    }
    // The probed pixel's bins: a line in each shown channel's colour, over everything.
    let marked = abs(vec4f(in.texcoord.x) - uni.markers) <= vec4f(0.5 * pixel) & uni.markers >= vec4f(0.0) & uni.channel_mult != vec4u(0u);
    for (var ch = 0u; ch < 4u; ch++) {
        if marked[ch] {
            return uni.colors[uni.channel_mult[ch]];
        }
    }
    let num_bins = arrayLength(&histogram);
    let bin = min(u32(in.texcoord.x * f32(num_bins)), num_bins - 1u);
    let counts = vec4f(histogram[bin]);
    var scale = result.slots[(result.epoch + 1u) & 1u];
    if uni.outline != 0u {
        let other = outline_result.slots[(outline_result.epoch + 1u) & 1u];
        scale.scale = min(scale.scale, other.scale);
        scale.max_bin = max(scale.max_bin, other.max_bin);
        // The outline: where the pixel's row lies between the outlined bars of this pixel's
        // column and the one to its left (their top, and the step between bins).
        let left = min(u32(max(in.texcoord.x - pixel, 0.0) * f32(num_bins)), num_bins - 1u);
        let here = heights_of(vec4f(outline_histogram[bin]), scale);
        let before = heights_of(vec4f(outline_histogram[left]), scale);
        let low = min(here, before) - vec4f(row);
        let high = max(here, before) + vec4f(0.5 * row);
        let on = vec4f(in.texcoord.y) >= low & vec4f(in.texcoord.y) <= high & uni.channel_mult != vec4u(0u) & max(here, before) > vec4f(0.0);
        for (var ch = 0u; ch < 4u; ch++) {
            if on[ch] {
                return OUTLINE_COLORS[ch];
            }
        }
    }
    let heights = heights_of(counts, scale);
    let bits = heights > vec4f(in.texcoord.y);
    let index = dot(select(vec4u(0u), uni.channel_mult, bits), vec4u(1u));
    return uni.colors[index];
}

// Bar heights (0..1 of the quad) of a bin's counts, linear or log.
fn heights_of(counts: vec4f, scale: HistogramScale) -> vec4f {
    if uni.log_scale != 0u {
        return log2(counts + 1.0) / log2(vec4f(scale.max_bin) + 1.0);
    }
    return counts * scale.scale;
}
