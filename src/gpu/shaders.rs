//! Every WGSL source of histoplay, loaded from `shaders/` in this one place. Compute shaders
//! get a generated header of constants (bin count, workgroup shape) prepended, as the articles
//! inject `sharedConstants`, and most share `histogram_common.wgsl`.

use std::borrow::Cow;

pub const TRANSFER: &str = include_str!("../../shaders/colour/transfer.wgsl");
pub const HISTOGRAM_COMMON: &str = include_str!("../../shaders/engine/histogram_common.wgsl");
pub const CHUNK: &str = include_str!("../../shaders/engine/chunk.wgsl");
pub const CHUNK_PACKED: &str = include_str!("../../shaders/engine/chunk_packed.wgsl");
pub const CHUNK_PLANES: &str = include_str!("../../shaders/engine/chunk_planes.wgsl");
pub const REDUCE: &str = include_str!("../../shaders/engine/reduce.wgsl");
pub const SCALE: &str = include_str!("../../shaders/engine/scale.wgsl");
pub const OVERLAY: &str = include_str!("../../shaders/render/overlay.wgsl");
pub const PICTURE: &str = include_str!("../../shaders/render/picture.wgsl");
pub const TONEMAP: &str = include_str!("../../shaders/render/tonemap.wgsl");
pub const PEAK: &str = include_str!("../../shaders/render/peak.wgsl");
pub const ADJUST: &str = include_str!("../../shaders/render/adjust.wgsl");
pub const LUT: &str = include_str!("../../shaders/render/lut.wgsl");
pub const LOOK: &str = include_str!("../../shaders/render/look.wgsl");
pub const PACKED: &str = include_str!("../../shaders/colour/packed.wgsl");
pub const CONVERT_LOOK: &str = include_str!("../../shaders/video/convert_look.wgsl");
pub const SCOPE: &str = include_str!("../../shaders/scope/scope.wgsl");
pub const SIGNALSTATS: &str = include_str!("../../shaders/signalstats/signalstats.wgsl");
pub const FREEZE: &str = include_str!("../../shaders/events/freeze.wgsl");
pub const PSE_CELLS: &str = include_str!("../../shaders/pse/cells.wgsl");
pub const SCOPE_DRAW: &str = include_str!("../../shaders/scope/draw.wgsl");
pub const REGION: &str = include_str!("../../shaders/scope/region.wgsl");
pub const CONVERT: &str = include_str!("../../shaders/video/convert.wgsl");
pub const CONVERT_PARAMS: &str = include_str!("../../shaders/video/convert_params.wgsl");
pub const DEINTERLACE: &str = include_str!("../../shaders/video/deinterlace.wgsl");
pub const IDET: &str = include_str!("../../shaders/idet/idet.wgsl");
pub const METRICS: &str = include_str!("../../shaders/compare/metrics.wgsl");
pub const MARKS: &str = include_str!("../../shaders/marks/marks.wgsl");
pub const COMPOSITE: &str = include_str!("../../shaders/compare/composite.wgsl");
pub const VMAF_COMMON: &str = include_str!("../../shaders/compare/vmaf/common.wgsl");
pub const VMAF_LOAD: &str = include_str!("../../shaders/compare/vmaf/load.wgsl");
pub const VMAF_MOTION: &str = include_str!("../../shaders/compare/vmaf/motion.wgsl");
pub const VMAF_VIF: &str = include_str!("../../shaders/compare/vmaf/vif.wgsl");
pub const VMAF_ADM: &str = include_str!("../../shaders/compare/vmaf/adm.wgsl");
pub const VMAF_COLLECT: &str = include_str!("../../shaders/compare/vmaf/collect.wgsl");
pub const ARTICLE_SINGLE: &str = include_str!("../../shaders/bench/article_single.wgsl");
pub const ARTICLE_PER_PIXEL: &str = include_str!("../../shaders/bench/article_per_pixel.wgsl");
pub const ARTICLE_CHUNK: &str = include_str!("../../shaders/bench/article_chunk.wgsl");
pub const ARTICLE_SUM: &str = include_str!("../../shaders/bench/article_sum.wgsl");
pub const ARTICLE_REDUCE: &str = include_str!("../../shaders/bench/article_reduce.wgsl");
pub const ARTICLE_SCALE: &str = include_str!("../../shaders/bench/article_scale.wgsl");
pub const BENCH_FLOOR: &str = include_str!("../../shaders/bench/bench_floor.wgsl");

