//! Timestamps that run on where they start over. A live sender restarts; MPEG-TS recordings are
//! joined end to end (`cat a.ts b.ts`), each piece's clock starting again: played by its raw
//! timestamps, such a file's second piece would take the first one's frame numbers and times.
//! [`Continuity`] moves each piece on to follow the last, as FFmpeg's tool does for the formats
//! whose timestamps may start over (MPEG-TS, MPEG program streams).
//!
//! A file is read by several readers, each from where it seeks: its frame index (the whole file
//! in order, in the background), its decoder and its sound. Every reader that reads on from the
//! file's start finds the same offsets (the same rule over the same packets: each stream's
//! packets, video and audio alike, none left out); the index writes down where each stream's
//! offset changes, by the byte where its packet lies ([`FileClock`]), and a reader that has
//! sought takes its offsets from there. Seeks in such a file go to a keyframe's byte, since its
//! raw timestamps name more than one place.

use ffmpeg_next as ffmpeg;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// A jump forward in the timestamps beyond this many seconds is a discontinuity (FFmpeg's
/// `dts_delta_threshold`).
const JUMP_SECONDS: f64 = 10.0;

/// In a file, a step back in a stream's decode time is a discontinuity beyond this many seconds
/// (FFmpeg's tool's rule for formats whose timestamps may start over).
const FILE_BACK_SECONDS: f64 = 0.1;

/// A picture presented this long after it is decoded says that one of its times is damaged
/// (reordering holds pictures back a fraction of a second).
const REORDER_SECONDS: f64 = 2.0;

/// Keeps timestamps running on where they start over (a live sender restarted, a switched
/// source, MPEG-TS pieces joined into one file): a packet whose decode time goes back from its
/// stream's last, or forward by more than 10 s, continues one packet after the newest packet of
/// any stream, and one offset moves every stream from then on, so sound and picture keep the
/// spacing the new stream gives them. What follows the decoder — the frame index and cache
/// keyed by time, the recording, the report's times — sees one stream.
#[derive(Debug, Default)]
pub struct Continuity {
    /// A file's (`for_file`), not a live input's.
    file: bool,
    /// Added to the timestamps, in the time base of the stream that last jumped.
    offset: Option<(i64, ffmpeg::Rational)>,
    /// Per stream: its last decode time (offset) and the gap before it, in its time base.
    streams: Vec<Option<StreamClock>>,
    /// The newest decode time of any stream (offset), in seconds.
    newest: Option<f64>,
    /// A file's: the latest presentation time of any stream (offset), in seconds.
    shown: Option<f64>,
    /// A file's last jump, for a few packets after it: undone where the stream's clock goes on
    /// from before it (one packet's time damaged, not a piece).
    undo: Option<Undo>,
    /// A live input's name, for its warnings.
    name: String,
}

/// What a file's jump replaced, while its stream's next packets may show it was damage.
#[derive(Clone, Copy, Debug)]
struct Undo {
    stream: usize,
    offset: Option<(i64, ffmpeg::Rational)>,
    clock: StreamClock,
    /// Packets of the stream after the jump that may still undo it.
    packets: u32,
}

/// The packets after a file's jump whose going on from before it undoes it.
const UNDO_PACKETS: u32 = 4;

#[derive(Clone, Copy, Debug)]
struct StreamClock {
    last: i64,
    step: i64,
}

/// A stream whose clock starts over (after another's jump) may begin this far before the newest
/// packet of the others (muxers interleave within a second), in a file as far as a jump.
const INTERLEAVE_SECONDS: f64 = 1.0;
const FILE_INTERLEAVE_SECONDS: f64 = JUMP_SECONDS;

impl Continuity {
    /// A file's, as FFmpeg's tool keeps one: a step back of up to a tenth of a second passes,
    /// a stream's first packet before any jump is taken as it is (sound and picture may start
    /// seconds apart), and the streams of a piece after a jump may start up to 10 s apart.
    /// Its jumps are not logged (the file's index says them).
    pub fn for_file() -> Self {
        Self {
            file: true,
            ..Self::default()
        }
    }

