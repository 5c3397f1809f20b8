//! The meter against EBU Tech 3341's cases and FFmpeg's readings: sines at known levels, steps
//! of loudness, a late true peak, silence, and the channels' weights.

use super::*;
use ffmpeg_next as ffmpeg;

/// `seconds` of a 1 kHz sine at `dbfs` in every one of `channels` channels, at 48 kHz.
fn sine(dbfs: f64, seconds: f64, channels: usize) -> Vec<f64> {
    let amplitude = 10f64.powf(dbfs / 20.0);
    let frames = (seconds * 48_000.0) as usize;
    (0..frames)
        .flat_map(|n| {
            let x = amplitude * (2.0 * std::f64::consts::PI * 1000.0 * n as f64 / 48_000.0).sin();
            std::iter::repeat_n(x, channels)
        })
        .collect()
}

fn measure(samples: &[f64], channels: usize) -> Summary {
    let mut meter = LoudnessMeter::new(48_000, vec![1.0; channels], ffmpeg::ChannelLayout::empty(), false).unwrap();
    meter.add(samples).unwrap();
    meter.summary()
}

#[test]
fn a_stereo_sine_at_minus_23_dbfs_reads_minus_23_lufs() {
    // EBU Tech 3341, case 1: 1 kHz, -23 dBFS, both channels, 20 s.
    let summary = measure(&sine(-23.0, 20.0, 2), 2);
    assert!((summary.integrated + 23.0).abs() < 0.1, "{summary:?}");
    assert!((summary.sample_peak + 23.0).abs() < 0.01, "{summary:?}");
    // Case 2: -33 dBFS reads -33 LUFS.
    let summary = measure(&sine(-33.0, 20.0, 2), 2);
    assert!((summary.integrated + 33.0).abs() < 0.1, "{summary:?}");
}

#[test]
fn a_steady_tone_has_no_loudness_range_and_steps_of_loudness_do() {
    assert_eq!(measure(&sine(-23.0, 20.0, 2), 2).range, 0.0);
    // EBU Tech 3342, case 1: 20 s at -20 dBFS then 20 s at -30 dBFS: 10 LU.
    let mut steps = sine(-20.0, 20.0, 2);
    steps.extend(sine(-30.0, 20.0, 2));
    let summary = measure(&steps, 2);
    assert!((summary.range - 10.0).abs() < 0.1, "{summary:?}");
}

#[test]
fn a_true_peak_in_the_last_moment_of_a_long_signal_is_found() {
    // A minute at -20 dBFS, its last 100 ms at -6, given in chunks of 1024 frames as a
    // decoder gives them: the upsampling keeps up to the end.
    let mut samples = sine(-20.0, 60.0, 2);
    let loud = sine(-6.0, 0.1, 2);
    let at = samples.len() - loud.len();
    samples[at..].copy_from_slice(&loud);
    let mut meter = LoudnessMeter::new(48_000, vec![1.0; 2], ffmpeg::ChannelLayout::STEREO, true).unwrap();
    for chunk in samples.chunks(2 * 1024) {
        meter.add(chunk).unwrap();
    }
    let summary = meter.summary();
    assert!((summary.true_peak + 6.0).abs() < 0.1, "{summary:?}");
}

#[test]
fn silence_is_below_the_gate() {
    let summary = measure(&vec![0.0; 96_000], 2);
    assert_eq!((summary.integrated, summary.range), (-70.0, 0.0));
    assert_eq!(summary.sample_peak, f64::NEG_INFINITY);
}

#[test]
fn lfe_is_left_out_and_surrounds_weigh_more() {
    let weights = layout_weights(ffmpeg::ChannelLayout::_5POINT1, 6);
    assert_eq!(weights, [1.0, 1.0, 1.0, 0.0, 1.41, 1.41]);
    assert_eq!(layout_weights(ffmpeg::ChannelLayout::empty(), 2), [1.0, 1.0]);
}
