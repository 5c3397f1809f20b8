//! SIGINT and SIGTERM taken as a request to quit: the player ends as `q` does (the window
//! closes, the sound stops and the process exits 0, whatever the decode threads are doing), and
//! a `report` batch stops cleanly. The signals are blocked in every
//! thread and taken by one thread of their own with `sigwait`, which tells the event loop; a
//! second signal while the first is being handled ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

/// How the signal thread wakes the event loop, once there is one.
type Wake = Box<dyn Fn() + Send>;

pub struct QuitSignals {
    requested: Arc<AtomicBool>,
    /// The signal that asked, once one has.
    signal: Arc<AtomicI32>,
    wake: Arc<Mutex<Option<Wake>>>,
}

impl std::fmt::Debug for QuitSignals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuitSignals")
            .field("requested", &self.requested())
            .finish()
    }
}

impl QuitSignals {
    /// Blocks SIGINT and SIGTERM in this thread, and so in every thread it starts from now on,
    /// and starts the thread that waits for them. Call it before any other thread starts: one
    /// started earlier would still take the signals, and die of them. None where signals can't
    /// be blocked (the default actions then stay).
    #[cfg(unix)]
    pub fn install() -> Option<Self> {
        // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; the calls only
        // change this thread's signal mask.
        let set = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                return None;
            }
            set
        };
        // (SIGURG wakes a thread waiting in a read from its input: none other takes it.)
        crate::video::input::hold_off_wakes();
        let signals = Self {
            requested: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicI32::new(0)),
            wake: Arc::new(Mutex::new(None)),
        };
        let (requested, wake) = (Arc::clone(&signals.requested), Arc::clone(&signals.wake));
        let taken = Arc::clone(&signals.signal);
        let spawned = std::thread::Builder::new()
            .name("histoplay signals".into())
            .spawn(move || loop {
                let mut signal = 0;
                // SAFETY: `set` holds the blocked signals; sigwait writes the one taken.
                if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
                    return;
                }
                let _ = taken.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
                if requested.swap(true, Ordering::SeqCst) {
                    // Asked twice: the first request is stuck somewhere, so don't wait for it.
                    std::process::exit(128 + signal);
                }
                log::info!("signal {signal}: quitting");
                // An input still being opened (a stream that sends nothing) gives up.
                crate::video::input::quit(signal);
                if let Some(wake) = wake.lock().ok().as_deref().and_then(Option::as_ref) {
                    wake();
                }
            });
        spawned.is_ok().then_some(signals)
    }

    #[cfg(not(unix))]
    pub fn install() -> Option<Self> {
        None
    }

    /// Calls `wake` when a signal comes from now on, and at once if one came already.
    pub fn on_signal(&self, wake: Wake) {
        if let Ok(mut slot) = self.wake.lock() {
            if self.requested.load(Ordering::SeqCst) {
                wake();
            }
            *slot = Some(wake);
        }
    }

    /// Whether a signal asked the player to quit.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    /// The signal that asked first (SIGINT, SIGTERM), if one has.
    pub fn signal(&self) -> Option<i32> {
        Some(self.signal.load(Ordering::SeqCst)).filter(|&s| s != 0)
    }

    /// A signal from now on ends `source`'s input where it is (its blocking reads give up): a
    /// headless pass over a live input, which may have no end of its own, ends whole.
    pub fn end_input(&self, source: &crate::video::source::VideoSource) {
        let interrupt = source.interrupter();
        self.on_signal(Box::new(move || interrupt.interrupt()));
    }

    /// The exit status of a process a signal stopped: 128 + the signal's number, as shells
    /// report it (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_status(&self) -> Option<i32> {
        self.signal().map(|s| 128 + s)
    }
}
