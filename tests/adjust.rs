//! The picture adjustments: the GPU pass equals its CPU twin bit for bit on every test picture,
//! at 8 and 10 bits, frame after frame with auto-levels' and equalisation's smoothing; and
//! `hist` and `render` apply them as options.

mod common;

use common::JsonExt;
use histoplay::gpu::readback::{read_buffer, words};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::render::adjust::{AdjustStage, Adjustments, AutoMode, CpuAdjuster};
use histoplay::video::still::RgbaImage;
use std::process::Command;

fn histoplay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
}

/// Settings that exercise every step: each control alone at both ends and between, then
/// mixed, with auto-levels and equalisation.
fn settings() -> Vec<Adjustments> {
    let mut all = Vec::new();
    for value in [-100, -37, 1, 50, 100] {
        all.push(Adjustments {
            contrast: value,
            ..Default::default()
        });
        all.push(Adjustments {
            brightness: value,
            ..Default::default()
        });
        all.push(Adjustments {
            gamma: value,
            ..Default::default()
        });
        all.push(Adjustments {
            saturation: value,
            ..Default::default()
        });
    }
    let mixed = Adjustments {
        contrast: 12,
        brightness: -7,
        gamma: 30,
        saturation: 45,
        auto: AutoMode::Off,
    };
    all.push(mixed);
    for auto in [AutoMode::Levels, AutoMode::Equalize] {
        all.push(Adjustments {
            auto,
            ..Default::default()
        });
        all.push(Adjustments { auto, ..mixed });
    }
    all
}

/// A frame of packed words (RGBA8, or RGB10A2 at 10 bits) on the GPU.
fn frame_of(ctx: &GpuContext, width: u32, height: u32, bits: u32, words: &[u32]) -> GpuFrame {
    let frame = GpuFrame::with_bits(ctx, "test frame", width, height, bits).unwrap();
    ctx.queue.write_buffer(&frame.pixels, 0, bytemuck::cast_slice(words));
    frame
}

/// Runs the stage over each of `frames` in turn (the source rewritten between them) and
/// checks every adjusted frame against the CPU twin.
fn check_sequence(
    ctx: &GpuContext,
    name: &str,
    size: (u32, u32),
    bits: u32,
    frames: &[Vec<u32>],
    settings: Adjustments,
) {
    let (width, height) = size;
    let source = frame_of(ctx, width, height, bits, &frames[0]);
    let adjusted = GpuFrame::with_bits(ctx, "adjusted", width, height, bits).unwrap();
    let mut stage = AdjustStage::new(ctx, &source, &adjusted).unwrap();
    stage.set(&ctx.queue, settings);
    let mut cpu = CpuAdjuster::new(settings, bits);
    for (i, words_in) in frames.iter().enumerate() {
        ctx.queue
            .write_buffer(&source.pixels, 0, bytemuck::cast_slice(words_in));
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        stage.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let bytes = read_buffer(ctx, &adjusted.pixels, 0, u64::from(width * height) * 4).unwrap();
        let gpu = words(&bytes);
        let expected = cpu.adjust(words_in);
        if let Some(at) = gpu.iter().zip(&expected).position(|(a, b)| a != b) {
            panic!(
                "{name}, {bits}-bit, frame {i}, {settings:?}: pixel {at} is {:#010x} on the GPU, {:#010x} on the CPU",
                gpu[at], expected[at]
            );
        }
    }
}

#[test]
fn gpu_equals_cpu_on_every_picture_and_setting() {
    let ctx = common::gpu();
    for (name, image) in common::test_pictures() {
        // The kitten is large for lavapipe: it takes the settings that read its histogram.
        let choices: Vec<Adjustments> = if name == "kitten" {
            settings()
                .into_iter()
                .filter(|s| s.auto != AutoMode::Off || s.saturation == 45)
                .collect()
        } else {
            settings()
        };
        for settings in choices {
            check_sequence(&ctx, name, (image.width, image.height), 8, &[image.words()], settings);
        }
    }
}

/// A picture's words darkened and squeezed into `low..high` (a low-contrast frame).
fn squeezed(image: &RgbaImage, low: u32, high: u32) -> Vec<u32> {
    image
        .words()
        .iter()
        .map(|&w| {
            let c = |shift: u32| low + ((w >> shift) & 0xff) * (high - low) / 255;
            c(0) | (c(8) << 8) | (c(16) << 16) | 0xff00_0000
        })
        .collect()
}

#[test]
fn smoothing_over_frames_is_the_same_on_both() {
    let ctx = common::gpu();
    let image = common::noise(320, 240, 99);
    // Small steps (eased into), then a cut (jumped to), then back.
    let frames = vec![
        squeezed(&image, 60, 180),
        squeezed(&image, 64, 176),
        squeezed(&image, 70, 170),
        squeezed(&image, 0, 40),
        squeezed(&image, 2, 44),
        image.words(),
    ];
    for auto in [AutoMode::Levels, AutoMode::Equalize] {
        let settings = Adjustments {
            auto,
            saturation: -20,
            ..Default::default()
        };
        check_sequence(&ctx, "noise sequence", (320, 240), 8, &frames, settings);
    }
}

