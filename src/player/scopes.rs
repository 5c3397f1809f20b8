//! The scopes' part: which scope the band shows (`H`), the vectorscope's zoom and the
//! waveform's graticule (its scale and added levels, kept from file to file).

use super::commands::Command;
use super::part::{Cx, Effects};
use crate::render::scene::next_scope;
use crate::scope::graticule::{Level, Scale};
use crate::scope::ScopeKind;

pub struct Scopes {
    /// The waveform's graticule: scale and added levels.
    graticule: (Scale, Vec<Level>),
}

impl Scopes {
    pub fn new(graticule: (Scale, Vec<Level>)) -> Self {
        Self { graticule }
    }

    /// The scopes' commands.
    pub fn command(&mut self, command: &Command, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        match command {
            Command::CycleScope => {
                let scope = next_scope(cx.view.scope);
                match cx.media.set_scope(cx.gpu, cx.scene, scope) {
                    Ok(()) => {
                        cx.view.scope = scope;
                        fx.reprobe = true;
                        let text = match scope {
                            None => "scope: off".to_string(),
                            Some(ScopeKind::Cie) => {
                                "scope: CIE 1931 xy · BT.709 white, P3 blue, BT.2020 orange".to_string()
                            }
                            Some(kind) => format!("scope: {}", kind.title()),
                        };
                        fx.replace("scope: ", text);
                    }
                    Err(e) => fx.error(format!("no scope: {e}")),
                }
            }
            Command::CycleVectorscopeZoom => {
                let zooms = crate::scope::draw::VECTORSCOPE_ZOOMS;
                let at = zooms
                    .iter()
                    .position(|&z| z == cx.view.vectorscope_zoom.max(1))
                    .unwrap_or(0);
                cx.view.vectorscope_zoom = zooms[(at + 1) % zooms.len()];
                let note = if cx.view.scope == Some(ScopeKind::Vectorscope) {
                    ""
                } else {
                    " (shown with the vectorscope: H)"
                };
                fx.replace(
                    "vectorscope: ",
                    format!("vectorscope: ×{}{note}", cx.view.vectorscope_zoom),
                );
            }
            Command::CycleWaveformScale => {
                self.graticule.0 = self.graticule.0.next(
                    cx.media.pipeline.volume.is_hdr(),
                    cx.media.pipeline.exposure().is_some(),
                );
                cx.media.set_graticule(self.graticule.0, &self.graticule.1);
                fx.replace("waveform: ", format!("waveform: {}", self.graticule.0.name()));
            }
            _ => {}
        }
        fx
    }

    /// A new file is open: the graticule, then the scope shown, on it too.
    pub fn file_opened(&self, cx: Cx) -> Effects {
        let mut fx = Effects::default();
        cx.media.set_graticule(self.graticule.0, &self.graticule.1);
        if let Err(e) = cx.media.set_scope(cx.gpu, cx.scene, cx.view.scope) {
            fx.error(format!("no scope: {e}"));
        }
        fx
    }
}
