//! Playback against a scripted decoder: 10 fps frames, frame n at n/10 s.

use super::*;
use std::cell::RefCell;

const FPS: f64 = 10.0;

#[derive(Default)]
struct Script {
    events: RefCell<VecDeque<DecoderEvent>>,
    released: RefCell<Vec<usize>>,
    seeks: Vec<SeekTarget>,
    generation: u64,
    paused: bool,
    /// A live input's timeshift window.
    window: Option<(f64, f64)>,
    /// Whether playback last said it follows the live edge.
    following: Option<bool>,
}

impl FrameSource for Script {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        self.seeks.push(target);
        self.generation += 1;
        self.generation
    }

    fn release(&mut self, slot: usize) {
        self.released.borrow_mut().push(slot);
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        self.events.borrow_mut().pop_front()
    }

    fn generation(&self) -> u64 {
        self.generation
    }

    fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    fn live_window(&self) -> Option<(f64, f64)> {
        self.window
    }

    fn follow_live(&mut self, following: bool) {
        self.following = Some(following);
    }
}

/// Frame `index` of `generation`, in slot index % 6.
fn frame(index: u64, generation: u64) -> DecoderEvent {
    DecoderEvent::Frame(ReadyFrame {
        slot: (index % 6) as usize,
        index,
        pts: index as i64,
        seconds: index as f64 / FPS,
        generation,
        exact: true,
        awaited: None,
        preview: false,
        pict_type: 'P',
        packet: Default::default(),
        live_edge: false,
    })
}

/// Frame `index` of a live input's `generation`, sent as its newest (`edge`) or from its past.
fn live(index: u64, generation: u64, edge: bool) -> DecoderEvent {
    match frame(index, generation) {
        DecoderEvent::Frame(f) => DecoderEvent::Frame(ReadyFrame { live_edge: edge, ..f }),
        other => other,
    }
}

/// Frame `index` of `generation` sent as a seek's keyframe preview.
fn preview(index: u64, generation: u64) -> DecoderEvent {
    match frame(index, generation) {
        DecoderEvent::Frame(f) => DecoderEvent::Frame(ReadyFrame { preview: true, ..f }),
        other => other,
    }
}

fn playback(t0: Instant) -> Playback<Script> {
    let timeline = Timeline {
        start: 0.0,
        duration: 10.0,
        frame_duration: 1.0 / FPS,
        frame_count: Some(100),
    };
    Playback::new(Script::default(), timeline, t0)
}

fn send(p: &Playback<Script>, events: impl IntoIterator<Item = DecoderEvent>) {
    p.source.events.borrow_mut().extend(events);
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const NO_LEAD: Duration = Duration::ZERO;

#[test]
fn frames_are_shown_when_due_and_late_ones_dropped() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::Poll, "waiting for the first frame");
    send(&p, (0..4).map(|n| frame(n, 0)));
    // The first frame is drawn at once and starts the clock.
    assert_eq!(p.next_frame(t0 + ms(40), NO_LEAD).map(|n| n.frame.index), Some(0));
    assert_eq!(p.wake(t0 + ms(40), NO_LEAD, true), Wake::At(t0 + ms(140)));
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD), None, "frame 1 is not due yet");
    assert_eq!(p.next_frame(t0 + ms(140), NO_LEAD).map(|n| n.frame.index), Some(1));
    // 250 ms later frames 2 and 3 are both due: 2 is late and released undrawn.
    assert_eq!(p.next_frame(t0 + ms(390), NO_LEAD).map(|n| n.frame.index), Some(3));
    assert_eq!(p.dropped(), 1);
    assert_eq!(*p.source.released.borrow(), vec![2]);
    assert_eq!(
        p.wake(t0 + ms(390), NO_LEAD, true),
        Wake::Poll,
        "starved: the decoder can't wake us"
    );
}

#[test]
fn the_render_lead_starts_a_frame_early() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..2).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    assert_eq!(p.wake(t0, ms(10), true), Wake::At(t0 + ms(90)));
    assert_eq!(p.next_frame(t0 + ms(90), ms(10)).map(|n| n.frame.index), Some(1));
}

