//! What FFmpeg says of a stream, in histoplay's terms (plane layouts, matrices, ranges,
//! rotation).

use crate::colour::{ColorVolume, Matrix, Primaries, Range, Transfer};
use crate::video::format::PlaneLayout;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;

/// Maps FFmpeg pixel formats histoplay uploads as they are; None for the rest, which swscale
/// converts. The bool says whether the format is full range unless tagged otherwise: the JPEG
/// (yuvj) formats and grey, which swscale takes as full range when its range is unspecified.
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
        Pixel::P010LE => (PlaneLayout::P010, false),
        Pixel::GRAY8 => (PlaneLayout::Gray { bits: 8 }, true),
        Pixel::GRAY9LE => (PlaneLayout::Gray { bits: 9 }, true),
        Pixel::GRAY10LE => (PlaneLayout::Gray { bits: 10 }, true),
        Pixel::GRAY12LE => (PlaneLayout::Gray { bits: 12 }, true),
        Pixel::GRAY14LE => (PlaneLayout::Gray { bits: 14 }, true),
        Pixel::GRAY16LE => (PlaneLayout::Gray { bits: 16 }, true),
        Pixel::GBRP => (PlaneLayout::Gbr { bits: 8 }, false),
        Pixel::GBRP10LE => (PlaneLayout::Gbr { bits: 10 }, false),
        Pixel::GBRP12LE => (PlaneLayout::Gbr { bits: 12 }, false),
        Pixel::RGB24 => (PlaneLayout::Rgb24, false),
        Pixel::RGBA => (PlaneLayout::Rgba, false),
        Pixel::BGRA => (PlaneLayout::Bgra, false),
        _ => return None,
    })
}

/// The layout frames of `format` are uploaded in: their own where histoplay uploads it as it
/// is, else `fallback_format`'s (with `native_layout`'s full-range flag); None only for a
/// format FFmpeg has no description of.
pub(super) fn upload_layout(format: Pixel) -> Option<(PlaneLayout, bool)> {
    native_layout(format).or_else(|| native_layout(fallback_format(format)))
}

/// The supported format an unsupported one is converted to by swscale: RGB (and a palette's
/// colours) stays RGB; Y'CbCr
/// of a subsampling and depth a native layout has (with alpha, semi-planar, big-endian) becomes
/// that layout, its samples copied as they are (an alpha plane dropped); other Y'CbCr becomes
/// 4:4:4, so no chroma is thrown away, at 8, 10 or 12 bits (the nearest depth at or above the
/// source's, 12 for deeper ones). Grey, with or without alpha, keeps its depth
/// in little-endian planar grey: swscale copies the samples as they are, so the grey
/// conversion sees the very codes the file holds.
pub(super) fn fallback_format(format: Pixel) -> Pixel {
    let Some(desc) = format.descriptor() else {
        return Pixel::RGBA;
    };
    // SAFETY: a descriptor from FFmpeg's static table.
    let (flags, depth) = unsafe { ((*desc.as_ptr()).flags, (*desc.as_ptr()).comp[0].depth) };
    // (A palette's indices stand for R'G'B' colours.)
    let rgb = flags & (ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB | ffmpeg::ffi::AV_PIX_FMT_FLAG_PAL) as u64 != 0;
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
        match depth {
            0..=8 => Pixel::GRAY8,
            9 => Pixel::GRAY9LE,
            10 => Pixel::GRAY10LE,
            11..=12 => Pixel::GRAY12LE,
            13..=14 => Pixel::GRAY14LE,
            _ => Pixel::GRAY16LE,
        }
    } else {
        // SAFETY: as above.
        let (w, h) = unsafe { ((*desc.as_ptr()).log2_chroma_w, (*desc.as_ptr()).log2_chroma_h) };
        let same = match (w, h, depth) {
            (1, 1, 8) => Some(Pixel::YUV420P),
            (1, 0, 8) => Some(Pixel::YUV422P),
            (0, 0, 8) => Some(Pixel::YUV444P),
            (1, 1, 10) => Some(Pixel::YUV420P10LE),
            (1, 0, 10) => Some(Pixel::YUV422P10LE),
            (0, 0, 10) => Some(Pixel::YUV444P10LE),
            (1, 1, 12) => Some(Pixel::YUV420P12LE),
            (1, 0, 12) => Some(Pixel::YUV422P12LE),
            (0, 0, 12) => Some(Pixel::YUV444P12LE),
            _ => None,
        };
        same.unwrap_or_else(|| pick(Pixel::YUV444P, Pixel::YUV444P10LE, Pixel::YUV444P12LE))
    }
}

