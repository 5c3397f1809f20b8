//! FFmpeg's C macros and libm calls as its x86-64 build with glibc computes them, NaN signs
//! included, so that astats' values match its output to the last printed digit.

/// The NaN x86 makes from numbers (0/0, sqrt of a negative), which glibc prints `-nan`.
const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// C's `llrint` on x86-64: round half to even; out of range or NaN gives `i64::MIN`.
pub(super) fn llrint(x: f64) -> i64 {
    let r = x.round_ties_even();
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        r as i64
    } else {
        i64::MIN
    }
}

/// FFmpeg's `FFMAX`: `a > b ? a : b` (NaN handling included).
pub(super) fn ffmax(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// FFmpeg's `FFMIN`: `a > b ? b : a`.
pub(super) fn ffmin(a: f64, b: f64) -> f64 {
    if a > b {
        b
    } else {
        a
    }
}

/// FFmpeg's `FFABS`: `a >= 0 ? a : -a` (keeps -0; flips a NaN's sign).
pub(super) fn ffabs(a: f64) -> f64 {
    if a >= 0.0 {
        a
    } else {
        -a
    }
}

/// FFmpeg's `FFSIGN`: `a > 0 ? 1 : -1`.
pub(super) fn ffsign(a: f64) -> i32 {
    if a > 0.0 {
        1
    } else {
        -1
    }
}

/// The NaN an x86 operation on `a` and `b` gives: the first NaN operand, else the default NaN.
fn nan_of(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else {
        f64::from_bits(DEFAULT_NAN)
    }
}

/// `a / b` as x86 computes it, NaN's sign included.
pub(super) fn div(a: f64, b: f64) -> f64 {
    let r = a / b;
    if r.is_nan() {
        nan_of(a, b)
    } else {
        r
    }
}

/// `sqrt(a)` as x86 computes it, NaN's sign included.
pub(super) fn sqrt(a: f64) -> f64 {
    if a.is_nan() {
        a
    } else if a < 0.0 {
        f64::from_bits(DEFAULT_NAN)
    } else {
        a.sqrt()
    }
}

/// FFmpeg's `LINEAR_TO_DB(x)`: `log10(x) * 20`, with glibc's NaNs (a NaN passes through; a
/// negative number gives the default NaN).
pub(super) fn linear_to_db(x: f64) -> f64 {
    let l = if x.is_nan() {
        x
    } else if x < 0.0 {
        f64::from_bits(DEFAULT_NAN)
    } else {
        x.log10()
    };
    l * 20.0
}

/// `av_clipd(x, 0, 1)` as FFmpeg's SSE2 version computes it (`maxsd`, then `minsd`: NaN gives 0).
pub(super) fn clip_unit(x: f64) -> f64 {
    let x = if x > 0.0 { x } else { 0.0 };
    if x < 1.0 {
        x
    } else {
        1.0
    }
}
