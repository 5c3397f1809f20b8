//! The window's fields control: `Alt+d` cycles how the frame's fields are shown
//! (`FieldView`), the frame shown made again each time. Apart, a field-order mistake shows as
//! the two halves' motion out of step.

use super::field_view::FieldView;
use super::part::{Cx, Effects};

/// `Alt+d`: the next way of showing the fields; the frame shown is made again.
pub fn cycle(cx: Cx) -> Effects {
    let mut fx = Effects::default();
    let next = cx.media.field_view.next();
    if let Err(e) = set(next, cx) {
        fx.error(format!("Fields: {e}"));
        return fx;
    }
    fx.replace("Fields: ", next.describe().to_string());
    fx.redraw = true;
    fx.reprobe = true;
    fx
}

/// A new file of the playlist, or a live picture's new shape: its fields shown as the last
/// ones were (where they can be).
pub fn file_opened(view: FieldView, cx: Cx) -> Effects {
    let mut fx = Effects::default();
    if view != FieldView::Frame {
        if let Err(e) = set(view, cx) {
            fx.error(format!("Fields: {e}"));
        }
    }
    fx
}

fn set(view: FieldView, cx: Cx) -> Result<(), String> {
    let media = cx.media;
    if media.compare.is_some() {
        return Err("not while comparing two files".into());
    }
    if media.deinterlace().is_some() {
        return Err("not while deinterlacing (d)".into());
    }
    let was = media.field_view;
    let slot = media.pipeline.ring.slots.len() - 1;
    media
        .pipeline
        .show_fields_apart(cx.gpu, (view != FieldView::Frame).then_some(slot))?;
    media.field_view = view;
    // The field counted alone is a region of the picture (a region set otherwise is kept).
    let region = view.counted(media.pipeline.frame_size());
    if region.is_some() || was.counted(media.pipeline.frame_size()).is_some() {
        media.set_region(cx.gpu, cx.scene, region).map_err(|e| e.to_string())?;
    }
    // The frame shown, made again.
    if let Some(shown) = media.playback.shown().filter(|s| !s.preview).map(|s| s.index) {
        media.playback.seek_frame(shown);
    }
    Ok(())
}
