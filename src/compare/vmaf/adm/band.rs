//! The coefficient bands the stages pass along, the numeric types libvmaf stores them in, and
//! the regions of a band that ADM reads.

/// A subband coefficient as libvmaf stores it: `i16` at scale 0, `i32` at scales 1–3. The
/// stages compute in `i64` and store through [`Coefficient::narrow`], where C's narrowing can
/// wrap. `i64` gives libvmaf's `int32`/`int64` results: where its `int32` sums overflow (the
/// vertical pass on 16-bit samples), they wrap back to the same final value.
pub(super) trait Coefficient: Copy + Default + Into<i64> {
    /// Keeps the low bits of `value`, as C's conversion to the narrower type does on the
    /// platforms libvmaf runs on.
    fn narrow(value: i64) -> Self;
    /// C's `abs()` of the value as an `int`: `i32::MIN` stays negative.
    fn c_abs(self) -> i32;
    /// The value, widened for arithmetic.
    fn wide(self) -> i64 {
        self.into()
    }
}

impl Coefficient for i16 {
    fn narrow(value: i64) -> Self {
        value as i16
    }
    fn c_abs(self) -> i32 {
        i32::from(self).abs()
    }
}

impl Coefficient for i32 {
    fn narrow(value: i64) -> Self {
        value as i32
    }
    fn c_abs(self) -> i32 {
        self.wrapping_abs()
    }
}

/// A band of coefficients, row after row.
#[derive(Clone, Debug)]
pub(super) struct Plane<T> {
    pub width: usize,
    pub height: usize,
    pub data: Vec<T>,
}

impl<T: Copy + Default> Plane<T> {
    pub fn zeroed(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            data: vec![T::default(); width * height],
        }
    }

    pub fn at(&self, x: usize, y: usize) -> T {
        self.data[y * self.width + x]
    }

    pub fn set(&mut self, x: usize, y: usize, value: T) {
        self.data[y * self.width + x] = value;
    }

    pub fn map<U>(&self, f: impl Fn(T) -> U) -> Plane<U> {
        Plane {
            width: self.width,
            height: self.height,
            data: self.data.iter().map(|&v| f(v)).collect(),
        }
    }
}

/// The three detail orientations, in the order libvmaf loops over them (its `theta`):
/// [`H`] (vertical high pass), [`V`] (horizontal high pass), [`D`] (both).
pub(super) type Detail<T> = [Plane<T>; 3];
pub(super) const H: usize = 0;
pub(super) const V: usize = 1;
pub(super) const D: usize = 2;

pub(super) fn zeroed_detail<T: Copy + Default>(width: usize, height: usize) -> Detail<T> {
    std::array::from_fn(|_| Plane::zeroed(width, height))
}

/// One DWT level's output.
pub(super) struct Subbands<T> {
    /// Low pass both ways: the next scale's input.
    pub approx: Plane<T>,
    pub detail: Detail<T>,
}

/// libvmaf's `ADM_BORDER_FACTOR`: the share of each side left out of the scores.
const BORDER_FACTOR: f64 = 0.1;

/// Columns `left..right` and rows `top..bottom` of a band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Region {
    pub left: usize,
    pub top: usize,
    pub right: usize,
    pub bottom: usize,
}

impl Region {
    /// The area the numerator and denominator sum over: a tenth of each side (less half a
    /// coefficient, truncated) is left out.
    pub fn scored(width: usize, height: usize) -> Self {
        let left = (width as f64 * BORDER_FACTOR - 0.5) as usize;
        let top = (height as f64 * BORDER_FACTOR - 0.5) as usize;
        Self {
            left,
            top,
            right: width - left,
            bottom: height - top,
        }
    }

    /// Where libvmaf decouples and weights: the scored area grown by one coefficient on the
    /// left and top and by two on the right and bottom ("for filter tap"), clipped to the
    /// band. It covers every neighbour the masking reads, so nothing outside it matters.
    pub fn scored_with_taps(width: usize, height: usize) -> Self {
        // C truncates toward zero, so a slightly negative margin becomes 0, not -1.
        let left = (width as f64 * BORDER_FACTOR - 0.5 - 1.0) as i64;
        let top = (height as f64 * BORDER_FACTOR - 0.5 - 1.0) as i64;
        let (w, h) = (width as i64, height as i64);
        Self {
            left: left.max(0) as usize,
            top: top.max(0) as usize,
            right: (w - left + 2).min(w) as usize,
            bottom: (h - top + 2).min(h) as usize,
        }
    }

    pub fn columns(&self) -> std::ops::Range<usize> {
        self.left..self.right
    }

    pub fn rows(&self) -> std::ops::Range<usize> {
        self.top..self.bottom
    }

    pub fn area(&self) -> usize {
        (self.right - self.left) * (self.bottom - self.top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_match_libvmaf_for_a_480x270_frame_at_scale_0() {
        // 240 * 0.1 - 0.5 = 23.5 → 23; 135 * 0.1 - 0.5 = 13.0 → 13.
        assert_eq!(
            Region::scored(240, 135),
            Region {
                left: 23,
                top: 13,
                right: 217,
                bottom: 122
            }
        );
        assert_eq!(
            Region::scored_with_taps(240, 135),
            Region {
                left: 22,
                top: 12,
                right: 220,
                bottom: 125
            }
        );
    }

    #[test]
    fn small_bands_keep_their_edges() {
        // Scale 3 of a 33-wide frame is 3 wide: no border is dropped.
        assert_eq!(
            Region::scored(3, 3),
            Region {
                left: 0,
                top: 0,
                right: 3,
                bottom: 3
            }
        );
        assert_eq!(
            Region::scored_with_taps(3, 3),
            Region {
                left: 0,
                top: 0,
                right: 3,
                bottom: 3
            }
        );
    }
}
