//! What comes out of the decoder, made ready for the GPU: numbered from the index, linked to the
//! frame before it, told apart from leading pictures and stale frames after a seek, copied back
//! from a hardware decoder (now, or by the thread that uses it first), and converted to the
//! stream's upload layout where it isn't in it (unless a catch-up run only passes it on its way).

use super::*;

/// A decoded frame, in a layout the GPU converter takes.
pub struct DecodedFrame {
    /// Frame number in presentation order.
    pub index: u64,
    /// Whether `index` is exact (the index had read that far) or an estimate.
    pub exact: bool,
    /// The lowest frame number below this one's that the run has not given out yet and may
    /// still: a damaged stream's decoder gives some frames out late (`Gaps`).
    pub awaited: Option<u64>,
    /// Presentation timestamp in the stream's time base.
    pub pts: i64,
    pub seconds: f64,
    /// Pts of the frame just before this one, when this decode run showed it: the two are
    /// neighbours in presentation order.
    pub previous: Option<i64>,
    /// The picture's coding type as ffprobe prints it: `I`, `P`, `B`, ..., `?` where unknown.
    pub pict_type: char,
    /// Where the picture's packet sat in the file.
    pub packet: PacketProps,
    pub samples: Samples,
    /// Where `samples` are the frame as FFmpeg's filters measure it (R'G'B', palette or grey
    /// made Y'CbCr, or Y'CbCr as decoded: `VideoSource::keep_decoded_planes`), the frame in the
    /// upload layout too, for what reads the picture, where asked for (`keep_pictures`).
    pub picture: Option<Box<ffmpeg::frame::Video>>,
}

/// What the decoder hands on with a picture beside its samples: about the packet it came in
/// (ffprobe's `key_frame`, `pkt_pos`, `pkt_size` and `pkt_duration`), so that reports take them
/// from the demux that fed the decoder instead of reading the file again, and the picture's
/// timecode and fields.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PacketProps {
    pub key: bool,
    /// Byte offset in the file, where the decoder knows it.
    pub pos: Option<u64>,
    /// Bytes, where the decoder knows them.
    pub size: Option<u32>,
    /// In the stream's time base.
    pub duration: i64,
    /// When the packet was read from a live input (for its arrival-to-display latency).
    pub arrived: Option<std::time::Instant>,
    /// The picture's SMPTE timecode, where the stream carries one (side data of the frame).
    pub timecode: Option<crate::video::timecode::Timecode>,
    /// Its fields, as the decoder flags them.
    pub fields: Fields,
    /// What the reader of the decoded frames took of it, where there is one and it read it
    /// (`VideoSource::read_decoded`).
    pub taken: Option<[u32; 2]>,
    /// FFmpeg's best-effort timestamp of the frame (in the stream's time base) and its seconds,
    /// where it differs from the pts the frame is numbered and shown by: a pts that goes back
    /// or repeats, where the decoder turns to the packets' dts. FFmpeg's filters time the
    /// frame by it (`ffmpeg`'s and ffprobe's `movie` source alike), so reports do.
    pub best_effort: Option<(i64, f64)>,
    /// The frame's format or size differs from the frame given out before it: where FFmpeg's
    /// tool configures its filters again (`blackdetect` ends a stretch going on at the frame
    /// before, `freezedetect` compares from this frame on afresh).
    pub restarts: bool,
}

/// A picture's fields as the decoder flags them: FFmpeg's `interlaced_frame` and
/// `top_field_first`, as ffprobe prints them (the second is kept as flagged, progressive or
/// not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub interlaced: bool,
    pub top_first: bool,
    /// A field of the frame is shown twice (FFmpeg's `repeat_pict`: soft telecine).
    pub repeated: bool,
}

impl Fields {
    /// The kinds, by `kind`: short names (the frame log's) and long (the stats overlay's and the
    /// QC page's).
    pub const NAMES: [&'static str; 3] = ["progressive", "tff", "bff"];
    pub const DESCRIPTIONS: [&'static str; 3] = [
        "progressive",
        "interlaced, top field first",
        "interlaced, bottom field first",
    ];

    /// 0: progressive, 1: interlaced top field first, 2: bottom field first.
    pub fn kind(self) -> usize {
        match (self.interlaced, self.top_first) {
            (false, _) => 0,
            (true, true) => 1,
            (true, false) => 2,
        }
    }

    /// `progressive`, `tff` or `bff`.
    pub fn name(self) -> &'static str {
        Self::NAMES[self.kind()]
    }

