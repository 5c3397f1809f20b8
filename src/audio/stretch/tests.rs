//! The stretch against sines, clicks and pieces of every size.

use super::Stretch;
use std::time::Instant;

const RATE: u32 = 48_000;
/// The largest step between samples of a 1 kHz sine of amplitude 0.5: 2π·1000/48000·0.5.
const SINE_STEP: f32 = 0.0655;

fn sine(freq: f64, seconds: f64, channels: usize) -> Vec<f32> {
    let frames = (seconds * f64::from(RATE)) as usize;
    let phase = |i: usize| (std::f64::consts::TAU * freq * i as f64 / f64::from(RATE)).sin() as f32;
    (0..frames)
        .flat_map(|i| std::iter::repeat_n(0.5 * phase(i), channels))
        .collect()
}

/// A deterministic sequence of pseudo-random numbers below 2^31.
fn random(seed: u64) -> impl Iterator<Item = u64> {
    let step = |s: &u64| Some(s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
    std::iter::successors(Some(seed), step).skip(1).map(|s| s >> 33)
}

fn noise(samples: usize, amplitude: f32) -> Vec<f32> {
    let scale = 2.0 * amplitude / (1u64 << 31) as f32;
    random(1).take(samples).map(|r| r as f32 * scale - amplitude).collect()
}

/// Sizes 1 to 4000 frames, adding up to `frames`.
fn pieces(frames: usize, seed: u64) -> Vec<usize> {
    let mut left = frames;
    let sizes = random(seed).map(|r| (r % 4000 + 1) as usize).map_while(|size| {
        let size = size.min(left);
        left -= size;
        (size > 0).then_some(size)
    });
    sizes.collect()
}

/// All of `input` stretched, pushed in `sizes` (frames), then flushed.
fn stretch(speed: f64, input: &[f32], channels: usize, sizes: &[usize]) -> Vec<f32> {
    let mut stretch = Stretch::new(RATE, channels);
    stretch.set_speed(speed);
    let mut out = Vec::new();
    let mut rest = input;
    for &size in sizes {
        let (piece, after) = rest.split_at(size * channels);
        stretch.process(piece, &mut out);
        rest = after;
    }
    stretch.process(rest, &mut out);
    stretch.flush(&mut out);
    out
}

fn channel(samples: &[f32], channels: usize, which: usize) -> Vec<f32> {
    samples.iter().skip(which).step_by(channels).copied().collect()
}

fn middle(signal: &[f32]) -> &[f32] {
    &signal[signal.len() / 4..signal.len() * 3 / 4]
}

/// From the first to the last rising zero crossing, interpolated.
fn frequency(signal: &[f32]) -> f64 {
    let crossings: Vec<f64> = (1..signal.len())
        .filter(|&i| signal[i - 1] < 0.0 && signal[i] >= 0.0)
        .map(|i| (i - 1) as f64 + f64::from(signal[i - 1] / (signal[i - 1] - signal[i])))
        .collect();
    let span = crossings[crossings.len() - 1] - crossings[0];
    (crossings.len() - 1) as f64 * f64::from(RATE) / span
}

/// The smallest and largest peak over each period of a sine of `freq`.
fn peaks(signal: &[f32], freq: f64) -> (f32, f32) {
    let period = (f64::from(RATE) / freq).ceil() as usize;
    let peaks = signal
        .chunks_exact(period)
        .map(|p| p.iter().fold(0.0f32, |m, x| m.max(x.abs())));
    peaks.fold((f32::MAX, 0.0), |(lo, hi), p| (lo.min(p), hi.max(p)))
}

fn largest_step(signal: &[f32]) -> f32 {
    signal.windows(2).fold(0.0, |m, w| m.max((w[1] - w[0]).abs()))
}

/// Pitch, duration, level and smoothness of a stretched 2 s sine, in every channel.
fn check_sine(freq: f64, speed: f64, channels: usize) {
    let input = sine(freq, 2.0, channels);
    let out = stretch(speed, &input, channels, &[]);
    let ratio = (out.len() as f64 / input.len() as f64) * speed;
    assert!(
        (ratio - 1.0).abs() < 0.01,
        "{speed}x, {channels} ch: duration ratio {ratio} of 1/speed"
    );
    let first = channel(&out, channels, 0);
    for which in 1..channels {
        assert_eq!(channel(&out, channels, which), first, "channels differ");
    }
    let heard = frequency(middle(&first));
    assert!((heard / freq - 1.0).abs() < 0.01, "{speed}x, {channels} ch: {heard} Hz");
    let (low, high) = peaks(middle(&first), freq);
    assert!(
        low > 0.45 && high < 0.55,
        "{speed}x, {channels} ch: peaks {low}..{high}"
    );
    let step = largest_step(&first);
    let sine_step = SINE_STEP * (freq / 1000.0) as f32;
    assert!(step < 1.5 * sine_step, "{speed}x, {channels} ch: step {step}");
    let step = step / sine_step;
    eprintln!(
        "{freq} Hz at {speed}x: {heard:.2} Hz, duration {ratio:.5}/speed, peaks {low:.3}..{high:.3}, step {step:.3}"
    );
}

#[test]
fn a_sine_keeps_its_pitch_level_and_smoothness_at_every_speed() {
    for speed in [0.25, 0.5, 0.8, 1.25, 2.0, 3.0, 4.0] {
        check_sine(1000.0, speed, 2);
        // Periods of fractional numbers of frames, low and high.
        check_sine(441.3, speed, 2);
        check_sine(4987.0, speed, 2);
    }
}

#[test]
fn mono_and_six_channels_work() {
    for speed in [0.5, 2.0] {
        check_sine(1000.0, speed, 1);
        check_sine(1000.0, speed, 6);
    }
    // Channels stay apart.
    let input: Vec<f32> = sine(1000.0, 1.0, 1)
        .iter()
        .flat_map(|&x| (1..=6).map(move |c| x * c as f32 / 6.0))
        .collect();
    let out = stretch(2.0, &input, 6, &[]);
    let first = channel(&out, 6, 0);
    for which in 1..6 {
        let scaled: Vec<f32> = first.iter().map(|x| x * (which + 1) as f32).collect();
        let other = channel(&out, 6, which);
        assert!(
            other.iter().zip(&scaled).all(|(a, b)| (a - b).abs() < 1e-5),
            "channel {which}"
        );
    }
}

#[test]
fn speed_one_is_bit_exact_passthrough_in_any_pieces() {
    let input: Vec<f32> = (0..30_001).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5).collect();
    let mut stretch = Stretch::new(RATE, 1);
    let mut out = Vec::new();
    let mut at = 0;
    for size in pieces(input.len(), 7).into_iter().map(|s| s % 97 + 1) {
        let size = size.min(input.len() - at);
        stretch.process(&input[at..at + size], &mut out);
        assert_eq!(out.len(), at + size, "no latency");
        at += size;
        if at == input.len() {
            break;
        }
    }
    stretch.process(&input[at..], &mut out);
    assert_eq!(out, input);
    stretch.flush(&mut out);
    assert_eq!(out, input);
}

