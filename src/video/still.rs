//! Still images as RGBA8 frames: a picture is a one-frame video. PNG, JPEG, WebP, TIFF, BMP and
//! GIF are read here; other pictures FFmpeg reads (AVIF, EXR ...) and animated GIF and PNG go
//! through the video path (FFmpeg's `gif` and `apng` demuxers play them). An animated WebP, whose
//! animation FFmpeg 5.1 does not decode, is read here as its first picture, with a warning.
//! Pictures of samples deeper than 8 bits (16-bit PNG and TIFF) go through the video path too,
//! counted at 10 bits.

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
    /// Past the pixels or the memory a picture may take here (FFmpeg is not asked either).
    #[error("'{path}' is not an image histoplay can read: {reason}")]
    TooLarge { path: PathBuf, reason: String },
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

/// Whether a file's contents are in an image format histoplay decodes itself. Samples deeper
/// than 8 bits (16-bit PNG and TIFF) are not: FFmpeg reads them, so that they are counted at 10
/// bits, as the window shows them and `report` measures them, and grey is converted as FFmpeg
/// converts it (see `video::convert::GreyMap`).
pub fn is_still_image(path: &Path) -> bool {
    use image::ImageDecoder;
    let Some((reader, format)) = picture_reader(path) else {
        return false;
    };
    if matches!(format, image::ImageFormat::Gif | image::ImageFormat::Png) && animated(path, format) {
        return false;
    }
    match reader.into_decoder() {
        Ok(decoder) => !matches!(
            decoder.color_type(),
            image::ColorType::L16 | image::ColorType::La16 | image::ColorType::Rgb16 | image::ColorType::Rgba16
        ),
        // One past the memory limits stays here: `load` says so.
        Err(image::ImageError::Limits(_)) => true,
        // A kind of picture the image crate doesn't decode (a TIFF of Y'CbCr samples, FFmpeg's
        // own default), or a header it refuses in a file that starts as a picture does (a
        // lossless or 12-bit JPEG), is FFmpeg's to read (as players do, damage and all), or to
        // say why not. A file only named as a picture stays here: `load` says it is none.
        Err(image::ImageError::Unsupported(_)) => false,
        Err(_) => !starts_as_picture(path),
    }
}

/// The picture at `path` read here, or `None` where it is FFmpeg's to read: where
/// `is_still_image` says so, and where the image crate refuses its pixels after its header (a
/// PNG whose checksum is wrong, a JPEG whose data is damaged), which FFmpeg reads as players
/// do, damage and all, or says why not. A file only named as a picture, or one too large, is
/// an error here.
pub fn read(path: &Path) -> Result<Option<RgbaImage>, StillError> {
    if !is_still_image(path) {
        return Ok(None);
    }
    // A JPEG cut short decodes here without a word, its missing blocks made up; FFmpeg makes
    // them up too (as the window and `report` show it), and says so.
    if jpeg_ends_early(path) {
        log::warn!(
            "{}: the picture's data ends early (no end after its last scan): read as FFmpeg reads it",
            path.display()
        );
        return Ok(None);
    }
    match load(path) {
        Err(StillError::Decode { reason, .. }) if starts_as_picture(path) => {
            log::warn!("{}: its picture is read as FFmpeg reads it ({reason})", path.display());
            Ok(None)
        }
        read => read.map(Some),
    }
}

/// Whether `path` is a JPEG whose last scan has no end of image after it (a file cut short).
/// Markers can't occur inside a scan's coded data (an 0xFF there is followed by 0 or a restart
/// marker), so the last start of scan is the last scan's.
fn jpeg_ends_early(path: &Path) -> bool {
    const START_OF_SCAN: [u8; 2] = [0xff, 0xda];
    const END_OF_IMAGE: [u8; 2] = [0xff, 0xd9];
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    if image::guess_format(&bytes).ok() != Some(image::ImageFormat::Jpeg) {
        return false;
    }
    let Some(scan) = bytes.windows(2).rposition(|w| w == START_OF_SCAN) else {
        // (No scan at all: the decoder says what is wrong.)
        return false;
    };
    !bytes[scan..].windows(2).any(|w| w == END_OF_IMAGE)
}

