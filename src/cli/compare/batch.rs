//! `compare REF DIR` (or several judged files): every encode against the one reference, a line
//! each — VMAF's mean, harmonic mean, minimum and 1% low, PSNR, SSIM, the encode's size and
//! bitrate — the table a bitrate ladder is plotted from. One GPU serves the whole batch; a file
//! that fails is listed with its error and the rest go on; `--fail-on` judges each encode.

use super::limits::CompareLimits;
use super::lines::RunFigures;
use super::{compare, CompareJob, VmafJob};
use crate::cli::output::{write_csv_record, write_line};
use crate::compare::vmaf::model::Model;
use crate::gpu::GpuContext;
use crate::headless::ClipError;
use crate::video::source::{Decoding, VideoSource};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One encode's line.
#[derive(Serialize, Default)]
struct EncodeLine {
    judged: String,
    reference: String,
    /// The encode's own picture size (before any scaling to the reference's).
    width: Option<u32>,
    height: Option<u32>,
    codec: Option<String>,
    /// The file's size in bytes and its bitrate over its duration, in kbit/s.
    bytes: Option<u64>,
    bitrate: Option<f64>,
    frames: Option<u64>,
    vmaf_mean: Option<f64>,
    vmaf_harmonic_mean: Option<f64>,
    vmaf_min: Option<f64>,
    vmaf_1pct_low: Option<f64>,
    psnr_avg: Option<f64>,
    psnr_y: Option<f64>,
    ssim_all: Option<f64>,
    ssim_y: Option<f64>,
    /// With `--fail-on`: "pass" or "fail".
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
    /// The limits failed, or why the file could not be measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

const FIELDS: [&str; 19] = [
    "judged",
    "reference",
    "width",
    "height",
    "codec",
    "bytes",
    "bitrate",
    "frames",
    "vmaf_mean",
    "vmaf_harmonic_mean",
    "vmaf_min",
    "vmaf_1pct_low",
    "psnr_avg",
    "psnr_y",
    "ssim_all",
    "ssim_y",
    "verdict",
    "failed",
    "error",
];

impl EncodeLine {
    fn csv_fields(&self) -> Vec<String> {
        let o = |v: Option<f64>| v.filter(|v| v.is_finite()).map(|v| v.to_string()).unwrap_or_default();
        let u = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        vec![
            self.judged.clone(),
            self.reference.clone(),
            u(self.width.map(u64::from)),
            u(self.height.map(u64::from)),
            self.codec.clone().unwrap_or_default(),
            u(self.bytes),
            o(self.bitrate),
            u(self.frames),
            o(self.vmaf_mean),
            o(self.vmaf_harmonic_mean),
            o(self.vmaf_min),
            o(self.vmaf_1pct_low),
            o(self.psnr_avg),
            o(self.psnr_y),
            o(self.ssim_all),
            o(self.ssim_y),
            self.verdict.unwrap_or_default().to_string(),
            self.failed.join("; "),
            self.error.clone().unwrap_or_default(),
        ]
    }

    fn set_figures(&mut self, f: &RunFigures) {
        // JSON has no infinity: identical pictures' PSNR is null, as on a frame's line.
        let finite = |v: f64| v.is_finite().then_some(v);
        self.frames = Some(f.frames);
        self.vmaf_mean = f.vmaf.map(|v| v.mean);
        self.vmaf_harmonic_mean = f.vmaf.map(|v| v.harmonic_mean);
        self.vmaf_min = f.vmaf.map(|v| v.min);
        self.vmaf_1pct_low = f.vmaf.map(|v| v.low);
        self.psnr_avg = finite(f.psnr_avg);
        // (R'G'B' has no luma.)
        self.psnr_y = finite(f.psnr_y).filter(|_| f.luma);
        self.ssim_all = Some(f.ssim_all);
        self.ssim_y = Some(f.ssim_y).filter(|_| f.luma);
    }
}

/// What the batch measures each encode with.
pub struct Batch<'a> {
    pub reference: &'a Path,
    pub job: CompareJob,
    pub model: Option<Model>,
    pub size: Option<(u32, u32)>,
    pub limits: Option<&'a CompareLimits>,
    /// Where each encode's VMAF log goes (`--vmaf-log DIR`): `DIR/<encode's name>.json`.
    pub logs: Option<PathBuf>,
}

