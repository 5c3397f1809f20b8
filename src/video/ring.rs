//! The GPU side of video: a ring of plane-texture slots the decode thread uploads into, and the
//! converted frame (texture + packed pixels) that the histogram and the picture read.

use super::convert::{ConvertBinding, ConvertError, ConvertPass, PlaneTextures, UploadStaging, STAGING_BUFFERS};
use super::format::FrameFormat;
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use std::sync::Arc;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RingError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
}

/// Slots the decoder may fill ahead of what is shown: enough to ride out a slow frame, few
/// enough that memory stays flat (a 4K 4:2:0 slot is 12 MB).
pub const RING_SLOTS: usize = 6;

/// Staging buffers for a ring of `slots` slots of `format`'s frames. Up to 4K, one per slot:
/// a buffer is mapped again only after the GPU has copied from it, and the copy waits behind
/// the frames the GPU is drawing, so with a buffer per slot the upload thread never waits for
/// it. Larger frames share two (one is written while the other's copy runs), or one beyond
/// 64 MiB (8K at 10 bits is 100 MB a frame), where another frame's worth of memory matters more
/// than the wait.
fn staging_buffers(format: &FrameFormat, slots: usize) -> usize {
    match UploadStaging::frame_bytes(format) {
        bytes if bytes > 64 << 20 => 1,
        bytes if bytes > 32 << 20 => STAGING_BUFFERS,
        _ => slots,
    }
}

pub struct FrameRing {
    pub format: FrameFormat,
    pub slots: Vec<Arc<PlaneTextures>>,
    /// The converted picture of the slot last converted.
    pub output: GpuFrame,
    convert: ConvertPass,
    bindings: Vec<ConvertBinding>,
}

impl FrameRing {
    pub fn new(ctx: &GpuContext, format: FrameFormat, slots: usize) -> Result<Self, RingError> {
        ctx.check_frame_size(format.width, format.height)?;
        let bits = format.layout.output_bits();
        let output = GpuFrame::with_bits(ctx, "video frame", format.width, format.height, bits)?;
        let convert = ConvertPass::new(&ctx.device);
        let staging = UploadStaging::new(&ctx.device, "ring", &format, staging_buffers(&format, slots))?;
        let slots = (0..slots)
            .map(|i| {
                PlaneTextures::sharing(&ctx.device, &format!("ring slot {i}"), format, Arc::clone(&staging))
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let bindings = slots
            .iter()
            .map(|slot| convert.bind(&ctx.device, slot, &output))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            format,
            slots,
            output,
            convert,
            bindings,
        })
    }

    /// Records the conversion of `slot` into `output`.
    pub fn encode_convert(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        self.encode_convert_timed(encoder, slot, None);
    }

    /// `encode_convert`, its pass timed with `writes`.
    pub fn encode_convert_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        self.encode_convert_with(encoder, &self.bindings[slot], writes);
    }

    /// Conversions of every slot into `frame` instead of `output` (the picture adjustments
    /// convert into a frame of their own), made once.
    pub fn bind_into(&self, ctx: &GpuContext, frame: &GpuFrame) -> Result<Vec<ConvertBinding>, RingError> {
        Ok(self
            .slots
            .iter()
            .map(|slot| self.convert.bind(&ctx.device, slot, frame))
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// Conversions of every slot into `output` that show each frame through a look as they
    /// convert it (`LutStage::look`: its layout and bind group), made once per look.
    pub fn bind_looking(
        &self,
        ctx: &GpuContext,
        look: (&wgpu::BindGroupLayout, &wgpu::BindGroup),
    ) -> Result<Vec<ConvertBinding>, RingError> {
        let pipeline = self.convert.looking_pipeline(&self.format, look.0);
        Ok(self
            .slots
            .iter()
            .map(|slot| {
                self.convert
                    .bind_looking(&ctx.device, slot, &self.output, &pipeline, look.1)
            })
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// Records one conversion of `bind_into`, its pass timed with `writes`.
    pub fn encode_convert_with(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        binding: &ConvertBinding,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("convert"),
            timestamp_writes: writes,
        });
        self.convert.encode(&mut pass, binding);
    }
}
