//! One render pass that draws the fitted picture with the two histogram quads over it, used by
//! the window and by the offscreen `render` command alike.

use crate::colour::transfer::pq_inverse_eotf;
use crate::colour::Transfer;
use crate::engine::HistogramTarget;
use crate::geometry::Orientation;
use crate::render::layout::{band_layout, fit_picture, Fit};
use crate::render::overlay::{OverlayPass, OverlayQuad, QuadChannels, NO_GRIDLINES, NO_MARKERS};
use crate::render::picture::{PictureBinding, PicturePass, Signal, NO_REGION, NO_SPLIT};
use crate::scope::draw::{ScopeDrawPass, ScopeQuad};
use crate::scope::gpu::{ScopePass, ScopeTarget};
use crate::scope::graticule::{self, Axis, Line, Scale};
use crate::scope::{Region, ScopeKind};

/// Where the luminance quad of a PQ signal marks light, in nits: SDR's 100, reference white,
/// and the two common mastering peaks.
pub const PQ_GRIDLINE_NITS: [f32; 4] = [100.0, 203.0, 1000.0, 4000.0];

/// Which histogram quads are drawn; `h` in the player cycles through them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Quads {
    #[default]
    Both,
    Rgb,
    Luminance,
    None,
}

impl Quads {
    /// Its name on the command line (`--histograms`) and in the settings file.
    pub fn name(self) -> &'static str {
        match self {
            Quads::Both => "both",
            Quads::Rgb => "rgb",
            Quads::Luminance => "luminance",
            Quads::None => "none",
        }
    }

    /// `both`, `rgb`, `luminance` (or `l`) or `none`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "both" | "rgb+l" => Ok(Quads::Both),
            "rgb" => Ok(Quads::Rgb),
            "luminance" | "l" => Ok(Quads::Luminance),
            "none" | "no" => Ok(Quads::None),
            _ => Err(format!("'{text}' is not one of both, rgb, luminance, none")),
        }
    }

    pub fn next(self) -> Self {
        match self {
            Quads::Both => Quads::Rgb,
            Quads::Rgb => Quads::Luminance,
            Quads::Luminance => Quads::None,
            Quads::None => Quads::Both,
        }
    }

    fn shows(self, channels: QuadChannels) -> bool {
        matches!(
            (self, channels),
            (Quads::Both, _) | (Quads::Rgb, QuadChannels::Rgb) | (Quads::Luminance, QuadChannels::Luminance)
        )
    }
}

/// What the viewer chose: fit, quads, linear or log heights, the scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewOptions {
    pub fit: Fit,
    pub quads: Quads,
    pub log_scale: bool,
    pub scope: Option<ScopeKind>,
    /// The histogram timeline above the seek bar.
    pub timeline: bool,
    /// The photosensitivity view (the PSE row and lamp, the flashing regions), and its rules.
    pub pse: bool,
    pub pse_standard: crate::pse::Standard,
    /// The vectorscope's magnification around its centre: 1, 2 or 4 (0 counts as 1).
    pub vectorscope_zoom: u32,
}

/// The scopes `H` cycles through: none, waveform, parade, vectorscope, CIE 1931 xy.
pub fn next_scope(scope: Option<ScopeKind>) -> Option<ScopeKind> {
    match scope {
        None => Some(ScopeKind::Waveform),
        Some(ScopeKind::Waveform) => Some(ScopeKind::Parade),
        Some(ScopeKind::Parade) => Some(ScopeKind::Vectorscope),
        Some(ScopeKind::Vectorscope) => Some(ScopeKind::Cie),
        Some(ScopeKind::Cie) => None,
    }
}

/// The graticule before any is set: percent, 0 to 100 by 25.
fn default_graticule() -> Vec<Line> {
    let axis = Axis {
        bits: 8,
        range: crate::colour::Range::Full,
        transfer: Transfer::Sdr,
        log: None,
    };
    graticule::lines(Scale::Percent, &axis, &[])
}

/// Pipelines for one output format.
pub struct SceneRenderer {
    picture: PicturePass,
    overlay: OverlayPass,
    scope: ScopeDrawPass,
}

/// Bindings of one frame texture, one histogram target and the scope counted with it, made
/// once, updated with `layout`.
pub struct Scene {
    picture: PictureBinding,
    quads: [OverlayQuad; 2],
    scope: Option<ScopeQuad>,
    /// Pixels the histograms and scope count (the frame's, or its region's).
    counted_pixels: u32,
    /// The region drawn on the picture, in texture coordinates (NO_REGION: none).
    region: [f32; 4],
    /// The probed pixel's bins marked in the histograms (NO_MARKERS: none).
    markers: [f32; 4],
    /// A comparison's wipe line, in texture u (NO_SPLIT: none).
    split: f32,
    /// The waveform's and parade's graticule.
    graticule: Vec<Line>,
}

