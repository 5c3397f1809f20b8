//! Which frame of B (the judged file) goes with each frame of A (the reference): by frame
//! number plus an offset, or by time, each file's times counted from its start (as `ffmpeg
//! -i` counts them and its filters pair two streams), and B's frames made comparable with A's
//! (turned upright, converted). Shared by
//! `compare`, `render --compare` and the window.

use crate::colour::Range;
use crate::compare::gpu::MAX_BITS;
use crate::video::format::places;
use crate::video::format::{FrameFormat, PlaneLayout};
use crate::video::source::{SeekTarget, VideoSource};

/// Why two files can't be compared.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PairError(pub String);

/// How B's frames line up with A's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum AlignBy {
    /// Frame K of the reference with frame K of the judged file (plus the offset).
    #[default]
    Frame,
    /// Each frame of the reference with the judged file's latest shown by then, times counted
    /// from each file's first frame (as FFmpeg's filters pair two streams): for files of
    /// different frame rates.
    Time,
}

/// The frame of B that A's frame goes with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Want {
    Frame(u64),
    /// B's latest frame at or before this many seconds from its first.
    At(f64),
}

/// Timestamps a rounding apart are the same instant.
pub const SAME_INSTANT: f64 = 1e-6;

impl Want {
    /// Whether B's frame with `key` (number, seconds from B's first frame) comes after the
    /// one wanted: B's frames from there on can't be it.
    pub fn is_before(self, (index, seconds): (u64, f64)) -> bool {
        match self {
            Want::Frame(n) => index > n,
            Want::At(t) => seconds > t + SAME_INSTANT,
        }
    }

    /// Where B's decoder goes to deliver this frame first.
    pub fn seek_target(self, start_b: f64) -> SeekTarget {
        match self {
            Want::Frame(n) => SeekTarget::Frame(n),
            Want::At(t) => SeekTarget::Time {
                seconds: start_b + t,
                exact: true,
            },
        }
    }

    /// How far past `self` `later` is, in B's frames (`frame_b` seconds each).
    pub fn frames_to(self, later: Want, frame_b: f64) -> f64 {
        match (self, later) {
            (Want::Frame(a), Want::Frame(b)) => b as f64 - a as f64,
            (Want::At(a), Want::At(b)) => (b - a) / frame_b.max(1e-9),
            _ => f64::INFINITY,
        }
    }
}

/// Seconds of a file's first frame, which times are counted from when aligning by time.
pub fn first_seconds(source: &VideoSource) -> f64 {
    let index = source.index();
    index
        .wait_pts_of(0)
        .or_else(|| index.first_pts())
        .or(source.info.start_pts)
        .map_or(0.0, |pts| source.info.seconds(pts))
}

/// Seconds a file's times are counted from when aligning by time, as `ffmpeg -i` counts them
/// for its filters: the file's start (the earliest of its streams), where the container says
/// it, else its first frame. A video that starts after the file's sound starts as late.
pub fn origin_seconds(source: &VideoSource) -> f64 {
    let first = first_seconds(source);
    source
        .start_seconds()
        .filter(|&start| start <= first + SAME_INSTANT)
        .unwrap_or(first)
}

/// How A's frames find B's: the partner of A's frame (number, seconds of its pts), and B's
/// frames' keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Alignment {
    pub by: AlignBy,
    /// B's frames later than A's (negative: earlier).
    pub offset: i64,
    /// Each file's origin, its times counted from it (`origin_seconds`).
    pub start_a: f64,
    pub start_b: f64,
    /// B's first frame, from its origin: A's frames before it have no partner.
    pub first_b: f64,
    /// B's frame duration (the offset's unit aligned by time).
    pub frame_b: f64,
}

impl Alignment {
    pub fn of(a: &VideoSource, b: &VideoSource, by: AlignBy, offset: i64) -> Self {
        let start_b = origin_seconds(b);
        Self {
            by,
            offset,
            start_a: origin_seconds(a),
            start_b,
            first_b: (first_seconds(b) - start_b).max(0.0),
            frame_b: b.info.frame_duration,
        }
    }

