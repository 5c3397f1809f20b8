//! The playback clock: media time as a function of wall time, at a speed, paused or running.
//! Below both the player (which paces frames by it) and the sound (which follows it, and which
//! it follows while the sound plays). Pure: time comes in as arguments.

use std::time::{Duration, Instant};

/// Slowest and fastest playback speeds.
pub const MIN_SPEED: f64 = 1.0 / 64.0;
pub const MAX_SPEED: f64 = 64.0;

/// Media time = `media` + (now − `anchor`) · `speed` while running; `media` while paused.
/// Re-anchored on every change, so changes never make the picture jump.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    anchor: Instant,
    media: f64,
    speed: f64,
    paused: bool,
}

impl Clock {
    pub fn new(now: Instant, media: f64, paused: bool) -> Self {
        Self {
            anchor: now,
            media,
            speed: 1.0,
            paused,
        }
    }

    pub fn paused(&self) -> bool {
        self.paused
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Seconds of media shown at `now`.
    pub fn media_time(&self, now: Instant) -> f64 {
        if self.paused {
            self.media
        } else {
            self.media + now.saturating_duration_since(self.anchor).as_secs_f64() * self.speed
        }
    }

    /// When the frame at `seconds` is due; None while paused (nothing is due).
    pub fn due(&self, seconds: f64) -> Option<Instant> {
        if self.paused {
            return None;
        }
        let wall = (seconds - self.media) / self.speed;
        Some(if wall >= 0.0 {
            self.anchor + Duration::from_secs_f64(wall)
        } else {
            // A time before the anchor: already due (Instant can't always go back that far).
            self.anchor
                .checked_sub(Duration::from_secs_f64(-wall))
                .unwrap_or(self.anchor)
        })
    }

    /// Shows `media` at `now` (a seek landed, or a frame was stepped to).
    pub fn set(&mut self, now: Instant, media: f64) {
        self.anchor = now;
        self.media = media;
    }

    pub fn pause(&mut self, now: Instant) {
        if !self.paused {
            self.media = self.media_time(now);
            self.anchor = now;
            self.paused = true;
        }
    }

    pub fn resume(&mut self, now: Instant) {
        if self.paused {
            self.anchor = now;
            self.paused = false;
        }
    }

    /// Changes the speed from `now` on, clamped to MIN_SPEED..=MAX_SPEED; returns the new one.
    pub fn set_speed(&mut self, now: Instant, speed: f64) -> f64 {
        self.media = self.media_time(now);
        self.anchor = now;
        // Snap near 1 so ×1.1 then ÷1.1 comes back to exactly 1.
        let speed = if (speed - 1.0).abs() < 1e-9 { 1.0 } else { speed };
        self.speed = speed.clamp(MIN_SPEED, MAX_SPEED);
        self.speed
    }
}

/// `m:ss.mmm`, or `h:mm:ss.mmm` from an hour on (the OSD's clock, the QC page's times).
pub fn format_time(seconds: f64) -> String {
    let millis = (seconds.max(0.0) * 1000.0).round() as u64;
    let (h, m, s, ms) = (
        millis / 3_600_000,
        millis / 60_000 % 60,
        millis / 1000 % 60,
        millis % 1000,
    );
    if h > 0 {
        format!("{h}:{m:02}:{s:02}.{ms:03}")
    } else {
        format!("{m:02}:{s:02}.{ms:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_clock_runs_at_its_speed_and_stops_when_paused() {
        let t0 = Instant::now();
        let mut clock = Clock::new(t0, 10.0, false);
        assert!((clock.media_time(t0 + ms(500)) - 10.5).abs() < 1e-9);
        clock.set_speed(t0 + ms(500), 2.0);
        assert!((clock.media_time(t0 + ms(1000)) - 11.5).abs() < 1e-9);
        clock.pause(t0 + ms(1000));
        assert!((clock.media_time(t0 + ms(5000)) - 11.5).abs() < 1e-9);
        assert_eq!(clock.due(12.0), None);
        clock.resume(t0 + ms(5000));
        assert!((clock.media_time(t0 + ms(5250)) - 12.0).abs() < 1e-9);
        assert_eq!(clock.due(12.0), Some(t0 + ms(5250)));
    }

    #[test]
    fn due_times_follow_the_speed_and_the_past_is_due_now() {
        let t0 = Instant::now();
        let mut clock = Clock::new(t0, 0.0, false);
        assert_eq!(clock.due(1.0), Some(t0 + ms(1000)));
        clock.set_speed(t0, 4.0);
        assert_eq!(clock.due(1.0), Some(t0 + ms(250)));
        assert!(clock.due(-1.0).is_some_and(|d| d <= t0));
    }

    #[test]
    fn speed_is_clamped_and_snaps_back_to_one() {
        let t0 = Instant::now();
        let mut clock = Clock::new(t0, 0.0, false);
        let mut speed = 1.0;
        for _ in 0..5 {
            speed = clock.set_speed(t0, speed * 1.1);
        }
        for _ in 0..5 {
            speed = clock.set_speed(t0, speed / 1.1);
        }
        assert_eq!(speed, 1.0);
        assert_eq!(clock.set_speed(t0, 1000.0), MAX_SPEED);
        assert_eq!(clock.set_speed(t0, 0.0), MIN_SPEED);
    }

    #[test]
    fn times_read_like_mpv() {
        assert_eq!(format_time(0.0), "00:00.000");
        assert_eq!(format_time(12.3456), "00:12.346");
        assert_eq!(format_time(61.0), "01:01.000");
        assert_eq!(format_time(3723.5), "1:02:03.500");
        assert_eq!(format_time(-1.0), "00:00.000");
    }
}