#[test]
fn ten_bit_frames_adjust_at_ten_bits_on_both() {
    let ctx = common::gpu();
    // Every 10-bit code in each channel, in different orders.
    let (width, height) = (64, 48);
    let words: Vec<u32> = (0..width * height)
        .map(|i| {
            let r = i % 1024;
            let g = (i * 7 + 3) % 1024;
            let b = (1023 - i % 1024) / 2 + 100;
            r | (g << 10) | (b << 20) | 0xc000_0000
        })
        .collect();
    let darker: Vec<u32> = words
        .iter()
        .map(|&w| (w & 0xc000_0000) | ((w & 0x3fff_ffff) >> 1 & 0x1ff7_fdff))
        .collect();
    for settings in settings() {
        check_sequence(
            &ctx,
            "10-bit codes",
            (width, height),
            10,
            &[words.clone(), darker.clone()],
            settings,
        );
    }
}

fn range(json: &serde_json::Value, channel: &str) -> (usize, usize) {
    let l = json[channel].counts();
    let first = l.iter().position(|&c| c > 0).unwrap();
    let last = l.iter().rposition(|&c| c > 0).unwrap();
    (first, last)
}

#[test]
fn hist_applies_the_adjustments_on_gpu_and_cpu_alike() {
    let clip = common::low_contrast_clip();
    let run = |args: &[&str]| {
        let out = histoplay().arg("hist").arg(&clip).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = common::json(run(&["--frame", "3"]).lines().next().unwrap());
    let (low, high) = range(&plain, "l");
    assert!(low >= 90 && high <= 150, "the fixture is low-contrast: {low}..{high}");
    let plain_spread = high - low;
    for args in [
        &["--frames", "0..6", "--auto-levels"][..],
        &["--frames", "0..6", "--equalize", "--gamma", "20"],
        &[
            "--frames",
            "0..3",
            "--contrast=-30",
            "--saturation",
            "60",
            "--bins",
            "1024",
        ],
    ] {
        let gpu = run(args);
        let mut cpu_args = args.to_vec();
        cpu_args.push("--cpu");
        assert_eq!(gpu, run(&cpu_args), "{args:?}");
    }
    // Auto-levels stretch each channel across the whole range, and so spread the luminance.
    let levels = common::json(run(&["--frame", "3", "--auto-levels"]).lines().next().unwrap());
    for channel in ["r", "g", "b"] {
        let (low, high) = range(&levels, channel);
        assert!(low <= 2 && high >= 253, "auto-levels, {channel}: {low}..{high}");
    }
    let (low, high) = range(&levels, "l");
    assert!(high - low >= 3 * plain_spread, "auto-levels, l: {low}..{high}");
}

#[test]
fn out_of_range_adjustments_are_one_line_errors() {
    for args in [
        &["--contrast", "101"][..],
        &["--gamma", "x"],
        &["--auto-levels", "--equalize"],
    ] {
        let out = histoplay()
            .arg("hist")
            .arg(common::repo_path("media/kitten.jpg"))
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("error:") && stderr.trim_end().lines().count() == 1,
            "{stderr}"
        );
    }
}

#[test]
fn render_draws_the_adjusted_picture() {
    let dir = std::env::temp_dir().join(format!("histoplay-adjust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grey = dir.join("grey.png");
    let kitten = common::repo_path("media/kitten.jpg");
    let out = histoplay()
        .args(["render", "--size", "240x160", "--contain", "--saturation=-100", "-o"])
        .arg(&grey)
        .arg(&kitten)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = histoplay::video::still::load(&grey).unwrap();
    // The picture's middle row, above the histograms: grey everywhere.
    let y = image.height / 3;
    for x in 0..image.width {
        let i = ((y * image.width + x) * 4) as usize;
        let [r, g, b] = [image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]];
        assert!(r.abs_diff(g) <= 1 && g.abs_diff(b) <= 1, "pixel {x},{y} is {r},{g},{b}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scope_applies_the_adjustments_too() {
    let clip = common::low_contrast_clip();
    let run = |args: &[&str]| {
        let out = histoplay().arg("scope").arg(&clip).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let args = [
        "--kind",
        "waveform",
        "--columns",
        "16",
        "--frames",
        "0..4",
        "--auto-levels",
        "--gamma",
        "10",
    ];
    let mut cpu_args = args.to_vec();
    cpu_args.push("--cpu");
    assert_eq!(run(&args), run(&cpu_args));
    // Saturation −100 leaves no chroma: the whole vectorscope in its centre.
    let grey = common::json(
        run(&["--kind", "vectorscope", "--saturation=-100"])
            .lines()
            .next()
            .unwrap(),
    );
    let rows = grey["counts"].array();
    let total: u64 = rows.iter().map(|row| row.counts().iter().sum::<u64>()).sum();
    assert_eq!(total, 320 * 240);
    assert_eq!(rows[128].counts()[128], total);
}
