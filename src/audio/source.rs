//! A file's audio stream, decoded and resampled with FFmpeg to interleaved f32 at the output's
//! rate and channel count, in chunks stamped with their media time.

use super::layout;
use crate::video::demux::seek_backward;
use ffmpeg_next as ffmpeg;
use std::path::{Path, PathBuf};

/// Decoded audio: `samples` interleaved, `channels` per frame, starting at `start` seconds of
/// media time (the same timestamps as the video's frames).
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    pub start: f64,
    pub samples: Vec<f32>,
}

pub use crate::video::input::AudioTrack;

impl AudioError {
    /// Why `path` has no audio stream `track` (`AudioTrack::stream_in`).
    pub fn missing(path: &Path, missing: crate::video::input::NoTrack) -> Self {
        match missing {
            crate::video::input::NoTrack::NoAudio => Self::NoAudio(path.to_owned()),
            crate::video::input::NoTrack::Beyond { asked, count } => Self::NoTrack {
                path: path.to_owned(),
                asked,
                count,
            },
        }
    }
}

/// Why a file's audio can't be played; the video plays on without it.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("'{0}' has no audio stream")]
    NoAudio(PathBuf),
    #[error("'{path}' has {count} audio stream{}: no audio track {asked}", if *count == 1 { "" } else { "s" })]
    NoTrack { path: PathBuf, asked: u32, count: usize },
    #[error("'{path}': {reason}")]
    Open { path: PathBuf, reason: String },
}

pub struct AudioSource {
    path: PathBuf,
    packets: Packets,
    /// Makes a blocking read of the file give up (a stalled server), to stop.
    interrupt: crate::video::input::Interrupt,
    stream_index: usize,
    time_base: f64,
    /// The stream's time base as its fraction.
    time_base_fraction: (i32, i32),
    decoder: ffmpeg::decoder::Audio,
    resampler: Option<ffmpeg::software::resampling::Context>,
    rate: u32,
    channels: u16,
    /// The channels' layout given out: the stream's own (`open_as_is`), or None for the usual
    /// one of `channels`.
    layout: Option<ffmpeg::ChannelLayout>,
    /// The layout says where each channel is (see `channels_placed`).
    placed: bool,
    /// Media time just after the last chunk, for frames without a timestamp.
    next_start: Option<f64>,
    eof_sent: bool,
    damaged_packets: u64,
    /// The last frame's layout and rate and the frames in a row that had them, and the changes
    /// said (a broadcast's programme in 5.1 between advertisements in stereo).
    last_shape: Option<((ffmpeg::ChannelLayout, u32), u32)>,
    changes: u32,
    /// Samples that are no number (NaN) or infinite, in a float stream: said once.
    said_not_finite: bool,
    /// Whether a change of the sound's layout or rate is given out as it is (`following`)
    /// instead of mixed to the first.
    follows: bool,
    /// A file's timestamps kept running on where they start over (MPEG-TS pieces joined), as
    /// its picture's are.
    continuity: Option<crate::video::continuity::FileContinuity>,
}

/// Where the audio packets come from.
enum Packets {
    /// The file, opened again for its sound.
    Input(ffmpeg::format::context::Input),
    /// A live input's packets, handed on by the video's decoder as it reads them (a live input
    /// can't be opened twice) and kept for a while: read from packet `at` on.
    Fed {
        window: std::sync::Arc<crate::video::source::tap::PacketWindow>,
        at: u64,
    },
}

// SAFETY: the FFmpeg contexts are owned by one AudioSource and used from one thread at a time.
unsafe impl Send for AudioSource {}

impl AudioSource {
    /// Opens the audio stream `track` of `path`, to be resampled to `rate` Hz and `channels`.
    pub fn open(path: &Path, track: AudioTrack, rate: u32, channels: u16) -> Result<Self, AudioError> {
        let open_error = |e: ffmpeg::Error| AudioError::Open {
            path: path.to_owned(),
            reason: e.to_string(),
        };
        ffmpeg::init().map_err(open_error)?;
        let interrupt = crate::video::input::Interrupt::default();
        let input = crate::video::input::open(path, &interrupt).map_err(|reason| AudioError::Open {
            path: path.to_owned(),
            reason,
        })?;
        let index = track.stream_in(&input).map_err(|m| AudioError::missing(path, m))?;
        let stream = input.stream(index).expect("an index among the input's streams");
        let (stream_index, time_base, parameters) = (stream.index(), stream.time_base(), stream.parameters());
        let continuity = crate::video::continuity::may_start_over(&input).then(|| {
            crate::video::continuity::FileContinuity::new(&input, crate::video::continuity::FileClock::of(path))
        });
        let mut source = Self::with_packets(
            path,
            Packets::Input(input),
            interrupt,
            (stream_index, time_base, parameters),
            (rate, channels),
        )?;
        source.continuity = continuity;
        Ok(source)
    }

