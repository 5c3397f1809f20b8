//! The scopes' rows of `histoplay bench`: the waveform and parade at 1024 columns, the
//! vectorscope, the CIE 1931 diagram as the player counts it (256 cells a side), and everything a frame with a scope counts (histograms, waveform and
//! vectorscope) in one compute pass. Each scope is checked equal to its CPU twin first.

use super::timing::{runs_within_budget, time_gpu, BenchError, Row};
use crate::colour::{ColorVolume, Depth};
use crate::engine::{EngineConfig, HistogramEngine, Stage};
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::scope::cie::{self, Chromaticity};
use crate::scope::gpu::{ScopePass, ScopeTarget};
use crate::scope::{self, ScopeKind, DEFAULT_COLUMNS};
use crate::video::still::RgbaImage;
use std::time::Instant;

/// One scope of the frame, ready to time.
struct Timed {
    pass: ScopePass,
    target: ScopeTarget,
}

pub fn rows(
    ctx: &GpuContext,
    image: &RgbaImage,
    frame: &GpuFrame,
    bins: u32,
    iters: usize,
) -> Result<Vec<Row>, BenchError> {
    let words = image.words();
    let mut rows = Vec::new();
    let mut timed = Vec::new();
    let volume = ColorVolume::default();
    for kind in [
        ScopeKind::Waveform,
        ScopeKind::Parade,
        ScopeKind::Vectorscope,
        ScopeKind::Cie,
    ] {
        let pass = ScopePass::new(ctx, kind, bins, Depth::Eight);
        let size = (frame.width, frame.height);
        let target = pass.target(ctx, &frame.pixels, kind.display_columns(), size, &volume)?;
        let started = Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pass.encode(&mut encoder, &target, None);
        ctx.queue.submit([encoder.finish()]);
        let got = pass.read(ctx, &target)?;
        let first_run = started.elapsed();
        let expected = match kind {
            ScopeKind::Vectorscope => scope::vectorscope(&words, Depth::Eight),
            ScopeKind::Cie => cie::cie(&words, Depth::Eight, &Chromaticity::new(&volume, 8), cie::DISPLAY_SIZE),
            _ => scope::column_scope(kind, &words, image.width, DEFAULT_COLUMNS, bins, Depth::Eight).counts,
        };
        if got != expected {
            let first = got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(0);
            return Err(BenchError::Mismatch {
                variant: kind.name(),
                detail: format!("count {first}: GPU {:?}, CPU {:?}", got.get(first), expected.get(first)),
            });
        }
        let columns = match kind {
            ScopeKind::Vectorscope => String::new(),
            ScopeKind::Cie => format!(" 1931 xy, {0}x{0} cells", cie::DISPLAY_SIZE),
            _ => format!(", {DEFAULT_COLUMNS} columns"),
        };
        let runs = runs_within_budget(iters, first_run);
        rows.push(Row {
            name: format!("scope: {}{columns}", kind.name()),
            outcome: Ok(time_gpu(
                ctx,
                &|encoder, timestamps| pass.encode(encoder, &target, timestamps),
                runs,
            )?),
        });
        timed.push(Timed { pass, target });
    }

    // A frame with the waveform and the vectorscope on: the histograms and both scopes.
    let engine = HistogramEngine::new(ctx, bins, EngineConfig::default());
    let target = engine.target(ctx, frame.width, frame.height)?;
    let source = engine.bind_source(ctx, &target, &frame.pixels);
    let both = [&timed[0], &timed[2]];
    rows.push(Row {
        name: "scope: histograms + waveform + vectorscope".into(),
        outcome: Ok(time_gpu(
            ctx,
            &|encoder, timestamp_writes| {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("histograms and scopes"),
                    timestamp_writes,
                });
                engine.encode_into(&mut pass, &target, &source, Stage::Scale);
                for scope in both {
                    scope.pass.encode_into(&mut pass, &scope.target);
                }
            },
            iters,
        )?),
    });
    Ok(rows)
}
