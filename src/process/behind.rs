//! The drivers' share of a process's end, taken off its exit: letting go of the GPU's and a
//! hardware decoder's memory as the process ends takes the kernel 80 ms at 1080p and about
//! 275 ms at 4K (NVIDIA's driver, H200), all after the command's last output and before its
//! caller learns that it ended.
//!
//! `hold` makes a process of its own that shares this one's memory (`CLONE_VM`) and holds its
//! own references to the devices' files. When this process exits, the kernel finds both still
//! held and only lets go of its references; the holder, seeing this process gone (the end of a
//! pipe only this process could write to), exits in turn and the kernel lets go of the memory
//! and the devices there, with nobody waiting. The holder closes every pipe, socket and file it
//! was given first, so that nothing reading the command's output waits for it.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The holder's stack: it makes a few system calls and nothing else.
const STACK_BYTES: usize = 64 << 10;

/// Room for the names of the holder's open files, read in as many calls as it takes.
const DIRENT_BYTES: usize = 4096;

#[repr(C, align(16))]
struct Stack([u8; STACK_BYTES]);

static mut STACK: Stack = Stack([0; STACK_BYTES]);

/// The one holder's stack is taken (`hold` runs once).
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The pipe's ends, for the holder: it reads the first and closes the second.
static READ_END: AtomicI32 = AtomicI32::new(-1);
static WRITE_END: AtomicI32 = AtomicI32::new(-1);

/// Starts the holder; false where it couldn't be made (the process then lets go of everything
/// itself as it exits). Called once, just before `_exit`: the holder's stack is this module's.
///
/// # Safety
/// Nothing but `_exit` may follow a true return: the holder runs on `STACK` in this process's
/// memory until this process is gone.
pub unsafe fn hold() -> bool {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return false;
    }
    let mut ends = [0; 2];
    if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return false;
    }
    READ_END.store(ends[0], Ordering::Release);
    WRITE_END.store(ends[1], Ordering::Release);
    // The holder starts with every signal blocked (a ^C to the terminal's group ends the
    // command, not the holder's wait) and takes none of the process's handlers' work.
    let mut all = std::mem::zeroed::<libc::sigset_t>();
    let mut before = std::mem::zeroed::<libc::sigset_t>();
    libc::sigfillset(&mut all);
    libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
    let top = std::ptr::addr_of_mut!(STACK).cast::<u8>().add(STACK_BYTES);
    let pid = libc::clone(holder, top.cast(), libc::CLONE_VM | libc::SIGCHLD, std::ptr::null_mut());
    libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
    libc::close(ends[0]);
    if pid <= 0 {
        libc::close(ends[1]);
        return false;
    }
    true
}

/// The holder: closes what others may wait on, waits for the process it was made by to be
/// gone, and exits. Only system calls, on its own stack, and nothing that can panic: the
/// process's other threads may hold any lock at the moment it was made. (It shares the calling
/// thread's thread-local block, so its errno is that thread's: harmless, as that thread only
/// ends the process.)
extern "C" fn holder(_: *mut c_void) -> libc::c_int {
    let (read_end, write_end) = (READ_END.load(Ordering::Acquire), WRITE_END.load(Ordering::Acquire));
    // SAFETY: system calls on this thread's own stack and descriptors.
    unsafe {
        libc::close(write_end);
        close_waited_on(read_end);
        let mut byte = 0u8;
        loop {
            let read = libc::read(read_end, std::ptr::addr_of_mut!(byte).cast(), 1);
            if read == 0 || (read < 0 && *libc::__errno_location() != libc::EINTR) {
                break;
            }
        }
        libc::_exit(0)
    }
}

