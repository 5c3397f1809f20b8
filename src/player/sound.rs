//! The sound's part: whether files play their sound, which of their audio streams (`--aid`,
//! `#`), its volume (`9`, `0`, `m`) and the device it plays on, kept from file to file; the
//! picture follows the sound's clock.

use super::commands::Command;
use super::media::{Media, OpenedFile};
use super::part::{Effects, Toast};
use super::UserEvent;
use crate::audio::source::AudioTrack;
use crate::audio::{Audio, Volume};
use std::time::Instant;
use winit::event_loop::EventLoopProxy;

pub struct Sound {
    on: bool,
    volume: Volume,
    /// Which audio stream of each file plays (`--aid`, `#`); None: none (`#` past the last).
    track: Option<AudioTrack>,
    device: Option<String>,
}

/// Another audio stream of file `file` started off the event loop (`#`): the stream's number
/// (None: none), of how many, and its sound (None where it has none or there is no output).
pub struct SoundSwitch {
    pub file: u64,
    pub track: Option<u32>,
    pub count: u32,
    pub audio: Option<Audio>,
}

impl Sound {
    /// The sound as the player's options start it.
    pub fn new(options: &super::PlayerOptions) -> Self {
        Self {
            on: options.sound,
            volume: options.volume,
            track: Some(options.audio_track),
            device: options.audio_device.clone(),
        }
    }

    /// The volume now.
    pub fn volume(&self) -> Volume {
        self.volume
    }

    /// The volume's commands, and the next audio stream's.
    pub fn command(&mut self, command: &Command, media: &Media, proxy: &EventLoopProxy<UserEvent>) -> Effects {
        let volume = match *command {
            Command::VolumeBy(step) => self.volume.changed_by(step),
            Command::ToggleMute => Volume {
                muted: !self.volume.muted,
                ..self.volume
            },
            Command::CycleAudio => return self.cycle(media, proxy),
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
        toast(text)
    }

    /// Starts the file's next audio stream (after the last, none; then the first again) on a
    /// thread of its own: opening it reads the file. `SoundSwitch` comes back.
    fn cycle(&mut self, media: &Media, proxy: &EventLoopProxy<UserEvent>) -> Effects {
        if !self.on {
            return toast("no sound (--no-audio)".into());
        }
        if media.info.live {
            return toast("a live input plays its first audio stream".into());
        }
        let (path, file, track) = (media.info.path.clone(), media.file, self.track);
        let (volume, device, proxy) = (self.volume, self.device.clone(), proxy.clone());
        let switching = std::thread::Builder::new()
            .name("histoplay sound".into())
            .spawn(move || {
                let Some((count, best)) = crate::audio::source::audio_tracks(&path) else {
                    return;
                };
                let now = match track {
                    None => 0,
                    Some(AudioTrack::Best) => best.unwrap_or(0),
                    Some(AudioTrack::Nth(n)) => n,
                };
                let next = (count > 0 && now < count).then_some(now + 1);
                let silent = crate::audio::Cue {
                    clock: crate::clock::Clock::new(Instant::now(), 0.0, true),
                    audible: false,
                };
                let audio =
                    next.and_then(|n| Audio::start(&path, AudioTrack::Nth(n), silent, volume, device.as_deref()));
                let switch = SoundSwitch {
                    file,
                    track: next,
                    count,
                    audio,
                };
                let _ = proxy.send_event(UserEvent::SoundSwitched(Box::new(switch)));
            });
        match switching {
            Ok(_) => Effects::default(),
            Err(e) => toast(format!("cannot switch the sound now: {e}")),
        }
    }

    /// The stream `switch` started is the one playing from now on (and for the files after):
    /// what the OSD says of it.
    pub fn switched(&mut self, switch: &SoundSwitch) -> Effects {
        self.track = switch.track.map(AudioTrack::Nth);
        if let Some(audio) = &switch.audio {
            audio.set_volume(self.volume);
        }
        toast(match (switch.track, switch.count) {
            (_, 0) => "no audio stream".into(),
            (None, _) => "audio: none".into(),
            (Some(n), count) => format!("audio: {n} of {count}"),
        })
    }

    /// Which audio stream plays (None: none).
    pub fn track(&self) -> Option<AudioTrack> {
        self.track
    }

    /// What a file is opened with: the volume to play its sound at (None: no sound), which of
    /// its audio streams, and the device.
    pub fn opening(&self) -> (Option<Volume>, Option<AudioTrack>, Option<String>) {
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

/// An OSD message of the sound's (each replacing the last).
fn toast(text: String) -> Effects {
    Effects {
        toasts: vec![Toast {
            replaces: vec!["volume ".into(), "no sound".into(), "audio".into(), "no audio".into()],
            text,
            error: false,
        }],
        ..Default::default()
    }
}
