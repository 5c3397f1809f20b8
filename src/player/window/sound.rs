//! Another of the file's audio streams, started off the event loop (`#`), takes the place of
//! the one playing.

use super::PlayerWindow;
use crate::player::commands::Command;
use crate::player::part::Effects;
use crate::player::sound::SoundSwitch;

impl PlayerWindow {
    /// The volume's commands, and the next audio stream's.
    pub(super) fn sound_command(&mut self, command: &Command) -> Effects {
        self.sound.command(command, &self.media, &self.proxy)
    }

    /// `switch` came back: its sound plays from where the picture is (and the meters read the
    /// same stream); the one before stops off this thread (stopping joins its decoder).
    pub fn sound_switched(&mut self, mut switch: SoundSwitch) {
        let old = match switch.file == self.media.file {
            true => {
                let fx = self.sound.switched(&switch);
                self.take(fx);
                if let Some(audio) = &switch.audio {
                    audio.cue(self.media.playback.audio_cue());
                }
                self.meters.follow_track(self.sound.track());
                self.media.audio_track = self.sound.track();
                std::mem::replace(&mut self.media.audio, switch.audio.take())
            }
            // (A file opened meanwhile: the stream was of the one before.)
            false => switch.audio.take(),
        };
        if let Some(old) = old {
            if let Err(e) = std::thread::Builder::new()
                .name("histoplay close".into())
                .spawn(move || drop(old))
            {
                log::warn!("stopping the sound on this thread: {e}");
            }
        }
    }
}
