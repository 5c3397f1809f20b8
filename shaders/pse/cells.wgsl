// The light of each cell of a frame's grid, for the photosensitivity analysis: one workgroup a
// cell sums its pixels' luminance, saturated red and linear R, G, B (sixteenths of a cd/m²,
// through the table of the standard's display model), in integers as the CPU twin
// (src/pse/light.rs) sums them.
// Then the stripes of each block of cells, for the regular-pattern rule: one workgroup a block
// (32 invocations along its rows, 32 down its columns, each taking every 32nd line of those
// scanned, every `line_step`th) counts the crossings of the light about the block's mean, as
// `scan` in src/pse/stripes.rs counts them.

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
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<storage, read_write> cells: array<u32>;
@group(0) @binding(4) var<storage, read_write> blocks: array<u32>;
@group(0) @binding(5) var<storage, read_write> sides: array<u32>;

// The words of a cell's sums (twin of `CellLight`): luminance, red, then R, G and B.
const CELL_WORDS = 5u;

var<workgroup> cell_sums: array<atomic<u32>, 5>;

// Twin of `pixel_channels`: a packed pixel's linear R, G and B.
fn pixel_channels(word: u32) -> vec3u {
    var mask = 0xffu;
    var step = 8u;
    if params.bits == 10u {
        mask = 0x3ffu;
        step = 10u;
    }
    return vec3u(table[word & mask], table[(word >> step) & mask], table[(word >> (2u * step)) & mask]);
}

// Twin of `pixel_light`: the luminance and the counted red of a packed pixel.
fn pixel_light(word: u32) -> vec2u {
    return light_of(pixel_channels(word));
}

fn light_of(rgb: vec3u) -> vec2u {
    let r = rgb.x;
    let g = rgb.y;
    let b = rgb.z;
    let luminance = (params.weight_r * r + params.weight_g * g + params.weight_b * b) / 10000u;
    // 5r >= 4(r + g + b) <=> r >= 4(g + b): red makes 80% of the light.
    let saturated = r + g + b > 0u && r >= 4u * (g + b);
    var red = 0u;
    if saturated && r > g + b {
        red = r - (g + b);
    }
    return vec2u(luminance, red);
}

// ceil(n * size / parts): the first pixel of part n.
fn start(n: u32, size: u32, parts: u32) -> u32 {
    return (n * size + parts - 1u) / parts;
}