/// Closes the holder's references to the command's standard streams, pipes, sockets, files,
/// directories and terminals (what a reader of the command's output, or a lock, waits on);
/// keeps the devices and the kernel's own objects (the GPU's and the decoder's), and `keep`.
unsafe fn close_waited_on(keep: libc::c_int) {
    for fd in 0..3 {
        if fd != keep {
            libc::close(fd);
        }
    }
    let dir = libc::open(
        c"/proc/self/fd".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if dir < 0 {
        return;
    }
    let mut names = [0u8; DIRENT_BYTES];
    loop {
        let got = libc::syscall(libc::SYS_getdents64, dir, names.as_mut_ptr(), names.len());
        let Some(listed) = usize::try_from(got).ok().filter(|&n| n > 0 && n <= names.len()) else {
            break;
        };
        let mut at = 0usize;
        while let Some((fd, reclen)) = names.get(at..listed).and_then(entry) {
            at += reclen;
            let Some(fd) = fd.filter(|&fd| fd != dir && fd != keep) else {
                continue;
            };
            let mut stat = std::mem::zeroed::<libc::stat>();
            let terminal = || libc::isatty(fd) == 1;
            // (The list goes by descriptor number: closing one listed changes none to come.)
            if libc::fstat(fd, &mut stat) == 0 && waited_on(stat.st_mode, terminal) {
                libc::close(fd);
            }
        }
    }
    libc::close(dir);
}

/// The first entry of a directory listing (`struct linux_dirent64`: d_ino u64, d_off i64,
/// d_reclen u16, d_type u8, d_name): its descriptor's number, if its name is one, and its
/// length; None at the listing's end or where an entry does not fit in it.
fn entry(listing: &[u8]) -> Option<(Option<libc::c_int>, usize)> {
    let reclen = usize::from(u16::from_ne_bytes([*listing.get(16)?, *listing.get(17)?]));
    let name = listing.get(19..reclen)?;
    Some((parse_fd(name), reclen))
}

/// Whether an open file of `mode` is one somebody else may wait on: a pipe, a socket, a file,
/// a directory or a terminal (not another device, nor the kernel's own objects).
fn waited_on(mode: libc::mode_t, terminal: impl Fn() -> bool) -> bool {
    match mode & libc::S_IFMT {
        libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG | libc::S_IFDIR => true,
        libc::S_IFCHR => terminal(),
        _ => false,
    }
}

/// A descriptor's number from its name in /proc/self/fd (NUL-ended).
fn parse_fd(name: &[u8]) -> Option<libc::c_int> {
    let digits = name.split(|&b| b == 0).next()?;
    if digits.is_empty() {
        return None;
    }
    let mut fd: libc::c_int = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        fd = fd.checked_mul(10)?.checked_add(libc::c_int::from(b - b'0'))?;
    }
    Some(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_are_read_from_their_names() {
        assert_eq!(parse_fd(b"17\0\0\0"), Some(17));
        assert_eq!(parse_fd(b"0\0"), Some(0));
        assert_eq!(parse_fd(b".\0"), None);
        assert_eq!(parse_fd(b"..\0"), None);
        assert_eq!(parse_fd(b"\0"), None);
    }

    #[test]
    fn pipes_sockets_files_and_terminals_are_closed_devices_kept() {
        let no = || false;
        assert!(waited_on(libc::S_IFIFO | 0o600, no));
        assert!(waited_on(libc::S_IFSOCK | 0o777, no));
        assert!(waited_on(libc::S_IFREG | 0o644, no));
        assert!(waited_on(libc::S_IFCHR | 0o620, || true));
        assert!(!waited_on(libc::S_IFCHR | 0o666, no));
        // An eventfd or a sync file: an anonymous inode, no type.
        assert!(!waited_on(0o600, || true));
    }

    #[test]
    fn a_listing_is_read_entry_by_entry_and_never_past_its_end() {
        // Two entries, "7" and "12", each 24 bytes long.
        let mut listing = vec![0u8; 48];
        for (at, name) in [(0, &b"7"[..]), (24, &b"12"[..])] {
            listing[at + 16..at + 18].copy_from_slice(&24u16.to_ne_bytes());
            listing[at + 19..at + 19 + name.len()].copy_from_slice(name);
        }
        assert_eq!(entry(&listing), Some((Some(7), 24)));
        assert_eq!(entry(&listing[24..]), Some((Some(12), 24)));
        assert_eq!(entry(&listing[48..]), None);
        // An entry longer than what was read is not read.
        assert_eq!(entry(&listing[24..45]), None);
    }
}
