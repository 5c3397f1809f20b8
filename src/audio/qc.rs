//! A file's sound for the QC report, frame by frame as `ffprobe -f lavfi
//! "amovie=F,astats=metadata=1:reset=1,ebur128=metadata=1" -show_frames` gives it: FFmpeg's
//! `ebur128` hands the sound on in frames of 100 ms (the last one shorter), each carrying the
//! `astats` tags of the decoded frame its first sample came in (astats reads the decoder's own
//! sample format), that frame's time counted on by the samples before it (a gap in the stream
//! stays one), and the loudness as it stands after its 100 ms (`lavfi.r128.*`). Each frame
//! also says how loud its loudest sample is and how many samples reach full scale, for the
//! report's silence and clipping limits.

use super::astats::Astats;
use super::loudness::{source_weights, LoudnessMeter};
use super::meters::CLIP_LEVEL;
use super::source::AudioSource;
use ffmpeg_next as ffmpeg;
use std::collections::VecDeque;
use std::path::Path;

/// One 100 ms frame of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioFrame {
    /// Its number from 0, its media time and its length in seconds, and its samples.
    pub index: u64,
    pub time: f64,
    pub duration: f64,
    pub samples: usize,
    /// The sound's rate here (where the sound changes its rate, the new one from the change).
    pub rate: u32,
    /// astats' tags, keys in full (`lavfi.astats.1.DC_offset`), values as ffprobe prints them.
    pub astats: Vec<(String, String)>,
    /// ebur128's: M, S, I, LRA, LRA.low, LRA.high (LUFS, LU); None for a last frame shorter
    /// than 100 ms (no 100 ms step ends in it, and FFmpeg tags it with none).
    pub r128: Option<[f64; 6]>,
    /// Its loudest sample over every channel (1 = full scale), and its samples at full scale.
    pub peak: f64,
    pub clipped: u64,
}

/// ebur128's tag names, in the order it writes them.
pub const R128_KEYS: [&str; 6] = ["M", "S", "I", "LRA", "LRA.low", "LRA.high"];

/// The stream reported: its index in the file, rate, channels and time base.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioStream {
    pub index: usize,
    pub rate: u32,
    pub channels: u16,
    pub time_base: (i32, i32),
}

/// A frame whose astats tags are known, waiting for its loudness.
struct Waiting {
    index: u64,
    astats: Vec<(String, String)>,
    /// Its first sample's time in samples (1/rate): the decoded frame's, counted on within it,
    /// as FFmpeg's filters time the frames they cut from it (a gap in the stream stays one).
    pts: Option<i64>,
}

/// Gaps in the sound shorter than this (in seconds) are timestamps' rounding, not damage.
const GAP: f64 = 0.02;

/// Reports the sound of `path` (its audio stream `track`) frame by frame to `each`, with the
/// stream, until its end or an error from `each` (which stops it); the stream, or why there is
/// none (or what `each` said). `seen_raw` sees each frame as the decoder gave it (the events'
/// silence detector reads them).
pub fn report_file(
    path: &Path,
    track: crate::audio::source::AudioTrack,
    seen_raw: impl FnMut(&AudioStream, &ffmpeg::frame::Audio),
    each: impl FnMut(&AudioStream, &AudioFrame) -> Result<(), String>,
) -> Result<AudioStream, String> {
    let source = AudioSource::open_as_is(path, track).map_err(|e| e.to_string())?;
    report_source(source, seen_raw, each)
}