#[test]
fn pieces_of_any_size_give_the_same_output() {
    // Two tones and a buzz, so that the search has choices to make.
    let input: Vec<f32> = (0..96_000)
        .map(|i| {
            let t = i as f32 / RATE as f32;
            0.3 * (t * 1400.0).sin() + 0.2 * (t * 5100.0 + 0.3).sin()
        })
        .zip(noise(96_000, 0.1))
        .map(|(x, n)| x + n)
        .flat_map(|x| [x, -x])
        .collect();
    for (speed, seed) in [(0.25, 1), (0.5, 2), (1.5, 3), (4.0, 4)] {
        let whole = stretch(speed, &input, 2, &[]);
        let pieced = stretch(speed, &input, 2, &pieces(input.len() / 2, seed));
        assert!(whole == pieced, "{speed}x: the output depends on how the input was cut");
    }
}

#[test]
fn output_frame_k_plays_input_near_k_times_speed() {
    // Clicks in noise: each click heard at output frame k must come from input frame k·speed,
    // within the bound, from the first click to those after five seconds. Irregular spacing
    // (but more than twice the bound), so that they fall anywhere in the windows.
    let clicks: Vec<usize> = (0..58).map(|i| 150 + i * 4_800 + (i * 337) % 1000).collect();
    let mut input = noise(6 * RATE as usize, 0.2);
    for &c in &clicks {
        input[c] = 1.0;
    }
    for speed in [0.25, 0.5, 2.0, 4.0] {
        let mut stretch = Stretch::new(RATE, 1);
        stretch.set_speed(speed);
        let bound = stretch.max_drift() as f64;
        let mut out = Vec::new();
        stretch.process(&input, &mut out);
        stretch.flush(&mut out);
        assert_eq!(
            out[..stretch.hop],
            input[..stretch.hop],
            "{speed}x: output starts at input frame 0"
        );
        let mut worst = 0.0f64;
        let mut heard = Vec::new();
        for k in 1..out.len() - 1 {
            if out[k] > 0.45 && out[k] > out[k - 1] && out[k] > out[k + 1] {
                let played = k as f64 * speed;
                let nearest = clicks
                    .iter()
                    .map(|&c| c as f64)
                    .min_by(|a, b| (a - played).abs().total_cmp(&(b - played).abs()));
                let error = nearest.map_or(f64::MAX, |c| c - played);
                assert!(
                    error.abs() <= bound,
                    "{speed}x: output frame {k} plays a click {error} frames from k·speed (bound {bound})"
                );
                worst = worst.max(error.abs());
                heard.push(played);
            }
        }
        let rate = f64::from(RATE);
        assert!(heard.iter().any(|&p| p < 0.3 * rate), "{speed}x: no click heard early");
        assert!(
            heard.iter().any(|&p| p > 5.0 * rate),
            "{speed}x: no click heard after 5 s"
        );
        // Above 1x, windows skip some input, and the search tends to skip lone clicks.
        assert!(
            heard.len() >= clicks.len() / 4,
            "{speed}x: only {} clicks heard",
            heard.len()
        );
        eprintln!(
            "{speed}x: {} clicks heard, worst error {worst} frames (bound {bound})",
            heard.len()
        );
    }
}

