//! A second decoder for a stream's keyframes alone, each decoded by itself, from a demuxer of
//! its own. While the stream's decoder catches up from a seek's keyframe to the exact frame
//! with all its frame threads (which give out their first frame only once each has one in
//! hand, and which may be mid-GOP already, decoding on), this one turns the keyframe at or
//! before the target into a preview in the time one thread takes to decode one picture.

use super::convert::{to_upload_layout, Converter};
use super::stream::upload_layout;
use super::VideoInfo;
use crate::video::anchors::AnchorTimes;
use crate::video::demux::{discard_other_streams, seek_backward};
use crate::video::format::FrameFormat;
use crate::video::index::FrameIndex;
use ffmpeg_next as ffmpeg;
use std::sync::Arc;

/// How many packets a seek may land before the keyframe the index knows (MPEG-TS lands near
/// the time asked, by a binary search of the file's timestamps).
const PASS_LIMIT: usize = 256;

pub struct KeyframeDecoder {
    decoder: ffmpeg::decoder::Video,
    converter: Option<Converter>,
    info: VideoInfo,
    stream_index: usize,
    /// The stream's frames come in their own size and sampling (`follow_format_changes`): a
    /// keyframe of another shape than the ring's is no preview (it is not scaled to it).
    follows: bool,
    /// The stream's frame index: where it knows the keyframe, the one to land on.
    index: Arc<FrameIndex>,
    /// The file, opened again on first use (None until then, or if that failed).
    input: Option<ffmpeg::format::context::Input>,
    tried_input: bool,
}

impl KeyframeDecoder {
    /// A one-thread software decoder for the stream `parameters` describe, giving frames in
    /// the upload layout asked for, scaled to it unless the stream `follows` its frames'
    /// shapes; None if it can't be opened.
    pub(super) fn open(
        parameters: ffmpeg::codec::Parameters,
        info: &VideoInfo,
        stream_index: usize,
        follows: bool,
        index: Arc<FrameIndex>,
    ) -> Option<Self> {
        let mut context = ffmpeg::codec::context::Context::from_parameters(parameters).ok()?;
        context.set_threading(ffmpeg::threading::Config {
            kind: ffmpeg::threading::Type::Frame,
            count: 1,
            ..Default::default()
        });
        // SAFETY: the context is not open yet; the callback is FFmpeg's to call.
        unsafe { (*context.as_mut_ptr()).get_buffer2 = Some(crate::video::memory::get_buffer2) };
        let decoder = context.decoder().video().ok()?;
        Some(Self {
            decoder,
            converter: None,
            info: info.clone(),
            stream_index,
            follows,
            index,
            input: None,
            tried_input: false,
        })
    }

    /// Opens the file for this decoder's own reading, if not yet done (it takes as long as
    /// opening the file did: done ahead of the first preview where possible).
    pub fn prepare(&mut self) {
        if !self.tried_input {
            self.tried_input = true;
            self.input = crate::video::input::open(&self.info.path, &Default::default())
                .map(|mut input| {
                    discard_other_streams(&mut input, self.stream_index);
                    input
                })
                .map_err(|e| log::debug!("keyframe previews: cannot open the file again: {e}"))
                .ok();
        }
    }

    /// The picture of the keyframe at or before `pts` (its pts, and the frame in `format`'s
    /// upload layout, the ring's); None where the demuxer doesn't land on a keyframe at or
    /// before it, or where the stream follows its frames' shapes and this one has another.
    pub fn decode_at(&mut self, pts: i64, format: &FrameFormat) -> Option<(i64, ffmpeg::frame::Video)> {
        let packet = self.keyframe_at(pts)?;
        self.decode(&packet, format)
    }

