// Draws the frame into a clip-space rectangle (cover or contain fit, computed on the CPU).
// uv_x / uv_y map the quad's texcoord to the texture's, which turns and flips the picture.

struct PictureUniforms { // twin: PictureUniforms in src/passes/picture.rs
    rect: vec4f, // left, bottom, right, top in clip space
    uv_x: vec4f, // u = dot(uv_x.xy, t) + uv_x.z
    uv_y: vec4f, // v = dot(uv_y.xy, t) + uv_y.z
}

struct VertexOutput {
    @builtin(position) position: vec4f,
    @location(0) texcoord: vec2f,
}

@group(0) @binding(0) var frame: texture_2d<f32>;
@group(0) @binding(1) var frame_sampler: sampler;
@group(0) @binding(2) var<uniform> uni: PictureUniforms;

@vertex
fn picture_vs(@builtin(vertex_index) vertex_index: u32) -> VertexOutput {
    let corners = array(
        vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0),
        vec2f(0.0, 1.0), vec2f(1.0, 0.0), vec2f(1.0, 1.0),
    );
    let xy = corners[vertex_index];
    var out: VertexOutput;
    out.position = vec4f(mix(uni.rect.xy, uni.rect.zw, xy), 0.0, 1.0);
    // texcoord (0, 0) is the picture's top left
    let t = vec2f(xy.x, 1.0 - xy.y);
    out.texcoord = vec2f(dot(uni.uv_x.xy, t) + uni.uv_x.z, dot(uni.uv_y.xy, t) + uni.uv_y.z);
    return out;
}

@fragment
fn picture_fs(in: VertexOutput) -> @location(0) vec4f {
    return vec4f(textureSample(frame, frame_sampler, in.texcoord).rgb, 1.0);
}
