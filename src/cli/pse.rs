//! `histoplay pse`: the photosensitive-epilepsy analysis of a file or a live input (flashes and
//! red flashes, `pse::`), a JSON line per frame with `--frames-out`, then the verdict; the exit
//! status 1 when the programme fails.

use crate::headless::{self as hist, ClipError, FrameMeta, FrameRange};
use crate::pse::light::{Grid, LightModel};
use crate::pse::{Analysis, FrameLight, FrameVerdict, LightTwin, PseFailure, Standard};
use crate::quit_signals::QuitSignals;
use crate::video::deinterlace::Field;
use crate::video::source::{Decoding, VideoError, VideoSource};
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
    /// Analyse each field as a picture of its own, at twice the frame rate, the earlier in time
    /// first (the top where the frame is progressive or flagged top field first), as an
    /// interlaced display shows them: a flash from one field to the next (25 a second in 50i)
    /// is seen only so, and a frame's combing is not taken for stripes. Pictures are numbered
    /// 2K and 2K + 1 for frame K's fields, and --frames-out's lines say which field.
    #[arg(long)]
    fields: bool,
}

/// Frame K's two fields, handed on as pictures in the order they are shown (`FrameMeta::
/// first_field`, by each frame's flags): 2K the earlier, 2K + 1 the later, half a frame after
/// it. The paths give a frame's top field first.
struct FieldOrder {
    half_frame: f64,
    /// The top field, held while the bottom (the earlier) comes.
    held: Option<(FrameMeta, FrameLight)>,
}

impl FieldOrder {
    fn new(frame_duration: f64) -> Self {
        Self {
            half_frame: frame_duration / 2.0,
            held: None,
        }
    }

    /// The pictures ready once `meta`'s field has come: (number, seconds, field, light).
    fn take(&mut self, meta: FrameMeta, light: FrameLight) -> Vec<(u64, f64, Option<Field>, FrameLight)> {
        let field = meta.field.unwrap_or(Field::Top);
        let top_first = meta.first_field == Field::Top;
        let picture = |meta: &FrameMeta, field: Field, light| {
            let later = u64::from(field != meta.first_field);
            // (To the nanosecond: the sum's rounding would print 0.13999999999999999.)
            let seconds = ((meta.seconds + later as f64 * self.half_frame) * 1e9).round() / 1e9;
            (2 * meta.index + later, seconds, Some(field), light)
        };
        match (field, top_first) {
            (Field::Top, false) => {
                self.held = Some((meta, light));
                Vec::new()
            }
            (Field::Bottom, false) => {
                let mut pictures = vec![picture(&meta, field, light)];
                if let Some((top, held)) = self.held.take().filter(|(top, _)| top.index == meta.index) {
                    pictures.push(picture(&top, Field::Top, held));
                }
                pictures
            }
            _ => vec![picture(&meta, field, light)],
        }
    }
}

