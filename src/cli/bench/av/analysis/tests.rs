//! The analysis on synthetic recordings and frame logs with known answers.

use super::*;

/// A recording at `RATE`: a 50 ms sine of `pitch` starting at each of `onsets` (seconds,
/// fractional samples allowed), amplitude 0.5, over low noise.
fn beeping(onsets: &[f64], pitch: f64, seconds: f64) -> Vec<i16> {
    let mut noise = 0x2545_f491u32;
    (0..(seconds * RATE) as usize)
        .map(|i| {
            let t = i as f64 / RATE;
            let tone = onsets
                .iter()
                .find(|&&o| t >= o && t < o + 0.05)
                .map_or(0.0, |o| 0.5 * (2.0 * std::f64::consts::PI * pitch * (t - o)).sin());
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            let hiss = f64::from(noise % 61) - 30.0;
            (tone * 32767.0 + hiss).round() as i16
        })
        .collect()
}

#[test]
fn beeps_with_jitter_give_their_intervals_and_pitch() {
    let jitter_ms = [0.0, 0.4, -0.3, 1.7, 0.0, -2.2];
    let onsets: Vec<f64> = jitter_ms
        .iter()
        .enumerate()
        .map(|(k, j)| 0.5 + k as f64 + j / 1000.0)
        .collect();
    let samples = beeping(&onsets, 1000.0, 6.8);
    let beeps = find_beeps(&samples, 300.0);
    assert_eq!(beeps.len(), onsets.len(), "{beeps:?}");
    for (beep, onset) in beeps.iter().zip(&onsets) {
        assert!((beep.onset / RATE - onset).abs() < 0.02e-3, "{beep:?} vs {onset}");
        let pitch = beep.pitch_hz.unwrap_or(0.0);
        assert!((pitch - 1000.0).abs() < 0.5, "{pitch}");
    }
    let onsets_ms: Vec<f64> = beeps.iter().map(|b| b.onset / RATE * 1e3).collect();
    let stats = interval_stats(&onsets_ms, 1000.0).unwrap();
    assert_eq!(stats.beeps, 6);
    assert!((stats.min_ms - 997.8).abs() < 0.02, "{stats:?}");
    assert!((stats.max_ms - 1002.0).abs() < 0.02, "{stats:?}");
    assert!((stats.mean_ms - (1000.0 - 2.2 / 5.0)).abs() < 0.02, "{stats:?}");
    // 1.7 - (-0.3) = 2.0 and -2.2 - 0 = -2.2 and 0 - 1.7 = -1.7 are off by more than 1 ms.
    assert_eq!(stats.off, 3);
}

#[test]
fn a_detuned_beep_reads_its_own_pitch() {
    let samples = beeping(&[0.4, 1.4], 1012.0, 2.0);
    let beeps = find_beeps(&samples, 300.0);
    assert_eq!(beeps.len(), 2);
    for beep in beeps {
        let pitch = beep.pitch_hz.unwrap_or(0.0);
        assert!((pitch - 1012.0).abs() < 0.5, "{pitch}");
    }
}

#[test]
fn silence_and_clicks_are_not_beeps() {
    assert!(find_beeps(&beeping(&[], 1000.0, 1.0), 300.0).is_empty());
    let mut samples = beeping(&[0.7], 1000.0, 1.0);
    // A lone click after enough quiet: loud, but nothing near it reaches half the peak.
    samples[(0.35 * RATE) as usize] = 4000;
    let beeps = find_beeps(&samples, 300.0);
    assert_eq!(beeps.len(), 1);
    // Beeps closer than the quiet time run together into the first.
    assert_eq!(find_beeps(&beeping(&[0.4, 0.6], 1000.0, 1.0), 300.0).len(), 1);
}

