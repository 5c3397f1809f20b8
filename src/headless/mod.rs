//! Headless runs over a video's frames, shared by `hist`, `scope`, `report`, `compare`, the
//! timeline and the benchmarks: the frames of a range decoded and run through the same decode
//! thread, ring and frame pipeline as in the player (or through the CPU twins), their results
//! read back through a ring of mapped buffers, in order.

pub mod compare;
mod fields;
mod gpu;
pub mod offscreen;
pub mod progress;

use crate::colour::Depth;
use crate::gpu::GpuError;
use crate::scope::Region;
use crate::video::convert::convert_cpu;
use crate::video::decoder::ReadyFrame;
use crate::video::deinterlace::{Deinterlacer, Field};
use crate::video::source::{CatchUp, DecodedFrame, PacketProps, VideoSource};
pub use fields::CpuPicture;
use fields::{CpuFieldRun, FieldRun};
pub use gpu::{gpu_frames, gpu_frames_on, on_the_cpu, open_beside, prepare_pipeline, run_prepared, Prepared, Remake};
use progress::Progress;
use thiserror::Error;

/// Frames `start..end` in presentation order (`end` None: to the last frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRange {
    pub start: u64,
    pub end: Option<u64>,
}

impl std::fmt::Display for FrameRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.only_frame(), self.end) {
            (Some(frame), _) => write!(f, "frame {frame}"),
            (None, Some(end)) => write!(f, "frames {}..{end}", self.start),
            (None, None) => write!(f, "frames {}..", self.start),
        }
    }
}

impl FrameRange {
    /// Frame `frame` alone (the largest number has none after it: to the end, past it).
    pub fn single(frame: u64) -> Self {
        Self {
            start: frame,
            end: frame.checked_add(1),
        }
    }

    /// Parses `A..B`, `A..=B`, `A..` and `..B`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not a frame range like 100..200, 100..=199 or 100..");
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let number = |v: &str| v.trim().parse::<u64>().map_err(|_| bad());
        let start = if a.trim().is_empty() { 0 } else { number(a)? };
        let end = match b.strip_prefix('=') {
            // (Up to the largest frame number there is: to the end.)
            Some(inclusive) => number(inclusive)?.checked_add(1),
            None if b.trim().is_empty() => None,
            None => Some(number(b)?),
        };
        if end.is_some_and(|e| e <= start) {
            return Err(format!("'{s}' holds no frames"));
        }
        Ok(Self { start, end })
    }

    /// That none of the range's frames could be decoded, in words (the index knew of them:
    /// their packets are damaged, or their pictures lost).
    pub fn none_decoded(&self) -> String {
        match self.only_frame() {
            Some(frame) => format!("frame {frame} could not be decoded (its picture is damaged or lost)"),
            None if self.is_whole() => "no frame of its video could be decoded (damaged, or cut short)".into(),
            None => format!("none of {self} could be decoded (their pictures are damaged or lost)"),
        }
    }

    /// Whether the range is every frame (`0..`).
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.end.is_none()
    }

    /// The range's one frame, where it holds one.
    fn only_frame(&self) -> Option<u64> {
        (self.end.is_some() && self.start.checked_add(1) == self.end).then_some(self.start)
    }

    pub fn contains(&self, frame: u64) -> bool {
        frame >= self.start && self.end.is_none_or(|e| frame < e)
    }

    /// Whether frame `index`, given out while the decoder may still give out frame `awaited`
    /// late (a damaged stream's: `DecodedFrame::awaited`), ends a pass over the range: it is
    /// past the range's end and no frame of the range is still to come.
    pub fn ended_by(&self, index: u64, awaited: Option<u64>) -> bool {
        self.end.is_some_and(|e| index >= e && awaited.is_none_or(|a| a >= e))
    }
}

