//! `bench-play`: plays a file in the window at its own rate for a while and measures pacing,
//! then injects commands (pause, steps, exact seeks) through the same `Command` path as the
//! keys and times each one to the first present that shows its effect.

use super::commands::Command;
use super::playback::Timeline;
use super::stats::{percentile, Present};
use std::fmt;
use std::time::{Duration, Instant};

/// Rounds of probes; each round is pause, exact seek, step, step, step back, resume.
const ROUNDS: usize = 8;
/// A probe that shows nothing in this long is counted as lost.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Quiet time between probes, so one probe's late redraws don't end the next.
const SETTLE: Duration = Duration::from_millis(100);
/// Playing time after a resume, before the next round pauses.
const PLAY_BETWEEN: Duration = Duration::from_millis(300);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProbeKind {
    Pause,
    Step,
    StepBack,
    ExactSeek,
}

impl ProbeKind {
    fn name(self) -> &'static str {
        match self {
            ProbeKind::Pause => "pause",
            ProbeKind::Step => "step",
            ProbeKind::StepBack => "step back",
            ProbeKind::ExactSeek => "exact seek",
        }
    }
}

/// What the first present showing a command's effect looks like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expect {
    pub paused: bool,
    /// The frame of the seek's generation or later; for steps, that very frame.
    pub generation: u64,
    pub frame: Option<u64>,
    /// A new frame must come (seeks and steps), not only an OSD redraw (pause).
    pub new_frame: bool,
}

impl Expect {
    /// What `command`, just applied to `playback`, is expected to show.
    pub fn after<S: super::playback::FrameSource>(command: &Command, playback: &super::playback::Playback<S>) -> Self {
        let is_pause = *command == Command::Pause;
        Self {
            paused: is_pause,
            generation: playback.generation(),
            frame: if is_pause { None } else { playback.target_index() },
            new_frame: !is_pause,
        }
    }

    fn met_by(&self, p: &Present) -> bool {
        (!self.paused || p.paused)
            && p.generation >= self.generation
            && (!self.new_frame || p.new_frame)
            && self.frame.is_none_or(|f| p.frame == Some(f))
    }
}

struct Probe {
    kind: ProbeKind,
    issued: Instant,
    expect: Expect,
}

pub struct BenchScript {
    seconds: f64,
    timeline: Timeline,
    /// When timed playback started (the first present) and ends.
    window: Option<(Instant, Instant)>,
    last_new: Option<Instant>,
    shown: u64,
    dropped_at: Option<(u64, u64)>,
    frame_times: Vec<f64>,
    worst_late: Option<f64>,
    steps: Vec<Command>,
    next_at: Option<Instant>,
    probe: Option<Probe>,
    latencies: Vec<(ProbeKind, f64)>,
    lost: usize,
    seed: u64,
    finished: bool,
}

impl BenchScript {
    pub fn new(seconds: f64, timeline: Timeline) -> Self {
        Self {
            seconds,
            timeline,
            window: None,
            last_new: None,
            shown: 0,
            dropped_at: None,
            frame_times: Vec::new(),
            worst_late: None,
            steps: Vec::new(),
            next_at: None,
            probe: None,
            latencies: Vec::new(),
            lost: 0,
            seed: 0x9E37_79B9_7F4A_7C15,
            finished: false,
        }
    }

    /// Takes in every present: playback statistics while timing, probe completion after.
    pub fn on_present(&mut self, p: &Present) {
        let (start, end) = *self
            .window
            .get_or_insert((p.at, p.at + Duration::from_secs_f64(self.seconds)));
        if p.at < end && p.paused && self.probe.is_none() {
            // The file ended (playback pauses there) before the time was up: stop timing.
            self.window = Some((start, p.at));
            self.seconds = (p.at - start).as_secs_f64();
        } else if p.at <= end && p.at >= start {
            let dropped = self.dropped_at.get_or_insert((p.dropped, p.dropped));
            dropped.1 = p.dropped;
            if p.new_frame && !p.paused {
                self.shown += 1;
                if let Some(last) = self.last_new {
                    self.frame_times.push((p.at - last).as_secs_f64() * 1000.0);
                }
                self.last_new = Some(p.at);
                if let Some(due) = p.due {
                    // Signed: a frame presented before its due time is early, not late.
                    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
                    let late = ms(p.at.saturating_duration_since(due)) - ms(due.saturating_duration_since(p.at));
                    self.worst_late = Some(self.worst_late.map_or(late, |w| w.max(late)));
                }
            }
        }
        if let Some(probe) = &self.probe {
            if probe.expect.met_by(p) {
                let ms = (p.at - probe.issued).as_secs_f64() * 1000.0;
                self.latencies.push((probe.kind, ms));
                self.probe = None;
                self.next_at = Some(p.at + SETTLE);
            }
        }
    }