pub fn run(args: Args) -> Result<()> {
    let signals = QuitSignals::install();
    let range = args.frames.unwrap_or(FrameRange { start: 0, end: None });
    // The GPU opens while the file does.
    let mut gpu = crate::gpu::GpuOpening::start(!args.cpu);
    let source = VideoSource::open_for(&args.input, Decoding::Throughput)?;
    if source.info.cover_art {
        // (The GPU let go of first, as `report` does for a file of sound.)
        drop(gpu);
        return Err(VideoError::CoverOnly(args.input.clone()).into());
    }
    let cpu = crate::headless::on_the_cpu(&mut gpu, &source.info, args.cpu);
    // (A range past the end is said so before anything is decoded, as `hist` and `report` do.)
    if range.start > 0 {
        crate::headless::check_in_range(&source, range.start)?;
    }
    if let Some(signals) = &signals {
        let interrupt = source.interrupter();
        signals.on_signal(Box::new(move || interrupt.interrupt()));
    }
    let info = source.info.clone();
    let mut format = info.format;
    let mut picture_duration = info.frame_duration;
    if args.fields {
        format = crate::pipeline::field_format(&format).map_err(ClipError::Decode)?;
        picture_duration /= 2.0;
    }
    let bits = format.layout.output_bits();
    let model = LightModel::new(args.standard, info.volume.transfer, info.volume.primaries, bits);
    let grid = Grid::new(format.width, format.height);
    let mut analysis = Analysis::new(
        args.standard,
        info.volume.is_hdr(),
        info.volume.primaries,
        grid,
        picture_duration,
    );
    // The analysis runs beside the decoding, a few frames behind it: the frames' light goes
    // to it as the GPU gives it back.
    let (frames, light_in) = std::sync::mpsc::sync_channel::<(u64, f64, Option<Field>, Arc<FrameLight>)>(8);
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
            for (index, seconds, field, light) in light_in {
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
                    writeln!(out, "{}", frame_line(index, field, &verdict))?;
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
        let mut order = FieldOrder::new(info.frame_duration);
        // (Said at the first frame flagged interlaced, where frames are analysed whole.)
        let mut interlaced_note = (!args.fields).then(|| args.input.clone());
        let mut each = |meta: FrameMeta, light: FrameLight| -> std::io::Result<()> {
            if signals.as_ref().is_some_and(QuitSignals::requested) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "stopped by a signal",
                ));
            }
            if let Some(path) = interlaced_note.take_if(|_| meta.packet.fields.interlaced) {
                note_interlaced(&path, meta.index, "each frame is analysed as one picture", "--fields");
            }
            let pictures = match meta.field {
                Some(_) => order.take(meta, light),
                None => vec![(meta.index, meta.seconds, None, light)],
            };
            for (index, seconds, field, light) in pictures {
                // (A send fails only where the analysis stopped: its error follows.)
                frames
                    .send((index, seconds, field, Arc::new(light)))
                    .map_err(|_| std::io::Error::other("the analysis stopped"))?;
            }
            Ok(())
        };
        if cpu {
            let mut twin = LightTwin::new(grid, model.clone());
            let work = hist::PictureWork {
                split: args.fields,
                ..Default::default()
            };
            hist::cpu_frames_with(source, range, work, |words, _, meta, _| each(meta, twin.frame(words)))
        } else {
            hist::gpu_frames(
                gpu,
                source,
                range,
                crate::engine::histogram::DEFAULT_BINS,
                |ctx, pipeline| {
                    if args.fields {
                        pipeline.split_fields(ctx).map_err(ClipError::Decode)?;
                    }
                    pipeline.analyse_flashes(ctx, &model);
                    Ok(pipeline.pse().expect("made").readback_size())
                },
                |pipeline, encoder, buffer| pipeline.pse().expect("made").copy_out(encoder, buffer, 0),
                |pipeline, bytes, meta| {
                    let light = pipeline
                        .pse()
                        .expect("made")
                        .light_from(&crate::gpu::readback::words(bytes));
                    each(meta, light)
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

/// Says that `path`, analysed frame by frame (`how`), is interlaced from frame `frame` on, and
/// which option (`fields`) analyses its fields.
pub(crate) fn note_interlaced(path: &std::path::Path, frame: u64, how: &str, fields: &str) {
    eprintln!(
        "note: '{}' is interlaced (from frame {frame}): {how} ({fields} analyses its fields in turn, as an interlaced display shows them)",
        path.display()
    );
}

/// `{"frame":K,"pts":s,"flash":..,"red_flash":..,"flashes":..,"red_flashes":..,"area":..,
/// "red_area":..,"extended":false,"pattern":..,"pattern_pairs":..,"pattern_changing":false,
/// "state":"pass"}`; a field's, `"field":"top"` after its number.
fn frame_line(index: u64, field: Option<Field>, v: &FrameVerdict) -> String {
    let number = |x: f64| serde_json::Value::from((x * 1e6).round() / 1e6);
    let field = field.map_or(String::new(), |f| format!(",\"field\":\"{}\"", f.name()));
    format!(
        "{{\"frame\":{index}{field},\"pts\":{},\"flash\":{},\"red_flash\":{},\"flashes\":{},\"red_flashes\":{},\"area\":{},\"red_area\":{},\"extended\":{},\"pattern\":{},\"pattern_pairs\":{},\"pattern_changing\":{},\"state\":\"{}\"}}",
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
