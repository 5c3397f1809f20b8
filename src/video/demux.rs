//! The demuxer's stream controls that the source, the frame index and the sound share: which
//! of an input's streams it reads, and seeking one of them back to a keyframe; and what a
//! stream's tags state of it.

use ffmpeg_next as ffmpeg;

/// Makes the demuxer skip the data of every stream but `keep` (audio has a reader of its own).
pub(crate) fn discard_other_streams(input: &mut ffmpeg::format::context::Input, keep: usize) {
    // SAFETY: a valid input context; its streams array holds nb_streams entries.
    unsafe {
        let ctx = input.as_mut_ptr();
        for i in 0..(*ctx).nb_streams as usize {
            if i != keep {
                (**(*ctx).streams.add(i)).discard = ffmpeg::ffi::AVDiscard::AVDISCARD_ALL;
            }
        }
    }
}

/// Makes the demuxer read the streams `indices` again (a recording's, a live input's sound);
/// indices past the input's streams are left out.
pub(crate) fn read_streams(input: &mut ffmpeg::format::context::Input, indices: impl IntoIterator<Item = usize>) {
    // SAFETY: a valid input context; the indices are checked against its nb_streams.
    unsafe {
        let ctx = input.as_mut_ptr();
        for i in indices.into_iter().filter(|&i| i < (*ctx).nb_streams as usize) {
            (**(*ctx).streams.add(i)).discard = ffmpeg::ffi::AVDiscard::AVDISCARD_DEFAULT;
        }
    }
}

/// Positions `input` at the packet of stream `stream_index` at or before `pts` (in the stream's
/// time base); false if the demuxer can't seek there.
pub(crate) fn seek_backward(input: &mut ffmpeg::format::context::Input, stream_index: usize, pts: i64) -> bool {
    // SAFETY: a valid input context and one of its stream indices.
    let result = unsafe {
        ffmpeg::ffi::av_seek_frame(
            input.as_mut_ptr(),
            stream_index as i32,
            pts,
            ffmpeg::ffi::AVSEEK_FLAG_BACKWARD,
        )
    };
    result >= 0
}

/// The stream's duration in seconds as Matroska and WebM's `DURATION` tag states it.
pub(crate) fn tagged_duration(stream: &ffmpeg::format::stream::Stream) -> Option<f64> {
    clock_seconds(stream.metadata().get("DURATION")?)
}

/// Seconds of a clock time as Matroska's `DURATION` tag writes it, `HH:MM:SS.nnnnnnnnn`.
fn clock_seconds(text: &str) -> Option<f64> {
    let mut parts = text.trim().rsplitn(3, ':');
    let seconds: f64 = parts.next()?.parse().ok()?;
    let minutes: f64 = parts.next()?.parse().ok()?;
    let hours: f64 = parts.next().unwrap_or("0").parse().ok()?;
    let total = hours * 3600.0 + minutes * 60.0 + seconds;
    (total.is_finite() && total >= 0.0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matroska_durations_read_as_seconds() {
        assert_eq!(clock_seconds("00:00:08.007000000"), Some(8.007));
        assert_eq!(clock_seconds("01:02:03.5"), Some(3723.5));
        assert_eq!(clock_seconds("nonsense"), None);
        assert_eq!(clock_seconds("00:-1:00"), None);
    }
}
