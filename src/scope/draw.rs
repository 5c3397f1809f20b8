//! Drawing a scope over the picture (shaders/scope/draw.wgsl), from its counts on the GPU with
//! no readback, like the histogram quads.

use super::cie::SPECTRAL_LOCUS;
use super::graticule::Line;
use super::{chroma, ScopeKind};
use crate::colour::primaries::{primaries_xy, D65};
use crate::colour::{Depth, Primaries};
use crate::geometry::Rect;
use crate::gpu::shaders::{self, layout};
use wgpu::util::DeviceExt;

/// The skin-tone line's angle from the +Cb axis, counter-clockwise (the "I" line of NTSC
/// vectorscopes, where faces of every complexion fall).
pub const SKIN_TONE_DEGREES: f32 = 123.0;

/// Twin of `ScopeDrawUniforms` in draw.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScopeDrawUniforms {
    pub rect: [f32; 4],
    pub kind: u32,
    pub columns: u32,
    pub bins: u32,
    pub reference: f32,
    pub targets: [[f32; 4]; 3],
    pub skin: [f32; 4],
    /// The 100% colour bars' targets, as `targets`.
    pub targets_full: [[f32; 4]; 3],
    /// The vectorscope's magnification around its centre (1, 2 or 4), and padding.
    pub zoom: f32,
    pub _pad: [f32; 3],
    /// The waveform's and parade's graticule lines, 0 (black) to 1 (white); negative: none.
    pub lines: [[f32; 4]; 4],
    /// Whether each line is one the viewer chose (1) or the scale's (0).
    pub chosen: [[u32; 4]; 4],
}

/// The vectorscope's magnifications, in the order a key steps through them.
pub const VECTORSCOPE_ZOOMS: [u32; 3] = [1, 2, 4];

/// Where colour bars of `level` (red, yellow, green, cyan, blue, magenta) fall on the
/// vectorscope, as (cb, cr) cell centres in 0..1: 191 for the 75% bars of SMPTE's and EBU's test
/// patterns (75% of 255, rounded), 255 for 100% bars.
pub fn bar_targets_at(level: u32) -> [[f32; 2]; 6] {
    let v = level;
    [[v, 0, 0], [v, v, 0], [0, v, 0], [0, v, v], [0, 0, v], [v, 0, v]].map(|rgb| {
        let (cb, cr) = chroma(rgb, Depth::Eight);
        [(cb as f32 + 0.5) / 256.0, (cr as f32 + 0.5) / 256.0]
    })
}

/// The 75% bars' targets.
pub fn bar_targets() -> [[f32; 2]; 6] {
    bar_targets_at(191)
}

/// Where the spectral locus starts in the diagram's points (`DIAGRAM_LOCUS` in draw.wgsl).
const DIAGRAM_LOCUS: usize = 10;

/// The CIE diagram's points in xy, as draw.wgsl reads them: BT.709's, P3's and BT.2020's
/// primaries (R, G, B each), D65, then the spectral locus from `DIAGRAM_LOCUS`.
pub fn diagram_points() -> Vec<[f32; 2]> {
    let mut points: Vec<[f32; 2]> = [Primaries::Bt709, Primaries::P3, Primaries::Bt2020]
        .into_iter()
        .flat_map(primaries_xy)
        .chain([D65])
        .map(|p| p.map(|v| v as f32))
        .collect();
    assert_eq!(points.len(), DIAGRAM_LOCUS);
    points.extend_from_slice(&SPECTRAL_LOCUS);
    points
}

pub struct ScopeDrawPass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// `diagram_points`, made once.
    diagram: wgpu::Buffer,
}

