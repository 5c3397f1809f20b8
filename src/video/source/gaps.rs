//! The frames a decode run has not given out between those it has: numbers the index knows,
//! lost to damage, or still to come. A damaged stream's decoder may give a frame out late, after
//! frames that follow it (FFmpeg's H.264 decoder does where the damage cost it its reordering
//! state), so a gap is only called lost once [`Gaps::WAIT`] more frames have come without it.

use std::collections::BTreeSet;
use std::ops::Range;

/// The gaps a run has left.
#[derive(Debug, Default)]
pub(super) struct Gaps {
    open: Vec<Gap>,
    /// Frames given out since the run began.
    given: u64,
    /// The largest frame number given out so far, and its pts.
    highest: Option<(u64, i64)>,
}

#[derive(Clone, Debug)]
struct Gap {
    frames: Range<u64>,
    /// The count of frames given when it opened.
    at: u64,
    /// Whether its frames are damage once lost (not where the decoder was let skip frames).
    damage: bool,
}

impl Gaps {
    /// How many frames come after a gap opens before its frames are called lost: beyond how far
    /// out of order a decoder gives frames (H.264 reorders up to 16 pictures).
    pub(super) const WAIT: u64 = 32;

    /// Frame `n`, at `pts`, given out. Where it is more than one past the largest number given
    /// before it, the frames between open gaps, all but those in `skipped` (the decoder was let
    /// skip them); `damage`: whether they are damage once lost. Returns the frames lost now,
    /// those of damage gaps opened `WAIT` frames ago and still open.
    pub(super) fn given(&mut self, n: u64, pts: i64, damage: bool, skipped: &BTreeSet<u64>) -> Vec<Range<u64>> {
        self.given += 1;
        match self.highest {
            Some((h, _)) if n > h + 1 => {
                let mut start = h + 1;
                for end in skipped.range(h + 1..n).copied().chain([n]) {
                    if start < end {
                        self.open.push(Gap {
                            frames: start..end,
                            at: self.given,
                            damage,
                        });
                    }
                    start = end + 1;
                }
            }
            Some((h, _)) if n <= h => self.fill(n),
            _ => {}
        }
        if self.highest.is_none_or(|(h, _)| n > h) {
            self.highest = Some((n, pts));
        }
        let (now, mut lost) = (self.given, Vec::new());
        self.open.retain(|gap| {
            let due = now - gap.at >= Self::WAIT;
            if due && gap.damage {
                lost.push(gap.frames.clone());
            }
            !due
        });
        lost
    }

    /// The largest frame number given out so far, and its pts.
    pub(super) fn highest(&self) -> Option<(u64, i64)> {
        self.highest
    }

    /// Frame `n` came late: no longer missing.
    fn fill(&mut self, n: u64) {
        let Some(i) = self.open.iter().position(|gap| gap.frames.contains(&n)) else {
            return;
        };
        let gap = self.open.remove(i);
        let parts = [gap.frames.start..n, n + 1..gap.frames.end];
        let parts = parts.into_iter().filter(|r| !r.is_empty());
        self.open.extend(parts.map(|frames| Gap { frames, ..gap.clone() }));
    }

    /// The lowest number of an open gap: a frame the decoder may still give out.
    pub(super) fn lowest(&self) -> Option<u64> {
        self.open.iter().map(|gap| gap.frames.start).min()
    }

    /// The damage gaps still open, lowest first, and a new run begun (after a seek, or at the
    /// end).
    pub(super) fn close(&mut self) -> Vec<Range<u64>> {
        let mut open: Vec<Range<u64>> = std::mem::take(&mut self.open)
            .into_iter()
            .filter(|gap| gap.damage)
            .map(|gap| gap.frames)
            .collect();
        open.sort_by_key(|r| r.start);
        *self = Self::default();
        open
    }
}

impl super::VideoSource {
    /// Frame `n`, at `pts`, given out: the gaps it opens or fills, and the frames lost now
    /// warned of.
    pub(super) fn note_given(&mut self, n: u64, pts: i64) {
        // The frames since the largest number given that the decoder was let skip.
        let skipped = match self.gaps.highest() {
            Some((_, highest)) if highest < pts => (self.run.skippable.range(highest + 1..pts))
                .map(|&p| self.index.number_at(p))
                .filter(|number| number.exact)
                .map(|number| number.n)
                .collect(),
            _ => BTreeSet::new(),
        };
        for lost in self.gaps.given(n, pts, !self.run.skipped_any, &skipped) {
            self.note_lost(lost);
        }
    }

