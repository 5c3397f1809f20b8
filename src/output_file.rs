//! A file a command writes whole or not at all. It is written beside its name and renamed over
//! it once whole, so a run that fails or is stopped leaves the file of that name as it was.
//! Only a plain file, or no file, is replaced so; a link to a plain file has the file it names
//! replaced so, and stays a link. A device (`-o /dev/null`), a pipe, a socket or a link to one
//! is written through as it is: a rename would put a plain file in its place, and the system's
//! `/dev/null` with it when the command runs as root.

use std::path::{Path, PathBuf};

/// Where one output file is written until it is whole.
pub struct OutputFile {
    path: PathBuf,
    written: PathBuf,
}

impl OutputFile {
    /// The file `path`, written beside it where it is a plain file or not there (beside the
    /// file it names, where it is a link to one), else through.
    pub fn new(path: &Path) -> Self {
        let plain = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.file_type().is_file());
        let path = match plain(path) {
            // A link: the file it names, where that is a plain file.
            Ok(false) => match std::fs::canonicalize(path) {
                Ok(named) if plain(&named).unwrap_or(false) => named,
                _ => return Self::through(path),
            },
            _ => path.to_owned(),
        };
        Self {
            written: partial_path(&path),
            path,
        }
    }

    /// The file `path`, always written through (a muxer that names its own files).
    pub fn through(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            written: path.to_owned(),
        }
    }

    /// Where the bytes go until [`OutputFile::finish`].
    pub fn written(&self) -> &Path {
        &self.written
    }

    /// Whether the bytes go to a file beside the name, not through it.
    pub fn beside(&self) -> bool {
        self.written != self.path
    }

    /// Puts the whole file in place of the name.
    pub fn finish(self) -> std::io::Result<()> {
        match self.beside() {
            true => std::fs::rename(&self.written, &self.path).inspect_err(|_| {
                let _ = std::fs::remove_file(&self.written);
            }),
            false => Ok(()),
        }
    }

    /// Takes away what was written beside the name; a file written through stays.
    pub fn abandon(self) {
        if self.beside() {
            let _ = std::fs::remove_file(&self.written);
        }
    }

    /// Puts the file in place where the writing of it (`written`) succeeded, else takes it
    /// away (`finish`, `abandon`); the writing's result, or the rename's error.
    pub fn settle<T, E: From<std::io::Error>>(self, written: Result<T, E>) -> Result<T, E> {
        match written {
            Ok(value) => self.finish().map(|()| value).map_err(E::from),
            Err(e) => {
                self.abandon();
                Err(e)
            }
        }
    }

    /// Writes `bytes` as the whole file `path`.
    pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let file = Self::new(path);
        let written = std::fs::write(file.written(), bytes);
        file.settle(written)
    }
}

/// The file `path` is written into before it is renamed over `path`: its name and this
/// process's number, so two runs writing one name don't write into each other's.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".part-{}", std::process::id()));
    partial.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("histoplay-output-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_plain_file_is_replaced_whole_and_kept_when_the_write_is_abandoned() {
        let dir = folder("plain");
        let path = dir.join("report.xml");
        std::fs::write(&path, b"old").unwrap();
        let file = OutputFile::new(&path);
        assert_eq!(file.written(), partial_path(&path));
        std::fs::write(file.written(), b"half").unwrap();
        file.abandon();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        OutputFile::write(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_stays_a_link_and_a_pipe_and_a_device_are_written_through() {
        let dir = folder("through");
        let target = dir.join("target.xml");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.join("link.xml");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        // The file the link names is replaced whole, or kept as it was.
        let file = OutputFile::new(&link);
        assert!(file.beside());
        std::fs::write(file.written(), b"half").unwrap();
        file.abandon();
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        OutputFile::write(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        // A link that names nothing yet is written through.
        let dangling = dir.join("dangling.xml");
        std::os::unix::fs::symlink(dir.join("made.xml"), &dangling).unwrap();
        OutputFile::write(&dangling, b"made").unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(dir.join("made.xml")).unwrap(), b"made");

        // (Nothing is written to them here: a pipe waits for its reader.)
        let pipe = dir.join("pipe");
        assert!(std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap()
            .success());
        for path in [pipe.as_path(), Path::new("/dev/null")] {
            let file = OutputFile::new(path);
            assert_eq!(file.written(), path);
            file.abandon();
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
        assert!(std::fs::symlink_metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
