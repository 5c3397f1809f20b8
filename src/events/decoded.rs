//! blackdetect and freezedetect on frames the statistics measure in another form: R'G'B',
//! grey, palette, and frames with alpha. Run as `-vf blackdetect,freezedetect`, the two filters
//! read the frames in one format both take (`video::source::negotiated`): as decoded where they
//! do (grey at any depth, Y'CbCr with alpha), else converted by swscale as FFmpeg's automatic
//! conversion converts them (R'G'B' into Y'CbCr with alpha). freezedetect compares every
//! sample of every plane, alpha included. Those samples are not the statistics' planes (Y'CbCr,
//! grey made 16-bit, an alpha plane left out), so for these streams the two sums are taken
//! here, from each decoded frame in memory as the decoder gives it out: the luma samples at or
//! under the black threshold, and the verdict against the reference freezedetect keeps.
//! Y'CbCr without alpha, the formats hardware decoders give, is read by both filters as the
//! statistics read it, and never comes here.

use super::black::BlackDetect;
use super::freeze::frozen_limit;
use super::BlackOptions;
use ffmpeg::format::Pixel;
use ffmpeg::software::scaling;
use ffmpeg_next as ffmpeg;

/// What the two detectors took of one picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Luma samples at or under blackdetect's threshold (of the picture's width by height).
    pub black: u32,
    /// Frozen against freezedetect's reference (false for the first picture).
    pub frozen: bool,
}

/// The two detectors' sums over decoded frames.
pub struct DecodedDetectors {
    black_options: BlackOptions,
    noise: f64,
    /// The view of the frames' format and size, made again when they change.
    view: Option<View>,
    /// The last picture that moved, as freezedetect read it: each plane's rows, packed.
    reference: Option<Vec<Vec<u8>>>,
    /// The frame freezedetect starts at (the first of a range; the one before it is read too),
    /// until it has.
    from: Option<u64>,
}

impl From<[u32; 2]> for Detected {
    fn from([black, frozen]: [u32; 2]) -> Self {
        Self {
            black,
            frozen: frozen != 0,
        }
    }
}

impl From<Detected> for [u32; 2] {
    fn from(Detected { black, frozen }: Detected) -> Self {
        [black, u32::from(frozen)]
    }
}

impl crate::video::source::DecodedReader for DecodedDetectors {
    /// Frames in a hardware decoder's memory and Y'CbCr without alpha are read as the
    /// statistics read them: nothing is taken of them here.
    fn read(&mut self, frame: &ffmpeg::frame::Video, number: u64) -> Result<Option<[u32; 2]>, String> {
        if !read_apart(frame.format()) {
            return Ok(None);
        }
        // (The comparing starts at the range's first frame, as `trim,freezedetect` does, or
        // at the first after it where that one is lost.)
        if self.from.is_some_and(|from| number >= from) {
            self.from = None;
            self.reference = None;
        }
        self.picture(frame).map(|detected| Some(detected.into()))
    }
}

impl DecodedDetectors {
    /// For a stream decoded as `format`, where the detectors read it otherwise than the
    /// statistics do (see the module's note); None where they read the same samples.
    pub fn for_format(format: Pixel, black_options: BlackOptions, noise: f64) -> Option<Self> {
        read_apart(format).then(|| Self {
            black_options,
            noise,
            view: None,
            reference: None,
            from: None,
        })
    }

    /// The detectors with freezedetect's comparing started afresh at frame `from`.
    pub fn comparing_from(self, from: u64) -> Self {
        Self {
            from: Some(from),
            ..self
        }
    }

