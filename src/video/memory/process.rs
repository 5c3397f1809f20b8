//! The process's side of its memory: the resident memory the frame cache keeps within its budget
//! (read at most every `RESIDENT_EVERY`), and glibc's allocator tuned and trimmed for buffers
//! that come and go.

use std::sync::Mutex;

/// Resident memory is looked at, when frame memory is lent, at most this often.
const RESIDENT_EVERY: std::time::Duration = std::time::Duration::from_millis(2);

/// The process's resident memory in bytes, read at most every `RESIDENT_EVERY` (the frame
/// cache looks at it for every frame it keeps): the last reading while it is that recent.
pub fn resident_recent() -> Option<usize> {
    resident_reading().map(|(bytes, _)| bytes)
}

/// The resident memory at most `RESIDENT_EVERY` old, and whether it was read just now.
pub(super) fn resident_reading() -> Option<(usize, bool)> {
    static LAST: Mutex<Option<(std::time::Instant, usize)>> = Mutex::new(None);
    let now = std::time::Instant::now();
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((at, bytes)) = *last {
        if now.duration_since(at) < RESIDENT_EVERY {
            return Some((bytes, false));
        }
    }
    let bytes = resident()?;
    *last = Some((now, bytes));
    Some((bytes, true))
}

/// The process's resident memory in bytes (Linux: /proc/self/statm; None elsewhere).
fn resident() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * usize::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096))
}

/// Tunes glibc's allocator for a process whose big buffers come and go: allocations of 256 KiB
/// and more are mapped on their own (glibc would raise that threshold to 32 MiB as buffers are
/// freed, keeping them in its heaps afterwards), and at most 8 arenas (glibc makes up to 8 per
/// core for the decoders' many threads, each holding on to what it freed). Call it first thing,
/// before any thread starts.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 8);
    }
}

/// Gives the allocator's free memory back to the system (glibc keeps freed memory at the top
/// of its heaps and in arenas), for moments when much has just been freed.
pub fn trim_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}
