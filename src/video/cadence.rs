//! Frames lost in transport. A transport stream damaged on the way (a broadcast recording, a
//! dropped network packet) loses whole frames: the demuxer drops what it cannot read, so the
//! frames that are left are numbered without a gap and nothing is damaged to decode. What shows
//! the loss is the picture's clock: in a stream that keeps a steady cadence (each decode time
//! one frame after the last, or a steady mix of fields and frames, or 3:2 pulldown's long and
//! short frames), a step that leaves room for whole frames says they were lost.
//!
//! A step is judged once the packets after it go on from it in cadence for `CONFIRM` steps, so
//! one packet's damaged time is not taken for a loss, nor a change of rate whose frames fall
//! on the old rate's grid (long and short steps mixed: a variable rate's pieces joined); where
//! the timestamps start over (pieces joined), the reader's offset changes and the cadence is
//! learnt again.

/// Steps in a row in cadence before a longer one is taken as a loss.
const LEARN: u32 = 16;

/// Frames found missing at one place of the stream: `frames` of them between the decode times
/// `from` and `to` (the stream's time base, as read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lost {
    pub frames: u64,
    pub from: i64,
    pub to: i64,
}

/// Long steps that may each be a loss before they are confirmed (a burst of damage, frames
/// lost on both sides of ones that came); one more says the cadence changed (a change of rate
/// on the old rate's grid steps long every few frames, never in cadence for long).
const CHAINED: usize = 8;
/// Steps in cadence after the last long step that confirm the long ones as losses.
const CONFIRM: u32 = 8;

/// The cadence of one stream's decode times, packet by packet.
#[derive(Debug, Default)]
pub struct Cadence {
    /// The last packet's decode time and duration.
    last: Option<(i64, i64)>,
    /// The offset the reader gave the last packet (a change starts the cadence again).
    offset: i64,
    /// Steps in a row in cadence, the shortest and longest of them, and the longest duration
    /// their packets said.
    run: u32,
    shortest: i64,
    longest: i64,
    longest_duration: i64,
    /// Long steps waiting for the packets after them to go on in cadence, and the steps in
    /// cadence since the last of them.
    pending: Vec<Lost>,
    confirming: u32,
    /// The demuxer read past damage before the next packet (`damaged`).
    after_damage: bool,
}

