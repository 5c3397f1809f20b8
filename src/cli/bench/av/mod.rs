//! `histoplay bench-av`: plays a clip that beeps and flashes white at every whole second, records
//! what reaches the PulseAudio sink, and reports the beeps' spacing and pitch and how far each
//! beep lands from its flash on screen.
//!
//! The machine needs a PulseAudio server whose default sink the player's sound goes to (ALSA's
//! `default` reaches it through the pulse plugin, libasound2-plugins), `parec`, `ffmpeg` and a
//! display. On a headless Debian machine, as root, without a sound card:
//!
//! ```text
//! apt-get install -y pulseaudio pulseaudio-utils libasound2-plugins xvfb ffmpeg
//! pulseaudio -D --exit-idle-time=-1        # as root: warns, and runs
//! pactl load-module module-null-sink sink_name=cap rate=48000
//! pactl set-default-sink cap
//! Xvfb :77 -screen 0 1280x720x24 & export DISPLAY=:77
//! histoplay bench-av --seconds 20 --speed 1.5
//! ```
//!
//! Without `XDG_RUNTIME_DIR` (a root shell) PulseAudio's clients, ALSA's pulse plugin among
//! them, still find the server through `~/.config/pulse/*-runtime`; where one doesn't,
//! `export PULSE_SERVER=...` with `pactl info`'s "Server String". The player runs with the
//! environment as it is.

mod analysis;

pub use analysis::*;

use crate::player::stats::monotonic_ns;
use anyhow::{bail, Context, Result};
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What `bench-av` plays and how.
#[derive(Clone, Debug)]
pub struct AvOptions {
    /// A clip made as `make_clip` makes one, instead of making it.
    pub clip: Option<PathBuf>,
    /// Media seconds to play (the clip is 3 s longer).
    pub seconds: u32,
    /// The player's `--speed`.
    pub speed: f64,
    /// The PulseAudio source to record: the sink's monitor.
    pub monitor: String,
    /// Keep the temporary directory (clip, frame log, recording, player's log) and say where.
    pub keep: bool,
}

/// The PulseAudio server that answered `pactl info`.
struct PulseServer {
    address: String,
    default_sink: String,
}

impl PulseServer {
    fn find() -> Result<Self> {
        let answer = Command::new("pactl")
            .arg("info")
            .output()
            .map_err(|e| tool_error("pactl", "pulseaudio-utils", e))?;
        let text = String::from_utf8_lossy(&answer.stdout);
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
        };
        match (answer.status.success(), value("Server String:")) {
            (true, Some(address)) => Ok(Self {
                address,
                default_sink: value("Default Sink:").unwrap_or_else(|| "none".to_string()),
            }),
            _ => bail!(
                "no PulseAudio server answers (pactl info: {}); start one: `pulseaudio -D --exit-idle-time=-1`, \
                 then `pactl load-module module-null-sink sink_name=cap rate=48000 && pactl set-default-sink cap`",
                last_line(&String::from_utf8_lossy(&answer.stderr))
            ),
        }
    }
}

fn tool_error(tool: &str, package: &str, e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        anyhow::anyhow!("{tool} not found: install {package}")
    } else {
        anyhow::anyhow!("cannot run {tool}: {e}")
    }
}

fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
}

/// The clip: `seconds` long, 320x240 at `FPS`, black with frame n white when n % FPS == 0, and a
/// 50 ms 1 kHz beep (amplitude 0.5) at each whole second, 48 kHz mono PCM (no codec delay) in MKV.
fn make_clip(path: &Path, seconds: u32) -> Result<()> {
    let video = format!("color=black:s=320x240:r={FPS}:d={seconds}");
    let audio = format!("aevalsrc='if(lt(mod(t,1),0.05),0.5*sin(2*PI*{PITCH_HZ}*t),0)':s={RATE}:d={seconds}");
    let flash = format!("geq=lum='if(eq(mod(N,{FPS}),0),235,16)':cb=128:cr=128,format=yuv420p");
    let made = Command::new("ffmpeg")
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            &video,
            "-f",
            "lavfi",
            "-i",
        ])
        .args([audio.as_str(), "-vf", flash.as_str()])
        .args([
            "-c:v",
            "libx264",
            "-g",
            &FPS.to_string(),
            "-preset",
            "veryfast",
            "-c:a",
            "pcm_s16le",
        ])
        .arg(path)
        .output()
        .map_err(|e| tool_error("ffmpeg", "ffmpeg (or pass --clip FILE)", e))?;
    if !made.status.success() {
        bail!(
            "ffmpeg could not make the clip: {}",
            last_line(&String::from_utf8_lossy(&made.stderr))
        );
    }
    Ok(())
}

