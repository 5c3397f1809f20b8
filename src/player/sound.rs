//! The sound's part: whether files play their sound, its volume (`9`, `0`, `m`) and the device
//! it plays on, kept from file to file; the picture follows the sound's clock.

use super::commands::Command;
use super::media::{Media, OpenedFile};
use super::part::{Effects, Toast};
use crate::audio::source::AudioTrack;
use crate::audio::Volume;
use std::time::Instant;

pub struct Sound {
    on: bool,
    volume: Volume,
    /// Which audio stream of each file plays (`--aid`).
    track: AudioTrack,
    device: Option<String>,
}

impl Sound {
    /// The sound as the player's options start it.
    pub fn new(options: &super::PlayerOptions) -> Self {
        Self {
            on: options.sound,
            volume: options.volume,
            track: options.audio_track,
            device: options.audio_device.clone(),
        }
    }

    /// The volume now.
    pub fn volume(&self) -> Volume {
        self.volume
    }

    /// The volume's commands.
    pub fn command(&mut self, command: &Command, media: &Media) -> Effects {
        let volume = match *command {
            Command::VolumeBy(step) => self.volume.changed_by(step),
            Command::ToggleMute => Volume {
                muted: !self.volume.muted,
                ..self.volume
            },
            _ => return Effects::default(),
        };
        self.volume = volume;
        if let Some(audio) = &media.audio {
            audio.set_volume(volume);
        }
        let text = match (media.audio.is_some(), volume.muted) {
            (false, _) => "no sound".to_string(),
            (true, true) => format!("volume {}% (muted)", volume.percent),
            (true, false) => format!("volume {}%", volume.percent),
        };
        Effects {
            toasts: vec![Toast {
                replaces: vec!["volume ".into(), "no sound".into()],
                text,
                error: false,
            }],
            ..Default::default()
        }
    }

    /// What a file is opened with: the volume to play its sound at (None: no sound), which of
    /// its audio streams, and the device.
    pub fn opening(&self) -> (Option<Volume>, AudioTrack, Option<String>) {
        (self.on.then_some(self.volume), self.track, self.device.clone())
    }

    /// A file opened: the volume may have changed while it was opening.
    pub fn opened(&self, opened: &OpenedFile) {
        if let Some(audio) = &opened.audio {
            audio.set_volume(self.volume);
        }
    }

    /// The picture follows the sound heard, and the sound is told where the picture is.
    pub fn follow(media: &mut Media, now: Instant) {
        if let Some(audio) = &media.audio {
            if let Some(heard) = audio.heard_at(now) {
                media.playback.follow_audio(now, heard);
            }
            audio.cue(media.playback.audio_cue());
        }
    }
}
