//! The histoplay command line: play a file, or use the histogram engine headless.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use histoplay::bench::clips::{self as bench_clips, ClipCodec, ClipSpec};
use histoplay::bench::{av as bench_av, kernels as bench, pipeline as bench_pipeline};
use histoplay::cli::compare::{self as compare_cli, AlignBy, CompareJob};
use histoplay::cli::hist::{self as clip, FrameRange, HistJob, Output};
use histoplay::cli::report::{self, FrameReport};
use histoplay::cli::scope::{self as scope_cli, ScopeJob};
use histoplay::cli::still;
use histoplay::compare::composite::CompareMode;
use histoplay::engine::chunk::ChunkShape;
use histoplay::engine::histogram::{self, DEFAULT_BINS};
use histoplay::engine::{EngineConfig, Merge};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::marks::scale::FalseColourScale;
use histoplay::marks::{Mark, MarkSet, MarkSettings};
use histoplay::player::commands::Bindings;
use histoplay::player::{self, PlayerOptions};
use histoplay::render::adjust::{Adjustments, AutoMode};
use histoplay::render::layout::Fit;
use histoplay::render::offscreen;
use histoplay::render::scene::{Quads, ViewOptions};
use histoplay::scope::graticule::{Level, Scale};
use histoplay::scope::{self, Region, ScopeKind};
use histoplay::timeline;
use histoplay::video::source::hardware::{self, Hwdec};
use histoplay::video::source::VideoSource;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "histoplay",
    version,
    disable_version_flag = true,
    about = "A video player with live GPU histograms over the picture",
    after_long_help = KEYS_HELP,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Print the version; with --verbose, FFmpeg's and the built-in libraries' too.
    #[arg(short = 'V', long)]
    version: bool,
    /// More detail: with --version, the libraries in use; otherwise the log at info level (as
    /// RUST_LOG=info).
    #[arg(short, long, global = true)]
    verbose: bool,
    /// Videos (or directories of them) to play in a window, in order (default:
    /// media/sample-540p.mp4).
    files: Vec<PathBuf>,
    /// Start the playlist over after its last file.
    #[arg(long)]
    loop_playlist: bool,
    /// Loop each file (the `L` key).
    #[arg(long)]
    loop_file: bool,
    /// Key bindings in mpv's input.conf syntax (default: ~/.config/histoplay/input.conf, if it
    /// exists).
    #[arg(long)]
    input_conf: Option<PathBuf>,
    #[command(flatten)]
    adjust: AdjustArgs,
    /// Write one line per presented frame to this file (for tests and benchmarks).
    #[arg(long, hide = true)]
    frame_log: Option<PathBuf>,
    /// Play without sound.
    #[arg(long)]
    no_audio: bool,
    /// Memory for decoded frames kept for instant steps back and forth: 1GiB by default;
    /// takes KiB, MiB, GiB (or K, M, G), KB, MB, GB, or bytes.
    #[arg(long, value_parser = parse_byte_size, default_value = "1GiB")]
    cache_size: usize,
    /// Playback speed to start at, 0.015625 to 64 (as mpv's --speed).
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    speed: f64,
    /// The sound output to play on, by its ALSA name (`default`, `pulse`, `hw:CARD=...`) or a
    /// part of it that names one; the log (RUST_LOG=info) says which was chosen.
    #[arg(long)]
    audio_device: Option<String>,
    /// Decoding on the GPU's video decoder (NVDEC, VA-API), for 8- and 10-bit 4:2:0 video: `auto` above
    /// 1080p, `yes` at any size, `nvdec` or `vaapi` to pick one, `no` for software only. The
    /// pictures are the same either way.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    hwdec: Hwdec,
    #[command(flatten)]
    compare: CompareArgs,
    #[command(flatten)]
    marks: MarkArgs,
    #[command(flatten)]
    graticule: GraticuleArgs,
}

/// Comparing two files: in the window (`histoplay A --compare B`) and in `render`.
#[derive(clap::Args, Clone, Debug)]
struct CompareArgs {
    /// Compare with this file, the one judged (the file played or rendered is the reference):
    /// wipe, side by side, difference and flicker; in the window, both histograms and the PSNR
    /// and SSIM of each pair.
    #[arg(long, value_name = "JUDGED")]
    compare: Option<PathBuf>,
    /// How the comparison shows the two (in the window, keys C, B, k and K change it).
    #[arg(long, value_enum, default_value_t = CompareMode::Wipe, requires = "compare")]
    compare_mode: CompareMode,
    /// Where the wipe's line is, as a share of the width from the left (in the window, a
    /// left-drag on the picture moves it).
    #[arg(long, default_value_t = 0.5, requires = "compare", value_parser = parse_share)]
    split: f64,
    /// The difference's gain, 1 to 64.
    #[arg(long, default_value_t = 8, requires = "compare", value_parser = clap::value_parser!(u32).range(1..=64))]
    gain: u32,
    /// Pair frame K with the judged file's frame K+N (aligned by time: N of its frames later;
    /// in the window, Ctrl+, and Ctrl+. change it).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, requires = "compare")]
    offset: i64,
    /// Pair the frames by number, or by time (the judged file's latest frame at each frame's
    /// time, for files of different frame rates, as `compare --compare-by time`).
    #[arg(long, value_enum, default_value_t = AlignBy::Frame, requires = "compare")]
    compare_by: AlignBy,
}

impl CompareArgs {
    fn options(&self) -> Option<histoplay::compare::CompareOptions> {
        Some(histoplay::compare::CompareOptions {
            path: self.compare.clone()?,
            by: self.compare_by,
            offset: self.offset,
            mode: self.compare_mode,
            split: self.split,
            gain: self.gain,
        })
    }
}

