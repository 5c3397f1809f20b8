//! One video stream of a file, demuxed and decoded by FFmpeg, frames in presentation order with
//! their pts and frame number (from the background frame index). Used by the decode thread;
//! knows nothing of GPUs.

mod frames;
pub mod hardware;
mod keyframe;
mod open;
mod stream;
pub mod tap;

use frames::Scaler;
pub use frames::{picture_type, Decoded, DecodedFrame, PacketProps, Samples};
use hardware::NalFraming;
pub use keyframe::KeyframeDecoder;
pub use open::Decoding;
use stream::{
    color_volume, dolby_vision, fallback_format, matrix_of, native_layout, quarter_turns, range_of, upload_format,
};
pub(crate) use stream::{discard_other_streams, read_streams, seek_backward};

use super::format::{FrameFormat, FrameLight, PlaneData, PlaneLayout};
use super::index::{FrameIndex, FrameNumber};
use super::interop::{CudaStream, FramePath, GpuFrameStore, GpuPlanes, Transfers};
use crate::colour::{ColorSpec, ColorVolume, LogEncoding};
use ffmpeg::format::Pixel;
use ffmpeg::software::scaling;
use ffmpeg_next as ffmpeg;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum VideoError {
    #[error("cannot open '{path}': {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("'{0}' is a directory, not a file")]
    Directory(PathBuf),
    #[error("'{path}' is not a picture or video histoplay can read ({reason})")]
    NotMedia { path: PathBuf, reason: String },
    #[error("'{0}' has no video stream")]
    NoVideo(PathBuf),
    #[error("'{path}': no decoder for its {codec} video")]
    UnsupportedCodec { path: PathBuf, codec: String },
    #[error("'{path}': {reason}")]
    Decode { path: PathBuf, reason: String },
}

/// Where the decoder should land.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeekTarget {
    /// The frame whose display interval holds this time (exact), or the keyframe at or before it.
    Time { seconds: f64, exact: bool },
    /// Frame number `n` in presentation order (exact once the index has read that far; until
    /// then the frame at `n`'s estimated time).
    Frame(u64),
    /// The frame just before the one with this pts (a step back).
    Before(i64),
    /// The last frame.
    End,
}

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

    pub fn seconds(&self, pts: i64) -> f64 {
        pts as f64 * f64::from(self.time_base.0) / f64::from(self.time_base.1)
    }

    /// The pts of the tick a time falls in (rounded down: a time inside a frame's display
    /// interval belongs to that frame).
    pub fn pts_at(&self, seconds: f64) -> i64 {
        (seconds * f64::from(self.time_base.1) / f64::from(self.time_base.0) + 1e-6).floor() as i64
    }
}

