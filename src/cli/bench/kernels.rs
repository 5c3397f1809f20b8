//! `histoplay bench`: the articles' timing table on the current adapter. Every variant is checked
//! equal to the CPU reference before it is timed; GPU time comes from timestamp queries where the
//! adapter has them, wall-clock time otherwise.

use crate::cli::bench::timing::{runs_within_budget, time_gpu, BenchError, Row, Timing, VARIANT_BUDGET};
use crate::cli::bench::variants::{self, GpuVariant, Production, VariantKind};
use crate::colour::Depth;
use crate::engine::histogram::{self, Histogram};
use crate::engine::{EngineConfig, Merge, Stage};
use crate::gpu::shaders::{self, layout};
use crate::gpu::texture::GpuFrame;
use crate::gpu::{GpuContext, GpuError};
use crate::video::still::RgbaImage;
use std::io::Write;
use std::time::{Duration, Instant};

/// Runs every variant on `image` (and the production pipeline on a flat frame of the same size),
/// plus the production pipeline in each of `extra_engines`' shapes.
pub fn run(
    ctx: &GpuContext,
    image: &RgbaImage,
    bins: u32,
    iters: usize,
    extra_engines: &[EngineConfig],
    groups: &Groups,
    out: &mut impl Write,
) -> Result<Vec<Row>, BenchError> {
    let pixels = u64::from(image.width) * u64::from(image.height);
    let timing_kind = if ctx.has_timestamps() {
        "GPU timestamp queries"
    } else {
        "wall clock (this adapter has no timestamp queries), submit to idle"
    };
    writeln!(out, "adapter: {}", ctx.describe())?;
    writeln!(
        out,
        "frame: {}x{} ({} pixels), {bins} bins, {iters} iterations, timing: {timing_kind}",
        image.width, image.height, pixels
    )?;
    out.flush()?;

    let frame = GpuFrame::from_rgba(ctx, "bench frame", image.width, image.height, &image.pixels)?;
    let mut rows = Vec::new();
    if groups.wants("histograms") {
        rows.extend(histogram_rows(ctx, image, &frame, bins, iters)?);
        rows.extend(super::planes::rows(ctx, image, bins, iters)?);
    }
    if groups.wants("scopes") {
        rows.extend(super::scopes::rows(ctx, image, &frame, bins, iters)?);
    }
    if groups.wants("adjust") {
        rows.extend(super::adjust::rows(ctx, image, &frame, iters)?);
    }
    if groups.wants("lut") {
        rows.extend(super::lut::rows(ctx, image, &frame, iters)?);
    }
    if groups.wants("compare") {
        rows.extend(super::compare::rows(ctx, image, iters)?);
    }
    if groups.wants("vmaf") {
        rows.extend(super::vmaf::rows(ctx, image, iters)?);
    }
    if groups.wants("marks") {
        rows.extend(super::marks::rows(ctx, image, iters)?);
    }
    if groups.wants("stats") {
        rows.extend(super::stats::rows(ctx, image, iters)?);
    }
    if groups.wants("qc") {
        rows.extend(super::qc::rows(ctx, image, iters)?);
    }
    if groups.wants("deinterlace") {
        rows.extend(super::deinterlace::rows(ctx, image, iters)?);
    }
    if groups.wants("upload") {
        rows.extend(super::upload::rows(ctx, image, iters)?);
    }
    if groups.wants("histograms") {
        rows.extend(engine_rows(ctx, image, &frame, bins, iters, extra_engines)?);
        rows.extend(super::planes::shape_rows(ctx, image, bins, iters, extra_engines)?);
    }
    rows.push(Row {
        name: "  floor: an empty dispatch".into(),
        outcome: Ok(time_floor(ctx, iters)?),
    });
    print_table(out, &rows, pixels)?;
    Ok(rows)
}

/// The groups of rows `bench --only` names (all when none is).
pub struct Groups(pub Vec<String>);

impl Groups {
    fn wants(&self, group: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|g| g == group)
    }
}

