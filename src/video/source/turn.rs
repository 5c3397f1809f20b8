//! Frames turned upright as their stream's display matrix says, for the readers that measure
//! the picture as FFmpeg's command line shows it to its filters: `ffmpeg -i` turns such a
//! stream before any filter (`transpose=clock` for a quarter turn clockwise, `hflip,vflip` for
//! a half turn, `transpose=cclock` for three quarters), so `compare` measures a phone's
//! portrait clip against its upright encode as FFmpeg's `psnr` and `ssim` do. The samples are
//! moved, not changed: a turned frame is FFmpeg's, byte for byte.

use super::{hardware, VideoError, VideoSource};
use ffmpeg::ffi;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;

impl VideoSource {
    /// Gives frames out turned upright from now on, as the stream is shown (its
    /// `quarter_turns` become 0, its width and height swap for an odd number of turns).
    /// Fails, changing nothing, where the frames' format can't be turned as it is: FFmpeg's
    /// `transpose` takes only formats whose chroma is as high as it is wide (it converts
    /// 4:2:2 first), none with a palette.
    pub fn turn_upright(&mut self) -> Result<(), String> {
        self.can_turn_upright()?;
        let turns = self.info.quarter_turns % 4;
        if turns == 0 {
            return Ok(());
        }
        self.turns = turns;
        self.info.quarter_turns = 0;
        if turns % 2 == 1 {
            let f = &mut self.info.format;
            (f.width, f.height) = (f.height, f.width);
            self.decoded_size = (self.decoded_size.1, self.decoded_size.0);
        }
        Ok(())
    }

    /// Whether `turn_upright` would turn the frames; why not, in words.
    pub fn can_turn_upright(&self) -> Result<(), String> {
        let turns = self.info.quarter_turns % 4;
        if turns == 0 {
            return Ok(());
        }
        // (A hardware decoder's frames are copied back as NV12 or P010, whose chroma is as
        // high as it is wide.)
        match self.hardware {
            Some(_) => Ok(()),
            None => turnable(self.decoder.format(), turns),
        }
    }

    /// `frame` turned upright where the source turns its frames (`turn_upright`); a hardware
    /// decoder's frame is copied back first.
    pub(super) fn turned(&mut self, frame: ffmpeg::frame::Video) -> Result<ffmpeg::frame::Video, VideoError> {
        if self.turns == 0 {
            return Ok(frame);
        }
        let failed = |reason: String| VideoError::Decode {
            path: self.info.path.clone(),
            reason,
        };
        let frame = match self.hardware {
            Some(hw) if hw.holds(&frame) => hardware::download(&frame)
                .map_err(|e| failed(format!("copying a frame from the {} decoder failed: {e}", hw.name)))?,
            _ => frame,
        };
        turn(&frame, self.turns).map_err(failed)
    }
}

/// Whether frames of `format` can be turned by `turns` quarter turns as FFmpeg's filters turn
/// them; why not, in words.
fn turnable(format: Pixel, turns: u32) -> Result<(), String> {
    // SAFETY: FFmpeg's static descriptor of a format, or null.
    let desc = unsafe { ffi::av_pix_fmt_desc_get(format.into()).as_ref() };
    let Some(desc) = desc else {
        return Err("its frames' format is unknown: they can't be turned upright as it is shown".into());
    };
    let flags = ffi::AV_PIX_FMT_FLAG_PAL | ffi::AV_PIX_FMT_FLAG_BITSTREAM | ffi::AV_PIX_FMT_FLAG_HWACCEL;
    if desc.flags & flags as u64 != 0 || (turns % 2 == 1 && desc.log2_chroma_w != desc.log2_chroma_h) {
        return Err(format!(
            "it is shown turned {} and its {} frames can't be turned as they are (FFmpeg converts them first): turn it upright first (ffmpeg -i turns it as it encodes it)",
            match turns {
                1 => "a quarter turn clockwise",
                2 => "upside down",
                _ => "a quarter turn anticlockwise",
            },
            super::pixel_name(format),
        ));
    }
    Ok(())
}

/// `frame` turned clockwise by `turns` quarter turns (1 to 3) into a new frame of its format,
/// its properties (pts, flags, colour) kept.
fn turn(frame: &ffmpeg::frame::Video, turns: u32) -> Result<ffmpeg::frame::Video, String> {
    let format = frame.format();
    turnable(format, turns)?;
    // SAFETY: checked by `turnable` above.
    let desc = unsafe { &*ffi::av_pix_fmt_desc_get(format.into()) };
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    let (tw, th) = match turns % 2 {
        1 => (h, w),
        _ => (w, h),
    };
    let mut out = crate::video::memory::frame(format, tw as u32, th as u32)
        .map_err(|e| format!("no memory for a turned frame: {e}"))?;
    for plane in 0..frame.planes() {
        // A sample's bytes in this plane: the widest step of the components it holds.
        let size = (0..usize::from(desc.nb_components))
            .filter(|&c| desc.comp[c].plane as usize == plane)
            .map(|c| desc.comp[c].step as usize)
            .max()
            .unwrap_or(1);
        let chroma = (plane == 1 || plane == 2) && desc.nb_components >= 3;
        let (sw, sh) = match chroma {
            true => (ceil_shift(w, desc.log2_chroma_w), ceil_shift(h, desc.log2_chroma_h)),
            false => (w, h),
        };
        let from = Plane {
            stride: frame.stride(plane),
            width: sw,
            height: sh,
        };
        let to_stride = out.stride(plane);
        let (src, dst) = (frame.data(plane), out.data_mut(plane));
        match size {
            1 => turn_plane::<1>(src, from, dst, to_stride, turns),
            2 => turn_plane::<2>(src, from, dst, to_stride, turns),
            3 => turn_plane::<3>(src, from, dst, to_stride, turns),
            4 => turn_plane::<4>(src, from, dst, to_stride, turns),
            6 => turn_plane::<6>(src, from, dst, to_stride, turns),
            8 => turn_plane::<8>(src, from, dst, to_stride, turns),
            n => {
                return Err(format!(
                    "its {} frames' samples of {n} bytes can't be turned",
                    super::pixel_name(format)
                ))
            }
        }
    }
    // SAFETY: both frames valid; copies the properties (pts, colour, flags), not the samples.
    unsafe { ffi::av_frame_copy_props(out.as_mut_ptr(), frame.as_ptr()) };
    Ok(out)
}

