//! Which of an input's audio streams is its sound (`--aid`).

use ffmpeg_next as ffmpeg;

/// Which of a file's audio streams is its sound: the one FFmpeg picks as best (the default),
/// or the Nth audio stream, counted from 1 as mpv's `--aid` counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AudioTrack {
    #[default]
    Best,
    Nth(u32),
}

/// Why an input has no audio stream `AudioTrack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTrack {
    /// It has no sound at all.
    NoAudio,
    /// It has `count` audio streams, fewer than the number `asked`.
    Beyond { asked: u32, count: usize },
}

impl AudioTrack {
    /// The index among `input`'s streams of the audio stream this track names.
    pub fn stream_in(self, input: &ffmpeg::format::context::Input) -> Result<usize, NoTrack> {
        let audio = || {
            input
                .streams()
                .filter(|s| s.parameters().medium() == ffmpeg::media::Type::Audio)
        };
        let stream = match self {
            Self::Best => input.streams().best(ffmpeg::media::Type::Audio),
            Self::Nth(n) => audio().nth(n as usize - 1),
        };
        match (stream, self) {
            (Some(stream), _) => Ok(stream.index()),
            (None, Self::Nth(asked)) if audio().count() > 0 => Err(NoTrack::Beyond {
                asked,
                count: audio().count(),
            }),
            (None, _) => Err(NoTrack::NoAudio),
        }
    }

    /// `auto`, or an audio stream's number from 1 (`--aid`).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim() {
            "auto" => Ok(Self::Best),
            n => match n.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(Self::Nth(n)),
                _ => Err(format!("'{text}' is no audio track: auto, or its number from 1")),
            },
        }
    }
}
