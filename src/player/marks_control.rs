//! The marks' part: false colour, zebras, peaking, gamut and range marks on the picture and
//! their levels (keys Y, X, U, D, N and their Alt steps), kept from file to file.

use super::commands::Command;
use super::media::Media;
use super::part::{Cx, Effects};
use crate::marks::{Mark, MarkSet, MarkSettings, PEAKING_RANGE};
use crate::render::notes::MarksNote;

pub struct Marks {
    settings: MarkSettings,
}

impl Marks {
    pub fn new(settings: MarkSettings) -> Self {
        Self { settings }
    }

    /// The marks drawn on the picture.
    pub fn shown(&self) -> MarkSet {
        self.settings.shown
    }

    /// The note of the marks shown (on a comparison, without range marks).
    pub fn note(&self, media: &Media) -> Option<MarksNote> {
        let (volume, format) = (&media.pipeline.volume, &media.pipeline.ring.format);
        match media.compare {
            Some(_) => MarksNote::comparing(&self.settings, volume, format),
            None => MarksNote::new(&self.settings, volume, format),
        }
    }

    /// The marks' commands.
    pub fn command(&mut self, command: &Command, cx: Cx) -> Effects {
        let mut next = self.settings.clone();
        let mut fx = Effects::default();
        match *command {
            Command::ToggleMark(mark) => {
                next.shown = next.shown.toggled(mark);
                let on = if next.shown.has(mark) { "on" } else { "off" };
                fx.replace(&format!("{}: ", mark.name()), format!("{}: {on}", mark.name()));
            }
            Command::ZebraBy(step) => {
                next.zebra = (next.zebra + step as f32).clamp(0.0, 110.0);
                next.shown = next.shown.with(Mark::Zebra, true);
                fx.replace("zebra: ", format!("zebra: {}%", next.zebra));
            }
            Command::PeakingBy(step) => {
                let (low, high) = (*PEAKING_RANGE.start(), *PEAKING_RANGE.end());
                next.peaking = (next.peaking + step as f32).clamp(low, high);
                next.shown = next.shown.with(Mark::Peaking, true);
                fx.replace("peaking: ", format!("peaking: edges of {}% and more", next.peaking));
            }
            _ => return fx,
        }
        self.set(next, cx);
        fx.reprobe = true;
        fx
    }

    /// Shows `marks` on the picture (of this file and the next). The range marks, turned on
    /// over a paused frame converted before any mark showed, have it decoded again: the range
    /// test reads the frame's planes, which were given back once it was converted.
    fn set(&mut self, marks: MarkSettings, cx: Cx) {
        let media = cx.media;
        media.set_marks(cx.gpu, cx.scene, &marks);
        let unmarked = media.pipeline.marks().is_some_and(|m| !m.range_marked());
        if marks.shown.has(Mark::Range) && unmarked && media.playback.paused() {
            if let Some(shown) = media.playback.shown() {
                media.playback.seek_frame(shown.index);
            }
        }
        self.settings = marks;
    }

    /// A new file is open: the marks show on it too.
    pub fn file_opened(&self, cx: Cx) {
        cx.media.set_marks(cx.gpu, cx.scene, &self.settings);
    }
}
