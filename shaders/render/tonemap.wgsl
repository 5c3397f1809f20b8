// HDR → SDR display math for the picture: the BT.2390 tone curve, wider primaries (BT.2020,
// Display P3) → BT.709 with gamut mapping, and the BT.1886 encoding for an SDR screen.
// Functions only: prepended to picture.wgsl, after colour/transfer.wgsl (the transfer functions
// it calls). Twin: src/render/tonemap.rs (same names, same order of operations; the standards
// are cited there).

const BT709_LUMA: vec3f = vec3f(0.2126, 0.7152, 0.0722);

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

// The source's linear RGB → BT.709's by rows r, g, b (colour::primaries::gamut_rows).
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