pub struct VideoSource {
    pub info: VideoInfo,
    input: ffmpeg::format::context::Input,
    stream_index: usize,
    decoder: ffmpeg::decoder::Video,
    hardware: Option<hardware::Attached>,
    /// Hardware frames left in the device's memory for the thread that uses them to copy back
    /// (`defer_copies`); None: copied as decoded.
    deferrals: Option<hardware::Deferrals>,
    /// How the stream's H.264 packets are framed, when a seek that lands on an IDR picture
    /// keeps the decoder as it is (see `set_keep_decoder_on_seek`).
    keep_decoder: Option<NalFraming>,
    /// Made once per stream when its format needs converting (and again only if it changes).
    scaler: Option<Scaler>,
    /// Frame numbers, read in the background.
    index: Arc<FrameIndex>,
    /// Wait for the index to number each frame exactly (`hist`), rather than estimate.
    exact_numbers: bool,
    /// Frames are given out as decoded (`keep_decoded_planes`), not in the upload layout.
    decoded_planes: bool,
    /// Pts and number of the last frame this run gave out.
    last_pts: Option<i64>,
    last_number: Option<FrameNumber>,
    /// Frames given out since the stream's start, while no seek has intervened: the numbers
    /// of a stream whose packets carry no timestamps (the index can't number it).
    counted: Option<u64>,
    run: Run,
    eof_sent: bool,
    damaged_packets: u64,
    /// Set to make a blocking read give up (the source is being closed).
    interrupt: crate::video::input::Interrupt,
    /// The frames' size when the stream opened, and the other size last warned of.
    decoded_size: ((u32, u32), Option<(u32, u32)>),
    /// Frames of another size or sampling become the stream's format (`follow_format_changes`)
    /// instead of being scaled to the first.
    follow_formats: bool,
    /// The connection was lost with this error: opened again once the decoder is drained.
    lost: Option<ffmpeg::Error>,
    /// When a lost connection is opened again (`input::reconnects`).
    reconnects: crate::video::input::Reconnect,
    /// A live input's timestamps kept running on where it starts over; None for a file.
    continuity: Option<crate::video::input::Continuity>,
    /// When the last packets of a live input were read, by pts.
    arrivals: std::collections::VecDeque<(i64, std::time::Instant)>,
    /// The frames' timecodes, where the stream carries them.
    timecodes: crate::video::timecode::TimecodeReader,
    /// The input's best audio stream's packets, handed on as read (a live input's sound).
    audio_tap: Option<(usize, Arc<tap::PacketWindow>)>,
    /// Where the packets read are written as they are (`--record`).
    /// Recordings of the packets as they are read (`--record`, a QC report's pipe).
    recorders: Vec<crate::video::record::Recording>,
    /// The stream's codec parameters, for a keyframe decoder beside this one.
    parameters: ffmpeg::codec::Parameters,
    /// NVDEC frames are copied here on the GPU (`keep_on_gpu`).
    gpu_store: Option<Arc<GpuFrameStore>>,
    /// Makes `gpu_store` with the first frame that can go there (`keep_on_gpu_from`).
    gpu_store_maker: Option<GpuStoreMaker>,
    /// Which path the frames take to the GPU, as other threads see it.
    frame_path: Arc<Mutex<FramePath>>,
    /// Bytes of its frames copied back from a hardware decoder, and (counted by whoever
    /// uploads them) uploaded.
    transfers: Arc<Transfers>,
}

/// Another stream of the input, its packets handed on as the decoder reads them.
#[derive(Clone)]
pub struct Tapped {
    pub stream_index: usize,
    pub parameters: ffmpeg::codec::Parameters,
    pub time_base: ffmpeg::Rational,
    /// Its packets as they are read, the last ones kept.
    pub packets: Arc<tap::PacketWindow>,
}

/// Packets of a live input whose arrival is remembered until their frames are decoded (far more
/// than a decoder holds back).
const ARRIVALS_KEPT: usize = 128;

/// Makes a stream's GPU frame cache, or says why it can't.
pub type GpuStoreMaker = Box<dyn FnOnce() -> Result<Arc<GpuFrameStore>, String> + Send>;

/// Up to what a decode run may skip frames, to land sooner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatchUp {
    /// The run is headed for the last frame at or before this pts.
    pub limit: i64,
    /// Frames from this pts on are all decoded (they are kept for steps back).
    pub keep_from: i64,
    /// Frames before `keep_from` that the decoder does decode (other frames reference them) are
    /// given out as passed, pts only: not copied back from a hardware decoder or converted. The
    /// run's first frame is given out whole all the same (it may be shown as a preview).
    pub pass: bool,
}

/// What the decoder has been given since the last seek.
#[derive(Debug, Default)]
struct Run {
    /// The run began with a seek (not at the stream's start, where every frame decodes).
    after_seek: bool,
    /// Pts of the run's first packet: frames shown before it are leading pictures that need
    /// the previous GOP, broken after a seek.
    start: Option<i64>,
    catch_up: Option<CatchUp>,
    /// The largest packet pts at or before the catch-up limit seen so far.
    newest_before_limit: Option<i64>,
    /// Whether the decoder is set to skip frames nothing references, and whether it has been
    /// in this run.
    skipping: bool,
    skipped_any: bool,
    /// Pts of packets the decoder was allowed to skip (those it did never show).
    skippable: BTreeSet<i64>,
    /// Packets sent since the seek.
    packets: u64,
    /// Frames given out (or passed) since the seek.
    given: u64,
    /// The seek left the decoder as it was, to be flushed before the first packet unless that
    /// is an IDR picture.
    flush_pending: bool,
    /// While frames of the run before the seek may still come out of an unflushed decoder: the
    /// pts of the packets this run has sent. Frames with others are stale.
    stale_filter: Option<BTreeSet<i64>>,
    /// The keyframe a seek is headed for, until a keyframe at or before it is read: packets
    /// before one are passed over.
    to_keyframe: Option<ToKeyframe>,
}

