//! Limits on the sound (`silence>2s`, `clip>0`) and the watch that follows them over the
//! report's 100 ms audio frames.

use super::{Op, Run};

/// A limit on the sound, over the report's 100 ms audio frames: silence (every sample under
/// -60 dBFS) lasting longer than `silence>2s`, or frames with more samples at full scale than
/// `clip>0`.
#[derive(Clone, Debug, PartialEq)]
pub enum AudioLimit {
    Silence { text: String, seconds: f64 },
    Clip { text: String, op: Op, count: f64 },
}

/// A sample under this is silent (-60 dBFS, as FFmpeg's `silencedetect` by default).
const SILENCE_LEVEL: f64 = 0.001;

impl AudioLimit {
    /// `silence>2s` (or `silence>2`), `clip>0`, `clip>=10`; None for what names neither.
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
            ("silence", rest) => match rest.strip_prefix('>') {
                Some(v) if !v.starts_with('=') => {
                    number(v.trim().trim_end_matches('s')).map(|seconds| AudioLimit::Silence {
                        text: text.to_string(),
                        seconds,
                    })
                }
                _ => Err(format!(
                    "'{text}': silence takes a length it must not last beyond, as silence>2s"
                )),
            },
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

    fn text(&self) -> &str {
        match self {
            AudioLimit::Silence { text, .. } | AudioLimit::Clip { text, .. } => text,
        }
    }
}

/// Follows the limits on the sound over its audio frames, in order, and collects the runs
/// beyond them: silences longer than allowed (their worst: how long they lasted), and frames
/// clipping (their worst: the most samples at full scale in one frame).
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

    /// One audio frame: its number, time and length, its loudest sample (1 = full scale) and
    /// its samples at full scale.
    pub fn frame(&mut self, index: u64, (time, duration): (f64, f64), peak: f64, clipped: u64) {
        for (limit, open) in self.limits.iter().zip(&mut self.open) {
            let (beyond, value) = match limit {
                AudioLimit::Silence { .. } => (peak < SILENCE_LEVEL, duration),
                AudioLimit::Clip { op, count, .. } => {
                    let n = clipped as f64;
                    (if *op == Op::AtLeast { n >= *count } else { n > *count }, n)
                }
            };
            if !beyond {
                if let Some(run) = open.take() {
                    close_audio_run(limit, run, &mut self.runs);
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
            run.worst = match limit {
                AudioLimit::Silence { .. } => run.worst + value,
                AudioLimit::Clip { .. } => run.worst.max(value),
            };
        }
    }

    /// The runs, once the sound has ended.
    pub fn finish(mut self) -> Vec<Run> {
        for (limit, open) in self.limits.iter().zip(&mut self.open) {
            if let Some(run) = open.take() {
                close_audio_run(limit, run, &mut self.runs);
            }
        }
        self.runs.sort_by_key(|r| r.first);
        self.runs
    }
}

/// A run that ended is kept where it is beyond its limit (a silence only once it lasted
/// longer than allowed).
fn close_audio_run(limit: &AudioLimit, mut run: Run, runs: &mut Vec<Run>) {
    if let AudioLimit::Silence { seconds, .. } = limit {
        if run.worst <= *seconds {
            return;
        }
        run.worst = (run.worst * 1000.0).round() / 1000.0;
    }
    runs.push(run);
}
