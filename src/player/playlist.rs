//! The playlist: the files named on the command line (folders expanded to the media files in
//! them, in natural order; playlist files, M3U and PLS, to the entries they list) or dropped on
//! the window, and which one is playing.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

/// Extensions of the video containers, raw streams and still images FFmpeg reads for histoplay
/// (lowercase). Audio-only formats are left out: they have no picture to show.
#[rustfmt::skip]
const MEDIA_EXTENSIONS: &[&str] = &[
    // Containers.
    "mp4", "m4v", "mov", "qt", "mkv", "mk3d", "webm", "avi", "divx", "ts", "m2ts", "mts", "m2t",
    "mpg", "mpeg", "mpe", "m1v", "m2v", "vob", "evo", "flv", "f4v", "wmv", "asf", "ogv", "ogg",
    "ogm", "3gp", "3g2", "mxf", "nut", "y4m", "dv", "dif", "rm", "rmvb", "wtv", "gxf", "nsv",
    "amv", "mjpeg", "mjpg",
    // Raw elementary streams.
    "hevc", "h265", "265", "h264", "264", "avc", "ivf", "obu", "av1", "vc1",
    // Still images.
    "png", "apng", "jpg", "jpeg", "jpe", "jfif", "bmp", "dib", "tif", "tiff", "webp", "gif",
    "exr", "tga", "dpx", "hdr", "pnm", "ppm", "pgm", "pbm", "pam", "qoi", "jxl", "avif", "j2k",
    "jp2", "sgi", "pcx", "xwd",
];

/// What the command line's paths expand to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The files to play, in order.
    pub files: Vec<PathBuf>,
    /// One line per folder that added nothing, for the log.
    pub warnings: Vec<String>,
}

/// Expands folders among `args` to the media files directly inside them (hidden files and
/// subfolders skipped), in natural order, and playlist files to their entries (each expanded
/// the same way; relative ones from the playlist's folder). Other paths are kept as given, in
/// argument order, even with an unknown extension or when they don't exist: opening them
/// reports what is wrong.
pub fn expand(args: &[PathBuf]) -> Expanded {
    let mut expanded = Expanded::default();
    for arg in args {
        expand_into(arg, &mut Vec::new(), &mut expanded);
    }
    expanded
}

/// Expands `arg` onto `expanded`, inside the playlists `within` (canonical paths): a playlist
/// that lists one of those is passed over, with a warning.
fn expand_into(arg: &Path, within: &mut Vec<PathBuf>, expanded: &mut Expanded) {
    let warn = |expanded: &mut Expanded, what: String| expanded.warnings.push(format!("'{}' {what}", arg.display()));
    if arg.is_dir() {
        match media_in_folder(arg) {
            Ok(files) if files.is_empty() => warn(expanded, "has no video files".into()),
            Ok(files) => expanded.files.extend(files),
            Err(e) => expanded.warnings.push(format!("cannot read '{}': {e}", arg.display())),
        }
        return;
    }
    let Some(entries) = super::playlist_file::entries(arg) else {
        expanded.files.push(arg.to_path_buf());
        return;
    };
    let key = std::fs::canonicalize(arg).unwrap_or_else(|_| arg.to_path_buf());
    match entries {
        _ if within.contains(&key) => warn(expanded, "is listed inside itself: passed over there".into()),
        Err(e) => expanded.warnings.push(format!("cannot read '{}': {e}", arg.display())),
        Ok(entries) if entries.is_empty() => warn(expanded, "lists no files".into()),
        Ok(entries) => {
            within.push(key);
            for entry in entries {
                expand_into(&entry, within, expanded);
            }
            within.pop();
        }
    }
}

/// The media files directly inside `folder`, in natural order of their names.
fn media_in_folder(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        let hidden = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with('.'));
        // `is_file` follows links, so a link to a clip counts and a broken one doesn't.
        if !hidden && path.is_file() && is_media_file(&path) {
            files.push(path);
        }
    }
    files.sort_by(|a, b| {
        let name = |p: &Path| p.file_name().unwrap_or_default().to_string_lossy().into_owned();
        natural_cmp(&name(a), &name(b)).then_with(|| a.cmp(b))
    });
    Ok(files)
}

