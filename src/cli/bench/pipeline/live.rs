//! `histoplay bench-live URL`: a live input through the window's frame path — its timeshift
//! decode thread, the ring, the conversion, the histograms and the scene rendered offscreen —
//! each frame as soon as it arrives, the newest when more than two wait (as the window picks
//! them), for as long as asked. It reports the frames shown and dropped (those passed over, and
//! numbers that never came out of the decoder), the latency from each frame's packet being read
//! to its GPU work being done (p50, p95 and max, overall and minute by minute) and the resident
//! memory minute by minute, to show whether it stays flat once the frame cache is full.
//!
//! The window adds its present (a vsync at most) to the latency measured here; there is no
//! display on the GPU machines this runs on.

use super::{memory_mb, spread, Pipeline, Shown};
use crate::gpu::GpuContext;
use crate::video::decoder::{DecoderEvent, ReadyFrame};
use anyhow::{bail, Result};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Frames waiting beyond which the newest is taken (`player::pacing::pick_live`).
const BACKLOG: usize = 2;
/// A stream silent this long has ended, as far as the benchmark goes.
const SILENCE: Duration = Duration::from_secs(10);

/// One minute of the run.
#[derive(Default)]
struct Minute {
    latencies_ms: Vec<f64>,
    shown: u64,
    dropped: u64,
    resident_mb: f64,
}

pub fn run(input: &Path, seconds: f64, cache_bytes: usize, out: &mut impl Write) -> Result<()> {
    let ctx = GpuContext::new()?;
    let adapter = ctx.describe();
    let mut pipeline = Pipeline::open(ctx, input, (1920, 1080), cache_bytes, &Shown::default())?;
    let info = pipeline.decoder.info.clone();
    if !info.live {
        bail!("'{}' is a file: bench-live takes a live input", input.display());
    }
    writeln!(out, "bench-live: {}", input.display())?;
    writeln!(out, "  adapter: {adapter}")?;
    writeln!(
        out,
        "  stream: {}x{} {} ({}, {} decoding), {:.3} fps",
        info.format.width,
        info.format.height,
        info.codec,
        info.pixel_format,
        info.hwdec.unwrap_or("software"),
        1.0 / info.frame_duration
    )?;
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(seconds);
    let mut minutes: Vec<Minute> = vec![Minute::default()];
    let mut queue: VecDeque<ReadyFrame> = VecDeque::new();
    let (mut last_index, mut missing) = (None::<u64>, 0u64);
    let mut ended = false;
    while Instant::now() < until && !(ended && queue.is_empty()) {
        // Everything that came meanwhile; when nothing has, wait for the next frame.
        while let Some(event) = pipeline.decoder.try_event() {
            ended |= take(event, &mut queue)?;
        }
        if queue.is_empty() && !ended {
            match pipeline.decoder.event_timeout(SILENCE) {
                Some(event) => ended |= take(event, &mut queue)?,
                None => {
                    writeln!(out, "  no frame for {} s: stopped", SILENCE.as_secs())?;
                    break;
                }
            }
            continue;
        }
        let minute = (start.elapsed().as_secs() / 60) as usize;
        while minutes.len() <= minute {
            minutes.push(Minute::default());
        }
        let this = &mut minutes[minute];
        let backlog = queue.len() > BACKLOG;
        let Some(frame) = (if backlog { queue.pop_back() } else { queue.pop_front() }) else {
            continue;
        };
        // Numbers the decoder never gave out (passed over at the live edge), in order.
        let mut taken: Vec<u64> = queue
            .iter()
            .map(|f| f.index)
            .chain(std::iter::once(frame.index))
            .collect();
        taken.sort_unstable();
        for index in taken {
            // (Frames are numbered from 0 as they come.)
            let expected = last_index.map_or(0, |last| last + 1);
            if index >= expected {
                missing += index - expected;
                last_index = Some(index);
            }
        }
        if backlog {
            for passed in queue.drain(..) {
                pipeline.decoder.release(passed.slot);
                this.dropped += 1;
            }
        }
        pipeline.process(&frame);
        pipeline.ctx.wait_idle()?;
        let done = Instant::now();
        this.shown += 1;
        if let Some(arrived) = frame.packet.arrived {
            this.latencies_ms
                .push(done.saturating_duration_since(arrived).as_secs_f64() * 1e3);
        }
        this.resident_mb = memory_mb().0;
    }
    for frame in queue {
        pipeline.decoder.release(frame.slot);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let shown: u64 = minutes.iter().map(|m| m.shown).sum();
    let dropped: u64 = minutes.iter().map(|m| m.dropped).sum();
    let all: Vec<f64> = minutes.iter().flat_map(|m| m.latencies_ms.iter().copied()).collect();
    writeln!(
        out,
        "  {elapsed:.0} s: {shown} frames shown ({:.2} fps), {dropped} dropped for a backlog here, {missing} passed over by the decode thread (a backlog at the live edge)",
        shown as f64 / elapsed
    )?;
    writeln!(out, "  arrival to GPU work done: {}", spread(&all))?;
    for (i, minute) in minutes.iter().enumerate() {
        writeln!(
            out,
            "  minute {:>2}: {:>5} shown, {:>3} dropped, {}, resident {:.0} MB",
            i + 1,
            minute.shown,
            minute.dropped,
            spread(&minute.latencies_ms),
            minute.resident_mb
        )?;
    }
    if let (Some(first), Some(rest)) = (minutes.first(), minutes.get(1..).filter(|r| !r.is_empty())) {
        let after = rest.iter().map(|m| m.resident_mb).fold(0.0f64, f64::max);
        writeln!(
            out,
            "  resident memory: {:.0} MB after the first minute, at most {after:.0} MB after it ({:+.0} MB)",
            first.resident_mb,
            after - first.resident_mb
        )?;
    }
    Ok(())
}

/// Queues a frame; true at the stream's end.
fn take(event: DecoderEvent, queue: &mut VecDeque<ReadyFrame>) -> Result<bool> {
    match event {
        DecoderEvent::Frame(frame) => {
            queue.push_back(frame);
            Ok(false)
        }
        DecoderEvent::EndOfStream { .. } => Ok(true),
        DecoderEvent::Failed { message, .. } => bail!(message),
        // Its frames are scaled to the first shape: it never asks for another ring.
        DecoderEvent::Reshaped(_) => bail!("the decoder asked for a ring of another shape"),
    }
}
