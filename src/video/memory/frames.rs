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
unsafe fn fill_planes(frame: *mut ffi::AVFrame, linesize: [i32; 4], height: i32) -> Result<(), i32> {
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

/// `AVCodecContext.get_buffer2` for a software decoder whose `opaque` is its stream's
/// `DirectFrames`: a frame in a slot of its pool where it has one free, else as `get_buffer2`.
///
/// # Safety
/// Called by FFmpeg with a valid context and a frame to fill; `opaque` is null or a
/// `DirectFrames` that outlives the context.
pub unsafe extern "C" fn get_buffer2_direct(
    ctx: *mut ffi::AVCodecContext,
    frame: *mut ffi::AVFrame,
    flags: i32,
) -> i32 {
    let direct = (*ctx).opaque as *const super::DirectFrames;
    let capable = !(*ctx).codec.is_null() && (*(*ctx).codec).capabilities & ffi::AV_CODEC_CAP_DR1 as i32 != 0;
    if direct.is_null() || !capable || !(*ctx).hw_frames_ctx.is_null() {
        return get_buffer2(ctx, frame, flags);
    }
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let Some(layout) = super::direct::layout(ctx, format, (*frame).width, (*frame).height) else {
        return get_buffer2(ctx, frame, flags);
    };
    if super::direct::fill_slot(&*direct, &layout, frame) {
        return 0;
    }
    // Laid out as in a slot, in frame memory.
    match fill_planes(frame, layout.linesize, layout.rows) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// `AVCodecContext.get_buffer2` for software decoders: frames from `FRAME_MEMORY`, laid out as
/// FFmpeg's default does (its alignment of the picture's size and of the rows, per codec).
/// Hardware frames, palette formats and decoders that can't take frames from elsewhere get
/// FFmpeg's own.
///
/// # Safety
/// Called by FFmpeg with a valid context and a frame to fill.
pub unsafe extern "C" fn get_buffer2(ctx: *mut ffi::AVCodecContext, frame: *mut ffi::AVFrame, flags: i32) -> i32 {
    let format: ffi::AVPixelFormat = std::mem::transmute((*frame).format);
    let desc = ffi::av_pix_fmt_desc_get(format);
    let own_kind = ffi::AV_PIX_FMT_FLAG_PAL as u64 | ffi::AV_PIX_FMT_FLAG_HWACCEL as u64;
    let direct = !(*ctx).codec.is_null() && (*(*ctx).codec).capabilities & ffi::AV_CODEC_CAP_DR1 as i32 != 0;
    if desc.is_null() || (*desc).flags & own_kind != 0 || !direct || !(*ctx).hw_frames_ctx.is_null() {
        return ffi::avcodec_default_get_buffer2(ctx, frame, flags);
    }
    let (mut w, mut h) = ((*frame).width, (*frame).height);
    let mut align = [0i32; ffi::AV_NUM_DATA_POINTERS as usize];
    ffi::avcodec_align_dimensions2(ctx, &mut w, &mut h, align.as_mut_ptr());
    // As FFmpeg's pool does: widen until every plane's rows meet their alignment (not each
    // row aligned by itself, which would break 4:2:2's chroma being half the luma's pitch).
    let mut linesize = [0i32; 4];
    loop {
        if ffi::av_image_fill_linesizes(linesize.as_mut_ptr(), format, w) < 0 {
            return ffi::avcodec_default_get_buffer2(ctx, frame, flags);
        }
        let unaligned = (0..4).any(|i| align[i] > 0 && linesize[i] % align[i] != 0);
        if !unaligned {
            break;
        }
        w += w & !(w - 1);
    }
    match fill_planes(frame, linesize, h) {
        Ok(()) => 0,
        Err(code) => code,
    }
}
