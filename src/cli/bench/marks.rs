//! The marks rows of `histoplay bench`: each mark on the picture (false colour, zebras, focus
//! peaking, gamut, broadcast range) computed alone over a frame, and all five at once, each
//! checked against its CPU twin first. The frame is the picture as Y'CbCr 4:2:0, converted by
//! the frame pipeline as the player converts it; gamut is timed on a 10-bit BT.2020 PQ frame
//! (the sources it applies to), the rest on an 8-bit BT.709 one.

use super::compare::{planes, view};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::{ColorSpec, ColorVolume, Matrix, Primaries, Range, Transfer};
use crate::gpu::GpuContext;
use crate::marks::gpu::MarksStage;
use crate::marks::{classify, gamut_margin, unpack, Mark, MarkSet, MarkSettings, WORD_GAMUT};
use crate::pipeline::FramePipeline;
use crate::video::format::{components, FrameFormat, PlaneLayout};
use crate::video::still::RgbaImage;
use std::time::Instant;

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "marks",
        detail,
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let sdr = ColorVolume::default();
    let pq = ColorVolume {
        transfer: Transfer::Pq,
        primaries: Primaries::Bt2020,
        peak_nits: Some(1000.0),
    };
    let one = |mark| MarkSet::default().with(mark, true);
    let all = Mark::ALL.iter().fold(MarkSet::default(), |set, &m| set.with(m, true));
    let mut rows = Vec::new();
    for (label, bits, volume, compute) in [
        ("false colour", 8, sdr, one(Mark::FalseColour)),
        ("zebras at 95% and 70%", 8, sdr, one(Mark::Zebra)),
        ("focus peaking", 8, sdr, one(Mark::Peaking)),
        ("broadcast range", 8, sdr, one(Mark::Range)),
        ("gamut, 10-bit BT.2020 PQ", 10, pq, one(Mark::Gamut)),
        ("all five, 10-bit BT.2020 PQ", 10, pq, all),
    ] {
        let matrix = if volume.primaries == Primaries::Bt2020 {
            Matrix::Bt2020
        } else {
            Matrix::Bt709
        };
        let format = FrameFormat {
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
        };
        // A little noise, so that the range test finds codes beyond 16-235 at the ends.
        let data = planes(image, bits, 3);
        let planes = view(&data);
        let pipeline = FramePipeline::new(ctx, 256, format, volume, 1).map_err(|e| mismatch(e.to_string()))?;
        pipeline.ring.slots[0]
            .upload(&ctx.queue, &planes)
            .map_err(|e| mismatch(e.to_string()))?;
        let output = &pipeline.ring.output;
        let mut stage = MarksStage::new(
            ctx,
            &[pipeline.ring.slots[0].as_ref()],
            &output.pixels,
            format,
            volume,
            output.bits,
        );
        let settings = MarkSettings {
            shown: compute,
            zebra_low: Some(70.0),
            ..MarkSettings::default()
        };
        stage.set(&ctx.queue, &settings);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.ring.encode_convert(&mut encoder, 0);
        stage.encode(&mut encoder, Some(0), None);
        ctx.queue.submit([encoder.finish()]);
        let bytes = u64::from(image.width) * u64::from(image.height) * 4;
        let words = crate::gpu::readback::read_buffer(ctx, stage.words(), 0, stage.words_size())?;
        let first_run = started.elapsed();
        let pixels = crate::gpu::readback::read_buffer(ctx, &output.pixels, 0, bytes)?;
        let gpu = stage.unpack_words(&words);
        let pixels: &[u32] = bytemuck::cast_slice(&pixels);
        let (components, _) = components(&format, &planes).expect("Y'CbCr");
        let params = stage.params();
        let table = stage.linear_table();
        let cpu = classify(&params, &table, pixels, Some(&components));
        for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
            // The gamut test alone is floating point: at its edge the GPU may round otherwise.
            let edge = || gamut_margin(unpack(pixels[i], output.bits > 8), &table, &params).abs() < 1e-5;
            if g != c && !(g ^ c == WORD_GAMUT && edge()) {
                return Err(mismatch(format!("{label}: pixel {i}: GPU {g:#x}, CPU {c:#x}")));
            }
        }
        let runs = runs_within_budget(iters, first_run);
        rows.push(Row {
            name: format!("marks: {label}"),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, writes| stage.encode(encoder, Some(0), writes),
                runs,
            )?),
        });
    }
    Ok(rows)
}
