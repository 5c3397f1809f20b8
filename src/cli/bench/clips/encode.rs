//! A clip re-encoded by libx264 (or libx265, 10-bit, tagged HDR10) at a chosen size, frame rate
//! and GOP: the input's frames scaled, repeated or dropped by their timestamps, and looped when
//! the input is shorter; or interlaced, each frame woven from two fields taken at twice the rate
//! (as FFmpeg's `fps=2R,interlace=scan=tff:lowpass=0` makes them) and coded as fields.

use super::{create_output, open_input, read_error, write_error, ClipMakeError, Unfinished};
use crate::video::demux::seek_backward;
use ffmpeg::format::context::{Input, Output};
use ffmpeg::format::Pixel;
use ffmpeg::software::scaling;
use ffmpeg::{Rational, Rescale};
use ffmpeg_next as ffmpeg;
use std::path::{Path, PathBuf};

/// What `encode_clip` makes: `frames` frames of `codec` at `width` x `height` and `fps`, a
/// keyframe at least every `gop` frames, with the encoder's `preset` and `crf`.
#[derive(Clone, Debug)]
pub struct ClipSpec {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub gop: u32,
    pub frames: u64,
    pub preset: String,
    pub crf: u32,
    pub codec: ClipCodec,
    /// Interlaced, with this field first (H.264 only).
    pub interlace: Option<FieldFirst>,
}

/// Which field of an interlaced clip's frames comes first in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldFirst {
    Top,
    Bottom,
}

/// The clip's codec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipCodec {
    /// H.264, 8-bit 4:2:0, colours as the input's.
    #[default]
    H264,
    /// HEVC Main10 4:2:0 tagged HDR10 (BT.2020, PQ): the input's picture scaled into 10 bits
    /// as it is, not remastered, which is the same work for every step that plays it.
    HevcMain10Pq,
}

impl ClipCodec {
    fn encoder(self) -> &'static str {
        match self {
            ClipCodec::H264 => "libx264",
            ClipCodec::HevcMain10Pq => "libx265",
        }
    }

    fn pixel_format(self) -> Pixel {
        match self {
            ClipCodec::H264 => Pixel::YUV420P,
            ClipCodec::HevcMain10Pq => Pixel::YUV420P10LE,
        }
    }
}

/// x264's presets; x265 has the same names.
const X264_PRESETS: &str = "ultrafast superfast veryfast faster fast medium slow slower veryslow placebo";

impl ClipSpec {
    fn check(&self) -> Result<(), ClipMakeError> {
        let bad = |reason: String| Err(ClipMakeError::BadRequest(reason));
        if self.width == 0 || self.height == 0 || self.width % 2 == 1 || self.height % 2 == 1 {
            return bad(format!(
                "a yuv420p clip needs an even width and height, not {}x{}",
                self.width, self.height
            ));
        }
        if !(1..=1000).contains(&self.fps) {
            return bad(format!(
                "the frame rate must be 1 to 1000 frames a second, not {}",
                self.fps
            ));
        }
        if !(1..=100_000).contains(&self.gop) {
            return bad(format!("the GOP must be 1 to 100000 frames, not {}", self.gop));
        }
        if self.frames == 0 {
            return bad("a clip needs at least one frame".into());
        }
        if !X264_PRESETS.split(' ').any(|preset| preset == self.preset) {
            return bad(format!("'{}' is not an x264 preset ({X264_PRESETS})", self.preset));
        }
        if self.crf > 51 {
            return bad(format!("x264's crf goes from 0 to 51, not {}", self.crf));
        }
        if self.interlace.is_some() && self.codec != ClipCodec::H264 {
            return bad("only an H.264 clip is made interlaced".into());
        }
        if self.interlace.is_some() && self.height % 4 != 0 {
            return bad(format!(
                "an interlaced yuv420p clip needs a height a multiple of 4 (two fields of even height), not {}",
                self.height
            ));
        }
        if self.interlace.is_some() && self.fps > 500 {
            return bad(format!(
                "an interlaced clip takes its fields at twice its rate: at most 500 frames a second, not {}",
                self.fps
            ));
        }
        Ok(())
    }
}

