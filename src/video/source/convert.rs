//! Frames converted into the stream's upload layout, size and range by swscale, where the
//! decoder gives them in another (a sampling or depth without a native layout, a picture that
//! changed mid-stream, `compare`'s judged file made like its reference).
//!
//! Y'CbCr's range is part of the conversion: each frame's (a `yuvj` format's full range, else
//! the stream's as decoded) into the range the stream's format states, both set before
//! swscale initialises, as FFmpeg's `scale` filter sets them (`in_range`, `out_range`, or a
//! `yuvj` format on either side). A frame already in the layout, size and range passes as it is.

use super::stream::{native_layout, upload_format};
use crate::colour::Range;
use crate::video::format::{FrameFormat, PlaneLayout};
use ffmpeg::ffi;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;
use std::ffi::CString;
use std::os::raw::c_int;

/// What a converter converts: the frames' format and size, and each side's range (whether it
/// is full), None where the frames are not Y'CbCr into Y'CbCr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    from: (Pixel, u32, u32),
    to: (Pixel, u32, u32),
    full: Option<(bool, bool)>,
}

/// An swscale context made for one `Shape`.
pub(super) struct Converter {
    context: *mut ffi::SwsContext,
    shape: Shape,
    /// Converts whole frames at once, in slices on swscale's own threads (as a filter graph's
    /// `scale` does), not through the one-call `sws_scale`.
    sliced: bool,
}

// SAFETY: an SwsContext has no thread affinity; it is used by one thread at a time, the one
// that owns the VideoSource (the decode thread once spawned).
unsafe impl Send for Converter {}

impl Drop for Converter {
    fn drop(&mut self) {
        // SAFETY: made by sws_alloc_context, freed once.
        unsafe { ffi::sws_freeContext(self.context) };
    }
}

impl Converter {
    /// A converter into the upload layout (`to_upload_layout`): accurate rounding, chroma at
    /// full resolution across, each side's range as `shape` says.
    fn new(shape: Shape) -> Result<Self, String> {
        let flags = ffi::SWS_BICUBIC | ffi::SWS_ACCURATE_RND | ffi::SWS_FULL_CHR_H_INT;
        let (from_full, to_full) = shape.full.unwrap_or((false, false));
        Self::made(
            shape,
            &[
                ("sws_flags", i64::from(flags)),
                ("src_range", i64::from(from_full)),
                ("dst_range", i64::from(to_full)),
            ],
        )
    }

    /// A converter from frames like `frame` (its format, size and range) into `to` (format,
    /// width, height) as FFmpeg's filters' automatic conversion makes one: the `scale` filter
    /// at its defaults, swscale's bicubic and nothing more, a `yuv420p` side's chroma sited as
    /// MPEG-2 sites it (the filter's own setting for that format, a quarter of a line down
    /// from the frame's top), and the frame cut in as many slices as the filter graph has
    /// threads (`graph_threads`). The slices matter: swscale's shortcut from 4:1:0 to 4:2:0
    /// interpolates the chroma of each slice apart, so FFmpeg's figures for such a file follow
    /// the machine's cores, and these do the same. A frame tagged with a range is taken in it,
    /// as the filter sets swscale's input range from the tag once the context is made (Y'CbCr
    /// tagged full is narrowed; grey tagged limited is taken so, where swscale's default takes
    /// grey as full), its output range left swscale's.
    pub(super) fn like_filters(frame: &ffmpeg::frame::Video, to: (Pixel, u32, u32)) -> Result<Self, String> {
        let from = (frame.format(), frame.width(), frame.height());
        let tagged = range_tag(frame);
        let sited = |format: Pixel| -> i64 {
            match format {
                Pixel::YUV420P => 128,
                _ => -513,
            }
        };
        let threads = graph_threads();
        let mut converter = Self::made(
            Shape {
                from,
                to,
                full: tagged.map(|full| (full, false)),
            },
            &[
                ("sws_flags", i64::from(ffi::SWS_BICUBIC)),
                ("src_v_chr_pos", sited(from.0)),
                ("dst_v_chr_pos", sited(to.0)),
                ("threads", i64::from(threads)),
                ("src_range", i64::from(tagged == Some(true) || jpeg_format(from.0))),
            ],
        )?;
        if let Some(full) = tagged {
            // SAFETY: an initialised context; the tables swscale gives back are its own, set
            // again as they are with the input range changed (the scale filter's own calls).
            unsafe {
                let (mut inv_table, mut table) = (std::ptr::null_mut(), std::ptr::null_mut());
                let (mut in_full, mut out_full, mut brightness, mut contrast, mut saturation) = (0, 0, 0, 0, 0);
                let details = ffi::sws_getColorspaceDetails(
                    converter.context,
                    &mut inv_table,
                    &mut in_full,
                    &mut table,
                    &mut out_full,
                    &mut brightness,
                    &mut contrast,
                    &mut saturation,
                );
                if details >= 0 {
                    ffi::sws_setColorspaceDetails(
                        converter.context,
                        inv_table,
                        c_int::from(full),
                        table,
                        out_full,
                        brightness,
                        contrast,
                        saturation,
                    );
                }
            }
        }
        converter.sliced = true;
        Ok(converter)
    }

