// The photosensitivity pass, one workgroup a block of cells (4 x 4 cells of the frame's grid):
// the light of each of its cells, for the flash rules (its pixels' saturated red and linear R, G,
// B summed, in sixteenths of a cd/m² through the table of the standard's display model, and its
// luminance from those, in integers as the CPU twin, src/pse/light.rs, takes them); then the
// block's stripes, for the regular-pattern rule: the crossings of the light about the block's
// mean along every `line_step`th row and column, as `scan` in src/pse/stripes.rs counts them.
//
// Indices stay in bounds by construction (the module is built without bounds checks, see
// trusted_module in src/gpu/shaders.rs): pixels below the picture's rows and columns (a block's
// within the picture, each line's pixels below its block's size, its lines below `lines`, a
// cell's pixels within its rows, those past its last read as its first; quads of four pixels
// where a row and every cell start on a multiple of four); table codes masked to the table's
// BITS, HLG's gains below the 4097 after them; cells and blocks below the grid's cells and
// blocks (`live`); masks below 2 x 2 x MAX_LINES x CHUNK_WORDS (`Blocks::line_step` keeps a
// block's lines to MAX_LINES, a chunk's words to CHUNK_WORDS), the invocations' sums in them
// below 4 x 256; side bits below the side rows (the lines across) and the words of the widest
// block's row, as `Sides` sizes them; piece_bits below 3 x 256 (the pieces of a chunk's cut
// words, at most one an invocation). Every loop ends: each turn of the crossings' clears a bit
// of a word.