/// `format` as FFmpeg names it (`gray`, `bgr0`: ffprobe's `pix_fmt`).
pub fn pixel_name(format: Pixel) -> String {
    match format.descriptor() {
        Some(desc) => desc.name().to_string(),
        None => format!("{format:?}").to_lowercase(),
    }
}

/// The Y'CbCr format FFmpeg's filters measure frames of `format` in (signalstats, idet),
/// where that changes their samples: R'G'B', palette, grey and XYZ made Y'CbCr, Y'CbCr with
/// alpha at 9 to 15 bits made 16-bit, chroma the filter does not take resampled (4:1:0 made
/// 4:2:0). None where the samples are measured as decoded: a format the filter takes, and one
/// it takes repacked with the same sampling and depth (NV12 as 4:2:0, a plane of alpha left
/// out).
pub(super) fn statistics_format(format: Pixel) -> Option<Pixel> {
    measured_format(STATISTICS, format)
}

/// The filter the statistics are FFmpeg's of (its format negotiation's).
pub(super) const STATISTICS: &str = "signalstats";

/// The format `filter` (`negotiated`'s) measures frames of `format` in, where that changes
/// their samples, as `statistics_format` is signalstats'.
pub(super) fn measured_format(filter: &'static str, format: Pixel) -> Option<Pixel> {
    let picked = negotiated(filter, format)?;
    if picked == format {
        return None;
    }
    // Chroma subsampling and depth, of Y'CbCr read as it is.
    let shape = |format: Pixel| {
        let desc = format.descriptor()?;
        // SAFETY: a descriptor from FFmpeg's static table.
        let d = unsafe { &*desc.as_ptr() };
        Some((d.log2_chroma_w, d.log2_chroma_h, d.comp[0].depth))
    };
    let yuv = |format: Pixel| {
        planar_yuv_layout(format).is_some()
            || matches!(
                native_layout(format),
                Some((PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010, _))
            )
    };
    let read = shape(format).filter(|_| yuv(format));
    // (Y'CbCr repacked with its sampling and depth kept is measured as decoded.)
    match read.is_some() && read == shape(picked) {
        true => None,
        false => Some(picked),
    }
}

/// The format libavfilter's format negotiation picks for `filter`'s input (a filter of one
/// input, at its defaults, or a chain from one input to one output: `split[a][b];[a][b]psnr`
/// for a filter of two) when it is fed frames of `format`: `format` itself where the filter
/// takes it, else what its automatic conversion converts them to. Asked of libavfilter
/// itself, once per filter and format; None where no graph can be made of it.
pub fn negotiated(filter: &'static str, format: Pixel) -> Option<Pixel> {
    negotiated_for(filter, &[format])
}

/// The format libavfilter's negotiation picks for a filter of two inputs (`psnr`, `ssim`) fed
/// `a`'s frames on its first and `b`'s on its second: the one both are measured in (the first's
/// where the filter takes it, as FFmpeg's graph converts the second into it).
pub fn negotiated_pair(filter: &'static str, a: Pixel, b: Pixel) -> Option<Pixel> {
    negotiated_for(filter, &[a, b])
}