/// A decoded frame and where it starts on the looped timeline, in ticks of the stream.
struct TimedFrame {
    start: i64,
    frame: ffmpeg::frame::Video,
}

/// A file's video frames, decoded again and again from the start, on one timeline that runs on
/// across the repetitions: a frame of pass k starts at k·period + (its pts − the first pts).
struct LoopedVideo {
    path: PathBuf,
    input: Input,
    stream_index: usize,
    decoder: ffmpeg::decoder::Video,
    time_base: Rational,
    /// Ticks the last frame lasts when the stream doesn't say.
    nominal_duration: i64,
    /// The pts of the first frame: the timeline's zero.
    origin: Option<i64>,
    /// Ticks one pass lasts, known once the first pass has ended.
    period: Option<i64>,
    passes_done: i64,
    /// Offset from the origin and duration of the last frame given out in this pass.
    last_in_pass: Option<(i64, i64)>,
    eof_sent: bool,
}

impl LoopedVideo {
    fn open(path: &Path) -> Result<Self, ClipMakeError> {
        let input = open_input(path)?;
        let stream = input
            .streams()
            .best(ffmpeg::media::Type::Video)
            .ok_or_else(|| ClipMakeError::NoVideo(path.to_owned()))?;
        let stream_index = stream.index();
        let time_base = stream.time_base();
        let rate = stream.avg_frame_rate();
        let nominal_duration = if rate.numerator() > 0 && rate.denominator() > 0 {
            1.rescale(rate.invert(), time_base).max(1)
        } else {
            1.rescale((1, 25), time_base).max(1)
        };
        let mut context =
            ffmpeg::codec::context::Context::from_parameters(stream.parameters()).map_err(|e| read_error(path, e))?;
        let threads = std::thread::available_parallelism().map_or(4, |n| n.get()).min(16);
        context.set_threading(ffmpeg::threading::Config {
            kind: ffmpeg::threading::Type::Frame,
            count: threads,
            ..Default::default()
        });
        let decoder = context
            .decoder()
            .video()
            .map_err(|e| read_error(path, format!("no decoder for its video: {e}")))?;
        Ok(Self {
            path: path.to_owned(),
            input,
            stream_index,
            decoder,
            time_base,
            nominal_duration,
            origin: None,
            period: None,
            passes_done: 0,
            last_in_pass: None,
            eof_sent: false,
        })
    }

