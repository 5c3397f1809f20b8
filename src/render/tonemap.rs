//! HDR → SDR display math for the picture: the BT.2390 tone curve, wider primaries (BT.2020,
//! Display P3) → BT.709 with gamut mapping, and the whole chain of a pixel from its signal to
//! the BT.1886 encoding for an SDR screen. The transfer functions it starts from (PQ, HLG,
//! BT.1886) are `colour::transfer`'s.
//! CPU twin of `shaders/render/tonemap.wgsl`: same names, same order of operations, all in f32,
//! so that the picture shader can be tested against it.

use crate::colour::transfer::{
    bt1886_eotf, bt1886_inverse_eotf, pq_eotf, pq_inverse_eotf, signal_to_nits, REFERENCE_WHITE_NITS,
};
use crate::colour::Transfer;

/// Luminance weights of linear RGB: the Y row of each RGB → XYZ matrix (BT.2020 and BT.709 as
/// published; the primaries and D65 give the same to four places).
#[cfg(test)]
const BT2020_LUMA: [f32; 3] = [0.2627, 0.6780, 0.0593];
const BT709_LUMA: [f32; 3] = [0.2126, 0.7152, 0.0722];

/// ITU-R BT.2390 EETF (the tone curve BT.2408 recommends), black level 0: luminance of a
/// source mastered up to `source_peak` nits → luminance for a display of `target_peak` nits.
/// It works in the PQ domain, normalised to the source peak (`bt2390_knee`), so it is
/// continuous, non-decreasing and maps `source_peak` (and anything brighter) to `target_peak`.
/// Identity when the source fits the display.
pub fn eetf_bt2390(nits: f32, source_peak: f32, target_peak: f32) -> f32 {
    if source_peak <= target_peak {
        return nits;
    }
    let source_pq = pq_inverse_eotf(source_peak);
    let e1 = (pq_inverse_eotf(nits) / source_pq).min(1.0);
    let max_lum = pq_inverse_eotf(target_peak) / source_pq;
    pq_eotf(bt2390_knee(e1, max_lum) * source_pq)
}

/// BT.2390's curve in the normalised PQ domain, E1 (0..1) → E2: the identity below the knee
/// KS = 1.5·maxLum − 0.5, and above it the Hermite spline from (KS, slope 1) to (1, maxLum,
/// slope 0), P(T) = (2T³ − 3T² + 1)·KS + (T³ − 2T² + T)·(1 − KS) + (−2T³ + 3T²)·maxLum with
/// T = (E1 − KS)/(1 − KS). For this KS the spline is exactly maxLum − (1 − KS)·(1 − T)³/3, a
/// chain of steps that each rise with E1, so f32 rounding cannot make it dip near the top as
/// the expanded polynomial does. That cubic rises everywhere and touches the identity only at
/// KS, lying below it, so max(P, min(E1, KS)) is the whole curve, with no seam at the knee
/// where rounding could step back.
fn bt2390_knee(e1: f32, max_lum: f32) -> f32 {
    let ks = 1.5 * max_lum - 0.5;
    let s = 1.0 - (e1 - ks) / (1.0 - ks);
    let spline = max_lum - (1.0 - ks) * (s * s * s) / 3.0;
    spline.max(e1.min(ks))
}

/// Linear RGB of a source's primaries → linear BT.709 RGB, by `rows`
/// (`colour::primaries::gamut_rows`: the source's RGB → XYZ from its primaries and D65, as in
/// SMPTE RP 177, then XYZ → BT.709's; BT.2020's are ITU-R BT.2087's). The result may leave the
/// BT.709 gamut: see `gamut_map_bt709`.
pub fn convert_rows(rgb: [f32; 3], rows: [[f32; 4]; 3]) -> [f32; 3] {
    rows.map(|row| dot([row[0], row[1], row[2]], rgb))
}

