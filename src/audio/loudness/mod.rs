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

mod gate;
mod k_weighting;
mod meter;
#[cfg(test)]
mod tests;
mod true_peak;
mod weights;

pub use meter::LoudnessMeter;
pub use weights::{channel_weight, layout_weights, source_weights};

fn loudness(energy: f64) -> f64 {
    -0.691 + 10.0 * energy.log10()
}

/// The energy of a loudness, as FFmpeg's `ENERGY` computes it (`ff_exp10`, a power of two):
/// the integrated loudness is the mean of these over the gate's bins, and one that lands on a
/// half tenth (-28.45) prints as FFmpeg's does only from the same last bit.
fn energy(loudness: f64) -> f64 {
    (std::f64::consts::LOG2_10 * ((loudness + 0.691) / 10.0)).exp2()
}

/// dBFS of a linear peak (-inf for silence).
pub fn dbfs(peak: f64) -> f64 {
    20.0 * peak.log10()
}

/// Measures the sound of `path` (its audio stream `track`, at its own rate and channels), handing
/// each 100 ms step to `step` with the media time of its last sample (the integrated loudness
/// and range so far in it with `summaries`), until its end or `stop`; the whole measurement, or
/// why there is nothing to measure (or what `step` said went wrong).
pub fn measure_file(
    path: &std::path::Path,
    track: crate::audio::source::AudioTrack,
    true_peak: bool,
    summaries: bool,
    stop: &std::sync::atomic::AtomicBool,
    mut step: impl FnMut(f64, &Block) -> Result<(), String>,
) -> Result<Summary, String> {
    let mut source = crate::audio::source::AudioSource::open_as_is(path, track).map_err(|e| e.to_string())?;
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
