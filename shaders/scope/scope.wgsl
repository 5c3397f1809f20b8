// The scopes, counted from a frame's packed pixels (RGBA8 or RGB10A2 by DEPTH) like the
// histograms. Twin of src/scope/mod.rs and src/scope/cie.rs, which give the definitions.
//
// - columns_scope: the waveform (PLANES = 1: luminance bins) or RGB parade (PLANES = 3). Each
//   workgroup counts a tile: COLUMNS_PER_TILE output columns (the pixel columns whose
//   floor(x*C/W) falls in them) by band_rows rows, into workgroup-private bins, then adds the
//   tile's non-zero bins into the frame's counts with storage atomics.
// - density: the vectorscope (CIE = 0: 256x256 cells of (cb, cr)) or the CIE 1931 xy diagram
//   (CIE = 1: N x N cells of (x, y), N = params.columns). Each workgroup counts a chunk of
//   VS_CHUNK pixels (the vectorscope's four neighbours to an invocation, those in one cell
//   counted at once). A window of 128 x VS_ROWS cells round where nearly every natural colour
//   falls (the vectorscope's centre, the diagram's white point) is kept in workgroup memory as
//   16-bit counts, two to a word (rows half the window apart; a chunk holds fewer than 65536 pixels, so a count never
//   carries into its neighbour); cells outside it go straight to the frame's counts.
//
// The counts are double-buffered (src/scope/gpu.rs, `shown`): a pass counts into one half of
// the buffer, which the pass before left zeroed, and zeroes the other, which held the frame
// before's counts, so no clearing dispatch has to run first (with the barrier after it, it
// cost each scope 1.5 to 3.1 µs at 4K on an H100). The header's epoch says which
// half is which; the workgroup that finishes last moves it on, so the draw pass and readbacks
// that follow find the counts just made.
//
// Indices stay in bounds by construction (the module is built without bounds checks): pixels
// below width*height, tile bins below SLOTS, output columns below params.columns, window words
// below VS_WORDS, cells below the side, codes below 2^DEPTH, count words below HEADER plus
// twice half_words.

const WG_SIZE: u32 = WG_X;
const SLOTS: u32 = COLUMNS_PER_TILE * NUM_BINS * PLANES;
const VS_WIDTH: u32 = 128u; // the vectorscope's cb 64..191
const VS_FIRST_CB: u32 = 64u;
const VS_FIRST_CR: u32 = 128u - VS_ROWS / 2u;
// A pixel without a cell (black, on the CIE diagram).
const NO_CELL: u32 = 0xffffffffu;
// Where the CIE table's linear values start (after the matrix): cie::TABLE_OFFSET.
const CIE_TABLE: u32 = 16u;
const VS_HALF: u32 = VS_ROWS / 2u;
const VS_WORDS: u32 = VS_HALF * VS_WIDTH;
const VS_CHUNK: u32 = WG_SIZE * VS_LOADS;
// The counts buffer's header (twin: src/scope/gpu.rs): the epoch (a pass counts into half
// epoch % 2), the workgroups finished so far, two spare words.
const EPOCH: u32 = 0u;
const FINISHED: u32 = 1u;
const HEADER: u32 = 4u;

