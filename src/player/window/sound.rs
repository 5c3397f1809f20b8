//! Another of the file's audio streams, started off the event loop (`#`), takes the place of
//! the one playing.

use super::PlayerWindow;
use crate::player::commands::Command;
use crate::player::part::Effects;
use crate::player::sound::SoundSwitch;

impl PlayerWindow {
    /// The volume's commands, and the next audio stream's.
    pub(super) fn sound_command(&mut self, command: &Command) -> Effects {
        self.sound.command(command, &mut self.media, &self.proxy)
    }

    /// A file opened: its sound at the volume now, of the stream asked for now (before the
    /// timeline starts, which reads the stream it plays).
    pub(super) fn sound_opened(&mut self) {
        let fx = self.sound.opened(&mut self.media, &self.proxy);
        self.take(fx);
    }

    /// `switch` came back: its sound plays from where the picture is (and the meters and the
    /// timeline read the same stream). One of a file opened since, or asked for before another,
    /// stops off this thread (stopping joins its decoder).
    pub fn sound_switched(&mut self, mut switch: SoundSwitch) {
        let old = match self.sound.current(&switch, self.media.file) {
            true => {
                let fx = self.sound.switched(&switch);
                self.take(fx);
                if let Some(audio) = &switch.audio {
                    audio.cue(self.media.playback.audio_cue());
                }
                self.media.audio_track = switch.track;
                self.meters.follow_track();
                if let Some(timeline) = &self.media.timeline {
                    timeline.measure_sound(switch.track);
                }
                std::mem::replace(&mut self.media.audio, switch.audio.take())
            }
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
