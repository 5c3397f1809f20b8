//! Reads the kernel holds: a pipe or a FIFO whose writer is there but sends nothing keeps a
//! `read` waiting in the kernel, where FFmpeg's interrupt callback is never asked. A thread
//! about to read such an input says so (`Reading`); once its input is interrupted, or a quit
//! signal came, a thread of its own sends it SIGURG (caught, and doing nothing, so that the
//! `read` ends with EINTR), every 50 ms until it has left the read: FFmpeg then asks the
//! interrupt callback, which ends the read. With no such read, that thread sleeps until the
//! next interrupt.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

/// The threads in a read, and the interrupt flag of the input each reads.
static READING: Mutex<Vec<(libc::pid_t, Arc<AtomicBool>)>> = Mutex::new(Vec::new());

/// A thread reading an input, for as long as it lives (on that thread: not `Send`). SIGURG,
/// which the quit signals' thread blocks for every thread (`QuitSignals::install`), reaches
/// it meanwhile.
pub struct Reading(libc::pid_t, std::marker::PhantomData<*const ()>);

/// Lets SIGURG reach this thread (`unblock`), or holds it off.
fn let_through(unblock: bool) {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset; only this thread's mask
    // changes.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGURG);
        let how = if unblock { libc::SIG_UNBLOCK } else { libc::SIG_BLOCK };
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
}

/// Holds SIGURG off this thread and the threads it starts from now on, so that only a thread
/// in a read (`Reading`) is interrupted by one.
pub fn hold_off() {
    let_through(false);
}

impl Reading {
    /// This thread, about to read the input whose interrupt flag is `flag`.
    pub fn start(flag: &Arc<AtomicBool>) -> Self {
        static HANDLER: Once = Once::new();
        HANDLER.call_once(|| {
            extern "C" fn nothing(_: libc::c_int) {}
            // SAFETY: a handler that does nothing, set without SA_RESTART so that a read it
            // interrupts ends with EINTR; SIGURG is ignored by default, so one sent before this
            // is set harms nothing.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = nothing as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                action.sa_flags = 0;
                libc::sigaction(libc::SIGURG, &action, std::ptr::null_mut());
            }
        });
        // SAFETY: a system call without arguments.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::pid_t;
        READING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((tid, Arc::clone(flag)));
        let_through(true);
        // (An input interrupted before this read began: its read is woken too.)
        if flag.load(Ordering::Relaxed) || super::quitting() {
            wake_interrupted();
        }
        Self(tid, std::marker::PhantomData)
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        let mut reading = READING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = reading.iter().position(|(tid, _)| *tid == self.0) {
            reading.swap_remove(at);
        }
        let_through(false);
    }
}

/// The thread that sends the wakes, once started: parked while no read is to be woken.
static WAKER: std::sync::OnceLock<Option<std::thread::Thread>> = std::sync::OnceLock::new();

/// Wakes the threads reading an input that has been interrupted (or every one, once a quit
/// signal came), from now until they have left their reads.
pub fn wake_interrupted() {
    let waker = WAKER.get_or_init(|| {
        std::thread::Builder::new()
            .name("histoplay wake reads".into())
            .spawn(|| loop {
                if wake_once() {
                    std::thread::sleep(Duration::from_millis(50));
                } else {
                    // Until the next interrupt (`unpark` leaves a token: none is missed).
                    std::thread::park();
                }
            })
            .ok()
            .map(|thread| thread.thread().clone())
    });
    if let Some(waker) = waker {
        waker.unpark();
    }
}

/// Sends SIGURG to each thread in a read of an interrupted input (every one, once a quit
/// signal came); whether there was any.
fn wake_once() -> bool {
    let quitting = super::quitting();
    let reading = READING.lock().unwrap_or_else(|e| e.into_inner());
    let mut any = false;
    for (tid, flag) in reading.iter() {
        if quitting || flag.load(Ordering::Relaxed) {
            any = true;
            // SAFETY: signals a thread of this process by its id; one that has ended
            // meanwhile (its id not reused while it is listed here: it takes itself off
            // before it ends) is an error, ignored.
            unsafe {
                libc::syscall(libc::SYS_tgkill, libc::getpid(), *tid, libc::SIGURG);
            }
        }
    }
    any
}
