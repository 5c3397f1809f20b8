//! What FFmpeg says of a stream, in histoplay's terms (plane layouts, matrices, ranges,
//! rotation), and the demuxer operations the source, the index and the sound share.

use crate::video::format::{Matrix, PlaneLayout, Range};
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;

/// Maps FFmpeg pixel formats histoplay uploads as they are; None for the rest, which swscale
/// converts. The bool says whether the format is a full-range JPEG one.
pub(super) fn native_layout(format: Pixel) -> Option<(PlaneLayout, bool)> {
    let yuv = |chroma_shift_x, chroma_shift_y, bits| PlaneLayout::Yuv {
        chroma_shift_x,
        chroma_shift_y,
        bits,
    };
    Some(match format {
        Pixel::YUV420P => (yuv(1, 1, 8), false),
        Pixel::YUVJ420P => (yuv(1, 1, 8), true),
        Pixel::YUV422P => (yuv(1, 0, 8), false),
        Pixel::YUVJ422P => (yuv(1, 0, 8), true),
        Pixel::YUV444P => (yuv(0, 0, 8), false),
        Pixel::YUVJ444P => (yuv(0, 0, 8), true),
        Pixel::YUV420P10LE => (yuv(1, 1, 10), false),
        Pixel::YUV422P10LE => (yuv(1, 0, 10), false),
        Pixel::YUV444P10LE => (yuv(0, 0, 10), false),
        Pixel::YUV420P12LE => (yuv(1, 1, 12), false),
        Pixel::YUV422P12LE => (yuv(1, 0, 12), false),
        Pixel::YUV444P12LE => (yuv(0, 0, 12), false),
        Pixel::NV12 => (PlaneLayout::Nv12, false),
        Pixel::GRAY8 => (PlaneLayout::Gray { bits: 8 }, false),
        Pixel::GRAY10LE => (PlaneLayout::Gray { bits: 10 }, false),
        Pixel::GRAY12LE => (PlaneLayout::Gray { bits: 12 }, false),
        Pixel::GBRP => (PlaneLayout::Gbr { bits: 8 }, false),
        Pixel::GBRP10LE => (PlaneLayout::Gbr { bits: 10 }, false),
        Pixel::GBRP12LE => (PlaneLayout::Gbr { bits: 12 }, false),
        Pixel::RGB24 => (PlaneLayout::Rgb24, false),
        Pixel::RGBA => (PlaneLayout::Rgba, false),
        Pixel::BGRA => (PlaneLayout::Bgra, false),
        _ => return None,
    })
}

/// The supported format an unsupported one is converted to by swscale: RGB stays RGB and
/// Y'CbCr becomes 4:4:4, so no chroma is thrown away, at 8, 10 or 12 bits (the nearest depth
/// at or above the source's, 12 for deeper ones).
pub(super) fn fallback_format(format: Pixel) -> Pixel {
    let Some(desc) = format.descriptor() else {
        return Pixel::RGBA;
    };
    // SAFETY: a descriptor from FFmpeg's static table.
    let (flags, depth) = unsafe { ((*desc.as_ptr()).flags, (*desc.as_ptr()).comp[0].depth) };
    let rgb = flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB as u64 != 0;
    let pick = |eight, ten, twelve| match depth {
        0..=8 => eight,
        9..=10 => ten,
        _ => twelve,
    };
    if desc.nb_components() == 0 {
        Pixel::RGBA
    } else if rgb {
        pick(Pixel::RGBA, Pixel::GBRP10LE, Pixel::GBRP12LE)
    } else if desc.nb_components() <= 2 {
        pick(Pixel::GRAY8, Pixel::GRAY10LE, Pixel::GRAY12LE)
    } else {
        pick(Pixel::YUV444P, Pixel::YUV444P10LE, Pixel::YUV444P12LE)
    }
}

