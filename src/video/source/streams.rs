//! What a container holds, stream by stream, as ffprobe describes it (`-show_streams`,
//! `-show_format`): for the QC page's list of streams, where a delivery's checker looks for
//! the sound tracks and their languages, the subtitles and the timecode track.

use ffmpeg_next as ffmpeg;
use std::path::Path;

/// The container and its streams.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContainerFacts {
    /// The format's names: `matroska,webm (Matroska / WebM)`.
    pub format: String,
    /// Bytes, where it is a file.
    pub size: Option<u64>,
    /// Bits a second over the whole file, as the container says or FFmpeg estimates.
    pub bit_rate: Option<i64>,
    pub streams: Vec<StreamFacts>,
    /// The streams histoplay reads: its picture's and its sound's (FFmpeg's best of each).
    pub measured: Vec<usize>,
}

/// One stream, in ffprobe's words.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamFacts {
    pub index: usize,
    /// `video`, `audio`, `subtitle`, `data`, `attachment`.
    pub kind: &'static str,
    /// The codec's name and profile: `h264 (High)`, `aac (LC)`, `ac3`.
    pub codec: String,
    /// Video: `1920x1080, yuv420p, 25 fps`; sound: `48000 Hz, 5.1(side), fltp`.
    pub details: String,
    /// Its `language` tag (`eng`), where it has one.
    pub language: Option<String>,
    /// Its `title` tag, where it has one.
    pub title: Option<String>,
    /// Its dispositions that a checker looks at: `default`, `forced`, `cover picture`.
    pub marks: Vec<&'static str>,
}

impl ContainerFacts {
    /// How many audio streams there are, and the number (from 1, in the file's order) of the
    /// one measured (FFmpeg's pick): what the window's `#` steps through.
    pub fn audio_tracks(&self) -> (u32, Option<u32>) {
        let audio: Vec<usize> = (self.streams.iter())
            .filter(|s| s.kind == "audio")
            .map(|s| s.index)
            .collect();
        let best = (self.measured.iter()).find_map(|&i| audio.iter().position(|&a| a == i));
        (audio.len() as u32, best.map(|n| n as u32 + 1))
    }
}

/// The facts of `input`'s container, opened from `path`.
pub fn container_facts(input: &ffmpeg::format::context::Input, path: &Path) -> ContainerFacts {
    let format = input.format();
    let name = format.name();
    let format = match format.description() {
        description if description.is_empty() || description == name => name.to_string(),
        description => format!("{name} ({description})"),
    };
    let size = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len());
    let bit_rate = Some(input.bit_rate()).filter(|&rate| rate > 0);
    let streams: Vec<StreamFacts> = input.streams().map(|stream| stream_facts(&stream)).collect();
    // (A cover picture is not the file's video: a file of sound with one is measured as sound.)
    let measured = [ffmpeg::media::Type::Video, ffmpeg::media::Type::Audio]
        .into_iter()
        .filter_map(|kind| input.streams().best(kind).map(|s| s.index()))
        .filter(|&i| !streams[i].marks.contains(&"cover picture"))
        .collect();
    ContainerFacts {
        format,
        size,
        bit_rate,
        streams,
        measured,
    }
}

/// The facts of the container of the file at `path` (a file of sound alone, whose page has no
/// video source to take them from); None where it can't be opened.
pub fn container_facts_of(path: &Path) -> Option<ContainerFacts> {
    let interrupt = crate::video::input::Interrupt::default();
    let input = crate::video::input::open(path, &interrupt).ok()?;
    Some(container_facts(&input, path))
}

fn stream_facts(stream: &ffmpeg::format::stream::Stream) -> StreamFacts {
    use ffmpeg::media::Type;
    let parameters = stream.parameters();
    let id = parameters.id();
    // SAFETY: the stream's own parameters, read only, as long as the stream.
    let raw = unsafe { &*parameters.as_ptr() };
    let kind = match parameters.medium() {
        Type::Video => "video",
        Type::Audio => "audio",
        Type::Subtitle => "subtitle",
        Type::Data => "data",
        Type::Attachment => "attachment",
        Type::Unknown => "unknown",
    };
    // (A stream of no codec FFmpeg names, a QuickTime timecode track's: its fourcc, `tmcd`.)
    let name = match id {
        ffmpeg::codec::Id::None => fourcc(raw.codec_tag).unwrap_or_else(|| "none".to_string()),
        id => id.name().to_string(),
    };
    // SAFETY: a lookup in FFmpeg's tables; null where the codec has no such profile.
    let codec = match table_name(unsafe { ffmpeg::ffi::avcodec_profile_name(id.into(), raw.profile) }) {
        Some(profile) => format!("{name} ({profile})"),
        None => name,
    };
    let metadata = stream.metadata();
    let tag = |key: &str| metadata.get(key).map(str::to_string).filter(|v| !v.is_empty());
    let details = match parameters.medium() {
        Type::Video => video_details(raw, stream.avg_frame_rate(), stream_sar(stream)),
        Type::Audio => audio_details(raw),
        _ => tag("timecode").map_or_else(String::new, |tc| format!("timecode {tc}")),
    };
    let disposition = stream.disposition();
    let mut marks = Vec::new();
    use ffmpeg::format::stream::Disposition;
    for (flag, mark) in [
        (Disposition::DEFAULT, "default"),
        (Disposition::FORCED, "forced"),
        (Disposition::ATTACHED_PIC, "cover picture"),
        (Disposition::HEARING_IMPAIRED, "hearing impaired"),
        (Disposition::VISUAL_IMPAIRED, "visually impaired"),
        (Disposition::COMMENT, "commentary"),
    ] {
        if disposition.contains(flag) {
            marks.push(mark);
        }
    }
    StreamFacts {
        index: stream.index(),
        kind,
        codec,
        details,
        language: tag("language").filter(|l| l != "und"),
        title: tag("title").or_else(|| tag("filename")),
        marks,
    }
}

