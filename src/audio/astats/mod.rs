//! FFmpeg 5.1's `astats` audio filter (libavfilter/af_astats.c), frame by frame, as QCTools-style
//! reports carry it: the tags that
//!
//! ```text
//! ffprobe -f lavfi "amovie=FILE,astats=metadata=1:reset=1,ebur128=metadata=1" -show_frames
//! ```
//!
//! prints, value for value, in its order and with its `printf("%f")` formatting (`-inf`, `inf`,
//! `nan` and `-nan` included). Only the `lavfi.astats.*` tags; the `lavfi.r128.*` ones are the
//! loudness meter's.
//!
//! What the filter sees in that chain:
//!
//! - **The decoder's own samples.** astats takes s16, s32, s64, flt and dbl (packed or planar),
//!   so format negotiation gives it the decoder's format untouched: 16-bit PCM arrives as
//!   integers (`Min_level` of a 16-bit file reads `-32768.000000`, not `-1.000000`), AAC and MP3 as
//!   floats, 24-bit PCM and 24-bit FLAC as s32. The conversion to double that `ebur128` needs is
//!   inserted after astats. Only unsigned 8-bit (pcm_u8) is converted before it, to double:
//!   feed such samples as `f64` `(x − 128) / 128`. The [`Sample`] type of a frame selects
//!   FFmpeg's path for that format: the normalisation to ±1 (Peak, RMS, noise floor, entropy),
//!   the bit-depth width (16, 32 or 64 bits) and whether the NaN/Inf/denormal counts exist.
//!   Planar or packed makes no difference to the values.
//! - **One decoded frame at a time, statistics reset every frame** (`reset=1`). One thing carries
//!   over from frame to frame all the same, as in FFmpeg: each channel's last non-zero sample (a
//!   sign change against it counts as a zero crossing; before the first frame it counts as
//!   negative, so a stream starting positive counts one crossing). Keep one [`Astats`] per stream.
//! - **Which frame's tags ffprobe shows.** `ebur128=metadata=1` regroups the stream into frames of
//!   `sample_rate / 10` samples (the last one shorter), and each such frame keeps the tags of the
//!   decoded frame holding its first sample. So ffprobe's frame `k` (from sample
//!   `k * (rate / 10)`) shows what [`Astats::frame`] returned for the decoded frame containing
//!   that sample; decoded frames starting and ending inside one 100 ms frame are not shown.

use std::num::FpCategory;

/// The `length` option: the window, in seconds, of the RMS peak/trough average and the noise
/// floor (FFmpeg's default).
const TIME_CONSTANT: f64 = 0.05;
/// Bins of the noise floor's and the entropy's histograms of |sample| over 0..=1.
const HISTOGRAM_SIZE: usize = 8192;
const HISTOGRAM_MAX: usize = HISTOGRAM_SIZE - 1;
/// The longest value FFmpeg writes (its buffer is 128 bytes).
const VALUE_MAX: usize = 127;
/// The NaN x86 makes from numbers (0/0, sqrt of a negative), which glibc prints `-nan`.
const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// The sample formats astats reads (FFmpeg's `AV_SAMPLE_FMT_*`, packed or planar alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit integers, normalised by 32767.
    S16,
    /// Signed 32-bit integers, normalised by 2147483647.
    S32,
    /// Signed 64-bit integers, normalised by 2^63.
    S64,
    /// 32-bit floats, ±1 full scale.
    F32,
    /// 64-bit floats, ±1 full scale.
    F64,
}

impl SampleFormat {
    /// Bits per sample: the widest `Bit_depth` FFmpeg reports.
    fn bits(self) -> u32 {
        match self {
            SampleFormat::S16 => 16,
            SampleFormat::S32 | SampleFormat::F32 => 32,
            SampleFormat::S64 | SampleFormat::F64 => 64,
        }
    }

    /// Floats also get the `Number of NaNs`, `Number of Infs` and `Number of denormals` tags.
    fn is_float(self) -> bool {
        matches!(self, SampleFormat::F32 | SampleFormat::F64)
    }

