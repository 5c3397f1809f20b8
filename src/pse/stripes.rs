//! Stripes in a block of the picture, for the regular-pattern rule: along every line of the
//! block across and down, the light crosses from above the block's mean (by a hysteresis of
//! a quarter of the flash step) to below it and back; a regular pattern crosses every line, at evenly
//! spaced points, between stripes whose light differs by a flash's step. The GPU pass
//! (`count_stripes` in shaders/pse/cells.wgsl) counts these over blocks of 4x4 cells of the
//! pixels; `scan` is its CPU twin, and counts them too over the cells' light for stripes wider
//! than a block.

use super::light::{is_change, pixel_luminance, Grid, LightModel, STEP, UNITS_PER_NIT};

/// A block of the pixel pass is this many cells across and down.
pub const BLOCK_CELLS: u32 = 4;
/// Lines a block is scanned along, about, each way; and at most (the shader's `MAX_LINES`).
pub const LINES: u32 = 32;
pub const MAX_LINES: u32 = 64;
/// Coarse blocks (of the cells' light, for wider stripes) are this many cells across and down,
/// each scale finding stripes from about 3 cells apart to its own size.
pub const COARSE_CELLS: [u32; 2] = [12, 24];

/// A block's counts, across (`[0]`, along rows) and down (`[1]`, along columns): twin of the
/// words the shader writes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Stripes {
    pub lines: [u32; 2],
    pub crossings: [u32; 2],
    /// Lines crossed twice or more (a whole light and dark stripe on them).
    pub crossed: [u32; 2],
    /// The spaces between neighbouring crossings on a line: how many, their sum and their
    /// squares' sum.
    pub gaps: [u32; 2],
    pub gap_sum: [u32; 2],
    pub gap_squares: [u32; 2],
    /// The light (cd/m²) of the row pixels above the mean by the hysteresis, and of those
    /// below it by as much; and how many of each.
    pub light: [u32; 2],
    pub sides: [u32; 2],
    /// Row pixels on the other side of the mean than at the frame before, of those scanned.
    pub flipped: u32,
    pub row_pixels: u32,
    /// The block's mean light (sixteenths of a cd/m²).
    pub mean: u32,
}

/// Words of a block's counts.
pub const BLOCK_WORDS: usize = std::mem::size_of::<Stripes>() / 4;

/// A block's stripes, where it has them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stripe {
    /// The distance between one light stripe and the next, across them (pixels).
    pub period: f64,
    /// The direction across the stripes (degrees from the horizontal, 0 to 90: a block cannot
    /// tell 45° from 135°).
    pub angle: f64,
    /// The share of its pixels that changed side since the frame before.
    pub flipped: f64,
}

/// Lines crossed twice or more on at least this share of them make a pattern.
const CROSSED_SHARE: f64 = 0.75;
/// Evenly spaced: the spaces' deviation at most this share of their mean.
const GAP_SPREAD: f64 = 0.3;

impl Stripes {
    /// The stripes these counts show, where a pixel is `size` pixels of the picture across and
    /// down (1 for the pixel pass, a cell's size for the coarse one).
    pub fn stripe(&self, hdr: bool, size: [f64; 2]) -> Option<Stripe> {
        if self.sides[0] == 0 || self.sides[1] == 0 {
            return None;
        }
        let light = f64::from(self.light[0]) / f64::from(self.sides[0]);
        let dark = f64::from(self.light[1]) / f64::from(self.sides[1]);
        if !is_change(hdr, dark, light) {
            return None;
        }
        let share = |d: usize| f64::from(self.crossed[d]) / f64::from(self.lines[d].max(1));
        let along = if share(0) >= share(1) { 0 } else { 1 };
        if share(along) < CROSSED_SHARE || self.gaps[along] == 0 {
            return None;
        }
        let mean = |d: usize| f64::from(self.gap_sum[d]) / f64::from(self.gaps[d]);
        let spread = (f64::from(self.gap_squares[along]) / f64::from(self.gaps[along]) - mean(along).powi(2))
            .max(0.0)
            .sqrt();
        if spread > GAP_SPREAD * mean(along) {
            return None;
        }
        // Cycles a pixel along each direction (none where most lines do not cross).
        let frequency = |d: usize| {
            if share(d) >= 0.5 && self.gaps[d] > 0 {
                1.0 / (2.0 * mean(d) * size[d])
            } else {
                0.0
            }
        };
        let (across, down) = (frequency(0), frequency(1));
        Some(Stripe {
            period: 1.0 / across.hypot(down),
            angle: down.atan2(across).to_degrees(),
            flipped: f64::from(self.flipped) / f64::from(self.row_pixels.max(1)),
        })
    }
}

