//! Still images as RGBA8 frames: a picture is a one-frame video. PNG, JPEG, WebP, TIFF, BMP and
//! GIF (its first frame) are read here; other pictures FFmpeg reads (AVIF, EXR ...) go through
//! the video path. Samples deeper than 8 bits (16-bit PNG and TIFF) are rounded to 8 bits:
//! round(c · 255 / 65535), but for deep grey, which goes the video path too.

use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum StillError {
    #[error("cannot open '{path}': {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("'{0}' is a directory, not a file")]
    Directory(PathBuf),
    #[error("'{path}' is not an image histoplay can read: {reason}")]
    Decode { path: PathBuf, reason: String },
}

/// A decoded picture, tightly packed RGBA8, top row first.
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// The pixels as packed RGBA8 words (red in the low byte), as the GPU holds them.
    pub fn words(&self) -> Vec<u32> {
        self.pixels
            .chunks_exact(4)
            .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
            .collect()
    }
}

/// Whether a file's contents are in an image format histoplay decodes itself. Grey deeper than
/// 8 bits (16-bit grey PNG and TIFF) is not: FFmpeg reads it, so that it is counted at 10 bits
/// and converted as FFmpeg converts grey (see `video::convert::GreyMap`).
pub fn is_still_image(path: &Path) -> bool {
    use image::ImageDecoder;
    let Ok(reader) = image::ImageReader::open(path).and_then(|r| r.with_guessed_format()) else {
        return false;
    };
    if !reader.format().is_some_and(|f| f.reading_enabled()) {
        return false;
    }
    let deep_grey = reader
        .into_decoder()
        .is_ok_and(|decoder| matches!(decoder.color_type(), image::ColorType::L16 | image::ColorType::La16));
    !deep_grey
}

pub fn load(path: &Path) -> Result<RgbaImage, StillError> {
    if path.is_dir() {
        return Err(StillError::Directory(path.to_owned()));
    }
    let reader = image::ImageReader::open(path)
        .and_then(|r| r.with_guessed_format())
        .map_err(|source| StillError::Open {
            path: path.to_owned(),
            source,
        })?;
    let decoded = reader.decode().map_err(|e| StillError::Decode {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let rgba = decoded.to_rgba8();
    Ok(RgbaImage {
        width: rgba.width(),
        height: rgba.height(),
        pixels: rgba.into_raw(),
    })
}

/// Writes RGBA8 pixels as a PNG.
pub fn save_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), image::ImageError> {
    image::save_buffer(path, rgba, width, height, image::ExtendedColorType::Rgba8)
}
