//! A progress line on stderr for long headless runs (`hist --frames 0..` over a film,
//! `timeline`): a bar, frames done, rate and time left, redrawn in place twice a second by
//! indicatif, only when stderr is a terminal; several at once for a batch of files.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

/// How often the line is redrawn: twice a second.
const REDRAWS_PER_SECOND: u8 = 2;

/// One run's progress line (an indicatif bar drawing `line`), on stderr, drawn only when stderr
/// is a terminal.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    /// Frames to do in all, when known (or estimated).
    total: Option<u64>,
}

impl Progress {
    /// A progress line for `total` frames (if known), shown only on a terminal.
    pub fn new(total: Option<u64>) -> Self {
        let target = ProgressDrawTarget::stderr_with_hz(REDRAWS_PER_SECOND);
        Self::on(ProgressBar::with_draw_target(total, target), total)
    }

    /// A progress line drawn nowhere (a run inside a benchmark).
    pub fn hidden() -> Self {
        Self::on(ProgressBar::hidden(), None)
    }

    fn on(bar: ProgressBar, total: Option<u64>) -> Self {
        bar.set_style(ProgressStyle::with_template("{msg}").expect("a plain template"));
        Self {
            bar,
            started: Instant::now(),
            total,
        }
    }

    /// `done` frames are done.
    pub fn tick(&mut self, done: u64) {
        // Not before the first half second: short runs show nothing.
        let elapsed = self.started.elapsed();
        if elapsed < Duration::from_millis(1000 / u64::from(REDRAWS_PER_SECOND)) || self.bar.is_hidden() {
            return;
        }
        self.bar.set_position(done);
        self.bar.set_message(line(done, self.total, elapsed));
    }

    /// Clears the line (the output that follows is the command's own).
    pub fn finish(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Progress lines of several runs at once, one per file, drawn together (a batch over many
/// files: `report DIR`).
pub struct ProgressGroup(MultiProgress);

impl ProgressGroup {
    /// The group, shown only when stderr is a terminal.
    pub fn new() -> Self {
        Self(MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(
            REDRAWS_PER_SECOND,
        )))
    }

    /// A line of the group for a run of `total` frames.
    pub fn add(&self, total: Option<u64>) -> Progress {
        Progress::on(self.0.add(ProgressBar::new(total.unwrap_or(0))), total)
    }
}

impl Default for ProgressGroup {
    fn default() -> Self {
        Self::new()
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
    use super::{line, Progress, ProgressGroup};
    use std::time::Duration;

    #[test]
    fn nothing_is_drawn_where_stderr_is_not_a_terminal() {
        // Where stderr is a pipe (CI, scripts) the bars exist but draw nothing.
        let piped = !std::io::IsTerminal::is_terminal(&std::io::stderr());
        let mut progress = Progress::new(Some(10));
        assert_eq!(progress.bar.is_hidden(), piped);
        progress.tick(5);
        progress.finish();
        let group = ProgressGroup::new();
        assert_eq!(group.add(Some(3)).bar.is_hidden(), piped);
    }

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