/// The histogram rows: the CPU reference, the articles' variants and histoplay's engine (on
/// a flat frame and at 10 bits too).
fn histogram_rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    frame: &GpuFrame,
    bins: u32,
    iters: usize,
) -> Result<Vec<Row>, BenchError> {
    let pixels = u64::from(image.width) * u64::from(image.height);
    let reference = histogram::histogram_rgba(&image.pixels, bins);
    let mut rows = vec![Row {
        name: "CPU single thread (reference)".into(),
        outcome: Ok(time_cpu(&image.pixels, bins, iters)),
    }];
    for kind in VariantKind::GPU {
        if let Some(reason) = variants::skip_reason(ctx, kind, image.width, image.height, bins) {
            rows.push(Row {
                name: kind.name().into(),
                outcome: Err(format!("skipped: {reason}")),
            });
            continue;
        }
        let variant = variants::build(ctx, kind, frame, bins)?;
        let first_run = check(ctx, variant.as_ref(), &reference, image)?;
        let runs = runs_within_budget(iters, first_run);
        rows.push(Row {
            name: kind.name().into(),
            outcome: Ok(time_gpu(ctx, &|e, t| variant.encode(e, t), runs)?),
        });
    }

    let flat = RgbaImage {
        width: image.width,
        height: image.height,
        pixels: [90u8, 140, 200, 255].repeat(pixels as usize),
    };
    let flat_reference = histogram::histogram_rgba(&flat.pixels, bins);
    let flat_frame = GpuFrame::from_rgba(ctx, "bench flat frame", flat.width, flat.height, &flat.pixels)?;
    let production = variants::build(ctx, VariantKind::Production, &flat_frame, bins)?;
    check(ctx, production.as_ref(), &flat_reference, &flat)?;
    rows.push(Row {
        name: format!("{} (flat frame)", VariantKind::Production.name()),
        outcome: Ok(time_gpu(ctx, &|e, t| production.encode(e, t), iters)?),
    });

    // The picture at 10 bits (RGB10A2): each channel widened, its two new low bits from a hash
    // of the pixel, so every code value occurs.
    let words: Vec<u32> = image
        .pixels
        .chunks_exact(4)
        .enumerate()
        .map(|(i, px)| {
            let low = (i as u32).wrapping_mul(0x9e37_79b9) >> 26;
            let widen = |c: u8, shift: u32| u32::from(c) << 2 | (low >> shift) & 3;
            crate::colour::depth::pack_rgb10(widen(px[0], 0), widen(px[1], 2), widen(px[2], 4))
        })
        .collect();
    let ten_bit_reference = histogram::histogram_packed(&words, bins, Depth::Ten);
    let ten_bit_frame = GpuFrame::new(ctx, "bench 10-bit frame", image.width, image.height)?;
    ctx.queue
        .write_buffer(&ten_bit_frame.pixels, 0, bytemuck::cast_slice(&words));
    let ten_bit = Production::new(
        ctx,
        &ten_bit_frame,
        bins,
        EngineConfig {
            depth: Depth::Ten,
            ..EngineConfig::default()
        },
    )?;
    check(ctx, &ten_bit, &ten_bit_reference, image)?;
    rows.push(Row {
        name: format!("{} (10-bit frame)", VariantKind::Production.name()),
        outcome: Ok(time_gpu(ctx, &|e, t| ten_bit.encode(e, t), iters)?),
    });

    Ok(rows)
}

/// The engine's other shapes: the three-pass engine by its stages, and the shapes asked for.
fn engine_rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    frame: &GpuFrame,
    bins: u32,
    iters: usize,
    extra_engines: &[EngineConfig],
) -> Result<Vec<Row>, BenchError> {
    let pixels = u64::from(image.width) * u64::from(image.height);
    let reference = histogram::histogram_rgba(&image.pixels, bins);
    let flat = RgbaImage {
        width: image.width,
        height: image.height,
        pixels: [90u8, 140, 200, 255].repeat(pixels as usize),
    };
    let flat_reference = histogram::histogram_rgba(&flat.pixels, bins);
    let flat_frame = GpuFrame::from_rgba(ctx, "bench flat frame", flat.width, flat.height, &flat.pixels)?;
    let mut rows = Vec::new();
    // The three-pass engine, and where its time goes: chunk alone, chunk + reduce, all three.
    let mut three_pass = Production::new(ctx, frame, bins, EngineConfig::three_pass())?;
    check(ctx, &three_pass, &reference, image)?;
    for (stage, label) in [
        (Stage::Scale, "chunk + reduce + scale"),
        (Stage::Reduce, "chunk + reduce only"),
        (Stage::Chunk, "chunk only"),
    ] {
        three_pass.through = stage;
        rows.push(Row {
            name: format!("  three passes: {label}"),
            outcome: Ok(time_gpu(ctx, &|e, t| three_pass.encode(e, t), iters)?),
        });
    }

    for &config in extra_engines {
        for (label, picture, frame, reference) in [
            ("", image, frame, &reference),
            (", flat", &flat, &flat_frame, &flat_reference),
        ] {
            let variant = Production::new(ctx, frame, bins, config)?;
            check(ctx, &variant, reference, picture)?;
            let s = variant.engine().shape();
            let merge = match config.merge {
                Merge::Atomic => "atomic".to_string(),
                Merge::Tree { fan_in } => fan_in.to_string(),
            };
            rows.push(Row {
                name: format!(
                    "  engine {}/{}/{}/{merge}{label}",
                    s.workgroup_size, s.loads_per_invocation, s.replicas
                ),
                outcome: Ok(time_gpu(ctx, &|e, t| variant.encode(e, t), iters)?),
            });
        }
    }
    Ok(rows)
}