    pub fn description(self) -> &'static str {
        Self::DESCRIPTIONS[self.kind()]
    }
}

impl PacketProps {
    pub fn of(frame: &ffmpeg::frame::Video) -> Self {
        let packet = frame.packet();
        Self {
            key: frame.is_key(),
            // FFmpeg says -1 for unknown (the size widened to usize by the binding).
            pos: u64::try_from(packet.position).ok(),
            size: u32::try_from(packet.size).ok(),
            duration: packet.duration,
            arrived: None,
            timecode: None,
            taken: None,
            best_effort: None,
            restarts: false,
            fields: Fields {
                interlaced: frame.is_interlaced(),
                top_first: frame.is_top_first(),
                repeated: frame.repeat() != 0.0,
            },
        }
    }
}

/// Where a decoded frame's samples are.
pub enum Samples {
    /// In memory, in the stream's upload layout (or as decoded, `keep_decoded_planes`).
    Memory(ffmpeg::frame::Video),
    /// Still in the hardware decoder's memory, copied back on first use: by the upload thread,
    /// so that the decode thread goes straight on to the next frame. Only frames that need no
    /// conversion once copied wait.
    Device(Deferred),
    /// In the GPU frame cache (an NVDEC frame copied there on the device): the ring's slots are
    /// copied from it on the GPU; never in memory.
    Gpu(GpuPlanes),
}

/// A frame waiting in the device's memory, and its copy once made.
pub struct Deferred {
    device: Mutex<Option<hardware::DeviceFrame>>,
    copy: OnceLock<Result<ffmpeg::frame::Video, String>>,
    /// What the copy takes (counted from the start, for the cache's budget).
    bytes: usize,
    /// The stream's count of bytes copied back.
    transfers: Arc<Transfers>,
}

impl Deferred {
    /// `device`, whose copy will take `bytes`.
    fn of(device: hardware::DeviceFrame, bytes: usize, transfers: Arc<Transfers>) -> Self {
        Self {
            bytes,
            transfers,
            device: Mutex::new(Some(device)),
            copy: OnceLock::new(),
        }
    }
}

impl From<ffmpeg::frame::Video> for Samples {
    fn from(frame: ffmpeg::frame::Video) -> Self {
        Samples::Memory(frame)
    }
}

/// The coding type of a decoded picture, as FFmpeg's `av_get_picture_type_char` names it.
pub fn picture_type(frame: &ffmpeg::frame::Video) -> char {
    // SAFETY: reads one field of a valid frame; the function maps any value to a character.
    let c = unsafe { ffmpeg::ffi::av_get_picture_type_char((*frame.as_ptr()).pict_type) };
    char::from(c as u8)
}

/// The frames from `first` up to `end` (not included) lost, in words.
pub(super) fn missing(first: u64, end: u64) -> String {
    match end - first {
        1 => format!("frame {first} is missing"),
        _ => format!("frames {first} to {} are missing", end - 1),
    }
}

/// A frame's planes in memory, as many as `layout` has.
pub fn planes_of(frame: &ffmpeg::frame::Video, layout: PlaneLayout) -> Vec<PlaneData<'_>> {
    (0..layout.plane_count())
        .map(|i| PlaneData {
            data: frame.data(i),
            stride: frame.stride(i),
        })
        .collect()
}

impl DecodedFrame {
    /// The frame in memory: a frame still in the device's is copied back first (once: later
    /// calls, from any thread, get the same copy, or the same error).
    pub fn video(&self) -> Result<&ffmpeg::frame::Video, String> {
        match &self.samples {
            Samples::Memory(frame) => Ok(frame),
            Samples::Device(deferred) => deferred
                .copy
                .get_or_init(|| {
                    let device = deferred.device.lock().unwrap_or_else(|e| e.into_inner()).take();
                    let device = device.ok_or("the frame left the hardware decoder before its copy")?;
                    let copy = device
                        .download()
                        .map_err(|e| format!("copying a frame from the hardware decoder failed: {e}"))?;
                    deferred.transfers.to_host(deferred.bytes as u64);
                    Ok(copy)
                })
                .as_ref()
                .map_err(Clone::clone),
            Samples::Gpu(_) => Err("the frame is in the GPU frame cache, not in memory".into()),
        }
    }