    /// B's partner of A's frame `index` at `seconds`; None where the offset puts it before B's
    /// first frame.
    pub fn want(&self, index: u64, seconds: f64) -> Option<Want> {
        match self.by {
            AlignBy::Frame => index.checked_add_signed(self.offset).map(Want::Frame),
            AlignBy::Time => {
                let at = seconds - self.start_a + self.offset as f64 * self.frame_b;
                (at >= self.first_b - SAME_INSTANT).then_some(Want::At(at.max(self.first_b)))
            }
        }
    }

    /// B's frame's key: its number and its seconds from B's origin.
    pub fn key(&self, index: u64, seconds: f64) -> (u64, f64) {
        (index, seconds - self.start_b)
    }
    /// The number of B's frame that `want` asks for (aligned by time: B's latest frame at that
    /// time, once B's index has read that far).
    pub fn partner_number(&self, b: &VideoSource, want: Want) -> u64 {
        match want {
            Want::Frame(n) => n,
            Want::At(t) => b.index().wait_number_at(b.info.pts_at(self.start_b + t)).n,
        }
    }
}

/// A's frames aligned by time that come after B's end, each paired with B's last frame (as
/// FFmpeg's filters repeat it): counted, to be said beside the figures.
#[derive(Debug, Default)]
pub struct PastEnd {
    /// The latest of B's frames paired, and the times (from B's first frame) of A's frames
    /// paired with it.
    last_b: u64,
    at: Vec<f64>,
}

impl PastEnd {
    /// A's frame at `seconds` was paired with B's frame `frame_b`.
    pub fn paired(&mut self, align: &Alignment, seconds: f64, frame_b: u64) {
        let Some(Want::At(at)) = align.want(0, seconds).filter(|_| align.by == AlignBy::Time) else {
            return;
        };
        if frame_b != self.last_b {
            (self.last_b, self.at) = (frame_b, Vec::new());
        }
        self.at.push(at);
    }

    /// How many of A's frames came after B's end (its last frame's time and duration; B's
    /// frames numbered by `index`, their pts in seconds by `seconds`), and that end's time from
    /// B's first frame.
    pub fn count(
        &self,
        align: &Alignment,
        index: &crate::video::index::FrameIndex,
        seconds: impl Fn(i64) -> f64,
    ) -> Option<(usize, f64)> {
        if self.at.is_empty() || index.wait_complete()? != self.last_b + 1 {
            return None;
        }
        let end = seconds(index.wait_pts_of(self.last_b)?) - align.start_b + align.frame_b;
        let past = self.at.iter().filter(|&&at| at >= end - SAME_INSTANT).count();
        (past > 0).then_some((past, end))
    }
}

/// Has packed R'G'B' frames made planar (a copy) for the metrics, as FFmpeg's filters take
/// R'G'B'; before `match_pair`, on a source not yet read.
pub fn planar_rgb(source: &mut VideoSource) {
    let format = source.info.format;
    if matches!(
        format.layout,
        PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra
    ) {
        source.convert_to(PlaneLayout::Gbr { bits: 8 }, format.width, format.height);
    }
}

/// Turns both files' frames upright where either is shown turned (its display matrix), as
/// FFmpeg's command line turns each before its filters: a phone's portrait clip is measured
/// against its upright encode as `psnr` and `ssim` measure them. Where a file's frames can't be
/// turned as they are (4:2:2 a quarter turn) and both are shown turned alike, both are
/// measured as stored, with a warning; otherwise that fails. Before `match_pair`, on sources
/// not yet read.
pub fn turn_upright(a: &mut VideoSource, b: &mut VideoSource) -> Result<(), PairError> {
    let turns = (a.info.quarter_turns % 4, b.info.quarter_turns % 4);
    if turns == (0, 0) {
        return Ok(());
    }
    let refused = [&mut *a, &mut *b].into_iter().find_map(|side| {
        side.can_turn_upright()
            .err()
            .map(|why| (side.info.path.display().to_string(), why))
    });
    match refused {
        None => {
            a.turn_upright().map_err(PairError)?;
            b.turn_upright().map_err(PairError)?;
            Ok(())
        }
        Some(_) if turns.0 == turns.1 => {
            log::warn!(
                "'{}' and '{}' are both shown turned, and their frames can't be turned as FFmpeg turns them: measured as stored (PSNR as FFmpeg's; SSIM's windows lie otherwise at the edges)",
                a.info.path.display(),
                b.info.path.display()
            );
            Ok(())
        }
        Some((path, why)) => Err(PairError(format!("'{path}': {why}"))),
    }
}