/// Every shader with the header it is built with; the naga test validates each of them.
pub fn all_for_validation() -> Vec<(&'static str, String)> {
    let bins = Header::new(256);
    let chunk = bins
        .clone()
        .with("WG_X", 256)
        .with("LOADS_PER_INVOCATION", 8)
        .with("REPLICAS", 2);
    let reduce = bins.clone().with("FAN_IN", 16).with("REDUCE_WG", 256);
    vec![
        ("chunk.wgsl", chunk_packed_source(&chunk)),
        ("chunk_packed.wgsl, in chunk.wgsl", chunk_packed_source(&chunk)),
        // (As engine::planes makes it: planar chroma, then interleaved.)
        (
            "chunk_planes.wgsl, in chunk.wgsl",
            chunk_planes_source(&chunk.clone().with("INTERLEAVED", 0)),
        ),
        (
            "chunk_planes.wgsl, interleaved chroma, 10-bit",
            chunk_planes_source(&chunk.clone().depth(crate::colour::Depth::Ten).with("INTERLEAVED", 1)),
        ),
        ("reduce.wgsl", compute_source(&reduce, REDUCE)),
        ("scale.wgsl", compute_source(&bins, SCALE)),
        ("article_single.wgsl", compute_source(&bins, ARTICLE_SINGLE)),
        ("article_per_pixel.wgsl", compute_source(&bins, ARTICLE_PER_PIXEL)),
        (
            "article_chunk.wgsl",
            compute_source(
                &bins.clone().with("CHUNK_WIDTH", 256).with("CHUNK_HEIGHT", 1),
                ARTICLE_CHUNK,
            ),
        ),
        ("article_sum.wgsl", compute_source(&bins, ARTICLE_SUM)),
        ("article_reduce.wgsl", compute_source(&bins, ARTICLE_REDUCE)),
        ("article_scale.wgsl", compute_source(&bins, ARTICLE_SCALE)),
        ("overlay.wgsl", OVERLAY.to_string()),
        ("picture.wgsl", picture_source()),
        ("peak.wgsl", peak_source()),
        ("transfer.wgsl", TRANSFER.to_string()),
        ("tonemap.wgsl", tonemap_source()),
        ("convert.wgsl", convert_source(8)),
        ("convert_params.wgsl, in convert.wgsl", convert_source(8)),
        ("adjust.wgsl", adjust_source(8)),
        ("adjust.wgsl, 10-bit", adjust_source(10)),
        ("packed.wgsl, in adjust.wgsl", adjust_source(8)),
        ("lut.wgsl", lut_source(8)),
        ("lut.wgsl, 10-bit", lut_source(10)),
        ("look.wgsl, in lut.wgsl", lut_source(8)),
        ("convert.wgsl, 10-bit output", convert_source(10)),
        (
            "convert_look.wgsl, in convert.wgsl with look.wgsl",
            convert_look_source(8),
        ),
        ("convert_look.wgsl, 10-bit output", convert_look_source(10)),
        ("bench_floor.wgsl", BENCH_FLOOR.to_string()),
        ("scope.wgsl", compute_source(&scope_header(256, 10, 3, 8, 2, 0), SCOPE)),
        (
            "scope.wgsl, vectorscope",
            compute_source(&scope_header(16, 8, 1, 1, 128, 0), SCOPE),
        ),
        (
            "scope.wgsl, CIE 1931 xy",
            compute_source(&scope_header(16, 10, 1, 1, 128, 1), SCOPE),
        ),
        ("draw.wgsl", SCOPE_DRAW.to_string()),
        (
            "signalstats.wgsl",
            compute_source(
                &Header::new(1024)
                    .depth(crate::colour::Depth::Ten)
                    .with("WG_X", 256)
                    .with("HIST", 1024)
                    .with("BAND", 16),
                SIGNALSTATS,
            ),
        ),
        ("deinterlace.wgsl", DEINTERLACE.to_string()),
        ("idet.wgsl", IDET.to_string()),
        (
            "freeze.wgsl",
            compute_source(
                &Header::new(1024).with("WG_X", 256).with("HIST", 1024).with("BAND", 16),
                FREEZE,
            ),
        ),
        // (With pse::light::shader_header's constants: 8-bit SDR, 10-bit PQ, 10-bit HLG.)
        ("cells.wgsl", compute_source(&pse_header(8, false, false), PSE_CELLS)),
        (
            "cells.wgsl, 10-bit",
            compute_source(&pse_header(10, false, false), PSE_CELLS),
        ),
        (
            "cells.wgsl, HLG",
            compute_source(&pse_header(10, true, false), PSE_CELLS),
        ),
        (
            "cells.wgsl, in quads",
            compute_source(&pse_header(8, false, true), PSE_CELLS),
        ),
        (
            "cells.wgsl, HLG in quads",
            compute_source(&pse_header(10, true, true), PSE_CELLS),
        ),
        ("region.wgsl", REGION.to_string()),
        ("metrics.wgsl", METRICS.to_string()),
        ("marks.wgsl", marks_source(false, 10)),
        ("marks.wgsl, peaking alone, 8-bit", marks_source(true, 8)),
        ("composite.wgsl", composite_source(8)),
        ("composite.wgsl, 10-bit", composite_source(10)),
        ("common.wgsl, in load.wgsl", vmaf_source(VMAF_LOAD)),
        ("load.wgsl", vmaf_source(VMAF_LOAD)),
        ("motion.wgsl", vmaf_source(VMAF_MOTION)),
        // Any taps serve validation: 17 as at scale 0, 3 as at scale 3.
        ("vif.wgsl", vmaf_vif_source(&[3855; 17])),
        ("vif.wgsl, 3 taps", vmaf_vif_source(&[16384, 32768, 16384])),
        ("adm.wgsl", vmaf_source(VMAF_ADM)),
        ("collect.wgsl", vmaf_source(VMAF_COLLECT)),
    ]
}