/// The least a compute pass costs on this adapter: one invocation storing one word.
fn time_floor(ctx: &GpuContext, iters: usize) -> Result<Timing, GpuError> {
    let device = &ctx.device;
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("bench floor"),
        entries: &[layout::storage(0, wgpu::ShaderStages::COMPUTE, false)],
    });
    let module = shaders::module(device, "bench floor", shaders::BENCH_FLOOR.to_string());
    let pipeline = shaders::compute_pipeline(device, "bench floor", &module, "floor_pass", &layout);
    let word = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench floor"),
        size: 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("bench floor"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: word.as_entire_binding(),
        }],
    });
    time_gpu(
        ctx,
        &|encoder, timestamp_writes| {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bench floor"),
                timestamp_writes,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        },
        iters,
    )
}

fn print_table(out: &mut impl Write, rows: &[Row], pixels: u64) -> std::io::Result<()> {
    let baseline = rows
        .iter()
        .find(|r| r.name == VariantKind::ChunksReduce.name())
        .and_then(|r| r.outcome.as_ref().ok())
        .map(|t| t.median_ms);
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    writeln!(
        out,
        "{:<width$} {:>11} {:>11} {:>9} {:>10} {:>5}",
        "variant", "median ms", "min ms", "Gpix/s", "vs chunks+reduce", "runs"
    )?;
    for row in rows {
        match &row.outcome {
            Ok(t) => {
                let gpix = pixels as f64 / (t.median_ms * 1e-3) / 1e9;
                let speedup = baseline.map_or("-".to_string(), |b| format!("{:.2}x", b / t.median_ms));
                writeln!(
                    out,
                    "{:<width$} {:>11.4} {:>11.4} {:>9.2} {:>16} {:>5}",
                    row.name, t.median_ms, t.min_ms, gpix, speedup, t.runs
                )?;
            }
            Err(note) => writeln!(out, "{:<width$} {note}", row.name)?,
        }
    }
    Ok(())
}

/// Runs a variant once and compares its counts (and scale) with the CPU's; returns how long
/// the run took end to end, to size the timed runs.
fn check(
    ctx: &GpuContext,
    variant: &dyn GpuVariant,
    reference: &Histogram,
    image: &RgbaImage,
) -> Result<Duration, BenchError> {
    let start = Instant::now();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    variant.encode(&mut encoder, None);
    ctx.queue.submit([encoder.finish()]);
    ctx.wait_idle()?;
    let elapsed = start.elapsed();
    let name = variant.kind().name();
    let got = variant.read_histogram(ctx)?;
    if &got != reference {
        let first = got
            .counts
            .iter()
            .zip(&reference.counts)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(BenchError::Mismatch {
            variant: name,
            detail: format!(
                "bin {first}: GPU {:?}, CPU {:?} (GPU total {}, CPU total {})",
                got.counts.get(first),
                reference.counts.get(first),
                got.total(),
                reference.total()
            ),
        });
    }
    if let Some(scale) = variant.read_scale(ctx)? {
        let expected = histogram::display_scale(reference, image.width * image.height);
        if !scales_agree(scale.scale, expected) || scale.max_bin != reference.max_per_channel() {
            return Err(BenchError::Mismatch {
                variant: name,
                detail: format!("scale GPU {:?}, CPU {expected:?}", scale.scale),
            });
        }
    }
    Ok(elapsed)
}

/// GPU division may be off by an ulp or two from the CPU's correctly rounded one.
pub fn scales_agree(gpu: [f32; 4], cpu: [f32; 4]) -> bool {
    gpu.iter()
        .zip(cpu)
        .all(|(g, c)| (g - c).abs() <= c.abs() * 4.0 * f32::EPSILON)
}

fn time_cpu(rgba: &[u8], bins: u32, iters: usize) -> Timing {
    let mut samples = Vec::new();
    let started = Instant::now();
    for _ in 0..iters {
        let start = Instant::now();
        std::hint::black_box(histogram::histogram_rgba(std::hint::black_box(rgba), bins));
        samples.push(start.elapsed().as_secs_f64() * 1e3);
        if started.elapsed() > VARIANT_BUDGET && samples.len() >= 3 {
            break;
        }
    }
    Timing::from_samples(samples)
}
