//! Each pixel's light as a viewer's display gives it, in integers both the GPU pass and this
//! CPU twin compute alike: a table per code (of the converted R'G'B', at 8 or 10 bits) to linear
//! light in sixteenths of a cd/m² (for HLG, scene light and then the OOTF on the pixel's own
//! luminance, as BT.2100 has it), the luminance of the three (BT.709 or BT.2020 weights), and
//! the red that counts for red flashes (the excess of red over green and blue where red makes
//! 80% of the light, as the Harding-Binnie definition WCAG gave has it), with the linear R, G
//! and B for WCAG 2.2's chromaticity; all summed over the cells of a grid.

use super::Standard;
use crate::colour::primaries::Primaries;
use crate::colour::transfer::{self, Transfer};

/// Light is counted in sixteenths of a cd/m².
pub const UNITS_PER_NIT: u32 = 16;
/// The display white the SDR standards take (cd/m²): BT.1702's 200, WCAG's relative 1.0 as 200.
pub const SDR_WHITE: f64 = 200.0;
/// An HLG display's peak (BT.1702's note: 1000 cd/m²).
pub const HLG_PEAK: f32 = 1000.0;
/// HLG's scene light in the table: 1.0 is this many units.
const SCENE_UNITS: f64 = 65_536.0;
/// HLG's OOTF gain is looked up by the scene luminance in steps of 2^GAIN_STEP_SHIFT units
/// (`GAIN_STEPS` steps from black to 1.0); the shader is made with both.
pub const GAIN_STEP_SHIFT: u32 = 4;
pub const GAIN_STEPS: u32 = 4096;
/// A change of at least this (cd/m²) where the darker state is under `DARK_LIMIT` is a transition.
pub const STEP: f64 = 20.0;
pub const DARK_LIMIT: f64 = 160.0;
/// Above `DARK_LIMIT`, HDR's step: a Michelson contrast over 1/17.
pub const MICHELSON: f64 = 1.0 / 17.0;
/// Whether light going from `a` to `b` cd/m² (either way) changes as much as a flash's
/// transition must: by `STEP` where the darker is under `DARK_LIMIT`; above it, for HDR, by
/// more than `MICHELSON` contrast.
pub fn is_change(hdr: bool, a: f64, b: f64) -> bool {
    let (low, high) = if a < b { (a, b) } else { (b, a) };
    if low < DARK_LIMIT {
        return high - low >= STEP;
    }
    hdr && (high - low) / (high + low) > MICHELSON
}

/// A cell's sums: its pixels' luminance, their counted red, and their linear R, G and B (each
/// in sixteenths of a cd/m²).
pub type CellLight = [u32; CELL_WORDS];
pub const CELL_WORDS: usize = 5;

/// Columns of the grid; rows follow the picture's shape.
pub const GRID_COLUMNS: u32 = 96;

/// The table of a code to its light, and the luminance weights (of 10 000).
#[derive(Clone, Debug, PartialEq)]
pub struct LightModel {
    pub bits: u32,
    /// Per code, sixteenths of a cd/m²; for HLG, the scene's light (of `SCENE_UNITS`).
    pub table: Vec<u32>,
    pub weights: [u32; 3],
    /// HLG only (empty otherwise): the OOTF's gain α·Ys^(γ−1) by the scene luminance Ys in
    /// steps (`GAIN_STEPS` + 1 of them), in sixteenths of a cd/m² of 2^16: a channel's display
    /// light is its scene light times the gain of its pixel's luminance, over 2^16.
    pub gain: Vec<u32>,
}

/// A gamut's luminance weights, of 10 000 (its white adapted to D65, as it is shown): BT.709's
/// 2126, 7152, 722; BT.2020's 2627, 6780, 593; Display P3's 2290, 6917, 793. Rounded, the
/// green taking what makes them 10 000.
fn luminance_weights(primaries: Primaries) -> [u32; 3] {
    let row = crate::colour::primaries::gamut_rows(primaries)[3];
    let [r, b] = [row[0], row[2]].map(|w| (f64::from(w) * 10_000.0).round() as u32);
    [r, 10_000 - r - b, b]
}

