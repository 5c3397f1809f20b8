//! The pipeline unpaced: three passes over the whole file as fast as it goes (decode → upload →
//! convert → histogram → offscreen render), and the histogram timeline's fill alone.

use super::memory_mb;
use super::offscreen::Pipeline;
use crate::gpu::GpuContext;
use crate::timeline::TimelineFill;
use crate::video::source::SeekTarget;
use crate::video::stages;
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Three passes of the pipeline over the whole file, unpaced, with the memory resident while
/// they stream.
pub(super) struct Passes {
    /// Frames a second of each pass.
    pub(super) runs: Vec<f64>,
    pub(super) frames: u64,
    pub(super) rss_start: f64,
    pub(super) rss_end: f64,
    pub(super) rss_mid: Vec<f64>,
    pub(super) peak: f64,
    /// Which path carried the frames, and the bytes that crossed between memory and the GPU
    /// over all three passes, and the frames they carried.
    pub(super) path: crate::video::interop::FramePath,
    pub(super) transfers: crate::video::interop::TransferCount,
    pub(super) carried: u64,
    /// The cold pass's CPU time by thread, and its wall time.
    pub(super) cold_threads: (Vec<crate::threads::NamedTime>, f64),
    /// Where the cold pass's wall time went, stage by stage, a frame.
    pub(super) cold_stages: String,
}

impl Passes {
    /// The first pass also pays for pipeline compilation and first-use allocations and is
    /// reported apart; the best of the other two is the steady state.
    pub(super) fn run(pipeline: &mut Pipeline) -> Result<Self> {
        let (rss_start, _) = memory_mb();
        let mut runs = Vec::new();
        let mut rss_mid = Vec::new();
        let mut frames = 0u64;
        let mut carried = 0u64;
        let mut cold_threads = (Vec::new(), 0.0);
        let mut cold_stages = String::new();
        for pass in 0..3 {
            if pass > 0 {
                pipeline.decoder.seek(SeekTarget::Frame(0));
            }
            let threads = crate::threads::ThreadTimes::now();
            let (decode_before, upload_before) = (stages::read(&stages::DECODE), stages::read(&stages::UPLOAD));
            let (mut waiting, mut recording) = (Duration::ZERO, Duration::ZERO);
            let start = Instant::now();
            frames = 0;
            loop {
                let asked = Instant::now();
                let Some(frame) = pipeline.next()? else { break };
                let taken = Instant::now();
                pipeline.process(&frame);
                (waiting, recording) = (waiting + (taken - asked), recording + taken.elapsed());
                frames += 1;
                if frames % 32 == 0 {
                    rss_mid.push(memory_mb().0);
                }
            }
            pipeline.ctx.wait_idle()?;
            if pass == 0 {
                cold_threads = (
                    crate::threads::ThreadTimes::now().since(&threads),
                    start.elapsed().as_secs_f64(),
                );
                let per_frame = |d: Duration| d.as_secs_f64() * 1e3 / frames.max(1) as f64;
                cold_stages = format!(
                    "decode thread: {}; upload thread: {}; consumer: waiting for a frame {:.2}, recording and submitting it {:.2}",
                    stages::describe(&stages::DECODE, &decode_before, frames),
                    stages::describe(&stages::UPLOAD, &upload_before, frames),
                    per_frame(waiting),
                    per_frame(recording),
                );
            }
            runs.push(frames as f64 / start.elapsed().as_secs_f64());
            carried += frames;
        }
        let (rss_end, peak) = memory_mb();
        // From the decoder's start: the frames it sent ahead before the first pass are the
        // first pass's.
        let transfers = pipeline.decoder.transfers();
        Ok(Self {
            path: pipeline.decoder.frame_path(),
            transfers,
            carried,
            runs,
            frames,
            rss_start,
            rss_end,
            rss_mid,
            peak,
            cold_threads,
            cold_stages,
        })
    }

    pub(super) fn write(&self, out: &mut impl Write, decode_fps: f64, cache_bytes: usize) -> Result<()> {
        let Self {
            runs,
            frames,
            rss_start,
            rss_end,
            rss_mid,
            peak,
            path,
            transfers,
            carried,
            cold_threads,
            cold_stages,
        } = self;
        let steady = runs[1].max(runs[2]);
        writeln!(
            out,
            "pipeline:     {frames} frames at {steady:.1} fps ({:.1}% of decode-only, best of 2 warm passes); \
             cold pass {:.1} fps ({:.1}%: every frame decoded, none from the frame caches)",
            100.0 * steady / decode_fps,
            runs[0],
            100.0 * runs[0] / decode_fps
        )?;
        writeln!(
            out,
            "threads:      the cold pass, {}",
            crate::threads::describe(&cold_threads.0, cold_threads.1)
        )?;
        writeln!(out, "stages:       the cold pass, ms a frame: {cold_stages}")?;
        let per_frame = |bytes: u64| match bytes as f64 / (*carried).max(1) as f64 {
            0.0 => "0 bytes".to_string(),
            b if b < f64::from(1 << 20) => format!("{:.1} KiB", b / 1024.0),
            b => format!("{:.2} MiB", b / f64::from(1 << 20)),
        };
        writeln!(
            out,
            "frames path:  {path}; over PCIe per frame {} to the GPU, {} back to memory",
            per_frame(transfers.to_device),
            per_frame(transfers.to_host)
        )?;
        let mid_max = rss_mid.iter().copied().fold(*rss_start, f64::max);
        let mid_min = rss_mid.iter().copied().fold(f64::INFINITY, f64::min);
        let streaming = match rss_mid.is_empty() {
            true => "none measured while streaming (too short)".to_string(),
            false => format!("{mid_min:.0}..{mid_max:.0} MB while streaming"),
        };
        writeln!(
            out,
            "memory:       resident {rss_start:.0} MB before streaming, {rss_end:.0} MB after three passes; \
             {streaming}, peak {peak:.0} MB (frame cache budget {} MB)",
            cache_bytes >> 20
        )?;
        Ok(())
    }
}

/// The histogram timeline, filled by the player's background decode with nothing else running.
/// Opening (probing, indexing, the pipeline's setup) is paid once per file; the rate from the
/// first frame counted on is what a long file fills at.
pub(super) fn timeline_alone(out: &mut impl Write, path: &Path, ctx: &GpuContext, decode_fps: f64) -> Result<()> {
    let started = Instant::now();
    let fill = TimelineFill::start(path, Some(Default::default()), ctx)?;
    let mut first_frame = None;
    while !fill.done() {
        if first_frame.is_none() && fill.filled() > 0 {
            first_frame = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let whole = started.elapsed().as_secs_f64();
    let filled = fill.filled();
    let first_frame = first_frame.unwrap_or(started);
    let steady_fps = filled.saturating_sub(1) as f64 / first_frame.elapsed().as_secs_f64().max(1e-9);
    let steady = match filled {
        0 | 1 => ", no rate from the first one counted (one frame)".to_string(),
        _ => format!(
            " at {steady_fps:.1} fps from the first one counted ({:.1}% of decode-only)",
            100.0 * steady_fps / decode_fps
        ),
    };
    writeln!(
        out,
        "timeline:     {filled} frames{steady}, \
         its own decode at low priority; {:.0} ms to the first, {:.1} fps overall",
        (first_frame - started).as_secs_f64() * 1e3,
        filled as f64 / whole
    )?;
    Ok(())
}
