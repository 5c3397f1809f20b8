//! Hardware decoding (`--hwdec`, as mpv's): the GPU's video decoder (NVDEC, VA-API) decodes.
//! The decode thread's NVDEC frames stay on the GPU where CUDA and Vulkan can share memory
//! (`video::interop`): copied there into the GPU frame cache. Elsewhere each frame is copied
//! back to memory as NV12 (P010 at 10 bits), so everything after the decoder (cache, upload,
//! conversion) is the same as for software decoding. That copy is made right away, or, for a
//! few NVDEC frames at a time, by the thread that uses the frame first (`Deferrals`): the
//! upload thread, while the decode thread goes on to the next frame. H.264, HEVC, VP9 and AV1
//! decoding is exact by their standards, so the pixels, and the histograms, are the same too.
//!
//! Used for 8- and 10-bit 4:2:0 streams, the layouts NV12 and P010 carry exactly; other streams, and machines
//! without a usable device, decode in software. `auto` uses it above 1080p only: there a
//! software decoder's frame threads hold each frame for tens of milliseconds, which steps and
//! seeks wait for, while up to 1080p they decode faster than NVDEC, and a hardware decoder
//! costs a few hundred milliseconds to set up.

use ffmpeg::ffi;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Frames of one NVDEC decoder that may wait in the device's memory for their copy back. Each
/// may hold one of the decoder's output surfaces (FFmpeg 5's NVDEC frames are its mapped
/// surfaces), which it is given this many more of.
pub const DEFERRED_COPIES: usize = 2;
/// The largest frame that waits: 4K in P010 (25 MB). An 8K frame (100 MB) is copied as decoded,
/// which keeps the process's peak within its memory budget (a frame that waits holds its copy's
/// memory longer too).
pub const DEFERRED_MAX_BYTES: usize = 32 << 20;

/// Which decoder `VideoSource::open` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Hwdec {
    /// Software decoding only.
    No,
    /// The first hardware decoder that works here for streams larger than 1080p, else
    /// software.
    Auto,
    /// The first hardware decoder that works here, at any size, else software.
    Yes,
    /// NVIDIA's decoder (through CUDA), else software.
    Nvdec,
    /// VA-API (Intel, AMD), else software.
    Vaapi,
}

static PREFERENCE: AtomicU8 = AtomicU8::new(Hwdec::Auto as u8);

/// Sets the decoder every file opened from now on uses (the `--hwdec` option).
pub fn set_preference(hwdec: Hwdec) {
    PREFERENCE.store(hwdec as u8, Ordering::Relaxed);
}

pub fn preference() -> Hwdec {
    match PREFERENCE.load(Ordering::Relaxed) {
        x if x == Hwdec::No as u8 => Hwdec::No,
        x if x == Hwdec::Yes as u8 => Hwdec::Yes,
        x if x == Hwdec::Nvdec as u8 => Hwdec::Nvdec,
        x if x == Hwdec::Vaapi as u8 => Hwdec::Vaapi,
        _ => Hwdec::Auto,
    }
}

/// A hardware decoder attached to a codec context.
#[derive(Clone, Copy, Debug)]
pub struct Attached {
    /// FFmpeg's name of the device type (`cuda`, `vaapi`).
    pub name: &'static str,
    format: ffi::AVPixelFormat,
}

impl Attached {
    /// Whether `frame` lives in the device's memory (it must be copied back before use).
    pub fn holds(&self, frame: &ffmpeg::frame::Video) -> bool {
        // SAFETY: reading a plain field of a valid frame.
        unsafe { (*frame.as_ptr()).format == self.format as i32 }
    }

    /// The decoder's name as users know it.
    pub fn label(&self) -> &'static str {
        match self.name {
            "cuda" => "NVDEC",
            "vaapi" => "VA-API",
            name => name,
        }
    }

    /// Whether this device's frames may be copied back on another thread while the decoder
    /// goes on: NVDEC's, whose surfaces CUDA copies from any thread (mpv draws them from its
    /// video output's). VA-API's are copied on the decoding thread.
    pub fn copies_elsewhere(&self) -> bool {
        self.name == "cuda"
    }
}