/// A seek's keyframe, as the packets after the seek look for it.
#[derive(Clone, Copy, Debug)]
struct ToKeyframe {
    pts: i64,
    /// Seeks made again, each further back, after landing past it.
    tries: u32,
    /// Packets passed over so far.
    passed: u32,
}

/// Packets passed over looking for a seek's keyframe before decoding from where it is anyway
/// (a stream whose keyframes the demuxer does not flag).
const KEYFRAME_SEARCH_PACKETS: u32 = 1000;

/// What a packet read after a seek does.
enum Landed {
    /// Decode it (the run has its keyframe).
    Send,
    /// Pass it over: the keyframe is still to come.
    Pass,
    /// The seek landed past the keyframe: seek again, further back.
    Again,
}

impl VideoSource {
    /// Delivers frames in `layout` at `width` x `height` from now on, converted and scaled by
    /// swscale (bicubic) where they are not (a file compared with a reference of another size
    /// or depth).
    pub fn convert_to(&mut self, layout: PlaneLayout, width: u32, height: u32) {
        self.info.format.layout = layout;
        self.info.format.width = width;
        self.info.format.height = height;
    }

    /// A decoder for this stream's keyframes by themselves, for seek previews; None where the
    /// stream decodes on a hardware decoder, which gives out its first frame soon enough (and
    /// where a keyframe in software would take longer), or if it can't be opened.
    pub fn keyframe_decoder(&self) -> Option<KeyframeDecoder> {
        // (A live input can't be opened a second time.)
        if self.hardware.is_some() || self.info.live {
            return None;
        }
        KeyframeDecoder::open(self.parameters.clone(), &self.info, self.stream_index)
    }

    /// What makes this source's blocking reads give up, from another thread (before it is
    /// stopped and dropped).
    pub fn interrupter(&self) -> crate::video::input::Interrupt {
        self.interrupt.clone()
    }

    /// The input's best audio stream, its packets handed on from now on as the decoder reads
    /// them: a live input's sound (it can't be opened a second time). None without one.
    pub fn tap_audio(&mut self) -> Option<Tapped> {
        let stream = self.input.streams().best(ffmpeg::media::Type::Audio)?;
        let (stream_index, parameters, time_base) = (stream.index(), stream.parameters(), stream.time_base());
        read_streams(&mut self.input, [stream_index]);
        let packets = Arc::new(tap::PacketWindow::default());
        self.audio_tap = Some((stream_index, Arc::clone(&packets)));
        Some(Tapped {
            stream_index,
            parameters,
            time_base,
            packets,
        })
    }

    /// Writes the packets of the stream and of the input's best audio stream to `path` as they
    /// are read from now on (`--record`), without re-encoding; the file is finished when the
    /// source is dropped.
    pub fn record_to(&mut self, path: &Path) -> Result<(), VideoError> {
        let recorder =
            crate::video::record::Recording::create(path, &self.input, self.stream_index).map_err(|reason| {
                VideoError::Open {
                    path: path.to_owned(),
                    reason,
                }
            })?;
        // The audio stream's packets are read again, to be written.
        read_streams(&mut self.input, recorder.inputs());
        self.recorders.push(recorder);
        Ok(())
    }