/// The picture adjustments, as options: the player starts with them, `hist` and `render` apply
/// them as the player does (so a script can reproduce what the window shows).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
struct AdjustArgs {
    /// Contrast, -100 to 100 (as mpv's; keys 1 and 2).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    contrast: i32,
    /// Brightness, -100 to 100 (keys 3 and 4).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    brightness: i32,
    /// Gamma, -100 to 100 (keys 5 and 6).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    gamma: i32,
    /// Saturation, -100 (grey) to 100 (keys 7 and 8).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-100..=100))]
    saturation: i32,
    /// Stretch each channel so that 0.1% of the pixels clip at each end (key a).
    #[arg(long, conflicts_with = "equalize")]
    auto_levels: bool,
    /// Histogram equalisation of the luminance (key n).
    #[arg(long)]
    equalize: bool,
}

impl AdjustArgs {
    fn adjustments(self) -> Adjustments {
        Adjustments {
            contrast: self.contrast,
            brightness: self.brightness,
            gamma: self.gamma,
            saturation: self.saturation,
            auto: if self.auto_levels {
                AutoMode::Levels
            } else if self.equalize {
                AutoMode::Equalize
            } else {
                AutoMode::Off
            },
        }
    }
}

/// Marks on the picture, as options: the player starts with them, `render` draws them as the
/// player does.
#[derive(clap::Args, Clone, Debug)]
struct MarkArgs {
    /// Marks drawn on the picture, comma-separated: false-colour, zebra, peaking, gamut, range
    /// (keys Y, X, U, D, N).
    #[arg(long, value_delimiter = ',', value_parser = parse_mark)]
    overlay: Vec<Mark>,
    /// Zebras over luma at or above this percent of the range (keys Alt+x, Alt+X).
    #[arg(long, default_value_t = histoplay::marks::DEFAULT_ZEBRA, value_parser = parse_percent)]
    zebra: f32,
    /// A second, lower zebra level (e.g. 70), striped the other way.
    #[arg(long, value_parser = parse_percent)]
    zebra_low: Option<f32>,
    /// Focus peaking marks edges as steep as a step of this percent of the range (lower marks
    /// more; keys Alt+u, Alt+U).
    #[arg(long, default_value_t = histoplay::marks::DEFAULT_PEAKING, value_parser = parse_peaking)]
    peaking: f32,
    /// A false-colour scale file (bands in percent or nits; see the README) instead of the
    /// built-in one.
    #[arg(long)]
    false_colour_scale: Option<PathBuf>,
}

impl MarkArgs {
    fn settings(&self) -> Result<MarkSettings> {
        let scale = match &self.false_colour_scale {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the false-colour scale '{}'", path.display()))?;
                Some(FalseColourScale::parse(&text).with_context(|| format!("'{}'", path.display()))?)
            }
            None => None,
        };
        Ok(MarkSettings {
            shown: self
                .overlay
                .iter()
                .fold(MarkSet::default(), |set, &m| set.with(m, true)),
            zebra: self.zebra,
            zebra_low: self.zebra_low,
            peaking: self.peaking,
            scale,
        })
    }
}

/// The waveform's and parade's graticule, as options: the player starts with it, `render`
/// draws it.
#[derive(clap::Args, Clone, Debug)]
struct GraticuleArgs {
    /// The waveform's and parade's graticule in percent, code values, or nits (PQ and HLG; key
    /// M).
    #[arg(long, value_enum, default_value_t = Scale::Percent)]
    waveform_scale: Scale,
    /// Lines in amber on the waveform and parade at these levels: code values (16,235),
    /// percent (5%,95%) or nits (1000nits), comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_level)]
    graticule: Vec<Level>,
}

fn parse_level(text: &str) -> Result<Level, String> {
    Level::parse(text)
        .ok_or_else(|| format!("'{text}' is not a level: a code value (235), a percent (95%) or nits (1000nits)"))
}

fn parse_zoom(text: &str) -> Result<u32, String> {
    match text.trim_start_matches(['x', '×']).parse::<u32>() {
        Ok(z) if histoplay::scope::draw::VECTORSCOPE_ZOOMS.contains(&z) => Ok(z),
        _ => Err(format!("'{text}' is not a magnification: 1, 2 or 4")),
    }
}

fn parse_mark(text: &str) -> Result<Mark, String> {
    Mark::parse(text).ok_or_else(|| {
        let names: Vec<&str> = Mark::ALL.iter().map(|m| m.name()).collect();
        format!("'{text}' is not one of {}", names.join(", "))
    })
}