struct ScopeParams { // twin: ScopeParams in src/scope/gpu.rs
    width: u32,
    height: u32,
    columns: u32,
    band_rows: u32,
    half_words: u32, // words in each half of the counts
    // The density window's first cell (CIE; the vectorscope's is fixed).
    origin_x: u32,
    origin_y: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> pixels: array<u32>;
@group(0) @binding(1) var<uniform> params: ScopeParams;
// The header, then two halves of half_words each.
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;
// The CIE diagram's RGB -> XYZ matrix (x 2^14, row by row) and, from CIE_TABLE, each code's
// linear light (x 2^30): cie::Chromaticity::words.
@group(0) @binding(3) var<storage, read> cie: array<u32>;

var<workgroup> tile: array<atomic<u32>, SLOTS>;
var<workgroup> window: array<atomic<u32>, VS_WORDS>;
// The CIE table's linear values, copied from `cie` by each workgroup (one word for the other
// scopes, which have none). The matrix stays in registers: nine more workgroup loads a pixel
// cost more than they save.
var<workgroup> linear: array<u32, LINEAR_WORDS>;

// Where this pass's counts go: the first word of its half.
var<private> counting: u32;

// Starts a workgroup's part of the pass: reads the epoch (which only the last workgroup to
// finish moves on, once every workgroup has read it) and zeroes this workgroup's share of the
// other half, for the next pass. Returns the epoch.
fn begin(workgroup_id: vec3u, num_workgroups: vec3u, local_index: u32) -> u32 {
    let epoch = atomicLoad(&counts[EPOCH]);
    counting = HEADER + (epoch & 1u) * params.half_words;
    let spare = HEADER + (~epoch & 1u) * params.half_words;
    let groups = num_workgroups.x * num_workgroups.y;
    let stride = groups * WG_SIZE;
    for (var i = (workgroup_id.y * num_workgroups.x + workgroup_id.x) * WG_SIZE + local_index; i < params.half_words; i += stride) {
        atomicStore(&counts[spare + i], 0u);
    }
    return epoch;
}

// Ends a workgroup's part (one invocation, after a barrier that every invocation reached once
// it had read the epoch): the last workgroup to finish moves the epoch on. (That no workgroup
// reads the epoch after this rests on each one's read coming before its ticket, which GPUs
// keep; WGSL's relaxed atomics have no acquire and release to say so.)
fn finish(epoch: u32, num_workgroups: vec3u) {
    let groups = num_workgroups.x * num_workgroups.y;
    if atomicAdd(&counts[FINISHED], 1u) + 1u == groups {
        atomicStore(&counts[FINISHED], 0u);
        atomicStore(&counts[EPOCH], epoch + 1u);
    }
}

fn unpack_rgb(word: u32) -> vec3u {
    if DEPTH == 10u {
        return vec3u(word & 0x3ffu, (word >> 10u) & 0x3ffu, (word >> 20u) & 0x3ffu);
    }
    return vec3u(word & 0xffu, (word >> 8u) & 0xffu, (word >> 16u) & 0xffu);
}

fn luma_bin_of(rgb: vec3u) -> u32 {
    let w = rgb * LUMA_WEIGHTS;
    let y = w.x + w.y + w.z;
    if DEPTH == 10u {
        return luma_bin10(y);
    }
    return min(NUM_BINS - 1u, y * NUM_BINS / LUMA_DENOMINATOR);
}

fn channel_bins_of(rgb: vec3u) -> vec3u {
    if DEPTH == 10u {
        return channel_bins10(rgb);
    }
    return channel_bins(rgb);
}

// (cb, cr) of a pixel, 0..255 each, grey at (128, 128): BT.709 chroma in exact integers.
fn chroma(rgb: vec3u) -> vec2u {
    let w = rgb * LUMA_WEIGHTS;
    let y = w.x + w.y + w.z;
    let half = 1u << (DEPTH - 1u);
    let extra = 1u << (DEPTH - 8u);
    let cb = (10000u * rgb.z + half * 18556u - y) / (18556u * extra);
    let cr = (10000u * rgb.x + half * 15748u - y) / (15748u * extra);
    return min(vec2u(cb, cr), vec2u(255u));
}

// ceil(c*W/C): the first pixel column of output column c.
fn first_pixel(column: u32) -> u32 {
    return (column * params.width + params.columns - 1u) / params.columns;
}

// Counts a pixel into column k of the tile.
fn count_column_pixel(word: u32, k: u32) {
    let rgb = unpack_rgb(word);
    if PLANES == 3u {
        let b = channel_bins_of(rgb);
        atomicAdd(&tile[k * NUM_BINS + b.x], 1u);
        atomicAdd(&tile[(COLUMNS_PER_TILE + k) * NUM_BINS + b.y], 1u);
        atomicAdd(&tile[(2u * COLUMNS_PER_TILE + k) * NUM_BINS + b.z], 1u);
    } else {
        atomicAdd(&tile[k * NUM_BINS + luma_bin_of(rgb)], 1u);
    }
}

@compute @workgroup_size(WG_X, 1, 1)
fn columns_scope(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let epoch = begin(workgroup_id, num_workgroups, local_index);
    for (var s = local_index; s < SLOTS; s += WG_SIZE) {
        atomicStore(&tile[s], 0u);
    }
    workgroupBarrier();

    let c0 = workgroup_id.x * COLUMNS_PER_TILE;
    let c1 = min(c0 + COLUMNS_PER_TILE, params.columns);
    let xs = first_pixel(c0);
    let xe = first_pixel(c1);
    let tile_width = xe - xs;
    let y0 = workgroup_id.y * params.band_rows;
    let y1 = min(y0 + params.band_rows, params.height);
    if c0 < params.columns && tile_width > 0u {
        // The workgroup covers `rows_at_once` rows of `lanes` pixel columns at a time; each
        // invocation keeps to its pixel columns, so it works out their output column once,
        // and walks down its rows four loads at a time.
        let lanes = min(tile_width, WG_SIZE);
        let rows_at_once = WG_SIZE / lanes;
        let dy = local_index / lanes;
        if dy < rows_at_once {
            let stride = rows_at_once * params.width;
            for (var x = xs + local_index - dy * lanes; x < xe; x += lanes) {
                let k = x * params.columns / params.width - c0;
                var y = y0 + dy;
                var at = y * params.width + x;
                for (; y + 3u * rows_at_once < y1; y += 4u * rows_at_once) {
                    let p0 = pixels[at];
                    let p1 = pixels[at + stride];
                    let p2 = pixels[at + 2u * stride];
                    let p3 = pixels[at + 3u * stride];
                    count_column_pixel(p0, k);
                    count_column_pixel(p1, k);
                    count_column_pixel(p2, k);
                    count_column_pixel(p3, k);
                    at += 4u * stride;
                }
                for (; y < y1; y += rows_at_once) {
                    count_column_pixel(pixels[at], k);
                    at += stride;
                }
            }
        }
    }
    workgroupBarrier();

    let plane_slots = COLUMNS_PER_TILE * NUM_BINS;
    for (var s = local_index; s < SLOTS; s += WG_SIZE) {
        let count = atomicLoad(&tile[s]);
        let plane = s / plane_slots;
        let k = (s - plane * plane_slots) / NUM_BINS;
        let bin = s % NUM_BINS;
        if count != 0u && c0 + k < params.columns {
            atomicAdd(&counts[counting + (plane * params.columns + c0 + k) * NUM_BINS + bin], count);
        }
    }
    if local_index == 0u {
        finish(epoch, num_workgroups);
    }
}

// A whole number below 2^23 as a float, exactly, without a conversion instruction (a
// quarter-rate one on many GPUs): its bits under a float of exponent 23, less 2^23.
fn exact_float(v: u32) -> f32 {
    return bitcast<f32>(v | 0x4b000000u) - 8388608.0;
}

// floor(a*n/s) for a <= s < 2^22, n <= 1024, exactly: a floating-point estimate from
// `n_over_s`, n/s (within a few parts in 2^23, so a*n/s within 2^-11), rounded to the nearest
// whole number (no conversion instruction: the float's low bits once 2^23 is added), is the
// quotient or one more, which an integer product below 2^32 tells apart. Far cheaper than an
// integer division.
fn scaled_ratio(a: u32, s: u32, n: u32, n_over_s: f32) -> u32 {
    let estimate = bitcast<u32>(exact_float(a) * n_over_s + 8388608.0) - 0x4b000000u;
    let q = min(estimate, n);
    return q - select(0u, 1u, q * s > a * n);
}

// The CIE diagram's RGB -> XYZ matrix, rows X, Y, Z.
struct Matrix {
    x: vec3u,
    y: vec3u,
    z: vec3u,
}

// The cell (i, j) of a pixel on the CIE diagram of N x N cells, or NO_CELL for black: twin of
// cie::Chromaticity::cell.
fn xy_cell(rgb: vec3u, m: Matrix) -> vec2u {
    var lin = vec3u(linear[rgb.x], linear[rgb.y], linear[rgb.z]);
    let top = max(lin.x, max(lin.y, lin.z));
    if top == 0u {
        return vec2u(NO_CELL);
    }
    // (The leading bit of top | 2^15 is max(its leading bit, 15), in one operation less.)
    lin = lin >> vec3u(firstLeadingBit(top | 0x8000u) - 15u);
    let x = dot(m.x, lin);
    let y = dot(m.y, lin);
    let z = dot(m.z, lin);
    let sum = x + y + z;
    let shift = firstLeadingBit(sum | 0x200000u) - 21u;
    let n = params.columns;
    let s = sum >> shift;
    let n_over_s = exact_float(n) / exact_float(s);
    let cell = vec2u(scaled_ratio(x >> shift, s, n, n_over_s), scaled_ratio(y >> shift, s, n, n_over_s));
    return min(cell, vec2u(n - 1u));
}

// A pixel's cell, or NO_CELL (black, on the CIE diagram).
fn cell_of(word: u32, m: Matrix) -> vec2u {
    let rgb = unpack_rgb(word);
    if CIE == 1u {
        return xy_cell(rgb, m);
    }
    return chroma(rgb);
}

// Counts `n` pixels into cell `c`: in the window if it falls there, else straight into the
// counts.
fn count_cell(c: vec2u, n: u32, origin: vec2u, side: u32) {
    if c.x == NO_CELL {
        return;
    }
    // Below the window the subtraction wraps to a large number: one test per axis.
    let w = c - origin;
    if w.x < VS_WIDTH && w.y < VS_ROWS {
        // Row r and row r + VS_ROWS / 2 share words: cells side by side (where neighbouring
        // pixels fall) never do.
        let high = u32(w.y >= VS_HALF);
        atomicAdd(&window[(w.y - high * VS_HALF) * VS_WIDTH + w.x], n << (high << 4u));
    } else {
        atomicAdd(&counts[counting + c.y * side + c.x], n);
    }
}

fn count_pixel(word: u32, origin: vec2u, side: u32, m: Matrix) {
    count_cell(cell_of(word, m), 1u, origin, side);
}

// Neighbouring pixels in one cell so far: counted with one atomic when the run ends.
struct Run {
    cell: vec2u,
    n: u32,
}

// Adds a pixel of cell `c` to `run`, or counts the run and starts another at `c`.
fn extend(run: ptr<function, Run>, c: vec2u, origin: vec2u, side: u32) {
    if all(c == (*run).cell) {
        (*run).n += 1u;
    } else {
        count_cell((*run).cell, (*run).n, origin, side);
        *run = Run(c, 1u);
    }
}

// Counts four neighbouring pixels, those side by side in one cell (as neighbours mostly are)
// with one atomic: the vectorscope's time goes to its atomics. Written out, not looped over an
// array (which the compiler keeps in local memory).
fn count_four(p0: u32, p1: u32, p2: u32, p3: u32, origin: vec2u, side: u32, m: Matrix) {
    let c1 = cell_of(p1, m);
    let c2 = cell_of(p2, m);
    let c3 = cell_of(p3, m);
    var run = Run(cell_of(p0, m), 1u);
    extend(&run, c1, origin, side);
    extend(&run, c2, origin, side);
    extend(&run, c3, origin, side);
    count_cell(run.cell, run.n, origin, side);
}

@compute @workgroup_size(WG_X, 1, 1)
fn density(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let epoch = begin(workgroup_id, num_workgroups, local_index);
    for (var s = local_index; s < VS_WORDS; s += WG_SIZE) {
        atomicStore(&window[s], 0u);
    }
    var origin = vec2u(VS_FIRST_CB, VS_FIRST_CR);
    var side = 256u;
    var m: Matrix;
    if CIE == 1u {
        origin = vec2u(params.origin_x, params.origin_y);
        side = params.columns;
        for (var s = local_index; s < LINEAR_WORDS; s += WG_SIZE) {
            linear[s] = cie[CIE_TABLE + s];
        }
        m = Matrix(vec3u(cie[0], cie[1], cie[2]), vec3u(cie[3], cie[4], cie[5]), vec3u(cie[6], cie[7], cie[8]));
    }
    workgroupBarrier();

    let chunk = workgroup_id.y * num_workgroups.x + workgroup_id.x;
    let pixel_count = params.width * params.height;
    let first = chunk * VS_CHUNK + local_index;
    if (chunk + 1u) * VS_CHUNK <= pixel_count && CIE == 0u {
        // A whole chunk of the vectorscope: four neighbouring pixels at a time, the
        // workgroup's fours side by side.
        let start = chunk * VS_CHUNK + 4u * local_index;
        for (var k = 0u; k < VS_LOADS; k += 4u) {
            let i = start + k * WG_SIZE;
            count_four(pixels[i], pixels[i + 1u], pixels[i + 2u], pixels[i + 3u], origin, side, m);
        }
    } else if (chunk + 1u) * VS_CHUNK <= pixel_count {
        // A whole chunk of the CIE diagram (whose time goes to working out the cells, not to
        // its atomics): four loads in flight, then their counts.
        for (var k = 0u; k < VS_LOADS; k += 4u) {
            let i = first + k * WG_SIZE;
            let p0 = pixels[i];
            let p1 = pixels[i + WG_SIZE];
            let p2 = pixels[i + 2u * WG_SIZE];
            let p3 = pixels[i + 3u * WG_SIZE];
            count_pixel(p0, origin, side, m);
            count_pixel(p1, origin, side, m);
            count_pixel(p2, origin, side, m);
            count_pixel(p3, origin, side, m);
        }
    } else {
        for (var k = 0u; k < VS_LOADS; k++) {
            let i = first + k * WG_SIZE;
            if i < pixel_count {
                count_pixel(pixels[i], origin, side, m);
            }
        }
    }
    workgroupBarrier();

    for (var s = local_index; s < VS_WORDS; s += WG_SIZE) {
        let pair = atomicLoad(&window[s]);
        if pair != 0u {
            let base = counting + (origin.y + s / VS_WIDTH) * side + origin.x + s % VS_WIDTH;
            if (pair & 0xffffu) != 0u {
                atomicAdd(&counts[base], pair & 0xffffu);
            }
            if (pair >> 16u) != 0u {
                atomicAdd(&counts[base + VS_HALF * side], pair >> 16u);
            }
        }
    }
    if local_index == 0u {
        finish(epoch, num_workgroups);
    }
}