/// Whether the file at `path` starts with a picture format's signature.
fn starts_as_picture(path: &Path) -> bool {
    use std::io::Read;
    let mut start = Vec::with_capacity(64);
    std::fs::File::open(path).is_ok_and(|f| f.take(64).read_to_end(&mut start).is_ok())
        && image::guess_format(&start).is_ok()
}

/// Whether the GIF, PNG or WebP at `path` holds more than one picture (false for other formats,
/// and where it can't be read: the decoder that reads it says why).
pub fn animated(path: &Path, format: image::ImageFormat) -> bool {
    use image::AnimationDecoder;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let file = std::io::BufReader::new(file);
    match format {
        // (Its frames are made on a canvas of the picture's size: none past the pixels a
        // picture may have, which `load` refuses, saying so.)
        image::ImageFormat::Gif => image::codecs::gif::GifDecoder::new(file).is_ok_and(|gif| {
            let (width, height) = image::ImageDecoder::dimensions(&gif);
            u64::from(width) * u64::from(height) <= MAX_PIXELS && gif.into_frames().take(2).count() == 2
        }),
        image::ImageFormat::Png => {
            image::codecs::png::PngDecoder::new(file).is_ok_and(|png| png.is_apng().unwrap_or(false))
        }
        image::ImageFormat::WebP => image::codecs::webp::WebPDecoder::new(file).is_ok_and(|webp| webp.has_animation()),
        _ => false,
    }
}

/// Whether `path` is an animated WebP (which FFmpeg 5.1 can't decode).
pub fn is_animated_webp(path: &Path) -> bool {
    let format = image::ImageReader::open(path)
        .and_then(|r| r.with_guessed_format())
        .ok()
        .and_then(|r| r.format());
    format == Some(image::ImageFormat::WebP) && animated(path, image::ImageFormat::WebP)
}

/// The most pixels a picture read here may have (its decoding may take 8 bytes a pixel, at 16
/// bits a sample, before its 4 a pixel as RGBA8).
const MAX_PIXELS: u64 = 1 << 28;

pub fn load(path: &Path) -> Result<RgbaImage, StillError> {
    if path.is_dir() {
        return Err(StillError::Directory(path.to_owned()));
    }
    let open = || {
        image::ImageReader::open(path)
            .and_then(|r| r.with_guessed_format())
            .map_err(|source| StillError::Open {
                path: path.to_owned(),
                source,
            })
    };
    let undecodable = |e: image::ImageError| match e {
        image::ImageError::Limits(_) => StillError::TooLarge {
            path: path.to_owned(),
            reason: e.to_string(),
        },
        _ => StillError::Decode {
            path: path.to_owned(),
            reason: e.to_string(),
        },
    };
    // The size from the header, before a pixel is decoded.
    let (width, height) = open()?.into_dimensions().map_err(undecodable)?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(StillError::TooLarge {
            path: path.to_owned(),
            reason: format!(
                "it is {width}x{height}, more than the {MAX_PIXELS} pixels (16384x16384) a picture may have"
            ),
        });
    }
    let mut reader = open()?;
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_PIXELS * 8);
    reader.limits(limits);
    // Turned (and flipped) as its EXIF orientation says: a phone's portrait photo upright.
    let mut decoder = reader.into_decoder().map_err(undecodable)?;
    let orientation =
        image::ImageDecoder::orientation(&mut decoder).unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut decoded = image::DynamicImage::from_decoder(decoder).map_err(undecodable)?;
    decoded.apply_orientation(orientation);
    if is_animated_webp(path) {
        log::warn!("{}: an animated WebP: only its first picture is read", path.display());
    }
    let rgba = decoded.to_rgba8();
    Ok(RgbaImage {
        width: rgba.width(),
        height: rgba.height(),
        pixels: rgba.into_raw(),
    })
}

/// A reader of the picture at `path` and its format, where it is a file in a format the image
/// crate reads.
fn picture_reader(
    path: &Path,
) -> Option<(
    image::ImageReader<std::io::BufReader<std::fs::File>>,
    image::ImageFormat,
)> {
    // (A FIFO or a device is read as a stream; opening one here could wait for its writer.)
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let reader = image::ImageReader::open(path)
        .and_then(|r| r.with_guessed_format())
        .ok()?;
    let format = reader.format().filter(|f| f.reading_enabled())?;
    Some((reader, format))
}

