// Draws a scope's counts as a quad over the picture: each fragment adds up the cells (columns x
// bins, or cb x cr) its pixel covers and lights up with a log-like density, so one stray pixel
// shows and a flat field does not blind. Waveform and parade get a graticule at the levels of
// the scale chosen (src/scope/graticule.rs), the viewer's own in amber; the vectorscope is drawn round, tinted with each position's own hue, with the 75%
// colour-bar targets (small squares), the 100% ones (large squares) and the skin-tone line,
// magnified `zoom` times around its centre. The CIE 1931 xy diagram is drawn on the spectral
// locus (filled faintly with the colour of each chromaticity), with the BT.709 (white), P3
// (blue) and BT.2020 (orange) triangles and the D65 white point.

const KIND_WAVEFORM: u32 = 0u;
const KIND_PARADE: u32 = 1u;
const KIND_VECTORSCOPE: u32 = 2u;
const KIND_CIE: u32 = 3u;
// The part of the xy plane the CIE diagram shows: a square from CIE_ORIGIN, CIE_SPAN a side.
const CIE_ORIGIN: vec2f = vec2f(-0.04, -0.02);
const CIE_SPAN: f32 = 0.88;
// Where the locus starts in `diagram` (after the three gamuts' primaries and the white point),
// and its points: src/scope/draw.rs's DIAGRAM_LOCUS, cie::SPECTRAL_LOCUS.
const DIAGRAM_LOCUS: u32 = 10u;
const LOCUS_POINTS: u32 = 65u;
const GAMUT_COLORS: array<vec4f, 3> = array(
    vec4f(1.0, 1.0, 1.0, 0.9),
    vec4f(0.45, 0.75, 1.0, 0.9),
    vec4f(1.0, 0.6, 0.25, 0.9),
);
const BACKDROP_ALPHA: f32 = 0.8;
const GRATICULE: vec4f = vec4f(0.7, 0.7, 0.7, 0.55);
const TARGET_COLOR: vec4f = vec4f(1.0, 0.85, 0.3, 0.9);
const SKIN_COLOR: vec4f = vec4f(1.0, 0.6, 0.4, 0.8);
const MAX_CELLS: u32 = 16u;
// Words before the counts' halves: scope.wgsl's HEADER.
const COUNTS_HEADER: u32 = 4u;

struct ScopeDrawUniforms { // twin: ScopeDrawUniforms in src/scope/draw.rs
    rect: vec4f, // left, bottom, right, top in clip space
    kind: u32,
    columns: u32,
    bins: u32,
    // Count of one cell (or of one display pixel's cells in a column) that shows at full
    // brightness.
    reference: f32,
    // The six 75% colour-bar targets, (cb, cr) in 0..1: R, Y, G, C, B, M.
    targets: array<vec4f, 3>,
    // Direction of the skin-tone line (cb, cr), unit length.
    skin: vec4f,
    // The 100% colour-bar targets, as `targets`.
    targets_full: array<vec4f, 3>,
    // The vectorscope's magnification around its centre (1, 2 or 4).
    zoom: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
    // The waveform's and parade's graticule lines, 0 (black) to 1 (white); negative: none.
    lines: array<vec4f, 4>,
    // 1 where a line is one the viewer chose (drawn in amber).
    chosen: array<vec4u, 4>,
}

struct VertexOutput {
    @builtin(position) position: vec4f,
    @location(0) texcoord: vec2f,
}

// The scope's counts buffer: a header, then two halves, the counts last made in half
// (epoch + 1) % 2 (src/scope/gpu.rs, `shown`).
@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<uniform> uni: ScopeDrawUniforms;
// The CIE diagram's geometry in xy: BT.709's, P3's and BT.2020's primaries (R, G, B each), the
// white point, then the spectral locus from DIAGRAM_LOCUS.
@group(0) @binding(2) var<storage, read> diagram: array<vec2f>;

