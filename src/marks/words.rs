//! The pass's words as it writes them (8 bits a pixel, four to a u32) and as the marks read
//! back, and `MarkStyle`, what the picture pass draws from them.

use super::scale::{FalseColourScale, MAX_BANDS};
use super::{
    LumaClasses, MarkSet, LUMA_CLASSES, WORD_BAND, WORD_GAMUT, WORD_PEAKING, WORD_RANGE, WORD_ZEBRA, WORD_ZEBRA_LOW,
};

/// A pass word (8 bits a pixel): the luma class in the low 5 bits, then peaking, gamut, range.
const PASS_PEAKING: u32 = 1 << 5;
const PASS_GAMUT: u32 = 1 << 6;
const PASS_RANGE: u32 = 1 << 7;

/// u32s per row of the pass's words, four pixels to each.
pub fn row_words(width: u32) -> u32 {
    width.div_ceil(4)
}

/// Pixels' words as the pass writes them: 8 bits each (`PASS_*`, the luma's class from
/// `classes`), four to a u32 (the first in the low byte), rows of `row_words`.
pub fn pack_words(words: &[u32], classes: &LumaClasses, width: usize, height: usize) -> Vec<u32> {
    let row = row_words(width as u32) as usize;
    let mut packed = vec![0; row * height];
    for y in 0..height {
        for x in 0..width {
            let word = words[y * width + x];
            let luma = word & (WORD_BAND | WORD_ZEBRA | WORD_ZEBRA_LOW);
            let class = classes
                .marks
                .iter()
                .position(|&m| m == luma)
                .expect("a class of the luma") as u32;
            let flag = |logical, pass| if word & logical != 0 { pass } else { 0 };
            let byte =
                class | flag(WORD_PEAKING, PASS_PEAKING) | flag(WORD_GAMUT, PASS_GAMUT) | flag(WORD_RANGE, PASS_RANGE);
            packed[y * row + x / 4] |= byte << (8 * (x % 4));
        }
    }
    packed
}

/// Each pixel's word from the pass's (`pack_words`).
pub fn unpack_words(packed: &[u32], classes: &LumaClasses, width: usize, height: usize) -> Vec<u32> {
    let row = row_words(width as u32) as usize;
    (0..width * height)
        .map(|i| {
            let (x, y) = (i % width, i / width);
            let byte = (packed[y * row + x / 4] >> (8 * (x % 4))) & 0xff;
            let flag = |pass, logical| if byte & pass != 0 { logical } else { 0 };
            classes.marks[(byte & 31) as usize]
                | flag(PASS_PEAKING, WORD_PEAKING)
                | flag(PASS_GAMUT, WORD_GAMUT)
                | flag(PASS_RANGE, WORD_RANGE)
        })
        .collect()
}

/// Twin of `MarkStyle` in shaders/render/picture.wgsl: what the picture pass draws from the
/// words.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MarkStyle {
    /// The marks drawn (`Mark::bit`s; 0: none).
    pub shown: u32,
    pub width: u32,
    pub height: u32,
    /// u32s per row of the pass's words (four pixels each).
    pub row_words: u32,
    /// Each band's colour (index: the word's band; alpha 0: grey).
    pub colours: [[f32; 4]; 16],
    /// Each luma class's marks (band and zebra bits), four to an entry.
    pub classes: [[u32; 4]; LUMA_CLASSES / 4],
}

impl MarkStyle {
    pub fn none() -> Self {
        bytemuck::Zeroable::zeroed()
    }

    /// The style of `shown` marks with `scale`'s colours, for words of a `width` × `height`
    /// frame whose luma classes are `classes`.
    pub fn new(shown: MarkSet, scale: &FalseColourScale, classes: &LumaClasses, width: u32, height: u32) -> Self {
        let mut colours = [[0.0; 4]; 16];
        for (i, band) in scale.bands.iter().take(MAX_BANDS).enumerate() {
            let [r, g, b] = band.colour.map(|c| f32::from(c) / 255.0);
            colours[i + 1] = [r, g, b, 1.0];
        }
        let mut class_marks = [[0; 4]; LUMA_CLASSES / 4];
        for (c, &m) in classes.marks.iter().enumerate() {
            class_marks[c / 4][c % 4] = m;
        }
        Self {
            shown: shown.0,
            width,
            height,
            row_words: row_words(width),
            colours,
            classes: class_marks,
        }
    }
}
