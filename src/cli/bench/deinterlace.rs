//! The field passes' rows of `histoplay bench`: bwdif and yadif making a field of a 4:2:0 frame
//! (8 and 10 bits) from three frames' planes, and idet's sums over them, each checked against
//! the CPU twin first.

use super::compare::{planes, view};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::{ColorSpec, Matrix, Range};
use crate::gpu::GpuContext;
use crate::idet::gpu::{IdetPass, RESULT_BYTES};
use crate::video::deinterlace::cpu::{make_field, PlaneGeometry};
use crate::video::deinterlace::gpu::DeinterlacePass;
use crate::video::deinterlace::kept::KeptFrames;
use crate::video::deinterlace::{Deinterlacer, FieldJob, Method, Output};
use crate::video::format::{FrameFormat, PlaneLayout};
use crate::video::still::RgbaImage;
use std::time::Instant;

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "deinterlace",
        detail,
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for bits in [8, 10] {
        let format = FrameFormat {
            layout: PlaneLayout::Yuv {
                chroma_shift_x: 1,
                chroma_shift_y: 1,
                bits,
            },
            width: image.width,
            height: image.height,
            color: ColorSpec {
                matrix: Matrix::Bt709,
                range: Range::Limited,
            },
        };
        // Three frames a little apart: the temporal checks have something to weigh.
        let frames: Vec<_> = [0, 3, 5].map(|noise| planes(image, bits, noise)).into();
        let geometry = PlaneGeometry::of(&format);
        let kept = KeptFrames::new(&ctx.device, &format);
        for (id, data) in frames.iter().enumerate() {
            kept.keep_from_memory(&ctx.queue, id as u64, &view(data));
        }
        for method in [Method::Bwdif, Method::Yadif] {
            let filter = Deinterlacer {
                method,
                ..Deinterlacer::default()
            };
            let pass = DeinterlacePass::new(&ctx.device, &kept, filter);
            // The bottom field made, between the previous frame and this one.
            let output = Output {
                prev: 0,
                cur: 1,
                next: 2,
                field: Some(FieldJob {
                    parity: 0,
                    tff: false,
                    edge: false,
                }),
                second: false,
                pts: None,
            };
            let started = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pass.encode_made(&mut encoder, &output);
            ctx.queue.submit([encoder.finish()]);
            let made = crate::gpu::readback::read_buffer(ctx, pass.made(), 0, pass.made().size())?;
            let first_run = started.elapsed();
            for (i, (plane, rows_at)) in geometry.iter().zip(pass.planes()).enumerate() {
                let samples = |data: &Vec<(Vec<u8>, usize)>| plane.read(&view(data)[i]);
                let [prev, cur, next] = [0, 1, 2].map(|f| samples(&frames[f]));
                let job = output.field.expect("a field");
                let twin = make_field(method, plane, job, true, [&prev, &cur, &next]);
                let gpu = plane.read(&crate::video::format::PlaneData {
                    data: &made[rows_at.offset as usize..],
                    stride: rows_at.pitch as usize,
                });
                if gpu != twin {
                    let at = gpu.iter().zip(&twin).position(|(g, c)| g != c).unwrap_or(0);
                    return Err(mismatch(format!(
                        "{method:?}, {bits}-bit, plane {i}: sample {at}: GPU {}, CPU {}",
                        gpu[at], twin[at]
                    )));
                }
            }
            rows.push(Row {
                name: format!("deinterlace: {method:?} field, {bits}-bit 4:2:0").to_lowercase(),
                outcome: Ok(time_gpu(
                    ctx,
                    &|encoder, writes| pass.encode_made_timed(encoder, &output, writes),
                    runs_within_budget(iters, first_run),
                )?),
            });
        }
        rows.push(idet_row(ctx, &kept, &geometry, &frames, bits, iters)?);
    }
    Ok(rows)
}

/// idet's sums of the middle frame of the three kept, checked against the twin, then timed.
fn idet_row(
    ctx: &GpuContext,
    kept: &KeptFrames,
    geometry: &[PlaneGeometry],
    frames: &[Vec<(Vec<u8>, usize)>],
    bits: u32,
    iters: usize,
) -> Result<Row, BenchError> {
    let pass = IdetPass::new(&ctx.device, kept);
    let output = Output {
        prev: 0,
        cur: 1,
        next: 2,
        field: None,
        second: false,
        pts: None,
    };
    let started = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pass.encode(&mut encoder, &output);
    ctx.queue.submit([encoder.finish()]);
    let bytes = crate::gpu::readback::read_buffer(ctx, &pass.result, 0, RESULT_BYTES)?;
    let first_run = started.elapsed();
    let samples = |data: &Vec<(Vec<u8>, usize)>| -> Vec<Vec<u16>> {
        geometry.iter().zip(view(data)).map(|(g, p)| g.read(&p)).collect()
    };
    let [prev, cur, next] = [0, 1, 2].map(|f| samples(&frames[f]));
    let twin = crate::idet::cpu::sums(geometry, &prev, &cur, &next);
    let gpu = IdetPass::sums(&crate::gpu::readback::words(&bytes));
    if gpu != twin {
        return Err(mismatch(format!("idet, {bits}-bit: GPU {gpu:?}, CPU {twin:?}")));
    }
    Ok(Row {
        name: format!("idet: sums, {bits}-bit 4:2:0"),
        outcome: Ok(time_gpu(
            ctx,
            &|encoder, writes| pass.encode_timed(encoder, &output, writes),
            runs_within_budget(iters, first_run),
        )?),
    })
}