/// Counts one decoder's frames waiting in the device's memory to be copied back.
#[derive(Clone, Debug, Default)]
pub struct Deferrals(Arc<AtomicUsize>);

impl Deferrals {
    /// `frame` left in the device's memory, to be copied back by whoever uses it first; given
    /// back (`Err`) while `DEFERRED_COPIES` frames wait already.
    pub fn defer(&self, frame: ffmpeg::frame::Video) -> Result<DeviceFrame, ffmpeg::frame::Video> {
        match self.0.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < DEFERRED_COPIES).then_some(n + 1)
        }) {
            Ok(_) => Ok(DeviceFrame {
                frame: Some(frame),
                waiting: Arc::clone(&self.0),
            }),
            Err(_) => Err(frame),
        }
    }

    /// Frames waiting now.
    pub fn waiting(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// A decoded frame still in the device's memory, holding its decoder's surface (where it is one)
/// until it is copied back or dropped.
pub struct DeviceFrame {
    frame: Option<ffmpeg::frame::Video>,
    waiting: Arc<AtomicUsize>,
}

impl DeviceFrame {
    /// Copies the frame into frame memory (`download`), letting go of its surface.
    pub fn download(mut self) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
        let frame = self.frame.take().ok_or(ffmpeg::Error::InvalidData)?;
        download(&frame)
    }
}

