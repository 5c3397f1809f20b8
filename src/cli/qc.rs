//! The `report` command: FFmpeg's `signalstats` (tout, vrep, brng) of every frame of a video,
//! one JSON object (or CSV row) per frame, named as FFmpeg names them. A stable interface.

use crate::cli::hist::{self, ClipError, FrameRange};
use crate::cli::progress::Progress;
use crate::cli::report::{write_line, Seconds};
use crate::signalstats::{self, SignalStats, StatsError, YuvPlanes};
use crate::video::source::VideoSource;
use serde::Serialize;
use std::io::Write;

/// `{"frame":K,"pts":s,"YMIN":..,…,"BRNG":..}`.
#[derive(Serialize)]
struct ReportLine {
    frame: u64,
    pts: Seconds,
    #[serde(flatten)]
    stats: SignalStats,
}

/// How `report` writes its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    JsonLines,
    /// A header row, then one row a frame; values as `ffprobe` prints them.
    Csv,
}

/// Writes the statistics of every frame of `range` of `source`; returns how many frames.
pub fn report_video<W: Write>(
    mut source: VideoSource,
    range: FrameRange,
    format: ReportFormat,
    out: &mut W,
) -> Result<u64, ClipError> {
    source.set_exact_numbers(true);
    let info = source.info.format;
    if !matches!(
        info.layout,
        crate::video::format::PlaneLayout::Yuv { .. }
            | crate::video::format::PlaneLayout::Nv12
            | crate::video::format::PlaneLayout::P010
    ) {
        return Err(ClipError::Decode(StatsError::NotYuv(info.layout).to_string()));
    }
    // The differences of the first frame reported are from the frame before it, as in a run
    // of the filter over the whole file.
    let first = range.start.saturating_sub(1);
    hist::seek_to_frame(&mut source, first);
    let mut progress = Progress::new(range.end.map(|e| e.saturating_sub(range.start)));
    let mut previous: Option<YuvPlanes> = None;
    let mut done = 0;
    if format == ReportFormat::Csv {
        writeln!(out, "frame,pts,{}", signalstats::NAMES.join(","))?;
    }
    while let Some(frame) = source.next_frame()? {
        if range.end.is_some_and(|e| frame.index >= e) {
            break;
        }
        if frame.index < first {
            continue;
        }
        let planes = YuvPlanes::read(info.layout, info.width, info.height, &frame.planes(info.layout))
            .map_err(|e| ClipError::Decode(e.to_string()))?;
        if range.contains(frame.index) {
            let stats = signalstats::count(&planes, previous.as_ref()).stats();
            match format {
                ReportFormat::JsonLines => write_line(
                    out,
                    &ReportLine {
                        frame: frame.index,
                        pts: Seconds(frame.seconds),
                        stats,
                    },
                )?,
                ReportFormat::Csv => {
                    let values: Vec<String> = stats.printed().into_iter().map(|(_, v)| v).collect();
                    writeln!(out, "{},{},{}", frame.index, frame.seconds, values.join(","))?;
                }
            }
            done += 1;
            progress.tick(done);
        }
        previous = Some(planes);
    }
    out.flush()?;
    Ok(done)
}