/// Makes B's frames comparable with A's: where B has another size or layout (depth, NV12 from
/// a hardware decoder), its frames are converted to A's by swscale (bicubic), with a warning
/// saying so. Fails where either is a layout the metrics don't take (packed R'G'B'), or where
/// one is R'G'B' and the other not.
pub fn match_pair(a: &VideoSource, b: &mut VideoSource) -> Result<(), PairError> {
    match_pair_at(a, b, None)
}

/// `match_pair`, where both files are then measured at `size` (each scaled to it: their sizes
/// are no conversion to warn of, only B's layout or range).
pub fn match_pair_at(a: &VideoSource, b: &mut VideoSource, size: Option<(u32, u32)>) -> Result<(), PairError> {
    let (fa, fb) = (a.info.format, b.info.format);
    for (source, format) in [(a, fa), (&*b, fb)] {
        let why = match places(&format) {
            None => {
                "the window compares Y'CbCr, grey or planar R'G'B' video (`histoplay compare` takes packed R'G'B' too)"
                    .to_string()
            }
            Some((_, bits)) if bits > MAX_BITS => format!("compare measures 8 to {MAX_BITS} bits"),
            Some(_) => continue,
        };
        return Err(PairError(format!(
            "'{}' is {}: {why}",
            source.info.path.display(),
            format.layout
        )));
    }
    let rgb = |layout: PlaneLayout| matches!(layout, PlaneLayout::Gbr { .. });
    if rgb(fa.layout) != rgb(fb.layout) {
        return Err(PairError(format!(
            "'{}' is {} and '{}' {}: compare measures two R'G'B' files, or two Y'CbCr or grey ones",
            a.info.path.display(),
            fa.layout,
            b.info.path.display(),
            fb.layout
        )));
    }
    // Y'CbCr of the other range is converted into A's, as FFmpeg converts a `yuvj` format into
    // another (grey and R'G'B' keep their codes).
    let ycbcr = |layout| matches!(layout, PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010);
    let other_range = ycbcr(fa.layout) && ycbcr(fb.layout) && fa.color.range != fb.color.range;
    if (fa.width, fa.height, fa.layout) != (fb.width, fb.height, fb.layout) || other_range {
        let same_values = !other_range
            && matches!(
                (fa.layout, fb.layout),
                (
                    PlaneLayout::Nv12,
                    PlaneLayout::Yuv {
                        chroma_shift_x: 1,
                        chroma_shift_y: 1,
                        bits: 8
                    }
                ) | (
                    PlaneLayout::Yuv {
                        chroma_shift_x: 1,
                        chroma_shift_y: 1,
                        bits: 8
                    },
                    PlaneLayout::Nv12
                ) | (
                    PlaneLayout::P010,
                    PlaneLayout::Yuv {
                        chroma_shift_x: 1,
                        chroma_shift_y: 1,
                        bits: 10
                    }
                ) | (
                    PlaneLayout::Yuv {
                        chroma_shift_x: 1,
                        chroma_shift_y: 1,
                        bits: 10
                    },
                    PlaneLayout::P010
                )
            );
        let resized = (fa.width, fa.height) != (fb.width, fb.height);
        let range = |format: &FrameFormat| match (other_range, format.color.range) {
            (false, _) => "",
            (true, Range::Full) => ", full range",
            (true, Range::Limited) => ", limited range",
        };
        let converted = (fa.layout != fb.layout || other_range) && !same_values;
        if let (Some((width, height)), true) = (size, converted) {
            log::warn!(
                "'{}' is {}{}: converted to {}{} (bicubic) to compare with '{}', both at {width}x{height}",
                b.info.path.display(),
                fb.layout,
                range(&fb),
                fa.layout,
                range(&fa),
                a.info.path.display()
            );
        } else if size.is_none() && (!same_values || resized) {
            log::warn!(
                "'{}' is {}x{}, {}{}: converted to {}x{}, {}{} (bicubic) to compare with '{}'",
                b.info.path.display(),
                fb.width,
                fb.height,
                fb.layout,
                range(&fb),
                fa.width,
                fa.height,
                fa.layout,
                range(&fa),
                a.info.path.display()
            );
        }
        b.convert_to(fa.layout, fa.width, fa.height);
        b.convert_range_to(fa.color.range);
    }
    Ok(())
}

