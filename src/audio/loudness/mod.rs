//! EBU R128 loudness (ITU-R BS.1770-4, EBU Tech 3341 and 3342) measured as FFmpeg's `ebur128`
//! filter measures it, so that the figures equal its own to the precision it prints: the
//! K-weighting filter's two biquads from the same parametrisation at any sample rate; momentary
//! (400 ms) and short-term (3 s) loudness every 100 ms from running sums; the integrated
//! loudness and the loudness range gated over histograms of 0.01 LU bins (the blocks' loudness
//! taken at their bin's), the range from the short-term values of every 100 ms; channels
//! weighted by their place (LFE left out, surround ×1.41); true peak from the signal upsampled
//! to 192 kHz by swresample, as FFmpeg's filter upsamples it.
//!
//! (The `ebur128` crate, a port of libebur128, measures the range from one short-term value a
//! second and the true peak through its own interpolator: on a minute of varying pink noise it
//! reads 9.45 LU and -13.89 dBTP where FFmpeg prints 9.8 and -13.8.)

use ffmpeg_next as ffmpeg;

/// Blocks at or below this loudness are silence: not counted (LUFS).
const ABS_THRESHOLD: f64 = -70.0;
/// The loudest a histogram holds (LUFS).
const ABS_UPPER: f64 = 10.0;
/// Histogram bins per LU.
const GRAIN: f64 = 100.0;
const HISTOGRAM_SIZE: usize = ((ABS_UPPER - ABS_THRESHOLD) * GRAIN) as usize + 1;
/// The relative gates: integrated loudness, loudness range (LU below the mean).
const INTEGRATED_GATE: f64 = -10.0;
const RANGE_GATE: f64 = -20.0;
/// The loudness range's percentiles.
const RANGE_LOW: f64 = 10.0;
const RANGE_HIGH: f64 = 95.0;
/// True peak is looked for at this rate.
const TRUE_PEAK_RATE: u32 = 192_000;

fn loudness(energy: f64) -> f64 {
    -0.691 + 10.0 * energy.log10()
}

fn energy(loudness: f64) -> f64 {
    10f64.powf((loudness + 0.691) / 10.0)
}

/// dBFS of a linear peak (-inf for silence).
pub fn dbfs(peak: f64) -> f64 {
    20.0 * peak.log10()
}

/// Where a channel counts: FFmpeg's (and BS.1770's) weights by the channel's place.
pub fn channel_weight(channel: ffmpeg::ChannelLayout) -> f64 {
    use ffmpeg::ChannelLayout as C;
    if channel.intersects(C::LOW_FREQUENCY | C::LOW_FREQUENCY_2) {
        return 0.0;
    }
    let back = C::BACK_LEFT
        | C::BACK_CENTER
        | C::BACK_RIGHT
        | C::TOP_BACK_LEFT
        | C::TOP_BACK_CENTER
        | C::TOP_BACK_RIGHT
        | C::SIDE_LEFT
        | C::SIDE_RIGHT
        | C::SURROUND_DIRECT_LEFT
        | C::SURROUND_DIRECT_RIGHT;
    if channel.intersects(back) {
        1.41
    } else {
        1.0
    }
}

/// The weights of a layout's channels, in order (an unknown layout: its channel count's usual
/// one).
pub fn layout_weights(layout: ffmpeg::ChannelLayout, channels: usize) -> Vec<f64> {
    let layout = match layout.is_empty() {
        true => ffmpeg::ChannelLayout::default(channels as i32),
        false => layout,
    };
    let mut bits = (0..64).map(|b| 1u64 << b).filter(|b| layout.bits() & b != 0);
    (0..channels)
        .map(|_| {
            bits.next()
                .map_or(1.0, |b| channel_weight(ffmpeg::ChannelLayout::from_bits_truncate(b)))
        })
        .collect()
}

/// The loudness weights of `source`'s channels: by their places in its layout, or all the same
/// where they have none (as FFmpeg weighs them).
pub fn source_weights(source: &crate::audio::source::AudioSource) -> Vec<f64> {
    let channels = usize::from(source.channels());
    match source.channels_placed() {
        true => layout_weights(source.layout(), channels),
        false => vec![1.0; channels],
    }
}