/// An SDR signal (0..1) of wider primaries than BT.709 as the BT.709 screen shows it (twin of
/// `sdr_to_bt709` in tonemap.wgsl): in linear light (BT.1886), converted by `to_bt709` (the
/// source's linear RGB → BT.709's, by rows: `colour::primaries::gamut_rows`), colours outside
/// BT.709 brought in toward their grey (`gamut_map_bt709`), and back to the signal.
pub fn sdr_to_bt709(signal: [f32; 3], to_bt709: [[f32; 4]; 3]) -> [f32; 3] {
    let lin = signal.map(bt1886_eotf);
    gamut_map_bt709(convert_rows(lin, to_bt709)).map(bt1886_inverse_eotf)
}

/// Brings linear BT.709 RGB (1 = white) into [0, 1]³ by desaturating: a colour inside is
/// returned as it is; a colour outside keeps its luminance Y (BT.709 weights) and its hue (the
/// ratios of c − Y) and moves toward the grey of the same luminance just far enough to reach
/// the gamut's boundary, where a per-channel clip would shift its hue. Y itself is first
/// clamped to [0, 1], so anything brighter than white becomes white. This is the mapping
/// libplacebo calls "desaturate" (its "desaturating clip", which reduces chroma at constant
/// intensity and hue in IPT), done here in linear light with luminance for intensity.
pub fn gamut_map_bt709(rgb_709_linear: [f32; 3]) -> [f32; 3] {
    let rgb = rgb_709_linear;
    if rgb.iter().all(|&c| (0.0..=1.0).contains(&c)) {
        return rgb;
    }
    let y = dot(BT709_LUMA, rgb).clamp(0.0, 1.0);
    // The largest t in [0, 1] with y + t·(c − y) inside [0, 1] for every channel.
    let mut t: f32 = 1.0;
    for c in rgb {
        if c > 1.0 {
            t = t.min((1.0 - y) / (c - y));
        }
        if c < 0.0 {
            t = t.min(y / (y - c));
        }
    }
    rgb.map(|c| (y + t * (c - y)).clamp(0.0, 1.0))
}

