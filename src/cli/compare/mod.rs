//! `histoplay compare A B`: each frame of B (the one judged) against the frame of A (the
//! reference) it lines up with, measured by the metrics stage on the GPU (or its CPU twin,
//! `headless::compare`), printed as JSON Lines or CSV with FFmpeg's field names (`lines.rs`);
//! over many encodes, a line each (`batch.rs`), judged by `--fail-on` (`limits.rs`).

mod batch;
mod limits;
mod lines;
mod vmaf_log;

use crate::headless::compare::{compare_cpu, starts, Measured};
pub use crate::headless::compare::{compare_gpu, CompareJob};
use limits::CompareLimits;
pub use lines::{Compared, Summary};

use super::args::parse_size;
use super::output::{write_csv_record, write_line};
use crate::compare::align::{match_pair_at, planar_rgb, rates_note, turn_upright, AlignBy, Alignment, PastEnd};
use crate::compare::gpu::MAX_BITS;
use crate::compare::vmaf::gpu::VmafPass;
use crate::compare::vmaf::model::Model;
use crate::compare::vmaf::{load_model, Vmaf, VmafFrame, DEFAULT_MODEL, MIN_SIZE};
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{ClipError, FrameRange};
use crate::video::format::{places, FrameFormat, PlaneLayout};
use crate::video::source::{negotiated_pair, pixel_name, planar_layout, separate_alpha, Decoding, VideoSource};
use ffmpeg_next::format::Pixel;
use lines::{fields, CompareLine, Names};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use vmaf_log::VmafLog;

/// Measure each frame of JUDGED against REFERENCE's: MSE, PSNR and SSIM, as FFmpeg's.
///
/// Each frame of JUDGED is measured against the frame of REFERENCE it lines up with: MSE, PSNR
/// and SSIM per component (Y, U, V) and their averages, as FFmpeg's psnr and ssim filters
/// compute them, one JSON line (or CSV row) per frame. Given several judged files, or a folder
/// of them, one line per file instead: its figures over the run, its size and bitrate.
#[derive(clap::Args)]
pub struct Args {
    /// The reference: the master, the original.
    reference: PathBuf,
    /// The file judged against it: an encode, a grade, a restoration. Several files or a
    /// folder: each judged in turn, a line each (a bitrate ladder).
    #[arg(required = true, num_args = 1.., value_name = "JUDGED")]
    judged: Vec<PathBuf>,
    /// The reference's frames to measure: A..B (B excluded), A..=B, A.. (to the end).
    #[arg(long, value_parser = FrameRange::parse)]
    frames: Option<FrameRange>,
    /// Measure the reference's frame K against the judged file's frame K+N (aligned by
    /// time: N of the judged file's frames later).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    offset: i64,
    /// Line the frames up by number, or by time (files of different frame rates: each
    /// reference frame with the judged file's latest by then, as FFmpeg pairs them).
    #[arg(long, value_enum, default_value_t = AlignBy::Frame)]
    compare_by: AlignBy,
    /// CSV instead of JSON Lines.
    #[arg(long)]
    csv: bool,
    /// Measure on the CPU (the reference implementation) instead of the GPU.
    #[arg(long)]
    cpu: bool,
    /// Both files deinterlaced first, as FFmpeg's filter makes their pictures: the pictures
    /// are paired (at field rate numbered 2K and 2K + 1 for frame K's fields).
    #[command(flatten)]
    deinterlace: crate::cli::args::DeinterlaceArgs,
    /// Also measure VMAF, equal to libvmaf's: `vmaf` and its features (integer_adm2,
    /// integer_motion2, integer_vif_scale0..3, integer_adm_scale0..3) on each line, and the
    /// run's mean, harmonic mean, minimum and 1% low at the end.
    #[arg(long)]
    vmaf: bool,
    /// VMAF's model: vmaf_v0.6.1 (the default), vmaf_v0.6.1neg, vmaf_4k_v0.6.1, or
    /// path=FILE.json (a model in libvmaf's JSON format). Implies --vmaf.
    #[arg(long, value_name = "MODEL")]
    vmaf_model: Option<String>,
    /// Write libvmaf's own log of the run's VMAF to FILE: JSON, or XML or CSV by the file's
    /// extension (as `vmaf --json/--xml/--csv`); for several judged files, a folder for a log
    /// each (FOLDER/<file name>.json). Implies --vmaf.
    #[arg(long, value_name = "FILE")]
    vmaf_log: Option<PathBuf>,
    /// Measure both files at WxH, each scaled to it with FFmpeg's bicubic scaler (as the
    /// usual FFmpeg recipe for VMAF does: 1920x1080 for the default model). PSNR and SSIM are
    /// measured at that size too.
    #[arg(long, value_parser = parse_size, value_name = "WxH")]
    vmaf_size: Option<(u32, u32)>,
    /// Fail (exit status 1) when the run's figures break a limit: vmaf (the mean),
    /// vmaf-hmean, vmaf-min, vmaf-low (1% low), psnr, psnr-y, ssim or ssim-y, with <, <=, >
    /// or >=, separated by commas: 'vmaf<93,vmaf-min<70'. The limits broken are listed on
    /// stderr (a batch marks each file's line). VMAF's figures imply --vmaf.
    #[arg(long, value_parser = CompareLimits::parse, value_name = "LIMITS")]
    fail_on: Option<CompareLimits>,
}