    /// A live input's (`name` in its warnings).
    pub fn for_live(name: &Path) -> Self {
        Self {
            name: name.display().to_string(),
            ..Self::default()
        }
    }

    fn offset_in(&self, time_base: ffmpeg::Rational) -> i64 {
        in_base(self.offset, time_base)
    }

    /// The offset to add to the timestamps of a packet of stream `stream` (time base
    /// `time_base`) whose decode time is `dts`.
    pub fn offset(&mut self, stream: usize, dts: i64, duration: i64, time_base: ffmpeg::Rational) -> i64 {
        self.offset_led(stream, dts, duration, 0, time_base)
    }

    /// `offset`, for a keyframe shown `lead` ticks after its decode time (0 for any other
    /// packet).
    fn offset_led(&mut self, stream: usize, dts: i64, duration: i64, lead: i64, time_base: ffmpeg::Rational) -> i64 {
        if self.streams.len() <= stream {
            self.streams.resize(stream + 1, None);
        }
        let tick = f64::from(time_base.numerator()) / f64::from(time_base.denominator()).max(1.0);
        let seconds = |ticks: i64| ticks as f64 * tick;
        let jump = (JUMP_SECONDS / tick) as i64;
        let (back, interleave) = match self.file {
            true => ((FILE_BACK_SECONDS / tick) as i64, FILE_INTERLEAVE_SECONDS),
            false => (0, INTERLEAVE_SECONDS),
        };
        let mut clock = self.streams[stream];
        let at = dts + self.offset_in(time_base);
        let outside = |at: i64, clock: StreamClock| at < clock.last - back || at > clock.last + jump.max(1);
        let mut discontinuous = match (clock, self.newest) {
            (Some(clock), _) => outside(at, clock),
            (None, _) if self.file && self.offset.is_none() => false,
            (None, Some(newest)) => seconds(at) < newest - interleave || seconds(at) > newest + JUMP_SECONDS,
            (None, None) => false,
        };
        if let Some(undo) = self.undo.filter(|u| u.stream == stream) {
            // A file's stream going on from before its last jump: that jump was one packet's
            // damaged time, undone (that packet keeps its place).
            if discontinuous && !outside(dts + in_base(undo.offset, time_base), undo.clock) {
                self.offset = undo.offset;
                clock = Some(undo.clock);
                discontinuous = false;
                self.undo = None;
            } else {
                self.undo = (undo.packets > 1).then_some(Undo {
                    packets: undo.packets - 1,
                    ..undo
                });
            }
        }
        let at = dts + self.offset_in(time_base);
        if discontinuous {
            let step = match (duration, clock) {
                (d, _) if d > 0 => d,
                (_, Some(clock)) => clock.step.max(1),
                _ => 1,
            };
            // After the newest packet of any stream (this one's own last, exactly, where that is
            // it). In a file, the stream's next decode time, as `ffmpeg` joins pieces, where the
            // piece's keyframe is then shown after the last time shown of any stream (frames are
            // numbered by their times); else the piece's first decode time after that time, so
            // that every picture of the piece is, whatever either piece's reordering.
            let newest = self.newest.unwrap_or(f64::MIN);
            let from = match (clock, self.shown) {
                (Some(clock), Some(shown)) if self.file && lead > 0 => {
                    clock.last.max((shown / tick).ceil() as i64 - lead)
                }
                (_, Some(shown)) if self.file => (shown / tick).ceil() as i64,
                (Some(clock), _) if self.file || seconds(clock.last) + 1e-6 >= newest => clock.last,
                _ => (newest / tick).ceil() as i64,
            };
            if let (true, Some(clock)) = (self.file, clock) {
                self.undo = Some(Undo {
                    stream,
                    offset: self.offset,
                    clock,
                    packets: UNDO_PACKETS,
                });
            }
            self.offset = Some((from + step - dts, time_base));
            if !self.file {
                log::warn!(
                    "{}: the timestamps jumped by {:.3} s: continuing from the last",
                    self.name,
                    seconds(at) - newest
                );
            }
            // The other streams' clocks start again, from the new stream's spacing.
            for (index, other) in self.streams.iter_mut().enumerate() {
                if index != stream {
                    *other = None;
                }
            }
        }
        let offset = self.offset_in(time_base);
        let at = dts + offset;
        let step = match clock {
            Some(clock) if !discontinuous && at > clock.last => at - clock.last,
            Some(clock) if !discontinuous && at < clock.last => {
                // A small step back (a file's): the clock stays at its newest.
                self.newest = Some(self.newest.map_or(seconds(at), |n| n.max(seconds(at))));
                return offset;
            }
            Some(clock) => clock.step,
            None => duration.max(1),
        };
        self.streams[stream] = Some(StreamClock { last: at, step });
        self.newest = Some(self.newest.map_or(seconds(at), |n| n.max(seconds(at))));
        offset
    }

