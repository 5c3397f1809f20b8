//! The compare rows of `histoplay bench`: PSNR and SSIM of a frame pair on the GPU (the metrics
//! stage of `histoplay compare`), at 8 and 10 bits, each checked against its CPU twin first.
//! The pair is the frame as Y'CbCr 4:2:0 and the same with a few codes of noise added, as an
//! encode of it would differ.

use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::ColorSpec;
use crate::compare::gpu::MetricsPass;
use crate::compare::metrics::{component_sums, ssim_windows, ComponentSums, SSIM_ONE};
use crate::gpu::GpuContext;
use crate::signalstats::YuvPlanes;
use crate::video::convert::PlaneTextures;
use crate::video::format::{components, FrameFormat, PlaneData, PlaneLayout};
use crate::video::still::RgbaImage;
use std::time::Instant;

/// The picture's planes as 4:2:0 at `bits` (BT.709 luma weights, chroma of each 2x2 block's
/// first pixel: a natural picture's statistics, not a colourimetric conversion), and the same
/// with noise of up to ±`noise` codes.
pub(super) fn planes(image: &RgbaImage, bits: u32, noise: i32) -> Vec<(Vec<u8>, usize)> {
    let (w, h) = (image.width as usize, image.height as usize);
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let bytes = if bits > 8 { 2 } else { 1 };
    let max = (1i32 << bits) - 1;
    let scale = f64::from(max) / 255.0;
    let px = |x: usize, y: usize| {
        let at = 4 * (y * w + x);
        let p = &image.pixels[at..at + 3];
        (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]))
    };
    let jitter = |i: usize| {
        let hash = (i as u32).wrapping_mul(0x9e37_79b9) >> 16;
        if noise == 0 {
            0
        } else {
            (hash % (2 * noise as u32 + 1)) as i32 - noise
        }
    };
    let mut out = Vec::new();
    for (plane, (pw, ph)) in [(w, h), (cw, ch), (cw, ch)].into_iter().enumerate() {
        let stride = pw * bytes;
        let mut data = vec![0u8; stride * ph];
        for y in 0..ph {
            for x in 0..pw {
                let (r, g, b) = if plane == 0 { px(x, y) } else { px(2 * x, 2 * y) };
                let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
                let value = match plane {
                    0 => luma,
                    1 => 128.0 + (b - luma) / 1.8556,
                    _ => 128.0 + (r - luma) / 1.5748,
                };
                let code = ((value * scale).round() as i32 + jitter(plane * w * h + y * pw + x)).clamp(0, max);
                let at = y * stride + x * bytes;
                if bytes == 1 {
                    data[at] = code as u8;
                } else {
                    data[at..at + 2].copy_from_slice(&(code as u16).to_le_bytes());
                }
            }
        }
        out.push((data, stride));
    }
    out
}

pub(super) fn view(planes: &[(Vec<u8>, usize)]) -> Vec<PlaneData<'_>> {
    planes
        .iter()
        .map(|(data, stride)| PlaneData { data, stride: *stride })
        .collect()
}

/// `planes` (a frame of `format`) as the CPU twins read them; a failure is `variant`'s.
pub(super) fn yuv_planes(
    variant: &'static str,
    format: FrameFormat,
    planes: &[(Vec<u8>, usize)],
) -> Result<YuvPlanes, BenchError> {
    YuvPlanes::read(format.layout, format.width, format.height, &view(planes)).map_err(|e| BenchError::Mismatch {
        variant,
        detail: e.to_string(),
    })
}

/// The frame as Y'CbCr 4:2:0 at `bits`, in the pair's format.
pub(super) fn yuv420(image: &RgbaImage, bits: u32) -> FrameFormat {
    FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits,
        },
        width: image.width,
        height: image.height,
        color: ColorSpec::resolve(None, None, image.width, image.height, false),
    }
}

/// A ring slot of `format` holding `planes`; a failure is `variant`'s.
pub(super) fn uploaded(
    ctx: &GpuContext,
    variant: &'static str,
    label: &str,
    format: FrameFormat,
    planes: &[PlaneData],
) -> Result<PlaneTextures, BenchError> {
    let failed = |e: crate::video::convert::ConvertError| BenchError::Mismatch {
        variant,
        detail: e.to_string(),
    };
    let slot = PlaneTextures::new(&ctx.device, label, format).map_err(failed)?;
    slot.upload(&ctx.queue, planes).map_err(failed)?;
    Ok(slot)
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let mut rows = Vec::new();
    for bits in [8, 10] {
        let format = yuv420(image, bits);
        let (a, b) = (planes(image, bits, 0), planes(image, bits, 3));
        let (pa, pb) = (view(&a), view(&b));
        let pass = MetricsPass::new(&ctx.device, &format).map_err(|e| BenchError::Mismatch {
            variant: "compare",
            detail: e.to_string(),
        })?;
        let slot_a = uploaded(ctx, "compare", "bench compare a", format, &pa)?;
        let slot_b = uploaded(ctx, "compare", "bench compare b", format, &pb)?;
        let binding = pass.bind(&ctx.device, &slot_a, &slot_b);
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode(&mut encoder, &binding);
        ctx.queue.submit([encoder.finish()]);
        let bytes = crate::gpu::readback::read_buffer(ctx, pass.sums(), 0, MetricsPass::sums_size())?;
        let first_run = started.elapsed();
        let gpu = pass.read(&bytes);
        let (ca, _) = components(&format, &pa).expect("Y'CbCr");
        let (cb, _) = components(&format, &pb).expect("Y'CbCr");
        let cpu: Vec<ComponentSums> = ca.iter().zip(&cb).map(|(a, b)| component_sums(a, b, bits)).collect();
        for (c, (g, k)) in gpu.iter().zip(&cpu).enumerate() {
            let windows = ssim_windows(ca[c].width, ca[c].height);
            // The squared errors are exact; a window's SSIM may differ in its last bit where
            // the GPU's single-precision division (or a fused multiply-add) rounds otherwise
            // than the CPU's (on NVIDIA about 1.5% of the windows). The mean must still agree
            // within 1e-8, a hundredth of the last digit FFmpeg prints.
            let ssim_slack = (windows as f64 * f64::from(SSIM_ONE) * 1e-8).ceil() as u64;
            if g.sse != k.sse || g.ssim.abs_diff(k.ssim) > ssim_slack {
                return Err(BenchError::Mismatch {
                    variant: "compare",
                    detail: format!("{bits} bits, component {c}: GPU {g:?}, CPU {k:?}"),
                });
            }
        }
        let runs = runs_within_budget(iters, first_run);
        rows.push(Row {
            name: format!("compare: PSNR + SSIM of a frame pair, Y'CbCr 4:2:0 {bits}-bit"),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, timestamps| pass.encode_timed(encoder, &binding, timestamps),
                runs,
            )?),
        });
    }
    Ok(rows)
}