    /// One decoded picture, as the detectors see it.
    pub fn picture(&mut self, frame: &ffmpeg::frame::Video) -> Result<Detected, String> {
        let (width, height) = (frame.width() as usize, frame.height() as usize);
        let view = match &mut self.view {
            Some(view) if view.made_for == (frame.format(), frame.width(), frame.height()) => view,
            // (A change of format or size starts the filters over, as FFmpeg reconfigures them.)
            slot => {
                self.reference = None;
                slot.insert(View::new(frame, self.black_options)?)
            }
        };
        view.convert(frame)?;
        let (read, bits, wide) = (view.read(frame), view.bits, view.bits > 8);
        let black = count_at_most(read.data(0), read.stride(0), width, height, wide, view.threshold);
        let frozen = self.reference.as_ref().is_some_and(|reference| {
            let sad: u64 = (view.planes.iter().enumerate())
                .map(|(plane, &(row_bytes, rows))| {
                    plane_sad(
                        read.data(plane),
                        read.stride(plane),
                        &reference[plane],
                        row_bytes,
                        rows,
                        wide,
                    )
                })
                .sum();
            frozen_limit(self.noise, view.compared, bits).is_some_and(|limit| sad <= limit)
        });
        if !frozen {
            // (Copied into the last reference's memory.)
            let kept = self.reference.get_or_insert_with(Vec::new);
            kept.resize_with(view.planes.len(), Vec::new);
            for (plane, (&(row_bytes, rows), into)) in view.planes.iter().zip(kept.iter_mut()).enumerate() {
                let (data, stride) = (read.data(plane), read.stride(plane));
                into.clear();
                for r in 0..rows {
                    into.extend_from_slice(&data[r * stride..r * stride + row_bytes]);
                }
            }
        }
        Ok(Detected { black, frozen })
    }
}

/// Whether frames decoded as `format` are read apart from the statistics: R'G'B', grey,
/// palette, XYZ, alpha, big-endian, and Y'CbCr whose planes the statistics take at another
/// subsampling or depth (4:1:0, which signalstats takes as 4:2:0 and the two filters as it
/// is); not frames in a hardware decoder's memory.
pub fn read_apart(format: Pixel) -> bool {
    let Some(desc) = format.descriptor() else { return false };
    // SAFETY: a descriptor from FFmpeg's static table.
    let d = unsafe { &*desc.as_ptr() };
    let flag = |f: i32| d.flags & f as u64 != 0;
    if flag(ffmpeg::ffi::AV_PIX_FMT_FLAG_HWACCEL) {
        return false;
    }
    let own = [
        ffmpeg::ffi::AV_PIX_FMT_FLAG_RGB,
        ffmpeg::ffi::AV_PIX_FMT_FLAG_ALPHA,
        ffmpeg::ffi::AV_PIX_FMT_FLAG_PAL,
        ffmpeg::ffi::AV_PIX_FMT_FLAG_BE,
    ];
    own.into_iter().any(flag) || d.nb_components < 3 || desc.name().starts_with("xyz") || planes_differ(format)
}

/// Whether signalstats and the two filters read frames of `format` in formats whose planes
/// differ in subsampling or depth (so freezedetect's sums differ): the statistics' planes are
/// signalstats'.
fn planes_differ(format: Pixel) -> bool {
    use crate::video::source::{negotiated, Sampling};
    match (negotiated("signalstats", format), negotiated(CHAIN, format)) {
        (Some(statistics), Some(detectors)) => Sampling::of(statistics) != Sampling::of(detectors),
        _ => false,
    }
}

/// Whether blackdetect after signalstats (a QCTools report's tags; and for frames not read
/// apart, blackdetect alone) reads frames decoded as `format` as full range: in a `yuvj`
/// format, as signalstats takes grey and full-range Y'CbCr.
pub fn measured_full_range(format: Pixel) -> bool {
    is_yuvj(crate::video::source::negotiated("signalstats", format).unwrap_or(format))
}

/// The chain run as `-vf`, whose format both filters read the frames in.
const CHAIN: &str = "blackdetect,freezedetect";

/// The filters' view of frames of one format and size: the conversion into the format they
/// read (where it isn't theirs), that format's depth, the black threshold at it, and the
/// planes freezedetect compares.
struct View {
    made_for: (Pixel, u32, u32),
    scaler: Option<Scaler>,
    bits: u32,
    threshold: u32,
    /// Each compared plane's bytes a row and rows (`compared_planes`).
    planes: Vec<(usize, usize)>,
    /// The samples compared, of every plane.
    compared: u64,
}

