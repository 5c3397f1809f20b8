//! The benchmarks' commands and their measurements: the articles' kernels against histoplay's
//! engine (`bench`, `kernels`), the whole frame pipeline and navigation against decoding alone
//! (`bench-pipeline`, `pipeline`), the window's pacing (`bench-play`), sound against picture
//! (`bench-av`, `av`), and the clips they run on (`make-clip`, `clips`).

pub mod adjust;
pub mod av;
pub mod clips;
pub mod compare;
mod deinterlace;
pub mod kernels;
pub mod lut;
pub mod marks;
pub mod pipeline;
mod planes;
pub mod qc;
pub mod scopes;
mod stats;
pub mod timing;
mod upload;
pub mod variants;
mod vmaf;

use super::args::{parse_bins, parse_byte_size, parse_mark, parse_size, parse_speed};
use crate::engine::chunk::ChunkShape;
use crate::engine::histogram::DEFAULT_BINS;
use crate::engine::{EngineConfig, Merge};
use crate::gpu::GpuContext;
use crate::marks::{Mark, MarkSet, MarkSettings};
use crate::player::{self, PlayerOptions};
use crate::video::still;
use anyhow::{bail, Result};
use clips::{ClipCodec, ClipSpec};
use std::path::PathBuf;

/// Time every histogram variant of the articles and histoplay's own on this GPU.
#[derive(clap::Args)]
pub struct KernelArgs {
    /// A picture to count (default: the built-in kitten at --size).
    pub input: Option<PathBuf>,
    /// Size of the built-in test picture, WxH.
    #[arg(long, value_parser = parse_size, default_value = "3840x2160", conflicts_with = "input")]
    pub size: (u32, u32),
    #[arg(long, default_value_t = 100)]
    pub iters: usize,
    #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
    pub bins: u32,
    /// Also time the production pipeline with these engine shapes:
    /// WORKGROUP/LOADS_PER_INVOCATION/REPLICAS/MERGE, where MERGE is `atomic` (one
    /// dispatch) or the reduce pass's fan-in (three passes), e.g. 512/8/1/atomic or
    /// 256/8/2/1024.
    #[arg(long, value_parser = parse_engine)]
    pub engine: Vec<EngineConfig>,
    /// Time only these groups of rows (repeatable): histograms, scopes, adjust, lut, compare,
    /// vmaf, marks, qc, stats (`report`'s statistics pass), deinterlace, upload [default: all].
    #[arg(long, value_parser = ["histograms", "scopes", "adjust", "lut", "compare", "vmaf", "marks", "qc", "stats", "deinterlace", "upload"])]
    pub only: Vec<String>,
}

/// Time decode → upload → convert → histogram → render against decode alone.
///
/// Then exact seeks, back-steps and memory; or, with --compare, `compare` against each file
/// decoded alone.
#[derive(clap::Args)]
pub struct PipelineArgs {
    pub input: PathBuf,
    /// Random exact seeks to time.
    #[arg(long, default_value_t = 100)]
    pub seeks: usize,
    /// Consecutive back-steps to time, from the last frame of the file's longest GOP.
    #[arg(long, default_value_t = 60)]
    pub backsteps: usize,
    /// The decoder's frame cache, as the player's --cache-size.
    #[arg(long, value_parser = parse_byte_size, default_value = "1GiB")]
    pub cache_size: usize,
    /// Also time opening stream copies of the file (MKV and MP4) looped to about this many
    /// seconds, e.g. 7200 for two hours.
    #[arg(long)]
    pub long: Option<f64>,
    /// Where the long copies are written (default: the temporary directory).
    #[arg(long)]
    pub long_dir: Option<PathBuf>,
    /// Also print every seek and back-step timed, one per line on stderr.
    #[arg(long)]
    pub samples: bool,
    /// Only the rates: decoding alone, `report`, and the pipeline's passes with where their
    /// time goes; no timeline, paced playback, seeks or back-steps.
    #[arg(long)]
    pub rates_only: bool,
    /// Time `histoplay compare INPUT FILE` instead: each file decoded alone, the comparison,
    /// and FFmpeg's psnr and ssim filters on the same pair where `ffmpeg` is on the PATH.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// With --compare: VMAF too (the default model), as `compare --vmaf` measures it.
    #[arg(long, requires = "compare")]
    pub vmaf: bool,
    /// Draw these marks on the picture throughout (as --overlay in the player).
    #[arg(long, value_delimiter = ',', value_parser = parse_mark, conflicts_with = "compare")]
    pub overlay: Vec<Mark>,
    /// Show the picture through a LUT, or a log encoding's display rendering, throughout.
    #[command(flatten)]
    pub lut: crate::cli::args::LutArgs,
    /// Count this scope with every frame (as the player's H).
    #[arg(long, value_enum, conflicts_with = "compare")]
    pub scope: Option<crate::scope::ScopeKind>,
    /// Also play the file paced through a deinterlacer (as the player's --deinterlace): its
    /// pictures shown, dropped and late.
    #[command(flatten)]
    pub deinterlace: crate::cli::args::DeinterlaceArgs,
    /// Only decode the file, as `report` decodes it, and print the frames: the process whole
    /// commands are timed against.
    #[arg(long, hide = true)]
    pub decode_alone: bool,
}