#[test]
fn paused_nothing_is_due_and_resuming_goes_on_from_the_same_place() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..3).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    assert!(p.apply(&Command::TogglePause, t0 + ms(50)));
    assert!(p.paused());
    assert_eq!(p.wake(t0 + ms(60), NO_LEAD, true), Wake::Idle);
    assert_eq!(p.next_frame(t0 + ms(5000), NO_LEAD), None);
    p.apply(&Command::TogglePause, t0 + ms(5000));
    // 50 ms had been played of frame 0's 100: frame 1 is due 50 ms after resuming.
    assert_eq!(p.wake(t0 + ms(5000), NO_LEAD, true), Wake::At(t0 + ms(5050)));
    assert_eq!(p.dropped(), 0);
}

/// Playback whose sound goes on to `sound_until` (s), its last two frames (9.8 and 9.9 s)
/// drawn at `t0` and 100 ms later, and the decoder at its end.
fn at_the_last_frame(t0: Instant, sound_until: f64) -> Playback<Script> {
    let mut p = playback(t0);
    p.set_sound_until(Some(sound_until));
    send(
        &p,
        [frame(98, 0), frame(99, 0), DecoderEvent::EndOfStream { generation: 0 }],
    );
    p.next_frame(t0, NO_LEAD);
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD).map(|n| n.frame.index), Some(99));
    p
}

#[test]
fn the_sound_past_the_last_picture_plays_out_before_the_end() {
    let t0 = Instant::now();
    // The last frame (9.9 s) is followed by sound decoded to 10.4 s so far.
    let mut p = at_the_last_frame(t0, 10.4);
    p.pump(t0 + ms(200));
    assert!(
        !p.paused() && !p.at_end() && p.audio_cue().audible,
        "the sound plays on"
    );
    // The position shown runs on with the clock (9.8 s at t0), the last frame's time passed.
    assert!((p.position() - 10.0).abs() < 1e-9, "{}", p.position());
    assert!(p.take_changed(), "drawn again");
    assert_eq!(
        p.wake(t0 + ms(200), NO_LEAD, true),
        Wake::At(t0 + ms(300)),
        "a frame's time later (a little before the sound's known extent, at 400 ms, is later)"
    );
    // Paused and resumed within it, it goes on from there (not from the start).
    p.apply(&Command::TogglePause, t0 + ms(300));
    p.pump(t0 + ms(400));
    assert!(p.paused() && !p.at_end());
    assert!((p.position() - 10.1).abs() < 1e-9, "{}", p.position());
    assert_eq!(p.wake(t0 + ms(400), NO_LEAD, true), Wake::Idle);
    p.apply(&Command::TogglePause, t0 + ms(1300));
    assert!(p.source.seeks.is_empty() && !p.paused());
    // Its decoder reads on to its end at 10.6 s: the clock (10.1 s at 1.3 s) runs to there.
    p.set_sound_until(Some(10.6));
    p.pump(t0 + ms(1700));
    assert!(!p.at_end());
    assert_eq!(p.wake(t0 + ms(1700), NO_LEAD, true), Wake::At(t0 + ms(1800)));
    p.pump(t0 + ms(1800));
    assert!(p.paused() && p.at_end() && p.take_finished(), "then the file has ended");
    assert_eq!(p.shown().map(|s| s.index), Some(99));
    assert!(
        (p.position() - 10.6).abs() < 1e-9,
        "at the sound's end: {}",
        p.position()
    );
    // Played again, it starts over.
    p.apply(&Command::TogglePause, t0 + ms(2000));
    assert_eq!(p.source.seeks, vec![SeekTarget::Frame(0)]);
    assert_eq!(p.position(), 0.0);
}

#[test]
fn sound_that_ends_with_the_pictures_ends_the_file_with_them() {
    let t0 = Instant::now();
    // Sound whose end (9.95 s) the clock has passed when the last frame's successor is due.
    let mut p = at_the_last_frame(t0, 9.95);
    p.pump(t0 + ms(200));
    assert!(p.paused() && p.at_end());
    assert!((p.position() - 9.9).abs() < 1e-9, "the last frame's: {}", p.position());
}

