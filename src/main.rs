//! The histoplay command line: play files in a window, or run one of the headless commands.
//! Parsing and dispatch only; each command lives in its module under `cli/`.

use clap::Parser;
use histoplay::cli::{self, logging, Cli};
use std::process::ExitCode;

fn main() -> ExitCode {
    histoplay::process::begin();
    // Before any thread starts.
    histoplay::video::memory::tune_allocator();
    // Mesa's device-select Vulkan layer prints "error: XDG_RUNTIME_DIR ..." on headless machines;
    // histoplay picks its adapter itself, so the layer has nothing to do.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    // The Vulkan loader's and EGL's own complaints arrive through wgpu_hal as errors while
    // adapters are probed; histoplay reports a missing adapter itself, in one line.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => return command_line_error(e),
    };
    // An option before a command (`histoplay -v report FILE`) makes the command's name a file
    // to play: said as the mistake it is, where no such file is there.
    if let (None, Some(first)) = (&cli.command, cli.play.files.first()) {
        let name = first.to_string_lossy();
        let commands = <Cli as clap::CommandFactory>::command();
        if !first.exists() && commands.find_subcommand(name.as_ref()).is_some() {
            eprintln!("error: '{name}' is a command: give its options after it (histoplay {name} [OPTIONS] ...)");
            return ExitCode::from(2);
        }
    }
    // The player's settings files, under its command line.
    let cli = match cli.command.is_none() && !cli.version {
        true => cli::settings::apply(cli, argv),
        false => cli,
    };
    if cli.version {
        match cli.verbose {
            true => print!("{}", histoplay::version::verbose()),
            false => println!("histoplay {}", histoplay::version::VERSION),
        }
        return ExitCode::SUCCESS;
    }
    logging::init(cli.verbose);
    histoplay::video::source::hardware::set_preference(cli.play.hwdec);
    histoplay::video::input::set_options(histoplay::video::input::InputOptions {
        format: cli.input_format.clone(),
        options: cli.input_option.clone(),
        no_reconnect: cli.no_reconnect,
    });
    histoplay::video::interop::set_gpu_cache_size(cli.play.gpu_cache_size);
    // A headless command's process ends as soon as its output is out (`process::end`).
    let headless = cli.command.is_some();
    if cli.command.as_ref().is_some_and(cli::Command::closes_behind) {
        histoplay::process::end_at_once();
    }
    let result = match cli.command {
        Some(command) => cli::run(command),
        None => cli.play.run(),
    };
    // Whatever the threads still reading are doing, the recordings end whole.
    histoplay::video::record::finish_all();
    // ... and the reports they feed write their last frames.
    histoplay::cli::report::alongside::finish_all();
    let code = match result {
        Ok(()) => histoplay::process::exit_status(),
        // Output piped into `head` and the like: the reader has all it wanted.
        Err(e) if is_broken_pipe(&e) => 0,
        // A signal ended an input's open or read: quit as asked, without an error.
        Err(_) if histoplay::video::input::quitting() => {
            128 + histoplay::video::input::quit_signal().unwrap_or(0) as u8
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            1
        }
    };
    match headless {
        true => histoplay::process::end(code),
        false => ExitCode::from(code),
    }
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

/// An error and its causes on one line, as anyhow's `{:#}` writes them, less each cause the line
/// says already (an error whose message quotes its source).
fn one_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    histoplay::terminal::one_line(&line)
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