    /// The next frame in presentation order; after the last one, the first again. Damaged
    /// packets are skipped.
    fn next_frame(&mut self) -> Result<TimedFrame, ClipMakeError> {
        let mut frame = ffmpeg::frame::Video::empty();
        loop {
            match self.decoder.receive_frame(&mut frame) {
                Ok(()) => {
                    if let Some(start) = self.place(&frame) {
                        return Ok(TimedFrame { start, frame });
                    }
                    continue;
                }
                Err(ffmpeg::Error::Eof) => {
                    self.start_again()?;
                    continue;
                }
                Err(_) if self.eof_sent => {
                    self.start_again()?;
                    continue;
                }
                Err(_) => {}
            }
            let mut packet = ffmpeg::Packet::empty();
            match packet.read(&mut self.input) {
                Ok(()) => {
                    if packet.stream() == self.stream_index {
                        let _ = self.decoder.send_packet(&packet);
                    }
                }
                // A read error mid-file: what was read is the whole pass.
                Err(_) => {
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
            }
        }
    }

    /// Where a decoded frame starts on the timeline, or None for one that would not come after
    /// the frame before it (broken timestamps), which is dropped.
    fn place(&mut self, frame: &ffmpeg::frame::Video) -> Option<i64> {
        let offset = match frame.timestamp().or(frame.pts()) {
            Some(pts) => pts - *self.origin.get_or_insert(pts),
            None => self.last_in_pass.map_or(0, |(offset, duration)| offset + duration),
        };
        let after_last = self.last_in_pass.is_none_or(|(last, _)| offset > last);
        let in_period = self.period.is_none_or(|period| offset < period);
        if offset < 0 || !after_last || !in_period {
            return None;
        }
        let duration = match frame.packet().duration {
            d if d > 0 => d,
            _ => self.nominal_duration,
        };
        self.last_in_pass = Some((offset, duration));
        Some(self.passes_done * self.period.unwrap_or(0) + offset)
    }

    /// At the end of a pass: back to the start for the next one.
    fn start_again(&mut self) -> Result<(), ClipMakeError> {
        let Some((last, duration)) = self.last_in_pass else {
            return Err(if self.passes_done == 0 {
                ClipMakeError::NoFrames(self.path.clone())
            } else {
                read_error(&self.path, "no frames after seeking back to the start")
            });
        };
        self.period.get_or_insert((last + duration).max(1));
        let origin = self.origin.unwrap_or(0);
        if !seek_backward(&mut self.input, self.stream_index, origin) {
            self.input
                .seek(0, ..)
                .map_err(|e| read_error(&self.path, format!("cannot seek back to the start: {e}")))?;
        }
        self.decoder.flush();
        self.eof_sent = false;
        self.passes_done += 1;
        self.last_in_pass = None;
        Ok(())
    }

    /// Whether a frame starting at `start` is on screen by output frame `index` at `fps`.
    fn starts_by(&self, start: i64, index: u64, fps: u32) -> bool {
        let (num, den) = (
            i128::from(self.time_base.numerator()),
            i128::from(self.time_base.denominator()),
        );
        i128::from(start) * num * i128::from(fps) <= i128::from(index) * den
    }
}

/// Scales decoded frames to the clip's size in yuv420p; remade when the input's size or format
/// changes mid-stream.
struct ClipScaler {
    context: Option<scaling::Context>,
    width: u32,
    height: u32,
    format: Pixel,
}

impl ClipScaler {
    fn scale(&mut self, frame: &ffmpeg::frame::Video) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
        let stale = self.context.as_ref().is_none_or(|c| {
            c.input().format != frame.format() || c.input().width != frame.width() || c.input().height != frame.height()
        });
        if stale {
            self.context = Some(scaling::Context::get(
                frame.format(),
                frame.width(),
                frame.height(),
                self.format,
                self.width,
                self.height,
                scaling::Flags::BICUBIC,
            )?);
        }
        // A new picture each time: the encoder may still hold the one before.
        let mut scaled = ffmpeg::frame::Video::empty();
        if let Some(context) = self.context.as_mut() {
            context.run(frame, &mut scaled)?;
        }
        Ok(scaled)
    }
}

/// The encoder and the file it writes into.
struct ClipWriter {
    path: PathBuf,
    output: Output,
    encoder: ffmpeg::encoder::Video,
    time_base: Rational,
    stream_time_base: Rational,
    packets: u64,
}

