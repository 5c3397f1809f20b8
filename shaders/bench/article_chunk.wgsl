// The articles' chunk pass: a CHUNK_WIDTH x CHUNK_HEIGHT workgroup counts a chunk of that size
// into workgroup atomics, one pixel per invocation, then each invocation copies one bin to the
// workgroup's chunk. As in the articles the chunk has one pixel per bin (256x1 for 256 bins).
const CHUNK_SIZE: u32 = CHUNK_WIDTH * CHUNK_HEIGHT;

var<workgroup> bins: array<array<atomic<u32>, 4>, NUM_BINS>;
@group(0) @binding(0) var<storage, read_write> chunks: array<vec4u>;
@group(0) @binding(1) var source: texture_2d<f32>;

@compute @workgroup_size(CHUNK_WIDTH, CHUNK_HEIGHT, 1)
fn article_chunk(
    @builtin(workgroup_id) workgroup_id: vec3u,
    @builtin(local_invocation_id) local_id: vec3u,
) {
    let size = textureDimensions(source, 0);
    let position = workgroup_id.xy * vec2u(CHUNK_WIDTH, CHUNK_HEIGHT) + local_id.xy;
    if all(position < size) {
        let b = pixel_bins(texel_bytes(textureLoad(source, position, 0)));
        for (var ch = 0u; ch < 4u; ch++) {
            atomicAdd(&bins[b[ch]][ch], 1u);
        }
    }

    workgroupBarrier();

    let chunks_across = (size.x + CHUNK_WIDTH - 1u) / CHUNK_WIDTH;
    let chunk = workgroup_id.y * chunks_across + workgroup_id.x;
    let bin = local_id.y * CHUNK_WIDTH + local_id.x;
    chunks[chunk * NUM_BINS + bin] = vec4u(
        atomicLoad(&bins[bin][0]),
        atomicLoad(&bins[bin][1]),
        atomicLoad(&bins[bin][2]),
        atomicLoad(&bins[bin][3]),
    );
}