    /// Hands the video stream's packets, as they are read from now on, to a reader in this
    /// process: the location it opens them from (`input::internal_pipe`), as NUT. Its input
    /// ends when this source is dropped.
    pub fn share_packets(&mut self) -> Result<std::path::PathBuf, VideoError> {
        let failed = |reason: String| VideoError::Open {
            path: self.info.path.clone(),
            reason: format!("cannot share its packets: {reason}"),
        };
        let (location, writer) = crate::video::input::internal_pipe().map_err(|e| failed(e.to_string()))?;
        let recorder =
            crate::video::record::Recording::into_pipe(writer, &self.input, self.stream_index).map_err(failed)?;
        self.recorders.push(recorder);
        Ok(location)
    }

    /// The index of the video stream played among the file's streams.
    pub fn stream_index(&self) -> usize {
        self.stream_index
    }

    /// The stream's frame index (shared with the player's display).
    pub fn index(&self) -> &Arc<FrameIndex> {
        &self.index
    }

    /// Makes every frame wait for its exact number from the index (for `hist`, where frame K
    /// must be frame K); otherwise frames past the index get estimated numbers at once.
    pub fn set_exact_numbers(&mut self, exact: bool) {
        self.exact_numbers = exact;
    }

    pub fn exact_numbers(&self) -> bool {
        self.exact_numbers
    }

    /// The layout of the decoder's frames where they are planar Y'CbCr whose samples the GPU
    /// converter does not take as they are (4:1:1, 4:1:0, 4:4:0; 9, 14 or 16 bits): what
    /// `keep_decoded_planes` gives out. None for frames uploaded with their samples as decoded
    /// (an alpha plane dropped), or not Y'CbCr.
    pub fn converted_yuv_layout(&self) -> Option<PlaneLayout> {
        let format = self.decoder.format();
        if native_layout(format).is_some() {
            return None;
        }
        // (With alpha, or big-endian, of a sampling and depth the converter takes, the frames
        // are uploaded with those very samples.)
        stream::planar_yuv_layout(format).filter(|&layout| layout != self.info.format.layout)
    }

    /// Frames that come in another size or sampling mid-stream are given out as they are, and
    /// `info` describes them from then on (its `shape` changes), for a consumer that makes its
    /// ring again; without, they are scaled to the stream's first size and layout.
    pub fn follow_format_changes(&mut self) {
        self.follow_formats = true;
    }

    /// Gives frames out with the decoder's own planes (`converted_yuv_layout`), not converted
    /// to the upload layout: for readers of the samples themselves (`report`), never the GPU.
    pub fn keep_decoded_planes(&mut self) {
        self.decoded_planes = true;
    }

    /// Which path the stream's frames take to the GPU, shared with other threads.
    pub fn frame_path(&self) -> Arc<Mutex<FramePath>> {
        Arc::clone(&self.frame_path)
    }

    /// The stream's count of frame bytes that crossed between memory and the GPU.
    pub fn transfers(&self) -> Arc<Transfers> {
        Arc::clone(&self.transfers)
    }

    fn set_frame_path(&self, path: FramePath) {
        *self.frame_path.lock().unwrap_or_else(|e| e.into_inner()) = path;
    }

    /// The decoder's CUDA context and stream, where it decodes on NVDEC.
    pub fn cuda_stream(&self) -> Option<CudaStream> {
        match self.hardware {
            // SAFETY: the decoder's own codec context.
            Some(hw) if hw.name == "cuda" => unsafe { hardware::cuda_stream(self.decoder.as_ptr()) },
            _ => None,
        }
    }

    /// NVDEC frames go into the GPU frame cache `make` makes, with the first of them that the
    /// decoder gives out on the GPU in the stream's format (none for a stream it decodes in
    /// software after all, or whose frames are resized); until then the frame path is
    /// `Starting`.
    pub fn keep_on_gpu_from(&mut self, make: GpuStoreMaker) {
        if self.hardware.is_some() {
            self.set_frame_path(FramePath::Starting);
            self.gpu_store_maker = Some(make);
        }
    }

    /// The GPU frame cache the frames go into, once made.
    pub fn gpu_store(&self) -> Option<&Arc<GpuFrameStore>> {
        self.gpu_store.as_ref()
    }