/// The clockwise quarter turns a still picture's EXIF orientation asks for (its flips left
/// out), for pictures FFmpeg reads (which shows them as stored): 0 where it has none, or
/// where `path` is no picture the image crate reads.
pub fn orientation_turns(path: &Path) -> u32 {
    use image::metadata::Orientation;
    let Some(Ok(mut decoder)) = picture_reader(path).map(|(reader, _)| reader.into_decoder()) else {
        return 0;
    };
    match image::ImageDecoder::orientation(&mut decoder) {
        Ok(Orientation::Rotate90 | Orientation::Rotate90FlipH) => 1,
        Ok(Orientation::Rotate180 | Orientation::FlipVertical) => 2,
        Ok(Orientation::Rotate270 | Orientation::Rotate270FlipH) => 3,
        _ => 0,
    }
}

/// Whether `save_image` writes a picture named `path` (its name ends with one of the formats it
/// writes), asked before a run that writes it at its end.
pub fn check_image_name(path: &Path) -> Result<(), String> {
    use image::ImageFormat::{Bmp, Gif, Jpeg, Png, Tiff, WebP};
    match image::ImageFormat::from_path(path) {
        Ok(Png | Jpeg | WebP | Tiff | Bmp | Gif) => Ok(()),
        _ => Err(format!(
            "'{}' can't be written: a picture's name ends with .png, .jpg, .webp, .tiff, .bmp or .gif",
            path.display()
        )),
    }
}

/// Whether a picture named `path` of `width` x `height` fits its format (JPEG and GIF hold at
/// most 65535 pixels a side, WebP 16383), asked before a run that writes it at its end.
pub fn check_image_size(path: &Path, (width, height): (u32, u32)) -> Result<(), String> {
    use image::ImageFormat::{Gif, Jpeg, WebP};
    let (most, name) = match image::ImageFormat::from_path(path) {
        Ok(Jpeg) => (65535, "JPEG"),
        Ok(Gif) => (65535, "GIF"),
        Ok(WebP) => (16383, "WebP"),
        _ => return Ok(()),
    };
    match width.max(height) {
        side if side > most => Err(format!(
            "'{}' can't be written: a {name} picture is at most {most} pixels a side, not {width}x{height}",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// JPEG's quality for pictures written (mpv's `screenshot-jpeg-quality`): the histograms' and
/// scopes' thin lines stay sharp.
const JPEG_QUALITY: u8 = 90;

/// Writes RGBA8 pixels as an image in the format the file's extension names (PNG, JPEG, WebP,
/// TIFF, BMP, GIF); JPEG, which has no alpha, gets the colour alone. The image is encoded first
/// and then put in place by a rename (`OutputFile`): a write that fails leaves no file behind,
/// and a file of that name as it was.
pub fn save_image(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), image::ImageError> {
    use image::{ExtendedColorType, ImageEncoder, ImageError, ImageFormat};
    let format = ImageFormat::from_path(path)?;
    let mut encoded = Vec::new();
    if format == ImageFormat::Jpeg {
        let rgb: Vec<u8> = rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut encoded, JPEG_QUALITY);
        encoder.write_image(&rgb, width, height, ExtendedColorType::Rgb8)?;
    } else {
        let mut cursor = std::io::Cursor::new(&mut encoded);
        image::write_buffer_with_format(&mut cursor, rgba, width, height, ExtendedColorType::Rgba8, format)?;
    }
    crate::output_file::OutputFile::write(path, &encoded).map_err(ImageError::IoError)
}

#[cfg(test)]
mod tests {
    use super::check_image_size;
    use std::path::Path;

    #[test]
    fn pictures_too_large_for_their_format_are_refused_before_a_run() {
        assert!(check_image_size(Path::new("t.jpg"), (65535, 16)).is_ok());
        assert_eq!(
            check_image_size(Path::new("t.jpg"), (65536, 16)),
            Err("'t.jpg' can't be written: a JPEG picture is at most 65535 pixels a side, not 65536x16".into())
        );
        assert!(check_image_size(Path::new("t.gif"), (16, 65536)).is_err());
        assert!(check_image_size(Path::new("t.webp"), (16384, 16)).is_err());
        assert!(check_image_size(Path::new("t.webp"), (16383, 16383)).is_ok());
        assert!(check_image_size(Path::new("t.png"), (65536, 4096)).is_ok());
    }
}
