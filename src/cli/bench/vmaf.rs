//! The VMAF rows of `histoplay bench`: VMAF's GPU pass over a frame pair (the luma planes out of
//! the ring slots, motion, VIF's and ADM's four scales, the 41 totals) at the bench's size and at
//! half of it, 8- and 10-bit, each checked bit for bit against the CPU twin's sums first; for
//! the first, the scoring of the sums on the CPU (the model's SVM) and each part of the pass.

use super::compare::{planes, uploaded, view, yuv420};
use super::timing::{runs_within_budget, time_gpu, BenchError, Row, Timing};
use crate::compare::vmaf::adm::{adm_sums, AdmOptions};
use crate::compare::vmaf::gpu::{GpuOptions, VmafPass, VmafSums};
use crate::compare::vmaf::luma::Luma;
use crate::compare::vmaf::motion::sad_int;
use crate::compare::vmaf::vif::{vif_sums, VifOptions};
use crate::compare::vmaf::{load_model, samples_into, Vmaf, DEFAULT_MODEL};
use crate::gpu::GpuContext;
use crate::video::format::components;
use crate::video::still::RgbaImage;
use std::time::Instant;

fn mismatch(detail: String) -> BenchError {
    BenchError::Mismatch {
        variant: "vmaf",
        detail,
    }
}

/// `image` at half its size, each pixel the mean of a 2x2 block.
fn halved(image: &RgbaImage) -> RgbaImage {
    let (w, h) = (image.width / 2, image.height / 2);
    let mut pixels = Vec::with_capacity((4 * w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                let at = |dx: u32, dy: u32| {
                    u32::from(image.pixels[(4 * ((2 * y + dy) * image.width + 2 * x + dx) + c) as usize])
                };
                pixels.push(((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8);
            }
        }
    }
    RgbaImage {
        width: w,
        height: h,
        pixels,
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    if !VmafPass::supported(&ctx.device) {
        return Ok(vec![Row {
            name: "vmaf: VMAF of a frame pair".into(),
            outcome: Err("the GPU lacks 64-bit integers or doubles in shaders (SHADER_INT64, SHADER_F64)".into()),
        }]);
    }
    let half = halved(image);
    let mut rows = Vec::new();
    for (picture, bits) in [(image, 8), (image, 10), (&half, 8), (&half, 10)] {
        if picture.width < 33 || picture.height < 33 {
            continue;
        }
        // The first pair's parts timed apart too: where the time goes.
        rows.extend(pair_rows(ctx, picture, bits, iters, rows.is_empty())?);
    }
    Ok(rows)
}

fn pair_rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    bits: u32,
    iters: usize,
    parts: bool,
) -> Result<Vec<Row>, BenchError> {
    let format = yuv420(image, bits);
    let (a, b) = (planes(image, bits, 0), planes(image, bits, 3));
    let (pa, pb) = (view(&a), view(&b));
    let mut model = load_model(DEFAULT_MODEL).map(Vmaf::new).map_err(mismatch)?;
    let options: GpuOptions = model.gpu_options();
    let pass = VmafPass::new(&ctx.device, &format, options).map_err(|e| mismatch(e.to_string()))?;
    let slot_a = uploaded(ctx, "vmaf", "bench vmaf a", format, &pa)?;
    let slot_b = uploaded(ctx, "vmaf", "bench vmaf b", format, &pb)?;
    let binding = pass.bind(&ctx.device, &slot_a, &slot_b);
    let started = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pass.encode(&mut encoder, &binding);
    ctx.queue.submit([encoder.finish()]);
    let bytes = crate::gpu::readback::read_buffer(ctx, pass.totals(), 0, VmafPass::totals_size())?;
    let first_run = started.elapsed();
    let gpu = VmafPass::read(&bytes);

    // The twin's sums of the same pair; the first pair's motion is against the history as made
    // (zeros).
    let (ca, _) = components(&format, &pa).expect("Y'CbCr");
    let (cb, _) = components(&format, &pb).expect("Y'CbCr");
    let (mut ya, mut yb) = (Vec::new(), Vec::new());
    samples_into(&ca[0], &mut ya);
    samples_into(&cb[0], &mut yb);
    let zeros = vec![0u16; ya.len()];
    let (width, height) = (ca[0].width, ca[0].height);
    let luma = |data| Luma {
        data,
        width,
        height,
        bits,
    };
    let cpu = VmafSums {
        vif: vif_sums(
            &luma(&ya),
            &luma(&yb),
            &VifOptions {
                enhancement_gain_limit: options.vif_gain_limit,
                skip_scale0: false,
            },
        ),
        adm: adm_sums(
            &luma(&ya),
            &luma(&yb),
            &AdmOptions {
                enhancement_gain_limit: options.adm_gain_limit,
            },
        ),
        sad: sad_int(&luma(&zeros), &luma(&ya)),
    };
    if gpu != cpu {
        return Err(mismatch(format!(
            "{width}x{height} {bits}-bit: GPU {gpu:?}, CPU {cpu:?}"
        )));
    }
    // Scoring the sums on the CPU: the features' tails and the model's prediction, per pair.
    let scoring: Vec<f64> = (0..200)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(model.push_sums(&gpu, width, height));
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();

    let runs = runs_within_budget(iters, first_run);
    let mut rows = vec![Row {
        name: format!("vmaf: VMAF of a {width}x{height} pair, Y'CbCr 4:2:0 {bits}-bit (motion, VIF, ADM)"),
        outcome: Ok(time_gpu(
            ctx,
            &|encoder, timestamps| pass.encode_timed(encoder, &binding, timestamps),
            runs,
        )?),
    }];
    if parts {
        rows.push(Row {
            name: "vmaf: a pair's sums scored on the CPU (the model's SVM)".into(),
            outcome: Ok(Timing::from_samples(scoring)),
        });
        for stage in pass.stages() {
            rows.push(Row {
                name: format!("  vmaf part: {stage}"),
                outcome: Ok(time_gpu(
                    ctx,
                    &|encoder, timestamps| pass.encode_stage(encoder, &binding, &stage, timestamps),
                    runs,
                )?),
            });
        }
    }
    Ok(rows)
}