/// `negotiated` of one format, `negotiated_pair` of two (labelled [a] and [b] in `filter`'s
/// graph: `[a][b]psnr`).
fn negotiated_for(filter: &'static str, formats: &[Pixel]) -> Option<Pixel> {
    type Picked = Vec<(&'static str, Vec<Pixel>, Option<Pixel>)>;
    static PICKED: std::sync::Mutex<Picked> = std::sync::Mutex::new(Vec::new());
    let mut picked = PICKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, known)) = picked.iter().find(|(n, f, _)| *n == filter && f == formats) {
        return *known;
    }
    let negotiated = negotiate(filter, formats);
    picked.push((filter, formats.to_vec(), negotiated));
    negotiated
}

fn negotiate(filter: &str, formats: &[Pixel]) -> Option<Pixel> {
    let mut graph = ffmpeg::filter::Graph::new();
    // (One input's buffer is "in", as a chain's labels inside may be [a] and [b].)
    let names: &[&str] = if formats.len() == 1 { &["in"] } else { &["a", "b"] };
    for (&format, &name) in formats.iter().zip(names) {
        let raw = ffmpeg::ffi::AVPixelFormat::from(format) as i32;
        let args = format!("video_size=16x16:pix_fmt={raw}:time_base=1/25:pixel_aspect=1/1");
        graph.add(&ffmpeg::filter::find("buffer")?, name, &args).ok()?;
    }
    graph.add(&ffmpeg::filter::find("buffersink")?, "out", "").ok()?;
    let mut parser = graph.input("out", 0).ok()?;
    for name in names {
        parser = parser.output(name, 0).ok()?;
    }
    parser.parse(filter).ok()?;
    graph.validate().ok()?;
    let sink = graph.get("out")?;
    // SAFETY: a configured graph's sink has its one input link, of a format libavfilter
    // picked from its own list (a valid AVPixelFormat).
    let negotiated = unsafe {
        let link = *(*sink.as_ptr()).inputs;
        std::mem::transmute::<i32, ffmpeg::ffi::AVPixelFormat>((*link).format)
    };
    Some(Pixel::from(negotiated))
}

/// The layout of planar little-endian Y'CbCr frames of `format` as decoded, of any chroma
/// subsampling and of 8 to 16 bits, an alpha plane aside; None for other formats (RGB, grey,
/// semi-planar, big-endian).
pub(super) fn planar_yuv_layout(format: Pixel) -> Option<PlaneLayout> {
    let desc = format.descriptor()?;
    // SAFETY: a descriptor from FFmpeg's static table.
    let d = unsafe { &*desc.as_ptr() };
    let flags = d.flags;
    let planar = flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_PLANAR as u64 != 0;
    let rgb = flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB as u64 != 0;
    let big_endian = flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_BE as u64 != 0;
    let bits = d.comp[0].depth as u32;
    let separate = d.nb_components >= 3 && d.comp[0].plane == 0 && d.comp[1].plane == 1 && d.comp[2].plane == 2;
    (planar && !rgb && !big_endian && separate && (8..=16).contains(&bits)).then_some(PlaneLayout::Yuv {
        chroma_shift_x: u32::from(d.log2_chroma_w),
        chroma_shift_y: u32::from(d.log2_chroma_h),
        bits,
    })
}

/// The layout of planar little-endian frames of `format` as decoded, of 8 to 16 bits, an alpha
/// plane aside: Y'CbCr (`planar_yuv_layout`), R'G'B' (G, B and R planes) or grey; None for
/// others (packed, semi-planar, big-endian, floats, palette, grey with its alpha interleaved).
pub fn planar_layout(format: Pixel) -> Option<PlaneLayout> {
    if let Some(layout) = planar_yuv_layout(format) {
        return Some(layout);
    }
    let desc = format.descriptor()?;
    // SAFETY: a descriptor from FFmpeg's static table.
    let d = unsafe { &*desc.as_ptr() };
    let flag = |f: i32| d.flags & f as u64 != 0;
    let bits = d.comp[0].depth as u32;
    let bytes = bits.div_ceil(8) as i32;
    let plain = (8..=16).contains(&bits)
        && !flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_BE)
        && !flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_FLOAT)
        && !flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_PAL)
        && !flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_BAYER);
    let rgb = flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB);
    let gbr = rgb
        && flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_PLANAR)
        && d.nb_components >= 3
        && (d.comp[0].plane, d.comp[1].plane, d.comp[2].plane) == (2, 0, 1);
    let grey = !rgb && d.nb_components <= 2 && d.comp[0].plane == 0 && d.comp[0].step == bytes;
    match (plain, gbr, grey) {
        (true, true, _) => Some(PlaneLayout::Gbr { bits }),
        (true, _, true) if d.nb_components == 1 => Some(PlaneLayout::Gray { bits }),
        _ => None,
    }
}

