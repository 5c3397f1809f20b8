//! Seeking: where a seek lands ([`SeekTarget`]), the decode run that follows it ([`Run`]) and
//! how it may skip frames to land sooner ([`CatchUp`]), and the search for its keyframe.

use super::hardware::NalFraming;
use super::VideoSource;
use crate::video::demux::seek_backward;
use ffmpeg_next as ffmpeg;
use std::collections::BTreeSet;

/// Where the decoder should land.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeekTarget {
    /// The frame whose display interval holds this time (exact), or the keyframe at or before it.
    Time { seconds: f64, exact: bool },
    /// Frame number `n` in presentation order (exact once the index has read that far; until
    /// then the frame at `n`'s estimated time).
    Frame(u64),
    /// The frame just before the one with this pts (a step back).
    Before(i64),
    /// The last frame.
    End,
}

/// Up to what a decode run may skip frames, to land sooner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatchUp {
    /// The run is headed for the last frame at or before this pts.
    pub limit: i64,
    /// Frames from this pts on are all decoded (they are kept for steps back).
    pub keep_from: i64,
    /// Frames before `keep_from` that the decoder does decode (other frames reference them) are
    /// given out as passed, pts only: not copied back from a hardware decoder or converted. The
    /// run's first frame is given out whole all the same (it may be shown as a preview).
    pub pass: bool,
}

/// What the decoder has been given since the last seek.
#[derive(Debug, Default)]
pub(super) struct Run {
    /// The run began with a seek (not at the stream's start, where every frame decodes).
    pub(super) after_seek: bool,
    /// Pts of the run's first packet: frames shown before it are leading pictures that need
    /// the previous GOP, broken after a seek.
    pub(super) start: Option<i64>,
    pub(super) catch_up: Option<CatchUp>,
    /// The largest packet pts at or before the catch-up limit seen so far.
    pub(super) newest_before_limit: Option<i64>,
    /// Whether the decoder is set to skip frames nothing references, and whether it has been
    /// in this run.
    pub(super) skipping: bool,
    pub(super) skipped_any: bool,
    /// Pts of packets the decoder was allowed to skip (those it did never show).
    pub(super) skippable: BTreeSet<i64>,
    /// Packets sent since the seek.
    pub(super) packets: u64,
    /// Frames given out (or passed) since the seek.
    pub(super) given: u64,
    /// The seek left the decoder as it was, to be flushed before the first packet unless that
    /// is an IDR picture.
    pub(super) flush_pending: bool,
    /// While frames of the run before the seek may still come out of an unflushed decoder: the
    /// pts of the packets this run has sent. Frames with others are stale.
    pub(super) stale_filter: Option<BTreeSet<i64>>,
    /// The keyframe a seek is headed for, until a keyframe at or before it is read: packets
    /// before one are passed over.
    pub(super) to_keyframe: Option<ToKeyframe>,
}

/// A seek's keyframe, as the packets after the seek look for it.
#[derive(Clone, Copy, Debug)]
pub(super) struct ToKeyframe {
    pts: i64,
    /// Seeks made again, each further back, after landing past it.
    tries: u32,
    /// Packets passed over so far.
    passed: u32,
}

/// Packets passed over looking for a seek's keyframe before decoding from where it is anyway
/// (a stream whose keyframes the demuxer does not flag).
const KEYFRAME_SEARCH_PACKETS: u32 = 1000;

/// What a packet read after a seek does.
pub(super) enum Landed {
    /// Decode it (the run has its keyframe).
    Send,
    /// Pass it over: the keyframe is still to come.
    Pass,
    /// The seek landed past the keyframe: seek again, further back.
    Again,
}

impl VideoSource {
    /// Positions the demuxer at or before `pts`: by its timestamp, or where the file's
    /// timestamps start over somewhere, at the byte of the index's keyframe at or before it
    /// (its raw timestamp names a place in each piece). False where it can't.
    fn seek_input(&mut self, pts: i64) -> bool {
        let Some(continuity) = &mut self.file_continuity else {
            return seek_backward(&mut self.input, self.stream_index, pts);
        };
        continuity.sought();
        let clock = continuity.clock().cloned();
        match clock.filter(|clock| clock.jumped()) {
            None => seek_backward(&mut self.input, self.stream_index, pts),
            Some(clock) => match clock.keyframe_at_or_before(pts) {
                Some((_, pos)) => crate::video::continuity::seek_to_byte(&mut self.input, pos),
                // Before the first keyframe the index has: the file's start.
                None => crate::video::continuity::seek_to_byte(&mut self.input, 0),
            },
        }
    }