    /// The frames the index knows of after the largest this run gave out, at the stream's end:
    /// never decoded (the last packets cut short or damaged), unless the run let the decoder
    /// skip frames, or its last frame was not the largest numbered exactly (numbered by
    /// estimate before the index had read that far).
    pub(super) fn missing_at_end(&self) -> Option<Range<u64>> {
        let count = self.index.frame_count()?;
        let last = self.last_number.filter(|number| number.exact)?;
        let (highest, _) = self.gaps.highest()?;
        (!self.run.skipped_any && last.n == highest && highest + 1 < count).then(|| highest + 1..count)
    }

    /// Frames of this run that never came: damage, unless the stream is ending on request (its
    /// decoder gives out only what it holds).
    pub(super) fn note_lost(&mut self, gap: Range<u64>) {
        if !self.ending_on_request() {
            self.note_missing(&super::frames::missing(gap.start, gap.end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives out `numbers` in order (each gap lost), collecting what is called lost.
    fn give(gaps: &mut Gaps, numbers: impl IntoIterator<Item = u64>) -> Vec<Range<u64>> {
        numbers
            .into_iter()
            .flat_map(|n| gaps.given(n, n as i64 * 10, true, &BTreeSet::new()))
            .collect()
    }

    #[test]
    fn frames_in_order_leave_no_gap() {
        let mut gaps = Gaps::default();
        assert!(give(&mut gaps, 0..100).is_empty());
        assert_eq!(gaps.lowest(), None);
        assert_eq!(gaps.highest(), Some((99, 990)));
        assert!(gaps.close().is_empty());
    }

    #[test]
    fn a_gap_is_lost_once_its_frames_stay_away_for_the_wait() {
        let mut gaps = Gaps::default();
        assert!(give(&mut gaps, 0..10).is_empty());
        // Frame 20 opens the gap; the WAIT frames after it call it lost.
        assert!(give(&mut gaps, 20..20 + Gaps::WAIT).is_empty());
        assert_eq!(gaps.lowest(), Some(10));
        assert_eq!(give(&mut gaps, [20 + Gaps::WAIT]), vec![10..20]);
        assert_eq!(gaps.lowest(), None);
    }

    #[test]
    fn frames_given_late_are_not_lost() {
        // As a damaged H.264 stream's decoder gave them: 72 and 74 before 57, 58 after 83.
        let mut gaps = Gaps::default();
        let order = (0..=56).chain([72, 74, 57]).chain(76..=83).chain([58]).chain(84..=200);
        let lost = give(&mut gaps, order.clone().take(57 + 3));
        assert!(lost.is_empty());
        assert_eq!(gaps.lowest(), Some(58));
        assert_eq!(gaps.highest(), Some((74, 740)));
        let lost = give(&mut gaps, order.skip(57 + 3));
        assert_eq!(lost, vec![59..72, 73..74, 75..76]);
        assert_eq!(gaps.lowest(), None);
    }

    #[test]
    fn frames_skipped_on_purpose_open_no_gap_and_close_gives_the_damage() {
        let mut gaps = Gaps::default();
        give(&mut gaps, 0..5);
        assert!(gaps.given(9, 90, true, &BTreeSet::from([5, 6, 7, 8])).is_empty());
        assert_eq!(gaps.lowest(), None);
        assert!(gaps.given(14, 140, true, &BTreeSet::from([11, 12])).is_empty());
        assert_eq!(gaps.lowest(), Some(10));
        give(&mut gaps, [17, 16, 20, 10]);
        assert_eq!(gaps.lowest(), Some(13));
        // Frames between where the decoder skipped others are awaited but no damage.
        assert!(gaps.given(30, 300, false, &BTreeSet::new()).is_empty());
        assert_eq!(gaps.close(), vec![13..14, 15..16, 18..20]);
        assert_eq!((gaps.lowest(), gaps.highest()), (None, None));
        assert!(give(&mut gaps, (0..1).chain(2..20).chain([1]).chain(20..40)).is_empty());
        assert_eq!(gaps.lowest(), None);
        assert!(gaps.given(50, 500, false, &BTreeSet::new()).is_empty());
        assert_eq!(gaps.lowest(), Some(40));
        assert!(give(&mut gaps, 51..51 + Gaps::WAIT).is_empty());
        assert_eq!(gaps.lowest(), None);
    }
}
