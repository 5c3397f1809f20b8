//! FFmpeg's frames and buffers made of the frame memory: `get_buffer2` for software decoders,
//! frames for swscale's output and hardware downloads, each plane an `AVBuffer` whose last
//! reference gives its block back.

use super::{Block, FrameMemory, FRAME_MEMORY};
use ffmpeg::ffi;
use ffmpeg_next as ffmpeg;

/// What FFmpeg's own frame pool adds to each plane: room for decoders that read a little past
/// the end (16 bytes), and for aligning the plane's start (its STRIDE_ALIGN, 64 at most).
const PLANE_PADDING: usize = 16 + 64 - 1;

/// Rows of frames made here (swscale's output, hardware downloads) start at multiples of this.
const ROW_ALIGN: i32 = 64;

impl FrameMemory {
    /// An FFmpeg buffer of `size` bytes from here, going back when its last reference goes;
    /// null if the memory can't be had.
    pub fn buffer(&'static self, size: usize) -> *mut ffi::AVBufferRef {
        let Some(block) = self.lend(size) else {
            return std::ptr::null_mut();
        };
        let ptr = block.ptr;
        std::mem::forget(block);
        // SAFETY: the block's memory, `size` bytes; `free_buffer` gets it back with its size.
        let buffer = unsafe { ffi::av_buffer_create(ptr, size, Some(free_buffer), size as *mut libc::c_void, 0) };
        if buffer.is_null() {
            self.give_back(Block { ptr, size });
        }
        buffer
    }
}

/// AVBuffer's free callback: the block goes back (its size rides in `opaque`).
unsafe extern "C" fn free_buffer(opaque: *mut libc::c_void, data: *mut u8) {
    FRAME_MEMORY.give_back(Block {
        ptr: data,
        size: opaque as usize,
    });
}

/// Gives `frame` (its format, width and height set) planes from `FRAME_MEMORY`, laid out as
/// FFmpeg lays out a decoder's frames: rows of `linesize` bytes, each plane in a buffer of its
/// own with FFmpeg's padding after it. Fails with an FFmpeg error code.
///
/// # Safety
/// `frame` is a valid frame without buffers; `linesize` holds the pitch of each of its planes.
pub(super) unsafe fn fill_planes(frame: *mut ffi::AVFrame, linesize: [i32; 4], height: i32) -> Result<(), i32> {
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let pitches = linesize.map(|l| l as isize);
    let mut sizes = [0usize; 4];
    let filled = ffi::av_image_fill_plane_sizes(sizes.as_mut_ptr(), format, height, pitches.as_ptr());
    if filled < 0 {
        return Err(filled);
    }
    for (i, &size) in sizes.iter().enumerate() {
        if size == 0 {
            break;
        }
        let buffer = FRAME_MEMORY.buffer(size + PLANE_PADDING);
        if buffer.is_null() {
            for j in 0..i {
                ffi::av_buffer_unref(&mut (*frame).buf[j]);
                (*frame).data[j] = std::ptr::null_mut();
            }
            return Err(ffi::AVERROR(libc::ENOMEM));
        }
        (*frame).buf[i] = buffer;
        (*frame).data[i] = (*buffer).data;
        (*frame).linesize[i] = linesize[i];
    }
    (*frame).extended_data = (*frame).data.as_mut_ptr();
    Ok(())
}

/// A frame of `format` and size with planes from `FRAME_MEMORY`, rows aligned to 64 bytes.
pub fn frame(format: ffmpeg::format::Pixel, width: u32, height: u32) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
    let mut frame = ffmpeg::frame::Video::empty();
    let (w, h) = (
        i32::try_from(width).map_err(|_| ffmpeg::Error::InvalidData)?,
        i32::try_from(height).map_err(|_| ffmpeg::Error::InvalidData)?,
    );
    // SAFETY: a fresh frame, given its format and size, then planes sized for them by FFmpeg.
    unsafe {
        let f = frame.as_mut_ptr();
        (*f).format = ffi::AVPixelFormat::from(format) as i32;
        (*f).width = w;
        (*f).height = h;
        let mut linesize = [0i32; 4];
        let done = ffi::av_image_fill_linesizes(linesize.as_mut_ptr(), ffi::AVPixelFormat::from(format), w);
        if done < 0 {
            return Err(ffmpeg::Error::from(done));
        }
        let linesize = linesize.map(|l| (l + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN);
        fill_planes(f, linesize, h).map_err(ffmpeg::Error::from)?;
    }
    Ok(frame)
}