/// An swscale context, and the frame it converts into, that move with the source to its
/// decode thread.
struct Scaler(scaling::Context, ffmpeg::frame::Video);

// SAFETY: an SwsContext has no thread affinity; it is used by one thread at a time, the one
// that owns the source the detectors are in.
unsafe impl Send for Scaler {}

impl View {
    /// The view of frames of `frame`'s format and size.
    fn new(frame: &ffmpeg::frame::Video, black_options: BlackOptions) -> Result<Self, String> {
        let (format, width, height) = (frame.format(), frame.width(), frame.height());
        let reads = crate::video::source::negotiated(CHAIN, format)
            .ok_or_else(|| format!("{CHAIN} takes no frames of {format:?}"))?;
        let scaler = match reads == format {
            true => None,
            false => {
                let scaler =
                    scaling::Context::get(format, width, height, reads, width, height, scaling::Flags::BICUBIC)
                        .map_err(|e| format!("cannot convert {format:?} frames for {CHAIN}: {e}"))?;
                let out = crate::video::memory::frame(reads, width, height)
                    .map_err(|e| format!("no memory for a frame for {CHAIN}: {e}"))?;
                Some(Scaler(scaler, out))
            }
        };
        let bits = depth(reads).ok_or("the detectors' format has no depth")?;
        let planes = compared_planes(reads, width, height);
        let wide = usize::from(bits > 8);
        Ok(Self {
            made_for: (format, width, height),
            scaler,
            bits,
            threshold: BlackDetect::new(black_options, bits, is_yuvj(reads), (1, 1)).threshold(),
            compared: planes
                .iter()
                .map(|&(bytes, rows)| ((bytes >> wide) * rows) as u64)
                .sum(),
            planes,
        })
    }

    /// Converts `frame` into the filters' format, where it isn't theirs (into the same frame's
    /// memory each time).
    fn convert(&mut self, frame: &ffmpeg::frame::Video) -> Result<(), String> {
        let Some(Scaler(scaler, out)) = &mut self.scaler else {
            return Ok(());
        };
        scaler
            .run(frame, out)
            .map_err(|e| format!("converting a frame for {CHAIN} failed: {e}"))
    }

    /// `frame` as the filters read it: itself, or as `convert` last converted it.
    fn read<'a>(&'a self, frame: &'a ffmpeg::frame::Video) -> &'a ffmpeg::frame::Video {
        self.scaler.as_ref().map_or(frame, |Scaler(_, out)| out)
    }
}

/// The depth of `format`'s first component.
fn depth(format: Pixel) -> Option<u32> {
    let desc = format.descriptor()?;
    // SAFETY: a descriptor from FFmpeg's static table.
    Some(u32::from(unsafe { (*desc.as_ptr()).comp[0].depth } as u8))
}

/// The formats blackdetect reads as full range.
fn is_yuvj(format: Pixel) -> bool {
    matches!(
        format,
        Pixel::YUVJ411P | Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P
    )
}

/// The planes freezedetect compares of a `width`x`height` frame of `format`, as it sizes them:
/// each plane's bytes a row (`av_image_get_linesize`, so every component of a packed pixel)
/// and its rows (the frame's height, shifted down for Cb and Cr).
fn compared_planes(format: Pixel, width: u32, height: u32) -> Vec<(usize, usize)> {
    let Some(desc) = format.descriptor() else {
        return Vec::new();
    };
    // SAFETY: a descriptor from FFmpeg's static table.
    let shift = unsafe { (*desc.as_ptr()).log2_chroma_h };
    let raw = ffmpeg::ffi::AVPixelFormat::from(format);
    (0..4)
        .map_while(|plane| {
            // SAFETY: a plain function of a valid format, width and plane number.
            let bytes = unsafe { ffmpeg::ffi::av_image_get_linesize(raw, width as i32, plane) };
            let rows = height >> if plane == 1 || plane == 2 { shift } else { 0 };
            (bytes > 0).then_some((bytes as usize, rows as usize))
        })
        .collect()
}