#[test]
fn the_end_pauses_on_the_last_frame_and_play_restarts() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(
        &p,
        [frame(98, 0), frame(99, 0), DecoderEvent::EndOfStream { generation: 0 }],
    );
    p.next_frame(t0, NO_LEAD);
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD).map(|n| n.frame.index), Some(99));
    p.pump(t0 + ms(200));
    assert!(p.paused() && p.at_end());
    assert!(p.take_changed(), "the OSD shows the pause");
    assert_eq!(p.shown().map(|s| s.index), Some(99));
    assert_eq!(p.wake(t0 + ms(300), NO_LEAD, true), Wake::Idle);
    // Stepping at the end does nothing; playing again starts over.
    p.apply(&Command::StepForward, t0 + ms(300));
    assert_eq!(p.wake(t0 + ms(300), NO_LEAD, true), Wake::Idle);
    p.apply(&Command::TogglePause, t0 + ms(400));
    assert_eq!(p.source.seeks, vec![SeekTarget::Frame(0)]);
    assert!(!p.paused());
}

#[test]
fn a_seek_forgets_the_queue_and_lands_on_its_first_frame_even_paused() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..4).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    p.pump(t0);
    p.apply(&Command::Pause, t0);
    p.apply(
        &Command::SeekBy {
            seconds: 5.0,
            exact: true,
        },
        t0 + ms(10),
    );
    assert_eq!(
        p.source.seeks,
        vec![SeekTarget::Time {
            seconds: 5.0,
            exact: true
        }]
    );
    assert_eq!(*p.source.released.borrow(), vec![1, 2, 3], "queued frames go back");
    assert!((p.position() - 5.0).abs() < 1e-9, "the OSD shows the target at once");
    // A stale frame arriving after the seek is released, not shown.
    send(&p, [frame(4, 0)]);
    assert_eq!(p.next_frame(t0 + ms(20), NO_LEAD), None);
    assert_eq!(p.wake(t0 + ms(20), NO_LEAD, true), Wake::Poll);
    send(&p, [frame(50, 1), frame(51, 1)]);
    assert_eq!(p.wake(t0 + ms(30), NO_LEAD, true), Wake::Poll, "not pumped yet");
    p.pump(t0 + ms(30));
    assert_eq!(p.wake(t0 + ms(30), NO_LEAD, true), Wake::Now);
    assert_eq!(p.next_frame(t0 + ms(30), NO_LEAD).map(|n| n.frame.index), Some(50));
    assert!(p.paused(), "a seek keeps the pause");
    assert_eq!(p.next_frame(t0 + ms(1000), NO_LEAD), None);
    // Relative seeks add up from a pending target, and clamp to the file.
    p.apply(
        &Command::SeekBy {
            seconds: -60.0,
            exact: true,
        },
        t0 + ms(1000),
    );
    assert_eq!(p.position(), 0.0);
}

#[test]
fn steps_show_the_next_frame_and_step_back_seeks_the_one_before() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (10..13).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    p.apply(&Command::StepForward, t0);
    p.apply(&Command::StepForward, t0);
    assert!(p.paused());
    assert_eq!(p.target_index(), Some(12));
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::Now);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(11));
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(12));
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::Idle);
    p.apply(&Command::StepBack, t0);
    assert_eq!(
        p.source.seeks,
        vec![SeekTarget::Before(12)],
        "the frame before frame 12's pts"
    );
    assert_eq!(p.target_index(), Some(11));
    assert!(p.source.paused, "the decoder is told playback is paused");
    send(&p, [frame(11, 1)]);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(11));
    // A step waits for its frame when none is queued yet.
    p.apply(&Command::StepForward, t0);
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::Poll);
}

#[test]
fn a_keyframe_preview_is_shown_until_the_exact_frame_lands() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, [frame(0, 0)]);
    p.next_frame(t0, NO_LEAD);
    p.apply(
        &Command::SeekTo {
            seconds: 4.55,
            exact: true,
        },
        t0,
    );
    send(&p, [preview(40, 1)]);
    let shown = p.next_frame(t0 + ms(10), NO_LEAD).map(|n| n.frame);
    assert_eq!(shown.map(|f| (f.index, f.preview)), Some((40, true)));
    assert!(p.shown().is_some_and(|s| s.preview));
    assert!((p.position() - 4.55).abs() < 1e-9, "the OSD keeps the target");
    assert_eq!(p.wake(t0 + ms(10), NO_LEAD, true), Wake::Poll, "still landing");
    assert!(!p.audio_cue().audible, "silent until it lands");
    send(&p, [frame(45, 1)]);
    assert_eq!(p.next_frame(t0 + ms(60), NO_LEAD).map(|n| n.frame.index), Some(45));
    assert!(p.shown().is_some_and(|s| !s.preview));
    // A preview that arrives together with its exact frame is passed over.
    p.apply(
        &Command::SeekTo {
            seconds: 7.05,
            exact: true,
        },
        t0 + ms(100),
    );
    send(&p, [preview(60, 2), frame(70, 2)]);
    assert_eq!(p.next_frame(t0 + ms(120), NO_LEAD).map(|n| n.frame.index), Some(70));
    assert_eq!(
        p.source.released.borrow().last(),
        Some(&0),
        "the preview's slot went back"
    );
}