/// Measures the sound of `path` (its best audio stream, at its own rate and channels), handing
/// each 100 ms step to `step` with the media time of its last sample (the integrated loudness
/// and range so far in it with `summaries`), until its end or `stop`; the whole measurement, or
/// why there is nothing to measure (or what `step` said went wrong).
pub fn measure_file(
    path: &std::path::Path,
    true_peak: bool,
    summaries: bool,
    stop: &std::sync::atomic::AtomicBool,
    mut step: impl FnMut(f64, &Block) -> Result<(), String>,
) -> Result<Summary, String> {
    let mut source = crate::audio::source::AudioSource::open_as_is(path).map_err(|e| e.to_string())?;
    let layout = source.layout();
    let weights = source_weights(&source);
    let in_file = |e: String| format!("'{}': {e}", path.display());
    let mut meter = LoudnessMeter::new(source.rate(), weights, layout, true_peak).map_err(in_file)?;
    meter.keep_blocks(summaries);
    let (mut samples, mut first) = (Vec::new(), None);
    while let Some(chunk) = source.next_chunk() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let first = *first.get_or_insert(chunk.start);
        samples.clear();
        samples.extend(chunk.samples.iter().map(|&x| f64::from(x)));
        meter.add(&samples).map_err(in_file)?;
        for block in &meter.take_blocks() {
            step(first + block.time, block)?;
        }
    }
    Ok(meter.summary())
}

/// A biquad's coefficients (a0 = 1).
#[derive(Clone, Copy, Debug)]
struct Biquad {
    b: [f64; 3],
    a: [f64; 3],
}

/// BS.1770's pre-filter and RLB high-pass at `rate`, from the parametrisation libebur128 and
/// FFmpeg use (at 48 kHz, the standard's coefficients).
fn k_weighting(rate: u32) -> (Biquad, Biquad) {
    let rate = f64::from(rate);
    let (f0, gain, q) = (1681.974450955533, 3.999843853973347, 0.7071752369554196);
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let vh = 10f64.powf(gain / 20.0);
    let vb = vh.powf(0.4996667741545416);
    let a0 = 1.0 + k / q + k * k;
    let pre = Biquad {
        b: [
            (vh + vb * k / q + k * k) / a0,
            2.0 * (k * k - vh) / a0,
            (vh - vb * k / q + k * k) / a0,
        ],
        a: [1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    let (f0, q) = (38.13547087602444, 0.5003270373238773);
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let a0 = 1.0 + k / q + k * k;
    let rlb = Biquad {
        b: [1.0, -2.0, 1.0],
        a: [1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0],
    };
    (pre, rlb)
}

/// A window of the last `size` filtered samples' squares per channel, summed as they come.
struct Window {
    cache: Vec<Vec<f64>>,
    sums: Vec<f64>,
    position: usize,
    filled: bool,
}

impl Window {
    fn new(channels: usize, size: usize) -> Self {
        Self {
            cache: vec![vec![0.0; size.max(1)]; channels],
            sums: vec![0.0; channels],
            position: 0,
            filled: false,
        }
    }

    /// The mean weighted power over the window, once it is full (before: 1e-12, silence),
    /// summed in FFmpeg's order.
    fn power(&self, weights: &[f64]) -> f64 {
        let mut power = 1e-12;
        if self.filled {
            for (w, s) in weights.iter().zip(&self.sums) {
                power += w * s;
            }
            power /= self.cache[0].len() as f64;
        }
        power
    }
}

/// Blocks' loudness counted in bins of 0.01 LU from -70 to +10 LUFS, with the running mean of
/// their power for the relative gate.
struct Gate {
    counts: Vec<u64>,
    kept_power: f64,
    kept: u64,
    offset: f64,
}

impl Gate {
    fn new(offset: f64) -> Self {
        Self {
            counts: vec![0; HISTOGRAM_SIZE],
            kept_power: 0.0,
            kept: 0,
            offset,
        }
    }

    fn bin(loudness: f64) -> usize {
        (((loudness - ABS_THRESHOLD) * GRAIN) as i64).clamp(0, HISTOGRAM_SIZE as i64 - 1) as usize
    }

    fn bin_loudness(bin: usize) -> f64 {
        bin as f64 / GRAIN + ABS_THRESHOLD
    }

    /// Counts a block (above the absolute gate).
    fn add(&mut self, power: f64, loudness: f64) {
        self.counts[Self::bin(loudness)] += 1;
        self.kept_power += power;
        self.kept += 1;
    }

    /// The relative threshold, LUFS (0 before any block, as FFmpeg prints it).
    fn threshold(&self) -> f64 {
        match self.kept {
            0 => 0.0,
            n => loudness((self.kept_power / n as f64).max(1e-12)) + self.offset,
        }
    }

    /// The first bin at or above the relative threshold.
    fn first_bin(&self) -> usize {
        Self::bin(self.threshold())
    }

    /// The mean energy of the blocks above the relative gate, as loudness.
    fn integrated(&self) -> Option<f64> {
        let (mut n, mut sum) = (0u64, 0.0);
        for (bin, &count) in self.counts.iter().enumerate().skip(self.first_bin()) {
            n += count;
            sum += count as f64 * energy(Self::bin_loudness(bin));
        }
        (self.kept > 0 && n > 0).then(|| loudness(sum / n as f64))
    }

    /// The 10th and 95th percentiles of the blocks above the relative gate.
    fn range(&self) -> Option<(f64, f64)> {
        let first = self.first_bin();
        let total: u64 = self.counts[first..].iter().sum();
        if self.kept == 0 || total == 0 {
            return None;
        }
        let wanted = (RANGE_LOW * total as f64 * 0.01 + 0.5) as u64;
        let mut n = 0;
        let low = (first..HISTOGRAM_SIZE).find(|&bin| {
            n += self.counts[bin];
            n >= wanted
        })?;
        let wanted = (RANGE_HIGH * total as f64 * 0.01 + 0.5) as u64;
        let mut n = total;
        let high = (0..HISTOGRAM_SIZE).rev().find(|&bin| {
            n -= n.min(self.counts[bin]);
            n < wanted
        })?;
        Some((Self::bin_loudness(low), Self::bin_loudness(high)))
    }
}

/// One 100 ms step's readings, as FFmpeg's filter logs them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    /// The time of the step's last sample, seconds from the first.
    pub time: f64,
    /// Momentary and short-term loudness, LUFS (-120.7 before their window is full).
    pub momentary: f64,
    pub short_term: f64,
    /// Integrated loudness and loudness range so far, with the range's low and high ends.
    pub integrated: f64,
    pub range: f64,
    pub range_low: f64,
    pub range_high: f64,
    /// The highest sample of the step, over every channel (linear, 1 = full scale).
    pub peak: f64,
}

/// The whole measurement, as FFmpeg's filter sums it up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// LUFS (-70 with nothing above the absolute gate).
    pub integrated: f64,
    pub integrated_threshold: f64,
    pub range: f64,
    pub range_threshold: f64,
    pub range_low: f64,
    pub range_high: f64,
    /// The highest sample and true peak over every channel, dBFS (-inf: silence).
    pub sample_peak: f64,
    pub true_peak: f64,
    /// Seconds of sound measured.
    pub seconds: f64,
}

