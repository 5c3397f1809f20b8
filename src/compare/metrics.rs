//! PSNR, MSE and SSIM of a frame against its reference, as FFmpeg's `psnr` and `ssim` filters
//! compute them: per component (Y, U, V, or grey's one) at the source's depth, on the decoded
//! samples themselves (no conversion), and their averages weighted by the components' sizes.
//! This is the CPU twin of the GPU pass; both count the same integer sums, and SSIM's windows
//! the same single-precision arithmetic as FFmpeg's C code.
//!
//! - MSE: the sum of squared differences over the component, divided by its samples; PSNR is
//!   `10 log10(max² / MSE)` with `max = 2^depth - 1`, undefined (FFmpeg prints `inf`) for
//!   identical components. The average MSE weights each component by its share of all samples;
//!   an alpha plane, where measured, is one more component of it (`AlphaSums`), as in psnr.
//! - SSIM: sums over 4x4 blocks, and over 8x8 windows of four blocks stepping 4 samples both
//!   ways (the standard approximation of the Gaussian window, from x264); each window's SSIM in
//!   single precision, the component's SSIM their mean. `All` weights the components as the
//!   average MSE does (in double precision, where FFmpeg's weights are single). The windows
//!   are summed in fixed point (`SSIM_ONE`), on the GPU and here alike: exact and in any
//!   order, within 1.2e-7 of the windows' exact sum (FFmpeg's own single-precision row sums
//!   stray about as far).

use crate::video::format::Component;

/// A window's SSIM `v` (in -1..=1) counts as `round((v + 1) SSIM_ONE)` in the sums.
pub const SSIM_ONE: f32 = (1 << 22) as f32;

/// What the metrics of one component add up from: the GPU pass's output, and the CPU twin's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ComponentSums {
    /// Sum of squared differences.
    pub sse: u64,
    /// Sum of the windows' SSIM in fixed point (`SSIM_ONE`).
    pub ssim: u64,
}

/// A window's SSIM as the sums count it.
pub fn ssim_fixed(v: f32) -> u64 {
    ((v + 1.0) * SSIM_ONE).round_ties_even() as u64
}

/// SSIM's constants for samples of `bits` as FFmpeg rounds them (in double precision):
/// (0.01 max)² 64 and (0.03 max)² 64 63, max = 2^bits - 1.
pub fn ssim_constants(bits: u32) -> (i64, i64) {
    let max = f64::from((1u32 << bits) - 1);
    (
        (0.01 * 0.01 * max * max * 64.0 + 0.5) as i64,
        (0.03 * 0.03 * max * max * 64.0 * 63.0 + 0.5) as i64,
    )
}

/// The squared differences of two components of the same size.
pub fn sse(a: &Component, b: &Component) -> u64 {
    let mut sum = 0u64;
    for y in 0..a.height {
        for x in 0..a.width {
            let d = i64::from(a.sample(x, y)) - i64::from(b.sample(x, y));
            sum += (d * d) as u64;
        }
    }
    sum
}

/// SSIM windows of a component `width` by `height`: one per 4x4 block but the last column and
/// row of blocks (a window spans two blocks each way); none for components under 8 samples.
pub fn ssim_windows(width: usize, height: usize) -> u64 {
    ((width >> 2).saturating_sub(1) * (height >> 2).saturating_sub(1)) as u64
}

/// The sums of a 4x4 block at block column `bx`, row `by`: of a, of b, of a² + b², of a·b.
fn block(a: &Component, b: &Component, bx: usize, by: usize) -> [i64; 4] {
    let mut s = [0i64; 4];
    for y in 4 * by..4 * by + 4 {
        for x in 4 * bx..4 * bx + 4 {
            let (p, q) = (i64::from(a.sample(x, y)), i64::from(b.sample(x, y)));
            s[0] += p;
            s[1] += q;
            s[2] += p * p + q * q;
            s[3] += p * q;
        }
    }
    s
}

/// One 8x8 window's SSIM from its sums, in single precision as FFmpeg's `ssim_end1` (8 bits)
/// and `ssim_end1x` (more) compute it.
pub fn window_ssim([s1, s2, ss, s12]: [i64; 4], bits: u32) -> f32 {
    let (c1, c2) = ssim_constants(bits);
    let vars = ss * 64 - s1 * s1 - s2 * s2;
    let covar = s12 * 64 - s1 * s2;
    (2 * s1 * s2 + c1) as f32 * (2 * covar + c2) as f32 / ((s1 * s1 + s2 * s2 + c1) as f32 * (vars + c2) as f32)
}

