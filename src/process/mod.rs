//! The process's start and end. The log's `start:` lines (at debug level, `RUST_LOG=
//! histoplay::process=debug`) say where a command's time goes before its first frame and after
//! its last: each step of opening the file, the GPU and the passes, and of closing them, with
//! the milliseconds since the process began.
//!
//! A headless command ends without the drivers' teardown (`end`): closing a hardware decoder
//! takes NVIDIA's driver about 200 ms at 4K, and its exit handlers as long again, all after the
//! command's last output. Once a command has said it ends so (`ending_at_once`), a decoder it
//! is done with closes on a thread of its own (`close_behind`) while the command finishes, and
//! the process ends as soon as its output is out, whatever those threads are still doing: the
//! kernel frees what they held, in a process of its own that nobody waits for (`behind`).

mod behind;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static BEGAN: OnceLock<Instant> = OnceLock::new();
static AT_ONCE: AtomicBool = AtomicBool::new(false);
/// What must be whole before the process ends (`before_end`).
static BEFORE_END: Mutex<Vec<fn()>> = Mutex::new(Vec::new());

/// The process began now (called first thing in `main`).
pub fn begin() {
    BEGAN.get_or_init(Instant::now);
}

/// The status the player asked to exit with (`quit CODE`); 0 unless set.
static EXIT_STATUS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Sets the status the process exits with once the player's window has closed.
pub fn set_exit_status(status: u8) {
    EXIT_STATUS.store(status, std::sync::atomic::Ordering::Relaxed);
}

/// The status `set_exit_status` set.
pub fn exit_status() -> u8 {
    EXIT_STATUS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Logs that `step` is done, with the time since the process began.
pub fn mark(step: &str) {
    if log::log_enabled!(log::Level::Debug) {
        let ms = BEGAN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3;
        log::debug!("start: {step}: {ms:.1} ms");
    }
}

/// Logs the CPU time each family of the process's live threads has taken so far (at debug
/// level, as `mark`): where a command's time went, beside its decoder's threads.
pub fn log_threads(step: &str) {
    if log::log_enabled!(log::Level::Debug) {
        let wall = BEGAN.get_or_init(Instant::now).elapsed().as_secs_f64();
        let times = crate::threads::ThreadTimes::now().since(&crate::threads::ThreadTimes::none());
        log::debug!("threads: {step}: {}", crate::threads::describe(&times, wall));
    }
}

/// This process ends with `end`: what a command is done with may close behind it.
pub fn end_at_once() {
    AT_ONCE.store(true, Ordering::Release);
}

/// Whether the process ends with `end` (a headless command), not by returning from `main`.
pub fn ending_at_once() -> bool {
    AT_ONCE.load(Ordering::Acquire)
}

/// Runs `close` (letting go of a decoder, a GPU) on a thread of its own where the process ends
/// at once, else here.
pub fn close_behind(what: &str, close: impl FnOnce() + Send + 'static) {
    if !ending_at_once() {
        return close();
    }
    let spawned = std::thread::Builder::new().name(format!("close {what}")).spawn(close);
    if let Err(e) = spawned {
        log::debug!("closing {what} on a thread of its own: {e}");
    }
}

/// Has `finish` run before the process ends with `end`: what a thread closing behind would
/// otherwise leave unfinished (a recording's last packets and its container's trailer).
pub fn before_end(finish: fn()) {
    let mut list = BEFORE_END.lock().unwrap_or_else(|e| e.into_inner());
    if !list.contains(&finish) {
        list.push(finish);
    }
}

/// Ends the process with `code` once its output is out, without running exit handlers (the
/// drivers' teardown) or waiting for what closes behind; what `before_end` named is finished
/// first.
pub fn end(code: u8) -> ! {
    let finishing = std::mem::take(&mut *BEFORE_END.lock().unwrap_or_else(|e| e.into_inner()));
    for finish in finishing {
        finish();
    }
    mark("the command ended");
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // (`HISTOPLAY_NO_HOLDER`: the process lets go itself, for a GPU in exclusive-process
    // compute mode, which takes the next command only once the last one has let go.)
    let holder = std::env::var_os("HISTOPLAY_NO_HOLDER").is_none();
    // SAFETY: _exit ends the process; nothing after it runs (as `hold` needs). Every file
    // histoplay writes is flushed and closed by the command before it returns (buffers
    // dropped), a recording's by `before_end` (its reading thread may still hold it), stdout
    // just above.
    unsafe {
        if !holder || !behind::hold() {
            log::debug!("the process lets go of its devices itself");
        }
        libc::_exit(i32::from(code))
    }
}
