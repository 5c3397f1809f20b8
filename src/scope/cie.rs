//! The CIE 1931 xy chromaticity scope: where each pixel's colour lies on the chromaticity
//! diagram, from the source's transfer and primaries in linear light. This holds its definition
//! in exact integers (the CPU twin of the `cie` entry of shaders/scope/scope.wgsl) and the
//! diagram it is drawn on: the spectral locus (the BT.709, P3 and BT.2020 gamuts and D65 drawn
//! within it are `colour::primaries`').
//!
//! For a pixel of b-bit codes (r′, g′, b′), counted in N×N cells over x, y in [0, 1):
//! - linear light: `table[c]`, the source's EOTF of c/(2^b−1) (PQ relative to 10000 nits, HLG
//!   scene light, SDR BT.1886), times 2^30, rounded;
//! - the three are shifted right together until the largest fits 16 bits (chromaticity does not
//!   change with intensity, and dark pixels keep their precision);
//! - X, Y, Z: the primaries' RGB → XYZ matrix times 2^14, rounded, applied to them; S = X+Y+Z;
//! - X, Y and S are shifted right together until S fits 22 bits; then i = min(N−1, ⌊X·N/S⌋),
//!   j = min(N−1, ⌊Y·N/S⌋), and the pixel counts in `counts[j·N + i]`.
//!
//! Black (all three linear values 0) has no chromaticity and is not counted.

use crate::colour::primaries::{rgb_to_xyz, D65};
use crate::colour::transfer::{bt1886_eotf, hlg_inverse_oetf, pq_eotf};
use crate::colour::{ColorVolume, Depth, Transfer};

/// The side of the diagram the player and `render` count and draw: cells of 1/256. The GPU's
/// window of 128×128 cells round the white point then spans x and y ±0.25, where nearly every
/// natural colour falls (at 512 a side, skin and foliage fall outside it, onto slow storage
/// atomics).
pub const DISPLAY_SIZE: u32 = 256;
/// The most cells a side may have (`scope --size`): N·2^22 stays within 32 bits.
pub const MAX_SIZE: u32 = 1024;
/// The default of `scope --size`.
pub const DEFAULT_SIZE: u32 = 256;
/// Linear light's scale in the table: 1.0 (the transfer's peak) is 2^30.
const LINEAR_ONE: f64 = (1u64 << 30) as f64;
/// The matrix's scale: 2^14.
const MATRIX_ONE: f64 = 16384.0;
/// Words of the GPU's table before the linear values (the matrix's 9, padded).
pub const TABLE_OFFSET: usize = 16;

/// The CIE 1931 2° observer's spectral locus, 380 to 700 nm every 5 nm (x, y). Closing it from
/// 700 nm back to 380 nm gives the line of purples.
pub const SPECTRAL_LOCUS: [[f32; 2]; 65] = [
    [0.1741, 0.0050],
    [0.1740, 0.0050],
    [0.1738, 0.0049],
    [0.1736, 0.0049],
    [0.1733, 0.0048],
    [0.1730, 0.0048],
    [0.1726, 0.0048],
    [0.1721, 0.0048],
    [0.1714, 0.0051],
    [0.1703, 0.0058],
    [0.1689, 0.0069],
    [0.1669, 0.0086],
    [0.1644, 0.0109],
    [0.1611, 0.0138],
    [0.1566, 0.0177],
    [0.1510, 0.0227],
    [0.1440, 0.0297],
    [0.1355, 0.0399],
    [0.1241, 0.0578],
    [0.1096, 0.0868],
    [0.0913, 0.1327],
    [0.0687, 0.2007],
    [0.0454, 0.2950],
    [0.0235, 0.4127],
    [0.0082, 0.5384],
    [0.0039, 0.6548],
    [0.0139, 0.7502],
    [0.0389, 0.8120],
    [0.0743, 0.8338],
    [0.1142, 0.8262],
    [0.1547, 0.8059],
    [0.1929, 0.7816],
    [0.2296, 0.7543],
    [0.2658, 0.7243],
    [0.3016, 0.6923],
    [0.3373, 0.6589],
    [0.3731, 0.6245],
    [0.4087, 0.5896],
    [0.4441, 0.5547],
    [0.4788, 0.5202],
    [0.5125, 0.4866],
    [0.5448, 0.4544],
    [0.5752, 0.4242],
    [0.6029, 0.3965],
    [0.6270, 0.3725],
    [0.6482, 0.3514],
    [0.6658, 0.3340],
    [0.6801, 0.3197],
    [0.6915, 0.3083],
    [0.7006, 0.2993],
    [0.7079, 0.2920],
    [0.7140, 0.2859],
    [0.7190, 0.2809],
    [0.7230, 0.2770],
    [0.7260, 0.2740],
    [0.7283, 0.2717],
    [0.7300, 0.2700],
    [0.7311, 0.2689],
    [0.7320, 0.2680],
    [0.7327, 0.2673],
    [0.7334, 0.2666],
    [0.7340, 0.2660],
    [0.7344, 0.2656],
    [0.7346, 0.2654],
    [0.7347, 0.2653],
];