    /// Fails where `track` is asked for by number (`--aid N`) and `path` has no such audio
    /// stream: a command that measures it is not run without it.
    pub fn track_is_there(path: &Path, track: AudioTrack) -> Result<(), AudioError> {
        if let AudioTrack::Nth(_) = track {
            if let Err(e @ (AudioError::NoTrack { .. } | AudioError::NoAudio(_))) = Self::open_as_is(path, track) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// The audio stream `track` of `path` as it is: its own rate, channels and layout (samples
    /// converted to f32 only).
    pub fn open_as_is(path: &Path, track: AudioTrack) -> Result<Self, AudioError> {
        Self::open(path, track, 48_000, 2)?.in_its_own_format()
    }

    /// A live input's sound (as `fed`) as it is: its own rate, channels and layout.
    pub fn fed_as_is(path: &Path, tapped: crate::video::source::Tapped) -> Result<Self, AudioError> {
        Self::fed(path, tapped, 48_000, 2)?.in_its_own_format()
    }

    /// This source giving out the stream's own rate, channels and layout.
    fn in_its_own_format(mut self) -> Result<Self, AudioError> {
        let (rate, channels) = (self.decoder.rate(), self.decoder.channels());
        if rate == 0 || channels == 0 {
            return Err(AudioError::Open {
                path: self.path.clone(),
                reason: "the audio stream says no sample rate or channels".into(),
            });
        }
        // Beyond the counts with a usual layout: channels with no place.
        let layout = layout::placing(layout::of_decoder(&self.decoder), channels).unwrap_or_else(|| {
            self.placed = false;
            layout::unplaced(channels)
        });
        (self.rate, self.channels, self.layout) = (rate, channels, Some(layout));
        Ok(self)
    }

    /// This source (as it is) giving out the sound in its new layout and rate where it changes,
    /// as FFmpeg's filters are made again for it, instead of mixed to its first.
    pub fn following(mut self) -> Self {
        self.follows = true;
        self
    }

    /// Whether the channels have their places (a layout the stream says, or the usual one of
    /// their count), or are only counted.
    pub fn channels_placed(&self) -> bool {
        self.placed
    }

    /// The channels' layout given out.
    pub fn layout(&self) -> ffmpeg::ChannelLayout {
        self.layout.unwrap_or_else(|| layout::usual(self.channels))
    }

    /// The sound of a live input's stream, whose packets come from `tapped` as the video's
    /// decoder reads them.
    pub fn fed(
        path: &Path,
        tapped: crate::video::source::Tapped,
        rate: u32,
        channels: u16,
    ) -> Result<Self, AudioError> {
        let stream = (tapped.stream_index, tapped.time_base, tapped.parameters);
        Self::with_packets(
            path,
            Packets::Fed {
                window: tapped.packets,
                at: 0,
            },
            Default::default(),
            stream,
            (rate, channels),
        )
    }

    /// Stream `stream_index` (its time base and codec parameters) from `packets`, its decoder
    /// opened, to be resampled to `rate` Hz and `channels`.
    fn with_packets(
        path: &Path,
        packets: Packets,
        interrupt: crate::video::input::Interrupt,
        (stream_index, time_base, parameters): (usize, ffmpeg::Rational, ffmpeg::codec::Parameters),
        (rate, channels): (u32, u16),
    ) -> Result<Self, AudioError> {
        let codec = parameters.id();
        let decoder = ffmpeg::codec::context::Context::from_parameters(parameters)
            .and_then(|context| context.decoder().audio())
            .map_err(|e| AudioError::Open {
                path: path.to_owned(),
                reason: match (codec, e) {
                    (ffmpeg::codec::Id::None, _) => {
                        "its sound's codec is not one FFmpeg knows (an unknown or damaged codec name)".into()
                    }
                    (_, ffmpeg::Error::DecoderNotFound) => {
                        format!("no decoder for its {} sound", format!("{codec:?}").to_lowercase())
                    }
                    (_, e) => e.to_string(),
                },
            })?;
        Ok(Self {
            path: path.to_owned(),
            packets,
            interrupt,
            stream_index,
            time_base: f64::from(time_base),
            time_base_fraction: (time_base.numerator(), time_base.denominator()),
            decoder,
            resampler: None,
            rate,
            channels: channels.max(1),
            layout: None,
            placed: true,
            next_start: None,
            eof_sent: false,
            damaged_packets: 0,
            last_shape: None,
            changes: 0,
            said_not_finite: false,
            follows: false,
            continuity: None,
        })
    }

    /// What makes this source's blocking reads give up, from another thread.
    pub fn interrupter(&self) -> crate::video::input::Interrupt {
        self.interrupt.clone()
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The stream's time base (its decoded frames' timestamps are in it).
    pub fn time_base(&self) -> (i32, i32) {
        self.time_base_fraction
    }

    /// The file or input the sound is of.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stream's index in its file.
    pub fn stream_index(&self) -> usize {
        self.stream_index
    }

    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Positions the demuxer at or before `seconds` of media time; the chunks decoded next may
    /// start a little before it.
    pub fn seek(&mut self, seconds: f64) {
        let pts = (seconds.max(0.0) / self.time_base) as i64;
        match &mut self.packets {
            Packets::Input(input) => {
                // Where the timestamps start over, at the byte of a keyframe of the picture a
                // second before (the sound lies near it), as the index found it.
                let clock = self.continuity.as_mut().and_then(|c| {
                    c.sought();
                    c.clock().cloned()
                });
                let sought = match clock.filter(|c| c.jumped()) {
                    Some(clock) => {
                        let pos = clock.keyframe_before_seconds(seconds - 1.0).unwrap_or(0);
                        crate::video::continuity::seek_to_byte(input, pos)
                    }
                    None => seek_backward(input, self.stream_index, pts),
                };
                if !sought {
                    log::warn!("{}: audio can't seek there", self.path.display());
                }
            }
            // From the packets kept (past the newest: the next to come).
            Packets::Fed { window, at } => *at = window.position_at(pts),
        }
        self.decoder.flush();
        // The resampler may hold a few samples of the old position.
        self.resampler = None;
        self.next_start = None;
        self.eof_sent = false;
    }

    /// The next chunk of audio, or None at the end of the stream. Damaged packets are skipped
    /// with a warning.
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        self.next_chunk_seen(&mut |_| {})
    }

    /// As `next_chunk`, each decoded frame shown to `decoded` as the decoder gave it (its own
    /// sample format) before it is converted.
    pub fn next_chunk_seen(&mut self, decoded: &mut dyn FnMut(&ffmpeg::frame::Audio)) -> Option<Chunk> {
        let mut frame = ffmpeg::frame::Audio::empty();
        loop {
            // What FFmpeg logs as it decodes is its reason for an error that follows.
            crate::video::ffmpeg_log::clear();
            match self.decoder.receive_frame(&mut frame) {
                Ok(()) => {
                    decoded(&frame);
                    if let Some(chunk) = self.resample(&mut frame) {
                        return Some(chunk);
                    }
                    continue;
                }
                Err(ffmpeg::Error::Eof) => return None,
                Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::error::EAGAIN => {}
                Err(e) => {
                    self.note_damage(&crate::video::ffmpeg_log::reason(e));
                    continue;
                }
            }
            if self.eof_sent {
                return None;
            }
            let packet = match &mut self.packets {
                Packets::Input(input) => {
                    let mut packet = ffmpeg::Packet::empty();
                    let read = packet.read(input).map(|()| packet).ok();
                    match (read, &mut self.continuity) {
                        (Some(mut packet), Some(continuity)) => {
                            if let Some(stream) = input.stream(packet.stream()) {
                                continuity.apply(&mut packet, stream.time_base());
                            }
                            Some(packet)
                        }
                        (read, _) => read,
                    }
                }
                // Waiting for the next packet gives up once interrupted (to stop). (The window
                // holds this stream's packets only, whatever its index after a reconnection.)
                Packets::Fed { window, at } => loop {
                    use crate::video::source::tap::Next;
                    match window.next(at, std::time::Duration::from_millis(100)) {
                        Next::Packet(mut packet) => {
                            packet.set_stream(self.stream_index);
                            break Some(packet);
                        }
                        Next::Waiting if !self.interrupt.is_set() => {}
                        Next::Waiting | Next::Ended => break None,
                    }
                },
            };
            match packet {
                Some(packet) if packet.stream() != self.stream_index => {}
                Some(packet) => {
                    crate::video::ffmpeg_log::clear();
                    if let Err(e) = self.decoder.send_packet(&packet) {
                        self.note_damage(&crate::video::ffmpeg_log::reason(e));
                    }
                }
                None => {
                    self.eof_sent = true;
                    let _ = self.decoder.send_eof();
                }
            }
        }
    }

    fn resample(&mut self, frame: &mut ffmpeg::frame::Audio) -> Option<Chunk> {
        let start = frame
            .timestamp()
            .or(frame.pts())
            .map(|pts| pts as f64 * self.time_base)
            .or(self.next_start)
            .unwrap_or(0.0);
        // Frames that don't say get the usual layout for their channel count, or, where it has
        // none, the channels' own as the source reads them (their places unknown).
        let channels = frame.channels();
        let layout = layout::placing(layout::of_frame(frame), channels)
            .or_else(|| self.layout.filter(|l| l.bits().count_ones() == u32::from(channels)))
            .unwrap_or_else(|| layout::unplaced(channels));
        frame.set_channel_layout(layout);
        let shape = (layout, frame.rate());
        match self.last_shape {
            Some((last, frames)) if last == shape => self.last_shape = Some((shape, frames + 1)),
            Some((last, frames)) => {
                // (A lone frame of another shape, a decoder settling on its first or a damaged
                // one, is no change of the sound's: the change back from it is not said.)
                if frames > 1 {
                    self.note_change(last, shape, start);
                }
                self.last_shape = Some((shape, 1));
            }
            None => self.last_shape = Some((shape, 1)),
        }
        if self.follows && shape != (self.layout(), self.rate) {
            (self.rate, self.channels, self.layout) = (frame.rate(), channels, Some(layout));
            self.placed = layout != layout::unplaced(channels);
            self.resampler = None;
        }
        let matches = |r: &ffmpeg::software::resampling::Context| {
            let input = r.input();
            input.format == frame.format() && input.channel_layout == layout && input.rate == frame.rate()
        };
        if !self.resampler.as_ref().is_some_and(matches) {
            let context = ffmpeg::software::resampling::Context::get(
                frame.format(),
                layout,
                frame.rate(),
                ffmpeg::format::Sample::F32(ffmpeg::format::sample::Type::Packed),
                self.layout(),
                self.rate,
            );
            match context {
                Ok(context) => self.resampler = Some(context),
                Err(e) => {
                    self.note_damage(&crate::video::ffmpeg_log::text(e));
                    return None;
                }
            }
        }
        let out_layout = self.layout();
        let resampler = self.resampler.as_mut()?;
        // Room for every sample this frame makes plus what the resampler held back, so nothing
        // piles up inside it.
        let room = frame.samples() as u64 * u64::from(self.rate) / u64::from(frame.rate().max(1)) + 256;
        let mut out = ffmpeg::frame::Audio::new(
            ffmpeg::format::Sample::F32(ffmpeg::format::sample::Type::Packed),
            room as usize,
            out_layout,
        );
        if let Err(e) = resampler.run(frame, &mut out) {
            self.note_damage(&crate::video::ffmpeg_log::text(e));
            return None;
        }
        // Packed f32: one plane of samples() frames of `channels` floats (its line may be padded).
        let bytes = out.samples() * usize::from(self.channels) * 4;
        let samples = bytemuck::pod_collect_to_vec::<u8, f32>(&out.data(0)[..bytes]);
        let float = matches!(
            frame.format(),
            ffmpeg::format::Sample::F32(_) | ffmpeg::format::Sample::F64(_)
        );
        if float && !self.said_not_finite {
            if let Some(at) = samples.iter().position(|s| !s.is_finite()) {
                self.said_not_finite = true;
                let at = start + (at / usize::from(self.channels.max(1))) as f64 / f64::from(self.rate);
                log::warn!(
                    "{}: samples that are not numbers (NaN or infinite) from {at:.3} s: played as \
                     silence or full scale, measured as FFmpeg measures them",
                    self.path.display()
                );
            }
        }
        self.next_start = Some(start + out.samples() as f64 / f64::from(self.rate));
        Some(Chunk { start, samples })
    }

    /// The sound changed its channels or rate (from `last` to `now`) at `start` s: said, for
    /// the first few changes; it is mixed to the layout and rate given out.
    fn note_change(&mut self, last: (ffmpeg::ChannelLayout, u32), now: (ffmpeg::ChannelLayout, u32), start: f64) {
        self.changes += 1;
        let path = self.path.display();
        if self.changes > 3 {
            if self.changes == 4 {
                log::warn!("{path}: the sound changes again; further changes not said");
            }
            return;
        }
        let shape = |(layout, rate): (ffmpeg::ChannelLayout, u32)| match now.1 == last.1 {
            true => layout::name(layout),
            false => format!("{} at {rate} Hz", layout::name(layout)),
        };
        let out = match now.1 == last.1 && self.rate == now.1 {
            true => layout::name(self.layout()),
            false => format!("{} at {} Hz", layout::name(self.layout()), self.rate),
        };
        let then = match self.follows {
            true => "measured afresh from there, as FFmpeg's filters are made again".to_string(),
            false => format!("from there it is mixed to {out}"),
        };
        log::warn!(
            "{path}: the sound changes from {} to {} at {start:.3} s; {then}",
            shape(last),
            shape(now)
        );
    }

    fn note_damage(&mut self, error: &dyn std::fmt::Display) {
        self.damaged_packets += 1;
        if self.damaged_packets <= 3 {
            log::warn!("{}: damaged audio, playing on: {error}", self.path.display());
        } else if self.damaged_packets == 4 {
            log::warn!(
                "{}: more audio damage; further warnings suppressed",
                self.path.display()
            );
        }
    }
}
