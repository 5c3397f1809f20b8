//! One video stream of a file, demuxed and decoded by FFmpeg, frames in presentation order with
//! their pts and frame number (from the background frame index). Used by the decode thread;
//! knows nothing of GPUs.

mod convert;
mod follow;
mod frames;
mod gaps;
pub mod hardware;
mod info;
mod keyframe;
mod measure;
mod open;
mod read;
mod reconnect;
mod seek;
mod stream;
pub mod streams;
pub mod tap;
mod turn;

pub use convert::FilterConversion;
pub use frames::{picture_type, planes_of, Decoded, DecodedFrame, Fields, PacketProps, Samples};
use hardware::NalFraming;
pub use info::{Chapter, ColourTags, FrameShape, VideoInfo};
pub use keyframe::KeyframeDecoder;
pub use measure::DecodedReader;
pub use open::Decoding;
use seek::Run;
pub use seek::{CatchUp, SeekTarget};
use stream::{color_volume, dolby_vision, matrix_of, native_layout, quarter_turns, range_of, upload_layout};
pub use stream::{negotiated, negotiated_pair, pixel_name, planar_layout, separate_alpha, Sampling};

use super::demux::{discard_other_streams, read_streams};
use super::format::{FrameFormat, FrameLight, PlaneData, PlaneLayout};
use super::index::{FrameIndex, FrameNumber};
use super::interop::{CudaStream, FramePath, GpuFrameStore, GpuPlanes, Transfers};
use super::memory::DirectFrames;
use crate::colour::ColorSpec;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;
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
    #[error("'{0}' has no video stream: its one picture is its cover (an attached picture)")]
    CoverOnly(PathBuf),
    #[error("'{path}': no decoder for its {codec} video")]
    UnsupportedCodec { path: PathBuf, codec: String },
    #[error("'{path}': {reason}")]
    Decode { path: PathBuf, reason: String },
}

/// Which changes of the frames' shape mid-stream a source gives its frames out in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Following {
    /// None: every frame is scaled and converted to the first's size and format.
    Nothing,
    /// Another size (a frame of another depth or sampling is converted to the stream's).
    Sizes,
    /// Another size, depth or sampling.
    Formats,
}