/// A second reference to `frame`'s planes (no copy), with its properties.
pub fn reference(frame: &ffmpeg::frame::Video) -> Result<ffmpeg::frame::Video, ffmpeg::Error> {
    let mut copy = ffmpeg::frame::Video::empty();
    // SAFETY: a fresh frame made to refer to the buffers of a valid one.
    let done = unsafe { ffi::av_frame_ref(copy.as_mut_ptr(), frame.as_ptr()) };
    match done {
        0 => Ok(copy),
        e => Err(ffmpeg::Error::from(e)),
    }
}

/// Whether `ctx`'s frames of `format` can come from the frame memory: a software decoder that
/// takes frames from elsewhere (DR1), a format without a palette.
pub(super) unsafe fn takes_frame_memory(ctx: *const ffi::AVCodecContext, format: ffi::AVPixelFormat) -> bool {
    let desc = ffi::av_pix_fmt_desc_get(format);
    let own_kind = ffi::AV_PIX_FMT_FLAG_PAL as u64 | ffi::AV_PIX_FMT_FLAG_HWACCEL as u64;
    let dr1 = !(*ctx).codec.is_null() && (*(*ctx).codec).capabilities & ffi::AV_CODEC_CAP_DR1 as i32 != 0;
    !desc.is_null() && (*desc).flags & own_kind == 0 && dr1 && (*ctx).hw_frames_ctx.is_null()
}

/// The pitch of each plane of `ctx`'s frames of `format` at `w` x `h`, and the rows to make
/// room for, as FFmpeg's pool lays them out (its alignment of the picture's size and of the
/// rows, per codec), every pitch a multiple of `row_align` too; None where FFmpeg can't size
/// them.
///
/// # Safety
/// `ctx` is a valid decoder context.
pub(super) unsafe fn decoder_linesizes(
    ctx: *mut ffi::AVCodecContext,
    format: ffi::AVPixelFormat,
    (w, h): (i32, i32),
    row_align: i32,
) -> Option<([i32; 4], i32)> {
    if w <= 0 || h <= 0 {
        return None;
    }
    let (mut w, mut h) = (w, h);
    let mut align = [0i32; ffi::AV_NUM_DATA_POINTERS as usize];
    ffi::avcodec_align_dimensions2(ctx, &mut w, &mut h, align.as_mut_ptr());
    // As FFmpeg's pool does: widen until every plane's rows meet their alignment (not each
    // row aligned by itself, which would break 4:2:2's chroma being half the luma's pitch).
    let mut linesize = [0i32; 4];
    loop {
        if ffi::av_image_fill_linesizes(linesize.as_mut_ptr(), format, w) < 0 {
            return None;
        }
        let unaligned = (0..4).any(|i| {
            linesize[i] > 0 && (linesize[i] % row_align != 0 || (align[i] > 0 && linesize[i] % align[i] != 0))
        });
        if !unaligned {
            return Some((linesize, h));
        }
        w = w.checked_add(w & !(w - 1))?;
    }
}

/// `AVCodecContext.get_buffer2` for software decoders: frames from `FRAME_MEMORY`, laid out as
/// FFmpeg's default does (`decoder_linesizes`). Hardware frames, palette formats and decoders
/// that can't take frames from elsewhere get FFmpeg's own.
///
/// # Safety
/// Called by FFmpeg with a valid context and a frame to fill.
pub unsafe extern "C" fn get_buffer2(ctx: *mut ffi::AVCodecContext, frame: *mut ffi::AVFrame, flags: i32) -> i32 {
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let sized = match takes_frame_memory(ctx, format) {
        true => decoder_linesizes(ctx, format, ((*frame).width, (*frame).height), 1),
        false => None,
    };
    let Some((linesize, rows)) = sized else {
        return ffi::avcodec_default_get_buffer2(ctx, frame, flags);
    };
    match fill_planes(frame, linesize, rows) {
        Ok(()) => {
            clear_if_unwritten(ctx, frame);
            0
        }
        Err(code) => code,
    }
}

/// Clears a frame's buffers where its decoder may leave part of the picture unwritten: FFmpeg's
/// FFV1 decoder, on a damaged slice it cannot tell is damaged (a version 0 or 1 stream has no
/// checksums), stops where its data ends and leaves the rest of the frame as the buffer held
/// it, another frame's pixels from whichever buffer came back last. Cleared, the same file
/// gives the same pictures every time, on every path.
///
/// # Safety
/// `ctx` is a valid context; `frame`'s buffers are its own, just made.
pub(super) unsafe fn clear_if_unwritten(ctx: *const ffi::AVCodecContext, frame: *mut ffi::AVFrame) {
    if (*ctx).codec_id != ffi::AVCodecID::AV_CODEC_ID_FFV1 {
        return;
    }
    for buffer in (*frame).buf {
        if !buffer.is_null() {
            std::ptr::write_bytes((*buffer).data, 0, (*buffer).size);
        }
    }
}
