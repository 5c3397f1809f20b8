//! How the benchmarks time a pass: each checked against its CPU twin before it is timed, then
//! timed after a warm-up by timestamp queries where the adapter has them (wall clock
//! otherwise); the rows and errors every benchmark table shares.

use crate::gpu::{readback, GpuContext, GpuError};
use std::time::{Duration, Instant};
use thiserror::Error;

/// Slow variants run fewer iterations, so that none takes much longer than this.
pub(super) const VARIANT_BUDGET: Duration = Duration::from_secs(3);

#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("{variant} disagrees with the CPU reference: {detail}")]
    Mismatch { variant: &'static str, detail: String },
    #[error("writing the report failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Median and minimum of one variant's runs, in milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
    pub runs: usize,
}

impl Timing {
    pub(super) fn from_samples(mut samples: Vec<f64>) -> Self {
        samples.sort_by(f64::total_cmp);
        Timing {
            median_ms: samples[samples.len() / 2],
            min_ms: samples[0],
            runs: samples.len(),
        }
    }
}

pub struct Row {
    pub name: String,
    pub outcome: Result<Timing, String>,
}

pub fn runs_within_budget(iters: usize, first_run: Duration) -> usize {
    let fit = (VARIANT_BUDGET.as_secs_f64() / first_run.as_secs_f64().max(1e-6)) as usize;
    iters.min(fit).max(3)
}

/// Records one run into an encoder; timestamps, if given, bracket its compute pass.
pub type Encode<'a> = dyn Fn(&mut wgpu::CommandEncoder, Option<wgpu::ComputePassTimestampWrites>) + 'a;

/// How long each variant runs untimed before its timed runs.
const WARM_UP: Duration = Duration::from_millis(200);

/// Runs `encode` untimed for `WARM_UP`, so that the timed runs find the GPU at its working
/// clocks: an idle GPU raises them only after a while of work, and a short burst of runs timed
/// from idle can come out two or three times slower (as the first run on a freshly started
/// machine did).
fn warm_up(ctx: &GpuContext, encode: &Encode) -> Result<(), GpuError> {
    let started = Instant::now();
    while started.elapsed() < WARM_UP {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for _ in 0..4 {
            encode(&mut encoder, None);
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.wait_idle()?;
    }
    Ok(())
}

/// What a pass's output must equal before it is timed: its CPU twin's words, each channel
/// within `within` codes (0: bit for bit).
pub struct Twin<'a> {
    pub words: &'a [u32],
    pub within: u32,
}

/// A pass that writes `output`'s packed pixels, run once and checked against `expected` (its
/// CPU twin's words), then timed: its row, named `name`.
pub fn checked_row(
    ctx: &GpuContext,
    name: String,
    variant: &'static str,
    output: &crate::gpu::texture::GpuFrame,
    twin: Twin,
    encode: &Encode,
    iters: usize,
) -> Result<Row, BenchError> {
    let started = std::time::Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encode(&mut encoder, None);
    ctx.queue.submit([encoder.finish()]);
    let bytes = crate::gpu::readback::read_buffer(ctx, &output.pixels, 0, u64::from(output.pixel_count()) * 4)?;
    let first_run = started.elapsed();
    let got = crate::gpu::readback::words(&bytes);
    let (expected, within) = (twin.words, twin.within);
    // Each channel's code within `within`.
    let (shift, mask) = if output.bits == 10 { (10, 0x3ff) } else { (8, 0xff) };
    let close =
        |a: u32, b: u32| (0..3).all(|c| ((a >> (c * shift)) & mask).abs_diff((b >> (c * shift)) & mask) <= within);
    if got.len() != expected.len() || got.iter().zip(expected).any(|(&a, &b)| !close(a, b)) {
        let at = got.iter().zip(expected).position(|(&a, &b)| !close(a, b)).unwrap_or(0);
        return Err(BenchError::Mismatch {
            variant,
            detail: format!("pixel {at}: GPU {:#x}, CPU {:#x}", got[at], expected[at]),
        });
    }
    let runs = runs_within_budget(iters, first_run);
    Ok(Row {
        name,
        outcome: Ok(time_gpu(ctx, encode, runs)?),
    })
}

/// Times `runs` runs: each in its own compute pass, bracketed by timestamps where available,
/// after a warm-up.
pub fn time_gpu(ctx: &GpuContext, encode: &Encode, runs: usize) -> Result<Timing, GpuError> {
    warm_up(ctx, encode)?;
    if !ctx.has_timestamps() {
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            encode(&mut encoder, None);
            ctx.queue.submit([encoder.finish()]);
            ctx.wait_idle()?;
            samples.push(start.elapsed().as_secs_f64() * 1e3);
        }
        return Ok(Timing::from_samples(samples));
    }
    let runs = runs.clamp(1, 2048);
    let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench timestamps"),
        ty: wgpu::QueryType::Timestamp,
        count: 2 * runs as u32,
    });
    let resolved = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench timestamps"),
        size: 16 * runs as u64,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    // A few runs per submission keeps the queue busy without one giant command buffer.
    for batch in (0..runs).collect::<Vec<_>>().chunks(8) {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for &i in batch {
            encode(
                &mut encoder,
                Some(wgpu::ComputePassTimestampWrites {
                    query_set: &queries,
                    beginning_of_pass_write_index: Some(2 * i as u32),
                    end_of_pass_write_index: Some(2 * i as u32 + 1),
                }),
            );
        }
        ctx.queue.submit([encoder.finish()]);
    }
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.resolve_query_set(&queries, 0..2 * runs as u32, &resolved, 0);
    ctx.queue.submit([encoder.finish()]);
    let bytes = readback::read_buffer(ctx, &resolved, 0, resolved.size())?;
    let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
    let period_ns = f64::from(ctx.queue.get_timestamp_period());
    let samples = ticks
        .chunks_exact(2)
        .map(|t| t[1].wrapping_sub(t[0]) as f64 * period_ns * 1e-6)
        .collect();
    Ok(Timing::from_samples(samples))
}