/// The hysteresis around a mean of `mean` (sixteenths of a cd/m²): a quarter of the flash
/// step, or above 160 cd/m² of the Michelson step (stripes a step apart cross it even where
/// the mean is off their middle; the step itself is checked on the stripes' light).
pub fn hysteresis(mean: u32) -> u32 {
    ((STEP / 4.0) as u32 * UNITS_PER_NIT).max(mean / 34)
}

/// The blocks of `BLOCK_CELLS` (or `COARSE_CELLS`) cells a grid is cut into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    pub grid: Grid,
    pub cells: u32,
    pub columns: u32,
    pub rows: u32,
    /// The last block across and down ends at the grid's edge, overlapping the one before,
    /// rather than being cut short by it (`whole`).
    pub flush: bool,
}

impl Blocks {
    pub fn new(grid: Grid, cells: u32) -> Self {
        Self {
            grid,
            cells,
            columns: grid.columns.div_ceil(cells),
            rows: grid.rows.div_ceil(cells),
            flush: false,
        }
    }

    /// Blocks as `new`'s, but each as many cells across and down as the grid has room for:
    /// the last across and down moved back to end at the grid's edge. (The coarse scans: a
    /// picture 54 cells tall has 6 rows of cells below its last whole block of 24, too few
    /// for stripes wider than a cell or two to cross them twice.)
    pub fn whole(grid: Grid, cells: u32) -> Self {
        Self {
            flush: true,
            ..Self::new(grid, cells)
        }
    }

