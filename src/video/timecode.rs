//! A frame's SMPTE timecode, where the stream carries one: per picture in H.264's and HEVC's
//! picture timing SEI (FFmpeg's S12M side data), or per GOP in MPEG-2's GOP header (the frames
//! after it count on from there, drop-frame as the rate says), or else the container's for its
//! first frame (a QuickTime timecode track, MXF's) counted on frame by frame. Read and counted
//! with FFmpeg's own timecode functions, so it reads as ffprobe and FFmpeg's `drawtext` print
//! it.

use ffmpeg::ffi;
use ffmpeg_next as ffmpeg;
use std::ffi::CStr;
use std::fmt;

/// `HH:MM:SS:FF`, or `HH:MM:SS;FF` counted drop-frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timecode {
    pub hours: u8,
    pub minutes: u8,
    pub seconds: u8,
    pub frames: u8,
    pub drop: bool,
    /// Counted from the container's by a frame number the index has not confirmed yet
    /// (`FrameNumber::exact`): as estimated as that number.
    pub estimated: bool,
}

impl Timecode {
    /// As FFmpeg writes it (`10:00:00:00`, `01:00:59;28`); None for anything else (a negative
    /// or an out-of-range one).
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != 11 || bytes[2] != b':' || bytes[5] != b':' || !matches!(bytes[8], b':' | b';' | b'.') {
            return None;
        }
        let field = |at: usize| text.get(at..at + 2)?.parse::<u8>().ok();
        Some(Self {
            hours: field(0)?,
            minutes: field(3).filter(|&m| m < 60)?,
            seconds: field(6).filter(|&s| s < 60)?,
            frames: field(9)?,
            drop: bytes[8] != b':',
            estimated: false,
        })
    }
}

impl fmt::Display for Timecode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let separator = if self.drop { ';' } else { ':' };
        write!(
            f,
            "{:02}:{:02}:{:02}{separator}{:02}",
            self.hours, self.minutes, self.seconds, self.frames
        )
    }
}

/// A GOP timecode this many frames from where the frames counted since the last one put it is
/// still the same count: FFmpeg hands a GOP's timecode on with the GOP's first picture in
/// decoding order or its first shown (the leading pictures of an open GOP), a frame or two
/// either way. Further off, the count starts over from it (a cut, a restarted source).
const GOP_SLACK: i64 = 3;

/// The timecodes of a stream's frames as they are decoded.
pub struct TimecodeReader {
    rate: ffi::AVRational,
    /// Ticks of the stream's time base a frame lasts.
    ticks_per_frame: f64,
    /// The timecode counted from, and the pts of its frame.
    anchor: Option<(ffi::AVTimecode, i64)>,
    /// The container's timecode of the first frame (`VideoInfo::timecode_tag`), for frames
    /// without their own: counted on by their number.
    container: Option<ffi::AVTimecode>,
}

// SAFETY: AVTimecode is plain data.
unsafe impl Send for TimecodeReader {}

impl TimecodeReader {
    /// For a stream of `frame_duration` seconds a frame, in `time_base` (num, den).
    pub fn new(frame_duration: f64, time_base: (i32, i32)) -> Self {
        // SAFETY: a pure conversion.
        let rate = unsafe { ffi::av_d2q(1.0 / frame_duration.max(1e-6), 1 << 20) };
        let tick = f64::from(time_base.0) / f64::from(time_base.1.max(1));
        Self {
            rate,
            ticks_per_frame: (frame_duration / tick).max(1e-9),
            anchor: None,
            container: None,
        }
    }

    /// Frames without a timecode of their own count on from `first`, the container's for the
    /// stream's first frame (ignored where FFmpeg can't read it at the stream's rate).
    pub fn with_container(mut self, first: Option<&str>) -> Self {
        self.container = first.and_then(|text| {
            let text = std::ffi::CString::new(text).ok()?;
            // SAFETY: FFmpeg fills `start` from a NUL-terminated string (what it logs of a tag it
            // can't read goes to the log callback, kept off the terminal).
            unsafe {
                let mut start: ffi::AVTimecode = std::mem::zeroed();
                let read =
                    ffi::av_timecode_init_from_string(&mut start, self.rate, text.as_ptr(), std::ptr::null_mut());
                // Time of day: past 23:59:59 it starts again at 00:00:00, as a clock does.
                start.flags |= ffi::AVTimecodeFlag::AV_TIMECODE_FLAG_24HOURSMAX as u32;
                (read == 0).then_some(start)
            }
        });
        self
    }

    /// After a seek the count starts from the next GOP's timecode, not the last one's.
    pub fn restart(&mut self) {
        self.anchor = None;
    }