    /// Positions the demuxer at the keyframe at or before `pts`; the next frames decoded start
    /// there. Returns false if the stream can't seek (then it restarts from the beginning).
    pub fn seek_before(&mut self, pts: i64) -> bool {
        // A live input is read once, as it comes: decoding goes on from where it is.
        if self.info.live {
            return false;
        }
        // Where the index knows the keyframe, packets before it are passed over: demuxers
        // that seek by timestamp alone (MPEG-TS) land on a packet near the time asked, keyframe
        // or not, and a GOP decoded from its middle gives out nothing.
        let keyframe = self.index.keyframe_at_or_before(pts);
        self.timecodes.restart();
        self.moved = true;
        let sought = self.seek_input(keyframe.unwrap_or(pts));
        if !sought {
            // SAFETY: a valid input context; seeking to the stream's start, backwards.
            let result = unsafe {
                ffmpeg::ffi::av_seek_frame(
                    self.input.as_mut_ptr(),
                    self.stream_index as i32,
                    i64::MIN / 2,
                    ffmpeg::ffi::AVSEEK_FLAG_BACKWARD,
                )
            };
            if result < 0 {
                let _ = self.input.seek(0, ..);
            }
        }
        self.primed.clear();
        // A drained decoder (end of stream sent) takes packets again only after a flush.
        let flush_pending = self.keep_decoder.is_some() && !self.eof_sent;
        if !flush_pending {
            self.decoder.flush();
        }
        self.eof_sent = false;
        self.last_pts = None;
        self.given.clear();
        self.last_number = None;
        // Frames the run before may have given late are no longer looked for.
        self.gaps.close();
        self.counted = if sought { None } else { Some(0) };
        // The decoder may still be skipping for the run before: it decodes every frame again.
        let skipping = self.run.skipping;
        self.run = Run {
            after_seek: true,
            flush_pending,
            skipping,
            to_keyframe: keyframe.filter(|_| sought).map(|pts| ToKeyframe {
                pts,
                tries: 0,
                passed: 0,
            }),
            ..Run::default()
        };
        self.apply_skipping(false);
        sought
    }

    /// Decodes towards `catch_up`'s limit as fast as possible: frames before its `keep_from`
    /// that nothing references are not decoded at all (as mpv does for exact seeks), unless
    /// they could be the frame the run is headed for. None decodes every frame.
    pub fn catch_up(&mut self, catch_up: Option<CatchUp>) {
        self.run.catch_up = catch_up;
        self.run.newest_before_limit = None;
        if catch_up.is_none() {
            self.apply_skipping(false);
        }
    }

    /// Makes seeks in an H.264 stream that land on an IDR picture keep the decoder's state
    /// instead of flushing it (dropping the frames of the previous run that come out first),
    /// as they do on a hardware decoder, where a flush costs a new decoder.
    pub fn set_keep_decoder_on_seek(&mut self, keep: bool) {
        self.keep_decoder = (keep && self.info.codec == "h264").then(|| {
            // SAFETY: the decoder's context is valid.
            unsafe { NalFraming::of_context(self.decoder.as_ptr()) }
        });
    }

    /// Pts of the last frame given out since the last seek: the decoder is right after it.
    pub fn position(&self) -> Option<i64> {
        self.last_pts
    }

    /// Whether this run left out a frame after `after`, up to `until` (packets not decoded
    /// while catching up to a later frame): those never come out of the decoder.
    pub fn skipped_between(&self, after: i64, until: i64) -> bool {
        after < until && self.run.skippable.range(after + 1..=until).next().is_some()
    }

    /// Pts of the first packet since the last seek (the keyframe the run started at).
    pub fn run_start(&self) -> Option<i64> {
        self.run.start
    }

    pub(super) fn apply_skipping(&mut self, skip: bool) {
        if skip != self.run.skipping {
            self.decoder.skip_frame(if skip {
                ffmpeg::Discard::NonReference
            } else {
                ffmpeg::Discard::Default
            });
            self.run.skipping = skip;
            self.run.skipped_any |= skip;
        }
    }

    /// Whether a packet read after a seek is the run's keyframe (or after it), before it, or
    /// past it.
    pub(super) fn landed(&mut self, packet: &ffmpeg::Packet) -> Landed {
        let Some(wanted) = self.run.to_keyframe.as_mut() else {
            return Landed::Send;
        };
        if !packet.is_key() {
            wanted.passed += 1;
            if wanted.passed < KEYFRAME_SEARCH_PACKETS {
                return Landed::Pass;
            }
            self.run.to_keyframe = None;
            return Landed::Send;
        }
        match packet.pts().or(packet.dts()) {
            Some(pts) if pts > wanted.pts => Landed::Again,
            _ => {
                self.run.to_keyframe = None;
                Landed::Send
            }
        }
    }

    /// The seek landed past its keyframe: seek again, twice as far back each time (from 32
    /// frames), and from the start after four tries.
    pub(super) fn seek_further_back(&mut self) {
        let Some(wanted) = self.run.to_keyframe.as_mut() else {
            return;
        };
        wanted.tries += 1;
        let frames = 32u32 << wanted.tries.min(4);
        let back = (f64::from(frames) * self.info.frame_duration * f64::from(self.info.time_base.1)
            / f64::from(self.info.time_base.0).max(1.0)) as i64;
        let target = wanted.pts.saturating_sub(back.max(1));
        if wanted.tries > 4 || !self.seek_input(target) {
            self.run.to_keyframe = None;
            let _ = self.input.seek(0, ..);
        }
    }
}
