//! The OSD's clipping readout: the share of the shown frame's pixels in the lowest and the
//! highest bin of R, G, B and L, and for HDR streams the peak the picture is tone-mapped from.
//! Each frame copies those two bins (32 bytes) of the histogram and the peak pass's state (16)
//! into one of a few small MAP_READ buffers (`LatestReadback`); a buffer is read when the GPU
//! has finished with it, a frame or two later. Nothing here ever waits.

use crate::gpu::mapping::LatestReadback;

/// Bytes of one bin: r, g, b, l as u32 (`array<vec4u>` in the shaders).
const BIN_BYTES: u64 = 16;
/// Bytes of the peak pass's state (`PeakState`), its first word the peak in nits.
const PEAK_BYTES: u64 = std::mem::size_of::<crate::render::peak::PeakState>() as u64;
/// Buffers in the ring: enough for the GPU to run two frames behind.
const BUFFERS: usize = 3;

/// Shares (0..=1) of a frame's pixels in its lowest and highest bins, per R, G, B, L.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clipping {
    /// The frame the shares belong to.
    pub frame: u64,
    pub low: [f64; 4],
    pub high: [f64; 4],
    /// The peak an HDR picture is tone-mapped from, in nits.
    pub peak_nits: Option<f32>,
}

impl Clipping {
    /// From the two bins' counts as the GPU wrote them: [r, g, b, l] each.
    pub fn from_bins(frame: u64, first: [u32; 4], last: [u32; 4], pixel_count: u32) -> Self {
        let share = |count: u32| f64::from(count) / f64::from(pixel_count.max(1));
        Self {
            frame,
            low: first.map(share),
            high: last.map(share),
            peak_nits: None,
        }
    }
}

/// What a buffer's copy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadoutTag {
    /// Which opened file (readouts of a file that was replaced are dropped).
    pub media: u64,
    pub frame: u64,
    pub pixel_count: u32,
    /// Whether the peak state was copied too.
    pub peak: bool,
}

pub struct ClippingReadback(LatestReadback<ReadoutTag>);

impl ClippingReadback {
    pub fn new(device: &wgpu::Device) -> Self {
        Self(LatestReadback::new(
            device,
            "clipping",
            2 * BIN_BYTES + PEAK_BYTES,
            BUFFERS,
        ))
    }

    /// Records the copy of the first and last bin of `histogram`, and of the peak state `peak`
    /// of an HDR stream, into a free buffer; false when none is free (this frame's readout is
    /// skipped).
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        histogram: &wgpu::Buffer,
        bins: u32,
        peak: Option<&wgpu::Buffer>,
        tag: ReadoutTag,
    ) -> bool {
        self.0.record(tag, |buffer| {
            let last = u64::from(bins.max(1) - 1) * BIN_BYTES;
            encoder.copy_buffer_to_buffer(histogram, 0, buffer, 0, BIN_BYTES);
            encoder.copy_buffer_to_buffer(histogram, last, buffer, BIN_BYTES, BIN_BYTES);
            if let Some(peak) = peak {
                encoder.copy_buffer_to_buffer(peak, 0, buffer, 2 * BIN_BYTES, PEAK_BYTES);
            }
        })
    }

    /// After the encoder with the copies is submitted: starts mapping them.
    pub fn submitted(&mut self) {
        self.0.submitted();
    }

    /// Whether a readout is on its way (the caller keeps polling the device until it lands).
    pub fn pending(&self) -> bool {
        self.0.pending()
    }

    /// The newest readout whose buffer has been mapped, freeing every finished buffer. Call
    /// after `device.poll(Poll)`; never blocks.
    pub fn take_latest(&mut self) -> Option<(ReadoutTag, Clipping)> {
        self.0.take_latest(|tag, bytes| {
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            let bins = |at: usize| [words[at], words[at + 1], words[at + 2], words[at + 3]];
            let mut clipping = Clipping::from_bins(tag.frame, bins(0), bins(4), tag.pixel_count);
            if tag.peak {
                clipping.peak_nits = Some(f32::from_bits(words[8]));
            }
            clipping
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Clipping;

    #[test]
    fn shares_are_of_all_pixels() {
        let c = Clipping::from_bins(7, [100, 0, 50, 1000], [0, 1000, 25, 0], 1000);
        assert_eq!(c.frame, 7);
        assert_eq!(c.low, [0.1, 0.0, 0.05, 1.0]);
        assert_eq!(c.high, [0.0, 1.0, 0.025, 0.0]);
        // An empty frame doesn't divide by zero.
        assert_eq!(Clipping::from_bins(0, [0; 4], [0; 4], 0).low, [0.0; 4]);
    }
}
