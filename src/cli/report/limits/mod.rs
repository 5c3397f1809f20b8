//! `report --fail-on`: limits on the statistics, and the runs of frames beyond them — a QC gate
//! for scripts. Besides single limits, the QCTools community's broadcast profiles can be named
//! (qct-parse's `default`, `highTolerance`, `midTolerance` and `lowTolerance`, with `broadcast`
//! for `default`), their levels at the stream's depth.

mod audio;
mod event;
mod profile;
mod run;
#[cfg(test)]
mod tests;
mod watch;

pub use audio::{AudioLimit, AudioWatch};
pub use event::EventLimit;
pub use profile::{Profile, PROFILES};
pub use run::{utc_timestamp, Run, Runs};
pub use watch::{LimitWatch, OnClose};

use crate::signalstats::NAMES;

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

/// One term of a `--fail-on`: a limit, a profile whose levels depend on the stream's depth, or
/// a limit on the sound.
#[derive(Clone, Debug, PartialEq)]
enum Term {
    Limit(Limit),
    Profile(Profile),
    Audio(AudioLimit),
    Event(EventLimit),
    /// `idet`: frames whose content (FFmpeg's idet) contradicts their flags.
    Idet,
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
                if s.eq_ignore_ascii_case("idet") {
                    return Ok(Term::Idet);
                }
                if let Some(event) = EventLimit::parse(s) {
                    return event.map(Term::Event);
                }
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
                Term::Audio(_) | Term::Event(_) | Term::Idet => Vec::new(),
            })
            .collect()
    }

    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether frames whose content contradicts their flags fail (`idet`).
    pub fn idet(&self) -> bool {
        self.0.contains(&Term::Idet)
    }

    /// The limits on events.
    pub fn events(&self) -> Vec<EventLimit> {
        self.0
            .iter()
            .filter_map(|term| match term {
                Term::Event(limit) => Some(limit.clone()),
                _ => None,
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

    /// The limits that follow the sound (`clip>0`, `silence>2s`), as written.
    pub fn on_sound(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|term| match term {
                Term::Audio(limit) => Some(limit.text()),
                Term::Event(limit) if limit.kind == crate::events::EventKind::Silence => Some(limit.text.as_str()),
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
