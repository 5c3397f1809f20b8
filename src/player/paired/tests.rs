//! Pairing against two scripted decoders: frame n of a 10 fps file at n/10 s.

use super::*;
use crate::compare::align::AlignBy;

#[derive(Default)]
struct Script {
    events: VecDeque<DecoderEvent>,
    released: Vec<usize>,
    seeks: Vec<SeekTarget>,
    generation: u64,
    /// As deinterlacing at field rate: a picture made once a slot comes back (the second
    /// field of the frame in it), and where a step back lands.
    second: Option<(usize, DecoderEvent)>,
    landing: Option<u64>,
}

impl FrameSource for Script {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        self.seeks.push(target);
        self.generation += 1;
        self.generation
    }

    fn release(&mut self, slot: usize) {
        self.released.push(slot);
        if self.second.as_ref().is_some_and(|(s, _)| *s == slot) {
            let (_, event) = self.second.take().unwrap();
            self.events.push_back(event);
        }
    }

    fn landing(&self, _: SeekTarget) -> Option<u64> {
        self.landing
    }

    fn next_picture(&self) -> Option<(u64, f64)> {
        match self.second.as_ref()? {
            (_, DecoderEvent::Frame(f)) => Some((f.index, f.seconds)),
            _ => None,
        }
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        self.events.pop_front()
    }

    fn generation(&self) -> u64 {
        self.generation
    }

    fn set_paused(&mut self, _: bool) {}
}

/// Frame `index` of a file at `fps`, of `generation`, in slot 100 + index (slots tell frames
/// apart in the release lists).
fn frame(index: u64, fps: f64, generation: u64) -> DecoderEvent {
    DecoderEvent::Frame(ReadyFrame {
        slot: 100 + index as usize,
        index,
        pts: index as i64,
        seconds: index as f64 / fps,
        generation,
        exact: true,
        awaited: None,
        preview: false,
        pict_type: 'P',
        packet: Default::default(),
        live_edge: false,
    })
}

fn pair(by: AlignBy, offset: i64, fps_b: f64) -> Paired<Script> {
    let align = Alignment {
        by,
        offset,
        start_a: 0.0,
        start_b: 0.0,
        first_b: 0.0,
        frame_b: 1.0 / fps_b,
    };
    Paired::new(Script::default(), Script::default(), align)
}

/// Everything passed on now: each A frame's number with its partner's.
fn drain(p: &mut Paired<Script>) -> Vec<(u64, Option<u64>)> {
    let mut out = Vec::new();
    while let Some(event) = p.try_event() {
        if let DecoderEvent::Frame(f) = event {
            out.push((f.index, p.partner(f.slot).map(|b| b.index)));
        }
    }
    out
}

#[test]
fn each_frame_waits_for_its_partner_by_number() {
    let mut p = pair(AlignBy::Frame, 0, 10.0);
    p.a.events.extend((0..3).map(|n| frame(n, 10.0, 0)));
    p.b.events.extend((0..2).map(|n| frame(n, 10.0, 0)));
    assert_eq!(drain(&mut p), [(0, Some(0)), (1, Some(1))]);
    p.b.events.push_back(frame(2, 10.0, 0));
    assert_eq!(drain(&mut p), [(2, Some(2))]);
    assert!(p.b.seeks.is_empty(), "B plays along without seeking");
    // B's frame goes back once A's is released and B has moved past it.
    p.release(100);
    assert_eq!(p.a.released, [100]);
    assert_eq!(p.b.released, [100]);
}

#[test]
fn an_offset_pairs_later_or_earlier_frames_of_b() {
    let mut p = pair(AlignBy::Frame, 2, 10.0);
    p.a.events.extend((0..2).map(|n| frame(n, 10.0, 0)));
    p.b.events.extend((0..4).map(|n| frame(n, 10.0, 0)));
    assert_eq!(drain(&mut p), [(0, Some(2)), (1, Some(3))]);
    assert_eq!(p.b.released, [100, 101], "B's first two frames are passed by");

    let mut p = pair(AlignBy::Frame, -1, 10.0);
    p.a.events.extend((0..3).map(|n| frame(n, 10.0, 0)));
    p.b.events.extend((0..2).map(|n| frame(n, 10.0, 0)));
    assert_eq!(drain(&mut p), [(0, None), (1, Some(0)), (2, Some(1))]);
}