struct PseParams { // twin: PseParams in src/pse/gpu.rs
    width: u32,
    height: u32,
    columns: u32,
    rows: u32,
    bits: u32,
    weight_r: u32,
    weight_g: u32,
    weight_b: u32,
    // The blocks of the stripes pass: cells a block across and down, blocks across and down,
    // and each block's rows of side bits.
    block_cells: u32,
    block_columns: u32,
    block_rows: u32,
    words_per_row: u32,
    side_rows: u32,
    line_step: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: PseParams;
@group(0) @binding(1) var<storage, read> pixels: array<u32>;
// The same pixels four at a time (the buffer holds whole vec4u), read where rows and cells
// start on a multiple of four pixels (`QUADS`, a constant of the module: 1 where the picture's
// width and every cell's are multiples of four).
@group(0) @binding(6) var<storage, read> quads: array<vec4u>;
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<storage, read_write> cells: array<u32>;
@group(0) @binding(4) var<storage, read_write> blocks: array<u32>;
@group(0) @binding(5) var<storage, read_write> sides: array<u32>;

// The words of a cell's sums (twin of `CellLight`): luminance, red, then R, G and B.
const CELL_WORDS = 5u;

// The table, copied into workgroup memory as each workgroup starts (`load_table`): every pixel
// looks up three codes, and the lanes of a subgroup look up 32 different ones, which the
// cache serves a line at a time but workgroup memory a bank at a time.
var<workgroup> light: array<u32, 1u << BITS>;

// Copies the table (256 or 1024 codes: BITS, a constant of the module) into `light`; a barrier
// must follow before it is read.
fn load_table(index: u32) {
    let codes = 1u << BITS;
    for (var i = index; i < codes; i += 256u) {
        light[i] = table[i];
    }
}

// Twin of `pixel_channels`: a packed pixel's linear R, G and B.
fn pixel_channels(word: u32) -> vec3u {
    let mask = (1u << BITS) - 1u;
    let step = BITS;
    let rgb = vec3u(light[word & mask], light[(word >> step) & mask], light[(word >> (2u * step)) & mask]);
    // (HLG, a constant the module is made with: 1 where `table`'s codes are the scene's light
    // and the OOTF's gains follow them.)
    if HLG == 0u {
        return rgb;
    }
    // HLG's OOTF: each channel times the gain of the pixel's scene luminance, by its steps
    // (GAIN_STEP_SHIFT, GAIN_STEPS: the module's constants, as src/pse/light.rs has them; scene
    // light <= 2^16 and gains <= 16 000: the products stay within 32 bits).
    let scene = (params.weight_r * rgb.x + params.weight_g * rgb.y + params.weight_b * rgb.z) / 10000u;
    let gain = table[(1u << BITS) + min(scene >> GAIN_STEP_SHIFT, GAIN_STEPS)];
    return (rgb * gain) >> vec3u(16u);
}

// A packed pixel's luminance times 10000: `pixel_luminance` (src/pse/light.rs) before its
// division, which the stripes' bounds take instead (`count_stripes`). At most 10000 times
// 160 000 sixteenths of a cd/m²: within 31 bits.
fn pixel_scaled(word: u32) -> u32 {
    let rgb = pixel_channels(word);
    return params.weight_r * rgb.x + params.weight_g * rgb.y + params.weight_b * rgb.z;
}

// The red a pixel counts for red flashes: the excess of red over green and blue where red makes
// 80% of the light (5r >= 4(r + g + b), i.e. r >= 4(g + b)).
fn red_of(rgb: vec3u) -> u32 {
    let others = rgb.y + rgb.z;
    // (r = 0 passes only where g = b = 0: its red is 0.)
    if rgb.x >= 4u * others {
        return rgb.x - others;
    }
    return 0u;
}

// A pixel's red and linear R, G and B, times `valid` (0 or 1).
fn sum_of(word: u32, valid: u32) -> vec4u {
    let rgb = pixel_channels(word);
    return vec4u(red_of(rgb), rgb) * valid;
}

// The red and linear R, G and B of four pixels.
fn sum_of_quad(quad: vec4u) -> vec4u {
    return sum_of(quad.x, 1u) + sum_of(quad.y, 1u) + sum_of(quad.z, 1u) + sum_of(quad.w, 1u);
}

// ceil(n * size / parts): the first pixel of part n.
fn start(n: u32, size: u32, parts: u32) -> u32 {
    return (n * size + parts - 1u) / parts;
}


// A cell's light from its red, R, G and B sums, into `cells`; its luminance: twin of
// `cells_cpu`. The luminance is (wr R + wg G + wb B) / 10000 of the summed channels, without
// overflowing 32 bits: exact, as each sum = 10000 q + r.
fn store_cell(cell: u32, total: vec4u) -> u32 {
    let q = total.yzw / 10000u;
    let r = total.yzw % 10000u;
    let luminance = params.weight_r * q.x + params.weight_g * q.y + params.weight_b * q.z
        + (params.weight_r * r.x + params.weight_g * r.y + params.weight_b * r.z) / 10000u;
    let at = CELL_WORDS * cell;
    cells[at] = luminance;
    cells[at + 1u] = total.x;
    cells[at + 2u] = total.y;
    cells[at + 3u] = total.z;
    cells[at + 4u] = total.w;
    return luminance;
}

// The words of a block's counts (twin of `Stripes` in src/pse/stripes.rs): lines, crossings,
// lines crossed twice or more, gaps, their sum and their squares' sum (across, then down),
// the light and count of the row pixels above the mean by the hysteresis and below it by as
// much, flipped, the row pixels scanned, the mean.
const LINES = 0u;
const CROSSINGS = 2u;
const CROSSED = 4u;
const GAPS = 6u;
const GAP_SUM = 8u;
const GAP_SQUARES = 10u;
const LIGHT = 12u;
const SIDES = 14u;
const FLIPPED = 16u;
const ROW_PIXELS = 17u;
const MEAN = 18u;
const BLOCK_WORDS = 19u;

var<workgroup> counts: array<atomic<u32>, 19>;
var<workgroup> block_mean: atomic<u32>;

// Twin of `hysteresis`: a quarter of the flash step (5 cd/m²), or a 34th of the mean above.
fn hysteresis(mean: u32) -> u32 {
    return max(80u, mean / 34u);
}

// A chunk of a line is taken at a time: 256 pixels, 8 words of a bit a pixel.
const CHUNK = 256u;
const CHUNK_WORDS = 8u;
// Lines a block has each way at most (`Blocks::line_step` keeps them to this).
const MAX_LINES = 64u;
// Each line's chunk as two masks, a bit a pixel: above the mean by the hysteresis (`HIGH`), and
// below it by as much (`LOW`); lines across first, then down.
const LOW = 2u * MAX_LINES * CHUNK_WORDS;
var<workgroup> masks: array<u32, 2048>;
// The high, low and above bits of the pieces words are cut into (`count_stripes`), a piece an
// invocation.
var<workgroup> piece_bits: array<u32, 768>;
// The cells of a block, most: BLOCK_CELLS (src/pse/stripes.rs) across and down.
const MAX_BLOCK_CELLS = 4u;
// Invocations a cell of the block has: its MAX_BLOCK_CELLS² cells share the 256.
const CELL_LANES = 256u / (MAX_BLOCK_CELLS * MAX_BLOCK_CELLS);

// A pixel's or a quad's red, R, G and B at index `at` of `pixels`, or of `quads` where the pass
// reads four pixels a load (QUADS), counted where `valid`.
fn sum_at(at: u32, valid: bool) -> vec4u {
    var sum: vec4u;
    if QUADS == 1u {
        sum = sum_of_quad(quads[at]);
    } else {
        sum = sum_of(pixels[at], 1u);
    }
    return select(vec4u(0u), sum, valid);
}

// The block's cells' sums: each cell summed by CELL_LANES invocations, each its every
// CELL_LANES-th unit of the cell (a pixel, or a quad of four pixels where the pass reads four a
// load: the cells' widths are then multiples of four), the cell's units numbered along its
// rows, one row after the next; four loaded at a time. Each invocation's sum goes into `masks`
// (not used until the stripes) for the cells' light to add up (`cell_total`), so that no two
// invocations add into one word.
fn sum_cells(rows: vec2u, c0: u32, c1: u32, live: bool, index: u32) {
    let cell_columns = max(c1 - c0, 1u);
    let k = index / CELL_LANES;
    let j = index % CELL_LANES;
    var sum = vec4u(0u);
    if live && k < (c1 - c0) * (rows.y - rows.x) {
        let rr = rows.x + k / cell_columns;
        let cc = c0 + k % cell_columns;
        let unit = select(1u, 4u, QUADS == 1u);
        let row_units = params.width / unit;
        let x0 = start(cc, params.width, params.columns);
        let cw = (start(cc + 1u, params.width, params.columns) - x0) / unit;
        let y0 = start(rr, params.height, params.rows);
        let n = (start(rr + 1u, params.height, params.rows) - y0) * cw;
        let base = y0 * row_units + x0 / unit;
        // Unit i of the cell is at `at`, the `col`th of its row; a step of CELL_LANES units goes
        // `step.x` rows down the cell and `step.y` units across, one row more where that passes
        // the row's end (`step.z`: the cell's units a row).
        let step = vec3u(CELL_LANES / cw, CELL_LANES % cw, cw);
        var col = j % cw;
        var at = base + (j / cw) * row_units + col;
        var i = j;
        // Four units a turn while all four are the cell's, then the last up to three, those past
        // the cell's last read as its first and counted as none.
        for (; i + 3u * CELL_LANES < n; i += 4u * CELL_LANES) {
            let a0 = at;
            let a1 = step_unit(&at, &col, step, row_units);
            let a2 = step_unit(&at, &col, step, row_units);
            let a3 = step_unit(&at, &col, step, row_units);
            step_unit(&at, &col, step, row_units);
            sum += sum_at(a0, true) + sum_at(a1, true) + sum_at(a2, true) + sum_at(a3, true);
        }
        if i < n {
            let a0 = at;
            let a1 = step_unit(&at, &col, step, row_units);
            let a2 = step_unit(&at, &col, step, row_units);
            let v1 = i + CELL_LANES < n;
            let v2 = i + 2u * CELL_LANES < n;
            sum += sum_at(a0, true) + sum_at(select(base, a1, v1), v1) + sum_at(select(base, a2, v2), v2);
        }
    }
    masks[4u * index] = sum.x;
    masks[4u * index + 1u] = sum.y;
    masks[4u * index + 2u] = sum.z;
    masks[4u * index + 3u] = sum.w;
}

// Steps a cell's unit (`at`, the `col`th of its row) on by CELL_LANES units (`sum_cells`;
// `step`: the rows down, the units across, the cell's units a row); the unit stepped to.
fn step_unit(at: ptr<function, u32>, col: ptr<function, u32>, step: vec3u, row_units: u32) -> u32 {
    *col += step.y;
    *at += step.x * row_units + step.y;
    if *col >= step.z {
        *col -= step.z;
        *at += row_units - step.z;
    }
    return *at;
}

// The red, R, G and B sums of the block's cell `k` (of its cells, a row after the next), from
// its invocations' sums in `masks`.
fn cell_total(k: u32) -> vec4u {
    var total = vec4u(0u);
    for (var l = k * CELL_LANES; l < (k + 1u) * CELL_LANES; l++) {
        total += vec4u(masks[4u * l], masks[4u * l + 1u], masks[4u * l + 2u], masks[4u * l + 3u]);
    }
    return total;
}

// The whole pass in one dispatch, a workgroup of 256 invocations a block: the block's cells'
// sums from its pixels (`sum_cells`, sixteen invocations a cell), their light into `cells` and
// the block's mean from it, then the block's stripes about that mean (`count_stripes`),
// reading the block's pixels again (from the cache: a block is 80 x 80 pixels at 1080p, 160 x
// 160 at 4K).
@compute @workgroup_size(256, 1, 1)
fn block_light(
    @builtin(workgroup_id) group: vec3u,
    @builtin(local_invocation_index) index: u32,
) {
    let block = group.y * 65535u + group.x;
    let live = block < params.block_columns * params.block_rows;
    let c0 = (block % params.block_columns) * params.block_cells;
    let r0 = (block / params.block_columns) * params.block_cells;
    let c1 = min(c0 + params.block_cells, params.columns);
    let r1 = min(r0 + params.block_cells, params.rows);
    if index < BLOCK_WORDS {
        atomicStore(&counts[index], 0u);
    }
    if index == 0u {
        atomicStore(&block_mean, 0u);
    }
    load_table(index);
    workgroupBarrier();
    sum_cells(vec2u(r0, r1), c0, c1, live, index);
    workgroupBarrier();
    // Each cell's light, and the mean of the cells' mean light (twin of `Blocks::mean`), a cell
    // an invocation.
    let cell_columns = max(c1 - c0, 1u);
    if live && index < (c1 - c0) * (r1 - r0) {
        let c = index % cell_columns;
        let r = index / cell_columns;
        let total = cell_total(index);
        let cc = c0 + c;
        let rr = r0 + r;
        let w = start(cc + 1u, params.width, params.columns) - start(cc, params.width, params.columns);
        let h = start(rr + 1u, params.height, params.rows) - start(rr, params.height, params.rows);
        atomicAdd(&block_mean, store_cell(rr * params.columns + cc, total) / (w * h));
    }
    workgroupBarrier();
    let mean = atomicLoad(&block_mean) / max((c1 - c0) * (r1 - r0), 1u);
    count_stripes(block, live, vec4u(c0, r0, c1, r1), mean, index);
}

// A word of 32 pixels of a line, classed: above the mean by the hysteresis, below it by as
// much, at or above it (a bit a pixel), and the light and count of those on each side.
struct Word {
    high: u32,
    low: u32,
    above: u32,
    light: vec2u,
}

// Classes pixel `i` of a word of `n` (none where i >= n), of luminance `pixel` times 10000
// (`pixel_scaled`), into `word` by the sides' bounds `th` (`count_stripes`), without a branch;
// the light of each side summed, in cd/m² (the luminance's sixteenths over 16, as the twin).
fn class_into(word: ptr<function, Word>, pixel: u32, i: u32, n: u32, th: vec3u) {
    class_light(word, pixel, i, n, th, true);
}

// `class_into`, the light of each side summed only where `with_light`. A pixel past the word's
// last is taken as the mean: on neither side (its `above` bit is cleared with the word's).
fn class_light(word: ptr<function, Word>, pixel: u32, i: u32, n: u32, th: vec3u, with_light: bool) {
    let value = select(th.y, pixel, i < n);
    let high = value >= th.x;
    let low = value < th.z;
    (*word).high |= select(0u, 1u << i, high);
    (*word).low |= select(0u, 1u << i, low);
    (*word).above |= select(0u, 1u << i, value >= th.y);
    if with_light {
        let light = value / 160000u;
        (*word).light += vec2u(select(0u, light, high), select(0u, light, low));
    }
}

// `class_into` of four pixels from pixel `k` of the word on.
fn class_quad(word: ptr<function, Word>, quad: vec4u, k: u32, n: u32, th: vec3u) {
    class_into(word, pixel_scaled(quad.x), k, n, th);
    class_into(word, pixel_scaled(quad.y), k + 1u, n, th);
    class_into(word, pixel_scaled(quad.z), k + 2u, n, th);
    class_into(word, pixel_scaled(quad.w), k + 3u, n, th);
}

// The crossings of a word of a line (a bit a pixel: a pixel of one side whose last classed
// pixel before it is of the other), from its pixels above the mean (`high`) and below it
// (`low`), and the line's side before the word (0: neither yet, 1: above, 2: below); then the
// side after it. The pixels whose last classed pixel, at or before them, is above: those above,
// and the unclassed after each, which adding each one's next bit to the unclassed run carries
// through (the same below).
fn crossings_in(high: u32, low: u32, side: u32) -> vec2u {
    let none = ~(high | low);
    let from_high = select(0u, 1u, side == 1u);
    let from_low = select(0u, 1u, side == 2u);
    let after_high = high | (none & ~(none + ((high << 1u) | from_high)));
    let after_low = low | (none & ~(none + ((low << 1u) | from_low)));
    let crossed = (high & ((after_low << 1u) | from_low)) | (low & ((after_high << 1u) | from_high));
    var next = side;
    if (after_high >> 31u) != 0u {
        next = 1u;
    } else if (after_low >> 31u) != 0u {
        next = 2u;
    }
    return vec2u(crossed, next);
}

// A word of a chunk's lines: its direction (0: across), line and word along it.
struct Task {
    dir: u32,
    line: u32,
    word: u32,
}

// The word `task` of a chunk with `tasks` words each way (across first, each a word of every
// line, then the next), of `lines` lines each way.
fn task_at(task: u32, tasks: vec2u, lines: vec2u) -> Task {
    var dir = 0u;
    var t = task;
    if t >= tasks.x {
        dir = 1u;
        t -= tasks.x;
    }
    return Task(dir, t % lines[dir], t / lines[dir]);
}

// A word's pixels in the picture: the first (an index of `pixels`), the step from one to the
// next, how many (`n`, 1 to 32), and the first's place along its line.
struct Span {
    pixel: u32,
    stride: u32,
    n: u32,
    first: u32,
}

// The pixels of word `at` of the chunk from `base` (`length`: the pixels of the block's lines
// each way up to the chunk's end; `origin`: the block's first pixel).
fn span_of(at: Task, base: u32, length: vec2u, origin: vec2u) -> Span {
    let first = base + at.word * 32u;
    let n = min(32u, length[at.dir] - first);
    let step = params.line_step;
    if at.dir == 1u {
        return Span((origin.y + first) * params.width + origin.x + at.line * step, params.width, n, first);
    }
    return Span((origin.y + at.line * step) * params.width + origin.x + first, 1u, n, first);
}

// The bits of a word's first `n` pixels.
fn valid_bits(n: u32) -> u32 {
    return 0xffffffffu >> (32u - n);
}

// A word of a line classed (`class_light`), the light of each side summed across (`dir` 0):
// along a row four pixels a load where rows and cells start on multiples of four (its second
// sixteen only where it has more than sixteen pixels), else eight pixels loaded at a time while
// any of them is the word's; the pixels loaded past its last (its last quad or pixel read again
// where a load would go past it) are classed as the mean, on neither side.
fn class_word(span: Span, dir: u32, th: vec3u) -> Word {
    var word = Word();
    let top = span.n - 1u;
    if QUADS == 1u && dir == 0u {
        let q = span.pixel / 4u;
        let q_last = q + top / 4u;
        let a0 = quads[q];
        let a1 = quads[min(q + 1u, q_last)];
        let a2 = quads[min(q + 2u, q_last)];
        let a3 = quads[min(q + 3u, q_last)];
        class_quad(&word, a0, 0u, span.n, th);
        class_quad(&word, a1, 4u, span.n, th);
        class_quad(&word, a2, 8u, span.n, th);
        class_quad(&word, a3, 12u, span.n, th);
        if span.n > 16u {
            let a4 = quads[min(q + 4u, q_last)];
            let a5 = quads[min(q + 5u, q_last)];
            let a6 = quads[min(q + 6u, q_last)];
            let a7 = quads[min(q + 7u, q_last)];
            class_quad(&word, a4, 16u, span.n, th);
            class_quad(&word, a5, 20u, span.n, th);
            class_quad(&word, a6, 24u, span.n, th);
            class_quad(&word, a7, 28u, span.n, th);
        }
        return word;
    }
    let with_light = dir == 0u;
    for (var k = 0u; k < span.n; k += 8u) {
        let p0 = pixels[span.pixel + min(k, top) * span.stride];
        let p1 = pixels[span.pixel + min(k + 1u, top) * span.stride];
        let p2 = pixels[span.pixel + min(k + 2u, top) * span.stride];
        let p3 = pixels[span.pixel + min(k + 3u, top) * span.stride];
        let p4 = pixels[span.pixel + min(k + 4u, top) * span.stride];
        let p5 = pixels[span.pixel + min(k + 5u, top) * span.stride];
        let p6 = pixels[span.pixel + min(k + 6u, top) * span.stride];
        let p7 = pixels[span.pixel + min(k + 7u, top) * span.stride];
        class_light(&word, pixel_scaled(p0), k, span.n, th, with_light);
        class_light(&word, pixel_scaled(p1), k + 1u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p2), k + 2u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p3), k + 3u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p4), k + 4u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p5), k + 5u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p6), k + 6u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p7), k + 7u, span.n, th, with_light);
    }
    return word;
}