    /// The input was opened again with its streams in another order: each stream's clock
    /// starts over (from the newest time seen).
    pub fn renumbered(&mut self) {
        self.streams.clear();
    }

    /// The offset for `packet`: its decode time checked where it has one (a packet without
    /// reorders with its neighbours). In a file, a packet whose times contradict each other (a
    /// decode time after its presentation, or more than 2 s before it: one of them damaged)
    /// takes the offset as it is and moves no clock: damage starts no piece.
    fn packet_offset(&mut self, packet: &ffmpeg::Packet, time_base: ffmpeg::Rational) -> i64 {
        let tick = f64::from(time_base.numerator()) / f64::from(time_base.denominator()).max(1.0);
        let doubtful = |pts: i64, dts: i64| pts < dts || (pts - dts) as f64 * tick > REORDER_SECONDS;
        let offset = match (packet.dts(), packet.pts()) {
            (Some(dts), Some(pts)) if self.file && doubtful(pts, dts) => return self.offset_in(time_base),
            (Some(dts), pts) => {
                let lead = pts.filter(|_| packet.is_key()).map_or(0, |pts| pts - dts);
                self.offset_led(packet.stream(), dts, packet.duration(), lead, time_base)
            }
            (None, _) => self.offset_in(time_base),
        };
        if let (true, Some(pts)) = (self.file, packet.pts().or(packet.dts())) {
            let shown = (pts + offset) as f64 * tick;
            self.shown = Some(self.shown.map_or(shown, |s| s.max(shown)));
        }
        offset
    }

    /// Moves `packet`'s timestamps on by the offset; the offset (in `time_base`).
    pub fn apply(&mut self, packet: &mut ffmpeg::Packet, time_base: ffmpeg::Rational) -> i64 {
        let offset = self.packet_offset(packet, time_base);
        shift(packet, offset);
        offset
    }
}

/// `offset` in `time_base`'s ticks.
fn in_base(offset: Option<(i64, ffmpeg::Rational)>, time_base: ffmpeg::Rational) -> i64 {
    match offset {
        None => 0,
        Some((ticks, base)) if base == time_base => ticks,
        Some((ticks, base)) => ffmpeg::Rescale::rescale(&ticks, base, time_base),
    }
}

/// Whether a file's timestamps may start over and its packets' bytes place them: its format says
/// so (MPEG-TS, program streams, TiVo) and seeks by byte. Not an HLS playlist (its packets' bytes
/// are each segment's own), nor Ogg, which FFmpeg's own player does not seek by byte either.
pub fn may_start_over(input: &ffmpeg::format::context::Input) -> bool {
    use ffmpeg::ffi::{AVFMT_NO_BYTE_SEEK, AVFMT_TS_DISCONT};
    // SAFETY: a valid input context, whose iformat is set once it is open.
    let flags = unsafe {
        let format = (*input.as_ptr()).iformat;
        if format.is_null() {
            return false;
        }
        (*format).flags
    };
    flags & AVFMT_TS_DISCONT != 0 && flags & AVFMT_NO_BYTE_SEEK == 0 && input.format().name() != "ogg"
}