impl LightModel {
    /// The display model for frames of `bits` whose signal is `transfer` in `primaries`, as
    /// `standard` takes it.
    pub fn new(standard: Standard, transfer: Transfer, primaries: Primaries, bits: u32) -> Self {
        let top = (1u32 << bits) - 1;
        // Each code's units: the display's light in sixteenths of a cd/m², or for HLG the
        // scene's light (the OOTF takes the pixel's luminance: `pixel_channels`).
        let per_nit = f64::from(UNITS_PER_NIT);
        let units = |v: f64| -> f64 {
            match (transfer, standard) {
                (Transfer::Pq, _) => f64::from(transfer::pq_eotf(v as f32)) * per_nit,
                (Transfer::Hlg, _) => f64::from(transfer::hlg_inverse_oetf(v as f32)) * SCENE_UNITS,
                (Transfer::Sdr, Standard::Wcag) => {
                    let linear = if v <= 0.04045 {
                        v / 12.92
                    } else {
                        ((v + 0.055) / 1.055).powf(2.4)
                    };
                    SDR_WHITE * linear * per_nit
                }
                (Transfer::Sdr, _) => SDR_WHITE * v.powf(2.4) * per_nit,
            }
        };
        let table = (0..=top)
            .map(|code| units(f64::from(code) / f64::from(top)).round() as u32)
            .collect();
        let weights = luminance_weights(primaries);
        let gain = match transfer {
            Transfer::Hlg => {
                let gamma = f64::from(transfer::hlg_system_gamma(HLG_PEAK));
                (0..=GAIN_STEPS)
                    .map(|step| {
                        let luminance = f64::from(step) / f64::from(GAIN_STEPS);
                        (f64::from(HLG_PEAK) * luminance.powf(gamma - 1.0) * per_nit).round() as u32
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Self {
            bits,
            table,
            weights,
            gain,
        }
    }
}

/// The constants the photosensitivity shader (shaders/pse/cells.wgsl) is made with: the bits
/// of a code (8 or 10), whether the signal is HLG (the table's codes are the scene's light, the
/// OOTF's gains after them), whether rows and cells start on multiples of four pixels, and
/// the gains' steps.
pub fn shader_header(bits: u32, hlg: bool, quads: bool) -> crate::gpu::shaders::Header {
    crate::gpu::shaders::Header::new(256)
        .with("BITS", bits)
        .with("HLG", u32::from(hlg))
        .with("QUADS", u32::from(quads))
        .with("GAIN_STEP_SHIFT", GAIN_STEP_SHIFT)
        .with("GAIN_STEPS", GAIN_STEPS)
}

/// A packed pixel's linear R, G and B (sixteenths of a cd/m²): twin of `pixel_channels` in
/// shaders/pse/cells.wgsl.
pub fn pixel_channels(word: u32, model: &LightModel) -> [u32; 3] {
    let (mask, step) = if model.bits == 10 { (0x3ff, 10) } else { (0xff, 8) };
    let code = |i: u32| (word >> (step * i)) & mask;
    let rgb = [0, 1, 2].map(|i| model.table[code(i) as usize]);
    if model.gain.is_empty() {
        return rgb;
    }
    // HLG: the scene's luminance, and each channel through the OOTF's gain for it (in 32 bits:
    // scene light ≤ 2^16, gain ≤ 16 000).
    let step = (luminance_of(rgb, model) >> GAIN_STEP_SHIFT).min(GAIN_STEPS);
    let gain = model.gain[step as usize];
    rgb.map(|c| (c * gain) >> 16)
}

/// A packed pixel's luminance (sixteenths of a cd/m²): twin of `pixel_luminance` in
/// shaders/pse/cells.wgsl.
pub fn pixel_luminance(word: u32, model: &LightModel) -> u32 {
    luminance_of(pixel_channels(word, model), model)
}

/// The grid a picture of `width` x `height` is cut into: `GRID_COLUMNS` columns (fewer for a
/// narrow picture), rows as near square as the shape allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub width: u32,
    pub height: u32,
    pub columns: u32,
    pub rows: u32,
}

impl Grid {
    /// Whether the picture's rows and every cell start on a multiple of four pixels (its width
    /// and its cells' a multiple of four): the pass then reads four pixels a load.
    pub fn in_quads(&self) -> bool {
        self.width % 4 == 0 && self.width % self.columns == 0 && (self.width / self.columns) % 4 == 0
    }

    pub fn new(width: u32, height: u32) -> Self {
        let columns = GRID_COLUMNS.min(width).max(1);
        let rows =
            ((f64::from(columns) * f64::from(height) / f64::from(width.max(1))).round() as u32).clamp(1, height.max(1));
        Self {
            width,
            height,
            columns,
            rows,
        }
    }

    pub fn cells(&self) -> usize {
        (self.columns * self.rows) as usize
    }

    /// The cell pixel (x, y) is in.
    pub fn cell_of(&self, x: u32, y: u32) -> usize {
        let column = (u64::from(x) * u64::from(self.columns) / u64::from(self.width)) as u32;
        let row = (u64::from(y) * u64::from(self.rows) / u64::from(self.height)) as u32;
        (row * self.columns + column) as usize
    }

    /// The pixels of cell `i`: its first column and row, and one past its last.
    pub fn bounds(&self, i: usize) -> [u32; 4] {
        let (column, row) = (i as u32 % self.columns, i as u32 / self.columns);
        // The first x whose cell is `column`: ceil(column * width / columns).
        let start = |n: u32, size: u32, parts: u32| (u64::from(n) * u64::from(size)).div_ceil(u64::from(parts)) as u32;
        [
            start(column, self.width, self.columns),
            start(row, self.height, self.rows),
            start(column + 1, self.width, self.columns),
            start(row + 1, self.height, self.rows),
        ]
    }

    /// Pixels in cell `i`.
    pub fn pixels(&self, i: usize) -> u64 {
        let [x0, y0, x1, y1] = self.bounds(i);
        u64::from(x1 - x0) * u64::from(y1 - y0)
    }
}

/// The CPU twin: each cell's sums (`CellLight`), from a frame's packed pixels.
pub fn cells_cpu(words: &[u32], grid: &Grid, model: &LightModel) -> Vec<CellLight> {
    let mut cells = vec![[0u32; CELL_WORDS]; grid.cells()];
    for y in 0..grid.height {
        for x in 0..grid.width {
            let word = words[(y * grid.width + x) as usize];
            let [r, g, b] = pixel_channels(word, model);
            let cell = &mut cells[grid.cell_of(x, y)];
            for (sum, value) in cell[1..].iter_mut().zip([red_of([r, g, b]), r, g, b]) {
                *sum = sum.wrapping_add(value);
            }
        }
    }
    for cell in &mut cells {
        cell[0] = luminance_of([cell[2], cell[3], cell[4]], model);
    }
    cells
}

/// The luminance of linear R, G and B (or of their sums: a cell's luminance is its summed
/// channels' luminance, not the sum of its pixels' rounded ones).
pub fn luminance_of(rgb: [u32; 3], model: &LightModel) -> u32 {
    let weighted: u64 = rgb
        .iter()
        .zip(model.weights)
        .map(|(&c, w)| u64::from(c) * u64::from(w))
        .sum();
    (weighted / 10_000) as u32
}

/// The red a pixel counts for red flashes: the excess of red over green and blue where red
/// makes 80% of the light (5r ≥ 4(r + g + b), i.e. r ≥ 4(g + b)). Twin of `red_of` in cells.wgsl.
pub fn red_of([r, g, b]: [u32; 3]) -> u32 {
    let others = g + b;
    if r > 0 && u64::from(r) >= 4 * u64::from(others) {
        r - others
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luminance_weights_are_each_gamuts_own() {
        assert_eq!(luminance_weights(Primaries::Bt709), [2126, 7152, 722]);
        assert_eq!(luminance_weights(Primaries::Bt2020), [2627, 6780, 593]);
        assert_eq!(luminance_weights(Primaries::P3), [2290, 6917, 793]);
        for p in [Primaries::DciP3, Primaries::Film, Primaries::Bt470m, Primaries::Ebu3213] {
            assert_eq!(luminance_weights(p).iter().sum::<u32>(), 10_000, "{p:?}");
        }
    }

    #[test]
    fn the_shaders_validation_makes_the_pass_with_its_own_constants() {
        for (bits, hlg, quads) in [
            (8, false, false),
            (10, false, true),
            (10, true, false),
            (10, true, true),
        ] {
            assert_eq!(
                format!("{:?}", shader_header(bits, hlg, quads)),
                format!("{:?}", crate::gpu::shaders::pse_header(bits, hlg, quads))
            );
        }
    }

    #[test]
    fn sdr_light_is_bt1886_at_200_nits_and_wcag_is_srgb() {
        let tv = LightModel::new(Standard::Bt1702, Transfer::Sdr, Primaries::Bt709, 8);
        assert_eq!(tv.table[255], 200 * UNITS_PER_NIT);
        assert_eq!(tv.table[0], 0);
        // Mid grey: 200 * 0.5^2.4 = 37.9 cd/m².
        assert_eq!(
            tv.table[128],
            (200.0 * (128.0f64 / 255.0).powf(2.4) * 16.0).round() as u32
        );
        let web = LightModel::new(Standard::Wcag, Transfer::Sdr, Primaries::Bt709, 8);
        assert_eq!(web.table[10], (200.0 * (10.0 / 255.0) / 12.92 * 16.0f64).round() as u32);
        // A grey's luminance is its channels' light; pure red is all red.
        let grey = 128 | 128 << 8 | 128 << 16;
        assert_eq!(
            (pixel_luminance(grey, &tv), red_of(pixel_channels(grey, &tv))),
            (tv.table[128], 0)
        );
        assert_eq!(
            (pixel_luminance(255, &tv), red_of(pixel_channels(255, &tv))),
            (2126 * 3200 / 10_000, 3200)
        );
        let pq = LightModel::new(Standard::Bt1702, Transfer::Pq, Primaries::Bt2020, 10);
        assert_eq!(pq.table[1023], 10_000 * UNITS_PER_NIT);
    }

    #[test]
    fn hlg_light_is_the_ootf_of_each_pixels_own_scene_luminance() {
        let hlg = LightModel::new(Standard::Bt1702, Transfer::Hlg, Primaries::Bt2020, 10);
        let scene = |code: u32| f64::from(transfer::hlg_inverse_oetf(code as f32 / 1023.0));
        let nits = |word: u32| f64::from(pixel_luminance(word, &hlg)) / 16.0;
        // A grey: 1000·Ys^1.2, white 1000 cd/m².
        let grey = |c: u32| c | c << 10 | c << 20;
        assert_eq!(pixel_luminance(grey(1023), &hlg), 1000 * UNITS_PER_NIT);
        let expected = 1000.0 * scene(600).powf(1.2);
        assert!(
            (nits(grey(600)) - expected).abs() < 0.1,
            "{} {expected}",
            nits(grey(600))
        );
        // Blue alone: Ys is 0.0593 of its light, and the OOTF's gain that of Ys, not of the
        // channel (1000·(0.0593·Es)^1.2, 0.568 of 0.0593·1000·Es^1.2).
        let blue = 904 << 20;
        let expected = 1000.0 * (0.0593 * scene(904)).powf(1.2);
        assert!(
            (nits(blue) - expected).abs() < 0.02 * expected,
            "{} {expected}",
            nits(blue)
        );
        assert!((nits(blue) - 15.85).abs() < 0.1, "{}", nits(blue));
    }

    #[test]
    fn the_grid_covers_every_pixel_once() {
        for (w, h) in [(1920, 1080), (720, 576), (33, 17), (3840, 2160)] {
            let grid = Grid::new(w, h);
            let total: u64 = (0..grid.cells()).map(|i| grid.pixels(i)).sum();
            assert_eq!(total, u64::from(w) * u64::from(h));
            for i in [0, grid.cells() / 2, grid.cells() - 1] {
                let [x0, y0, x1, y1] = grid.bounds(i);
                assert_eq!(grid.cell_of(x0, y0), i);
                assert_eq!(grid.cell_of(x1 - 1, y1 - 1), i);
            }
        }
        assert_eq!((Grid::new(1920, 1080).columns, Grid::new(1920, 1080).rows), (96, 54));
    }
}
