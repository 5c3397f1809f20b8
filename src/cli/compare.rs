//! `histoplay compare A B`: each frame of B (the one judged) against the frame of A (the
//! reference) it lines up with, measured by the metrics stage on the GPU (or its CPU twin),
//! printed as JSON Lines or CSV with FFmpeg's field names.

use super::hist::{seek_to_frame, ClipError, FrameRange};
use super::progress::Progress;
use super::report::{write_line, Seconds};
use crate::compare::gpu::{MetricsBinding, MetricsPass};
use crate::compare::metrics::{components, frame_metrics, FrameMetrics};
use crate::gpu::readback::ReadbackRing;
use crate::gpu::GpuContext;
use crate::video::convert::PlaneTextures;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame as Frame};
use crate::video::format::PlaneLayout;
use crate::video::ring::RING_SLOTS;
use crate::video::source::{SeekTarget, VideoSource};
use serde::Serialize;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// What `compare` measures: A's frames in `range`, each against B's frame `offset` later.
#[derive(Clone, Copy, Debug)]
pub struct CompareJob {
    pub range: FrameRange,
    pub offset: i64,
    pub csv: bool,
    pub cpu: bool,
}

/// One pair of frames: A's number and B's, A's time, and the metrics.
pub struct Compared {
    pub frame: u64,
    pub frame_b: u64,
    pub pts: f64,
    pub metrics: FrameMetrics,
}

/// `compare`'s JSON line (and CSV row): FFmpeg's stats-file names, `null` for a PSNR of
/// identical components (FFmpeg: `inf`) and for the chroma of grey frames.
#[derive(Serialize)]
struct CompareLine {
    frame: u64,
    frame_b: u64,
    pts: Seconds,
    mse_y: f64,
    mse_u: Option<f64>,
    mse_v: Option<f64>,
    mse_avg: f64,
    psnr_y: Option<f64>,
    psnr_u: Option<f64>,
    psnr_v: Option<f64>,
    psnr_avg: Option<f64>,
    ssim_y: f64,
    ssim_u: Option<f64>,
    ssim_v: Option<f64>,
    ssim_all: f64,
}

const FIELDS: [&str; 15] = [
    "frame", "frame_b", "pts", "mse_y", "mse_u", "mse_v", "mse_avg", "psnr_y", "psnr_u", "psnr_v", "psnr_avg",
    "ssim_y", "ssim_u", "ssim_v", "ssim_all",
];

impl CompareLine {
    fn of(c: &Compared) -> Self {
        let m = &c.metrics;
        let at = |v: &[f64], i: usize| v.get(i).copied();
        let psnr = |i: usize| m.psnr.get(i).copied().flatten();
        Self {
            frame: c.frame,
            frame_b: c.frame_b,
            pts: Seconds(c.pts),
            mse_y: m.mse[0],
            mse_u: at(&m.mse, 1),
            mse_v: at(&m.mse, 2),
            mse_avg: m.mse_avg,
            psnr_y: psnr(0),
            psnr_u: psnr(1),
            psnr_v: psnr(2),
            psnr_avg: m.psnr_avg,
            ssim_y: m.ssim[0],
            ssim_u: at(&m.ssim, 1),
            ssim_v: at(&m.ssim, 2),
            ssim_all: m.ssim_all,
        }
    }

    fn csv_fields(&self) -> Vec<String> {
        let n = |v: f64| v.to_string();
        let o = |v: Option<f64>| v.map(n).unwrap_or_default();
        vec![
            self.frame.to_string(),
            self.frame_b.to_string(),
            if self.pts.0.is_finite() {
                self.pts.0.to_string()
            } else {
                String::new()
            },
            n(self.mse_y),
            o(self.mse_u),
            o(self.mse_v),
            n(self.mse_avg),
            o(self.psnr_y),
            o(self.psnr_u),
            o(self.psnr_v),
            o(self.psnr_avg),
            n(self.ssim_y),
            o(self.ssim_u),
            o(self.ssim_v),
            n(self.ssim_all),
        ]
    }
}