impl Drop for DeviceFrame {
    /// The surface goes back to the decoder before the frame stops counting as waiting.
    fn drop(&mut self) {
        drop(self.frame.take());
        self.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Bytes a frame of this format and size takes in memory (rows aligned as frame memory's).
pub fn memory_bytes((format, width, height): (Pixel, u32, u32)) -> usize {
    let (Ok(w), Ok(h)) = (i32::try_from(width), i32::try_from(height)) else {
        return usize::MAX;
    };
    // SAFETY: computes a size from a format and dimensions.
    let bytes = unsafe { ffi::av_image_get_buffer_size(format.into(), w, h, 64) };
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// The format and size a device frame is copied back in: its frames context's memory format.
pub fn memory_layout(frame: &ffmpeg::frame::Video) -> Option<(Pixel, u32, u32)> {
    // SAFETY: reading plain fields of a valid frame and of its frames context, when it has one.
    unsafe {
        let frames = (*frame.as_ptr()).hw_frames_ctx;
        if frames.is_null() {
            return None;
        }
        let format = (*((*frames).data as *const ffi::AVHWFramesContext)).sw_format;
        let (w, h) = ((*frame.as_ptr()).width, (*frame.as_ptr()).height);
        Some((format.into(), u32::try_from(w).ok()?, u32::try_from(h).ok()?))
    }
}

/// Attaches the preferred hardware decoder to `context` (not yet opened) when the stream is
/// 8- or 10-bit 4:2:0 and the codec and a device support it; None leaves it to software.
pub fn attach(
    context: &mut ffmpeg::codec::context::Context,
    codec: &ffmpeg::Codec,
    stream_format: Pixel,
    (width, height): (u32, u32),
) -> Option<Attached> {
    let any = [
        (ffi::AVHWDeviceType::AV_HWDEVICE_TYPE_CUDA, "cuda"),
        (ffi::AVHWDeviceType::AV_HWDEVICE_TYPE_VAAPI, "vaapi"),
    ];
    let types: &[(ffi::AVHWDeviceType, &'static str)] = match preference() {
        Hwdec::No => return None,
        Hwdec::Auto if u64::from(width) * u64::from(height) <= 1920 * 1088 => return None,
        Hwdec::Auto | Hwdec::Yes => &any,
        Hwdec::Nvdec => &[(ffi::AVHWDeviceType::AV_HWDEVICE_TYPE_CUDA, "cuda")],
        Hwdec::Vaapi => &[(ffi::AVHWDeviceType::AV_HWDEVICE_TYPE_VAAPI, "vaapi")],
    };
    if !matches!(stream_format, Pixel::YUV420P | Pixel::YUVJ420P | Pixel::YUV420P10LE) {
        return None;
    }
    types.iter().find_map(|&(kind, name)| {
        let format = hardware_format(codec, kind)?;
        let device = device(kind, name)?;
        let attached = Attached { name, format };
        // SAFETY: the context takes a reference of its own to the device.
        unsafe {
            let ctx = context.as_mut_ptr();
            (*ctx).hw_device_ctx = ffi::av_buffer_ref(device.0);
            if (*ctx).hw_device_ctx.is_null() {
                return None;
            }
            (*ctx).get_format = Some(pick_format);
            (*ctx).opaque = format as i32 as isize as *mut libc::c_void;
            // Decoder surfaces beyond the stream's reference frames: one frame is copied back
            // while the next decodes, and NVDEC's frames may wait for their copy.
            (*ctx).extra_hw_frames = 2 + if attached.copies_elsewhere() {
                DEFERRED_COPIES as i32
            } else {
                0
            };
        }
        log::info!("decoding with {name}");
        Some(attached)
    })
}

/// The CUDA context and stream of a codec context's NVDEC device (FFmpeg's
/// `AVCUDADeviceContext`); None without one.
///
/// # Safety
/// `context` must point to a valid codec context.
pub unsafe fn cuda_stream(context: *const ffi::AVCodecContext) -> Option<crate::video::interop::CudaStream> {
    let device = (*context).hw_device_ctx;
    if device.is_null() {
        return None;
    }
    let device = (*device).data as *const ffi::AVHWDeviceContext;
    if (*device).type_ != ffi::AVHWDeviceType::AV_HWDEVICE_TYPE_CUDA || (*device).hwctx.is_null() {
        return None;
    }
    let cuda = (*device).hwctx as *const ffi::AVCUDADeviceContext;
    Some(crate::video::interop::CudaStream {
        context: (*cuda).cuda_ctx as *mut std::ffi::c_void,
        stream: (*cuda).stream as *mut std::ffi::c_void,
    })
}

/// A device reference kept for the process's lifetime.
#[derive(Clone, Copy)]
struct Device(*mut ffi::AVBufferRef);

// SAFETY: FFmpeg's hardware device contexts may be used from any thread; this reference is
// only ever passed to av_buffer_ref.
unsafe impl Send for Device {}

/// The device of a type, made once per process (creating a CUDA context takes a while) and
/// shared by every decoder; a type that failed is not tried again.
fn device(kind: ffi::AVHWDeviceType, name: &str) -> Option<Device> {
    static DEVICES: Mutex<Vec<(i32, Option<Device>)>> = Mutex::new(Vec::new());
    let mut devices = DEVICES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, device)) = devices.iter().find(|(k, _)| *k == kind as i32) {
        return *device;
    }
    let mut device: *mut ffi::AVBufferRef = std::ptr::null_mut();
    // SAFETY: on success, `device` holds a reference that is never released.
    let made = unsafe { ffi::av_hwdevice_ctx_create(&mut device, kind, std::ptr::null(), std::ptr::null_mut(), 0) };
    let device = if made < 0 {
        log::info!("no {name} device: decoding in software");
        None
    } else {
        Some(Device(device))
    };
    devices.push((kind as i32, device));
    device
}

/// The device's pixel format, when `codec` can decode into it through a device context.
fn hardware_format(codec: &ffmpeg::Codec, kind: ffi::AVHWDeviceType) -> Option<ffi::AVPixelFormat> {
    (0..)
        .map_while(|i| {
            // SAFETY: FFmpeg's static table of the codec's configurations, ended by null.
            let config = unsafe { ffi::avcodec_get_hw_config(codec.as_ptr(), i) };
            (!config.is_null()).then(|| unsafe { *config })
        })
        .find(|c| c.device_type == kind && c.methods & ffi::AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX as i32 != 0)
        .map(|c| c.pix_fmt)
}

/// FFmpeg's `get_format`: the device's format when offered (it is not for profiles the device
/// can't decode), else the first software format, so such streams still play.
unsafe extern "C" fn pick_format(
    ctx: *mut ffi::AVCodecContext,
    offered: *const ffi::AVPixelFormat,
) -> ffi::AVPixelFormat {
    let wanted = (*ctx).opaque as isize as i32;
    let mut first_software = ffi::AVPixelFormat::AV_PIX_FMT_NONE;
    let mut at = offered;
    while *at != ffi::AVPixelFormat::AV_PIX_FMT_NONE {
        if *at as i32 == wanted {
            // The decoder sets up its surfaces next, mapping their host side too (about 320 MB
            // for an 8K stream): the spare frame blocks make room for them first, so that a
            // second decoder opening beside a playing one (the timeline's) stays within the
            // cache's budget.
            crate::video::memory::FRAME_MEMORY.release_spare();
            return *at;
        }
        let desc = ffi::av_pix_fmt_desc_get(*at);
        let hardware = !desc.is_null() && (*desc).flags & ffi::AV_PIX_FMT_FLAG_HWACCEL as u64 != 0;
        if !hardware && first_software == ffi::AVPixelFormat::AV_PIX_FMT_NONE {
            first_software = *at;
        }
        at = at.add(1);
    }
    log::warn!("the hardware decoder can't decode this stream: decoding in software");
    first_software
}

/// Copies a frame from the device into frame memory (`video::memory`), as NV12 for the
/// streams `attach` takes (P010 at 10 bits), with its timestamps and flags. A 4K frame is 12 MB
/// and an 8K 10-bit one 100 MB: counted with the rest of the frames, and unmapped when the
/// cache lets go of it (FFmpeg's buffer pools keep every buffer they ever gave out). A frame
/// without a frames context is not a device's: an error.
pub fn download(frame: &ffmpeg::frame::Video) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
    // Its frames context describes the memory format it copies back to.
    let (format, w, h) = memory_layout(frame).ok_or(ffmpeg::Error::InvalidData)?;
    let mut out = crate::video::memory::frame(format, w, h)?;
    // SAFETY: both frames are valid, the device frame with a frames context; the other has
    // planes of the frame's format and size.
    unsafe {
        let result = ffi::av_hwframe_transfer_data(out.as_mut_ptr(), frame.as_ptr(), 0);
        if result < 0 {
            return Err(ffmpeg::Error::from(result));
        }
        let result = ffi::av_frame_copy_props(out.as_mut_ptr(), frame.as_ptr());
        if result < 0 {
            return Err(ffmpeg::Error::from(result));
        }
    }
    Ok(out)
}

/// How an H.264 stream's packets delimit their NAL units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NalFraming {
    /// Each unit after a big-endian length of this many bytes (MP4, MKV: `avcC` extradata).
    Length(usize),
    /// Units after 00 00 01 start codes (MPEG-TS, raw streams).
    AnnexB,
}

impl NalFraming {
    /// From the stream's extradata: an `avcC` record says its length size; anything else is
    /// Annex B.
    pub fn of(extradata: &[u8]) -> Self {
        match extradata {
            [1, _, _, _, size, ..] => NalFraming::Length(usize::from(size & 3) + 1),
            _ => NalFraming::AnnexB,
        }
    }

