//! `histoplay compare A B`: each frame of B (the one judged) against the frame of A (the
//! reference) it lines up with, measured by the metrics stage on the GPU (or its CPU twin),
//! printed as JSON Lines or CSV with FFmpeg's field names (`lines.rs`).

mod lines;
mod vmaf_log;

pub use lines::{Compared, Summary};

use super::output::{write_csv_record, write_line};
use crate::compare::align::{match_pair, AlignBy, Alignment, Want, SAME_INSTANT};
use crate::compare::gpu::{MetricsBinding, MetricsPass};
use crate::compare::metrics::{frame_metrics, FrameMetrics};
use crate::compare::vmaf::luma::Luma;
use crate::compare::vmaf::model::Model;
use crate::compare::vmaf::{load_model, samples_into, Vmaf, VmafFrame, DEFAULT_MODEL, MIN_SIZE};
use crate::gpu::readback::ReadbackRing;
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{seek_to_frame, ClipError, FrameRange};
use crate::video::convert::{PlaneTextures, UploadStaging, STAGING_BUFFERS};
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame as Frame};
use crate::video::format::{components, places};
use crate::video::ring::RING_SLOTS;
use crate::video::source::{DecodedFrame, Decoding, SeekTarget, VideoSource};
use lines::{CompareLine, FIELDS};
use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use vmaf_log::VmafLog;

/// Measure each frame of JUDGED against REFERENCE's: MSE, PSNR and SSIM, as FFmpeg's.
///
/// Each frame of JUDGED is measured against the frame of REFERENCE it lines up with: MSE, PSNR
/// and SSIM per component (Y, U, V) and their averages, as FFmpeg's psnr and ssim filters
/// compute them, one JSON line (or CSV row) per frame.
#[derive(clap::Args)]
pub struct Args {
    /// The reference: the master, the original.
    reference: PathBuf,
    /// The file judged against it: an encode, a grade, a restoration.
    judged: PathBuf,
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
    /// extension (as `vmaf --json/--xml/--csv`). Implies --vmaf.
    #[arg(long, value_name = "FILE")]
    vmaf_log: Option<PathBuf>,
}