#[test]
fn minimized_playback_goes_on_dropping_superseded_frames() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..5).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    // At 250 ms frames 1 and 2 are due: 1 is superseded, 2 waits for the window.
    p.drop_late(t0 + ms(250), NO_LEAD);
    assert_eq!(p.dropped(), 1);
    assert_eq!(p.wake(t0 + ms(250), NO_LEAD, false), Wake::At(t0 + ms(300)));
    assert_eq!(p.next_frame(t0 + ms(260), NO_LEAD).map(|n| n.frame.index), Some(2));
}

#[test]
fn speed_changes_the_due_times() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..3).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    p.apply(&Command::SpeedBy(2.0), t0);
    assert_eq!(p.speed(), 2.0);
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::At(t0 + ms(50)));
    p.apply(&Command::SpeedReset, t0);
    assert_eq!(p.wake(t0, NO_LEAD, true), Wake::At(t0 + ms(100)));
}

#[test]
fn a_decoder_failure_is_reported_once_and_ends_playback() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(
        &p,
        [
            frame(0, 0),
            DecoderEvent::Failed {
                generation: 0,
                message: "broken".into(),
            },
        ],
    );
    p.next_frame(t0, NO_LEAD);
    p.pump(t0);
    assert_eq!(p.take_error().as_deref(), Some("broken"));
    assert_eq!(p.take_error(), None);
    assert!(p.at_end() && p.paused());
}

#[test]
fn the_ab_loop_goes_back_to_a_when_playback_passes_b() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    send(&p, (0..4).map(|n| frame(n, 0)));
    p.next_frame(t0, NO_LEAD);
    // A at frame 1, B at frame 3 (0.1 s and 0.3 s).
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD).map(|n| n.frame.index), Some(1));
    p.apply(&Command::AbLoop, t0 + ms(100));
    assert_eq!(p.ab_loop(), AbLoop { a: Some(0.1), b: None });
    p.next_frame(t0 + ms(200), NO_LEAD);
    assert_eq!(p.next_frame(t0 + ms(300), NO_LEAD).map(|n| n.frame.index), Some(3));
    p.apply(&Command::AbLoop, t0 + ms(300));
    assert_eq!(p.ab_loop().span(), Some((0.1, 0.3)));
    // B's frame is shown; the one after it is not: an exact seek to A, still playing.
    send(&p, [frame(4, 0)]);
    assert_eq!(p.next_frame(t0 + ms(400), NO_LEAD), None);
    assert_eq!(
        p.source.seeks,
        vec![SeekTarget::Time {
            seconds: 0.1,
            exact: true
        }]
    );
    assert!(!p.paused());
    send(&p, [frame(1, 1), frame(2, 1)]);
    assert_eq!(p.next_frame(t0 + ms(450), NO_LEAD).map(|n| n.frame.index), Some(1));
    // A seek past B plays on without looping.
    p.apply(
        &Command::SeekTo {
            seconds: 0.5,
            exact: true,
        },
        t0 + ms(500),
    );
    send(&p, [frame(5, 2), frame(6, 2), frame(7, 2)]);
    assert_eq!(p.next_frame(t0 + ms(500), NO_LEAD).map(|n| n.frame.index), Some(5));
    assert_eq!(p.next_frame(t0 + ms(600), NO_LEAD).map(|n| n.frame.index), Some(6));
    assert_eq!(p.source.seeks.len(), 2);
    // A third press clears the points.
    p.apply(&Command::AbLoop, t0 + ms(600));
    assert_eq!(p.ab_loop(), AbLoop::default());
}

#[test]
fn ab_points_set_out_of_order_are_put_in_order() {
    let loop_points = AbLoop::default().next(5.0).next(2.0);
    assert_eq!(loop_points.span(), Some((2.0, 5.0)));
    assert_eq!(AbLoop::default().next(3.0).next(3.0).span(), None, "no span, no loop");
}