    /// The frame's planes in `layout`; none where its copy from the device failed (`video`
    /// says why).
    pub fn planes(&self, layout: PlaneLayout) -> Vec<PlaneData<'_>> {
        match self.video() {
            Ok(frame) => planes_of(frame, layout),
            Err(_) => Vec::new(),
        }
    }

    /// The planes of the picture in the upload layout `layout`: `picture`'s where the samples
    /// are converted for measuring, else the samples'.
    pub fn picture_planes(&self, layout: PlaneLayout) -> Vec<PlaneData<'_>> {
        match &self.picture {
            Some(picture) => planes_of(picture, layout),
            None => self.planes(layout),
        }
    }

    /// Bytes the frame's planes hold, or will once copied back (for cache budgets).
    pub fn byte_size(&self) -> usize {
        match &self.samples {
            Samples::Memory(frame) => (0..frame.planes()).map(|i| frame.data(i).len()).sum(),
            Samples::Device(deferred) => deferred.bytes,
            Samples::Gpu(_) => 0,
        }
    }

    /// Bytes the frame holds in the GPU frame cache.
    pub fn gpu_byte_size(&self) -> usize {
        match &self.samples {
            Samples::Gpu(planes) => planes.bytes(),
            _ => 0,
        }
    }

    /// Whether the frame waits in the device's memory still.
    pub fn in_device(&self) -> bool {
        matches!(&self.samples, Samples::Device(d) if d.copy.get().is_none())
    }
}

/// What the decoder gave out.
pub enum Decoded {
    /// (Boxed: a frame is the size of many of the other.)
    Frame(Box<DecodedFrame>),
    /// A frame a catch-up run decoded on its way (other frames reference it) but does not keep:
    /// its pts only.
    Passed { pts: i64 },
}

