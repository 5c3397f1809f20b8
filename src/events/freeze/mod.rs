//! FFmpeg's `freezedetect`: each picture is compared with the last picture that moved (the
//! reference): frozen when the mean absolute difference of all their samples (Y, then Cb and
//! Cr as the filter sizes them) is at most `n` of the sample range. A freeze is reported once
//! it has lasted `d`: it starts at the reference's time and ends at the first picture that
//! moves again (a freeze still going on at the stream's end has no end, as in FFmpeg). The
//! differences are summed on the GPU (`gpu`), against a reference it keeps and replaces
//! itself, or by the CPU twin here.

pub mod gpu;

use super::{rescale, seconds, Event, EventKind, FreezeOptions};
use crate::signalstats::YuvPlanes;

/// Follows the pictures of one stream, given each picture's verdict against the reference.
#[derive(Clone, Debug)]
pub struct FreezeDetect {
    options: FreezeOptions,
    time_base: (i64, i64),
    /// The stream's frame rate, for pictures without timestamps in order.
    frame_rate: Option<(i64, i64)>,
    /// Pictures seen (FFmpeg's `n`).
    n: i64,
    /// The reference: its pts, its `n` and its number.
    reference: Option<(Option<i64>, i64, u64)>,
    /// A freeze has been reported and not yet ended.
    frozen: bool,
    /// The picture before the one now.
    last: Option<u64>,
    /// The tags FFmpeg sets on the last picture (`lavfi.freezedetect.freeze_start` once a
    /// freeze has lasted `d`, `freeze_duration` and `freeze_end` on the picture that moves).
    tags: Vec<(String, String)>,
}

impl FreezeDetect {
    pub fn new(options: FreezeOptions, time_base: (i32, i32), frame_rate: Option<(i32, i32)>) -> Self {
        Self {
            options,
            time_base: (i64::from(time_base.0), i64::from(time_base.1)),
            frame_rate: frame_rate
                .filter(|r| r.0 > 0 && r.1 > 0)
                .map(|r| (i64::from(r.0), i64::from(r.1))),
            n: 0,
            reference: None,
            frozen: false,
            last: None,
            tags: Vec::new(),
        }
    }

    /// One picture: its number, pts, and whether it is frozen against the reference (not read
    /// for the first picture, which becomes the reference); the event it ends, if any.
    pub fn picture(&mut self, index: u64, pts: Option<i64>, frozen_against_reference: bool) -> Option<Event> {
        self.n += 1;
        let mut frozen = false;
        let mut ended = None;
        self.tags.clear();
        if let Some((reference_pts, reference_n, reference_index)) = self.reference {
            let duration = match (reference_pts, pts) {
                (Some(r), Some(p)) if p >= r => rescale(p - r, self.time_base, (1, 1_000_000)),
                _ => self.frame_rate.map_or(0, |(num, den)| {
                    rescale(self.n - reference_n, (den, num), (1, 1_000_000))
                }),
            };
            frozen = frozen_against_reference;
            if duration >= self.options.duration_us {
                // (A freeze is told once it has lasted d; it ends at the first picture that moves.)
                let time = |ts: i64| seconds(ts, self.time_base);
                let text = crate::signalstats::format::g;
                // (A reference without a timestamp is the stream's start.)
                let start = time(reference_pts.unwrap_or(0));
                let lasted = 1.0 / 1_000_000.0 * duration as f64;
                if !self.frozen {
                    self.tags.push(("lavfi.freezedetect.freeze_start".into(), text(start)));
                }
                if !frozen {
                    self.tags
                        .push(("lavfi.freezedetect.freeze_duration".into(), text(lasted)));
                    let end = pts.map_or("NOPTS".to_string(), |p| text(time(p)));
                    self.tags.push(("lavfi.freezedetect.freeze_end".into(), end));
                    ended = Some(Event {
                        kind: EventKind::Freeze,
                        start,
                        end: pts.map(time),
                        duration: Some(lasted),
                        frames: Some((reference_index, self.last.unwrap_or(reference_index))),
                        channel: None,
                    });
                }
                self.frozen = frozen;
            }
        }
        if !frozen {
            self.reference = Some((pts, self.n, index));
        }
        self.last = Some(index);
        ended
    }

    /// The tags FFmpeg sets on the last picture given.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// Whether a freeze has been reported and goes on.
    pub fn in_freeze(&self) -> bool {
        self.frozen
    }

    /// The filter starts again (FFmpeg's tool configuring its filters again, at a change of
    /// the pictures' size or format): a freeze reported and going on, with no end, as at the
    /// stream's end; the next picture is compared with nothing.
    pub fn start_again(&mut self) -> Option<Event> {
        let ended = self.finish();
        (self.n, self.reference, self.last) = (0, None, None);
        ended
    }

