//! FFmpeg 5.1's `astats` audio filter (libavfilter/af_astats.c), frame by frame, as QCTools-style
//! reports carry it: the tags that
//!
//! ```text
//! ffprobe -f lavfi "amovie=FILE,astats=metadata=1:reset=1,ebur128=metadata=1" -show_frames
//! ```
//!
//! prints, value for value, in its order and with its `printf("%f")` formatting (`-inf`, `inf`,
//! `nan` and `-nan` included). Only the `lavfi.astats.*` tags; the `lavfi.r128.*` ones are the
//! loudness meter's.
//!
//! What the filter sees in that chain:
//!
//! - **The decoder's own samples.** astats takes s16, s32, s64, flt and dbl (packed or planar),
//!   so format negotiation gives it the decoder's format untouched: 16-bit PCM arrives as
//!   integers (`Min_level` of a 16-bit file reads `-32768.000000`, not `-1.000000`), AAC and MP3 as
//!   floats, 24-bit PCM and 24-bit FLAC as s32. The conversion to double that `ebur128` needs is
//!   inserted after astats. Only unsigned 8-bit (pcm_u8) is converted before it, to double:
//!   feed such samples as `f64` `(x − 128) / 128`. The [`Sample`] type of a frame selects
//!   FFmpeg's path for that format: the normalisation to ±1 (Peak, RMS, noise floor, entropy),
//!   the bit-depth width (16, 32 or 64 bits) and whether the NaN/Inf/denormal counts exist.
//!   Planar or packed makes no difference to the values.
//! - **One decoded frame at a time, statistics reset every frame** (`reset=1`). One thing carries
//!   over from frame to frame all the same, as in FFmpeg: each channel's last non-zero sample (a
//!   sign change against it counts as a zero crossing; before the first frame it counts as
//!   negative, so a stream starting positive counts one crossing). Keep one [`Astats`] per stream.
//! - **Which frame's tags ffprobe shows.** `ebur128=metadata=1` regroups the stream into frames of
//!   `sample_rate / 10` samples (the last one shorter), and each such frame keeps the tags of the
//!   decoded frame holding its first sample. So ffprobe's frame `k` (from sample
//!   `k * (rate / 10)`) shows what [`Astats::frame`] returned for the decoded frame containing
//!   that sample; decoded frames starting and ending inside one 100 ms frame are not shown.

mod c_math;
mod channel;
mod sample;
mod tags;
#[cfg(test)]
mod tests;

use c_math::ffmax;
use channel::Channel;
pub use sample::{Sample, SampleFormat};

/// The `length` option: the window, in seconds, of the RMS peak/trough average and the noise
/// floor (FFmpeg's default).
const TIME_CONSTANT: f64 = 0.05;

