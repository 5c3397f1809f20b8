//! Y'CbCr: the matrix (Kr, Kb of BT.601, BT.709, BT.2020, SMPTE 240M, FCC) and the code range (limited or full)
//! a stream's samples are in, and the Y'CbCr → R'G'B' matrix they give.

/// The Y'CbCr → R'G'B' matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Matrix {
    Bt601,
    Bt709,
    Bt2020,
    /// SMPTE 240M (1990s HD), and the FCC's of 1953 (NTSC's first): their own Kr, Kb.
    Smpte240m,
    Fcc,
}

impl Matrix {
    pub const ALL: [Matrix; 5] = [
        Matrix::Bt601,
        Matrix::Bt709,
        Matrix::Bt2020,
        Matrix::Smpte240m,
        Matrix::Fcc,
    ];

    /// Its name for people: `BT.601`, `BT.709`, `BT.2020`.
    pub fn label(self) -> &'static str {
        match self {
            Matrix::Bt601 => "BT.601",
            Matrix::Bt709 => "BT.709",
            Matrix::Bt2020 => "BT.2020",
            Matrix::Smpte240m => "SMPTE 240M",
            Matrix::Fcc => "FCC",
        }
    }

    /// Kr and Kb of the matrix (Kg = 1 - Kr - Kb).
    pub fn kr_kb(self) -> (f64, f64) {
        match self {
            Matrix::Bt601 => (0.299, 0.114),
            Matrix::Bt709 => (0.2126, 0.0722),
            Matrix::Bt2020 => (0.2627, 0.0593),
            Matrix::Smpte240m => (0.212, 0.087),
            Matrix::Fcc => (0.30, 0.11),
        }
    }
}

/// Whether samples use the full code range or the limited ("TV", 16–235 / 16–240) one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Range {
    Limited,
    Full,
}

impl Range {
    /// `limited` or `full`.
    pub fn label(self) -> &'static str {
        match self {
            Range::Limited => "limited",
            Range::Full => "full",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ColorSpec {
    pub matrix: Matrix,
    pub range: Range,
}

impl ColorSpec {
    /// The matrix and range of a stream, filling in what it leaves untagged as mpv does:
    /// HD (width ≥ 1280 or height > 576) is BT.709, SD is BT.601; YUV is limited range, except
    /// JPEG-style (yuvj) formats, which are full.
    pub fn resolve(matrix: Option<Matrix>, range: Option<Range>, width: u32, height: u32, jpeg: bool) -> Self {
        let hd = width >= 1280 || height > 576;
        ColorSpec {
            matrix: matrix.unwrap_or(if hd { Matrix::Bt709 } else { Matrix::Bt601 }),
            range: range.unwrap_or(if jpeg { Range::Full } else { Range::Limited }),
        }
    }
}

/// Where a range puts black and zero chroma, and how many codes span white and full chroma.
pub struct CodeRange {
    pub black: i32,
    pub luma_span: i32,
    pub chroma_zero: i32,
    pub chroma_span: i32,
}

pub fn code_range(range: Range, bits: u32) -> CodeRange {
    let scale = 1 << (bits - 8);
    match range {
        Range::Limited => CodeRange {
            black: 16 * scale,
            luma_span: 219 * scale,
            chroma_zero: 128 * scale,
            chroma_span: 224 * scale,
        },
        Range::Full => CodeRange {
            black: 0,
            luma_span: (1 << bits) - 1,
            chroma_zero: 1 << (bits - 1),
            chroma_span: (1 << bits) - 1,
        },
    }
}

/// The Y'CbCr → R'G'B' matrix in `out_bits`-bit output codes per input code: rows R, G, B;
/// columns Y, Cb, Cr.
pub fn matrix(color: ColorSpec, bits: u32, out_bits: u32) -> [[f64; 3]; 3] {
    let (kr, kb) = color.matrix.kr_kb();
    let kg = 1.0 - kr - kb;
    let codes = code_range(color.range, bits);
    let white = f64::from((1 << out_bits) - 1);
    let y = white / f64::from(codes.luma_span);
    let c = white / f64::from(codes.chroma_span);
    [
        [y, 0.0, c * 2.0 * (1.0 - kr)],
        [y, -c * 2.0 * kb * (1.0 - kb) / kg, -c * 2.0 * kr * (1.0 - kr) / kg],
        [y, c * 2.0 * (1.0 - kb), 0.0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_streams_are_guessed_like_mpv() {
        let sd = ColorSpec::resolve(None, None, 720, 576, false);
        assert_eq!(
            sd,
            ColorSpec {
                matrix: Matrix::Bt601,
                range: Range::Limited
            }
        );
        let hd = ColorSpec::resolve(None, None, 1280, 720, false);
        assert_eq!(hd.matrix, Matrix::Bt709);
        let tall = ColorSpec::resolve(None, None, 720, 1280, false);
        assert_eq!(tall.matrix, Matrix::Bt709);
        let jpeg = ColorSpec::resolve(None, None, 640, 480, true);
        assert_eq!(jpeg.range, Range::Full);
        let tagged = ColorSpec::resolve(Some(Matrix::Bt2020), Some(Range::Full), 640, 480, false);
        assert_eq!(
            tagged,
            ColorSpec {
                matrix: Matrix::Bt2020,
                range: Range::Full
            }
        );
    }
}
