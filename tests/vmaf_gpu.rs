//! VMAF's GPU pass against its CPU twin, bit for bit: every pair's integer sums (VIF's four
//! scales, ADM's numerators and denominators, the motion SAD) equal the twin's, on real footage
//! at 8 and 10 bits, under the NEG model's gain limits, on odd sizes, 4:2:2 and 4:4:4, at the
//! smallest size VMAF takes, and with the five-frame motion window. The twin is held to libvmaf
//! itself in `compare_vmaf`.

mod common;

use histoplay::compare::vmaf::adm::{adm_sums, AdmOptions};
use histoplay::compare::vmaf::gpu::{GpuOptions, VmafPass, VmafSums};
use histoplay::compare::vmaf::luma::Luma;
use histoplay::compare::vmaf::motion::sad_int;
use histoplay::compare::vmaf::vif::{loss_map, vif_sums, VifOptions};
use histoplay::compare::vmaf::{load_model, samples_into, Vmaf};
use histoplay::video::convert::PlaneTextures;
use histoplay::video::format::components;
use histoplay::video::source::VideoSource;
use std::path::{Path, PathBuf};

const DEFAULT: GpuOptions = GpuOptions {
    adm_gain_limit: 100.0,
    vif_gain_limit: 100.0,
    five_frame_window: false,
    heat: true,
};

/// Eight frames of the bundled footage, losslessly, at `size` in `pix`.
fn footage(name: &str, size: &str, pix: &str) -> PathBuf {
    let sample = common::repo_path("media/sample-540p.mp4");
    common::fixture(
        name,
        &[
            "-ss",
            "3",
            "-i",
            sample.to_str().unwrap(),
            "-frames:v",
            "8",
            "-an",
            "-vf",
            &format!("scale={size},format={pix}"),
            "-c:v",
            "ffv1",
        ],
    )
}

/// `reference` through `args` (an encode, or a filter and a lossless encode).
fn judged(name: &str, reference: &Path, args: &[&str]) -> PathBuf {
    let mut all = vec!["-i", reference.to_str().unwrap()];
    all.extend_from_slice(args);
    common::fixture(name, &all)
}

/// Every pair's sums from the GPU and from the twin; returns how many pairs there were.
fn agree(reference: &Path, judged: &Path, options: GpuOptions) -> usize {
    let ctx = common::gpu();
    let mut sa = VideoSource::open(reference).unwrap();
    let mut sb = VideoSource::open(judged).unwrap();
    let format = sa.info.format;
    assert_eq!(sb.info.format, format);
    let pass = VmafPass::new(&ctx.device, &format, options).expect("lavapipe has 64-bit integers and doubles");
    let slot_a = PlaneTextures::new(&ctx.device, "a", format).unwrap();
    let slot_b = PlaneTextures::new(&ctx.device, "b", format).unwrap();
    let binding = pass.bind(&ctx.device, &slot_a, &slot_b);
    let vif_options = VifOptions {
        enhancement_gain_limit: options.vif_gain_limit,
        skip_scale0: false,
    };
    let adm_options = AdmOptions {
        enhancement_gain_limit: options.adm_gain_limit,
    };
    let mut history: Vec<Vec<u16>> = Vec::new();
    let mut pairs = 0;
    while let (Some(x), Some(y)) = (sa.next_frame().unwrap(), sb.next_frame().unwrap()) {
        let (px, py) = (x.planes(format.layout), y.planes(format.layout));
        slot_a.upload(&ctx.queue, &px).unwrap();
        slot_b.upload(&ctx.queue, &py).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode(&mut encoder, &binding);
        ctx.queue.submit([encoder.finish()]);
        let bytes = histoplay::gpu::readback::read_buffer(&ctx, pass.totals(), 0, VmafPass::totals_size()).unwrap();
        let gpu = VmafPass::read(&bytes);

        let (ca, bits) = components(&format, &px).unwrap();
        let (cb, _) = components(&format, &py).unwrap();
        let (mut ya, mut yb) = (Vec::new(), Vec::new());
        samples_into(&ca[0], &mut ya);
        samples_into(&cb[0], &mut yb);
        let (width, height) = (ca[0].width, ca[0].height);
        let luma = |data| Luma {
            data,
            width,
            height,
            bits,
        };
        let back = if options.five_frame_window { 2 } else { 1 };
        let sad = history
            .len()
            .checked_sub(back)
            .map(|i| sad_int(&luma(&history[i]), &luma(&ya)));
        let cpu = VmafSums {
            vif: vif_sums(&luma(&ya), &luma(&yb), &vif_options),
            adm: adm_sums(&luma(&ya), &luma(&yb), &adm_options),
            sad: sad.unwrap_or(gpu.sad),
        };
        let at = format!("{}, frame {}", judged.display(), x.index);
        assert_eq!(gpu.vif, cpu.vif, "VIF, {at}");
        assert_eq!(gpu.adm, cpu.adm, "ADM, {at}");
        assert_eq!(gpu.sad, cpu.sad, "motion, {at}");
        // The pair differs: the sums measured something.
        assert!(cpu.vif[0].numerator_log != cpu.vif[0].denominator_log, "{at}");
        // VIF's loss at each pixel, the window's heat map.
        if let Some(heat) = pass.heat() {
            let bytes = histoplay::gpu::readback::read_buffer(&ctx, heat, 0, 4 * (width * height) as u64).unwrap();
            let gpu: Vec<i32> = bytemuck::cast_slice(&bytes).to_vec();
            let cpu = loss_map(&luma(&ya), &luma(&yb), &vif_options);
            assert_eq!(gpu.len(), cpu.len());
            if let Some(i) = (0..cpu.len()).find(|&i| gpu[i] != cpu[i]) {
                panic!(
                    "VIF heat at ({}, {}): GPU {} CPU {}, {at}",
                    i % width,
                    i / width,
                    gpu[i],
                    cpu[i]
                );
            }
            // And it is a map: the loss differs from place to place.
            assert!(cpu.iter().any(|&l| l != cpu[0]), "{at}");
        }
        history.push(ya);
        pairs += 1;
    }
    pairs
}