    /// The timecode of the frame at `pts` (the decoder's `frame`, the stream's frame `number`,
    /// `exact` or estimated), where the stream has one: its own (H.264, HEVC), or its GOP's
    /// counted on by its distance in time from the frame the GOP's was read with (MPEG-2), or the
    /// container's counted on by its number (estimated where the number is).
    pub fn read(&mut self, frame: &ffmpeg::frame::Video, pts: i64, number: u64, exact: bool) -> Option<Timecode> {
        let mut text = [0 as std::ffi::c_char; ffi::AV_TIMECODE_STR_SIZE as usize];
        // SAFETY: side data is read within its size, from a valid frame; FFmpeg writes at most
        // AV_TIMECODE_STR_SIZE bytes, terminated, into `text`.
        unsafe {
            let s12m =
                ffi::av_frame_get_side_data(frame.as_ptr(), ffi::AVFrameSideDataType::AV_FRAME_DATA_S12M_TIMECODE);
            if !s12m.is_null() && (*s12m).size >= 8 {
                let words = (*s12m).data as *const u32;
                if std::ptr::read_unaligned(words) >= 1 {
                    let smpte = std::ptr::read_unaligned(words.add(1));
                    ffi::av_timecode_make_smpte_tc_string2(text.as_mut_ptr(), self.rate, smpte, 0, 0);
                    return Timecode::parse(CStr::from_ptr(text.as_ptr()).to_str().ok()?);
                }
            }
            let gop = ffi::av_frame_get_side_data(frame.as_ptr(), ffi::AVFrameSideDataType::AV_FRAME_DATA_GOP_TIMECODE);
            if !gop.is_null() && (*gop).size >= 8 {
                let bits = std::ptr::read_unaligned((*gop).data as *const i64);
                ffi::av_timecode_make_mpeg_tc_string(text.as_mut_ptr(), bits as u32);
                let mut read: ffi::AVTimecode = std::mem::zeroed();
                let valid =
                    ffi::av_timecode_init_from_string(&mut read, self.rate, text.as_ptr(), std::ptr::null_mut()) == 0;
                let counted = self
                    .anchor
                    .map(|(anchor, _)| i64::from(anchor.start) + self.frames_since(pts));
                let same = counted.is_some_and(|n| (i64::from(read.start) - n).abs() <= GOP_SLACK);
                if valid && !same {
                    self.anchor = Some((read, pts));
                }
            }
            let (anchor, since, by_number) = match (self.anchor, self.container) {
                (Some((anchor, _)), _) => (anchor, i32::try_from(self.frames_since(pts)).ok()?, false),
                (None, Some(first)) => (first, i32::try_from(number).ok()?, true),
                (None, None) => return None,
            };
            ffi::av_timecode_make_string(&anchor, text.as_mut_ptr(), since);
            let counted = Timecode::parse(CStr::from_ptr(text.as_ptr()).to_str().ok()?)?;
            Some(Timecode {
                estimated: by_number && !exact,
                ..counted
            })
        }
    }

    /// Frames from the anchor's to the one at `pts`.
    fn frames_since(&self, pts: i64) -> i64 {
        let from = self.anchor.map_or(pts, |(_, from)| from);
        ((pts - from) as f64 / self.ticks_per_frame).round() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::{Timecode, TimecodeReader};

    #[test]
    fn frames_without_their_own_count_on_from_the_containers_first() {
        // A frame with no side data, as a QuickTime file's frames are.
        let frame = ffmpeg_next::frame::Video::new(ffmpeg_next::format::Pixel::YUV420P, 16, 16);
        let mut pal = TimecodeReader::new(0.04, (1, 25)).with_container(Some("10:00:00:00"));
        let read = |reader: &mut TimecodeReader, n: u64| reader.read(&frame, n as i64, n, true).unwrap().to_string();
        assert_eq!(read(&mut pal, 0), "10:00:00:00");
        assert_eq!(read(&mut pal, 24), "10:00:00:24");
        assert_eq!(read(&mut pal, 25), "10:00:01:00");
        assert_eq!(read(&mut pal, 90_000), "11:00:00:00");
        // Past midnight, the clock starts again.
        assert_eq!(read(&mut pal, 14 * 3600 * 25 + 25), "00:00:01:00");
        // Drop-frame at 29.97: 10:01:00;00 and ;01 are not counted.
        let mut ntsc = TimecodeReader::new(1001.0 / 30_000.0, (1001, 30_000)).with_container(Some("10:00:59;28"));
        assert_eq!(read(&mut ntsc, 1), "10:00:59;29");
        assert_eq!(read(&mut ntsc, 2), "10:01:00;02");
        // Without the container's, none; a tag FFmpeg can't read is none either.
        assert_eq!(TimecodeReader::new(0.04, (1, 25)).read(&frame, 0, 0, true), None);
        let mut bad = TimecodeReader::new(0.04, (1, 25)).with_container(Some("ten o'clock"));
        assert_eq!(bad.read(&frame, 0, 0, true), None);
        // Counted from a number the index has not confirmed: as estimated as the number.
        let estimated = pal.read(&frame, 25, 25, false).unwrap();
        assert!(
            estimated.estimated && estimated.to_string() == "10:00:01:00",
            "{estimated:?}"
        );
        assert!(!pal.read(&frame, 25, 25, true).unwrap().estimated);
    }

    #[test]
    fn timecodes_read_and_print_as_ffmpeg_writes_them() {
        let tc = Timecode::parse("10:00:59;28").unwrap();
        assert_eq!(
            tc,
            Timecode {
                hours: 10,
                minutes: 0,
                seconds: 59,
                frames: 28,
                drop: true,
                estimated: false
            }
        );
        assert_eq!(tc.to_string(), "10:00:59;28");
        assert_eq!(Timecode::parse("01:02:03:04").unwrap().to_string(), "01:02:03:04");
        for bad in ["-01:00:00:00", "1:00:00:00", "01:60:00:00", "01:00:00", "aa:bb:cc:dd"] {
            assert_eq!(Timecode::parse(bad), None, "{bad}");
        }
    }
}
