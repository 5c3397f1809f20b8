//! What the rest of histoplay knows of a stream: its [`VideoInfo`] (codec, format, colour,
//! timing, chapters) and the [`FrameShape`] that can change mid-stream.

use crate::colour::{ColorVolume, LogEncoding};
use crate::video::format::{FrameFormat, FrameLight};
use std::path::PathBuf;

/// What the rest of histoplay needs to know about the stream.
#[derive(Clone, Debug)]
pub struct VideoInfo {
    pub path: PathBuf,
    pub codec: String,
    /// The decoder's pixel format, before any conversion.
    pub pixel_format: String,
    /// The hardware decoder in use (`cuda`, `vaapi`), None for software decoding.
    pub hwdec: Option<&'static str>,
    /// The frames' layout after conversion (what gets uploaded), size and colour.
    pub format: FrameFormat,
    /// Transfer, primaries and peak light: how the picture is shown.
    pub volume: ColorVolume,
    /// The range the frames are taken as decoded, before any conversion (`format`'s, unless
    /// `compare` converts them into another file's; a `yuvj` format is full whatever this says).
    pub decoded_range: crate::colour::Range,
    /// The peak light the frames' own side data gives, for streams whose container says none.
    pub frame_light: FrameLight,
    pub time_base: (i32, i32),
    /// Seconds per frame, from the stream's average rate (for step sizes and displays).
    pub frame_duration: f64,
    /// Duration in seconds, as the container states it (0 when it doesn't).
    pub duration: f64,
    /// Pts of the stream's first frame as the container states it, if it does.
    pub start_pts: Option<i64>,
    /// Clockwise quarter turns the picture is shown with (its display matrix).
    pub quarter_turns: u32,
    /// Display aspect ratio (width / height) after sample aspect and rotation.
    pub display_aspect: f32,
    /// The container's chapters, in order.
    pub chapters: Vec<Chapter>,
    /// The camera log encoding the stream's or container's metadata names, if any.
    pub log: Option<LogEncoding>,
    /// A live input (a stream, a pipe, a device): read once as it arrives, no end known.
    pub live: bool,
    /// The stream's field order as its codec parameters state it, in ffprobe's words:
    /// `progressive`, `tt`, `bb`, `tb`, `bt` or `unknown`.
    pub field_order: &'static str,
    /// The picture is a song's cover (an attached picture), beside sound: a file of sound.
    pub cover_art: bool,
    /// One picture (a PNG, a JPEG: not a numbered sequence of them), not a video: it has no
    /// rate of its own.
    pub still: bool,
    /// The colour the stream is tagged with (`format` and `volume` say how it is read).
    pub colour_tags: ColourTags,
    /// The container's timecode of the first frame, as ffprobe prints its `timecode` tag (a
    /// QuickTime timecode track's, MXF's, an MPEG-2 stream's first GOP's): `10:00:00:00`.
    pub timecode_tag: Option<String>,
}

/// The colour a stream is tagged with, in FFmpeg's words as ffprobe prints them
/// (`color_primaries`, `color_transfer`, `color_space`, `color_range`): `unknown` where the
/// stream says nothing, and histoplay reads it by the picture's size, as mpv does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColourTags {
    pub primaries: &'static str,
    pub transfer: &'static str,
    pub matrix: &'static str,
    pub range: &'static str,
}

impl Default for ColourTags {
    fn default() -> Self {
        Self {
            primaries: UNKNOWN,
            transfer: UNKNOWN,
            matrix: UNKNOWN,
            range: UNKNOWN,
        }
    }
}

const UNKNOWN: &str = "unknown";

impl ColourTags {
    pub fn of(
        primaries: ffmpeg_next::color::Primaries,
        transfer: ffmpeg_next::color::TransferCharacteristic,
        matrix: ffmpeg_next::color::Space,
        range: ffmpeg_next::color::Range,
    ) -> Self {
        Self {
            primaries: primaries.name().unwrap_or(UNKNOWN),
            transfer: transfer.name().unwrap_or(UNKNOWN),
            matrix: matrix.name().unwrap_or(UNKNOWN),
            range: range.name().unwrap_or(UNKNOWN),
        }
    }

    /// Each tag with its name, in ffprobe's order.
    pub fn named(&self) -> [(&'static str, &'static str); 4] {
        [
            ("primaries", self.primaries),
            ("transfer", self.transfer),
            ("matrix", self.matrix),
            ("range", self.range),
        ]
    }

    /// Whether the stream leaves any of them untold.
    pub fn any_unknown(&self) -> bool {
        self.named().iter().any(|(_, tag)| *tag == UNKNOWN)
    }
}

/// A chapter mark: where it starts (seconds on the stream's clock, as pts are) and its title.
#[derive(Clone, Debug, PartialEq)]
pub struct Chapter {
    pub start: f64,
    pub title: Option<String>,
}

/// What a stream's frames look like, where that can change mid-stream (a live input's
/// picture changing size or sampling, with `follow_format_changes`).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameShape {
    pub format: FrameFormat,
    pub display_aspect: f32,
    /// The decoder's pixel format, before any conversion.
    pub pixel_format: String,
}

impl VideoInfo {
    /// The frames' shape as they are now.
    pub fn shape(&self) -> FrameShape {
        FrameShape {
            format: self.format,
            display_aspect: self.display_aspect,
            pixel_format: self.pixel_format.clone(),
        }
    }

    /// Describes frames of `shape` from now on.
    pub fn reshape(&mut self, shape: &FrameShape) {
        self.format = shape.format;
        self.display_aspect = shape.display_aspect;
        self.pixel_format.clone_from(&shape.pixel_format);
    }

    /// The picture's size as it is shown: widened (or narrowed) by its sample aspect ratio and
    /// turned by its display matrix, its rows kept as they are (the screen's columns, where it
    /// is turned).
    pub fn display_size(&self) -> (u32, u32) {
        let h = self.format.height.max(1);
        let aspect = f64::from(self.display_aspect.max(1e-3));
        let across = |by: f64| ((f64::from(h) * by).round() as u32).max(1);
        match self.quarter_turns % 2 {
            0 => (across(aspect), h),
            _ => (h, across(1.0 / aspect)),
        }
    }

    pub fn seconds(&self, pts: i64) -> f64 {
        pts as f64 * f64::from(self.time_base.0) / f64::from(self.time_base.1)
    }

    /// The pts of the tick a time falls in (rounded down: a time inside a frame's display
    /// interval belongs to that frame).
    pub fn pts_at(&self, seconds: f64) -> i64 {
        (seconds * f64::from(self.time_base.1) / f64::from(self.time_base.0) + 1e-6).floor() as i64
    }
}
