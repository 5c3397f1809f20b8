//! The idet sums on the CPU, line for line as `vf_idet.c`'s `filter` takes them (its C and SIMD
//! line functions agree: the SIMD's `|a - b| - |b - c|` pairs add up to `|a + c - 2b|`), for
//! the tests and as the GPU pass's twin (shaders/idet/idet.wgsl).

use super::Sums;
use crate::video::deinterlace::cpu::PlaneGeometry;

/// `vf_idet.c`'s `filter_line`: the sum over a line of `|a + c - 2b|`.
fn line(a: &[u16], b: &[u16], c: &[u16]) -> u64 {
    a.iter()
        .zip(b)
        .zip(c)
        .map(|((&a, &b), &c)| u64::from((i32::from(a) + i32::from(c) - 2 * i32::from(b)).unsigned_abs()))
        .sum()
}

/// The sums of frame `cur` between `prev` and `next` (each a frame's planes, samples row after
/// row as `PlaneGeometry::read` gives them; at a stream's ends the frame itself stands in for
/// the missing neighbour). Interleaved chroma (NV12's U, V pairs) adds up as the two planes
/// FFmpeg would read.
pub fn sums<'a>(geometry: &[PlaneGeometry], prev: &'a [Vec<u16>], cur: &'a [Vec<u16>], next: &'a [Vec<u16>]) -> Sums {
    let mut sums = Sums::default();
    for (i, plane) in geometry.iter().enumerate() {
        let width = plane.row_samples();
        let row = |frame: &'a [Vec<u16>], y: usize| -> &'a [u16] { &frame[i][y * width..(y + 1) * width] };
        for y in 2..(plane.height as usize).saturating_sub(2) {
            let (above, here, below) = (row(cur, y - 1), row(cur, y), row(cur, y + 1));
            let parity = y & 1;
            sums.alpha[parity] += line(above, row(prev, y), below);
            sums.alpha[parity ^ 1] += line(above, row(next, y), below);
            sums.delta += line(above, here, below);
            sums.gamma[parity ^ 1] += line(here, row(prev, y), here);
        }
    }
    sums
}