    pub fn len(&self) -> usize {
        (self.columns * self.rows) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Block `b`'s cells: first column and row, and one past the last.
    pub fn cell_bounds(&self, b: usize) -> [u32; 4] {
        let (column, row) = (b as u32 % self.columns, b as u32 / self.columns);
        let (mut c0, mut r0) = (column * self.cells, row * self.cells);
        if self.flush {
            c0 = c0.min(self.grid.columns.saturating_sub(self.cells));
            r0 = r0.min(self.grid.rows.saturating_sub(self.cells));
        }
        [
            c0,
            r0,
            (c0 + self.cells).min(self.grid.columns),
            (r0 + self.cells).min(self.grid.rows),
        ]
    }

    /// Block `b`'s pixels: first column and row, and one past the last.
    pub fn bounds(&self, b: usize) -> [u32; 4] {
        let [c0, r0, c1, r1] = self.cell_bounds(b);
        let first = self.grid.bounds((r0 * self.grid.columns + c0) as usize);
        let last = self.grid.bounds(((r1 - 1) * self.grid.columns + c1 - 1) as usize);
        [first[0], first[1], last[2], last[3]]
    }

    /// Every how many rows (and columns) of a block a line is scanned: about 32 lines a block
    /// each way, whatever the picture's size, and never more than `MAX_LINES`.
    pub fn line_step(&self) -> u32 {
        let [width, height] = self.largest();
        (width.min(height) / LINES)
            .max(width.max(height).div_ceil(MAX_LINES))
            .max(1)
    }

    /// The widest and the tallest block (pixels).
    pub fn largest(&self) -> [u32; 2] {
        (0..self.len()).fold([0, 0], |[w, h], b| {
            let [x0, y0, x1, y1] = self.bounds(b);
            [w.max(x1 - x0), h.max(y1 - y0)]
        })
    }

    /// The mean of the block's cells' mean light, from the cells' sums (as the shader takes it).
    pub fn mean(&self, b: usize, cells: &[super::light::CellLight]) -> u32 {
        self.mean_of(b, |i| cells[i][0] / self.grid.pixels(i) as u32)
    }

    /// `mean`, from each cell's mean light `means` (the cell's luminance over its pixels).
    pub fn mean_of(&self, b: usize, means: impl Fn(usize) -> u32) -> u32 {
        let [c0, r0, c1, r1] = self.cell_bounds(b);
        let mut sum = 0u32;
        for r in r0..r1 {
            let row = (r * self.grid.columns) as usize;
            for c in c0..c1 {
                sum += means(row + c as usize);
            }
        }
        sum / ((c1 - c0) * (r1 - r0))
    }
}

/// The counts of one block `[x0, y0, x1, y1]` of light `light(x, y)` about `mean`, along every
/// `step`th row and column; `flip(line, word, above)` keeps the sides of a scanned row's pixels
/// `32 word` to `32 word + 31` from the row's start (a bit each, set where at or above the
/// mean) and says how many changed; `span(d, line, [first, last])` is told the stretch of each
/// line crossed twice or more, a stripe beyond its first and last crossing each way (from the
/// line's start, the end excluded). Twin of the stripes pass in cells.wgsl, which takes lines
/// in another order but sums the same.
pub fn scan(
    bounds: [u32; 4],
    step: u32,
    mean: u32,
    light: impl Fn(u32, u32) -> u32,
    mut flip: impl FnMut(u32, u32, u32) -> u32,
    mut span: impl FnMut(usize, u32, [u32; 2]),
) -> Stripes {
    let [x0, y0, x1, y1] = bounds;
    let margin = hysteresis(mean);
    let mut s = Stripes {
        mean,
        ..Stripes::default()
    };
    for d in 0..2 {
        let (lines, length) = if d == 0 { (y1 - y0, x1 - x0) } else { (x1 - x0, y1 - y0) };
        for line in 0..lines.div_ceil(step) {
            // 0: neither side yet, 1: above, 2: below.
            let (mut side, mut crossings, mut first, mut last) = (0u32, 0u32, 0u32, None::<u32>);
            let mut above = 0u32;
            for i in 0..length {
                let (x, y) = if d == 0 {
                    (x0 + i, y0 + line * step)
                } else {
                    (x0 + line * step, y0 + i)
                };
                let value = light(x, y);
                let (high, low) = (value >= mean + margin, value + margin <= mean);
                if d == 0 {
                    above |= u32::from(value >= mean) << (i % 32);
                    if i % 32 == 31 || i + 1 == length {
                        s.flipped += flip(line, i / 32, above);
                        above = 0;
                    }
                    // (Without a branch: which side a row pixel falls is the picture's.)
                    let k = usize::from(value < mean);
                    let counted = u32::from(high | low);
                    s.light[k] += counted * (value / UNITS_PER_NIT);
                    s.sides[k] += counted;
                }
                let now = if high {
                    1
                } else if low {
                    2
                } else {
                    side
                };
                if side != 0 && now != side {
                    crossings += 1;
                    match last {
                        Some(previous) => {
                            let gap = i - previous;
                            s.gaps[d] += 1;
                            s.gap_sum[d] += gap;
                            s.gap_squares[d] += gap * gap;
                        }
                        None => first = i,
                    }
                    last = Some(i);
                }
                side = now;
            }
            s.lines[d] += 1;
            if d == 0 {
                s.row_pixels += length;
            }
            s.crossings[d] += crossings;
            s.crossed[d] += u32::from(crossings >= 2);
            if let (true, Some(last)) = (crossings >= 2, last) {
                let stripe = (last - first).div_ceil(crossings - 1);
                span(d, line, [first.saturating_sub(stripe), (last + stripe).min(length)]);
            }
        }
    }
    s
}

/// Each scanned row pixel's side of the mean at the frame before, a bit a pixel, laid out as
/// the shader lays them: a block's scanned rows of `words_per_row` words each, `rows` rows a
/// block.
#[derive(Clone, Debug, Default)]
pub struct Sides {
    pub words: Vec<u32>,
    pub words_per_row: u32,
    pub rows: u32,
}

impl Sides {
    /// The sides of `blocks`' pixel rows scanned every `step`th.
    pub fn new(blocks: &Blocks, step: u32) -> Self {
        let [width, height] = blocks.largest();
        Self::of(blocks.len(), width, height.div_ceil(step))
    }

    /// The sides of `count` blocks of at most `rows` rows of `width`.
    pub fn of(count: usize, width: u32, rows: u32) -> Self {
        let words_per_row = width.div_ceil(32);
        Self {
            words: vec![0; count * (rows * words_per_row) as usize],
            words_per_row,
            rows,
        }
    }

