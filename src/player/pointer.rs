//! The pointer over the picture: the pixel probe follows it, and a right-drag draws the region
//! of interest that every histogram and scope counts (a right-click without a drag does what
//! MBTN_RIGHT is bound to: pause, as in mpv).

use super::commands::{Command, Mouse};
use super::window::PlayerWindow;
use crate::render::layout::{pixel_at, region_between};
use crate::render::overlay::NO_MARKERS;
use crate::scope::Region;

impl PlayerWindow {
    /// Counts `region` of each frame (None: the whole frame).
    pub(super) fn set_region(&mut self, region: Option<Region>) {
        if region.is_none() && self.media.pipeline.region().is_none() {
            return;
        }
        if let Err(e) = self.media.set_region(&self.gpu, &self.scene, region) {
            self.message(format!("no region: {e}"), true);
        }
    }

    /// The pointer moved to `point` (physical pixels), or left the window (None): the probe
    /// follows it, and a right-drag draws the region.
    pub fn pointer_moved(&mut self, point: Option<(f64, f64)>) {
        self.pointer = point;
        let frame = self.media.pipeline.frame_size();
        let on_frame = point.map(|p| self.media.frame_point(p, self.surface.size(), self.view.fit));
        let over_osd = self.pointer_over_osd();
        let probe = on_frame.and_then(|p| pixel_at(p, frame)).filter(|_| !over_osd);
        if probe != self.probe_at {
            self.probe_at = probe;
            self.probe_moved = true;
            if probe.is_none() {
                self.probe = None;
                self.media.scene.set_markers(NO_MARKERS);
                self.relayout();
            }
            self.needs_redraw = true;
        }
        if let (Some(drag), Some(at)) = (&mut self.region_drag, on_frame) {
            let moved = point.is_some_and(|p| (p.0 - drag.start.0).hypot(p.1 - drag.start.1) >= DRAG_THRESHOLD);
            if drag.dragging || moved {
                drag.dragging = true;
                let region = region_between(drag.start_frame, at, frame);
                self.apply(Command::SetRegion(region));
            }
        }
    }

    /// Whether the pointer is over the OSD's panel, on its widgets rather than the picture.
    /// (Where the panel was last drawn: egui's own pointer state lags one event behind.)
    pub fn pointer_over_osd(&self) -> bool {
        let scale = f64::from(self.egui_ctx.pixels_per_point());
        self.pointer.is_some_and(|(x, y)| {
            let at = egui::pos2((x / scale) as f32, (y / scale) as f32);
            // (The whole screen is egui's background layer.)
            let layer = self.egui_ctx.layer_id_at(at);
            layer.is_some_and(|l| l.order != egui::Order::Background)
        })
    }

    /// The right button went down or up: a drag on the picture sets the region; a click
    /// without one pauses or plays, as in mpv.
    pub fn right_button(&mut self, pressed: bool) {
        let Some(point) = self.pointer else { return };
        if pressed {
            let start_frame = self.media.frame_point(point, self.surface.size(), self.view.fit);
            self.region_drag = Some(RegionDrag {
                start: point,
                start_frame,
                dragging: false,
            });
        } else if let Some(drag) = self.region_drag.take() {
            if !drag.dragging {
                let modifiers = winit::keyboard::ModifiersState::empty();
                for command in self.bindings.mouse(Mouse::Right, modifiers).to_vec() {
                    self.apply(command);
                }
            }
        }
    }
}

/// How far the pointer moves, in pixels, before a right-button press is a drag.
const DRAG_THRESHOLD: f64 = 4.0;

/// A right-button press: where, on the window and on the frame, and whether it became a drag.
#[derive(Clone, Copy, Debug)]
pub struct RegionDrag {
    start: (f64, f64),
    start_frame: (f64, f64),
    dragging: bool,
}