/// What a source's pixels take to reach xy: its linear-light table and XYZ matrix, as integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chromaticity {
    /// RGB → XYZ, times 2^14, rounded.
    pub matrix: [[u32; 3]; 3],
    /// Linear light of each code, times 2^30, rounded.
    pub table: Vec<u32>,
}

impl Chromaticity {
    /// For `bits`-bit frames of a source of `volume`.
    pub fn new(volume: &ColorVolume, bits: u32) -> Self {
        let white = f64::from((1u32 << bits) - 1);
        let table = (0..(1u32 << bits))
            .map(|c| {
                let signal = (f64::from(c) / white) as f32;
                let light = match volume.transfer {
                    Transfer::Pq => f64::from(pq_eotf(signal)) / 10000.0,
                    Transfer::Hlg => f64::from(hlg_inverse_oetf(signal)),
                    Transfer::Sdr => f64::from(bt1886_eotf(signal)),
                };
                (light.clamp(0.0, 1.0) * LINEAR_ONE).round() as u32
            })
            .collect();
        let matrix = rgb_to_xyz(volume.primaries).map(|row| row.map(|v| (v * MATRIX_ONE).round() as u32));
        Self { matrix, table }
    }

    /// The GPU's layout: the matrix's nine words row by row, padding to `TABLE_OFFSET`, then
    /// the table.
    pub fn words(&self) -> Vec<u32> {
        let mut words = vec![0; TABLE_OFFSET];
        for (k, v) in self.matrix.iter().flatten().enumerate() {
            words[k] = *v;
        }
        words.extend_from_slice(&self.table);
        words
    }

    /// The cell (i, j) of a pixel's codes on an `n`×`n` diagram, or None for black.
    #[inline]
    pub fn cell(&self, rgb: [u32; 3], n: u32) -> Option<(u32, u32)> {
        let lin = rgb.map(|c| self.table[c as usize]);
        let top = lin[0].max(lin[1]).max(lin[2]);
        if top == 0 {
            return None;
        }
        let shift = (31 - top.leading_zeros()).max(15) - 15;
        let lin = lin.map(|v| v >> shift);
        let [x, y, z] = self
            .matrix
            .map(|row| row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]);
        let sum = x + y + z;
        let shift = (31 - sum.leading_zeros()).max(21) - 21;
        let (x, y, sum) = (x >> shift, y >> shift, sum >> shift);
        Some(((x * n / sum).min(n - 1), (y * n / sum).min(n - 1)))
    }
}

/// CPU reference: the N×N counts (`counts[j·N + i]`) of packed pixels.
pub fn cie(words: &[u32], depth: Depth, chromaticity: &Chromaticity, n: u32) -> Vec<u32> {
    let mut counts = vec![0u32; (n * n) as usize];
    for &word in words {
        if let Some((i, j)) = chromaticity.cell(depth.unpack(word), n) {
            counts[(j * n + i) as usize] += 1;
        }
    }
    counts
}