/// What `compare --vmaf` adds: the model the score is predicted by, and where its log goes.
pub struct VmafJob {
    pub model: Model,
    pub log: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let a = VideoSource::open_for(&args.reference, Decoding::Throughput)?;
    let b = VideoSource::open_for(&args.judged, Decoding::Throughput)?;
    let job = CompareJob {
        range: args.frames.unwrap_or(FrameRange { start: 0, end: None }),
        offset: args.offset,
        by: args.compare_by,
        csv: args.csv,
        cpu: args.cpu,
    };
    let vmaf = match (args.vmaf, args.vmaf_model, args.vmaf_log) {
        (false, None, None) => None,
        (_, model, log) => Some(VmafJob {
            model: load_model(model.as_deref().unwrap_or(DEFAULT_MODEL)).map_err(anyhow::Error::msg)?,
            log,
        }),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    compare(a, b, job, vmaf, &mut out)?;
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

/// Measures every pair and writes each as a line (or CSV row) to `out`; returns the pairs.
pub fn compare(
    a: VideoSource,
    b: VideoSource,
    job: CompareJob,
    vmaf: Option<VmafJob>,
    out: &mut impl Write,
) -> Result<u64, ClipError> {
    let mut b = b;
    match_pair(&a, &mut b)?;
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
    let done = if let Some(model) = model {
        // VMAF is measured by its CPU twin, with the pairs it scores.
        compare_cpu(a, b, &job, Some(Vmaf::new(model)), &mut progress, &mut emit)?
    } else if job.cpu {
        compare_cpu(a, b, &job, None, &mut progress, &mut emit)?
    } else {
        compare_gpu(&GpuContext::new()?, a, b, &job, &mut progress, &mut emit)?
    };
    progress.finish();
    out.flush()?;
    if let (Some(log), Some(path)) = (&log, &log_path) {
        let fps = done as f64 / started.elapsed().as_secs_f64();
        log.write(path, fps)
            .map_err(|e| ClipError::Decode(format!("cannot write the VMAF log '{}': {e}", path.display())))?;
    }
    if done > 0 {
        // On stderr, beside the lines: the run's figures as FFmpeg prints them at its end.
        for line in summary.lines().into_iter().chain(summary.vmaf_line()) {
            eprintln!("{line}");
        }
    }
    if done == 0 {
        return Err(ClipError::Decode(format!(
            "no frame of '{}' asked for has a partner in '{}' (see --frames and --offset)",
            names.0, names.1
        )));
    }
    Ok(done)
}

/// The reference path: both decoded in step, measured by the CPU twin.
fn compare_cpu(
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    mut vmaf: Option<Vmaf>,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let align = Alignment::of(&a, &b, job.by, job.offset);
    let (start_a, _) = starts(job);
    a.set_exact_numbers(true);
    b.set_exact_numbers(true);
    seek_to_frame(&mut a, start_a);
    let a_seconds = a.index().wait_pts_of(start_a).map(|pts| a.info.seconds(pts));
    // Aligned by time, B is read from its start (the reference path's way: simple, not fast).
    if let Some(SeekTarget::Frame(n)) = b_start(&align, start_a, a_seconds) {
        seek_to_frame(&mut b, n);
    }
    let format = a.info.format;
    let unsupported = || ClipError::Decode(format!("comparing needs Y'CbCr or grey frames, not {}", format.layout));
    let mut follower = Follower::new();
    let mut done = 0;
    // Pairs measured whose VMAF comes with the next pair (their motion needs it).
    let mut unscored: VecDeque<Compared> = VecDeque::new();
    // The two luma planes VMAF reads, refilled for each pair.
    let (mut ya, mut yb) = (Vec::new(), Vec::new());
    while let Some(fa) = a.next_frame()? {
        if fa.index < start_a {
            continue;
        }
        if job.range.end.is_some_and(|e| fa.index >= e) {
            break;
        }
        let step = follower.advance(
            align.want(fa.index, fa.seconds),
            |f: &DecodedFrame| align.key(f.index, f.seconds),
            || Ok(b.next_frame()?),
            drop,
        )?;
        match step {
            Step::End => break,
            Step::SkipA => continue,
            Step::Pair => {}
        }
        let fb = follower.current.as_ref().expect("paired");
        let (pa, pb) = (fa.planes(format.layout), fb.planes(format.layout));
        let (ca, bits) = components(&format, &pa).ok_or_else(unsupported)?;
        let (cb, _) = components(&format, &pb).ok_or_else(unsupported)?;
        let compared = Compared {
            frame: fa.index,
            frame_b: fb.index,
            pts: fa.seconds,
            metrics: frame_metrics(&ca, &cb, bits),
            vmaf: None,
        };
        done += 1;
        progress.tick(done);
        let Some(vmaf) = &mut vmaf else {
            emit(compared)?;
            continue;
        };
        samples_into(&ca[0], &mut ya);
        samples_into(&cb[0], &mut yb);
        let luma = |data, width, height| Luma {
            data,
            width,
            height,
            bits,
        };
        unscored.push_back(compared);
        let scored = vmaf.push(
            &luma(&ya, ca[0].width, ca[0].height),
            &luma(&yb, cb[0].width, cb[0].height),
        );
        emit_scored(&mut unscored, scored, emit)?;
    }
    let last = vmaf.as_mut().and_then(Vmaf::finish);
    emit_scored(&mut unscored, last, emit)?;
    Ok(done)
}

/// The oldest pair waiting for its VMAF, with its `scores` once they come.
fn emit_scored(
    unscored: &mut VecDeque<Compared>,
    scores: Option<VmafFrame>,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let Some(scores) = scores else { return Ok(()) };
    match unscored.pop_front() {
        Some(mut pair) => {
            pair.vmaf = Some(scores);
            emit(pair)
        }
        None => Ok(()),
    }
}

/// A decoded frame of one side, waiting for its partner.
fn next_frame(decoder: &DecodeThread) -> Result<Option<Frame>, ClipError> {
    loop {
        // A decode that stalls for this long is stuck, not slow.
        let event = decoder
            .next_current(Duration::from_secs(60))
            .ok_or_else(|| ClipError::Decode("the decoder stopped responding".into()))?;
        match event {
            // A seek's keyframe preview is not a frame to measure (the frame follows).
            DecoderEvent::Frame(frame) if frame.preview => decoder.release(frame.slot),
            DecoderEvent::Frame(frame) => return Ok(Some(frame)),
            DecoderEvent::EndOfStream { .. } => return Ok(None),
            DecoderEvent::Failed { message, .. } => return Err(ClipError::Decode(message)),
            DecoderEvent::Reshaped(_) => {
                return Err(ClipError::Decode(
                    "the decoder asked for a ring of another shape".into(),
                ))
            }
        }
    }
}

/// The GPU path: both decoded by the player's decode threads into rings of plane textures,
/// each pair measured by the metrics pass and read back a few frames later.
pub fn compare_gpu(
    ctx: &GpuContext,
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    // Frames are paired, ranged and printed by number: exact numbers only, never estimates
    // from a frame rate the index has not confirmed yet.
    a.set_exact_numbers(true);
    b.set_exact_numbers(true);
    let format = a.info.format;
    // Each side's slots share two staging buffers: with nothing drawn, the GPU has copied an
    // upload out long before the upload after next needs its buffer, and a buffer per slot
    // would be 50 MB more to map for each 4K file before its first frame.
    let ring = |side: &str| -> Result<Vec<Arc<PlaneTextures>>, ClipError> {
        let decode = |e: crate::video::convert::ConvertError| ClipError::Decode(e.to_string());
        let staging = UploadStaging::new(&ctx.device, side, &format, STAGING_BUFFERS).map_err(decode)?;
        (0..RING_SLOTS)
            .map(|i| {
                PlaneTextures::sharing(&ctx.device, &format!("{side} slot {i}"), format, Arc::clone(&staging))
                    .map(Arc::new)
                    .map_err(decode)
            })
            .collect()
    };
    let (slots_a, slots_b) = (ring("A")?, ring("B")?);
    let align = Alignment::of(&a, &b, job.by, job.offset);
    let (start_a, _) = starts(job);
    let a_seconds = a.index().wait_pts_of(start_a).map(|pts| a.info.seconds(pts));
    let b_start = b_start(&align, start_a, a_seconds);
    let mut da = DecodeThread::spawn(a, ctx.queue.clone(), slots_a.clone(), 0);
    let mut db = DecodeThread::spawn(b, ctx.queue.clone(), slots_b.clone(), 0);
    if start_a > 0 {
        da.seek(SeekTarget::Frame(start_a));
    }
    if let Some(target) = b_start {
        db.seek(target);
    }
    // The metrics' pipelines are built while the decoders start.
    let pass = MetricsPass::new(&ctx.device, &format).map_err(|e| ClipError::Decode(e.to_string()))?;
    // Every pair of slots bound once.
    let bindings: Vec<Vec<MetricsBinding>> = slots_a
        .iter()
        .map(|sa| slots_b.iter().map(|sb| pass.bind(&ctx.device, sa, sb)).collect())
        .collect();
    let sizes = pass.sizes();
    let mut readback = ReadbackRing::new(&ctx.device, MetricsPass::sums_size(), 4);
    let mut done = 0u64;
    let mut take = |bytes: &[u8], (frame, frame_b, pts): (u64, u64, f64)| {
        done += 1;
        let sums = pass.read(bytes);
        emit(Compared {
            frame,
            frame_b,
            pts,
            metrics: FrameMetrics::from_sums(&sums, &sizes, pass.bits),
            vmaf: None,
        })
    };
    let mut follower = Follower::new();
    let mut submitted = 0u64;
    while let Some(fa) = next_frame(&da)? {
        if fa.index < start_a {
            da.release(fa.slot);
            continue;
        }
        if job.range.end.is_some_and(|e| fa.index >= e) {
            da.release(fa.slot);
            break;
        }
        // B's frames passed by are given back only after the work already submitted that
        // reads them: the decoder uploads into a slot behind it in the queue.
        let step = follower.advance(
            align.want(fa.index, fa.seconds),
            |f: &Frame| align.key(f.index, f.seconds),
            || next_frame(&db),
            |f: Frame| db.release(f.slot),
        )?;
        if step != Step::Pair {
            da.release(fa.slot);
            if step == Step::End {
                break;
            }
            continue;
        }
        let fb = follower.current.expect("paired");
        if readback.is_full() {
            readback.read_oldest(ctx, &mut take)?.transpose()?;
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("compare") });
        pass.encode(&mut encoder, &bindings[fa.slot][fb.slot]);
        encoder.copy_buffer_to_buffer(pass.sums(), 0, readback.next_buffer(), 0, MetricsPass::sums_size());
        ctx.queue.submit([encoder.finish()]);
        da.release(fa.slot);
        readback.submitted((fa.index, fb.index, fa.seconds));
        submitted += 1;
        progress.tick(submitted);
    }
    follower.finish(|f| db.release(f.slot));
    // The decoders close side by side while the last results come back: closing one takes up
    // to a few hundred milliseconds (a hardware decoder's session), which the command would
    // otherwise wait for twice, after its work.
    std::thread::scope(|scope| -> Result<(), ClipError> {
        scope.spawn(move || drop(da));
        scope.spawn(move || drop(db));
        while !readback.is_empty() {
            readback.read_oldest(ctx, &mut take)?.transpose()?;
        }
        Ok(())
    })?;
    Ok(done)
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