/// As `report_file`, of the sound `source` gives as it is (opened as it is: a file's, or a live
/// input's fed from its packets as its pictures are read).
pub fn report_source(
    source: AudioSource,
    mut seen_raw: impl FnMut(&AudioStream, &ffmpeg::frame::Audio),
    mut each: impl FnMut(&AudioStream, &AudioFrame) -> Result<(), String>,
) -> Result<AudioStream, String> {
    let path = source.path().to_owned();
    let path = path.as_path();
    let mut source = source.following();
    let stream = AudioStream {
        index: source.stream_index(),
        rate: source.rate(),
        channels: source.channels(),
        time_base: source.time_base(),
    };
    let mut each = |frame: &AudioFrame| each(&stream, frame);
    let in_file = |e: String| format!("'{}': {e}", path.display());
    let shape = (usize::from(source.channels()), source.rate());
    let mut part = Part::new(shape, source_weights(&source), 0).map_err(in_file)?;
    let mut samples = Vec::new();
    let mut failed = None;
    let mut gaps = Gaps::default();
    loop {
        let mut seen = |raw: &ffmpeg::frame::Audio| {
            let n = raw.samples() as u64;
            if n == 0 {
                return;
            }
            seen_raw(&stream, raw);
            if let Err(e) = part.follow(raw, &mut gaps) {
                failed = Some(e);
                return;
            }
            let rate = part.rate;
            let pts = pts_in_samples(raw, stream.time_base, rate);
            gaps.note(path, pts, n, rate);
            // (Every decoded frame is counted: a channel's last sample carries to the next.)
            let (step, decoded) = (part.frame.step, part.decoded);
            match astats_of(&mut part.astats, raw) {
                // Each 100 ms frame starting in this decoded frame takes its tags and its time.
                Ok(tags) => {
                    part.waiting.extend(
                        (decoded.div_ceil(step)..(decoded + n).div_ceil(step)).map(|index| Waiting {
                            index,
                            astats: tags.clone(),
                            pts: pts.map(|pts| pts + (index * step - decoded) as i64),
                        }),
                    )
                }
                Err(e) => failed = Some(e),
            }
            part.decoded += n;
        };
        let Some(chunk) = source.next_chunk_seen(&mut seen) else {
            break;
        };
        if let Some(e) = failed.take() {
            return Err(in_file(e));
        }
        let first = *part.first.get_or_insert(chunk.start);
        samples.clear();
        samples.extend(chunk.samples.iter().map(|&x| f64::from(x)));
        part.meter.add(&samples).map_err(in_file)?;
        let mut blocks = part.meter.take_blocks().into_iter();
        for x in samples.chunks_exact(part.channels.max(1)) {
            part.frame.take(x);
            if part.frame.full() {
                if let Some(b) = blocks.next() {
                    part.r128 = [
                        b.momentary,
                        b.short_term,
                        b.integrated,
                        b.range,
                        b.range_low,
                        b.range_high,
                    ];
                }
                part.frame.emit(first, Some(part.r128), &mut part.waiting, &mut each)?;
            }
        }
    }
    // The last, shorter frame.
    if part.frame.count > 0 {
        let first = part.first.unwrap_or(0.0);
        part.frame.emit(first, None, &mut part.waiting, &mut each)?;
    }
    Ok(stream)
}

/// The sound since it last changed its channels, rate or sample format: FFmpeg's filters are
/// made again at such a change, and start from nothing (the 100 ms frame they had begun is
/// left out, as the filters made again never see it).
struct Part {
    channels: usize,
    rate: u32,
    /// The last decoded frame's sample format, layout, channels and rate.
    kind: Option<(ffmpeg::format::Sample, u64, usize, u32)>,
    meter: LoudnessMeter,
    astats: Astats,
    /// Samples decoded, the frames whose astats tags are known, and the last loudness.
    decoded: u64,
    waiting: VecDeque<Waiting>,
    r128: [f64; 6],
    /// The first chunk's time (for frames with no timestamp), and the frame being gathered.
    first: Option<f64>,
    frame: Frame,
}

impl Part {
    /// The sound of `channels` at `rate`, its channels weighed by `weights`; its frames
    /// numbered from `number`.
    fn new((channels, rate): (usize, u32), weights: Vec<f64>, number: u64) -> Result<Self, String> {
        let mut meter = LoudnessMeter::new(rate, weights, ffmpeg::ChannelLayout::empty(), false)?;
        meter.keep_blocks(true);
        Ok(Self {
            channels,
            rate,
            kind: None,
            meter,
            astats: Astats::new(channels, rate),
            decoded: 0,
            waiting: VecDeque::new(),
            r128: [-120.691, -120.691, -70.0, 0.0, 0.0, 0.0],
            first: None,
            frame: Frame::new(u64::from((rate / 10).max(1)), rate, number),
        })
    }

