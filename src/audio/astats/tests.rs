//! Expected values are ffprobe's (FFmpeg 5.1.9, Debian 12) for the same samples written as WAV
//! files and read through `amovie=…,astats=metadata=1:reset=1,ebur128=metadata=1` (and
//! without `ebur128` for frames it does not show).

use super::*;

fn value<'a>(tags: &'a [(String, String)], key: &str) -> &'a str {
    let key = format!("lavfi.astats.{key}");
    tags.iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {key}"))
}

#[test]
fn a_hand_made_16_bit_frame() {
    let mut astats = Astats::new(1, 48000);
    let tags = astats.frame(&[&[0i16, 1000, -1000, 32767, 32767, -32768, 5, 0][..]]);
    let expected = "1.DC_offset 0.125015|1.Min_level -32768.000000|1.Max_level 32767.000000|\
        1.Min_difference 0.000000|1.Max_difference 65535.000000|1.Mean_difference 19297.142857|\
        1.RMS_difference 30505.540640|1.Peak_level 0.000265|1.RMS_level -4.256903|1.RMS_peak -4.256903|\
        1.RMS_trough -4.256903|1.Crest_factor 53492.770932|1.Flat_factor 4.436975|1.Peak_count 3.000000|\
        1.Noise_floor nan|1.Noise_floor_count 0.000000|1.Entropy 0.146588|1.Bit_depth 16.000000|\
        1.Bit_depth2 16.000000|1.Dynamic_range 82.350199|1.Zero_crossings 5.000000|\
        1.Zero_crossings_rate 0.625000|Overall.DC_offset 0.125015|Overall.Min_level -32768.000000|\
        Overall.Max_level 32767.000000|Overall.Min_difference 0.000000|Overall.Max_difference 65535.000000|\
        Overall.Mean_difference 19297.142857|Overall.RMS_difference 30505.540640|\
        Overall.Peak_level 0.000265|Overall.RMS_level -4.256903|Overall.RMS_peak -4.256903|\
        Overall.RMS_trough -4.256903|Overall.Flat_factor 4.436975|Overall.Peak_count 3.000000|\
        Overall.Noise_floor nan|Overall.Noise_floor_count 0.000000|Overall.Entropy 0.146588|\
        Overall.Bit_depth 16.000000|Overall.Bit_depth2 16.000000|Overall.Number_of_samples 8.000000";
    let expected: Vec<(String, String)> = expected
        .split('|')
        .map(|pair| {
            let (key, value) = pair.trim().split_once(' ').unwrap();
            (format!("lavfi.astats.{key}"), value.to_string())
        })
        .collect();
    assert_eq!(tags, expected);
}

#[test]
fn silence() {
    let mut astats = Astats::new(1, 48000);
    let tags = astats.frame(&[&[0i16; 16][..]]);
    assert_eq!(tags.len(), 41);
    assert_eq!(value(&tags, "1.DC_offset"), "0.000000");
    assert_eq!(value(&tags, "1.Peak_level"), "-inf");
    assert_eq!(value(&tags, "1.RMS_level"), "-inf");
    assert_eq!(value(&tags, "1.Crest_factor"), "1.000000");
    assert_eq!(value(&tags, "1.Flat_factor"), "-inf");
    // Every sample is both the minimum and the maximum.
    assert_eq!(value(&tags, "1.Peak_count"), "32.000000");
    assert_eq!(value(&tags, "1.Entropy"), "-0.000000");
    assert_eq!(value(&tags, "1.Bit_depth2"), "0.000000");
    assert_eq!(value(&tags, "1.Dynamic_range"), "-inf");
    assert_eq!(value(&tags, "Overall.Entropy"), "0.000000");
    assert_eq!(value(&tags, "Overall.Number_of_samples"), "16.000000");
}

#[test]
fn a_full_scale_stereo_frame() {
    // Runs of three at +full scale and -full scale, the channels in opposition.
    let left: Vec<i16> = (0..12)
        .map(|i| if (i / 3) % 2 == 0 { i16::MAX } else { i16::MIN })
        .collect();
    let right: Vec<i16> = left
        .iter()
        .map(|&s| if s == i16::MAX { i16::MIN } else { i16::MAX })
        .collect();
    let planes = [left, right];
    let mut astats = Astats::new(2, 48000);
    let tags = astats.frame(&[&planes[0][..], &planes[1][..]]);
    assert_eq!(tags.len(), 63);
    for ch in ["1", "2"] {
        assert_eq!(value(&tags, &format!("{ch}.Peak_count")), "12.000000");
        assert_eq!(value(&tags, &format!("{ch}.Peak_level")), "0.000265");
        assert_eq!(value(&tags, &format!("{ch}.Flat_factor")), "7.043650");
        assert_eq!(value(&tags, &format!("{ch}.Crest_factor")), "32767.499989");
    }
    // The first channel starts positive: a crossing from the stream's start.
    assert_eq!(value(&tags, "1.Zero_crossings"), "4.000000");
    assert_eq!(value(&tags, "2.Zero_crossings"), "3.000000");
    assert_eq!(value(&tags, "Overall.Peak_count"), "12.000000");
    assert_eq!(value(&tags, "Overall.RMS_level"), "0.000133");
    // Packed samples give the same.
    let packed: Vec<i16> = (0..12).flat_map(|i| [planes[0][i], planes[1][i]]).collect();
    assert_eq!(Astats::new(2, 48000).frame_interleaved(&packed), tags);
}

