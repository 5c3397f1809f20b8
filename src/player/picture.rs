//! The picture's part: the adjustments (brightness, contrast and the rest, auto-levels and
//! histogram equalisation, kept from file to file as mpv keeps its video equalizer), what the
//! signal is (`--input-colour`, Alt+i: video, or a camera log encoding), and the LUT the
//! picture is shown through (`--lut`, else a log encoding's display rendering; Ctrl+l), with
//! what the scopes count meanwhile (Alt+l).

use super::commands::Command;
use super::part::{Cx, Effects};
use crate::colour::log::{InputColour, LogEncoding};
use crate::colour::lut::picture_lut;
use crate::colour::lut::Lut;
use crate::pipeline::ScopesOn;
use crate::render::adjust::{Adjustment, Adjustments, AutoMode};
use std::sync::Arc;

pub struct Picture {
    adjustments: Adjustments,
    /// The LUT given (`--lut`).
    given: Option<Arc<Lut>>,
    /// What the signal is said to be (`--input-colour`, Alt+i), for every file.
    input_colour: InputColour,
    /// The LUT this file's picture is shown through: the one given, else the display
    /// rendering of the log encoding in force.
    lut: Option<Arc<Lut>>,
    lut_on: bool,
    scopes_on: ScopesOn,
}

impl Picture {
    pub fn new(
        adjustments: Adjustments,
        given: Option<Arc<Lut>>,
        input_colour: InputColour,
        scopes_on: ScopesOn,
    ) -> Self {
        Self {
            adjustments,
            given,
            input_colour,
            lut: None,
            lut_on: true,
            scopes_on,
        }
    }

    /// The adjustments and the LUT in force, noted while any is.
    /// Whether the picture shows through the LUT given (`--lut`, Ctrl+l).
    pub fn given_lut_shown(&self) -> bool {
        self.lut_on && self.given.is_some()
    }

    /// The adjustments in force.
    pub fn adjustments(&self) -> Adjustments {
        self.adjustments
    }

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
                next.set(adjustment, next.get(adjustment).saturating_add(step));
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
            Command::CycleInputColour => {
                let current = self.input_colour.resolve(cx.media.info.log);
                let next = match current {
                    None => Some(LogEncoding::ALL[0]),
                    Some(e) => LogEncoding::ALL.into_iter().skip_while(|&x| x != e).nth(1),
                };
                self.input_colour = next.map_or(InputColour::Video, InputColour::Log);
                self.input_colour_changed(cx)
            }
            Command::SetInputColour(input_colour) => {
                self.input_colour = input_colour;
                self.input_colour_changed(cx)
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

    /// What this file's signal is, and the picture through its LUT (the first file's, and
    /// each file's after).
    pub fn apply(
        &mut self,
        gpu: &crate::gpu::GpuContext,
        scene: &crate::render::scene::SceneRenderer,
        media: &mut super::media::Media,
    ) -> Result<(), crate::video::ring::RingError> {
        let encoding = self.input_colour.resolve(media.info.log);
        media.set_exposure(gpu, encoding);
        self.lut = picture_lut(self.given.as_ref(), encoding);
        match self.lut.as_deref() {
            Some(lut) => media
                .set_lut(gpu, scene, Some(lut), self.scopes_on)
                .and_then(|()| media.show_lut(gpu, scene, self.lut_on, self.scopes_on))
                .map(drop),
            None => media.set_lut(gpu, scene, None, self.scopes_on),
        }
    }

    /// The signal is read as something else now: the marks, graticule and picture follow.
    fn input_colour_changed(&mut self, mut cx: Cx) -> Effects {
        self.lut_on = true;
        let mut fx = Effects::default();
        self.show_input_colour(&mut cx, &mut fx);
        let text = match self.input_colour.resolve(cx.media.info.log) {
            Some(encoding) if self.given.is_some() => {
                format!("input colour: {} (shown through --lut)", encoding.label())
            }
            Some(encoding) => format!(
                "input colour: {}, shown through its rendering to BT.709",
                encoding.label()
            ),
            None => "input colour: video, as decoded".to_string(),
        };
        fx.replace("input colour: ", text);
        cx.media.recount = true;
        fx.reprobe = true;
        fx
    }

    /// The log encoding in force for this file, and the picture through its LUT.
    fn show_input_colour(&mut self, cx: &mut Cx, fx: &mut Effects) {
        if let Err(e) = self.apply(cx.gpu, cx.scene, cx.media) {
            fx.error(format!("cannot show the picture through the LUT: {e}"));
        }
    }

    /// A new file is open: the adjustments, what the signal is and the LUT apply to it too.
    pub fn file_opened(&mut self, mut cx: Cx) -> Effects {
        let mut fx = Effects::default();
        if let Err(e) = cx.media.set_adjustments(cx.gpu, self.adjustments) {
            fx.error(format!("cannot adjust the picture: {e}"));
        }
        self.show_input_colour(&mut cx, &mut fx);
        fx
    }
}