    /// From now on NVDEC frames are copied into `store` on the GPU as they are decoded, and
    /// given out there (`Samples::Gpu`), when they fit it and it has room.
    fn keep_on_gpu(&mut self, store: Arc<GpuFrameStore>) {
        self.set_frame_path(FramePath::OnGpu {
            frames: store.capacity,
            frame_bytes: store.slot_bytes,
        });
        self.gpu_store = Some(store);
    }

    /// Says why frames of this hardware decoder go through memory.
    pub fn copy_through_memory(&self, reason: String) {
        if let Some(hw) = self.hardware {
            self.set_frame_path(FramePath::CopiedBack {
                decoder: hw.label(),
                reason,
            });
        }
    }

    /// Frames of a hardware decoder that can be copied back from another thread (NVDEC's) are
    /// given out still in the device's memory, a few at a time (`hardware::DEFERRED_COPIES`) and
    /// up to 4K (`hardware::DEFERRED_MAX_BYTES`), to be copied back on first use (`DecodedFrame::video`): the thread that decodes goes on
    /// meanwhile. Frames that aren't used at once should be copied back by the thread that
    /// keeps them, or they hold the decoder's surfaces (and the frames after them are copied
    /// as decoded).
    pub fn defer_copies(&mut self) {
        if self.hardware.is_some_and(|hw| hw.copies_elsewhere()) {
            self.deferrals = Some(hardware::Deferrals::default());
        }
    }

    /// Bytes this source has read of the file (its own IO, not the index's).
    pub fn bytes_read(&self) -> u64 {
        // SAFETY: a valid input context; pb is its IO context (null for some formats).
        unsafe {
            let pb = (*self.input.as_ptr()).pb;
            if pb.is_null() {
                0
            } else {
                (*pb).bytes_read.max(0) as u64
            }
        }
    }

    /// Positions the demuxer at the keyframe at or before `pts`; the next frames decoded start
    /// there. Returns false if the stream can't seek (then it restarts from the beginning).
    pub fn seek_before(&mut self, pts: i64) -> bool {
        // A live input is read once, as it comes: decoding goes on from where it is.
        if self.info.live {
            return false;
        }
        // Where the index knows the keyframe, packets before it are passed over: demuxers
        // that seek by timestamp alone (MPEG-TS) land on a packet near the time asked, keyframe
        // or not, and a GOP decoded from its middle gives out nothing.
        let keyframe = self.index.keyframe_at_or_before(pts);
        self.timecodes.restart();
        let sought = seek_backward(&mut self.input, self.stream_index, keyframe.unwrap_or(pts));
        if !sought {
            // SAFETY: a valid input context; seeking to the stream's start, backwards.
            let result = unsafe {
                ffmpeg::ffi::av_seek_frame(
                    self.input.as_mut_ptr(),
                    self.stream_index as i32,
                    i64::MIN / 2,
                    ffmpeg::ffi::AVSEEK_FLAG_BACKWARD,
                )
            };
            if result < 0 {
                let _ = self.input.seek(0, ..);
            }
        }
        // A drained decoder (end of stream sent) takes packets again only after a flush.
        let flush_pending = self.keep_decoder.is_some() && !self.eof_sent;
        if !flush_pending {
            self.decoder.flush();
        }
        self.eof_sent = false;
        self.last_pts = None;
        self.last_number = None;
        self.counted = if sought { None } else { Some(0) };
        // The decoder may still be skipping for the run before: it decodes every frame again.
        let skipping = self.run.skipping;
        self.run = Run {
            after_seek: true,
            flush_pending,
            skipping,
            to_keyframe: keyframe.filter(|_| sought).map(|pts| ToKeyframe {
                pts,
                tries: 0,
                passed: 0,
            }),
            ..Run::default()
        };
        self.apply_skipping(false);
        sought
    }