// `class_word` of the word's pixels `k0` to `k0 + size` (`size` a multiple of four), four
// loaded at a time, into their bits of the word.
fn class_piece(span: Span, k0: u32, size: u32, dir: u32, th: vec3u) -> Word {
    var word = Word();
    let top = span.n - 1u;
    let with_light = dir == 0u;
    for (var k = k0; k < k0 + size; k += 4u) {
        let p0 = pixels[span.pixel + min(k, top) * span.stride];
        let p1 = pixels[span.pixel + min(k + 1u, top) * span.stride];
        let p2 = pixels[span.pixel + min(k + 2u, top) * span.stride];
        let p3 = pixels[span.pixel + min(k + 3u, top) * span.stride];
        class_light(&word, pixel_scaled(p0), k, span.n, th, with_light);
        class_light(&word, pixel_scaled(p1), k + 1u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p2), k + 2u, span.n, th, with_light);
        class_light(&word, pixel_scaled(p3), k + 3u, span.n, th, with_light);
    }
    return word;
}

// The row pixels of word `at` (its first at `first` along the row) now on the other side of
// the mean than at the frame before (`above`: those at or above it now), the side bits kept.
fn flip_sides(block: u32, at: Task, first: u32, above: u32) -> u32 {
    let bits = ((block * params.side_rows) + at.line) * params.words_per_row + first / 32u;
    let flipped = countOneBits(sides[bits] ^ above);
    sides[bits] = above;
    return flipped;
}