// A workgroup of 8 x 8 invocations a cell, each taking every 8th pixel across and down
// (neighbouring invocations read neighbouring words).
@compute @workgroup_size(8, 8, 1)
fn cell_light(
    @builtin(workgroup_id) group: vec3u,
    @builtin(local_invocation_id) local: vec3u,
    @builtin(local_invocation_index) index: u32,
) {
    let cell = group.y * 65535u + group.x;
    let live = cell < params.columns * params.rows;
    if index < CELL_WORDS {
        atomicStore(&cell_sums[index], 0u);
    }
    workgroupBarrier();
    if live {
        let column = cell % params.columns;
        let row = cell / params.columns;
        let x0 = start(column, params.width, params.columns);
        let x1 = start(column + 1u, params.width, params.columns);
        let y0 = start(row, params.height, params.rows);
        let y1 = start(row + 1u, params.height, params.rows);
        var light = vec2u(0u);
        var channels = vec3u(0u);
        for (var y = y0 + local.y; y < y1; y += 8u) {
            for (var x = x0 + local.x; x < x1; x += 8u) {
                let rgb = pixel_channels(pixels[y * params.width + x]);
                light += light_of(rgb);
                channels += rgb;
            }
        }
        let sums = array<u32, 5>(light.x, light.y, channels.x, channels.y, channels.z);
        for (var k = 0u; k < CELL_WORDS; k++) {
            atomicAdd(&cell_sums[k], sums[k]);
        }
    }
    workgroupBarrier();
    if index < CELL_WORDS && live {
        cells[CELL_WORDS * cell + index] = atomicLoad(&cell_sums[index]);
    }
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
var<workgroup> block_mean: u32;

// Twin of `hysteresis`: a quarter of the flash step (5 cd/m²), or a 34th of the mean above.
fn hysteresis(mean: u32) -> u32 {
    return max(80u, mean / 34u);
}

@compute @workgroup_size(64, 1, 1)
fn block_stripes(
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
    if index == 0u && live {
        // The mean of the cells' mean light (twin of `Blocks::mean`).
        var sum = 0u;
        for (var r = r0; r < r1; r++) {
            for (var c = c0; c < c1; c++) {
                let w = start(c + 1u, params.width, params.columns) - start(c, params.width, params.columns);
                let h = start(r + 1u, params.height, params.rows) - start(r, params.height, params.rows);
                sum += cells[CELL_WORDS * (r * params.columns + c)] / (w * h);
            }
        }
        block_mean = sum / ((c1 - c0) * (r1 - r0));
    }
    workgroupBarrier();
    if live {
        let mean = block_mean;
        let margin = hysteresis(mean);
        let x0 = start(c0, params.width, params.columns);
        let x1 = start(c1, params.width, params.columns);
        let y0 = start(r0, params.height, params.rows);
        let y1 = start(r1, params.height, params.rows);
        // Invocations 0-31 along the rows, 32-63 down the columns.
        let d = index / 32u;
        let lane = index % 32u;
        let step = params.line_step;
        {
            var lines = y1 - y0;
            var length = x1 - x0;
            if d == 1u {
                lines = x1 - x0;
                length = y1 - y0;
            }
            var sums = array<u32, 7>(0u, 0u, 0u, 0u, 0u, 0u, 0u);
            var light = vec2u(0u);
            var count = vec2u(0u);
            var flipped = 0u;
            for (var line = lane; line * step < lines; line += 32u) {
                var side = 0u;
                var crossings = 0u;
                var last = 0u;
                var bits = 0u;
                let row_words = ((block * params.side_rows) + line) * params.words_per_row;
                for (var i = 0u; i < length; i++) {
                    var x = x0 + i;
                    var y = y0 + line * step;
                    if d == 1u {
                        x = x0 + line * step;
                        y = y0 + i;
                    }
                    let value = pixel_light(pixels[y * params.width + x]).x;
                    if d == 0u {
                        if value >= mean {
                            bits |= 1u << (i % 32u);
                        }
                        if value >= mean + margin {
                            light.x += value / 16u;
                            count.x += 1u;
                        } else if value + margin <= mean {
                            light.y += value / 16u;
                            count.y += 1u;
                        }
                        // The row's sides a word at a time: this invocation owns the row.
                        if i % 32u == 31u || i + 1u == length {
                            let at = row_words + i / 32u;
                            flipped += countOneBits(sides[at] ^ bits);
                            sides[at] = bits;
                            bits = 0u;
                        }
                    }
                    var now = side;
                    if value >= mean + margin {
                        now = 1u;
                    } else if value + margin <= mean {
                        now = 2u;
                    }
                    if side != 0u && now != side {
                        crossings += 1u;
                        if crossings > 1u {
                            let gap = i - last;
                            sums[3] += 1u;
                            sums[4] += gap;
                            sums[5] += gap * gap;
                        }
                        last = i;
                    }
                    side = now;
                }
                sums[0] += 1u;
                sums[6] += length;
                sums[1] += crossings;
                if crossings >= 2u {
                    sums[2] += 1u;
                }
            }
            atomicAdd(&counts[LINES + d], sums[0]);
            atomicAdd(&counts[CROSSINGS + d], sums[1]);
            atomicAdd(&counts[CROSSED + d], sums[2]);
            atomicAdd(&counts[GAPS + d], sums[3]);
            atomicAdd(&counts[GAP_SUM + d], sums[4]);
            atomicAdd(&counts[GAP_SQUARES + d], sums[5]);
            if d == 0u {
                atomicAdd(&counts[LIGHT], light.x);
                atomicAdd(&counts[LIGHT + 1u], light.y);
                atomicAdd(&counts[SIDES], count.x);
                atomicAdd(&counts[SIDES + 1u], count.y);
                atomicAdd(&counts[FLIPPED], flipped);
                atomicAdd(&counts[ROW_PIXELS], sums[6]);
            }
        }
    }
    workgroupBarrier();
    if live && index < BLOCK_WORDS {
        var value = atomicLoad(&counts[index]);
        if index == MEAN {
            value = block_mean;
        }
        blocks[block * BLOCK_WORDS + index] = value;
    }
}