    /// The packet of the keyframe at or before `pts`, its pts set where the stream's decoder
    /// would time its frame otherwise than by its dts.
    fn keyframe_at(&mut self, pts: i64) -> Option<ffmpeg::Packet> {
        self.prepare();
        let anchors = AnchorTimes::new(self.decoder.id());
        let stream_index = self.stream_index;
        let input = self.input.as_mut()?;
        // Where the file's timestamps start over, the keyframe's byte, as the index found it.
        let clock = crate::video::continuity::FileClock::of(&self.info.path).filter(|c| c.jumped());
        let read = |input: &mut ffmpeg::format::context::Input| -> Option<ffmpeg::Packet> {
            let mut packet = ffmpeg::Packet::empty();
            loop {
                packet.read(input).ok()?;
                if packet.stream() == stream_index {
                    break;
                }
            }
            if let Some(clock) = &clock {
                let offset = clock.offset_at(stream_index, packet.position() as i64);
                crate::video::continuity::shift(&mut packet, offset);
            }
            Some(packet)
        };
        // Where the index knows the keyframe, the seek heads for it, and packets before it are
        // passed over: demuxers that seek by timestamp alone (MPEG-TS) land on a packet near
        // the time asked, keyframe or not.
        let keyframe = self.index.keyframe_at_or_before(pts);
        // A demuxer that seeks by dts may land on a keyframe shown after `pts`: once more,
        // from before it.
        let mut seek_to = keyframe.unwrap_or(pts);
        for _ in 0..2 {
            let sought = match &clock {
                Some(clock) => {
                    let (_, pos) = clock.keyframe_at_or_before(seek_to)?;
                    crate::video::continuity::seek_to_byte(input, pos)
                }
                None => seek_backward(input, stream_index, seek_to),
            };
            if !sought {
                return None;
            }
            let mut packet = read(input)?;
            let mut passed = 0;
            // (A landing a GOP early passes over its keyframe too, unless the one asked for is
            // beyond reach: then that earlier one is the preview.)
            let early = |p: &ffmpeg::Packet| keyframe.is_some_and(|k| p.pts().is_some_and(|t| t < k));
            let mut earlier = None;
            while !packet.is_key() || early(&packet) {
                if packet.is_key() {
                    earlier = Some(packet.clone());
                }
                if keyframe.is_none() || passed == PASS_LIMIT {
                    packet = earlier.take()?;
                    break;
                }
                passed += 1;
                packet = read(input)?;
            }
            // An anchor picture without a pts (a program stream's, an AVI's) is timed as the
            // stream's decoder times its frame: by the next anchor's dts (`AnchorTimes`).
            if let (None, Some(dts), true) = (packet.pts(), packet.dts(), anchors.delays()) {
                while let Some(next) = read(input) {
                    if AnchorTimes::is_anchor(next.pts(), next.dts()) {
                        packet.set_pts(Some(next.dts().filter(|&d| d > dts).unwrap_or(dts)));
                        break;
                    }
                }
            }
            let at = packet.pts().or(packet.dts())?;
            if at <= pts {
                return Some(packet);
            }
            seek_to = packet.dts().unwrap_or(at).min(seek_to).saturating_sub(1);
            if clock.is_some() {
                return None;
            }
        }
        None
    }

    /// The picture of a keyframe packet, in `format`'s upload layout, with its pts; None if it
    /// doesn't decode by itself, or is of another shape than `format` where the stream follows
    /// its frames' shapes.
    pub fn decode(&mut self, packet: &ffmpeg::Packet, format: &FrameFormat) -> Option<(i64, ffmpeg::frame::Video)> {
        let pts = packet.pts().or(packet.dts())?;
        let sent = self.decoder.send_packet(packet).is_ok() && self.decoder.send_eof().is_ok();
        let mut frame = ffmpeg::frame::Video::empty();
        let decoded = sent && self.decoder.receive_frame(&mut frame).is_ok();
        // Ready for the next keyframe, whatever became of this one.
        self.decoder.flush();
        if !decoded {
            return None;
        }
        // SAFETY: reading two plain fields of a valid frame.
        let (error_flags, flags) = unsafe { ((*frame.as_ptr()).decode_error_flags, (*frame.as_ptr()).flags) };
        if error_flags != 0 || flags & ffmpeg::ffi::AV_FRAME_FLAG_CORRUPT != 0 {
            return None;
        }
        let pts = frame.pts().unwrap_or(pts);
        if self.follows && !of_shape(&frame, format) {
            log::debug!(
                "keyframe preview of pts {pts}: {}x{}, not the ring's {}x{}",
                frame.width(),
                frame.height(),
                format.width,
                format.height
            );
            return None;
        }
        // (Following, the ring's shape was described from its own frames: their range too.)
        let decoded_range = match self.follows {
            true => format.color.range,
            false => self.info.decoded_range,
        };
        let frame = to_upload_layout(format, decoded_range, (&mut self.converter, None), frame)
            .map_err(|e| log::debug!("keyframe preview: {e}"))
            .ok()?;
        Some((pts, frame))
    }

    /// The stream's description (for frame times; its format is the stream's first).
    pub fn info(&self) -> &VideoInfo {
        &self.info
    }
}

/// Whether a decoded frame is of `format`'s size and sampling, as a frame the stream follows
/// is described (`VideoSource::follow_format`).
fn of_shape(frame: &ffmpeg::frame::Video, format: &FrameFormat) -> bool {
    let layout = upload_layout(frame.format());
    layout.is_some_and(|(layout, _)| layout == format.layout)
        && (frame.width(), frame.height()) == (format.width, format.height)
}