/// Play a video in a window at its own rate and report frame pacing and input latency.
///
/// On a headless machine, run it under Xvfb, e.g. `xvfb-run histoplay bench-play FILE`.
#[derive(clap::Args)]
pub struct PlayArgs {
    pub input: PathBuf,
    /// Seconds of playback to time, before the injected commands.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    #[command(flatten)]
    pub deinterlace: crate::cli::args::DeinterlaceArgs,
}

/// Time a live input through the window's frame path: drops, latency, memory
///
/// Frames shown and dropped, the latency from each packet's arrival to its frame's GPU work
/// done, and resident memory, minute by minute.
///
/// Send it a stream first, e.g. `ffmpeg -re -f lavfi -i testsrc2=size=1920x1080:rate=60 -c:v
/// libx264 -preset ultrafast -tune zerolatency -f mpegts 'udp://127.0.0.1:5000?pkt_size=1316'`,
/// then `histoplay bench-live udp://127.0.0.1:5000 --seconds 600`.
#[derive(clap::Args)]
pub struct LiveArgs {
    pub input: PathBuf,
    /// Seconds to run.
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// The decoder's frame cache (the timeshift window), as the player's --cache-size.
    #[arg(long, value_parser = parse_byte_size, default_value = "1GiB")]
    pub cache_size: usize,
}

pub fn run_live(args: LiveArgs) -> Result<()> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be a positive number");
    }
    pipeline::live::run(
        &args.input,
        args.seconds,
        args.cache_size,
        &mut std::io::stdout().lock(),
    )
}

/// Measure the sound's timing against the picture, as recorded from PulseAudio.
///
/// Plays a clip that beeps and flashes white at every whole second, records the PulseAudio
/// sink's monitor with parec, and reports the beeps' spacing and pitch and the sound's offset
/// from the picture. Needs ffmpeg, parec, a PulseAudio server whose default sink the player
/// plays on, and a display; without a sound card, a null sink made default does
/// (`pulseaudio -D --exit-idle-time=-1`, `pactl load-module module-null-sink sink_name=cap`,
/// `pactl set-default-sink cap`), and Xvfb for the display.
#[derive(clap::Args)]
pub struct AvArgs {
    /// A clip made as bench-av makes one (default: made with the ffmpeg CLI).
    #[arg(long)]
    pub clip: Option<PathBuf>,
    /// Media seconds to play and measure.
    #[arg(long, default_value_t = 60)]
    pub seconds: u32,
    /// The player's playback speed.
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub speed: f64,
    /// The PulseAudio source to record: the monitor of the sink the player plays on.
    #[arg(long, default_value = "@DEFAULT_MONITOR@")]
    pub monitor: String,
    /// Keep the clip, frame log, recording and the player's log, and say where.
    #[arg(long)]
    pub keep: bool,
}