    /// Decodes towards `catch_up`'s limit as fast as possible: frames before its `keep_from`
    /// that nothing references are not decoded at all (as mpv does for exact seeks), unless
    /// they could be the frame the run is headed for. None decodes every frame.
    pub fn catch_up(&mut self, catch_up: Option<CatchUp>) {
        self.run.catch_up = catch_up;
        self.run.newest_before_limit = None;
        if catch_up.is_none() {
            self.apply_skipping(false);
        }
    }

    /// Makes seeks in an H.264 stream that land on an IDR picture keep the decoder's state
    /// instead of flushing it (dropping the frames of the previous run that come out first),
    /// as they do on a hardware decoder, where a flush costs a new decoder.
    pub fn set_keep_decoder_on_seek(&mut self, keep: bool) {
        self.keep_decoder = (keep && self.info.codec == "h264").then(|| {
            // SAFETY: the decoder's context is valid.
            unsafe { NalFraming::of_context(self.decoder.as_ptr()) }
        });
    }

    /// Pts of the last frame given out since the last seek: the decoder is right after it.
    pub fn position(&self) -> Option<i64> {
        self.last_pts
    }

    /// Pts of the first packet since the last seek (the keyframe the run started at).
    pub fn run_start(&self) -> Option<i64> {
        self.run.start
    }

    fn apply_skipping(&mut self, skip: bool) {
        if skip != self.run.skipping {
            self.decoder.skip_frame(if skip {
                ffmpeg::Discard::NonReference
            } else {
                ffmpeg::Discard::Default
            });
            self.run.skipping = skip;
            self.run.skipped_any |= skip;
        }
    }

    pub fn damaged_packets(&self) -> u64 {
        self.damaged_packets
    }

    /// The next frame in presentation order, or None at the end of the stream. Damaged packets
    /// are skipped with a warning: decoding goes on past them. Frames a catch-up run passes
    /// are left out.
    pub fn next_frame(&mut self) -> Result<Option<DecodedFrame>, VideoError> {
        loop {
            match self.next_decoded()? {
                Some(Decoded::Frame(frame)) => return Ok(Some(frame)),
                Some(Decoded::Passed { .. }) => {}
                None => return Ok(None),
            }
        }
    }