#[test]
fn seeks_and_steps_back_that_name_a_frame_seek_b_at_once() {
    let mut p = pair(AlignBy::Frame, 3, 10.0);
    p.seek(SeekTarget::Frame(50));
    assert_eq!(p.b.seeks, [SeekTarget::Frame(53)]);
    p.a.events.push_back(frame(50, 10.0, 1));
    p.b.events.push_back(frame(53, 10.0, 1));
    assert_eq!(drain(&mut p), [(50, Some(53))]);
    // A step back from frame 50 (named by its pts): B goes to 52.
    p.seek(SeekTarget::Before(50));
    assert_eq!(p.b.seeks.last(), Some(&SeekTarget::Frame(52)));
    // A seek to a time lands where A's index says: B follows once A's frame is known.
    p.seek(SeekTarget::Time {
        seconds: 4.0,
        exact: true,
    });
    assert_eq!(p.b.seeks.len(), 2);
    // Stale frames of both are given back as they come.
    p.a.events.push_back(frame(49, 10.0, 2));
    p.b.events.push_back(frame(52, 10.0, 2));
    p.a.events.push_back(frame(40, 10.0, 3));
    assert_eq!(drain(&mut p), []);
    assert_eq!(p.b.seeks.last(), Some(&SeekTarget::Frame(43)));
    assert!(p.a.released.contains(&149));
    p.b.events.push_back(frame(52, 10.0, 2));
    p.b.events.push_back(frame(43, 10.0, 3));
    assert_eq!(drain(&mut p), [(40, Some(43))]);
    assert!(p.b.released.contains(&152));
}

#[test]
fn a_frame_b_lacks_is_passed_on_without_a_partner() {
    let mut p = pair(AlignBy::Frame, 0, 10.0);
    p.seek(SeekTarget::Frame(40));
    // B's frame 40 is missing (damaged): its stream goes on at 41.
    p.a.events.extend([frame(40, 10.0, 1), frame(41, 10.0, 1)]);
    p.b.events.push_back(frame(41, 10.0, 1));
    assert_eq!(drain(&mut p), [(40, None), (41, Some(41))]);
    assert_eq!(p.b.seeks.len(), 1, "no seek hunting for a frame B doesn't have");
    // Past B's end.
    p.b.events.push_back(DecoderEvent::EndOfStream { generation: 1 });
    p.a.events
        .extend([frame(42, 10.0, 1), DecoderEvent::EndOfStream { generation: 1 }]);
    assert_eq!(drain(&mut p), [(42, None)]);
}

#[test]
fn a_partner_far_ahead_is_sought_not_decoded_to() {
    let mut p = pair(AlignBy::Frame, 0, 10.0);
    p.a.events.push_back(frame(0, 10.0, 0));
    p.b.events.push_back(frame(0, 10.0, 0));
    assert_eq!(drain(&mut p), [(0, Some(0))]);
    p.set_offset(100);
    p.seek(SeekTarget::Frame(0));
    assert_eq!(p.b.seeks, [SeekTarget::Frame(100)]);
}

#[test]
fn by_time_a_slower_b_frame_stands_for_every_frame_of_a_in_its_interval() {
    let mut p = pair(AlignBy::Time, 0, 5.0);
    p.a.events.extend((0..4).map(|n| frame(n, 10.0, 0)));
    p.b.events.extend((0..2).map(|n| frame(n, 5.0, 0)));
    // A's frame 2 (0.2 s) may still go with B's frame 1 or a later one: it waits for B's next.
    assert_eq!(drain(&mut p), [(0, Some(0)), (1, Some(0))]);
    p.b.events.push_back(frame(2, 5.0, 0));
    assert_eq!(drain(&mut p), [(2, Some(1)), (3, Some(1))]);
    // B's frame 0 goes back once both of A's frames with it are released.
    p.release(100);
    assert!(p.b.released.is_empty());
    p.release(101);
    assert_eq!(p.b.released, [100]);
    // B ends: its last frame stands for the rest (as FFmpeg repeats it).
    p.b.events.push_back(DecoderEvent::EndOfStream { generation: 0 });
    p.a.events.extend((4..7).map(|n| frame(n, 10.0, 0)));
    assert_eq!(drain(&mut p), [(4, Some(2)), (5, Some(2)), (6, Some(2))]);
}

#[test]
fn by_time_a_seek_to_a_time_seeks_b_to_the_same_time() {
    let mut p = pair(AlignBy::Time, 2, 25.0);
    p.seek(SeekTarget::Time {
        seconds: 3.0,
        exact: true,
    });
    match p.b.seeks[..] {
        [SeekTarget::Time { seconds, exact: true }] => assert!((seconds - 3.08).abs() < 1e-9),
        ref other => panic!("B sought {other:?}"),
    }
}

