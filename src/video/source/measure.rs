//! Frames as the statistics read them (`VideoSource::keep_decoded_planes`): as decoded, or, where
//! FFmpeg's filters convert such frames into Y'CbCr before they measure it (R'G'B', palette,
//! grey: `stream::statistics_format`), so converted; either way with their picture kept beside
//! where asked (`keep_pictures`).

use super::convert::Converter;
use super::*;

/// Something that reads each frame as the decoder gives it out, beside the form the frame goes
/// out in (the events' detectors, which read some formats apart from the statistics), with its
/// number. What it takes of a frame goes out with it as two numbers of its own; None: nothing
/// of this one.
pub trait DecodedReader: Send {
    fn read(&mut self, frame: &ffmpeg::frame::Video, number: u64) -> Result<Option<[u32; 2]>, String>;
}

/// How frames given out for measuring are made (`keep_decoded_planes`,
/// `keep_decoded_planes_for`).
#[derive(Clone, Copy, Debug)]
pub(super) enum Measuring {
    /// Each frame as this filter (signalstats) reads frames of its format: as decoded, or
    /// converted.
    Each(&'static str),
    /// Every frame in this one format: as decoded where it is in it, else converted into it (a
    /// format changed mid-stream too).
    All(Pixel),
}

impl Measuring {
    /// The format a frame of `format` is converted into; None: given out as decoded.
    pub(super) fn converts(self, format: Pixel) -> Option<Pixel> {
        match self {
            Measuring::Each(filter) => stream::measured_format(filter, format),
            Measuring::All(target) => (format != target).then_some(target),
        }
    }
}

impl VideoSource {
    /// The layout FFmpeg's `filters` (chains `stream::negotiated` takes) all measure this
    /// stream's frames in, where the upload's layout does not hold those samples (4:1:1, 4:1:0,
    /// 4:4:0; 9, 14 or 16 bits; big-endian): what `keep_decoded_planes_for(filters[0])` gives
    /// out. None where the upload's layout holds them, or where the filters measure different
    /// samples (R'G'B' for one and grey for another).
    pub fn measured_layout(&self, filters: &[&'static str]) -> Option<PlaneLayout> {
        let format = self.decoder.format();
        let mut layouts = filters.iter().map(|&filter| {
            // (None where libavfilter can't say: not measured apart.)
            stream::negotiated(filter, format)?;
            let measured = stream::measured_format(filter, format).unwrap_or(format);
            stream::planar_layout(measured)
        });
        let first = layouts.next().flatten()?;
        if layouts.any(|layout| layout != Some(first)) {
            return None;
        }
        let upload = self.info.format.layout;
        let yuv420 = |bits| PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits,
        };
        let held = first == upload
            || (first, upload) == (yuv420(8), PlaneLayout::Nv12)
            || (first, upload) == (yuv420(10), PlaneLayout::P010);
        (!held).then_some(first)
    }

    /// The format the statistics measure this stream's frames in where FFmpeg's `filter` (a
    /// deinterlacer, `bwdif` or `yadif`) takes them as decoded, and a chain of the two
    /// deinterlaces them before it converts them (grey at 9 to 16 bits, planar R'G'B', 4:1:0);
    /// None where both read them alike (8-bit grey, whose conversion keeps its samples).
    pub fn deinterlaced_before_converting(&self, filter: &'static str) -> Option<String> {
        let format = self.decoder.format();
        let converted = stream::statistics_format(format)?;
        let native = stream::negotiated(filter, format) == Some(format);
        (native && format != Pixel::GRAY8).then(|| stream::pixel_name(converted))
    }

    /// Gives frames out as `filter` (a chain `stream::negotiated` takes) reads them: as decoded,
    /// or converted as FFmpeg's automatic conversion converts them for it; for readers of the
    /// samples themselves (`compare` on the CPU), never the GPU.
    /// Every frame goes out in the format the stream's first is read in: one of another format
    /// (a change mid-stream) is converted into it, as FFmpeg's filter graph converts it.
    pub fn keep_decoded_planes_for(&mut self, filter: &'static str) {
        let format = self.decoder.format();
        let target = stream::measured_format(filter, format).unwrap_or(format);
        self.decoded_planes = Some(Measuring::All(target));
    }

    /// Gives every frame out in `format` (a planar format `stream::planar_layout` reads), as
    /// decoded where it is in it, else converted into it as FFmpeg's automatic conversion
    /// converts it (the format a filter of two inputs measures a pair in: `negotiated_pair`);
    /// for readers of the samples themselves, never the GPU.
    pub fn keep_decoded_planes_in(&mut self, format: Pixel) {
        self.decoded_planes = Some(Measuring::All(format));
    }

    /// Has `reader` read each frame given out from now on, as decoded (beside the form it goes
    /// out in): what it takes goes out with the frame (`PacketProps::taken`).
    pub fn read_decoded(&mut self, reader: Box<dyn DecodedReader>) {
        self.decoded_reader = Some(reader);
    }