/// The sum of absolute differences between `rows` rows of `row_bytes` of a plane (`data`,
/// `stride`) and the same rows packed (`reference`), of bytes or of 16-bit samples.
fn plane_sad(data: &[u8], stride: usize, reference: &[u8], row_bytes: usize, rows: usize, wide: bool) -> u64 {
    let mut sum = 0u64;
    for (r, packed) in reference.chunks_exact(row_bytes).take(rows).enumerate() {
        let row = &data[r * stride..r * stride + row_bytes];
        sum += match wide {
            false => row
                .iter()
                .zip(packed)
                .map(|(&a, &b)| u64::from(a.abs_diff(b)))
                .sum::<u64>(),
            true => row
                .chunks_exact(2)
                .zip(packed.chunks_exact(2))
                .map(|(a, b)| u64::from(u16::from_ne_bytes([a[0], a[1]]).abs_diff(u16::from_ne_bytes([b[0], b[1]]))))
                .sum::<u64>(),
        };
    }
    sum
}

/// The samples of the first `width` of `rows` rows of a plane at or under `threshold`.
fn count_at_most(data: &[u8], stride: usize, width: usize, rows: usize, wide: bool, threshold: u32) -> u32 {
    let mut count = 0u32;
    for r in 0..rows {
        let row = &data[r * stride..];
        count += match wide {
            false => row[..width].iter().filter(|&&v| u32::from(v) <= threshold).count(),
            true => row[..width * 2]
                .chunks_exact(2)
                .filter(|s| u32::from(u16::from_ne_bytes([s[0], s[1]])) <= threshold)
                .count(),
        } as u32;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_apart_are_those_whose_samples_the_statistics_change() {
        for format in [
            Pixel::GRAY8,
            Pixel::GRAY10LE,
            Pixel::RGB24,
            Pixel::GBRP10LE,
            Pixel::YUVA420P,
            Pixel::YA8,
            Pixel::PAL8,
            Pixel::BGRZ,
            Pixel::YUV410P,
        ] {
            assert!(read_apart(format), "{format:?}");
        }
        for format in [
            Pixel::YUV420P,
            Pixel::YUV422P10LE,
            Pixel::NV12,
            Pixel::YUYV422,
            Pixel::YUV411P,
            Pixel::YUV440P,
            Pixel::YUVJ420P,
            Pixel::YUV444P16LE,
        ] {
            assert!(!read_apart(format), "{format:?}");
        }
    }

    #[test]
    fn freezedetect_compares_every_byte_of_a_packed_pixel_and_the_alpha_plane() {
        // rgb24: one plane of 3 bytes a pixel; bgr0 its padding byte too; yuva420p four
        // planes, Cb and Cr of half the rows (rounded down) and half the width (rounded up).
        assert_eq!(compared_planes(Pixel::RGB24, 5, 3), vec![(15, 3)]);
        assert_eq!(compared_planes(Pixel::BGRZ, 5, 3), vec![(20, 3)]);
        assert_eq!(
            compared_planes(Pixel::YUVA420P, 5, 3),
            vec![(5, 3), (3, 1), (3, 1), (5, 3)]
        );
        assert_eq!(compared_planes(Pixel::GRAY10LE, 5, 3), vec![(10, 3)]);
    }

    #[test]
    fn sums_read_bytes_or_16_bit_samples() {
        let data = [1u8, 0, 9, 9, 5, 0, 9, 9];
        let reference = [0u8, 1, 3, 0];
        // Two rows of 2 bytes, stride 4: |1-0| + |0-1| + |5-3| + |0-0|.
        assert_eq!(plane_sad(&data, 4, &reference, 2, 2, false), 4);
        let wide: Vec<u8> = [300u16, 9, 2, 9].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let reference: Vec<u8> = [100u16, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(plane_sad(&wide, 4, &reference, 2, 2, true), 200 + 5);
        assert_eq!(count_at_most(&wide, 4, 1, 2, true, 150), 1);
        assert_eq!(count_at_most(&data, 4, 2, 2, false, 1), 3);
    }
}