/// Reads of 2 ms of samples each from a sink whose clock runs `ppm` fast, late by 0..7 ms
/// of scheduling but every seventh one prompt.
fn reads(origin_ns: f64, ppm: f64, count: u64) -> Vec<Read> {
    (1..=count)
        .map(|k| {
            let samples = k * 96;
            let late_ns = (k * 1_000_003 % 7_000_000) * u64::from(k % 7 != 0);
            let at_ns = origin_ns + samples as f64 * 1e9 / RATE / (1.0 + ppm * 1e-6) + late_ns as f64;
            Read {
                samples,
                at_ns: at_ns as u64,
            }
        })
        .collect()
}

#[test]
fn the_lower_envelope_finds_when_samples_arrived() {
    let origin_ns = 5_000_000_000.0;
    let model = ArrivalModel::fit(&reads(origin_ns, 0.0, 3000)).unwrap();
    for sample in [0.0, 1234.5, 100_000.0, 288_000.0] {
        let error_ns = model.arrival_ns(sample) - (origin_ns + sample / RATE * 1e9);
        assert!(error_ns.abs() < 1.0, "{sample}: {error_ns} ns off");
    }
    assert!(model.gain_ms().abs() < 1e-6, "{model:?}");
    assert!(model.roughness_ms() < 1e-6, "{model:?}");
    assert_eq!(ArrivalModel::fit(&[]), None);
    // A second in which every read came 3 ms late stands out.
    let mut busy = reads(origin_ns, 0.0, 3000);
    busy[1000..1500].iter_mut().for_each(|r| r.at_ns += 3_000_000);
    let roughness = ArrivalModel::fit(&busy).unwrap().roughness_ms();
    assert!(roughness > 2.0, "{roughness}");
}

#[test]
fn the_envelope_follows_a_sink_clock_that_runs_fast() {
    let origin_ns = 5_000_000_000.0;
    // 60 s at 100 ppm: 6 ms gained by the end.
    let model = ArrivalModel::fit(&reads(origin_ns, 100.0, 30_000)).unwrap();
    for sample in [0.0, 500_000.0, 1_440_000.0, 2_879_000.0, 2_950_000.0] {
        let truth = origin_ns + sample / RATE * 1e9 / 1.0001;
        let error_ms = (model.arrival_ns(sample) - truth) / 1e6;
        assert!(error_ms.abs() < 0.05, "{sample}: {error_ms} ms off");
    }
    assert!((model.gain_ms() - 6.0).abs() < 0.2, "{}", model.gain_ms());
}

const LOG: &str = "# monotonic_ns=1000000000
t_ms=40.000 frame=0 gen=0 new=1 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=75.000 frame=1 gen=0 new=1 due_ms=73.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=1041.000 frame=30 gen=0 new=1 due_ms=1040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=1050.000 frame=30 gen=0 new=0 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=2040.000 frame=60 gen=0 new=1 due_ms=2040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=2500.000 frame=90 gen=1 new=1 due_ms=- dropped=0 paused=0 size=640x480 exact=1 preview=1
t_ms=3042.000 frame=90 gen=1 new=1 due_ms=3040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
t_ms=4040.000 frame=120 gen=1 new=1 due_ms=- dropped=0 paused=1 size=640x480 exact=1 preview=0
t_ms=5039.000 frame=150 gen=1 new=1 due_ms=5040.000 dropped=0 paused=0 size=640x480 exact=1 preview=0
";

#[test]
fn flashes_are_new_playing_frames_on_whole_seconds() {
    let presents = parse_frame_log(LOG).unwrap();
    assert_eq!(presents.first_ns, 1_040_000_000.0);
    let flashes: Vec<(u64, f64)> = presents.flashes.iter().map(|f| (f.second, f.at_ns / 1e6)).collect();
    assert_eq!(
        flashes,
        [(0, 1040.0), (1, 2041.0), (2, 3040.0), (3, 4042.0), (5, 6039.0)]
    );
    assert!(parse_frame_log("t_ms=1.0 frame=0 new=1").is_err());
    assert!(parse_frame_log("# monotonic_ns=5\n").is_err());
}

