//! The one definition of histoplay's histograms, and the CPU reference every GPU path is tested
//! against. `shaders/engine/histogram_common.wgsl` is the WGSL twin of the bin functions here.
//!
//! For b-bit channels (b = 8 or 10) and N bins: channel bin = min(N−1, ⌊c·N/(2^b−1)⌋);
//! luminance Y = 2126·R + 7152·G + 722·B, bin = min(N−1, ⌊Y·N/((2^b−1)·10000)⌋). Exact in
//! integers: a 10-bit grey at 1024 bins fills the bin of its own code value.

use crate::colour::Depth;
use thiserror::Error;

/// Channels counted per pixel, interleaved in that order: red, green, blue, luminance.
pub const CHANNELS: usize = 4;
/// Luminance weights (BT.709 / sRGB), scaled by 10000 so the sum stays in exact integers.
pub const LUMA_WEIGHTS: [u32; 3] = [2126, 7152, 722];
pub const LUMA_DENOMINATOR: u32 = 255 * 10_000;
pub const DEFAULT_BINS: u32 = 256;
pub const MIN_BINS: u32 = 16;
pub const MAX_BINS: u32 = 1024;

#[derive(Debug, Error, PartialEq, Eq)]
#[error("bins must be a power of two from {MIN_BINS} to {MAX_BINS}, got {0}")]
pub struct BinsError(pub u32);

/// Checks a bin count: a power of two in 16..=1024.
pub fn validate_bins(bins: u32) -> Result<u32, BinsError> {
    if bins.is_power_of_two() && (MIN_BINS..=MAX_BINS).contains(&bins) {
        Ok(bins)
    } else {
        Err(BinsError(bins))
    }
}

/// Bin of a channel value at `depth`: min(N-1, floor(c·N/(2^b−1))).
#[inline]
pub fn channel_bin_at(c: u32, bins: u32, depth: Depth) -> u32 {
    (c * bins / depth.max_code()).min(bins - 1)
}

/// Bin of a luminance numerator at `depth`: min(N-1, floor(Y·N/((2^b−1)·10000))), in 64 bits.
#[inline]
pub fn luma_bin_at(y: u32, bins: u32, depth: Depth) -> u32 {
    let denominator = u64::from(depth.max_code()) * 10_000;
    (u64::from(y) * u64::from(bins) / denominator).min(u64::from(bins) - 1) as u32
}

/// The four bins [r, g, b, l] of a pixel's packed word at `depth`.
#[inline]
pub fn packed_bins(word: u32, bins: u32, depth: Depth) -> [u32; 4] {
    let [r, g, b] = depth.unpack(word);
    [
        channel_bin_at(r, bins, depth),
        channel_bin_at(g, bins, depth),
        channel_bin_at(b, bins, depth),
        luma_bin_at(luma_numerator(r, g, b), bins, depth),
    ]
}

/// `channel_bin_at` for 10 bits without a division, as the shaders compute it: with t = c·N,
/// (t + t/1024) / 1024. Equal for every code and bin count; a test checks them all.
#[inline]
pub fn channel_bin10_by_shifts(c: u32, bins: u32) -> u32 {
    let t = c * bins;
    ((t + (t >> 10)) >> 10).min(bins - 1)
}

/// `luma_bin_at` for 10 bits in 32-bit integers, as the shaders compute it (Y·N overflows
/// them): with Y = 10000·q + r, the bin is floor((q·N + floor(r·N/10000)) / 1023).
#[inline]
pub fn luma_bin10_split(y: u32, bins: u32) -> u32 {
    let (q, r) = (y / 10_000, y % 10_000);
    ((q * bins + r * bins / 10_000) / 1023).min(bins - 1)
}

/// Bin of an 8-bit channel value: min(N-1, floor(c·N/255)).
#[inline]
pub fn channel_bin(c: u32, bins: u32) -> u32 {
    channel_bin_at(c, bins, Depth::Eight)
}

/// `channel_bin` without a division, as the shaders compute it (`channel_bins` in
/// histogram_common.wgsl): with t = c·N, (t + t/256) / 256, and for N ≤ 256 just t / 256.
/// Equal to `channel_bin` for every byte and bin count; a test checks them all.
#[inline]
pub fn channel_bin_by_shifts(c: u32, bins: u32) -> u32 {
    let t = c * bins;
    if bins <= 256 {
        t >> 8
    } else {
        (t + (t >> 8)) >> 8
    }
}

/// Luminance numerator Y = 2126·R + 7152·G + 722·B, in 0..=255·10000.
#[inline]
pub fn luma_numerator(r: u32, g: u32, b: u32) -> u32 {
    LUMA_WEIGHTS[0] * r + LUMA_WEIGHTS[1] * g + LUMA_WEIGHTS[2] * b
}

