// The luma samples of a pair of frames, from their plane textures (ring slots, as uploaded)
// into the buffers the VMAF passes read: the reference's into this frame's place in the
// history that motion compares against, the judged frame's into its own buffer.

// No sums here (common.wgsl's `reduce_workgroup` is unused).
const SUMS: u32 = 1u;

struct Params {
    width: u32,
    height: u32,
    // The bits of a texel that hold the sample (P010 keeps 10 of 16 at the top).
    sample_mask: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> reference: array<u32>;
@group(0) @binding(2) var<storage, read_write> judged: array<u32>;
@group(1) @binding(0) var reference_luma: texture_2d<u32>;
@group(1) @binding(1) var judged_luma: texture_2d<u32>;

fn masked(texel: vec4u) -> u32 {
    return (texel.r & params.sample_mask) >> countTrailingZeros(params.sample_mask);
}

@compute @workgroup_size(16, 16)
fn load(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= params.width || id.y >= params.height {
        return;
    }
    let at = id.y * params.width + id.x;
    reference[at] = masked(textureLoad(reference_luma, id.xy, 0));
    judged[at] = masked(textureLoad(judged_luma, id.xy, 0));
}