/// The sum of a component's window SSIMs in fixed point (`SSIM_ONE`).
pub fn ssim_sum(a: &Component, b: &Component, bits: u32) -> u64 {
    let (bw, bh) = (a.width >> 2, a.height >> 2);
    if bw < 2 || bh < 2 {
        return 0;
    }
    let row = |by: usize| (0..bw).map(|bx| block(a, b, bx, by)).collect::<Vec<_>>();
    let mut above = row(0);
    let mut total = 0u64;
    for by in 1..bh {
        let here = row(by);
        for bx in 0..bw - 1 {
            let sums: [i64; 4] =
                std::array::from_fn(|k| above[bx][k] + above[bx + 1][k] + here[bx][k] + here[bx + 1][k]);
            total += ssim_fixed(window_ssim(sums, bits));
        }
        above = here;
    }
    total
}

/// Both metrics' sums of one component pair.
pub fn component_sums(a: &Component, b: &Component, bits: u32) -> ComponentSums {
    ComponentSums {
        sse: sse(a, b),
        ssim: ssim_sum(a, b, bits),
    }
}

/// A frame's metrics against its reference, as FFmpeg's stats files give them.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameMetrics {
    /// Per component (Y, U, V; grey has Y only; an alpha plane's last, where measured).
    pub mse: Vec<f64>,
    /// None where the components are identical (FFmpeg: `inf`).
    pub psnr: Vec<Option<f64>>,
    pub mse_avg: f64,
    pub psnr_avg: Option<f64>,
    /// Per colour component (never alpha's, as FFmpeg's ssim).
    pub ssim: Vec<f64>,
    pub ssim_all: f64,
}

fn psnr(mse: f64, max: f64) -> Option<f64> {
    (mse > 0.0).then(|| 10.0 * (max * max / mse).log10())
}

/// An alpha plane's share of a frame's metrics: its squared differences and its size. FFmpeg's
/// psnr measures it (its `a`, and its average with it); its ssim does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaSums {
    pub sse: u64,
    pub size: (usize, usize),
}

impl FrameMetrics {
    /// The metrics from each component's sums; `sizes` are the components' (width, height).
    pub fn from_sums(sums: &[ComponentSums], sizes: &[(usize, usize)], bits: u32) -> Self {
        Self::with_alpha(sums, sizes, None, bits)
    }

    /// The metrics from each colour component's sums and an alpha plane's (`alpha`), which
    /// counts for MSE and PSNR only: the last of `mse` and `psnr`, and a share of their
    /// averages as large as its samples'.
    pub fn with_alpha(sums: &[ComponentSums], sizes: &[(usize, usize)], alpha: Option<AlphaSums>, bits: u32) -> Self {
        let count = |&(w, h): &(usize, usize)| (w * h) as f64;
        let samples: Vec<f64> = sizes.iter().map(count).collect();
        let colour: f64 = samples.iter().sum();
        let all = colour + alpha.map_or(0.0, |a| count(&a.size));
        let max = f64::from((1u32 << bits) - 1);
        let sse = sums.iter().map(|s| s.sse).chain(alpha.map(|a| a.sse));
        let plane_samples = samples.iter().copied().chain(alpha.map(|a| count(&a.size)));
        let mse: Vec<f64> = sse.zip(plane_samples.clone()).map(|(s, n)| s as f64 / n).collect();
        // FFmpeg's psnr weights each plane by its share of all samples, alpha's too.
        let mse_avg = mse.iter().zip(plane_samples).map(|(m, n)| m * (n / all)).sum();
        // The average's peak is the weighted mean of the components' peaks, rounded: the
        // components share a depth here, so it is theirs.
        let ssim: Vec<f64> = sums
            .iter()
            .zip(sizes)
            .map(|(s, &(w, h))| {
                // FFmpeg divides the windows' sum by (w/4 - 1)(h/4 - 1) as it comes out: a
                // component under 8 samples either way has no window, and its SSIM is 0/0 (no
                // SSIM: `null` in JSON, and none for `All` either) where a side has 4 to 7
                // samples, and 0 where both have fewer than 4 (the product of two -1s).
                let windows = ssim_windows(w, h) as f64;
                let divisor = ((w >> 2) as f64 - 1.0) * ((h >> 2) as f64 - 1.0);
                (s.ssim as f64 / f64::from(SSIM_ONE) - windows) / divisor
            })
            .collect();
        // FFmpeg keeps these weights in single precision, which puts a frame against itself at
        // 1.00000003; weighted in double a frame against itself is 1, within 3e-8 of FFmpeg.
        let ssim_all = ssim.iter().zip(&samples).map(|(s, n)| n * s).sum::<f64>() / colour;
        Self {
            psnr: mse.iter().map(|&m| psnr(m, max)).collect(),
            psnr_avg: psnr(mse_avg, max),
            mse,
            mse_avg,
            ssim,
            ssim_all,
        }
    }
}

