//! Labels painted beside the quads' lines: a PQ histogram's nits and the graticule's levels.

use crate::colour::transfer::pq_inverse_eotf;
use crate::render::layout::band_layout;
use crate::render::scene::PQ_GRIDLINE_NITS;
use crate::scope::ScopeKind;
use egui::{Align2, Color32, Id};

/// The nits of the luminance quad's gridlines (a PQ source's), beside each line's top (above
/// the quad the OSD's panel would cover them).
pub(super) fn nits_labels(ctx: &egui::Context, screen: egui::Rect, scope: Option<ScopeKind>, opacity: f32) {
    let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
    let quad = band_layout(scope, viewport).histograms[1];
    let to_screen = |x: f32, y: f32| {
        egui::pos2(
            screen.min.x + (x + 1.0) / 2.0 * screen.width(),
            screen.min.y + (1.0 - y) / 2.0 * screen.height(),
        )
    };
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, Id::unique("nits scale")));
    let color = Color32::from_rgb(255, 191, 51).gamma_multiply(opacity);
    for nits in PQ_GRIDLINE_NITS {
        let x = quad.left + pq_inverse_eotf(nits) * (quad.right - quad.left);
        painter.text(
            to_screen(x, quad.top) + egui::vec2(3.0, 2.0),
            Align2::LEFT_TOP,
            format!("{nits:.0}"),
            egui::FontId::proportional(11.0),
            color,
        );
    }
}

/// The graticule's levels, labelled at the left edge of the waveform or parade.
pub(super) fn graticule_labels(
    ctx: &egui::Context,
    screen: egui::Rect,
    scope: Option<ScopeKind>,
    lines: &[crate::scope::graticule::Line],
    opacity: f32,
) {
    let viewport = (screen.width().max(1.0) as u32, screen.height().max(1.0) as u32);
    let Some(rect) = band_layout(scope, viewport).scope else {
        return;
    };
    let to_screen = |x: f32, y: f32| {
        egui::pos2(
            screen.min.x + (x + 1.0) / 2.0 * screen.width(),
            screen.min.y + (1.0 - y) / 2.0 * screen.height(),
        )
    };
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, Id::unique("graticule")));
    for line in lines {
        let y = rect.bottom + line.at * (rect.top - rect.bottom);
        let color = if line.chosen {
            Color32::from_rgb(255, 217, 77)
        } else {
            Color32::from_gray(200)
        };
        painter.text(
            to_screen(rect.left, y) + egui::vec2(3.0, -1.0),
            Align2::LEFT_BOTTOM,
            &line.label,
            egui::FontId::proportional(10.0),
            color.gamma_multiply(opacity),
        );
    }
}
