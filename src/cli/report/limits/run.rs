//! A run of frames beyond one limit: how it is printed, told to `--alert-log` (with its UTC
//! times), and the runs a report collects.

use crate::signalstats::format;

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