#[test]
fn beeps_pair_with_their_flashes() {
    let flashes = parse_frame_log(LOG).unwrap().flashes;
    // Beeps of seconds 0, 1, 2, 3 and 5 at known offsets from their flashes, one for the
    // missing second 4, a second beep near second 5 (further than the first), and a stray
    // one far from any flash.
    let offsets = [(0, 4.0), (1, -3.0), (2, 12.5), (3, 0.0), (5, 7.0)];
    let mut beeps_ns: Vec<f64> = offsets
        .iter()
        .map(|&(second, offset)| flashes.iter().find(|f| f.second == second).unwrap().at_ns + offset * 1e6)
        .collect();
    beeps_ns.extend([5_040e6, 6_039e6 + 30e6, 9_000e6]);
    let pairs = pair(&beeps_ns, &flashes);
    let found: Vec<(u64, f64)> = pairs
        .iter()
        .map(|p| (p.second, (p.offset_ms * 1e3).round() / 1e3))
        .collect();
    assert_eq!(found, offsets);
    let values: Vec<f64> = pairs.iter().map(|p| p.offset_ms).collect();
    assert_eq!(percentile(&values, 0.5).map(f64::round), Some(4.0));
}

#[test]
fn a_jump_shows_off_the_beat_where_jitter_does_not() {
    // A stretch that moves single beeps by ±3 ms stays within 3 ms of the beat...
    let jittery: Vec<f64> = (0..10).map(|k| k as f64 * 666.667 + [3.0, -3.0][k % 2]).collect();
    let stats = interval_stats(&jittery, 666.667).unwrap();
    assert!((stats.off_beat_ms - 3.0).abs() < 0.01, "{stats:?}");
    // ...while 21 ms skipped halfway moves the later half off it by about half of that.
    let skipped: Vec<f64> = (0..10)
        .map(|k| k as f64 * 1000.0 - if k >= 5 { 21.0 } else { 0.0 })
        .collect();
    let stats = interval_stats(&skipped, 1000.0).unwrap();
    assert!((stats.off_beat_ms - 10.5).abs() < 0.01, "{stats:?}");
    assert_eq!((stats.off, stats.min_ms), (1, 979.0));
}

#[test]
fn analysis_leaves_out_start_up_and_lines_sound_up_with_pictures() {
    // Flashes at 1.040 s + k; the recording starts at 0.2 s, so a beep 6 ms after flash k
    // sits at 0.846 s + k in it.
    let onsets: Vec<f64> = (0..6).map(|k| 0.846 + k as f64).collect();
    let samples = beeping(&onsets, 1000.0, 6.5);
    let reads = (1..=samples.len() as u64 / 480)
        .map(|k| Read {
            samples: k * 480,
            at_ns: 200_000_000 + k * 10_000_000 + 300_000,
        })
        .collect();
    let recording = Recording { samples, reads };
    let presents = parse_frame_log(LOG).unwrap();
    let analysis = analyse(&recording, &presents, 1.0, 7_000_000_000).unwrap();
    // Seconds 2 to 5 (start-up left out); the paused flash of second 4 doesn't count.
    assert_eq!((analysis.beeps, analysis.flashes), (4, 3));
    let offsets: Vec<(u64, f64)> = analysis.pairs.iter().map(|p| (p.second, p.offset_ms.round())).collect();
    assert_eq!(offsets, [(2, 6.0), (3, 4.0), (5, 7.0)]);
    let intervals = analysis.intervals.unwrap();
    assert_eq!(intervals.off, 0);
    assert!((intervals.mean_ms - 1000.0).abs() < 0.02, "{intervals:?}");
    let text = analysis.to_string();
    assert!(text.contains("a/v offset: 3 pairs of 4 beeps and 3 flashes"), "{text}");
}
