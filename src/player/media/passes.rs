//! What the viewer sets on a file's passes: the comparison's composite, the adjustments, the
//! LUT and exposure, the marks, the scope, the region counted and the graticule; each a key
//! press's work (new buffers, a new scene), never a frame's.

use super::*;

impl Media {
    /// Shows the comparison as `composite` from now on; the shown pair is composited again.
    pub fn set_composite(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        composite: crate::compare::composite::Composite,
    ) -> Result<(), crate::pipeline::comparison::StageError> {
        let Some(comparison) = &mut self.compare else {
            return Ok(());
        };
        let before = comparison.stage.composite().mode;
        comparison.stage.set_composite(gpu, &self.pipeline, composite)?;
        use crate::compare::composite::CompareMode;
        if !matches!(composite.mode, CompareMode::A | CompareMode::B) {
            comparison.before_flicker = composite.mode;
        }
        let redraws = |mode| match mode {
            CompareMode::SideBySide => 1,
            CompareMode::Difference => 2,
            _ => 0,
        };
        if redraws(before) != redraws(composite.mode) {
            self.rebuild_scene(gpu, renderer);
        } else {
            // The wipe's line moved, or came or went.
            self.set_scene_region();
        }
        self.recount = true;
        Ok(())
    }

    /// Adjusts both files' pictures alike.
    pub fn set_adjustments(
        &mut self,
        gpu: &GpuContext,
        adjustments: crate::render::adjust::Adjustments,
    ) -> Result<(), crate::video::ring::RingError> {
        self.pipeline.set_adjustments(gpu, adjustments)?;
        if let Some(comparison) = &mut self.compare {
            comparison.stage.b.set_adjustments(gpu, adjustments)?;
        }
        Ok(())
    }

    /// Shows the picture through `lut` (None: as decoded), the histograms and scopes counting
    /// what `scopes_on` says; the scene is made again to draw it. While comparing, the pictures
    /// stay as decoded: the comparison reads the signals.
    pub fn set_lut(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        lut: Option<&crate::colour::lut::Lut>,
        scopes_on: crate::pipeline::ScopesOn,
    ) -> Result<(), crate::video::ring::RingError> {
        if self.compare.is_some() {
            return Ok(());
        }
        let bits = self.pipeline.ring.output.bits;
        let tables = lut.map(|lut| crate::colour::lut::LutTables::new(lut, bits));
        self.pipeline.set_lut(gpu, tables.as_ref())?;
        self.pipeline.set_scopes_on(gpu, scopes_on)?;
        self.rebuild_scene(gpu, renderer);
        Ok(())
    }

    /// Reads the signal as camera log in `encoding` (None: as video): the marks' stops and
    /// scene-light zebras, the graticule's stops and the probe's from the next frame on.
    pub fn set_exposure(&mut self, gpu: &GpuContext, encoding: Option<crate::colour::LogEncoding>) {
        self.pipeline.set_exposure(gpu, encoding);
        self.recount = true;
    }

    /// Turns the LUT loaded on or off, the histograms and scopes counting what `scopes_on`
    /// says: whether it is on now.
    pub fn show_lut(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        on: bool,
        scopes_on: crate::pipeline::ScopesOn,
    ) -> Result<bool, crate::video::ring::RingError> {
        let shown = self.pipeline.show_lut(gpu, on)?;
        self.pipeline.set_scopes_on(gpu, scopes_on)?;
        self.rebuild_scene(gpu, renderer);
        Ok(shown)
    }

    /// The picture changed shape mid-stream (size or sampling): the passes are made
    /// for frames of `shape`, and the decoder goes on into their ring. What is set on the
    /// passes is set again by the caller, as for a new file.
    pub fn reshape(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        shape: FrameShape,
    ) -> Result<(), crate::video::ring::RingError> {
        let bins = self.pipeline.engine.bins;
        self.pipeline = FramePipeline::new(gpu, bins, shape.format, self.info.volume, super::SLOTS)?;
        log::info!(
            "{}: now {}x{} {}",
            self.info.path.display(),
            shape.format.width,
            shape.format.height,
            shape.pixel_format
        );
        self.info.reshape(&shape);
        self.serial += 1;
        self.has_picture = false;
        self.rebuild_scene(gpu, renderer);
        let slots = &self.pipeline.ring.slots;
        self.playback
            .source
            .set_ring(shape, slots[..RING_SLOTS].to_vec(), slots[..RING_SLOTS + 1].to_vec());
        self.field_view = Default::default();
        Ok(())
    }