/// Bin of an 8-bit luminance numerator: min(N-1, floor(Y·N/(255·10000))).
#[inline]
pub fn luma_bin(y: u32, bins: u32) -> u32 {
    luma_bin_at(y, bins, Depth::Eight)
}

/// The four bins one RGB pixel falls in: [r, g, b, l].
#[inline]
pub fn pixel_bins(r: u8, g: u8, b: u8, bins: u32) -> [u32; 4] {
    let (r, g, b) = (u32::from(r), u32::from(g), u32::from(b));
    [
        channel_bin(r, bins),
        channel_bin(g, bins),
        channel_bin(b, bins),
        luma_bin(luma_numerator(r, g, b), bins),
    ]
}

/// Counts of one frame, interleaved r, g, b, l per bin (the GPU's `array<vec4u>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    pub counts: Vec<[u32; 4]>,
}

impl Histogram {
    pub fn zeroed(bins: u32) -> Self {
        Self {
            counts: vec![[0; 4]; bins as usize],
        }
    }

    /// Builds a histogram from the GPU's flat u32 layout (r, g, b, l, r, g, b, l, ...).
    pub fn from_interleaved(words: &[u32]) -> Self {
        Self {
            counts: words.chunks_exact(CHANNELS).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
        }
    }

    pub fn bins(&self) -> u32 {
        self.counts.len() as u32
    }

    /// The counts of one channel (0 = r, 1 = g, 2 = b, 3 = l).
    pub fn channel(&self, channel: usize) -> Vec<u32> {
        self.counts.iter().map(|c| c[channel]).collect()
    }

    /// Largest bin of each channel.
    pub fn max_per_channel(&self) -> [u32; 4] {
        self.counts.iter().fold([0; 4], |mut m, c| {
            for ch in 0..CHANNELS {
                m[ch] = m[ch].max(c[ch]);
            }
            m
        })
    }

    /// Pixels counted (the same for every channel).
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|c| u64::from(c[0])).sum()
    }
}

/// CPU reference: counts every packed pixel word (RGBA8 or RGB10A2) at `depth`.
pub fn histogram_packed(words: &[u32], bins: u32, depth: Depth) -> Histogram {
    let mut hist = Histogram::zeroed(bins);
    for &word in words {
        for (ch, bin) in packed_bins(word, bins, depth).into_iter().enumerate() {
            hist.counts[bin as usize][ch] += 1;
        }
    }
    hist
}

/// CPU reference: counts every pixel of a tightly packed RGBA8 image. Mirrors the chunk shaders.
pub fn histogram_rgba(rgba: &[u8], bins: u32) -> Histogram {
    let mut hist = Histogram::zeroed(bins);
    for px in rgba.chunks_exact(4) {
        for (ch, bin) in pixel_bins(px[0], px[1], px[2], bins).into_iter().enumerate() {
            hist.counts[bin as usize][ch] += 1;
        }
    }
    hist
}

