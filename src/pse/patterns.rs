//! Regular patterns, BT.1702's guideline 2 and Ofcom's Annex 1: light and dark stripes in any
//! orientation are hazardous where a pattern has more than five light-dark pairs and covers
//! more than 40% of the screen while it stands still, or more than 25% while it changes
//! (reverses, flashes, changes direction); as Harding's and IRIS's analysers take it, a
//! pattern fails once it has lasted half a second.
//!
//! Each cell takes the stripes of its block of the pixel pass, or, where the stripes are too
//! wide for that block, of its coarse block of the cells' own light. Neighbouring cells with
//! stripes of like period and direction make one pattern; its pairs are its extent across the
//! stripes over their period.

use super::light::Grid;
use super::stripes::{scan, Blocks, Sides, Stripe, BLOCK_CELLS, COARSE_CELLS};
use super::FrameLight;

/// More light-dark pairs than this make a pattern.
pub const MOST_PAIRS: f64 = 5.0;
/// The share of the screen a pattern may cover standing still, and changing.
pub const STATIONARY_SHARE: f64 = 0.40;
pub const CHANGING_SHARE: f64 = 0.25;
/// A hazardous pattern fails once it has lasted this long (seconds).
pub const PERSISTENCE: f64 = 0.5;
/// A pattern that changed within this long (seconds) is changing.
const CHANGE_MEMORY: f64 = 1.0;
/// A block half of whose pixels changed side since the frame before changed its pattern.
const FLIPPED_SHARE: f64 = 0.5;
/// Neighbours whose periods differ by at most this ratio, and directions by at most this many
/// degrees, are one pattern.
const PERIOD_RATIO: f64 = 1.5;
const ANGLE_APART: f64 = 30.0;

/// One frame's worst pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PatternVerdict {
    /// The share of the screen it covers, and its light-dark pairs.
    pub share: f64,
    pub pairs: f64,
    pub changing: bool,
    /// Over the limits at this frame (it fails once that has lasted `PERSISTENCE`).
    pub hazardous: bool,
}

/// The patterns of one stream, frame after frame.
pub struct Patterns {
    hdr: bool,
    grid: Grid,
    fine: Blocks,
    /// The coarse scales, finest first.
    coarse: Vec<(Blocks, Sides)>,
    /// When each cell's pattern last changed.
    changed: Vec<f64>,
    frames: u64,
    /// Each cell's pixels.
    cell_pixels: Vec<u32>,
    /// Each frame's work, kept between frames: each cell's mean light and stripes, and the
    /// cells within a coarse block's crossings.
    means: Vec<u32>,
    stripes: Vec<Option<Stripe>>,
    within: Vec<(u32, u32)>,
}

impl Patterns {
    pub fn new(grid: Grid, hdr: bool) -> Self {
        let coarse = COARSE_CELLS
            .iter()
            .map(|&cells| {
                // (Their rows are rows of cells.)
                let blocks = Blocks::whole(grid, cells);
                (blocks, Sides::of(blocks.len(), cells, cells))
            })
            .collect();
        Self {
            hdr,
            grid,
            fine: Blocks::new(grid, BLOCK_CELLS),
            coarse,
            changed: vec![f64::NEG_INFINITY; grid.cells()],
            frames: 0,
            cell_pixels: (0..grid.cells()).map(|i| grid.pixels(i) as u32).collect(),
            means: Vec::with_capacity(grid.cells()),
            stripes: Vec::with_capacity(grid.cells()),
            within: Vec::new(),
        }
    }

    /// Each cell's stripes into `stripes`: of its block of pixels, or else of the finest coarse
    /// block of cells that has them.
    fn cell_stripes(&mut self, light: &FrameLight) {
        let grid = self.grid;
        let means = &mut self.means;
        means.clear();
        means.extend(light.cells.iter().zip(&self.cell_pixels).map(|(cell, &n)| cell[0] / n));
        let cell_size = [
            f64::from(grid.width) / f64::from(grid.columns),
            f64::from(grid.height) / f64::from(grid.rows),
        ];
        let stripes = &mut self.stripes;
        stripes.clear();
        stripes.resize(grid.cells(), None);
        let within = &mut self.within;
        for (blocks, sides) in self.coarse.iter_mut().rev() {
            for b in 0..blocks.len() {
                let bounds = blocks.cell_bounds(b);
                let [c0, r0, ..] = bounds;
                // The cells between a line's first and last crossing (and a stripe beyond).
                within.clear();
                let counts = scan(
                    bounds,
                    1,
                    blocks.mean_of(b, |i| means[i]),
                    |x, y| means[(y * grid.columns + x) as usize],
                    |line, word, above| sides.flip(b, word, line, above),
                    |d, line, [from, to]| {
                        within.extend((from..to).map(|i| {
                            if d == 0 {
                                (c0 + i, r0 + line)
                            } else {
                                (c0 + line, r0 + i)
                            }
                        }))
                    },
                );
                if let Some(stripe) = counts.stripe(self.hdr, cell_size) {
                    for &(column, row) in within.iter() {
                        stripes[(row * grid.columns + column) as usize] = Some(stripe);
                    }
                }
            }
        }
        for b in 0..self.fine.len() {
            if let Some(stripe) = light
                .blocks
                .get(b)
                .and_then(|counts| counts.stripe(self.hdr, [1.0, 1.0]))
            {
                fill(stripes, &grid, self.fine.cell_bounds(b), Some(stripe));
            }
        }
    }

