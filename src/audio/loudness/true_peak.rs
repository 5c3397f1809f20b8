//! True peak as FFmpeg's `ebur128` finds it: the signal upsampled to 192 kHz by swresample,
//! the highest sample per channel.

use ffmpeg_next as ffmpeg;

/// True peak is looked for at this rate.
const TRUE_PEAK_RATE: u32 = 192_000;

/// The signal upsampled to 192 kHz by swresample (its defaults, as FFmpeg's filter uses it),
/// the highest magnitude per channel.
pub(super) struct TruePeak {
    pub(super) resampler: ffmpeg::software::resampling::Context,
    pub(super) channels: usize,
    pub(super) layout: ffmpeg::ChannelLayout,
    pub(super) peaks: Vec<f64>,
    pub(super) input: ffmpeg::frame::Audio,
}

// SAFETY: the swresample context and frames are owned by one meter, used by one thread at a time.
unsafe impl Send for TruePeak {}

impl TruePeak {
    pub(super) fn new(rate: u32, channels: usize, layout: ffmpeg::ChannelLayout) -> Result<Self, String> {
        let count = channels as u16;
        let layout =
            crate::audio::layout::placing(layout, count).unwrap_or_else(|| crate::audio::layout::unplaced(count));
        let packed = ffmpeg::format::Sample::F64(ffmpeg::format::sample::Type::Packed);
        let resampler =
            ffmpeg::software::resampling::Context::get(packed, layout, rate, packed, layout, TRUE_PEAK_RATE)
                .map_err(|e| format!("cannot upsample for true peaks: {e}"))?;
        Ok(Self {
            resampler,
            channels,
            layout,
            peaks: vec![0.0; channels],
            input: ffmpeg::frame::Audio::empty(),
        })
    }

    pub(super) fn add(&mut self, samples: &[f64]) -> Result<(), String> {
        let frames = samples.len() / self.channels;
        if frames == 0 {
            return Ok(());
        }
        let packed = ffmpeg::format::Sample::F64(ffmpeg::format::sample::Type::Packed);
        if self.input.samples() != frames {
            self.input = ffmpeg::frame::Audio::new(packed, frames, self.layout);
            self.input.set_rate(self.resampler.input().rate);
        }
        let bytes: &[u8] = bytemuck::cast_slice(&samples[..frames * self.channels]);
        self.input.data_mut(0)[..bytes.len()].copy_from_slice(bytes);
        // Room for all this input makes and what the resampler held back (a frame of its own
        // each time: one given back holds only what it was given, and the rest would pile up
        // inside the resampler).
        let room = frames * (TRUE_PEAK_RATE as usize) / (self.resampler.input().rate as usize) + 256;
        let mut output = ffmpeg::frame::Audio::new(packed, room, self.layout);
        self.resampler
            .run(&self.input, &mut output)
            .map_err(|e| format!("upsampling for true peaks failed: {e}"))?;
        let made = output.samples() * self.channels;
        let out: &[f64] = bytemuck::cast_slice(&output.data(0)[..made * 8]);
        for frame in out.chunks_exact(self.channels) {
            for (peak, x) in self.peaks.iter_mut().zip(frame) {
                *peak = peak.max(x.abs());
            }
        }
        Ok(())
    }
}
