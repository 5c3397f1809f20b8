//! The photosensitivity view's part of the window (`Alt+p`, `--pse`): on, it starts the file's
//! background analysis (`pse_fill`) and shows its lamp, row and flashing regions; as the frame
//! shown enters a failing stretch, a warning on the OSD and in the log.

use super::media::Media;
use super::osd::pse::PseView;
use super::part::{Cx, Effects};
use super::pse_fill::{Joined, Joining, PseFill};
use crate::render::scene::ViewOptions;
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

/// How often the window looks at the analysis while it runs.
const PSE_UPDATE: Duration = Duration::from_millis(250);
/// How often the window looks whether a live input's packets asked for have come.
const JOINING_POLL: Duration = Duration::from_millis(50);

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
    if !cx.view.pse || cx.media.pse.is_some() || cx.media.pse_joining.is_some() {
        return fx;
    }
    let (path, live) = match (cx.media.info.live, cx.media.pse_packets.take()) {
        (false, _) => (cx.media.info.path.clone(), false),
        (true, Some(packets)) => (packets, true),
        (true, None) => {
            // Turned on midway: the input's packets are shared from its next keyframe, and
            // the analysis starts once they are (`joined`).
            let shown = cx.media.playback.shown().map_or((0, 0.0), |f| (f.index, f.seconds));
            match cx.media.playback.source.share_packets() {
                Some(answer) => cx.media.pse_joining = Some(Joining { answer, shown }),
                None => fx.error("no photosensitivity analysis of a live input compared"),
            }
            return fx;
        }
    };
    match PseFill::start(&path, cx.view.pse_standard, live, None, cx.gpu) {
        Ok(fill) => cx.media.pse = Some(fill),
        Err(e) => fx.error(format!("no photosensitivity analysis: {e}")),
    }
    fx
}

/// Starts the analysis of a live input whose packets, asked for midway, have come.
pub fn joined(cx: Cx) -> Effects {
    let mut fx = Effects::default();
    let Some(joining) = &cx.media.pse_joining else {
        return fx;
    };
    let answer = match joining.answer.try_recv() {
        Ok(answer) => answer,
        Err(TryRecvError::Empty) => return fx,
        Err(TryRecvError::Disconnected) => Err("the live input has ended".into()),
    };
    let shown = joining.shown;
    cx.media.pse_joining = None;
    let started = answer.and_then(|(packets, start)| {
        let joined = Joined { shown, start };
        PseFill::start(&packets, cx.view.pse_standard, true, Some(joined), cx.gpu).map_err(|e| e.to_string())
    });
    match started {
        Ok(fill) => {
            cx.media.pse = Some(fill);
            fx.redraw = true;
        }
        Err(e) => fx.error(format!("no photosensitivity analysis: {e}")),
    }
    fx
}

/// The analysis is told whether the file plays, and looked at a few times a second while it
/// runs and the view is on (when is pushed on `wake`). True when it has frames the window
/// doesn't show yet.
pub fn wake(now: Instant, media: &Media, shown: bool, wake: &mut Vec<Option<Instant>>) -> bool {
    if media.pse_joining.is_some() {
        // The live input's packets asked for: looked for again shortly.
        wake.push(Some(now + JOINING_POLL));
    }
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
/// to give of a failing stretch not warned of yet.
pub fn view(media: &Media, view: ViewOptions, viewport: (u32, u32)) -> Option<(PseView, Option<String>)> {
    let fill = media.pse.as_ref().filter(|_| view.pse)?;
    // A live input's lamp and regions are those of the frame analysed last (the analysis reads
    // the stream beside the window, not in step with it).
    let frame = match fill.live {
        true => fill.latest().map(|(n, _)| n),
        false => media.playback.shown_number(&media.index).map(|n| n.n),
    };
    let upright = media.info.quarter_turns == 0 && !media.side_by_side();
    let picture = upright.then(|| crate::render::layout::fit_picture(media.picture_aspect(), viewport, view.fit));
    // A live input's row spans what has been analysed.
    let frame_count = match fill.live {
        true => fill.analysed(),
        false => media.frame_count_or_estimate(),
    };
    let pse = PseView {
        strip: fill.strip(crate::timeline::PLAYER_COLUMNS as usize, frame_count),
        shown: frame.and_then(|n| fill.finding(n)),
        map: frame.and_then(|n| fill.flash_map(n)),
        picture,
    };
    // A live input's failures are warned of as the analysis finds them start; a file's as the
    // frame shown enters them.
    let warning = match fill.live {
        true => fill.warn(None),
        false => frame.and_then(|n| fill.warn(Some(n))),
    };
    Some((pse, warning))
}