    /// The next frame in presentation order, whole or (on a catch-up run that passes frames)
    /// passed; None at the end of the stream.
    pub fn next_decoded(&mut self) -> Result<Option<Decoded>, VideoError> {
        let mut frame = ffmpeg::frame::Video::empty();
        loop {
            match self.decoder.receive_frame(&mut frame) {
                Ok(()) => match self.finish(frame)? {
                    Some(decoded) => return Ok(Some(decoded)),
                    None => {
                        frame = ffmpeg::frame::Video::empty();
                        continue;
                    }
                },
                Err(ffmpeg::Error::Eof) => match self.lost.take() {
                    // Drained: the connection is opened again, and the decoder takes packets.
                    Some(lost) if self.reconnect(&lost) => {
                        self.eof_sent = false;
                        continue;
                    }
                    _ => return Ok(None),
                },
                Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::error::EAGAIN => {}
                Err(e) => {
                    self.note_damage(&e);
                    continue;
                }
            }
            if self.eof_sent {
                return Ok(None);
            }
            let mut packet = ffmpeg::Packet::empty();
            match packet.read(&mut self.input) {
                Ok(()) => {
                    if let Some(continuity) = &mut self.continuity {
                        if let Some(stream) = self.input.stream(packet.stream()) {
                            continuity.apply(&mut packet, stream.time_base());
                        }
                    }
                    for recorder in &self.recorders {
                        recorder.write(&packet);
                    }
                    if let Some((stream, window)) = &self.audio_tap {
                        if packet.stream() == *stream {
                            // Kept while it has a reader (the oldest going beyond the budget).
                            match Arc::strong_count(window) > 1 {
                                true => window.push(packet.clone(), tap::PACKET_WINDOW_BYTES),
                                false => self.audio_tap = None,
                            }
                        }
                    }
                    if packet.stream() != self.stream_index {
                        continue;
                    }
                    match self.landed(&packet) {
                        Landed::Send => self.send(&packet),
                        Landed::Pass => {}
                        Landed::Again => self.seek_further_back(),
                    }
                }
                Err(ffmpeg::Error::Eof) if self.run.to_keyframe.is_some() => self.seek_further_back(),
                // A lost connection (its end, or an error) is opened again.
                // A lost connection: the decoder gives out what it holds, then it is opened again.
                Err(e) if self.reconnects_after(&e) => {
                    log::warn!(
                        "{}: the connection was lost ({e}): reconnecting",
                        self.info.path.display()
                    );
                    self.lost = Some(e);
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
                Err(ffmpeg::Error::Eof) => {
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
                Err(e) => {
                    // A read error mid-file: treat what was read as the whole stream.
                    match (self.interrupt.is_set(), self.info.live) {
                        (true, _) => {}
                        (false, true) => log::warn!("{}: the input ended: {e}", self.info.path.display()),
                        (false, false) => log::warn!("{}: read error, stopping there: {e}", self.info.path.display()),
                    }
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
            }
        }
    }

    /// Whether reading ending with `error` is a connection to open again.
    fn reconnects_after(&self, error: &ffmpeg::Error) -> bool {
        use crate::video::input::Reconnect;
        !self.interrupt.is_set()
            && !crate::video::input::quitting()
            && match self.reconnects {
                Reconnect::Never => false,
                Reconnect::OnError => *error != ffmpeg::Error::Eof,
                Reconnect::OnErrorOrEnd => true,
            }
    }

    /// Opens a lost connection again, waiting longer between tries (`input::reconnect_delay`)
    /// until it opens with a video stream of the same codec, or the source is closed. True once
    /// reading can go on; false if it was closed meanwhile.
    fn reconnect(&mut self, lost: &ffmpeg::Error) -> bool {
        let path = self.info.path.clone();
        log::debug!("{}: reconnecting after: {lost}", path.display());
        for attempt in 0.. {
            let until = std::time::Instant::now() + crate::video::input::reconnect_delay(attempt);
            while std::time::Instant::now() < until {
                if self.interrupt.is_set() || crate::video::input::quitting() {
                    return false;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let input = match crate::video::input::open(&path, &self.interrupt) {
                Ok(input) => input,
                Err(e) => {
                    log::debug!("{}: reconnecting, attempt {}: {e}", path.display(), attempt + 1);
                    continue;
                }
            };
            let Some(stream) = input.streams().best(ffmpeg::media::Type::Video) else {
                continue;
            };
            let (index, id) = (stream.index(), stream.parameters().id());
            if id != self.parameters.id() {
                log::warn!(
                    "{}: the stream came back as {id:?}, not {:?}: stopping",
                    path.display(),
                    self.parameters.id()
                );
                return false;
            }
            if index != self.stream_index && !std::mem::take(&mut self.recorders).is_empty() {
                log::warn!(
                    "{}: the streams came back in another order: recording stopped",
                    path.display()
                );
            }
            let mut input = input;
            discard_other_streams(&mut input, index);
            let audio = input.streams().best(ffmpeg::media::Type::Audio).map(|s| s.index());
            if let Some((tapped, _)) = &mut self.audio_tap {
                match audio {
                    Some(index) => *tapped = index,
                    None => {
                        log::warn!("{}: the stream came back without sound", path.display());
                        self.audio_tap = None;
                    }
                }
            }
            let mut kept: Vec<usize> = self.recorders.iter().flat_map(|r| r.inputs()).collect();
            kept.extend(self.audio_tap.as_ref().map(|&(index, _)| index));
            read_streams(&mut input, kept);
            // Streams in another order start their clocks over from the ones before.
            if index != self.stream_index {
                if let Some(continuity) = &mut self.continuity {
                    continuity.renumbered();
                }
            }
            self.input = input;
            self.stream_index = index;
            // Drained, the decoder takes packets again after a flush.
            self.decoder.flush();
            log::warn!("{}: reconnected", path.display());
            return true;
        }
        false
    }

    /// Whether a packet read after a seek is the run's keyframe (or after it), before it, or
    /// past it.
    fn landed(&mut self, packet: &ffmpeg::Packet) -> Landed {
        let Some(wanted) = self.run.to_keyframe.as_mut() else {
            return Landed::Send;
        };
        if !packet.is_key() {
            wanted.passed += 1;
            if wanted.passed < KEYFRAME_SEARCH_PACKETS {
                return Landed::Pass;
            }
            self.run.to_keyframe = None;
            return Landed::Send;
        }
        match packet.pts().or(packet.dts()) {
            Some(pts) if pts > wanted.pts => Landed::Again,
            _ => {
                self.run.to_keyframe = None;
                Landed::Send
            }
        }
    }

    /// The seek landed past its keyframe: seek again, twice as far back each time (from 32
    /// frames), and from the start after four tries.
    fn seek_further_back(&mut self) {
        let Some(wanted) = self.run.to_keyframe.as_mut() else {
            return;
        };
        wanted.tries += 1;
        let frames = 32u32 << wanted.tries.min(4);
        let back = (f64::from(frames) * self.info.frame_duration * f64::from(self.info.time_base.1)
            / f64::from(self.info.time_base.0).max(1.0)) as i64;
        let target = wanted.pts.saturating_sub(back.max(1));
        if wanted.tries > 4 || !seek_backward(&mut self.input, self.stream_index, target) {
            self.run.to_keyframe = None;
            let _ = self.input.seek(0, ..);
        }
    }

    /// Sends one packet to the decoder, deciding whether it may skip it.
    fn send(&mut self, packet: &ffmpeg::Packet) {
        let pts = packet.pts().or(packet.dts());
        if self.run.flush_pending {
            self.run.flush_pending = false;
            // An IDR picture resets what a flush would (references, picture order); the frames
            // the decoder still holds come out before it and are told apart by their pts.
            // Other keyframes (open GOPs) carry the picture order over: those need the flush.
            let idr = self
                .keep_decoder
                .is_some_and(|framing| pts.is_some() && hardware::h264_idr(packet.data().unwrap_or(&[]), framing));
            if idr {
                self.run.stale_filter = Some(BTreeSet::new());
            } else {
                self.decoder.flush();
            }
        }
        if self.info.live {
            if let Some(p) = pts {
                if self.arrivals.len() == ARRIVALS_KEPT {
                    self.arrivals.pop_front();
                }
                self.arrivals.push_back((p, std::time::Instant::now()));
            }
        }
        let run = &mut self.run;
        if run.packets == 0 {
            run.start = pts;
        }
        if let (Some(sent), Some(p)) = (run.stale_filter.as_mut(), pts) {
            sent.insert(p);
        }
        run.packets += 1;
        // A frame may be skipped when it is older than the frames kept, and a later frame at
        // or before the limit has been seen (so it can't be the one landed on).
        let skip = match (run.catch_up, pts) {
            (Some(c), Some(p)) => {
                let skip = p < c.keep_from && run.newest_before_limit.is_some_and(|q| q > p);
                if p <= c.limit {
                    run.newest_before_limit = Some(run.newest_before_limit.map_or(p, |q| q.max(p)));
                }
                skip
            }
            _ => false,
        };
        if skip {
            if let Some(p) = pts {
                run.skippable.insert(p);
            }
        }
        self.apply_skipping(skip);
        if let Err(e) = self.decoder.send_packet(packet) {
            self.note_damage(&e);
        }
    }

    fn note_damage(&mut self, error: &dyn std::fmt::Display) {
        self.damaged_packets += 1;
        if self.damaged_packets <= 3 {
            log::warn!("{}: damaged video, playing on: {error}", self.info.path.display());
        } else if self.damaged_packets == 4 {
            log::warn!("{}: more damage; further warnings suppressed", self.info.path.display());
        }
    }
}

impl Drop for VideoSource {
    fn drop(&mut self) {
        // The file is closed: its index stops reading, its sound's reader reads to the end.
        self.index.stop();
        if let Some((_, window)) = &self.audio_tap {
            window.end();
        }
        crate::video::input::close_internal(&self.info.path);
    }
}