fn ceil_shift(n: usize, shift: u8) -> usize {
    (n + (1 << shift) - 1) >> shift
}

/// A plane's rows: the bytes from one to the next, and its samples across and down.
#[derive(Clone, Copy)]
struct Plane {
    stride: usize,
    width: usize,
    height: usize,
}

/// Turns a plane of samples of `N` bytes: the turned plane's sample (x, y) is the source's
/// (y, h - 1 - x) for a quarter turn clockwise (`transpose=clock`), (w - 1 - x, h - 1 - y) for
/// a half turn (`hflip,vflip`), (w - 1 - y, x) for three quarters (`transpose=cclock`).
fn turn_plane<const N: usize>(src: &[u8], from: Plane, dst: &mut [u8], to_stride: usize, turns: u32) {
    let Plane {
        stride,
        width: w,
        height: h,
    } = from;
    let (tw, th) = match turns % 2 {
        1 => (h, w),
        _ => (w, h),
    };
    for y in 0..th {
        let row = &mut dst[y * to_stride..y * to_stride + tw * N];
        for (x, sample) in row.chunks_exact_mut(N).enumerate() {
            let (sx, sy) = match turns {
                1 => (y, h - 1 - x),
                2 => (w - 1 - x, h - 1 - y),
                _ => (w - 1 - y, x),
            };
            let at = sy * stride + sx * N;
            sample.copy_from_slice(&src[at..at + N]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3x2 yuv420p frame whose luma samples are 10 * column + row, and 2x1 chroma.
    fn frame() -> ffmpeg::frame::Video {
        let mut f = crate::video::memory::frame(Pixel::YUV420P, 3, 2).unwrap();
        for y in 0..2 {
            for x in 0..3 {
                let stride = f.stride(0);
                f.data_mut(0)[y * stride + x] = (10 * x + y) as u8;
            }
        }
        f.data_mut(1)[..2].copy_from_slice(&[1, 2]);
        f.data_mut(2)[..2].copy_from_slice(&[3, 4]);
        f.set_pts(Some(7));
        f
    }

    fn luma(f: &ffmpeg::frame::Video) -> Vec<Vec<u8>> {
        (0..f.height() as usize)
            .map(|y| f.data(0)[y * f.stride(0)..][..f.width() as usize].to_vec())
            .collect()
    }

    #[test]
    fn a_quarter_turn_clockwise_puts_the_bottom_left_sample_top_left() {
        let turned = turn(&frame(), 1).unwrap();
        assert_eq!((turned.width(), turned.height(), turned.pts()), (2, 3, Some(7)));
        // Rows of the source: [0 10 20] over [1 11 21]; turned clockwise, its left column
        // (0 over 1) becomes the top row, read from the bottom up.
        assert_eq!(luma(&turned), vec![vec![1, 0], vec![11, 10], vec![21, 20]]);
        // Chroma 2x1 becomes 1x2: its left sample on top.
        assert_eq!((turned.data(1)[0], turned.data(1)[turned.stride(1)]), (1, 2));
    }

    #[test]
    fn half_and_three_quarter_turns_are_ffmpegs_flips_and_transpose() {
        assert_eq!(
            luma(&turn(&frame(), 2).unwrap()),
            vec![vec![21, 11, 1], vec![20, 10, 0]]
        );
        assert_eq!(
            luma(&turn(&frame(), 3).unwrap()),
            vec![vec![20, 21], vec![10, 11], vec![0, 1]]
        );
        // Four quarter turns are none.
        let once = turn(&frame(), 1).unwrap();
        let thrice = turn(&turn(&once, 1).unwrap(), 2).unwrap();
        assert_eq!(luma(&thrice), luma(&frame()));
    }

    #[test]
    fn chroma_wider_than_high_is_refused_for_a_quarter_turn_only() {
        assert!(turnable(Pixel::YUV422P, 1)
            .unwrap_err()
            .contains("yuv422p frames can't be turned"));
        assert!(turnable(Pixel::YUV422P, 2).is_ok());
        assert!(turnable(Pixel::PAL8, 2).is_err());
        assert!(turnable(Pixel::NV12, 3).is_ok());
    }
}
