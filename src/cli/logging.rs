//! The log: env_logger at warn (info with `-v`), with the window system's complaints about the
//! desktop (not the video) taken down to debug.

/// Window-system libraries whose errors and warnings are about the desktop, not the video:
/// sctk-adwaita asks the XDG desktop portal for the colour scheme of its title bar and logs an
/// error wherever no portal answers (a bare compositor, a kiosk), though the window is fine.
const DEMOTED_TARGETS: &[&str] = &["sctk_adwaita"];

/// env_logger with `DEMOTED_TARGETS`' records taken down to debug level.
pub struct DemotedLogger(env_logger::Logger);

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
            // histoplay's own warnings are kept for a QC page whatever stderr shows, and each
            // said once (a file's index read again, by the player's timeline or a page's
            // pictures, finds the same losses).
            if record.level() <= log::Level::Warn && record.target().starts_with("histoplay") && !keep_said(record) {
                return;
            }
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

/// histoplay's warnings and errors as they were said, for a QC report's page (the first
/// `KEPT`), and whether more were said.
static SAID: std::sync::Mutex<(Vec<String>, bool)> = std::sync::Mutex::new((Vec::new(), false));
const KEPT: usize = 200;

/// Keeps `record`'s line; false where the same line was said before.
fn keep_said(record: &log::Record) -> bool {
    let line = record.args().to_string();
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if said.0.contains(&line) {
        return false;
    }
    if said.0.len() < KEPT {
        said.0.push(line);
    } else {
        said.1 = true;
    }
    true
}

/// histoplay's warnings and errors said so far (the first `KEPT`), and whether there were
/// more.
pub fn said() -> (Vec<String>, bool) {
    SAID.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Installs the log: `RUST_LOG` if set, else warnings as `warning: ...` lines (info with
/// `verbose`, in env_logger's form with the time and the module).
pub fn init(verbose: bool) {
    let default_filter = match verbose {
        true => "info,wgpu_hal::vulkan::instance=off,wgpu_hal::gles=off",
        false => "warn,wgpu_hal::vulkan::instance=off,wgpu_hal::gles=off",
    };
    let mut builder = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default_filter));
    if !verbose && std::env::var_os("RUST_LOG").is_none() {
        // A warning reads as the command line's own do: one line, "warning: ...".
        builder.format(|out, record| {
            use std::io::Write;
            let word = match record.level() {
                log::Level::Error => "error",
                log::Level::Warn => "warning",
                _ => "note",
            };
            writeln!(out, "{word}: {}", crate::terminal::one_line(&record.args().to_string()))
        });
    }
    let logger = builder.build();
    // Warnings reach the logger even where stderr is to show fewer: a QC page keeps them.
    let max_level = logger.filter().max(log::LevelFilter::Warn);
    if log::set_boxed_logger(Box::new(DemotedLogger(logger))).is_ok() {
        log::set_max_level(max_level);
    }
}
