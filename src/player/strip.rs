//! The histogram timeline in the OSD: an egui texture redrawn from the background fill's data
//! a few times a second while it grows (a texture write, not a new texture).

use super::media::Media;
use super::part::{Cx, Effects};
use crate::timeline::{TimelineFill, PLAYER_COLUMNS, PLAYER_ROWS};
use std::time::{Duration, Instant};

/// How often the timeline's picture is redrawn while it fills.
const TIMELINE_UPDATE: Duration = Duration::from_millis(250);

/// The histogram timeline as an egui texture, redrawn from the fill's data when it has grown.
#[derive(Default)]
pub struct TimelineStrip {
    texture: Option<egui::TextureHandle>,
    /// Its rows (more with the loudness strip).
    rows: u32,
    /// Frames the texture shows (and the loudness measurement's generation), and when it was
    /// drawn.
    drawn: u64,
    drawn_generation: u64,
    at: Option<Instant>,
}

impl TimelineStrip {
    /// A new file: its strip starts afresh.
    pub fn forget(&mut self) {
        self.drawn = 0;
        self.drawn_generation = 0;
        self.at = None;
        self.texture = None;
    }

    /// Whether the fill has frames the texture doesn't show.
    pub fn stale(&self, fill: &TimelineFill) -> bool {
        fill.filled() != self.drawn || fill.generation() != self.drawn_generation
    }

    pub fn next_update(&self) -> Instant {
        self.at.map_or_else(Instant::now, |at| at + TIMELINE_UPDATE)
    }

    /// The texture to show and its rows, redrawn first if the fill has grown and it is time.
    pub fn texture(
        &mut self,
        ctx: &egui::Context,
        fill: &TimelineFill,
        now: Instant,
    ) -> Option<(egui::TextureId, u32)> {
        if self.texture.is_none() || (self.next_update() <= now && self.stale(fill)) {
            // (Taken before the strip: a measurement begun while it renders is drawn after.)
            let generation = fill.generation();
            let (rgba, rows, filled) = fill.render(PLAYER_COLUMNS, PLAYER_ROWS)?;
            let size = [PLAYER_COLUMNS as usize, rows as usize];
            let image = egui::ColorImage::from_rgba_unmultiplied(size, &rgba);
            match &mut self.texture {
                // A partial update of the whole image: egui-wgpu writes it into the texture it
                // has, where a full `set` would make a new texture and bind group.
                Some(texture) if self.rows == rows => texture.set_partial([0, 0], image, egui::TextureOptions::LINEAR),
                // (The loudness strip's rows came or went.)
                _ => self.texture = Some(ctx.load_texture("timeline", image, egui::TextureOptions::LINEAR)),
            }
            self.rows = rows;
            self.drawn = filled;
            self.drawn_generation = generation;
            self.at = Some(now);
        }
        self.texture.as_ref().map(|t| (t.id(), self.rows))
    }
}

/// The timeline's part of the window: shown or hidden (`T`), started for each file it shows on.
impl TimelineStrip {
    /// `T`: the timeline shown or hidden; its fill starts the first time it shows on a file.
    pub fn toggle(cx: Cx) -> Effects {
        let mut fx = Effects::default();
        cx.view.timeline = !cx.view.timeline;
        if cx.view.timeline {
            if let Err(e) = cx.media.start_timeline(cx.gpu) {
                fx.error(format!("no timeline: {e}"));
            }
        }
        fx
    }

    /// A new file is open: its strip starts afresh (and fills, if shown).
    pub fn file_opened(&mut self, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        self.forget();
        if cx.view.timeline {
            if let Err(e) = cx.media.start_timeline(cx.gpu) {
                fx.error(format!("no timeline: {e}"));
            }
        }
        fx
    }

    /// The fill is told whether the file plays; the strip redraws as it fills, a few times a
    /// second, while it is shown (when is pushed on `wake`). True when a redraw is due now.
    pub fn wake(&self, now: Instant, media: &Media, shown: bool, wake: &mut Vec<Option<Instant>>) -> bool {
        let Some(fill) = &media.timeline else {
            return false;
        };
        fill.set_playing(!media.playback.paused());
        if !shown || (fill.done() && !self.stale(fill)) {
            return false;
        }
        let next = self.next_update();
        wake.push(Some(next.max(now)));
        next <= now
    }
}

/// How often the window looks at the background VMAF run while it measures.
const VMAF_UPDATE: Duration = Duration::from_millis(250);

/// Comparing with VMAF measured: the run is told whether the file plays, and looked at a few
/// times a second while it measures (when is pushed on `wake`). True when it has scores the
/// window doesn't show yet.
pub fn wake_vmaf(now: Instant, media: &Media, wake: &mut Vec<Option<Instant>>) -> bool {
    let Some(fill) = media.compare.as_ref().and_then(|c| c.vmaf.as_ref()) else {
        return false;
    };
    fill.set_playing(!media.playback.paused());
    if !fill.done() {
        wake.push(Some(now + VMAF_UPDATE));
    }
    fill.news()
}