/// The metrics of `a` against `b`, on the CPU (components of the same sizes and depth), with
/// their alpha planes' squared differences where given (`with_alpha`).
pub fn frame_metrics(
    a: &[Component],
    b: &[Component],
    alpha: Option<(&Component, &Component)>,
    bits: u32,
) -> FrameMetrics {
    frame_metrics_with_ssim_of(a, b, alpha, bits, (a, b, bits))
}

/// As `frame_metrics`, SSIM read from other samples of the same components (`ssim`: both
/// sides' and their depth): FFmpeg's ssim where its format negotiation converts frames its psnr
/// takes as they are (10-bit Y'CbCr with alpha made 16-bit without it).
pub fn frame_metrics_with_ssim_of(
    a: &[Component],
    b: &[Component],
    alpha: Option<(&Component, &Component)>,
    bits: u32,
    (ssim_a, ssim_b, ssim_bits): (&[Component], &[Component], u32),
) -> FrameMetrics {
    let sums: Vec<ComponentSums> = a
        .iter()
        .zip(b)
        .zip(ssim_a.iter().zip(ssim_b))
        .map(|((a, b), (sa, sb))| ComponentSums {
            sse: sse(a, b),
            ssim: ssim_sum(sa, sb, ssim_bits),
        })
        .collect();
    let sizes: Vec<(usize, usize)> = a.iter().map(|c| (c.width, c.height)).collect();
    let alpha = alpha.map(|(a, b)| AlphaSums {
        sse: sse(a, b),
        size: (a.width, a.height),
    });
    FrameMetrics::with_alpha(&sums, &sizes, alpha, bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::video::format::{components, FrameFormat, PlaneData, PlaneLayout};

    /// A 4:2:0 frame's planes, 8 or 16 bits a sample, from a value per (plane, x, y).
    struct Frame {
        planes: Vec<(Vec<u8>, usize)>,
        format: FrameFormat,
    }

    impl Frame {
        fn new(width: u32, height: u32, bits: u32, value: impl Fn(usize, usize, usize) -> u16) -> Self {
            let bytes = if bits > 8 { 2 } else { 1 };
            let sizes = [
                (width as usize, height as usize),
                (width.div_ceil(2) as usize, height.div_ceil(2) as usize),
                (width.div_ceil(2) as usize, height.div_ceil(2) as usize),
            ];
            let planes = sizes
                .iter()
                .enumerate()
                .map(|(p, &(w, h))| {
                    // Rows padded past the width, as decoders pad them.
                    let stride = (w + 7) * bytes;
                    let mut data = vec![0u8; stride * h];
                    for y in 0..h {
                        for x in 0..w {
                            let v = value(p, x, y);
                            let at = y * stride + x * bytes;
                            if bytes == 1 {
                                data[at] = v as u8;
                            } else {
                                data[at..at + 2].copy_from_slice(&v.to_le_bytes());
                            }
                        }
                    }
                    (data, stride)
                })
                .collect();
            let format = FrameFormat {
                layout: PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: 1,
                    bits,
                },
                width,
                height,
                color: crate::colour::ColorSpec::resolve(None, None, width, height, false),
            };
            Self { planes, format }
        }

        fn metrics(&self, reference: &Frame) -> FrameMetrics {
            fn planes(f: &Frame) -> Vec<PlaneData<'_>> {
                f.planes
                    .iter()
                    .map(|(data, stride)| PlaneData { data, stride: *stride })
                    .collect()
            }
            let (pa, pb) = (planes(self), planes(reference));
            let (a, bits) = components(&self.format, &pa).unwrap();
            let (b, _) = components(&reference.format, &pb).unwrap();
            frame_metrics(&a, &b, None, bits)
        }
    }

    /// A natural-looking pattern: gradients and a ripple, different per plane.
    fn pattern(max: u16) -> impl Fn(usize, usize, usize) -> u16 {
        move |p, x, y| {
            let v = (x * 7 + y * 3 + p * 50) as f64 + 40.0 * ((x as f64 / 5.0).sin() * (y as f64 / 7.0).cos());
            (v.rem_euclid(f64::from(max) + 1.0)) as u16
        }
    }

    #[test]
    fn a_known_difference_gives_its_exact_mse_and_psnr() {
        // 64x48 at 8 bits: Y differs by +1 on every third sample of rows 0..12 (256 of them)
        // and by +3 on 10 samples; U by +2 on 5 samples; V is the same.
        let reference = Frame::new(64, 48, 8, pattern(200));
        let a = Frame::new(64, 48, 8, |p, x, y| {
            let base = pattern(200)(p, x, y);
            match p {
                0 if y < 12 && x % 3 == 0 && x < 64 => base + 1 + if y == 0 && x < 30 { 2 } else { 0 },
                1 if y == 5 && x < 5 => base + 2,
                _ => base,
            }
        });
        let m = a.metrics(&reference);
        // Y: x in 0,3,..,63 is 22 columns by 12 rows = 264 samples of +1, of which row 0's
        // x < 30 (10 of them) are +3: 254 + 10·9 = 344 over 64·48.
        assert_eq!(m.mse[0], 344.0 / 3072.0);
        assert_eq!(m.mse[1], 20.0 / 768.0);
        assert_eq!(m.mse[2], 0.0);
        assert_eq!(m.psnr[2], None);
        assert_eq!(
            m.mse_avg,
            344.0 / 3072.0 * (3072.0 / 4608.0) + 20.0 / 768.0 * (768.0 / 4608.0)
        );
        let expect = 10.0 * (255.0f64 * 255.0 / (344.0 / 3072.0)).log10();
        assert_eq!(m.psnr[0], Some(expect));
        assert!((m.psnr[0].unwrap() - 57.6394).abs() < 1e-4, "{:?}", m.psnr[0]);
        assert!(m.ssim[0] < 1.0 && m.ssim[0] > 0.99, "{}", m.ssim[0]);
        assert_eq!(m.ssim[2], 1.0);
    }

    #[test]
    fn a_frame_against_itself_has_an_ssim_of_one_and_no_psnr() {
        for bits in [8, 10] {
            let f = Frame::new(37, 29, bits, pattern((1 << bits) - 1));
            let m = f.metrics(&f);
            assert_eq!(m.mse, vec![0.0; 3]);
            assert_eq!(m.psnr, vec![None; 3]);
            assert_eq!(m.psnr_avg, None);
            assert_eq!(m.ssim, vec![1.0; 3], "{bits} bits");
            assert_eq!(m.ssim_all, 1.0);
        }
    }

    #[test]
    fn a_component_too_small_for_any_window_has_no_ssim() {
        // 12x10 at 4:2:0: chroma 6x5 holds no 8x8 window; luma holds 2x1 of them.
        let a = Frame::new(12, 10, 8, pattern(200));
        let b = Frame::new(12, 10, 8, |p, x, y| pattern(200)(p, x, y) / 2);
        let m = a.metrics(&b);
        assert!(m.ssim[0].is_finite() && m.ssim[0] < 1.0);
        assert!(m.ssim[1].is_nan() && m.ssim[2].is_nan() && m.ssim_all.is_nan());
        assert!(
            m.mse.iter().all(|v| *v > 0.0),
            "the squared errors still count: {:?}",
            m.mse
        );
        // Under 4 samples both ways FFmpeg's divisor is (-1)(-1): its SSIM is 0, as is `All`'s
        // (2x2: chroma 1x1); 4x2's luma is 0/0 again, its 2x1 chroma 0.
        let (a, b) = (Frame::new(2, 2, 8, pattern(200)), Frame::new(2, 2, 8, pattern(100)));
        let m = a.metrics(&b);
        assert_eq!((m.ssim.clone(), m.ssim_all), (vec![0.0; 3], 0.0));
        let (a, b) = (Frame::new(4, 2, 8, pattern(200)), Frame::new(4, 2, 8, pattern(100)));
        let m = a.metrics(&b);
        assert!(m.ssim[0].is_nan() && m.ssim[1] == 0.0 && m.ssim[2] == 0.0 && m.ssim_all.is_nan());
    }

    #[test]
    fn ssim_windows_overlap_by_half_and_skip_what_no_full_window_covers() {
        // 37x29: blocks 9x7, windows 8x6; chroma 19x15: blocks 4x3, windows 3x2.
        assert_eq!(ssim_windows(37, 29), 48);
        assert_eq!(ssim_windows(19, 15), 6);
        assert_eq!(ssim_windows(7, 100), 0);
        // A window's SSIM: identical flat windows give 1; a window against its negative less.
        let flat = [64 * 100, 64 * 100, 2 * 64 * 100 * 100, 64 * 100 * 100];
        assert_eq!(window_ssim(flat, 8), 1.0);
        let apart = [64 * 100, 64 * 150, 64 * (100 * 100 + 150 * 150), 64 * 100 * 150];
        assert!(window_ssim(apart, 8) < 0.93);
        // FFmpeg's constants: 416 and 235963 at 8 bits.
        assert_eq!(ssim_constants(8), (416, 235963));
    }
}
