//! The OSD's clipping readout: the share of the shown frame's pixels in the lowest and the
//! highest bin of R, G, B and L, and for HDR streams the peak the picture is tone-mapped from.
//! Each frame copies those two bins (32 bytes) of the histogram and the peak pass's state (16)
//! into one of a few small MAP_READ buffers; a buffer is read when the GPU has finished with it,
//! a frame or two later. Nothing here ever waits: with every buffer in flight a frame is skipped.

use crate::gpu::mapping::{MapState, Mapping};

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

/// One buffer's state; the u64 numbers copies in recording order (newest wins).
enum Slot {
    Free,
    /// The copy is recorded in an encoder not yet submitted.
    Recorded(ReadoutTag, u64),
    Mapping(ReadoutTag, u64, Mapping),
}

pub struct ClippingReadback {
    buffers: Vec<(wgpu::Buffer, Slot)>,
    recorded: u64,
}

impl ClippingReadback {
    pub fn new(device: &wgpu::Device) -> Self {
        let buffers = (0..BUFFERS)
            .map(|i| {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("clipping readback {i}")),
                    size: 2 * BIN_BYTES + PEAK_BYTES,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                });
                (buffer, Slot::Free)
            })
            .collect();
        Self { buffers, recorded: 0 }
    }

    /// Records the copy of the first and last bin of `histogram` (chunk 0 of the chunks buffer),
    /// and of the peak state `peak` of an HDR stream, into a free buffer; false when none is
    /// free (this frame's readout is skipped).
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        histogram: &wgpu::Buffer,
        bins: u32,
        peak: Option<&wgpu::Buffer>,
        tag: ReadoutTag,
    ) -> bool {
        let Some((buffer, slot)) = self.buffers.iter_mut().find(|(_, s)| matches!(s, Slot::Free)) else {
            return false;
        };
        let last = u64::from(bins.max(1) - 1) * BIN_BYTES;
        encoder.copy_buffer_to_buffer(histogram, 0, buffer, 0, BIN_BYTES);
        encoder.copy_buffer_to_buffer(histogram, last, buffer, BIN_BYTES, BIN_BYTES);
        if let Some(peak) = peak {
            encoder.copy_buffer_to_buffer(peak, 0, buffer, 2 * BIN_BYTES, PEAK_BYTES);
        }
        self.recorded += 1;
        *slot = Slot::Recorded(tag, self.recorded);
        true
    }

    /// After the encoder with the copies is submitted: starts mapping them.
    pub fn submitted(&mut self) {
        for (buffer, slot) in &mut self.buffers {
            if let Slot::Recorded(tag, order) = *slot {
                *slot = Slot::Mapping(tag, order, Mapping::read(buffer));
            }
        }
    }

    /// Whether a readout is on its way (the caller keeps polling the device until it lands).
    pub fn pending(&self) -> bool {
        self.buffers.iter().any(|(_, s)| matches!(s, Slot::Mapping(..)))
    }

    /// The newest readout whose buffer has been mapped, freeing every finished buffer. Call
    /// after `device.poll(Poll)`; never blocks.
    pub fn take_latest(&mut self) -> Option<(ReadoutTag, Clipping)> {
        let mut latest: Option<(u64, ReadoutTag, Clipping)> = None;
        for (buffer, slot) in &mut self.buffers {
            let Slot::Mapping(tag, order, state) = slot else {
                continue;
            };
            let (tag, order) = (*tag, *order);
            match state.state() {
                MapState::Mapping => continue,
                MapState::Mapped => {
                    if let Ok(view) = buffer.get_mapped_range(..) {
                        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&view[..]);
                        let bins = |at: usize| [words[at], words[at + 1], words[at + 2], words[at + 3]];
                        let mut clipping = Clipping::from_bins(tag.frame, bins(0), bins(4), tag.pixel_count);
                        if tag.peak {
                            clipping.peak_nits = Some(f32::from_bits(words[8]));
                        }
                        if latest.is_none_or(|(newest, _, _)| newest < order) {
                            latest = Some((order, tag, clipping));
                        }
                    }
                    buffer.unmap();
                }
                // A failed map (device trouble, reported elsewhere) just frees the buffer.
                _ => {}
            }
            *slot = Slot::Free;
        }
        latest.map(|(_, tag, clipping)| (tag, clipping))
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
