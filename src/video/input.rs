//! Where the frames come from: a file, or a live input FFmpeg reads as it arrives — a URL
//! (`udp://`, `srt://`, `rtsp://`, `http://`, an HLS playlist...), a pipe (`-`), a capture
//! device (`/dev/video0`), the screen (`x11grab`) — opened with the input format and options
//! the command line names (`--input-format`, `--input-option`, as ffplay's `-f` and `-i`
//! options).
//!
//! A live input can't be read twice (a pipe, a socket, a device) and has no end to index: it
//! is read once, by the decoder, frames numbered as they arrive, and with FFmpeg's low-delay
//! settings when played.

use ffmpeg_next as ffmpeg;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, OnceLock};

mod track;
mod wake;
pub use track::{AudioTrack, NoTrack};
pub use wake::{hold_off as hold_off_wakes, Reading};

/// How an error about an `--input-option` the input has no use for starts.
pub const UNKNOWN_OPTION: &str = "--input-option ";

/// How the command line's inputs are opened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputOptions {
    /// FFmpeg's input format (demuxer or device) to open them with, instead of probing.
    pub format: Option<String>,
    /// Options for the format and its protocol (`KEY=VALUE`, as ffplay's `-KEY VALUE`).
    pub options: Vec<(String, String)>,
    /// Don't open a lost connection again (`--no-reconnect`).
    pub no_reconnect: bool,
}

static OPTIONS: OnceLock<InputOptions> = OnceLock::new();

/// Sets how every input named on the command line is opened (once, before any is).
pub fn set_options(options: InputOptions) {
    let _ = OPTIONS.set(options);
}

fn options() -> &'static InputOptions {
    OPTIONS.get_or_init(InputOptions::default)
}

/// Parses `KEY=VALUE`.
pub fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("'{text}' is not KEY=VALUE")),
    }
}

/// Whether `location` names something FFmpeg opens itself rather than a file here: a pipe
/// (`-`), a URL (`scheme:...`), or anything at all once an input format is given (a device's
/// name, an X display, a lavfi graph).
pub fn is_location(location: &Path) -> bool {
    if options().format.is_some() {
        return true;
    }
    let Some(text) = location.to_str() else {
        return false;
    };
    if text == "-" {
        return true;
    }
    // A scheme is letters, digits, '+', '-' and '.', starting with a letter (RFC 3986); a
    // file that exists under such a name is still a file.
    let scheme = text.split_once(':').map(|(scheme, _)| scheme);
    scheme.is_some_and(|s| {
        s.len() > 1
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    }) && !location.exists()
}

/// The signal the process is quitting on, once one came (0 before): every input's blocking
/// calls give up.
static QUITTING: AtomicI32 = AtomicI32::new(0);

/// Makes every input's blocking opens and reads give up (quit signal `signal` came).
pub fn quit(signal: i32) {
    QUITTING.store(signal, Ordering::Relaxed);
    // A read that waits in the kernel (a pipe or a FIFO whose writer sends nothing).
    wake::wake_interrupted();
    // A FIFO being opened waits in the kernel for a writer, where no interrupt reaches it: one
    // that comes and goes at once lets the open end (at the FIFO's end, no data).
    let opening = OPENING_FIFOS.lock().unwrap_or_else(|e| e.into_inner());
    for fifo in opening.iter() {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo);
    }
}

/// The FIFOs whose opening is waiting for a writer (`open`), for `quit` to end.
static OPENING_FIFOS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Names a FIFO in `OPENING_FIFOS` for as long as it lives.
struct OpeningFifo(std::path::PathBuf);

impl OpeningFifo {
    /// Where `location` is a FIFO.
    fn new(location: &Path) -> Option<Self> {
        use std::os::unix::fs::FileTypeExt;
        if !std::fs::metadata(location).is_ok_and(|m| m.file_type().is_fifo()) {
            return None;
        }
        OPENING_FIFOS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(location.to_owned());
        // (A signal that came just before: the open would wait all the same.)
        if let Some(signal) = quit_signal() {
            quit(signal);
        }
        Some(Self(location.to_owned()))
    }
}

