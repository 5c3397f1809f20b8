//! The stats overlay (`i` for a few seconds, `I` toggled, as mpv's stats script): decode and
//! display rates, dropped frames, the frame cache, each GPU pass's time this frame (from
//! timestamp queries where the adapter has them), what the source is and how it is decoded, and
//! FFmpeg's signalstats of the frame on screen (`signal_readout`).

use crate::colour::{Matrix, Range};
use crate::gpu::timing::Timings;
use crate::video::cache::CacheFill;
use crate::video::source::VideoInfo;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Events per second over the last second, from a running count.
#[derive(Debug, Default)]
pub struct RateMeter {
    samples: VecDeque<(Instant, u64)>,
}

/// The span rates are measured over.
const RATE_SPAN: Duration = Duration::from_secs(1);

impl RateMeter {
    /// The count stood at `total` at `now`.
    pub fn record(&mut self, now: Instant, total: u64) {
        if self.samples.back().is_some_and(|&(_, last)| last > total) {
            // The count started over (a new file).
            self.samples.clear();
        }
        self.samples.push_back((now, total));
        while self.samples.len() > 2 && self.samples[1].0 + RATE_SPAN <= now {
            self.samples.pop_front();
        }
    }

    /// Events per second between the oldest sample kept and the newest; None over less than a
    /// tenth of a second.
    pub fn rate(&self) -> Option<f64> {
        let (&(t0, n0), &(t1, n1)) = (self.samples.front()?, self.samples.back()?);
        let span = t1.duration_since(t0).as_secs_f64();
        (span >= 0.1).then(|| (n1 - n0) as f64 / span)
    }
}

/// What the overlay shows, gathered by the player each frame it is up.
pub struct StatsInput<'a> {
    pub info: &'a VideoInfo,
    /// `2/5` when more than one file is queued.
    pub playlist: Option<String>,
    pub decode_rate: Option<f64>,
    pub display_rate: Option<f64>,
    pub speed: f64,
    pub dropped: u64,
    pub cache: CacheFill,
    /// The latest GPU timings, or None where the adapter has no timestamps.
    pub timings: Option<&'a Timings>,
    pub timestamps: bool,
    pub adjustments: Option<String>,
    /// The marks on the picture, while any is.
    pub marks: Option<String>,
    pub adapter: &'a str,
    /// FFmpeg's signalstats of the frame on screen (`SignalReadout::lines`).
    pub signal: Vec<(&'static str, String)>,
}

/// The overlay's lines: a label and its text.
pub fn lines(input: &StatsInput) -> Vec<(&'static str, String)> {
    let info = input.info;
    let format = &info.format;
    let name = info
        .path
        .file_name()
        .map_or_else(|| info.path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut lines = vec![(
        "file",
        match &input.playlist {
            Some(position) => format!("{name}  ({position})"),
            None => name,
        },
    )];
    let matrix = match format.color.matrix {
        Matrix::Bt601 => "BT.601",
        Matrix::Bt709 => "BT.709",
        Matrix::Bt2020 => "BT.2020",
    };
    let range = match format.color.range {
        Range::Limited => "limited",
        Range::Full => "full",
    };
    lines.push((
        "video",
        format!(
            "{} {} {}x{}, {matrix} {range} range, {}, {}-bit counting",
            info.codec,
            info.pixel_format,
            format.width,
            format.height,
            info.volume.transfer.label(),
            format.layout.output_bits()
        ),
    ));
    lines.push((
        "decoder",
        match info.hwdec {
            Some(name) => format!("{name} (hardware)"),
            None => "software".to_string(),
        },
    ));
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.1}"));
    lines.push((
        "fps",
        format!(
            "decode {}  display {}  file {:.3}  speed {:.2}×",
            rate(input.decode_rate),
            rate(input.display_rate),
            1.0 / info.frame_duration,
            input.speed
        ),
    ));
    lines.push(("dropped", input.dropped.to_string()));
    let mib = |bytes: usize| bytes as f64 / f64::from(1 << 20);
    let cache = input.cache;
    lines.push((
        "cache",
        format!(
            "{:.0} / {:.0} MiB, {} frames",
            mib(cache.bytes),
            mib(cache.budget),
            cache.frames
        ),
    ));
    lines.push(("gpu", gpu_line(input)));
    lines.push(("adapter", input.adapter.to_string()));
    lines.push(("version", crate::version::summary().to_string()));
    if let Some(adjustments) = &input.adjustments {
        lines.push(("picture", adjustments.clone()));
    }
    if let Some(marks) = &input.marks {
        lines.push(("marks", marks.clone()));
    }
    lines.extend(input.signal.iter().cloned());
    lines
}

/// `convert 0.041 ms  histograms 0.019 ms ...` for the passes run this frame.
fn gpu_line(input: &StatsInput) -> String {
    let timings = match (input.timestamps, input.timings) {
        (false, _) => return "no timestamp queries on this adapter".to_string(),
        (true, None) => return "timing…".to_string(),
        (true, Some(timings)) => timings,
    };
    let passes: Vec<String> = timings
        .passes
        .iter()
        .filter_map(|(name, ms)| ms.map(|ms| format!("{name} {ms:.3} ms")))
        .collect();
    passes.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_count_over_the_last_second() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut meter = RateMeter::default();
        assert_eq!(meter.rate(), None);
        meter.record(t0, 0);
        meter.record(ms(50), 3);
        assert_eq!(meter.rate(), None, "too short to tell");
        for i in 1..=40u64 {
            meter.record(ms(i * 50), i * 3);
        }
        // 60 per second, measured over the last second only.
        let rate = meter.rate().unwrap();
        assert!((rate - 60.0).abs() < 1e-9, "{rate}");
        assert!(meter.samples.front().unwrap().0 >= ms(950));
        // A new file's count starts over.
        meter.record(ms(2100), 1);
        assert_eq!(meter.rate(), None);
    }
}
