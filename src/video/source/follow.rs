//! Frames of another shape than the stream's, where the source follows them
//! (`follow_format_changes`, `follow_size_changes`): the stream's format becomes theirs.

use super::stream;
use super::*;

impl VideoSource {
    /// A frame of another size or sampling than the stream's: its format is the stream's from
    /// now on (`follow_format_changes`), its colour as the frame is tagged (else as the
    /// decoder says, else as its size implies), as a stream's first frames are described.
    /// Following sizes only, a frame of another sampling is not followed. Whether the frame is
    /// of the stream's format now.
    pub(super) fn follow_format(&mut self, frame: &ffmpeg::frame::Video) -> bool {
        let (width, height) = (frame.width(), frame.height());
        let pixel = frame.format();
        let Some((layout, jpeg)) = stream::upload_layout(pixel) else {
            return false;
        };
        let now = self.info.format;
        if (layout, width, height) == (now.layout, now.width, now.height) {
            return true;
        }
        // A hardware decoder's memory layout and its planar twin (a stream described for the
        // GPU's decoder, which handed it to software) are one picture: converted as before.
        if (width, height) == (now.width, now.height) && memory_twins(layout, now.layout) {
            return false;
        }
        if width == 0 || height == 0 || (self.following == Following::Sizes && layout != now.layout) {
            return false;
        }
        let color = ColorSpec::resolve(
            stream::matrix_of(frame.color_space()).or_else(|| stream::matrix_of(self.decoder.color_space())),
            stream::range_of(frame.color_range()).or_else(|| stream::range_of(self.decoder.color_range())),
            width,
            height,
            jpeg,
        );
        let sar = frame.aspect_ratio();
        let sar = match sar.numerator() > 0 && sar.denominator() > 0 {
            true => f64::from(sar.numerator()) / f64::from(sar.denominator()),
            false => 1.0,
        };
        let aspect = f64::from(width) * sar / f64::from(height);
        let aspect = if self.info.quarter_turns % 2 == 1 {
            1.0 / aspect
        } else {
            aspect
        };
        log::warn!(
            "{}: the picture changed mid-stream, {}x{} {} to {}x{} {}",
            self.info.path.display(),
            now.width,
            now.height,
            self.info.pixel_format,
            width,
            height,
            format!("{pixel:?}").to_lowercase()
        );
        self.info.decoded_range = color.range;
        self.decoded_size = (width, height);
        self.info.reshape(&FrameShape {
            format: FrameFormat {
                layout,
                width,
                height,
                color,
            },
            display_aspect: aspect as f32,
            pixel_format: stream::pixel_name(pixel),
        });
        true
    }
}

/// Whether two layouts are the same samples, one in a hardware decoder's memory layout (NV12,
/// P010) and the other planar.
fn memory_twins(a: PlaneLayout, b: PlaneLayout) -> bool {
    let planar = |bits| PlaneLayout::Yuv {
        chroma_shift_x: 1,
        chroma_shift_y: 1,
        bits,
    };
    let twin = |memory: PlaneLayout, other: PlaneLayout| match memory {
        PlaneLayout::Nv12 => other == planar(8),
        PlaneLayout::P010 => other == planar(10),
        _ => false,
    };
    twin(a, b) || twin(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hardware_memory_layout_and_its_planar_twin_are_one_picture() {
        let planar = |x, y, bits| PlaneLayout::Yuv {
            chroma_shift_x: x,
            chroma_shift_y: y,
            bits,
        };
        assert!(memory_twins(PlaneLayout::Nv12, planar(1, 1, 8)));
        assert!(memory_twins(planar(1, 1, 10), PlaneLayout::P010));
        assert!(!memory_twins(PlaneLayout::Nv12, planar(1, 1, 10)));
        assert!(!memory_twins(PlaneLayout::P010, planar(1, 0, 10)));
        assert!(!memory_twins(PlaneLayout::Nv12, PlaneLayout::P010));
        assert!(!memory_twins(planar(1, 1, 8), planar(1, 1, 8)));
    }
}
