//! Opening a file's video stream: the file checked, the decoder chosen and opened (on the
//! hardware decoder where there is one, with as many frame threads as pay), and what the
//! stream says about itself read into `VideoInfo`; the frame index starts reading beside it.

use super::*;
use crate::colour::LogEncoding;
use crate::video::input::Interrupt;

/// Threads decoding frames ahead run at this nice value, a little below everything else.
const FRAME_THREADS_NICE: i32 = 5;

/// What a decoder is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Decoding {
    /// Playing: a frame as soon as its packet is in (seeks, steps, the first frame).
    #[default]
    Playing,
    /// Every frame in order, as fast as it goes (`report`, `hist`, `compare`, `scope`, the
    /// timeline): a hardware decoder is fed by two frame threads, so one frame's packet is
    /// parsed and queued while the device decodes the one before (measured on an H200 at 4K
    /// H.264: 147 to 195 fps for a stream without B-frames, 177 to 190 with them), for a
    /// frame's more latency.
    Throughput,
}

impl VideoSource {
    pub fn open(path: &Path) -> Result<Self, VideoError> {
        Self::open_for(path, Decoding::Playing)
    }

    /// `open`, for the window: a file whose one picture is its sound's cover (an attached
    /// picture) has no video to play, as a file of sound alone has none.
    pub fn open_to_play(path: &Path) -> Result<Self, VideoError> {
        let source = Self::open(path)?;
        if source.info.cover_art {
            return Err(VideoError::CoverOnly(path.to_owned()));
        }
        Ok(source)
    }

