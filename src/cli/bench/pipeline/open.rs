//! Open times: from opening a file to its first frame counted on the GPU, in this process and
//! as a whole `histoplay hist --frame 0` process; and the same for a long stream copy of the
//! file, which must take no longer (the frame index fills in the background).

use super::Pipeline;
use crate::gpu::GpuContext;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Best of this many tries (the file is in the page cache after the first).
const TRIES: usize = 3;

/// Open → first frame counted, with the GPU already up; and `hist --frame 0` as a process.
struct OpenTimes {
    in_process: Duration,
    hist_process: Duration,
}

fn measure(ctx: &GpuContext, path: &Path) -> Result<OpenTimes> {
    let mut in_process = Duration::MAX;
    let mut hist_process = Duration::MAX;
    for _ in 0..TRIES {
        let start = Instant::now();
        let mut pipeline = Pipeline::open(ctx.clone(), path, (1280, 720), 0, &Default::default())?;
        in_process = in_process.min(pipeline.settle(start)?.first);
        drop(pipeline);

        let exe = std::env::current_exe().context("cannot find histoplay's own executable")?;
        let start = Instant::now();
        let status = Command::new(exe)
            .arg("hist")
            .arg(path)
            .args(["--frame", "0"])
            .stdout(Stdio::null())
            .status()
            .context("cannot run histoplay hist")?;
        if !status.success() {
            bail!("histoplay hist {} --frame 0 failed", path.display());
        }
        hist_process = hist_process.min(start.elapsed());
    }
    Ok(OpenTimes {
        in_process,
        hist_process,
    })
}

fn line(what: &str, times: &OpenTimes) -> String {
    format!(
        "open:         {what}: first frame counted {:.1} ms after opening (GPU up); `hist --frame 0` process \
         {:.1} ms (best of {TRIES})",
        times.in_process.as_secs_f64() * 1e3,
        times.hist_process.as_secs_f64() * 1e3
    )
}

/// The open figures of the file itself.
pub fn time_open(ctx: &GpuContext, path: &Path) -> Result<String> {
    Ok(line("this file", &measure(ctx, path)?))
}

/// Makes stream copies of `path` looped to about `seconds` (MKV and MP4) and reports their open
/// figures; the copies are deleted afterwards.
pub fn long_file(ctx: &GpuContext, path: &Path, seconds: f64, dir: Option<&Path>, out: &mut impl Write) -> Result<()> {
    let source = crate::video::source::VideoSource::open(path)?;
    let length = source.info.duration;
    drop(source);
    if length <= 0.0 {
        bail!("'{}' has no duration to loop", path.display());
    }
    let loops = (seconds / length).ceil().max(1.0) as u32;
    let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    for extension in ["mkv", "mp4"] {
        let copy: PathBuf = dir.join(format!("histoplay-long-{}.{extension}", std::process::id()));
        let started = Instant::now();
        let made = crate::cli::bench::clips::loop_copy(path, &copy, loops);
        let result = made.map_err(anyhow::Error::from).and_then(|_| {
            let bytes = std::fs::metadata(&copy).map_or(0, |m| m.len());
            let made_in = started.elapsed();
            let times = measure(ctx, &copy)?;
            writeln!(
                out,
                "{} [{loops} loops, {:.0} s, {:.2} GB, copied in {:.1} s]",
                line(&format!("long {extension}"), &times),
                length * f64::from(loops),
                bytes as f64 / 1e9,
                made_in.as_secs_f64()
            )?;
            Ok(())
        });
        let _ = std::fs::remove_file(&copy);
        result?;
    }
    Ok(())
}