impl Drop for OpeningFifo {
    fn drop(&mut self) {
        let mut opening = OPENING_FIFOS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = opening.iter().position(|f| *f == self.0) {
            opening.remove(at);
        }
    }
}

/// Whether `quit` was called.
pub fn quitting() -> bool {
    quit_signal().is_some()
}

/// The signal `quit` was called for.
pub fn quit_signal() -> Option<i32> {
    Some(QUITTING.load(Ordering::Relaxed)).filter(|&s| s != 0)
}

/// When a live input is opened again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reconnect {
    Never,
    /// When reading it fails (an HTTP or HLS stream, whose end may be its end).
    OnError,
    /// When reading it fails or it ends (a stream sent over a connection has no end of its
    /// own: the sender stopped).
    OnErrorOrEnd,
}

/// When a live input at `location` is opened again: a connection (TCP, SRT, RIST, RTMP, RTSP,
/// TLS) when lost or ended, HTTP(S) when lost, unless `--no-reconnect`. (UDP and RTP have no
/// connection to lose: a stalled one just waits.)
pub fn reconnects(location: &Path) -> Reconnect {
    let scheme = location
        .to_str()
        .and_then(|text| text.split_once("://"))
        .map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        _ if options().no_reconnect => Reconnect::Never,
        Some("tcp" | "srt" | "rist" | "rtmp" | "rtmps" | "rtmpt" | "rtsp" | "rtsps" | "tls") => Reconnect::OnErrorOrEnd,
        Some("http" | "https") => Reconnect::OnError,
        _ => Reconnect::Never,
    }
}

/// The wait before reconnecting attempt `n` (from 0): 0.5 s, doubling up to 8 s.
pub fn reconnect_delay(attempt: u32) -> std::time::Duration {
    std::time::Duration::from_millis(500 << attempt.min(4))
}

/// The read ends of the pipes histoplay feeds itself (`VideoSource::share_packets`), as
/// FFmpeg locations (`pipe:N`): opened as NUT, whatever the command line's input options say.
static INTERNAL: std::sync::Mutex<Vec<(String, std::os::fd::OwnedFd)>> = std::sync::Mutex::new(Vec::new());

/// Bytes a relay between an internal pipe's writer and its reader holds at most: the writer (the
/// decoding that feeds the picture) waits on the reader only once that fell behind by as much.
const RELAY_BYTES: usize = 256 << 20;
/// What the relay reads at a time.
const RELAY_CHUNK: usize = 64 << 10;

