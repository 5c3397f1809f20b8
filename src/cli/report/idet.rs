//! `report --idet`: FFmpeg's interlace detection (`crate::idet`) over the report's frames: each
//! frame's line gains idet's decisions and counts (a QCTools report, its `lavfi.idet.*` tags),
//! the report ends with the counts and what the content is against what the frames are flagged,
//! and `--fail-on idet` makes each run of frames whose content contradicts their flags a run
//! beyond the limits: flagged progressive but interlaced (the classic delivery fault), or
//! interlaced in the other field order (a field-order mistake, seen as judder).

use super::limits::Run;
use crate::headless::FrameMeta;
use crate::idet::{Decision, Idet, IdetOptions, Scan, Sums, Totals};
use crate::video::source::Fields;

/// A report's interlace detection: its options, and whether it was asked for (`--idet`,
/// `--fail-on idet`), not only part of a QCTools report or a page (which go without it where
/// the frames are RGB).
#[derive(Clone, Copy, Debug)]
pub struct IdetWanted {
    pub options: IdetOptions,
    pub asked: bool,
}

/// What the frames' content says against their flags, where it contradicts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contradiction {
    /// Flagged progressive, interlaced in this order.
    Progressive(Scan),
    /// Flagged interlaced in one order, interlaced in the other (this one).
    FieldOrder(Scan),
}

impl Contradiction {
    /// Where a frame's multi-frame decision contradicts its flags. A frame found progressive
    /// contradicts nothing: a still interlaced picture has fields alike.
    pub fn of(fields: Fields, content: Scan) -> Option<Self> {
        match (fields.interlaced, fields.top_first, content) {
            (false, _, Scan::Tff | Scan::Bff) => Some(Self::Progressive(content)),
            (true, false, Scan::Tff) | (true, true, Scan::Bff) => Some(Self::FieldOrder(content)),
            _ => None,
        }
    }

    /// `flagged progressive, content tff`.
    pub fn describe(self) -> String {
        match self {
            Self::Progressive(scan) => format!("flagged progressive, content {}", scan.name()),
            Self::FieldOrder(scan) => {
                let flagged = if scan == Scan::Tff { "bff" } else { "tff" };
                format!("flagged {flagged}, content {}", scan.name())
            }
        }
    }
}

/// A run of frames contradicting their flags, going on.
struct Open {
    what: Contradiction,
    first: FrameMeta,
    last: FrameMeta,
    /// The clearest single-frame evidence: the larger field-order sum over the smaller.
    worst: f64,
    started: std::time::SystemTime,
}

/// The detection over one report's frames.
pub struct ReportIdet {
    idet: Idet,
    /// The last frame decided, and its decision (at field rate its second picture has it too).
    last: Option<(u64, Decision)>,
    /// Frames flagged progressive, tff, bff (as `Fields::kind`).
    flagged: [u64; 3],
    /// Whether contradicting runs are limits (`--fail-on idet`).
    limit: bool,
    open: Option<Open>,
}

impl ReportIdet {
    pub fn new(options: IdetOptions, limit: bool) -> Self {
        Self {
            idet: Idet::new(options),
            last: None,
            flagged: [0; 3],
            limit,
            open: None,
        }
    }

    /// A picture of the report's frames with its frame's sums (None: the frame's second
    /// picture, whose frame was decided with the first): its decision, and a run that ended.
    pub fn picture(&mut self, frame: &FrameMeta, sums: Option<&Sums>) -> (Option<Decision>, Option<Run>) {
        // A picture of the frame decided last carries its decision.
        if let Some((_, decision)) = self.last.filter(|(f, _)| *f == frame.frame) {
            return (Some(decision), None);
        }
        let Some(sums) = sums else { return (None, None) };
        let decision = self.idet.frame(sums);
        self.last = Some((frame.frame, decision));
        self.flagged[frame.packet.fields.kind()] += 1;
        (Some(decision), self.follow(frame, decision, *sums))
    }

    fn follow(&mut self, frame: &FrameMeta, decision: Decision, sums: Sums) -> Option<Run> {
        if !self.limit {
            return None;
        }
        let what = Contradiction::of(frame.packet.fields, decision.multiple);
        let [a, b] = sums.alpha;
        let evidence = a.max(b) as f64 / a.min(b).max(1) as f64;
        if let (Some(open), Some(what)) = (&mut self.open, what) {
            if open.what == what {
                open.last = *frame;
                open.worst = open.worst.max(evidence);
                return None;
            }
        }
        let ended = self.close();
        self.open = what.map(|what| Open {
            what,
            first: *frame,
            last: *frame,
            worst: evidence,
            started: std::time::SystemTime::now(),
        });
        ended
    }

