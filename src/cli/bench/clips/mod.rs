//! Benchmark clips made with FFmpeg's libraries alone, for machines without the `ffmpeg` CLI: a video
//! looped by stream copy into a long file, or re-encoded by libx264 at a chosen size, rate and GOP.

mod copy;
mod encode;

pub use copy::loop_copy;
pub use encode::{encode_clip, ClipCodec, ClipSpec, FieldFirst};

use ffmpeg::format::context::{Input, Output};
use ffmpeg_next as ffmpeg;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ClipMakeError {
    #[error("cannot open '{path}': {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("'{0}' has no video stream")]
    NoVideo(PathBuf),
    #[error("'{0}' has no video frames")]
    NoFrames(PathBuf),
    #[error("cannot read '{path}': {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("cannot write '{path}': {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("'{0}' would be both the input and the output")]
    SameFile(PathBuf),
    #[error("this FFmpeg has no {0} encoder")]
    NoEncoder(&'static str),
    #[error("{0}")]
    BadRequest(String),
}

fn open_input(path: &Path) -> Result<Input, ClipMakeError> {
    let open_error = |reason: String| ClipMakeError::Open {
        path: path.to_owned(),
        reason,
    };
    ffmpeg::init().map_err(|e| open_error(e.to_string()))?;
    // (x264 would print its statistics on the terminal.)
    crate::video::ffmpeg_log::quiet();
    if path.is_dir() {
        return Err(open_error("it is a directory".into()));
    }
    ffmpeg::format::input(path).map_err(|e| open_error(e.to_string()))
}

/// The output file, in the container its extension names.
fn create_output(input: &Path, output: &Path) -> Result<Output, ClipMakeError> {
    let same = matches!(
        (input.canonicalize(), output.canonicalize()),
        (Ok(a), Ok(b)) if a == b
    );
    if same {
        return Err(ClipMakeError::SameFile(output.to_owned()));
    }
    ffmpeg::format::output(output).map_err(|e| {
        let reason = match e {
            ffmpeg::Error::Other { errno } if errno == ffmpeg::error::EINVAL => {
                "FFmpeg has no container for its extension".to_string()
            }
            e => e.to_string(),
        };
        write_error(output, reason)
    })
}

/// Removes a half-written output when making it fails, so that no broken clip is left behind
/// to be benchmarked.
struct Unfinished<'a>(Option<&'a Path>);

impl Unfinished<'_> {
    fn done(mut self) {
        self.0 = None;
    }
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if let Some(path) = self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn write_error(path: &Path, reason: impl ToString) -> ClipMakeError {
    ClipMakeError::Write {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

fn read_error(path: &Path, reason: impl ToString) -> ClipMakeError {
    ClipMakeError::Read {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}