/// The cell the white point falls in on an `n`×`n` diagram: the GPU keeps the cells round it
/// in workgroup memory.
pub fn white_cell(n: u32) -> (u32, u32) {
    ((D65[0] * f64::from(n)) as u32, (D65[1] * f64::from(n)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::primaries::primaries_xy;
    use crate::colour::Primaries;

    fn sdr(primaries: Primaries) -> ColorVolume {
        ColorVolume {
            primaries,
            ..ColorVolume::default()
        }
    }

    #[test]
    fn primaries_and_white_land_on_their_coordinates() {
        for primaries in [Primaries::Bt709, Primaries::P3, Primaries::Bt2020] {
            for bits in [8, 10] {
                let c = Chromaticity::new(&sdr(primaries), bits);
                let top = (1 << bits) - 1;
                let xy = primaries_xy(primaries);
                // Sizes where no coordinate falls within the matrix's rounding of a cell's edge
                // (0.64·1000 is an edge itself).
                for n in [256, 512] {
                    let cell = |xy: [f64; 2]| ((xy[0] * n as f64) as u32, (xy[1] * n as f64) as u32);
                    assert_eq!(c.cell([top, 0, 0], n), Some(cell(xy[0])), "{primaries:?} red, {n}");
                    assert_eq!(c.cell([0, top, 0], n), Some(cell(xy[1])), "{primaries:?} green, {n}");
                    assert_eq!(c.cell([0, 0, top], n), Some(cell(xy[2])), "{primaries:?} blue, {n}");
                    // Any grey is the white point, however dark.
                    for v in [1, 2, 17, top / 2, top] {
                        assert_eq!(c.cell([v, v, v], n), Some(cell(D65)), "{primaries:?} grey {v}, {n}");
                    }
                    assert_eq!(c.cell([0, 0, 0], n), None);
                }
            }
        }
    }

    #[test]
    fn transfers_keep_greys_white_and_mix_in_linear_light() {
        for transfer in [Transfer::Sdr, Transfer::Pq, Transfer::Hlg] {
            let volume = ColorVolume {
                transfer,
                primaries: Primaries::Bt2020,
                peak_nits: None,
            };
            let c = Chromaticity::new(&volume, 10);
            assert_eq!(c.table[0], 0);
            assert!(c.table.windows(2).all(|w| w[0] <= w[1]), "{transfer:?} rises");
            assert_eq!(c.cell([600, 600, 600], 256), Some(white_cell(256)));
        }
        // Half-signal red and full green in SDR: red's light is 0.5^2.4 of green's, so the
        // colour sits on the red-green edge, nearer green than the signal's midpoint would.
        let c = Chromaticity::new(&sdr(Primaries::Bt709), 8);
        let (i, j) = c.cell([128, 255, 0], 1000).unwrap();
        let m = rgb_to_xyz(Primaries::Bt709);
        let r = (128.0f64 / 255.0).powf(2.4);
        let xyz = m.map(|row| row[0] * r + row[1]);
        let s: f64 = xyz.iter().sum();
        assert_eq!((i, j), ((xyz[0] / s * 1000.0) as u32, (xyz[1] / s * 1000.0) as u32));
    }

    #[test]
    fn counts_hold_every_pixel_but_black() {
        let px = |r: u8, g: u8, b: u8| u32::from_le_bytes([r, g, b, 255]);
        let words = [px(0, 0, 0), px(255, 0, 0), px(255, 0, 0), px(90, 90, 90), px(0, 0, 255)];
        let c = Chromaticity::new(&sdr(Primaries::Bt709), 8);
        let counts = cie(&words, Depth::Eight, &c, 64);
        assert_eq!(counts.iter().sum::<u32>(), 4);
        let at = |xy: [f64; 2]| ((xy[1] * 64.0) as usize) * 64 + (xy[0] * 64.0) as usize;
        assert_eq!(counts[at([0.64, 0.33])], 2);
        assert_eq!(counts[at([0.15, 0.06])], 1);
        assert_eq!(counts[at(D65)], 1);
    }

    #[test]
    fn the_locus_holds_the_gamuts() {
        // BT.709's primaries lie inside the horseshoe; P3's red and BT.2020's are spectral
        // colours, on it.
        let inside = |p: [f64; 2]| {
            let mut inside = false;
            let n = SPECTRAL_LOCUS.len();
            for k in 0..n {
                let a = SPECTRAL_LOCUS[k].map(f64::from);
                let b = SPECTRAL_LOCUS[(k + 1) % n].map(f64::from);
                if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]) {
                    inside = !inside;
                }
            }
            inside
        };
        assert!(inside(D65));
        for p in primaries_xy(Primaries::Bt709) {
            assert!(inside(p), "{p:?}");
        }
        let p3 = primaries_xy(Primaries::P3);
        assert!(inside(p3[1]) && inside(p3[2]));
        assert!(!inside([0.05, 0.05]) && !inside([0.6, 0.6]));
    }
}