/// The R128 meter of one stream of interleaved samples.
pub struct LoudnessMeter {
    rate: u32,
    weights: Vec<f64>,
    filters: (Biquad, Biquad),
    /// Per channel: the last inputs, pre-filter outputs and RLB outputs, newest first.
    state: Vec<[[f64; 3]; 3]>,
    momentary: Window,
    short_term: Window,
    /// Samples since the last 100 ms step, and their highest.
    step_count: u32,
    step_peak: f64,
    samples: u64,
    integrated: Gate,
    range: Gate,
    sample_peaks: Vec<f64>,
    true_peak: Option<TruePeak>,
    /// Each step's readings, when asked for (`keep_blocks`), with the integrated loudness and
    /// range so far or not.
    blocks: Option<Vec<Block>>,
    block_summaries: bool,
}

impl LoudnessMeter {
    /// A meter of `weights.len()` channels at `rate` Hz, looking for true peaks or not.
    pub fn new(rate: u32, weights: Vec<f64>, layout: ffmpeg::ChannelLayout, true_peak: bool) -> Result<Self, String> {
        if rate < 10 || weights.is_empty() {
            return Err(format!("cannot measure {} channels at {rate} Hz", weights.len()));
        }
        let channels = weights.len();
        let true_peak = match true_peak {
            true => Some(TruePeak::new(rate, channels, layout)?),
            false => None,
        };
        Ok(Self {
            rate,
            filters: k_weighting(rate),
            state: vec![[[0.0; 3]; 3]; channels],
            momentary: Window::new(channels, rate as usize * 4 / 10),
            short_term: Window::new(channels, rate as usize * 3),
            step_count: 0,
            step_peak: 0.0,
            samples: 0,
            integrated: Gate::new(INTEGRATED_GATE),
            range: Gate::new(RANGE_GATE),
            sample_peaks: vec![0.0; channels],
            true_peak,
            blocks: None,
            block_summaries: false,
            weights,
        })
    }

