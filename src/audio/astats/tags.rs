//! The frame's `lavfi.astats.*` tags (FFmpeg's `set_metadata`): each channel's values, then the
//! overall ones, printed as glibc's `%f` prints them.

use super::c_math::{div, ffabs, ffmax, ffmin, linear_to_db, sqrt};
use super::sample::SampleFormat;
use super::Astats;

/// The longest value FFmpeg writes (its buffer is 128 bytes).
const VALUE_MAX: usize = 127;

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

impl Astats {
    /// FFmpeg's `set_metadata`.
    pub(super) fn tags(&mut self, format: SampleFormat) -> Vec<(String, String)> {
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