#[derive(Debug, Error)]
pub enum ClipError {
    #[error(transparent)]
    Video(#[from] crate::video::source::VideoError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Ring(#[from] crate::video::ring::RingError),
    #[error("writing the output failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Decode(String),
    #[error(transparent)]
    Scope(#[from] crate::scope::ScopeError),
    #[error(transparent)]
    Region(#[from] crate::scope::RegionError),
    #[error(transparent)]
    Pair(#[from] crate::compare::align::PairError),
    #[error("frame {asked} is past the end: '{path}' has {count} frames")]
    PastEnd { asked: u64, count: u64, path: String },
}

/// Readies a source for a headless pass over `range`: exact frame numbers, the range's start
/// and the region checked before anything is decoded.
pub fn prepare(mut source: VideoSource, range: FrameRange, region: Option<Region>) -> Result<VideoSource, ClipError> {
    // Frame K must be frame K: numbers wait for the index, which reads only as far as needed.
    source.set_exact_numbers(true);
    check_in_range(&source, range.start)?;
    if let Some(region) = region {
        let format = source.info.format;
        region.check(format.width, format.height)?;
    }
    Ok(source)
}

/// Fails if the stream has no frame `frame` (once the index has read far enough to say).
pub(crate) fn check_in_range(source: &VideoSource, frame: u64) -> Result<(), ClipError> {
    let index = source.index();
    if index.wait_pts_of(frame).is_none() {
        if let Some(count) = index.frame_count() {
            // (A file whose every packet of the picture is unreadable: no frame to be past.)
            if count == 0 {
                return Err(ClipError::Decode(format!(
                    "'{}': no frame of its video could be read (damaged, or cut short)",
                    source.info.path.display()
                )));
            }
            return Err(ClipError::PastEnd {
                asked: frame,
                count,
                path: source.info.path.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Positions `source` to decode from the keyframe before frame `frame`, skipping what it can
/// on the way (a source that can't number frames starts from the beginning).
pub(crate) fn seek_to_frame(source: &mut VideoSource, frame: u64) {
    // (A source opened afresh gives its first frame without one.)
    if frame == 0 && source.at_its_start() {
        return;
    }
    if let Some(pts) = source.index().wait_pts_of(frame) {
        source.seek_before(pts);
        source.catch_up(Some(CatchUp {
            limit: pts,
            keep_from: pts,
            pass: true,
        }));
    }
}

/// Decodes the frames of `range` and converts each on the CPU (the reference path), handing
/// `each` the packed pixels at their depth; returns how many frames it was handed.
pub fn cpu_frames(
    source: VideoSource,
    range: FrameRange,
    mut each: impl FnMut(&[u32], Depth, FrameMeta) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    cpu_frames_with(source, range, PictureWork::default(), |words, depth, meta, _| {
        each(words, depth, meta)
    })
}

/// `cpu_frames`, each frame deinterlaced first by the twin, or split into its fields, as `work`
/// says: `each` gets its pictures (a field's as a picture of half the frame's height), and
/// their size: the stream's (a field's), or, where the source follows size changes
/// (`VideoSource::follow_size_changes`), the frame's own.
pub fn cpu_frames_with(
    mut source: VideoSource,
    range: FrameRange,
    work: PictureWork,
    mut each: impl FnMut(&[u32], Depth, FrameMeta, (u32, u32)) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    // Frame K must be frame K, as on the GPU (`prepare`).
    source.set_exact_numbers(true);
    let mut progress = Progress::new(frames_to_do(&source, range));
    let mut format = source.info.format;
    if work.split {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
    }
    let depth = Depth::from_bits(format.layout.output_bits());
    let mut done = 0;
    let following = source.follows_sizes();
    cpu_pictures_with(&mut source, range, format.layout, work, |planes, _, meta, _, read| {
        let format = match following {
            true => read,
            false => format,
        };
        each(
            &convert_cpu(&format, planes),
            depth,
            meta,
            (format.width, format.height),
        )?;
        done += 1;
        progress.tick(done);
        Ok(())
    })?;
    Ok(done)
}

/// Decodes the frames of `range`, their planes read as `layout`, and hands `each` the planes
/// of each picture: each frame's, or, with `filter`, the pictures the twin makes of them.
pub fn cpu_pictures(
    source: &mut VideoSource,
    range: FrameRange,
    layout: crate::video::format::PlaneLayout,
    filter: Option<Deinterlacer>,
    mut each: impl FnMut(&[crate::video::format::PlaneData], FrameMeta) -> Result<(), ClipError>,
) -> Result<(), ClipError> {
    let work = PictureWork {
        deinterlace: filter,
        ..PictureWork::default()
    };
    cpu_pictures_with(source, range, layout, work, |planes, _, meta, _, _| each(planes, meta))
}

/// What the CPU paths do with each frame beyond decoding it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PictureWork {
    /// Make its pictures with this deinterlacer (the twin).
    pub deinterlace: Option<Deinterlacer>,
    /// Take its idet sums.
    pub idet: bool,
    /// Hand on each of its fields as a picture of its own (top, then bottom), not the frame.
    pub split: bool,
}

/// `cpu_pictures`, and with `work.idet` each frame's idet sums (the twin's), with its first
/// picture, the frame taken between those before and after it; with `work.split`, each picture
/// as its two fields (every other line of each plane). `each` gets the planes as read, then the
/// picture's in the upload layout (`DecodedFrame::picture_planes`: where frames are converted
/// for measuring and keep their picture; else, and for made pictures, the same planes), and
/// the format of the planes as read: the frame's own size (a source that follows size changes
/// gives frames of another size out as they are, its colour as at their size:
/// `VideoSource::follow_size_changes`), half its height for a field.
pub fn cpu_pictures_with(
    source: &mut VideoSource,
    range: FrameRange,
    layout: crate::video::format::PlaneLayout,
    work: PictureWork,
    mut each: impl FnMut(
        &[crate::video::format::PlaneData],
        &[crate::video::format::PlaneData],
        FrameMeta,
        Option<crate::idet::Sums>,
        crate::video::format::FrameFormat,
    ) -> Result<(), ClipError>,
) -> Result<(), ClipError> {
    let PictureWork {
        deinterlace: filter,
        idet,
        split,
    } = work;
    let mut each = |planes: &[crate::video::format::PlaneData],
                    picture: &[crate::video::format::PlaneData],
                    meta: FrameMeta,
                    sums,
                    read: crate::video::format::FrameFormat| {
        if !split {
            return each(planes, picture, meta, sums, read);
        }
        for field in Field::BOTH {
            let meta = meta.as_field(Some(field));
            let rows = fields::field_rows(planes, field);
            each(
                &rows,
                &rows,
                meta,
                sums.filter(|_| field == Field::Top),
                crate::video::format::FrameFormat {
                    height: read.height / 2,
                    ..read
                },
            )?;
        }
        Ok(())
    };
    // (The picture's planes are in the upload layout.)
    let shown = source.info.format.layout;
    let format = crate::video::format::FrameFormat {
        layout,
        ..source.info.format
    };
    if let Some(filter) = filter {
        filter.check_size(&format).map_err(ClipError::Decode)?;
    }
    let mut fields = (filter.is_some() || idet).then(|| CpuFieldRun::new(filter, idet, &format, source.info.time_base));
    // Deinterlaced, the range's first frame is made with the one before, its last with the
    // one after.
    let decoded = match fields {
        Some(_) => FieldRun::decoded(range),
        None => range,
    };
    // Frames measured converted keep their picture (`DecodedFrame::picture`); where idet holds
    // each frame back for the one after it and nothing is deinterlaced, the picture handed on
    // with a frame made again is its own, kept here meanwhile.
    let mut pictures = KeptPictures::new();
    seek_to_frame(source, decoded.start);
    while let Some(mut frame) = source.next_frame()? {
        let past = range.ended_by(frame.index, frame.awaited);
        let after_last = fields.is_some() && range.end == Some(frame.index);
        if !decoded.contains(frame.index) && !after_last {
            if past {
                return Ok(());
            }
            continue;
        }
        let meta = FrameMeta::from(&frame);
        match &mut fields {
            None => {
                let (width, height) = frame
                    .video()
                    .map_or((format.width, format.height), |v| (v.width(), v.height()));
                let read = crate::video::format::FrameFormat {
                    width,
                    height,
                    color: source.info.format.color,
                    ..format
                };
                each(&frame.planes(layout), &frame.picture_planes(shown), meta, None, read)?
            }
            Some(fields) => {
                let made = fields.push(meta, &frame.planes(layout));
                if let (None, Some(picture)) = (filter, frame.picture.take()) {
                    if pictures.len() == 3 {
                        pictures.pop_front();
                    }
                    pictures.push_back((frame.index, picture));
                }
                for made in made {
                    if range.contains(made.meta.frame) {
                        let data = made.plane_data();
                        let picture = picture_of(&pictures, made.meta.frame, shown);
                        each(&data, picture.as_deref().unwrap_or(&data), made.meta, made.sums, format)?;
                    }
                }
            }
        }
        if past {
            return Ok(());
        }
    }
    for made in fields.as_mut().map(CpuFieldRun::finish).unwrap_or_default() {
        if range.contains(made.meta.frame) {
            let data = made.plane_data();
            let picture = picture_of(&pictures, made.meta.frame, shown);
            each(&data, picture.as_deref().unwrap_or(&data), made.meta, made.sums, format)?;
        }
    }
    Ok(())
}

/// The last few frames' pictures, by frame number.
type KeptPictures = std::collections::VecDeque<(u64, Box<ffmpeg_next::frame::Video>)>;

/// Frame `index`'s picture's planes, where kept.
fn picture_of(
    pictures: &KeptPictures,
    index: u64,
    layout: crate::video::format::PlaneLayout,
) -> Option<Vec<crate::video::format::PlaneData<'_>>> {
    pictures
        .iter()
        .find(|(i, _)| *i == index)
        .map(|(_, picture)| crate::video::source::planes_of(picture, layout))
}

/// How many frames a range holds, as far as the file says (exactly, or from its estimate).
pub fn frames_to_do(source: &VideoSource, range: FrameRange) -> Option<u64> {
    let end = range
        .end
        .or_else(|| source.index().frame_count())
        .or(source.index().estimated_count)?;
    Some(end.saturating_sub(range.start))
}

/// Frame `frame` of a video, decoded (its planes in `source.info.format`).
pub fn decode_frame(source: &mut VideoSource, frame: u64) -> Result<DecodedFrame, ClipError> {
    source.set_exact_numbers(true);
    check_in_range(source, frame)?;
    seek_to_frame(source, frame);
    while let Some(decoded) = source.next_frame()? {
        if decoded.index == frame {
            return Ok(decoded);
        }
        if FrameRange::single(frame).ended_by(decoded.index, decoded.awaited) {
            break;
        }
    }
    Err(ClipError::Decode(format!(
        "frame {frame} of '{}' could not be decoded",
        source.info.path.display()
    )))
}

/// Picture `picture` of a video deinterlaced by `filter` (the twin's): frame `picture`'s, or at
/// field rate field `picture % 2` of frame `picture / 2`.
pub fn decode_picture(source: &mut VideoSource, picture: u64, filter: Deinterlacer) -> Result<CpuPicture, ClipError> {
    source.set_exact_numbers(true);
    let frame = match filter.rate {
        crate::video::deinterlace::Rate::Frame => picture,
        crate::video::deinterlace::Rate::Field => picture / 2,
    };
    // At field rate the pictures asked for are fields: one past the end is named as asked.
    check_in_range(source, frame).map_err(|e| match (e, filter.rate) {
        (ClipError::PastEnd { count, path, .. }, crate::video::deinterlace::Rate::Field) => ClipError::Decode(format!(
            "picture {picture} is past the end: '{path}' has {} pictures at field rate ({count} frames)",
            2 * count
        )),
        (e, _) => e,
    })?;
    let layout = source.info.format.layout;
    let (mut found, mut made) = (None, Vec::new());
    cpu_pictures(
        source,
        FrameRange::single(frame),
        layout,
        Some(filter),
        |planes, meta| {
            if meta.index == picture && found.is_none() {
                found = Some(CpuPicture::copied(planes, meta));
            }
            if meta.frame == frame {
                made.push(meta.index);
            }
            Ok(())
        },
    )?;
    let path = source.info.path.display();
    found.ok_or_else(|| match made.as_slice() {
        // `auto` passes a progressive frame on whole, as one picture: its first field's number.
        [first] if filter.rate == crate::video::deinterlace::Rate::Field && *first + 1 == picture => {
            ClipError::Decode(format!(
                "picture {picture} of '{path}' would be frame {frame}'s second field, but the frame is progressive: it is picture {first} alone"
            ))
        }
        _ => ClipError::Decode(format!("picture {picture} of '{path}' could not be made")),
    })
}

/// A decoded frame (the decode thread's, or one decoded on this thread), as itself.
macro_rules! frame_meta_from {
    ($frame:ty) => {
        impl From<&$frame> for FrameMeta {
            fn from(frame: &$frame) -> Self {
                // Timed as FFmpeg's filters time it.
                let (pts, seconds) = frame.packet.best_effort.unwrap_or((frame.pts, frame.seconds));
                Self {
                    index: frame.index,
                    frame: frame.index,
                    pts,
                    seconds,
                    pict_type: frame.pict_type,
                    packet: frame.packet,
                    field: None,
                    first_field: Field::first_of(frame.packet.fields),
                }
            }
        }
    };
}
frame_meta_from!(ReadyFrame);
frame_meta_from!(DecodedFrame);

/// Which frame a result belongs to.
#[derive(Clone, Copy, Debug)]
pub struct FrameMeta {
    /// The picture's number: the frame's, or at field rate (deinterlacing) 2k and 2k + 1 for
    /// frame k's fields.
    pub index: u64,
    /// The decoded frame the picture is (or is made from).
    pub frame: u64,
    /// In the stream's time base, as FFmpeg's filters take it (the frame's best-effort
    /// timestamp: `PacketProps::best_effort`).
    pub pts: i64,
    pub seconds: f64,
    /// The picture's coding type (`I`, `P`, `B`, `?`).
    pub pict_type: char,
    /// Where its packet sat in the file.
    pub packet: PacketProps,
    /// Which field of the frame the picture is, where fields are counted apart.
    pub field: Option<Field>,
    /// Which of the decoded frame's fields is shown first, by its own flags: the top where it
    /// is progressive or flagged top field first (as FFmpeg's deinterlacers take it). Kept
    /// where the picture's flags are not the frame's (a field apart, a picture made).
    pub first_field: Field,
}

impl FrameMeta {
    /// The picture of `field` of the frame (or the frame, with none): a field apart is
    /// progressive, in its frame's field order, as FFmpeg's `separatefields` flags it.
    pub fn as_field(self, field: Option<Field>) -> Self {
        let mut packet = self.packet;
        packet.fields.interlaced &= field.is_none();
        Self { field, packet, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::FrameRange;

    #[test]
    fn the_largest_frame_number_alone_is_a_range_to_the_end() {
        let last = FrameRange::single(u64::MAX);
        assert_eq!((last.start, last.end), (u64::MAX, None));
        assert_eq!(last.to_string(), format!("frames {}..", u64::MAX));
        assert_eq!(FrameRange::single(7).to_string(), "frame 7");
    }

    #[test]
    fn ranges_parse_like_rust() {
        assert_eq!(
            FrameRange::parse("10..20"),
            Ok(FrameRange {
                start: 10,
                end: Some(20)
            })
        );
        assert_eq!(
            FrameRange::parse("10..=20"),
            Ok(FrameRange {
                start: 10,
                end: Some(21)
            })
        );
        assert_eq!(FrameRange::parse("100.."), Ok(FrameRange { start: 100, end: None }));
        assert_eq!(FrameRange::parse("..5"), Ok(FrameRange { start: 0, end: Some(5) }));
        assert_eq!(
            FrameRange::parse("0..=18446744073709551615"),
            Ok(FrameRange { start: 0, end: None })
        );
        assert!(FrameRange::parse("5..5").is_err());
        assert!(FrameRange::parse("5").is_err());
        assert!(FrameRange::parse("a..b").is_err());
        assert!(FrameRange::single(3).contains(3));
        assert!(!FrameRange::single(3).contains(4));
    }
}