/// Whether `path`'s extension (in any case) is one of a video or a still image.
pub fn is_media_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MEDIA_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// A piece of a name as natural ordering sees it.
#[derive(Clone, Copy)]
enum Piece<'a> {
    /// A run of ASCII digits, compared by value.
    Number(&'a str),
    /// Any other character, compared without case.
    Char(char),
}

/// Splits a name into runs of ASCII digits and single other characters.
fn pieces(s: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let len = if first.is_ascii_digit() {
            rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())
        } else {
            first.len_utf8()
        };
        let (piece, tail) = rest.split_at(len);
        rest = tail;
        Some(if first.is_ascii_digit() {
            Piece::Number(piece)
        } else {
            Piece::Char(first)
        })
    })
}

/// Orders names as file managers do: runs of digits by their value ("ep2" before "ep10"), of
/// any length, and other characters without regard to case ("a", "B", "c"). Names equal so far
/// put the one whose first differing number has fewer leading zeros first ("img7" before
/// "img007"), then fall back on the exact strings, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let mut zeros = Ordering::Equal;
    let (mut a_pieces, mut b_pieces) = (pieces(a), pieces(b));
    loop {
        let ordering = match (a_pieces.next(), b_pieces.next()) {
            (None, None) => break,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(Piece::Number(x)), Some(Piece::Number(y))) => {
                let (x_value, y_value) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                // Without the leading zeros, a longer run is a larger number.
                let ordering = x_value.len().cmp(&y_value.len()).then_with(|| x_value.cmp(y_value));
                if zeros == Ordering::Equal {
                    zeros = (x.len() - x_value.len()).cmp(&(y.len() - y_value.len()));
                }
                ordering
            }
            // A number sorts where its first digit would among the other characters.
            (Some(Piece::Number(x)), Some(Piece::Char(y))) => x.chars().take(1).cmp(y.to_lowercase()),
            (Some(Piece::Char(x)), Some(Piece::Number(y))) => x.to_lowercase().cmp(y.chars().take(1)),
            (Some(Piece::Char(x)), Some(Piece::Char(y))) => x.to_lowercase().cmp(y.to_lowercase()),
        };
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    zeros.then_with(|| a.cmp(b))
}

/// The files to play and which one is playing.
#[derive(Clone, Debug, Default)]
pub struct Playlist {
    files: Vec<PathBuf>,
    index: usize,
    /// Whether moving past either end wraps around to the other (`--loop-playlist`).
    pub loop_playlist: bool,
}

impl Playlist {
    /// A playlist at its first file.
    pub fn new(files: Vec<PathBuf>, loop_playlist: bool) -> Self {
        Self {
            files,
            index: 0,
            loop_playlist,
        }
    }

    /// The file playing, if there is any.
    pub fn current(&self) -> Option<&Path> {
        self.files.get(self.index).map(PathBuf::as_path)
    }