    pub fn open_for(path: &Path, decoding: Decoding) -> Result<Self, VideoError> {
        let interrupt = Interrupt::default();
        let input = open_input(path, &interrupt)?;
        let live = crate::video::input::is_live(&input);
        let stream = input
            .streams()
            .best(ffmpeg::media::Type::Video)
            .ok_or_else(|| VideoError::NoVideo(path.to_owned()))?;
        let stream_index = stream.index();
        let parameters = stream.parameters().clone();
        let codec_id = parameters.id();
        // SAFETY: reading two plain fields of the stream's codec parameters.
        let parameters_size = unsafe {
            let p = parameters.as_ptr();
            ((*p).width.max(0) as u32, (*p).height.max(0) as u32)
        };
        let mut context =
            ffmpeg::codec::context::Context::from_parameters(parameters.clone()).map_err(|e| VideoError::Decode {
                path: path.to_owned(),
                reason: e.to_string(),
            })?;
        let codec = format!("{codec_id:?}").to_lowercase();
        if codec_id == ffmpeg::codec::Id::None {
            return Err(VideoError::Decode {
                path: path.to_owned(),
                reason: "its video's codec is not one FFmpeg knows (an unknown or damaged codec name)".into(),
            });
        }
        let Some(found) = ffmpeg::decoder::find(codec_id) else {
            return Err(VideoError::UnsupportedCodec {
                path: path.to_owned(),
                codec,
            });
        };
        // SAFETY: reading a plain field of the context, set from the stream's parameters.
        let stream_format = Pixel::from(unsafe { (*context.as_ptr()).pix_fmt });
        crate::process::mark("the file's container open");
        let hardware = hardware::attach(&mut context, &found, stream_format, parameters_size);
        crate::process::mark("the hardware decoder's device made, if any");
        // FFmpeg's H.264 decoder starts over on a flush, which for a hardware decoder means
        // making it again (NVDEC: 100 to 300 ms a seek); an IDR picture needs no flush.
        let keep_decoder = (hardware.is_some() && codec_id == ffmpeg::codec::Id::H264).then(|| {
            // SAFETY: the context is valid, its extradata copied from the stream's parameters.
            unsafe { NalFraming::of_context(context.as_ptr()) }
        });
        let threads = decode_threads(stream_format, parameters_size);
        context.set_threading(ffmpeg::threading::Config {
            // A live input played shows each frame as soon as it is whole: threads share the
            // slices of one frame (as with FFmpeg's low_delay), where frame threads would each
            // hold one back.
            kind: match (live, decoding) {
                (true, Decoding::Playing) => ffmpeg::threading::Type::Slice,
                _ => ffmpeg::threading::Type::Frame,
            },
            // A hardware decoder is fed by one thread, or two for throughput (FFmpeg's NVDEC
            // decoder is safe to run from frame threads; it adds a surface a thread).
            count: match (hardware.is_some(), decoding) {
                (true, Decoding::Playing) => 1,
                (true, Decoding::Throughput) => 2,
                (false, _) => threads,
            },
            ..Default::default()
        });
        // Frames decode into counted frame memory (hardware frames stay the device's); in
        // software for a run that takes every frame, into memory the GPU copies from once the
        // run makes it (`DirectFrames`). (The player's frames, which its cache keeps, stay as
        // FFmpeg lays them out.)
        let direct = Arc::new(DirectFrames::default());
        let in_place = hardware.is_none() && decoding == Decoding::Throughput;
        // SAFETY: the context is not open yet; the callback is FFmpeg's to call. `opaque`
        // (software decoders only: a hardware decoder's holds its format) points at `direct`,
        // which the source keeps as long as its decoder.
        unsafe {
            let ctx = context.as_mut_ptr();
            (*ctx).get_buffer2 = Some(match in_place {
                true => crate::video::memory::get_buffer2_direct,
                false => crate::video::memory::get_buffer2,
            });
            if in_place {
                (*ctx).opaque = Arc::as_ptr(&direct) as *mut libc::c_void;
            }
        }
        let mut decoder = open_decoder(context, threads > 1 && hardware.is_none()).map_err(|e| VideoError::Decode {
            path: path.to_owned(),
            reason: format!("cannot open the {codec} decoder: {e}"),
        })?;
        if in_place {
            // SAFETY: the decoder just opened.
            unsafe { direct.set_decoder(decoder.as_mut_ptr(), threads) };
        }
        crate::process::mark("the decoder open");
        let mut info = describe(path, &input, &stream, &decoder, codec, hardware.map(|h| h.name))?;
        info.live = live;
        let sampling = stream::Sampling::of(decoder.format());
        let (time_base, frame_duration) = (stream.time_base(), info.frame_duration);
        let ticks_per_frame = frame_duration * f64::from(time_base.denominator()) / f64::from(time_base.numerator());
        let estimated_count = match stream.frames() {
            n if n > 0 => Some(n as u64),
            _ if info.duration > 0.0 => Some((info.duration / frame_duration).round() as u64),
            _ => None,
        };
        // A live input is read once, here: its frames are numbered as they come.
        let index = match live {
            true => FrameIndex::unread(ticks_per_frame, info.start_pts),
            false => FrameIndex::start(path, stream_index, ticks_per_frame, info.start_pts, estimated_count),
        };
        let mut input = input;
        discard_other_streams(&mut input, stream_index);
        // Where the timestamps may start over, every reader reads the sound too: each finds
        // the same offsets from the same packets (`continuity`).
        let file_continuity = (!live && crate::video::continuity::may_start_over(&input)).then(|| {
            crate::video::continuity::read_every_part(&mut input);
            crate::video::continuity::FileContinuity::new(&input, Some(index.clock()))
        });
        let live_lost = (live && crate::video::continuity::may_start_over(&input))
            .then(|| crate::video::cadence::LostFrames::new(time_base));
        let timecodes = crate::video::timecode::TimecodeReader::new(
            frame_duration,
            (time_base.numerator(), time_base.denominator()),
        )
        .with_container(info.timecode_tag.as_deref());
        let decoded_size = (info.format.width, info.format.height);
        Ok(Self {
            info,
            input,
            stream_index,
            decoder,
            direct,
            hardware,
            deferrals: None,
            keep_decoder,
            converter: None,
            as_filters: None,
            index,
            exact_numbers: false,
            decoded_planes: None,
            decoded_reader: None,
            measured: None,
            keep_pictures: false,
            last_pts: None,
            moved: false,
            given: Default::default(),
            last_number: None,
            gaps: Default::default(),
            counted: Some(0),
            run: Run::default(),
            eof_sent: false,
            damaged_packets: 0,
            missing_warned: 0,
            said_out_of_order: false,
            interrupt,
            recorders: Vec::new(),
            audio_tap: None,
            arrivals: Default::default(),
            timecodes,
            continuity: live.then(|| crate::video::continuity::Continuity::for_live(path)),
            file_continuity,
            live_lost,
            lost: None,
            primed: Default::default(),
            ahead_allowed: in_place && !live,
            reconnects: match live {
                true => crate::video::input::reconnects(path),
                false => crate::video::input::Reconnect::Never,
            },
            decoded_size,
            turns: 0,
            concealed: (0, 0),
            warned_size: None,
            last_shape: None,
            decoded_sampling: (sampling, None),
            following: Following::Nothing,
            parameters,
            gpu_store: None,
            gpu_store_maker: None,
            transfers: Arc::default(),
            frame_path: Arc::new(Mutex::new(match hardware {
                None => FramePath::Software,
                Some(hw) => FramePath::CopiedBack {
                    decoder: hw.label(),
                    reason: "frames are read in memory here".into(),
                },
            })),
        })
    }
}

