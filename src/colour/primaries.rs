//! Colour primaries and white: the gamut a stream's R'G'B' is in, the chromaticities of its
//! primaries and of D65, the RGB → XYZ matrix they give, and the rows that take linear RGB of
//! one gamut to BT.709's.

use super::transfer::Transfer;

/// The colour primaries of a stream: the gamut its R'G'B' is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Primaries {
    /// BT.709 / sRGB, and the close BT.601 sets.
    #[default]
    Bt709,
    /// Display P3 (SMPTE EG 432-1): DCI-P3's primaries with the D65 white.
    P3,
    Bt2020,
}

/// What a stream says about its light: transfer, primaries, and the brightest light it holds
/// where its side data says so.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ColorVolume {
    pub transfer: Transfer,
    pub primaries: Primaries,
    /// Content light level (MaxCLL) or the mastering display's peak, in nits.
    pub peak_nits: Option<f32>,
}

impl Primaries {
    /// Its name for people: `BT.709`, `Display P3`, `BT.2020`.
    pub fn label(self) -> &'static str {
        match self {
            Primaries::Bt709 => "BT.709",
            Primaries::P3 => "Display P3",
            Primaries::Bt2020 => "BT.2020",
        }
    }

    /// Its name as FFmpeg tags a stream with it (`color_primaries`).
    pub fn tag(self) -> &'static str {
        match self {
            Primaries::Bt709 => "bt709",
            Primaries::P3 => "smpte432",
            Primaries::Bt2020 => "bt2020",
        }
    }
}

impl ColorVolume {
    pub fn is_hdr(&self) -> bool {
        self.transfer != Transfer::Sdr
    }
}

/// D65, the white of BT.709, P3-D65 and BT.2020.
pub const D65: [f64; 2] = [0.3127, 0.3290];

/// The red, green and blue primaries (x, y) of a gamut.
pub fn primaries_xy(primaries: Primaries) -> [[f64; 2]; 3] {
    match primaries {
        Primaries::Bt709 => [[0.640, 0.330], [0.300, 0.600], [0.150, 0.060]],
        Primaries::P3 => [[0.680, 0.320], [0.265, 0.690], [0.150, 0.060]],
        Primaries::Bt2020 => [[0.708, 0.292], [0.170, 0.797], [0.131, 0.046]],
    }
}

fn xyz_of(xy: [f64; 2]) -> [f64; 3] {
    [xy[0] / xy[1], 1.0, (1.0 - xy[0] - xy[1]) / xy[1]]
}

/// The RGB → XYZ matrix of a gamut with D65 white (rows X, Y, Z): the primaries' XYZ scaled so
/// that R = G = B = 1 gives the white with Y = 1.
pub fn rgb_to_xyz(primaries: Primaries) -> [[f64; 3]; 3] {
    rgb_to_xyz_of(primaries_xy(primaries))
}

/// The RGB → XYZ matrix of a gamut of primaries `xy` (red, green, blue) and the D65 white.
pub fn rgb_to_xyz_of(xy: [[f64; 2]; 3]) -> [[f64; 3]; 3] {
    let p = xy.map(xyz_of);
    // Columns are the primaries: solve P·s = W.
    let m = [
        [p[0][0], p[1][0], p[2][0]],
        [p[0][1], p[1][1], p[2][1]],
        [p[0][2], p[1][2], p[2][2]],
    ];
    let s = solve(m, xyz_of(D65));
    m.map(|row| [row[0] * s[0], row[1] * s[1], row[2] * s[2]])
}

/// x of `m`·x = `b` by Cramer's rule (the primaries are never collinear).
fn solve(m: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    std::array::from_fn(|k| {
        let mut mk = m;
        for (row, &v) in mk.iter_mut().zip(&b) {
            row[k] = v;
        }
        det(mk) / d
    })
}

