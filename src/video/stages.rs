//! Where a stream's time goes on its way to the GPU, stage by stage: each stage's wall time and
//! count, summed by the threads that run it (a clock read at each end, ~25 ns), process-wide.
//! `bench-pipeline` prints them for decoding alone and for the pipeline's cold pass, per frame.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One stage: the wall time spent in it and how many times it ran.
pub struct Stage {
    pub name: &'static str,
    nanos: AtomicU64,
    count: AtomicU64,
}

impl Stage {
    const fn new(name: &'static str) -> Self {
        Self {
            name,
            nanos: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    /// Runs `work`, its wall time counted to this stage.
    pub fn time<T>(&self, work: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = work();
        self.add(start.elapsed());
        result
    }

    pub fn add(&self, spent: Duration) {
        let nanos = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The demuxer reading a packet (any stream's).
pub static READ: Stage = Stage::new("reading packets");
/// The decoder taking a packet: with frame threads, the wait for a thread to take it.
pub static SEND: Stage = Stage::new("sending them");
/// The decoder giving out a frame (or saying it has none yet).
pub static RECEIVE: Stage = Stage::new("taking frames");
/// A decoded frame numbered and wrapped (`finish`).
pub static FINISH: Stage = Stage::new("numbering them");
/// The decode thread with nothing to do: the ring full and its read-ahead done.
pub static DECODE_IDLE: Stage = Stage::new("idle");
/// The upload thread waiting for a frame to upload.
pub static UPLOAD_IDLE: Stage = Stage::new("waiting for a frame");
/// The upload thread waiting for a staging buffer's last copy to finish.
pub static STAGING_WAIT: Stage = Stage::new("staging buffer free");
/// The rows written into the staging buffer.
pub static ROWS: Stage = Stage::new("rows written");
/// The copy into the slot's textures recorded and submitted.
pub static COPY_QUEUED: Stage = Stage::new("copy queued");

/// The decode thread's stages, then the upload thread's.
pub const DECODE: [&Stage; 5] = [&READ, &SEND, &RECEIVE, &FINISH, &DECODE_IDLE];
pub const UPLOAD: [&Stage; 4] = [&UPLOAD_IDLE, &STAGING_WAIT, &ROWS, &COPY_QUEUED];

/// Each stage's wall time so far, in nanoseconds, in the order given.
pub fn read(stages: &[&Stage]) -> Vec<u64> {
    stages.iter().map(|s| s.nanos.load(Ordering::Relaxed)).collect()
}

/// `stages` as `name 0.42` (milliseconds a frame over `frames`), from `before` (`read`) on;
/// those under 5 µs a frame left out.
pub fn describe(stages: &[&Stage], before: &[u64], frames: u64) -> String {
    stages
        .iter()
        .zip(before)
        .filter_map(|(stage, &from)| {
            let nanos = stage.nanos.load(Ordering::Relaxed).saturating_sub(from);
            let per_frame = nanos as f64 / 1e6 / frames.max(1) as f64;
            (per_frame >= 0.005).then(|| format!("{} {per_frame:.2}", stage.name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_sums_its_time_and_describes_it_a_frame() {
        static STAGE: Stage = Stage::new("work");
        let before = read(&[&STAGE]);
        STAGE.add(Duration::from_micros(300));
        STAGE.add(Duration::from_micros(500));
        assert_eq!(STAGE.count.load(Ordering::Relaxed), 2);
        assert_eq!(describe(&[&STAGE], &before, 4), "work 0.20");
        assert_eq!(describe(&[&STAGE], &read(&[&STAGE]), 4), "");
    }
}