/// The file opened by FFmpeg's demuxer, after the checks that give clearer errors than its own
/// (a URL, a pipe or a device goes to FFmpeg as it is).
fn open_input(path: &Path, interrupt: &Interrupt) -> Result<ffmpeg::format::context::Input, VideoError> {
    ffmpeg::init().map_err(|e| VideoError::Open {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    crate::video::ffmpeg_log::quiet();
    if crate::video::input::is_location(path) {
        return crate::video::input::open(path, interrupt).map_err(|reason| VideoError::Open {
            path: path.to_owned(),
            reason,
        });
    }
    if path.is_dir() {
        return Err(VideoError::Directory(path.to_owned()));
    }
    if path.to_str().is_none() {
        // FFmpeg takes paths as C strings of UTF-8 text.
        return Err(VideoError::Open {
            path: path.to_owned(),
            reason: "its name is not valid UTF-8".into(),
        });
    }
    // (A FIFO is not opened here: that waits for its writer, where a signal can't end it.)
    let readable = std::fs::metadata(path).and_then(|meta| {
        use std::os::unix::fs::FileTypeExt;
        match meta.file_type().is_fifo() {
            true => Ok(()),
            false => std::fs::File::open(path).map(drop),
        }
    });
    if let Err(e) = readable {
        return Err(VideoError::Open {
            path: path.to_owned(),
            reason: e.to_string(),
        });
    }
    crate::video::input::open(path, interrupt).map_err(|reason| {
        match reason.starts_with(crate::video::input::UNKNOWN_OPTION) {
            // (An option it has no use for is the command's fault, not the file's.)
            true => VideoError::Open {
                path: path.to_owned(),
                reason,
            },
            false => VideoError::NotMedia {
                path: path.to_owned(),
                reason,
            },
        }
    })
}

/// How many frame threads decode a stream of `format` at `(width, height)` in software.
///
/// Frame threads decode ahead, each holding a frame. For HD, two per core (up to 32): catching
/// up to an exact seek through a GOP decodes a chain of frames that each reference the one
/// before, whose threads spend much of their time waiting for rows of those references, so more
/// of them than cores keep the cores busy (1080p60, GOP 250, 16 cores: 16 threads land a seek
/// at p95 249 ms, 24 at 197, 32 at 167, and decode 1021, 1187 and 1295 frames per second).
/// Below 720p, where a GOP decodes quickly anyway, one per core up to 16: every thread more is
/// a frame more to wait for when a decode run starts. 6 above HD, which still decodes 4K faster
/// than it plays while keeping the frames in flight (12 MB each) to a bounded amount of memory.
/// `HISTOPLAY_DECODE_THREADS` overrides the choice, for measuring others.
fn decode_threads(format: Pixel, (width, height): (u32, u32)) -> usize {
    let cores = std::thread::available_parallelism().map_or(4, |n| n.get());
    let pixels = u64::from(width) * u64::from(height);
    // Beyond 4K a frame is 50 to 100 MB: no more threads than keep 256 MB of them in flight
    // (two for 8K at 10 bits), or the frames in flight alone would outgrow the frame cache.
    // SAFETY: FFmpeg computes a size from a format and dimensions.
    let frame_bytes = unsafe { ffmpeg::ffi::av_image_get_buffer_size(format.into(), width as i32, height as i32, 1) };
    let frame_bytes = u64::try_from(frame_bytes).ok().filter(|&b| b > 0).unwrap_or(3 * pixels);
    let within_memory = usize::try_from((256 << 20) / frame_bytes.max(1))
        .unwrap_or(usize::MAX)
        .max(1);
    let per_size = match pixels {
        p if p > 2_500_000 => cores.min(6).min(within_memory),
        p if p >= 1280 * 720 => (2 * cores).min(32),
        _ => cores.min(16),
    };
    let Ok(asked) = std::env::var("HISTOPLAY_DECODE_THREADS") else {
        return per_size;
    };
    match asked.parse::<usize>() {
        Ok(n @ 1..=64) => n,
        _ => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| log::warn!("HISTOPLAY_DECODE_THREADS={asked} is not from 1 to 64: left out"));
            per_size
        }
    }
}

