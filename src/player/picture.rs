//! The picture's part: the adjustments (brightness, contrast and the rest, auto-levels and
//! histogram equalisation, kept from file to file as mpv keeps its video equalizer) and the LUT
//! the picture is shown through (`--lut`, Ctrl+l), with what the scopes count meanwhile (Alt+l).

use super::commands::Command;
use super::part::{Cx, Effects};
use crate::colour::lut::Lut;
use crate::pipeline::ScopesOn;
use crate::render::adjust::{Adjustment, Adjustments, AutoMode};
use std::sync::Arc;

pub struct Picture {
    adjustments: Adjustments,
    lut: Option<Arc<Lut>>,
    lut_on: bool,
    scopes_on: ScopesOn,
}

impl Picture {
    pub fn new(adjustments: Adjustments, lut: Option<Arc<Lut>>, scopes_on: ScopesOn) -> Self {
        Self {
            lut_on: lut.is_some(),
            adjustments,
            lut,
            scopes_on,
        }
    }

    /// The adjustments and the LUT in force, noted while any is.
    pub fn label(&self) -> Option<String> {
        let lut = self
            .lut
            .as_ref()
            .filter(|_| self.lut_on)
            .map(|lut| format!("LUT {} (scopes on the {})", lut.describe(), self.scopes_on.name()));
        match (self.adjustments.label(), lut) {
            (Some(a), Some(l)) => Some(format!("{a}\n{l}")),
            (a, l) => a.or(l),
        }
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
            Command::ToggleLut | Command::ToggleScopesOn => self.toggle_lut(command, cx),
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

    /// Ctrl+l: the LUT on or off; Alt+l: what the scopes count while it is on.
    fn toggle_lut(&mut self, command: &Command, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        if self.lut.is_none() {
            fx.replace("LUT: ", "LUT: none loaded (--lut FILE)");
            return fx;
        }
        if *command == Command::ToggleLut {
            self.lut_on = !self.lut_on;
        } else {
            self.scopes_on = match self.scopes_on {
                ScopesOn::Signal => ScopesOn::Display,
                ScopesOn::Display => ScopesOn::Signal,
            };
        }
        match cx.media.show_lut(cx.gpu, cx.scene, self.lut_on, self.scopes_on) {
            Ok(true) => fx.replace("LUT: ", format!("LUT: on, scopes on the {}", self.scopes_on.name())),
            Ok(false) => fx.replace("LUT: ", "LUT: off, the picture as decoded"),
            Err(e) => fx.error(format!("cannot show the picture through the LUT: {e}")),
        }
        cx.media.recount = true;
        fx.reprobe = true;
        fx
    }

    /// A new file is open: the adjustments and the LUT apply to it too.
    pub fn file_opened(&self, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        if let Err(e) = cx.media.set_adjustments(cx.gpu, self.adjustments) {
            fx.error(format!("cannot adjust the picture: {e}"));
        }
        if let Some(lut) = &self.lut {
            let shown = cx
                .media
                .set_lut(cx.gpu, cx.scene, Some(lut), self.scopes_on)
                .and_then(|()| cx.media.show_lut(cx.gpu, cx.scene, self.lut_on, self.scopes_on));
            if let Err(e) = shown {
                fx.error(format!("cannot show the picture through the LUT: {e}"));
            }
        }
        fx
    }
}
