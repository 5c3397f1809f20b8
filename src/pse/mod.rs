//! Photosensitive-epilepsy analysis: flashes (general and red) as ITU-R BT.1702, Ofcom's
//! guidance and WCAG 2.2 define them. Each frame's screen luminance (cd/m², through the
//! display model of the standard: BT.1886 at 200 cd/m² for SDR television, sRGB for WCAG, the
//! signal's own light for PQ and HLG) and red saturation are averaged over a grid of small
//! cells on the GPU (`gpu`, with its CPU twin in `light`); the CPU follows each cell's
//! luminance from peak to valley over time (`analysis`), and a frame is hazardous where the
//! cells that flashed more than three times in the second before it (each at a flash's edge by
//! the share of it the flash covered: `coverage`) cover more than the standard's share of the
//! screen (25% of it for television, 25% of any 10° field for WCAG).
//! Regular patterns (BT.1702's guideline 2, Ofcom's Annex 1): the same pass counts the stripes
//! of blocks of cells (`stripes`), and `patterns` joins the striped blocks into patterns and
//! counts their light-dark pairs.

pub mod analysis;
pub mod coverage;
pub mod gpu;
pub mod light;
pub mod patterns;
pub mod red;
pub mod stripes;

pub use analysis::{Analysis, FrameVerdict, PseFailure, Summary};

use light::{cells_cpu, Grid, LightModel};
use stripes::{stripes_cpu, Blocks, Sides, Stripes, BLOCK_CELLS};

/// What the analysis takes of a frame: each cell's summed luminance and red, and each block's
/// stripe counts (from the GPU pass's readback, or `LightTwin`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameLight {
    pub cells: Vec<light::CellLight>,
    pub blocks: Vec<Stripes>,
}

/// The CPU twin of the GPU pass, frame after frame (it keeps the pixels' sides as the pass
/// keeps them).
pub struct LightTwin {
    pub grid: Grid,
    pub blocks: Blocks,
    model: LightModel,
    sides: Sides,
}

impl LightTwin {
    pub fn new(grid: Grid, model: LightModel) -> Self {
        let blocks = Blocks::new(grid, BLOCK_CELLS);
        Self {
            grid,
            sides: Sides::new(&blocks, blocks.line_step()),
            blocks,
            model,
        }
    }

    /// The light of a converted frame's packed pixels.
    pub fn frame(&mut self, words: &[u32]) -> FrameLight {
        let cells = cells_cpu(words, &self.grid, &self.model);
        let blocks = stripes_cpu(words, &self.blocks, &self.model, &cells, &mut self.sides);
        FrameLight { cells, blocks }
    }
}

/// The rules applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Standard {
    /// ITU-R BT.1702: 20 cd/m² where the darker image is under 160 cd/m² (HDR: 1/17 Michelson
    /// contrast above), more than 3 flashes in any second over 25% of the screen.
    #[default]
    Bt1702,
    /// Ofcom's guidance (Annex 1): BT.1702's flashes, and extended flashing (4 of the last 5 s
    /// near the limit) fails too.
    Ofcom,
    /// WCAG 2.2 SC 2.3.1: the general flash threshold in sRGB relative luminance (10% where
    /// the darker is under 0.8) and the red flash by 2.2's chromaticity (more than 0.2 in u′v′
    /// to or from a saturated red), over 25% of any 10° field (a third of the width by a third
    /// of the height).
    Wcag,
}

impl Standard {
    pub fn name(self) -> &'static str {
        match self {
            Standard::Bt1702 => "bt1702",
            Standard::Ofcom => "ofcom",
            Standard::Wcag => "wcag",
        }
    }
}
