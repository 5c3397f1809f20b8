//! The timeline's loudness strip, under the luminance histograms: the short-term loudness of
//! the file's sound (EBU R128, `audio::loudness`) along the same columns, the loudest 3 s
//! reading of each column as a bar from -60 LUFS at the bottom to 0 at the top, with a line at
//! -23 (EBU R128's target), green to -18, yellow to -9, orange above, and marks where the sound is silent (blue, at the bottom: every
//! 400 ms reading of the column under -60 LUFS) or clips (red, at the top: a sample at full
//! scale).

use crate::audio::loudness::{measure_file, Block};
use std::sync::atomic::AtomicBool;

/// Rows of the strip.
pub const LOUDNESS_ROWS: u32 = 16;
/// The loudness at the strip's bottom and top, LUFS.
const FLOOR: f64 = -60.0;
const CEILING: f64 = 0.0;
/// EBU R128's target, drawn as a line.
const TARGET: f64 = -23.0;
/// A column whose momentary loudness stays under this is silent (LUFS).
pub const SILENT_BELOW: f64 = -60.0;
/// A sample at least this (of full scale) clips: 16-bit full scale, 32767/32768.
pub const CLIPS_AT: f64 = 32767.0 / 32768.0;

const SILENT: [u8; 3] = [70, 130, 255];
const CLIPPED: [u8; 3] = [255, 70, 60];
const TARGET_LINE: [u8; 3] = [90, 90, 90];
const EMPTY: [u8; 4] = [40, 40, 40, 160];

/// The short-term loudness of a file's sound in the timeline's columns.
#[derive(Clone, Debug)]
pub struct LoudnessStrip {
    columns: u32,
    /// The video's first frame's time, its frame duration and frame count (the columns'
    /// mapping, as the histograms'): a time falls in the column of the frame shown at it.
    start: f64,
    frame_duration: f64,
    frame_count: u64,
    /// Per column: the highest short-term and momentary loudness, and the highest sample.
    short_term: Vec<f64>,
    momentary: Vec<f64>,
    peak: Vec<f64>,
    counted: Vec<bool>,
    /// 100 ms steps counted in all.
    pub filled: u64,
}

impl LoudnessStrip {
    pub fn new(columns: u32, start: f64, frame_duration: f64, frame_count: u64) -> Self {
        let columns = columns.max(1);
        let n = columns as usize;
        Self {
            columns,
            start,
            frame_duration: frame_duration.max(1e-6),
            frame_count: frame_count.max(1),
            short_term: vec![f64::NEG_INFINITY; n],
            momentary: vec![f64::NEG_INFINITY; n],
            peak: vec![0.0; n],
            counted: vec![false; n],
            filled: 0,
        }
    }

    /// The column of time `seconds`: its frame's, ⌊n·C/F⌋ (times past the last frame go to the
    /// last column).
    pub fn column_at(&self, seconds: f64) -> u32 {
        let frame = ((seconds - self.start) / self.frame_duration + 1e-9).floor().max(0.0) as u64;
        let column = u128::from(frame) * u128::from(self.columns) / u128::from(self.frame_count);
        column.min(u128::from(self.columns - 1)) as u32
    }

    /// Counts a 100 ms step whose last sample is at `seconds`.
    pub fn add(&mut self, seconds: f64, block: &Block) {
        let c = self.column_at(seconds) as usize;
        self.short_term[c] = self.short_term[c].max(block.short_term);
        self.momentary[c] = self.momentary[c].max(block.momentary);
        self.peak[c] = self.peak[c].max(block.peak);
        self.counted[c] = true;
        self.filled += 1;
    }

    /// A column's bar, in rows from the bottom (0 to `rows`), its colour, and its marks.
    fn column(&self, c: usize, rows: u32) -> (u32, [u8; 3], bool, bool) {
        let s = self.short_term[c];
        let share = ((s - FLOOR) / (CEILING - FLOOR)).clamp(0.0, 1.0);
        let height = (share * f64::from(rows)).round() as u32;
        let colour = match s {
            s if s > -9.0 => [255, 150, 40],
            s if s > -18.0 => [230, 200, 60],
            _ => [90, 200, 110],
        };
        (
            height,
            colour,
            self.momentary[c] < SILENT_BELOW,
            self.peak[c] >= CLIPS_AT,
        )
    }