@vertex
fn scope_vs(@builtin(vertex_index) vertex_index: u32) -> VertexOutput {
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

// The cells [first, end) a pixel covers along an axis of `cells` cells, at t with footprint w.
fn cell_span(t: f32, w: f32, cells: u32) -> vec2u {
    let n = f32(cells);
    let first = u32(clamp(floor((t - 0.5 * w) * n + 0.5), 0.0, n - 1.0));
    let end = u32(clamp(floor((t + 0.5 * w) * n + 0.5), f32(first + 1u), n));
    return vec2u(first, min(end, first + MAX_CELLS));
}

// Where the counts last made start.
fn shown() -> u32 {
    let half = (arrayLength(&counts) - COUNTS_HEADER) / 2u;
    return COUNTS_HEADER + ((counts[0] + 1u) & 1u) * half;
}

fn brightness(count: f32) -> f32 {
    if count <= 0.0 {
        return 0.0;
    }
    return clamp(log2(1.0 + 255.0 * count / uni.reference) / 8.0, 0.25, 1.0);
}

fn on_line(t: f32, at: f32, w: f32) -> bool {
    return abs(t - at) <= 0.5 * w;
}

fn columns_fs(uv: vec2f) -> vec4f {
    var plane = 0u;
    var u = uv.x;
    var trace = vec3f(0.55, 1.0, 0.6);
    if uni.kind == KIND_PARADE {
        plane = min(u32(uv.x * 3.0), 2u);
        u = uv.x * 3.0 - f32(plane);
        trace = array(vec3f(1.0, 0.35, 0.3), vec3f(0.35, 1.0, 0.35), vec3f(0.4, 0.55, 1.0))[plane];
    }
    let footprint = vec3f(fwidth(u), fwidth(uv.y), fwidth(uv.x));
    let cols = cell_span(u, footprint.x, uni.columns);
    let bins = cell_span(uv.y, footprint.y, uni.bins);
    var sum = 0.0;
    let first = shown();
    for (var c = cols.x; c < cols.y; c++) {
        let base = first + (plane * uni.columns + c) * uni.bins;
        for (var b = bins.x; b < bins.y; b++) {
            sum += f32(counts[base + b]);
        }
    }
    // Count per display pixel of one column: bins that share a pixel add up, bins that span
    // several pixels spread out, so neither shows stripes.
    let per_pixel = sum / f32((cols.y - cols.x) * (bins.y - bins.x)) * max(1.0, footprint.y * f32(uni.bins));
    let light = brightness(per_pixel);
    var color = vec4f(trace * light, BACKDROP_ALPHA + (1.0 - BACKDROP_ALPHA) * light);
    var grid = false;
    var chosen = false;
    for (var g = 0u; g < 16u; g++) {
        let at = uni.lines[g / 4u][g % 4u];
        if at >= 0.0 && on_line(uv.y, at, footprint.y) {
            if uni.chosen[g / 4u][g % 4u] != 0u {
                chosen = true;
            } else {
                grid = true;
            }
        }
    }
    if uni.kind == KIND_PARADE {
        grid = grid || on_line(uv.x, 1.0 / 3.0, footprint.z) || on_line(uv.x, 2.0 / 3.0, footprint.z);
    }
    if grid && light < 0.6 {
        color = max(color, GRATICULE);
    }
    if chosen {
        color = TARGET_COLOR;
    }
    return color;
}

// Distance from p to the segment from a to b.
fn segment_distance(p: vec2f, a: vec2f, b: vec2f) -> f32 {
    let ab = b - a;
    let t = clamp(dot(p - a, ab) / dot(ab, ab), 0.0, 1.0);
    return length(p - (a + t * ab));
}

fn vectorscope_fs(screen_uv: vec2f) -> vec4f {
    let px = max(fwidth(screen_uv).x, fwidth(screen_uv).y);
    let centre = vec2f(0.5);
    let r = length(screen_uv - centre);
    if r > 0.5 {
        discard;
    }
    // The chroma shown here, magnified around the centre.
    let uv = centre + (screen_uv - centre) / uni.zoom;
    let footprint = fwidth(uv);
    let cbs = cell_span(uv.x, footprint.x, 256u);
    let crs = cell_span(uv.y, footprint.y, 256u);
    var sum = 0.0;
    let first = shown();
    for (var cr = crs.x; cr < crs.y; cr++) {
        for (var cb = cbs.x; cb < cbs.y; cb++) {
            sum += f32(counts[first + cr * 256u + cb]);
        }
    }
    let light = brightness(sum);
    // Tint: the colour at this chroma with a mid luma, towards white at the centre.
    let c = (uv - centre) * 2.0 * 0.5;
    let y = 0.6;
    let hue = clamp(vec3f(y + 1.5748 * c.y, y - 0.1873 * c.x - 0.4681 * c.y, y + 1.8556 * c.x), vec3f(0.0), vec3f(1.0));
    let trace = mix(vec3f(1.0), hue, 0.6);
    var color = vec4f(trace * light, BACKDROP_ALPHA + (1.0 - BACKDROP_ALPHA) * light);
    var mark = vec4f(0.0);
    let s = screen_uv;
    if r > 0.5 - 1.5 * px || abs(s.x - 0.5) <= 0.5 * px || abs(s.y - 0.5) <= 0.5 * px {
        mark = GRATICULE;
    }
    if segment_distance(s, centre, centre + 0.5 * uni.skin.xy) <= 0.75 * px {
        mark = SKIN_COLOR;
    }
    for (var i = 0u; i < 12u; i++) {
        let full = i >= 6u;
        let j = i % 6u;
        var pair = uni.targets[j / 2u];
        if full {
            pair = uni.targets_full[j / 2u];
        }
        // Where the target lands on screen, magnified like the chroma.
        let t = centre + (select(pair.xy, pair.zw, (j & 1u) == 1u) - centre) * uni.zoom;
        let d = abs(s - t);
        // A square outline round each target: small for 75%, large for 100%.
        let half = select(0.03, 0.045, full);
        if max(d.x, d.y) <= half && max(d.x, d.y) >= half - 1.25 * px {
            mark = TARGET_COLOR;
        }
    }
    if mark.a > 0.0 && light < 0.6 {
        color = max(color, mark);
    }
    return color;
}

// The colour of chromaticity p at full brightness, for the locus's faint fill: BT.709's RGB of
// its XYZ, scaled to a largest component of 1 (colours outside BT.709 clipped).
fn chromaticity_colour(p: vec2f) -> vec3f {
    let xyz = vec3f(p.x, p.y, 1.0 - p.x - p.y) / max(p.y, 1e-4);
    let rgb = max(vec3f(0.0), mat3x3f(
        vec3f(3.2406, -0.9689, 0.0557),
        vec3f(-1.5372, 1.8758, -0.2040),
        vec3f(-0.4986, 0.0415, 1.0570),
    ) * xyz);
    return sqrt(rgb / max(max(rgb.r, rgb.g), max(rgb.b, 1e-4)));
}

fn cie_fs(uv: vec2f) -> vec4f {
    let p = CIE_ORIGIN + uv * CIE_SPAN;
    let footprint = fwidth(p);
    let px = max(footprint.x, footprint.y);
    // The counts of the cells under this pixel (x, y in [0, 1)).
    var sum = 0.0;
    if all(p >= vec2f(0.0)) && all(p < vec2f(1.0)) {
        let xs = cell_span(p.x, footprint.x, uni.columns);
        let ys = cell_span(p.y, footprint.y, uni.columns);
        let first = shown();
        for (var j = ys.x; j < ys.y; j++) {
            for (var i = xs.x; i < xs.y; i++) {
                sum += f32(counts[first + j * uni.columns + i]);
            }
        }
    }
    let light = brightness(sum);
    // Inside the horseshoe (even-odd crossings, closed by the line of purples), and how far
    // from its edge.
    var inside = false;
    var edge = 1e9;
    for (var k = 0u; k < LOCUS_POINTS; k++) {
        let a = diagram[DIAGRAM_LOCUS + k];
        let b = diagram[DIAGRAM_LOCUS + (k + 1u) % LOCUS_POINTS];
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
        edge = min(edge, segment_distance(p, a, b));
    }
    var backdrop = vec3f(0.0);
    if inside {
        backdrop = 0.22 * chromaticity_colour(p);
    }
    var color = vec4f(mix(backdrop, vec3f(1.0), light), BACKDROP_ALPHA + (1.0 - BACKDROP_ALPHA) * light);
    var mark = vec4f(0.0);
    // A faint grid every 0.1.
    let grid = abs(p * 10.0 - round(p * 10.0)) * 0.1;
    if min(grid.x, grid.y) <= 0.5 * px {
        mark = vec4f(0.25, 0.25, 0.25, 0.4);
    }
    if edge <= 0.75 * px {
        mark = GRATICULE;
    }
    for (var g = 0u; g < 3u; g++) {
        for (var v = 0u; v < 3u; v++) {
            if segment_distance(p, diagram[3u * g + v], diagram[3u * g + (v + 1u) % 3u]) <= 0.6 * px {
                mark = GAMUT_COLORS[g];
            }
        }
    }
    let white = abs(p - diagram[9]);
    if (min(white.x, white.y) <= 0.5 * px && max(white.x, white.y) <= 0.012) {
        mark = TARGET_COLOR;
    }
    if mark.a > 0.0 && light < 0.6 {
        color = max(color, mark);
    }
    return color;
}

@fragment
fn scope_fs(in: VertexOutput) -> @location(0) vec4f {
    if uni.kind == KIND_VECTORSCOPE {
        return vectorscope_fs(in.texcoord);
    }
    if uni.kind == KIND_CIE {
        return cie_fs(in.texcoord);
    }
    return columns_fs(in.texcoord);
}