pub struct VideoSource {
    pub info: VideoInfo,
    input: ffmpeg::format::context::Input,
    stream_index: usize,
    decoder: ffmpeg::decoder::Video,
    /// Where a software decoder's frames go once a run makes the pool (`direct_frames`): its
    /// `opaque` points here, so it goes after the decoder.
    direct: Arc<DirectFrames>,
    hardware: Option<hardware::Attached>,
    /// Hardware frames left in the device's memory for the thread that uses them to copy back
    /// (`defer_copies`); None: copied as decoded.
    deferrals: Option<hardware::Deferrals>,
    /// How the stream's H.264 packets are framed, when a seek that lands on an IDR picture
    /// keeps the decoder as it is (see `set_keep_decoder_on_seek`).
    keep_decoder: Option<NalFraming>,
    /// Made once per stream when its format needs converting (and again only if it changes).
    converter: Option<convert::Converter>,
    /// Frames converted into this format for the upload, as FFmpeg's filters' automatic
    /// conversion converts them (`convert_as_filters`).
    as_filters: Option<ffmpeg::format::Pixel>,
    /// Frame numbers, read in the background.
    index: Arc<FrameIndex>,
    /// Wait for the index to number each frame exactly (`hist`), rather than estimate.
    exact_numbers: bool,
    /// Frames are given out as decoded, or as this filter reads them (`keep_decoded_planes`,
    /// `keep_decoded_planes_for`), not in the upload layout.
    decoded_planes: Option<measure::Measuring>,
    /// Frames converted for measuring keep their picture too (`keep_pictures`).
    keep_pictures: bool,
    /// Reads each frame given out as decoded (`read_decoded`).
    decoded_reader: Option<Box<dyn DecodedReader>>,
    /// The swscale context that converts frames as decoded into the Y'CbCr FFmpeg's filters
    /// measure (`converted_yuv_layout`), made with the first.
    measured: Option<convert::Converter>,
    /// Pts and number of the last frame this run gave out.
    last_pts: Option<i64>,
    /// A frame was given out or the input sought since it was opened: the first frame is no
    /// longer the next without a seek.
    moved: bool,
    /// The pts this run gave its frames out at (a repeated timestamp is moved on: `untied`).
    given: read::GivenPts,
    last_number: Option<FrameNumber>,
    /// The frames this run has not given out between those it has.
    gaps: gaps::Gaps,
    /// Frames given out since the stream's start, while no seek has intervened: the numbers
    /// of a stream whose packets carry no timestamps (the index can't number it).
    counted: Option<u64>,
    run: Run,
    eof_sent: bool,
    damaged_packets: u64,
    /// Warnings of frames that never came, said apart from the packets' damage.
    missing_warned: u32,
    /// Frames the decoder's log said it concealed errors in, and frames given out marked so.
    concealed: (usize, usize),
    /// A frame given out before one it follows in time was warned of (once a source).
    said_out_of_order: bool,
    /// Set to make a blocking read give up (the source is being closed).
    interrupt: crate::video::input::Interrupt,
    /// The size frames are decoded at: the first frames' (or, following size changes, the
    /// last change `follow_format` followed: frames measured at their own size leave it),
    /// whatever size `convert_to` delivers them at.
    decoded_size: (u32, u32),
    /// Clockwise quarter turns each frame is turned by before anything reads it
    /// (`turn_upright`).
    turns: u32,
    /// The other size last warned of.
    warned_size: Option<(u32, u32)>,
    /// The last frame given out's format and size (`PacketProps::restarts`).
    last_shape: Option<(Option<stream::Sampling>, u32, u32)>,
    /// The frames' depth and chroma sampling when the stream opened (`Sampling`), and the other
    /// last warned of.
    decoded_sampling: (Option<stream::Sampling>, Option<stream::Sampling>),
    /// Which frames of another shape become the stream's format (`follow_format_changes`,
    /// `follow_size_changes`) instead of being scaled and converted to the first.
    following: Following,
    /// The connection was lost with this error: opened again once the decoder is drained.
    lost: Option<ffmpeg::Error>,
    /// Frames decoded before anything was ready to take them (`prime`, `prime_ahead`,
    /// `decode_ahead`), finished as the next ones decoded; with each, the bytes it holds
    /// outside the pool of memory the GPU copies from.
    primed: std::collections::VecDeque<(ffmpeg::frame::Video, usize)>,
    /// A software decoder of a file for a run that takes every frame: it decodes ahead while
    /// its consumer is busy (`decode_ahead`).
    ahead_allowed: bool,
    /// When a lost connection is opened again (`input::reconnects`).
    reconnects: crate::video::input::Reconnect,
    /// A live input's timestamps kept running on where it starts over; None for a file.
    continuity: Option<crate::video::continuity::Continuity>,
    /// A file's, where its format's timestamps may start over (MPEG-TS, program streams).
    file_continuity: Option<crate::video::continuity::FileContinuity>,
    /// A live transport or program stream's frames lost on the way (a file's index finds a
    /// file's).
    live_lost: Option<crate::video::cadence::LostFrames>,
    /// When the last packets of a live input were read, by pts.
    arrivals: std::collections::VecDeque<(i64, std::time::Instant)>,
    /// The frames' timecodes, where the stream carries them.
    timecodes: crate::video::timecode::TimecodeReader,
    /// The input's audio stream's packets, handed on as read (a live input's sound).
    /// (With the track asked for, to find it again where the input reconnects.)
    audio_tap: Option<(usize, crate::video::input::AudioTrack, Arc<tap::PacketWindow>)>,
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

impl VideoSource {
    /// Delivers frames in `layout` at `width` x `height` from now on, converted and scaled by
    /// swscale (bicubic) where they are not (a file compared with a reference of another size
    /// or depth).
    pub fn convert_to(&mut self, layout: PlaneLayout, width: u32, height: u32) {
        self.info.format.layout = layout;
        self.info.format.width = width;
        self.info.format.height = height;
    }

