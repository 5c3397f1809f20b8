//! A progress line on stderr for long headless runs (`hist --frames 0..` over a film,
//! `timeline`): a bar, frames done, rate and time left, redrawn in place twice a second, only
//! when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(500);

pub struct Progress {
    started: Instant,
    shown: Option<Instant>,
    /// Frames to do in all, when known (or estimated).
    total: Option<u64>,
    enabled: bool,
}

impl Progress {
    /// A progress line for `total` frames (if known), shown only on a terminal.
    pub fn new(total: Option<u64>) -> Self {
        Self {
            started: Instant::now(),
            shown: None,
            total,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// `done` frames are done.
    pub fn tick(&mut self, done: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self.shown.is_some_and(|t| now - t < EVERY) || now - self.started < EVERY {
            return;
        }
        self.shown = Some(now);
        let line = line(done, self.total, now - self.started);
        let _ = write!(std::io::stderr(), "\r\x1b[K{line}");
    }

    /// Clears the line (the output that follows is the command's own).
    pub fn finish(&mut self) {
        if self.enabled && self.shown.is_some() {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Width of the bar, in characters.
const BAR: u64 = 20;

/// `[##------------------]  5% 12000 / ~216000 frames, 850 fps, 4m 00s left`; without a total,
/// `12000 frames, 850 fps`.
pub fn line(done: u64, total: Option<u64>, elapsed: Duration) -> String {
    let fps = done as f64 / elapsed.as_secs_f64().max(1e-9);
    let mut text = match total {
        Some(total) => {
            let filled = (done.min(total) * BAR / total.max(1)) as usize;
            let bar = format!("{}{}", "#".repeat(filled), "-".repeat(BAR as usize - filled));
            let percent = done.min(total) * 100 / total.max(1);
            format!("[{bar}] {percent:>2}% {done} / ~{total} frames, {fps:.0} fps")
        }
        None => format!("{done} frames, {fps:.0} fps"),
    };
    if let Some(total) = total.filter(|&t| t > done && fps > 0.0) {
        let left = ((total - done) as f64 / fps).round() as u64;
        text.push_str(&format!(", {}m {:02}s left", left / 60, left % 60));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::line;
    use std::time::Duration;

    #[test]
    fn the_line_says_done_rate_and_time_left() {
        let s = Duration::from_secs;
        assert_eq!(
            line(12_000, Some(216_000), s(10)),
            "[#-------------------]  5% 12000 / ~216000 frames, 1200 fps, 2m 50s left"
        );
        assert_eq!(line(500, None, s(2)), "500 frames, 250 fps");
        assert_eq!(
            line(10, Some(10), s(1)),
            "[####################] 100% 10 / ~10 frames, 10 fps"
        );
        // An estimate the count outgrows stays full.
        assert!(line(12, Some(10), s(1)).starts_with("[####################] 100% 12 / ~10"));
    }
}
