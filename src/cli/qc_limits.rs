//! `report --fail-on`: limits on the statistics, and the runs of frames beyond them — a QC gate
//! for scripts.

use crate::signalstats::{format, NAMES};

/// A comparison a limit makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Above,
    AtLeast,
    Below,
    AtMost,
}

/// One limit: `YMAX>235`, `BRNG>=0.01`, `YMIN<16`.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    text: String,
    stat: usize,
    op: Op,
    value: f64,
}

/// The limits of one `--fail-on`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Limits(pub Vec<Limit>);

impl Limits {
    /// Limits separated by commas. A name is one of `NAMES` (any case).
    pub fn parse(spec: &str) -> Result<Limits, String> {
        spec.split(',')
            .map(|s| Limit::parse(s.trim()))
            .collect::<Result<_, _>>()
            .map(Limits)
    }
}

impl Limit {
    #[cfg(test)]
    fn parse_list(spec: &str) -> Result<Vec<Limit>, String> {
        Limits::parse(spec).map(|l| l.0)
    }

    fn parse(text: &str) -> Result<Limit, String> {
        let at = text
            .find(['<', '>'])
            .ok_or_else(|| format!("'{text}' is not a limit like YMAX>235 or BRNG>0.01"))?;
        let (name, rest) = text.split_at(at);
        let (op, value) = match (rest.as_bytes()[0], rest.as_bytes().get(1)) {
            (b'>', Some(b'=')) => (Op::AtLeast, &rest[2..]),
            (b'<', Some(b'=')) => (Op::AtMost, &rest[2..]),
            (b'>', _) => (Op::Above, &rest[1..]),
            _ => (Op::Below, &rest[1..]),
        };
        let name = name.trim();
        let stat = NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| format!("'{name}' in '{text}' is not one of {}", NAMES.join(", ")))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("'{}' in '{text}' is not a number", value.trim()))?;
        Ok(Limit {
            text: text.to_string(),
            stat,
            op,
            value,
        })
    }

    fn beyond(&self, v: f64) -> bool {
        match self.op {
            Op::Above => v > self.value,
            Op::AtLeast => v >= self.value,
            Op::Below => v < self.value,
            Op::AtMost => v <= self.value,
        }
    }

    /// Whether `a` is further beyond the limit than `b`.
    fn worse(&self, a: f64, b: f64) -> bool {
        match self.op {
            Op::Above | Op::AtLeast => a > b,
            Op::Below | Op::AtMost => a < b,
        }
    }
}

/// Consecutive frames beyond one limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub limit: String,
    pub first: u64,
    pub last: u64,
    pub first_pts: f64,
    pub last_pts: f64,
    pub worst: f64,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: frames {}-{} ({:.3}-{:.3} s), worst {}",
            self.limit,
            self.first,
            self.last,
            self.first_pts,
            self.last_pts,
            format::g(self.worst)
        )
    }
}

/// Follows each limit over the frames, in order, and collects the runs beyond them.
pub struct LimitWatch {
    limits: Vec<Limit>,
    open: Vec<Option<Run>>,
    pub runs: Vec<Run>,
}

impl LimitWatch {
    pub fn new(limits: Vec<Limit>) -> Self {
        let open = vec![None; limits.len()];
        Self {
            limits,
            open,
            runs: Vec::new(),
        }
    }

    /// Frame `frame` at `pts` with these values (in `NAMES` order).
    pub fn frame(&mut self, frame: u64, pts: f64, values: &[f64; 31]) {
        for (limit, open) in self.limits.iter().zip(&mut self.open) {
            let v = values[limit.stat];
            if !limit.beyond(v) {
                if let Some(run) = open.take() {
                    self.runs.push(run);
                }
                continue;
            }
            match open {
                // A run goes on only over consecutive frames.
                Some(run) if run.last + 1 == frame => {
                    run.last = frame;
                    run.last_pts = pts;
                    if limit.worse(v, run.worst) {
                        run.worst = v;
                    }
                }
                _ => {
                    if let Some(run) = open.take() {
                        self.runs.push(run);
                    }
                    *open = Some(Run {
                        limit: limit.text.clone(),
                        first: frame,
                        last: frame,
                        first_pts: pts,
                        last_pts: pts,
                        worst: v,
                    });
                }
            }
        }
    }

    /// Every run, the last ones closed, in order of their first frame.
    pub fn finish(mut self) -> Vec<Run> {
        self.runs.extend(self.open.into_iter().flatten());
        self.runs.sort_by_key(|r| r.first);
        self.runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(ymax: f64, brng: f64) -> [f64; 31] {
        let mut v = [0.0; 31];
        v[4] = ymax;
        v[30] = brng;
        v
    }

    #[test]
    fn limits_parse_and_bad_ones_are_named() {
        let l = Limit::parse_list("YMAX>235, brng>=0.01,YMIN<16").unwrap();
        assert_eq!((l[0].stat, l[0].op, l[0].value), (4, Op::Above, 235.0));
        assert_eq!((l[1].stat, l[1].op), (30, Op::AtLeast));
        assert_eq!(l[2].op, Op::Below);
        assert!(Limit::parse_list("YMAX=235").unwrap_err().contains("not a limit"));
        assert!(Limit::parse_list("YMAXX>235").unwrap_err().contains("'YMAXX'"));
        assert!(Limit::parse_list("YMAX>abc").unwrap_err().contains("'abc'"));
    }

    #[test]
    fn runs_cover_consecutive_frames_beyond_a_limit() {
        let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235,BRNG>0.5").unwrap());
        let ymax = [100.0, 240.0, 250.0, 100.0, 236.0, 236.0];
        for (k, &y) in ymax.iter().enumerate() {
            watch.frame(k as u64, k as f64 / 10.0, &values(y, if k == 5 { 0.9 } else { 0.0 }));
        }
        let runs = watch.finish();
        assert_eq!(runs.len(), 3);
        assert_eq!((runs[0].first, runs[0].last, runs[0].worst), (1, 2, 250.0));
        assert_eq!((runs[1].first, runs[1].last, runs[1].worst), (4, 5, 236.0));
        assert_eq!((runs[2].limit.as_str(), runs[2].first), ("BRNG>0.5", 5));
        assert_eq!(runs[0].to_string(), "YMAX>235: frames 1-2 (0.100-0.200 s), worst 250");
    }
}