    /// Whether the stream decodes on a hardware decoder (its frames come as NV12 or P010,
    /// whatever `decoded_format` says before the first).
    pub fn decodes_in_hardware(&self) -> bool {
        self.hardware.is_some()
    }

    /// Converts frames of another format than `format` into it for the upload, as FFmpeg's
    /// filters' automatic conversion converts them for a filter (swscale's bicubic and no more,
    /// a frame's range from its tag, `yuv420p`'s chroma sited as the `scale` filter sites it)
    /// instead of the upload's own conversion: a judged file made like its reference as psnr's
    /// graph makes it. `format` is one the upload layout (`convert_to`) holds as it is.
    pub fn convert_as_filters(&mut self, format: ffmpeg::format::Pixel) {
        self.as_filters = Some(format);
    }

    /// Delivers Y'CbCr frames in `range` from now on, converted by swscale where they are not
    /// (a file compared with a reference of the other range).
    pub fn convert_range_to(&mut self, range: crate::colour::Range) {
        self.info.format.color.range = range;
    }

    /// A decoder for this stream's keyframes by themselves, for seek previews; None where the
    /// stream decodes on a hardware decoder, which gives out its first frame soon enough (and
    /// where a keyframe in software would take longer), where it follows its frames' sizes
    /// alone (for the measuring commands, which show no previews), or if it can't be opened.
    /// Where it follows their shapes, a keyframe of another shape than the ring's is no
    /// preview.
    pub fn keyframe_decoder(&self) -> Option<KeyframeDecoder> {
        // (A live input can't be opened a second time.)
        if self.hardware.is_some() || self.info.live || self.following == Following::Sizes {
            return None;
        }
        let follows = self.following == Following::Formats;
        let index = Arc::clone(self.index());
        KeyframeDecoder::open(self.parameters.clone(), &self.info, self.stream_index, follows, index)
    }

    /// What makes this source's blocking reads give up, from another thread (before it is
    /// stopped and dropped).
    pub fn interrupter(&self) -> crate::video::input::Interrupt {
        self.interrupt.clone()
    }

    /// The index of the input's audio stream `track`; why there is none.
    pub fn audio_stream(&self, track: crate::video::input::AudioTrack) -> Result<usize, crate::video::input::NoTrack> {
        track.stream_in(&self.input)
    }