/// Make a benchmark clip with FFmpeg's libraries (for machines without the ffmpeg CLI).
///
/// The video and its sound copied --loops times back to back, or re-encoded with libx264 at
/// --size, --fps, --gop for --frames frames. The container follows OUTPUT's extension.
#[derive(clap::Args)]
pub struct MakeClipArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
    /// Copies of the input back to back, without re-encoding.
    #[arg(long, conflicts_with = "size")]
    pub loops: Option<u32>,
    /// Re-encode at this size, WxH.
    #[arg(long, value_parser = parse_size, requires_all = ["fps", "gop", "frames"])]
    pub size: Option<(u32, u32)>,
    /// Frames a second of the re-encoded clip (input frames are repeated or dropped).
    #[arg(long, requires = "size")]
    pub fps: Option<u32>,
    /// At most this many frames between keyframes.
    #[arg(long, requires = "size")]
    pub gop: Option<u32>,
    /// Frames to encode (the input loops if it is shorter).
    #[arg(long, requires = "size")]
    pub frames: Option<u64>,
    #[arg(long, default_value = "veryfast", requires = "size")]
    pub preset: String,
    #[arg(long, default_value_t = 23, requires = "size")]
    pub crf: u32,
    /// h264 (8-bit), or hevc10-pq: HEVC Main10 tagged HDR10 (the same picture in 10 bits).
    #[arg(long, value_enum, default_value_t = ClipCodecArg::H264, requires = "size")]
    pub codec: ClipCodecArg,
    /// Interlaced H.264, the top (tff) or bottom (bff) field first: each frame woven from two
    /// fields taken at twice --fps (as FFmpeg's fps=2R,interlace=scan=tff:lowpass=0), coded as
    /// fields (-flags +ilme+ildct).
    #[arg(long, value_enum, requires = "size")]
    pub interlace: Option<FieldOrderArg>,
}

/// make-clip's field orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldOrderArg {
    Tff,
    Bff,
}

/// make-clip's codecs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClipCodecArg {
    H264,
    #[value(name = "hevc10-pq")]
    Hevc10Pq,
}

pub fn parse_engine(s: &str) -> Result<EngineConfig, String> {
    let bad = || format!("'{s}' is not an engine shape like 512/8/1/atomic or 256/8/2/1024");
    let parts: Vec<&str> = s.split('/').collect();
    let [wg, px, replicas, merge] = parts[..] else {
        return Err(bad());
    };
    let number = |v: &str| v.parse::<u32>().map_err(|_| bad());
    let (workgroup_size, loads_per_invocation, replicas) = (number(wg)?, number(px)?, number(replicas)?);
    let merge = match merge {
        "atomic" => Merge::Atomic,
        fan_in => Merge::Tree {
            fan_in: number(fan_in)?,
        },
    };
    let valid_fan_in = !matches!(merge, Merge::Tree { fan_in } if fan_in < 2);
    // A chunk is workgroup · loads · 4 pixels; keep it far inside u32 (and the GPU's reach).
    let chunk_pixels = workgroup_size
        .checked_mul(loads_per_invocation)
        .and_then(|n| n.checked_mul(4));
    let valid_shape = (1..=1024).contains(&workgroup_size)
        && loads_per_invocation % 4 == 0
        && loads_per_invocation > 0
        && chunk_pixels.is_some_and(|n| n <= 1 << 24);
    if !valid_fan_in || !valid_shape || replicas < 1 {
        return Err(bad());
    }
    Ok(EngineConfig {
        shape: ChunkShape {
            workgroup_size,
            loads_per_invocation,
            replicas,
        },
        merge,
        ..EngineConfig::default()
    })
}

pub fn run_kernels(args: KernelArgs) -> Result<()> {
    let KernelArgs {
        input,
        size,
        iters,
        bins,
        engine,
        only,
    } = args;
    // The GPU first: a size it can't hold is refused before the picture is made.
    let ctx = GpuContext::new()?;
    let image = match input {
        Some(path) => still::load(&path)?,
        None => {
            ctx.check_frame_size(size.0, size.1)?;
            crate::kitten(size.0, size.1)
        }
    };
    let groups = kernels::Groups(only);
    kernels::run(
        &ctx,
        &image,
        bins,
        iters.max(1),
        &engine,
        &groups,
        &mut std::io::stdout().lock(),
    )?;
    Ok(())
}