fn parse_percent(text: &str) -> Result<f32, String> {
    match text.trim_end_matches('%').parse::<f32>() {
        Ok(v) if (0.0..=110.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a percent from 0 to 110")),
    }
}

fn parse_peaking(text: &str) -> Result<f32, String> {
    match text.trim_end_matches('%').parse::<f32>() {
        Ok(v) if (histoplay::marks::PEAKING_RANGE).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a peaking step from 1 to 50 (percent)")),
    }
}

/// The player's keys, in `--help` and the manual page (the README's tables have them all).
const KEYS_HELP: &str = "\
Keys (mpv's defaults wherever histoplay has the function; more in the README):
  Space, p        pause / play             . ,         step a frame forward / back
  Left Right      seek -/+ 5 s, exactly    Up Down     seek +/- 60 s
  [ ] { }         speed /1.1 *1.1 /2 *2    Backspace   speed 1
  l  L            A-B loop, loop the file  < > Enter   previous / next file
  1-8             contrast, brightness, gamma, saturation -/+
  9 0  m          volume -/+, mute         i I         stats (a few seconds / on and off)
  s               screenshot               f  q        fullscreen, quit
histoplay's own:
  h  H            histograms, scopes       M  Alt+z    graticule scale, vectorscope zoom
  y  c  Tab       log heights, cover/contain, histogram timeline
  right-drag      region of interest       Ctrl+r      whole frame again
  a  n            auto-levels, equalisation
  C B k K         comparing: mode, flicker, difference gain
  Y X U D N       false colour, zebras, peaking, gamut, broadcast range

Key bindings can be changed in ~/.config/histoplay/input.conf (mpv's syntax).
Opening histoplay again while a window is open starts a second window, as mpv does.";

#[derive(Subcommand)]
enum Command {
    /// Write the manual pages or a shell's completions, from these very options (for
    /// packagers: scripts/package runs it).
    #[command(hide = true)]
    Generate {
        #[command(subcommand)]
        what: Generated,
    },
    /// Print the R, G, B and luminance histograms of a picture or of video frames as JSON Lines
    /// (or CSV), one line per frame.
    Hist {
        input: PathBuf,
        /// The frame to count, in presentation order (a still image is frame 0).
        #[arg(long, default_value_t = 0, conflicts_with = "frames")]
        frame: u64,
        /// A range of frames: A..B (B excluded), A..=B, A.. (to the end).
        #[arg(long, value_parser = FrameRange::parse)]
        frames: Option<FrameRange>,
        /// Number of bins: a power of two from 16 to 1024.
        #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
        bins: u32,
        /// Count on the CPU (the reference implementation) instead of the GPU.
        #[arg(long)]
        cpu: bool,
        /// CSV instead of JSON Lines.
        #[arg(long)]
        csv: bool,
        /// Count only this rectangle of each frame: X,Y,W,H in frame pixels (y down).
        #[arg(long, value_parser = parse_region)]
        region: Option<Region>,
        #[command(flatten)]
        adjust: AdjustArgs,
    },
    /// Print a scope of a picture or of video frames as JSON Lines, one line per frame: the
    /// waveform (luminance bins per column), the RGB parade, the vectorscope (chroma) or the
    /// CIE 1931 xy chromaticity diagram (in linear light, from the source's transfer and
    /// primaries).
    Scope {
        input: PathBuf,
        #[arg(long, value_enum, default_value_t = ScopeKind::Waveform)]
        kind: ScopeKind,
        /// The frame to count, in presentation order (a still image is frame 0).
        #[arg(long, default_value_t = 0, conflicts_with = "frames")]
        frame: u64,
        /// A range of frames: A..B (B excluded), A..=B, A.. (to the end).
        #[arg(long, value_parser = FrameRange::parse)]
        frames: Option<FrameRange>,
        /// Columns of the waveform and parade (column c holds the pixels with x·C/W = c).
        #[arg(long, default_value_t = scope::DEFAULT_COLUMNS, value_parser = parse_columns)]
        columns: u32,
        /// Bins per column: a power of two from 16 to 1024.
        #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
        bins: u32,
        /// Cells a side of the CIE diagram (`--kind cie`), 1 to 1024: cell (i, j) holds the
        /// pixels with i = ⌊x·N⌋, j = ⌊y·N⌋ [default: 256].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        size: Option<u32>,
        /// Count only this rectangle of each frame: X,Y,W,H in frame pixels (y down).
        #[arg(long, value_parser = parse_region)]
        region: Option<Region>,
        /// Count on the CPU (the reference implementation) instead of the GPU.
        #[arg(long)]
        cpu: bool,
        #[command(flatten)]
        adjust: AdjustArgs,
    },
    /// QC statistics of every frame, as FFmpeg's signalstats filter gives them with
    /// stat=tout+vrep+brng (the values QCTools reports show): Y, U, V and saturation minimum,
    /// 10% and 90% points, average and maximum; hue median and average; differences from the
    /// previous frame; temporal outliers, repeated lines and pixels outside broadcast range. One
    /// JSON line (or CSV row) per frame, at the source's depth.
    Report {
        /// A video; or several, or directories (searched for videos): a batch, with a report
        /// written beside each file (as --format, QCTools by default) and a summary table.
        #[arg(required = true, value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// A range of frames: A..B (B excluded), A..=B, A.. (to the end) [default: every frame].
        #[arg(long, value_parser = FrameRange::parse)]
        frames: Option<FrameRange>,
        /// CSV instead of JSON Lines, values printed as ffprobe prints them (as --format csv).
        #[arg(long, conflicts_with = "format")]
        csv: bool,
        /// json (JSON Lines on stdout), csv, or qctools: a QCTools report, gzipped ffprobe XML,
        /// written to --output (default INPUT.qctools.xml.gz).
        #[arg(long, value_enum)]
        format: Option<ReportOutput>,
        /// Where --format qctools writes the report.
        #[arg(short, long, requires = "format")]
        output: Option<PathBuf>,
        /// Limits, e.g. 'YMAX>235,BRNG>0.01,SATMAX>=118.2' (>, >=, <, <=), and QCTools
        /// broadcast profiles by qct-parse's names (default or broadcast, highTolerance,
        /// midTolerance, lowTolerance; levels at the file's depth): each run of frames beyond
        /// one is listed on stderr (frames, times, worst value), and the exit status is 1 when
        /// there is any.
        #[arg(long, value_parser = histoplay::cli::qc_limits::Limits::parse)]
        fail_on: Option<histoplay::cli::qc_limits::Limits>,
        /// Count on the CPU (the reference implementation) instead of the GPU; the output is
        /// identical.
        #[arg(long)]
        cpu: bool,
        /// A batch: leave out the files whose report is already there (resuming a stopped one).
        #[arg(long)]
        skip_existing: bool,
        /// A batch: files reported at once [default: a quarter of the cores, 1 to 8].
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
        jobs: Option<u16>,
    },
    /// Measure each frame of JUDGED against the frame of REFERENCE it lines up with: MSE, PSNR
    /// and SSIM per component (Y, U, V) and their averages, as FFmpeg's psnr and ssim filters
    /// compute them, one JSON line (or CSV row) per frame.
    Compare {
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
    },
    /// Render the histogram timeline of a video to a PNG: the luminance histogram of every frame,
    /// x = time (column x holds the frames n with n·W/frames = x), y = luminance (0 at the
    /// bottom), brightness = share of the column's pixels; red and blue marks where highlights
    /// and shadows clip.
    Timeline {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// The strip's size, WxH.
        #[arg(long, value_parser = parse_size, default_value = "1024x128")]
        size: (u32, u32),
    },
    /// Render a picture, or a frame of a video, with its histogram overlay to a PNG.
    Render {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// For a video: the frame to render, in presentation order.
        #[arg(long, default_value_t = 0)]
        frame: u64,
        /// Output size, WxH (default: the picture's own size).
        #[arg(long, value_parser = parse_size)]
        size: Option<(u32, u32)>,
        #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
        bins: u32,
        /// Show the whole picture (letterboxed) instead of filling the output.
        #[arg(long)]
        contain: bool,
        /// Log-scaled histogram heights.
        #[arg(long)]
        log: bool,
        /// Also draw a scope, as the player shows it.
        #[arg(long, value_enum)]
        scope: Option<ScopeKind>,
        /// Count only this rectangle of the frame: X,Y,W,H in frame pixels (y down).
        #[arg(long, value_parser = parse_region)]
        region: Option<Region>,
        #[command(flatten)]
        adjust: AdjustArgs,
        #[command(flatten)]
        marks: MarkArgs,
        #[command(flatten)]
        graticule: GraticuleArgs,
        /// The vectorscope magnified 2 or 4 times around its centre (key Alt+z).
        #[arg(long, default_value_t = 1, value_parser = parse_zoom)]
        vectorscope_zoom: u32,
        /// With --compare JUDGED, the two as --compare-mode shows them, with the histograms
        /// of what is shown.
        #[command(flatten)]
        compare: CompareArgs,
    },
    /// Time every histogram variant of the articles and histoplay's own on this GPU.
    Bench {
        /// A picture to count (default: the built-in kitten at --size).
        input: Option<PathBuf>,
        /// Size of the built-in test picture, WxH.
        #[arg(long, value_parser = parse_size, default_value = "3840x2160", conflicts_with = "input")]
        size: (u32, u32),
        #[arg(long, default_value_t = 100)]
        iters: usize,
        #[arg(long, default_value_t = DEFAULT_BINS, value_parser = parse_bins)]
        bins: u32,
        /// Also time the production pipeline with these engine shapes:
        /// WORKGROUP/LOADS_PER_INVOCATION/REPLICAS/MERGE, where MERGE is `atomic` (one
        /// dispatch) or the reduce pass's fan-in (three passes), e.g. 512/8/1/atomic or
        /// 256/8/2/1024.
        #[arg(long, value_parser = parse_engine)]
        engine: Vec<EngineConfig>,
    },
    /// Time decode → upload → convert → histogram → render of a video against decode alone, then
    /// exact seeks, back-steps and memory.
    BenchPipeline {
        input: PathBuf,
        /// Random exact seeks to time.
        #[arg(long, default_value_t = 100)]
        seeks: usize,
        /// Consecutive back-steps to time, from the last frame of the file's longest GOP.
        #[arg(long, default_value_t = 60)]
        backsteps: usize,
        /// The decoder's frame cache, as the player's --cache-size.
        #[arg(long, value_parser = parse_byte_size, default_value = "1GiB")]
        cache_size: usize,
        /// Also time opening stream copies of the file (MKV and MP4) looped to about this many
        /// seconds, e.g. 7200 for two hours.
        #[arg(long)]
        long: Option<f64>,
        /// Where the long copies are written (default: the temporary directory).
        #[arg(long)]
        long_dir: Option<PathBuf>,
        /// Also print every seek and back-step timed, one per line on stderr.
        #[arg(long)]
        samples: bool,
        /// Time `histoplay compare INPUT FILE` instead: each file decoded alone, the comparison,
        /// and FFmpeg's psnr and ssim filters on the same pair where `ffmpeg` is on the PATH.
        #[arg(long)]
        compare: Option<PathBuf>,
        /// Draw these marks on the picture throughout (as --overlay in the player).
        #[arg(long, value_delimiter = ',', value_parser = parse_mark, conflicts_with = "compare")]
        overlay: Vec<Mark>,
    },
    /// Play a video in a window at its own rate and report frame pacing and input latency
    /// (headless machines: run it under Xvfb, e.g. `xvfb-run histoplay bench-play FILE`).
    BenchPlay {
        input: PathBuf,
        /// Seconds of playback to time, before the injected commands.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
    },
    /// Play a clip that beeps and flashes white at every whole second, record the PulseAudio
    /// sink's monitor with parec, and report the beeps' spacing and pitch and the sound's offset
    /// from the picture (needs ffmpeg, parec, a PulseAudio server whose default sink the player
    /// plays on, and a display: see `src/bench_av.rs` for a headless setup).
    BenchAv {
        /// A clip made as bench-av makes one (default: made with the ffmpeg CLI).
        #[arg(long)]
        clip: Option<PathBuf>,
        /// Media seconds to play and measure.
        #[arg(long, default_value_t = 60)]
        seconds: u32,
        /// The player's playback speed.
        #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
        speed: f64,
        /// The PulseAudio source to record: the monitor of the sink the player plays on.
        #[arg(long, default_value = "@DEFAULT_MONITOR@")]
        monitor: String,
        /// Keep the clip, frame log, recording and the player's log, and say where.
        #[arg(long)]
        keep: bool,
    },
    /// Make a benchmark clip with FFmpeg's libraries (for machines without the ffmpeg CLI): the
    /// video and its sound copied --loops times back to back, or re-encoded with libx264 at
    /// --size, --fps, --gop for --frames frames. The container follows OUTPUT's extension.
    #[command(hide = true)]
    MakeClip {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Copies of the input back to back, without re-encoding.
        #[arg(long, conflicts_with = "size")]
        loops: Option<u32>,
        /// Re-encode at this size, WxH.
        #[arg(long, value_parser = parse_size, requires_all = ["fps", "gop", "frames"])]
        size: Option<(u32, u32)>,
        /// Frames a second of the re-encoded clip (input frames are repeated or dropped).
        #[arg(long, requires = "size")]
        fps: Option<u32>,
        /// At most this many frames between keyframes.
        #[arg(long, requires = "size")]
        gop: Option<u32>,
        /// Frames to encode (the input loops if it is shorter).
        #[arg(long, requires = "size")]
        frames: Option<u64>,
        #[arg(long, default_value = "veryfast", requires = "size")]
        preset: String,
        #[arg(long, default_value_t = 23, requires = "size")]
        crf: u32,
        /// h264 (8-bit), or hevc10-pq: HEVC Main10 tagged HDR10 (the same picture in 10 bits).
        #[arg(long, value_enum, default_value_t = ClipCodecArg::H264, requires = "size")]
        codec: ClipCodecArg,
    },
}

/// make-clip's codecs.
/// What `report` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ReportOutput {
    Json,
    Csv,
    Qctools,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ClipCodecArg {
    H264,
    #[value(name = "hevc10-pq")]
    Hevc10Pq,
}

fn parse_engine(s: &str) -> Result<EngineConfig, String> {
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

fn parse_bins(s: &str) -> Result<u32, String> {
    let n: u32 = s.parse().map_err(|_| format!("'{s}' is not a number"))?;
    histogram::validate_bins(n).map_err(|e| e.to_string())
}

fn parse_region(s: &str) -> Result<Region, String> {
    Region::parse(s).map_err(|e| e.to_string())
}

fn parse_columns(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=scope::MAX_COLUMNS).contains(&n) => Ok(n),
        _ => Err(format!(
            "the columns must be a number from 1 to {}, not {s}",
            scope::MAX_COLUMNS
        )),
    }
}

fn parse_speed(s: &str) -> Result<f64, String> {
    let speed: f64 = s.parse().map_err(|_| format!("'{s}' is not a speed like 1.5"))?;
    if (histoplay::clock::MIN_SPEED..=histoplay::clock::MAX_SPEED).contains(&speed) {
        Ok(speed)
    } else {
        Err(format!("the speed must be from 1/64 to 64, not {s}"))
    }
}

/// `1GiB`, `512M`, `300MB`, `0`: a memory size in bytes (binary units unless spelt KB/MB/GB).
fn parse_byte_size(s: &str) -> Result<usize, String> {
    let bad = || format!("'{s}' is not a memory size like 1GiB, 512MiB or 300MB");
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        _ => return Err(bad()),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 || bytes > usize::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as usize)
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not a size like 1280x720"))?;
    let parse = |v: &str| v.trim().parse::<u32>().ok().filter(|&n| (1..=65536).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("'{s}' is not a size like 1280x720")),
    }
}

