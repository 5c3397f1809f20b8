//! The command line: the player's options, and one module per headless command with its
//! arguments and its body (`hist`, `scope`, `report`, `compare`, `render`, `timeline`,
//! `loudness`, the benchmarks). Adding a command is adding a module and a line to `Command`.

pub mod args;
pub mod bench;
pub mod compare;
pub mod generate;
pub mod hist;
pub mod logging;
pub mod loudness;
pub mod output;
pub mod play;
pub mod pse;
pub mod reference;
pub mod render;
pub mod report;
pub mod scope;
pub mod settings;
pub mod timeline;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// `histoplay [OPTIONS] [FILE|DIR]...` plays; `histoplay COMMAND` runs a command.
#[derive(Parser)]
#[command(
    name = "histoplay",
    version,
    disable_version_flag = true,
    about = "A video player with live GPU histograms over the picture",
    after_long_help = play::KEYS_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Print the version; with --verbose, FFmpeg's and the built-in libraries' too.
    #[arg(short = 'V', long)]
    pub version: bool,
    /// More detail: with --version, the libraries in use; otherwise the log at info level (as
    /// RUST_LOG=info).
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Open the inputs with this FFmpeg input format or device (v4l2, x11grab, mpegts,
    /// rawvideo, lavfi...), as ffplay's -f, instead of probing them.
    #[arg(long, global = true, value_name = "NAME")]
    pub input_format: Option<String>,
    /// An option of the input format or its protocol, KEY=VALUE (video_size=1920x1080,
    /// framerate=60, timeout=5000000...), as ffplay's -KEY VALUE; repeatable.
    #[arg(long, global = true, value_name = "KEY=VALUE", value_parser = crate::video::input::parse_option)]
    pub input_option: Vec<(String, String)>,
    /// Don't open a lost connection again (a TCP, SRT, RIST, RTMP, RTSP or HTTP input is by
    /// default, waiting 0.5 s, then twice as long each try up to 8 s): its end is the end.
    #[arg(long, global = true)]
    pub no_reconnect: bool,
    #[command(flatten)]
    pub play: play::Args,
}

#[derive(Subcommand)]
pub enum Command {
    #[command(hide = true)]
    Generate(generate::Args),
    Hist(hist::Args),
    Scope(scope::Args),
    Report(report::Args),
    Compare(compare::Args),
    Timeline(timeline::Args),
    Loudness(loudness::Args),
    Pse(pse::Args),
    Render(render::Args),
    Bench(bench::KernelArgs),
    BenchPipeline(bench::PipelineArgs),
    BenchPlay(bench::PlayArgs),
    BenchAv(bench::AvArgs),
    BenchLive(bench::LiveArgs),
    #[command(hide = true)]
    MakeClip(bench::MakeClipArgs),
}

impl Command {
    /// Whether what the command is done with may close behind it (`process::close_behind`):
    /// all but the benchmarks, which time one run after another, each on a machine left as it
    /// was found.
    pub fn closes_behind(&self) -> bool {
        !matches!(
            self,
            Command::Bench(_)
                | Command::BenchPipeline(_)
                | Command::BenchPlay(_)
                | Command::BenchAv(_)
                | Command::BenchLive(_)
        )
    }
}

/// Runs a command to its end.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Generate(args) => generate::run(args),
        Command::Hist(args) => hist::run(args),
        Command::Scope(args) => scope::run(args),
        Command::Report(args) => report::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Timeline(args) => timeline::run(args),
        Command::Loudness(args) => loudness::run(args),
        Command::Pse(args) => pse::run(args),
        Command::Render(args) => render::run(args),
        Command::Bench(args) => bench::run_kernels(args),
        Command::BenchPipeline(args) => bench::run_pipeline(args),
        Command::BenchPlay(args) => bench::run_play(args),
        Command::BenchAv(args) => bench::run_av(args),
        Command::BenchLive(args) => bench::run_live(args),
        Command::MakeClip(args) => bench::make_clip(args),
    }
}
