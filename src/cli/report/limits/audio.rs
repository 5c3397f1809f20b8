//! Limits on the sound's samples (`clip>0`) and the watch that follows them over the report's
//! 100 ms audio frames (silence is an event: `event.rs`).

use super::{Op, Run};

/// A limit on the sound, over the report's 100 ms audio frames: frames with more samples at
/// full scale than `clip>0`.
#[derive(Clone, Debug, PartialEq)]
pub enum AudioLimit {
    Clip { text: String, op: Op, count: f64 },
}

impl AudioLimit {
    /// `clip>0`, `clip>=10`; None for what names no limit on the sound.
    pub(super) fn parse(text: &str) -> Option<Result<AudioLimit, String>> {
        let lower = text.to_ascii_lowercase();
        let (name, rest) = lower.split_at(lower.find(['<', '>'])?);
        let number = |v: &str| -> Result<f64, String> {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("'{}' in '{text}' is not a number", v.trim()))
        };
        Some(match (name.trim(), rest) {
            ("clip", rest) => {
                let (op, v) = match rest.strip_prefix(">=") {
                    Some(v) => (Op::AtLeast, v),
                    None => match rest.strip_prefix('>') {
                        Some(v) => (Op::Above, v),
                        None => return Some(Err(format!("'{text}': clip takes a count to stay under, as clip>0"))),
                    },
                };
                number(v).map(|count| AudioLimit::Clip {
                    text: text.to_string(),
                    op,
                    count,
                })
            }
            _ => return None,
        })
    }

    pub(super) fn text(&self) -> &str {
        match self {
            AudioLimit::Clip { text, .. } => text,
        }
    }
}

/// Follows the limits on the sound over its audio frames, in order, and collects the runs
/// beyond them: frames clipping (their worst: the most samples at full scale in one frame).
pub struct AudioWatch {
    limits: Vec<AudioLimit>,
    /// Per limit, the run going on: its first and last frames and times, and its worst.
    open: Vec<Option<Run>>,
    runs: Vec<Run>,
}

impl AudioWatch {
    pub fn new(limits: Vec<AudioLimit>) -> Self {
        Self {
            open: vec![None; limits.len()],
            limits,
            runs: Vec::new(),
        }
    }

    /// One audio frame: its number, time, and its samples at full scale.
    pub fn frame(&mut self, index: u64, time: f64, clipped: u64) {
        for (limit, open) in self.limits.iter().zip(&mut self.open) {
            let (beyond, value) = match limit {
                AudioLimit::Clip { op, count, .. } => {
                    let n = clipped as f64;
                    (if *op == Op::AtLeast { n >= *count } else { n > *count }, n)
                }
            };
            if !beyond {
                if let Some(run) = open.take() {
                    self.runs.push(run);
                }
                continue;
            }
            let now = std::time::SystemTime::now();
            let run = open.get_or_insert_with(|| Run {
                limit: limit.text().to_string(),
                first: index,
                last: index,
                first_pts: time,
                last_pts: time,
                worst: 0.0,
                started: now,
                ended: now,
                audio: true,
            });
            (run.last, run.last_pts, run.ended) = (index, time, now);
            run.worst = run.worst.max(value);
        }
    }

    /// The runs that ended since last asked (a live input's, told as they end).
    pub fn take_closed(&mut self) -> Vec<Run> {
        std::mem::take(&mut self.runs)
    }

    /// The runs, once the sound has ended.
    pub fn finish(mut self) -> Vec<Run> {
        self.runs.extend(self.open.iter_mut().filter_map(Option::take));
        self.runs.sort_by_key(|r| r.first);
        self.runs
    }
}
