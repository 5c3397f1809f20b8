//! The peak pass: an HDR stream's peak light, measured on the GPU from each frame's histogram
//! and smoothed over time (shaders/render/peak.wgsl), for the picture pass to tone-map from. No
//! readback: the picture shader reads the state buffer this pass writes. `measure` and
//! `PeakState::update` are its CPU twin.

use crate::colour::transfer::{signal_to_nits, transfer_code, HLG_NOMINAL_PEAK_NITS, REFERENCE_WHITE_NITS};
use crate::colour::{ColorVolume, Transfer};
use crate::engine::histogram::Histogram;
use crate::gpu::shaders::{self, layout};
use wgpu::util::DeviceExt;

/// Twins of the constants in peak.wgsl.
const PEAK_FRACTION_INVERSE: u32 = 20_000;
const SMOOTHING_FRAMES: f32 = 20.0;
const SCENE_CUT_LOW: f32 = 0.03;
const SCENE_CUT_HIGH: f32 = 0.08;

/// The peak assumed where a stream says nothing (libplacebo's and mpv's choice for HDR10).
pub const UNKNOWN_PEAK_NITS: f32 = 1000.0;

/// Twin of `PeakParams` in peak.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PeakParams {
    pub pixel_count: u32,
    pub transfer: u32,
    pub bound_nits: f32,
    pub _pad: u32,
}

/// Twin of `PeakState` in peak.wgsl: what the pass keeps from frame to frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PeakState {
    /// The peak the picture maps from: the smoothed peak, within [203, bound] nits.
    pub peak_nits: f32,
    pub smoothed_signal: f32,
    pub smoothed_average: f32,
    pub frames: u32,
}

/// The most light a stream may hold: its metadata's peak, else HLG's nominal display peak or,
/// for PQ, 1000 nits. The measured peak is kept within it.
pub fn peak_bound(volume: &ColorVolume) -> f32 {
    volume.peak_nits.unwrap_or(match volume.transfer {
        Transfer::Hlg => HLG_NOMINAL_PEAK_NITS,
        _ => UNKNOWN_PEAK_NITS,
    })
}

/// A frame's peak and average signal (0..1) from its histogram: the top of the highest bin at
/// which some channel, counted from the top, holds 1/20000 of the pixels (at least one), and
/// the mean of the luminance bins' centres.
pub fn measure(histogram: &Histogram, pixel_count: u32) -> (f32, f32) {
    let bins = histogram.bins();
    let threshold = (pixel_count / PEAK_FRACTION_INVERSE).max(1);
    let mut running = [0u32; 3];
    let mut top = 0;
    for bin in (0..bins as usize).rev() {
        for (ch, sum) in running.iter_mut().enumerate() {
            *sum += histogram.counts[bin][ch];
        }
        if running.iter().any(|&n| n >= threshold) {
            top = bin as u32;
            break;
        }
    }
    let peak = ((top + 1) as f32 / bins as f32).min(1.0);
    let luma: f64 = (0..bins as usize)
        .map(|bin| f64::from(histogram.counts[bin][3]) * (bin as f64 + 0.5))
        .sum();
    let average = (luma / (f64::from(bins) * f64::from(pixel_count.max(1)))) as f32;
    (peak, average)
}

impl PeakState {
    /// Twin of the end of `measure_peak`: follows a frame's measured peak and average.
    pub fn update(&mut self, (peak_signal, average): (f32, f32), transfer: Transfer, bound_nits: f32) {
        if self.frames == 0 {
            self.smoothed_signal = peak_signal;
            self.smoothed_average = average;
        } else {
            let cut = smoothstep(SCENE_CUT_LOW, SCENE_CUT_HIGH, (average - self.smoothed_average).abs());
            let weight = (1.0 / SMOOTHING_FRAMES).max(cut);
            self.smoothed_signal += (peak_signal - self.smoothed_signal) * weight;
            self.smoothed_average += (average - self.smoothed_average) * weight;
        }
        self.frames += 1;
        // The light of the peak signal as a grey, as the picture turns signals into light.
        self.peak_nits = signal_to_nits([self.smoothed_signal; 3], transfer)[0]
            .clamp(REFERENCE_WHITE_NITS, bound_nits.max(REFERENCE_WHITE_NITS));
    }
}

