//! Colour primaries and white: the gamut a stream's R'G'B' is in, the chromaticities of its
//! primaries and its white, the RGB → XYZ matrix they give, and the rows that take linear RGB of
//! one gamut to BT.709's (a white other than D65 adapted to it, as a display shows it: Bradford's
//! transform, mpv's and libplacebo's relative intent).

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
    /// DCI-P3 (SMPTE RP 431-2): the cinema's primaries and its own white (x 0.314, y 0.351).
    DciP3,
    /// Generic film (FFmpeg's `film`, H.273's 8): colour filters under Illuminant C.
    Film,
    /// BT.470 System M (FFmpeg's `bt470m`, H.273's 4): NTSC's 1953 primaries, Illuminant C.
    Bt470m,
    /// EBU Tech. 3213-E (FFmpeg's `ebu3213`, JEDEC P22, H.273's 22): the EBU's phosphors, D65.
    Ebu3213,
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
            Primaries::DciP3 => "DCI-P3",
            Primaries::Film => "film (Illuminant C)",
            Primaries::Bt470m => "BT.470 System M",
            Primaries::Ebu3213 => "EBU 3213",
        }
    }

    /// Its name as FFmpeg tags a stream with it (`color_primaries`).
    pub fn tag(self) -> &'static str {
        match self {
            Primaries::Bt709 => "bt709",
            Primaries::P3 => "smpte432",
            Primaries::Bt2020 => "bt2020",
            Primaries::DciP3 => "smpte431",
            Primaries::Film => "film",
            Primaries::Bt470m => "bt470m",
            Primaries::Ebu3213 => "ebu3213",
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

/// The white (x, y) of a gamut: R = G = B = 1.
pub fn white(primaries: Primaries) -> [f64; 2] {
    match primaries {
        Primaries::DciP3 => [0.314, 0.351],
        // CIE Illuminant C.
        Primaries::Film | Primaries::Bt470m => [0.310, 0.316],
        Primaries::Bt709 | Primaries::P3 | Primaries::Bt2020 | Primaries::Ebu3213 => D65,
    }
}

/// The red, green and blue primaries (x, y) of a gamut.
pub fn primaries_xy(primaries: Primaries) -> [[f64; 2]; 3] {
    match primaries {
        Primaries::Bt709 => [[0.640, 0.330], [0.300, 0.600], [0.150, 0.060]],
        Primaries::P3 => [[0.680, 0.320], [0.265, 0.690], [0.150, 0.060]],
        Primaries::Bt2020 => [[0.708, 0.292], [0.170, 0.797], [0.131, 0.046]],
        Primaries::DciP3 => [[0.680, 0.320], [0.265, 0.690], [0.150, 0.060]],
        Primaries::Film => [[0.681, 0.319], [0.243, 0.692], [0.145, 0.049]],
        Primaries::Bt470m => [[0.670, 0.330], [0.210, 0.710], [0.140, 0.080]],
        Primaries::Ebu3213 => [[0.630, 0.340], [0.295, 0.605], [0.155, 0.077]],
    }
}

fn xyz_of(xy: [f64; 2]) -> [f64; 3] {
    [xy[0] / xy[1], 1.0, (1.0 - xy[0] - xy[1]) / xy[1]]
}

/// The RGB → XYZ matrix of a gamut with its own white (rows X, Y, Z): the primaries' XYZ
/// scaled so that R = G = B = 1 gives the white with Y = 1. (The light a signal holds, as the
/// CIE diagram plots it: DCI-P3's white where it lies, not at D65.)
pub fn rgb_to_xyz(primaries: Primaries) -> [[f64; 3]; 3] {
    rgb_to_xyz_white(primaries_xy(primaries), white(primaries))
}

/// The RGB → XYZ matrix of a gamut of primaries `xy` (red, green, blue) and the D65 white.
pub fn rgb_to_xyz_of(xy: [[f64; 2]; 3]) -> [[f64; 3]; 3] {
    rgb_to_xyz_white(xy, D65)
}

/// The RGB → XYZ matrix of a gamut of primaries `xy` and white `white`.
fn rgb_to_xyz_white(xy: [[f64; 2]; 3], white: [f64; 2]) -> [[f64; 3]; 3] {
    let p = xy.map(xyz_of);
    // Columns are the primaries: solve P·s = W.
    let m = [
        [p[0][0], p[1][0], p[2][0]],
        [p[0][1], p[1][1], p[2][1]],
        [p[0][2], p[1][2], p[2][2]],
    ];
    let s = solve(m, xyz_of(white));
    m.map(|row| [row[0] * s[0], row[1] * s[1], row[2] * s[2]])
}

/// The RGB → XYZ matrix of a gamut as a display shows it: its white adapted to D65
/// (`to_d65` after `rgb_to_xyz`), so that its white is the display's.
pub fn rgb_to_display_xyz(primaries: Primaries) -> [[f64; 3]; 3] {
    product(to_d65(white(primaries)), rgb_to_xyz(primaries))
}

/// Bradford's chromatic adaptation from white `from` to D65, on XYZ: the cone responses scaled
/// by the two whites' (the identity where `from` is D65).
fn to_d65(from: [f64; 2]) -> [[f64; 3]; 3] {
    const BRADFORD: [[f64; 3]; 3] = [
        [0.8951, 0.2664, -0.1614],
        [-0.7502, 1.7135, 0.0367],
        [0.0389, -0.0685, 1.0296],
    ];
    let cones = |xy: [f64; 2]| {
        let xyz = xyz_of(xy);
        BRADFORD.map(|row| (0..3).map(|k| row[k] * xyz[k]).sum::<f64>())
    };
    let (source, target) = (cones(from), cones(D65));
    let scaled = std::array::from_fn(|r| BRADFORD[r].map(|v| v * target[r] / source[r]));
    product(invert(BRADFORD), scaled)
}

/// The product `a`·`b` of two 3×3 matrices.
fn product(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| a[r][k] * b[k][c]).sum()))
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
/// RGB → XYZ (its white adapted to D65: the source's white is BT.709's), and the source's
/// luminance row (so adapted: its white's is 1).
pub fn gamut_rows(primaries: Primaries) -> [[f32; 4]; 4] {
    let to_xyz = rgb_to_display_xyz(primaries);
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
        assert_eq!(
            to_d65(D65).map(|row| row.map(|v| (v * 1e12).round() / 1e12)),
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        );
        let identity = gamut_rows(Primaries::Bt709);
        for (r, row) in identity.iter().take(3).enumerate() {
            for (c, v) in row.iter().take(3).enumerate() {
                assert!((v - f32::from(u8::from(r == c))).abs() < 1e-6, "{identity:?}");
            }
        }
    }

    #[test]
    fn dci_p3_film_bt470m_and_ebu3213_come_to_bt709_with_their_white_adapted_as_colour_science_adapts_it() {
        // colour-science 0.4's `matrix_RGB_to_RGB(..., chromatic_adaptation_transform=
        // "Bradford")` into ITU-R BT.709: DCI-P3 from its own colourspace, film and BT.470 M
        // from their primaries and Illuminant C, EBU 3213 from its primaries and D65. Their
        // white comes out BT.709's white.
        let expected = [
            (
                Primaries::DciP3,
                [
                    [1.1575164062, -0.1549623781, -0.0025540281],
                    [-0.0415000715, 1.0455679231, -0.0040678515],
                    [-0.018050039, -0.0785782727, 1.0966283116],
                ],
            ),
            (
                Primaries::Film,
                [
                    [1.3461759193, -0.3391950748, -0.0069808445],
                    [-0.0473510205, 1.0660515314, -0.0187005109],
                    [-0.0216649822, -0.0613131021, 1.0829780844],
                ],
            ),
            (
                Primaries::Bt470m,
                [
                    [1.4861568462, -0.4035549059, -0.0826019403],
                    [-0.0251011087, 0.9540246857, 0.071076423],
                    [-0.0272240019, -0.0440952333, 1.0713192352],
                ],
            ),
            (
                Primaries::Ebu3213,
                [
                    [1.0252524586, -0.0265475337, 0.0012950751],
                    [0.0193935069, 0.9480280089, 0.0325784842],
                    [-0.0017695316, -0.0014423226, 1.0032118541],
                ],
            ),
        ];
        for (primaries, want) in expected {
            let rows = gamut_rows(primaries);
            for (row, want) in rows.iter().zip(want) {
                for (got, want) in row.iter().zip(want) {
                    assert!((f64::from(*got) - want).abs() < 2e-6, "{primaries:?}: {rows:?}");
                }
                let white: f32 = row[..3].iter().sum();
                assert!((white - 1.0).abs() < 1e-6, "{primaries:?}: {rows:?}");
            }
            // Its luminance row weighs its white as 1.
            let y: f32 = rows[3][..3].iter().sum();
            assert!((y - 1.0).abs() < 1e-6, "{primaries:?}: {rows:?}");
        }
        // The light itself keeps its white: DCI-P3's R = G = B at (0.314, 0.351), its luminance
        // row colour-science's.
        let m = rgb_to_xyz(Primaries::DciP3);
        let xyz = m.map(|row| row.iter().sum::<f64>());
        let sum: f64 = xyz.iter().sum();
        assert!(
            (xyz[0] / sum - 0.314).abs() < 1e-9 && (xyz[1] / sum - 0.351).abs() < 1e-9,
            "{xyz:?}"
        );
        for (got, want) in m[1].iter().zip([0.2094916779, 0.7215952542, 0.0689130679]) {
            assert!((got - want).abs() < 1e-9, "{m:?}");
        }
    }
}