#[test]
fn a_looped_file_starts_over_at_its_end_and_only_playing_into_the_end_finishes() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.apply(&Command::ToggleLoopFile, t0);
    assert!(p.loop_file);
    send(
        &p,
        [frame(98, 0), frame(99, 0), DecoderEvent::EndOfStream { generation: 0 }],
    );
    p.next_frame(t0, NO_LEAD);
    p.next_frame(t0 + ms(100), NO_LEAD);
    p.pump(t0 + ms(200));
    assert_eq!(p.source.seeks, vec![SeekTarget::Frame(0)]);
    assert!(!p.paused() && !p.take_finished());
    // Without the loop, playing into the end finishes the file (the playlist moves on)...
    p.apply(&Command::ToggleLoopFile, t0 + ms(200));
    send(&p, [frame(0, 1), DecoderEvent::EndOfStream { generation: 1 }]);
    p.next_frame(t0 + ms(200), NO_LEAD);
    p.pump(t0 + ms(300));
    assert!(p.paused() && p.take_finished());
    assert!(!p.take_finished(), "once");
    // ...but stepping onto the end does not.
    p.apply(&Command::SeekStart, t0 + ms(400));
    p.apply(&Command::StepForward, t0 + ms(400));
    send(&p, [frame(0, 2), DecoderEvent::EndOfStream { generation: 2 }]);
    p.next_frame(t0 + ms(400), NO_LEAD);
    p.pump(t0 + ms(500));
    assert!(!p.take_finished());
}

#[test]
fn chapters_step_from_the_one_playing() {
    let starts = [0.0, 60.0, 125.5];
    assert_eq!(chapter_target(&starts, 10.0, 1), ChapterTarget::Chapter(1));
    assert_eq!(
        chapter_target(&starts, 59.97, 1),
        ChapterTarget::Chapter(2),
        "landed just short"
    );
    assert_eq!(chapter_target(&starts, 70.0, -1), ChapterTarget::Chapter(0));
    assert_eq!(chapter_target(&starts, 130.0, 1), ChapterTarget::None);
    assert_eq!(chapter_target(&starts, 5.0, -1), ChapterTarget::Start);
    // Chapters that start late: before the first is the file's start.
    assert_eq!(chapter_target(&[30.0], 10.0, 1), ChapterTarget::Chapter(0));
    assert_eq!(chapter_target(&[30.0], 10.0, -1), ChapterTarget::Start);
}

#[test]
fn a_live_input_shows_frames_as_they_arrive_and_jumps_to_the_newest_past_a_backlog() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.set_live(false);
    send(&p, [frame(0, 0)]);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(0));
    // Frames 1 and 2 arrived together (jitter): each in turn, at once, with no clock to wait for.
    send(&p, [frame(1, 0), frame(2, 0)]);
    p.pump(t0 + ms(1));
    assert_eq!(p.wake(t0 + ms(1), NO_LEAD, true), Wake::Now);
    assert_eq!(p.next_frame(t0 + ms(1), NO_LEAD).map(|n| n.frame.index), Some(1));
    assert_eq!(p.next_frame(t0 + ms(2), NO_LEAD).map(|n| n.frame.index), Some(2));
    // Three waiting: the machine fell behind; the newest is shown, the others dropped.
    send(&p, (3..6).map(|n| frame(n, 0)));
    assert_eq!(p.next_frame(t0 + ms(300), NO_LEAD).map(|n| n.frame.index), Some(5));
    assert_eq!(p.dropped(), 2);
    // Nothing more comes: the wake is for "no signal", 1.5 s after the last frame arrived.
    assert_eq!(
        p.wake(t0 + ms(300), NO_LEAD, true),
        Wake::At(t0 + ms(300) + NO_SIGNAL_AFTER)
    );
    assert!(!p.no_signal(t0 + ms(1700)));
    assert!(p.no_signal(t0 + ms(1800)));
    // Seeks, steps and speeds are refused with a note; nothing is asked of the decoder.
    for command in [
        Command::SeekBy {
            seconds: 5.0,
            exact: true,
        },
        Command::StepBack,
        Command::SpeedBy(2.0),
    ] {
        assert!(p.apply(&command, t0 + ms(1800)));
        assert!(p.take_note().is_some_and(|n| n.starts_with("live:")));
    }
    p.seek_frame(0);
    assert!(p.source.seeks.is_empty());
    assert_eq!(p.speed(), 1.0);
}