#[test]
fn a_reset_starts_afresh() {
    let mut stretch = Stretch::new(RATE, 2);
    stretch.set_speed(2.0);
    let mut out = Vec::new();
    stretch.process(&sine(1000.0, 1.0, 2), &mut out);
    stretch.reset();
    out.clear();
    let input = sine(440.0, 1.0, 2);
    stretch.process(&input, &mut out);
    stretch.flush(&mut out);
    assert_eq!(
        out[..2 * stretch.hop],
        input[..2 * stretch.hop],
        "the output starts with the new input"
    );
    let ratio = out.len() as f64 / input.len() as f64 * 2.0;
    assert!((ratio - 1.0).abs() < 0.01, "duration ratio {ratio}");
    let freq = frequency(middle(&channel(&out, 2, 0)));
    assert!((freq - 440.0).abs() < 4.4, "{freq} Hz");
}

#[test]
fn a_speed_change_mid_stream_keeps_the_pitch() {
    let mut stretch = Stretch::new(RATE, 2);
    stretch.set_speed(0.5);
    let mut out = Vec::new();
    let input = sine(1000.0, 3.0, 2);
    let (before, after) = input.split_at(2 * RATE as usize);
    stretch.process(before, &mut out);
    stretch.set_speed(2.0);
    assert_eq!(stretch.speed(), 2.0);
    stretch.process(after, &mut out);
    stretch.flush(&mut out);
    let out = channel(&out, 2, 0);
    // 1 s at 0.5x, then 2 s at 2x: 2 s and then 1 s of output.
    let ratio = out.len() as f64 / (3 * RATE) as f64;
    assert!((ratio - 1.0).abs() < 0.01, "duration ratio {ratio}");
    let later = &out[out.len() * 3 / 4..out.len() - 2000];
    let freq = frequency(later);
    assert!((freq - 1000.0).abs() < 10.0, "{freq} Hz after the change");
    let (low, high) = peaks(&out[1000..out.len() - 2000], 1000.0);
    assert!(low > 0.45 && high < 0.55, "peaks {low}..{high}");
    assert!(largest_step(&out) < 1.5 * SINE_STEP, "step {}", largest_step(&out));
}

#[test]
fn back_at_speed_one_it_passes_through_again() {
    let mut stretch = Stretch::new(RATE, 2);
    stretch.set_speed(2.0);
    let mut out = Vec::new();
    let input = sine(1000.0, 1.0, 2);
    let (before, after) = input.split_at(input.len() / 2);
    stretch.process(before, &mut out);
    stretch.set_speed(1.0);
    stretch.process(after, &mut out);
    // Once the last window has played out, the input follows as it is.
    let tail = 10_000;
    assert_eq!(out[out.len() - tail..], input[input.len() - tail..]);
    let mut more = Vec::new();
    stretch.process(&input[..4], &mut more);
    assert_eq!(more, input[..4], "no latency");
    assert!(largest_step(&channel(&out, 2, 0)) < 1.5 * SINE_STEP);
}

#[test]
fn stretching_costs_little_cpu() {
    let input = sine(1000.0, 1.0, 2);
    for speed in [0.25, 0.5, 2.0, 4.0] {
        let mut stretch = Stretch::new(RATE, 2);
        stretch.set_speed(speed);
        let mut out = Vec::with_capacity(input.len() * 5);
        let began = Instant::now();
        for piece in input.chunks(2 * 1024) {
            stretch.process(piece, &mut out);
        }
        let took = began.elapsed().as_secs_f64();
        let per_output_second = took * speed;
        eprintln!(
            "{speed}x: 1 s of 48 kHz stereo in {:.1} ms ({:.1} ms per second played)",
            took * 1e3,
            per_output_second * 1e3
        );
        if speed == 4.0 {
            assert!(took < 0.2, "{speed}x took {took} s for 1 s of sound");
        }
    }
}
