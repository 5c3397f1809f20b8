//! What the histograms and the scope count: the whole frame, or a region's pixels gathered into
//! a buffer of their own; and which scope is counted.

use super::{FramePipeline, ScopesOn};
use crate::engine::SourceBinding;
use crate::gpu::{GpuContext, GpuError};
use crate::scope::gpu::{ScopePass, ScopeShape, ScopeTarget};
use crate::scope::region::{GatherBinding, GatherPass};
use crate::scope::{Region, ScopeError, ScopeKind};

/// A region's pixels gathered into a buffer of their own, which the engine counts instead of
/// the frame.
pub(super) struct RegionCounting {
    pub(super) gather: GatherPass,
    pub(super) pixels: wgpu::Buffer,
    pub(super) gather_binding: GatherBinding,
    pub(super) engine_binding: SourceBinding,
}

impl FramePipeline {
    /// The region counted, if one is set.
    pub fn region(&self) -> Option<Region> {
        self.region
            .as_ref()
            .filter(|_| self.region_active)
            .map(|r| r.gather_binding.region())
    }

    /// Counts only `region` of each frame from the next frame on (None: the whole frame),
    /// histograms and scopes alike. Moving a region is a few small queue writes; the first one
    /// makes its buffer.
    pub fn set_region(&mut self, ctx: &GpuContext, region: Option<Region>) -> Result<(), ScopeError> {
        let (width, height) = self.frame_size();
        let region = match region {
            Some(r) => Some(r.check(width, height)?),
            None => None,
        };
        let was_active = self.region_active;
        match region {
            Some(r) => {
                match &mut self.region {
                    Some(counting) => counting.gather_binding.set_region(&ctx.queue, r, width),
                    None => self.region = Some(self.make_region(ctx, r)),
                }
                self.region_active = true;
            }
            None => self.region_active = false,
        }
        let counted = region.unwrap_or(Region::full(width, height));
        self.engine
            .set_pixel_count(ctx, &mut self.target, counted.pixel_count());
        if let Some((_, binding)) = &self.peak {
            binding.set_pixel_count(&ctx.queue, counted.pixel_count());
        }
        if was_active != self.region_active {
            // The scope reads another buffer now.
            if let Some(scope) = self.scope.counted() {
                self.set_scope(ctx, Some(scope))?;
            }
        } else {
            self.scope.resize(&ctx.queue, counted.width, counted.height);
        }
        Ok(())
    }

    pub(super) fn make_region(&self, ctx: &GpuContext, region: Region) -> RegionCounting {
        let gather = GatherPass::new(&ctx.device);
        let pixels = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("region pixels"),
            size: self.ring.output.pixels.size(),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let gather_binding = gather.bind(
            &ctx.device,
            &self.counted_frame().pixels,
            &pixels,
            region,
            self.target.width,
        );
        let engine_binding = self.engine.bind_source(ctx, &self.target, &pixels);
        RegionCounting {
            gather,
            pixels,
            gather_binding,
            engine_binding,
        }
    }

    /// Counts `scope` (its kind and columns) of each frame from the next one on, or none. The
    /// first use of a kind builds its pipelines; later switches only make its counts buffer.
    pub fn set_scope(&mut self, ctx: &GpuContext, scope: Option<(ScopeKind, u32)>) -> Result<(), GpuError> {
        let Some((kind, columns)) = scope else {
            self.scope.clear();
            return Ok(());
        };
        let counted = self
            .region()
            .unwrap_or(Region::full(self.target.width, self.target.height));
        let shape = ScopeShape {
            bins: self.engine.bins,
            depth: self.engine.depth,
            volume: self.counted_volume(),
        };
        let display = self.scopes_on() == ScopesOn::Display;
        let pixels = match (&self.region, self.region_active, &self.lut) {
            (Some(counting), true, _) => &counting.pixels,
            (_, _, Some(lut)) if display => &lut.picture.pixels,
            _ => &self.ring.output.pixels,
        };
        self.scope
            .set(ctx, kind, shape, pixels, columns, (counted.width, counted.height))
    }

    /// The scope counted each frame: its pass and counts.
    pub fn scope(&self) -> Option<(&ScopePass, &ScopeTarget)> {
        self.scope.get()
    }
}