#[test]
fn paused_a_live_input_lets_its_frames_pass_and_end_goes_back_to_the_newest() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.set_live(false);
    send(&p, [frame(0, 0)]);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(0));
    assert!(p.apply(&Command::TogglePause, t0 + ms(10)));
    assert!(!p.source.paused, "the decoder keeps reading the input");
    send(&p, (1..4).map(|n| frame(n, 0)));
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD), None);
    // Released unseen, not counted as dropped; paused is no "no signal".
    assert_eq!(*p.source.released.borrow(), vec![1, 2, 3]);
    assert_eq!(p.dropped(), 0);
    assert!(!p.no_signal(t0 + ms(5000)));
    assert!(p.apply(&Command::SeekEnd, t0 + ms(5000)));
    assert!(!p.paused());
    send(&p, [frame(50, 0)]);
    assert_eq!(p.next_frame(t0 + ms(5040), NO_LEAD).map(|n| n.frame.index), Some(50));
}

#[test]
fn a_timeshifted_live_input_pauses_plays_its_past_to_the_clock_and_end_goes_back_to_live() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.set_live(true);
    send(&p, [live(0, 0, true)]);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(0));
    send(&p, [live(1, 0, true)]);
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD).map(|n| n.frame.index), Some(1));
    assert_eq!(p.behind_live(), None, "at the live edge");
    // Paused: the decoder is told (it sends one frame ahead), and the frames it sends wait.
    assert!(p.apply(&Command::TogglePause, t0 + ms(150)));
    assert!(p.source.paused);
    assert_eq!(p.source.following, Some(false), "the decoder sends every frame in turn");
    send(&p, [live(2, 0, true)]);
    assert_eq!(p.next_frame(t0 + ms(1000), NO_LEAD), None);
    assert!(
        p.source.released.borrow().is_empty(),
        "the frame after the paused one is kept"
    );
    p.source.window = Some((0.0, 2.0));
    assert_eq!(p.behind_live(), Some((1.9, 2.0)));
    assert!(!p.no_signal(t0 + ms(5000)), "paused is not \"no signal\"");
    // Resumed 1 s later: the past plays to the clock, from the paused frame.
    assert!(p.apply(&Command::TogglePause, t0 + ms(1150)));
    assert!(!p.source.paused);
    assert_eq!(p.wake(t0 + ms(1150), NO_LEAD, true), Wake::At(t0 + ms(1200)));
    assert_eq!(p.next_frame(t0 + ms(1160), NO_LEAD), None, "frame 2 is not due yet");
    assert_eq!(p.next_frame(t0 + ms(1200), NO_LEAD).map(|n| n.frame.index), Some(2));
    send(&p, [live(3, 0, false), live(4, 0, false)]);
    assert_eq!(p.next_frame(t0 + ms(1250), NO_LEAD), None);
    assert_eq!(p.next_frame(t0 + ms(1300), NO_LEAD).map(|n| n.frame.index), Some(3));
    assert!(p.audio_cue().audible, "the past is heard as it plays");
    // Steps and seeks go to the decoder, which lands within its window.
    assert!(p.apply(&Command::StepBack, t0 + ms(1310)));
    assert_eq!(p.source.seeks, vec![SeekTarget::Before(3)]);
    assert!(p.paused());
    send(&p, [live(2, 1, false)]);
    assert_eq!(p.next_frame(t0 + ms(1320), NO_LEAD).map(|n| n.frame.index), Some(2));
    assert!(p.apply(
        &Command::SeekBy {
            seconds: -60.0,
            exact: true
        },
        t0 + ms(1330)
    ));
    assert_eq!(
        p.source.seeks.last(),
        Some(&SeekTarget::Time {
            seconds: 0.0,
            exact: true
        }),
        "clamped to the window's oldest frame"
    );
    assert!(p.apply(
        &Command::SeekPercent {
            percent: 50.0,
            exact: true
        },
        t0 + ms(1340)
    ));
    assert_eq!(
        p.source.seeks.last(),
        Some(&SeekTarget::Time {
            seconds: 1.0,
            exact: true
        })
    );
    // End: the newest frame, playing, at the input's speed, as it arrives.
    assert!(p.apply(&Command::SeekEnd, t0 + ms(1400)));
    assert_eq!(p.source.seeks.last(), Some(&SeekTarget::End));
    assert!(!p.paused());
    let g = p.generation();
    send(&p, [live(30, g, true)]);
    assert_eq!(p.next_frame(t0 + ms(1410), NO_LEAD).map(|n| n.frame.index), Some(30));
    assert_eq!(p.behind_live(), None);
    assert!(p.audio_cue().audible);
    assert_eq!(p.source.following, Some(true), "the decoder passes a backlog over");
    // Frames it passed over count as dropped.
    let dropped = p.dropped();
    send(&p, [live(35, g, true)]);
    assert_eq!(p.next_frame(t0 + ms(1415), NO_LEAD).map(|n| n.frame.index), Some(35));
    assert_eq!(p.dropped(), dropped + 4);
    send(&p, [live(36, g, true), live(37, g, true), live(38, g, true)]);
    assert_eq!(
        p.next_frame(t0 + ms(1420), NO_LEAD).map(|n| n.frame.index),
        Some(38),
        "a backlog at the edge jumps to the newest"
    );
    // Loops have nothing to loop on.
    assert!(p.apply(&Command::ToggleLoopFile, t0 + ms(1430)));
    assert!(!p.loop_file);
    assert!(p.take_note().is_some_and(|n| n.starts_with("live:")));
}