/// Which of `input`'s streams take part in its continuity, a flag a stream: its pictures and
/// sound (not a cover picture, subtitles or data, whose times follow no clock), of the program
/// that holds its best picture stream where it has programs (a broadcast capture's other programs
/// run on clocks of their own). Every reader works it out alike, so that every reader sees the
/// same packets.
pub fn parts(input: &ffmpeg::format::context::Input) -> Vec<bool> {
    use ffmpeg::media::Type;
    let best = input.streams().best(Type::Video).map(|s| s.index());
    // SAFETY: a valid input context; its programs array holds nb_programs entries, each with
    // nb_stream_indexes indices.
    let programs: Vec<Vec<usize>> = unsafe {
        let ctx = input.as_ptr();
        (0..(*ctx).nb_programs as usize)
            .map(|p| {
                let program = *(*ctx).programs.add(p);
                (0..(*program).nb_stream_indexes as usize)
                    .map(|i| *(*program).stream_index.add(i) as usize)
                    .collect()
            })
            .collect()
    };
    let held: Vec<&Vec<usize>> = programs
        .iter()
        .filter(|p| best.is_some_and(|b| p.contains(&b)))
        .collect();
    input
        .streams()
        .map(|stream| {
            let attached = stream
                .disposition()
                .contains(ffmpeg::format::stream::Disposition::ATTACHED_PIC);
            let medium = matches!(stream.parameters().medium(), Type::Video | Type::Audio);
            let in_program = held.is_empty() || held.iter().any(|p| p.contains(&stream.index()));
            medium && !attached && in_program
        })
        .collect()
}

/// Where each stream's offset changes in a file, as its index finds them reading it in order,
/// and its keyframes' bytes: for readers that seek.
#[derive(Default)]
pub struct FileClock {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    /// Per stream: the byte of each packet where its offset changes, and the offset from there.
    changes: Vec<Vec<(i64, i64)>>,
    /// The picture stream's keyframes: their (continuous) pts and byte.
    keyframes: Vec<(i64, i64)>,
    /// The picture stream's time base.
    time_base: Option<ffmpeg::Rational>,
}

/// The files whose clocks are being read, for their sound's reader to find.
static CLOCKS: Mutex<Vec<(PathBuf, Weak<FileClock>)>> = Mutex::new(Vec::new());

impl FileClock {
    /// A clock for `path`'s index to fill, found by `of` while it lives.
    pub fn register(path: &Path) -> Arc<Self> {
        let clock = Arc::new(Self::default());
        let mut clocks = CLOCKS.lock().unwrap_or_else(|p| p.into_inner());
        clocks.retain(|(_, c)| c.strong_count() > 0);
        clocks.push((path.to_owned(), Arc::downgrade(&clock)));
        clock
    }