    /// From a codec context's extradata.
    ///
    /// # Safety
    /// `ctx` must point to a valid codec context.
    pub unsafe fn of_context(ctx: *const ffi::AVCodecContext) -> Self {
        match ((*ctx).extradata, (*ctx).extradata_size) {
            (data, size) if !data.is_null() && size > 0 => Self::of(std::slice::from_raw_parts(data, size as usize)),
            _ => NalFraming::AnnexB,
        }
    }
}

/// Whether an H.264 packet is an IDR picture (its first slice is an IDR slice): it resets all
/// of the decoder's state that carries over between pictures (references, picture order).
pub fn h264_idr(packet: &[u8], framing: NalFraming) -> bool {
    // NAL unit types in the packet's order: the first slice (1 non-IDR, 5 IDR) decides;
    // parameter sets, SEI and delimiters may precede it.
    let first_slice = match framing {
        NalFraming::Length(size) => {
            let mut at = 0;
            std::iter::from_fn(move || {
                let header = *packet.get(at + size)?;
                let length = packet[at..at + size]
                    .iter()
                    .fold(0usize, |n, &b| n << 8 | usize::from(b));
                at += size + length;
                Some(header & 0x1f)
            })
            .find(|&t| t == 1 || t == 5)
        }
        NalFraming::AnnexB => packet
            .windows(4)
            .filter(|w| w[..3] == [0, 0, 1])
            .map(|w| w[3] & 0x1f)
            .find(|&t| t == 1 || t == 5),
    };
    first_slice == Some(5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idr_packets_are_told_from_other_pictures() {
        // Length-prefixed: SEI (6) then an IDR slice (0x65), or a non-IDR slice (0x41).
        let idr = [0, 0, 0, 2, 0x06, 0xff, 0, 0, 0, 3, 0x65, 0x88, 0x80];
        let p = [0, 0, 0, 3, 0x41, 0x9a, 0x00];
        assert!(h264_idr(&idr, NalFraming::Length(4)));
        assert!(!h264_idr(&p, NalFraming::Length(4)));
        // Annex B: access unit delimiter, SPS, IDR slice; then an I slice that is not IDR.
        let idr = [0, 0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x67, 0x64, 0, 0, 1, 0x65, 0xb8];
        let recovery_i = [0, 0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x06, 0x05, 0, 0, 1, 0x21, 0xe0];
        assert!(h264_idr(&idr, NalFraming::AnnexB));
        assert!(!h264_idr(&recovery_i, NalFraming::AnnexB));
        // Truncated or empty packets are not IDR.
        assert!(!h264_idr(&[0, 0, 0, 9], NalFraming::Length(4)));
        assert!(!h264_idr(&[], NalFraming::AnnexB));
    }

    #[test]
    fn no_more_than_the_deferred_copies_wait_and_each_lets_go_once_copied_or_dropped() {
        let frame = || crate::video::memory::frame(Pixel::NV12, 64, 32).unwrap();
        let deferrals = Deferrals::default();
        let first = deferrals.defer(frame()).ok().unwrap();
        let second = deferrals.defer(frame()).ok().unwrap();
        assert_eq!(deferrals.waiting(), DEFERRED_COPIES);
        // Full: the next frame is given back, to be copied as decoded.
        let third = deferrals.defer(frame());
        assert!(third.is_err());
        drop(first);
        assert_eq!(deferrals.waiting(), 1);
        // A frame in memory has no device to copy from: the copy fails, and no longer waits.
        assert!(second.download().is_err());
        assert_eq!(deferrals.waiting(), 0);
        assert!(deferrals.defer(third.err().unwrap()).is_ok());
        assert_eq!(deferrals.waiting(), 0, "dropped at once");
    }

    #[test]
    fn framing_comes_from_the_extradata() {
        assert_eq!(NalFraming::of(&[1, 0x64, 0, 0x28, 0xff, 0xe1]), NalFraming::Length(4));
        assert_eq!(NalFraming::of(&[1, 0x64, 0, 0x28, 0xfd]), NalFraming::Length(2));
        assert_eq!(NalFraming::of(&[0, 0, 0, 1, 0x67]), NalFraming::AnnexB);
        assert_eq!(NalFraming::of(&[]), NalFraming::AnnexB);
    }
}