/// Measures each of `files` against the reference, writing a line per encode to `out`;
/// returns whether every encode was measured and passed.
pub fn run(batch: &Batch, files: &[PathBuf], out: &mut impl Write) -> anyhow::Result<bool> {
    if let Some(dir) = &batch.logs {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot make the folder '{}' for VMAF's logs: {e}", dir.display()))?;
    }
    let ctx = if batch.job.cpu { None } else { Some(GpuContext::new()?) };
    let reference = batch.reference.display().to_string();
    if batch.job.csv {
        write_csv_record(out, &FIELDS.map(String::from))?;
    }
    let mut all_good = true;
    for (i, file) in files.iter().enumerate() {
        eprintln!("[{}/{}] {}", i + 1, files.len(), file.display());
        let mut line = EncodeLine {
            judged: file.display().to_string(),
            reference: reference.clone(),
            bytes: std::fs::metadata(file).ok().map(|m| m.len()),
            ..EncodeLine::default()
        };
        match measure(batch, ctx.as_ref(), file, &mut line) {
            Ok(figures) => {
                line.set_figures(&figures);
                if let Some(limits) = batch.limits {
                    line.failed = limits.failed(&figures);
                    line.verdict = Some(if line.failed.is_empty() { "pass" } else { "fail" });
                    all_good &= line.failed.is_empty();
                }
            }
            Err(e) => {
                eprintln!("error: {}", crate::terminal::one_line(&e.to_string()));
                line.error = Some(e.to_string());
                all_good = false;
            }
        }
        if batch.job.csv {
            write_csv_record(out, &line.csv_fields())?;
        } else {
            write_line(out, &line)?;
        }
        // Each encode's line as soon as it is measured: a stopped batch keeps what it did.
        out.flush()?;
    }
    Ok(all_good)
}

/// Opens the reference and `file` and measures them, filling in the encode's own facts.
fn measure(
    batch: &Batch,
    ctx: Option<&GpuContext>,
    file: &Path,
    line: &mut EncodeLine,
) -> Result<RunFigures, ClipError> {
    let a = VideoSource::open_for(batch.reference, Decoding::Throughput)?;
    let b = VideoSource::open_for(file, Decoding::Throughput)?;
    let info = &b.info;
    line.width = Some(info.format.width);
    line.height = Some(info.format.height);
    line.codec = Some(info.codec.clone());
    if info.duration > 0.0 {
        line.bitrate = line.bytes.map(|bytes| bytes as f64 * 8.0 / info.duration / 1000.0);
    }
    let vmaf = batch.model.clone().map(|model| VmafJob {
        model,
        log: batch.logs.as_ref().map(|dir| log_path(dir, file)),
    });
    let job = CompareJob {
        csv: false,
        ..batch.job
    };
    let summary = compare(a, b, job, vmaf, batch.size, ctx, &mut std::io::sink())?;
    Ok(summary.figures())
}

/// `DIR/<file's name>.json` (the whole name kept: `a.mp4` and `a.mkv` keep their own logs).
fn log_path(dir: &Path, file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map_or_else(|| "judged".into(), |n| n.to_string_lossy().into_owned());
    dir.join(format!("{name}.json"))
}

/// The judged files `inputs` name, directories searched for video as `report DIR` does, the
/// reference left out where it was found in a folder (named, it is judged too).
pub fn judged_files(reference: &Path, inputs: &[PathBuf]) -> Vec<PathBuf> {
    let reference = reference.canonicalize().ok();
    // Named on its own, the reference is judged too (against itself: the figures of a perfect
    // copy); found in a folder beside its encodes, it is left out.
    let named = inputs.iter().any(|p| !p.is_dir() && p.canonicalize().ok() == reference);
    crate::cli::report::batch::expand(inputs)
        .into_iter()
        .filter(|p| named || reference.is_none() || p.canonicalize().ok() != reference)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_is_left_out_of_a_folder_it_is_in_but_judged_where_named() {
        let dir = std::env::temp_dir().join(format!("histoplay-judged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (reference, encode) = (dir.join("master.mkv"), dir.join("x264.mkv"));
        for file in [&reference, &encode] {
            std::fs::write(file, b"").unwrap();
        }
        let names = |inputs: &[PathBuf]| -> Vec<String> {
            judged_files(&reference, inputs)
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names(std::slice::from_ref(&dir)), ["x264.mkv"]);
        assert_eq!(names(&[encode.clone(), reference.clone()]), ["x264.mkv", "master.mkv"]);
        assert_eq!(names(&[dir.clone(), reference.clone()]).len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_encode_keeps_its_own_log_by_its_whole_name() {
        assert_eq!(
            log_path(Path::new("logs"), Path::new("ladder/x264-3000k.mp4")),
            Path::new("logs/x264-3000k.mp4.json")
        );
    }
}