    /// The clock of `path` that an open index fills, if any.
    pub fn of(path: &Path) -> Option<Arc<Self>> {
        let clocks = CLOCKS.lock().unwrap_or_else(|p| p.into_inner());
        clocks
            .iter()
            .rev()
            .filter(|(p, _)| p == path)
            .find_map(|(_, c)| c.upgrade())
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The index read a packet of `stream` at byte `pos` and gave it `offset`.
    pub fn read(&self, stream: usize, pos: i64, offset: i64) {
        let mut table = self.lock();
        if table.changes.len() <= stream {
            table.changes.resize(stream + 1, Vec::new());
        }
        let changes = &mut table.changes[stream];
        if changes.last().map_or(0, |&(_, o)| o) != offset {
            changes.push((pos, offset));
        }
    }

    /// The picture stream's keyframe at continuous `pts` lies at byte `pos`.
    pub fn keyframe(&self, pts: i64, pos: i64, time_base: ffmpeg::Rational) {
        let mut table = self.lock();
        table.time_base = Some(time_base);
        if pos >= 0 && table.keyframes.last().is_none_or(|&(p, _)| p < pts) {
            table.keyframes.push((pts, pos));
        }
    }

    /// Whether the timestamps start over anywhere read so far.
    pub fn jumped(&self) -> bool {
        self.lock().changes.iter().any(|c| !c.is_empty())
    }

    /// The offset of `stream`'s packet at byte `pos`: exact where the index has read that far;
    /// past it, the last offset the index found (a seek is not held up for the index to read
    /// the file to there: in a file whose timestamps never start over, it is 0 all the same).
    pub fn offset_at(&self, stream: usize, pos: i64) -> i64 {
        let table = self.lock();
        let changes = table.changes.get(stream).map_or(&[][..], Vec::as_slice);
        let at = changes.partition_point(|&(p, _)| p <= pos);
        at.checked_sub(1).map_or(0, |i| changes[i].1)
    }

    /// The last keyframe of the picture stream at or before continuous `pts`: its pts and byte,
    /// where the index has read one.
    pub fn keyframe_at_or_before(&self, pts: i64) -> Option<(i64, i64)> {
        let table = self.lock();
        let at = table.keyframes.partition_point(|&(p, _)| p <= pts);
        at.checked_sub(1).map(|i| table.keyframes[i])
    }

    /// The byte of the last keyframe at or before continuous `seconds`.
    pub fn keyframe_before_seconds(&self, seconds: f64) -> Option<i64> {
        let base = self.lock().time_base?;
        let pts = seconds * f64::from(base.denominator()) / f64::from(base.numerator()).max(1.0);
        self.keyframe_at_or_before(pts.floor() as i64).map(|(_, pos)| pos)
    }
}

/// Moves `packet`'s timestamps on by `offset`.
pub fn shift(packet: &mut ffmpeg::Packet, offset: i64) {
    if offset != 0 {
        packet.set_dts(packet.dts().map(|t| t + offset));
        packet.set_pts(packet.pts().map(|t| t + offset));
    }
}

/// Positions `input` at byte `pos` (a packet's, found by the index).
pub fn seek_to_byte(input: &mut ffmpeg::format::context::Input, pos: i64) -> bool {
    // SAFETY: a valid input context; a byte seek names no stream.
    let result = unsafe { ffmpeg::ffi::av_seek_frame(input.as_mut_ptr(), -1, pos, ffmpeg::ffi::AVSEEK_FLAG_BYTE) };
    result >= 0
}

/// Makes the demuxer read every stream that takes part in the continuity (the sound, beside the
/// picture that every reader reads), so that each reader sees the same packets.
pub fn read_every_part(input: &mut ffmpeg::format::context::Input) {
    let parts = parts(input);
    super::demux::read_streams(input, (0..parts.len()).filter(|&i| parts[i]));
}

/// The index's reading of a file whose timestamps may start over: the offsets it finds written
/// down in the file's clock, by each packet's byte, and the picture's keyframes' bytes.
pub struct IndexReading {
    continuity: FileContinuity,
    clock: Arc<FileClock>,
    /// The picture stream, and its time base.
    picture: (usize, ffmpeg::Rational),
    /// The first jump has been said.
    said: bool,
    /// The picture's packets in a row since its offset last changed, the offset and the first
    /// one's time: a jump is said once it has held past the packets that could undo it.
    held: (u32, i64, i64),
    /// The picture's cadence: the frames lost from it.
    lost: super::cadence::LostFrames,
}

impl IndexReading {
    /// For an index of stream `picture` of `input`, where the file's timestamps may start over
    /// (None elsewhere): the sound is read too.
    pub fn of(input: &mut ffmpeg::format::context::Input, picture: usize, clock: Arc<FileClock>) -> Option<Self> {
        if !may_start_over(input) {
            return None;
        }
        let time_base = input.stream(picture)?.time_base();
        read_every_part(input);
        Some(Self {
            continuity: FileContinuity::new(input, None),
            clock,
            picture: (picture, time_base),
            said: false,
            held: (0, 0, 0),
            lost: super::cadence::LostFrames::new(time_base),
        })
    }

