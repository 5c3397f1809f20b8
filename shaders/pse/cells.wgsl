// The light of each cell of a frame's grid, for the photosensitivity analysis: one workgroup a
// cell sums its pixels' luminance and saturated red (sixteenths of a cd/m², through the table
// of the standard's display model), in integers as the CPU twin (src/pse/light.rs) sums them.

struct PseParams { // twin: PseParams in src/pse/gpu.rs
    width: u32,
    height: u32,
    columns: u32,
    rows: u32,
    bits: u32,
    weight_r: u32,
    weight_g: u32,
    weight_b: u32,
}

@group(0) @binding(0) var<uniform> params: PseParams;
@group(0) @binding(1) var<storage, read> pixels: array<u32>;
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<storage, read_write> cells: array<u32>;

var<workgroup> luminance_sum: atomic<u32>;
var<workgroup> red_sum: atomic<u32>;

// Twin of `pixel_light`: the luminance and the counted red of a packed pixel.
fn pixel_light(word: u32) -> vec2u {
    var mask = 0xffu;
    var step = 8u;
    if params.bits == 10u {
        mask = 0x3ffu;
        step = 10u;
    }
    let r = table[word & mask];
    let g = table[(word >> step) & mask];
    let b = table[(word >> (2u * step)) & mask];
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
    if index == 0u {
        atomicStore(&luminance_sum, 0u);
        atomicStore(&red_sum, 0u);
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
        for (var y = y0 + local.y; y < y1; y += 8u) {
            for (var x = x0 + local.x; x < x1; x += 8u) {
                light += pixel_light(pixels[y * params.width + x]);
            }
        }
        atomicAdd(&luminance_sum, light.x);
        atomicAdd(&red_sum, light.y);
    }
    workgroupBarrier();
    if index == 0u && live {
        cells[2u * cell] = atomicLoad(&luminance_sum);
        cells[2u * cell + 1u] = atomicLoad(&red_sum);
    }
}
