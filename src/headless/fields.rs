//! Deinterlacing and interlace detection in a headless run: each frame's planes are kept as it
//! comes in, and the pictures of the frame before it (one, or two at field rate; the frame
//! itself where nothing is deinterlaced) are made into that frame's ring slot, held until
//! then, and go on through the pipeline from there, in FFmpeg's order.

use super::{FrameMeta, FrameRange};
use crate::idet::{self, Sums};
use crate::video::decoder::ReadyFrame;
use crate::video::deinterlace::cpu::{make_field, PlaneGeometry};
use crate::video::deinterlace::{Deinterlacer, Field, Output, Rate, Sequence};
use crate::video::format::{FrameFormat, PlaneData};
use std::collections::VecDeque;

/// A picture to make and run through the pipeline: `output` into ring slot `slot`.
pub(super) struct Picture {
    pub output: Output,
    pub slot: usize,
    pub meta: FrameMeta,
}

/// What a frame in gives: the pictures now due, then ring slots no longer needed.
pub(super) type Due = (Vec<Picture>, Vec<usize>);

pub(super) struct FieldRun {
    sequence: Sequence,
    rate: Rate,
    /// The frame whose pictures wait for the next one, in its slot, and the number it is
    /// kept by.
    held: Option<(ReadyFrame, u64)>,
    time_base: (i32, i32),
    /// Frames in so far: each is kept by its count (`keep_id`), not by its number, which
    /// skips where the decoder lost a frame.
    kept: u64,
}

impl FieldRun {
    /// Pictures made by `filter`, or (None) each frame as it is, a frame late.
    pub fn new(filter: Option<Deinterlacer>, time_base: (i32, i32)) -> Self {
        Self {
            sequence: filter.map_or_else(Sequence::passing, Sequence::new),
            rate: filter.map_or(Rate::Frame, |f| f.rate),
            held: None,
            time_base,
            kept: 0,
        }
    }

    /// The number the next frame in is kept by (`KeptFrames::encode_keep`'s id): frames
    /// counted as they come, so that the three kept lie in three sections even where a lost
    /// frame leaves a gap in their numbers (FFmpeg's filters read the frames decoded either
    /// side of it).
    pub fn keep_id(&self) -> u64 {
        self.kept
    }

    /// The frames to decode for the pictures of `range`: from the frame before it, which the
    /// first one is made with.
    pub fn decoded(range: FrameRange) -> FrameRange {
        FrameRange {
            start: range.start.saturating_sub(1),
            end: range.end,
        }
    }

    /// Frame `frame` in (its planes kept already): the pictures of the frame before it.
    pub fn push(&mut self, frame: ReadyFrame) -> Due {
        let id = self.kept;
        self.kept += 1;
        let outputs = self.sequence.push(id, Some(frame.pts), frame.packet.fields);
        self.due(outputs, Some((frame, id)))
    }

    /// The stream ended: the last frame's pictures.
    pub fn finish(&mut self) -> Due {
        let outputs = self.sequence.finish();
        self.due(outputs, None)
    }

    /// Slots still held (the run stops early).
    pub fn release(&mut self) -> Option<usize> {
        self.held.take().map(|(f, _)| f.slot)
    }

    fn due(&mut self, outputs: Vec<Output>, next: Option<(ReadyFrame, u64)>) -> Due {
        let held = std::mem::replace(&mut self.held, next);
        let Some((cur, id)) = held else {
            return (Vec::new(), Vec::new());
        };
        let pictures = outputs
            .into_iter()
            .filter(|o| o.cur == id)
            .map(|output| Picture {
                output,
                slot: cur.slot,
                meta: self.meta(&cur, &output),
            })
            .collect();
        (pictures, vec![cur.slot])
    }

    fn meta(&self, cur: &ReadyFrame, output: &Output) -> FrameMeta {
        picture_meta(&FrameMeta::from(cur), output, self.rate, self.time_base)
    }
}

/// Which picture `output` of frame `cur` is: at field rate, the frame's first field is picture
/// 2k, its second 2k + 1; its time is the field's.
/// A picture the filter made is progressive, in its frame's field order (as FFmpeg's bwdif and
/// yadif flag theirs); a frame passed through keeps its flags.
fn picture_meta(cur: &FrameMeta, output: &Output, rate: Rate, time_base: (i32, i32)) -> FrameMeta {
    let mut packet = cur.packet;
    packet.fields.interlaced &= output.field.is_none();
    FrameMeta {
        index: output.number(cur.frame, rate),
        seconds: output.seconds(cur.seconds, cur.pts, time_base),
        pts: output.pts.map_or(cur.pts, |half| half.div_euclid(2)),
        packet,
        ..*cur
    }
}

