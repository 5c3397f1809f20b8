//! `histoplay pse`: the photosensitive-epilepsy analysis of a file or a live input (flashes and
//! red flashes, `pse::`), a JSON line per frame with `--frames-out`, then the verdict; the exit
//! status 1 when the programme fails.

use crate::headless::{self as hist, ClipError, FrameRange};
use crate::pse::light::{Grid, LightModel};
use crate::pse::{Analysis, FrameLight, FrameVerdict, LightTwin, PseFailure, Standard};
use crate::quit_signals::QuitSignals;
use crate::video::source::{Decoding, VideoSource};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Analyse a programme for photosensitive-epilepsy hazards: flashes, red flashes and patterns
///
/// As ITU-R BT.1702 (20 cd/m² where the darker image is under 160 cd/m², more than 3 flashes
/// in any second over more than 25% of the screen; regular patterns of more than 5 light-dark
/// pairs of stripes over 40% of the screen, 25% while they change, for half a second), Ofcom's
/// guidance (with extended flashing) or WCAG 2.2 (25% of any 10° field; flashes only). Prints
/// the verdict as one JSON line: {"verdict":"pass"|"fail","standard":...,"failures":[{"kind":
/// "general-flash"|"red-flash"|"extended"|"pattern","start":s,"end":s,"frames":[a,b],"worst":
/// flashes a second, or a pattern's pairs}]}; the exit status is 1 on a failure.
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    /// The rules: bt1702, ofcom (BT.1702 and extended flashing) or wcag.
    #[arg(long, value_enum, default_value_t = Standard::Bt1702)]
    standard: Standard,
    /// A JSON line per frame first: the share of the screen that flashed at it (flash,
    /// red_flash), the flashes in the second up to it over the standard's area (flashes,
    /// red_flashes), the share that flashed more than 3 times (area, red_area), extended, the
    /// worst pattern's share of the screen, light-dark pairs and whether it changes (pattern,
    /// pattern_pairs, pattern_changing), and state (pass, warn, fail).
    #[arg(long)]
    frames_out: bool,
    /// A range of frames: A..B (B excluded), A..=B, A.. (to the end) [default: every frame].
    #[arg(long, value_parser = FrameRange::parse)]
    frames: Option<FrameRange>,
    /// Analyse on the CPU (the reference implementation); the output is identical.
    #[arg(long)]
    cpu: bool,
}

