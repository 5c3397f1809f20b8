//! What the window shows of a live input: the arrival-to-display latency of its frames (the
//! median and 95th percentile of the last seconds) and the wall-clock time. Pure but for the
//! clock read, so the statistics are tested without a stream.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the latency figures look.
const WINDOW: Duration = Duration::from_secs(5);

/// A live input's state on the OSD.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveView {
    /// No frame has arrived for a while: "no signal" over the last one.
    pub no_signal: bool,
    /// Arrival-to-display latency in milliseconds, median and 95th percentile.
    pub latency_ms: Option<(f64, f64)>,
    /// The local time, `HH:MM:SS`.
    pub wall_clock: String,
    /// Timeshifted: seconds behind the newest frame, and the seconds the window holds.
    pub behind: Option<(f64, f64)>,
    /// The seconds the timeshift window holds, where there is one.
    pub window: Option<f64>,
    /// The frame's SMPTE timecode, where the stream carries one.
    pub timecode: Option<crate::video::timecode::Timecode>,
}

/// The latency of the frames shown lately: from the arrival of each frame's packet to the
/// present that showed it.
#[derive(Debug, Default)]
pub struct Latency {
    shown: VecDeque<(Instant, Duration)>,
}

impl Latency {
    /// A frame that arrived at `arrived` was presented at `at`; its latency.
    pub fn shown(&mut self, arrived: Instant, at: Instant) -> Duration {
        let latency = at.saturating_duration_since(arrived);
        self.shown.push_back((at, latency));
        while self
            .shown
            .front()
            .is_some_and(|&(t, _)| at.saturating_duration_since(t) > WINDOW)
        {
            self.shown.pop_front();
        }
        latency
    }

    /// The median and 95th percentile (nearest rank) of the last seconds, in milliseconds.
    pub fn percentiles(&self) -> Option<(f64, f64)> {
        let mut values: Vec<Duration> = self.shown.iter().map(|&(_, l)| l).collect();
        if values.is_empty() {
            return None;
        }
        values.sort();
        let rank = |p: f64| values[((p * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        Some((ms(rank(0.5)), ms(rank(0.95))))
    }
}

/// The local time now, `HH:MM:SS`.
pub fn wall_clock() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut local = libc_tm();
    let seconds = now as libc::time_t;
    // SAFETY: localtime_r reads one time_t and writes one tm it is given.
    let ok = unsafe { !libc::localtime_r(&seconds, &mut local).is_null() };
    if ok {
        format!("{:02}:{:02}:{:02}", local.tm_hour, local.tm_min, local.tm_sec)
    } else {
        let day = now % 86_400;
        format!("{:02}:{:02}:{:02} UTC", day / 3600, day / 60 % 60, day % 60)
    }
}

fn libc_tm() -> libc::tm {
    // SAFETY: tm is plain data; all zeroes is a valid value.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_is_the_median_and_95th_percentile_of_the_last_seconds() {
        let mut latency = Latency::default();
        assert_eq!(latency.percentiles(), None);
        let start = Instant::now();
        // 100 frames at 50 fps: latencies 10..=109 ms.
        for i in 0..100u64 {
            let at = start + Duration::from_millis(20 * i);
            let shown = latency.shown(at - Duration::from_millis(10 + i), at);
            assert_eq!(shown, Duration::from_millis(10 + i));
        }
        // The window holds the frames of the last 5 s: all of them (1.98 s).
        assert_eq!(latency.percentiles(), Some((59.0, 104.0)));
        // 10 s later, only the new frame counts.
        let later = start + Duration::from_secs(12);
        latency.shown(later - Duration::from_millis(33), later);
        assert_eq!(latency.percentiles(), Some((33.0, 33.0)));
    }

    #[test]
    fn the_wall_clock_reads_hours_minutes_seconds() {
        let clock = wall_clock();
        let parts: Vec<&str> = clock.split(' ').next().unwrap().split(':').collect();
        assert_eq!(parts.len(), 3, "{clock}");
        assert!(
            parts.iter().all(|p| p.len() == 2 && p.parse::<u32>().is_ok()),
            "{clock}"
        );
    }
}
