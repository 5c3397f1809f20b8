//! The pointer over the picture: the pixel probe follows it, and a right-drag draws the region
//! of interest that every histogram and scope counts (a right-click without a drag does what
//! MBTN_RIGHT is bound to: pause, as in mpv).

use super::bindings::{Bindings, Mouse};
use super::commands::Command;
use super::media::Media;
use super::part::{Cx, Effects};
use super::probe::{Probe, ProbeReadback, ProbeTag};
use crate::render::layout::{pixel_at, region_between};
use crate::render::overlay::NO_MARKERS;
use crate::scope::Region;

/// How far the pointer moves, in pixels, before a right-button press is a drag.
const DRAG_THRESHOLD: f64 = 4.0;

/// A right-button press: where, on the window and on the frame, and whether it became a drag.
#[derive(Clone, Copy, Debug)]
struct RegionDrag {
    start: (f64, f64),
    start_frame: (f64, f64),
    dragging: bool,
}

/// The pointer, the pixel under it and its readback, and a right-drag in progress.
pub struct Pointer {
    /// The pointer, in physical pixels, while it is over the window.
    at: Option<(f64, f64)>,
    /// The frame pixel under the pointer, the last one read back, and whether it must be read
    /// again (the pointer moved, or what is counted changed) though no new frame comes.
    probe_at: Option<(u32, u32)>,
    probe: Option<Probe>,
    probe_moved: bool,
    readback: ProbeReadback,
    /// A right-button press on the picture, and whether it has become a drag.
    drag: Option<RegionDrag>,
}

impl Pointer {
    pub fn new(device: &wgpu::Device) -> Self {
        Self {
            at: None,
            probe_at: None,
            probe: None,
            probe_moved: false,
            readback: ProbeReadback::new(device),
            drag: None,
        }
    }

    /// Where the pointer is over the window, in physical pixels.
    pub fn at(&self) -> Option<(f64, f64)> {
        self.at
    }

    /// The pixel under the pointer, as last read back.
    pub fn probe(&self) -> Option<Probe> {
        self.probe
    }

    /// What the pixel under the pointer shows changed: read it again.
    pub fn reprobe(&mut self) {
        self.probe_moved = true;
    }

    /// The pointer moved to `point` (physical pixels; `over_osd`: onto the OSD's widgets), or
    /// left the window (None): the probe follows it, and a right-drag draws the region.
    pub fn moved(&mut self, point: Option<(f64, f64)>, over_osd: bool, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        self.at = point;
        let frame = cx.media.pipeline.frame_size();
        let on_frame = point.map(|p| cx.media.frame_point(p, cx.viewport, cx.view.fit));
        let probe = on_frame.and_then(|p| pixel_at(p, frame)).filter(|_| !over_osd);
        if probe != self.probe_at {
            self.probe_at = probe;
            self.probe_moved = true;
            if probe.is_none() {
                self.probe = None;
                cx.media.scene.set_markers(NO_MARKERS);
                fx.relayout = true;
            }
            fx.redraw = true;
        }
        if let (Some(drag), Some(at)) = (&mut self.drag, on_frame) {
            let moved = point.is_some_and(|p| (p.0 - drag.start.0).hypot(p.1 - drag.start.1) >= DRAG_THRESHOLD);
            if drag.dragging || moved {
                drag.dragging = true;
                let region = region_between(drag.start_frame, at, frame);
                fx.then.push(Command::SetRegion(region));
            }
        }
        fx
    }

    /// The right button went down or up: a drag on the picture sets the region; a click
    /// without one does what MBTN_RIGHT is bound to (pause or play, as in mpv).
    pub fn right_button(&mut self, pressed: bool, bindings: &Bindings, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        let Some(point) = self.at else { return fx };
        if pressed {
            let start_frame = cx.media.frame_point(point, cx.viewport, cx.view.fit);
            self.drag = Some(RegionDrag {
                start: point,
                start_frame,
                dragging: false,
            });
        } else if let Some(drag) = self.drag.take() {
            if !drag.dragging {
                let modifiers = winit::keyboard::ModifiersState::empty();
                fx.then.extend(bindings.mouse(Mouse::Right, modifiers).iter().cloned());
            }
        }
        fx
    }

    /// Another file is open: nothing read from the old one stands, and the pointer is over a
    /// frame of another size now.
    pub fn file_opened(&mut self, over_osd: bool, cx: Cx) -> Effects {
        self.probe = None;
        self.probe_moved = true;
        self.drag = None;
        self.probe_at = None;
        self.moved(self.at, over_osd, cx)
    }

    /// Reads the pixel under the pointer back after this frame's conversion, for a new frame or
    /// when it must be read again.
    pub fn encode(&mut self, encoder: &mut wgpu::CommandEncoder, media: &Media, new_frame: bool) {
        let pipeline = &media.pipeline;
        let (width, height) = pipeline.frame_size();
        let probed = self.probe_at.filter(|&(x, y)| x < width && y < height);
        let Some((x, y)) = probed.filter(|_| media.has_picture) else {
            return;
        };
        if new_frame || self.probe_moved {
            let tag = ProbeTag {
                media: media.serial,
                x,
                y,
                depth: pipeline.engine.depth,
                exposure: pipeline.exposure(),
            };
            if self.readback.record(encoder, &pipeline.ring.output.pixels, width, tag) {
                self.probe_moved = false;
            }
        }
    }

    pub fn submitted(&mut self) {
        self.readback.submitted();
    }

    pub fn pending(&self) -> bool {
        self.readback.pending()
    }

    /// Takes a finished readback of the pixel still under the pointer: the OSD shows it and the
    /// histograms mark its values.
    pub fn poll(&mut self, media: &mut Media) -> Effects {
        let mut fx = Effects::default();
        if let Some((tag, probe)) = self.readback.take_latest() {
            if tag.media == media.serial && self.probe_at == Some((tag.x, tag.y)) {
                self.probe = Some(probe);
                media.scene.set_markers(probe.markers(media.pipeline.engine.bins));
                fx.relayout = true;
                fx.redraw = true;
            }
        }
        fx
    }
}

/// Counts `region` of each frame (None: the whole frame).
pub fn set_region(region: Option<Region>, cx: Cx) -> Effects {
    let mut fx = Effects::default();
    if region.is_none() && cx.media.pipeline.region().is_none() {
        return fx;
    }
    if let Err(e) = cx.media.set_region(cx.gpu, cx.scene, region) {
        fx.error(format!("no region: {e}"));
    }
    fx
}
