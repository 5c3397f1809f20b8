//! Positions to resume from, as mpv's `watch_later` keeps them: a file per video in the state
//! directory, in the settings file's syntax (`start=12.345`, then the options kept with it),
//! read back as options when the video is played again, and removed then.

use std::path::{Path, PathBuf};

/// The options kept beside the position by default (`--watch-later-options`): the view, the
/// marks, the picture's adjustments, the sound's volume and stream, speed and looping.
pub const DEFAULT_OPTIONS: &str =
    "speed,volume,mute,aid,contrast,brightness,gamma,saturation,overlay,lut,scope,vectorscope-zoom,contain,log,histograms,timeline,loop-file,pause";

/// Where positions are kept, and what is kept with them.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchLater {
    pub dir: PathBuf,
    /// The options written beside the position, by name.
    pub options: Vec<String>,
    /// Save on every quit (`--save-position-on-quit`), not only on `quit-watch-later` (`Q`).
    pub on_quit: bool,
    /// The LUT file given (`--lut`): kept as `lut=` while the picture shows through it.
    pub lut_file: Option<PathBuf>,
}

/// `$XDG_STATE_HOME/histoplay/watch_later`.
pub fn default_dir() -> Option<PathBuf> {
    super::state_dir().map(|dir| dir.join("watch_later"))
}

/// The file that keeps `video`'s position in `dir`: named by a hash of its absolute path.
pub fn file_for(dir: &Path, video: &Path) -> PathBuf {
    let absolute =
        std::fs::canonicalize(video).unwrap_or_else(|_| std::path::absolute(video).unwrap_or(video.to_path_buf()));
    // FNV-1a, 64 bits: stable from one build to the next (std's hasher isn't).
    let hash = absolute
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    dir.join(format!("{hash:016X}"))
}

/// Keeps `video`'s position and `options` (name and value, in the settings file's syntax).
pub fn save(dir: &Path, video: &Path, start: f64, options: &[(String, String)]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    // All the digits the position has, so that it reads back as the same frame's time.
    let mut text = format!("# {}\nstart={start}\n", video.display());
    for (name, value) in options {
        text.push_str(&format!("{name}={value}\n"));
    }
    let path = file_for(dir, video);
    super::write_small(&path, &text)?;
    Ok(path)
}

/// What was kept for `video`, if anything, with the file it was in; the file is removed, so a
/// video is resumed once (as mpv does). One that can't be read is a warning.
pub fn take(dir: &Path, video: &Path, warnings: &mut Vec<String>) -> Option<(PathBuf, String)> {
    let path = file_for(dir, video);
    let text = match super::read_small(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            warnings.push(format!("the kept position '{}' is not read: {e}", path.display()));
            return None;
        }
    };
    if let Err(e) = std::fs::remove_file(&path) {
        log::warn!("cannot remove '{}': {e}", path.display());
    }
    Some((path, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_position_is_read_once_in_the_settings_syntax() {
        let dir = std::env::temp_dir().join(format!("histoplay-watch-later-{}", std::process::id()));
        let video = Path::new("/videos/a b.mp4");
        let options = [
            ("speed".to_string(), "1.5".to_string()),
            ("scope".to_string(), "vectorscope".to_string()),
        ];
        let path = save(&dir, video, 12.3456789, &options).unwrap();
        assert_eq!(path, file_for(&dir, video));
        assert_ne!(path, file_for(&dir, Path::new("/videos/a c.mp4")));
        let (read, text) = take(&dir, video, &mut Vec::new()).unwrap();
        assert_eq!(read, path);
        assert_eq!(
            text,
            "# /videos/a b.mp4\nstart=12.3456789\nspeed=1.5\nscope=vectorscope\n"
        );
        let mut warnings = Vec::new();
        assert_eq!(take(&dir, video, &mut warnings), None, "once");
        assert!(warnings.is_empty());
        // One that isn't text is a warning.
        std::fs::write(&path, b"start=\xff\n").unwrap();
        assert_eq!(take(&dir, video, &mut warnings), None);
        let expected = format!(
            "the kept position '{}' is not read: stream did not contain valid UTF-8",
            path.display()
        );
        assert_eq!(warnings, [expected]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