#[test]
fn previews_are_not_passed_on_and_the_end_comes_after_the_frames() {
    let mut p = pair(AlignBy::Frame, 0, 10.0);
    let preview = match frame(0, 10.0, 0) {
        DecoderEvent::Frame(f) => DecoderEvent::Frame(ReadyFrame { preview: true, ..f }),
        e => e,
    };
    p.a.events
        .extend([preview, frame(1, 10.0, 0), DecoderEvent::EndOfStream { generation: 0 }]);
    assert_eq!(p.try_event(), None, "frame 1 waits for B; the end waits for it");
    assert_eq!(p.a.released, [100]);
    p.b.events.extend([frame(0, 10.0, 0), frame(1, 10.0, 0)]);
    assert!(matches!(p.try_event(), Some(DecoderEvent::Frame(f)) if f.index == 1));
    assert_eq!(p.try_event(), Some(DecoderEvent::EndOfStream { generation: 0 }));
}

#[test]
fn every_slot_goes_back() {
    let mut p = pair(AlignBy::Frame, 0, 10.0);
    p.a.events.extend((0..3).map(|n| frame(n, 10.0, 0)));
    p.b.events.extend((0..4).map(|n| frame(n, 10.0, 0)));
    let passed = drain(&mut p);
    for (index, _) in passed {
        p.release(100 + index as usize);
    }
    p.release_all();
    let mut released = p.b.released.clone();
    released.sort();
    assert_eq!(released, [100, 101, 102, 103]);
}

/// Fields of a 10 fps file: picture n at n/20 s in the slot of its frame's first field.
fn field(n: u64, generation: u64) -> DecoderEvent {
    match frame(n, 20.0, generation) {
        DecoderEvent::Frame(f) => DecoderEvent::Frame(ReadyFrame {
            slot: 100 + (n / 2 * 2) as usize,
            pts: (n / 2) as i64,
            ..f
        }),
        other => other,
    }
}

#[test]
fn fields_made_in_their_first_fields_slot_are_paired_as_they_come() {
    // By time: B's second field is made once its first's slot is back, which its pairing
    // with A's first field holds; A's second field waits for it, then is paired with it.
    let mut p = pair(AlignBy::Time, 0, 20.0);
    p.a.events.push_back(field(0, 0));
    p.b.events.push_back(field(0, 0));
    p.b.second = Some((100, field(1, 0)));
    assert_eq!(drain(&mut p), [(0, Some(0))], "B's first field is A's first's partner");
    p.a.events.push_back(field(1, 0));
    assert_eq!(drain(&mut p), [], "B's second field isn't made yet");
    p.release(100);
    assert_eq!(p.b.released, [100]);
    // (Aligned by time, B's picture after it settles that it is the latest by then.)
    p.b.events.push_back(field(2, 0));
    assert_eq!(drain(&mut p), [(1, Some(1))]);
    assert!(p.b.seeks.is_empty());

    // By number, a step back from a second field lands on the first of the same frame, which
    // A knows (both share their frame's pts): B goes to its partner.
    let mut p = pair(AlignBy::Frame, 0, 20.0);
    p.a.events.extend([field(20, 0), field(21, 0)]);
    p.b.events.push_back(field(20, 0));
    p.b.second = Some((120, field(21, 0)));
    assert_eq!(drain(&mut p), [(20, Some(20))]);
    p.release(120);
    assert_eq!(drain(&mut p), [(21, Some(21))]);
    p.a.landing = Some(20);
    p.seek(SeekTarget::Before(10));
    assert_eq!(p.b.seeks, [SeekTarget::Frame(20)]);
}

#[test]
fn after_the_deinterlacing_changes_b_is_sought_and_its_old_pictures_go_back() {
    // By time, B's frames of its current generation came as the old filter made them.
    let mut p = pair(AlignBy::Time, 0, 10.0);
    p.a.events.push_back(frame(3, 10.0, 0));
    p.b.events.extend([frame(3, 10.0, 0), frame(4, 10.0, 0)]);
    assert_eq!(drain(&mut p), [(3, Some(3))]);
    p.release(103);
    p.reseek_b();
    assert!(p.b.released.contains(&104), "B's frames held go back");
    // One more of the old run comes: it goes back too, and A's next frame seeks B.
    p.b.events.push_back(frame(5, 10.0, 0));
    p.a.events.push_back(frame(5, 10.0, 0));
    assert_eq!(drain(&mut p), []);
    assert!(p.b.released.contains(&105));
    assert_eq!(
        p.b.seeks,
        [SeekTarget::Time {
            seconds: 0.5,
            exact: true
        }]
    );
    // B's pictures of the new run pair.
    p.b.events.extend([frame(5, 10.0, 1), frame(6, 10.0, 1)]);
    assert_eq!(drain(&mut p), [(5, Some(5))]);
}
