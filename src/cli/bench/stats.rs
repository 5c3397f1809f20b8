//! `report`'s statistics pass in `histoplay bench` (`--only stats`): FFmpeg's signalstats of a
//! 4:2:0 frame against the one before it, at 8 and 10 bits, checked against the CPU twin first.

use super::compare::{planes, uploaded, view, yuv420, yuv_planes};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::gpu::GpuContext;
use crate::signalstats::count;
use crate::signalstats::gpu::StatsStage;
use crate::video::still::RgbaImage;
use std::time::Instant;

const VARIANT: &str = "statistics pass";

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for bits in [8, 10] {
        let format = yuv420(image, bits);
        // Two frames a code or two apart, the second counted against the first.
        let (first, second) = (planes(image, bits, 3), planes(image, bits, 5));
        let slot_a = uploaded(ctx, VARIANT, "bench stats a", format, &view(&first))?;
        let slot_b = uploaded(ctx, VARIANT, "bench stats b", format, &view(&second))?;
        let stage = StatsStage::new(ctx, &[&slot_a, &slot_b], format, false);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.encode(&mut encoder, 0);
        stage.encode(&mut encoder, 1);
        ctx.queue.submit([encoder.finish()]);
        let read = crate::gpu::readback::read_buffer(ctx, &stage.counts, 0, stage.counts_size())?;
        let first_run = started.elapsed();
        let gpu = stage.counts_from(&crate::gpu::readback::words(&read));
        let (previous, current) = (
            yuv_planes(VARIANT, format, &first)?,
            yuv_planes(VARIANT, format, &second)?,
        );
        let cpu = count(&current, Some(&previous));
        if gpu != cpu {
            return Err(BenchError::Mismatch {
                variant: VARIANT,
                detail: format!(
                    "{bits}-bit: GPU TOUT {} VREP lines {} BRNG {}, CPU {} {} {}",
                    gpu.tout, gpu.vrep_lines, gpu.brng, cpu.tout, cpu.vrep_lines, cpu.brng
                ),
            });
        }
        rows.push(Row {
            name: format!("signalstats (tout, vrep, brng) of a frame against the one before, {bits}-bit 4:2:0"),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, writes| stage.encode_timed(encoder, 1, writes),
                runs_within_budget(iters, first_run),
            )?),
        });
    }
    Ok(rows)
}