    /// Keeps each 100 ms step's readings (`blocks`), with the integrated loudness and range so
    /// far (`summaries`: the gates' histograms are gone through at every step) or with 0 there.
    pub fn keep_blocks(&mut self, summaries: bool) {
        self.blocks.get_or_insert_with(Vec::new);
        self.block_summaries = summaries;
    }

    /// The steps kept since the last call (`keep_blocks`).
    pub fn take_blocks(&mut self) -> Vec<Block> {
        self.blocks.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Starts the momentary and short-term windows and the K-weighting filters over, keeping
    /// what the integrated loudness and range have counted (a meter following playback across
    /// a seek).
    pub fn restart_windows(&mut self) {
        let channels = self.weights.len();
        self.state = vec![[[0.0; 3]; 3]; channels];
        self.momentary = Window::new(channels, self.rate as usize * 4 / 10);
        self.short_term = Window::new(channels, self.rate as usize * 3);
        (self.step_count, self.step_peak) = (0, 0.0);
    }

    /// Starts the integrated loudness, the loudness range and the peaks over.
    pub fn restart_totals(&mut self) {
        self.integrated = Gate::new(INTEGRATED_GATE);
        self.range = Gate::new(RANGE_GATE);
        self.sample_peaks.iter_mut().for_each(|p| *p = 0.0);
    }

    /// Whether any block has been counted for the integrated loudness, and for the range.
    pub fn counted(&self) -> (bool, bool) {
        (self.integrated.kept > 0, self.range.kept > 0)
    }

    /// Whether the momentary and the short-term windows are full (their readings real).
    pub fn windows_full(&self) -> (bool, bool) {
        (self.momentary.filled, self.short_term.filled)
    }

    /// Measures interleaved samples (whole frames of every channel).
    pub fn add(&mut self, samples: &[f64]) -> Result<(), String> {
        let channels = self.weights.len();
        if let Some(true_peak) = &mut self.true_peak {
            true_peak.add(samples)?;
        }
        let (pre, rlb) = self.filters;
        for frame in samples.chunks_exact(channels) {
            let (m, s) = (self.momentary.position, self.short_term.position);
            for (window, at) in [(&mut self.momentary, m), (&mut self.short_term, s)] {
                window.position = at + 1;
                if window.position == window.cache[0].len() {
                    window.position = 0;
                    window.filled = true;
                }
            }
            for (ch, &x) in frame.iter().enumerate() {
                self.sample_peaks[ch] = self.sample_peaks[ch].max(x.abs());
                self.step_peak = self.step_peak.max(x.abs());
                if self.weights[ch] == 0.0 {
                    continue;
                }
                let [xs, ys, zs] = &mut self.state[ch];
                xs[0] = x;
                ys[2] = ys[1];
                ys[1] = ys[0];
                ys[0] = xs[0] * pre.b[0] + xs[1] * pre.b[1] + xs[2] * pre.b[2] - ys[1] * pre.a[1] - ys[2] * pre.a[2];
                xs[2] = xs[1];
                xs[1] = xs[0];
                zs[2] = zs[1];
                zs[1] = zs[0];
                zs[0] = ys[0] * rlb.b[0] + ys[1] * rlb.b[1] + ys[2] * rlb.b[2] - zs[1] * rlb.a[1] - zs[2] * rlb.a[2];
                let square = zs[0] * zs[0];
                for (window, at) in [(&mut self.momentary, m), (&mut self.short_term, s)] {
                    // (In FFmpeg's order: the same running sum, rounding for rounding.)
                    window.sums[ch] = window.sums[ch] + square - window.cache[ch][at];
                    window.cache[ch][at] = square;
                }
            }
            self.samples += 1;
            self.step_count += 1;
            if self.step_count == self.rate / 10 {
                self.step_count = 0;
                self.step();
            }
        }
        Ok(())
    }

    /// A 100 ms step: the blocks ending here counted.
    fn step(&mut self) {
        let (power_m, power_s) = (
            self.momentary.power(&self.weights),
            self.short_term.power(&self.weights),
        );
        let (momentary, short_term) = (loudness(power_m), loudness(power_s));
        if momentary >= ABS_THRESHOLD {
            self.integrated.add(power_m, momentary);
        }
        if short_term >= ABS_THRESHOLD {
            self.range.add(power_s, short_term);
        }
        let peak = std::mem::take(&mut self.step_peak);
        if self.blocks.is_some() {
            let (integrated, (range_low, range_high)) = match self.block_summaries {
                true => (
                    self.integrated.integrated().unwrap_or(ABS_THRESHOLD),
                    self.range.range().unwrap_or((0.0, 0.0)),
                ),
                false => (0.0, (0.0, 0.0)),
            };
            let time = (self.samples - 1) as f64 / f64::from(self.rate);
            if let Some(blocks) = &mut self.blocks {
                blocks.push(Block {
                    time,
                    momentary,
                    short_term,
                    integrated,
                    range: range_high - range_low,
                    range_low,
                    range_high,
                    peak,
                });
            }
        }
    }

    /// Integrated loudness and loudness range as they stand.
    fn summary_so_far(&self) -> (f64, f64) {
        let integrated = self.integrated.integrated().unwrap_or(ABS_THRESHOLD);
        let range = self.range.range().map_or(0.0, |(low, high)| high - low);
        (integrated, range)
    }

    /// The measurement as it stands.
    pub fn summary(&self) -> Summary {
        let (integrated, range) = self.summary_so_far();
        let (range_low, range_high) = self.range.range().unwrap_or((0.0, 0.0));
        let peak = |peaks: &[f64]| dbfs(peaks.iter().copied().fold(0.0, f64::max));
        Summary {
            integrated,
            integrated_threshold: self.integrated.threshold(),
            range,
            range_threshold: self.range.threshold(),
            range_low,
            range_high,
            sample_peak: peak(&self.sample_peaks),
            true_peak: self.true_peak.as_ref().map_or(f64::NEG_INFINITY, |t| peak(&t.peaks)),
            seconds: self.samples as f64 / f64::from(self.rate),
        }
    }
}

/// The signal upsampled to 192 kHz by swresample (its defaults, as FFmpeg's filter uses it),
/// the highest magnitude per channel.
struct TruePeak {
    resampler: ffmpeg::software::resampling::Context,
    channels: usize,
    layout: ffmpeg::ChannelLayout,
    peaks: Vec<f64>,
    input: ffmpeg::frame::Audio,
}

// SAFETY: the swresample context and frames are owned by one meter, used by one thread at a time.
unsafe impl Send for TruePeak {}

impl TruePeak {
    fn new(rate: u32, channels: usize, layout: ffmpeg::ChannelLayout) -> Result<Self, String> {
        let layout = match layout.is_empty() {
            true => ffmpeg::ChannelLayout::default(channels as i32),
            false => layout,
        };
        let packed = ffmpeg::format::Sample::F64(ffmpeg::format::sample::Type::Packed);
        let resampler =
            ffmpeg::software::resampling::Context::get(packed, layout, rate, packed, layout, TRUE_PEAK_RATE)
                .map_err(|e| format!("cannot upsample for true peaks: {e}"))?;
        Ok(Self {
            resampler,
            channels,
            layout,
            peaks: vec![0.0; channels],
            input: ffmpeg::frame::Audio::empty(),
        })
    }

