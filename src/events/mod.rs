//! QC events over a programme's time, exactly as FFmpeg's detectors report them: black
//! stretches (`blackdetect`, from the luma histogram each frame's statistics already count),
//! frozen picture (`freezedetect`, a GPU pass against the last picture that moved, with its CPU
//! twin) and silence (`silencedetect`, on the decoded samples in their own format). Each
//! detector is a small state machine fed per frame (or per decoded sound frame) that yields
//! the events as they end; `report --events` lists them, `--fail-on black>2s` gates on them.

pub mod black;
pub mod decoded;
pub mod freeze;
pub mod options;
pub mod silence;

pub use options::{BlackOptions, FreezeOptions, SilenceOptions};

/// What an event is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Black,
    Freeze,
    Silence,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Black => "black",
            EventKind::Freeze => "freeze",
            EventKind::Silence => "silence",
        }
    }
}

/// One event, with its times as the FFmpeg filter gives them (seconds, from the stream's
/// timestamps: `black_start`, `freeze_start`, `silence_start`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub start: f64,
    /// None where the filter reports no end: a freeze still going on at the end of the stream.
    pub end: Option<f64>,
    /// As the filter computes it (freezedetect: in microseconds, rounded; the others: end -
    /// start in the stream's time base).
    pub duration: Option<f64>,
    /// Video events: the first frame of the event and the frame that ended it (the last one
    /// counted, at the stream's end).
    pub frames: Option<(u64, u64)>,
    /// silencedetect's `mono` mode: the channel (1 = the first).
    pub channel: Option<u32>,
}

impl Event {
    /// The event as a JSON line: `{"event":"black","start":2,"end":4.04,"duration":2.04,
    /// "frames":[50,101]}` (FFmpeg prints the times to six significant digits; these are whole).
    pub fn json(&self) -> String {
        let time = |t: Option<f64>| serde_json::Value::from(t).to_string();
        let mut line = format!(
            "{{\"event\":\"{}\",\"start\":{},\"end\":{},\"duration\":{}",
            self.kind.name(),
            time(Some(self.start)),
            time(self.end),
            time(self.duration)
        );
        if let Some((first, last)) = self.frames {
            line += &format!(",\"frames\":[{first},{last}]");
        }
        if let Some(channel) = self.channel {
            line += &format!(",\"channel\":{channel}");
        }
        line + "}"
    }
}

/// A timestamp `ts` in `time_base` as seconds, as FFmpeg's `av_q2d(tb) * ts` computes it (its
/// printed times are these numbers).
pub fn seconds(ts: i64, time_base: (i64, i64)) -> f64 {
    time_base.0 as f64 / time_base.1 as f64 * ts as f64
}

/// FFmpeg's `av_rescale_q` (rounding to nearest, halves away from zero) of `a` from the time
/// base `from` to `to`.
pub fn rescale(a: i64, from: (i64, i64), to: (i64, i64)) -> i64 {
    let b = i128::from(from.0) * i128::from(to.1);
    let c = i128::from(from.1) * i128::from(to.0);
    rescale_i128(i128::from(a), b, c)
}

/// `a * b / c` rounded to nearest, halves away from zero (av_rescale_rnd, AV_ROUND_NEAR_INF).
fn rescale_i128(a: i128, b: i128, c: i128) -> i64 {
    if c == 0 {
        return 0;
    }
    let (n, c) = if c < 0 { (-(a * b), -c) } else { (a * b, c) };
    let q = if n >= 0 { (n + c / 2) / c } else { -((-n + c / 2) / c) };
    q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescaling_rounds_to_nearest_as_ffmpeg() {
        assert_eq!(rescale(1, (1, 1000), (1, 1_000_000)), 1000);
        assert_eq!(rescale(3, (1, 90_000), (1, 1000)), 0);
        assert_eq!(rescale(45, (1, 90_000), (1, 1000)), 1);
        assert_eq!(rescale(-45, (1, 90_000), (1, 1000)), -1);
        assert_eq!(rescale(1001, (1, 30_000), (1, 1_000_000)), 33_367);
    }

    #[test]
    fn events_are_written_with_ffmpegs_digits() {
        let event = Event {
            kind: EventKind::Freeze,
            start: 1.2,
            end: None,
            duration: None,
            frames: Some((30, 99)),
            channel: None,
        };
        assert_eq!(
            event.json(),
            "{\"event\":\"freeze\",\"start\":1.2,\"end\":null,\"duration\":null,\"frames\":[30,99]}"
        );
    }
}