    /// The sample on a ±1 scale, as FFmpeg normalises it.
    fn normalise(self, d: f64) -> f64 {
        match self {
            SampleFormat::S16 => d / i16::MAX as f64,
            SampleFormat::S32 => d / i32::MAX as f64,
            SampleFormat::S64 => d / i64::MAX as f64,
            SampleFormat::F32 | SampleFormat::F64 => d,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A sample as a decoder gives it: `i16`, `i32`, `i64`, `f32` or `f64`.
pub trait Sample: Copy + sealed::Sealed {
    /// The format FFmpeg reads frames of this type as.
    const FORMAT: SampleFormat;
    /// The sample as a double, unnormalised (integers keep their integer value).
    fn value(self) -> f64;
    /// The integer FFmpeg ORs into the bit-depth masks: the sample itself for integer formats,
    /// `llrint(x * 2^31)` for `f32` (product in single precision) and `llrint(x * 2^63)` for `f64`
    /// (out of range, NaN and infinities give `i64::MIN`, as x86's conversion does).
    fn mask_bits(self) -> i64;
    /// The float's class, for the NaN/Inf/denormal counts (integers: normal).
    fn category(self) -> FpCategory;
}

impl Sample for i16 {
    const FORMAT: SampleFormat = SampleFormat::S16;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self as i64
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for i32 {
    const FORMAT: SampleFormat = SampleFormat::S32;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self as i64
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for i64 {
    const FORMAT: SampleFormat = SampleFormat::S64;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        self
    }
    fn category(self) -> FpCategory {
        FpCategory::Normal
    }
}

impl Sample for f32 {
    const FORMAT: SampleFormat = SampleFormat::F32;
    fn value(self) -> f64 {
        self as f64
    }
    fn mask_bits(self) -> i64 {
        llrint((self * (1u64 << 31) as f32) as f64)
    }
    fn category(self) -> FpCategory {
        self.classify()
    }
}

impl Sample for f64 {
    const FORMAT: SampleFormat = SampleFormat::F64;
    fn value(self) -> f64 {
        self
    }
    fn mask_bits(self) -> i64 {
        llrint(self * (1u64 << 63) as f64)
    }
    fn category(self) -> FpCategory {
        self.classify()
    }
}

/// C's `llrint` on x86-64: round half to even; out of range or NaN gives `i64::MIN`.
fn llrint(x: f64) -> i64 {
    let r = x.round_ties_even();
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        r as i64
    } else {
        i64::MIN
    }
}

/// FFmpeg's `FFMAX`: `a > b ? a : b` (NaN handling included).
fn ffmax(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// FFmpeg's `FFMIN`: `a > b ? b : a`.
fn ffmin(a: f64, b: f64) -> f64 {
    if a > b {
        b
    } else {
        a
    }
}

/// FFmpeg's `FFABS`: `a >= 0 ? a : -a` (keeps -0; flips a NaN's sign).
fn ffabs(a: f64) -> f64 {
    if a >= 0.0 {
        a
    } else {
        -a
    }
}

/// FFmpeg's `FFSIGN`: `a > 0 ? 1 : -1`.
fn ffsign(a: f64) -> i32 {
    if a > 0.0 {
        1
    } else {
        -1
    }
}

/// The NaN an x86 operation on `a` and `b` gives: the first NaN operand, else the default NaN.
fn nan_of(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else if b.is_nan() {
        b
    } else {
        f64::from_bits(DEFAULT_NAN)
    }
}

/// `a / b` as x86 computes it, NaN's sign included.
fn div(a: f64, b: f64) -> f64 {
    let r = a / b;
    if r.is_nan() {
        nan_of(a, b)
    } else {
        r
    }
}

/// `sqrt(a)` as x86 computes it, NaN's sign included.
fn sqrt(a: f64) -> f64 {
    if a.is_nan() {
        a
    } else if a < 0.0 {
        f64::from_bits(DEFAULT_NAN)
    } else {
        a.sqrt()
    }
}

/// FFmpeg's `LINEAR_TO_DB(x)`: `log10(x) * 20`, with glibc's NaNs (a NaN passes through; a
/// negative number gives the default NaN).
fn linear_to_db(x: f64) -> f64 {
    let l = if x.is_nan() {
        x
    } else if x < 0.0 {
        f64::from_bits(DEFAULT_NAN)
    } else {
        x.log10()
    };
    l * 20.0
}

/// `av_clipd(x, 0, 1)` as FFmpeg's SSE2 version computes it (`maxsd`, then `minsd`: NaN gives 0).
fn clip_unit(x: f64) -> f64 {
    let x = if x > 0.0 { x } else { 0.0 };
    if x < 1.0 {
        x
    } else {
        1.0
    }
}

/// The histogram bin of a normalised sample: `lrint(av_clipd(FFABS(nd), 0, 1) * 8191)`.
fn bin(nd: f64) -> usize {
    llrint(clip_unit(ffabs(nd)) * HISTOGRAM_MAX as f64).clamp(0, HISTOGRAM_MAX as i64) as usize
}

/// FFmpeg's `snprintf(value, 128, "%f", x)` with glibc: six decimals, exactly rounded; `inf`,
/// `-inf`, `nan`, `-nan`; cut to 127 characters (`DBL_MAX`, which a one-sample frame's
/// `Min_difference` prints, has 316).
fn format_f(x: f64) -> String {
    let mut text = if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{x:.6}")
    };
    text.truncate(VALUE_MAX);
    text
}

/// Bit depth as FFmpeg 5.1 counts it from the OR (`mask`) and AND (`imask`) of the samples'
/// integers: `(Bit_depth, Bit_depth2)`. `Bit_depth2` is the format's width less the low bits
/// that are the same in every sample; `Bit_depth` counts the bits within it ever set in a sample
/// where they are not set in all.
fn bit_depth(bits: u32, mask: u64, imask: u64) -> (u32, u32) {
    let mut mask = mask & !imask;
    let mut result = bits;
    while result > 0 && mask & 1 == 0 {
        result -= 1;
        mask >>= 1;
    }
    let den = result;
    let mut num = 0;
    while result > 0 {
        num += (mask & 1) as u32;
        result -= 1;
        mask >>= 1;
    }
    (num, den)
}

/// One channel's running statistics (FFmpeg's `ChannelStats`), over the current frame.
struct Channel {
    last: f64,
    last_non_zero: f64,
    min_non_zero: f64,
    sigma_x: f64,
    sigma_x2: f64,
    avg_sigma_x2: f64,
    min_sigma_x2: f64,
    max_sigma_x2: f64,
    min: f64,
    max: f64,
    nmin: f64,
    nmax: f64,
    min_run: f64,
    max_run: f64,
    min_runs: f64,
    max_runs: f64,
    min_diff: f64,
    max_diff: f64,
    diff1_sum: f64,
    diff1_sum_x2: f64,
    mask: u64,
    imask: u64,
    min_count: u64,
    max_count: u64,
    noise_floor_count: u64,
    zero_runs: u64,
    nb_samples: u64,
    nb_nans: u64,
    nb_infs: u64,
    nb_denormals: u64,
    /// The last `tc_samples` normalised samples, a ring.
    win_samples: Vec<f64>,
    /// Bins of the window's samples (noise floor).
    histogram: Vec<u64>,
    /// Bins of all the frame's samples (entropy).
    ehistogram: Vec<u64>,
    /// The bins holding samples of this frame, so that a reset and the entropy visit only those.
    touched: Vec<usize>,
    win_pos: usize,
    max_index: usize,
    noise_floor: f64,
}

impl Channel {
    fn new(tc_samples: usize) -> Self {
        let mut channel = Self {
            last: f64::NAN,
            last_non_zero: 0.0,
            min_non_zero: f64::MAX,
            sigma_x: 0.0,
            sigma_x2: 0.0,
            avg_sigma_x2: 0.0,
            min_sigma_x2: f64::MAX,
            max_sigma_x2: -f64::MAX,
            min: f64::MAX,
            max: -f64::MAX,
            nmin: f64::MAX,
            nmax: -f64::MAX,
            min_run: 0.0,
            max_run: 0.0,
            min_runs: 0.0,
            max_runs: 0.0,
            min_diff: f64::MAX,
            max_diff: 0.0,
            diff1_sum: 0.0,
            diff1_sum_x2: 0.0,
            mask: 0,
            imask: u64::MAX,
            min_count: 0,
            max_count: 0,
            noise_floor_count: 0,
            zero_runs: 0,
            nb_samples: 0,
            nb_nans: 0,
            nb_infs: 0,
            nb_denormals: 0,
            win_samples: vec![0.0; tc_samples],
            histogram: vec![0; HISTOGRAM_SIZE],
            ehistogram: vec![0; HISTOGRAM_SIZE],
            touched: Vec::new(),
            win_pos: 0,
            max_index: 0,
            noise_floor: f64::NAN,
        };
        channel.reset();
        channel
    }

    /// FFmpeg's `reset_stats`: everything but the last non-zero sample and the histogram's top
    /// bin (which it leaves alone).
    fn reset(&mut self) {
        self.min = f64::MAX;
        self.nmin = f64::MAX;
        self.min_sigma_x2 = f64::MAX;
        self.max = -f64::MAX;
        self.nmax = -f64::MAX;
        self.max_sigma_x2 = -f64::MAX;
        self.min_non_zero = f64::MAX;
        self.min_diff = f64::MAX;
        self.max_diff = 0.0;
        self.sigma_x = 0.0;
        self.sigma_x2 = 0.0;
        self.avg_sigma_x2 = 0.0;
        self.min_run = 0.0;
        self.max_run = 0.0;
        self.min_runs = 0.0;
        self.max_runs = 0.0;
        self.diff1_sum = 0.0;
        self.diff1_sum_x2 = 0.0;
        self.mask = 0;
        self.imask = u64::MAX;
        self.min_count = 0;
        self.max_count = 0;
        self.zero_runs = 0;
        self.nb_samples = 0;
        self.nb_nans = 0;
        self.nb_infs = 0;
        self.nb_denormals = 0;
        self.last = f64::NAN;
        self.noise_floor = f64::NAN;
        self.noise_floor_count = 0;
        self.win_pos = 0;
        self.win_samples.fill(0.0);
        // Only bins that had samples are non-zero (the window's are among them).
        for &b in &self.touched {
            self.histogram[b] = 0;
            self.ehistogram[b] = 0;
        }
        self.touched.clear();
    }

    /// FFmpeg's `update_stat` (and `update_float_stat`/`update_double_stat`) for one sample.
    fn add<S: Sample>(&mut self, sample: S, mult: f64) {
        let format = S::FORMAT;
        let d = sample.value();
        let nd = format.normalise(d);
        let i = sample.mask_bits() as u64;
        let tc_samples = self.win_samples.len();

        if d < self.min {
            self.min = d;
            self.nmin = nd;
            self.min_run = 1.0;
            self.min_runs = 0.0;
            self.min_count = 1;
        } else if d == self.min {
            self.min_count += 1;
            self.min_run = if d == self.last { self.min_run + 1.0 } else { 1.0 };
        } else if self.last == self.min {
            self.min_runs += self.min_run * self.min_run;
        }

        if d != 0.0 && ffabs(d) < self.min_non_zero {
            self.min_non_zero = ffabs(d);
        }

        if d > self.max {
            self.max = d;
            self.nmax = nd;
            self.max_run = 1.0;
            self.max_runs = 0.0;
            self.max_count = 1;
        } else if d == self.max {
            self.max_count += 1;
            self.max_run = if d == self.last { self.max_run + 1.0 } else { 1.0 };
        } else if self.last == self.max {
            self.max_runs += self.max_run * self.max_run;
        }

        if d != 0.0 {
            self.zero_runs += u64::from(ffsign(d) != ffsign(self.last_non_zero));
            self.last_non_zero = d;
        }

        self.sigma_x += nd;
        self.sigma_x2 += nd * nd;
        self.avg_sigma_x2 = self.avg_sigma_x2 * mult + (1.0 - mult) * nd * nd;
        if !self.last.is_nan() {
            let diff = d - self.last;
            self.min_diff = ffmin(self.min_diff, diff.abs());
            self.max_diff = ffmax(self.max_diff, diff.abs());
            self.diff1_sum += diff.abs();
            self.diff1_sum_x2 += diff * diff;
        }
        self.last = d;
        self.mask |= i;
        self.imask &= i;

        let drop = self.win_samples[self.win_pos];
        self.win_samples[self.win_pos] = nd;
        let index = bin(nd);
        self.max_index = self.max_index.max(index);
        self.histogram[index] += 1;
        if self.ehistogram[index] == 0 {
            self.touched.push(index);
        }
        self.ehistogram[index] += 1;
        if !self.noise_floor.is_nan() {
            let dropped = &mut self.histogram[bin(drop)];
            *dropped = dropped.saturating_sub(1);
        }
        self.win_pos += 1;

        while self.max_index > 0 && self.histogram[self.max_index] == 0 {
            self.max_index -= 1;
        }
        if self.win_pos >= tc_samples || !self.noise_floor.is_nan() {
            let mut noise_floor = 1.0;
            if let Some(top) = (0..=self.max_index).rev().find(|&b| self.histogram[b] != 0) {
                noise_floor = top as f64 / HISTOGRAM_MAX as f64;
            }
            if self.noise_floor.is_nan() || noise_floor < self.noise_floor {
                self.noise_floor = noise_floor;
                self.noise_floor_count = 1;
            } else if noise_floor == self.noise_floor {
                self.noise_floor_count += 1;
            }
        }

        if self.win_pos >= tc_samples {
            self.win_pos = 0;
        }

        if self.nb_samples >= tc_samples as u64 {
            self.max_sigma_x2 = ffmax(self.max_sigma_x2, self.avg_sigma_x2);
            self.min_sigma_x2 = ffmin(self.min_sigma_x2, self.avg_sigma_x2);
        }
        self.nb_samples += 1;

        if format.is_float() {
            match sample.category() {
                FpCategory::Nan => self.nb_nans += 1,
                FpCategory::Infinite => self.nb_infs += 1,
                FpCategory::Subnormal => self.nb_denormals += 1,
                _ => {}
            }
        }
    }

    /// FFmpeg's `calc_entropy`: the Shannon entropy of the frame's |sample| histogram over
    /// 8192 bins, divided by log2(8192) (0 to 1).
    fn entropy(&mut self) -> f64 {
        // FFmpeg sums over every bin in order; empty ones add nothing.
        self.touched.sort_unstable();
        let mut entropy = 0.0;
        for &b in &self.touched {
            let entry = div(self.ehistogram[b] as f64, self.nb_samples as f64);
            if entry > 1e-8 {
                entropy += entry * entry.log2();
            }
        }
        -entropy / (HISTOGRAM_SIZE as f64).log2()
    }
}

/// FFmpeg 5.1's `astats` with `metadata=1:reset=1` and its defaults otherwise (`length` 0.05 s,
/// every measurement): the statistics of each frame on its own, as `lavfi.astats.*` tags.
///
/// Per channel `N` (from 1), in this order, all printed with `%f`:
///
/// - `lavfi.astats.N.DC_offset`: the mean of the normalised samples.
/// - `Min_level`, `Max_level`: the lowest and highest sample, unnormalised (integer formats give
///   integer values, e.g. `-32768.000000`).
/// - `Min_difference`, `Max_difference`, `Mean_difference`, `RMS_difference`: the smallest,
///   largest, mean and RMS absolute difference between successive samples of the frame,
///   unnormalised (the mean and RMS over `n − 1` differences).
/// - `Peak_level`: 20·log10 of the largest normalised |sample| (dBFS).
/// - `RMS_level`: 20·log10 of the normalised RMS (dBFS).
/// - `RMS_peak`, `RMS_trough`: 20·log10 of the highest and lowest RMS of an exponential average
///   with a 50 ms time constant, taken once the frame has run past 50 ms; in shorter frames both
///   are `RMS_level`.
/// - `Crest_factor`: the largest unnormalised |sample| over the normalised RMS (1 for silence).
/// - `Flat_factor`: 20·log10 of the summed squared lengths of the runs at the min or max level
///   that ended within the frame, over how many samples are at those levels (`-inf` when none
///   ended).
/// - `Peak_count`: how many samples are at the min level plus how many at the max level (each
///   sample twice where they are equal, as in silence).
/// - `Noise_floor`: 20·log10 of the lowest, over 50 ms windows sliding sample by sample, of the
///   window's largest |sample| (in 1/8191 steps); `nan` in frames shorter than 50 ms.
/// - `Noise_floor_count`: how many windows reached that lowest value.
/// - `Entropy`: the entropy of the |sample| histogram (8192 bins), 0 to 1 (a single-valued
///   frame, such as silence, prints `-0.000000`).
/// - `Bit_depth`, `Bit_depth2`: see [FFmpeg's count](#bit-depth) below.
/// - `Dynamic_range`: 20·log10 of twice the largest |sample| over the smallest non-zero one.
/// - `Zero_crossings`: sign changes between non-zero samples (against the previous frame's last
///   one at the frame's start); `Zero_crossings_rate`: that over the frame's length.
/// - For float samples only: `Number of NaNs`, `Number of Infs`, `Number of denormals` (with
///   spaces, as FFmpeg 5.1 names them).
///
/// Then over all channels: `lavfi.astats.Overall.` `DC_offset` (the channel mean furthest from
/// 0), `Min_level`, `Max_level`, `Min_difference`, `Max_difference`, `Mean_difference`,
/// `RMS_difference`, `Peak_level`, `RMS_level`, `RMS_peak`, `RMS_trough`, `Flat_factor`,
/// `Peak_count` (mean per channel), `Noise_floor` (FFmpeg's running `FFMAX` over the channels),
/// `Noise_floor_count` (mean), `Entropy` (mean), `Bit_depth`, `Bit_depth2`,
/// `Number_of_samples` (per channel); and for floats `lavfi.astats.Number of NaNs`,
/// `lavfi.astats.Number of Infs`, `lavfi.astats.Number of denormals` (means per channel; no
/// `Overall.` in these keys).
///
/// # Bit depth
///
/// Each sample gives an integer (the sample for integer formats, the sample × 2^31 for f32,
/// × 2^63 for f64; out of range gives `i64::MIN`); over the frame, the low bits that are the
/// same in every sample are dropped: `Bit_depth2` is the format's width (16, 32, 64) less those,
/// and `Bit_depth` counts the bits within that width set in some sample but not in all.
pub struct Astats {
    channels: Vec<Channel>,
    tc_samples: usize,
    mult: f64,
}

impl Astats {
    /// A filter for a stream of `channels` channels at `sample_rate` Hz (the 50 ms windows are
    /// counted in samples).
    pub fn new(channels: usize, sample_rate: u32) -> Self {
        let rate = sample_rate as f64;
        let tc_samples = ffmax(TIME_CONSTANT * rate + 0.5, 1.0) as usize;
        let mult = (-1.0 / TIME_CONSTANT / rate).exp();
        Self {
            channels: (0..channels).map(|_| Channel::new(tc_samples)).collect(),
            tc_samples,
            mult,
        }
    }

    /// The number of channels the filter measures.
    pub fn channels(&self) -> usize {
        self.channels.len()
    }

    /// One decoded frame, one slice per channel (planar), all the same length; returns the
    /// frame's tags as ffprobe prints them, `(key, value)` in order, keys in full
    /// (`lavfi.astats.1.DC_offset`). The slices' type is the decoder's sample format. Zero
    /// channels give no tags; a different number of slices than [`Astats::channels`] starts
    /// afresh with that many (as FFmpeg reconfigures on a layout change).
    pub fn frame<S: Sample>(&mut self, planes: &[&[S]]) -> Vec<(String, String)> {
        self.fit(planes.len());
        let mult = self.mult;
        for (channel, plane) in self.channels.iter_mut().zip(planes) {
            channel.reset();
            for &sample in plane.iter() {
                channel.add(sample, mult);
            }
        }
        self.tags(S::FORMAT)
    }

    /// As [`Astats::frame`] for packed samples: [`Astats::channels`] interleaved (a trailing
    /// incomplete set is left out).
    pub fn frame_interleaved<S: Sample>(&mut self, samples: &[S]) -> Vec<(String, String)> {
        let count = self.channels.len();
        if count == 0 {
            return Vec::new();
        }
        let mult = self.mult;
        let whole = samples.len() / count * count;
        for (c, channel) in self.channels.iter_mut().enumerate() {
            channel.reset();
            for &sample in samples[..whole].iter().skip(c).step_by(count) {
                channel.add(sample, mult);
            }
        }
        self.tags(S::FORMAT)
    }

    fn fit(&mut self, count: usize) {
        if count != self.channels.len() {
            self.channels = (0..count).map(|_| Channel::new(self.tc_samples)).collect();
        }
    }

    /// FFmpeg's `set_metadata`.
    fn tags(&mut self, format: SampleFormat) -> Vec<(String, String)> {
        let nb_channels = self.channels.len();
        if nb_channels == 0 {
            return Vec::new();
        }
        let bits = format.bits();
        let float = format.is_float();
        let tc_samples = self.tc_samples as u64;
        let mut tags = Vec::with_capacity(nb_channels * 25 + 22);
        let mut put = |channel: usize, key: &str, value: f64| {
            let key = if channel > 0 {
                format!("lavfi.astats.{channel}.{key}")
            } else {
                format!("lavfi.astats.{key}")
            };
            tags.push((key, format_f(value)));
        };

        let (mut mask, mut imask) = (0u64, u64::MAX);
        let (mut min_count, mut max_count, mut nb_samples, mut noise_floor_count) = (0u64, 0u64, 0u64, 0u64);
        let (mut nb_nans, mut nb_infs, mut nb_denormals) = (0u64, 0u64, 0u64);
        let (mut min_runs, mut max_runs) = (0.0, 0.0);
        let (mut min, mut max, mut min_diff, mut max_diff) = (f64::MAX, -f64::MAX, f64::MAX, 0.0);
        let (mut nmin, mut nmax) = (f64::MAX, -f64::MAX);
        let (mut max_sigma_x, mut diff1_sum, mut diff1_sum_x2, mut sigma_x2) = (0.0f64, 0.0, 0.0, 0.0);
        let (mut noise_floor, mut entropy) = (0.0, 0.0);
        let (mut min_sigma_x2, mut max_sigma_x2) = (f64::MAX, -f64::MAX);

        for (c, p) in self.channels.iter_mut().enumerate() {
            let n = p.nb_samples as f64;
            if p.nb_samples < tc_samples {
                p.min_sigma_x2 = div(p.sigma_x2, n);
                p.max_sigma_x2 = p.min_sigma_x2;
            }

            min = ffmin(min, p.min);
            max = ffmax(max, p.max);
            nmin = ffmin(nmin, p.nmin);
            nmax = ffmax(nmax, p.nmax);
            min_diff = ffmin(min_diff, p.min_diff);
            max_diff = ffmax(max_diff, p.max_diff);
            diff1_sum += p.diff1_sum;
            diff1_sum_x2 += p.diff1_sum_x2;
            min_sigma_x2 = ffmin(min_sigma_x2, p.min_sigma_x2);
            max_sigma_x2 = ffmax(max_sigma_x2, p.max_sigma_x2);
            sigma_x2 += p.sigma_x2;
            noise_floor = ffmax(noise_floor, p.noise_floor);
            noise_floor_count += p.noise_floor_count;
            let p_entropy = p.entropy();
            entropy += p_entropy;
            min_count += p.min_count;
            max_count += p.max_count;
            min_runs += p.min_runs;
            max_runs += p.max_runs;
            mask |= p.mask;
            imask &= p.imask;
            nb_samples += p.nb_samples;
            nb_nans += p.nb_nans;
            nb_infs += p.nb_infs;
            nb_denormals += p.nb_denormals;
            if p.sigma_x.abs() > max_sigma_x.abs() {
                max_sigma_x = p.sigma_x;
            }

            // C's `p->nb_samples - 1` is unsigned: 0 samples divide by 2^64 − 1.
            let n1 = p.nb_samples.wrapping_sub(1) as f64;
            let ch = c + 1;
            put(ch, "DC_offset", div(p.sigma_x, n));
            put(ch, "Min_level", p.min);
            put(ch, "Max_level", p.max);
            put(ch, "Min_difference", p.min_diff);
            put(ch, "Max_difference", p.max_diff);
            put(ch, "Mean_difference", div(p.diff1_sum, n1));
            put(ch, "RMS_difference", sqrt(div(p.diff1_sum_x2, n1)));
            put(ch, "Peak_level", linear_to_db(ffmax(-p.nmin, p.nmax)));
            put(ch, "RMS_level", linear_to_db(sqrt(div(p.sigma_x2, n))));
            put(ch, "RMS_peak", linear_to_db(sqrt(p.max_sigma_x2)));
            put(ch, "RMS_trough", linear_to_db(sqrt(p.min_sigma_x2)));
            let crest = if p.sigma_x2 != 0.0 {
                div(ffmax(-p.min, p.max), sqrt(div(p.sigma_x2, n)))
            } else {
                1.0
            };
            put(ch, "Crest_factor", crest);
            let peaks = (p.min_count + p.max_count) as f64;
            put(ch, "Flat_factor", linear_to_db(div(p.min_runs + p.max_runs, peaks)));
            put(ch, "Peak_count", (p.min_count + p.max_count) as f32 as f64);
            put(ch, "Noise_floor", linear_to_db(p.noise_floor));
            put(ch, "Noise_floor_count", p.noise_floor_count as f64);
            put(ch, "Entropy", p_entropy);
            let (depth, depth2) = bit_depth(bits, p.mask, p.imask);
            put(ch, "Bit_depth", depth as f64);
            put(ch, "Bit_depth2", depth2 as f64);
            let range = div(2.0 * ffmax(ffabs(p.min), ffabs(p.max)), p.min_non_zero);
            put(ch, "Dynamic_range", linear_to_db(range));
            put(ch, "Zero_crossings", p.zero_runs as f64);
            put(ch, "Zero_crossings_rate", div(p.zero_runs as f64, n));
            if float {
                put(ch, "Number of NaNs", p.nb_nans as f64);
                put(ch, "Number of Infs", p.nb_infs as f64);
                put(ch, "Number of denormals", p.nb_denormals as f64);
            }
        }

        let count = nb_channels as f64;
        // C's `nb_samples / s->nb_channels` and `nb_samples - s->nb_channels` are unsigned.
        let per_channel = (nb_samples / nb_channels as u64) as f64;
        let n_diffs = nb_samples.wrapping_sub(nb_channels as u64) as f64;
        let n = nb_samples as f64;
        put(0, "Overall.DC_offset", div(max_sigma_x, per_channel));
        put(0, "Overall.Min_level", min);
        put(0, "Overall.Max_level", max);
        put(0, "Overall.Min_difference", min_diff);
        put(0, "Overall.Max_difference", max_diff);
        put(0, "Overall.Mean_difference", div(diff1_sum, n_diffs));
        put(0, "Overall.RMS_difference", sqrt(div(diff1_sum_x2, n_diffs)));
        put(0, "Overall.Peak_level", linear_to_db(ffmax(-nmin, nmax)));
        put(0, "Overall.RMS_level", linear_to_db(sqrt(div(sigma_x2, n))));
        put(0, "Overall.RMS_peak", linear_to_db(sqrt(max_sigma_x2)));
        put(0, "Overall.RMS_trough", linear_to_db(sqrt(min_sigma_x2)));
        let peaks = (min_count + max_count) as f64;
        put(0, "Overall.Flat_factor", linear_to_db(div(min_runs + max_runs, peaks)));
        put(0, "Overall.Peak_count", (min_count + max_count) as f32 as f64 / count);
        put(0, "Overall.Noise_floor", linear_to_db(noise_floor));
        put(0, "Overall.Noise_floor_count", noise_floor_count as f64 / count);
        put(0, "Overall.Entropy", entropy / count);
        let (depth, depth2) = bit_depth(bits, mask, imask);
        put(0, "Overall.Bit_depth", depth as f64);
        put(0, "Overall.Bit_depth2", depth2 as f64);
        put(0, "Overall.Number_of_samples", per_channel);
        if float {
            // C divides these by `(float)s->nb_channels`: in single precision.
            put(0, "Number of NaNs", (nb_nans as f32 / nb_channels as f32) as f64);
            put(0, "Number of Infs", (nb_infs as f32 / nb_channels as f32) as f64);
            put(
                0,
                "Number of denormals",
                (nb_denormals as f32 / nb_channels as f32) as f64,
            );
        }
        tags
    }
}

#[cfg(test)]
mod tests {
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
}
