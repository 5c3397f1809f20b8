// Transfer functions: PQ and HLG signals to light and back, the HLG OOTF, BT.1886, and the
// light a signal shows at. Functions only: prepended to tonemap.wgsl (for picture.wgsl and
// peak.wgsl). Twin: src/colour/transfer.rs (same names, same order of operations; the
// standards are cited there).

const REFERENCE_WHITE_NITS: f32 = 203.0; // ITU-R BT.2408 reference white

// SMPTE ST 2084
const PQ_M1: f32 = 0.1593017578125; // 2610 / 16384
const PQ_M2: f32 = 78.84375; // 2523 / 4096 · 128
const PQ_C1: f32 = 0.8359375; // 3424 / 4096
const PQ_C2: f32 = 18.8515625; // 2413 / 4096 · 32
const PQ_C3: f32 = 18.6875; // 2392 / 4096 · 32
const PQ_PEAK_NITS: f32 = 10000.0;

// ARIB STD-B67 / BT.2100 HLG: b = 1 − 4a, c = 0.5 − a·ln(4a)
const HLG_A: f32 = 0.17883277;
const HLG_B: f32 = 0.28466892;
const HLG_C: f32 = 0.5599107;
const HLG_NOMINAL_PEAK_NITS: f32 = 1000.0;
const LOG2_10: f32 = 3.32192809; // WGSL has no log10

// twin: transfer_code in src/colour/transfer.rs
const TRANSFER_SDR: u32 = 0u;
const TRANSFER_PQ: u32 = 1u;
const TRANSFER_HLG: u32 = 2u;

fn pq_eotf(e: f32) -> f32 {
    let p = pow(clamp(e, 0.0, 1.0), 1.0 / PQ_M2);
    let y = pow(max(p - PQ_C1, 0.0) / (PQ_C2 - PQ_C3 * p), 1.0 / PQ_M1);
    return y * PQ_PEAK_NITS;
}

fn pq_inverse_eotf(nits: f32) -> f32 {
    let y = pow(clamp(nits / PQ_PEAK_NITS, 0.0, 1.0), PQ_M1);
    // (c1 + c2·y) / (1 + c3·y), written so that every step rises with y
    return pow(PQ_C2 / PQ_C3 - (PQ_C2 / PQ_C3 - PQ_C1) / (1.0 + PQ_C3 * y), PQ_M2);
}

fn hlg_oetf(l: f32) -> f32 {
    let scene = max(l, 0.0);
    if scene <= 1.0 / 12.0 {
        return sqrt(3.0 * scene);
    } else {
        return HLG_A * log(12.0 * scene - HLG_B) + HLG_C;
    }
}

fn hlg_inverse_oetf(e: f32) -> f32 {
    let signal = max(e, 0.0);
    if signal <= 0.5 {
        return signal * signal / 3.0;
    } else {
        return (exp((signal - HLG_C) / HLG_A) + HLG_B) / 12.0;
    }
}

// Each channel by itself: BT.2408's scene-light route to SDR, as zscale shows HLG.
fn hlg_ootf(rgb: vec3f, peak_nits: f32) -> vec3f {
    let gamma = 1.2 + 0.42 * log2(peak_nits / 1000.0) / LOG2_10;
    return peak_nits * pow(max(rgb, vec3f(0.0)), vec3f(gamma));
}

fn bt1886_eotf(v: f32) -> f32 {
    return pow(max(v, 0.0), 2.4);
}

fn bt1886_inverse_eotf(l: f32) -> f32 {
    return pow(max(l, 0.0), 1.0 / 2.4);
}

fn signal_to_nits(signal: vec3f, transfer: u32) -> vec3f {
    switch transfer {
        case TRANSFER_PQ: {
            return vec3f(pq_eotf(signal.r), pq_eotf(signal.g), pq_eotf(signal.b));
        }
        case TRANSFER_HLG: {
            let scene = vec3f(hlg_inverse_oetf(signal.r), hlg_inverse_oetf(signal.g), hlg_inverse_oetf(signal.b));
            return hlg_ootf(scene, HLG_NOMINAL_PEAK_NITS);
        }
        default: {
            return vec3f(bt1886_eotf(signal.r), bt1886_eotf(signal.g), bt1886_eotf(signal.b)) * REFERENCE_WHITE_NITS;
        }
    }
}