fn main() -> ExitCode {
    // Before any thread starts.
    histoplay::video::memory::tune_allocator();
    // Mesa's device-select Vulkan layer prints "error: XDG_RUNTIME_DIR ..." on headless machines;
    // histoplay picks its adapter itself, so the layer has nothing to do.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    // The Vulkan loader's and EGL's own complaints arrive through wgpu_hal as errors while
    // adapters are probed; histoplay reports a missing adapter itself, in one line.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return command_line_error(e),
    };
    if cli.version {
        match cli.verbose {
            true => print!("{}", histoplay::version::verbose()),
            false => println!("histoplay {}", histoplay::version::VERSION),
        }
        return ExitCode::SUCCESS;
    }
    let default_filter = match cli.verbose {
        true => "info,wgpu_hal::vulkan::instance=off,wgpu_hal::gles=off",
        false => "warn,wgpu_hal::vulkan::instance=off,wgpu_hal::gles=off",
    };
    let logger = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default_filter)).build();
    let max_level = logger.filter();
    if log::set_boxed_logger(Box::new(DemotedLogger(logger))).is_ok() {
        log::set_max_level(max_level);
    }
    hardware::set_preference(cli.hwdec);
    let result = match cli.command {
        Some(command) => run(command),
        None => (|| {
            let marks = cli.marks.settings()?;
            let (bindings, conf_warnings) = input_bindings(cli.input_conf.as_deref())?;
            // Before the player starts any thread, so that none of them dies of the signals.
            let signals = histoplay::player::signals::QuitSignals::install().map(std::sync::Arc::new);
            play(
                cli.files,
                PlayerOptions {
                    frame_log: cli.frame_log,
                    bench_seconds: None,
                    sound: !cli.no_audio,
                    cache_bytes: cli.cache_size,
                    speed: cli.speed,
                    audio_device: cli.audio_device,
                    bindings,
                    conf_warnings,
                    loop_playlist: cli.loop_playlist,
                    loop_file: cli.loop_file,
                    adjustments: cli.adjust.adjustments(),
                    signals,
                    compare: cli.compare.options(),
                    marks,
                    graticule: (cli.graticule.waveform_scale, cli.graticule.graticule.clone()),
                },
            )
        })(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Output piped into `head` and the like: the reader has all it wanted.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Window-system libraries whose errors and warnings are about the desktop, not the video:
/// sctk-adwaita asks the XDG desktop portal for the colour scheme of its title bar and logs an
/// error wherever no portal answers (a bare compositor, a kiosk), though the window is fine.
const DEMOTED_TARGETS: &[&str] = &["sctk_adwaita"];

/// env_logger with `DEMOTED_TARGETS`' records taken down to debug level.
struct DemotedLogger(env_logger::Logger);

impl DemotedLogger {
    fn demoted(metadata: &log::Metadata) -> bool {
        metadata.level() < log::Level::Debug && DEMOTED_TARGETS.iter().any(|t| metadata.target().starts_with(t))
    }
}

impl log::Log for DemotedLogger {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        if Self::demoted(metadata) {
            let debug = log::Metadata::builder()
                .level(log::Level::Debug)
                .target(metadata.target())
                .build();
            return self.0.enabled(&debug);
        }
        self.0.enabled(metadata)
    }

    fn log(&self, record: &log::Record) {
        if !Self::demoted(record.metadata()) {
            return self.0.log(record);
        }
        self.0.log(
            &log::Record::builder()
                .args(*record.args())
                .level(log::Level::Debug)
                .target(record.target())
                .module_path(record.module_path())
                .file(record.file())
                .line(record.line())
                .build(),
        );
    }

    fn flush(&self) {
        self.0.flush();
    }
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `histoplay [FILE|DIR]...`: the player window.
fn play(mut files: Vec<PathBuf>, options: PlayerOptions) -> Result<()> {
    if files.is_empty() {
        files.push(default_video());
    }
    player::play(&files, options)?;
    Ok(())
}

/// mpv's default bindings with the viewer's input.conf applied: `--input-conf FILE` (which must
/// exist), else `$XDG_CONFIG_HOME/histoplay/input.conf` or `~/.config/histoplay/input.conf`
/// where there is one. Lines that are not understood are warnings (on stderr, and in the OSD).
fn input_bindings(explicit: Option<&Path>) -> Result<(Bindings, Vec<String>)> {
    let (path, text) = match explicit {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the input.conf '{}'", path.display()))?;
            (path.to_path_buf(), text)
        }
        None => {
            let config = std::env::var_os("XDG_CONFIG_HOME")
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")));
            let Some(path) = config.map(|dir| dir.join("histoplay/input.conf")) else {
                return Ok((Bindings::default(), Vec::new()));
            };
            match std::fs::read_to_string(&path) {
                Ok(text) => (path, text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Bindings::default(), Vec::new())),
                Err(e) => {
                    let warning = format!("cannot read '{}': {e}", path.display());
                    eprintln!("warning: {warning}");
                    return Ok((Bindings::default(), vec![warning]));
                }
            }
        }
    };
    let (bindings, warnings) = Bindings::default().with_conf(&text, &path.display().to_string());
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    Ok((bindings, warnings))
}

