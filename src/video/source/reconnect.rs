//! A live input's lost connection opened again: when to try (`input::reconnects`), and the
//! streams, recordings and sound tap carried over to the new input.

use super::VideoSource;
use crate::video::demux::{discard_other_streams, read_streams};
use ffmpeg_next as ffmpeg;

impl VideoSource {
    /// Whether reading ending with `error` is a connection to open again.
    pub(super) fn reconnects_after(&self, error: &ffmpeg::Error) -> bool {
        use crate::video::input::Reconnect;
        !self.interrupt.is_set()
            && !crate::video::input::quitting()
            && match self.reconnects {
                Reconnect::Never => false,
                Reconnect::OnError => *error != ffmpeg::Error::Eof,
                Reconnect::OnErrorOrEnd => true,
            }
    }

    /// Opens a lost connection again, waiting longer between tries (`input::reconnect_delay`)
    /// until it opens with a video stream of the same codec, or the source is closed. True once
    /// reading can go on; false if it was closed meanwhile.
    pub(super) fn reconnect(&mut self, lost: &ffmpeg::Error) -> bool {
        let path = self.info.path.clone();
        log::debug!("{}: reconnecting after: {lost}", path.display());
        for attempt in 0.. {
            let until = std::time::Instant::now() + crate::video::input::reconnect_delay(attempt);
            while std::time::Instant::now() < until {
                if self.interrupt.is_set() || crate::video::input::quitting() {
                    return false;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let input = match crate::video::input::open(&path, &self.interrupt) {
                Ok(input) => input,
                Err(e) => {
                    log::debug!("{}: reconnecting, attempt {}: {e}", path.display(), attempt + 1);
                    continue;
                }
            };
            let Some(stream) = input.streams().best(ffmpeg::media::Type::Video) else {
                continue;
            };
            let (index, id) = (stream.index(), stream.parameters().id());
            if id != self.parameters.id() {
                log::warn!(
                    "{}: the stream came back as {id:?}, not {:?}: stopping",
                    path.display(),
                    self.parameters.id()
                );
                return false;
            }
            if index != self.stream_index && !std::mem::take(&mut self.recorders).is_empty() {
                log::warn!(
                    "{}: the streams came back in another order: recording stopped",
                    path.display()
                );
            }
            let mut input = input;
            discard_other_streams(&mut input, index);
            if let Some((tapped, track, _)) = &mut self.audio_tap {
                // (Its readers decode it as the codec it was: sound in another one ends it.)
                let codec =
                    |input: &ffmpeg::format::context::Input, index| input.stream(index).map(|s| s.parameters().id());
                let before = codec(&self.input, *tapped);
                let lost = match track.stream_in(&input) {
                    Ok(index) if codec(&input, index) == before => {
                        *tapped = index;
                        None
                    }
                    Ok(_) => Some("with its sound in another codec: its sound ends there"),
                    Err(_) => Some("without its sound"),
                };
                if let Some(how) = lost {
                    log::warn!("{}: the stream came back {how}", path.display());
                    // Its readers read to the end of what came before.
                    if let Some((.., window)) = self.audio_tap.take() {
                        window.end();
                    }
                }
            }
            let mut kept: Vec<usize> = self.recorders.iter().flat_map(|r| r.inputs()).collect();
            kept.extend(self.audio_tap.as_ref().map(|&(index, ..)| index));
            read_streams(&mut input, kept);
            // Streams in another order start their clocks over from the ones before.
            if index != self.stream_index {
                if let Some(continuity) = &mut self.continuity {
                    continuity.renumbered();
                }
            }
            self.input = input;
            self.stream_index = index;
            // Drained, the decoder takes packets again after a flush.
            self.decoder.flush();
            log::warn!("{}: reconnected", path.display());
            return true;
        }
        false
    }
}