    /// Shows `settings`' marks on the picture (while comparing, on the composite); the shown
    /// frame is marked anew. Returns whether the marks' stage was made just now (its first
    /// use: the scene is made again).
    pub fn set_marks(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        settings: &crate::marks::MarkSettings,
    ) -> bool {
        let made = match &mut self.compare {
            Some(comparison) => comparison.stage.set_marks(gpu, settings),
            None => self.pipeline.set_marks(gpu, settings),
        };
        if made {
            self.rebuild_scene(gpu, renderer);
        }
        self.recount = true;
        made
    }

    /// Auto-levels start over (after a seek), for both files.
    pub fn restart_adjustments(&self, queue: &wgpu::Queue) {
        self.pipeline.restart_adjustments(queue);
        if let Some(comparison) = &self.compare {
            comparison.stage.b.restart_adjustments(queue);
        }
    }

    /// Counts `scope` of each frame from now on (None: no scope); the shown frame is counted
    /// again. Makes the scope's counts buffer and a new scene: a key press, not per frame.
    pub fn set_scope(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        scope: Option<ScopeKind>,
    ) -> Result<(), ScopeError> {
        match &mut self.compare {
            // Comparing, the scope counts the picture shown.
            Some(comparison) => comparison.stage.set_scope(gpu, &self.pipeline, scope)?,
            None => self
                .pipeline
                .set_scope(gpu, scope.map(|kind| (kind, kind.display_columns())))?,
        }
        self.rebuild_scene(gpu, renderer);
        Ok(())
    }

    /// Counts only `region` of each frame from now on (None: the whole frame), drawn on the
    /// picture; the shown frame is counted again. Moving a region is a few queue writes; a
    /// scope is rebound (a new scene) only when a region appears or goes.
    pub fn set_region(
        &mut self,
        gpu: &GpuContext,
        renderer: &SceneRenderer,
        region: Option<Region>,
    ) -> Result<(), ScopeError> {
        let had = self.pipeline.region().is_some();
        self.pipeline.set_region(gpu, region)?;
        if let Some(comparison) = &mut self.compare {
            comparison.stage.b.set_region(gpu, region)?;
        }
        if had != region.is_some() && self.pipeline.scope().is_some() {
            self.rebuild_scene(gpu, renderer);
        } else {
            self.set_scene_region();
        }
        self.recount = true;
        Ok(())
    }

    /// The waveform's and parade's graticule in `scale`, with `chosen` levels added, from the
    /// next layout on.
    pub fn set_graticule(&mut self, scale: Scale, chosen: &[Level]) {
        self.graticule = graticule::lines(scale, &self.pipeline.axis(), chosen);
        self.scene.set_graticule(self.graticule.clone());
    }

    /// The graticule's lines on this file's scopes.
    pub fn graticule(&self) -> &[Line] {
        &self.graticule
    }

    fn rebuild_scene(&mut self, gpu: &GpuContext, renderer: &SceneRenderer) {
        self.scene = make_scene(gpu, renderer, &self.pipeline, self.compare.as_ref());
        self.scene.set_graticule(self.graticule.clone());
        self.set_scene_region();
        self.recount = true;
    }

    /// The region drawn on the picture and counted; comparing, the scope counts the whole
    /// picture shown.
    pub(super) fn set_scene_region(&mut self) {
        // Side by side, it is drawn on the reference's half.
        let (width, height) = self.pipeline.frame_size();
        let wide = self.side_by_side();
        let shown = if wide { (2 * width, height) } else { (width, height) };
        self.scene.set_region(self.pipeline.region(), shown);
        if let Some(comparison) = &self.compare {
            let picture = comparison.stage.picture();
            self.scene.set_scope_pixels(picture.width * picture.height);
            let composite = comparison.stage.composite();
            let split = (composite.mode == crate::compare::composite::CompareMode::Wipe)
                .then(|| composite.split as f32 / width as f32);
            self.scene.set_split(split);
        }
    }
}