impl VideoSource {
    /// Numbers and links a frame the decoder gave out; None for a leading picture after a seek.
    pub(super) fn finish(&mut self, frame: ffmpeg::frame::Video) -> Result<Option<Decoded>, VideoError> {
        // The pts of the frame's own packet, as the index numbers them; FFmpeg's best-effort
        // guess only where packets have none (it turns to dts after the leading pictures of an
        // open GOP, and would give a frame its successor's time).
        let pts = frame
            .pts()
            .or(frame.timestamp())
            .or_else(|| {
                self.last_pts
                    .map(|p| p + self.info.pts_at(self.info.frame_duration).max(1))
            })
            .unwrap_or(0);
        let pts = self.untied(pts);
        // Frames of the run before the seek come out of an unflushed decoder first, all of them
        // before the IDR picture this run started at.
        if let Some(sent) = &self.run.stale_filter {
            if frame.pts().is_some_and(|p| !sent.contains(&p)) {
                return Ok(None);
            }
            self.run.stale_filter = None;
        }
        // Frames shown before the keyframe a seek started at reference the GOP before it.
        if self.run.after_seek && self.run.start.is_some_and(|start| pts < start) {
            return Ok(None);
        }
        // Neighbours unless a frame between them was skipped.
        let mut previous = self
            .last_pts
            .filter(|&prev| prev < pts && self.run.skippable.range(prev + 1..pts).next().is_none());
        let mut number = if self.exact_numbers {
            self.index.wait_number_at(pts)
        } else {
            self.index.number_at(pts)
        };
        if let Some(count) = self.counted {
            if !number.exact && self.index.progress().failed {
                number = FrameNumber { n: count, exact: true };
            }
            self.counted = Some(count + 1);
        }
        // Exact numbers settle whether the last frame given out is this one's neighbour. Frames
        // the index knows of between the two were skipped on purpose (a catch-up run leaves out
        // frames nothing references) or, in a run that skipped nothing, lost to damage, unless
        // the decoder gives them out late (`Gaps`).
        if let (Some(last), Some(last_pts)) = (self.last_number, self.last_pts) {
            if number.exact && last.exact && last_pts < pts {
                if number.n == last.n + 1 {
                    previous = Some(last_pts);
                } else if number.n > last.n + 1 {
                    previous = None;
                }
            }
        }
        if number.exact {
            self.note_given(number.n, pts);
        }
        // SAFETY: reading two plain fields of a valid frame.
        let (error_flags, flags) = unsafe { ((*frame.as_ptr()).decode_error_flags, (*frame.as_ptr()).flags) };
        // Its marks of damage; the decoder's word that it concealed errors in a frame is counted
        // beside them, for the frames its threads gave out before marking them
        // (`note_unmarked_concealment`).
        self.concealed.0 += self.direct.take_concealed();
        if error_flags != 0 || flags & ffmpeg::ffi::AV_FRAME_FLAG_CORRUPT != 0 {
            self.concealed.1 += 1;
            self.note_damage(&format!("frame {} was decoded with errors and concealed", number.n));
        }
        if let (Some(last), Some(last_pts)) = (self.last_number, self.last_pts) {
            if pts < last_pts && !self.said_out_of_order {
                // A decoder gives frames out in time order: one earlier than the last is damage
                // (the timing table's, or the decoder's order lost), shown as it came.
                self.said_out_of_order = true;
                log::warn!(
                    "{}: frames out of order, playing on: frame {} at {:.3} s came after frame {} at {:.3} s; they are shown as decoded",
                    self.info.path.display(),
                    number.n,
                    self.info.seconds(pts),
                    last.n,
                    self.info.seconds(last_pts),
                );
            }
        }
        self.last_pts = Some(pts);
        self.moved = true;
        self.given.note(pts);
        self.last_number = Some(number);
        if self.info.volume.is_hdr() && self.info.volume.peak_nits.is_none() && self.info.frame_light.get().is_none() {
            if let Some(nits) = stream::frame_peak(&frame) {
                self.info.frame_light.note(nits);
            }
        }
        // Counted on every frame, passed or not (a GOP's timecode counts its frames on).
        let timecode = self.timecodes.read(&frame, pts, number.n, number.exact);
        let passed = self.run.given > 0 && self.run.catch_up.is_some_and(|c| c.pass && pts < c.keep_from);
        self.run.given += 1;
        if passed {
            return Ok(Some(Decoded::Passed { pts }));
        }
        let frame = self.turned(frame)?;
        let pict_type = picture_type(&frame);
        let mut packet = PacketProps::of(&frame);
        packet.timecode = timecode;
        packet.best_effort = frame
            .timestamp()
            .filter(|&best| best != pts && frame.pts().is_some())
            .map(|best| (best, self.info.seconds(best)));
        // (A device frame's format is its memory's, and formats are told apart by their depth and
        // sampling: the hardware decoder handing the stream to software is no change of it.)
        let (format, width, height) =
            hardware::memory_layout(&frame).unwrap_or((frame.format(), frame.width(), frame.height()));
        let shape = (stream::Sampling::of(format), width, height);
        packet.restarts = self.last_shape.replace(shape).is_some_and(|last| last != shape);
        packet.taken = self.read_decoded_frame(&frame, number.n)?;
        if self.info.live {
            packet.arrived = self.arrivals.iter().find(|&&(p, _)| p == pts).map(|&(_, at)| at);
        }
        let mut picture = None;
        let samples = match self.hardware {
            Some(hw) if hw.holds(&frame) => match self.copy_to_gpu(&frame) {
                Some(planes) => Samples::Gpu(planes),
                None => match self.defer(frame) {
                    Ok(deferred) => Samples::Device(deferred),
                    Err(frame) => {
                        let frame = hardware::download(&frame).map_err(|e| VideoError::Decode {
                            path: self.info.path.clone(),
                            reason: format!("copying a frame from the {} decoder failed: {e}", hw.name),
                        })?;
                        let bytes = (0..frame.planes()).map(|i| frame.data(i).len()).sum::<usize>();
                        self.transfers.to_host(bytes as u64);
                        let (memory, shown) = self.for_upload(frame)?;
                        picture = shown;
                        Samples::Memory(memory)
                    }
                },
            },
            _ => {
                if self.gpu_store_maker.take().is_some() {
                    // The hardware decoder turned the stream down: software decodes it.
                    self.set_frame_path(FramePath::Software);
                }
                let (memory, shown) = self.for_upload(frame)?;
                picture = shown;
                Samples::Memory(memory)
            }
        };
        Ok(Some(Decoded::Frame(Box::new(DecodedFrame {
            index: number.n,
            exact: number.exact,
            awaited: self.gaps.lowest(),
            pts,
            seconds: self.info.seconds(pts),
            previous,
            pict_type,
            packet,
            samples,
            picture,
        }))))
    }

