//! The LUT's rows of `histoplay bench`: the frame through a 33³ and a 65³ 3D table
//! (tetrahedral), each checked equal to its CPU twin first, and through a log encoding's
//! display rendering (within a code of its twin). Frames as they play go through the table in
//! the conversion pass: the frame as Y'CbCr 4:2:0 converted alone, then through each table (the
//! difference between the rows is what the table costs a frame); the LUT pass alone applies it
//! to a frame converted already (paused, after the picture adjustments).

use super::compare::{planes, view};
use super::timing::{checked_row, time_gpu, BenchError, Row, Twin};
use crate::colour::lut::{Domain, Lut, LutTables, Table3d};
use crate::colour::{ColorSpec, ColorVolume, LogEncoding, Matrix, Range};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::pipeline::{FramePipeline, ScopesOn};
use crate::render::lut::LutStage;
use crate::video::format::{FrameFormat, PlaneLayout};
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
    let mut rows = conversion_rows(ctx, image, iters)?;
    // The tables equal to their twins; a camera log encoding's display rendering, computed per
    // pixel, within a code of its twin (floating point).
    let looks = [
        ("LUT pass: 33³ 3D table, tetrahedral".to_string(), "LUT", look(33), 0),
        ("LUT pass: 65³ 3D table, tetrahedral".to_string(), "LUT", look(65), 0),
        (
            "Log view: S-Log3 to BT.709, per pixel".to_string(),
            "log view",
            Lut::log_view(LogEncoding::SLog3Cine),
            1,
        ),
    ];
    for (name, variant, lut, within) in looks {
        let tables = LutTables::new(&lut, frame.bits);
        let stage = LutStage::new(ctx, &tables, frame, &output)?;
        rows.push(checked_row(
            ctx,
            name,
            variant,
            &output,
            Twin {
                words: &tables.apply_words(&image.words()),
                within,
            },
            &|encoder, timestamps| stage.encode_timed(encoder, timestamps),
            iters,
        )?);
    }
    Ok(rows)
}

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "LUT in the conversion",
        detail,
    }
}

/// The frame as Y'CbCr 4:2:0 converted as the player converts it, alone and through each
/// table in the same pass (checked equal to the CPU twins of both first, the picture's
/// packed pixels written; timed as frames play while the scopes count the signal: its
/// texture alone).
fn conversion_rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let format = FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        width: image.width,
        height: image.height,
        color: ColorSpec {
            matrix: Matrix::Bt709,
            range: Range::Limited,
        },
    };
    let data = planes(image, 8, 0);
    let planes = view(&data);
    let mut pipeline =
        FramePipeline::new(ctx, 256, format, ColorVolume::default(), 1).map_err(|e| mismatch(e.to_string()))?;
    pipeline.ring.slots[0]
        .upload(&ctx.queue, &planes)
        .map_err(|e| mismatch(e.to_string()))?;
    let signal = crate::video::convert::convert_cpu(&format, &planes);
    let plain = time_gpu(
        ctx,
        &|encoder, writes| pipeline.encode_conversion(encoder, 0, writes),
        iters,
    )?;
    let mut rows = vec![Row {
        name: "conversion: 4:2:0 to RGBA8".into(),
        outcome: Ok(plain),
    }];
    for size in [33, 65] {
        let tables = LutTables::new(&look(size), 8);
        pipeline
            .set_lut(ctx, Some(&tables))
            .and_then(|()| pipeline.set_scopes_on(ctx, ScopesOn::Display))
            .map_err(|e| mismatch(e.to_string()))?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.encode_conversion(&mut encoder, 0, None);
        ctx.queue.submit([encoder.finish()]);
        let bytes = u64::from(pipeline.ring.output.pixel_count()) * 4;
        for (frame, expected) in [
            (&pipeline.ring.output, signal.clone()),
            (pipeline.picture(), tables.apply_words(&signal)),
        ] {
            let got = crate::gpu::readback::read_buffer(ctx, &frame.pixels, 0, bytes)?;
            let got = crate::gpu::readback::words(&got);
            if let Some(at) = got.iter().zip(&expected).position(|(a, b)| a != b) {
                return Err(mismatch(format!(
                    "{size}³: pixel {at}: GPU {:#x}, CPU {:#x}",
                    got[at], expected[at]
                )));
            }
        }
        pipeline
            .set_scopes_on(ctx, ScopesOn::Signal)
            .map_err(|e| mismatch(e.to_string()))?;
        let timing = time_gpu(
            ctx,
            &|encoder, writes| pipeline.encode_conversion(encoder, 0, writes),
            iters,
        )?;
        rows.push(Row {
            name: format!("LUT: {size}³ in the conversion, tetrahedral"),
            outcome: Ok(timing),
        });
    }
    Ok(rows)
}