impl Cadence {
    /// Takes the next packet of the stream: its decode time, its duration (0 where unknown)
    /// and the offset its reader moved it by. Says the frames missing before the packets
    /// before it, once this one confirms them (none but where frames were lost: no allocation).
    pub fn packet(&mut self, dts: Option<i64>, duration: i64, offset: i64) -> Vec<Lost> {
        let Some(dts) = dts else {
            self.restart(None, offset);
            return Vec::new();
        };
        let Some((last, last_duration)) = self.last.filter(|_| offset == self.offset) else {
            self.restart(Some((dts, duration.max(0))), offset);
            return Vec::new();
        };
        let step = dts - last;
        self.last = Some((dts, duration.max(0)));
        if std::mem::take(&mut self.after_damage) && last_duration > 0 && 4 * step >= 7 * last_duration {
            // Past damage the demuxer skipped (a Matroska cluster it could not read), the
            // frames the step leaves room for by the last frame's own duration (a step of 1.75
            // of them or more) are lost: no cadence needs learning to tell, early in a file or
            // between two damaged places.
            let frames = (2 * (step - last_duration) + last_duration) / (2 * last_duration);
            return vec![Lost {
                frames: frames as u64,
                from: last,
                to: dts,
            }];
        }
        if step <= 0 {
            // Back from a time far ahead: the long step into it was that packet's damaged
            // time, not a loss (the losses before it stand).
            if self
                .pending
                .last()
                .is_some_and(|lost| lost.to == last && dts > lost.from)
            {
                self.pending.pop();
            } else {
                (self.run, self.pending) = (0, Vec::new());
            }
            return Vec::new();
        }
        let learnt = self.run >= LEARN;
        let expected = self.longest.max(last_duration);
        if learnt && step >= self.shortest && step <= expected {
            if self.pending.is_empty() {
                return Vec::new();
            }
            self.confirming += 1;
            if self.confirming < CONFIRM {
                return Vec::new();
            }
            return std::mem::take(&mut self.pending);
        }
        if learnt && self.pending.len() < CHAINED && step >= expected + self.shortest - self.shortest / 4 {
            // Room for whole frames: a loss, once a step goes on in cadence. Counted in the
            // last frame's duration where it is said (a frame or a field), else in the
            // cadence's shortest step.
            let unit = if last_duration > 0 {
                last_duration
            } else {
                self.shortest
            };
            let frames = ((step - expected + unit / 2) / unit).max(1);
            self.pending.push(Lost {
                frames: frames as u64,
                from: last,
                to: dts,
            });
            self.confirming = 0;
            return Vec::new();
        }
        if !self.pending.is_empty() {
            // Long steps in a row past what a loss explains: the cadence changed.
            (self.run, self.pending) = (0, Vec::new());
        }
        // Learning: the cadence holds while its longest step is at most two of its shortest
        // (fields and frames, 3:2 pulldown) and, where the packets say their durations, no
        // step is longer than the longest of them (a variable rate whose frames fall on a
        // grid steps over several).
        self.longest_duration = match self.run {
            0 => last_duration,
            _ => self.longest_duration.max(last_duration),
        };
        let limit = self.longest_duration;
        if limit > 0 && step > limit + limit / 8 {
            self.run = 0;
            return Vec::new();
        }
        if self.run == 0 {
            (self.shortest, self.longest) = (step, step);
        } else {
            self.shortest = self.shortest.min(step);
            self.longest = self.longest.max(step);
        }
        if self.longest > 2 * self.shortest {
            (self.shortest, self.longest, self.longest_duration, self.run) = (step, step, last_duration, 0);
        }
        self.run += 1;
        Vec::new()
    }

    /// The demuxer read past damage: the step to the next packet is judged by the last
    /// packet's duration, where it says one.
    pub fn damaged(&mut self) {
        self.after_damage = true;
    }

    /// The stream ended: a long step the packets after it went on from in cadence, if fewer
    /// than `CONFIRM` came before the end (one alone: more are a change of rate as likely).
    pub fn finish(&mut self) -> Vec<Lost> {
        match (self.confirming, self.pending.len()) {
            (1.., 1) => std::mem::take(&mut self.pending),
            _ => Vec::new(),
        }
    }

    fn restart(&mut self, last: Option<(i64, i64)>, offset: i64) {
        *self = Self {
            last,
            offset,
            ..Self::default()
        };
    }
}

/// Places of lost frames each warned of; beyond, the total at the end.
const SAID: u32 = 5;

/// One reader's watch on its picture stream's cadence, warning of the frames lost.
#[derive(Debug)]
pub struct LostFrames {
    cadence: Cadence,
    /// The stream's time base, seconds a tick.
    tick: f64,
    /// The frames found lost, and in how many places.
    lost: (u64, u32),
}

impl LostFrames {
    pub fn new(time_base: ffmpeg_next::Rational) -> Self {
        Self {
            cadence: Cadence::default(),
            tick: f64::from(time_base),
            lost: (0, 0),
        }
    }

    /// Takes the stream's next packet (its times moved on by `offset`, its reader's; a packet
    /// without times too), and warns of the frames lost before it, `name` the input. The
    /// times said are the stream's, as `hist` and ffprobe print them.
    pub fn packet(&mut self, packet: &ffmpeg_next::Packet, offset: i64, name: impl std::fmt::Display) {
        let found = self.cadence.packet(packet.dts(), packet.duration(), offset);
        self.said(found, name);
    }

    /// The demuxer read past damage before the next packet.
    pub fn damaged(&mut self) {
        self.cadence.damaged();
    }

