//! The GPU frame cache of an NVDEC stream, from the decode thread's side: set up with the
//! thread (its size from the device's budget and the ring), and the room it has grown to
//! followed frame by frame.

use super::Worker;
use crate::video::cache::{MIN_FRAMES, PASS_THROUGH_FRAMES};
use crate::video::format::PlaneLayout;
use crate::video::interop::{self, GpuFrameStore};
use crate::video::planes::plane_rows;
use crate::video::source::DecodedFrame;

/// What the decode thread needs to set up a GPU frame cache.
pub(in crate::video::decoder) struct GpuCacheSetup {
    pub device: wgpu::Device,
    /// The frame cache has no budget: frames only pass through (headless runs).
    pub passing_through: bool,
}

impl Worker {
    /// Sets up the GPU frame cache for an NVDEC stream: its frames are then copied there on the
    /// device as decoded, and shown from there. It holds the cache's frames (its budget, or
    /// only what passes through a cache of no budget) and those on their way to the ring
    /// besides; where it can't be made, the frame path says why.
    pub(super) fn keep_frames_on_gpu(&mut self, setup: GpuCacheSetup) {
        let Some(cuda) = self.source.cuda_stream() else {
            return;
        };
        let format = self.source.info.format;
        if !matches!(format.layout, PlaneLayout::Nv12 | PlaneLayout::P010) {
            self.source
                .copy_through_memory("its frames are converted to another layout in memory".into());
            return;
        }
        let frame_bytes = usize::try_from(plane_rows(&format).1).unwrap_or(usize::MAX).max(1);
        // The ring's slots in flight, the frame decoded meanwhile and the one sent.
        let in_flight = self.slot_count + 2;
        let budget = interop::gpu_cache_budget(&setup.device);
        let cached = if setup.passing_through {
            PASS_THROUGH_FRAMES
        } else {
            // No more than the stream has frames.
            let info = &self.source.info;
            let stream_frames = match info.duration {
                d if d > 0.0 && info.frame_duration > 0.0 => {
                    ((d / info.frame_duration).ceil() as usize).saturating_add(1)
                }
                _ => usize::MAX,
            };
            (budget / frame_bytes)
                .saturating_sub(in_flight)
                .min(stream_frames)
                .max(MIN_FRAMES)
        };
        let frames = cached + in_flight;
        if !setup.passing_through && frames.saturating_mul(frame_bytes) > budget {
            self.source.copy_through_memory(format!(
                "the GPU frame cache's budget ({} MiB) holds fewer than the {frames} frames it needs",
                budget >> 20
            ));
            return;
        }
        self.in_flight_on_gpu = in_flight;
        // Made with the first frame the decoder gives out on the GPU: none is made for a stream
        // it decodes in software after all, or whose frames are resized.
        let device = setup.device;
        self.source.keep_on_gpu_from(Box::new(move || {
            let started = std::time::Instant::now();
            let store = GpuFrameStore::new(&device, cuda, format, frames, in_flight + MIN_FRAMES)?;
            log::info!(
                "NVDEC frames stay on the GPU: a GPU frame cache of {} frames ({} MiB), its first {} in {:.0} ms",
                store.capacity,
                (store.capacity as u64 * store.slot_bytes) >> 20,
                store.ready(),
                started.elapsed().as_secs_f64() * 1e3
            );
            Ok(store)
        }));
    }

    /// Notes a decoded frame's size (the budgets in frames follow it) and, for one in the GPU
    /// frame cache, the room the GPU frame cache has grown to: what its slots hold beyond
    /// those in flight.
    pub(super) fn note_frame_size(&mut self, frame: &DecodedFrame) {
        self.frame_bytes = frame.byte_size() + frame.gpu_byte_size();
        self.on_gpu = frame.gpu_byte_size() > 0;
        match self.source.gpu_store() {
            Some(store) => {
                let slot_bytes = usize::try_from(store.slot_bytes).unwrap_or(usize::MAX);
                let room = store.ready().saturating_sub(self.in_flight_on_gpu);
                self.cache.set_gpu_budget(room.saturating_mul(slot_bytes));
                let grown = store.grown().saturating_sub(self.in_flight_on_gpu);
                self.gpu_budget_grown = grown.saturating_mul(slot_bytes);
            }
            // Turned off after a failed copy: the frames still there go, and the store with them.
            None => {
                self.cache.set_gpu_budget(0);
                self.gpu_budget_grown = 0;
            }
        }
    }
}
