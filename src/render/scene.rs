//! One render pass that draws the fitted picture with the two histogram quads over it, used by
//! the window and by the offscreen `render` command alike.

use crate::engine::HistogramTarget;
use crate::render::layout::{fit_picture, histogram_quads, Fit};
use crate::render::overlay::{OverlayPass, OverlayQuad, QuadChannels, NO_GRIDLINES};
use crate::render::picture::{Orientation, PictureBinding, PicturePass, Signal};
use crate::render::tonemap::pq_inverse_eotf;
use crate::video::format::Transfer;

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

/// What the viewer chose: fit, quads, linear or log heights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewOptions {
    pub fit: Fit,
    pub quads: Quads,
    pub log_scale: bool,
}

/// Pipelines for one output format.
pub struct SceneRenderer {
    picture: PicturePass,
    overlay: OverlayPass,
}

/// Bindings of one frame texture and one histogram target, made once, updated with `layout`.
pub struct Scene {
    picture: PictureBinding,
    quads: [OverlayQuad; 2],
}

impl SceneRenderer {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        Self {
            picture: PicturePass::new(device, format),
            overlay: OverlayPass::new(device, format),
        }
    }

    pub fn scene(
        &self,
        device: &wgpu::Device,
        target: &HistogramTarget,
        frame: &wgpu::TextureView,
        signal: Signal,
    ) -> Scene {
        let quad = |channels, gridlines| {
            self.overlay
                .quad(device, channels, &target.histogram, &target.scale, gridlines)
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
        }
    }

    /// Records the render pass: clear, picture, then the chosen quads.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, output: &wgpu::TextureView, scene: &Scene, quads: Quads) {
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
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        self.picture.encode(&mut pass, &scene.picture);
        self.overlay
            .encode(&mut pass, scene.quads.iter().filter(|q| quads.shows(q.channels)));
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
        self.picture
            .update(queue, fit_picture(aspect, viewport, options.fit), orientation);
        for (quad, rect) in self.quads.iter().zip(histogram_quads()) {
            quad.update(queue, rect, options.log_scale);
        }
    }
}
