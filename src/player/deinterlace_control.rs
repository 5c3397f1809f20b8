//! The window's deinterlacing control: `d` cycles it as mpv's `cycle deinterlace` does, and
//! the OSD says what is in force.

use super::part::{Cx, Effects};
use crate::video::deinterlace::{Deinterlacer, Rate};

/// `d`: deinterlacing cycles as mpv's `cycle deinterlace` does, no, yes, auto (only frames
/// flagged interlaced), with `configured` (`--deinterlacer`); the frame shown is made again.
pub fn cycle(configured: Deinterlacer, cx: Cx) -> Effects {
    let mut fx = Effects::default();
    let next = match cx.media.deinterlace() {
        None => Some(Deinterlacer {
            only_interlaced: false,
            ..configured
        }),
        Some(filter) if !filter.only_interlaced => Some(Deinterlacer {
            only_interlaced: true,
            ..configured
        }),
        Some(_) => None,
    };
    match cx.media.set_deinterlace(next, true) {
        Ok(()) => fx.replace("Deinterlace: ", describe(next)),
        Err(e) => fx.error(format!("Deinterlace: {e}")),
    }
    // Comparing, the pairs are others now: their VMAF is measured again.
    if let Err(e) = cx.media.measure_vmaf(cx.gpu) {
        fx.error(format!("no VMAF: {e}"));
    }
    fx.redraw = true;
    fx
}

/// `Deinterlace: yes (bwdif, a frame for each field)`, as the OSD says it.
pub fn describe(filter: Option<Deinterlacer>) -> String {
    let Some(filter) = filter else {
        return "Deinterlace: no".into();
    };
    let mode = if filter.only_interlaced { "auto" } else { "yes" };
    let [method, ..] = filter.names();
    let rate = match filter.rate {
        Rate::Frame => "a frame for each frame",
        Rate::Field => "a frame for each field",
    };
    format!("Deinterlace: {mode} ({method}, {rate})")
}
