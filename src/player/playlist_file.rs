//! Playlist files, M3U and PLS, read for the entries they list, as mpv reads them.

use std::path::{Path, PathBuf};

/// Extensions of the playlist files read for the entries they list, as mpv reads them (an HLS
/// playlist, whose `#EXT-X-` tags say it is one, is a stream FFmpeg plays instead).
const PLAYLIST_EXTENSIONS: &[&str] = &["m3u", "m3u8", "pls"];

/// The most a playlist file may hold.
const PLAYLIST_BYTES: u64 = 16 << 20;

/// The entries of the playlist file at `path` (M3U or PLS, by its extension), relative ones
/// from its folder, a `file://` URL as its path, other URLs as they are; None where `path` is
/// no playlist file (another extension, not a file, or an HLS playlist).
pub(super) fn entries(path: &Path) -> Option<std::io::Result<Vec<PathBuf>>> {
    use std::io::Read;
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    if !PLAYLIST_EXTENSIONS.contains(&extension.as_str()) || !path.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(PLAYLIST_BYTES + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return Some(Err(e));
    }
    if bytes.len() as u64 > PLAYLIST_BYTES {
        let message = format!("more than {} MB: not a playlist", PLAYLIST_BYTES >> 20);
        return Some(Err(std::io::Error::other(message)));
    }
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.contains("#EXT-X-") {
        return None;
    }
    let lines: Vec<&str> = match extension.as_str() {
        // `File1=...`, `File2=...` in a `[playlist]` section.
        "pls" => (text.lines())
            .filter_map(|line| line.split_once('='))
            .filter(|(key, _)| key.trim().to_ascii_lowercase().starts_with("file"))
            .map(|(_, value)| value)
            .collect(),
        _ => text
            .lines()
            .filter(|line| !line.trim_start().starts_with('#'))
            .collect(),
    };
    let folder = path.parent().unwrap_or(Path::new(""));
    let entry = |line: &str| -> Option<PathBuf> {
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        Some(match line.strip_prefix("file://") {
            Some(file) => PathBuf::from(percent_decoded(file)),
            None if line.contains("://") => PathBuf::from(line),
            None => folder.join(line),
        })
    };
    Some(Ok(lines.into_iter().filter_map(entry).collect()))
}

/// A URL's path with its `%XX` escapes decoded (a malformed one kept as it is).
fn percent_decoded(text: &str) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    std::ffi::OsString::from_vec(out)
}