fn footage_8() -> PathBuf {
    footage("vmaf-gpu-reference-8.mkv", "352:198", "yuv420p")
}

#[test]
fn an_8_bit_encode_sums_as_the_cpu_twin_does() {
    let reference = footage_8();
    let encode = judged(
        "vmaf-gpu-encode-8.mkv",
        &reference,
        &["-c:v", "libx264", "-crf", "38", "-preset", "fast"],
    );
    assert_eq!(agree(&reference, &encode, DEFAULT), 8);
}

#[test]
fn a_10_bit_encode_sums_as_the_cpu_twin_does() {
    let reference = footage("vmaf-gpu-reference-10.mkv", "352:198", "yuv420p10le");
    let encode = judged(
        "vmaf-gpu-encode-10.mkv",
        &reference,
        &[
            "-c:v",
            "libx265",
            "-crf",
            "34",
            "-pix_fmt",
            "yuv420p10le",
            "-x265-params",
            "log-level=error",
        ],
    );
    assert_eq!(agree(&reference, &encode, DEFAULT), 8);
}

#[test]
fn a_sharpened_copy_sums_as_the_cpu_twin_does_under_each_models_gain_limits() {
    let reference = footage_8();
    let sharpened = judged(
        "vmaf-gpu-sharpened-8.mkv",
        &reference,
        &["-vf", "unsharp=5:5:1.5", "-c:v", "ffv1"],
    );
    let neg = load_model("vmaf_v0.6.1neg").map(Vmaf::new).unwrap().gpu_options();
    assert_eq!((neg.adm_gain_limit, neg.vif_gain_limit), (1.0, 1.0));
    assert_eq!(agree(&reference, &sharpened, neg), 8);
    assert_eq!(agree(&reference, &sharpened, DEFAULT), 8);
}

#[test]
fn odd_sizes_and_other_chroma_sum_as_the_cpu_twin_does() {
    // Sizes that are no multiple of a tile, a DWT's halving or VIF's decimation, and the
    // smallest VMAF takes; 4:2:2 and 4:4:4 at 10 and 8 bits (luma only, as libvmaf).
    for (size, pix) in [
        ("333:187", "yuv420p"),
        ("33:33", "yuv420p"),
        ("97:61", "yuv422p10le"),
        ("130:75", "yuv444p"),
    ] {
        let name = format!("vmaf-gpu-{}-{pix}", size.replace(':', "x"));
        let reference = footage(&format!("{name}.mkv"), size, pix);
        let noisy = judged(
            &format!("{name}-noise.mkv"),
            &reference,
            &["-vf", "noise=alls=12:allf=t", "-pix_fmt", pix, "-c:v", "ffv1"],
        );
        assert_eq!(agree(&reference, &noisy, DEFAULT), 8, "{size} {pix}");
    }
}

#[test]
fn the_five_frame_motion_window_compares_with_the_frame_before_last() {
    let reference = footage_8();
    let encode = judged(
        "vmaf-gpu-encode-8.mkv",
        &reference,
        &["-c:v", "libx264", "-crf", "38", "-preset", "fast"],
    );
    let options = GpuOptions {
        five_frame_window: true,
        ..DEFAULT
    };
    assert_eq!(agree(&reference, &encode, options), 8);
}
