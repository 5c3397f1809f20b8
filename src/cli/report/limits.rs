//! `report --fail-on`: limits on the statistics, and the runs of frames beyond them — a QC gate
//! for scripts. Besides single limits, the QCTools community's broadcast profiles can be named
//! (qct-parse's `default`, `highTolerance`, `midTolerance` and `lowTolerance`, with `broadcast`
//! for `default`), their levels at the stream's depth.

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

/// A named set of limits, as qct-parse's profiles give them at 8 bits: the stat, and the level
/// a frame fails below (`MIN` and `LOW` stats) or above (the others).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    levels: &'static [(&'static str, f64)],
}

/// Limits every profile shares: saturation beyond what legal colours reach, temporal outliers
/// and repeated lines.
const COMMON: [(&str, f64); 3] = [("SATMAX", 181.02), ("TOUT", 0.009), ("VREP", 0.03)];

/// qct-parse's profiles (its 8-bit configuration; the 10-bit one is the same levels scaled).
pub const PROFILES: [Profile; 4] = [
    Profile {
        name: "default",
        levels: &[
            ("YLOW", 16.0),
            ("YHIGH", 235.0),
            ("ULOW", 16.0),
            ("UHIGH", 235.0),
            ("VLOW", 0.0),
            ("VHIGH", 255.0),
        ],
    },
    Profile {
        name: "highTolerance",
        levels: &[
            ("YLOW", 10.0),
            ("YMAX", 250.0),
            ("UMIN", 16.0),
            ("UMAX", 250.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
    Profile {
        name: "midTolerance",
        levels: &[
            ("YLOW", 10.0),
            ("YMAX", 245.0),
            ("UMIN", 16.0),
            ("UMAX", 245.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
    Profile {
        name: "lowTolerance",
        levels: &[
            ("YLOW", 16.0),
            ("YMAX", 235.0),
            ("UMIN", 16.0),
            ("UMAX", 235.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
];

impl Profile {
    /// The profile called `name` (any case); `broadcast` is `default`.
    pub fn named(name: &str) -> Option<Profile> {
        let name = if name.eq_ignore_ascii_case("broadcast") {
            "default"
        } else {
            name
        };
        PROFILES.into_iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Its limits for a stream of `bits` per sample: code levels scaled by 2^(bits-8), the
    /// 8-bit maximum 255 becoming 2^bits-1 (qct-parse's 10-bit levels: 64, 940, 1000, 1023);
    /// saturation and the fractions as they are.
    pub fn limits(&self, bits: u32) -> Vec<Limit> {
        let scale = f64::from(1u32 << bits.saturating_sub(8).min(16));
        let top = f64::from((1u32 << bits.min(16)) - 1);
        let code = |v: f64| if v == 255.0 { top } else { v * scale };
        let levels = self.levels.iter().map(|&(name, v)| (name, code(v)));
        levels
            .chain(COMMON)
            .map(|(name, value)| {
                let stat = NAMES.iter().position(|n| *n == name).expect("a statistic's name");
                let op = if name.contains("MIN") || name.contains("LOW") {
                    Op::Below
                } else {
                    Op::Above
                };
                let sign = if op == Op::Below { '<' } else { '>' };
                Limit {
                    text: format!("{name}{sign}{} ({})", format::g(value), self.name),
                    stat,
                    op,
                    value,
                }
            })
            .collect()
    }
}

/// One term of a `--fail-on`: a limit, or a profile whose levels depend on the stream's depth.
#[derive(Clone, Debug, PartialEq)]
enum Term {
    Limit(Limit),
    Profile(Profile),
}

/// The limits of one `--fail-on`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Limits(Vec<Term>);

impl Limits {
    /// Limits and profile names separated by commas. A limit's name is one of `NAMES` (any
    /// case).
    pub fn parse(spec: &str) -> Result<Limits, String> {
        spec.split(',')
            .map(|s| {
                let s = s.trim();
                match Profile::named(s) {
                    Some(profile) => Ok(Term::Profile(profile)),
                    None => Limit::parse(s).map(Term::Limit),
                }
            })
            .collect::<Result<_, _>>()
            .map(Limits)
    }

    /// Every limit, for a stream of `bits` per sample.
    pub fn at_depth(&self, bits: u32) -> Vec<Limit> {
        self.0
            .iter()
            .flat_map(|term| match term {
                Term::Limit(limit) => vec![limit.clone()],
                Term::Profile(profile) => profile.limits(bits),
            })
            .collect()
    }
}

impl Limit {
    #[cfg(test)]
    fn parse_list(spec: &str) -> Result<Vec<Limit>, String> {
        Limits::parse(spec).map(|l| l.at_depth(8))
    }

    fn parse(text: &str) -> Result<Limit, String> {
        let at = text.find(['<', '>']).ok_or_else(|| {
            let profiles: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            format!(
                "'{text}' is not a limit like YMAX>235 or BRNG>0.01, nor a profile ({}, broadcast)",
                profiles.join(", ")
            )
        })?;
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

    #[test]
    fn profiles_are_qct_parses_at_8_and_10_bits() {
        let texts = |spec: &str, bits| -> Vec<String> {
            Limits::parse(spec)
                .unwrap()
                .at_depth(bits)
                .iter()
                .map(|l| l.text.clone())
                .collect()
        };
        assert_eq!(
            texts("broadcast", 8),
            [
                "YLOW<16 (default)",
                "YHIGH>235 (default)",
                "ULOW<16 (default)",
                "UHIGH>235 (default)",
                "VLOW<0 (default)",
                "VHIGH>255 (default)",
                "SATMAX>181.02 (default)",
                "TOUT>0.009 (default)",
                "VREP>0.03 (default)",
            ]
        );
        // qct-parse's 10-bit configuration, level for level.
        assert_eq!(
            texts("HIGHTOLERANCE", 10)[..6],
            [
                "YLOW<40 (highTolerance)",
                "YMAX>1000 (highTolerance)",
                "UMIN<64 (highTolerance)",
                "UMAX>1000 (highTolerance)",
                "VMIN<0 (highTolerance)",
                "VMAX>1023 (highTolerance)",
            ]
        );
        assert_eq!(texts("midTolerance", 10)[1], "YMAX>980 (midTolerance)");
        assert_eq!(
            texts("lowTolerance", 10)[..2],
            ["YLOW<64 (lowTolerance)", "YMAX>940 (lowTolerance)"]
        );
        assert_eq!(texts("default", 10)[..2], ["YLOW<64 (default)", "YHIGH>940 (default)"]);
        // A profile and limits together; a LOW stat fails below its level, others above.
        let limits = Limit::parse_list("default,BRNG>0.01").unwrap();
        assert_eq!(limits.len(), 10);
        assert!(limits[0].beyond(15.0) && !limits[0].beyond(16.0));
        assert!(limits[1].beyond(236.0) && !limits[1].beyond(235.0));
        assert!(Limit::parse_list("strict").unwrap_err().contains("nor a profile"));
    }
}
