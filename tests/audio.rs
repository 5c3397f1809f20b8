//! The player's sound, headless: a known tone decoded and resampled to an output's format,
//! from the start and after seeks.

mod common;

use histoplay::audio::source::{AudioError, AudioSource, Chunk};
use histoplay::audio::{Cue, Feed, Volume};
use histoplay::clock::Clock;
use std::time::{Duration, Instant};

/// 4 s of a 1 kHz sine at 44.1 kHz mono (16-bit PCM, so the samples are exact, in QuickTime,
/// whose audio timestamps count samples) next to a small H.264 picture.
fn tone() -> std::path::PathBuf {
    common::fixture(
        "tone-1khz.mov",
        &[
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=1000:sample_rate=44100:duration=4",
            "-f",
            "lavfi",
            "-i",
            "color=c=gray:s=64x48:r=25:d=4",
            "-c:a",
            "pcm_s16le",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// Every chunk until the end, checked to follow on from each other without gaps.
fn decode_all(source: &mut AudioSource) -> (f64, Vec<f32>) {
    let first: Chunk = source.next_chunk().expect("some audio");
    let (start, mut samples) = (first.start, first.samples);
    let (channels, rate) = (usize::from(source.channels()), f64::from(source.rate()));
    while let Some(chunk) = source.next_chunk() {
        let expected = start + (samples.len() / channels) as f64 / rate;
        assert!(
            (chunk.start - expected).abs() < 0.002,
            "chunk at {} after {expected}",
            chunk.start
        );
        samples.extend(chunk.samples);
    }
    (start, samples)
}

/// Crossings from negative to positive per second of one channel.
fn frequency(samples: &[f32], channels: usize, rate: u32) -> f64 {
    let mono: Vec<f32> = samples.iter().step_by(channels).copied().collect();
    let rising = mono.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
    rising as f64 * f64::from(rate) / mono.len() as f64
}

#[test]
fn a_tone_resamples_to_the_outputs_rate_and_channels() {
    let mut source = AudioSource::open(&tone(), Default::default(), 48000, 2).unwrap();
    let (start, samples) = decode_all(&mut source);
    assert!(start.abs() < 0.001, "starts at {start}");
    let frames = samples.len() / 2;
    // 4 s at 48 kHz, give or take what the resampler keeps at the very end.
    assert!((frames as i64 - 192_000).abs() < 200, "{frames} frames");
    // Both channels carry the mono tone.
    assert!(samples.chunks(2).all(|f| f[0] == f[1]));
    // lavfi's sine peaks at 1/8; FFmpeg spreads mono over two channels at -3 dB.
    let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    assert!((peak - 0.125 / 2f32.sqrt()).abs() < 0.002, "peak {peak}");
    let hz = frequency(&samples, 2, 48000);
    assert!((hz - 1000.0).abs() < 2.0, "{hz} Hz");
}

#[test]
fn a_seek_lands_at_or_just_before_the_time() {
    let mut source = AudioSource::open(&tone(), Default::default(), 44100, 1).unwrap();
    for target in [2.5, 0.7, 3.9, 0.0] {
        source.seek(target);
        let chunk = source.next_chunk().expect("audio after the seek");
        assert!(
            chunk.start <= target + 0.001 && chunk.start > target - 0.25,
            "seek to {target} gave a chunk at {}",
            chunk.start
        );
        // The samples are the tone's own at that time.
        let n = (chunk.start * 44100.0).round() as i64;
        assert!(
            (chunk.samples[0] - tone_at(n)).abs() < 0.002,
            "sample at {target}: {} vs {}",
            chunk.samples[0],
            tone_at(n)
        );
    }
}

#[test]
fn a_video_without_sound_says_so() {
    let silent = common::grey_ramp();
    match AudioSource::open(&silent, Default::default(), 48000, 2) {
        Err(AudioError::NoAudio(path)) => assert_eq!(path, silent),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("grey-ramp has no audio"),
    }
}

/// The tone's sample n at 44.1 kHz: lavfi's sine is sin(2π·1000·n/44100)/8, exactly periodic
/// every 441 samples.
fn tone_at(n: i64) -> f32 {
    ((n % 441) as f64 / 441.0 * 20.0 * std::f64::consts::PI).sin() as f32 * 0.125
}

/// Waits for the feed's decode thread to have the 100 ms from `seconds` on decoded.
fn decoded_at(feed: &Feed, seconds: f64) {
    let start = Instant::now();
    loop {
        let (from, to) = feed.decoded();
        if from <= seconds + 1e-6 && to >= seconds + 0.1 {
            return;
        }
        assert!(start.elapsed() < common::WAIT, "decoded {from}..{to}, not {seconds}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits for the feed's decode thread to have started over at `seconds` (where there may be
/// nothing to decode: past the end).
fn moved_to(feed: &Feed, seconds: f64) {
    common::poll(&format!("the decoder to move to {seconds} s"), || {
        (feed.decoded().0 >= seconds - 1e-6).then_some(())
    });
}

#[test]
fn the_feed_plays_what_the_clock_has_due_and_follows_its_jumps() {
    let now = Instant::now();
    // A stopped clock keeps the due time fixed however long the test takes; audibility is
    // the cue's own say.
    let at = |seconds, audible| Cue {
        clock: Clock::new(now, seconds, true),
        audible,
    };
    let feed = Feed::start(
        AudioSource::open(&tone(), Default::default(), 44100, 1).unwrap(),
        at(1.0, true),
        Volume::default(),
    )
    .unwrap();
    let mut out = vec![0.0f32; 441];
    // In order: from the start, a seek forward, a seek back. Each lands on the exact sample.
    for (seconds, first) in [(1.0, 44100), (3.0, 132_300), (0.5, 22050)] {
        feed.cue(at(seconds, true));
        decoded_at(&feed, seconds);
        feed.fill(&mut out, now);
        for (i, &sample) in out.iter().enumerate() {
            let expected = tone_at(first + i as i64);
            assert!(
                (sample - expected).abs() < 0.002,
                "at {seconds} s + {i}: {sample} vs {expected}"
            );
        }
        // The next buffer goes on where this one ended.
        feed.fill(&mut out, now);
        assert!((out[0] - tone_at(first + 441)).abs() < 0.002);
    }
    // Half volume halves the samples; muted or not audible is silence.
    feed.cue(at(2.0, true));
    decoded_at(&feed, 2.0);
    feed.set_volume(Volume {
        percent: 50,
        muted: false,
    });
    feed.fill(&mut out, now);
    assert!((out[100] - tone_at(88200 + 100) / 2.0).abs() < 0.002, "{}", out[100]);
    feed.set_volume(Volume {
        percent: 50,
        muted: true,
    });
    feed.fill(&mut out, now);
    assert!(out.iter().all(|&s| s == 0.0));
    feed.set_volume(Volume::default());
    feed.cue(at(2.5, false));
    feed.fill(&mut out, now);
    assert!(out.iter().all(|&s| s == 0.0));
    // Past the end of the tone there is only silence; back inside it, the tone again.
    feed.cue(at(10.0, true));
    moved_to(&feed, 10.0);
    feed.fill(&mut out, now);
    assert!(out.iter().all(|&s| s == 0.0));
    feed.cue(at(1.5, true));
    decoded_at(&feed, 1.5);
    feed.fill(&mut out, now);
    assert!((out[7] - tone_at(66150 + 7)).abs() < 0.002, "{}", out[7]);
}

/// 4 s of 1 kHz beeps, 40 ms long, every 100 ms, at 44.1 kHz mono PCM.
fn beeps() -> std::path::PathBuf {
    common::fixture(
        "beeps-10hz.mov",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc='if(lt(mod(t\\,0.1)\\,0.04)\\,0.5*sin(2*PI*1000*t)\\,0)':s=44100:d=4",
            "-f",
            "lavfi",
            "-i",
            "color=c=gray:s=64x48:r=25:d=4",
            "-c:a",
            "pcm_s16le",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// `clip`'s sound through the feed at `speed`, as an output pulls it in 10 ms buffers with the
/// clock following the sound; the samples it played.
fn play_at(clip: &std::path::Path, speed: f64, seconds: f64) -> Vec<f32> {
    let t0 = Instant::now();
    // A stopped clock, moved by hand to what the output says is heard: the test's own time
    // runs as fast as the decoder allows.
    let mut clock = Clock::new(t0, 0.5, true);
    clock.set_speed(t0, speed);
    let feed = Feed::start(
        AudioSource::open(clip, Default::default(), 44100, 1).unwrap(),
        Cue { clock, audible: true },
        Volume::default(),
    )
    .unwrap();
    decoded_at(&feed, 0.5);
    let mut out = vec![0.0f32; 441];
    let mut played = Vec::new();
    let mut now = t0;
    while played.len() < (seconds * 44100.0) as usize {
        // Keep the decoder well ahead of a clock that only moves as fast as the output pulls.
        let (_, to) = feed.decoded();
        if to < clock.media_time(now) + 0.2 * speed && to < 3.9 {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        feed.fill(&mut out, now);
        played.extend_from_slice(&out);
        now += Duration::from_micros(10_000);
        if let Some(heard) = feed.heard_at(now) {
            clock.set(now, heard);
        }
        feed.cue(Cue { clock, audible: true });
    }
    assert_eq!(feed.alignments(), 1, "speed {speed}: the sound never realigned");
    // The clock, following the sound, went `speed` times as fast as the sound played.
    let moved = clock.media_time(now) - 0.5;
    assert!(
        (moved - seconds * speed).abs() < 0.03,
        "speed {speed}: clock moved {moved} s"
    );
    played
}

/// Sample indices where a beep starts: a sample above 0.1 after 15 ms or more below it (the
/// stretch may leave shorter dips inside a beep, where its windows meet the silence around it).
fn onsets(samples: &[f32]) -> Vec<usize> {
    let mut quiet = 0;
    let mut found = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        if s.abs() > 0.1 {
            if quiet >= 660 {
                found.push(i);
            }
            quiet = 0;
        } else {
            quiet += 1;
        }
    }
    found
}

#[test]
fn stretched_sound_keeps_its_pitch_and_its_new_tempo() {
    for speed in [0.5, 2.0] {
        let played = play_at(&beeps(), speed, 1.5);
        // Beeps every 100 ms of media: every 100/speed ms of sound.
        let starts = onsets(&played);
        let gaps: Vec<f64> = starts.windows(2).map(|w| (w[1] - w[0]) as f64 / 44.1).collect();
        let expected = 100.0 / speed;
        assert!(gaps.len() as f64 >= 1500.0 / expected - 3.0, "speed {speed}: {gaps:?}");
        for gap in &gaps {
            assert!(
                (gap - expected).abs() < 12.0,
                "speed {speed}: beeps {gap} ms apart, not {expected}"
            );
        }
        // Inside each beep, still 1 kHz.
        let length = (40.0 / speed * 44.1) as usize;
        for &start in starts.iter().filter(|&&s| s + length <= played.len()) {
            let beep = &played[start + 44..start + length - 44];
            let hz = frequency(beep, 1, 44100);
            assert!((hz - 1000.0).abs() < 60.0, "speed {speed}: a beep at {hz} Hz");
        }
    }
}

#[test]
fn stretched_tone_plays_without_a_dropout() {
    for speed in [0.5, 2.0] {
        let played = play_at(&tone(), speed, 1.0);
        let hz = frequency(&played[4410..], 1, 44100);
        assert!((hz - 1000.0).abs() < 10.0, "speed {speed}: {hz} Hz");
        for (i, window) in played[441..].chunks(441).enumerate() {
            let peak = window.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            assert!(peak > 0.1, "speed {speed}: a dropout in buffer {i} (peak {peak})");
        }
    }
}