impl ClipWriter {
    /// Tags the clip with the colours of `first` as they are after scaling to yuv420p, or as
    /// HDR10 for HEVC Main10.
    fn create(
        mut output: Output,
        path: &Path,
        codec: ffmpeg::Codec,
        spec: &ClipSpec,
        first: &ffmpeg::frame::Video,
    ) -> Result<Self, ClipMakeError> {
        let global_header = output.format().flags().contains(ffmpeg::format::Flags::GLOBAL_HEADER);
        let time_base = Rational::new(1, spec.fps as i32);
        let mut encoder = ffmpeg::codec::context::Context::new_with_codec(codec)
            .encoder()
            .video()
            .map_err(|e| write_error(path, e))?;
        encoder.set_width(spec.width);
        encoder.set_height(spec.height);
        encoder.set_format(spec.codec.pixel_format());
        encoder.set_time_base(time_base);
        encoder.set_frame_rate(Some(Rational::new(spec.fps as i32, 1)));
        encoder.set_gop(spec.gop);
        match spec.codec {
            ClipCodec::H264 => set_colours(&mut encoder, first),
            ClipCodec::HevcMain10Pq => {
                use ffmpeg::color::{Primaries, Range, Space, TransferCharacteristic};
                encoder.set_colorspace(Space::BT2020NCL);
                encoder.set_color_primaries(Primaries::BT2020);
                encoder.set_color_transfer_characteristic(TransferCharacteristic::SMPTE2084);
                encoder.set_color_range(Range::MPEG);
            }
        }
        let mut flags = ffmpeg::codec::Flags::empty();
        if global_header {
            flags |= ffmpeg::codec::Flags::GLOBAL_HEADER;
        }
        if spec.interlace.is_some() {
            // (FFmpeg's `-flags +ilme+ildct`: x264 codes the frames as fields.)
            flags |= ffmpeg::codec::Flags::INTERLACED_DCT | ffmpeg::codec::Flags::INTERLACED_ME;
        }
        encoder.set_flags(flags);
        let mut options = ffmpeg::Dictionary::new();
        options.set("preset", &spec.preset);
        options.set("crf", &spec.crf.to_string());
        match spec.interlace {
            Some(FieldFirst::Top) => options.set("x264-params", "tff=1"),
            Some(FieldFirst::Bottom) => options.set("x264-params", "bff=1"),
            None => {}
        }
        if spec.codec == ClipCodec::HevcMain10Pq {
            options.set("x265-params", "log-level=error:keyint-min=1:scenecut=0");
        }
        let name = spec.codec.encoder();
        let encoder = encoder
            .open_with(options)
            .map_err(|e| write_error(path, format!("{name} would not start: {e}")))?;
        let mut stream = output.add_stream(codec).map_err(|e| write_error(path, e))?;
        stream.set_parameters(&encoder);
        stream.set_time_base(time_base);
        stream.set_avg_frame_rate(Rational::new(spec.fps as i32, 1));
        output.write_header().map_err(|e| write_error(path, e))?;
        let stream_time_base = output.stream(0).map_or(time_base, |s| s.time_base());
        Ok(Self {
            path: path.to_owned(),
            output,
            encoder,
            time_base,
            stream_time_base,
            packets: 0,
        })
    }

    fn write(&mut self, frame: &ffmpeg::frame::Video) -> Result<(), ClipMakeError> {
        self.encoder
            .send_frame(frame)
            .map_err(|e| write_error(&self.path, format!("the encoder refused a frame: {e}")))?;
        self.write_packets()
    }

    /// Drains the encoder and closes the file; returns the frames written.
    fn finish(mut self) -> Result<u64, ClipMakeError> {
        self.encoder.send_eof().map_err(|e| write_error(&self.path, e))?;
        self.write_packets()?;
        self.output.write_trailer().map_err(|e| write_error(&self.path, e))?;
        Ok(self.packets)
    }

    fn write_packets(&mut self) -> Result<(), ClipMakeError> {
        let mut packet = ffmpeg::Packet::empty();
        loop {
            match self.encoder.receive_packet(&mut packet) {
                Ok(()) => {}
                Err(ffmpeg::Error::Eof) => return Ok(()),
                Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::error::EAGAIN => return Ok(()),
                Err(e) => return Err(write_error(&self.path, format!("the encoder failed: {e}"))),
            }
            packet.set_stream(0);
            if packet.duration() <= 0 {
                packet.set_duration(1);
            }
            packet.rescale_ts(self.time_base, self.stream_time_base);
            packet
                .write_interleaved(&mut self.output)
                .map_err(|e| write_error(&self.path, e))?;
            self.packets += 1;
        }
    }
}

/// A frame of two fields: `earlier` (a copy of its own) keeps its lines in the field that comes
/// first (`order`) and takes `later`'s in the other, every plane's lines taken by their parity (as FFmpeg's `interlace` filter
/// weaves them with its low-pass filter off); flagged interlaced, in that order.
fn weave(earlier: ffmpeg::frame::Video, later: &ffmpeg::frame::Video, order: FieldFirst) -> ffmpeg::frame::Video {
    let mut woven = earlier;
    // The parity of the lines the later field gives.
    let later_parity = match order {
        FieldFirst::Top => 1,
        FieldFirst::Bottom => 0,
    };
    for plane in 0..woven.planes() {
        let (stride, rows) = (woven.stride(plane), woven.plane_height(plane) as usize);
        let from_stride = later.stride(plane);
        let width = stride.min(from_stride);
        let source = later.data(plane);
        let target = woven.data_mut(plane);
        for row in (later_parity..rows).step_by(2) {
            target[row * stride..row * stride + width]
                .copy_from_slice(&source[row * from_stride..row * from_stride + width]);
        }
    }
    // SAFETY: a frame this function owns; plain fields.
    unsafe {
        let f = woven.as_mut_ptr();
        (*f).interlaced_frame = 1;
        (*f).top_field_first = i32::from(order == FieldFirst::Top);
    }
    woven
}