pub fn run(args: Args) -> Result<()> {
    let signals = QuitSignals::install();
    let range = args.frames.unwrap_or(FrameRange { start: 0, end: None });
    // The GPU opens while the file does.
    let gpu = crate::gpu::GpuOpening::start(!args.cpu);
    let source = VideoSource::open_for(&args.input, Decoding::Throughput)?;
    if source.info.cover_art {
        // (The GPU let go of first, as `report` does for a file of sound.)
        drop(gpu);
        bail!(
            "'{}' has no video stream: its one picture is its cover (an attached picture)",
            args.input.display()
        );
    }
    // (A range past the end is said so before anything is decoded, as `hist` and `report` do.)
    if range.start > 0 {
        crate::headless::check_in_range(&source, range.start)?;
    }
    if let Some(signals) = &signals {
        let interrupt = source.interrupter();
        signals.on_signal(Box::new(move || interrupt.interrupt()));
    }
    let info = source.info.clone();
    let format = info.format;
    let bits = format.layout.output_bits();
    let model = LightModel::new(args.standard, info.volume.transfer, info.volume.primaries, bits);
    let grid = Grid::new(format.width, format.height);
    let mut analysis = Analysis::new(
        args.standard,
        info.volume.is_hdr(),
        info.volume.primaries,
        grid,
        info.frame_duration,
    );
    // The analysis runs beside the decoding, a few frames behind it: the frames' light goes
    // to it as the GPU gives it back.
    let (frames, light_in) = std::sync::mpsc::sync_channel::<(u64, f64, Arc<FrameLight>)>(8);
    let (frames_out, live) = (args.frames_out, info.live);
    // The patterns are judged beside the flashes, on a thread of their own: at 1080p60 the two
    // together kept a core busy nearly all the time the decoder took.
    let patterns = analysis.take_patterns().map(|mut patterns| {
        let (to_patterns, lights) = std::sync::mpsc::sync_channel::<(f64, Arc<FrameLight>)>(8);
        let (verdict, verdicts) = std::sync::mpsc::sync_channel(8);
        let thread = std::thread::Builder::new().name("pse patterns".into()).spawn(move || {
            for (seconds, light) in lights {
                // (No one takes the verdict where the analysis has stopped.)
                if verdict.send(patterns.frame(seconds, &light)).is_err() {
                    return;
                }
            }
        });
        thread.map(|_| (to_patterns, verdicts))
    });
    let patterns = patterns.transpose()?;
    let analyser = std::thread::Builder::new().name("pse analysis".into()).spawn(
        move || -> std::io::Result<(Analysis, Vec<PseFailure>)> {
            let mut told: Vec<PseFailure> = Vec::new();
            // A live input's failing runs warned of as they start: their first frames.
            let mut started: Vec<u64> = Vec::new();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let stopped = || std::io::Error::other("the pattern analysis stopped");
            for (index, seconds, light) in light_in {
                let verdict = match &patterns {
                    Some((to_patterns, verdicts)) => {
                        to_patterns.send((seconds, Arc::clone(&light))).map_err(|_| stopped())?;
                        // (The flashes are followed while the patterns are judged.)
                        let mut pattern = Ok(Default::default());
                        let verdict = analysis.frame_with_pattern(index, seconds, &light, || {
                            pattern = verdicts.recv();
                            pattern.ok()
                        });
                        pattern.map_err(|_| stopped())?;
                        verdict
                    }
                    None => analysis.frame(index, seconds, &light),
                };
                if frames_out {
                    writeln!(out, "{}", frame_line(index, &verdict))?;
                    if live {
                        out.flush()?;
                    }
                }
                // A live input's failures are told as they start and as they end (it may have
                // no end).
                if live {
                    for failure in analysis.open_failures() {
                        if !started.contains(&failure.frames.0) {
                            started.push(failure.frames.0);
                            eprintln!(
                                "warning: {} fails from {:.3} s (frame {})",
                                failure.kind, failure.start, failure.frames.0
                            );
                        }
                    }
                }
                for failure in analysis.take_ended() {
                    if live {
                        eprintln!(
                            "fails {}: {:.3}-{:.3} s (frames {}-{})",
                            failure.kind, failure.start, failure.end, failure.frames.0, failure.frames.1
                        );
                    }
                    told.push(failure);
                }
            }
            out.flush()?;
            Ok((analysis, told))
        },
    )?;
    let ran = {
        let each = |index: u64, seconds: f64, light: FrameLight| -> std::io::Result<()> {
            if signals.as_ref().is_some_and(QuitSignals::requested) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "stopped by a signal",
                ));
            }
            // (A send fails only where the analysis stopped: its error follows.)
            frames
                .send((index, seconds, Arc::new(light)))
                .map_err(|_| std::io::Error::other("the analysis stopped"))
        };
        if args.cpu {
            let mut twin = LightTwin::new(grid, model.clone());
            hist::cpu_frames(source, range, |words, _, meta| {
                each(meta.index, meta.seconds, twin.frame(words))
            })
        } else {
            hist::gpu_frames(
                gpu,
                source,
                range,
                crate::engine::histogram::DEFAULT_BINS,
                |ctx, pipeline| {
                    pipeline.analyse_flashes(ctx, &model);
                    Ok(pipeline.pse().expect("made").readback_size())
                },
                |pipeline, encoder, buffer| pipeline.pse().expect("made").copy_out(encoder, buffer, 0),
                |pipeline, bytes, meta| {
                    let light = pipeline
                        .pse()
                        .expect("made")
                        .light_from(&crate::gpu::readback::words(bytes));
                    each(meta.index, meta.seconds, light)
                },
            )
        }
    };
    drop(frames);
    let analysed = analyser
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("the analysis failed")));
    let (analysis, told) = analysed?;
    let interrupted = match ran {
        Ok(_) => false,
        // Stopped by a signal: the verdict of what was analysed.
        Err(ClipError::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => true,
        Err(e) => return Err(e.into()),
    };
    let last = analysis.last_frame();
    let summary = analysis.finish(told);
    if summary.frames == 0 {
        bail!("'{}': {}", args.input.display(), range.none_decoded());
    }
    // (A live input ends so: its verdict is whole. A file stopped short passes only as far as
    // it was read.)
    let stopped = signals
        .as_ref()
        .and_then(QuitSignals::exit_status)
        .filter(|_| interrupted && !live);
    if let (Some(_), Some((index, seconds))) = (stopped, last) {
        eprintln!(
            "warning: stopped by a signal after frame {index} ({seconds:.3} s): the verdict is of the {} frames analysed",
            summary.frames
        );
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", summary.json())?;
    out.flush()?;
    drop(out);
    // A failure is one however far the analysis went; else a signal's status.
    if !summary.passed() {
        crate::process::end(1);
    }
    if let Some(status) = stopped {
        crate::process::end(status as u8);
    }
    Ok(())
}

/// `{"frame":K,"pts":s,"flash":..,"red_flash":..,"flashes":..,"red_flashes":..,"area":..,
/// "red_area":..,"extended":false,"pattern":..,"pattern_pairs":..,"pattern_changing":false,
/// "state":"pass"}`.
fn frame_line(index: u64, v: &FrameVerdict) -> String {
    let number = |x: f64| serde_json::Value::from((x * 1e6).round() / 1e6);
    format!(
        "{{\"frame\":{index},\"pts\":{},\"flash\":{},\"red_flash\":{},\"flashes\":{},\"red_flashes\":{},\"area\":{},\"red_area\":{},\"extended\":{},\"pattern\":{},\"pattern_pairs\":{},\"pattern_changing\":{},\"state\":\"{}\"}}",
        serde_json::Value::from(v.time),
        number(v.flash),
        number(v.red_flash),
        number(v.flashes),
        number(v.red_flashes),
        number(v.area),
        number(v.red_area),
        v.extended,
        number(v.pattern.share),
        (v.pattern.pairs * 10.0).round() / 10.0,
        v.pattern.changing,
        v.state.name()
    )
}