/// Makes B's frames comparable with A's: where B has another size or layout (depth, NV12 from
/// a hardware decoder), its frames are converted to A's by swscale (bicubic), with a warning
/// saying so. Fails where either is a layout the metrics don't take (RGB).
pub fn match_pair(a: &VideoSource, b: &mut VideoSource) -> Result<(), ClipError> {
    let (fa, fb) = (a.info.format, b.info.format);
    for (source, format) in [(a, fa), (&*b, fb)] {
        if components_of(format.layout).is_none() {
            return Err(ClipError::Decode(format!(
                "'{}' is {}: compare measures Y'CbCr or grey video",
                source.info.path.display(),
                format.layout
            )));
        }
    }
    if (fa.width, fa.height, fa.layout) != (fb.width, fb.height, fb.layout) {
        let same_values = matches!(
            (fa.layout, fb.layout),
            (
                PlaneLayout::Nv12,
                PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: 1,
                    bits: 8
                }
            ) | (
                PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: 1,
                    bits: 8
                },
                PlaneLayout::Nv12
            ) | (
                PlaneLayout::P010,
                PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: 1,
                    bits: 10
                }
            ) | (
                PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: 1,
                    bits: 10
                },
                PlaneLayout::P010
            )
        );
        if !same_values || (fa.width, fa.height) != (fb.width, fb.height) {
            log::warn!(
                "'{}' is {}x{}, {}: converted to {}x{}, {} (bicubic) to compare with '{}'",
                b.info.path.display(),
                fb.width,
                fb.height,
                fb.layout,
                fa.width,
                fa.height,
                fa.layout,
                a.info.path.display()
            );
        }
        b.convert_to(fa.layout, fa.width, fa.height);
    }
    Ok(())
}

/// Whether the metrics take frames of `layout`.
fn components_of(layout: PlaneLayout) -> Option<()> {
    match layout {
        PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010 | PlaneLayout::Gray { .. } => Some(()),
        PlaneLayout::Gbr { .. } | PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra => None,
    }
}

/// Where A and B start: A's first frame in the range whose partner exists (B's frame numbers
/// start at 0 too).
fn starts(job: &CompareJob) -> (u64, u64) {
    let a = job.range.start.max(job.offset.min(0).unsigned_abs());
    (a, a.saturating_add_signed(job.offset))
}

/// Measures every pair and writes each as a line (or CSV row) to `out`; returns the pairs.
pub fn compare(a: VideoSource, b: VideoSource, job: CompareJob, out: &mut impl Write) -> Result<u64, ClipError> {
    let mut b = b;
    match_pair(&a, &mut b)?;
    if job.csv {
        write_csv_record(out, &FIELDS.map(String::from))?;
    }
    let total = a
        .index()
        .frame_count()
        .or(a.index().estimated_count)
        .map(|count| job.range.end.unwrap_or(count).min(count).saturating_sub(starts(&job).0));
    let mut progress = Progress::new(total);
    let mut emit = |c: Compared| -> std::io::Result<()> {
        let line = CompareLine::of(&c);
        if job.csv {
            write_csv_record(out, &line.csv_fields())
        } else {
            write_line(out, &line)
        }
    };
    let done = if job.cpu {
        compare_cpu(a, b, &job, &mut progress, &mut emit)?
    } else {
        compare_gpu(&GpuContext::new()?, a, b, &job, &mut progress, &mut emit)?
    };
    progress.finish();
    out.flush()?;
    Ok(done)
}

fn write_csv_record(out: &mut impl Write, fields: &[String]) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(fields).map_err(std::io::Error::other)?;
    writer.flush()
}

/// The reference path: both decoded in step, measured by the CPU twin.
fn compare_cpu(
    mut a: VideoSource,
    mut b: VideoSource,
    job: &CompareJob,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let (start_a, start_b) = starts(job);
    a.set_exact_numbers(true);
    b.set_exact_numbers(true);
    seek_to_frame(&mut a, start_a);
    seek_to_frame(&mut b, start_b);
    let format = a.info.format;
    let mut done = 0;
    let mut pending_b = None;
    while let Some(fa) = a.next_frame()? {
        if fa.index < start_a {
            continue;
        }
        if job.range.end.is_some_and(|e| fa.index >= e) {
            break;
        }
        let want = fa.index.saturating_add_signed(job.offset);
        let fb = loop {
            let next = match pending_b.take() {
                Some(f) => f,
                None => match b.next_frame()? {
                    Some(f) => f,
                    None => return Ok(done),
                },
            };
            if next.index >= want {
                break next;
            }
        };
        if fb.index > want {
            // B has no frame for this one of A's: the next of A's may be its partner.
            pending_b = Some(fb);
            continue;
        }
        let (pa, pb) = (fa.planes(format.layout), fb.planes(format.layout));
        let unsupported = || {
            ClipError::Decode(format!(
                "comparing needs Y'CbCr or grey frames, not {:?}",
                format.layout
            ))
        };
        let (ca, bits) = components(&format, &pa).ok_or_else(unsupported)?;
        let (cb, _) = components(&format, &pb).ok_or_else(unsupported)?;
        emit(Compared {
            frame: fa.index,
            frame_b: fb.index,
            pts: fa.seconds,
            metrics: frame_metrics(&ca, &cb, bits),
        })?;
        done += 1;
        progress.tick(done);
    }
    Ok(done)
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
        }
    }
}

