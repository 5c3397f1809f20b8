//! FFmpeg's channel layouts as whole masks. ffmpeg-next's `ChannelLayout` drops the channels it
//! has no name for (the top-side and bottom channels of 22.2, bits 36 to 40) wherever it reads a
//! layout (`default`, a frame's or a decoder's layout), which leaves 24 channels counted as 19:
//! the layouts are read here with every bit kept.

use ffmpeg::ChannelLayout;
use ffmpeg_next as ffmpeg;

/// The usual layout of `channels` (FFmpeg's `av_get_default_channel_layout`; empty where the
/// count has none).
pub fn usual(channels: u16) -> ChannelLayout {
    // SAFETY: a pure lookup in FFmpeg's table.
    let mask = unsafe { ffmpeg::ffi::av_get_default_channel_layout(i32::from(channels)) };
    ChannelLayout::from_bits_retain(mask as u64)
}

/// The layout a decoded frame says.
pub fn of_frame(frame: &ffmpeg::frame::Audio) -> ChannelLayout {
    // SAFETY: reads one plain field of a valid frame.
    ChannelLayout::from_bits_retain(unsafe { (*frame.as_ptr()).channel_layout })
}

/// The layout a decoder says of its stream.
pub fn of_decoder(decoder: &ffmpeg::decoder::Audio) -> ChannelLayout {
    // SAFETY: reads one plain field of an open codec context.
    ChannelLayout::from_bits_retain(unsafe { (*decoder.as_ptr()).channel_layout })
}

/// The layout to read `channels` channels as that `said` was said to have: `said` where it
/// places that many, else the usual one of their count; None where there is neither.
pub fn placing(said: ChannelLayout, channels: u16) -> Option<ChannelLayout> {
    let places = |layout: ChannelLayout| layout.bits().count_ones() == u32::from(channels);
    [said, usual(channels)].into_iter().find(|&layout| places(layout))
}

/// `channels` channels with no place: the first bits of a mask stand for them (for the
/// resampler, which keeps them as they are where both sides have this layout).
pub fn unplaced(channels: u16) -> ChannelLayout {
    ChannelLayout::from_bits_retain(u64::MAX >> (64 - u32::from(channels).clamp(1, 64)))
}

/// A layout as FFmpeg names it: `stereo`, `5.1(side)`, `3 channels (FL+FR+LFE)`.
pub fn name(layout: ChannelLayout) -> String {
    let mut text = [0 as std::ffi::c_char; 128];
    // SAFETY: FFmpeg writes at most the buffer's size, its end marked.
    unsafe {
        ffmpeg::ffi::av_get_channel_layout_string(
            text.as_mut_ptr(),
            text.len() as i32,
            layout.bits().count_ones() as i32,
            layout.bits(),
        );
        std::ffi::CStr::from_ptr(text.as_ptr()).to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_channel_of_22_2_is_kept() {
        assert_eq!(usual(24).bits().count_ones(), 24);
        assert_eq!(usual(24).channels(), 24);
        assert_eq!(usual(2), ChannelLayout::STEREO);
        assert!(usual(9).is_empty());
        assert_eq!(placing(ChannelLayout::empty(), 9), None);
        assert_eq!(placing(ChannelLayout::empty(), 6), Some(ChannelLayout::_5POINT1_BACK));
        assert_eq!(placing(ChannelLayout::STEREO, 2), Some(ChannelLayout::STEREO));
        // A layout that names another count is not the channels' own.
        assert_eq!(placing(ChannelLayout::STEREO, 1), Some(ChannelLayout::MONO));
        assert_eq!(unplaced(9).bits(), 0x1ff);
        assert_eq!(unplaced(64).bits().count_ones(), 64);
        assert_eq!(name(ChannelLayout::STEREO), "stereo");
        assert_eq!(name(ChannelLayout::_5POINT1), "5.1(side)");
    }
}