/// The FFmpeg format of frames uploaded as `layout`: what swscale brings frames to that do not
/// arrive in the stream's own format (a format change mid-stream).
pub(super) fn upload_format(layout: PlaneLayout) -> Pixel {
    match layout {
        PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            bits,
        } => match (chroma_shift_x, chroma_shift_y, bits) {
            (1, 1, 8) => Pixel::YUV420P,
            (1, 0, 8) => Pixel::YUV422P,
            (_, _, 8) => Pixel::YUV444P,
            (1, 1, 10) => Pixel::YUV420P10LE,
            (1, 0, 10) => Pixel::YUV422P10LE,
            (_, _, 10) => Pixel::YUV444P10LE,
            (1, 1, _) => Pixel::YUV420P12LE,
            (1, 0, _) => Pixel::YUV422P12LE,
            _ => Pixel::YUV444P12LE,
        },
        PlaneLayout::Gray { bits: 8 } => Pixel::GRAY8,
        PlaneLayout::Gray { bits: 10 } => Pixel::GRAY10LE,
        PlaneLayout::Gray { .. } => Pixel::GRAY12LE,
        PlaneLayout::Gbr { bits: 8 } => Pixel::GBRP,
        PlaneLayout::Gbr { bits: 10 } => Pixel::GBRP10LE,
        PlaneLayout::Gbr { .. } => Pixel::GBRP12LE,
        PlaneLayout::Nv12 => Pixel::NV12,
        PlaneLayout::Rgb24 => Pixel::RGB24,
        PlaneLayout::Rgba => Pixel::RGBA,
        PlaneLayout::Bgra => Pixel::BGRA,
    }
}

pub(super) fn matrix_of(space: ffmpeg::color::Space) -> Option<Matrix> {
    use ffmpeg::color::Space;
    match space {
        Space::BT709 => Some(Matrix::Bt709),
        Space::BT470BG | Space::SMPTE170M | Space::SMPTE240M | Space::FCC => Some(Matrix::Bt601),
        Space::BT2020NCL | Space::BT2020CL => Some(Matrix::Bt2020),
        _ => None,
    }
}

pub(super) fn range_of(range: ffmpeg::color::Range) -> Option<Range> {
    match range {
        ffmpeg::color::Range::MPEG => Some(Range::Limited),
        ffmpeg::color::Range::JPEG => Some(Range::Full),
        _ => None,
    }
}

/// The stream's display rotation as clockwise quarter turns.
pub(super) fn quarter_turns(stream: &ffmpeg::format::stream::Stream) -> u32 {
    for side in stream.side_data() {
        if side.kind() == ffmpeg::codec::packet::side_data::Type::DisplayMatrix && side.data().len() >= 36 {
            // SAFETY: a display matrix is nine i32; av_display_rotation_get reads exactly those.
            let ccw = unsafe { ffmpeg::ffi::av_display_rotation_get(side.data().as_ptr() as *const i32) };
            if ccw.is_finite() {
                return ((-ccw / 90.0).round() as i64).rem_euclid(4) as u32;
            }
        }
    }
    0
}

/// Makes the demuxer skip the data of every stream but `keep` (audio has a reader of its own).
pub(crate) fn discard_other_streams(input: &mut ffmpeg::format::context::Input, keep: usize) {
    // SAFETY: a valid input context; its streams array holds nb_streams entries.
    unsafe {
        let ctx = input.as_mut_ptr();
        for i in 0..(*ctx).nb_streams as usize {
            if i != keep {
                (**(*ctx).streams.add(i)).discard = ffmpeg::ffi::AVDiscard::AVDISCARD_ALL;
            }
        }
    }
}

/// Positions `input` at the packet of stream `stream_index` at or before `pts` (in the stream's
/// time base); false if the demuxer can't seek there.
pub(crate) fn seek_backward(input: &mut ffmpeg::format::context::Input, stream_index: usize, pts: i64) -> bool {
    // SAFETY: a valid input context and one of its stream indices.
    let result = unsafe {
        ffmpeg::ffi::av_seek_frame(
            input.as_mut_ptr(),
            stream_index as i32,
            pts,
            ffmpeg::ffi::AVSEEK_FLAG_BACKWARD,
        )
    };
    result >= 0
}
