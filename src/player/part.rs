//! What the window lends its parts (`Cx`) and what a part asks of the window in return
//! (`Effects`): parts change the open file through `Cx` and never reach back into the window.

use super::commands::Command;
use super::media::Media;
use crate::gpu::GpuContext;
use crate::render::scene::{SceneRenderer, ViewOptions};

/// The window's shared state, lent to a part for one call.
pub struct Cx<'a> {
    pub gpu: &'a GpuContext,
    pub scene: &'a SceneRenderer,
    pub media: &'a mut Media,
    pub view: &'a mut ViewOptions,
    /// The window's size in physical pixels.
    pub viewport: (u32, u32),
}

/// What a part's call asks the window to do after it.
#[derive(Debug, Default)]
#[must_use]
pub struct Effects {
    /// OSD messages to show.
    pub toasts: Vec<Toast>,
    /// Draw again, though nothing else changed.
    pub redraw: bool,
    /// Lay the scene out again (a composite, the probe's markers changed).
    pub relayout: bool,
    /// Read the pixel under the pointer again: what it shows changed.
    pub reprobe: bool,
    /// Commands to apply next, as if the viewer had given them.
    pub then: Vec<Command>,
}

/// An OSD message; it takes the place of the messages starting with any of `replaces`
/// (repeated keys update one line instead of stacking them).
#[derive(Clone, Debug, PartialEq)]
pub struct Toast {
    pub replaces: Vec<String>,
    pub text: String,
    pub error: bool,
}

impl Effects {
    /// Shows `text` in place of the messages starting with `prefix`.
    pub fn replace(&mut self, prefix: &str, text: impl Into<String>) {
        self.toasts.push(Toast {
            replaces: vec![prefix.to_string()],
            text: text.into(),
            error: false,
        });
    }

    /// Shows `text` as an error.
    pub fn error(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            replaces: Vec::new(),
            text: text.into(),
            error: true,
        });
    }
}
