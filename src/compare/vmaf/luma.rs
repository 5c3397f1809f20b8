//! The luma plane that quality metrics read: a borrowed view of one decoded frame's Y' samples.

/// One luma plane, row after row (`width` samples each, no padding), of `bits` (8..=16).
#[derive(Clone, Copy, Debug)]
pub struct Luma<'a> {
    pub data: &'a [u16],
    pub width: usize,
    pub height: usize,
    pub bits: u32,
}