    /// The stream ended: a freeze reported and going on, with no end (as FFmpeg leaves it).
    pub fn finish(&mut self) -> Option<Event> {
        if !std::mem::take(&mut self.frozen) {
            return None;
        }
        let (reference_pts, _, reference_index) = self.reference?;
        Some(Event {
            kind: EventKind::Freeze,
            start: seconds(reference_pts.unwrap_or(0), self.time_base),
            end: None,
            duration: None,
            frames: Some((reference_index, self.last.unwrap_or(reference_index))),
            channel: None,
        })
    }
}

/// The samples freezedetect compares for a picture of `width`x`height` whose chroma is
/// subsampled by `shift_x`, `shift_y`: all of Y, and of Cb and Cr each `ceil(width / 2^sx)`
/// by `floor(height / 2^sy)` (the filter rounds the height down).
pub fn compared_samples(width: u64, height: u64, shift_x: u32, shift_y: u32) -> (u64, u64) {
    (width * height, width.div_ceil(1 << shift_x) * (height >> shift_y))
}

/// The largest sum of absolute differences that is still frozen: the filter's `(double)sad /
/// count / 2^bits <= n`, found exactly (the test is monotonic in the sum). None: none is.
pub fn frozen_limit(noise: f64, samples: u64, bits: u32) -> Option<u64> {
    let frozen = |sad: u64| sad as f64 / samples as f64 / (1u64 << bits) as f64 <= noise;
    if !frozen(0) {
        return None;
    }
    let (mut low, mut high) = (0u64, samples.saturating_mul(1 << bits));
    if frozen(high) {
        return Some(high);
    }
    // frozen(low) holds, frozen(high) does not.
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        match frozen(middle) {
            true => low = middle,
            false => high = middle,
        }
    }
    Some(low)
}

/// The CPU twin: the sum of absolute differences freezedetect takes between two pictures.
pub fn sad(picture: &YuvPlanes, reference: &YuvPlanes) -> u64 {
    let luma: u64 = picture
        .y
        .iter()
        .zip(&reference.y)
        .map(|(&a, &b)| u64::from(a.abs_diff(b)))
        .sum();
    let rows = picture.height >> picture.shift_y;
    let chroma = |a: &[u16], b: &[u16]| -> u64 {
        let n = picture.chroma_width * rows;
        a[..n]
            .iter()
            .zip(&b[..n])
            .map(|(&a, &b)| u64::from(a.abs_diff(b)))
            .sum()
    };
    luma + chroma(&picture.u, &reference.u) + chroma(&picture.v, &reference.v)
}

/// The CPU twin's pictures: each one's verdict against the reference it keeps.
#[derive(Default)]
pub struct FreezeTwin {
    reference: Option<YuvPlanes>,
}

impl FreezeTwin {
    /// Whether `picture` is frozen against the reference (false for the first), the reference
    /// replaced by it when it is not; and the sum of differences.
    pub fn picture(&mut self, picture: &YuvPlanes, noise: f64) -> (bool, u64) {
        let Some(reference) = &self.reference else {
            self.reference = Some(picture.clone());
            return (false, 0);
        };
        let sum = sad(picture, reference);
        let (luma, chroma) = compared_samples(
            picture.width as u64,
            picture.height as u64,
            picture.shift_x,
            picture.shift_y,
        );
        let frozen = frozen_limit(noise, luma + 2 * chroma, picture.bits).is_some_and(|limit| sum <= limit);
        if !frozen {
            self.reference = Some(picture.clone());
        }
        (frozen, sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_filters_test_exactly() {
        let samples = 1920 * 1080 * 3 / 2;
        let limit = frozen_limit(0.001, samples, 8).unwrap();
        let test = |sad: u64| sad as f64 / samples as f64 / 256.0 <= 0.001;
        assert!(test(limit) && !test(limit + 1));
        assert_eq!(frozen_limit(0.0, 100, 8), Some(0));
        assert_eq!(frozen_limit(1.0, 100, 8), Some(25_600));
    }

    #[test]
    fn a_freeze_starts_at_the_reference_and_ends_at_the_picture_that_moves() {
        let o = FreezeOptions {
            noise: 0.001,
            duration_us: 500_000,
        };
        // 10 fps (1/10 time base): pictures 2..=8 the same as 2, 9 moves; 12.. frozen to the end.
        let mut detect = FreezeDetect::new(o, (1, 10), Some((10, 1)));
        let mut events = Vec::new();
        for n in 0..20u64 {
            let frozen = (3..=8).contains(&n) || n >= 13;
            events.extend(detect.picture(n, Some(n as i64), frozen));
        }
        events.extend(detect.finish());
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(
            (events[0].start, events[0].end, events[0].duration),
            (0.2, Some(0.9), Some(0.7))
        );
        assert_eq!(events[0].frames, Some((2, 8)));
        assert_eq!((events[1].start, events[1].end), (0.1 * 12.0, None));
        assert_eq!(events[1].frames, Some((12, 19)));
    }
}