    /// Moves `packet` (read from `input`, the file at `path`) on by its offset, and writes it
    /// down.
    pub fn take(&mut self, packet: &mut ffmpeg::Packet, input: &ffmpeg::format::context::Input, path: &Path) {
        let Some(stream) = input.stream(packet.stream()) else {
            return;
        };
        let offset = self.continuity.apply(packet, stream.time_base());
        let pos = packet.position() as i64;
        if pos >= 0 {
            self.clock.read(packet.stream(), pos, offset);
        }
        let (picture, time_base) = self.picture;
        if packet.stream() == picture {
            // (Every packet of the picture, one without times too: it breaks the cadence.)
            self.lost.packet(packet, offset, path.display());
        }
        let Some(pts) = packet.pts().or(packet.dts()).filter(|_| packet.stream() == picture) else {
            return;
        };
        if packet.is_key() {
            self.clock.keyframe(pts, pos, time_base);
        }
        self.held = match self.held {
            (n, held, from) if held == offset => (n + 1, held, from),
            _ => (1, offset, pts),
        };
        if offset != 0 && self.held.0 > UNDO_PACKETS && !self.said {
            self.said = true;
            log::warn!(
                "{}: the timestamps start over at {:.3} s (pieces joined, or a recording across a restart): the frames are numbered on from there",
                path.display(),
                f64::from(time_base) * self.held.2 as f64
            );
        }
    }

    /// The file was read to its end.
    pub fn finish(&mut self, path: &Path) {
        self.lost.finish(path.display());
    }
}

/// A reader's continuity in a file whose timestamps may start over: its own [`Continuity`]
/// while it reads on from the file's start, the index's [`FileClock`] once it has sought.
pub struct FileContinuity {
    local: Option<Continuity>,
    clock: Option<Arc<FileClock>>,
    /// Per stream of the file: whether it takes part.
    parts: Vec<bool>,
    /// Per stream: the offset its last packet took (for packets that don't say their byte).
    last: Vec<i64>,
}

impl FileContinuity {
    /// For a reader of `input` (read from its start); `clock` the index's, where there is one.
    pub fn new(input: &ffmpeg::format::context::Input, clock: Option<Arc<FileClock>>) -> Self {
        let parts = parts(input);
        Self {
            local: Some(Continuity::for_file()),
            clock,
            last: vec![0; parts.len()],
            parts,
        }
    }

    /// The reader sought: its offsets come from the index's clock from now on.
    pub fn sought(&mut self) {
        self.local = None;
    }

    /// The index's clock, for seeks by byte.
    pub fn clock(&self) -> Option<&Arc<FileClock>> {
        self.clock.as_ref()
    }