/// The whole chain for one pixel of an HDR picture, R'G'B' signal (0..1) → SDR display signal
/// (0..1): `signal_to_nits`; the BT.2390 curve from `peak_nits` (the picture's brightest
/// max(R, G, B)) down to reference white, applied to max(R, G, B) with all three channels
/// scaled alike, which keeps hue and saturation; a source of wider primaries to BT.709 by its
/// rows `to_bt709` (`convert_rows`); gamut mapping with reference white as 1; the BT.1886
/// encoding. SDR signals are returned unchanged.
pub fn tone_map_pixel(
    signal: [f32; 3],
    transfer: Transfer,
    peak_nits: f32,
    to_bt709: Option<[[f32; 4]; 3]>,
) -> [f32; 3] {
    if transfer == Transfer::Sdr {
        return signal;
    }
    let nits = signal_to_nits(signal, transfer);
    let max_rgb = nits[0].max(nits[1]).max(nits[2]);
    let scale = if max_rgb > 0.0 {
        eetf_bt2390(max_rgb, peak_nits, REFERENCE_WHITE_NITS) / max_rgb
    } else {
        0.0
    };
    let mapped = nits.map(|c| c * scale);
    let bt709 = to_bt709.map_or(mapped, |rows| convert_rows(mapped, rows));
    let display = gamut_map_bt709(bt709.map(|c| c / REFERENCE_WHITE_NITS));
    display.map(bt1886_inverse_eotf)
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::primaries::{gamut_rows, invert_rows};
    use crate::colour::Primaries;

    fn close(a: f32, b: f32, tolerance: f32) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn wide_sdr_keeps_its_greys_and_brings_p3_red_to_the_bt709_edge() {
        let p3 = gamut_rows(Primaries::P3);
        let rows = [p3[0], p3[1], p3[2]];
        for v in [0.0, 0.18, 0.5, 1.0] {
            let shown = sdr_to_bt709([v; 3], rows);
            assert!(shown.iter().all(|&c| close(c, v, 1e-5)), "{v}: {shown:?}");
        }
        // P3's red lies outside BT.709: shown as the reddest BT.709 colour of its luminance
        // and hue, on the gamut's edge, not clipped channel by channel.
        let [r, g, b] = sdr_to_bt709([1.0, 0.0, 0.0], rows);
        assert!(
            close(r, 1.0, 1e-5) && g > 0.0 && b > 0.0 && g < 0.3 && b < 0.3,
            "{r} {g} {b}"
        );
        // A colour inside BT.709 comes out as BT.709 has it: P3's code for BT.709's 50% green.
        let lin = [0.0, bt1886_eotf(0.5), 0.0];
        let inverse = invert_rows(rows);
        let in_p3 = inverse.map(|row| bt1886_inverse_eotf(dot([row[0], row[1], row[2]], lin)));
        let shown = sdr_to_bt709(in_p3, rows);
        assert!(
            close(shown[0], 0.0, 1e-3) && close(shown[1], 0.5, 1e-4) && close(shown[2], 0.0, 1e-3),
            "{shown:?}"
        );
    }

    const PEAKS: [f32; 3] = [1000.0, 4000.0, 10000.0];

    #[test]
    fn eetf_is_monotone_and_continuous() {
        for peak in PEAKS {
            let steps = 100_000;
            let mut last = eetf_bt2390(0.0, peak, REFERENCE_WHITE_NITS);
            for i in 1..=steps {
                // Dense in PQ, which is dense where the eye is.
                let nits = pq_eotf(pq_inverse_eotf(peak) * i as f32 / steps as f32);
                let out = eetf_bt2390(nits, peak, REFERENCE_WHITE_NITS);
                assert!(out >= last, "peak {peak}: falls at {nits} nits ({last} → {out})");
                // A jump would show as a step far larger than the neighbours' (the knee included).
                assert!(out - last < 0.05, "peak {peak}: jumps at {nits} nits ({last} → {out})");
                last = out;
            }
        }
    }

    #[test]
    fn eetf_knee_is_the_bt2390_hermite_spline() {
        for max_lum in [0.4, 0.58, 0.77, 0.9, 0.99] {
            let ks = 1.5 * f64::from(max_lum) - 0.5;
            for i in 0..=1000 {
                let e1 = i as f64 / 1000.0;
                let want = if e1 < ks {
                    e1
                } else {
                    let t = (e1 - ks) / (1.0 - ks);
                    let (t2, t3) = (t * t, t * t * t);
                    (2.0 * t3 - 3.0 * t2 + 1.0) * ks
                        + (t3 - 2.0 * t2 + t) * (1.0 - ks)
                        + (-2.0 * t3 + 3.0 * t2) * f64::from(max_lum)
                };
                let got = bt2390_knee(e1 as f32, max_lum);
                assert!(
                    (f64::from(got) - want).abs() < 1e-6,
                    "maxLum {max_lum}, E1 {e1}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn eetf_maps_peak_to_target() {
        for peak in PEAKS {
            let out = eetf_bt2390(peak, peak, REFERENCE_WHITE_NITS);
            assert!(
                close(out, REFERENCE_WHITE_NITS, 1e-3 * REFERENCE_WHITE_NITS),
                "{peak}: {out}"
            );
        }
    }

    #[test]
    fn eetf_is_identity_when_the_source_fits() {
        for peak in [100.0, 203.0] {
            for i in 0..=1000 {
                let nits = peak * i as f32 / 1000.0;
                assert_eq!(eetf_bt2390(nits, peak, REFERENCE_WHITE_NITS), nits);
            }
        }
    }

    #[test]
    fn eetf_leaves_shadows_below_the_knee_alone() {
        // With a 1000-nit source the knee sits at about 0.66 of its PQ range (≈ 100 nits).
        let out = eetf_bt2390(50.0, 1000.0, REFERENCE_WHITE_NITS);
        assert!(close(out, 50.0, 0.05), "{out}");
    }

    /// The rows from BT.2020 and from Display P3.
    fn wide_rows() -> [(Primaries, [[f32; 4]; 3]); 2] {
        [Primaries::Bt2020, Primaries::P3].map(|p| {
            let rows = gamut_rows(p);
            (p, [rows[0], rows[1], rows[2]])
        })
    }

    #[test]
    fn wider_primaries_convert_to_bt709_keeping_white_and_luminance() {
        for (primaries, rows) in wide_rows() {
            let white = convert_rows([1.0; 3], rows);
            assert!(white.iter().all(|&c| close(c, 1.0, 1e-5)), "{primaries:?}: {white:?}");
            let luma = gamut_rows(primaries)[3];
            for rgb in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.3, 0.5, 0.2]] {
                let y_source = dot([luma[0], luma[1], luma[2]], rgb);
                let y709 = dot(BT709_LUMA, convert_rows(rgb, rows));
                assert!(
                    close(y_source, y709, 2e-4),
                    "{primaries:?} {rgb:?}: {y_source} vs {y709}"
                );
            }
        }
        // BT.2020's luminance as published.
        let luma = gamut_rows(Primaries::Bt2020)[3];
        assert!(
            luma.iter().zip(BT2020_LUMA).all(|(a, b)| close(*a, b, 1e-4)),
            "{luma:?}"
        );
    }

    #[test]
    fn gamut_map_leaves_in_gamut_colours_alone() {
        let steps = 64;
        for r in 0..=steps {
            for g in 0..=steps {
                for b in 0..=steps {
                    let rgb = [r, g, b].map(|c| c as f32 / steps as f32);
                    let out = gamut_map_bt709(rgb);
                    assert!(
                        rgb.iter().zip(out).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{rgb:?} → {out:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn gamut_map_keeps_luminance_and_hue() {
        // Pure BT.2020 primaries and mixes of them, at several brightnesses, all outside BT.709.
        let mut checked = 0;
        for rgb2020 in [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.6, 1.0],
        ] {
            for level in [0.05, 0.3, 0.7, 1.0, 1.5, 4.0] {
                let rgb = convert_rows(rgb2020.map(|c| c * level), wide_rows()[0].1);
                let out = gamut_map_bt709(rgb);
                assert!(out.iter().all(|c| (0.0..=1.0).contains(c)), "{rgb:?} → {out:?}");
                let y = dot(BT709_LUMA, rgb);
                if y > 1.0 {
                    assert!(out.iter().all(|&c| close(c, 1.0, 1e-6)), "{rgb:?} → {out:?}");
                    continue;
                }
                assert!(close(dot(BT709_LUMA, out), y, 1e-5), "{rgb:?} → {out:?}");
                // Hue: the chroma (c − Y) keeps its direction, only its length shrinks.
                let chroma_in = rgb.map(|c| c - y);
                let chroma_out = out.map(|c| c - y);
                let t = dot(chroma_out, chroma_in) / dot(chroma_in, chroma_in);
                assert!(t > 0.0 && t < 1.0, "{rgb:?} → {out:?}");
                for i in 0..3 {
                    assert!(close(chroma_out[i], t * chroma_in[i], 1e-5), "{rgb:?} → {out:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 10);
    }

    #[test]
    fn sdr_passes_through() {
        let signal = [0.1, 0.5, 0.9];
        assert_eq!(
            tone_map_pixel(signal, Transfer::Sdr, 1000.0, Some(wide_rows()[0].1)),
            signal
        );
    }

    #[test]
    fn pq_reference_white_becomes_sdr_white() {
        let bt2020 = Some(wide_rows()[0].1);
        let white = [pq_inverse_eotf(REFERENCE_WHITE_NITS); 3];
        let out = tone_map_pixel(white, Transfer::Pq, REFERENCE_WHITE_NITS, bt2020);
        assert!(out.iter().all(|&c| close(c, 1.0, 1e-4)), "{out:?}");
        // A 1000-nit master's peak is brought down to white, and its reference white below it.
        let peak = tone_map_pixel([pq_inverse_eotf(1000.0); 3], Transfer::Pq, 1000.0, bt2020);
        assert!(peak.iter().all(|&c| close(c, 1.0, 1e-3)), "{peak:?}");
        let dimmed = tone_map_pixel(white, Transfer::Pq, 1000.0, bt2020);
        assert!(dimmed[0] < 1.0 && dimmed[0] > 0.8, "{dimmed:?}");
    }

    #[test]
    fn hlg_reference_white_becomes_sdr_white() {
        let out = tone_map_pixel([0.75; 3], Transfer::Hlg, REFERENCE_WHITE_NITS, Some(wide_rows()[0].1));
        assert!(out.iter().all(|&c| close(c, 1.0, 5e-3)), "{out:?}");
    }
}