/// A pipe within the process: the location its read end is opened from, and its write end.
/// The read end stays open until `close_internal` (the source that read it is dropped). A relay
/// between the two ends holds up to `RELAY_BYTES`, so a reader that falls behind for a while
/// (a report on a busy GPU) doesn't hold up the writer. Once either end goes, so does the relay:
/// the reader then sees the end, or the writer's writes fail.
pub fn internal_pipe() -> std::io::Result<(std::path::PathBuf, std::os::fd::OwnedFd)> {
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::sync::atomic::AtomicUsize;
    let (written, writer) = os_pipe()?;
    let (reader, to_reader) = os_pipe()?;
    let (chunks, taken) = std::sync::mpsc::channel::<Vec<u8>>();
    // Bytes held between the two threads: the writer's side stops reading beyond RELAY_BYTES.
    let held = Arc::new(AtomicUsize::new(0));
    let (held_in, held_out) = (Arc::clone(&held), held);
    std::thread::Builder::new()
        .name("histoplay relay in".into())
        .spawn(move || {
            let mut written = std::fs::File::from(written);
            let mut buffer = vec![0; RELAY_CHUNK];
            loop {
                while held_in.load(Ordering::Acquire) > RELAY_BYTES {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                match written.read(&mut buffer) {
                    Ok(0) => return,
                    Ok(n) => {
                        held_in.fetch_add(n, Ordering::AcqRel);
                        if chunks.send(buffer[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
        })?;
    std::thread::Builder::new()
        .name("histoplay relay out".into())
        .spawn(move || {
            let mut to_reader = std::fs::File::from(to_reader);
            for chunk in taken {
                if to_reader.write_all(&chunk).is_err() {
                    return;
                }
                held_out.fetch_sub(chunk.len(), Ordering::AcqRel);
            }
        })?;
    let location = format!("pipe:{}", reader.as_raw_fd());
    INTERNAL
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((location.clone(), reader));
    Ok((location.into(), writer))
}

/// A pipe's read and write ends, closed on exec.
fn os_pipe() -> std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills both descriptors on success; each is owned once, here.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

fn is_internal(location: &str) -> bool {
    let pipes = INTERNAL.lock().unwrap_or_else(|e| e.into_inner());
    pipes.iter().any(|(name, _)| name == location)
}

/// Whether `location` names an input read once, as it comes, by its name: a pipe (`-`), a
/// URL, a device with an input format; not a file here (which can be opened again).
pub fn is_stream(location: &Path) -> bool {
    is_location(location) && !location.is_file()
}

/// Closes the read end of an internal pipe, once the input read from it is done with.
pub fn close_internal(location: &Path) {
    let mut pipes = INTERNAL.lock().unwrap_or_else(|e| e.into_inner());
    pipes.retain(|(name, _)| location.to_str() != Some(name.as_str()));
}

/// A flag that makes the input's blocking reads (a stalled stream) give up at once.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
        wake::wake_interrupted();
    }

    /// This thread reading the input (until the value goes): interrupted, the read ends even
    /// where it waits in the kernel.
    pub fn reading(&self) -> Reading {
        Reading::start(&self.0)
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Opens `location` with the command line's format and options. Reads give up once
/// `interrupt` is set.
pub fn open(location: &Path, interrupt: &Interrupt) -> Result<ffmpeg::format::context::Input, String> {
    static DEVICES: std::sync::Once = std::sync::Once::new();
    DEVICES.call_once(ffmpeg::device::register_all);
    // (The sound's opening comes here first.)
    super::ffmpeg_log::quiet();
    let url = location.to_str().ok_or("its name is not valid UTF-8")?;
    if std::fs::metadata(location).is_ok_and(|meta| meta.is_file() && meta.len() == 0) {
        return Err("it is empty".into());
    }
    let nut = InputOptions {
        format: Some("nut".into()),
        ..Default::default()
    };
    check_port(url)?;
    let internal = is_internal(url);
    let options = if internal { &nut } else { options() };
    // "-" is FFmpeg's "pipe:" when it is given a URL.
    let url = if url == "-" { "pipe:" } else { url };
    let url = std::ffi::CString::new(url).map_err(|_| "its name holds a NUL byte".to_string())?;
    let format = match &options.format {
        None => std::ptr::null(),
        Some(name) => {
            let c_name = std::ffi::CString::new(name.as_str()).map_err(|_| "bad input format name".to_string())?;
            // SAFETY: looks a name up in FFmpeg's static tables (devices included once
            // registered).
            let found = unsafe { ffmpeg::ffi::av_find_input_format(c_name.as_ptr()) };
            if found.is_null() {
                return Err(format!("FFmpeg has no input format '{name}'"));
            }
            found
        }
    };
    let mut dictionary = ffmpeg::Dictionary::new();
    for (key, value) in &options.options {
        dictionary.set(key, value);
    }
    let flag = Arc::clone(&interrupt.0);
    // A pipe within the process is read to its end after a quit signal: its writer is finished
    // first, and what it wrote is read whole.
    let callback = ffmpeg::util::interrupt::new(Box::new(move || {
        flag.load(Ordering::Relaxed) || (!internal && quitting())
    }));
    // SAFETY: the context is allocated here and handed to avformat_open_input, which frees it
    // on failure; the interrupt's closure lives as long as the context (its guard goes with it).
    unsafe {
        let mut context = ffmpeg::ffi::avformat_alloc_context();
        if context.is_null() {
            return Err("out of memory".into());
        }
        (*context).interrupt_callback = callback.interrupt;
        let mut dictionary = dictionary.disown();
        super::ffmpeg_log::clear();
        let fifo = OpeningFifo::new(location);
        let reading = interrupt.reading();
        let opened = ffmpeg::ffi::avformat_open_input(&mut context, url.as_ptr(), format, &mut dictionary);
        drop((fifo, reading));
        let unused = ffmpeg::Dictionary::own(dictionary);
        if opened < 0 {
            let reason = super::ffmpeg_log::reason(ffmpeg::Error::from(opened));
            // Raw video has no header: its size is the reader's to say.
            let sized = options.options.iter().any(|(key, _)| key == "video_size");
            return Err(match options.format.as_deref() {
                Some("rawvideo") if !sized => {
                    format!("{reason} (raw video's size is given with --input-option video_size=WxH)")
                }
                _ => reason,
            });
        }
        let input = ffmpeg::format::context::Input::wrap_with_interrupt(context, callback.guard);
        if let Some((key, _)) = unused.iter().next() {
            return Err(format!(
                "{UNKNOWN_OPTION}{key}: neither its format nor its protocol has this option"
            ));
        }
        super::ffmpeg_log::clear();
        let reading = interrupt.reading();
        let found = ffmpeg::ffi::avformat_find_stream_info(context, std::ptr::null_mut());
        drop(reading);
        if found < 0 {
            return Err(super::ffmpeg_log::reason(ffmpeg::Error::from(found)));
        }
        Ok(input)
    }
}

/// Refuses a network URL whose port is not one (`udp://host:abc`, which FFmpeg reads as port 0
/// and waits on for ever).
fn check_port(url: &str) -> Result<(), String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(());
    };
    const NETWORK: [&str; 16] = [
        "udp", "rtp", "tcp", "tls", "srt", "rist", "rtmp", "rtmps", "rtmpt", "rtsp", "rtsps", "http", "https", "ftp",
        "mms", "mmsh",
    ];
    if !NETWORK.contains(&scheme.to_ascii_lowercase().as_str()) {
        return Ok(());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, after)| after);
    // An IPv6 host is bracketed: its colons are not the port's.
    let port = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split_once(']').and_then(|(_, after)| after.strip_prefix(':')),
        None => host_port.rsplit_once(':').map(|(_, port)| port),
    };
    match port {
        Some(port) if !port.is_empty() && !port.parse::<u16>().is_ok_and(|p| p > 0) => {
            Err(format!("its port '{port}' is not a number from 1 to 65535"))
        }
        _ => Ok(()),
    }
}

/// Whether an opened input is live: it can't seek (a pipe, a socket) or has no file at all
/// (a device, an RTSP session) and no stated end. Such an input is read once, as it comes.
pub fn is_live(input: &ffmpeg::format::context::Input) -> bool {
    // SAFETY: reading plain fields of a valid, opened input context.
    unsafe {
        let context = input.as_ptr();
        let pb = (*context).pb;
        let endless = (*context).duration <= 0;
        let format = input.format();
        let name = format.name();
        if pb.is_null() {
            return endless || name == "rtsp";
        }
        // A live HLS playlist is read over a seekable connection, but has no end.
        (*pb).seekable & ffmpeg::ffi::AVIO_SEEKABLE_NORMAL == 0 || (endless && name == "hls")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_url_whose_port_is_not_a_number_is_refused() {
        for good in [
            "udp://127.0.0.1:1234",
            "udp://@:1234?fifo_size=1000",
            "srt://:9000?mode=listener",
            "rtmp://user:secret@host:1935/app",
            "http://[::1]:8080/live.m3u8",
            "http://example.com/a:b",
            "rtsp://camera/stream",
            "file://a:b",
            "movie.mp4",
        ] {
            assert_eq!(check_port(good), Ok(()), "{good}");
        }
        for (bad, port) in [
            ("udp://127.0.0.1:abc", "abc"),
            ("tcp://host:0", "0"),
            ("SRT://host:65536?mode=caller", "65536"),
            ("http://[::1]:x/", "x"),
            ("rtmp://u:p@host:-5/app", "-5"),
        ] {
            assert_eq!(
                check_port(bad),
                Err(format!("its port '{port}' is not a number from 1 to 65535")),
                "{bad}"
            );
        }
    }

    #[test]
    fn an_internal_pipe_holds_what_its_reader_has_not_taken_yet_without_holding_up_its_writer() {
        use std::io::{Read, Write};
        use std::os::fd::FromRawFd;
        let (location, writer) = internal_pipe().unwrap();
        // 16 MiB, more than any pipe holds, written with no one reading.
        let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
        let (done, finished) = std::sync::mpsc::channel();
        let written = data.clone();
        std::thread::spawn(move || {
            let mut writer = std::fs::File::from(writer);
            let _ = done.send(writer.write_all(&written).is_ok());
        });
        let finished = finished.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(finished, Ok(true), "the writer was held up");
        let fd: i32 = location
            .to_str()
            .unwrap()
            .strip_prefix("pipe:")
            .unwrap()
            .parse()
            .unwrap();
        // SAFETY: a duplicate of the read end the pipe's registry owns, owned once here.
        let mut reader = unsafe { std::fs::File::from_raw_fd(libc::dup(fd)) };
        let mut read = Vec::new();
        reader.read_to_end(&mut read).unwrap();
        assert!(read == data, "{} of {} bytes", read.len(), data.len());
        close_internal(&location);
    }

    #[test]
    fn options_are_key_equals_value() {
        assert_eq!(
            parse_option("video_size=640x480"),
            Ok(("video_size".into(), "640x480".into()))
        );
        assert_eq!(
            parse_option("timeout=5000000"),
            Ok(("timeout".into(), "5000000".into()))
        );
        assert_eq!(parse_option("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert!(parse_option("=1").is_err());
        assert!(parse_option("novalue").is_err());
    }

    #[test]
    fn connections_reconnect_with_a_growing_wait() {
        let end = Reconnect::OnErrorOrEnd;
        assert_eq!(reconnects(Path::new("srt://host:9000?mode=caller")), end);
        assert_eq!(reconnects(Path::new("tcp://127.0.0.1:9000?listen=1")), end);
        assert_eq!(reconnects(Path::new("RTMP://server/live/key")), end);
        assert_eq!(reconnects(Path::new("https://cdn/live.m3u8")), Reconnect::OnError);
        for never in ["udp://127.0.0.1:1234", "-", "/dev/video0"] {
            assert_eq!(reconnects(Path::new(never)), Reconnect::Never);
        }
        let waits: Vec<u64> = (0..7).map(|n| reconnect_delay(n).as_millis() as u64).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    }

    #[test]
    fn urls_and_pipes_are_locations_files_are_not() {
        assert!(is_location(Path::new("-")));
        assert!(is_location(Path::new("udp://127.0.0.1:1234")));
        assert!(is_location(Path::new("srt://host:9000?mode=caller")));
        assert!(is_location(Path::new("pipe:0")));
        assert!(!is_location(Path::new("media/sample-540p.mp4")));
        assert!(!is_location(Path::new("/tmp/clip.mp4")));
        // A one-letter "scheme" is a drive or a plain name with a colon, not a URL.
        assert!(!is_location(Path::new("c:clip.mp4")));
    }
}
