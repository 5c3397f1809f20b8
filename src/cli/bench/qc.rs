//! The QC passes' rows of `histoplay bench`: the photosensitivity analysis's cell light (8-bit
//! SDR, 10-bit PQ and HLG) over the converted frame, and freezedetect's comparison with its
//! reference over the Y'CbCr planes (every frame made the reference, the dearer path), each
//! checked against its CPU twin first.

use super::compare::{planes, uploaded, view, yuv_planes};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::{ColorSpec, ColorVolume, Matrix, Primaries, Range, Transfer};
use crate::events::freeze::gpu::FreezeStage;
use crate::events::freeze::sad;
use crate::gpu::GpuContext;
use crate::pipeline::FramePipeline;
use crate::pse::light::LightModel;
use crate::pse::LightTwin;
use crate::pse::{gpu::PseStage, Standard};
use crate::video::format::{FrameFormat, PlaneLayout};
use crate::video::still::RgbaImage;
use std::time::Instant;

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "qc passes",
        detail,
    }
}

fn format(image: &RgbaImage, bits: u32, matrix: Matrix) -> FrameFormat {
    FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits,
        },
        width: image.width,
        height: image.height,
        color: ColorSpec {
            matrix,
            range: Range::Limited,
        },
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    let pq = ColorVolume {
        transfer: Transfer::Pq,
        primaries: Primaries::Bt2020,
        peak_nits: Some(1000.0),
    };
    let hlg = ColorVolume {
        transfer: Transfer::Hlg,
        ..pq
    };
    for (label, bits, volume, matrix) in [
        ("8-bit BT.709", 8, ColorVolume::default(), Matrix::Bt709),
        ("10-bit BT.2020 PQ", 10, pq, Matrix::Bt2020),
        ("10-bit BT.2020 HLG", 10, hlg, Matrix::Bt2020),
    ] {
        let format = format(image, bits, matrix);
        let data = planes(image, bits, 3);
        let planes = view(&data);
        let pipeline = FramePipeline::new(ctx, 256, format, volume, 1).map_err(|e| mismatch(e.to_string()))?;
        pipeline.ring.slots[0]
            .upload(&ctx.queue, &planes)
            .map_err(|e| mismatch(e.to_string()))?;
        let output = &pipeline.ring.output;
        let model = LightModel::new(Standard::Bt1702, volume.transfer, volume.primaries, output.bits);
        let stage = PseStage::new(ctx, output, &model);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.ring.encode_convert(&mut encoder, 0);
        stage.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let cells = crate::gpu::readback::read_buffer(ctx, &stage.cells, 0, stage.cells.size())?;
        let blocks = crate::gpu::readback::read_buffer(ctx, &stage.block_counts, 0, stage.block_counts.size())?;
        let first_run = started.elapsed();
        let bytes = u64::from(image.width) * u64::from(image.height) * 4;
        let pixels = crate::gpu::readback::read_buffer(ctx, &output.pixels, 0, bytes)?;
        let words = crate::gpu::readback::words(&[cells, blocks].concat());
        let gpu = stage.light_from(&words);
        let cpu = LightTwin::new(stage.grid, model.clone()).frame(bytemuck::cast_slice(&pixels));
        if gpu.cells != cpu.cells {
            let at = gpu.cells.iter().zip(&cpu.cells).position(|(g, c)| g != c).unwrap_or(0);
            return Err(mismatch(format!(
                "pse cells, {label}: cell {at}: GPU {:?}, CPU {:?}",
                gpu.cells.get(at),
                cpu.cells.get(at)
            )));
        }
        if gpu.blocks != cpu.blocks {
            let at = gpu
                .blocks
                .iter()
                .zip(&cpu.blocks)
                .position(|(g, c)| g != c)
                .unwrap_or(0);
            return Err(mismatch(format!(
                "pse stripes, {label}: block {at}: GPU {:?}, CPU {:?}",
                gpu.blocks.get(at),
                cpu.blocks.get(at)
            )));
        }
        rows.push(Row {
            name: format!(
                "pse: cell light and stripes, {label} ({} cells, {} blocks)",
                stage.grid.cells(),
                stage.blocks.len()
            ),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, writes| stage.encode_timed(encoder, writes),
                runs_within_budget(iters, first_run),
            )?),
        });
    }
    // freezedetect: the picture against itself shifted by a code, every frame the reference.
    let format = format(image, 8, Matrix::Bt709);
    let (first, second) = (planes(image, 8, 3), planes(image, 8, 5));
    let slot_a = uploaded(ctx, "qc passes", "bench freeze a", format, &view(&first))?;
    let slot_b = uploaded(ctx, "qc passes", "bench freeze b", format, &view(&second))?;
    let slots = [&slot_a, &slot_b];
    let stage = FreezeStage::new(ctx, &slots, format, -1.0);
    let started = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    stage.encode(&mut encoder, 0);
    stage.encode(&mut encoder, 1);
    ctx.queue.submit([encoder.finish()]);
    let result = crate::gpu::readback::read_buffer(ctx, &stage.result, 0, 16)?;
    let first_run = started.elapsed();
    let verdict = FreezeStage::verdict(&crate::gpu::readback::words(&result));
    let read = |data| yuv_planes("qc passes", format, data);
    let expected = sad(&read(&second)?, &read(&first)?);
    if verdict.sad != expected || verdict.frozen {
        return Err(mismatch(format!("freeze: GPU {verdict:?}, CPU sum {expected}")));
    }
    rows.push(Row {
        name: "freezedetect: against the reference, 8-bit 4:2:0".into(),
        outcome: Ok(time_gpu(
            ctx,
            &|encoder, writes| stage.encode_timed(encoder, 1, writes),
            runs_within_budget(iters, first_run),
        )?),
    });
    Ok(rows)
}
