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

/// The holder's stack: it makes a few system calls and nothing else.
const STACK_BYTES: usize = 64 << 10;

/// Room for the names of the holder's open files, read in as many calls as it takes.
const DIRENT_BYTES: usize = 4096;

#[repr(C, align(16))]
struct Stack([u8; STACK_BYTES]);

static mut STACK: Stack = Stack([0; STACK_BYTES]);

/// Starts the holder; false where it couldn't be made (the process then lets go of everything
/// itself as it exits). Called once, just before `_exit`: the holder's stack is this module's.
///
/// # Safety
/// Nothing but `_exit` may follow a true return: the holder runs on `STACK` in this process's
/// memory until this process is gone.
pub unsafe fn hold() -> bool {
    let mut ends = [0; 2];
    if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return false;
    }
    // The holder starts with every signal blocked (a ^C to the terminal's group ends the
    // command, not the holder's wait) and takes none of the process's handlers' work.
    let mut all = std::mem::zeroed::<libc::sigset_t>();
    let mut before = std::mem::zeroed::<libc::sigset_t>();
    libc::sigfillset(&mut all);
    libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before);
    let top = std::ptr::addr_of_mut!(STACK).cast::<u8>().add(STACK_BYTES);
    // The pipe's two ends in one word: the holder reads one and closes the other.
    let arg = (ends[0] as usize) | ((ends[1] as usize) << 32);
    let pid = libc::clone(holder, top.cast(), libc::CLONE_VM | libc::SIGCHLD, arg as *mut c_void);
    libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
    libc::close(ends[0]);
    if pid <= 0 {
        libc::close(ends[1]);
        return false;
    }
    true
}

/// The holder: closes what others may wait on, waits for the process it was made by to be
/// gone, and exits. Only system calls, on its own stack: the process's other threads may hold
/// any lock at the moment it was made.
extern "C" fn holder(arg: *mut c_void) -> libc::c_int {
    let arg = arg as usize;
    let (read_end, write_end) = ((arg & 0xffff_ffff) as libc::c_int, (arg >> 32) as libc::c_int);
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

/// Closes the holder's references to pipes, sockets, files and directories (what a reader of
/// the command's output, or a lock, waits on); keeps the devices and the kernel's own objects
/// (the GPU's and the decoder's), and `keep`.
unsafe fn close_waited_on(keep: libc::c_int) {
    let dir = libc::open(
        c"/proc/self/fd".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if dir < 0 {
        // Without the list, the command's output at least.
        for fd in 0..3 {
            libc::close(fd);
        }
        return;
    }
    let mut names = [0u8; DIRENT_BYTES];
    let mut doomed = [-1 as libc::c_int; 512];
    let mut count = 0;
    loop {
        let got = libc::syscall(libc::SYS_getdents64, dir, names.as_mut_ptr(), names.len());
        if got <= 0 {
            break;
        }
        let mut at = 0usize;
        while at < got as usize {
            // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
            let reclen = u16::from_ne_bytes([names[at + 16], names[at + 17]]) as usize;
            let fd = parse_fd(&names[at + 19..at + reclen]);
            at += reclen;
            let Some(fd) = fd else { continue };
            if fd == dir || fd == keep || count == doomed.len() {
                continue;
            }
            let mut stat = std::mem::zeroed::<libc::stat>();
            if libc::fstat(fd, &mut stat) == 0 && waited_on(stat.st_mode) {
                // (Closed after the listing, which closing would change.)
                doomed[count] = fd;
                count += 1;
            }
        }
    }
    libc::close(dir);
    for &fd in &doomed[..count] {
        libc::close(fd);
    }
}

/// Whether an open file of `mode` is one somebody else may wait on: a pipe, a socket, a file or
/// a directory (not a device, nor the kernel's own objects).
fn waited_on(mode: libc::mode_t) -> bool {
    matches!(
        mode & libc::S_IFMT,
        libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG | libc::S_IFDIR
    )
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
    fn pipes_sockets_and_files_are_closed_devices_kept() {
        assert!(waited_on(libc::S_IFIFO | 0o600));
        assert!(waited_on(libc::S_IFSOCK | 0o777));
        assert!(waited_on(libc::S_IFREG | 0o644));
        assert!(!waited_on(libc::S_IFCHR | 0o666));
        // An eventfd or a sync file: an anonymous inode, no type.
        assert!(!waited_on(0o600));
    }
}
