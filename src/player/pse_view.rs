//! The photosensitivity view's part of the window (`Alt+p`, `--pse`): on, it starts the file's
//! background analysis (`pse_fill`) and shows its lamp, row and flashing regions; as the frame
//! shown enters a failing stretch, a warning on the OSD and in the log.

use super::media::Media;
use super::osd::pse::PseView;
use super::part::{Cx, Effects};
use super::pse_fill::PseFill;
use crate::render::scene::ViewOptions;
use std::time::{Duration, Instant};

/// How often the window looks at the analysis while it runs.
const PSE_UPDATE: Duration = Duration::from_millis(250);

/// `Alt+p`: the view on or off; its analysis starts the first time it is on for a file.
pub fn toggle(cx: Cx) -> Effects {
    cx.view.pse = !cx.view.pse;
    let mut fx = start(cx);
    fx.redraw = true;
    fx
}

/// A new file is open: with the view on, its analysis starts.
pub fn file_opened(cx: Cx) -> Effects {
    match cx.view.pse {
        true => start(cx),
        false => Effects::default(),
    }
}

fn start(cx: Cx) -> Effects {
    let mut fx = Effects::default();
    if !cx.view.pse || cx.media.pse.is_some() {
        return fx;
    }
    if cx.media.info.live {
        fx.error("no photosensitivity view of a live input: `histoplay pse` analyses one as it comes");
        return fx;
    }
    match PseFill::start(&cx.media.info.path, cx.view.pse_standard, cx.gpu) {
        Ok(fill) => cx.media.pse = Some(fill),
        Err(e) => fx.error(format!("no photosensitivity analysis: {e}")),
    }
    fx
}

/// The analysis is told whether the file plays, and looked at a few times a second while it
/// runs and the view is on (when is pushed on `wake`). True when it has frames the window
/// doesn't show yet.
pub fn wake(now: Instant, media: &Media, shown: bool, wake: &mut Vec<Option<Instant>>) -> bool {
    let Some(fill) = &media.pse else {
        return false;
    };
    fill.set_playing(!media.playback.paused());
    if !shown {
        return false;
    }
    if !fill.done() {
        wake.push(Some(now + PSE_UPDATE));
    }
    fill.news()
}

/// What the view shows of `media`, with the picture placed for `viewport`; and the warning
/// to give where the frame shown starts a failing stretch not warned of yet.
pub fn view(media: &Media, view: ViewOptions, viewport: (u32, u32)) -> Option<(PseView, Option<String>)> {
    let fill = media.pse.as_ref().filter(|_| view.pse)?;
    let frame = media.playback.shown_number(&media.index).map(|n| n.n);
    let upright = media.info.quarter_turns == 0 && !media.side_by_side();
    let picture = upright.then(|| crate::render::layout::fit_picture(media.picture_aspect(), viewport, view.fit));
    let pse = PseView {
        strip: fill.strip(
            crate::timeline::PLAYER_COLUMNS as usize,
            media.frame_count_or_estimate(),
        ),
        shown: frame.and_then(|n| fill.finding(n)),
        map: frame.and_then(|n| fill.flash_map(n)),
        picture,
    };
    let warning = frame.and_then(|n| fill.warn_at(n));
    Some((pse, warning))
}