pub fn run_pipeline(args: PipelineArgs) -> Result<()> {
    let PipelineArgs {
        input,
        seeks,
        backsteps,
        cache_size,
        long,
        long_dir,
        samples,
        rates_only,
        compare,
        vmaf,
        overlay,
        lut,
        scope,
        deinterlace,
        decode_alone,
    } = args;
    if crate::video::still::is_still_image(&input) {
        bail!(
            "'{}' is a still picture: bench-pipeline times a video's decoding and playing (`bench` times the passes)",
            input.display()
        );
    }
    if decode_alone {
        return pipeline::decode_alone(&input);
    }
    if let Some(judged) = compare {
        return pipeline::compare::run(&input, &judged, vmaf, &mut std::io::stdout().lock());
    }
    if long.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        bail!("--long must be a positive number of seconds");
    }
    let options = pipeline::BenchOptions {
        seeks,
        backsteps,
        cache_bytes: cache_size,
        long_seconds: long,
        long_dir,
        samples,
        rates_only,
        shown: pipeline::Shown {
            marks: MarkSettings {
                shown: overlay.iter().fold(MarkSet::default(), |set, &m| set.with(m, true)),
                zebra_low: Some(crate::marks::DEFAULT_ZEBRA_LOW),
                ..MarkSettings::default()
            },
            lut: lut.load()?,
            input_colour: lut.input_colour,
            scope,
        },
        deinterlace: deinterlace.filter(),
    };
    pipeline::run(&input, &options, &mut std::io::stdout().lock())
}

pub fn run_av(args: AvArgs) -> Result<()> {
    let AvArgs {
        clip,
        seconds,
        speed,
        monitor,
        keep,
    } = args;
    let options = av::AvOptions {
        clip,
        seconds,
        speed,
        monitor,
        keep,
    };
    av::run(&options, &mut std::io::stdout().lock())
}

pub fn make_clip(args: MakeClipArgs) -> Result<()> {
    let MakeClipArgs {
        input,
        output,
        loops,
        size,
        fps,
        gop,
        frames,
        preset,
        crf,
        codec,
        interlace,
    } = args;
    let started = std::time::Instant::now();
    let written = match (size, fps, gop, frames) {
        (None, ..) => {
            let loops = loops.unwrap_or(1);
            let packets = clips::loop_copy(&input, &output, loops)?;
            format!("{loops} loops, {packets} packets")
        }
        (Some((width, height)), Some(fps), Some(gop), Some(frames)) => {
            let spec = ClipSpec {
                width,
                height,
                fps,
                gop,
                frames,
                preset,
                crf,
                codec: match codec {
                    ClipCodecArg::H264 => ClipCodec::H264,
                    ClipCodecArg::Hevc10Pq => ClipCodec::HevcMain10Pq,
                },
                interlace: interlace.map(|order| match order {
                    FieldOrderArg::Tff => clips::FieldFirst::Top,
                    FieldOrderArg::Bff => clips::FieldFirst::Bottom,
                }),
            };
            let frames = clips::encode_clip(&input, &output, &spec)?;
            format!("{frames} frames of {width}x{height} at {fps} fps")
        }
        _ => bail!("--size needs --fps, --gop and --frames"),
    };
    let bytes = std::fs::metadata(&output).map_or(0, |m| m.len());
    println!(
        "wrote '{}': {written}, {bytes} bytes in {:.2} s",
        output.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub fn run_play(args: PlayArgs) -> Result<()> {
    let PlayArgs {
        input,
        seconds,
        deinterlace,
    } = args;
    if !(seconds > 0.0 && seconds.is_finite()) {
        bail!("--seconds must be a positive number of seconds");
    }
    let options = PlayerOptions {
        frame_log: None,
        bench_seconds: Some(seconds),
        sound: false,
        cache_bytes: crate::video::decoder::DEFAULT_CACHE_BYTES,
        speed: 1.0,
        audio_device: None,
        deinterlace: deinterlace.filter(),
        deinterlacer: deinterlace.deinterlacer,
        ..PlayerOptions::default()
    };
    if let Some(report) = player::play(&[input], options)? {
        print!("{report}");
    }
    Ok(())
}