    /// Whether the converter takes frames like `frame` as `like_filters` makes one for it
    /// (into the format and size it was made for).
    pub(super) fn takes(&self, frame: &ffmpeg::frame::Video) -> bool {
        self.shape.from == (frame.format(), frame.width(), frame.height())
            && self.shape.full.map(|(full, _)| full) == range_tag(frame)
    }

    /// A context for `shape` with swscale's `options` (by name) set besides the sizes and
    /// formats.
    fn made(shape: Shape, options: &[(&str, i64)]) -> Result<Self, String> {
        let failed = || format!("cannot convert {:?} frames", shape.from.0);
        // SAFETY: a context allocated, its options set by name (each exists on an SwsContext),
        // then initialised; freed on every way out once allocated.
        unsafe {
            let context = ffi::sws_alloc_context();
            if context.is_null() {
                return Err(failed());
            }
            let converter = Converter {
                context,
                shape,
                sliced: false,
            };
            let sizes = [
                ("srcw", i64::from(shape.from.1)),
                ("srch", i64::from(shape.from.2)),
                ("src_format", pixel_code(shape.from.0)),
                ("dstw", i64::from(shape.to.1)),
                ("dsth", i64::from(shape.to.2)),
                ("dst_format", pixel_code(shape.to.0)),
            ];
            for &(name, value) in sizes.iter().chain(options) {
                let name = CString::new(name).expect("no NUL");
                if ffi::av_opt_set_int(context.cast(), name.as_ptr(), value, 0) < 0 {
                    return Err(failed());
                }
            }
            if ffi::sws_init_context(context, std::ptr::null_mut(), std::ptr::null_mut()) < 0 {
                return Err(failed());
            }
            Ok(converter)
        }
    }

    pub(super) fn run(
        &mut self,
        input: &ffmpeg::frame::Video,
        output: &mut ffmpeg::frame::Video,
    ) -> Result<(), String> {
        if self.sliced {
            // SAFETY: as below; the output's planes allocated, so swscale writes into them.
            let result = unsafe { ffi::sws_scale_frame(self.context, output.as_mut_ptr(), input.as_ptr()) };
            return match result >= 0 {
                true => Ok(()),
                false => Err(format!("swscale gave {result}")),
            };
        }
        // SAFETY: both frames are of the formats and sizes the context was made for (checked
        // by the caller through `Shape`), their planes allocated.
        let lines = unsafe {
            ffi::sws_scale(
                self.context,
                (*input.as_ptr()).data.as_ptr() as *const *const u8,
                (*input.as_ptr()).linesize.as_ptr(),
                0,
                input.height() as c_int,
                (*output.as_mut_ptr()).data.as_ptr(),
                (*output.as_mut_ptr()).linesize.as_ptr(),
            )
        };
        match lines > 0 {
            true => Ok(()),
            false => Err(format!("swscale gave {lines}")),
        }
    }
}

/// The threads of a filter graph at its defaults, as libavfilter counts them: the machine's
/// cores and one, where it has more than one.
fn graph_threads() -> u32 {
    // SAFETY: a plain query.
    let cores = unsafe { ffi::av_cpu_count() }.max(1) as u32;
    match cores {
        1 => 1,
        n => n + 1,
    }
}

fn pixel_code(format: Pixel) -> i64 {
    let code: ffi::AVPixelFormat = format.into();
    code as i64
}

/// The `yuvj` formats, which swscale takes as full range whatever they are told.
fn jpeg_format(format: Pixel) -> bool {
    matches!(
        format,
        Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P | Pixel::YUVJ411P
    )
}

/// The range `frame` is tagged with (whether full), as the `scale` filter reads it; None where
/// it is not tagged.
fn range_tag(frame: &ffmpeg::frame::Video) -> Option<bool> {
    match frame.color_range() {
        ffmpeg::color::Range::JPEG => Some(true),
        ffmpeg::color::Range::MPEG => Some(false),
        _ => None,
    }
}