/// What `compare --vmaf` adds: the model the score is predicted by, and where its log goes.
pub struct VmafJob {
    pub model: Model,
    pub log: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let job = CompareJob {
        range: args.frames.unwrap_or(FrameRange { start: 0, end: None }),
        offset: args.offset,
        by: args.compare_by,
        csv: args.csv,
        cpu: args.cpu,
        deinterlace: args.deinterlace.filter(),
    };
    let wants_vmaf = args.vmaf
        || args.vmaf_model.is_some()
        || args.vmaf_log.is_some()
        || args.fail_on.as_ref().is_some_and(CompareLimits::need_vmaf);
    let model = wants_vmaf
        .then(|| load_model(args.vmaf_model.as_deref().unwrap_or(DEFAULT_MODEL)).map_err(anyhow::Error::msg))
        .transpose()?;
    let batch = args.judged.len() > 1 || args.judged[0].is_dir();
    if let Some(log) = args.vmaf_log.as_deref().filter(|_| !batch) {
        crate::cli::output::check_writable(log)
            .map_err(|e| anyhow::anyhow!("cannot write VMAF's log '{}': {e}", log.display()))?;
        crate::cli::output::refuse_input(log, &[&args.reference, &args.judged[0]])?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if batch {
        let files = batch::judged_files(&args.reference, &args.judged);
        if files.is_empty() {
            let names: Vec<String> = args.judged.iter().map(|p| format!("'{}'", p.display())).collect();
            anyhow::bail!("no video files to judge in {}", names.join(", "));
        }
        // A batch's logs, one per encode, go into a folder.
        let batch = batch::Batch {
            reference: &args.reference,
            job,
            model,
            size: args.vmaf_size,
            limits: args.fail_on.as_ref(),
            logs: args.vmaf_log,
        };
        let all_good = batch::run(&batch, &files, &mut out)?;
        drop(out);
        if !all_good {
            crate::process::end(1);
        }
        return Ok(());
    }
    let a = VideoSource::open_for(&args.reference, Decoding::Throughput)?;
    let b = VideoSource::open_for(&args.judged[0], Decoding::Throughput)?;
    let vmaf = model.map(|model| VmafJob {
        model,
        log: args.vmaf_log,
    });
    let summary = compare(a, b, job, vmaf, args.vmaf_size, None, &mut out)?;
    drop(out);
    // On stderr, beside the lines: the run's figures as FFmpeg prints them at its end.
    for line in summary.lines().into_iter().chain(summary.vmaf_line()) {
        eprintln!("{line}");
    }
    if let Some(limits) = &args.fail_on {
        let failed = limits.failed(&summary.figures());
        if !failed.is_empty() {
            eprintln!("fails {}", failed.join(", "));
            crate::process::end(1);
        }
    }
    Ok(())
}

/// Measures every pair (at `size`, both scaled to it, where given) and writes each as a line
/// (or CSV row) to `out`, on `ctx`'s GPU (or one of its own) unless the job says the CPU;
/// returns the run's summary (of one pair at least).
pub fn compare(
    mut a: VideoSource,
    mut b: VideoSource,
    job: CompareJob,
    vmaf: Option<VmafJob>,
    size: Option<(u32, u32)>,
    ctx: Option<&GpuContext>,
    out: &mut impl Write,
) -> Result<Summary, ClipError> {
    turn_upright(&mut a, &mut b)?;
    for side in [&mut a, &mut b] {
        planar_rgb(side);
    }
    // Frames whose samples the upload's layout changes (4:1:1 DV, 4:1:0, 4:4:0; 9, 14 or 16
    // bits), or deeper than the GPU pass takes, are measured on the CPU as FFmpeg's filters
    // read them; so are pairs whose alpha planes FFmpeg's psnr measures, and pairs of two
    // formats whose pair format the reference's upload does not hold.
    let as_filters = paired_as_filters(&a, &b, &job, vmaf.is_some(), size);
    let pair = as_filters.then(|| pair_formats(&a, &b)).flatten();
    let on_cpu = match as_filters {
        true => measured_on_cpu(&mut a, &mut b, pair),
        false => None,
    };
    let unmeasured = on_cpu.is_none_or(|m| !m.alpha).then(|| psnr_alpha(&a, &b)).flatten();
    if let Some(format) = unmeasured {
        log::warn!(
            "FFmpeg's psnr measures '{}' and '{}' in {} with their alpha planes (its a:, and its average with it); compare does not with --vmaf, --vmaf-size, deinterlacing, pictures of other sizes, a hardware decoder, grey with alpha (which psnr reads as R'G'B' and ssim as grey), or two formats ssim reads in another format than psnr",
            a.info.path.display(),
            b.info.path.display(),
            pixel_name(format),
        );
    }
    if on_cpu.is_none() {
        // A judged file of another format is converted into the reference's as FFmpeg's graph
        // converts the second input of psnr and ssim, where both measure in the reference's.
        match pair.filter(|&(psnr, ssim)| psnr == ssim && psnr == a.decoded_format()) {
            // (Two files of one format are measured code for code, as FFmpeg's filters measure
            // them, whatever ranges they are tagged with.)
            Some((psnr, _)) if psnr == b.decoded_format() && a.info.format.layout == b.info.format.layout => {
                same_format_ranges(&a, &b)
            }
            Some((psnr, _)) => {
                b.convert_as_filters(psnr);
                match_pair_at(&a, &mut b, size)?;
            }
            None => match_pair_at(&a, &mut b, size)?,
        }
    }
    let format = on_cpu.map_or(a.info.format, |m| m.format);
    let names = Names::of(format.layout, on_cpu.is_some_and(|m| m.alpha));
    if vmaf.is_some() && !names.luma() {
        return Err(ClipError::Decode(
            "VMAF measures Y'CbCr video: FFmpeg's libvmaf converts R'G'B' into it first, histoplay does not".into(),
        ));
    }
    // (Told once the pair is known to be measurable: an error comes alone. A still picture has
    // no rate to tell.)
    let note = rates_note(
        job.by,
        (&a.info.path.display().to_string(), &b.info.path.display().to_string()),
        (a.info.frame_duration, b.info.frame_duration),
    );
    if let Some(note) = note.filter(|_| !a.info.still && !b.info.still) {
        eprintln!("{note}");
    }
    if let Some((width, height)) = size {
        let layout = a.info.format.layout;
        for side in [&mut a, &mut b] {
            side.convert_to(layout, width, height);
        }
    }
    let (width, height) = (a.info.format.width as usize, a.info.format.height as usize);
    if vmaf.is_some() && (width < MIN_SIZE || height < MIN_SIZE) {
        return Err(ClipError::Decode(format!(
            "VMAF measures pictures of at least {MIN_SIZE}x{MIN_SIZE}, not {width}x{height}"
        )));
    }
    if job.csv {
        let mut fields = fields(names);
        if vmaf.is_some() {
            fields.extend(VmafFrame::NAMES.map(String::from));
        }
        write_csv_record(out, &fields)?;
    }
    let total = a
        .index()
        .frame_count()
        .or(a.index().estimated_count)
        .map(|count| job.range.end.unwrap_or(count).min(count).saturating_sub(starts(&job).0));
    let mut progress = Progress::new(total);
    let mut summary = Summary::named(names);
    let bits = places(&format).map_or(8, |(_, bits)| bits);
    let (model, log_path) = match vmaf {
        Some(VmafJob { model, log }) => (Some(model), log),
        None => (None, None),
    };
    let first = starts(&job).0;
    if model.is_some() && first > 0 {
        // Motion needs the frame before, which the run does not read.
        eprintln!("VMAF: motion starts at 0 on frame {first}, as on libvmaf's first frame");
    }
    let mut log = match (&model, &log_path) {
        (Some(model), Some(_)) => Some(VmafLog::new(model, (width, height))),
        _ => None,
    };
    let started = Instant::now();
    let align = Alignment::of(&a, &b, job.by, job.offset);
    let mut past_end = PastEnd::default();
    // B's frames after A's last, each measured against it (aligned by time).
    let mut past_a = 0u64;
    // Whether any of A's frames was paired in its turn (else B starts after A's last).
    let mut any_paired = false;
    let mut emit = |c: Compared| -> std::io::Result<()> {
        match c.past_a {
            true => past_a += 1,
            false => {
                past_end.paired(&align, c.pts, c.frame_b);
                any_paired = true;
            }
        }
        // (libvmaf numbers every pair it reads: those past A's last go on from its number,
        // the first taking it where it had no pair of its own.)
        let number = c.frame + if c.past_a { past_a - u64::from(!any_paired) } else { 0 };
        summary.add(&c.metrics, bits);
        if let Some(scores) = c.vmaf {
            summary.add_vmaf(scores.vmaf);
            if let Some(log) = &mut log {
                log.add(number, scores);
            }
        }
        let line = CompareLine::of(&c, names);
        if job.csv {
            write_csv_record(out, &line.csv_fields())
        } else {
            write_line(out, &line)
        }
    };
    let names = (a.info.path.display().to_string(), b.info.path.display().to_string());
    let index_a = a.index().clone();
    let (index_b, info_b) = (b.index().clone(), b.info.clone());
    let vmaf = model.map(Vmaf::new);
    let measured = on_cpu.unwrap_or(Measured {
        format,
        alpha: false,
        ssim: None,
    });
    let paired = if job.cpu || on_cpu.is_some() {
        compare_cpu(a, b, &job, measured, vmaf, &mut progress, &mut emit)?
    } else {
        let own;
        let ctx = match ctx {
            Some(ctx) => ctx,
            None => {
                own = GpuContext::new()?;
                &own
            }
        };
        if vmaf.is_some() && !VmafPass::supported(&ctx.device) {
            eprintln!("VMAF: this GPU has no 64-bit integers or doubles in shaders: measuring on the CPU");
            compare_cpu(a, b, &job, measured, vmaf, &mut progress, &mut emit)?
        } else {
            compare_gpu(ctx, a, b, &job, vmaf, &mut progress, &mut emit)?
        }
    };
    let done = paired.pairs;
    progress.finish();
    out.flush()?;
    if let (Some(log), Some(path)) = (&log, &log_path) {
        let fps = done as f64 / started.elapsed().as_secs_f64();
        log.write(path, fps)
            .map_err(|e| ClipError::Decode(format!("cannot write the VMAF log '{}': {e}", path.display())))?;
    }
    if done == 0 {
        return Err(ClipError::Decode(format!(
            "no frame of '{}' asked for has a partner in '{}' (see --frames and --offset)",
            names.0, names.1
        )));
    }
    // A judged file that ends first (or an offset) leaves the rest of the reference unmeasured:
    // said, as the figures are of the frames paired.
    // (From the range's start: a negative offset's first frames of A, which have no partner,
    // were asked for.)
    let asked = index_a.frame_count().map(|count| {
        job.range
            .end
            .unwrap_or(count)
            .min(count)
            .saturating_sub(job.range.start)
    });
    if let Some((past, end)) = past_end.count(&align, &index_b, |pts| info_b.seconds(pts)) {
        eprintln!(
            "note: {past} of the frames of '{}' measured come after '{}' ends ({end:.3} s from its start, aligned by time): each is measured against its last frame, as FFmpeg's filters repeat it",
            names.0, names.1
        );
    }
    if past_a > 0 {
        eprintln!(
            "note: {past_a} of the frames of '{}' measured come after '{}' ends (aligned by time): each is measured against its last frame, as FFmpeg's filters repeat it",
            names.1, names.0
        );
    }
    let done = done - past_a;
    // (Where none had one at its own time, the note above says what was measured: the judged
    // file starts after the reference's end.)
    // Why: B ended first; or A's own frames did (a file that ends early, frames it lists
    // that could not be read); or A's frames had none at their place in B (those a negative
    // offset leaves without one are not read).
    if let Some(asked) = asked.filter(|&asked| done < asked && done > 0) {
        // (Aligned by time, B's last frame stands for it past its end: its end leaves none.)
        let why = if paired.b_ended && job.by == AlignBy::Frame {
            format!("'{}' ends first", names.1)
        } else if paired.read_a + (starts(&job).0 - job.range.start) < asked {
            format!("the rest could not be read from '{}'", names.0)
        } else {
            format!("the offset, or where '{}' starts, leaves the rest without one", names.1)
        };
        eprintln!(
            "note: {done} of the {asked} frames of '{}' asked for have a partner in '{}' ({why}): the figures are of those",
            names.0, names.1
        );
    }
    Ok(summary)
}

/// Warns where two files of one format are tagged with different ranges: FFmpeg's filters,
/// and so `compare`, measure them code for code.
fn same_format_ranges(a: &VideoSource, b: &VideoSource) {
    let (ra, rb) = (a.info.format.color.range, b.info.format.color.range);
    if ra != rb {
        log::warn!(
            "'{}' is tagged {} range and '{}' {}: measured code for code, as FFmpeg's psnr and ssim measure two files of one format",
            a.info.path.display(),
            ra.label(),
            b.info.path.display(),
            rb.label()
        );
    }
}

/// The filters whose reading of the frames compare's metrics are (chains from one input, as
/// `VideoSource::measured_layout` takes them): FFmpeg's psnr and ssim.
const METRICS: [&str; 2] = ["split[a][b];[a][b]psnr", "split[a][b];[a][b]ssim"];

/// The same filters fed a pair, the reference on the first input (`negotiated_pair`).
const PAIR_METRICS: [&str; 2] = ["[a][b]psnr", "[a][b]ssim"];

/// The formats FFmpeg's psnr and ssim measure the pair in (libavfilter's negotiation of the
/// two inputs: the reference's format where the filter takes it, the judged file's converted
/// into it), where both read the same components: psnr's may hold an alpha plane it measures
/// (yuva formats and gbrap as decoded, packed RGBA as gbrap, a reference's alpha against a
/// judged file's opaque one), which ssim reads without, and ssim's own conversion may change
/// the samples (10-bit Y'CbCr with alpha made 16-bit; 10-bit R'G'B' with alpha through
/// swscale's R'G'B' scaler, which changes R and B). None where they read other components
/// (grey with alpha, which psnr reads as R'G'B'); where either decodes on a hardware decoder
/// (its frames downloaded as NV12 or P010, not as the software decoder gives them); and where
/// a file's frames converted into psnr's format and then ssim's would not be what FFmpeg's
/// conversion straight into ssim's gives.
fn pair_formats(a: &VideoSource, b: &VideoSource) -> Option<(Pixel, Pixel)> {
    if a.decodes_in_hardware() || b.decodes_in_hardware() {
        return None;
    }
    let (da, db) = (a.decoded_format(), b.decoded_format());
    let psnr = negotiated_pair(PAIR_METRICS[0], da, db)?;
    let ssim = negotiated_pair(PAIR_METRICS[1], da, db)?;
    let (colour, read) = (planar_layout(psnr)?, planar_layout(ssim)?);
    let same_components = match (colour, read) {
        (
            PlaneLayout::Yuv {
                chroma_shift_x: x,
                chroma_shift_y: y,
                ..
            },
            PlaneLayout::Yuv {
                chroma_shift_x,
                chroma_shift_y,
                ..
            },
        ) => (x, y) == (chroma_shift_x, chroma_shift_y),
        (PlaneLayout::Gbr { .. }, PlaneLayout::Gbr { .. }) | (PlaneLayout::Gray { .. }, PlaneLayout::Gray { .. }) => {
            true
        }
        _ => false,
    };
    // ssim's frames are psnr's converted further: as FFmpeg converts each file straight into
    // ssim's where that file is in psnr's format, or where the step from psnr's to ssim's keeps
    // the colour samples (alpha dropped: Y'CbCr, or 8-bit R'G'B'; 10-bit R'G'B' goes through
    // swscale's R'G'B' scaler, which changes R and B).
    let keeps = psnr == ssim || (colour == read && (matches!(colour, PlaneLayout::Yuv { .. }) || colour.bits() == 8));
    (same_components && (keeps || (da == psnr && db == psnr))).then_some((psnr, ssim))
}

/// The format FFmpeg's psnr measures the pair in, where it has an alpha plane psnr measures.
fn psnr_alpha(a: &VideoSource, b: &VideoSource) -> Option<Pixel> {
    negotiated_pair(PAIR_METRICS[0], a.decoded_format(), b.decoded_format()).filter(|&f| separate_alpha(f))
}

/// Whether the pair is measured in its own formats (`pair_formats`): pictures
/// of one size, measured without VMAF, `--vmaf-size` or deinterlacing, which take the upload's
/// layout.
fn paired_as_filters(a: &VideoSource, b: &VideoSource, job: &CompareJob, vmaf: bool, size: Option<(u32, u32)>) -> bool {
    let (fa, fb) = (a.info.format, b.info.format);
    let same_size = (fa.width, fa.height) == (fb.width, fb.height);
    same_size && !vmaf && size.is_none() && job.deinterlace.is_none()
}

/// How both files' frames are measured on the CPU, where the GPU pass would not measure what
/// FFmpeg's psnr and ssim do (`pair`: `pair_formats`, where `paired_as_filters`): a pair with
/// alpha planes psnr measures, or of two formats whose pair format the reference's upload
/// does not hold (a 4:1:1 master against a 4:2:0 encode), both given out in psnr's format;
/// frames of one format whose samples the upload's layout changes (given out as decoded, or as
/// the filters' conversion converts them: `keep_decoded_planes_for`); frames deeper than the
/// pass takes (grey at 14 or 16 bits).
fn measured_on_cpu(a: &mut VideoSource, b: &mut VideoSource, pair: Option<(Pixel, Pixel)>) -> Option<Measured> {
    let fa = a.info.format;
    let (da, db) = (a.decoded_format(), b.decoded_format());
    if let Some((format, ssim)) = pair {
        let (alpha, layout) = (separate_alpha(format), planar_layout(format)?);
        let held = format == ssim && layout == fa.layout;
        if alpha || (da != db && !held) {
            for (side, decoded) in [(&*a, da), (&*b, db)] {
                if da != db && decoded != format {
                    log::warn!(
                        "'{}' is {}: converted into {} to compare, as FFmpeg's psnr converts it",
                        side.info.path.display(),
                        pixel_name(decoded),
                        pixel_name(format)
                    );
                }
            }
            for side in [a, b] {
                side.keep_decoded_planes_in(format);
            }
            return Some(Measured {
                format: FrameFormat { layout, ..fa },
                alpha,
                ssim: Some(ssim),
            });
        }
    }
    if da != db {
        return None;
    }
    let measured = |format| Measured {
        format,
        alpha: false,
        ssim: None,
    };
    if let Some(layout) = a.measured_layout(&METRICS) {
        for side in [a, b] {
            side.keep_decoded_planes_for(METRICS[0]);
        }
        return Some(measured(FrameFormat { layout, ..fa }));
    }
    places(&fa)
        .is_some_and(|(_, bits)| bits > MAX_BITS)
        .then_some(measured(fa))
}
