//! The picture adjustments' rows of `histoplay bench`: mpv's controls alone, and auto-levels
//! and equalisation (the frame counted in one bin per code value, the table built, the frame
//! adjusted). Each is checked equal to its CPU twin first.

use super::kernels::{runs_within_budget, time_gpu, BenchError, Row};
use crate::gpu::readback::{read_buffer, words};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::render::adjust::{AdjustStage, Adjustments, AutoMode, CpuAdjuster};
use crate::video::still::RgbaImage;
use std::time::Instant;

pub fn rows(ctx: &GpuContext, image: &RgbaImage, frame: &GpuFrame, iters: usize) -> Result<Vec<Row>, BenchError> {
    let adjusted = GpuFrame::new(ctx, "adjusted", frame.width, frame.height)?;
    let controls = Adjustments {
        contrast: 12,
        brightness: -5,
        gamma: 20,
        saturation: 30,
        auto: AutoMode::Off,
    };
    let mut rows = Vec::new();
    for (name, settings) in [
        ("adjust: contrast, brightness, gamma, saturation", controls),
        (
            "adjust: auto-levels",
            Adjustments {
                auto: AutoMode::Levels,
                ..Default::default()
            },
        ),
        (
            "adjust: equalisation",
            Adjustments {
                auto: AutoMode::Equalize,
                ..Default::default()
            },
        ),
    ] {
        let mut stage = AdjustStage::new(ctx, frame, &adjusted)?;
        stage.set(&ctx.queue, settings);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let bytes = read_buffer(ctx, &adjusted.pixels, 0, u64::from(frame.pixel_count()) * 4)?;
        let first_run = started.elapsed();
        let got = words(&bytes);
        let expected = CpuAdjuster::new(settings, 8).adjust(&image.words());
        if got != expected {
            let at = got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(0);
            return Err(BenchError::Mismatch {
                variant: "picture adjustment",
                detail: format!("pixel {at}: GPU {:#x}, CPU {:#x}", got[at], expected[at]),
            });
        }
        let runs = runs_within_budget(iters, first_run);
        rows.push(Row {
            name: name.into(),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, timestamps| stage.encode_timed(encoder, timestamps),
                runs,
            )?),
        });
    }
    Ok(rows)
}