#[test]
fn a_timeshifted_live_input_played_faster_catches_up_and_is_live_again() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.set_live(true);
    send(&p, [live(0, 0, true)]);
    p.next_frame(t0, NO_LEAD);
    assert!(p.apply(&Command::SpeedSet(2.0), t0));
    assert!(p.behind_live().is_none(), "no window known yet");
    p.source.window = Some((0.0, 0.2));
    assert!(p.behind_live().is_some(), "another speed plays to the clock");
    send(&p, [live(1, 0, false), live(2, 0, true)]);
    assert_eq!(p.next_frame(t0 + ms(50), NO_LEAD).map(|n| n.frame.index), Some(1));
    assert_eq!(p.next_frame(t0 + ms(100), NO_LEAD).map(|n| n.frame.index), Some(2));
    // The newest frame shown: live again, at the input's own speed.
    assert_eq!(p.behind_live(), None);
    assert_eq!(p.speed(), 1.0);
    assert_eq!(p.take_note().as_deref(), Some("live"));
    // Frames that left the window while paused: the clock jumps over the gap.
    assert!(p.apply(&Command::TogglePause, t0 + ms(200)));
    assert!(p.apply(&Command::TogglePause, t0 + ms(300)));
    send(&p, [live(80, 0, false)]);
    assert_eq!(p.next_frame(t0 + ms(310), NO_LEAD).map(|n| n.frame.index), Some(80));
}

#[test]
fn a_new_shape_is_taken_once_the_frames_before_it_are_and_a_frame_is_wanted() {
    let t0 = Instant::now();
    let mut p = playback(t0);
    p.set_live(true);
    let shape = FrameShape {
        format: crate::video::format::FrameFormat {
            layout: crate::video::format::PlaneLayout::Yuv {
                chroma_shift_x: 1,
                chroma_shift_y: 0,
                bits: 8,
            },
            width: 256,
            height: 144,
            color: crate::colour::ColorSpec::resolve(None, None, 256, 144, false),
        },
        display_aspect: 16.0 / 9.0,
        pixel_format: "yuv422p".into(),
    };
    send(&p, [live(0, 0, true)]);
    assert_eq!(p.next_frame(t0, NO_LEAD).map(|n| n.frame.index), Some(0));
    // Two frames of the old shape came before the decoder asked: they are shown first.
    send(
        &p,
        [
            live(1, 0, true),
            live(2, 0, true),
            DecoderEvent::Reshaped(shape.clone()),
        ],
    );
    p.pump(t0 + ms(1));
    assert_eq!(p.take_reshaped(), None);
    assert_eq!(p.next_frame(t0 + ms(2), NO_LEAD).map(|n| n.frame.index), Some(1));
    assert_eq!(p.take_reshaped(), None);
    assert_eq!(p.next_frame(t0 + ms(3), NO_LEAD).map(|n| n.frame.index), Some(2));
    // Paused, the picture stays up until a step asks for the next frame.
    assert!(p.apply(&Command::Pause, t0 + ms(4)));
    assert_eq!(p.take_reshaped(), None);
    assert!(p.apply(&Command::StepForward, t0 + ms(5)));
    assert_eq!(p.take_reshaped(), Some(shape));
    assert_eq!(p.take_reshaped(), None, "once");
}