/// Whether frames of `format` hold their alpha in a plane of their own after the colour planes
/// `planar_layout` reads (yuva420p, yuva444p10le, gbrap): their fourth.
pub fn separate_alpha(format: Pixel) -> bool {
    let Some(desc) = format.descriptor() else {
        return false;
    };
    // SAFETY: a descriptor from FFmpeg's static table.
    let d = unsafe { &*desc.as_ptr() };
    d.nb_components == 4 && d.comp[3].plane == 3 && planar_layout(format).is_some()
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
        PlaneLayout::Gray { bits: 9 } => Pixel::GRAY9LE,
        PlaneLayout::Gray { bits: 10 } => Pixel::GRAY10LE,
        PlaneLayout::Gray { bits: 12 } => Pixel::GRAY12LE,
        PlaneLayout::Gray { bits: 14 } => Pixel::GRAY14LE,
        PlaneLayout::Gray { .. } => Pixel::GRAY16LE,
        PlaneLayout::Gbr { bits: 8 } => Pixel::GBRP,
        PlaneLayout::Gbr { bits: 10 } => Pixel::GBRP10LE,
        PlaneLayout::Gbr { .. } => Pixel::GBRP12LE,
        PlaneLayout::Nv12 => Pixel::NV12,
        PlaneLayout::P010 => Pixel::P010LE,
        PlaneLayout::Rgb24 => Pixel::RGB24,
        PlaneLayout::Rgba => Pixel::RGBA,
        PlaneLayout::Bgra => Pixel::BGRA,
    }
}

pub(super) fn matrix_of(space: ffmpeg::color::Space) -> Option<Matrix> {
    use ffmpeg::color::Space;
    match space {
        Space::BT709 => Some(Matrix::Bt709),
        Space::BT470BG | Space::SMPTE170M => Some(Matrix::Bt601),
        Space::SMPTE240M => Some(Matrix::Smpte240m),
        Space::FCC => Some(Matrix::Fcc),
        Space::BT2020NCL | Space::BT2020CL => Some(Matrix::Bt2020),
        _ => None,
    }
}

pub(super) fn transfer_of(transfer: ffmpeg::color::TransferCharacteristic) -> Transfer {
    use ffmpeg::color::TransferCharacteristic as T;
    match transfer {
        T::SMPTE2084 => Transfer::Pq,
        T::ARIB_STD_B67 => Transfer::Hlg,
        _ => Transfer::Sdr,
    }
}

pub(super) fn primaries_of(primaries: ffmpeg::color::Primaries) -> Primaries {
    match primaries {
        ffmpeg::color::Primaries::BT2020 => Primaries::Bt2020,
        ffmpeg::color::Primaries::SMPTE432 => Primaries::P3,
        ffmpeg::color::Primaries::SMPTE431 => Primaries::DciP3,
        ffmpeg::color::Primaries::Film => Primaries::Film,
        ffmpeg::color::Primaries::BT470M => Primaries::Bt470m,
        ffmpeg::color::Primaries::EBU3213 => Primaries::Ebu3213,
        // BT.601's and SMPTE 240M's, the close sets, as BT.709's, as FFmpeg's scaler and mpv
        // show them.
        _ => Primaries::Bt709,
    }
}