/// The rows that take linear RGB of `primaries` to BT.709's (the gamut mark's
/// `MarkParams::gamut_rows`, the picture's `to_bt709`): BT.709's XYZ → RGB after the source's
/// RGB → XYZ, and the source's luminance row.
pub fn gamut_rows(primaries: Primaries) -> [[f32; 4]; 4] {
    let to_xyz = rgb_to_xyz(primaries);
    let to_709 = invert(rgb_to_xyz(Primaries::Bt709));
    let mut rows = [[0.0f32; 4]; 4];
    for (r, row) in to_709.iter().enumerate() {
        for c in 0..3 {
            rows[r][c] = (0..3).map(|k| row[k] * to_xyz[k][c]).sum::<f64>() as f32;
        }
    }
    rows[3] = [to_xyz[1][0] as f32, to_xyz[1][1] as f32, to_xyz[1][2] as f32, 0.0];
    rows
}

/// The rows that take linear RGB of primaries `from` to primaries `to` (both with the D65
/// white): `to`'s XYZ → RGB after `from`'s RGB → XYZ.
pub fn rows_between(from: [[f64; 2]; 3], to: [[f64; 2]; 3]) -> [[f64; 3]; 3] {
    let to_xyz = rgb_to_xyz_of(from);
    let from_xyz = invert(rgb_to_xyz_of(to));
    from_xyz.map(|row| std::array::from_fn(|c| (0..3).map(|k| row[k] * to_xyz[k][c]).sum()))
}

/// The inverse of a colour conversion's rows (the first three of `gamut_rows`): the other way.
pub fn invert_rows(rows: [[f32; 4]; 3]) -> [[f32; 4]; 3] {
    let inverse = invert(rows.map(|row| [0, 1, 2].map(|c| f64::from(row[c]))));
    inverse.map(|row| [row[0] as f32, row[1] as f32, row[2] as f32, 0.0])
}

/// The inverse of a 3×3 matrix (an RGB → XYZ one: never singular), by its adjugate.
fn invert(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let cofactor = |r: usize, c: usize| {
        let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
        let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
        m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
    };
    let det: f64 = (0..3).map(|c| m[0][c] * cofactor(0, c)).sum();
    std::array::from_fn(|r| std::array::from_fn(|c| cofactor(c, r) / det))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bt709_matrix_is_the_standard_one() {
        // BT.709 / sRGB's RGB → XYZ, as IEC 61966-2-1 gives it to four places.
        let expected = [
            [0.4124, 0.3576, 0.1805],
            [0.2126, 0.7152, 0.0722],
            [0.0193, 0.1192, 0.9505],
        ];
        let m = rgb_to_xyz(Primaries::Bt709);
        for (row, want) in m.iter().zip(expected) {
            for (v, w) in row.iter().zip(want) {
                assert!((v - w).abs() < 6e-5, "{m:?}");
            }
        }
        // BT.2020's luminance row is its luma weights.
        let y = rgb_to_xyz(Primaries::Bt2020)[1];
        assert!((y[0] - 0.2627).abs() < 1e-4 && (y[1] - 0.6780).abs() < 1e-4 && (y[2] - 0.0593).abs() < 1e-4);
    }

    #[test]
    fn the_gamut_rows_take_bt2020_to_bt709_as_itu_r_bt2087_gives_them() {
        // BT.2087's matrix (to four places) and BT.2020's luminance weights.
        let rows = gamut_rows(Primaries::Bt2020);
        let expected = [
            [1.6605, -0.5876, -0.0728],
            [-0.1246, 1.1329, -0.0083],
            [-0.0182, -0.1006, 1.1187],
            [0.2627, 0.6780, 0.0593],
        ];
        for (row, want) in rows.iter().zip(expected) {
            for (got, want) in row.iter().zip(want) {
                assert!((got - want).abs() < 1.5e-4, "{rows:?}");
            }
        }
        // BT.709 to itself: the identity.
        let identity = gamut_rows(Primaries::Bt709);
        for (r, row) in identity.iter().take(3).enumerate() {
            for (c, v) in row.iter().take(3).enumerate() {
                assert!((v - f32::from(u8::from(r == c))).abs() < 1e-6, "{identity:?}");
            }
        }
    }
}