    /// The run going on, ended.
    fn close(&mut self) -> Option<Run> {
        let open = self.open.take()?;
        Some(Run {
            limit: format!("idet: {}", open.what.describe()),
            first: open.first.index,
            last: open.last.index,
            first_pts: open.first.seconds,
            last_pts: open.last.seconds,
            worst: (open.worst * 1000.0).round() / 1000.0,
            started: open.started,
            ended: std::time::SystemTime::now(),
            audio: false,
        })
    }

    /// The frames ended: the summary, and the run that ends with them.
    pub fn finish(&mut self) -> (IdetSummary, Option<Run>) {
        let summary = IdetSummary {
            totals: self.idet.totals(),
            flagged: self.flagged,
        };
        (summary, self.close())
    }
}

/// The counts of a whole report, and what they say.
#[derive(Clone, Copy, Debug)]
pub struct IdetSummary {
    pub totals: Totals,
    /// Frames flagged progressive, tff, bff.
    pub flagged: [u64; 3],
}

impl IdetSummary {
    /// How most frames are flagged: progressive, tff or bff.
    pub fn flagged_as(&self) -> &'static str {
        let most = (0..3)
            .max_by_key(|&i| (self.flagged[i], std::cmp::Reverse(i)))
            .unwrap_or(0);
        Fields::NAMES[most]
    }

    /// Whether the content found agrees with how most frames are flagged (undetermined content
    /// agrees with anything).
    pub fn agrees(&self) -> bool {
        match self.totals.content() {
            Scan::Undetermined => true,
            content => content.name() == self.flagged_as(),
        }
    }

    /// The report's last line: `{"idet":{"frames":N,"repeated":{…},"single":{…},"multiple":{…},
    /// "content":"tff","flagged":"progressive","agrees":false}}` (the counts as the filter
    /// logs them at its end).
    pub fn json(&self) -> serde_json::Value {
        let t = &self.totals;
        let counts = |counts: &[u64; 4]| {
            Scan::ALL
                .iter()
                .map(|s| (s.name().to_string(), serde_json::Value::from(counts[*s as usize])))
                .collect::<serde_json::Map<_, _>>()
        };
        let repeated: serde_json::Map<_, _> = crate::idet::Repeated::ALL
            .iter()
            .map(|r| (r.name().to_string(), serde_json::Value::from(t.repeated[*r as usize])))
            .collect();
        serde_json::json!({"idet": {
            "frames": t.single.iter().sum::<u64>(),
            "repeated": repeated,
            "single": counts(&t.single),
            "multiple": counts(&t.multiple),
            "content": t.content().name(),
            "flagged": self.flagged_as(),
            "agrees": self.agrees(),
        }})
    }

    /// A line for a person: `interlaced, top field first (idet: 24 of 25 frames; flagged
    /// progressive)`.
    pub fn describe(&self) -> String {
        let t = &self.totals;
        let frames: u64 = t.multiple.iter().sum();
        let content = match t.content() {
            Scan::Tff => "interlaced, top field first",
            Scan::Bff => "interlaced, bottom field first",
            Scan::Progressive => "progressive",
            Scan::Undetermined => "undetermined",
        };
        let found = match t.content() {
            Scan::Tff | Scan::Bff => t.multiple[0] + t.multiple[1],
            scan => t.multiple[scan as usize],
        };
        let flags = if self.agrees() {
            "as flagged"
        } else {
            "flagged otherwise"
        };
        format!(
            "{content} ({found} of {frames} frames by idet; {flags}: {})",
            self.flagged_as()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contradictions_are_interlacing_against_the_flags() {
        let flags = |interlaced, top_first| Fields {
            interlaced,
            top_first,
            ..Fields::default()
        };
        assert_eq!(
            Contradiction::of(flags(false, false), Scan::Tff),
            Some(Contradiction::Progressive(Scan::Tff))
        );
        assert_eq!(
            Contradiction::of(flags(true, true), Scan::Bff),
            Some(Contradiction::FieldOrder(Scan::Bff))
        );
        assert_eq!(
            Contradiction::FieldOrder(Scan::Bff).describe(),
            "flagged tff, content bff"
        );
        assert_eq!(Contradiction::of(flags(true, true), Scan::Tff), None);
        // A still interlaced picture looks progressive: no contradiction.
        assert_eq!(Contradiction::of(flags(true, false), Scan::Progressive), None);
        assert_eq!(Contradiction::of(flags(false, false), Scan::Undetermined), None);
    }
}