/// Whether frames of `format` are Y'CbCr (not R'G'B', a palette or grey), whose range swscale
/// converts.
fn ycbcr(format: Pixel) -> bool {
    let Some(desc) = format.descriptor() else {
        return false;
    };
    // SAFETY: a descriptor from FFmpeg's static table.
    let flags = unsafe { (*desc.as_ptr()).flags };
    let rgb = flags & (ffi::AV_PIX_FMT_FLAG_RGB | ffi::AV_PIX_FMT_FLAG_PAL) as u64 != 0;
    !rgb && desc.nb_components() >= 3
}

/// Whether `frame` is full range: a `yuvj` format, else as the stream is taken (its frames are
/// shown and measured in the stream's range: a frame's own tag that says otherwise is not
/// followed frame by frame).
fn frame_full(frame: &ffmpeg::frame::Video, stream: Range) -> bool {
    jpeg_format(frame.format()) || stream == Range::Full
}

/// `frame` in `format`'s upload layout, size and range: as it is when it already is, else
/// converted by `converter` (made, or made again, when the frame's format, size or range is new
/// to it). `stream_range`: the range of the stream's frames as decoded.
pub(super) fn to_upload_layout(
    format: &FrameFormat,
    stream_range: Range,
    (converter, as_filters): (&mut Option<Converter>, Option<Pixel>),
    frame: ffmpeg::frame::Video,
) -> Result<ffmpeg::frame::Video, String> {
    let target = upload_format(format.layout);
    let into_ycbcr = matches!(
        format.layout,
        PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010
    );
    let full = (into_ycbcr && ycbcr(frame.format()))
        .then(|| (frame_full(&frame, stream_range), format.color.range == Range::Full));
    let native = native_layout(frame.format()).map(|(layout, _)| layout);
    let size = frame.width() == format.width && frame.height() == format.height;
    let into = match as_filters {
        Some(into) => {
            // The filters convert a frame of another format only (its range tag alone changes
            // nothing), into the format itself (yuvj420p, whose layout is yuv420p's).
            if frame.format() == into && size {
                return Ok(frame);
            }
            let to = (into, format.width, format.height);
            if converter.as_ref().is_none_or(|c| !c.takes(&frame) || c.shape.to != to) {
                *converter = None;
                *converter = Some(Converter::like_filters(&frame, to)?);
            }
            into
        }
        None => {
            if native == Some(format.layout) && size && full.is_none_or(|(from, to)| from == to) {
                return Ok(frame);
            }
            let shape = Shape {
                from: (frame.format(), frame.width(), frame.height()),
                to: (target, format.width, format.height),
                full,
            };
            if converter.as_ref().is_none_or(|c| c.shape != shape) {
                *converter = None;
                *converter = Some(Converter::new(shape)?);
            }
            target
        }
    };
    // Into counted frame memory, where the cache's frames are.
    let mut out = crate::video::memory::frame(into, format.width, format.height)
        .map_err(|e| format!("no memory for a converted frame: {e}"))?;
    converter
        .as_mut()
        .expect("made above")
        .run(&frame, &mut out)
        .map_err(|e| format!("converting a frame failed: {e}"))?;
    out.set_pts(frame.pts());
    Ok(out)
}

/// Frames converted into one format as FFmpeg's automatic conversion converts them for a
/// filter (`Converter::like_filters`), their size kept: for readers of the samples themselves,
/// where one filter takes a frame as another filter's negotiation gave it out and its own
/// converts it further (`compare`'s SSIM of 10-bit Y'CbCr with alpha, which FFmpeg's ssim reads
/// made 16-bit where its psnr reads it as it is).
pub struct FilterConversion {
    to: Pixel,
    converter: Option<Converter>,
    out: Option<ffmpeg::frame::Video>,
}

impl FilterConversion {
    pub fn into(to: Pixel) -> Self {
        Self {
            to,
            converter: None,
            out: None,
        }
    }

    /// `frame` converted (the same frame where it is in the format already).
    pub fn convert<'a>(&'a mut self, frame: &'a ffmpeg::frame::Video) -> Result<&'a ffmpeg::frame::Video, String> {
        if frame.format() == self.to {
            return Ok(frame);
        }
        let (width, height) = (frame.width(), frame.height());
        if self.converter.as_ref().is_none_or(|c| !c.takes(frame)) {
            self.converter = Some(Converter::like_filters(frame, (self.to, width, height))?);
            self.out = Some(ffmpeg::frame::Video::new(self.to, width, height));
        }
        let (converter, out) = (
            self.converter.as_mut().expect("made above"),
            self.out.as_mut().expect("made above"),
        );
        converter
            .run(frame, out)
            .map_err(|e| format!("converting a frame failed: {e}"))?;
        Ok(out)
    }
}
