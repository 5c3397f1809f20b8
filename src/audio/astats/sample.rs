//! The sample formats astats reads and the [`Sample`] types that select them: each format's
//! normalisation, width and the integer it gives the bit-depth count.

use std::num::FpCategory;

use super::c_math::llrint;

/// The sample formats astats reads (FFmpeg's `AV_SAMPLE_FMT_*`, packed or planar alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit integers, normalised by 32767.
    S16,
    /// Signed 32-bit integers, normalised by 2147483647.
    S32,
    /// Signed 64-bit integers, normalised by 2^63.
    S64,
    /// 32-bit floats, ±1 full scale.
    F32,
    /// 64-bit floats, ±1 full scale.
    F64,
}

impl SampleFormat {
    /// Bits per sample: the widest `Bit_depth` FFmpeg reports.
    pub(super) fn bits(self) -> u32 {
        match self {
            SampleFormat::S16 => 16,
            SampleFormat::S32 | SampleFormat::F32 => 32,
            SampleFormat::S64 | SampleFormat::F64 => 64,
        }
    }

    /// Floats also get the `Number of NaNs`, `Number of Infs` and `Number of denormals` tags.
    pub(super) fn is_float(self) -> bool {
        matches!(self, SampleFormat::F32 | SampleFormat::F64)
    }

    /// The sample on a ±1 scale, as FFmpeg normalises it.
    pub(super) fn normalise(self, d: f64) -> f64 {
        match self {
            SampleFormat::S16 => d / i16::MAX as f64,
            SampleFormat::S32 => d / i32::MAX as f64,
            SampleFormat::S64 => d / i64::MAX as f64,
            SampleFormat::F32 | SampleFormat::F64 => d,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A sample as a decoder gives it: `i16`, `i32`, `i64`, `f32` or `f64`.
pub trait Sample: Copy + sealed::Sealed {
    /// The format FFmpeg reads frames of this type as.
    const FORMAT: SampleFormat;
    /// The sample as a double, unnormalised (integers keep their integer value).
    fn value(self) -> f64;
    /// The integer FFmpeg ORs into the bit-depth masks: the sample itself for integer formats,
    /// `llrint(x * 2^31)` for `f32` (product in single precision) and `llrint(x * 2^63)` for `f64`
    /// (out of range, NaN and infinities give `i64::MIN`, as x86's conversion does).
    fn mask_bits(self) -> i64;
    /// The float's class, for the NaN/Inf/denormal counts (integers: normal).
    fn category(self) -> FpCategory;
}

impl Sample for i16 {
    const FORMAT: SampleFormat = SampleFormat::S16;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self as i64
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for i32 {
    const FORMAT: SampleFormat = SampleFormat::S32;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self as i64
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for i64 {
    const FORMAT: SampleFormat = SampleFormat::S64;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for f32 {
    const FORMAT: SampleFormat = SampleFormat::F32;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        llrint((self * (1u64 << 31) as f32) as f64)
    }
    fn category(self) -> FpCategory {
        self.classify()
    }
}

impl Sample for f64 {
    const FORMAT: SampleFormat = SampleFormat::F64;
    fn value(self) -> f64 {
        self
    }
    fn mask_bits(self) -> i64 {
        llrint(self * (1u64 << 63) as f64)
    }
    fn category(self) -> FpCategory {
        self.classify()
    }
}