fn smoothstep(low: f32, high: f32, x: f32) -> f32 {
    let t = ((x - low) / (high - low)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

pub struct PeakPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// One stream's peak: its parameters and the state the picture pass reads.
pub struct PeakBinding {
    bind_group: wgpu::BindGroup,
    pub state: wgpu::Buffer,
    params: wgpu::Buffer,
    current: std::cell::Cell<PeakParams>,
}

impl PeakPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("peak pass"),
            entries: &[
                layout::storage(0, compute, true),
                layout::uniform(1, compute, false),
                layout::storage(2, compute, false),
            ],
        });
        let module = shaders::module(device, "peak pass", shaders::peak_source());
        let pipeline = shaders::compute_pipeline(device, "peak pass", &module, "measure_peak", &layout);
        Self { pipeline, layout }
    }

    /// Binds a histogram of frames of `pixel_count` pixels, from a stream of `volume`.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        histogram: &wgpu::Buffer,
        pixel_count: u32,
        volume: &ColorVolume,
    ) -> PeakBinding {
        let params = PeakParams {
            pixel_count,
            transfer: transfer_code(volume.transfer),
            bound_nits: peak_bound(volume),
            _pad: 0,
        };
        let current = std::cell::Cell::new(params);
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("peak params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        // Zeroed: no frame measured yet.
        let state = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("peak state"),
            contents: bytemuck::bytes_of(&PeakState::default()),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("peak pass"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: histogram.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: state.as_entire_binding(),
                },
            ],
        });
        PeakBinding {
            bind_group,
            state,
            params,
            current,
        }
    }

    /// Records measuring the histogram just counted and updating the state.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, binding: &PeakBinding) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("peak"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &binding.bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

impl PeakBinding {
    /// Measures histograms of `pixel_count` pixels from now on (a region of interest).
    pub fn set_pixel_count(&self, queue: &wgpu::Queue, pixel_count: u32) {
        let mut params = self.current.get();
        if params.pixel_count != pixel_count {
            params.pixel_count = pixel_count;
            self.current.set(params);
            queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        }
    }

    /// Bounds the peak by `nits` from now on (a stream whose frames, not its container, say
    /// how bright it gets). Writes only when the bound changes.
    pub fn set_bound(&self, queue: &wgpu::Queue, nits: f32) {
        let mut params = self.current.get();
        if params.bound_nits != nits {
            params.bound_nits = nits;
            self.current.set(params);
            queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(bins: u32, filled: &[(usize, [u32; 4])]) -> Histogram {
        let mut h = Histogram::zeroed(bins);
        for &(bin, counts) in filled {
            h.counts[bin] = counts;
        }
        h
    }

    #[test]
    fn the_peak_ignores_a_few_stray_pixels() {
        // 100000 pixels: the threshold is 5 in any one channel. Four reds at the top do not
        // make the peak, nor does the blue at bin 220; the fifth red, at bin 200, does.
        let h = histogram(
            256,
            &[
                (255, [4, 0, 0, 0]),
                (220, [0, 0, 1, 0]),
                (200, [1, 0, 0, 0]),
                (10, [99_995, 100_000, 99_999, 100_000]),
            ],
        );
        let (peak, average) = measure(&h, 100_000);
        assert_eq!(peak, 201.0 / 256.0);
        assert!((average - 10.5 / 256.0).abs() < 1e-6);
    }

    #[test]
    fn smoothing_follows_slowly_and_resets_at_a_cut() {
        let mut state = PeakState::default();
        state.update((0.75, 0.3), Transfer::Pq, 4000.0);
        assert_eq!(state.smoothed_signal, 0.75);
        assert!((state.peak_nits - crate::colour::transfer::pq_eotf(0.75)).abs() < 1e-3);
        // Same scene, a brighter frame: a twentieth of the way.
        state.update((0.85, 0.3), Transfer::Pq, 4000.0);
        assert!((state.smoothed_signal - 0.755).abs() < 1e-6);
        // A cut (the average jumps by 0.2): straight to the new peak.
        state.update((0.6, 0.5), Transfer::Pq, 4000.0);
        assert_eq!(state.smoothed_signal, 0.6);
        assert_eq!(state.frames, 3);
    }

    #[test]
    fn the_peak_stays_within_reference_white_and_the_bound() {
        let mut state = PeakState::default();
        state.update((1.0, 0.5), Transfer::Pq, 1000.0);
        assert_eq!(state.peak_nits, 1000.0);
        let mut state = PeakState::default();
        state.update((0.3, 0.1), Transfer::Pq, 1000.0);
        assert_eq!(state.peak_nits, REFERENCE_WHITE_NITS);
        let hlg = ColorVolume {
            transfer: Transfer::Hlg,
            ..ColorVolume::default()
        };
        assert_eq!(peak_bound(&hlg), 1000.0);
        let hdr10 = ColorVolume {
            transfer: Transfer::Pq,
            peak_nits: Some(4000.0),
            ..ColorVolume::default()
        };
        assert_eq!(peak_bound(&hdr10), 4000.0);
    }
}