    /// The strip as RGBA8, `width` × `rows`, top row first: pixel column x shows data column
    /// ⌊x·C/width⌋; columns with no sound counted yet are a translucent grey.
    pub fn render(&self, width: u32, rows: u32) -> Vec<u8> {
        let (width, rows) = (width.max(1), rows.max(1));
        let mut rgba = vec![0u8; (width * rows * 4) as usize];
        let target_row = (((TARGET - FLOOR) / (CEILING - FLOOR)) * f64::from(rows)) as u32;
        for x in 0..width {
            let c = (u64::from(x) * u64::from(self.columns) / u64::from(width)) as usize;
            let (height, colour, silent, clipped) = self.column(c, rows);
            for y in 0..rows {
                let pixel = if !self.counted[c] {
                    EMPTY
                } else if clipped && y == rows - 1 {
                    [CLIPPED[0], CLIPPED[1], CLIPPED[2], 255]
                } else if silent && y == 0 {
                    [SILENT[0], SILENT[1], SILENT[2], 255]
                } else if y < height {
                    [colour[0], colour[1], colour[2], 255]
                } else if y == target_row {
                    [TARGET_LINE[0], TARGET_LINE[1], TARGET_LINE[2], 255]
                } else {
                    [0, 0, 0, 255]
                };
                let at = (((rows - 1 - y) * width + x) * 4) as usize;
                rgba[at..at + 4].copy_from_slice(&pixel);
            }
        }
        rgba
    }
}

/// Measures the sound of `path` (its audio stream `track`), handing each 100 ms step to `add`
/// with the media time of its last sample, until its end or `stop`; returns the steps, or why
/// there is nothing to measure.
pub fn fill(
    path: &std::path::Path,
    track: crate::audio::source::AudioTrack,
    stop: &AtomicBool,
    mut add: impl FnMut(f64, &Block),
) -> Result<u64, String> {
    let mut steps = 0;
    measure_file(path, track, false, false, stop, |time, block| {
        add(time, block);
        steps += 1;
        Ok(())
    })?;
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(short_term: f64, momentary: f64, peak: f64) -> Block {
        Block {
            time: 0.0,
            momentary,
            short_term,
            integrated: 0.0,
            range: 0.0,
            range_low: 0.0,
            range_high: 0.0,
            peak,
        }
    }

    #[test]
    fn each_column_shows_its_loudest_short_term_reading_and_marks_silence_and_clipping() {
        // 4 columns over 40 frames at 10 fps: 1 s each.
        let mut strip = LoudnessStrip::new(4, 0.0, 0.1, 40);
        assert_eq!(strip.column_at(0.95), 0);
        assert_eq!(strip.column_at(1.0), 1);
        assert_eq!(strip.column_at(99.0), 3);
        strip.add(0.5, &block(-70.0, -80.0, 0.0001));
        strip.add(1.5, &block(-30.0, -28.0, 0.5));
        strip.add(1.6, &block(-24.0, -20.0, 0.6));
        strip.add(2.5, &block(-6.0, -3.0, 1.0));
        let rgba = strip.render(4, 10);
        let px = |x: u32, y_from_bottom: u32| {
            let at = (((9 - y_from_bottom) * 4 + x) * 4) as usize;
            [rgba[at], rgba[at + 1], rgba[at + 2], rgba[at + 3]]
        };
        // Silent: the blue mark, no bar.
        assert_eq!(px(0, 0)[..3], SILENT);
        assert_eq!(px(0, 1), [0, 0, 0, 255]);
        // -24 LUFS, the loudest of the column: 6 of 10 rows, green; the target line above.
        assert_eq!(px(1, 5)[..3], [90, 200, 110]);
        assert_eq!(px(1, 6), [TARGET_LINE[0], TARGET_LINE[1], TARGET_LINE[2], 255]);
        // -6 LUFS, clipping: a red bar, the red mark on top.
        assert_eq!(px(2, 8)[..3], [255, 150, 40]);
        assert_eq!(px(2, 9)[..3], CLIPPED);
        // Nothing counted: the grey of the histograms' empty columns.
        assert_eq!(px(3, 0), EMPTY);
    }
}
