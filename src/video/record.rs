//! Capture (`--record FILE`): the input's packets written to a file as they are read, without
//! re-encoding, the container chosen by the file's extension — what `ffmpeg -i INPUT -c copy
//! FILE` writes: the best video stream and the best audio stream, timestamps moved to start
//! where the input starts, interleaved, with FFmpeg's default mux delay (0.7 s).
//!
//! Each packet is handed to the muxer as it arrives and the file's buffer is flushed, so what
//! arrived is on disk whatever happens next; MP4 and QuickTime files are written fragmented
//! (a fragment per keyframe), so they can be read even if the process dies before its end.

use ffmpeg_next as ffmpeg;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The recordings being written, so that the process finishes them all before it exits (the
/// player quits without waiting for its decode threads).
static ACTIVE: Mutex<Vec<Weak<Mutex<Recorder>>>> = Mutex::new(Vec::new());

/// The first recording into a file that failed (a write, or its trailer), for a command to end
/// with: a recording left short is an error of the run, not a warning alone.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// The first recording that failed, if any: what it was and why.
pub fn failure() -> Option<String> {
    FAILED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

fn note_failure(recorder: &Recorder, what: &str, e: &ffmpeg::Error) {
    let path = &recorder.path;
    log::warn!("{}: recording {what}: {e}", path.display());
    // (A pipe to a reader in the process fails where its reader has gone: that reader says why.)
    if recorder.pipe.is_some() {
        return;
    }
    FAILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(|| format!("the recording '{}' {what}: {e}", path.display()));
}

/// A recording being written, shared with the list `finish_all` ends.
pub struct Recording(Arc<Mutex<Recorder>>);

impl Recording {
    /// Starts recording (see `Recorder::create`).
    pub fn create(path: &Path, input: &ffmpeg::format::context::Input, video: usize) -> Result<Self, String> {
        Self::register(Recorder::create(path, input, video)?)
    }

    /// Starts writing the video stream's packets into `pipe` as NUT, for a reader in this
    /// process (`input::internal_pipe`): each as it is read, with no wait for other streams.
    /// Once the pipe is full (its reader fell behind) a write waits for the reader. The pipe is
    /// closed once the recording is finished, which ends the reader's input.
    pub fn into_pipe(
        pipe: std::os::fd::OwnedFd,
        input: &ffmpeg::format::context::Input,
        video: usize,
    ) -> Result<Self, String> {
        use std::os::fd::AsRawFd;
        let location = PathBuf::from(format!("pipe:{}", pipe.as_raw_fd()));
        let output = ffmpeg::format::output_as(&location, "nut").map_err(|e| e.to_string())?;
        let mut recorder = Recorder::start(
            &location,
            output,
            input,
            [video],
            Default::default(),
            ffmpeg::Dictionary::new(),
        )?;
        recorder.pipe = Some(pipe);
        Self::register(recorder)
    }

    fn register(recorder: Recorder) -> Result<Self, String> {
        // A headless command may end while the thread reading its input still holds this.
        crate::process::before_end(finish_all);
        let recorder = Arc::new(Mutex::new(recorder));
        let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        active.retain(|r| r.strong_count() > 0);
        active.push(Arc::downgrade(&recorder));
        Ok(Self(recorder))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Recorder> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The input streams recorded.
    pub fn inputs(&self) -> Vec<usize> {
        self.lock().streams.iter().map(|s| s.input).collect()
    }

    pub fn write(&self, packet: &ffmpeg::Packet) {
        self.lock().write(packet);
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.lock().finish();
    }
}

/// Ends every recording still being written: the packets held for interleaving, then the
/// container's trailer. Packets read after it are not written.
pub fn finish_all() {
    let active = std::mem::take(&mut *ACTIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for recorder in active.iter().filter_map(Weak::upgrade) {
        recorder.lock().unwrap_or_else(|e| e.into_inner()).finish();
    }
}

/// Writes the packets of some of an input's streams into a file.
pub struct Recorder {
    path: PathBuf,
    output: ffmpeg::format::context::Output,
    /// Per input stream recorded: its index in the input, its time base and the output's.
    streams: Vec<Recorded>,
    /// The input's start, subtracted from every timestamp (in AV_TIME_BASE units).
    start: i64,
    /// The largest dts written per output stream: packets read again after a seek back are
    /// not written twice.
    written_dts: Vec<Option<i64>>,
    /// Whether each output stream has had its first keyframe: packets before it are left out,
    /// as FFmpeg's stream copy leaves them (a stream joined mid-GOP).
    keyed: Vec<bool>,
    failed: bool,
    finished: bool,
    packets: u64,
    /// The pipe written into, closed once the recording is finished.
    pipe: Option<std::os::fd::OwnedFd>,
}

/// Refuses, before the file is made, a name whose container can't hold the input's video
/// stream as it is: a picture's (`.png`: a sequence of pictures), or one whose muxer says it
/// can't take the codec. (Where its muxer can't say, the first packet written tells.) The
/// muxer's name, where the name has one and the muxer writes the one file it is given (not a
/// playlist and its segments, which it names from it).
fn check_container(
    path: &Path,
    input: &ffmpeg::format::context::Input,
    video: usize,
) -> Result<Option<String>, String> {
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return Ok(None);
    };
    // SAFETY: FFmpeg's static muxer table, searched by a NUL-terminated name.
    let muxer = unsafe { ffmpeg::ffi::av_guess_format(std::ptr::null(), name.as_ptr(), std::ptr::null()) };
    if muxer.is_null() {
        return Ok(None);
    }
    // SAFETY: a muxer from the table, with its static name and flags.
    let (muxer_name, own_files) = unsafe {
        (
            std::ffi::CStr::from_ptr((*muxer).name).to_string_lossy(),
            (*muxer).flags & ffmpeg::ffi::AVFMT_NOFILE != 0,
        )
    };
    if matches!(&*muxer_name, "image2" | "image2pipe") {
        return Err(
            "that is a picture's name: a recording is written in a video container (.mkv, .mp4, .mov, .ts)".into(),
        );
    }
    let name = (!own_files).then(|| muxer_name.to_string());
    let Some(codec) = input.stream(video).map(|s| s.parameters().id()) else {
        return Ok(name);
    };
    let normal = ffmpeg::ffi::FF_COMPLIANCE_NORMAL;
    // SAFETY: a muxer from the table and a codec id.
    if unsafe { ffmpeg::ffi::avformat_query_codec(muxer, codec.into(), normal) } == 0 {
        return Err(format!(
            "its container ({muxer_name}) can't hold {} video: record into .mkv, which holds any",
            ffmpeg::codec::Id::name(&codec)
        ));
    }
    Ok(name)
}

struct Recorded {
    input: usize,
    input_base: ffmpeg::Rational,
    output_base: ffmpeg::Rational,
}

// SAFETY: the output context is owned by the Recorder and used by one thread at a time (the one
// that reads the input).
unsafe impl Send for Recorder {}

impl Recorder {
    /// Creates `path` and writes its header, for `input`'s best video stream (`video`) and its
    /// best audio stream. Returns the input streams recorded. A file already at `path` (an
    /// earlier recording) is replaced only once the new one's header is written: its header is
    /// written beside it first, then renamed over it, and the recording goes on there
    /// (`OutputFile`: a link stays a link, a device or a pipe is written through).
    pub fn create(path: &Path, input: &ffmpeg::format::context::Input, video: usize) -> Result<Self, String> {
        let muxer = check_container(path, input, video)?;
        // (A muxer that names its own files, HLS's, is given the name as it is.)
        let file = match &muxer {
            Some(_) => crate::output_file::OutputFile::new(path),
            None => crate::output_file::OutputFile::through(path),
        };
        let target = file.written().to_owned();
        let output = match (file.beside(), &muxer) {
            (true, Some(muxer)) => ffmpeg::format::output_as(&target, muxer),
            _ => ffmpeg::format::output(&target),
        };
        let output = output.map_err(|e| match e {
            ffmpeg::Error::Other { .. } | ffmpeg::Error::InvalidData => {
                format!("no container for its extension, or it can't be written ({e})")
            }
            e => e.to_string(),
        })?;
        let audio = input.streams().best(ffmpeg::media::Type::Audio).map(|s| s.index());
        // FFmpeg's mux delay, as its CLI sets it (-muxdelay).
        let started = Self::start(
            &target,
            output,
            input,
            std::iter::once(video).chain(audio),
            700_000,
            ffmpeg::Dictionary::new(),
        );
        // (A header its muxer refused leaves an empty file: not left behind.)
        let mut recorder = match started {
            Ok(recorder) => recorder,
            Err(e) => {
                file.abandon();
                return Err(e);
            }
        };
        if file.beside() {
            file.finish()
                .map_err(|e| format!("cannot replace the file there: {e}"))?;
            recorder.path = path.to_owned();
        }
        Ok(recorder)
    }

    /// Writes the header of `output` (at `path`) for `input`'s streams `indices`, whose packets
    /// may wait up to `max_delay` microseconds to be interleaved.
    fn start(
        path: &Path,
        mut output: ffmpeg::format::context::Output,
        input: &ffmpeg::format::context::Input,
        indices: impl IntoIterator<Item = usize>,
        max_delay: i32,
        mut options: ffmpeg::Dictionary,
    ) -> Result<Self, String> {
        let mut streams = Vec::new();
        for index in indices {
            let Some(stream) = input.stream(index) else {
                continue;
            };
            add_copied_stream(&mut output, &stream).map_err(|e| e.to_string())?;
            streams.push(Recorded {
                input: index,
                input_base: stream.time_base(),
                output_base: stream.time_base(),
            });
        }
        let muxer = output.format();
        let name = muxer.name();
        if name.split(',').any(|n| matches!(n, "mp4" | "mov" | "ipod" | "ismv")) {
            options.set("movflags", "+frag_keyframe+default_base_moof");
        }
        // SAFETY: a plain field of the output context, before its header is written.
        unsafe { (*output.as_mut_ptr()).max_delay = max_delay };
        crate::video::ffmpeg_log::clear();
        output
            .write_header_with(options)
            .map_err(crate::video::ffmpeg_log::reason)?;
        for (recorded, stream) in streams.iter_mut().zip(output.streams()) {
            recorded.output_base = stream.time_base();
        }
        // SAFETY: a plain field of the opened input.
        let start = unsafe { (*input.as_ptr()).start_time };
        let count = streams.len();
        Ok(Self {
            path: path.to_owned(),
            output,
            streams,
            start: if start == ffmpeg::ffi::AV_NOPTS_VALUE { 0 } else { start },
            written_dts: vec![None; count],
            keyed: vec![false; count],
            failed: false,
            finished: false,
            packets: 0,
            pipe: None,
        })
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Writes `packet` if it is of a stream recorded (and not one written already). A write
    /// that fails stops the recording, with a warning; playing goes on.
    pub fn write(&mut self, packet: &ffmpeg::Packet) {
        if self.failed || self.finished {
            return;
        }
        let Some(at) = self.streams.iter().position(|s| s.input == packet.stream()) else {
            return;
        };
        if !self.keyed[at] {
            if !packet.is_key() {
                return;
            }
            self.keyed[at] = true;
        }
        let recorded = &self.streams[at];
        let mut copy = packet.clone();
        let offset = ffmpeg::Rescale::rescale(&self.start, ffmpeg::rescale::TIME_BASE, recorded.input_base);
        if let Some(dts) = copy.dts() {
            if self.written_dts[at].is_some_and(|last| dts <= last) {
                return;
            }
            self.written_dts[at] = Some(dts);
            copy.set_dts(Some(dts - offset));
        }
        if let Some(pts) = copy.pts() {
            copy.set_pts(Some(pts - offset));
        }
        copy.rescale_ts(recorded.input_base, recorded.output_base);
        copy.set_stream(at);
        copy.set_position(-1);
        match copy.write_interleaved(&mut self.output) {
            Ok(()) => {
                self.packets += 1;
                // SAFETY: the output's own IO context, open since the header was written.
                unsafe {
                    let pb = (*self.output.as_mut_ptr()).pb;
                    if !pb.is_null() {
                        ffmpeg::ffi::avio_flush(pb);
                    }
                }
            }
            Err(e) => {
                note_failure(self, "stopped", &e);
                self.failed = true;
            }
        }
    }
}

impl Recorder {
    /// Ends the file (once): the packets still held for interleaving, then the container's
    /// trailer.
    fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        if let Err(e) = self.output.write_trailer() {
            note_failure(self, "could not be finished", &e);
        }
        // Its reader's input ends.
        self.pipe = None;
    }
}

/// Adds to `output` a stream that `stream`'s packets are copied into: its codec parameters (its
/// codec tag where the container takes it), time base (a hint: the muxer may choose another in
/// write_header), frame rate and metadata.
pub(crate) fn add_copied_stream(
    output: &mut ffmpeg::format::context::Output,
    stream: &ffmpeg::format::stream::Stream,
) -> Result<(), ffmpeg::Error> {
    let muxer = output.format();
    let mut added = output.add_stream(ffmpeg::encoder::find(ffmpeg::codec::Id::None))?;
    let parameters = stream.parameters();
    let tag = codec_tag_for(&muxer, &parameters);
    added.set_parameters(parameters);
    // SAFETY: the stream's own codec parameters, just copied in.
    unsafe { (*(*added.as_mut_ptr()).codecpar).codec_tag = tag };
    added.set_time_base(stream.time_base());
    added.set_avg_frame_rate(stream.avg_frame_rate());
    added.set_metadata(stream.metadata().to_owned());
    Ok(())
}

/// The input codec's tag where the output container takes it, else 0 so that the muxer picks its
/// own (an MP4 refuses some of Matroska's tags): the rule of ffmpeg's own stream copy.
fn codec_tag_for(format: &ffmpeg::format::Output, parameters: &ffmpeg::codec::Parameters) -> u32 {
    // SAFETY: a muxer from FFmpeg's static table and valid codec parameters; the tag table
    // functions only read.
    unsafe {
        let tags = (*format.as_ptr()).codec_tag;
        let (tag, id) = ((*parameters.as_ptr()).codec_tag, (*parameters.as_ptr()).codec_id);
        let mut muxer_tag = 0;
        let fits = tags.is_null()
            || ffmpeg::ffi::av_codec_get_id(tags, tag) == id
            || ffmpeg::ffi::av_codec_get_tag2(tags, id, &mut muxer_tag) == 0;
        if fits {
            tag
        } else {
            0
        }
    }
}