    /// Starts again where the decoded frame `raw` is of another kind than the one before it
    /// (the first, of other channels or another rate than the stream said); the gaps' count
    /// starts again with it.
    fn follow(&mut self, raw: &ffmpeg::frame::Audio, gaps: &mut Gaps) -> Result<(), String> {
        let (channels, rate) = (usize::from(raw.channels()).max(1), raw.rate().max(1));
        let layout = crate::audio::layout::of_frame(raw);
        let kind = (raw.format(), layout.bits(), channels, rate);
        let again = match self.kind {
            Some(last) => last != kind,
            None => (channels, rate) != (self.channels, self.rate),
        };
        self.kind = Some(kind);
        if !again {
            return Ok(());
        }
        let weights = match crate::audio::layout::placing(layout, raw.channels()) {
            Some(placed) => crate::audio::loudness::layout_weights(placed, channels),
            None => vec![1.0; channels],
        };
        *self = Self {
            kind: self.kind,
            ..Self::new((channels, rate), weights, self.frame.number)?
        };
        *gaps = Gaps::default();
        Ok(())
    }
}

/// The 100 ms frame being gathered.
struct Frame {
    step: u64,
    rate: f64,
    /// Its number in its part (as the astats tags waiting know it) and in the report.
    index: u64,
    number: u64,
    count: u64,
    peak: f64,
    clipped: u64,
}

impl Frame {
    fn new(step: u64, rate: u32, number: u64) -> Self {
        Self {
            step,
            rate: f64::from(rate),
            index: 0,
            number,
            count: 0,
            peak: 0.0,
            clipped: 0,
        }
    }

    fn take(&mut self, frame: &[f64]) {
        for &x in frame {
            self.peak = self.peak.max(x.abs());
            self.clipped += u64::from(x.abs() >= CLIP_LEVEL);
        }
        self.count += 1;
    }

    fn full(&self) -> bool {
        self.count == self.step
    }

    /// Hands the frame on with its tags, and starts the next.
    fn emit(
        &mut self,
        first: f64,
        r128: Option<[f64; 6]>,
        waiting: &mut VecDeque<Waiting>,
        each: &mut impl FnMut(&AudioFrame) -> Result<(), String>,
    ) -> Result<(), String> {
        while waiting.front().is_some_and(|w| w.index < self.index) {
            waiting.pop_front();
        }
        let (astats, pts) = match waiting.front() {
            Some(w) if w.index == self.index => waiting.pop_front().map(|w| (w.astats, w.pts)).unwrap_or_default(),
            _ => (Vec::new(), None),
        };
        let start = self.index * self.step;
        each(&AudioFrame {
            index: self.number,
            time: pts.map_or(first + start as f64 / self.rate, |pts| pts as f64 / self.rate),
            duration: self.count as f64 / self.rate,
            samples: self.count as usize,
            rate: self.rate as u32,
            astats,
            r128,
            peak: self.peak,
            clipped: self.clipped,
        })?;
        (self.index, self.number) = (self.index + 1, self.number + 1);
        (self.count, self.peak, self.clipped) = (0, 0.0, 0);
        Ok(())
    }
}

/// A decoded frame's time in samples (1/rate), from its best-effort timestamp in the stream's
/// time base, rounded as FFmpeg's `amovie` rescales it.
fn pts_in_samples(raw: &ffmpeg::frame::Audio, (num, den): (i32, i32), rate: u32) -> Option<i64> {
    // SAFETY: reading plain fields of a decoded frame.
    let (best, pts) = unsafe { ((*raw.as_ptr()).best_effort_timestamp, (*raw.as_ptr()).pts) };
    let pts = [best, pts].into_iter().find(|&t| t != ffmpeg::ffi::AV_NOPTS_VALUE)?;
    let (from, to) = (
        ffmpeg::ffi::AVRational { num, den },
        ffmpeg::ffi::AVRational {
            num: 1,
            den: i32::try_from(rate).ok()?,
        },
    );
    // SAFETY: a pure arithmetic function.
    (num > 0 && den > 0).then(|| unsafe { ffmpeg::ffi::av_rescale_q(pts, from, to) })
}

