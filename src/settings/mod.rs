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

/// The most characters of a settings line a warning quotes.
const QUOTED: usize = 200;

/// A warning about a settings line, the line cut short where it is long (a file of garbage
/// makes a warning a line, each readable).
pub fn shortened(warning: String) -> String {
    match warning.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("{}…", &warning[..at]),
        None => warning,
    }
}

fn xdg_dir(variable: &str, under_home: &str) -> Option<PathBuf> {
    std::env::var_os(variable)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(under_home)))
        .map(|dir| dir.join("histoplay"))
}