/// The articles' display scale per channel: max(1/max_bin, 0.2·N/pixel_count).
/// Mirrors `shaders/engine/scale.wgsl`, in the same f32 operations.
pub fn display_scale(hist: &Histogram, pixel_count: u32) -> [f32; 4] {
    let floor = 0.2 * hist.bins() as f32 / pixel_count as f32;
    hist.max_per_channel().map(|m| (1.0 / m as f32).max(floor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::depth::pack_rgb10;

    #[test]
    fn channel_bins_at_the_edges() {
        assert_eq!(channel_bin(0, 256), 0);
        assert_eq!(channel_bin(254, 256), 254);
        assert_eq!(channel_bin(255, 256), 255);
        assert_eq!(channel_bin(128, 256), 128);
        assert_eq!(channel_bin(127, 256), 127);
        assert_eq!(channel_bin(255, 16), 15);
        assert_eq!(channel_bin(16, 16), 1);
        assert_eq!(channel_bin(15, 16), 0);
        assert_eq!(channel_bin(255, 1024), 1023);
        assert_eq!(channel_bin(1, 1024), 4);
    }

    #[test]
    fn shader_channel_bins_equal_the_definition() {
        for bins in (4..=10).map(|k| 1u32 << k) {
            for c in 0..=255 {
                assert_eq!(
                    channel_bin_by_shifts(c, bins),
                    channel_bin(c, bins),
                    "c {c}, {bins} bins"
                );
            }
        }
    }

    #[test]
    fn luma_bins_match_the_formula() {
        assert_eq!(luma_bin(luma_numerator(255, 255, 255), 256), 255);
        assert_eq!(luma_bin(luma_numerator(0, 0, 0), 256), 0);
        // pure green: 7152·255 = 1,823,760; ·256 / 2,550,000 = 183.09
        assert_eq!(luma_bin(luma_numerator(0, 255, 0), 256), 183);
        // pure red: 0.2126·256 = 54.4; pure blue: 0.0722·256 = 18.5
        assert_eq!(luma_bin(luma_numerator(255, 0, 0), 256), 54);
        assert_eq!(luma_bin(luma_numerator(0, 0, 255), 256), 18);
        // the largest product stays in u32
        assert!(u64::from(LUMA_DENOMINATOR) * u64::from(MAX_BINS) < u64::from(u32::MAX));
    }

    #[test]
    fn ten_bit_bins_follow_the_definition() {
        // One bin per code value at 1024 bins; 1023 is the top bin at every bin count.
        for c in 0..=1023 {
            assert_eq!(channel_bin_at(c, 1024, Depth::Ten), c);
            assert_eq!(luma_bin_at(luma_numerator(c, c, c), 1024, Depth::Ten), c, "grey {c}");
        }
        for bins in (4..=10).map(|k| 1u32 << k) {
            assert_eq!(channel_bin_at(1023, bins, Depth::Ten), bins - 1);
            assert_eq!(channel_bin_at(512, bins, Depth::Ten), 512 * bins / 1023);
        }
        // Pure green at 10 bits: 7152·1023·256 / (1023·10000) = 183.09, as at 8 bits.
        assert_eq!(luma_bin_at(luma_numerator(0, 1023, 0), 256, Depth::Ten), 183);
    }

    #[test]
    fn shader_ten_bit_bins_equal_the_definition() {
        for bins in (4..=10).map(|k| 1u32 << k) {
            for c in 0..=1023 {
                assert_eq!(channel_bin10_by_shifts(c, bins), channel_bin_at(c, bins, Depth::Ten));
                let y = luma_numerator(c, c, c);
                assert_eq!(luma_bin10_split(y, bins), luma_bin_at(y, bins, Depth::Ten), "grey {c}");
            }
            // Every luminance numerator a 10-bit pixel can have lies in 0..=10230000: all of
            // them, in steps that cover each residue of 10000 many times.
            for y in (0..=1023 * 10_000).step_by(7) {
                assert_eq!(luma_bin10_split(y, bins), luma_bin_at(y, bins, Depth::Ten), "Y {y}");
            }
        }
    }

    #[test]
    fn packed_words_count_at_their_depth() {
        let word = pack_rgb10(1023, 512, 1);
        let h = histogram_packed(&[word, pack_rgb10(0, 0, 0)], 1024, Depth::Ten);
        assert_eq!(
            (h.counts[1023][0], h.counts[512][1], h.counts[1][2], h.counts[0][3]),
            (1, 1, 1, 1)
        );
        assert_eq!(h.total(), 2);
    }

    #[test]
    fn bins_are_validated() {
        assert_eq!(validate_bins(256), Ok(256));
        assert_eq!(validate_bins(16), Ok(16));
        assert_eq!(validate_bins(1024), Ok(1024));
        assert_eq!(validate_bins(8), Err(BinsError(8)));
        assert_eq!(validate_bins(100), Err(BinsError(100)));
        assert_eq!(validate_bins(2048), Err(BinsError(2048)));
    }

    #[test]
    fn cpu_histogram_counts_each_pixel_once_per_channel() {
        let rgba = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255];
        let h = histogram_rgba(&rgba, 16);
        assert_eq!(h.total(), 4);
        assert_eq!(h.channel(0)[15], 2);
        assert_eq!(h.channel(0)[0], 2);
        assert_eq!(h.channel(3)[15], 1);
        assert_eq!(h.channel(3)[3], 1); // red: 0.2126·16 = 3.4
        assert_eq!(h.channel(3)[11], 1); // green: 0.7152·16 = 11.4
        assert_eq!(h.channel(3)[1], 1); // blue: 0.0722·16 = 1.2
    }

    #[test]
    fn scale_follows_the_articles_formula() {
        let mut h = Histogram::zeroed(256);
        h.counts[0] = [100, 50, 10, 100];
        h.counts[1] = [0, 50, 90, 0];
        let s = display_scale(&h, 100);
        // the floor 0.2·256/100 = 0.512 wins over 1/100, 1/50 and 1/90
        assert_eq!(s, [0.512, 0.512, 0.512, 0.512]);
        let s = display_scale(&h, 1_000_000);
        assert_eq!(s, [0.01, 0.02, 1.0 / 90.0, 0.01]);
    }
}
