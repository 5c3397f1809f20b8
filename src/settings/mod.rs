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

/// The largest settings file read (mpv's whole input.conf is 20 KiB).
pub const LARGEST_FILE: u64 = 256 << 10;

/// The text of a settings or state file: a file of its own, not a FIFO or a device (which
/// could keep the read waiting, or never end), of at most `LARGEST_FILE` bytes, in UTF-8.
pub fn read_small(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    use std::os::unix::fs::OpenOptionsExt;
    // (Not held up by a FIFO's missing writer while it is found out.)
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(Error::new(ErrorKind::IsADirectory, "it is a folder"));
    }
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "it is not a file (a FIFO or a device)",
        ));
    }
    if meta.len() > LARGEST_FILE {
        let text = format!("it is larger than {} KiB", LARGEST_FILE >> 10);
        return Err(Error::new(ErrorKind::InvalidData, text));
    }
    let mut bytes = Vec::new();
    file.take(LARGEST_FILE).read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
}

/// Writes a state file whole: into a file beside it, then put in its place (so that a file
/// that is not one, a FIFO there, is replaced rather than waited on, and a quit midway leaves
/// the file before).
pub fn write_small(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut beside = path.as_os_str().to_owned();
    beside.push(".new");
    let beside = PathBuf::from(beside);
    let _ = std::fs::remove_file(&beside);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&beside)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| std::fs::rename(&beside, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&beside);
    }
    written
}

/// The most warnings about one kind of settings said, on stderr and in the window.
const SAID_WARNINGS: usize = 20;

/// Warnings about settings as they are said: each line cut short (`shortened`), and past the
/// first 20, one that counts the rest (a file of garbage would say a warning a line).
pub fn said(warnings: Vec<String>) -> Vec<String> {
    let more = warnings.len().saturating_sub(SAID_WARNINGS);
    let mut said: Vec<String> = warnings.into_iter().take(SAID_WARNINGS).map(shortened).collect();
    if more > 0 {
        said.push(format!("and {more} more lines not understood or left out"));
    }
    said
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settings_file_is_read_only_where_it_is_a_small_file() {
        let dir = std::env::temp_dir().join(format!("histoplay-read-small-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("histoplay.conf");
        std::fs::write(&file, "volume=50\n").unwrap();
        assert_eq!(read_small(&file).unwrap(), "volume=50\n");
        std::fs::write(&file, vec![b'#'; LARGEST_FILE as usize + 1]).unwrap();
        assert_eq!(read_small(&file).unwrap_err().to_string(), "it is larger than 256 KiB");
        std::fs::write(&file, b"\xff\xfe").unwrap();
        assert_eq!(read_small(&file).unwrap_err().kind(), std::io::ErrorKind::InvalidData);
        // A FIFO with no writer, and a device that never ends: refused at once.
        let fifo = dir.join("fifo.conf");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        for path in [fifo.as_path(), Path::new("/dev/zero")] {
            let e = read_small(path).unwrap_err().to_string();
            assert_eq!(e, "it is not a file (a FIFO or a device)", "{}", path.display());
        }
        assert_eq!(read_small(&dir).unwrap_err().to_string(), "it is a folder");
        // Written whole in its place, a FIFO there replaced.
        write_small(&fifo, "1280x720\n").unwrap();
        assert_eq!(read_small(&fifo).unwrap(), "1280x720\n");
        assert!(!dir.join("fifo.conf.new").exists());
        let many: Vec<String> = (0..25).map(|n| format!("line {n}")).collect();
        let said = said(many);
        assert_eq!(said.len(), 21);
        assert_eq!(
            (said[19].as_str(), said[20].as_str()),
            ("line 19", "and 5 more lines not understood or left out")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