    /// A frame at `time`: its worst pattern.
    pub fn frame(&mut self, time: f64, light: &FrameLight) -> PatternVerdict {
        self.cell_stripes(light);
        let stripes = std::mem::take(&mut self.stripes);
        self.frames += 1;
        if self.frames > 1 {
            for (i, stripe) in stripes.iter().enumerate() {
                if stripe.is_some_and(|s| s.flipped >= FLIPPED_SHARE) {
                    self.changed[i] = time;
                }
            }
        }
        self.expire(time);
        let total = u64::from(self.grid.width) * u64::from(self.grid.height);
        let mut worst = PatternVerdict::default();
        let mut worst_risk = -1.0;
        for pattern in self.join(&stripes) {
            let changing = 2 * pattern.changing >= pattern.pixels;
            let share = pattern.pixels as f64 / total as f64;
            let limit = if changing { CHANGING_SHARE } else { STATIONARY_SHARE };
            let over = pattern.pairs > MOST_PAIRS;
            // The worst: one over the pairs, nearest its area limit; else the largest.
            let risk = if over { 1.0 + share / limit } else { share };
            if risk > worst_risk {
                worst_risk = risk;
                worst = PatternVerdict {
                    share,
                    pairs: pattern.pairs,
                    changing,
                    hazardous: over && share > limit,
                };
            }
        }
        self.stripes = stripes;
        worst
    }

    /// The patterns: neighbouring cells with like stripes joined.
    fn join(&self, stripes: &[Option<Stripe>]) -> Vec<Pattern> {
        let grid = self.grid;
        let columns = grid.columns as usize;
        let mut seen = vec![false; stripes.len()];
        let mut patterns = Vec::new();
        let alike = |a: &Stripe, b: &Stripe| {
            a.period.max(b.period) <= PERIOD_RATIO * a.period.min(b.period) && (a.angle - b.angle).abs() <= ANGLE_APART
        };
        for first in 0..stripes.len() {
            if seen[first] || stripes[first].is_none() {
                continue;
            }
            seen[first] = true;
            let mut queue = vec![first];
            let (mut pixels, mut changing) = (0u64, 0u64);
            let (mut period, mut angle) = (0.0, 0.0);
            let mut bounds = [u32::MAX, u32::MAX, 0, 0];
            while let Some(i) = queue.pop() {
                let stripe = stripes[i].expect("striped");
                let p = u64::from(self.cell_pixels[i]);
                pixels += p;
                if self.frames > 1 && self.changed[i] > f64::NEG_INFINITY {
                    changing += p;
                }
                period += stripe.period * p as f64;
                angle += stripe.angle * p as f64;
                let [x0, y0, x1, y1] = grid.bounds(i);
                bounds = [
                    bounds[0].min(x0),
                    bounds[1].min(y0),
                    bounds[2].max(x1),
                    bounds[3].max(y1),
                ];
                let (column, row) = (i % columns, i / columns);
                let neighbours = [
                    (column > 0).then(|| i - 1),
                    (column + 1 < columns).then_some(i + 1),
                    (row > 0).then(|| i - columns),
                    (i + columns < stripes.len()).then_some(i + columns),
                ];
                for n in neighbours.into_iter().flatten() {
                    if !seen[n] && stripes[n].is_some_and(|s| alike(&s, &stripe)) {
                        seen[n] = true;
                        queue.push(n);
                    }
                }
            }
            let (period, angle) = (period / pixels as f64, (angle / pixels as f64).to_radians());
            // Its extent across the stripes: its box's, along their direction.
            let across =
                f64::from(bounds[2] - bounds[0]) * angle.cos() + f64::from(bounds[3] - bounds[1]) * angle.sin();
            patterns.push(Pattern {
                pixels,
                changing,
                pairs: across / period,
            });
        }
        patterns
    }

    /// Forget when the cells last changed (after a seek: the frame before is another's).
    pub fn reset(&mut self) {
        self.changed.fill(f64::NEG_INFINITY);
        self.frames = 0;
    }

    /// Cells whose pattern changed within `CHANGE_MEMORY` of `time` count as changing.
    fn expire(&mut self, time: f64) {
        for changed in &mut self.changed {
            if *changed <= time - CHANGE_MEMORY {
                *changed = f64::NEG_INFINITY;
            }
        }
    }
}

struct Pattern {
    pixels: u64,
    changing: u64,
    pairs: f64,
}

/// Gives the cells of `bounds` (cell columns and rows) `stripe`.
fn fill(stripes: &mut [Option<Stripe>], grid: &Grid, bounds: [u32; 4], stripe: Option<Stripe>) {
    let [c0, r0, c1, r1] = bounds;
    for r in r0..r1 {
        for c in c0..c1 {
            stripes[(r * grid.columns + c) as usize] = stripe;
        }
    }
}
