//! `report`'s statistics pass in `histoplay bench` (`--only stats`): FFmpeg's signalstats of a
//! 4:2:0 frame against the one before it, at 8 and 10 bits, checked against the CPU twin first.

use super::compare::{planes, view, yuv420};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::gpu::GpuContext;
use crate::pipeline::FramePipeline;
use crate::signalstats::gpu::StatsStage;
use crate::signalstats::{count, YuvPlanes};
use crate::video::still::RgbaImage;
use std::time::Instant;

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "statistics pass",
        detail,
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for bits in [8, 10] {
        let format = yuv420(image, bits);
        // Two frames a code or two apart, the second counted against the first.
        let (first, second) = (planes(image, bits, 3), planes(image, bits, 5));
        let pipeline =
            FramePipeline::new(ctx, 256, format, Default::default(), 2).map_err(|e| mismatch(e.to_string()))?;
        for (slot, data) in [&first, &second].into_iter().enumerate() {
            pipeline.ring.slots[slot]
                .upload(&ctx.queue, &view(data))
                .map_err(|e| mismatch(e.to_string()))?;
        }
        let slots: Vec<_> = pipeline.ring.slots.iter().map(|s| s.as_ref()).collect();
        let stage = StatsStage::new(ctx, &slots, format, false);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.encode(&mut encoder, 0);
        ctx.queue.submit([encoder.finish()]);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.encode(&mut encoder, 1);
        ctx.queue.submit([encoder.finish()]);
        let read = crate::gpu::readback::read_buffer(ctx, &stage.counts, 0, stage.counts_size())?;
        let first_run = started.elapsed();
        let gpu = stage.counts_from(&crate::gpu::readback::words(&read));
        let yuv = |data: &Vec<(Vec<u8>, usize)>| {
            YuvPlanes::read(format.layout, format.width, format.height, &view(data))
                .map_err(|e| mismatch(e.to_string()))
        };
        let (previous, current) = (yuv(&first)?, yuv(&second)?);
        let cpu = count(&current, Some(&previous));
        if gpu != cpu {
            return Err(mismatch(format!(
                "{bits}-bit: GPU TOUT {} VREP lines {} BRNG {}, CPU {} {} {}",
                gpu.tout, gpu.vrep_lines, gpu.brng, cpu.tout, cpu.vrep_lines, cpu.brng
            )));
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
