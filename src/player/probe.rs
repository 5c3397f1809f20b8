//! The pixel probe: the frame pixel under the pointer, read back from the converted frame (one
//! word, through `LatestReadback`: never waited for), shown in the OSD with its coordinates and
//! marked in the histograms.

use crate::colour::log::GREY;
use crate::colour::primaries::rgb_to_xyz_of;
use crate::colour::{Depth, LogEncoding};
use crate::engine::histogram::{channel_bin_at, luma_bin_at, luma_numerator};
use crate::gpu::mapping::LatestReadback;

/// Buffers in the ring: enough for the GPU to run two frames behind.
const BUFFERS: usize = 3;

/// What a copy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeTag {
    /// Which opened file (readbacks of a replaced one are dropped).
    pub media: u64,
    pub x: u32,
    pub y: u32,
    pub depth: Depth,
    /// The camera log encoding the signal was read in, if any.
    pub exposure: Option<LogEncoding>,
}

/// A probed pixel: where, and its R′G′B′ code values at the frame's depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub x: u32,
    pub y: u32,
    pub rgb: [u32; 3],
    pub depth: Depth,
    /// The camera log encoding the signal is in, if any: the text gives the pixel's stops.
    pub exposure: Option<LogEncoding>,
}

impl Probe {
    /// Luminance as the histograms count it, Y = (2126·R + 7152·G + 722·B) / 10000, in code
    /// values.
    pub fn luma(&self) -> f64 {
        f64::from(luma_numerator(self.rgb[0], self.rgb[1], self.rgb[2])) / 10_000.0
    }

    /// Where the pixel's r, g, b and l bins sit across a histogram quad of `bins` bins: the
    /// middle of each bin.
    pub fn markers(&self, bins: u32) -> [f32; 4] {
        let [r, g, b] = self.rgb;
        let at = |bin: u32| (bin as f32 + 0.5) / bins as f32;
        [
            at(channel_bin_at(r, bins, self.depth)),
            at(channel_bin_at(g, bins, self.depth)),
            at(channel_bin_at(b, bins, self.depth)),
            at(luma_bin_at(luma_numerator(r, g, b), bins, self.depth)),
        ]
    }

    /// Its exposure in stops from 18% grey, through `exposure`: the luminance of its scene
    /// light (each channel decoded, weighted by the camera gamut's Y row); −∞ for none.
    pub fn stops(&self) -> Option<f64> {
        let encoding = self.exposure?;
        let top = f64::from(self.depth.max_code());
        let y = rgb_to_xyz_of(encoding.gamut())[1];
        let light: f64 = (0..3)
            .map(|c| y[c] * encoding.decode(f64::from(self.rgb[c]) / top))
            .sum();
        Some((light / GREY).log2())
    }

    /// `x 120 y 45 · R 200 G 101 B 33 · Y 117.3`, then `· +1.3 st` with a log encoding.
    pub fn text(&self) -> String {
        let [r, g, b] = self.rgb;
        let mut text = format!("x {} y {} · R {r} G {g} B {b} · Y {:.1}", self.x, self.y, self.luma());
        match self.stops() {
            Some(stops) if stops.is_finite() => text.push_str(&format!(" · {stops:+.1} st")),
            Some(_) => text.push_str(" · no light"),
            None => {}
        }
        text
    }
}

pub struct ProbeReadback(LatestReadback<ProbeTag>);

impl ProbeReadback {
    pub fn new(device: &wgpu::Device) -> Self {
        Self(LatestReadback::new(device, "probe", 4, BUFFERS))
    }

    /// Records copying pixel (x, y) of a frame `frame_width` wide from its packed pixels;
    /// false when every buffer is in flight.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        pixels: &wgpu::Buffer,
        frame_width: u32,
        tag: ProbeTag,
    ) -> bool {
        self.0.record(tag, |buffer| {
            let at = (u64::from(tag.y) * u64::from(frame_width) + u64::from(tag.x)) * 4;
            encoder.copy_buffer_to_buffer(pixels, at, buffer, 0, 4);
        })
    }

    pub fn submitted(&mut self) {
        self.0.submitted();
    }

    pub fn pending(&self) -> bool {
        self.0.pending()
    }

    /// The newest probe that has landed; never blocks.
    pub fn take_latest(&mut self) -> Option<(ProbeTag, Probe)> {
        self.0.take_latest(|tag, bytes| Probe {
            x: tag.x,
            y: tag.y,
            rgb: tag
                .depth
                .unpack(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
            depth: tag.depth,
            exposure: tag.exposure,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_marks_its_own_bins() {
        let p = Probe {
            x: 3,
            y: 4,
            rgb: [255, 0, 128],
            depth: Depth::Eight,
            exposure: None,
        };
        assert_eq!(
            p.markers(256),
            [255.5 / 256.0, 0.5 / 256.0, 128.5 / 256.0, (63.0 + 0.5) / 256.0]
        );
        assert_eq!(p.text(), "x 3 y 4 · R 255 G 0 B 128 · Y 63.5");
        let ten = Probe {
            rgb: [1023, 1023, 1023],
            depth: Depth::Ten,
            ..p
        };
        assert_eq!(ten.markers(1024), [1023.5 / 1024.0; 4]);
        // S-Log3's grey (code 420 of 1023) is 0 stops; a stop over, 0.36 of scene light, is
        // code 496.
        let grey = Probe {
            rgb: [420; 3],
            depth: Depth::Ten,
            exposure: Some(LogEncoding::SLog3),
            ..p
        };
        assert_eq!(grey.text(), "x 3 y 4 · R 420 G 420 B 420 · Y 420.0 · +0.0 st");
        let over = Probe { rgb: [496; 3], ..grey };
        assert!((over.stops().unwrap() - 1.0).abs() < 0.01, "{:?}", over.stops());
        let black = Probe { rgb: [0; 3], ..grey };
        assert!(black.text().ends_with("· no light"), "{}", black.text());
    }
}
