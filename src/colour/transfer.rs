//! Transfer functions: how a stream's R'G'B' signal encodes light. PQ (SMPTE ST 2084), HLG
//! (ARIB STD-B67 / BT.2100) with its OOTF, BT.1886 for SDR, and `signal_to_nits`, the light a
//! signal shows at.
//! CPU twin of `shaders/colour/transfer.wgsl`: same names, same order of operations, all in f32,
//! so that the shaders can be tested against it.

/// ITU-R BT.2408 reference ("graphics") white: SDR white is shown at this luminance, and the
/// tone curve maps an HDR picture's peak down to it.
pub const REFERENCE_WHITE_NITS: f32 = 203.0;

// SMPTE ST 2084 constants, exact in binary.
const PQ_M1: f32 = 2610.0 / 16384.0;
const PQ_M2: f32 = 2523.0 / 4096.0 * 128.0;
const PQ_C1: f32 = 3424.0 / 4096.0;
const PQ_C2: f32 = 2413.0 / 4096.0 * 32.0;
const PQ_C3: f32 = 2392.0 / 4096.0 * 32.0;
const PQ_PEAK_NITS: f32 = 10000.0;

// ARIB STD-B67 / ITU-R BT.2100 HLG constants: b = 1 − 4a, c = 0.5 − a·ln(4a).
const HLG_A: f32 = 0.17883277;
const HLG_B: f32 = 0.28466892;
const HLG_C: f32 = 0.5599107;
/// The display peak an HLG signal is shown at when the display's own is unknown (BT.2100's
/// nominal 1000 cd/m², where the system gamma is 1.2).
pub const HLG_NOMINAL_PEAK_NITS: f32 = 1000.0;

/// The transfer function a stream's R'G'B' signal is encoded with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Transfer {
    /// BT.709 / BT.1886 / sRGB and the other SDR curves: shown as they are.
    #[default]
    Sdr,
    /// SMPTE ST 2084 (HDR10 and the base layer of Dolby Vision profile 8.1).
    Pq,
    /// ARIB STD-B67 / BT.2100 hybrid log-gamma.
    Hlg,
}

impl Transfer {
    /// For the OSD.
    pub fn label(self) -> &'static str {
        match self {
            Transfer::Sdr => "SDR",
            Transfer::Pq => "HDR PQ",
            Transfer::Hlg => "HDR HLG",
        }
    }
}

/// The code the shader switches on for a transfer (`TRANSFER_*` in transfer.wgsl).
pub fn transfer_code(transfer: Transfer) -> u32 {
    match transfer {
        Transfer::Sdr => 0,
        Transfer::Pq => 1,
        Transfer::Hlg => 2,
    }
}

/// SMPTE ST 2084 EOTF: PQ signal (0..1) → displayed luminance in nits (0..10000).
pub fn pq_eotf(e: f32) -> f32 {
    let p = e.clamp(0.0, 1.0).powf(1.0 / PQ_M2);
    let y = ((p - PQ_C1).max(0.0) / (PQ_C2 - PQ_C3 * p)).powf(1.0 / PQ_M1);
    y * PQ_PEAK_NITS
}

/// SMPTE ST 2084 inverse EOTF: luminance in nits (0..10000) → PQ signal (0..1).
pub fn pq_inverse_eotf(nits: f32) -> f32 {
    let y = (nits / PQ_PEAK_NITS).clamp(0.0, 1.0).powf(PQ_M1);
    // ST 2084's (c1 + c2·y) / (1 + c3·y), written so that every step rises with y: in f32 a
    // quotient of two rising terms can step back by an ulp, and the tone curve would inherit it.
    (PQ_C2 / PQ_C3 - (PQ_C2 / PQ_C3 - PQ_C1) / (1.0 + PQ_C3 * y)).powf(PQ_M2)
}

/// ARIB STD-B67 / BT.2100 HLG OETF: scene-linear light (0..1) → HLG signal (0..1).
pub fn hlg_oetf(l: f32) -> f32 {
    let scene = l.max(0.0);
    if scene <= 1.0 / 12.0 {
        (3.0 * scene).sqrt()
    } else {
        HLG_A * (12.0 * scene - HLG_B).ln() + HLG_C
    }
}

/// ARIB STD-B67 / BT.2100 HLG inverse OETF: HLG signal (0..1) → scene-linear light (0..1).
pub fn hlg_inverse_oetf(e: f32) -> f32 {
    let signal = e.max(0.0);
    if signal <= 0.5 {
        signal * signal / 3.0
    } else {
        (((signal - HLG_C) / HLG_A).exp() + HLG_B) / 12.0
    }
}

/// The HLG OOTF for a display of peak `peak_nits` (Lw), applied to each of R, G and B: scene
/// light (0..1) → displayed light in nits, Fd = Lw · E^γ, γ = 1.2 + 0.42·log10(Lw / 1000) (1.2
/// at the nominal 1000 nits), black level 0. This is BT.2408's scene-light route to an SDR
/// screen, whose own BT.709 OETF and BT.1886 EOTF apply about the same gamma to each channel,
/// and it is how FFmpeg's zscale shows HLG by default: SDR mastered into HLG by zscale at
/// BT.2408's levels comes back with its colours. BT.2100's luminance-weighted form
/// (Lw · Ys^(γ−1) · E) would show such masters about 18% less colourful.
pub fn hlg_ootf(rgb: [f32; 3], peak_nits: f32) -> [f32; 3] {
    let gamma = hlg_system_gamma(peak_nits);
    rgb.map(|c| peak_nits * c.max(0.0).powf(gamma))
}