/// A stream's colour volume: its transfer and primaries, and its peak light from the stream's
/// side data (the content light level's MaxCLL, else the mastering display's peak). HDR streams
/// that leave their primaries untagged are taken to be BT.2020, as HDR10 and HLG require.
pub(super) fn color_volume(
    stream: &ffmpeg::format::stream::Stream,
    transfer: ffmpeg::color::TransferCharacteristic,
    primaries: ffmpeg::color::Primaries,
) -> ColorVolume {
    let transfer = transfer_of(transfer);
    let primaries = match primaries {
        ffmpeg::color::Primaries::Unspecified if transfer != Transfer::Sdr => Primaries::Bt2020,
        other => primaries_of(other),
    };
    let mut max_cll = None;
    let mut mastering_peak = None;
    for side in stream.side_data() {
        use ffmpeg::codec::packet::side_data::Type;
        match side.kind() {
            Type::ContentLightLevel => max_cll = content_light_max(side.data()),
            Type::MasteringDisplayMetadata => mastering_peak = mastering_display_peak(side.data()),
            _ => {}
        }
    }
    ColorVolume {
        transfer,
        primaries,
        peak_nits: max_cll.or(mastering_peak),
    }
}

/// A Dolby Vision stream's profile and base-layer compatibility (its AVDOVIDecoderConfiguration
/// Record: version major, minor, profile, level, three flags, then the compatibility id).
pub(super) fn dolby_vision(stream: &ffmpeg::format::stream::Stream) -> Option<(u8, u8)> {
    stream
        .side_data()
        .find(|side| side.kind() == ffmpeg::codec::packet::side_data::Type::DOVI_CONF)
        .and_then(|side| Some((*side.data().get(2)?, *side.data().get(7)?)))
}

/// A frame's peak light from its side data: the content light level's MaxCLL, else the
/// mastering display's peak.
pub(super) fn frame_peak(frame: &ffmpeg::frame::Video) -> Option<f32> {
    use ffmpeg::frame::side_data::Type;
    let content = frame.side_data(Type::ContentLightLevel);
    let mastering = frame.side_data(Type::MasteringDisplayMetadata);
    content
        .and_then(|side| content_light_max(side.data()))
        .or_else(|| mastering.and_then(|side| mastering_display_peak(side.data())))
}

/// MaxCLL of an AVContentLightMetadata (two unsigned ints: MaxCLL, MaxFALL), if set.
pub(super) fn content_light_max(data: &[u8]) -> Option<f32> {
    let max_cll = u32::from_ne_bytes(data.get(0..4)?.try_into().ok()?);
    (max_cll > 0).then_some(max_cll as f32)
}

/// The peak luminance of an AVMasteringDisplayMetadata: AVRational display_primaries[3][2],
/// white_point[2], min_luminance, max_luminance (each two ints), then has_primaries and
/// has_luminance.
pub(super) fn mastering_display_peak(data: &[u8]) -> Option<f32> {
    let int = |at: usize| data.get(at..at + 4).map(|b| i32::from_ne_bytes(b.try_into().unwrap()));
    let (num, den, has_luminance) = (int(72)?, int(76)?, int(84)?);
    (has_luminance != 0 && num > 0 && den > 0).then(|| num as f32 / den as f32)
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

/// A pixel format's depth and chroma sampling, which the stream's hardware transfers keep (NV12
/// is 4:2:0 at 8 bits as yuv420p is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    bits: u8,
    chroma_shift: (u8, u8),
    colour: bool,
}

impl Sampling {
    pub fn of(format: Pixel) -> Option<Self> {
        let desc = format.descriptor()?;
        // SAFETY: a descriptor from FFmpeg's static table.
        let d = unsafe { &*desc.as_ptr() };
        let hardware = d.flags & ffmpeg::ffi::AV_PIX_FMT_FLAG_HWACCEL as u64 != 0;
        (!hardware && d.nb_components > 0).then(|| Sampling {
            bits: d.comp[0].depth as u8,
            chroma_shift: (d.log2_chroma_w, d.log2_chroma_h),
            colour: d.nb_components >= 3,
        })
    }
}