    /// A device frame copied into the GPU frame cache, where the source has one (`keep_on_gpu`,
    /// or made now by `keep_on_gpu_from`'s maker, with the first frame that fits) and the frame
    /// is of its format; None where it isn't, or the cache has no free slot (the frame goes
    /// through memory). A copy that fails turns the GPU frame cache off for the rest
    /// of the stream, with the reason in the frame path.
    fn copy_to_gpu(&mut self, frame: &ffmpeg::frame::Video) -> Option<GpuPlanes> {
        let fits = hardware::memory_layout(frame).is_some_and(|shape| self.uploads_as_decoded(shape));
        if !fits {
            if self.gpu_store_maker.take().is_some() {
                self.copy_through_memory("its frames are converted in memory, to another size, layout or range".into());
            }
            return None;
        }
        if self.gpu_store.is_none() {
            let make = self.gpu_store_maker.take()?;
            match make() {
                Ok(store) => self.keep_on_gpu(store),
                Err(reason) => {
                    log::info!("NVDEC frames go through memory: {reason}");
                    self.copy_through_memory(reason);
                    return None;
                }
            }
        }
        let store = self.gpu_store.as_ref()?;
        let (now, kept) = (&self.info.format, &store.format);
        if (now.layout, now.width, now.height) != (kept.layout, kept.width, kept.height) {
            // The stream follows its frames' size, and the cache holds the first size's.
            self.gpu_store = None;
            self.copy_through_memory("the picture changed size mid-stream".into());
            return None;
        }
        match store.copy_in(frame) {
            Ok(Some(planes)) => Some(planes),
            // Every slot taken: this one goes through memory.
            Ok(None) => None,
            Err(reason) => {
                log::warn!("copying frames on the GPU stopped ({reason}): copying them through memory");
                self.gpu_store = None;
                self.copy_through_memory(reason);
                None
            }
        }
    }

    /// Whether frames of this memory layout (format, width, height) go to the GPU as they are:
    /// the stream's upload layout and size, in its range (frames of another range, which
    /// `compare` makes another file's, are converted in memory).
    fn uploads_as_decoded(&self, (pixel, w, h): (Pixel, u32, u32)) -> bool {
        let format = &self.info.format;
        native_layout(pixel).map(|(layout, _)| layout) == Some(format.layout)
            && (w, h) == (format.width, format.height)
            && self.info.decoded_range == format.color.range
    }

    /// A device frame left there for its copy (`defer_copies`), when its copy will need no
    /// conversion, it is no larger than 4K and not too many wait already; else given back.
    fn defer(&self, frame: ffmpeg::frame::Video) -> Result<Deferred, ffmpeg::frame::Video> {
        let Some(deferrals) = &self.deferrals else {
            return Err(frame);
        };
        let Some((pixel, w, h)) = hardware::memory_layout(&frame) else {
            return Err(frame);
        };
        let upload_ready = self
            .decoded_planes
            .is_some_and(|measuring| measuring.converts(pixel).is_none())
            || self.uploads_as_decoded((pixel, w, h));
        let bytes = hardware::memory_bytes((pixel, w, h));
        if !upload_ready || bytes > hardware::DEFERRED_MAX_BYTES {
            return Err(frame);
        }
        deferrals
            .defer(frame)
            .map(|device| Deferred::of(device, bytes, Arc::clone(&self.transfers)))
    }

    /// Frames already in the stream's upload layout pass through; others (or frames whose size
    /// changed mid-stream) go through one swscale context, made when first needed.
    pub(super) fn convert_for_upload(
        &mut self,
        frame: ffmpeg::frame::Video,
    ) -> Result<ffmpeg::frame::Video, VideoError> {
        let size = (frame.width(), frame.height());
        let followed = self.following != Following::Nothing && self.follow_format(&frame);
        let (decoded, now) = (self.decoded_size, (self.info.format.width, self.info.format.height));
        if !followed && size != decoded && self.warned_size != Some(size) {
            self.warned_size = Some(size);
            log::warn!(
                "{}: the picture changed size mid-stream, {}x{} to {}x{}: shown and counted scaled to {}x{}",
                self.info.path.display(),
                decoded.0,
                decoded.1,
                size.0,
                size.1,
                now.0,
                now.1
            );
        }
        self.note_sampling(&frame);
        let converting = (&mut self.converter, self.as_filters);
        convert::to_upload_layout(&self.info.format, self.info.decoded_range, converting, frame).map_err(|reason| {
            VideoError::Decode {
                path: self.info.path.clone(),
                reason,
            }
        })
    }