#[test]
fn one_sample() {
    let mut astats = Astats::new(1, 48000);
    let tags = astats.frame(&[&[1234i16][..]]);
    // DBL_MAX, cut at FFmpeg's 127 characters.
    let max = "1797693134862315708145274237317043567980705675258449965989174768031572607800285387605895586327668781715404589535143824642343213";
    assert_eq!(value(&tags, "1.Min_difference"), max);
    assert_eq!(value(&tags, "Overall.Min_difference"), max);
    assert_eq!(value(&tags, "1.Mean_difference"), "-nan");
    assert_eq!(value(&tags, "Overall.RMS_difference"), "-nan");
    assert_eq!(value(&tags, "1.Peak_count"), "2.000000");
    assert_eq!(value(&tags, "1.Zero_crossings"), "1.000000");
    assert_eq!(value(&tags, "1.Crest_factor"), "32767.000000");
}

#[test]
fn floats_with_nans_infinities_and_denormals() {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let left = [0.5f32, -0.25, 1e-40, 0.0, -2.0, 0.125, 0.3];
    let right = [nan, inf, -inf, 1.5, 1e-45, 3.0e38, -0.3];
    let tags = Astats::new(2, 48000).frame(&[&left[..], &right[..]]);
    assert_eq!(tags.len(), 72);
    assert_eq!(value(&tags, "1.DC_offset"), "-0.189286");
    assert_eq!(value(&tags, "1.Bit_depth"), "15.000000");
    assert_eq!(value(&tags, "1.Bit_depth2"), "25.000000");
    assert_eq!(value(&tags, "1.Dynamic_range"), "812.041247");
    assert_eq!(value(&tags, "1.Number of denormals"), "1.000000");
    assert_eq!(value(&tags, "2.DC_offset"), "nan");
    assert_eq!(value(&tags, "2.Min_level"), "-inf");
    assert_eq!(value(&tags, "2.Number of NaNs"), "1.000000");
    assert_eq!(value(&tags, "2.Number of Infs"), "2.000000");
    assert_eq!(value(&tags, "Overall.RMS_trough"), "-1.998600");
    assert_eq!(value(&tags, "Overall.Entropy"), "0.150016");
    assert_eq!(value(&tags, "Number of NaNs"), "0.500000");
    assert_eq!(tags.last().unwrap().0, "lavfi.astats.Number of denormals");
}

#[test]
fn frames_longer_than_the_window_and_state_across_frames() {
    // 8 kHz: 400-sample windows in 2048-sample frames.
    let sample = |n: i32| -> i16 {
        (if n < 2048 {
            100
        } else if n < 3000 {
            (n * 37) % 201 - 100
        } else if n < 4096 {
            (n * 37) % 21 - 10
        } else {
            -5
        }) as i16
    };
    let mut astats = Astats::new(1, 8000);
    let frames: Vec<_> = (0..3)
        .map(|f| {
            let plane: Vec<i16> = (f * 2048..(f + 1) * 2048).map(sample).collect();
            astats.frame(&[&plane[..]])
        })
        .collect();
    let get = |key: &str| frames.iter().map(|t| value(t, key).to_string()).collect::<Vec<_>>();
    assert_eq!(get("1.Noise_floor"), ["-50.307938", "-72.246139", "-78.266739"]);
    assert_eq!(get("1.Noise_floor_count"), ["1649.000000", "697.000000", "1649.000000"]);
    assert_eq!(get("1.RMS_peak"), ["-50.334765", "-55.446648", "-76.355365"]);
    assert_eq!(get("1.RMS_trough"), ["-52.294428", "-66.650395", "-78.315028"]);
    assert_eq!(get("1.Entropy"), ["-0.000000", "0.289598", "-0.000000"]);
    // The second frame's first crossing is against the first frame's last sample.
    assert_eq!(get("1.Zero_crossings"), ["1.000000", "873.000000", "0.000000"]);
}

#[test]
fn no_channels_and_no_samples() {
    assert!(Astats::new(0, 48000).frame::<f32>(&[]).is_empty());
    assert!(Astats::new(0, 48000).frame_interleaved::<f32>(&[]).is_empty());
    let tags = Astats::new(2, 48000).frame::<f32>(&[&[], &[]]);
    assert_eq!(tags.len(), 72);
    assert_eq!(value(&tags, "Overall.Number_of_samples"), "0.000000");
}
