//! The comparison's controls: its keys (mode, flicker, the difference's gain, B's offset) and
//! the wipe's line dragged with the left button. The comparison itself is `Media::compare`.

use super::commands::Command;
use super::comparison::next_composite;
use super::media::Media;
use super::part::{Cx, Effects};
use crate::compare::composite::{CompareMode, Composite};

#[derive(Debug, Default)]
pub struct CompareControl {
    /// The left button is down, dragging the wipe's line.
    wipe_drag: bool,
}

impl CompareControl {
    /// The comparison's commands (without a comparison, the OSD says how to start one).
    pub fn command(&mut self, command: &Command, cx: Cx) -> Effects {
        let Some(comparison) = &cx.media.compare else {
            let mut fx = Effects::default();
            fx.replace("compare", "compare: play with --compare FILE");
            return fx;
        };
        if let Command::CompareOffsetBy(step) = *command {
            return shift_compared(step, cx);
        }
        let composite = comparison.stage.composite();
        match next_composite(composite, comparison.before_flicker, command) {
            Some(composite) => set_composite(composite, cx),
            None => Effects::default(),
        }
    }

    /// The left button went down on the picture (not the OSD's widgets) at `point`, or up:
    /// in wipe mode a press, and the drag after it, move the line to the pointer.
    pub fn left_button(&mut self, pressed: bool, point: Option<(f64, f64)>, cx: Cx) -> Effects {
        let wiped = point.filter(|_| pressed).and_then(|point| drag_wipe(point, cx));
        self.wipe_drag = wiped.is_some();
        wiped.unwrap_or_default()
    }

    /// The compared file's decoder failed: the OSD says so (A plays on alone).
    pub fn wake(media: &mut Media) -> Effects {
        let mut fx = Effects::default();
        let failed = media
            .playback
            .source
            .paired_mut()
            .and_then(|pair| pair.take_b_failure());
        if let Some(error) = failed {
            fx.error(format!("compared file: {error}"));
        }
        fx
    }

    /// Takes the pair's PSNR and SSIM where they landed; true when a paused frame must be drawn
    /// again to show them.
    pub fn poll(media: &mut Media) -> bool {
        let serial = media.serial;
        let Some(comparison) = &mut media.compare else {
            return false;
        };
        match comparison.stage.take_metrics() {
            Some((tag, metrics)) if tag.media == serial => {
                comparison.metrics = Some((tag, metrics));
                media.playback.paused()
            }
            _ => false,
        }
    }

    /// The frame's work was submitted; whether the pair's measures wait on the GPU.
    pub fn submitted(media: &mut Media) -> bool {
        let Some(comparison) = &mut media.compare else {
            return false;
        };
        comparison.stage.submitted();
        comparison.stage.pending()
    }

    /// The pointer moved to `point`: a wipe being dragged follows it.
    pub fn pointer_moved(&mut self, point: Option<(f64, f64)>, cx: Cx) -> Effects {
        match point.filter(|_| self.wipe_drag) {
            Some(point) => drag_wipe(point, cx).unwrap_or_default(),
            None => Effects::default(),
        }
    }
}

/// Shows `composite` from now on (a new scene where the picture or the filled histograms
/// change).
fn set_composite(composite: Composite, cx: Cx) -> Effects {
    let mut fx = Effects {
        reprobe: true,
        relayout: true,
        ..Default::default()
    };
    let set = cx.media.set_composite(cx.gpu, cx.scene, composite);
    // VIF's heat map is made as a pair is drawn, from its planes: the pair shown is drawn again.
    if cx.media.compare.as_ref().is_some_and(|c| c.stage.heat_missing()) {
        if let Some(shown) = cx.media.playback.shown() {
            cx.media.playback.seek_frame(shown.index);
        }
    }
    if let Err(e) = set {
        fx.error(format!("cannot compare: {e}"));
        // (VIF's heat map needs what the GPU may lack: the cycle goes on past it.)
        if composite.mode == CompareMode::Vif {
            let wipe = Composite {
                mode: CompareMode::Wipe,
                ..composite
            };
            let _ = cx.media.set_composite(cx.gpu, cx.scene, wipe);
        }
    }
    fx
}

/// Moves B by `step` frames against A and pairs the frame shown again.
fn shift_compared(step: i64, cx: Cx) -> Effects {
    let mut fx = Effects::default();
    let playback = &mut cx.media.playback;
    let Some(pair) = playback.source.paired_mut() else {
        return fx;
    };
    let offset = pair.alignment().offset.saturating_add(step);
    pair.set_offset(offset);
    // At field rate, paired by number, pictures are fields: the offset counts them (by time it
    // counts the compared file's frames, as `compare` does).
    let by_number = pair.alignment().by == crate::compare::align::AlignBy::Frame;
    if let Some(shown) = playback.shown() {
        playback.seek_frame(shown.index);
    }
    let unit = if playback.source.field_rate() && by_number {
        "fields"
    } else {
        "frames"
    };
    fx.replace("compare offset", format!("compare offset {offset:+} {unit}"));
    // The pairs are others now: their VMAF is measured again.
    if let Err(e) = cx.media.measure_vmaf(cx.gpu) {
        fx.error(format!("no VMAF: {e}"));
    }
    fx
}

/// The wipe's line to the pointer at `point`; None when not in wipe mode.
fn drag_wipe(point: (f64, f64), cx: Cx) -> Option<Effects> {
    let composite = cx.media.compare.as_ref()?.stage.composite();
    if composite.mode != CompareMode::Wipe {
        return None;
    }
    let (x, _) = cx.media.frame_point(point, cx.viewport, cx.view.fit);
    let (width, _) = cx.media.pipeline.frame_size();
    let split = x.round().clamp(0.0, f64::from(width)) as u32;
    Some(if split != composite.split {
        set_composite(Composite { split, ..composite }, cx)
    } else {
        Effects::default()
    })
}