    /// Where the file playing is in the list.
    pub fn index(&self) -> usize {
        self.index
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The files in playing order.
    pub fn entries(&self) -> &[PathBuf] {
        &self.files
    }

    /// Moves to the next file and returns its index; past the last, wraps to the first only when
    /// looping, else stays and returns `None` (the end of the playlist).
    #[allow(clippy::should_implement_trait)] // A cursor that may wrap forever, not an iterator.
    pub fn next(&mut self) -> Option<usize> {
        if self.index + 1 < self.files.len() {
            self.index += 1;
        } else if self.loop_playlist && !self.files.is_empty() {
            self.index = 0;
        } else {
            return None;
        }
        Some(self.index)
    }

    /// Moves to the previous file and returns its index; before the first, wraps to the last only
    /// when looping, else stays and returns `None`.
    pub fn prev(&mut self) -> Option<usize> {
        if self.index > 0 {
            self.index -= 1;
        } else if self.loop_playlist && !self.files.is_empty() {
            self.index = self.files.len() - 1;
        } else {
            return None;
        }
        Some(self.index)
    }

    /// Moves to file `index`; returns false, staying where it is, when there is no such file.
    pub fn go_to(&mut self, index: usize) -> bool {
        let exists = index < self.files.len();
        if exists {
            self.index = index;
        }
        exists
    }

    /// Adds files (dropped on the window) at the end; returns the index of the first one added,
    /// `None` when there were none.
    pub fn append(&mut self, paths: impl IntoIterator<Item = PathBuf>) -> Option<usize> {
        let first = self.files.len();
        self.files.extend(paths);
        (self.files.len() > first).then_some(first)
    }

    /// Drops file `index` (one that failed to open). The current file stays the same one when
    /// another is removed; when the current one goes, the file after it takes its place, or the
    /// new last one when it was last. Returns whether any files remain.
    pub fn remove(&mut self, index: usize) -> bool {
        if index < self.files.len() {
            self.files.remove(index);
            if index < self.index {
                self.index -= 1;
            }
            self.index = self.index.min(self.files.len().saturating_sub(1));
        }
        !self.files.is_empty()
    }

    /// The current file's place for the OSD, counting from one: "2/5" ("0/0" when empty).
    pub fn position_label(&self) -> String {
        if self.files.is_empty() {
            "0/0".to_string()
        } else {
            format!("{}/{}", self.index + 1, self.files.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(names: &[&str]) -> Vec<PathBuf> {
        names.iter().map(PathBuf::from).collect()
    }

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        names.sort_by(|a, b| natural_cmp(a, b));
        names
    }

    /// A fresh folder under the system's temporary one, removed when dropped.
    struct TempFolder(PathBuf);

    impl TempFolder {
        fn new(name: &str) -> Self {
            let path = std::env::temp_dir().join(format!(
                "histoplay-playlist-{}-{name}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0)
            ));
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        fn with_files(self, names: &[&str]) -> Self {
            for name in names {
                std::fs::write(self.0.join(name), b"").unwrap();
            }
            self
        }
    }

    impl Drop for TempFolder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(natural_cmp("ep2", "ep10"), Ordering::Less);
        assert_eq!(natural_cmp("ep10", "ep2"), Ordering::Greater);
        assert_eq!(natural_cmp("ep10", "ep10"), Ordering::Equal);
        assert_eq!(
            sorted(&["ep10", "ep1", "ep2", "ep20", "ep3"]),
            ["ep1", "ep2", "ep3", "ep10", "ep20"]
        );
        assert_eq!(
            sorted(&["v1.10", "v1.9", "v1.1", "v10.0"]),
            ["v1.1", "v1.9", "v1.10", "v10.0"]
        );
    }

    #[test]
    fn letters_compare_without_case() {
        assert_eq!(sorted(&["c", "B", "a"]), ["a", "B", "c"]);
        assert_eq!(natural_cmp("Clip", "clip2"), Ordering::Less);
        assert_eq!(natural_cmp("ALPHA", "beta"), Ordering::Less);
    }

    #[test]
    fn names_equal_without_case_fall_back_on_the_exact_strings() {
        assert_eq!(natural_cmp("A", "a"), Ordering::Less);
        assert_eq!(natural_cmp("a", "A"), Ordering::Greater);
        assert_eq!(natural_cmp("Clip1", "clip1"), Ordering::Less);
    }

    #[test]
    fn fewer_leading_zeros_come_first_among_equal_values() {
        assert_eq!(natural_cmp("img7", "img007"), Ordering::Less);
        assert_eq!(natural_cmp("img007", "img7"), Ordering::Greater);
        assert_eq!(natural_cmp("img007", "img8"), Ordering::Less);
        assert_eq!(natural_cmp("img006", "img7"), Ordering::Less);
        // The rest of the name decides before the zeros do.
        assert_eq!(natural_cmp("img007a", "img7b"), Ordering::Less);
        assert_eq!(natural_cmp("0", "00"), Ordering::Less);
        assert_eq!(natural_cmp("00", "000"), Ordering::Less);
        assert_eq!(
            sorted(&["f010", "f9", "f0010", "f10", "f011"]),
            ["f9", "f10", "f010", "f0010", "f011"]
        );
    }

    #[test]
    fn long_runs_of_digits_compare_without_overflow() {
        let (smaller, larger) = ("99999999999999999999", "100000000000000000000");
        assert_eq!(natural_cmp(smaller, larger), Ordering::Less);
        assert_eq!(natural_cmp(larger, smaller), Ordering::Greater);
        assert_eq!(natural_cmp("x0000000000000000000000000001", "x2"), Ordering::Less);
        assert_eq!(
            natural_cmp("123456789012345678901234567890", "123456789012345678901234567891"),
            Ordering::Less
        );
    }

    #[test]
    fn unicode_letters_compare_by_their_lowercase() {
        assert_eq!(natural_cmp("éclair", "Émile"), Ordering::Less);
        assert_eq!(natural_cmp("Émile", "émile"), Ordering::Less);
        assert_eq!(natural_cmp("Ω2", "ω10"), Ordering::Less);
        assert_eq!(sorted(&["Äb", "äa", "äc"]), ["äa", "Äb", "äc"]);
    }

    #[test]
    fn numbers_sort_among_other_characters_by_their_first_digit() {
        assert_eq!(natural_cmp("clip.mp4", "clip1.mp4"), Ordering::Less);
        assert_eq!(natural_cmp("clip1", "clipa"), Ordering::Less);
        assert_eq!(natural_cmp("clip", "clip1"), Ordering::Less);
        assert_eq!(natural_cmp("", "a"), Ordering::Less);
        assert_eq!(natural_cmp("", ""), Ordering::Equal);
    }

    #[test]
    fn media_files_are_known_by_their_extension_in_any_case() {
        for name in ["a.mp4", "b.MKV", "c.WebM", "d.y4m", "e.png", "f.EXR", "g.264", "h.m2ts"] {
            assert!(is_media_file(Path::new(name)), "{name}");
        }
        for name in ["notes.txt", "song.mp3", "song.flac", "sound.wav", "mp4", "noextension"] {
            assert!(!is_media_file(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn a_folder_expands_to_its_media_files_in_natural_order() {
        let folder =
            TempFolder::new("clips").with_files(&["clip10.mp4", "clip2.MKV", "clip1.webm", ".hidden.mp4", "notes.txt"]);
        std::fs::create_dir(folder.0.join("sub")).unwrap();
        std::fs::write(folder.0.join("sub").join("clip0.mp4"), b"").unwrap();

        let expanded = expand(std::slice::from_ref(&folder.0));
        assert_eq!(
            expanded.files,
            [
                folder.0.join("clip1.webm"),
                folder.0.join("clip2.MKV"),
                folder.0.join("clip10.mp4"),
            ]
        );
        assert!(expanded.warnings.is_empty());
    }

    #[test]
    fn a_folder_without_media_files_gives_one_warning() {
        let empty = TempFolder::new("empty");
        let only_text = TempFolder::new("text").with_files(&["readme.txt", ".hidden.mp4"]);
        let expanded = expand(&[empty.0.clone(), only_text.0.clone()]);
        assert!(expanded.files.is_empty());
        assert_eq!(
            expanded.warnings,
            [
                format!("'{}' has no video files", empty.0.display()),
                format!("'{}' has no video files", only_text.0.display()),
            ]
        );
    }

    #[test]
    fn mixed_arguments_keep_their_order() {
        let folder = TempFolder::new("mixed").with_files(&["b2.mov", "b1.mov"]);
        let missing = folder.0.join("missing.mp4");
        let args = vec![
            PathBuf::from("z.mp4"),
            folder.0.clone(),
            PathBuf::from("notes.txt"),
            missing.clone(),
            PathBuf::from("a.mkv"),
        ];
        let expanded = expand(&args);
        assert_eq!(
            expanded.files,
            [
                PathBuf::from("z.mp4"),
                folder.0.join("b1.mov"),
                folder.0.join("b2.mov"),
                PathBuf::from("notes.txt"),
                missing,
                PathBuf::from("a.mkv"),
            ]
        );
        assert!(expanded.warnings.is_empty());
    }

    #[test]
    fn playlist_files_expand_to_their_entries() {
        let folder = TempFolder::new("lists").with_files(&["a.mp4", "b c.mkv", "d.mov"]);
        std::fs::create_dir(folder.0.join("season")).unwrap();
        std::fs::write(folder.0.join("season").join("e2.mp4"), b"").unwrap();
        std::fs::write(folder.0.join("season").join("e1.mp4"), b"").unwrap();
        let m3u = folder.0.join("list.m3u");
        let d = folder.0.join("d.mov");
        let text = format!(
            "\u{feff}#EXTM3U\r\n#EXTINF:12,A\r\na.mp4\r\n\r\n  file://{}/b%20c.mkv \r\nseason\r\nhttps://example.com/live.ts\r\nmore.pls\r\n",
            folder.0.display()
        );
        std::fs::write(&m3u, text).unwrap();
        let pls = format!(
            "[playlist]\nNumberOfEntries=2\nFile1={}\nTitle1=D\nfile2=list.m3u\n",
            d.display()
        );
        std::fs::write(folder.0.join("more.pls"), pls).unwrap();
        let expanded = expand(&[m3u.clone(), PathBuf::from("z.mp4")]);
        assert_eq!(
            expanded.files,
            [
                folder.0.join("a.mp4"),
                folder.0.join("b c.mkv"),
                folder.0.join("season").join("e1.mp4"),
                folder.0.join("season").join("e2.mp4"),
                PathBuf::from("https://example.com/live.ts"),
                d,
                PathBuf::from("z.mp4"),
            ]
        );
        // The PLS lists the M3U that lists it: passed over there.
        assert_eq!(
            expanded.warnings,
            [format!(
                "'{}' is listed inside itself: passed over there",
                m3u.display()
            )]
        );
    }

    #[test]
    fn an_hls_playlist_and_an_empty_one_are_not_expanded() {
        let folder = TempFolder::new("hls");
        let hls = folder.0.join("stream.m3u8");
        std::fs::write(&hls, "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n").unwrap();
        let empty = folder.0.join("empty.m3u");
        std::fs::write(&empty, "#EXTM3U\n").unwrap();
        let expanded = expand(&[hls.clone(), empty.clone()]);
        assert_eq!(expanded.files, [hls]);
        assert_eq!(expanded.warnings, [format!("'{}' lists no files", empty.display())]);
    }

    #[test]
    fn nothing_to_expand_gives_nothing() {
        assert_eq!(expand(&[]), Expanded::default());
    }

    #[test]
    fn next_stops_at_the_end_without_looping() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), false);
        assert_eq!(list.current(), Some(Path::new("a")));
        assert_eq!(list.next(), Some(1));
        assert_eq!(list.next(), Some(2));
        assert_eq!(list.current(), Some(Path::new("c")));
        assert_eq!(list.next(), None);
        assert_eq!(list.index(), 2);
        assert_eq!(list.current(), Some(Path::new("c")));
    }

    #[test]
    fn next_wraps_to_the_first_when_looping() {
        let mut list = Playlist::new(paths(&["a", "b"]), true);
        assert_eq!(list.next(), Some(1));
        assert_eq!(list.next(), Some(0));
        assert_eq!(list.current(), Some(Path::new("a")));
        let mut single = Playlist::new(paths(&["a"]), true);
        assert_eq!(single.next(), Some(0));
    }

    #[test]
    fn prev_stops_at_the_start_without_looping() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), false);
        assert_eq!(list.prev(), None);
        assert_eq!(list.index(), 0);
        assert!(list.go_to(2));
        assert_eq!(list.prev(), Some(1));
        assert_eq!(list.prev(), Some(0));
        assert_eq!(list.prev(), None);
    }

    #[test]
    fn prev_wraps_to_the_last_when_looping() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), true);
        assert_eq!(list.prev(), Some(2));
        assert_eq!(list.current(), Some(Path::new("c")));
        assert_eq!(list.prev(), Some(1));
    }

    #[test]
    fn an_empty_playlist_goes_nowhere() {
        let mut list = Playlist::new(Vec::new(), true);
        assert!(list.is_empty());
        assert_eq!(list.len(), 0);
        assert_eq!(list.current(), None);
        assert_eq!(list.next(), None);
        assert_eq!(list.prev(), None);
        assert!(!list.go_to(0));
        assert!(!list.remove(0));
        assert_eq!(list.position_label(), "0/0");
    }

    #[test]
    fn go_to_moves_only_to_an_existing_file() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), false);
        assert!(list.go_to(2));
        assert_eq!(list.index(), 2);
        assert!(!list.go_to(3));
        assert_eq!(list.index(), 2);
    }

    #[test]
    fn append_returns_the_first_added_index() {
        let mut list = Playlist::new(paths(&["a"]), false);
        assert_eq!(list.append(paths(&["b", "c"])), Some(1));
        assert_eq!(list.entries(), paths(&["a", "b", "c"]).as_slice());
        assert_eq!(list.append(Vec::new()), None);
        assert_eq!(list.index(), 0);

        let mut empty = Playlist::new(Vec::new(), false);
        assert_eq!(empty.append(paths(&["x"])), Some(0));
        assert_eq!(empty.current(), Some(Path::new("x")));
    }

    #[test]
    fn removing_the_current_file_moves_to_the_one_after_it() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), false);
        list.go_to(1);
        assert!(list.remove(1));
        assert_eq!(list.index(), 1);
        assert_eq!(list.current(), Some(Path::new("c")));
        assert_eq!(list.entries(), paths(&["a", "c"]).as_slice());
    }

    #[test]
    fn removing_the_current_last_file_moves_to_the_new_last() {
        let mut list = Playlist::new(paths(&["a", "b", "c"]), true);
        list.go_to(2);
        assert!(list.remove(2));
        assert_eq!(list.index(), 1);
        assert_eq!(list.current(), Some(Path::new("b")));
    }

    #[test]
    fn removing_another_file_keeps_the_current_one() {
        let mut list = Playlist::new(paths(&["a", "b", "c", "d"]), false);
        list.go_to(2);
        assert!(list.remove(0));
        assert_eq!(list.current(), Some(Path::new("c")));
        assert_eq!(list.index(), 1);
        assert!(list.remove(2));
        assert_eq!(list.current(), Some(Path::new("c")));
        assert_eq!(list.entries(), paths(&["b", "c"]).as_slice());
        // An index past the end removes nothing.
        assert!(list.remove(5));
        assert_eq!(list.len(), 2);
    }

    #[test]
    fn removing_the_last_remaining_file_empties_the_playlist() {
        let mut list = Playlist::new(paths(&["a"]), false);
        assert!(!list.remove(0));
        assert!(list.is_empty());
        assert_eq!(list.current(), None);
        assert_eq!(list.index(), 0);
        assert_eq!(list.position_label(), "0/0");
    }

    #[test]
    fn the_position_label_counts_from_one() {
        let mut list = Playlist::new(paths(&["a", "b", "c", "d", "e"]), false);
        assert_eq!(list.position_label(), "1/5");
        list.next();
        assert_eq!(list.position_label(), "2/5");
        list.go_to(4);
        assert_eq!(list.position_label(), "5/5");
    }
}
