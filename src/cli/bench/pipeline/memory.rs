//! Memory over a bench run, phase by phase: a thread samples the process's resident memory (and
//! what it is made of) and its frame memory every 2 ms, and each phase keeps its highest
//! sample, so a peak can be told apart from the phase that made it.

use crate::video::memory::FRAME_MEMORY;
use anyhow::Result;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One look at the process's memory, in MB.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    pub resident: f64,
    /// Anonymous memory (heaps, frames), file-backed (the program, libraries) and shared
    /// (mappings of the GPU driver's).
    pub anonymous: f64,
    pub file: f64,
    pub shared: f64,
    /// Frame memory (`video::memory`): frames, staging and spare blocks.
    pub frames: f64,
}

impl Sample {
    fn now() -> Self {
        let [resident, anonymous, file, shared] = status_mb(["VmRSS:", "RssAnon:", "RssFile:", "RssShmem:"]);
        Self {
            resident,
            anonymous,
            file,
            shared,
            frames: FRAME_MEMORY.held() as f64 / f64::from(1u32 << 20),
        }
    }
}

fn mapped_mb() -> [f64; 3] {
    FRAME_MEMORY.mapped_by_cause().map(|b| b as f64 / f64::from(1u32 << 20))
}

/// Fields of /proc/self/status that are given in kB, in MB (0 where missing: Linux only).
pub fn status_mb<const N: usize>(names: [&str; N]) -> [f64; N] {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    names.map(|name| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    })
}

/// A phase's highest sample, and the frame memory it mapped afresh (MB): with no spare block,
/// spare blocks of other sizes only, and memory pressed.
type Phases = Vec<(&'static str, Sample, [f64; 3])>;

pub struct MemorySampler {
    phases: Arc<Mutex<Phases>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MemorySampler {
    /// Starts sampling, in a first phase called `name`.
    pub fn start(name: &'static str) -> Self {
        let phases = Arc::new(Mutex::new(vec![(name, Sample::now(), mapped_mb())]));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopping) = (Arc::clone(&phases), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("histoplay memory".into())
            .spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    let sample = Sample::now();
                    if let Some((_, highest, _)) = shared.lock().unwrap_or_else(|e| e.into_inner()).last_mut() {
                        if sample.resident > highest.resident {
                            *highest = sample;
                        }
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
            .ok();
        Self { phases, stop, thread }
    }

    /// The run goes on to phase `name`.
    pub fn phase(&self, name: &'static str) {
        self.phases
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((name, Sample::now(), mapped_mb()));
    }

    /// Stops sampling: each phase with its highest sample and the frame memory it mapped.
    pub fn finish(mut self) -> Phases {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut phases = std::mem::take(&mut *self.phases.lock().unwrap_or_else(|e| e.into_inner()));
        // Each phase starts with the count so far; what it mapped runs to the next one's start.
        let ends: Vec<[f64; 3]> = phases.iter().skip(1).map(|p| p.2).chain([mapped_mb()]).collect();
        for (phase, end) in phases.iter_mut().zip(ends) {
            phase.2 = std::array::from_fn(|i| end[i] - phase.2[i]);
        }
        phases
    }
}

/// Resident and peak resident memory of this process, in MB (Linux; zeros elsewhere).
pub fn memory_mb() -> (f64, f64) {
    let [resident, peak] = status_mb(["VmRSS:", "VmHWM:"]);
    (resident, peak)
}

/// Memory at each phase's highest, and the whole run's peak against the budget.
pub(super) fn write_memory_by_phase(out: &mut impl Write, sampler: MemorySampler, cache_bytes: usize) -> Result<()> {
    let (_, peak) = memory_mb();
    let phases = sampler.finish();
    let by_phase: Vec<String> = phases
        .iter()
        .map(|(name, m, mapped)| {
            format!(
                "{name} {:.0} ({:.0} anonymous, {:.0} files, {:.0} shared; frames {:.0}, mapped afresh {:.0}: \
                 {:.0} none spare, {:.0} other sizes spare, {:.0} pressed)",
                m.resident,
                m.anonymous,
                m.file,
                m.shared,
                m.frames,
                mapped.iter().sum::<f64>(),
                mapped[0],
                mapped[1],
                mapped[2]
            )
        })
        .collect();
    writeln!(
        out,
        "memory by phase (MB at each one's highest): {}",
        by_phase.join("; ")
    )?;
    let budget = cache_bytes >> 20;
    let headroom = crate::video::memory::HEADROOM >> 20;
    let limit = budget + headroom;
    writeln!(
        out,
        "memory peak:  {peak:.0} MB resident over the whole run, {} the frame cache budget {budget} MB + {headroom} MB \
         ({limit} MB); frames, staging and spare blocks together at most {} MB",
        if peak <= limit as f64 { "within" } else { "OVER" },
        crate::video::memory::FRAME_MEMORY.peak() >> 20,
    )?;
    Ok(())
}