/// Opens the decoder. Its frame threads, started as it opens, take the priority of the thread
/// that opens it: with `lowered`, one a little below everything else's, so that the threads
/// that draw, upload and decode a seek's keyframe preview get a core at once however busy
/// decoding keeps the rest (a nice value only ever goes up, so a thread of its own opens it).
fn open_decoder(context: ffmpeg::codec::context::Context, lowered: bool) -> Result<ffmpeg::decoder::Video, String> {
    let open = |context: ffmpeg::codec::context::Context| {
        crate::video::ffmpeg_log::clear();
        context.decoder().video().map_err(crate::video::ffmpeg_log::reason)
    };
    if !lowered {
        return open(context);
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("histoplay open".into())
            .spawn_scoped(scope, || {
                crate::video::index::set_nice(FRAME_THREADS_NICE);
                open(context)
            })
            .map_err(|e| e.to_string())
            .and_then(|opening| opening.join().unwrap_or_else(|_| Err("opening it failed".into())))
    })
}

/// What the stream and its opened decoder say about the video: size, layout, colour, timing,
/// rotation, aspect and chapters.
fn describe(
    path: &Path,
    input: &ffmpeg::format::context::Input,
    stream: &ffmpeg::format::stream::Stream,
    decoder: &ffmpeg::decoder::Video,
    codec: String,
    hwdec: Option<&'static str>,
) -> Result<VideoInfo, VideoError> {
    let (width, height) = (decoder.width(), decoder.height());
    if width == 0 || height == 0 {
        let reason = match codec == "webp" && crate::video::still::is_animated_webp(path) {
            true => "an animated WebP, whose animation FFmpeg 5.1 does not decode (hist, scope and render read its first picture)",
            false => "no picture of its video could be read to learn its size (damaged, or cut short)",
        };
        return Err(VideoError::Decode {
            path: path.to_owned(),
            reason: reason.into(),
        });
    }
    let decoder_format = decoder.format();
    if decoder_format == Pixel::None {
        // (FFmpeg's probe decodes frames to learn it: none of those it read decoded.)
        return Err(VideoError::Decode {
            path: path.to_owned(),
            reason: "no frame of its video could be decoded (its pixel format is unknown)".into(),
        });
    }
    let (layout, jpeg) = upload_layout(decoder_format).expect("fallback formats are native");
    // Frames come back from the device as NV12 (P010 at 10 bits): the same samples, chroma
    // interleaved.
    let layout = match hwdec {
        Some(_) if layout.bits() > 8 => PlaneLayout::P010,
        Some(_) => PlaneLayout::Nv12,
        None => layout,
    };
    let color = ColorSpec::resolve(
        matrix_of(decoder.color_space()),
        range_of(decoder.color_range()),
        width,
        height,
        jpeg,
    );
    let time_base = stream.time_base();
    // The average rate, or where the container states none (a lavfi graph, raw video) the
    // stream's base rate.
    let sane = |r: &ffmpeg::Rational| r.numerator() > 0 && r.denominator() > 0 && f64::from(*r) <= 1000.0;
    let rate = Some(stream.avg_frame_rate())
        .filter(sane)
        .or(Some(stream.rate()).filter(sane))
        .unwrap_or(ffmpeg::Rational::new(25, 1));
    let frame_duration = if rate.numerator() > 0 && rate.denominator() > 0 {
        f64::from(rate.denominator()) / f64::from(rate.numerator())
    } else {
        1.0 / 25.0
    };
    // A still picture is turned as its EXIF orientation says (FFmpeg 5.1 shows it as stored).
    let turns = match quarter_turns(stream) {
        0 if still_picture(input) => crate::video::still::orientation_turns(path),
        turns => turns,
    };
    // The container's sample aspect where it gives one (Matroska's display size, QuickTime's
    // pasp: an FFV1 or ProRes stream carries none of its own), else the codec's.
    let (sar_n, sar_d) = super::streams::stream_sar(stream);
    let sar = if sar_n > 0 && sar_d > 0 {
        f64::from(sar_n) / f64::from(sar_d)
    } else {
        1.0
    };
    let aspect = width as f64 * sar / height as f64;
    let display_aspect = if turns % 2 == 1 { 1.0 / aspect } else { aspect } as f32;
    let container_duration = if input.duration() > 0 {
        input.duration() as f64 / f64::from(ffmpeg::ffi::AV_TIME_BASE)
    } else {
        0.0
    };
    let start_pts = Some(stream.start_time()).filter(|&t| t != ffmpeg::ffi::AV_NOPTS_VALUE);
    let volume = color_volume(
        stream,
        decoder.color_transfer_characteristic(),
        decoder.color_primaries(),
    );
    let colour_tags = super::info::ColourTags::of(
        decoder.color_primaries(),
        decoder.color_transfer_characteristic(),
        decoder.color_space(),
        decoder.color_range(),
    );
    // Profiles 8.1 and 8.4 carry an HDR10 or HLG base layer, which plays as such; profile 5's
    // base layer is in Dolby's own IPT colour space and needs its metadata to be shown.
    if let Some((profile, 0)) = dolby_vision(stream) {
        log::warn!(
            "{}: Dolby Vision profile {profile} has no HDR10- or HLG-compatible base layer: its colours show wrong",
            path.display()
        );
    }
    Ok(VideoInfo {
        path: path.to_owned(),
        codec,
        pixel_format: stream::pixel_name(decoder_format),
        hwdec,
        format: FrameFormat {
            layout,
            width,
            height,
            color,
        },
        volume,
        decoded_range: color.range,
        frame_light: FrameLight::default(),
        time_base: (time_base.numerator(), time_base.denominator()),
        frame_duration,
        duration: container_duration,
        start_pts,
        quarter_turns: turns,
        display_aspect,
        chapters: chapters(input),
        log: LogEncoding::from_tags(
            stream
                .metadata()
                .iter()
                .chain(input.metadata().iter())
                .collect::<Vec<_>>(),
        ),
        live: false,
        field_order: field_order(stream),
        still: still_picture(input) && !path.to_string_lossy().contains('%'),
        cover_art: stream
            .disposition()
            .contains(ffmpeg::format::stream::Disposition::ATTACHED_PIC)
            && input.streams().best(ffmpeg::media::Type::Audio).is_some(),
        colour_tags,
        timecode_tag: timecode_tag(input, stream),
    })
}