    /// At the stream's end: warns of the frames the decoder said it concealed errors in beyond
    /// those marked so (with frame threads, FFmpeg's thread that decodes a frame may give it out
    /// before it marks it; its log says so every time).
    pub(super) fn note_unmarked_concealment(&mut self) {
        self.concealed.0 += self.direct.take_concealed();
        let unmarked = self.concealed.0.saturating_sub(self.concealed.1);
        if unmarked > 0 {
            self.concealed.1 = self.concealed.0;
            let (frames, them) = match unmarked {
                1 => ("1 frame".to_string(), "it"),
                n => (format!("{n} frames"), "them"),
            };
            self.note_damage(&format!(
                "{frames} decoded with errors and concealed (the decoder's threads gave {them} out unmarked)"
            ));
        }
    }

    /// Warns of a frame whose depth or chroma sampling is not the stream's first (a file made
    /// of two streams end to end): it is converted to the stream's format, as its size would be
    /// (where the stream doesn't follow its frames' formats instead).
    pub(super) fn note_sampling(&mut self, frame: &ffmpeg::frame::Video) {
        if self.following == Following::Formats {
            return;
        }
        let (Some(first), Some(now)) = (self.decoded_sampling.0, stream::Sampling::of(frame.format())) else {
            return;
        };
        if now == first || self.decoded_sampling.1 == Some(now) {
            return;
        }
        self.decoded_sampling.1 = Some(now);
        log::warn!(
            "{}: the picture changed mid-stream, {first} to {now}: shown and counted as {first}",
            self.info.path.display(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_lost_are_named_one_by_one_or_first_to_last() {
        assert_eq!(missing(58, 59), "frame 58 is missing");
        assert_eq!(missing(40, 62), "frames 40 to 61 are missing");
    }

    #[test]
    fn a_frame_whose_copy_back_fails_says_so_each_time_and_gives_no_planes() {
        let deferrals = hardware::Deferrals::default();
        // A frame in memory stands in for a device frame: it has no device to copy from.
        let stand_in = crate::video::memory::frame(Pixel::NV12, 64, 32).unwrap();
        let device = deferrals.defer(stand_in).ok().unwrap();
        let frame = DecodedFrame {
            index: 0,
            exact: true,
            awaited: None,
            pts: 0,
            seconds: 0.0,
            previous: None,
            pict_type: 'I',
            packet: PacketProps::default(),
            samples: Samples::Device(Deferred::of(device, 64 * 32 * 3 / 2, Arc::default())),
            picture: None,
        };
        let bytes = frame.byte_size();
        assert!(frame.in_device());
        let error = frame.video().err().unwrap();
        assert!(
            error.starts_with("copying a frame from the hardware decoder failed"),
            "{error}"
        );
        assert_eq!(frame.video().err(), Some(error.clone()));
        assert!(!frame.in_device());
        assert!(frame.planes(PlaneLayout::Nv12).is_empty());
        // The cache counts a frame's bytes once: they don't change with the copy.
        assert_eq!(frame.byte_size(), bytes);
        assert_eq!(deferrals.waiting(), 0, "its surface went back with the attempt");
    }

    #[test]
    fn a_frame_in_memory_gives_its_planes() {
        let mut video = crate::video::memory::frame(Pixel::NV12, 64, 32).unwrap();
        video.data_mut(0)[0] = 77;
        let frame = DecodedFrame {
            index: 3,
            exact: true,
            awaited: None,
            pts: 3,
            seconds: 0.1,
            previous: Some(2),
            pict_type: 'P',
            packet: PacketProps::default(),
            samples: video.into(),
            picture: None,
        };
        let planes = frame.planes(PlaneLayout::Nv12);
        assert_eq!(planes.len(), 2);
        assert_eq!(planes[0].data[0], 77);
        assert_eq!(frame.byte_size(), planes[0].data.len() + planes[1].data.len());
        assert!(!frame.in_device());
    }
}
