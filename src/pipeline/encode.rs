//! Recording a frame's passes into the frame's one command encoder: conversion (through the
//! adjustments and the LUT), marks, statistics, then the counts (histograms, peak, scope).

use super::{FramePipeline, ScopesOn, TIMED_ADJUST, TIMED_CONVERT, TIMED_HISTOGRAMS, TIMED_SCOPE};
use crate::gpu::texture::GpuFrame;
use crate::gpu::timing::PassTimer;

impl FramePipeline {
    /// Records converting ring slot `slot` and counting it: afterwards the ring's output holds
    /// the frame and the target its histogram (and scale). The slot may be refilled once the
    /// encoder is submitted.
    pub fn encode_frame(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        self.encode_frame_timed(encoder, slot, None);
    }

    /// `encode_frame`, its passes timed by `timer` (see `TIMED_PASSES`).
    pub fn encode_frame_timed(&self, encoder: &mut wgpu::CommandEncoder, slot: usize, timer: Option<&PassTimer>) {
        if let (Some(stats), true) = (&self.stats, self.stats_only) {
            stats.encode(encoder, slot);
            if let Some(freeze) = &self.freeze {
                freeze.encode(encoder, slot);
            }
            return;
        }
        let writes = |pass| timer.map(|t| t.compute_writes(pass));
        encoder.push_debug_group("convert and count");
        match (&self.adjusting, self.active_lut()) {
            (Some(adjusting), lut) if self.adjust_active => {
                self.ring
                    .encode_convert_with(encoder, &adjusting.converts[slot], writes(TIMED_CONVERT));
                adjusting.stage.encode_timed(encoder, writes(TIMED_ADJUST));
                adjusting.raw_current.set(true);
                // The adjusted frame through the LUT.
                if let Some(lut) = lut {
                    lut.stage.encode(encoder);
                    lut.signal_texture_behind.set(false);
                }
            }
            (adjusting, _) => {
                self.encode_conversion(encoder, slot, writes(TIMED_CONVERT));
                if let Some(adjusting) = adjusting {
                    adjusting.raw_current.set(false);
                }
            }
        }
        self.encode_marks(encoder, Some(slot));
        if let Some(pse) = &self.pse {
            pse.encode(encoder);
        }
        if let Some(stats) = self.counting_stats() {
            stats.encode(encoder, slot);
        }
        if let Some(freeze) = &self.freeze {
            freeze.encode(encoder, slot);
        }
        self.encode_counts_timed(encoder, timer);
        encoder.pop_debug_group();
    }

    /// Records converting ring slot `slot` into the ring's output, unadjusted, and through the
    /// LUT while one is on (in the one pass: the picture then holds the frame through it),
    /// `writes` timing the pass.
    pub fn encode_conversion(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        match self.active_lut() {
            Some(lut) => {
                self.ring.encode_convert_with(encoder, &lut.converts[slot], writes);
                lut.signal_texture_behind.set(true);
            }
            None => {
                self.ring.encode_convert_timed(encoder, slot, writes);
                if let Some(lut) = &self.lut {
                    lut.signal_texture_behind.set(false);
                }
            }
        }
    }

    /// Records counting the frame shown again, paused, after the region, the scope or the
    /// adjustments changed: the adjustments are applied anew to the unadjusted frame first.
    pub fn encode_recount(&self, encoder: &mut wgpu::CommandEncoder, timer: Option<&PassTimer>) {
        if let Some(adjusting) = &self.adjusting {
            let output = &self.ring.output;
            let writes = timer.map(|t| t.compute_writes(TIMED_ADJUST));
            match (adjusting.raw_current.get(), self.adjust_active) {
                (true, true) => adjusting.stage.encode_timed(encoder, writes),
                (true, false) => {
                    copy_frame(encoder, &adjusting.raw, output);
                    adjusting.raw_current.set(false);
                    // The unadjusted frame's texture may be one a conversion through the LUT
                    // left behind (its packed pixels are current): written again below.
                    if let Some(lut) = &self.lut {
                        lut.signal_texture_behind.set(true);
                    }
                }
                (false, true) => {
                    copy_frame(encoder, output, &adjusting.raw);
                    adjusting.stage.encode_timed(encoder, writes);
                    adjusting.raw_current.set(true);
                }
                (false, false) => {}
            }
        }
        match (&self.lut, self.lut_active) {
            (Some(lut), true) => lut.stage.encode(encoder),
            (Some(lut), false) if lut.signal_texture_behind.get() => {
                lut.stage.encode_show_signal(encoder);
                lut.signal_texture_behind.set(false);
            }
            _ => {}
        }
        self.encode_marks(encoder, None);
        self.encode_counts_timed(encoder, timer);
    }

    /// Records counting the converted frame (or its region): the histograms, the peak and the
    /// scope.
    pub fn encode_counts(&self, encoder: &mut wgpu::CommandEncoder) {
        self.encode_counts_timed(encoder, None);
    }

    /// `encode_counts`, the histograms' and the scope's passes timed by `timer`.
    pub fn encode_counts_timed(&self, encoder: &mut wgpu::CommandEncoder, timer: Option<&PassTimer>) {
        let binding = match (&self.region, self.region_active) {
            (Some(counting), true) => {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("region"),
                    timestamp_writes: None,
                });
                counting.gather.encode(&mut pass, &counting.gather_binding);
                &counting.engine_binding
            }
            _ => match (&self.lut, self.scopes_on()) {
                (Some(lut), ScopesOn::Display) => &lut.binding,
                _ => &self.binding,
            },
        };
        let writes = |pass| timer.map(|t| t.compute_writes(pass));
        self.engine
            .encode(encoder, &self.target, binding, writes(TIMED_HISTOGRAMS));
        if let Some((pass, binding)) = &self.peak {
            pass.encode(encoder, binding);
        }
        if let Some((pass, target)) = self.scope() {
            pass.encode(encoder, target, writes(TIMED_SCOPE));
        }
    }
}

/// Records copying one frame's texture and packed pixels into another of the same size.
fn copy_frame(encoder: &mut wgpu::CommandEncoder, from: &GpuFrame, to: &GpuFrame) {
    encoder.copy_buffer_to_buffer(&from.pixels, 0, &to.pixels, 0, from.pixels.size());
    encoder.copy_texture_to_texture(
        from.texture.as_image_copy(),
        to.texture.as_image_copy(),
        from.texture.size(),
    );
}