/// One scope's quad: its uniforms and its binding of the scope's counts.
pub struct ScopeQuad {
    pub kind: ScopeKind,
    columns: u32,
    bins: u32,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl ScopeDrawPass {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scope draw"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::FRAGMENT, true),
                layout::uniform(1, wgpu::ShaderStages::VERTEX_FRAGMENT, false),
                layout::storage(2, wgpu::ShaderStages::FRAGMENT, true),
            ],
        });
        let diagram = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cie diagram"),
            contents: bytemuck::cast_slice(&diagram_points()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let pipeline = shaders::quad_pipeline(
            device,
            "scope draw",
            shaders::SCOPE_DRAW.to_string(),
            ("scope_vs", "scope_fs"),
            &layout,
            format,
        );
        Self {
            pipeline,
            layout,
            diagram,
        }
    }

    /// A quad drawing `counts`, the counts of a `kind` scope of `columns` columns (the CIE
    /// diagram: cells a side) of `bins`.
    pub fn quad(
        &self,
        device: &wgpu::Device,
        kind: ScopeKind,
        counts: &wgpu::Buffer,
        columns: u32,
        bins: u32,
    ) -> ScopeQuad {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scope quad"),
            size: std::mem::size_of::<ScopeDrawUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scope quad"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: counts.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.diagram.as_entire_binding(),
                },
            ],
        });
        ScopeQuad {
            kind,
            columns,
            bins,
            uniforms,
            bind_group,
        }
    }

    pub fn encode(&self, pass: &mut wgpu::RenderPass<'_>, quad: &ScopeQuad) {
        pass.push_debug_group(quad.kind.name());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &quad.bind_group, &[]);
        pass.draw(0..6, 0..1);
        pass.pop_debug_group();
    }
}

impl ScopeQuad {
    /// Places the quad for a frame (or region) of `pixel_count` pixels, a vectorscope magnified
    /// `zoom` times, a waveform's graticule at `lines`: a small queue write.
    pub fn update(&self, queue: &wgpu::Queue, rect: Rect, pixel_count: u32, zoom: u32, lines: &[Line]) {
        let pixels = pixel_count.max(1) as f32;
        let (kind, reference) = match self.kind {
            // A column's pixels all in one display pixel's bins: full brightness at an eighth.
            ScopeKind::Waveform => (0, pixels / self.columns.max(1) as f32 / 8.0),
            ScopeKind::Parade => (1, pixels / self.columns.max(1) as f32 / 8.0),
            ScopeKind::Vectorscope => (2, pixels / 64.0),
            ScopeKind::Cie => (3, pixels / 64.0),
        };
        let t = bar_targets();
        let full = bar_targets_at(255);
        let angle = SKIN_TONE_DEGREES.to_radians();
        let uniforms = ScopeDrawUniforms {
            rect: rect.to_array(),
            kind,
            columns: self.columns.max(1),
            bins: self.bins,
            reference: reference.max(1.0),
            targets: [0, 2, 4].map(|i| [t[i][0], t[i][1], t[i + 1][0], t[i + 1][1]]),
            skin: [angle.cos(), angle.sin(), 0.0, 0.0],
            targets_full: [0, 2, 4].map(|i| [full[i][0], full[i][1], full[i + 1][0], full[i + 1][1]]),
            zoom: zoom.clamp(1, 4) as f32,
            _pad: [0.0; 3],
            lines: std::array::from_fn(|i| std::array::from_fn(|j| lines.get(4 * i + j).map_or(-1.0, |l| l.at))),
            chosen: std::array::from_fn(|i| {
                std::array::from_fn(|j| lines.get(4 * i + j).map_or(0, |l| u32::from(l.chosen)))
            }),
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_bar_targets_sit_round_the_centre_in_their_hue_order() {
        let t = bar_targets();
        // Red is up and a little left, blue right, yellow left, cyan down.
        let angle = |p: [f32; 2]| (p[1] - 0.5).atan2(p[0] - 0.5).to_degrees();
        let angles = t.map(angle);
        assert!((95.0..115.0).contains(&angles[0]), "red at {}", angles[0]);
        assert!((160.0..180.0).contains(&angles[1]), "yellow at {}", angles[1]);
        assert!((-15.0..0.0).contains(&angles[4]), "blue at {}", angles[4]);
        assert!((-80.0..-60.0).contains(&angles[3]), "cyan at {}", angles[3]);
        // 75% bars sit at 3/4 of the full bars' distance from the centre (within a cell).
        let r = |p: [f32; 2]| ((p[0] - 0.5).powi(2) + (p[1] - 0.5).powi(2)).sqrt();
        let full = [
            [255, 0, 0],
            [255, 255, 0],
            [0, 255, 0],
            [0, 255, 255],
            [0, 0, 255],
            [255, 0, 255],
        ];
        for (target, rgb) in t.iter().zip(full) {
            let (cb, cr) = chroma(rgb, Depth::Eight);
            let r100 = r([(cb as f32 + 0.5) / 256.0, (cr as f32 + 0.5) / 256.0]);
            assert!((r(*target) - 0.75 * r100).abs() < 1.5 / 256.0, "{rgb:?}");
        }
        // The skin-tone line runs between red and yellow.
        assert!(angles[0] < SKIN_TONE_DEGREES && SKIN_TONE_DEGREES < angles[1]);
    }
}