/// A VMAF pass's shader: its source after the helpers every VMAF pass shares.
pub fn vmaf_source(body: &str) -> String {
    format!("{VMAF_COMMON}\n{body}")
}

/// VIF's shader for one scale: its filter's taps (Q16) as constants in front of it.
pub fn vmaf_vif_source(taps: &[u16]) -> String {
    let list = |suffix: &str| {
        taps.iter()
            .map(|t| format!("{t}{suffix}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let n = taps.len();
    vmaf_source(&format!(
        "const TAPS: u32 = {n}u;\nconst FILTER = array<u32, {n}>({});\nconst FILTER_F = array<f64, {n}>({});\n{VMAF_VIF}",
        list("u"),
        list(".0lf")
    ))
}

/// A scope shader's header (as `ScopePass` makes it), for validation.
fn scope_header(bins: u32, depth: u32, planes: u32, columns_per_tile: u32, vs_rows: u32, cie: u32) -> Header {
    Header::new(bins)
        .depth(crate::colour::Depth::from_bits(depth))
        .with("WG_X", 256)
        .with("PLANES", planes)
        .with("COLUMNS_PER_TILE", columns_per_tile)
        .with("VS_ROWS", vs_rows)
        .with("VS_LOADS", 64)
        .with("CIE", cie)
        .with("LINEAR_WORDS", if cie == 1 { 1 << depth } else { 1 })
}

/// `const NAME: u32 = value;` lines put in front of a compute shader.
#[derive(Clone, Debug)]
pub struct Header(Vec<(&'static str, u32)>);

impl Header {
    /// For `bins` bins of 8-bit samples.
    pub fn new(bins: u32) -> Self {
        Self(vec![("NUM_BINS", bins), ("DEPTH", 8)])
    }

    /// The depth of the samples the shader counts (8 or 10 bits).
    pub fn depth(mut self, depth: crate::colour::Depth) -> Self {
        for entry in &mut self.0 {
            if entry.0 == "DEPTH" {
                entry.1 = depth.bits();
            }
        }
        self
    }

    pub fn with(mut self, name: &'static str, value: u32) -> Self {
        self.0.push((name, value));
        self
    }
}

/// The photosensitivity shader's constants for validation, as pse::light::shader_header gives
/// them (its gains' steps included; a test in src/pse/light.rs checks the two agree).
pub fn pse_header(bits: u32, hlg: bool, quads: bool) -> Header {
    Header::new(256)
        .with("BITS", bits)
        .with("HLG", u32::from(hlg))
        .with("QUADS", u32::from(quads))
        .with("GAIN_STEP_SHIFT", 4)
        .with("GAIN_STEPS", 4096)
}

/// The tone-mapping functions after the transfer functions they call.
pub fn tonemap_source() -> String {
    format!("{TRANSFER}\n{TONEMAP}")
}

/// The picture shader, after the tone-mapping functions it calls.
pub fn picture_source() -> String {
    format!("{}\n{PICTURE}", tonemap_source())
}

/// The peak pass, after the transfer functions it calls (and the tone-mapping ones, as the
/// picture has them).
pub fn peak_source() -> String {
    format!("{}\n{PEAK}", tonemap_source())
}

/// The histogram engine's chunk pass counting packed pixels (as `ChunkPass` makes it).
pub fn chunk_packed_source(header: &Header) -> String {
    compute_source(header, &format!("{CHUNK}{CHUNK_PACKED}"))
}

/// The chunk pass counting a frame's decoded planes, converting them as the conversion does
/// (as `engine::planes::PlanesCount` makes it).
pub fn chunk_planes_source(header: &Header) -> String {
    compute_source(header, &format!("{CHUNK}{CONVERT_PARAMS}\n{CHUNK_PLANES}"))
}

/// The conversion shader writing `out_bits`-bit frames, after the packed-pixel functions: their
/// texture's storage format is the only difference (WGSL cannot take it as a parameter).
pub fn convert_source(out_bits: u32) -> String {
    with_storage_format(format!("{PACKED}\n{CONVERT_PARAMS}\n{CONVERT}"), out_bits)
}

/// The marks shader: for the pipeline that marks peaking with nothing but the range beside it
/// where `peaking_alone`, for `bits`-bit packed pixels (8: the luma from dot products).
pub fn marks_source(peaking_alone: bool, bits: u32) -> String {
    format!(
        "const PEAKING_ALONE: bool = {peaking_alone};\nconst PACKED_LUMA: bool = {};\n{MARKS}",
        bits == 8
    )
}

/// The comparison's composite shader for `bits`-bit frames (its output texture's format differs).
pub fn composite_source(bits: u32) -> String {
    with_storage_format(COMPOSITE.to_string(), bits)
}

/// The adjustment shader for `bits`-bit frames, after the packed-pixel functions (its output
/// texture's format differs).
pub fn adjust_source(bits: u32) -> String {
    with_storage_format(format!("{PACKED}\n{ADJUST}"), bits)
}

/// The LUT pass's shader for `bits`-bit frames: the packed-pixel functions, the look, then the
/// pass (their textures' format differs by depth).
pub fn lut_source(bits: u32) -> String {
    with_storage_format(format!("{PACKED}\n{LOOK}\n{LUT}"), bits)
}

/// The conversion shader writing `out_bits`-bit frames that shows them through a look as it
/// converts them: its store swapped for convert_look.wgsl's, the look after it.
pub fn convert_look_source(out_bits: u32) -> String {
    let start = CONVERT
        .find("fn store(pos: vec2u, word: u32) {")
        .expect("convert.wgsl's store is where the look goes");
    let end = start + CONVERT[start..].find('}').expect("store's body ends") + 1;
    let looking = format!("{}{CONVERT_LOOK}{}", &CONVERT[..start], &CONVERT[end..]);
    with_storage_format(format!("{PACKED}\n{CONVERT_PARAMS}\n{looking}\n{LOOK}"), out_bits)
}

/// `source` with its write-only storage textures in the format of `bits`-bit frames.
fn with_storage_format(source: String, bits: u32) -> String {
    let format = crate::gpu::texture::GpuFrame::storage_format_name(bits);
    source.replace(
        "texture_storage_2d<rgba8unorm, write>",
        &format!("texture_storage_2d<{format}, write>"),
    )
}

/// Header + the shared bin definition + the shader itself.
pub fn compute_source(header: &Header, body: &str) -> String {
    let mut source = String::new();
    for (name, value) in &header.0 {
        source.push_str(&format!("const {name}: u32 = {value}u;\n"));
    }
    source.push_str(HISTOGRAM_COMMON);
    source.push_str(body);
    source
}

pub fn module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
    };
    device.create_shader_module(desc)
}

/// A module without naga's bounds checks, for the production compute passes, whose every index
/// is in bounds by construction (each shader says how). The checks double the chunk pass's time.
pub fn trusted_module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
    };
    // SAFETY: the shaders given here index only within what their passes size for them, as
    // each says (chunk.wgsl and reduce.wgsl: pixels < pixel_count, chunk < num_chunks, bin <
    // NUM_BINS, totals word <= 4·NUM_BINS; chunk_planes.wgsl reads its planes by gathers, which
    // the sampler clamps; marks.wgsl, pse/cells.wgsl, signalstats.wgsl and
    // video/deinterlace.wgsl: see their headers);
    // their loops are bounded by constants or uniforms.
    unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
}

/// A compute pipeline with an explicit layout, built once.
pub fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    layout: &wgpu::BindGroupLayout,
) -> wgpu::ComputePipeline {
    compute_pipeline_with(device, label, module, entry_point, layout, true)
}