    /// The next command to inject at `now`, if one is due.
    pub fn next_command(&mut self, now: Instant) -> Option<Command> {
        let (_, end) = self.window?;
        if now < end || self.finished {
            return None;
        }
        if let Some(probe) = &self.probe {
            if now - probe.issued < PROBE_TIMEOUT {
                return None;
            }
            log::warn!("bench: a {} showed nothing in {PROBE_TIMEOUT:?}", probe.kind.name());
            self.lost += 1;
            self.probe = None;
        }
        if self.next_at.is_some_and(|t| now < t) {
            return None;
        }
        if self.steps.is_empty() {
            if self.latencies.len() + self.lost >= ROUNDS * 5 {
                self.finished = true;
                return None;
            }
            self.steps = self.round();
        }
        let command = self.steps.remove(0);
        if command == Command::Resume {
            self.next_at = Some(now + PLAY_BETWEEN);
        }
        Some(command)
    }

    /// One round of commands, in order.
    fn round(&mut self) -> Vec<Command> {
        // xorshift: exact seeks spread over the file, the same ones every run.
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        let span = (self.timeline.duration - 1.0).max(0.0);
        let seconds = (self.seed % 10_000) as f64 / 10_000.0 * span;
        // The seek comes before the steps so that they have frames to step over even when the
        // timed playback ran into the end of the file.
        vec![
            Command::Pause,
            Command::SeekTo { seconds, exact: true },
            Command::StepForward,
            Command::StepForward,
            Command::StepBack,
            Command::Resume,
        ]
    }

    /// After the app applied `command`: what will show that it took effect.
    pub fn issued(&mut self, command: &Command, now: Instant, expect: Expect) {
        let kind = match command {
            Command::Pause => ProbeKind::Pause,
            Command::StepForward => ProbeKind::Step,
            Command::StepBack => ProbeKind::StepBack,
            Command::SeekTo { .. } => ProbeKind::ExactSeek,
            _ => return,
        };
        self.probe = Some(Probe {
            kind,
            issued: now,
            expect,
        });
    }

    /// When the script next wants to act (so the event loop wakes for it).
    pub fn deadline(&self) -> Option<Instant> {
        let (_, end) = self.window?;
        if self.finished {
            return None;
        }
        let probe_timeout = self.probe.as_ref().map(|p| p.issued + PROBE_TIMEOUT);
        Some(probe_timeout.or(self.next_at).unwrap_or(end).max(end))
    }

    pub fn finished(&self) -> bool {
        self.finished
    }

    pub fn report(&self) -> BenchReport {
        let (first, last) = self.dropped_at.unwrap_or((0, 0));
        let by_kind = [
            ProbeKind::Pause,
            ProbeKind::Step,
            ProbeKind::StepBack,
            ProbeKind::ExactSeek,
        ]
        .map(|kind| {
            let ms: Vec<f64> = self
                .latencies
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, v)| *v)
                .collect();
            (kind, ms)
        })
        .to_vec();
        BenchReport {
            title: String::new(),
            seconds: self.seconds,
            shown: self.shown,
            dropped: last - first,
            frame_times: self.frame_times.clone(),
            worst_late: self.worst_late,
            latencies: by_kind,
            lost: self.lost,
        }
    }
}

/// What `bench-play` prints.
pub struct BenchReport {
    /// The file and the GPU.
    pub title: String,
    pub seconds: f64,
    pub shown: u64,
    pub dropped: u64,
    /// Present-to-present, ms.
    pub frame_times: Vec<f64>,
    /// Worst present time after a frame's due time, ms (negative: always early).
    pub worst_late: Option<f64>,
    pub latencies: Vec<(ProbeKind, Vec<f64>)>,
    pub lost: usize,
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
        writeln!(f, "bench-play {}", self.title)?;
        writeln!(
            f,
            "played {:.1} s: {} frames shown, {} dropped",
            self.seconds, self.shown, self.dropped
        )?;
        writeln!(
            f,
            "frame time (present to present): p50 {}, p99 {}",
            ms(percentile(&self.frame_times, 0.5)),
            ms(percentile(&self.frame_times, 0.99))
        )?;
        writeln!(
            f,
            "worst lateness of a shown frame vs its due time: {}",
            ms(self.worst_late)
        )?;
        let all: Vec<f64> = self.latencies.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        writeln!(
            f,
            "input latency (command to first present showing it): median {}, p95 {} over {} commands",
            ms(percentile(&all, 0.5)),
            ms(percentile(&all, 0.95)),
            all.len()
        )?;
        for (kind, values) in &self.latencies {
            writeln!(
                f,
                "  {:<10}  median {:>9}  p95 {:>9}  ({} commands)",
                kind.name(),
                ms(percentile(values, 0.5)),
                ms(percentile(values, 0.95)),
                values.len()
            )?;
        }
        if self.lost > 0 {
            writeln!(f, "{} commands showed nothing within {PROBE_TIMEOUT:?}", self.lost)?;
        }
        Ok(())
    }
}

impl BenchScript {
    /// The report once the script has run, titled with `media`'s file and the GPU it ran on.
    pub fn report_on(&self, media: &crate::player::media::Media, gpu: &crate::gpu::GpuContext) -> Option<BenchReport> {
        if !self.finished() {
            return None;
        }
        let mut report = self.report();
        let info = &media.info;
        report.title = format!(
            "{}: {}x{}, {:.2} fps, {} frames, on {}",
            info.path.display(),
            info.format.width,
            info.format.height,
            1.0 / info.frame_duration,
            media.index.frame_count().map_or("?".into(), |n| n.to_string()),
            gpu.describe()
        );
        Some(report)
    }
}
