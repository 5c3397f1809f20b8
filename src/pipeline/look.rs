//! The LUT a picture is shown through, in the pipeline: the picture through it, its conversion
//! of each slot, and whether the histograms and scopes count the signal or the picture
//! ([`ScopesOn`]); the headless commands' [`Look`].

use super::FramePipeline;
use crate::colour::lut::LutTables;
use crate::colour::{ColorVolume, Primaries, Transfer};
use crate::engine::SourceBinding;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::render::lut::LutStage;
use crate::video::convert::ConvertBinding;
use crate::video::ring::RingError;
use std::cell::Cell;

/// A LUT in force: the converted frame (the signal) goes through it into `picture`, which is
/// drawn; the histograms and scopes count either (`ScopesOn`). Frames as they play go through
/// it as they are converted (`converts`); the LUT pass (`stage`) applies it to a frame
/// converted already.
pub(super) struct LutApplied {
    pub(super) picture: GpuFrame,
    pub(super) stage: LutStage,
    /// The conversion of each ring slot through the LUT.
    pub(super) converts: Vec<ConvertBinding>,
    /// The engine bound to `picture`.
    pub(super) binding: SourceBinding,
    /// Whether a frame was converted through the LUT since the signal's texture was last
    /// written: it is then behind, and written before it is drawn again.
    pub(super) signal_texture_behind: Cell<bool>,
}

/// What the histograms and scopes count while the picture is shown through a LUT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScopesOn {
    /// The decoded signal, as without a LUT.
    #[default]
    Signal,
    /// The picture as shown, after the LUT.
    Display,
}

impl ScopesOn {
    pub fn name(self) -> &'static str {
        match self {
            Self::Signal => "signal",
            Self::Display => "display",
        }
    }
}

/// The LUT a picture is shown through (a `.cube` file's, or a camera log encoding's display
/// rendering), if any, and what the histograms and scopes count meanwhile: the headless
/// commands' `--lut`, `--input-colour` and `--scopes-on`, resolved for one file.
#[derive(Clone, Debug, Default)]
pub struct Look {
    pub lut: Option<std::sync::Arc<crate::colour::lut::Lut>>,
    pub scopes_on: ScopesOn,
}

impl Look {
    /// What the JSON says was counted: only with a LUT in force.
    pub fn counted(&self) -> Option<ScopesOn> {
        self.lut.as_ref().map(|_| self.scopes_on)
    }

    /// Whether the picture through the LUT is what is counted.
    pub fn counts_display(&self) -> bool {
        self.counted() == Some(ScopesOn::Display)
    }

    /// The LUT's tables for `bits`-bit frames, where the picture through it is counted (the
    /// CPU twins and stills apply them before counting).
    pub fn counted_tables(&self, bits: u32) -> Option<LutTables> {
        self.lut
            .as_ref()
            .filter(|_| self.counts_display())
            .map(|lut| LutTables::new(lut, bits))
    }
}

impl std::str::FromStr for ScopesOn {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "signal" => Ok(Self::Signal),
            "display" => Ok(Self::Display),
            _ => Err(format!("'{s}': the scopes count the signal or the display")),
        }
    }
}

/// A LUT's picture is display-referred BT.709.
pub(super) const LUT_VOLUME: ColorVolume = ColorVolume {
    transfer: Transfer::Sdr,
    primaries: Primaries::Bt709,
    peak_nits: None,
};

impl FramePipeline {
    /// Shows the picture through `tables` (made for this stream's depth) from the next frame
    /// on, or (None) as decoded; a LUT already loaded is replaced. The scene must be made again
    /// afterwards: it draws another frame.
    pub fn set_lut(&mut self, ctx: &GpuContext, tables: Option<&LutTables>) -> Result<(), RingError> {
        match tables {
            Some(tables) => {
                let output = &self.ring.output;
                let picture =
                    GpuFrame::with_bits(ctx, "picture through the LUT", output.width, output.height, output.bits)?;
                let stage = LutStage::new(ctx, tables, output, &picture)?;
                let converts = self.ring.bind_looking(ctx, stage.look())?;
                let binding = self.engine.bind_source(ctx, &self.target, &picture.pixels);
                // The frame shown now may have been converted through the LUT replaced.
                let behind = self.lut.as_ref().is_some_and(|lut| lut.signal_texture_behind.get());
                self.lut = Some(LutApplied {
                    picture,
                    stage,
                    converts,
                    binding,
                    signal_texture_behind: Cell::new(behind),
                });
                self.lut_active = true;
            }
            None => self.lut_active = false,
        }
        self.recount_what_changed(ctx)
    }

    /// Shows the picture through `look`'s LUT, if any, counting what it says.
    pub fn set_look(&mut self, ctx: &GpuContext, look: &Look) -> Result<(), RingError> {
        if let Some(lut) = &look.lut {
            self.set_lut(ctx, Some(&LutTables::new(lut, self.ring.output.bits)))?;
            self.set_scopes_on(ctx, look.scopes_on)?;
        }
        Ok(())
    }

    /// Turns the LUT loaded on or off (nothing without one): whether it is on now. The scene
    /// must be made again afterwards.
    pub fn show_lut(&mut self, ctx: &GpuContext, on: bool) -> Result<bool, RingError> {
        self.lut_active = on && self.lut.is_some();
        self.recount_what_changed(ctx)?;
        Ok(self.lut_active)
    }

    /// Whether the picture is shown through a LUT.
    pub fn lut_shown(&self) -> bool {
        self.lut_active
    }

    /// Whether the histograms and scopes count the signal or (with a LUT on) the picture.
    pub fn set_scopes_on(&mut self, ctx: &GpuContext, on: ScopesOn) -> Result<(), RingError> {
        self.scopes_on = on;
        self.recount_what_changed(ctx)
    }

    /// What the histograms and scopes count: `Display` only while a LUT is on.
    pub fn scopes_on(&self) -> ScopesOn {
        if self.lut_active {
            self.scopes_on
        } else {
            ScopesOn::Signal
        }
    }

    /// The frame the histograms and scopes count: the picture through the LUT, or the signal.
    pub(super) fn counted_frame(&self) -> &GpuFrame {
        match (&self.lut, self.scopes_on()) {
            (Some(lut), ScopesOn::Display) => &lut.picture,
            _ => &self.ring.output,
        }
    }

    /// The colour volume of the frame counted.
    pub(super) fn counted_volume(&self) -> ColorVolume {
        match self.scopes_on() {
            ScopesOn::Display => LUT_VOLUME,
            ScopesOn::Signal => self.volume,
        }
    }

    /// The region and the scope read the counted frame: made again on it.
    fn recount_what_changed(&mut self, ctx: &GpuContext) -> Result<(), RingError> {
        if let Some(lut) = &self.lut {
            // Frames converted through the LUT write the picture's packed pixels only while
            // something counts them.
            lut.stage
                .write_pixels(&ctx.queue, self.scopes_on() == ScopesOn::Display);
        }
        if let Some(region) = self.region.as_ref().map(|r| r.gather_binding.region()) {
            self.region = Some(self.make_region(ctx, region));
        }
        if let Some(scope) = self.scope.counted() {
            self.set_scope(ctx, Some(scope))?;
        }
        Ok(())
    }

    /// The LUT the picture is shown through, while one is on.
    pub(super) fn active_lut(&self) -> Option<&LutApplied> {
        self.lut.as_ref().filter(|_| self.lut_active)
    }
}