/// `compute_pipeline`, its workgroup memory left as it is found (`zero_initialize: false`) for
/// a shader that writes every workgroup variable before it reads it: zeroing it costs a store
/// per element and a barrier in every workgroup.
pub fn compute_pipeline_with(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    layout: &wgpu::BindGroupLayout,
    zero_initialize: bool,
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            zero_initialize_workgroup_memory: zero_initialize,
            ..Default::default()
        },
        cache: None,
    })
}

/// A render pipeline drawing one quad (six vertices, no buffers) blended over the target: the
/// histogram quads and the scopes. `entry` names the vertex and fragment entry points.
pub fn quad_pipeline(
    device: &wgpu::Device,
    label: &str,
    source: String,
    entry: (&str, &str),
    layout: &wgpu::BindGroupLayout,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = module(device, label, source);
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some(entry.0),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(entry.1),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    })
}

/// Bind group layout entries, for brevity in the passes.
pub mod layout {
    pub fn texture(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }
    }

    /// A 2D texture of unsigned integers, read with `textureLoad` (a frame's decoded planes).
    pub fn uint_texture(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Uint,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }
    }

    /// A 2D storage texture of `format` that the shader only writes.
    pub fn storage_texture(
        binding: u32,
        visibility: wgpu::ShaderStages,
        format: wgpu::TextureFormat,
    ) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format,
                view_dimension: wgpu::TextureViewDimension::D2,
            },
            count: None,
        }
    }

    pub fn storage(binding: u32, visibility: wgpu::ShaderStages, read_only: bool) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }
    }

    pub fn uniform(binding: u32, visibility: wgpu::ShaderStages, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: dynamic,
                min_binding_size: None,
            },
            count: None,
        }
    }

    pub fn sampler(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        }
    }
}