/// The bundled sample: media/sample-540p.mp4 of the checkout (under the current directory, the
/// crate's own directory, or above the executable, target/<profile>/histoplay), or the
/// installed one (PREFIX/share/histoplay/ beside PREFIX/bin/histoplay).
fn default_video() -> PathBuf {
    let relative = Path::new("media/sample-540p.mp4");
    let exe = std::env::current_exe().ok();
    let exe_repo = exe
        .as_ref()
        .and_then(|exe| exe.ancestors().nth(3).map(|repo| repo.join(relative)));
    let installed = exe.as_ref().and_then(|exe| {
        exe.ancestors()
            .nth(2)
            .map(|prefix| prefix.join("share/histoplay/sample-540p.mp4"))
    });
    let candidates = [
        Some(relative.to_path_buf()),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)),
        exe_repo,
        installed,
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .unwrap_or_else(|| relative.to_path_buf())
}

/// Help prints as clap prints it (`--version` is histoplay's own flag); a mistake on the command
/// line is one `error:` line, clap's hints (possible values, usage) folded into it.
fn command_line_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.to_string();
    let mut line = String::new();
    for part in text
        .lines()
        .map(str::trim)
        .filter(|part| !part.is_empty() && !part.starts_with("For more information"))
    {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    eprintln!("{line}");
    ExitCode::from(2)
}

