//! The watch that follows each picture limit over the frames, in order, and collects (or tells)
//! the runs beyond them.

use super::{Limit, Run, Runs};

/// What is told of each run beyond a limit as it ends.
pub type OnClose = Box<dyn FnMut(&Run)>;

/// Follows each limit over the frames, in order, and collects the runs beyond them.
pub struct LimitWatch {
    limits: Vec<Limit>,
    open: Vec<Option<Run>>,
    runs: Runs,
    /// Told of each run as it ends (a live input's alerts).
    on_close: Option<OnClose>,
    /// Runs told are counted, not kept.
    only_count_told: bool,
}

impl LimitWatch {
    pub fn new(limits: Vec<Limit>) -> Self {
        let open = vec![None; limits.len()];
        Self {
            limits,
            open,
            runs: Runs::default(),
            on_close: None,
            only_count_told: false,
        }
    }

    /// Calls `on_close` with each run as it ends: when a frame within the limit, or not next
    /// to it, follows it, or at the end.
    pub fn on_close(mut self, on_close: OnClose) -> Self {
        self.on_close = Some(on_close);
        self
    }

    /// Runs told as they end (`on_close`) are counted, not kept: a live input's report may run
    /// for days.
    pub fn only_count_told(mut self) -> Self {
        self.only_count_told = true;
        self
    }

    fn close(&mut self, run: Run) {
        self.runs.count += 1;
        if let Some(on_close) = &mut self.on_close {
            on_close(&run);
            if self.only_count_told {
                return;
            }
        }
        self.runs.listed.push(run);
    }

    /// Frame `frame` at `pts` with these values (in `NAMES` order).
    pub fn frame(&mut self, frame: u64, pts: f64, values: &[f64; 31]) {
        let now = std::time::SystemTime::now();
        let mut closed = Vec::new();
        for (limit, open) in self.limits.iter().zip(&mut self.open) {
            let v = values[limit.stat];
            if !limit.beyond(v) {
                closed.extend(open.take());
                continue;
            }
            match open {
                // A run goes on only over consecutive frames.
                Some(run) if run.last + 1 == frame => {
                    run.last = frame;
                    run.last_pts = pts;
                    run.ended = now;
                    if limit.worse(v, run.worst) {
                        run.worst = v;
                    }
                }
                _ => {
                    closed.extend(open.take());
                    *open = Some(Run {
                        limit: limit.text.clone(),
                        first: frame,
                        last: frame,
                        first_pts: pts,
                        last_pts: pts,
                        worst: v,
                        started: now,
                        ended: now,
                        audio: false,
                    });
                }
            }
        }
        for run in closed {
            self.close(run);
        }
    }

    /// Makes `list` the limits the last frame was beyond (unchanged, as it mostly is, it is
    /// left alone: nothing is allocated per frame).
    pub fn note_beyond(&self, list: &mut Vec<String>) {
        let beyond = self.open.iter().flatten().map(|run| &run.limit);
        if !beyond.clone().eq(list.iter()) {
            *list = beyond.cloned().collect();
        }
    }

    /// Every run, the last ones closed, in order of their first frame.
    pub fn finish(mut self) -> Runs {
        for run in std::mem::take(&mut self.open).into_iter().flatten() {
            self.close(run);
        }
        self.runs.listed.sort_by_key(|r| r.first);
        self.runs
    }
}
