//! The picture adjustments' part: brightness, contrast and the rest, auto-levels and histogram
//! equalisation, kept from file to file as mpv keeps its video equalizer.

use super::commands::Command;
use super::part::{Cx, Effects};
use crate::render::adjust::{Adjustment, Adjustments, AutoMode};

pub struct Picture {
    adjustments: Adjustments,
}

impl Picture {
    pub fn new(adjustments: Adjustments) -> Self {
        Self { adjustments }
    }

    /// The adjustments in force, noted while any is.
    pub fn label(&self) -> Option<String> {
        self.adjustments.label()
    }

    /// The adjustments' commands.
    pub fn command(&mut self, command: &Command, cx: Cx) -> Effects {
        let current = self.adjustments;
        match *command {
            Command::Adjust(adjustment, step) => {
                let mut next = current;
                next.set(adjustment, next.get(adjustment) + step);
                self.set(next, Some(adjustment), cx)
            }
            Command::SetAdjustment(adjustment, value) => {
                let mut next = current;
                next.set(adjustment, value);
                self.set(next, Some(adjustment), cx)
            }
            Command::ToggleAutoLevels | Command::ToggleEqualize => {
                let mode = if *command == Command::ToggleAutoLevels {
                    AutoMode::Levels
                } else {
                    AutoMode::Equalize
                };
                let auto = if current.auto == mode { AutoMode::Off } else { mode };
                let text = match auto {
                    AutoMode::Off => "picture: auto-levels and equalisation off",
                    AutoMode::Levels => "picture: auto-levels",
                    AutoMode::Equalize => "picture: histogram equalisation",
                };
                let mut fx = self.set(Adjustments { auto, ..current }, None, cx);
                fx.replace("picture: ", text);
                fx
            }
            Command::ResetAdjustments => {
                let mut fx = self.set(Adjustments::default(), None, cx);
                fx.replace("picture: ", "picture: as decoded");
                fx
            }
            _ => Effects::default(),
        }
    }

    /// Applies `adjustments` to this file (and the next); `changed` names the control whose
    /// new value the OSD shows, as mpv does.
    fn set(&mut self, adjustments: Adjustments, changed: Option<Adjustment>, cx: Cx) -> Effects {
        self.adjustments = adjustments;
        let mut fx = Effects::default();
        if let Err(e) = cx.media.set_adjustments(cx.gpu, adjustments) {
            fx.error(format!("cannot adjust the picture: {e}"));
            return fx;
        }
        cx.media.recount = true;
        fx.reprobe = true;
        if let Some(adjustment) = changed {
            let name = adjustment.name();
            fx.replace(&format!("{name}: "), format!("{name}: {}", adjustments.get(adjustment)));
        }
        fx
    }

    /// A new file is open: the adjustments apply to it too.
    pub fn file_opened(&self, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        if let Err(e) = cx.media.set_adjustments(cx.gpu, self.adjustments) {
            fx.error(format!("cannot adjust the picture: {e}"));
        }
        fx
    }
}