    /// The input's audio stream `track`, its packets handed on from now on as the decoder
    /// reads them: a live input's sound (it can't be opened a second time); why there is none.
    pub fn tap_audio(
        &mut self,
        track: crate::video::input::AudioTrack,
    ) -> Result<Tapped, crate::video::input::NoTrack> {
        let stream_index = self.audio_stream(track)?;
        let stream = self
            .input
            .stream(stream_index)
            .expect("an index among the input's streams");
        let (parameters, time_base) = (stream.parameters(), stream.time_base());
        read_streams(&mut self.input, [stream_index]);
        let packets = Arc::new(tap::PacketWindow::default());
        self.audio_tap = Some((stream_index, track, Arc::clone(&packets)));
        Ok(Tapped {
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

    /// The time (seconds, on the stream's clock) that the timestamps of packets shared or
    /// recorded count from: the input's start.
    pub fn packets_start(&self) -> f64 {
        self.start_seconds().unwrap_or(0.0)
    }

    /// The input's start (seconds, on the stream's clock: the earliest of its streams), where
    /// its container says it.
    pub fn start_seconds(&self) -> Option<f64> {
        // SAFETY: the open input's own context.
        let start = unsafe { (*self.input.as_ptr()).start_time };
        (start != ffmpeg::ffi::AV_NOPTS_VALUE).then(|| start as f64 / f64::from(ffmpeg::ffi::AV_TIME_BASE))
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

    /// Nothing has been decoded or sought since the input was opened: its first frame comes
    /// next.
    pub fn at_its_start(&self) -> bool {
        !self.moved
    }

    /// The layout of the decoder's frames where they are planar Y'CbCr whose samples the GPU
    /// converter does not take as they are (4:1:1, 4:1:0, 4:4:0; 9, 14 or 16 bits): what
    /// `keep_decoded_planes` gives out. None for frames uploaded with their samples as decoded
    /// (an alpha plane dropped), or not Y'CbCr.
    ///
    /// R'G'B', palette and grey frames, which FFmpeg's filters convert into Y'CbCr before they
    /// measure it, are given out so converted (`statistics_format`): 4:4:4 at 8 or 16 bits;
    /// 4:1:0 as 4:2:0, its chroma resampled as the filters' conversion resamples it.
    pub fn converted_yuv_layout(&self) -> Option<PlaneLayout> {
        let format = self.decoder.format();
        if let Some(converted) = stream::statistics_format(format) {
            return stream::planar_yuv_layout(converted);
        }
        if native_layout(format).is_some() {
            return None;
        }
        // (With alpha, or big-endian, of a sampling and depth the converter takes, the frames
        // are uploaded with those very samples.)
        stream::planar_yuv_layout(format).filter(|&layout| layout != self.info.format.layout)
    }

    /// Frames given out for measuring (`keep_decoded_planes`: R'G'B', palette or grey
    /// converted into Y'CbCr, or Y'CbCr as decoded) keep their picture in the upload layout too
    /// (`DecodedFrame::picture`), for what reads the picture beside the measures.
    pub fn keep_pictures(&mut self) {
        self.keep_pictures = true;
    }

    /// What the container holds, stream by stream (the picture's measured being this source's).
    pub fn container(&self) -> streams::ContainerFacts {
        let mut facts = streams::container_facts(&self.input, &self.info.path);
        if let Some(video) = facts
            .measured
            .iter_mut()
            .find(|i| facts.streams.get(**i).is_some_and(|s| s.kind == "video"))
        {
            *video = self.stream_index;
        }
        facts
    }

    /// Frames that come in another size or sampling mid-stream are given out as they are, and
    /// `info` describes them from then on (its `shape` changes), for a consumer that makes its
    /// ring again; without, they are scaled to the stream's first size and layout.
    pub fn follow_format_changes(&mut self) {
        self.following = Following::Formats;
    }

    /// As `follow_format_changes`, for frames of another size only: a frame of another depth
    /// or sampling is converted to the stream's (and scaled to its size), with a warning, as
    /// without. For a consumer that reads every frame in one format at any size (`report`).
    pub fn follow_size_changes(&mut self) {
        self.following = Following::Sizes;
    }

    /// Whether frames of another size are given out as they are (`follow_size_changes`).
    pub fn follows_sizes(&self) -> bool {
        self.following != Following::Nothing
    }

    /// Gives frames out with the decoder's own planes (`converted_yuv_layout`), not converted
    /// to the upload layout: for readers of the samples themselves (`report`), never the GPU.
    pub fn keep_decoded_planes(&mut self) {
        self.decoded_planes = Some(measure::Measuring::Each(stream::STATISTICS));
    }

    /// Which path the stream's frames take to the GPU, shared with other threads.
    pub fn frame_path(&self) -> Arc<Mutex<FramePath>> {
        Arc::clone(&self.frame_path)
    }

    /// The stream's count of frame bytes that crossed between memory and the GPU.
    /// The stream's frames decoded straight into memory the GPU copies from, once its pool is
    /// made (software decoding only).
    pub fn direct_frames(&self) -> Arc<DirectFrames> {
        Arc::clone(&self.direct)
    }

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
}

impl Drop for VideoSource {
    fn drop(&mut self) {
        // The file is closed: its index stops reading, its sound's reader reads to the end.
        self.index.stop();
        if let Some((_, _, window)) = &self.audio_tap {
            window.end();
        }
        crate::video::input::close_internal(&self.info.path);
    }
}