/// Gaps in the decoded sound (packets lost to damage), warned of as a video's damage is: the
/// first few, then a word that more were found.
#[derive(Default)]
struct Gaps {
    /// Where the sound decoded so far ends, in samples.
    end: Option<i64>,
    /// Decoded frames seen.
    frames: u64,
    warned: u32,
}

impl Gaps {
    const WARNINGS: u32 = 3;

    fn note(&mut self, path: &Path, pts: Option<i64>, samples: u64, rate: u32) {
        let Some(pts) = pts else {
            // (A frame without a time follows the one before: a packet of ADPCM in WAV decodes
            // into several frames, the first with the packet's time.)
            if let Some(end) = &mut self.end {
                *end += samples as i64;
            }
            return;
        };
        self.frames += 1;
        // (After the first frame, the decoder's skipping of the encoder's delay: an MP3's first
        // frame keeps its packet's time with its first 1105 samples left out.)
        if let Some(end) = self.end.filter(|_| self.frames > 2) {
            let missing = (pts - end) as f64 / f64::from(rate);
            if missing > GAP {
                self.warned += 1;
                match self.warned {
                    1..=Self::WARNINGS => log::warn!(
                        "{}: damaged sound, reporting on: {missing:.3} s of it missing at {:.3} s",
                        path.display(),
                        end as f64 / f64::from(rate)
                    ),
                    n if n == Self::WARNINGS + 1 => {
                        log::warn!(
                            "{}: more damage to the sound; further warnings suppressed",
                            path.display()
                        )
                    }
                    _ => {}
                }
            }
        }
        self.end = Some(pts + samples as i64);
    }
}

/// astats' tags of a decoded frame, read in its own sample format (unsigned 8-bit as FFmpeg
/// hands it on: converted to doubles).
fn astats_of(astats: &mut Astats, raw: &ffmpeg::frame::Audio) -> Result<Vec<(String, String)>, String> {
    use ffmpeg::format::sample::Type;
    use ffmpeg::format::Sample;
    let (samples, channels) = (raw.samples(), usize::from(raw.channels()));
    if channels != astats.channels() {
        *astats = Astats::new(channels, raw.rate());
    }
    // SAFETY: a decoded frame holds `samples` samples of each channel, in one plane (packed)
    // or one plane per channel (planar; `extended_data` has every plane, however many).
    fn planes<T: bytemuck::Pod>(
        raw: &ffmpeg::frame::Audio,
        planar: bool,
        samples: usize,
        channels: usize,
    ) -> Vec<&[T]> {
        unsafe {
            let data = (*raw.as_ptr()).extended_data;
            match planar {
                true => (0..channels)
                    .map(|ch| std::slice::from_raw_parts(*data.add(ch) as *const T, samples))
                    .collect(),
                false => vec![std::slice::from_raw_parts(*data as *const T, samples * channels)],
            }
        }
    }
    Ok(match raw.format() {
        Sample::I16(t) => run(astats, planes::<i16>(raw, t == Type::Planar, samples, channels)),
        Sample::I32(t) => run(astats, planes::<i32>(raw, t == Type::Planar, samples, channels)),
        Sample::I64(t) => run(astats, planes::<i64>(raw, t == Type::Planar, samples, channels)),
        Sample::F32(t) => run(astats, planes::<f32>(raw, t == Type::Planar, samples, channels)),
        Sample::F64(t) => run(astats, planes::<f64>(raw, t == Type::Planar, samples, channels)),
        Sample::U8(t) => {
            let bytes = planes::<u8>(raw, t == Type::Planar, samples, channels);
            let doubles: Vec<Vec<f64>> = bytes
                .iter()
                .map(|p| p.iter().map(|&b| (f64::from(b) - 128.0) / 128.0).collect())
                .collect();
            run(astats, doubles.iter().map(Vec::as_slice).collect())
        }
        Sample::None => return Err("the decoder gave sound of no sample format".into()),
    })
}

/// astats of one frame given as planes (one per channel) or as one interleaved plane.
fn run<S: super::astats::Sample>(astats: &mut Astats, planes: Vec<&[S]>) -> Vec<(String, String)> {
    match planes.len() == 1 && astats.channels() > 1 {
        true => astats.frame_interleaved(planes[0]),
        false => astats.frame(&planes),
    }
}