    /// The format the decoder gives its frames in (a hardware decoder's: its own).
    pub fn decoded_format(&self) -> Pixel {
        self.decoder.format()
    }

    /// What the reader of the decoded frames takes of one, where there is one.
    pub(super) fn read_decoded_frame(
        &mut self,
        frame: &ffmpeg::frame::Video,
        number: u64,
    ) -> Result<Option<[u32; 2]>, VideoError> {
        let Some(reader) = &mut self.decoded_reader else {
            return Ok(None);
        };
        reader.read(frame, number).map_err(|reason| VideoError::Decode {
            path: self.info.path.clone(),
            reason,
        })
    }

    /// A frame in memory as it goes out: as decoded, or in the upload layout; and, where it
    /// goes out converted for measuring and pictures are kept, in the upload layout too.
    pub(super) fn for_upload(
        &mut self,
        frame: ffmpeg::frame::Video,
    ) -> Result<(ffmpeg::frame::Video, Option<Box<ffmpeg::frame::Video>>), VideoError> {
        let Some(measuring) = self.decoded_planes else {
            return Ok((self.convert_for_upload(frame)?, None));
        };
        let converted = measuring.converts(frame.format());
        let Some(measured) = self.convert_for_measuring(&frame, converted)? else {
            // (Y'CbCr measured as decoded, of a sampling the upload converts: 4:1:1 DV and
            // the like; its picture made from a reference to the same samples.)
            let picture = match self.keep_pictures {
                true => {
                    let same = crate::video::memory::reference(&frame).map_err(|e| VideoError::Decode {
                        path: self.info.path.clone(),
                        reason: format!("no memory for the picture: {e}"),
                    })?;
                    Some(Box::new(self.convert_for_upload(same)?))
                }
                false => None,
            };
            return Ok((frame, picture));
        };
        let picture = match self.keep_pictures {
            true => Some(Box::new(self.convert_for_upload(frame)?)),
            false => None,
        };
        Ok((measured, picture))
    }

    /// `frame` converted into `converted` (`stream::statistics_format`: the Y'CbCr FFmpeg's
    /// filters measure such frames in), by swscale as FFmpeg's automatic conversion calls it
    /// (`Converter::like_filters`, the frame's size kept); None where it is measured as decoded. A
    /// frame of another size than the stream's is scaled to the stream's (bicubic), with a
    /// warning, as the upload does; where the source follows size changes
    /// (`follow_size_changes`), a frame of the stream's depth and sampling is measured at its
    /// own size, as FFmpeg's filters configured again for it measure it.
    fn convert_for_measuring(
        &mut self,
        frame: &ffmpeg::frame::Video,
        converted: Option<Pixel>,
    ) -> Result<Option<ffmpeg::frame::Video>, VideoError> {
        let (width, height) = (frame.width(), frame.height());
        let own_size = self.following != Following::Nothing
            && stream::Sampling::of(frame.format()).is_some_and(|s| Some(s) == self.decoded_sampling.0);
        let (to_width, to_height) = match own_size {
            true => (width, height),
            false => (self.info.format.width, self.info.format.height),
        };
        self.note_sampling(frame);
        let decoded = self.decoded_size;
        if (width, height) != decoded && self.warned_size != Some((width, height)) {
            self.warned_size = Some((width, height));
            let measured = match own_size {
                true => "measured at its own size".to_string(),
                false => format!("measured scaled to {to_width}x{to_height}"),
            };
            log::warn!(
                "{}: the picture changed size mid-stream, {}x{} to {width}x{height}: {measured}",
                self.info.path.display(),
                decoded.0,
                decoded.1,
            );
        }
        if own_size {
            // Decoded at this size from now on: a change after it is said from it.
            self.decoded_size = (width, height);
        }
        let resized = (width, height) != (to_width, to_height);
        let target = match (converted, resized) {
            (None, false) => return Ok(None),
            (None, true) => frame.format(),
            (Some(target), _) => target,
        };
        let failed = |reason: String| VideoError::Decode {
            path: self.info.path.clone(),
            reason,
        };
        if self.measured.as_ref().is_none_or(|c| !c.takes(frame)) {
            self.measured = None;
            let converter = Converter::like_filters(frame, (target, to_width, to_height))
                .map_err(|e| failed(format!("{e} into Y'CbCr")))?;
            self.measured = Some(converter);
        }
        let mut out = crate::video::memory::frame(target, to_width, to_height)
            .map_err(|e| failed(format!("no memory for a converted frame: {e}")))?;
        self.measured
            .as_mut()
            .expect("made above")
            .run(frame, &mut out)
            .map_err(|e| failed(format!("converting a frame failed: {e}")))?;
        out.set_pts(frame.pts());
        Ok(Some(out))
    }
}