    fn add(&mut self, samples: &[f64]) -> Result<(), String> {
        let frames = samples.len() / self.channels;
        if frames == 0 {
            return Ok(());
        }
        let packed = ffmpeg::format::Sample::F64(ffmpeg::format::sample::Type::Packed);
        if self.input.samples() != frames {
            self.input = ffmpeg::frame::Audio::new(packed, frames, self.layout);
            self.input.set_rate(self.resampler.input().rate);
        }
        let bytes: &[u8] = bytemuck::cast_slice(&samples[..frames * self.channels]);
        self.input.data_mut(0)[..bytes.len()].copy_from_slice(bytes);
        // Room for all this input makes and what the resampler held back (a frame of its own
        // each time: one given back holds only what it was given, and the rest would pile up
        // inside the resampler).
        let room = frames * (TRUE_PEAK_RATE as usize) / (self.resampler.input().rate as usize) + 256;
        let mut output = ffmpeg::frame::Audio::new(packed, room, self.layout);
        self.resampler
            .run(&self.input, &mut output)
            .map_err(|e| format!("upsampling for true peaks failed: {e}"))?;
        let made = output.samples() * self.channels;
        let out: &[f64] = bytemuck::cast_slice(&output.data(0)[..made * 8]);
        for frame in out.chunks_exact(self.channels) {
            for (peak, x) in self.peaks.iter_mut().zip(frame) {
                *peak = peak.max(x.abs());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
