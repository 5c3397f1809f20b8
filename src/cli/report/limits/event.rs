//! Limits on events (`black>2s`, `freeze>2s`, `silence>2s`): a black stretch, frozen picture or
//! silence, as FFmpeg's detectors find them, lasting longer than the limit.

use crate::events::EventKind;

/// `black>2s`: an event of `kind` must not last longer than `seconds`.
#[derive(Clone, Debug, PartialEq)]
pub struct EventLimit {
    pub text: String,
    pub kind: EventKind,
    pub seconds: f64,
}

impl EventLimit {
    /// `black>2s` (or `black>2`), `freeze>0.5s`, `silence>2s`; None for what names none.
    pub(super) fn parse(text: &str) -> Option<Result<EventLimit, String>> {
        let lower = text.to_ascii_lowercase();
        let (name, rest) = lower.split_at(lower.find(['<', '>'])?);
        let kind = match name.trim() {
            "black" => EventKind::Black,
            "freeze" => EventKind::Freeze,
            "silence" => EventKind::Silence,
            _ => return None,
        };
        let value = match rest.strip_prefix('>') {
            Some(v) if !v.starts_with('=') => v.trim(),
            _ => {
                return Some(Err(format!(
                    "'{text}': {} takes a length it must not last beyond, as {}>2s",
                    kind.name(),
                    kind.name()
                )))
            }
        };
        // A length as the detectors' `d` takes one: `2s`, `2`, `1500ms`, `1:30`.
        Some(
            crate::events::options::duration_us(value)
                .ok()
                .filter(|us| *us >= 0)
                .ok_or_else(|| format!("'{value}' in '{text}' is not a length (as 2s, 1500ms or 1:30)"))
                .map(|us| EventLimit {
                    text: text.to_string(),
                    kind,
                    seconds: us as f64 / 1e6,
                }),
        )
    }
}