impl SceneRenderer {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        Self {
            picture: PicturePass::new(device, format),
            overlay: OverlayPass::new(device, format),
            scope: ScopeDrawPass::new(device, format),
        }
    }

    /// A scene drawing `frame` with the histograms of `target` and, if given, a scope.
    pub fn scene(
        &self,
        device: &wgpu::Device,
        target: &HistogramTarget,
        frame: &wgpu::TextureView,
        signal: Signal,
        scope: Option<(&ScopePass, &ScopeTarget)>,
    ) -> Scene {
        self.scene_outlined(device, target, None, frame, signal, scope)
    }

    /// `scene`, with the histograms of `outline` drawn as outlines over `target`'s bars (a
    /// comparison's second file).
    pub fn scene_outlined(
        &self,
        device: &wgpu::Device,
        target: &HistogramTarget,
        outline: Option<&HistogramTarget>,
        frame: &wgpu::TextureView,
        signal: Signal,
        scope: Option<(&ScopePass, &ScopeTarget)>,
    ) -> Scene {
        let outline = outline.map(|o| (&o.histogram, &o.scale));
        let quad = |channels, gridlines| {
            self.overlay
                .quad(device, channels, &target.histogram, &target.scale, gridlines, outline)
        };
        let nits_scale = match signal.volume.transfer {
            Transfer::Pq => PQ_GRIDLINE_NITS.map(pq_inverse_eotf),
            _ => NO_GRIDLINES,
        };
        Scene {
            picture: self.picture.bind(device, frame, signal),
            quads: [
                quad(QuadChannels::Rgb, NO_GRIDLINES),
                quad(QuadChannels::Luminance, nits_scale),
            ],
            scope: scope.map(|(pass, scope_target)| {
                self.scope
                    .quad(device, pass.kind, &scope_target.counts, scope_target.columns, pass.bins)
            }),
            counted_pixels: target.pixel_count,
            region: NO_REGION,
            markers: NO_MARKERS,
            split: NO_SPLIT,
            graticule: default_graticule(),
        }
    }

    /// Records the render pass: clear, picture, then the chosen quads.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, output: &wgpu::TextureView, scene: &Scene, quads: Quads) {
        self.encode_timed(encoder, output, scene, quads, None);
    }

    /// `encode`, its pass timed with `writes`.
    pub fn encode_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
        scene: &Scene,
        quads: Quads,
        writes: Option<wgpu::RenderPassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: output,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: writes,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.picture.encode(&mut pass, &scene.picture);
        self.overlay
            .encode(&mut pass, scene.quads.iter().filter(|q| quads.shows(q.channels)));
        if let Some(scope) = &scene.scope {
            self.scope.encode(&mut pass, scope);
        }
    }
}

impl Scene {
    /// Places picture and quads for a viewport: small uniform writes, no allocation.
    pub fn layout(
        &self,
        queue: &wgpu::Queue,
        aspect: f32,
        orientation: Orientation,
        viewport: (u32, u32),
        options: ViewOptions,
    ) {
        self.picture.update(
            queue,
            fit_picture(aspect, viewport, options.fit),
            orientation,
            self.region,
            self.split,
        );
        let band = band_layout(self.scope.as_ref().map(|s| s.kind), viewport);
        for (quad, rect) in self.quads.iter().zip(band.histograms) {
            quad.update(queue, rect, options.log_scale, self.markers);
        }
        if let (Some(scope), Some(rect)) = (&self.scope, band.scope) {
            scope.update(
                queue,
                rect,
                self.counted_pixels,
                options.vectorscope_zoom.max(1),
                &self.graticule,
            );
        }
    }

    /// The histograms and scope count `region` of a `width`×`height` frame from now on (None:
    /// the whole frame), drawn on the picture; takes effect at the next `layout`.
    pub fn set_region(&mut self, region: Option<Region>, (width, height): (u32, u32)) {
        let counted = region.unwrap_or(Region::full(width, height));
        self.counted_pixels = counted.pixel_count();
        self.region = match region {
            Some(r) => [
                r.x as f32 / width as f32,
                r.y as f32 / height as f32,
                (r.x + r.width) as f32 / width as f32,
                (r.y + r.height) as f32 / height as f32,
            ],
            None => NO_REGION,
        };
    }

    /// The waveform's and parade's graticule from the next `layout` on.
    pub fn set_graticule(&mut self, lines: Vec<Line>) {
        self.graticule = lines;
    }

    /// Draws a comparison's wipe line at texture u `split` (None: none) from the next `layout`.
    pub fn set_split(&mut self, split: Option<f32>) {
        self.split = split.unwrap_or(NO_SPLIT);
    }

    /// The scope counts this many pixels (another picture than the histograms' frame: a
    /// comparison's composite), from the next `layout` on.
    pub fn set_scope_pixels(&mut self, pixels: u32) {
        self.counted_pixels = pixels;
    }

    /// Marks these bins (x across the quads, per r, g, b, l) in the histograms from the next
    /// `layout` on (NO_MARKERS: none).
    pub fn set_markers(&mut self, markers: [f32; 4]) {
        self.markers = markers;
    }
}
