//! `report --fail-on`: limits on the statistics, and the runs of frames beyond them — a QC gate
//! for scripts. Besides single limits, the QCTools community's broadcast profiles can be named
//! (qct-parse's `default`, `highTolerance`, `midTolerance` and `lowTolerance`, with `broadcast`
//! for `default`), their levels at the stream's depth.

use crate::signalstats::{format, NAMES};

/// A comparison a limit makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
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

/// One term of a `--fail-on`: a limit, a profile whose levels depend on the stream's depth, or
/// a limit on the sound.
#[derive(Clone, Debug, PartialEq)]
enum Term {
    Limit(Limit),
    Profile(Profile),
    Audio(AudioLimit),
}

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
    fn parse(text: &str) -> Option<Result<AudioLimit, String>> {
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
                if let Some(audio) = AudioLimit::parse(s) {
                    return audio.map(Term::Audio);
                }
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
                Term::Audio(_) => Vec::new(),
            })
            .collect()
    }

    /// The limits on the sound.
    pub fn audio(&self) -> Vec<AudioLimit> {
        self.0
            .iter()
            .filter_map(|term| match term {
                Term::Audio(limit) => Some(limit.clone()),
                _ => None,
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
    /// When its first and last frames were counted (for a live input, when they arrived).
    pub started: std::time::SystemTime,
    pub ended: std::time::SystemTime,
    /// Its frames are the sound's 100 ms frames, not pictures.
    pub audio: bool,
}

impl Run {
    /// The run as a line of `--alert-log`: `{"start":"2026-11-27T19:55:00.120Z","end":...,
    /// "frames":[120,131],"pts":[4.8,5.24],"limit":"YMAX>235","worst":241}`.
    pub fn alert_json(&self) -> String {
        format!(
            "{{\"start\":\"{}\",\"end\":\"{}\",\"frames\":[{},{}],\"pts\":[{},{}],\"limit\":{},\"worst\":{}}}",
            utc_timestamp(self.started),
            utc_timestamp(self.ended),
            self.first,
            self.last,
            self.first_pts,
            self.last_pts,
            serde_json::Value::from(self.limit.as_str()),
            serde_json::Value::from(self.worst)
        )
    }
}

/// `2026-11-27T19:55:00.120Z`: a time in UTC, to the millisecond, as RFC 3339 writes it.
pub fn utc_timestamp(time: std::time::SystemTime) -> String {
    let millis = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let (days, ms) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}frames {}-{} ({:.3}-{:.3} s), worst {}",
            self.limit,
            if self.audio { "audio " } else { "" },
            self.first,
            self.last,
            self.first_pts,
            self.last_pts,
            format::g(self.worst)
        )
    }
}

/// The runs beyond the limits: each one, in order of its first frame; or (`only_count_told`)
/// the count of those told as they ended, which a live input with no end can't keep.
#[derive(Debug, Default, PartialEq)]
pub struct Runs {
    pub listed: Vec<Run>,
    pub count: usize,
}

impl Runs {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Run> {
        self.listed.iter()
    }
}

impl<'a> IntoIterator for &'a Runs {
    type Item = &'a Run;
    type IntoIter = std::slice::Iter<'a, Run>;

    fn into_iter(self) -> Self::IntoIter {
        self.listed.iter()
    }
}

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
        let runs = watch.finish().listed;
        assert_eq!(runs.len(), 3);
        assert_eq!((runs[0].first, runs[0].last, runs[0].worst), (1, 2, 250.0));
        assert_eq!((runs[1].first, runs[1].last, runs[1].worst), (4, 5, 236.0));
        assert_eq!((runs[2].limit.as_str(), runs[2].first), ("BRNG>0.5", 5));
        assert_eq!(runs[0].to_string(), "YMAX>235: frames 1-2 (0.100-0.200 s), worst 250");
    }

    #[test]
    fn each_run_is_told_as_it_ends_with_its_wall_clock_times() {
        let closed = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let seen = std::rc::Rc::clone(&closed);
        let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235").unwrap())
            .on_close(Box::new(move |run: &Run| seen.borrow_mut().push((run.first, run.last))));
        for (k, y) in [240.0, 250.0, 100.0, 236.0].into_iter().enumerate() {
            watch.frame(k as u64, k as f64 / 25.0, &values(y, 0.0));
            // The first run is told of at frame 2, the frame after it; the second not yet.
            let told: Vec<(u64, u64)> = closed.borrow().clone();
            assert_eq!(told, if k < 2 { vec![] } else { vec![(0, 1)] }, "frame {k}");
        }
        let runs = watch.finish().listed;
        assert_eq!(*closed.borrow(), [(0, 1), (3, 3)]);
        assert!(runs[0].started <= runs[0].ended);
        let line: serde_json::Value = serde_json::from_str(&runs[1].alert_json()).unwrap();
        assert_eq!(line["frames"], serde_json::json!([3, 3]));
        assert_eq!(line["pts"], serde_json::json!([0.12, 0.12]));
        assert_eq!(line["limit"], "YMAX>235");
        assert_eq!(line["worst"], 236.0);
        assert_eq!(line["start"].as_str().unwrap().len(), "2026-11-27T19:55:00.120Z".len());
    }

    #[test]
    fn runs_told_as_they_end_are_only_counted_for_a_live_input() {
        let told = std::rc::Rc::new(std::cell::Cell::new(0));
        let seen = std::rc::Rc::clone(&told);
        let mut watch = LimitWatch::new(Limit::parse_list("YMAX>235").unwrap())
            .on_close(Box::new(move |_: &Run| seen.set(seen.get() + 1)))
            .only_count_told();
        for k in 0..1000 {
            let y = if k % 2 == 0 { 240.0 } else { 100.0 };
            watch.frame(k, k as f64 / 25.0, &values(y, 0.0));
        }
        let runs = watch.finish();
        assert_eq!((runs.len(), told.get()), (500, 500));
        assert!(runs.listed.is_empty());
    }

    #[test]
    fn utc_timestamps_are_rfc_3339_to_the_millisecond() {
        let at = |ms: u64| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
        assert_eq!(utc_timestamp(at(0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_timestamp(at(1_700_000_000_123)), "2023-11-14T22:13:20.123Z");
        assert_eq!(utc_timestamp(at(951_782_400_000)), "2000-02-29T00:00:00.000Z");
        assert_eq!(utc_timestamp(at(1_795_824_000_999)), "2026-11-28T00:00:00.999Z");
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