/// Field `field` of a frame's planes: the same rows, every other one from the first (top) or
/// the second (bottom), as FFmpeg's `field` filter takes them.
pub(super) fn field_rows<'a>(planes: &[PlaneData<'a>], field: Field) -> Vec<PlaneData<'a>> {
    planes
        .iter()
        .map(|p| PlaneData {
            data: &p.data[(p.stride * field as usize).min(p.data.len())..],
            stride: 2 * p.stride,
        })
        .collect()
}

/// Deinterlacing on the CPU (the twin) for the reference paths: frames in as decoded, each
/// picture's planes out, in FFmpeg's order.
pub struct CpuFieldRun {
    sequence: Sequence,
    filter: Deinterlacer,
    /// Each frame's idet sums are taken.
    idet: bool,
    geometry: Vec<PlaneGeometry>,
    time_base: (i32, i32),
    /// The last three frames in: the count each is kept by (as `FieldRun::keep_id`), its
    /// facts and samples.
    kept: VecDeque<(u64, FrameMeta, Vec<Vec<u16>>)>,
    /// Frames in so far.
    count: u64,
}

/// A picture made on the CPU: its planes' bytes, rows packed.
pub struct CpuPicture {
    pub planes: Vec<Vec<u8>>,
    strides: Vec<usize>,
    pub meta: FrameMeta,
    /// The frame's idet sums, where taken (on its first picture).
    pub sums: Option<Sums>,
}

impl CpuPicture {
    /// A picture with a copy of `planes`, rows as they are.
    pub fn copied(planes: &[PlaneData], meta: FrameMeta) -> Self {
        Self {
            planes: planes.iter().map(|p| p.data.to_vec()).collect(),
            strides: planes.iter().map(|p| p.stride).collect(),
            meta,
            sums: None,
        }
    }

    /// The planes as decoded frames give them.
    pub fn plane_data(&self) -> Vec<PlaneData<'_>> {
        self.planes
            .iter()
            .zip(&self.strides)
            .map(|(data, &stride)| PlaneData { data, stride })
            .collect()
    }
}

impl CpuFieldRun {
    /// Pictures made by `filter` or (None) each frame as it is; with `idet`, each frame's idet
    /// sums with its first picture.
    pub fn new(filter: Option<Deinterlacer>, idet: bool, format: &FrameFormat, time_base: (i32, i32)) -> Self {
        Self {
            sequence: filter.map_or_else(Sequence::passing, Sequence::new),
            filter: filter.unwrap_or_default(),
            idet,
            geometry: PlaneGeometry::of(format),
            time_base,
            kept: VecDeque::new(),
            count: 0,
        }
    }

    /// Frame `frame` in, its planes `planes`: the pictures of the frame before it.
    pub fn push(&mut self, frame: FrameMeta, planes: &[PlaneData]) -> Vec<CpuPicture> {
        let samples = self.geometry.iter().zip(planes).map(|(g, p)| g.read(p)).collect();
        if self.kept.len() == 3 {
            self.kept.pop_front();
        }
        let id = self.count;
        self.count += 1;
        self.kept.push_back((id, frame, samples));
        let fields = frame.packet.fields;
        let outputs = self.sequence.push(id, Some(frame.pts), fields);
        self.pictures(outputs)
    }

    /// The stream ended: the last frame's pictures.
    pub fn finish(&mut self) -> Vec<CpuPicture> {
        let outputs = self.sequence.finish();
        self.pictures(outputs)
    }

    fn pictures(&self, outputs: Vec<Output>) -> Vec<CpuPicture> {
        let frame = |id: u64| {
            self.kept
                .iter()
                .find(|(kept, ..)| *kept == id)
                .map(|(_, meta, samples)| (meta, samples))
        };
        let mut pictures = Vec::new();
        for output in outputs {
            let (Some(prev), Some(cur), Some(next)) = (frame(output.prev), frame(output.cur), frame(output.next))
            else {
                continue;
            };
            let mut planes = Vec::new();
            let mut strides = Vec::new();
            for (i, plane) in self.geometry.iter().enumerate() {
                let samples = match output.field {
                    Some(job) => {
                        let frames = [&prev.1[i][..], &cur.1[i][..], &next.1[i][..]];
                        make_field(self.filter.method, plane, job, !self.filter.no_spatial_check, frames)
                    }
                    None => cur.1[i].clone(),
                };
                let stride = plane.row_bytes();
                planes.push(plane.write(&samples, stride));
                strides.push(stride);
            }
            let sums = (self.idet && !output.second).then(|| idet::cpu::sums(&self.geometry, prev.1, cur.1, next.1));
            pictures.push(CpuPicture {
                planes,
                strides,
                meta: picture_meta(cur.0, &output, self.filter.rate, self.time_base),
                sums,
            });
        }
        pictures
    }
}
