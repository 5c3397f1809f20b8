//! FFmpeg's `blackdetect`: a picture is black when at least `pic_th` of its luma samples are at
//! or under the black threshold (`pix_th` of the way from black to white); a stretch of black
//! pictures at least `d` long is an event, from the first black picture's time to the time of
//! the picture that ends it (at the stream's end, to the last picture's time, as FFmpeg has it).
//! The samples under the threshold are read off the luma histogram the statistics count.

use super::{seconds, BlackOptions, Event, EventKind};

/// Follows the pictures of one stream.
#[derive(Clone, Debug)]
pub struct BlackDetect {
    options: BlackOptions,
    /// A sample at or under this is black.
    threshold: u32,
    /// `d` in the stream's time base, as FFmpeg truncates it.
    min_duration: i64,
    time_base: (i64, i64),
    /// The first black picture of the stretch going on: its pts and number.
    started: Option<(i64, u64)>,
    /// The last picture seen.
    last: Option<(i64, u64)>,
    /// The tags FFmpeg sets on the last picture (`lavfi.black_start` on the first black one,
    /// `lavfi.black_end` on the one after, whatever their length).
    tags: Vec<(String, String)>,
}

impl BlackDetect {
    /// For pictures of `bits` per sample; `full_range` for the formats FFmpeg takes as full
    /// range (the `yuvj` ones), whose black is 0 and white the top code.
    pub fn new(options: BlackOptions, bits: u32, full_range: bool, time_base: (i32, i32)) -> Self {
        let max = (1u32 << bits) - 1;
        let factor = 1u32 << bits.saturating_sub(8);
        let threshold = match full_range {
            true => options.pixel_threshold * f64::from(max),
            false => f64::from(16 * factor) + options.pixel_threshold * f64::from((235 - 16) * factor),
        } as u32;
        let tb = (i64::from(time_base.0), i64::from(time_base.1));
        Self {
            options,
            threshold,
            min_duration: (options.min_duration / (tb.0 as f64 / tb.1 as f64)) as i64,
            time_base: tb,
            started: None,
            last: None,
            tags: Vec::new(),
        }
    }

    /// The highest luma code counted black.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// The samples of a luma histogram (one bin a code) at or under the threshold.
    pub fn black_samples(&self, luma: &[u32]) -> u64 {
        let end = (self.threshold as usize + 1).min(luma.len());
        luma[..end].iter().map(|&n| u64::from(n)).sum()
    }

    /// One picture: its number, pts, its black samples and all its luma samples; the event
    /// it ends, if any.
    pub fn picture(&mut self, index: u64, pts: i64, black: u64, samples: u64) -> Option<Event> {
        let ratio = black as f64 / samples.max(1) as f64;
        let mut ended = None;
        self.tags.clear();
        if ratio >= self.options.picture_ratio {
            if self.started.is_none() {
                self.started = Some((pts, index));
                self.tags.push(("lavfi.black_start".into(), self.text(pts)));
            }
        } else if let Some(start) = self.started.take() {
            ended = self.event(start, (pts, index.saturating_sub(1)));
            self.tags.push(("lavfi.black_end".into(), self.text(pts)));
        }
        self.last = Some((pts, index));
        ended
    }

    /// The tags FFmpeg sets on the last picture given.
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// A time as FFmpeg prints it.
    fn text(&self, ts: i64) -> String {
        crate::signalstats::format::g(seconds(ts, self.time_base))
    }

    /// The stream ended: the stretch going on ends at the last picture's time.
    pub fn finish(&mut self) -> Option<Event> {
        let start = self.started.take()?;
        self.event(start, self.last?)
    }

    /// The stretch from `start` to `end` (pts, and its last black picture), if long enough.
    fn event(&self, (start, first): (i64, u64), (end, last): (i64, u64)) -> Option<Event> {
        if end - start < self.min_duration {
            return None;
        }
        let time = |ts: i64| seconds(ts, self.time_base);
        Some(Event {
            kind: EventKind::Black,
            start: time(start),
            end: Some(time(end)),
            duration: Some(time(end - start)),
            frames: Some((first, last.max(first))),
            channel: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_ffmpegs_at_each_depth_and_range() {
        let o = BlackOptions::default();
        // 16 + 0.1 * 219 = 37.9; 64 + 0.1 * 876 = 151.6; full range 0.1 * 255 = 25.5.
        assert_eq!(BlackDetect::new(o, 8, false, (1, 25)).threshold(), 37);
        assert_eq!(BlackDetect::new(o, 10, false, (1, 25)).threshold(), 151);
        assert_eq!(BlackDetect::new(o, 8, true, (1, 25)).threshold(), 25);
    }

    #[test]
    fn a_stretch_long_enough_is_an_event_from_its_first_picture_to_the_next() {
        let o = BlackOptions {
            min_duration: 0.2,
            ..BlackOptions::default()
        };
        // 10 fps in a 1/1000 time base: frames 3..=5 black (0.3 s up to 0.6 s), then 8..=9
        // black to the end (0.8 to 0.9: too short).
        let mut detect = BlackDetect::new(o, 8, false, (1, 1000));
        let mut events = Vec::new();
        for n in 0..10u64 {
            let black = if (3..=5).contains(&n) || n >= 8 { 99 } else { 50 };
            events.extend(detect.picture(n, n as i64 * 100, black, 100));
        }
        events.extend(detect.finish());
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!((events[0].start, events[0].end), (0.3, Some(0.6)));
        assert_eq!(events[0].frames, Some((3, 5)));
        // A histogram's samples under the threshold.
        let mut luma = vec![0u32; 256];
        (luma[37], luma[38]) = (5, 7);
        assert_eq!(detect.black_samples(&luma), 5);
    }
}