/// Colours as swscale leaves them in yuv420p: Y'CbCr keeps its matrix and primaries, full-range
/// "J" formats become limited, and RGB or grey inputs become limited BT.601 (swscale's default).
fn set_colours(encoder: &mut ffmpeg::encoder::video::Video, first: &ffmpeg::frame::Video) {
    use ffmpeg::color::{Range, Space};
    let format = first.format();
    let yuv = format.descriptor().is_some_and(|desc| {
        // SAFETY: a descriptor from FFmpeg's static table.
        let flags = unsafe { (*desc.as_ptr()).flags };
        desc.nb_components() >= 3 && flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB as u64 == 0
    });
    if !yuv {
        encoder.set_colorspace(Space::SMPTE170M);
        encoder.set_color_range(Range::MPEG);
        return;
    }
    let full_range_format = matches!(
        format,
        Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P | Pixel::YUVJ411P
    );
    encoder.set_colorspace(first.color_space());
    encoder.set_color_primaries(first.color_primaries());
    encoder.set_color_transfer_characteristic(first.color_transfer_characteristic());
    encoder.set_color_range(if full_range_format {
        Range::MPEG
    } else {
        first.color_range()
    });
}

/// Encodes `spec.frames` frames of `input`'s video with `spec.codec` into `output`: each frame scaled
/// to the spec's size, and the rate changed to `spec.fps` by repeating or dropping frames (output
/// frame i shows the input frame on screen at i/fps), looping the input as often as needed.
/// Returns the frames written.
pub fn encode_clip(input: &Path, output: &Path, spec: &ClipSpec) -> Result<u64, ClipMakeError> {
    spec.check()?;
    let mut source = LoopedVideo::open(input)?;
    let name = spec.codec.encoder();
    let codec = ffmpeg::encoder::find_by_name(name).ok_or(ClipMakeError::NoEncoder(name))?;
    let first = source.next_frame()?;
    let octx = create_output(input, output)?;
    let unfinished = Unfinished(Some(output));
    let mut writer = ClipWriter::create(octx, output, codec, spec, &first.frame)?;
    let mut scaler = ClipScaler {
        context: None,
        width: spec.width,
        height: spec.height,
        format: spec.codec.pixel_format(),
    };
    let scale_error = |e: ffmpeg::Error| read_error(input, format!("cannot scale its frames: {e}"));
    let mut shown = scaler.scale(&first.frame).map_err(scale_error)?;
    let mut due = source.next_frame()?;
    // Interlaced, a picture a field, at twice the rate.
    let (pictures, rate) = match spec.interlace {
        Some(_) => (2 * spec.frames, 2 * spec.fps),
        None => (spec.frames, spec.fps),
    };
    let mut first_field = None;
    for picture in 0..pictures {
        // Only the last of the frames that came on screen since the picture before is scaled:
        // the others are dropped.
        let mut newest = None;
        while source.starts_by(due.start, picture, rate) {
            let next = source.next_frame()?;
            newest = Some(std::mem::replace(&mut due, next).frame);
        }
        if let Some(frame) = newest {
            shown = scaler.scale(&frame).map_err(scale_error)?;
        }
        let Some(order) = spec.interlace else {
            shown.set_pts(Some(picture as i64));
            writer.write(&shown)?;
            continue;
        };
        match first_field.take() {
            None => first_field = Some(shown.clone()),
            Some(earlier) => {
                let mut frame = weave(earlier, &shown, order);
                frame.set_pts(Some((picture / 2) as i64));
                writer.write(&frame)?;
            }
        }
    }
    let frames = writer.finish()?;
    unfinished.done();
    Ok(frames)
}
