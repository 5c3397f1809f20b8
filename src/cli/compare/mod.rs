//! `histoplay compare A B`: each frame of B (the one judged) against the frame of A (the
//! reference) it lines up with, measured by the metrics stage on the GPU (or its CPU twin),
//! printed as JSON Lines or CSV with FFmpeg's field names (`lines.rs`).

mod batch;
mod cpu;
mod gpu;
mod limits;
mod lines;
mod vmaf_log;

use cpu::compare_cpu;
pub use gpu::compare_gpu;
use limits::CompareLimits;
pub use lines::{Compared, Summary};

use super::args::parse_size;
use super::output::{write_csv_record, write_line};
use crate::compare::align::{match_pair, AlignBy, Alignment, Want, SAME_INSTANT};
use crate::compare::vmaf::gpu::VmafPass;
use crate::compare::vmaf::model::Model;
use crate::compare::vmaf::{load_model, Vmaf, VmafFrame, DEFAULT_MODEL, MIN_SIZE};
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{ClipError, FrameRange};
use crate::video::format::places;
use crate::video::source::{Decoding, SeekTarget, VideoSource};
use lines::{CompareLine, FIELDS};
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
    };
    let wants_vmaf = args.vmaf
        || args.vmaf_model.is_some()
        || args.vmaf_log.is_some()
        || args.fail_on.as_ref().is_some_and(CompareLimits::need_vmaf);
    let model = wants_vmaf
        .then(|| load_model(args.vmaf_model.as_deref().unwrap_or(DEFAULT_MODEL)).map_err(anyhow::Error::msg))
        .transpose()?;
    let batch = args.judged.len() > 1 || args.judged[0].is_dir();
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
            std::process::exit(1);
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
            std::process::exit(1);
        }
    }
    Ok(())
}

/// What `compare` measures: A's frames in `range`, each against B's frame `offset` later, or,
/// aligned by time, against B's latest frame at A's time `offset` of B's frames later.
#[derive(Clone, Copy, Debug)]
pub struct CompareJob {
    pub range: FrameRange,
    pub offset: i64,
    pub by: AlignBy,
    pub csv: bool,
    pub cpu: bool,
}

/// What became of A's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// B's `current` frame is its partner.
    Pair,
    /// B has no frame for it (the next of A's may have one).
    SkipA,
    /// B has no more frames.
    End,
}

/// B's frames as they come, following A's: the one paired last, and one read ahead.
struct Follower<F> {
    current: Option<F>,
    pending: Option<F>,
    /// B has no more frames (its end is read once).
    ended: bool,
}

impl<F> Follower<F> {
    fn new() -> Self {
        Self {
            current: None,
            pending: None,
            ended: false,
        }
    }

    /// Reads B's frames (`next`) up to the one `want` names, giving back (`release`) those
    /// passed; `key` is a frame's number and its seconds from B's first frame. Aligned by
    /// time, B's last frame stands for the rest of A's once B ends (as FFmpeg repeats it).
    fn advance(
        &mut self,
        want: Option<Want>,
        key: impl Fn(&F) -> (u64, f64),
        mut next: impl FnMut() -> Result<Option<F>, ClipError>,
        mut release: impl FnMut(F),
    ) -> Result<Step, ClipError> {
        let ended = &mut self.ended;
        let mut take = |pending: &mut Option<F>| -> Result<Option<F>, ClipError> {
            if let Some(f) = pending.take() {
                return Ok(Some(f));
            }
            if *ended {
                return Ok(None);
            }
            let f = next()?;
            *ended = f.is_none();
            Ok(f)
        };
        let Some(want) = want else {
            // Before B's first frame.
            return Ok(Step::SkipA);
        };
        match want {
            Want::Frame(n) => {
                if let Some(done) = self.current.take() {
                    release(done);
                }
                loop {
                    let Some(f) = take(&mut self.pending)? else {
                        return Ok(Step::End);
                    };
                    let index = key(&f).0;
                    if index < n {
                        release(f);
                    } else if index > n {
                        self.pending = Some(f);
                        return Ok(Step::SkipA);
                    } else {
                        self.current = Some(f);
                        return Ok(Step::Pair);
                    }
                }
            }
            Want::At(seconds) => {
                while let Some(f) = take(&mut self.pending)? {
                    if key(&f).1 <= seconds + SAME_INSTANT {
                        if let Some(passed) = self.current.replace(f) {
                            release(passed);
                        }
                    } else {
                        self.pending = Some(f);
                        break;
                    }
                }
                Ok(if self.current.is_some() {
                    Step::Pair
                } else {
                    Step::SkipA
                })
            }
        }
    }

    /// Gives back what is still held.
    fn finish(self, mut release: impl FnMut(F)) {
        self.current.into_iter().chain(self.pending).for_each(&mut release);
    }
}

/// Where B starts for A's first frame `a_start` at `a_seconds`: its frame, or its time.
fn b_start(align: &Alignment, a_start: u64, a_seconds: Option<f64>) -> Option<SeekTarget> {
    let want = match align.by {
        AlignBy::Frame => align.want(a_start, 0.0)?,
        AlignBy::Time => align.want(a_start, a_seconds?)?,
    };
    let at_start = match want {
        Want::Frame(n) => n == 0,
        Want::At(t) => t <= 0.0,
    };
    (!at_start).then(|| want.seek_target(align.start_b))
}

/// Where A starts and, aligned by frame, B: A's first frame in the range whose partner exists
/// (B's frame numbers start at 0 too).
fn starts(job: &CompareJob) -> (u64, u64) {
    if job.by == AlignBy::Time {
        return (job.range.start, 0);
    }
    let a = job.range.start.max(job.offset.min(0).unsigned_abs());
    (a, a.saturating_add_signed(job.offset))
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
    match_pair(&a, &mut b)?;
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
        let mut fields: Vec<String> = FIELDS.map(String::from).to_vec();
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
    let mut summary = Summary::default();
    let bits = places(&a.info.format).map_or(8, |(_, bits)| bits);
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
    let mut emit = |c: Compared| -> std::io::Result<()> {
        summary.add(&c.metrics, bits);
        if let Some(scores) = c.vmaf {
            summary.add_vmaf(scores.vmaf);
            if let Some(log) = &mut log {
                log.add(c.frame, scores);
            }
        }
        let line = CompareLine::of(&c);
        if job.csv {
            write_csv_record(out, &line.csv_fields())
        } else {
            write_line(out, &line)
        }
    };
    let names = (a.info.path.display().to_string(), b.info.path.display().to_string());
    let vmaf = model.map(Vmaf::new);
    let done = if job.cpu {
        compare_cpu(a, b, &job, vmaf, &mut progress, &mut emit)?
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
            compare_cpu(a, b, &job, vmaf, &mut progress, &mut emit)?
        } else {
            compare_gpu(ctx, a, b, &job, vmaf, &mut progress, &mut emit)?
        }
    };
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
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_starts_each_side_where_its_partner_exists() {
        let job = |start, offset| CompareJob {
            range: FrameRange { start, end: None },
            offset,
            by: AlignBy::Frame,
            csv: false,
            cpu: false,
        };
        assert_eq!(starts(&job(0, 0)), (0, 0));
        assert_eq!(starts(&job(0, 3)), (0, 3));
        // B 2 frames behind: A's frames 0 and 1 have no partner.
        assert_eq!(starts(&job(0, -2)), (2, 0));
        assert_eq!(starts(&job(10, -2)), (10, 8));
    }
}