/// What to say where two files of different frame rates pair by number (frame K with frame
/// K, whatever their times): their rates, and how to pair them by time instead. None where
/// they pair by time, or either rate is unknown, or they are the same (to a part in 10 000:
/// 29.97 against 30 differs, an hour of it 3.6 s apart by its end).
pub fn rates_note(by: AlignBy, (a, b): (&str, &str), (frame_a, frame_b): (f64, f64)) -> Option<String> {
    let known = |d: f64| d.is_finite() && d > 0.0;
    if by != AlignBy::Frame || !known(frame_a) || !known(frame_b) || (frame_a / frame_b - 1.0).abs() <= 1e-4 {
        return None;
    }
    let rate = |d: f64| crate::terminal::fps(1.0 / d);
    Some(format!(
        "note: '{a}' is {} and '{b}' {}: their frames pair by number, frame K with frame K \
         (--compare-by time pairs each with the other's frame shown at its time, as FFmpeg's filters do)",
        rate(frame_a),
        rate(frame_b)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_other_rates_paired_by_number_are_told_so() {
        let names = ("a.mp4", "b.mp4");
        let note = rates_note(AlignBy::Frame, names, (1.0 / 25.0, 1.0 / 30.0)).unwrap();
        assert!(
            note.starts_with("note: 'a.mp4' is 25 fps and 'b.mp4' 30 fps: "),
            "{note}"
        );
        let ntsc = rates_note(AlignBy::Frame, names, (1001.0 / 30_000.0, 1.0 / 30.0)).unwrap();
        assert!(
            ntsc.starts_with("note: 'a.mp4' is 29.97 fps and 'b.mp4' 30 fps: "),
            "{ntsc}"
        );
        assert_eq!(rates_note(AlignBy::Time, names, (1.0 / 25.0, 1.0 / 30.0)), None);
        assert_eq!(rates_note(AlignBy::Frame, names, (0.04, 0.04)), None);
        assert_eq!(rates_note(AlignBy::Frame, names, (0.04, 0.0)), None);
    }

    fn align(by: AlignBy, offset: i64) -> Alignment {
        Alignment {
            by,
            offset,
            start_a: 1.0,
            start_b: 2.0,
            first_b: 0.0,
            frame_b: 0.04,
        }
    }

    #[test]
    fn partners_are_found_by_number_or_by_time_from_each_first_frame() {
        assert_eq!(align(AlignBy::Frame, 3).want(10, 9.0), Some(Want::Frame(13)));
        assert_eq!(align(AlignBy::Frame, -3).want(2, 9.0), None);
        assert_eq!(align(AlignBy::Frame, -3).want(3, 9.0), Some(Want::Frame(0)));
        // A's frame 0.5 s after its first: B's latest at 0.5 s after its first, plus 2 of its
        // frames.
        let want = align(AlignBy::Time, 2).want(12, 1.5).unwrap();
        assert!(matches!(want, Want::At(t) if (t - 0.58).abs() < 1e-12));
        assert_eq!(align(AlignBy::Time, -2).want(0, 1.0), None);
        assert_eq!(align(AlignBy::Time, 0).key(5, 2.2).0, 5);
        assert!((align(AlignBy::Time, 0).key(5, 2.2).1 - 0.2).abs() < 1e-12);
    }

    #[test]
    fn a_frame_past_the_wanted_one_is_known_by_its_key() {
        assert!(Want::Frame(4).is_before((5, 0.0)));
        assert!(!Want::Frame(4).is_before((4, 0.0)));
        assert!(!Want::At(0.2).is_before((0, 0.2 + 1e-9)));
        assert!(Want::At(0.2).is_before((0, 0.2001)));
        assert_eq!(Want::Frame(3).seek_target(5.0), SeekTarget::Frame(3));
        assert_eq!(
            Want::At(0.5).seek_target(2.0),
            SeekTarget::Time {
                seconds: 2.5,
                exact: true
            }
        );
        assert_eq!(Want::Frame(3).frames_to(Want::Frame(10), 0.04), 7.0);
        assert!((Want::At(1.0).frames_to(Want::At(2.0), 0.04) - 25.0).abs() < 1e-9);
    }
}
