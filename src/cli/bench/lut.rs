//! The LUT's rows of `histoplay bench`: the frame through a 33³ and a 65³ 3D table
//! (tetrahedral), each checked equal to its CPU twin first, and through a log encoding's
//! display rendering (within a code of its twin).

use super::kernels::{checked_row, BenchError, Row, Twin};
use crate::colour::lut::{Domain, Lut, LutTables, Table3d};
use crate::colour::LogEncoding;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::render::lut::LutStage;
use crate::video::still::RgbaImage;

/// A look that mixes and bends the channels, sampled on a `size`³ grid.
fn look(size: usize) -> Lut {
    let step = |i: usize| i as f32 / (size - 1) as f32;
    let mut rows = Vec::with_capacity(size * size * size);
    for b in 0..size {
        for g in 0..size {
            for r in 0..size {
                let (r, g, b) = (step(r), step(g), step(b));
                rows.push([
                    0.04 + 0.92 * (0.6 * r + 0.3 * g + 0.1 * b).powf(0.8),
                    0.7 * g * g + 0.2 * b + 0.05 * r,
                    1.0 - 0.8 * b * (0.5 + 0.5 * r) - 0.1 * g,
                ]);
            }
        }
    }
    Lut {
        title: None,
        shaper: None,
        cube: Some(Table3d {
            domain: Domain {
                min: [0.0; 3],
                max: [1.0; 3],
            },
            size,
            rows,
        }),
        log: None,
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, frame: &GpuFrame, iters: usize) -> Result<Vec<Row>, BenchError> {
    let output = GpuFrame::new(ctx, "through the LUT", frame.width, frame.height)?;
    let mut rows = Vec::new();
    for size in [33, 65] {
        let tables = LutTables::new(&look(size), frame.bits);
        let stage = LutStage::new(ctx, &tables, frame, &output)?;
        rows.push(checked_row(
            ctx,
            format!("LUT: {size}³ 3D table, tetrahedral"),
            "LUT",
            &output,
            Twin {
                words: &tables.apply_words(&image.words()),
                within: 0,
            },
            &|encoder, timestamps| stage.encode_timed(encoder, timestamps),
            iters,
        )?);
    }
    // A camera log encoding's display rendering, computed per pixel: within a code of its
    // twin (floating point).
    let tables = LutTables::new(&Lut::log_view(LogEncoding::SLog3Cine), frame.bits);
    let stage = LutStage::new(ctx, &tables, frame, &output)?;
    rows.push(checked_row(
        ctx,
        "Log view: S-Log3 to BT.709, per pixel".into(),
        "log view",
        &output,
        Twin {
            words: &tables.apply_words(&image.words()),
            within: 1,
        },
        &|encoder, timestamps| stage.encode_timed(encoder, timestamps),
        iters,
    )?);
    Ok(rows)
}
