//! The window's audio meters as they follow a playback clock (`audio::metering`), without a
//! window: played at 4x they measure all of the sound (what passes at 4x is measured, not
//! skipped); over an A-B loop the integrated
//! loudness is the loop's, as FFmpeg's `ebur128` measures that stretch of the file; a pause
//! that settles a little back holds the readings.

mod common;

use histoplay::audio::metering::{MeterCue, MeterState, Metering};
use histoplay::audio::meters::Reading;
use histoplay::audio::source::AudioSource;
use histoplay::clock::Clock;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// 6 s of mono 16-bit sound at 48 kHz: a 1 kHz sine at -10 dBFS, at -30 dBFS from 2 s to 4 s.
fn steps() -> PathBuf {
    common::fixture(
        "meters-steps.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=if(between(t\\,2\\,4)\\,0.0316228\\,0.316228)*sin(2*PI*1000*t):s=48000:d=6",
            "-c:a",
            "pcm_s16le",
        ],
    )
}

/// Meters on `path`, paused at its start until the sound is open; then following `cue`.
fn start(path: &Path, cue: MeterCue) -> Metering {
    let path = path.to_owned();
    let paused = MeterCue {
        clock: Clock::new(Instant::now(), 0.0, true),
        ..cue
    };
    let metering = Metering::start(move || AudioSource::open_as_is(&path, Default::default()), paused).unwrap();
    wait_for(&metering, "the sound opened", |_| true);
    // The clock from now on, at the speed it was given.
    let mut clock = Clock::new(Instant::now(), 0.0, false);
    clock.set_speed(Instant::now(), cue.clock.speed());
    metering.cue(MeterCue { clock, ..cue });
    metering
}

/// Waits (up to 30 s) for a reading `check` accepts.
fn wait_for(metering: &Metering, what: &str, check: impl Fn(&Reading) -> bool) -> Reading {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let MeterState::Measuring { reading, .. } = metering.state() {
            if check(&reading) {
                return reading;
            }
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {:?}",
            metering.state()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[test]
fn over_an_a_b_loop_the_integrated_loudness_is_the_loops() {
    let file = steps();
    // A clock paused at `at`: the meters measure up to it, whenever they get there.
    let paused_at = |at: f64, seeks: u64, loop_start: Option<f64>| MeterCue {
        clock: Clock::new(Instant::now(), at, true),
        seeks,
        loop_start,
    };
    let path = file.clone();
    let metering = Metering::start(
        move || AudioSource::open_as_is(&path, Default::default()),
        paused_at(0.0, 0, None),
    )
    .unwrap();
    // (From where the clock is once the sound is open.)
    wait_for(&metering, "the sound opened", |_| true);
    metering.cue(paused_at(1.0, 0, None));
    let before = wait_for(&metering, "a second measured", |r| (r.time - 1.0).abs() < 1e-4);
    assert_eq!(
        before.loudness.integrated.map(round),
        Some(round(common::ffmpeg_integrated(&file, 0.0, 1.0)))
    );
    // The loop from 2 s to 4 s is set, and playback goes round to its start (a seek).
    metering.cue(paused_at(2.0, 1, Some(2.0)));
    let restarted = wait_for(&metering, "the loop's start", |r| (r.time - 2.0).abs() < 1e-4);
    assert_eq!(restarted.loudness.momentary, None, "the short readings start over");
    assert_eq!(restarted.loudness.integrated, None, "the integration starts over");
    // Played to its end (in two moves: a clock further ahead would be a jump).
    metering.cue(paused_at(3.4, 1, Some(2.0)));
    wait_for(&metering, "the loop's middle", |r| (r.time - 3.4).abs() < 1e-4);
    metering.cue(paused_at(4.0, 1, Some(2.0)));
    let pass = wait_for(&metering, "the loop measured to its end", |r| {
        (r.time - 4.0).abs() < 1e-4
    });
    let expected = common::ffmpeg_integrated(&file, 2.0, 2.0);
    assert_eq!(pass.loudness.integrated.map(round), Some(round(expected)));
    assert!(expected < -25.0, "the loop is the quiet stretch: {expected}");
    // A clock that settles a little back (a pause on the frame shown) holds the readings.
    metering.cue(paused_at(3.9, 1, Some(2.0)));
    // (A duration, not a wait: the readings must hold over it, some 20 of the meters' ticks.)
    std::thread::sleep(Duration::from_millis(200));
    let held = wait_for(&metering, "the readings held", |_| true);
    assert_eq!(held.time, pass.time);
    assert_eq!(held.loudness, pass.loudness);
}

#[test]
fn at_4x_the_meters_measure_all_of_the_sound() {
    let file = steps();
    let mut clock = Clock::new(Instant::now(), 0.0, false);
    clock.set_speed(Instant::now(), 4.0);
    let metering = start(
        &file,
        MeterCue {
            clock,
            seeks: 0,
            loop_start: None,
        },
    );
    // 6 s of sound in 1.5 s, the clock stopped at its end.
    wait_for(&metering, "most of the file", |r| r.time >= 5.0);
    metering.cue(MeterCue {
        clock: Clock::new(Instant::now(), 6.0, true),
        seeks: 0,
        loop_start: None,
    });
    let reading = wait_for(&metering, "the whole file", |r| (r.time - 6.0).abs() < 1e-4);
    assert_eq!(
        reading.loudness.integrated.map(round),
        Some(round(common::ffmpeg_integrated(&file, 0.0, 6.0)))
    );
    assert_eq!(round(reading.loudness.max_true_peak), -10.0);
}