    /// Sets the sides of the block's pixels `32 word` to `32 word + 31` along its scanned row
    /// `y` to `above` (a bit a pixel, set where above); how many changed.
    pub fn flip(&mut self, block: usize, word: u32, y: u32, above: u32) -> u32 {
        let at = &mut self.words[((block as u32 * self.rows + y) * self.words_per_row + word) as usize];
        let changed = (*at ^ above).count_ones();
        *at = above;
        changed
    }
}

/// The CPU twin of the pixel pass: every block's counts of a frame's packed pixels, given the
/// frame's cells; `sides` carries the pixels' sides from frame to frame.
pub fn stripes_cpu(
    words: &[u32],
    blocks: &Blocks,
    model: &LightModel,
    cells: &[super::light::CellLight],
    sides: &mut Sides,
) -> Vec<Stripes> {
    let width = blocks.grid.width;
    let step = blocks.line_step();
    (0..blocks.len())
        .map(|b| {
            scan(
                blocks.bounds(b),
                step,
                blocks.mean(b, cells),
                |x, y| pixel_luminance(words[(y * width + x) as usize], model),
                |line, word, above| sides.flip(b, word, line, above),
                |_, _, _| {},
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stripes `period` pixels apart of light 0 and `light` cd/m².
    fn grating(period: f64, angle: f64, light: u32) -> impl Fn(u32, u32) -> u32 {
        let (c, s) = (angle.to_radians().cos(), angle.to_radians().sin());
        move |x, y| {
            let along = f64::from(x) * c + f64::from(y) * s;
            if (along / period).rem_euclid(1.0) < 0.5 {
                light * UNITS_PER_NIT
            } else {
                0
            }
        }
    }

    fn stripe_of(light: impl Fn(u32, u32) -> u32, size: u32) -> Option<Stripe> {
        let bounds = [0, 0, size, size];
        let mut sum = 0u64;
        for y in 0..size {
            for x in 0..size {
                sum += u64::from(light(x, y));
            }
        }
        let mean = (sum / u64::from(size * size)) as u32;
        scan(bounds, 1, mean, light, |_, _, _| 0, |_, _, _| {}).stripe(false, [1.0, 1.0])
    }

    #[test]
    fn a_grating_shows_its_period_and_direction() {
        for (period, angle) in [(8.0, 0.0), (12.0, 90.0), (10.0, 45.0), (16.0, 30.0)] {
            let stripe = stripe_of(grating(period, angle, 100), 80).expect("stripes");
            assert!(
                (stripe.period - period).abs() < 0.1 * period,
                "{period} {angle}: {stripe:?}"
            );
            assert!((stripe.angle - angle).abs() < 6.0, "{period} {angle}: {stripe:?}");
        }
    }

    #[test]
    fn flat_light_faint_stripes_and_noise_are_no_pattern() {
        assert_eq!(stripe_of(|_, _| 800, 64), None);
        // 15 cd/m² between the stripes: under the flash step.
        assert_eq!(stripe_of(grating(8.0, 0.0, 15), 64), None);
        let mut state = 7u32;
        let noise: Vec<u32> = (0..64 * 64)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 31) * 1600
            })
            .collect();
        assert_eq!(stripe_of(|x, y| noise[(y * 64 + x) as usize], 64), None);
    }

    #[test]
    fn blocks_cover_the_grid_and_sides_flip() {
        let blocks = Blocks::new(Grid::new(1920, 1080), BLOCK_CELLS);
        assert_eq!((blocks.columns, blocks.rows), (24, 14));
        assert_eq!(blocks.bounds(0), [0, 0, 80, 80]);
        assert_eq!(blocks.bounds(blocks.len() - 1), [1840, 1040, 1920, 1080]);
        let mut sides = Sides::new(&blocks, blocks.line_step());
        assert_eq!(sides.flip(3, 1, 7, 0b1011), 3);
        assert_eq!(sides.flip(3, 1, 7, 0b1011), 0);
        assert_eq!(sides.flip(3, 1, 7, 0b0110), 3);
        assert_eq!(sides.flip(3, 0, 7, 0b0110), 2);
    }
}
