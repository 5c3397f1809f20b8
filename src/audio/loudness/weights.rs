//! Where a channel counts in the loudness: FFmpeg's (and BS.1770's) weights by the channel's
//! place in its layout (LFE left out, surrounds ×1.41).

use ffmpeg_next as ffmpeg;

/// Where a channel counts: FFmpeg's (and BS.1770's) weights by the channel's place.
pub fn channel_weight(channel: ffmpeg::ChannelLayout) -> f64 {
    use ffmpeg::ChannelLayout as C;
    if channel.intersects(C::LOW_FREQUENCY | C::LOW_FREQUENCY_2) {
        return 0.0;
    }
    let back = C::BACK_LEFT
        | C::BACK_CENTER
        | C::BACK_RIGHT
        | C::TOP_BACK_LEFT
        | C::TOP_BACK_CENTER
        | C::TOP_BACK_RIGHT
        | C::SIDE_LEFT
        | C::SIDE_RIGHT
        | C::SURROUND_DIRECT_LEFT
        | C::SURROUND_DIRECT_RIGHT;
    if channel.intersects(back) {
        1.41
    } else {
        1.0
    }
}

/// The weights of a layout's channels, in order (an unknown layout: its channel count's usual
/// one).
pub fn layout_weights(layout: ffmpeg::ChannelLayout, channels: usize) -> Vec<f64> {
    let layout = match layout.is_empty() {
        true => crate::audio::layout::usual(channels as u16),
        false => layout,
    };
    let mut bits = (0..64).map(|b| 1u64 << b).filter(|b| layout.bits() & b != 0);
    (0..channels)
        .map(|_| {
            bits.next()
                .map_or(1.0, |b| channel_weight(ffmpeg::ChannelLayout::from_bits_truncate(b)))
        })
        .collect()
}

/// The loudness weights of `source`'s channels: by their places in its layout, or all the same
/// where they have none (as FFmpeg weighs them).
pub fn source_weights(source: &crate::audio::source::AudioSource) -> Vec<f64> {
    let channels = usize::from(source.channels());
    match source.channels_placed() {
        true => layout_weights(source.layout(), channels),
        false => vec![1.0; channels],
    }
}