    fn said(&mut self, found: Vec<Lost>, name: impl std::fmt::Display) {
        for lost in found {
            self.lost = (self.lost.0 + lost.frames, self.lost.1 + 1);
            if self.lost.1 > SAID {
                continue;
            }
            log::warn!(
                "{name}: {} lost from the stream where its decode times skip from {:.3} to {:.3} s; frame numbers count the frames that are there",
                crate::terminal::counted(lost.frames as usize, "frame"),
                self.tick * lost.from as f64,
                self.tick * lost.to as f64,
            );
        }
    }

    /// The stream ended: the frames lost in all, where more places lost them than were each
    /// said.
    pub fn finish(&mut self, name: impl std::fmt::Display) {
        let found = self.cadence.finish();
        self.said(found, &name);
        let (frames, places) = self.lost;
        if places > SAID {
            log::warn!("{name}: {frames} frames lost from the stream in {places} places in all");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The losses found in a stream of decode times (duration 0, no offset).
    fn losses(times: &[i64]) -> Vec<Lost> {
        let mut cadence = Cadence::default();
        times.iter().flat_map(|&t| cadence.packet(Some(t), 0, 0)).collect()
    }

    fn steady(from: i64, step: i64, count: i64) -> Vec<i64> {
        (0..count).map(|i| from + i * step).collect()
    }

    #[test]
    fn a_steady_stream_missing_frames_says_how_many_and_where() {
        let mut times = steady(0, 3600, 30);
        times.extend(steady(30 * 3600 + 2 * 3600, 3600, 10));
        assert_eq!(
            losses(&times),
            [Lost {
                frames: 2,
                from: 29 * 3600,
                to: 32 * 3600
            }]
        );
        let mut times = steady(0, 3600, 30);
        times.extend(steady(31 * 3600, 3600, 10));
        assert_eq!(
            losses(&times),
            [Lost {
                frames: 1,
                from: 29 * 3600,
                to: 31 * 3600
            }]
        );
    }

    #[test]
    fn nothing_is_lost_in_a_stream_without_gaps_or_before_its_cadence_is_learnt() {
        assert!(losses(&steady(1000, 3600, 200)).is_empty());
        // A gap among the first steps: the cadence is not known yet.
        let mut times = steady(0, 3600, 5);
        times.extend(steady(7 * 3600, 3600, 40));
        assert!(losses(&times).is_empty());
    }

    #[test]
    fn past_damage_the_demuxer_read_past_a_step_is_judged_by_the_frames_duration() {
        // 40 ms frames (time base 1 ms), each saying its duration: damage after the 8th
        // packet, the next 200 ms on; then damage with nothing lost, and a step as long as a
        // frame and a half after it (no whole frame's room).
        let mut cadence = Cadence::default();
        let mut found = Vec::new();
        let mut packet = |cadence: &mut Cadence, t: i64| found.extend(cadence.packet(Some(t), 40, 0));
        for t in (0..8).map(|i| i * 40) {
            packet(&mut cadence, t);
        }
        cadence.damaged();
        packet(&mut cadence, 480);
        packet(&mut cadence, 520);
        cadence.damaged();
        packet(&mut cadence, 560);
        cadence.damaged();
        packet(&mut cadence, 620);
        assert_eq!(
            found,
            [Lost {
                frames: 4,
                from: 280,
                to: 480
            }]
        );
        // Frames of a tick each (AVI's time base): damage with a step of one frame, of one and a
        // half, then of two.
        let mut cadence = Cadence::default();
        let steps: Vec<Vec<Lost>> = [0, 1, 2, 3, 4, 5, 7, 9]
            .into_iter()
            .map(|t| {
                cadence.damaged();
                cadence.packet(Some(t), 1, 0)
            })
            .collect();
        assert!(steps[..6].iter().all(Vec::is_empty), "{steps:?}");
        assert_eq!(
            steps[6],
            [Lost {
                frames: 1,
                from: 5,
                to: 7
            }]
        );
        assert_eq!(
            steps[7],
            [Lost {
                frames: 1,
                from: 7,
                to: 9
            }]
        );
        // Two ticks a frame: a step of three is no loss, of four one.
        let mut cadence = Cadence::default();
        let mut lost = Vec::new();
        for t in [0, 2, 5, 9] {
            cadence.damaged();
            lost.extend(cadence.packet(Some(t), 2, 0));
        }
        assert_eq!(
            lost,
            [Lost {
                frames: 1,
                from: 5,
                to: 9
            }]
        );
        // Without the damage said, so early a step is not judged.
        let mut times = steady(0, 40, 8);
        times.extend([480, 520]);
        assert!(losses(&times).is_empty());
    }

    #[test]
    fn a_cadence_of_fields_and_frames_or_of_pulldown_is_no_loss() {
        // 23.976 fps in 90 kHz: steps of 3753 and 3754.
        let times: Vec<i64> = (0..100).map(|i| i * 90000 * 1001 / 24000).collect();
        assert!(losses(&times).is_empty());
        // 3:2 pulldown: 1.5 and 1 frames.
        let times: Vec<i64> = (0..100).map(|i| (i / 2) * 7507 + (i % 2) * 4504).collect();
        assert!(losses(&times).is_empty());
        // Fields (1800) for a while, then frames (3600), each packet's duration said.
        let mut cadence = Cadence::default();
        let mut t = 0;
        for i in 0..100 {
            let duration = if i < 50 { 1800 } else { 3600 };
            assert_eq!(cadence.packet(Some(t), duration, 0), [], "packet {i}");
            t += duration;
        }
        // The same where a frame is lost among the frames.
        let mut cadence = Cadence::default();
        let (mut found, mut gap) = (Vec::new(), None);
        let mut t = 0;
        for i in 0..100 {
            let duration = if i < 50 { 1800 } else { 3600 };
            found.extend(cadence.packet(Some(t), duration, 0));
            let step = if i == 70 { 2 * duration } else { duration };
            if i == 70 {
                gap = Some((t, t + step));
            }
            t += step;
        }
        let (from, to) = gap.unwrap();
        assert_eq!(found, [Lost { frames: 1, from, to }]);
        // Fields, then frames, where the packets say no duration: the cadence is learnt again.
        let mut cadence = Cadence::default();
        let mut t = 0;
        for i in 0..100 {
            assert_eq!(cadence.packet(Some(t), 0, 0), [], "packet {i}");
            t += if i < 50 { 1800 } else { 3600 };
        }
    }

    #[test]
    fn one_damaged_time_or_a_piece_joined_is_no_loss() {
        // One packet's time far ahead, the next going on from before it.
        let mut times = steady(0, 3600, 40);
        times[30] += 90000 * 5;
        assert!(losses(&times).is_empty());
        // The reader moved the second piece on (its offset changed) with a step between them.
        let mut cadence = Cadence::default();
        let found: Vec<Lost> = (0..80)
            .flat_map(|i| {
                let (t, offset) = if i < 40 { (i * 3600, 0) } else { (i * 3600 + 20000, 5) };
                cadence.packet(Some(t), 3600, offset)
            })
            .collect();
        assert!(found.is_empty());
    }

    #[test]
    fn frames_lost_on_both_sides_of_one_that_came_are_each_found() {
        // Frames 31 and 33 lost; then frames 51, 53 and 55.
        let times: Vec<i64> = (0..80)
            .filter(|i| ![31, 33, 51, 53, 55].contains(i))
            .map(|i| i * 3600)
            .collect();
        let lost = |n: i64| Lost {
            frames: 1,
            from: (n - 1) * 3600,
            to: (n + 1) * 3600,
        };
        assert_eq!(losses(&times), [lost(31), lost(33), lost(51), lost(53), lost(55)]);
        // Halved from then on (each packet's duration unknown): a new cadence, no loss.
        let mut times = steady(0, 3600, 40);
        times.extend(steady(40 * 3600, 7200, 40));
        assert!(losses(&times).is_empty());
    }

    #[test]
    fn a_packet_without_times_or_a_variable_rate_on_a_grid_is_no_loss() {
        let mut cadence = Cadence::default();
        let mut found = Vec::new();
        for i in 0..80 {
            let dts = (i != 50).then_some(i * 3003);
            found.extend(cadence.packet(dts, 3003, 0));
        }
        assert!(found.is_empty(), "{found:?}");
        // Frames on a 1/25 s grid, one or two steps apart, each packet saying one step: not a
        // cadence, whatever their steps.
        let mut cadence = Cadence::default();
        let mut t = 0;
        for i in 0..200 {
            t += 3600 * (1 + (i / 20) % 2 + i64::from(i % 7 == 0 && i > 100));
            assert_eq!(cadence.packet(Some(t), 3600, 0), [], "packet {i}");
        }
    }

    #[test]
    fn a_rate_changed_on_the_old_rates_grid_is_no_loss() {
        // 50 fps on a 1/50 s grid, then frames one or two steps of it apart (a 30 fps piece
        // on the same grid): long steps among short ones, each a few steps from the last.
        let mut times = steady(0, 20, 100);
        let mut t = 99 * 20;
        for i in 0..60 {
            t += if i % 5 == 1 || i % 5 == 3 { 20 } else { 40 };
            times.push(t);
        }
        assert!(losses(&times).is_empty(), "{:?}", losses(&times));
        // One long step a while after another in a steady stream is a loss each time.
        let times: Vec<i64> = (0..100).filter(|i| ![40, 60].contains(i)).map(|i| i * 20).collect();
        assert_eq!(losses(&times).len(), 2);
    }

    #[test]
    fn a_burst_of_losses_a_loss_near_the_end_or_before_a_damaged_time_is_found() {
        // Four frames lost within eight, then two more apart.
        let times: Vec<i64> = (0..200)
            .filter(|i| ![31, 34, 37, 40, 100, 150].contains(i))
            .map(|i| i * 3600)
            .collect();
        assert_eq!(losses(&times).len(), 6);
        // Frame 195 of 200: said as the stream ends, once a packet went on in cadence.
        let mut cadence = Cadence::default();
        let mut found = Vec::new();
        for i in (0..200).filter(|&i| i != 195) {
            found.extend(cadence.packet(Some(i * 3600), 0, 0));
        }
        found.extend(cadence.finish());
        assert_eq!(found.len(), 1);
        // Frame 50 lost, then frame 55's time far ahead.
        let mut times: Vec<i64> = (0..100).filter(|&i| i != 50).map(|i| i * 3600).collect();
        times[54] += 90000 * 5;
        assert_eq!(losses(&times).len(), 1, "{:?}", losses(&times));
        // Frame 50 lost, then frame 52's time far behind: not a loss of the frames back to it.
        let mut times: Vec<i64> = (0..100).filter(|&i| i != 50).map(|i| i * 3600).collect();
        times[51] -= 450_000;
        assert!(
            losses(&times).iter().all(|lost| lost.frames == 1),
            "{:?}",
            losses(&times)
        );
        // A change of rate on the old rate's grid in the last packets: no loss at the end.
        let mut cadence = Cadence::default();
        let mut found = Vec::new();
        let mut t = 0;
        for i in 0..114 {
            t += if i < 100 || i % 5 == 1 || i % 5 == 3 { 20 } else { 40 };
            found.extend(cadence.packet(Some(t), 0, 0));
        }
        found.extend(cadence.finish());
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_stream_without_a_cadence_is_never_judged() {
        // Variable rate: steps from one to five frames.
        let mut t = 0;
        let times: Vec<i64> = (0..200)
            .map(|i| {
                t += 3600 * (1 + (i * 7 % 5));
                t
            })
            .collect();
        assert!(losses(&times).is_empty());
    }
}