// The stripes of a block of cells (`bounds`: its first column and row of cells, and one past
// its last) about its mean light, into `blocks` (`counts` zeroed, the table loaded, before).
// For each chunk of its lines: first every 32 pixels of a line (one word of the masks) are
// classed by one invocation, reading the picture (the words past the last whole round of
// invocations in pieces, then put together); then one invocation a line counts its crossings
// through the masks, a word at a time.
fn count_stripes(block: u32, live: bool, bounds: vec4u, mean: u32, index: u32) {
    let c0 = bounds.x;
    let r0 = bounds.y;
    let c1 = bounds.z;
    let r1 = bounds.w;
    let margin = hysteresis(mean);
    // The sides' bounds on a pixel's luminance times 10000 (`pixel_scaled`): above the mean by
    // the margin, at or above it, and below it by the margin (under the third).
    let th = vec3u(10000u * (mean + margin), 10000u * mean, select(0u, 10000u * (mean - margin + 1u), mean >= margin));
    let step = params.line_step;
    let origin = vec2u(start(c0, params.width, params.columns), start(r0, params.height, params.rows));
    // Across: lines down the block, each `size.x` long; down: lines across it, each `size.y`.
    let size = vec2u(start(c1, params.width, params.columns), start(r1, params.height, params.rows)) - origin;
    let lines = vec2u((size.y + step - 1u) / step, (size.x + step - 1u) / step);
    let chunks = (max(size.x, size.y) + CHUNK - 1u) / CHUNK;
    // What this invocation sums of its row words: the light and count of the pixels on each
    // side, and those flipped.
    var light = vec2u(0u);
    var count = vec2u(0u);
    var flipped = 0u;
    // The line this invocation follows (the first 2 * MAX_LINES): direction, index, and where
    // it is along it.
    let d = index / MAX_LINES;
    let line = index % MAX_LINES;
    let follows = live && d < 2u && line < lines[min(d, 1u)];
    var side = 0u; // 0: neither side yet, 1: above, 2: below
    var crossings = 0u;
    var first = 0u;
    var last = 0u;
    var squares = 0u;
    for (var chunk = 0u; chunk < chunks; chunk++) {
        let base = chunk * CHUNK;
        // Pixels of the chunk each way, and its words.
        let length = min(size, vec2u(base + CHUNK));
        let words = (max(length, vec2u(base)) - vec2u(base) + 31u) / 32u;
        let tasks = lines * words;
        // The words (tasks) past the last whole round of invocations, where there are at most
        // half as many as invocations, are cut into `pieces` of 4 to 16 pixels, so that the
        // chunk takes a round and a piece rather than two rounds.
        let total = tasks.x + tasks.y;
        var left = total % 256u;
        if total <= 256u || left > 128u {
            left = 0u;
        }
        let pieces = min(8u, 1u << firstLeadingBit(256u / max(left, 1u)));
        let whole = total - left;
        for (var task = index; live && task < whole; task += 256u) {
            let at = task_at(task, tasks, lines);
            let span = span_of(at, base, length, origin);
            let word = class_word(span, at.dir, th);
            if at.dir == 0u {
                light += word.light;
                count += vec2u(countOneBits(word.high), countOneBits(word.low));
            }
            let m = (at.dir * MAX_LINES + at.line) * CHUNK_WORDS + at.word;
            masks[m] = word.high;
            masks[LOW + m] = word.low;
            if at.dir == 0u {
                flipped += flip_sides(block, at, span.first, word.above & valid_bits(span.n));
            }
        }
        if live && index < left * pieces {
            let at = task_at(whole + index / pieces, tasks, lines);
            let span = span_of(at, base, length, origin);
            let part = 32u / pieces;
            let word = class_piece(span, (index % pieces) * part, part, at.dir, th);
            if at.dir == 0u {
                light += word.light;
                count += vec2u(countOneBits(word.high), countOneBits(word.low));
            }
            piece_bits[index] = word.high;
            piece_bits[256u + index] = word.low;
            piece_bits[512u + index] = word.above;
        }
        workgroupBarrier();
        if left != 0u {
            // The cut words whole again, from their pieces.
            if live && index < left {
                let at = task_at(whole + index, tasks, lines);
                var word = Word();
                for (var p = index * pieces; p < (index + 1u) * pieces; p++) {
                    word.high |= piece_bits[p];
                    word.low |= piece_bits[256u + p];
                    word.above |= piece_bits[512u + p];
                }
                let m = (at.dir * MAX_LINES + at.line) * CHUNK_WORDS + at.word;
                masks[m] = word.high;
                masks[LOW + m] = word.low;
                if at.dir == 0u {
                    let span = span_of(at, base, length, origin);
                    flipped += flip_sides(block, at, span.first, word.above & valid_bits(span.n));
                }
            }
            workgroupBarrier();
        }
        if follows {
            // From one side's pixel to the next of the other: a crossing; a word of the line's
            // masks at a time (`crossings_in`). The spaces between neighbouring crossings:
            // their sum is the last's place less the first's, their squares summed one by one.
            let at = index * CHUNK_WORDS;
            for (var w = 0u; w < words[d]; w++) {
                let word = crossings_in(masks[at + w], masks[LOW + at + w], side);
                side = word.y;
                var crossed = word.x;
                if crossed != 0u {
                    let offset = base + w * 32u;
                    if crossings == 0u {
                        first = offset + firstTrailingBit(crossed);
                        last = first;
                    }
                    crossings += countOneBits(crossed);
                    while crossed != 0u {
                        let i = offset + firstTrailingBit(crossed);
                        crossed &= crossed - 1u;
                        let gap = i - last;
                        squares += gap * gap;
                        last = i;
                    }
                }
            }
        }
        workgroupBarrier();
    }
    let gaps = vec3u(max(crossings, 1u) - 1u, last - first, squares);
    if follows {
        atomicAdd(&counts[LINES + d], 1u);
        atomicAdd(&counts[CROSSINGS + d], crossings);
        atomicAdd(&counts[CROSSED + d], select(0u, 1u, crossings >= 2u));
        atomicAdd(&counts[GAPS + d], gaps.x);
        atomicAdd(&counts[GAP_SUM + d], gaps.y);
        atomicAdd(&counts[GAP_SQUARES + d], gaps.z);
        if d == 0u {
            atomicAdd(&counts[ROW_PIXELS], size.x);
        }
    }
    if live {
        atomicAdd(&counts[LIGHT], light.x);
        atomicAdd(&counts[LIGHT + 1u], light.y);
        atomicAdd(&counts[SIDES], count.x);
        atomicAdd(&counts[SIDES + 1u], count.y);
        atomicAdd(&counts[FLIPPED], flipped);
    }
    workgroupBarrier();
    if live && index < BLOCK_WORDS {
        var value = atomicLoad(&counts[index]);
        if index == MEAN {
            value = mean;
        }
        blocks[block * BLOCK_WORDS + index] = value;
    }
}
