// The peak light of an HDR stream, measured from each frame's histogram (the R'G'B' signal as
// counted, before tone mapping) and smoothed over time as mpv's hdr-compute-peak does: the
// highest bin that holds more than PEAK_FRACTION of the pixels in any channel, counted from the
// top, is the frame's peak; an exponential average over about SMOOTHING_FRAMES frames follows it,
// and a scene cut (the average brightness jumping) resets it. The picture pass reads the result
// from `state`. One workgroup; colour/transfer.wgsl (transfer functions) is prepended, with
// tonemap.wgsl.
// CPU twin: src/render/peak.rs, `frame_measure` and `PeakState::update`.

const WORKGROUP: u32 = 256u;
// Pixels at or above the peak: 1/20000 of the frame (the 99.995th percentile), at least one.
const PEAK_FRACTION_INVERSE: u32 = 20000u;
const SMOOTHING_FRAMES: f32 = 20.0;
// A change of the average signal (0..1) between these two blends from smoothing to a reset.
const SCENE_CUT_LOW: f32 = 0.03;
const SCENE_CUT_HIGH: f32 = 0.08;

struct PeakParams { // twin: PeakParams in src/render/peak.rs
    pixel_count: u32,
    transfer: u32, // TRANSFER_PQ or TRANSFER_HLG
    bound_nits: f32, // the stream's metadata peak, or HLG's nominal / 1000 nits
    _pad: u32,
}

struct PeakState { // twin: PeakState in src/render/peak.rs
    peak_nits: f32, // what the picture maps from: the smoothed peak, within [203, bound]
    smoothed_signal: f32, // the smoothed peak as a signal value (0..1)
    smoothed_average: f32, // the smoothed average luminance signal (0..1)
    frames: u32, // frames measured since the stream opened
}

@group(0) @binding(0) var<storage, read> histogram: array<vec4u>;
@group(0) @binding(1) var<uniform> params: PeakParams;
@group(0) @binding(2) var<storage, read_write> state: PeakState;

var<workgroup> suffix: array<vec3u, WORKGROUP>;
var<workgroup> luma_sum: array<f32, WORKGROUP>;
var<workgroup> top_bin: atomic<u32>;

@compute @workgroup_size(256)
fn measure_peak(@builtin(local_invocation_index) t: u32) {
    let bins = arrayLength(&histogram);
    // Each invocation sums a run of `per` bins (bins is a power of two from 16 to 1024).
    let per = max(bins / WORKGROUP, 1u);
    let first = t * per;
    var own = vec3u(0u);
    var luma = 0.0;
    if first < bins {
        for (var i = 0u; i < per; i++) {
            let counts = histogram[first + i];
            own += counts.rgb;
            luma += f32(counts.a) * (f32(first + i) + 0.5);
        }
    }
    if t == 0u {
        atomicStore(&top_bin, 0u);
    }
    suffix[t] = own;
    luma_sum[t] = luma;
    workgroupBarrier();
    // Inclusive suffix sums (Hillis-Steele) and a tree sum of the luminance.
    for (var offset = 1u; offset < WORKGROUP; offset <<= 1u) {
        var above = vec3u(0u);
        if t + offset < WORKGROUP {
            above = suffix[t + offset];
        }
        let total = suffix[t] + above;
        workgroupBarrier();
        suffix[t] = total;
        workgroupBarrier();
    }
    for (var half = WORKGROUP / 2u; half > 0u; half >>= 1u) {
        if t < half {
            luma_sum[t] += luma_sum[t + half];
        }
        workgroupBarrier();
    }
    // Walking down this run from the count of everything above it: the highest bin at which
    // some channel reaches the threshold.
    let threshold = max(params.pixel_count / PEAK_FRACTION_INVERSE, 1u);
    if first < bins {
        var running = suffix[t] - own;
        for (var i = per; i > 0u; i--) {
            running += histogram[first + i - 1u].rgb;
            if any(running >= vec3u(threshold)) {
                atomicMax(&top_bin, first + i - 1u);
                break;
            }
        }
    }
    workgroupBarrier();
    if t != 0u {
        return;
    }
    // The top of the peak bin, so that the peak never falls below the brightest pixels.
    let peak_signal = min(f32(atomicLoad(&top_bin) + 1u) / f32(bins), 1.0);
    let average = luma_sum[0] / (f32(bins) * f32(max(params.pixel_count, 1u)));
    var s = state;
    if s.frames == 0u {
        s.smoothed_signal = peak_signal;
        s.smoothed_average = average;
    } else {
        let cut = smoothstep(SCENE_CUT_LOW, SCENE_CUT_HIGH, abs(average - s.smoothed_average));
        let weight = max(1.0 / SMOOTHING_FRAMES, cut);
        s.smoothed_signal = mix(s.smoothed_signal, peak_signal, weight);
        s.smoothed_average = mix(s.smoothed_average, average, weight);
    }
    s.frames += 1u;
    // The light of the peak signal as a grey, as the picture turns signals into light.
    let peak_nits = signal_to_nits(vec3f(s.smoothed_signal), params.transfer).r;
    s.peak_nits = clamp(peak_nits, REFERENCE_WHITE_NITS, max(params.bound_nits, REFERENCE_WHITE_NITS));
    state = s;
}