    /// Moves `packet`'s timestamps on by its offset; the offset (0 for a stream that takes no
    /// part).
    pub fn apply(&mut self, packet: &mut ffmpeg::Packet, time_base: ffmpeg::Rational) -> i64 {
        let stream = packet.stream();
        if !self.parts.get(stream).copied().unwrap_or(false) {
            return 0;
        }
        let offset = match (&mut self.local, &self.clock) {
            (Some(local), _) => local.packet_offset(packet, time_base),
            (None, Some(clock)) if packet.position() >= 0 => clock.offset_at(stream, packet.position() as i64),
            (None, _) => self.last[stream],
        };
        self.last[stream] = offset;
        shift(packet, offset);
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_that_starts_over_runs_on_from_its_last_packet() {
        let mut continuity = Continuity::default();
        let ts = ffmpeg::Rational::new(1, 90_000);
        // 25 fps: 3600 ticks a frame.
        let offsets: Vec<i64> = [126_000, 129_600, 133_200, 136_800]
            .into_iter()
            .map(|dts| continuity.offset(0, dts, 3600, ts))
            .collect();
        assert_eq!(offsets, [0, 0, 0, 0]);
        // The sender restarts at 1.4 s: it goes on at 140 400.
        assert_eq!(continuity.offset(0, 126_000, 3600, ts), 140_400 - 126_000);
        assert_eq!(continuity.offset(0, 129_600, 3600, ts), 140_400 - 126_000);
        // A jump forward of an hour, without a duration: one step (the last gap) after.
        assert_eq!(
            continuity.offset(0, 129_600 + 324_000_000, 0, ts),
            144_000 + 3600 - (129_600 + 324_000_000)
        );
    }

    #[test]
    fn one_offset_moves_every_stream_keeping_their_spacing() {
        let mut continuity = Continuity::default();
        let ts = ffmpeg::Rational::new(1, 90_000);
        // Video to 2.0 s, sound (1920-tick AAC frames) to 2.3 s.
        assert_eq!(continuity.offset(0, 180_000, 3600, ts), 0);
        assert_eq!(continuity.offset(1, 207_000, 1920, ts), 0);
        // Restarted: the new video at 1.4 s continues after the newest packet, the sound's.
        let offset = continuity.offset(0, 126_000, 3600, ts);
        assert_eq!(offset, 207_000 + 3600 - 126_000);
        // The new sound, 0.3 s after the new video as muxed, keeps that spacing: no jump of its own.
        assert_eq!(continuity.offset(1, 153_000, 1920, ts), offset);
        // Another time base gets the same offset in its own ticks.
        let ms = ffmpeg::Rational::new(1, 1000);
        assert_eq!(continuity.offset(2, 1_900, 40, ms), offset / 90);
    }

    /// A packet of `stream` with these times and duration.
    fn packet(stream: usize, pts: i64, dts: i64, duration: i64) -> ffmpeg::Packet {
        let mut packet = ffmpeg::Packet::empty();
        packet.set_stream(stream);
        packet.set_pts(Some(pts));
        packet.set_dts(Some(dts));
        packet.set_duration(duration);
        packet
    }

    #[test]
    fn a_files_pieces_run_on_and_its_streams_may_start_apart_or_step_back_a_little() {
        let mut continuity = Continuity::for_file();
        let ts = ffmpeg::Rational::new(1, 90_000);
        let mut offset = |stream, pts, dts, duration| continuity.packet_offset(&packet(stream, pts, dts, duration), ts);
        // The sound starts 3 s before the picture: as it is, no jump.
        assert_eq!(offset(1, 126_000, 126_000, 1920), 0);
        assert_eq!(offset(0, 396_000, 396_000, 3600), 0);
        // A step back of 50 ms in the sound passes; one of 0.24 s in the picture is a piece's
        // start, which follows the last time shown.
        assert_eq!(offset(1, 121_500, 121_500, 1920), 0);
        assert_eq!(offset(0, 399_600, 399_600, 3600), 0);
        let moved = offset(0, 378_000, 378_000, 3600);
        assert_eq!(moved, 399_600 + 3600 - 378_000);
        // The new piece's sound, 3 s before its picture as before: the same offset.
        assert_eq!(offset(1, 108_000, 108_000, 1920), moved);
    }

    #[test]
    fn a_piece_after_reordered_pictures_is_shown_after_all_of_them_and_damaged_times_start_none() {
        let mut continuity = Continuity::for_file();
        let ts = ffmpeg::Rational::new(1, 90_000);
        let mut offset = |pts, dts| continuity.packet_offset(&packet(0, pts, dts, 3600), ts);
        // Pictures shown three frames after they are decoded: the last shown at 11 frames.
        for k in 0..10 {
            assert_eq!(offset((k + 2) * 3600, k * 3600), 0);
        }
        // One picture's decode time damaged (22.6 s on, its presentation as it was), then one
        // decoded after its presentation: neither starts a piece, nor moves the clock.
        assert_eq!(offset(12 * 3600, 10 * 3600 + 2_034_000), 0);
        assert_eq!(offset(12 * 3600, 12 * 3600 + 900), 0);
        assert_eq!(offset(12 * 3600, 10 * 3600), 0);
        // A piece whose first picture (decoded at 0) is not its keyframe: after the last shown
        // (12 frames), so that its earlier pictures (shown from its first decode time on) come
        // after it too.
        let moved = offset(2 * 3600, 0);
        assert_eq!(moved, 13 * 3600);
        assert_eq!(offset(3600, 3600), moved);
        assert!(3600 + moved > 12 * 3600);
    }

    #[test]
    fn a_piece_starting_at_a_keyframe_runs_on_from_the_streams_next_decode_time_as_ffmpeg_joins_it() {
        let ts = ffmpeg::Rational::new(1, 90_000);
        // Pictures shown two frames after they are decoded (B-frames): decoded to 9 frames,
        // shown to 11; then a piece starting over at 0, its keyframe shown `lead` frames on.
        for (lead, moved) in [(2, 10), (3, 10), (0, 12)] {
            let mut continuity = Continuity::for_file();
            for k in 0..10 {
                assert_eq!(
                    continuity.packet_offset(&packet(0, (k + 2) * 3600, k * 3600, 3600), ts),
                    0
                );
            }
            let mut key = packet(0, lead * 3600, 0, 3600);
            key.set_flags(ffmpeg::packet::Flags::KEY);
            // Decoded from frame 10 on, the stream's next decode time, where its keyframe is
            // then shown after frame 11; else from after frame 11.
            assert_eq!(continuity.packet_offset(&key, ts), moved * 3600, "lead {lead}");
            assert!((lead + moved) * 3600 > 11 * 3600);
        }
    }

    #[test]
    fn one_packets_damaged_time_is_undone_by_the_next_going_on_from_before_it() {
        let mut continuity = Continuity::for_file();
        let ts = ffmpeg::Rational::new(1, 90_000);
        let mut offset = |at: i64| continuity.packet_offset(&packet(0, at, at, 3600), ts);
        for k in 10..20 {
            assert_eq!(offset(k * 3600), 0);
        }
        // Frame 20's time 30 s back (both its times): it is put after frame 19...
        let moved = offset(20 * 3600 - 2_700_000);
        assert_eq!(20 * 3600 - 2_700_000 + moved, 20 * 3600);
        // ...and frame 21, going on from frame 19, undoes the jump: no piece started there.
        assert_eq!(offset(21 * 3600), 0);
        assert_eq!(offset(22 * 3600), 0);
    }

    #[test]
    fn a_file_clock_gives_each_streams_offset_by_its_bytes() {
        let clock = FileClock::default();
        for (stream, pos, offset) in [
            (0, 0, 0),
            (1, 188, 0),
            (0, 376, 0),
            (1, 564, 900),
            (0, 752, 1000),
            (0, 940, 1000),
        ] {
            clock.read(stream, pos, offset);
        }
        assert!(clock.jumped());
        let ms = ffmpeg::Rational::new(1, 1000);
        clock.keyframe(0, 0, ms);
        clock.keyframe(2000, 752, ms);
        assert_eq!(
            [0, 376, 751, 752, 5000].map(|pos| clock.offset_at(0, pos)),
            [0, 0, 0, 1000, 1000]
        );
        assert_eq!([188, 563, 564].map(|pos| clock.offset_at(1, pos)), [0, 0, 900]);
        assert_eq!(clock.keyframe_at_or_before(1999), Some((0, 0)));
        assert_eq!(clock.keyframe_at_or_before(2500), Some((2000, 752)));
        assert_eq!(clock.keyframe_before_seconds(2.0), Some(752));
        assert_eq!(clock.keyframe_at_or_before(-1), None);
    }
}