/// A child process ended with its owner: killed and reaped if still running.
struct ChildGuard(Child);

impl ChildGuard {
    /// SIGTERM, then SIGKILL if it hasn't gone within `grace`.
    fn terminate(&mut self, grace: Duration) -> std::io::Result<std::process::ExitStatus> {
        if let Some(status) = self.0.try_wait()? {
            return Ok(status);
        }
        // SAFETY: kill only sends a signal, to our own child, which has not been reaped.
        #[cfg(unix)]
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM)
        };
        #[cfg(not(unix))]
        self.0.kill()?;
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(status) = self.0.try_wait()? {
                return Ok(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.0.kill()?;
        self.0.wait()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `parec` writing the monitor's samples to a pipe, read on a thread that timestamps each read.
struct Recorder {
    parec: ChildGuard,
    reader: JoinHandle<std::io::Result<Recording>>,
    /// Says when the first samples arrive.
    sounding: Receiver<()>,
}

impl Recorder {
    fn start(monitor: &str) -> Result<Self> {
        let mut command = Command::new("parec");
        command
            .args(["-d", monitor, "--raw", "--format=s16le", "--rate=48000", "--channels=1"])
            .arg("--latency-msec=2")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut parec = ChildGuard(
            command
                .spawn()
                .map_err(|e| tool_error("parec", "pulseaudio-utils", e))?,
        );
        let mut stdout = parec.0.stdout.take().context("parec's output is not a pipe")?;
        let (sounding, sounding_rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let (mut bytes, mut reads, mut buffer) = (Vec::new(), Vec::new(), vec![0u8; 16384]);
            loop {
                let n = stdout.read(&mut buffer)?;
                let at_ns = monotonic_ns().unwrap_or(0);
                if n == 0 {
                    break;
                }
                if reads.is_empty() {
                    let _ = sounding.send(());
                }
                bytes.extend_from_slice(&buffer[..n]);
                let samples = bytes.len() as u64 / 2;
                reads.push(Read { samples, at_ns });
            }
            let samples = bytes
                .chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]))
                .collect();
            Ok(Recording { samples, reads })
        });
        Ok(Self {
            parec,
            reader,
            sounding: sounding_rx,
        })
    }

    /// Waits for the first samples: an idle null sink sleeps through the 2 s block it was
    /// rendering before it takes up parec's 2 ms latency, so the recording starts up to 2 s late.
    /// Err with parec's own words if it gave up (a monitor that doesn't exist).
    fn wait_for_samples(&mut self, monitor: &str) -> Result<()> {
        if self.sounding.recv_timeout(Duration::from_secs(5)).is_ok() {
            return Ok(());
        }
        if let Some(status) = self.parec.0.try_wait()? {
            let mut message = String::new();
            if let Some(stderr) = self.parec.0.stderr.as_mut() {
                let _ = stderr.read_to_string(&mut message);
            }
            bail!("parec -d {monitor} stopped ({status}): {}", last_line(&message));
        }
        bail!("parec -d {monitor} recorded nothing in 5 s");
    }

    fn stop(mut self) -> Result<Recording> {
        self.parec.terminate(Duration::from_secs(2))?;
        match self.reader.join() {
            Ok(recording) => Ok(recording.context("reading parec's output failed")?),
            Err(_) => bail!("the recording thread panicked"),
        }
    }
}