/// The GPU path: both decoded by the player's decode threads into rings of plane textures,
/// each pair measured by the metrics pass and read back a few frames later.
pub fn compare_gpu(
    ctx: &GpuContext,
    a: VideoSource,
    b: VideoSource,
    job: &CompareJob,
    progress: &mut Progress,
    emit: &mut impl FnMut(Compared) -> std::io::Result<()>,
) -> Result<u64, ClipError> {
    let format = a.info.format;
    let pass = MetricsPass::new(&ctx.device, &format).map_err(|e| ClipError::Decode(e.to_string()))?;
    let ring = |side: &str| -> Result<Vec<Arc<PlaneTextures>>, ClipError> {
        (0..RING_SLOTS)
            .map(|i| {
                PlaneTextures::new(&ctx.device, &format!("{side} slot {i}"), format)
                    .map(Arc::new)
                    .map_err(|e| ClipError::Decode(e.to_string()))
            })
            .collect()
    };
    let (slots_a, slots_b) = (ring("A")?, ring("B")?);
    // Every pair of slots bound once.
    let bindings: Vec<Vec<MetricsBinding>> = slots_a
        .iter()
        .map(|sa| slots_b.iter().map(|sb| pass.bind(&ctx.device, sa, sb)).collect())
        .collect();
    let sizes = pass.sizes();
    let mut readback = ReadbackRing::new(&ctx.device, MetricsPass::sums_size(), 4);
    let (start_a, start_b) = starts(job);
    let mut da = DecodeThread::spawn(a, ctx.queue.clone(), slots_a, 0);
    let mut db = DecodeThread::spawn(b, ctx.queue.clone(), slots_b, 0);
    if start_a > 0 {
        da.seek(SeekTarget::Frame(start_a));
    }
    if start_b > 0 {
        db.seek(SeekTarget::Frame(start_b));
    }
    let mut done = 0u64;
    let mut take = |bytes: &[u8], (frame, frame_b, pts): (u64, u64, f64)| {
        done += 1;
        let sums = pass.read(bytes);
        emit(Compared {
            frame,
            frame_b,
            pts,
            metrics: FrameMetrics::from_sums(&sums, &sizes, pass.bits),
        })
    };
    let mut pending_b: Option<Frame> = None;
    let mut submitted = 0u64;
    'pairs: while let Some(fa) = next_frame(&da)? {
        if fa.index < start_a {
            da.release(fa.slot);
            continue;
        }
        if job.range.end.is_some_and(|e| fa.index >= e) {
            da.release(fa.slot);
            break;
        }
        let want = fa.index.saturating_add_signed(job.offset);
        let fb = loop {
            let next = match pending_b.take() {
                Some(f) => f,
                None => match next_frame(&db)? {
                    Some(f) => f,
                    None => {
                        da.release(fa.slot);
                        break 'pairs;
                    }
                },
            };
            if next.index >= want {
                break next;
            }
            db.release(next.slot);
        };
        if fb.index > want {
            da.release(fa.slot);
            pending_b = Some(fb);
            continue;
        }
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
        db.release(fb.slot);
        readback.submitted((fa.index, fb.index, fa.seconds));
        submitted += 1;
        progress.tick(submitted);
    }
    if let Some(f) = pending_b {
        db.release(f.slot);
    }
    while !readback.is_empty() {
        readback.read_oldest(ctx, &mut take)?.transpose()?;
    }
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
