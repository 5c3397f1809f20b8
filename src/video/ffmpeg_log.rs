//! FFmpeg's own log, kept off the terminal: histoplay says what went wrong itself, once. What
//! FFmpeg logs as an error is kept per thread, so that a failed open can give FFmpeg's reason
//! ("Picture size 0x0 is invalid", "moov atom not found") after its error code's text
//! ("Invalid argument", "Invalid data found when processing input"); `RUST_LOG=debug` shows
//! every such line.

use ffmpeg_next as ffmpeg;
use std::cell::RefCell;

thread_local! {
    /// The first error FFmpeg logged on this thread since `clear`.
    static FIRST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps FFmpeg's log off the terminal, its errors kept for `reason`. Idempotent.
pub fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        // SAFETY: sets FFmpeg's global log level and callback, a function that lives as long
        // as the program and matches the callback's C signature (the bindings' own types).
        unsafe {
            ffmpeg::ffi::av_log_set_level(ffmpeg::ffi::AV_LOG_ERROR);
            ffmpeg::ffi::av_log_set_callback(Some(keep));
        }
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
        ffmpeg::util::log::set_level(ffmpeg::util::log::Level::Quiet);
    });
}

/// Forgets the errors this thread's FFmpeg calls logged so far.
pub fn clear() {
    let _ = FIRST_ERROR.try_with(|first| first.try_borrow_mut().map(|mut f| f.take()));
}

/// The first error FFmpeg logged on this thread since `clear`, if any (forgotten as taken).
pub fn take() -> Option<String> {
    FIRST_ERROR
        .try_with(|first| first.try_borrow_mut().ok().and_then(|mut f| f.take()))
        .ok()
        .flatten()
}

/// `error`'s text, with the first error FFmpeg logged on this thread since `clear` where it
/// says more: "Invalid argument: Picture size 0x0 is invalid"; FFmpeg's line alone where it
/// already holds the error's text ("Connection to tcp://…:9 failed: Connection refused").
pub fn reason(error: ffmpeg::Error) -> String {
    let code = text(error);
    match take() {
        Some(line) if line.contains(&code) => line,
        Some(line) => format!("{code}: {line}"),
        None => code,
    }
}

/// `error`'s text as FFmpeg gives it (`av_strerror`): its own words for its codes, the
/// system's for an errno, and "Error number -50531338 occurred" for a code it has no words for
/// (where the bindings would say "Unknown error 50531338").
pub fn text(error: ffmpeg::Error) -> String {
    let mut line = [0 as std::ffi::c_char; 128];
    // SAFETY: FFmpeg writes a NUL-terminated text of at most the buffer's size into `line`.
    unsafe {
        ffmpeg::ffi::av_strerror(error.into(), line.as_mut_ptr(), line.len());
        std::ffi::CStr::from_ptr(line.as_ptr()).to_string_lossy().into_owned()
    }
}

/// A decoder's error resilience concealed errors in a frame ("concealing 194 DC, 194 AC, 194
/// MV errors in P frame"): counted on the stream's `DirectFrames`, which a software decoder of
/// a run that takes every frame points its `opaque` at (its frame threads' copies of its
/// context too). A frame's own marks of damage are set by the thread that decodes it, which
/// with frame threads may give the frame out before it sets them; the log line is said every
/// time.
///
/// # Safety
/// `context` is null or an object whose first field is its `AVClass`, as FFmpeg logs with;
/// `format` a NUL-terminated string.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
unsafe fn note_concealment(context: *mut std::ffi::c_void, level: std::ffi::c_int, format: *const std::ffi::c_char) {
    use ffmpeg::ffi;
    if level > ffi::AV_LOG_INFO || context.is_null() || format.is_null() {
        return;
    }
    if !std::ffi::CStr::from_ptr(format).to_bytes().starts_with(b"concealing ") {
        return;
    }
    if *(context as *const *const ffi::AVClass) != ffi::avcodec_get_class() {
        return;
    }
    let ctx = context as *const ffi::AVCodecContext;
    // (A hardware decoder's `opaque` holds its format; a software decoder's is null unless it
    // decodes into `DirectFrames`.)
    if (*ctx).opaque.is_null() || !(*ctx).hw_device_ctx.is_null() {
        return;
    }
    let frames = &*((*ctx).opaque as *const crate::video::memory::DirectFrames);
    frames.note_concealed();
}

/// FFmpeg's log callback: an error's line kept (the first since `clear`), nothing printed.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
unsafe extern "C" fn keep(
    context: *mut std::ffi::c_void,
    level: std::ffi::c_int,
    format: *const std::ffi::c_char,
    arguments: *mut ffmpeg::ffi::__va_list_tag,
) {
    if level > ffmpeg::ffi::AV_LOG_ERROR {
        // SAFETY: FFmpeg's log context and format, as FFmpeg calls the callback with them.
        unsafe { note_concealment(context, level, format) };
        return;
    }
    let mut line = [0 as std::ffi::c_char; 512];
    let mut prefix = 0;
    // SAFETY: FFmpeg formats its own message into `line` (NUL-terminated, cut to its size);
    // `prefix` 0 leaves out the "[codec @ 0x…]" prefix.
    let text = unsafe {
        ffmpeg::ffi::av_log_format_line2(context, level, format, arguments, line.as_mut_ptr(), 512, &mut prefix);
        std::ffi::CStr::from_ptr(line.as_ptr()).to_string_lossy()
    };
    let text = text.trim().replace(['\n', '\r'], " ");
    if text.is_empty() {
        return;
    }
    log::debug!("FFmpeg: {text}");
    let _ = FIRST_ERROR.try_with(|first| {
        if let Ok(mut first) = first.try_borrow_mut() {
            first.get_or_insert_with(|| crate::settings::shortened(text));
        }
    });
}
