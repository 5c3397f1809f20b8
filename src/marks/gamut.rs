//! The gamut warning's floating-point test, shared by the pass's set-up and its CPU twin: the
//! codes' linear light, and how far inside BT.709 a pixel is.

use super::MarkParams;
use crate::colour::transfer::{bt1886_eotf, hlg_inverse_oetf, pq_eotf};
use crate::colour::{ColorVolume, Primaries, Transfer};

/// Linear light of each code of `bits` (index: code) for the gamut test: through the source's
/// EOTF, relative to its peak (PQ: 10000 nits; HLG: scene light; SDR: BT.1886).
pub fn linear_table(transfer: Transfer, bits: u32) -> Vec<f32> {
    let white = (1u32 << bits) - 1;
    (0..=white)
        .map(|c| {
            let signal = c as f32 / white as f32;
            match transfer {
                Transfer::Pq => pq_eotf(signal) / 10000.0,
                Transfer::Hlg => hlg_inverse_oetf(signal),
                Transfer::Sdr => bt1886_eotf(signal),
            }
        })
        .collect()
}

/// Whether the gamut warning applies to a source of `volume`: one of wider primaries than
/// BT.709 (on a BT.709 source it never marks a pixel).
pub fn gamut_applies(volume: &ColorVolume) -> bool {
    volume.primaries != Primaries::Bt709
}

/// How far inside BT.709 a pixel of codes `rgb` is: its least linear BT.709 component plus the
/// tolerance × its luminance (negative: outside), through `params.gamut_rows`. The test is
/// floating point, so the GPU may decide otherwise where this is within a few units of the
/// last place of zero.
pub fn gamut_margin(rgb: [u32; 3], table: &[f32], params: &MarkParams) -> f32 {
    let lin = rgb.map(|c| table[c as usize]);
    let row = |r: usize| {
        let w = params.gamut_rows[r];
        w[0] * lin[0] + w[1] * lin[1] + w[2] * lin[2]
    };
    let c = [row(0), row(1), row(2)];
    c[0].min(c[1]).min(c[2]) + params.gamut_tolerance * row(3)
}
