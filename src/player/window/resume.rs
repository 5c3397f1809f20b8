//! What the window leaves for the next start: its size, and (asked for with `Q`, or on every
//! quit with --save-position-on-quit) the file's position with the options kept beside it;
//! and what it takes from the last one: the view and the position to start at.

use super::PlayerWindow;
use crate::audio::source::AudioTrack;
use crate::player::commands::Command;
use crate::player::PlayerOptions;
use crate::render::adjust::Adjustment;
use crate::render::layout::Fit;
use crate::render::scene::{Quads, ViewOptions};

impl PlayerWindow {
    /// Brings the view to the options' with the commands its keys give (so each part sets up
    /// what it draws, as it does for a key), then seeks to their start, pausing there and
    /// going fullscreen where they ask.
    pub(super) fn start_at(&mut self, options: &PlayerOptions) {
        let wanted = options.view;
        self.view.pse_standard = wanted.pse_standard;
        let reached = |command: &Command, v: &ViewOptions| match command {
            Command::CycleQuads => v.quads == wanted.quads,
            Command::CycleScope => v.scope == wanted.scope,
            Command::CycleVectorscopeZoom => v.vectorscope_zoom.max(1) == wanted.vectorscope_zoom.max(1),
            Command::ToggleLogScale => v.log_scale == wanted.log_scale,
            Command::ToggleFit => v.fit == wanted.fit,
            Command::TogglePse => v.pse == wanted.pse,
            _ => v.timeline == wanted.timeline,
        };
        let steps = [
            Command::CycleQuads,
            Command::CycleScope,
            Command::CycleVectorscopeZoom,
            Command::ToggleLogScale,
            Command::ToggleFit,
            Command::ToggleTimeline,
            Command::TogglePse,
        ];
        for command in steps {
            // Each cycle has at most five states.
            for _ in 0..5 {
                if reached(&command, &self.view) {
                    break;
                }
                self.apply(command.clone());
            }
        }
        if let Some(seconds) = options.start.filter(|s| *s > 0.0) {
            self.apply(Command::SeekTo { seconds, exact: true });
        }
        if options.paused {
            self.apply(Command::Pause);
        }
        if options.fullscreen {
            self.apply(Command::ToggleFullscreen);
        }
    }

    /// The player is quitting: its window's size is kept, and the position where asked for.
    pub fn quitting(&mut self) {
        // (The size the window last said it has, not asked of the window system again: the
        // player may be quitting because its display went away.)
        let (width, height) = self.surface.size();
        if self.window.fullscreen().is_none() && width > 0 && height > 0 {
            crate::settings::state::remember_window_size((width, height));
        }
        let Some(later) = &self.watch_later else { return };
        let path = self.media.info.path.clone();
        if !(later.on_quit || self.keep_position) || self.media.playback.is_live() || !path.is_file() {
            return;
        }
        let options: Vec<(String, String)> = (later.options.iter())
            .filter_map(|name| Some((name.clone(), self.kept_value(name)?)))
            .collect();
        let position = self.media.playback.position();
        match crate::settings::watch_later::save(&later.dir, &path, position, &options) {
            Ok(file) => log::info!("position kept in {}", file.display()),
            Err(e) => eprintln!("warning: cannot keep the position in '{}': {e}", later.dir.display()),
        }
    }

    /// The option `name`'s value as the window has it now, in the settings file's syntax;
    /// None where it is at its default (or histoplay has no such option to keep).
    fn kept_value(&self, name: &str) -> Option<String> {
        let view = &self.view;
        let yes = |on: bool| on.then(|| "yes".to_string());
        match name {
            "speed" => {
                let speed = self.media.playback.speed();
                ((speed - 1.0).abs() > 1e-9).then(|| format!("{speed}"))
            }
            "contrast" | "brightness" | "gamma" | "saturation" => {
                let adjustment = Adjustment::ALL.into_iter().find(|a| a.name() == name)?;
                let value = self.picture.adjustments().get(adjustment);
                (value != 0).then(|| value.to_string())
            }
            "overlay" => {
                let marks = self.marks.shown().names();
                (!marks.is_empty()).then(|| marks.join(","))
            }
            "lut" => {
                let file = self.watch_later.as_ref()?.lut_file.as_ref()?;
                self.picture
                    .given_lut_shown()
                    .then(|| format!("\"{}\"", file.display()))
            }
            "scope" => {
                let scope = clap::ValueEnum::to_possible_value(&view.scope?)?;
                Some(scope.get_name().to_string())
            }
            "vectorscope-zoom" => (view.vectorscope_zoom > 1).then(|| view.vectorscope_zoom.to_string()),
            "contain" => yes(view.fit == Fit::Contain),
            "log" => yes(view.log_scale),
            "histograms" => (view.quads != Quads::Both).then(|| view.quads.name().to_string()),
            "timeline" => yes(view.timeline),
            "loop-file" => yes(self.media.playback.loop_file),
            "pause" => yes(self.media.playback.paused()),
            // (Written at their defaults too: they are over a settings file's.)
            "volume" => Some(self.sound.volume().percent.to_string()),
            "mute" => Some(if self.sound.volume().muted { "yes" } else { "no" }.to_string()),
            "aid" => Some(match self.sound.track() {
                None => "no".to_string(),
                Some(AudioTrack::Best) => "auto".to_string(),
                Some(AudioTrack::Nth(n)) => n.to_string(),
            }),
            _ => None,
        }
    }
}
