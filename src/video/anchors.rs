//! The times a decoder gives the frames of packets without a pts, where its codec holds each
//! anchor picture back: as the frame index and the keyframe previews number them.

use ffmpeg_next as ffmpeg;

/// The times a decoder that holds each anchor picture back gives the frames of packets without
/// a pts. MPEG-1/2 video, MPEG-4 part 2 and VC-1 decoders keep an I or P picture until the next
/// one arrives, and a B picture comes out at once (its pts is its dts). A program stream's PES
/// packet carries a pts for the first picture that starts in it only, so where several small
/// pictures share one, an anchor comes without a pts: FFmpeg's best-effort time for its frame is
/// then the dts of the packet that brought it out, the next anchor's, and after the last packet
/// it has none (the frame then comes a frame after the one before it, `VideoSource::finish`).
#[derive(Debug)]
pub struct AnchorTimes {
    /// Whether the stream's decoder holds anchors back (otherwise a packet's time is its pts,
    /// or its dts without one).
    delayed: bool,
    /// An anchor without a pts, waiting for the next: its dts and whether it is a keyframe.
    held: Option<(i64, bool)>,
}

impl AnchorTimes {
    pub fn new(codec: ffmpeg::codec::Id) -> Self {
        use ffmpeg::codec::Id;
        let delayed = matches!(codec, Id::MPEG1VIDEO | Id::MPEG2VIDEO | Id::MPEG4 | Id::VC1 | Id::WMV3);
        Self { delayed, held: None }
    }

    /// Whether the stream's decoder holds anchors back.
    pub fn delays(&self) -> bool {
        self.delayed
    }

    /// Whether a packet of such a stream is an anchor: held back, its pts after its dts or
    /// unknown (a B picture's pts is its dts).
    pub fn is_anchor(pts: Option<i64>, dts: Option<i64>) -> bool {
        pts.is_none() || pts != dts
    }

    /// Takes in the next packet in decode order; gives the packets whose times are now known,
    /// as (time, keyframe), to `out`.
    pub fn take(&mut self, pts: Option<i64>, dts: Option<i64>, key: bool, mut out: impl FnMut(Option<i64>, bool)) {
        if !self.delayed {
            out(pts.or(dts), key);
            return;
        }
        // An anchor is held back (its pts after its dts, or unknown); a B picture is not.
        if Self::is_anchor(pts, dts) {
            if let Some((held, held_key)) = self.held.take() {
                out(Some(dts.filter(|&d| d > held).unwrap_or(held)), held_key);
            }
        }
        match (pts, dts) {
            (None, Some(dts)) => self.held = Some((dts, key)),
            _ => out(pts.or(dts), key),
        }
    }

    /// The stream has ended: an anchor still held comes `ticks_per_frame` after the latest
    /// time given out (`latest`).
    pub fn finish(&mut self, latest: Option<i64>, ticks_per_frame: f64, mut out: impl FnMut(Option<i64>, bool)) {
        if let Some((held, key)) = self.held.take() {
            let step = ((ticks_per_frame + 1e-6).floor() as i64).max(1);
            out(Some(latest.map_or(held, |l| l.max(held) + step)), key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MPEG-2 in a program stream, IBBP: the anchors without a pts take the next anchor's dts,
    /// as FFmpeg's best-effort time gives their frames; the last one a frame after the latest.
    #[test]
    fn anchors_without_a_pts_take_the_next_anchors_dts() {
        let packets = [
            (Some(48600), Some(45000), true),
            (Some(41400), Some(41400), false),
            (None, Some(52200), false),
            (Some(55800), Some(55800), false),
            (None, Some(59400), true),
            (Some(63000), Some(63000), false),
            (Some(66600), Some(66600), false),
        ];
        let mut times = Vec::new();
        let mut anchors = AnchorTimes::new(ffmpeg::codec::Id::MPEG2VIDEO);
        for (pts, dts, key) in packets {
            anchors.take(pts, dts, key, |t, k| times.push((t, k)));
        }
        anchors.finish(Some(66600), 3600.0, |t, k| times.push((t, k)));
        assert_eq!(
            times,
            [
                (Some(48600), true),
                (Some(41400), false),
                (Some(55800), false),
                (Some(59400), false),
                (Some(63000), false),
                (Some(66600), false),
                (Some(70200), true),
            ]
        );
        // Other decoders give such a packet its dts.
        let mut times = Vec::new();
        let mut plain = AnchorTimes::new(ffmpeg::codec::Id::H264);
        plain.take(None, Some(52200), false, |t, k| times.push((t, k)));
        plain.finish(Some(66600), 3600.0, |t, k| times.push((t, k)));
        assert_eq!(times, [(Some(52200), false)]);
    }
}
