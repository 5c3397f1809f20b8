//! The engine counting from the decoded planes (`engine::planes`): the picture as Y'CbCr 4:2:0
//! at 8 and 10 bits, counted from its planes, then the same frame converted and counted as
//! packed pixels, each checked equal to the CPU twin (the conversion's, then the histogram's)
//! first. The two rows of a depth are the same frame's histograms the two ways.

use super::compare::{planes, uploaded, view, yuv420};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::Depth;
use crate::engine::histogram::{histogram_packed, Histogram};
use crate::engine::planes::PlanesCount;
use crate::engine::{EngineConfig, HistogramEngine, HistogramTarget};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::video::still::RgbaImage;
use std::time::Instant;

const VARIANT: &str = "histograms from the planes";

pub fn rows(ctx: &GpuContext, image: &RgbaImage, bins: u32, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for bits in [8, 10] {
        rows.extend(depth_rows(ctx, image, bins, iters, bits, EngineConfig::default())?);
    }
    Ok(rows)
}

/// The planes counted in each of `shapes` (the tile follows the shape: two columns an
/// invocation, twice its loads down), 8-bit.
pub fn shape_rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    bins: u32,
    iters: usize,
    shapes: &[EngineConfig],
) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for &config in shapes.iter().filter(|c| c.merge == crate::engine::Merge::Atomic) {
        let mut depth = depth_rows(ctx, image, bins, iters, 8, config)?;
        depth.truncate(1);
        let s = config.shape;
        depth[0].name = format!(
            "  from the planes {}/{}/{}",
            s.workgroup_size, s.loads_per_invocation, s.replicas
        );
        rows.extend(depth);
    }
    Ok(rows)
}

fn depth_rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    bins: u32,
    iters: usize,
    bits: u32,
    config: EngineConfig,
) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    {
        let format = yuv420(image, bits);
        let data = planes(image, bits, 0);
        let planes = view(&data);
        let depth = Depth::from_bits(bits);
        let expected = histogram_packed(&crate::video::convert::convert_cpu(&format, &planes), bins, depth);
        let engine = HistogramEngine::new(ctx, bins, EngineConfig { depth, ..config });

        let target = engine.target(ctx, image.width, image.height)?;
        let slot = uploaded(ctx, VARIANT, "bench planes", format, &planes)?;
        let count = PlanesCount::new(ctx, &engine, &target, &format).ok_or_else(|| mismatch("not counted".into()))?;
        let binding = count.bind(ctx, &target, &slot);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        count.encode(&mut encoder, &binding, None);
        ctx.queue.submit([encoder.finish()]);
        check(ctx, &engine, &target, &expected, "from the planes")?;
        let runs = runs_within_budget(iters, started.elapsed());
        rows.push(Row {
            name: format!("histoplay from the planes: 4:2:0 {bits}-bit"),
            outcome: Ok(time_gpu(ctx, &|e, t| count.encode(e, &binding, t), runs)?),
        });

        // The same frame converted (by the CPU twin), counted as packed pixels.
        let words = crate::video::convert::convert_cpu(&format, &planes);
        let frame = GpuFrame::with_bits(ctx, "bench converted frame", image.width, image.height, bits)?;
        ctx.queue.write_buffer(&frame.pixels, 0, bytemuck::cast_slice(&words));
        let target = engine.target(ctx, image.width, image.height)?;
        let source = engine.bind_source(ctx, &target, &frame.pixels);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        engine.encode(&mut encoder, &target, &source, None);
        ctx.queue.submit([encoder.finish()]);
        check(ctx, &engine, &target, &expected, "converted")?;
        rows.push(Row {
            name: format!("  the same frame converted, {bits}-bit"),
            outcome: Ok(time_gpu(ctx, &|e, t| engine.encode(e, &target, &source, t), runs)?),
        });
    }
    Ok(rows)
}

fn check(
    ctx: &GpuContext,
    engine: &HistogramEngine,
    target: &HistogramTarget,
    expected: &Histogram,
    what: &str,
) -> Result<(), BenchError> {
    let got = engine.read_histogram(ctx, target)?;
    if &got == expected {
        return Ok(());
    }
    let first = got
        .counts
        .iter()
        .zip(&expected.counts)
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    Err(mismatch(format!(
        "{what}: bin {first}: GPU {:?}, CPU {:?}",
        got.counts.get(first),
        expected.counts.get(first)
    )))
}

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: VARIANT,
        detail,
    }
}
