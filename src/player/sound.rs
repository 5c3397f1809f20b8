//! The sound's part: whether files play their sound, which of their audio streams (`--aid`,
//! `#`), its volume (`9`, `0`, `m`) and the device it plays on, kept from file to file; the
//! picture follows the sound's clock.

use super::commands::Command;
use super::media::Media;
use super::part::{Effects, Toast};
use super::UserEvent;
use crate::audio::source::AudioTrack;
use crate::audio::{Audio, Volume};
use std::time::Instant;
use winit::event_loop::EventLoopProxy;

pub struct Sound {
    on: bool,
    volume: Volume,
    /// Which audio stream of each file plays (`--aid`, `#`); None: none (`--aid no`, or `#`
    /// past the last). Set as `#` is pressed: the stream starts after.
    track: Option<AudioTrack>,
    device: Option<String>,
    /// Numbers the streams `#` started: a switch that comes back after another was asked for
    /// is dropped.
    switches: u64,
}

/// Another audio stream of file `file` started off the event loop (`#`): the switch's number,
/// the stream (None: none), its number of how many, and its sound (None where it has none or
/// it could not start).
pub struct SoundSwitch {
    pub file: u64,
    pub switch: u64,
    pub track: Option<AudioTrack>,
    pub number: Option<u32>,
    pub count: u32,
    pub audio: Option<Audio>,
}

impl Sound {
    /// The sound as the player's options start it.
    pub fn new(options: &super::PlayerOptions) -> Self {
        Self {
            on: options.sound,
            volume: options.volume,
            track: options.audio_track,
            device: options.audio_device.clone(),
            switches: 0,
        }
    }

    /// The volume now.
    pub fn volume(&self) -> Volume {
        self.volume
    }

    /// The audio stream asked for (`--aid`, `#`); None: none.
    pub fn track(&self) -> Option<AudioTrack> {
        self.track
    }

    /// The volume's commands, and the next audio stream's.
    pub fn command(&mut self, command: &Command, media: &mut Media, proxy: &EventLoopProxy<UserEvent>) -> Effects {
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
        toast(text, false)
    }

    /// The file's next audio stream (after the last, none; then the first again) from now on
    /// (`switch_to`).
    fn cycle(&mut self, media: &mut Media, proxy: &EventLoopProxy<UserEvent>) -> Effects {
        if !self.on {
            return toast("no sound (--no-audio)".into(), false);
        }
        if media.info.live {
            // (Its sound comes from the packets its picture's decoder reads: it can't be opened
            // again for another stream.)
            return toast(
                "a live input keeps the audio stream it started with (--aid N picks one)".into(),
                false,
            );
        }
        let (count, best) = media.audio_tracks;
        if count == 0 {
            return toast("no audio stream".into(), false);
        }
        let now = match self.track {
            None => 0,
            Some(AudioTrack::Best) => best.unwrap_or(0),
            Some(AudioTrack::Nth(n)) => n.min(count + 1) % (count + 1),
        };
        let next = (now < count).then_some(AudioTrack::Nth(now + 1));
        self.switch_to(next, media, proxy)
    }

    /// `track` from now on (None: none): the stream playing stops, and `track` starts on a
    /// thread of its own (opening it reads the file; an output a device holds for one stream at
    /// a time is free by then). `SoundSwitch` comes back.
    fn switch_to(
        &mut self,
        track: Option<AudioTrack>,
        media: &mut Media,
        proxy: &EventLoopProxy<UserEvent>,
    ) -> Effects {
        self.track = track;
        self.switches += 1;
        let (count, best) = media.audio_tracks;
        let number = track.and_then(|t| match t {
            AudioTrack::Best => best,
            AudioTrack::Nth(n) => Some(n),
        });
        let playing = media.audio.take();
        let (path, file, switch) = (media.info.path.clone(), media.file, self.switches);
        let (volume, device, proxy) = (self.volume, self.device.clone(), proxy.clone());
        // (Silent until the window cues it, from where the picture is.)
        let cue = crate::audio::Cue {
            audible: false,
            ..media.playback.audio_cue()
        };
        let switching = std::thread::Builder::new()
            .name("histoplay sound".into())
            .spawn(move || {
                drop(playing);
                let audio = track.and_then(|t| Audio::start(&path, t, cue, volume, device.as_deref()));
                let switch = SoundSwitch {
                    file,
                    switch,
                    track,
                    number,
                    count,
                    audio,
                };
                let _ = proxy.send_event(UserEvent::SoundSwitched(Box::new(switch)));
            });
        match switching {
            Ok(_) => Effects::default(),
            Err(e) => toast(format!("cannot switch the sound now: {e}"), true),
        }
    }

    /// Whether `switch` is the last one asked for, of the file playing (`file`).
    pub fn current(&self, switch: &SoundSwitch, file: u64) -> bool {
        switch.switch == self.switches && switch.file == file
    }

    /// The stream `switch` started plays from now on: what the OSD says of it.
    pub fn switched(&mut self, switch: &SoundSwitch) -> Effects {
        if let Some(audio) = &switch.audio {
            audio.set_volume(self.volume);
        }
        match (switch.number, &switch.audio) {
            (None, _) if switch.track.is_none() => toast("audio: none".into(), false),
            (None, _) => toast("no sound".into(), false),
            (Some(n), Some(_)) => toast(format!("audio: {n} of {}", switch.count), false),
            (Some(n), None) => toast(
                format!("audio: {n} of {} does not play (the log says why)", switch.count),
                true,
            ),
        }
    }

    /// What a file is opened with: the volume to play its sound at (None: no sound), which of
    /// its audio streams (None: none), and the device.
    pub fn opening(&self) -> (Option<Volume>, Option<AudioTrack>, Option<String>) {
        (self.on.then_some(self.volume), self.track, self.device.clone())
    }

    /// A file opened: the volume may have changed while it was opening; and where `#` was
    /// pressed meanwhile, the stream it asked for starts in place of the one it opened with.
    pub fn opened(&mut self, media: &mut Media, proxy: &EventLoopProxy<UserEvent>) -> Effects {
        if let Some(audio) = &media.audio {
            audio.set_volume(self.volume);
        }
        if !self.on || media.info.live || media.audio_track == self.track || media.audio_tracks.0 == 0 {
            return Effects::default();
        }
        self.switch_to(self.track, media, proxy)
    }

    /// The picture follows the sound heard, and is told how far the sound goes on; the sound is
    /// told where the picture is.
    pub fn follow(media: &mut Media, now: Instant) {
        // (The clock runs on past the last picture while the sound does.)
        media
            .playback
            .set_sound_until(media.audio.as_ref().map(Audio::sound_until));
        if let Some(audio) = &media.audio {
            if let Some(heard) = audio.heard_at(now) {
                media.playback.follow_audio(now, heard);
            }
            audio.cue(media.playback.audio_cue());
        }
    }
}

/// An OSD message of the sound's (each replacing the last).
fn toast(text: String, error: bool) -> Effects {
    Effects {
        toasts: vec![Toast {
            replaces: vec!["volume ".into(), "no sound".into(), "audio".into(), "no audio".into()],
            text,
            error,
        }],
        ..Default::default()
    }
}