/// What `histoplay generate` writes.
#[derive(Subcommand)]
enum Generated {
    /// histoplay.1, and histoplay-SUBCOMMAND.1 for each subcommand, into DIR.
    Man { dir: PathBuf },
    /// SHELL's completion script, on stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Generate { what } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            match what {
                Generated::Man { dir } => {
                    std::fs::create_dir_all(&dir).with_context(|| format!("'{}' can't be made", dir.display()))?;
                    clap_mangen::generate_to(command, &dir)
                        .with_context(|| format!("the manual pages can't be written in '{}'", dir.display()))?;
                }
                Generated::Completions { shell } => {
                    clap_complete::generate(shell, &mut command, "histoplay", &mut std::io::stdout());
                }
            }
            Ok(())
        }
        Command::BenchPlay { input, seconds } => {
            if !(seconds > 0.0 && seconds.is_finite()) {
                bail!("--seconds must be a positive number of seconds");
            }
            let options = PlayerOptions {
                frame_log: None,
                bench_seconds: Some(seconds),
                sound: false,
                cache_bytes: histoplay::video::decoder::DEFAULT_CACHE_BYTES,
                speed: 1.0,
                audio_device: None,
                ..PlayerOptions::default()
            };
            if let Some(report) = player::play(&[input], options)? {
                print!("{report}");
            }
            Ok(())
        }
        Command::Hist {
            input,
            frame,
            frames,
            bins,
            cpu,
            csv,
            region,
            adjust,
        } => {
            let range = frames.unwrap_or(FrameRange::single(frame));
            let job = HistJob {
                bins,
                region,
                adjustments: adjust.adjustments(),
            };
            if still::is_still_image(&input) {
                hist(&input, range, job, cpu, csv)
            } else {
                let source = VideoSource::open(&input)?;
                let output = if csv { Output::Csv } else { Output::JsonLines };
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                clip::hist_video(source, range, job, cpu, output, &mut out)?;
                Ok(())
            }
        }
        Command::Compare {
            reference,
            judged,
            frames,
            offset,
            compare_by,
            csv,
            cpu,
        } => {
            let a = VideoSource::open(&reference)?;
            let b = VideoSource::open(&judged)?;
            let job = CompareJob {
                range: frames.unwrap_or(FrameRange { start: 0, end: None }),
                offset,
                by: compare_by,
                csv,
                cpu,
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            compare_cli::compare(a, b, job, &mut out)?;
            Ok(())
        }
        Command::Report {
            inputs,
            frames,
            csv,
            format,
            output,
            fail_on,
            cpu,
            skip_existing,
            jobs,
        } => {
            if inputs.len() > 1 || inputs[0].is_dir() {
                use histoplay::cli::qc_batch::{self, BatchFormat};
                if frames.is_some() || output.is_some() {
                    bail!("a batch reports whole files beside them: --frames and --output are for one file");
                }
                let format = match (format, csv) {
                    (Some(ReportOutput::Csv), _) | (None, true) => BatchFormat::Csv,
                    (Some(ReportOutput::Json), _) => BatchFormat::JsonLines,
                    _ => BatchFormat::Qctools,
                };
                let files = qc_batch::expand(&inputs);
                if files.is_empty() {
                    bail!(
                        "no video files in {}",
                        inputs
                            .iter()
                            .map(|p| format!("'{}'", p.display()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
                let limits = fail_on.unwrap_or_default();
                let jobs = jobs.map_or_else(qc_batch::default_jobs, usize::from);
                let outcomes = qc_batch::report_batch(&files, format, &limits, cpu, skip_existing, jobs);
                let mut out = std::io::stdout().lock();
                qc_batch::write_summary(&mut out, &files, &outcomes)?;
                let bad = outcomes.iter().any(|o| match o {
                    qc_batch::Outcome::Failed(_) => true,
                    qc_batch::Outcome::Done { runs, .. } => !runs.is_empty(),
                    qc_batch::Outcome::Skipped => false,
                });
                drop(out);
                if bad {
                    std::process::exit(1);
                }
                return Ok(());
            }
            let input = &inputs[0];
            if skip_existing || jobs.is_some() {
                bail!("--skip-existing and --jobs are for a batch (several files, or a directory)");
            }
            let range = frames.unwrap_or(FrameRange { start: 0, end: None });
            let gpu = histoplay::cli::qc::GpuOpening::start(!cpu);
            let source = VideoSource::open(input)?;
            let gpu = gpu.finish();
            use histoplay::cli::qc::ReportFormat;
            let output_given = output.is_some();
            let format = match (format, csv) {
                (Some(ReportOutput::Csv), _) | (None, true) => ReportFormat::Csv,
                (Some(ReportOutput::Qctools), _) => {
                    ReportFormat::Qctools(output.unwrap_or_else(|| histoplay::cli::qc_xml::default_path(input)))
                }
                (Some(ReportOutput::Json), _) | (None, false) => ReportFormat::JsonLines,
            };
            if output_given && !matches!(format, ReportFormat::Qctools(_)) {
                bail!("--output is where --format qctools writes; the other formats go to stdout");
            }
            let options = histoplay::cli::qc::ReportOptions {
                limits: fail_on.unwrap_or_default(),
                cpu,
                gpu: gpu.as_ref(),
                ..Default::default()
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let (_, runs) = histoplay::cli::qc::report_video(source, range, format, options, &mut out)?;
            drop(out);
            if !runs.is_empty() {
                for run in &runs {
                    eprintln!("{run}");
                }
                eprintln!("{} run(s) of frames beyond the limits", runs.len());
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Scope {
            input,
            kind,
            frame,
            frames,
            columns,
            bins,
            size,
            region,
            cpu,
            adjust,
        } => {
            let range = frames.unwrap_or(FrameRange::single(frame));
            if size.is_some() && kind != ScopeKind::Cie {
                bail!(
                    "--size is the CIE diagram's (--kind cie); the {} has --columns",
                    kind.name()
                );
            }
            let job = ScopeJob {
                kind,
                columns: if kind == ScopeKind::Cie {
                    size.unwrap_or(scope::cie::DEFAULT_SIZE)
                } else {
                    columns
                },
                bins,
                region,
                adjustments: adjust.adjustments(),
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if still::is_still_image(&input) {
                let image = still::load(&input)?;
                if !range.contains(0) {
                    bail!("'{}' is a still image: it has only frame 0", input.display());
                }
                let counts = scope_cli::scope_still(&image, &job, cpu)?;
                scope_cli::write_json(&mut out, &scope_cli::still_report(&image, &job, &counts))?;
                out.flush()?;
            } else {
                let source = VideoSource::open(&input)?;
                scope_cli::scope_video(source, range, job, cpu, &mut out)?;
            }
            Ok(())
        }
        Command::Render {
            input,
            output,
            frame,
            size,
            bins,
            contain,
            log,
            scope,
            region,
            adjust,
            marks,
            compare,
            vectorscope_zoom,
            graticule,
        } => {
            let options = ViewOptions {
                fit: if contain { Fit::Contain } else { Fit::Cover },
                quads: Quads::Both,
                log_scale: log,
                scope,
                timeline: false,
                vectorscope_zoom,
            };
            let counting = offscreen::Counting {
                bins,
                scope,
                region,
                adjustments: adjust.adjustments(),
                marks: marks.settings()?,
                graticule: (graticule.waveform_scale, graticule.graticule),
            };
            match compare.options() {
                Some(shown) => render_comparison(&input, &output, frame, shown, size, counting, options),
                None => render(&input, &output, frame, size, counting, options),
            }
        }
        Command::Timeline { input, output, size } => {
            let rgba = timeline::render_file(&input, size)?;
            still::save_png(&output, size.0, size.1, &rgba)
                .with_context(|| format!("cannot write '{}'", output.display()))?;
            Ok(())
        }
        Command::Bench {
            input,
            size,
            iters,
            bins,
            engine,
        } => {
            // The GPU first: a size it can't hold is refused before the picture is made.
            let ctx = GpuContext::new()?;
            let image = match input {
                Some(path) => still::load(&path)?,
                None => {
                    ctx.check_frame_size(size.0, size.1)?;
                    histoplay::kitten(size.0, size.1)
                }
            };
            bench::run(&ctx, &image, bins, iters.max(1), &engine, &mut std::io::stdout().lock())?;
            Ok(())
        }
        Command::BenchPipeline {
            input,
            seeks,
            backsteps,
            cache_size,
            long,
            long_dir,
            samples,
            compare,
            overlay,
        } => {
            if let Some(judged) = compare {
                return bench_pipeline::compare::run(&input, &judged, &mut std::io::stdout().lock());
            }
            if long.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
                bail!("--long must be a positive number of seconds");
            }
            let options = bench_pipeline::BenchOptions {
                seeks,
                backsteps,
                cache_bytes: cache_size,
                long_seconds: long,
                long_dir,
                samples,
                marks: MarkSettings {
                    shown: overlay.iter().fold(MarkSet::default(), |set, &m| set.with(m, true)),
                    zebra_low: Some(histoplay::marks::DEFAULT_ZEBRA_LOW),
                    ..MarkSettings::default()
                },
            };
            bench_pipeline::run(&input, &options, &mut std::io::stdout().lock())
        }
        Command::BenchAv {
            clip,
            seconds,
            speed,
            monitor,
            keep,
        } => {
            let options = bench_av::AvOptions {
                clip,
                seconds,
                speed,
                monitor,
                keep,
            };
            bench_av::run(&options, &mut std::io::stdout().lock())
        }
        Command::MakeClip {
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
        } => {
            let started = std::time::Instant::now();
            let written = match (size, fps, gop, frames) {
                (None, ..) => {
                    let loops = loops.unwrap_or(1);
                    let packets = bench_clips::loop_copy(&input, &output, loops)?;
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
                    };
                    let frames = bench_clips::encode_clip(&input, &output, &spec)?;
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
    }
}

fn hist(input: &Path, range: FrameRange, job: HistJob, cpu: bool, csv: bool) -> Result<()> {
    let image = still::load(input)?;
    if !range.contains(0) {
        bail!("'{}' is a still image: it has only frame 0", input.display());
    }
    let histogram = clip::hist_still(&image, job, cpu)?;
    let report = FrameReport {
        frame: 0,
        pts: 0.0,
        width: image.width,
        height: image.height,
        depth: 8,
        region: job.region,
        histogram: &histogram,
    };
    let mut out = std::io::stdout().lock();
    if csv {
        report::write_csv_header(&mut out, job.bins)?;
        report::write_csv_row(&mut out, &report)?;
    } else {
        report::write_json_line(&mut out, &report)?;
    }
    out.flush()?;
    Ok(())
}

/// `render INPUT --compare JUDGED`: frame K of the reference and its partner in the judged
/// file, as `shown` asks.
fn render_comparison(
    reference: &Path,
    output: &Path,
    frame: u64,
    shown: histoplay::compare::CompareOptions,
    size: Option<(u32, u32)>,
    counting: offscreen::Counting,
    options: ViewOptions,
) -> Result<()> {
    let mut a = VideoSource::open(reference)?;
    let mut b = VideoSource::open(&shown.path)?;
    compare_cli::match_pair(&a, &mut b)?;
    for s in [&a, &b] {
        if s.info.volume.is_hdr() {
            bail!(
                "'{}' is HDR: render --compare draws SDR video (an HDR pair would show untone-mapped)",
                s.info.path.display()
            );
        }
    }
    let format = a.info.format;
    let decoded_a = clip::decode_frame(&mut a, frame)?;
    let frame_b = match shown.by {
        AlignBy::Frame => frame.checked_add_signed(shown.offset).with_context(|| {
            format!(
                "--offset {} puts frame {frame} before the other file's first",
                shown.offset
            )
        })?,
        AlignBy::Time => {
            // The other file's latest frame by frame K's time, both counted from their first.
            let at = decoded_a.seconds - compare_cli::first_seconds(&a) + shown.offset as f64 * b.info.frame_duration;
            if at < 0.0 {
                bail!(
                    "--offset {} puts frame {frame} before the other file's first",
                    shown.offset
                );
            }
            let pts = b.info.pts_at(compare_cli::first_seconds(&b) + at);
            b.index().wait_number_at(pts).n
        }
    };
    let composite = shown.composite(format.width);
    let (out_w, out_h) = shown.mode.output_size((format.width, format.height));
    if let Some(region) = counting.region {
        region.check(out_w, out_h)?;
    }
    let decoded_b = clip::decode_frame(&mut b, frame_b)?;
    let ctx = GpuContext::new()?;
    let size = size.unwrap_or((out_w, out_h));
    let (planes_a, planes_b) = (decoded_a.planes(format.layout), decoded_b.planes(format.layout));
    // Each with its own colour (matrix, range); B's layout and size are A's after match_pair.
    let video = |source: &VideoSource, planes| offscreen::VideoFrame {
        format: source.info.format,
        volume: source.info.volume,
        frame_peak_nits: None,
        planes,
        aspect: out_w as f32 / out_h as f32,
    };
    let rgba = offscreen::render_comparison(
        &ctx,
        video(&a, &planes_a),
        video(&b, &planes_b),
        composite,
        size,
        counting,
        options,
    )?;
    still::save_png(output, size.0, size.1, &rgba).with_context(|| format!("cannot write '{}'", output.display()))?;
    Ok(())
}

/// A share of a length: a number from 0 to 1.
fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("'{text}' is not a number from 0 to 1")),
    }
}

fn render(
    input: &Path,
    output: &Path,
    frame: u64,
    size: Option<(u32, u32)>,
    counting: offscreen::Counting,
    options: ViewOptions,
) -> Result<()> {
    let (size, rgba) = if still::is_still_image(input) {
        if frame != 0 {
            bail!("'{}' is a still image: it has only frame 0", input.display());
        }
        let image = still::load(input)?;
        if let Some(region) = counting.region {
            region.check(image.width, image.height)?;
        }
        let ctx = GpuContext::new()?;
        let size = size.unwrap_or((image.width, image.height));
        let picture = GpuFrame::from_rgba(&ctx, "picture", image.width, image.height, &image.pixels)?;
        (
            size,
            offscreen::render_picture(&ctx, &picture, offscreen::PictureOf::Still, size, counting, options)?,
        )
    } else {
        let mut source = VideoSource::open(input)?;
        let format = source.info.format;
        if let Some(region) = counting.region {
            region.check(format.width, format.height)?;
        }
        let decoded = clip::decode_frame(&mut source, frame)?;
        let ctx = GpuContext::new()?;
        let size = size.unwrap_or((format.width, format.height));
        let planes = decoded.planes(format.layout);
        let frame = offscreen::VideoFrame {
            format,
            volume: source.info.volume,
            frame_peak_nits: source.info.frame_light.get(),
            planes: &planes,
            aspect: format.width as f32 / format.height as f32,
        };
        (
            size,
            offscreen::render_video_frame(&ctx, frame, size, counting, options)?,
        )
    };
    still::save_png(output, size.0, size.1, &rgba).with_context(|| format!("cannot write '{}'", output.display()))?;
    Ok(())
}
