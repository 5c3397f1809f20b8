//! The CPU twin of the marks pass: every pixel's word from the frame's packed pixels and, for
//! the range test, its decoded planes, on the same integer codes as the pass.

use super::{gamut_margin, Mark, MarkParams, MarkSet, WORD_GAMUT, WORD_PEAKING, WORD_RANGE};
use crate::video::format::Component;

/// The frame's R'G'B' codes from a packed word (RGBA8, or RGB10A2 with `ten_bit`).
pub fn unpack(word: u32, ten_bit: bool) -> [u32; 3] {
    if ten_bit {
        [word & 1023, (word >> 10) & 1023, (word >> 20) & 1023]
    } else {
        [word & 255, (word >> 8) & 255, (word >> 16) & 255]
    }
}

fn luma(params: &MarkParams, rgb: [u32; 3]) -> u32 {
    (params.luma[0] * rgb[0] + params.luma[1] * rgb[1] + params.luma[2] * rgb[2] + 32768) >> 16
}

/// The CPU twin of the pass: every pixel's word, from the frame's packed pixels (`width` ×
/// `height`, as `GpuFrame::pixels` holds them) and, for the range test, its decoded planes
/// (Y, then Cb and Cr where there are; `components`).
pub fn classify(params: &MarkParams, table: &[f32], pixels: &[u32], planes: Option<&[Component]>) -> Vec<u32> {
    let (w, h) = (params.width as usize, params.height as usize);
    let ten_bit = params.ten_bit != 0;
    let lumas: Vec<u32> = pixels[..w * h]
        .iter()
        .map(|&p| luma(params, unpack(p, ten_bit)))
        .collect();
    let luma_at = |x: isize, y: isize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        lumas[y * w + x] as i32
    };
    let compute = MarkSet(params.compute);
    let mut words = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let mut word = params.luma_marks(lumas[i]);
            if compute.has(Mark::Peaking) {
                let (xi, yi) = (x as isize, y as isize);
                let p = |dx, dy| luma_at(xi + dx, yi + dy);
                let gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
                let gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
                if gx.unsigned_abs() + gy.unsigned_abs() >= params.peaking {
                    word |= WORD_PEAKING;
                }
            }
            if compute.has(Mark::Gamut)
                && params.gamut != 0
                && gamut_margin(unpack(pixels[i], ten_bit), table, params) < 0.0
            {
                word |= WORD_GAMUT;
            }
            if compute.has(Mark::Range) && params.range_applies != 0 {
                if let Some(planes) = planes {
                    if out_of_range(params, planes, x, y) {
                        word |= WORD_RANGE;
                    }
                }
            }
            words[i] = word;
        }
    }
    words
}

/// signalstats' BRNG test of pixel (x, y): its Y', and the Cb and Cr it is drawn with.
fn out_of_range(params: &MarkParams, planes: &[Component], x: usize, y: usize) -> bool {
    let [y_min, y_max, c_min, c_max] = params.range;
    let luma = planes[0].sample(x, y);
    if luma < y_min || luma > y_max {
        return true;
    }
    if planes.len() < 3 {
        return false;
    }
    let (cx, cy) = (x >> params.planes[1], y >> params.planes[2]);
    planes[1..3].iter().any(|c| {
        let v = c.sample(cx, cy);
        v < c_min || v > c_max
    })
}
