// HDR → SDR display math for the picture: PQ and HLG signals to linear light, the BT.2390 tone
// curve, wider primaries (BT.2020, Display P3) → BT.709 with gamut mapping, and the BT.1886
// encoding for an SDR screen.
// Functions only: prepended to picture.wgsl. Twin: src/render/tonemap.rs (same names, same
// order of operations; the standards are cited there).

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

const BT709_LUMA: vec3f = vec3f(0.2126, 0.7152, 0.0722);

// twin: Transfer::code in src/render/tonemap.rs
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

fn eetf_bt2390(nits: f32, source_peak: f32, target_peak: f32) -> f32 {
    if source_peak <= target_peak {
        return nits;
    }
    let source_pq = pq_inverse_eotf(source_peak);
    let e1 = min(pq_inverse_eotf(nits) / source_pq, 1.0);
    let max_lum = pq_inverse_eotf(target_peak) / source_pq;
    return pq_eotf(bt2390_knee(e1, max_lum) * source_pq);
}

// The identity below KS, BT.2390's Hermite spline above it, in the form
// maxLum − (1 − KS)·(1 − T)³/3 that rounding cannot make dip, joined without a seam.
fn bt2390_knee(e1: f32, max_lum: f32) -> f32 {
    let ks = 1.5 * max_lum - 0.5;
    let s = 1.0 - (e1 - ks) / (1.0 - ks);
    let spline = max_lum - (1.0 - ks) * (s * s * s) / 3.0;
    return max(spline, min(e1, ks));
}

fn gamut_map_bt709(rgb_709_linear: vec3f) -> vec3f {
    let rgb = rgb_709_linear;
    if all(rgb >= vec3f(0.0)) && all(rgb <= vec3f(1.0)) {
        return rgb;
    }
    let y = clamp(dot(BT709_LUMA, rgb), 0.0, 1.0);
    // The largest t in [0, 1] with y + t·(c − y) inside [0, 1] for every channel.
    var t = 1.0;
    for (var i = 0; i < 3; i++) {
        let c = rgb[i];
        if c > 1.0 {
            t = min(t, (1.0 - y) / (c - y));
        }
        if c < 0.0 {
            t = min(t, y / (y - c));
        }
    }
    return clamp(y + t * (rgb - y), vec3f(0.0), vec3f(1.0));
}

// An SDR signal of wider primaries than BT.709 for a BT.709 screen (twin: sdr_to_bt709 in
// src/render/tonemap.rs): in linear light (BT.1886), converted by the rows r, g, b, colours
// outside BT.709 brought in toward their grey, and back to the signal.
fn sdr_to_bt709(signal: vec3f, r: vec3f, g: vec3f, b: vec3f) -> vec3f {
    let lin = vec3f(bt1886_eotf(signal.r), bt1886_eotf(signal.g), bt1886_eotf(signal.b));
    let display = gamut_map_bt709(convert_rows(lin, r, g, b));
    return vec3f(bt1886_inverse_eotf(display.r), bt1886_inverse_eotf(display.g), bt1886_inverse_eotf(display.b));
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

// The source's linear RGB → BT.709's by rows r, g, b (marks::gamut_rows).
fn convert_rows(rgb: vec3f, r: vec3f, g: vec3f, b: vec3f) -> vec3f {
    return vec3f(dot(r, rgb), dot(g, rgb), dot(b, rgb));
}

// An HDR signal for the SDR screen; a source of wider primaries (`wide`) is converted to
// BT.709 by the rows r, g, b after the tone curve.
fn tone_map_pixel(signal: vec3f, transfer: u32, peak_nits: f32, wide: bool, r: vec3f, g: vec3f, b: vec3f) -> vec3f {
    if transfer == TRANSFER_SDR {
        return signal;
    }
    let nits = signal_to_nits(signal, transfer);
    let max_rgb = max(nits.r, max(nits.g, nits.b));
    var scale = 0.0;
    if max_rgb > 0.0 {
        scale = eetf_bt2390(max_rgb, peak_nits, REFERENCE_WHITE_NITS) / max_rgb;
    }
    let mapped = nits * scale;
    var bt709 = mapped;
    if wide {
        bt709 = convert_rows(mapped, r, g, b);
    }
    let display = gamut_map_bt709(bt709 / REFERENCE_WHITE_NITS);
    return vec3f(bt1886_inverse_eotf(display.r), bt1886_inverse_eotf(display.g), bt1886_inverse_eotf(display.b));
}