/// Plays `clip` for `seconds` of media time plus 2 s and stops it; returns when it was stopped.
fn run_player(clip: &Path, dir: &Path, options: &AvOptions) -> Result<u64> {
    let exe = std::env::current_exe().context("cannot find histoplay's own executable")?;
    let log_path = dir.join("player.log");
    let log = std::fs::File::create(&log_path).with_context(|| format!("cannot write '{}'", log_path.display()))?;
    let mut command = Command::new(exe);
    command
        .arg(clip)
        .arg("--frame-log")
        .arg(dir.join("frames.log"))
        .arg("--speed")
        .arg(options.speed.to_string())
        .stdout(Stdio::null())
        .stderr(log);
    let mut player = ChildGuard(command.spawn().context("cannot start the player")?);
    let failed = |status: std::process::ExitStatus| {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        anyhow::anyhow!("the player failed ({status}): {}", last_line(&log))
    };
    let deadline = Instant::now() + Duration::from_secs_f64(f64::from(options.seconds) / options.speed + 2.0);
    while Instant::now() < deadline {
        if let Some(status) = player.0.try_wait()? {
            return Err(failed(status));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let stopped_ns = monotonic_ns().unwrap_or(0);
    let status = player.terminate(Duration::from_secs(5))?;
    #[cfg(unix)]
    let by_sigterm = std::os::unix::process::ExitStatusExt::signal(&status) == Some(libc::SIGTERM);
    #[cfg(not(unix))]
    let by_sigterm = false;
    if !(status.success() || by_sigterm) {
        return Err(failed(status));
    }
    Ok(stopped_ns)
}

/// A directory of the run's files, removed at the end unless kept.
struct RunDir {
    path: PathBuf,
    keep: bool,
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Makes (or takes) the clip, records the sink's monitor while the player plays it, and writes
/// the figures to `out`.
pub fn run(options: &AvOptions, out: &mut impl Write) -> Result<()> {
    if options.seconds < 4 {
        bail!("--seconds must be at least 4 (the first 2 are start-up)");
    }
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        bail!("DISPLAY is not set: the player needs a window; start Xvfb (`Xvfb :77 & export DISPLAY=:77`)");
    }
    if monotonic_ns().is_none() {
        bail!("bench-av needs CLOCK_MONOTONIC (Linux) to line sound up with the frame log");
    }
    Command::new("parec")
        .arg("--version")
        .output()
        .map_err(|e| tool_error("parec", "pulseaudio-utils", e))?;
    let server = PulseServer::find()?;
    let dir = RunDir {
        path: std::env::temp_dir().join(format!("histoplay-bench-av-{}", std::process::id())),
        keep: options.keep,
    };
    std::fs::create_dir_all(&dir.path).with_context(|| format!("cannot create '{}'", dir.path.display()))?;
    let clip = match &options.clip {
        Some(clip) => clip.clone(),
        None => {
            let clip = dir.path.join("clip.mkv");
            make_clip(&clip, options.seconds + 3)?;
            clip
        }
    };
    writeln!(
        out,
        "playing:    {} s of '{}' at {}x; recording {} (default sink {})",
        options.seconds,
        clip.display(),
        options.speed,
        options.monitor,
        server.default_sink
    )?;
    let mut recorder = Recorder::start(&options.monitor)?;
    recorder.wait_for_samples(&options.monitor)?;
    // Some silence before the first beep, for the onset detector.
    std::thread::sleep(Duration::from_millis(500));
    let stopped_ns = run_player(&clip, &dir.path, options)?;
    // The sound still on its way through the server when the player stopped.
    std::thread::sleep(Duration::from_millis(300));
    let recording = recorder.stop()?;
    if options.keep {
        let bytes: Vec<u8> = recording.samples.iter().flat_map(|s| s.to_le_bytes()).collect();
        std::fs::write(dir.path.join("recording.s16le"), bytes)?;
        let reads: String = recording
            .reads
            .iter()
            .map(|r| format!("{} {}\n", r.samples, r.at_ns))
            .collect();
        std::fs::write(dir.path.join("reads.txt"), reads)?;
        writeln!(out, "kept:       {}", dir.path.display())?;
    }
    let log_path = dir.path.join("frames.log");
    let log =
        std::fs::read_to_string(&log_path).with_context(|| format!("the player wrote no '{}'", log_path.display()))?;
    let presents = parse_frame_log(&log)?;
    let analysis = match analyse(&recording, &presents, options.speed, stopped_ns) {
        Ok(analysis) => analysis,
        Err(AnalysisError::NoBeeps) => bail!(
            "no beeps in the recording of {}: the player's sound probably doesn't go to the default sink \
             ({}); make its sink the default (`pactl set-default-sink NAME`, see `pactl list short sinks`) or \
             record that sink with --monitor NAME.monitor; if the player found no sound server, \
             `export PULSE_SERVER={}`",
            options.monitor,
            server.default_sink,
            server.address
        ),
        Err(e) => return Err(e.into()),
    };
    write!(out, "{analysis}")?;
    Ok(())
}
