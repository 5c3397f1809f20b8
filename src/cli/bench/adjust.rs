//! The picture adjustments' rows of `histoplay bench`: mpv's controls alone, and auto-levels
//! and equalisation (the frame counted in one bin per code value, the table built, the frame
//! adjusted). Each is checked equal to its CPU twin first.

use super::timing::{checked_row, BenchError, Row, Twin};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::render::adjust::{AdjustStage, Adjustments, AutoMode, CpuAdjuster};
use crate::video::still::RgbaImage;

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
        let expected = CpuAdjuster::new(settings, 8).adjust(&image.words());
        rows.push(checked_row(
            ctx,
            name.into(),
            "picture adjustment",
            &adjusted,
            Twin {
                words: &expected,
                within: 0,
            },
            &|encoder, timestamps| stage.encode_timed(encoder, timestamps),
            iters,
        )?);
    }
    Ok(rows)
}
