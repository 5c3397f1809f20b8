//! Settings that stay between runs: the settings file (`histoplay.conf`, mpv.conf's syntax,
//! with profiles and includes) read into command-line options, and the state the player keeps
//! in its state directory (positions to resume from, the window's last size, hints shown once).

pub mod conf;
pub mod state;
pub mod watch_later;

use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/histoplay`, else `~/.config/histoplay`: the settings file and input.conf.
pub fn config_dir() -> Option<PathBuf> {
    xdg_dir("XDG_CONFIG_HOME", ".config")
}

/// `$XDG_STATE_HOME/histoplay`, else `~/.local/state/histoplay` (mpv keeps its watch_later
/// there too): what the player remembers.
pub fn state_dir() -> Option<PathBuf> {
    xdg_dir("XDG_STATE_HOME", ".local/state")
}

fn xdg_dir(variable: &str, under_home: &str) -> Option<PathBuf> {
    std::env::var_os(variable)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(under_home)))
        .map(|dir| dir.join("histoplay"))
}