/// A name from one of FFmpeg's static tables (a format's, a profile's); None for null.
fn table_name(name: *const std::ffi::c_char) -> Option<String> {
    // SAFETY: null, or a static NUL-terminated name FFmpeg gave.
    (!name.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().into_owned())
}

/// FFmpeg's name for `value` of one of its enums of `count` values, `name` looking it up (called
/// only for a value within them).
fn enum_name(value: i32, count: i32, name: impl FnOnce(i32) -> *const std::ffi::c_char) -> Option<String> {
    (0..count).contains(&value).then(|| table_name(name(value))).flatten()
}

/// A codec tag's four characters (`tmcd`), where they are printable.
fn fourcc(tag: u32) -> Option<String> {
    let bytes = tag.to_le_bytes();
    bytes
        .iter()
        .all(|b| b.is_ascii_graphic())
        .then(|| String::from_utf8_lossy(&bytes).into_owned())
}

/// The stream's sample aspect ratio where the container says one (else its codec's), as
/// FFmpeg's `av_guess_sample_aspect_ratio` takes it.
pub fn stream_sar(stream: &ffmpeg::format::stream::Stream) -> (i32, i32) {
    // SAFETY: plain fields of a valid stream and its parameters.
    let (own, coded) = unsafe {
        let s = stream.as_ptr();
        ((*s).sample_aspect_ratio, (*(*s).codecpar).sample_aspect_ratio)
    };
    match own.num > 0 && own.den > 0 {
        true => (own.num, own.den),
        false => (coded.num, coded.den),
    }
}

fn video_details(raw: &ffmpeg::ffi::AVCodecParameters, rate: ffmpeg::Rational, (sar_n, sar_d): (i32, i32)) -> String {
    let mut parts = Vec::new();
    if raw.width > 0 && raw.height > 0 {
        parts.push(format!("{}x{}", raw.width, raw.height));
        // Pixels that are not square: the sample and display aspect ratios, as ffprobe gives
        // them (an anamorphic 16:9 PAL frame: SAR 64:45 DAR 16:9).
        if sar_n > 0 && sar_d > 0 && sar_n != sar_d {
            let reduce = |n: i64, d: i64| {
                let (mut a, mut b) = (n, d);
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                (n / a, d / a)
            };
            let sar = reduce(i64::from(sar_n), i64::from(sar_d));
            let dar = reduce(i64::from(raw.width) * sar.0, i64::from(raw.height) * sar.1);
            parts.push(format!("SAR {}:{} DAR {}:{}", sar.0, sar.1, dar.0, dar.1));
        }
    }
    // SAFETY: a value of the enum (`enum_name` checks), looked up in FFmpeg's table.
    let pixel = enum_name(
        raw.format,
        ffmpeg::ffi::AVPixelFormat::AV_PIX_FMT_NB as i32,
        |v| unsafe { ffmpeg::ffi::av_get_pix_fmt_name(std::mem::transmute::<i32, ffmpeg::ffi::AVPixelFormat>(v)) },
    );
    parts.extend(pixel);
    if rate.numerator() > 0 && rate.denominator() > 0 {
        parts.push(crate::terminal::fps(f64::from(rate)));
    }
    parts.join(", ")
}

fn audio_details(raw: &ffmpeg::ffi::AVCodecParameters) -> String {
    let mut parts = Vec::new();
    if raw.sample_rate > 0 {
        parts.push(format!("{} Hz", raw.sample_rate));
    }
    // (Where the layout's order is unspecified, ffprobe's `unknown`, the count alone: a WAV's
    // mono.)
    let layout = &raw.ch_layout;
    match (layout.order, layout.nb_channels) {
        (_, 0) => {}
        (ffmpeg::ffi::AVChannelOrder::AV_CHANNEL_ORDER_UNSPEC, channels) => {
            parts.push(crate::terminal::counted(channels.max(0) as usize, "channel"));
        }
        _ => {
            let mut text = [0 as std::ffi::c_char; 128];
            // SAFETY: FFmpeg writes at most the buffer's size, its end marked, from a layout
            // the demuxer filled in.
            let name = unsafe {
                ffmpeg::ffi::av_channel_layout_describe(layout, text.as_mut_ptr(), text.len());
                std::ffi::CStr::from_ptr(text.as_ptr()).to_string_lossy().into_owned()
            };
            parts.push(name);
        }
    }
    // SAFETY: a value of the enum (`enum_name` checks), looked up in FFmpeg's table.
    let sample = enum_name(
        raw.format,
        ffmpeg::ffi::AVSampleFormat::AV_SAMPLE_FMT_NB as i32,
        |v| unsafe { ffmpeg::ffi::av_get_sample_fmt_name(std::mem::transmute::<i32, ffmpeg::ffi::AVSampleFormat>(v)) },
    );
    parts.extend(sample);
    parts.join(", ")
}
