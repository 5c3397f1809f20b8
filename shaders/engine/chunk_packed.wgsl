// The chunk pass's source where it counts the converted frame (chunk.wgsl, which this file
// follows, says how the counts end): the frame's packed pixels (RGBA8 or RGB10A2 by DEPTH, one
// u32 per pixel, four per vec4u load), CHUNK_PIXELS consecutive ones a chunk. Loads are
// coalesced across the workgroup and issued four at a time, so each invocation keeps 16 pixels
// in flight.

@group(0) @binding(0) var<storage, read> pixels: array<vec4u>;

fn count_pixel(word: u32, replica: u32) {
    count_bins(packed_bins(word), replica);
}

fn count_four(p: vec4u, replica: u32) {
    count_pixel(p.x, replica);
    count_pixel(p.y, replica);
    count_pixel(p.z, replica);
    count_pixel(p.w, replica);
}

// The last chunk may end mid-load: count only pixels before pixel_count.
fn count_four_checked(p: vec4u, first_pixel: u32, replica: u32) {
    for (var i = 0u; i < 4u; i++) {
        if first_pixel + i < params.pixel_count {
            count_pixel(p[i], replica);
        }
    }
}

// Counts chunk `chunk` into the workgroup's bins; every invocation of the workgroup calls it.
fn count_pixels(chunk: u32, local_index: u32) {
    let replica = local_index % REPLICAS;
    let first_load = chunk * CHUNK_LOADS + local_index;
    clear_bins(local_index);

    if (chunk + 1u) * CHUNK_PIXELS <= params.pixel_count {
        // Whole chunk inside the frame: four independent loads, then count them.
        for (var k = 0u; k < LOADS_PER_INVOCATION; k += 4u) {
            let at = first_load + k * WG_SIZE;
            let p0 = pixels[at];
            let p1 = pixels[at + WG_SIZE];
            let p2 = pixels[at + 2u * WG_SIZE];
            let p3 = pixels[at + 3u * WG_SIZE];
            count_four(p0, replica);
            count_four(p1, replica);
            count_four(p2, replica);
            count_four(p3, replica);
        }
    } else {
        let loads = (params.pixel_count + 3u) / 4u;
        for (var k = 0u; k < LOADS_PER_INVOCATION; k++) {
            let at = first_load + k * WG_SIZE;
            if at < loads {
                count_four_checked(pixels[at], at * 4u, replica);
            }
        }
    }
}