/// FFmpeg 5.1's `astats` with `metadata=1:reset=1` and its defaults otherwise (`length` 0.05 s,
/// every measurement): the statistics of each frame on its own, as `lavfi.astats.*` tags.
///
/// Per channel `N` (from 1), in this order, all printed with `%f`:
///
/// - `lavfi.astats.N.DC_offset`: the mean of the normalised samples.
/// - `Min_level`, `Max_level`: the lowest and highest sample, unnormalised (integer formats give
///   integer values, e.g. `-32768.000000`).
/// - `Min_difference`, `Max_difference`, `Mean_difference`, `RMS_difference`: the smallest,
///   largest, mean and RMS absolute difference between successive samples of the frame,
///   unnormalised (the mean and RMS over `n − 1` differences).
/// - `Peak_level`: 20·log10 of the largest normalised |sample| (dBFS).
/// - `RMS_level`: 20·log10 of the normalised RMS (dBFS).
/// - `RMS_peak`, `RMS_trough`: 20·log10 of the highest and lowest RMS of an exponential average
///   with a 50 ms time constant, taken once the frame has run past 50 ms; in shorter frames both
///   are `RMS_level`.
/// - `Crest_factor`: the largest unnormalised |sample| over the normalised RMS (1 for silence).
/// - `Flat_factor`: 20·log10 of the summed squared lengths of the runs at the min or max level
///   that ended within the frame, over how many samples are at those levels (`-inf` when none
///   ended).
/// - `Peak_count`: how many samples are at the min level plus how many at the max level (each
///   sample twice where they are equal, as in silence).
/// - `Noise_floor`: 20·log10 of the lowest, over 50 ms windows sliding sample by sample, of the
///   window's largest |sample| (in 1/8191 steps); `nan` in frames shorter than 50 ms.
/// - `Noise_floor_count`: how many windows reached that lowest value.
/// - `Entropy`: the entropy of the |sample| histogram (8192 bins), 0 to 1 (a single-valued
///   frame, such as silence, prints `-0.000000`).
/// - `Bit_depth`, `Bit_depth2`: see [FFmpeg's count](#bit-depth) below.
/// - `Dynamic_range`: 20·log10 of twice the largest |sample| over the smallest non-zero one.
/// - `Zero_crossings`: sign changes between non-zero samples (against the previous frame's last
///   one at the frame's start); `Zero_crossings_rate`: that over the frame's length.
/// - For float samples only: `Number of NaNs`, `Number of Infs`, `Number of denormals` (with
///   spaces, as FFmpeg 5.1 names them).
///
/// Then over all channels: `lavfi.astats.Overall.` `DC_offset` (the channel mean furthest from
/// 0), `Min_level`, `Max_level`, `Min_difference`, `Max_difference`, `Mean_difference`,
/// `RMS_difference`, `Peak_level`, `RMS_level`, `RMS_peak`, `RMS_trough`, `Flat_factor`,
/// `Peak_count` (mean per channel), `Noise_floor` (FFmpeg's running `FFMAX` over the channels),
/// `Noise_floor_count` (mean), `Entropy` (mean), `Bit_depth`, `Bit_depth2`,
/// `Number_of_samples` (per channel); and for floats `lavfi.astats.Number of NaNs`,
/// `lavfi.astats.Number of Infs`, `lavfi.astats.Number of denormals` (means per channel; no
/// `Overall.` in these keys).
///
/// # Bit depth
///
/// Each sample gives an integer (the sample for integer formats, the sample × 2^31 for f32,
/// × 2^63 for f64; out of range gives `i64::MIN`); over the frame, the low bits that are the
/// same in every sample are dropped: `Bit_depth2` is the format's width (16, 32, 64) less those,
/// and `Bit_depth` counts the bits within that width set in some sample but not in all.
pub struct Astats {
    channels: Vec<Channel>,
    tc_samples: usize,
    mult: f64,
}

impl Astats {
    /// A filter for a stream of `channels` channels at `sample_rate` Hz (the 50 ms windows are
    /// counted in samples).
    pub fn new(channels: usize, sample_rate: u32) -> Self {
        let rate = sample_rate as f64;
        let tc_samples = ffmax(TIME_CONSTANT * rate + 0.5, 1.0) as usize;
        let mult = (-1.0 / TIME_CONSTANT / rate).exp();
        Self {
            channels: (0..channels).map(|_| Channel::new(tc_samples)).collect(),
            tc_samples,
            mult,
        }
    }

    /// The number of channels the filter measures.
    pub fn channels(&self) -> usize {
        self.channels.len()
    }

    /// One decoded frame, one slice per channel (planar), all the same length; returns the
    /// frame's tags as ffprobe prints them, `(key, value)` in order, keys in full
    /// (`lavfi.astats.1.DC_offset`). The slices' type is the decoder's sample format. Zero
    /// channels give no tags; a different number of slices than [`Astats::channels`] starts
    /// afresh with that many (as FFmpeg reconfigures on a layout change).
    pub fn frame<S: Sample>(&mut self, planes: &[&[S]]) -> Vec<(String, String)> {
        self.fit(planes.len());
        let mult = self.mult;
        for (channel, plane) in self.channels.iter_mut().zip(planes) {
            channel.reset();
            for &sample in plane.iter() {
                channel.add(sample, mult);
            }
        }
        self.tags(S::FORMAT)
    }

    /// As [`Astats::frame`] for packed samples: [`Astats::channels`] interleaved (a trailing
    /// incomplete set is left out).
    pub fn frame_interleaved<S: Sample>(&mut self, samples: &[S]) -> Vec<(String, String)> {
        let count = self.channels.len();
        if count == 0 {
            return Vec::new();
        }
        let mult = self.mult;
        let whole = samples.len() / count * count;
        for (c, channel) in self.channels.iter_mut().enumerate() {
            channel.reset();
            for &sample in samples[..whole].iter().skip(c).step_by(count) {
                channel.add(sample, mult);
            }
        }
        self.tags(S::FORMAT)
    }

    fn fit(&mut self, count: usize) {
        if count != self.channels.len() {
            self.channels = (0..count).map(|_| Channel::new(self.tc_samples)).collect();
        }
    }
}