/// HLG's system gamma for a display of peak `peak_nits` (BT.2100): 1.2 + 0.42·log10(Lw / 1000).
pub fn hlg_system_gamma(peak_nits: f32) -> f32 {
    1.2 + 0.42 * (peak_nits / 1000.0).log2() / std::f32::consts::LOG2_10
}

/// ITU-R BT.1886 EOTF with black at 0: SDR signal (0..1) → linear light relative to white,
/// a pure power 2.4 (what zimg, hence FFmpeg's zscale, calls the `bt709` transfer when the
/// picture is display-referred).
pub fn bt1886_eotf(v: f32) -> f32 {
    v.max(0.0).powf(2.4)
}

/// ITU-R BT.1886 inverse EOTF with black at 0: linear light relative to white → SDR signal.
pub fn bt1886_inverse_eotf(l: f32) -> f32 {
    l.max(0.0).powf(1.0 / 2.4)
}

/// Displayed light in nits of an R'G'B' signal (0..1): what the tone curve works on, and what a
/// picture's peak is measured in. Each channel on its own: PQ by its EOTF; HLG by its inverse
/// OETF, then the OOTF of the nominal 1000-nit display (signal 0.75, BT.2408's reference
/// white, shows at 203 nits); SDR by BT.1886 with white at reference white. So a channel's
/// light follows from its own signal, and a histogram of the signals gives the peak exactly.
pub fn signal_to_nits(signal: [f32; 3], transfer: Transfer) -> [f32; 3] {
    match transfer {
        Transfer::Pq => signal.map(pq_eotf),
        Transfer::Hlg => hlg_ootf(signal.map(hlg_inverse_oetf), HLG_NOMINAL_PEAK_NITS),
        Transfer::Sdr => signal.map(|v| bt1886_eotf(v) * REFERENCE_WHITE_NITS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tolerance: f32) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn pq_matches_st2084_values() {
        // Reference values worked out in f64 from the ST 2084 formula.
        for (signal, nits) in [
            (0.508, 99.921_89),
            (0.508_078_4, 100.0),
            (0.580_688_9, 203.0),
            (0.751_827_1, 1000.0),
            (1.0, 10000.0),
        ] {
            let got = pq_eotf(signal);
            assert!(close(got, nits, nits * 1e-4), "pq_eotf({signal}) = {got}, want {nits}");
            let back = pq_inverse_eotf(nits);
            assert!(
                close(back, signal, 1e-5),
                "pq_inverse_eotf({nits}) = {back}, want {signal}"
            );
        }
        assert_eq!(pq_eotf(0.0), 0.0);
    }

    #[test]
    fn pq_round_trips() {
        for i in 0..=1000 {
            let e = i as f32 / 1000.0;
            let back = pq_inverse_eotf(pq_eotf(e));
            assert!(close(back, e, 2e-5), "{e} → {back}");
        }
    }

    #[test]
    fn hlg_oetf_meets_at_one_twelfth() {
        assert!(close(hlg_oetf(1.0 / 12.0), 0.5, 1e-6));
        assert!(close(hlg_inverse_oetf(0.5), 1.0 / 12.0, 1e-6));
        assert!(close(hlg_oetf(1.0), 1.0, 1e-6));
        assert!(close(hlg_inverse_oetf(1.0), 1.0, 1e-5));
        // The constants as BT.2100 defines them.
        assert!(close(HLG_B, 1.0 - 4.0 * HLG_A, 1e-7));
        assert!(close(HLG_C, 0.5 - HLG_A * (4.0 * HLG_A).ln(), 1e-7));
    }

    #[test]
    fn hlg_round_trips() {
        for i in 0..=1000 {
            let e = i as f32 / 1000.0;
            let back = hlg_oetf(hlg_inverse_oetf(e));
            assert!(close(back, e, 1e-5), "{e} → {back}");
        }
    }

    #[test]
    fn hlg_ootf_shows_peak_white_at_the_peak_and_reference_white_at_203_nits() {
        let white = hlg_ootf([1.0; 3], 1000.0);
        assert!(white.iter().all(|&c| close(c, 1000.0, 1e-2)), "{white:?}");
        // BT.2408: HLG reference white is signal 0.75, about 203 nits on a 1000-nit display.
        let reference = hlg_ootf([hlg_inverse_oetf(0.75); 3], 1000.0);
        assert!(close(reference[0], 203.0, 1.0), "{reference:?}");
        // Each channel by itself: 1.2 at the nominal peak, lower on dimmer displays.
        let shown = hlg_ootf([0.2, 0.1, 0.05], 1000.0);
        assert!(close(shown[0] / shown[1], 2f32.powf(1.2), 1e-4), "{shown:?}");
        assert!(close(shown[1], 1000.0 * 0.1f32.powf(1.2), 1e-2), "{shown:?}");
        let dim = hlg_ootf([0.5; 3], 400.0);
        assert!(
            close(dim[0], 400.0 * 0.5f32.powf(1.2 - 0.42 * 0.39794), 1e-2),
            "{dim:?}"
        );
    }

    #[test]
    fn bt1886_round_trips() {
        for i in 0..=255 {
            let v = i as f32 / 255.0;
            assert!(close(bt1886_inverse_eotf(bt1886_eotf(v)), v, 1e-6));
        }
    }

    #[test]
    fn transfer_codes_match_the_shader() {
        let shader = include_str!("../../shaders/colour/transfer.wgsl");
        for transfer in [Transfer::Sdr, Transfer::Pq, Transfer::Hlg] {
            let name = format!("{transfer:?}").to_uppercase();
            let line = format!("const TRANSFER_{name}: u32 = {}u;", transfer_code(transfer));
            assert!(shader.contains(&line), "transfer.wgsl lacks `{line}`");
        }
    }
}