/// The container's timecode of the first frame: the video stream's `timecode` tag, else
/// another stream's (a QuickTime timecode track), else the format's (MXF).
fn timecode_tag(input: &ffmpeg::format::context::Input, video: &ffmpeg::format::stream::Stream) -> Option<String> {
    // (A tag that is no timecode is passed over for the next.)
    let tag = |metadata: ffmpeg::DictionaryRef| {
        metadata
            .get("timecode")
            .filter(|t| crate::video::timecode::Timecode::parse(t).is_some())
            .map(str::to_string)
    };
    tag(video.metadata())
        .or_else(|| input.streams().find_map(|s| tag(s.metadata())))
        .or_else(|| tag(input.metadata()))
}

/// The stream's field order, as ffprobe names it.
fn field_order(stream: &ffmpeg::format::stream::Stream) -> &'static str {
    use ffmpeg::ffi::AVFieldOrder::*;
    // SAFETY: reads one plain field of the stream's valid codec parameters.
    match unsafe { (*stream.parameters().as_ptr()).field_order } {
        AV_FIELD_PROGRESSIVE => "progressive",
        AV_FIELD_TT => "tt",
        AV_FIELD_BB => "bb",
        AV_FIELD_TB => "tb",
        AV_FIELD_BT => "bt",
        _ => "unknown",
    }
}

/// Whether `input` is one picture read by an image demuxer (`image2`, `jpeg_pipe` ...).
fn still_picture(input: &ffmpeg::format::context::Input) -> bool {
    let format = input.format();
    let name = format.name();
    name == "image2" || name.ends_with("_pipe")
}

/// The container's chapters, sorted by start.
fn chapters(input: &ffmpeg::format::context::Input) -> Vec<Chapter> {
    let mut chapters: Vec<Chapter> = input
        .chapters()
        .filter_map(|chapter| {
            let base = chapter.time_base();
            (base.denominator() != 0).then(|| Chapter {
                start: chapter.start() as f64 * f64::from(base.numerator()) / f64::from(base.denominator()),
                title: chapter.metadata().get("title").map(str::to_string),
            })
        })
        .filter(|c| c.start.is_finite())
        .collect();
    chapters.sort_by(|a, b| a.start.total_cmp(&b.start));
    chapters
}