impl std::fmt::Display for Sampling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sampling = match (self.colour, self.chroma_shift) {
            (false, _) => "grey",
            (true, (0, 0)) => "4:4:4",
            (true, (1, 0)) => "4:2:2",
            (true, (1, 1)) => "4:2:0",
            (true, (2, 0)) => "4:1:1",
            (true, (2, 2)) => "4:1:0",
            (true, (0, 1)) => "4:4:0",
            (true, _) => "subsampled",
        };
        write!(f, "{}-bit {sampling}", self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn light_levels_are_read_from_side_data() {
        assert_eq!(content_light_max(&ints(&[1000, 400])), Some(1000.0));
        assert_eq!(content_light_max(&ints(&[0, 400])), None);
        assert_eq!(content_light_max(&[1, 2]), None);
        // Primaries and white point (16 ints), min 0.005, max 4000 nits, has_primaries,
        // has_luminance.
        let mut mastering = vec![1; 16];
        mastering.extend_from_slice(&[50, 10_000, 40_000_000, 10_000, 1, 1]);
        assert_eq!(mastering_display_peak(&ints(&mastering)), Some(4000.0));
        mastering[21] = 0;
        assert_eq!(mastering_display_peak(&ints(&mastering)), None);
        assert_eq!(mastering_display_peak(&ints(&[1; 20])), None);
    }

    #[test]
    fn yuv_of_a_native_sampling_and_depth_keeps_them_and_other_yuv_becomes_4_4_4() {
        // Alpha dropped, semi-planar and big-endian made planar: the same samples.
        assert_eq!(fallback_format(Pixel::YUVA420P), Pixel::YUV420P);
        assert_eq!(fallback_format(Pixel::YUVA444P10LE), Pixel::YUV444P10LE);
        assert_eq!(fallback_format(Pixel::YUVA422P12LE), Pixel::YUV422P12LE);
        assert_eq!(fallback_format(Pixel::NV21), Pixel::YUV420P);
        assert_eq!(fallback_format(Pixel::NV16), Pixel::YUV422P);
        assert_eq!(fallback_format(Pixel::YUV420P10BE), Pixel::YUV420P10LE);
        // Other samplings and depths: 4:4:4 at the depth at or above.
        assert_eq!(fallback_format(Pixel::YUV411P), Pixel::YUV444P);
        assert_eq!(fallback_format(Pixel::YUV440P), Pixel::YUV444P);
        assert_eq!(fallback_format(Pixel::YUV420P9LE), Pixel::YUV444P10LE);
        assert_eq!(fallback_format(Pixel::YUV420P16LE), Pixel::YUV444P12LE);
        assert_eq!(fallback_format(Pixel::RGB48LE), Pixel::GBRP12LE);
    }

    #[test]
    fn hdr_transfers_and_primaries_are_recognised() {
        use ffmpeg::color::{Primaries as P, TransferCharacteristic as T};
        assert_eq!(transfer_of(T::SMPTE2084), Transfer::Pq);
        assert_eq!(transfer_of(T::ARIB_STD_B67), Transfer::Hlg);
        assert_eq!(transfer_of(T::BT709), Transfer::Sdr);
        assert_eq!(primaries_of(P::BT2020), Primaries::Bt2020);
        assert_eq!(primaries_of(P::BT709), Primaries::Bt709);
        assert_eq!(primaries_of(P::SMPTE432), Primaries::P3);
        assert_eq!(primaries_of(P::SMPTE431), Primaries::DciP3);
        assert_eq!(primaries_of(P::Film), Primaries::Film);
        assert_eq!(primaries_of(P::BT470M), Primaries::Bt470m);
        assert_eq!(primaries_of(P::JEDEC_P22), Primaries::Ebu3213);
        assert_eq!(primaries_of(P::BT470BG), Primaries::Bt709);
        assert_eq!(primaries_of(P::SMPTE170M), Primaries::Bt709);
    }
}
