// The region gather: copies a rectangle of the frame's packed pixels, row after row, into a
// buffer of its own, which the histogram engine and the scopes then count as a frame of the
// region's size. Twin of Region::crop in src/scope/region.rs.

struct RegionParams { // twin: RegionParams in src/scope/region.rs
    frame_width: u32,
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> frame: array<u32>;
@group(0) @binding(1) var<storage, read_write> region: array<u32>;
@group(0) @binding(2) var<uniform> params: RegionParams;

@compute @workgroup_size(256, 1, 1)
fn gather(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(num_workgroups) num_workgroups: vec3u,
) {
    let i = (workgroup_id.y * num_workgroups.x + workgroup_id.x) * 256u + local_index;
    if i >= params.width * params.height {
        return;
    }
    let row = i / params.width;
    let column = i - row * params.width;
    region[i] = frame[(params.y + row) * params.frame_width + params.x + column];
}
