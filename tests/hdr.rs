//! HDR pictures shown on an SDR screen. The SDR kitten mastered into PQ and HLG by zscale, with
//! SDR white at BT.2408's 203 nits as HDR masters place it, must come back as the original:
//! through the CPU chain (`render::tonemap::tone_map_pixel`) exactly, and through the whole
//! player (10-bit video, GPU conversion, the peak measured from the frame, the picture pass's
//! tone mapping and dither) within a few levels.

mod common;

use histoplay::colour::transfer::signal_to_nits;
use histoplay::colour::{Primaries, Transfer};
use histoplay::render::tonemap::{sdr_to_bt709, tone_map_pixel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What zscale is told the 8-bit input is: full-range R'G'B' in BT.709, display-referred
/// (zimg's `bt709` transfer is then BT.1886's pure 2.4 power, the inverse of ours), and where
/// SDR white goes: `npl` maps linear 1.0 to that many nits in PQ and in display-referred HLG.
const FROM_SDR: &str = "zscale=tin=bt709:pin=bt709:min=gbr:rin=full:m=gbr:r=full:p=bt2020:npl=203";

/// HDR10's transfer and primaries, the R'G'B' signal written as is (no Y'CbCr step to match),
/// with zimg's exact curves (`agamma=0`).
const PQ_MASTER: &str = "agamma=0:t=smpte2084,format=gbrp16le";

/// HLG as zscale makes it by default: each of R, G and B through the inverse of the 1000-nit
/// display's OOTF (γ = 1.2) and the OETF, so SDR white lands at BT.2408's 75%. histoplay shows
/// HLG with that OOTF, channel by channel (BT.2408's scene-light route to SDR), and gets the
/// original back. (With `agamma=0` zimg applies BT.2100's luminance-weighted OOTF instead,
/// whose masters come back about 20% more colourful.)
const HLG_MASTER: &str = "t=arib-std-b67,format=gbrp16le";

/// The master, tone-mapped from its own brightest pixel, comes back as the original. That pixel
/// is just under SDR white's 203 nits, so the tone curve leaves the picture alone and the chain
/// must undo zscale's exactly.
fn assert_master_comes_back(name: &str, chain: &str, transfer: Transfer) {
    assert_comes_back(&Master::make(name, chain, transfer), name);
}

fn assert_comes_back(master: &Master, name: &str) {
    let peak = master.brightest_nits();
    assert!((200.0..=203.5).contains(&peak), "{name}: peak {peak} nits");
    let result = master.compare(peak);
    assert!(result.mean_abs_diff <= 0.01, "{name}: {result:?}");
    assert!(result.max_abs_diff <= 1, "{name}: {result:?}");
    assert!((0.999..=1.001).contains(&result.saturation_ratio), "{name}: {result:?}");
}

#[test]
fn pq_master_tone_maps_back_to_the_original() {
    // Achieved: 0.0002 levels on average, 1 at most (rounding), saturation kept to 4 places.
    assert_master_comes_back("pq", PQ_MASTER, Transfer::Pq);
}

#[test]
fn hlg_master_tone_maps_back_to_the_original() {
    // Achieved: 0.0004 levels on average, 1 at most, saturation kept to 4 places.
    assert_master_comes_back("hlg", HLG_MASTER, Transfer::Hlg);
}

/// With the peak taken as 1000 nits (HLG's nominal peak, a common HDR10 mastering peak) rather
/// than measured, the curve dims what lies above its knee (88 nits, SDR level 180) and leaves
/// the rest, hue and saturation included.
#[test]
fn an_assumed_1000_nit_peak_dims_only_the_highlights() {
    let master = Master::make("pq", PQ_MASTER, Transfer::Pq);
    let result = master.compare(1000.0);
    // Achieved: 0.21 levels on average, 25 at most (the brightest fur), nothing brighter than
    // the original but for rounding, saturation kept to 4 places.
    assert!(result.mean_abs_diff <= 0.25, "{result:?}");
    assert!(result.max_brightening <= 1, "{result:?}");
    assert!((0.999..=1.001).contains(&result.saturation_ratio), "{result:?}");
}

/// The linear RGB → BT.709 rows the picture converts a source of `primaries` with.
fn rows_of(primaries: Primaries) -> [[f32; 4]; 3] {
    let rows = histoplay::colour::primaries::gamut_rows(primaries);
    [rows[0], rows[1], rows[2]]
}

/// `FROM_SDR` into `primaries` (zimg's names).
fn from_sdr(primaries: Primaries) -> String {
    let name = match primaries {
        Primaries::Bt709 => "bt709",
        Primaries::P3 => "smpte432",
        Primaries::Bt2020 => "bt2020",
        Primaries::DciP3 => "smpte431",
        Primaries::Film => "film",
        Primaries::Bt470m => "bt470m",
        Primaries::Ebu3213 => "ebu3213",
    };
    FROM_SDR.replace(":p=bt2020:", &format!(":p={name}:"))
}

/// The master as a 10-bit 4:4:4 Y'CbCr video (BT.2020 matrix, limited range, lossless FFV1),
/// tagged as HDR streams are.
fn master_video(name: &str, transfer: &str, trc_tag: &str) -> PathBuf {
    let (width, height, original) = kitten_quarter();
    let chain = format!("{FROM_SDR}:t={transfer}:m=2020_ncl:r=limited,format=yuv444p10le");
    master_video_of(
        &original,
        (width, height),
        name,
        &chain,
        ("bt2020", trc_tag),
        &["-c:v", "ffv1"],
        "mkv",
    )
}

/// `original` mastered by `chain` and encoded with `codec`, tagged with its primaries and
/// transfer and as HDR streams are otherwise (BT.2020 matrix, limited range).
fn master_video_of(
    original: &[[u8; 3]],
    (width, height): (u32, u32),
    name: &str,
    chain: &str,
    (primaries, trc_tag): (&str, &str),
    codec: &[&str],
    extension: &str,
) -> PathBuf {
    let input = raw_input(original);
    let (size, input) = (format!("{width}x{height}"), input.to_str().unwrap().to_owned());
    let mut args = vec![
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-s",
        &size,
        "-i",
        &input,
        "-vf",
        chain,
        "-color_primaries",
        primaries,
        "-color_trc",
        trc_tag,
        "-colorspace",
        "bt2020nc",
        "-color_range",
        "tv",
    ];
    args.extend_from_slice(codec);
    common::fixture(&format!("kitten-{name}.{extension}"), &args)
}

/// `histoplay render` of `path` at its own size: RGBA rows.
fn render(path: &Path) -> Vec<u8> {
    render_with(path, &[], "render")
}

/// `histoplay render` of `path` with `args` at its own size, to a PNG named by `tag`.
fn render_with(path: &Path, args: &[&std::ffi::OsStr], tag: &str) -> Vec<u8> {
    let out = common::repo_path(&format!(
        "target/fixtures/{}.{tag}.png",
        path.file_name().unwrap().to_string_lossy()
    ));
    let status = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("render")
        .arg(path)
        .args(args)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("histoplay runs");
    assert!(status.success(), "render {}", path.display());
    image::open(&out).unwrap().to_rgba8().into_raw()
}

/// The rendered picture against the original, over the rows above the histogram quads (the
/// bottom quarter).
fn compare_render(rendered: &[u8], width: u32, height: u32, original: &[[u8; 3]]) -> Comparison {
    let rows = height * 7 / 10;
    let (mut sum, mut max_abs_diff, mut max_brightening) = (0u64, 0, 0);
    let (mut ours_saturation, mut original_saturation) = (0.0, 0.0);
    for i in 0..(rows * width) as usize {
        let ours = [rendered[4 * i], rendered[4 * i + 1], rendered[4 * i + 2]];
        for (a, b) in ours.iter().zip(&original[i]) {
            let diff = i32::from(*a) - i32::from(*b);
            sum += u64::from(diff.unsigned_abs());
            max_abs_diff = max_abs_diff.max(diff.abs());
            max_brightening = max_brightening.max(diff);
        }
        ours_saturation += saturation(ours);
        original_saturation += saturation(original[i]);
    }
    Comparison {
        mean_abs_diff: sum as f64 / (3 * rows * width) as f64,
        max_abs_diff,
        max_brightening,
        saturation_ratio: ours_saturation / original_saturation,
    }
}

#[test]
fn pq_and_hlg_videos_render_as_the_original() {
    let (width, height, original) = kitten_quarter();
    for (name, transfer, tag) in [
        ("pq", "smpte2084", "smpte2084"),
        ("hlg", "arib-std-b67", "arib-std-b67"),
    ] {
        let video = master_video(&format!("{name}-10bit"), transfer, tag);
        let result = compare_render(&render(&video), width, height, &original);
        // Achieved: PQ 0.39 levels on average, HLG 0.21; at most 11 and 7 (dark channels,
        // where 10-bit PQ and HLG codes are coarse next to 8-bit gamma ones); saturation
        // 99.9% and 99.8%. FFmpeg's own zscale + tonemap chain is 9 levels off.
        assert!(result.mean_abs_diff <= 0.6, "{name}: {result:?}");
        assert!(result.max_abs_diff <= 16, "{name}: {result:?}");
        assert!(result.saturation_ratio >= 0.99, "{name}: {result:?}");
    }
}

/// HDR mastered with Display P3 primaries (as phones record it) and tagged so is shown in its
/// own colours: tone-mapped, then converted to BT.709, it comes back as the original, through
/// the CPU chain and through the whole player. Its codes taken as BT.709's after the tone
/// curve (as they were before P3 HDR was converted) keep far less of its saturation.
#[test]
fn display_p3_pq_master_and_video_render_as_the_original() {
    let master = Master::make_in("pq-p3", PQ_MASTER, Transfer::Pq, Primaries::P3);
    assert_comes_back(&master, "pq-p3");
    let unconverted = master.compare_shown(master.brightest_nits(), None);
    assert!(unconverted.saturation_ratio < 0.9, "{unconverted:?}");
    let (width, height, original) = kitten_quarter();
    let chain = format!(
        "{}:t=smpte2084:m=2020_ncl:r=limited,format=yuv444p10le",
        from_sdr(Primaries::P3)
    );
    let codec = ["-c:v", "ffv1"];
    let tags = ("smpte432", "smpte2084");
    let video = master_video_of(&original, (width, height), "pq-p3-10bit", &chain, tags, &codec, "mkv");
    let result = compare_render(&render(&video), width, height, &original);
    // Achieved: 0.35 levels on average, 8 at most, saturation 99.8% (the codes taken as
    // BT.709's: 85%, up to 42 levels off). Bounds as the BT.2020 master's.
    assert!(result.mean_abs_diff <= 0.6, "{result:?}");
    assert!(result.max_abs_diff <= 16, "{result:?}");
    assert!((0.99..=1.01).contains(&result.saturation_ratio), "{result:?}");
}

/// Hasler and Süsstrunk's colourfulness of 8-bit R'G'B' pixels: the spread and mean of the
/// opponent pairs R − G and (R + G)/2 − B.
fn colourfulness(pixels: impl Iterator<Item = [u8; 3]> + Clone) -> f64 {
    let opponents = pixels.map(|[r, g, b]| {
        let (r, g, b) = (f64::from(r), f64::from(g), f64::from(b));
        (r - g, 0.5 * (r + g) - b)
    });
    let n = opponents.clone().count() as f64;
    let (mean_rg, mean_yb) = opponents
        .clone()
        .fold((0.0, 0.0), |(a, b), (rg, yb)| (a + rg / n, b + yb / n));
    let (var_rg, var_yb) = opponents.fold((0.0, 0.0), |(a, b), (rg, yb)| {
        (a + (rg - mean_rg).powi(2) / n, b + (yb - mean_yb).powi(2) / n)
    });
    (var_rg + var_yb).sqrt() + 0.3 * (mean_rg * mean_rg + mean_yb * mean_yb).sqrt()
}

#[test]
fn hevc_masters_made_as_ffmpeg_makes_them_keep_their_colour_and_white() {
    // The kitten under a band of SDR white, mastered into HLG and PQ with zscale's defaults and
    // encoded as HDR is delivered (HEVC Main 10, 4:2:0): shown on the SDR screen, each keeps
    // its colourfulness within 10% and its white within 8 levels. (With BT.2100's
    // luminance-weighted OOTF, HLG kept 82% of its colourfulness.)
    let (width, height, kitten) = kitten_quarter();
    // 4:2:0 takes whole pairs of rows.
    let height = height & !1;
    let band = 8 * width as usize;
    let mut original = kitten[..(width * height) as usize].to_vec();
    original[..band].fill([255; 3]);
    let rows = (height * 7 / 10) as usize;
    let shown_part = |pixels: &[[u8; 3]]| pixels[band..rows * width as usize].to_vec();
    let wanted = colourfulness(shown_part(&original).into_iter());
    for (name, transfer) in [("hlg", "arib-std-b67"), ("pq", "smpte2084")] {
        let chain = format!("{FROM_SDR}:t={transfer}:m=2020_ncl:r=limited,format=yuv420p10le");
        let codec = ["-c:v", "libx265", "-crf", "16", "-x265-params", "log-level=error"];
        let video = master_video_of(
            &original,
            (width, height),
            &format!("{name}-white-band"),
            &chain,
            ("bt2020", transfer),
            &codec,
            "mkv",
        );
        let rendered = render(&video);
        let pixels: Vec<[u8; 3]> = rendered.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect();
        let ratio = colourfulness(shown_part(&pixels).into_iter()) / wanted;
        // Rows 2 to 5 of the band: clear of the picture's edge and of the kitten below it.
        let white: Vec<u8> = pixels[2 * width as usize..6 * width as usize]
            .iter()
            .flatten()
            .copied()
            .collect();
        let white_mean = white.iter().map(|&c| f64::from(c)).sum::<f64>() / white.len() as f64;
        // Achieved: HLG 0.97 and 254.0, PQ 0.98 and 253.0 (4:2:0 costs a little colour).
        assert!((0.9..=1.1).contains(&ratio), "{name}: colourfulness ratio {ratio:.3}");
        assert!(white_mean >= 247.0, "{name}: white at {white_mean:.1}");
    }
}

#[test]
fn histograms_count_the_signal_not_the_tone_mapped_picture() {
    // The PQ master and the same stream tagged SDR count the same: the code values, as
    // colourists' scopes show them; only the picture is tone-mapped. At 1024 bins, 10 bits.
    let pq = master_video("pq-10bit", "smpte2084", "smpte2084");
    let name = "kitten-pq-tagged-sdr.mkv";
    let sdr = common::fixture(
        name,
        &[
            "-i",
            pq.to_str().unwrap(),
            "-c",
            "copy",
            "-color_trc",
            "bt709",
            "-color_primaries",
            "bt709",
        ],
    );
    let hist = |path: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["hist", path.to_str().unwrap(), "--bins", "1024"])
            .output()
            .expect("histoplay runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let counted = hist(&pq);
    assert!(counted.contains("\"depth\":10"), "{counted}");
    assert_eq!(counted, hist(&sdr));
}

#[test]
fn the_peak_pass_matches_its_cpu_twin() {
    use histoplay::colour::{ColorVolume, Primaries};
    use histoplay::engine::histogram::Histogram;
    use histoplay::render::peak::{measure, peak_bound, PeakPass, PeakState};

    let ctx = common::gpu();
    let pass = PeakPass::new(&ctx.device);
    for (bins, transfer) in [(256, Transfer::Pq), (1024, Transfer::Pq), (16, Transfer::Hlg)] {
        let volume = ColorVolume {
            transfer,
            primaries: Primaries::Bt2020,
            peak_nits: None,
        };
        let pixels = 64 * 48;
        let histogram = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test histogram"),
            size: u64::from(bins) * 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let binding = pass.bind(&ctx.device, &histogram, pixels, &volume);
        let mut expected = PeakState::default();
        // Frames: a scene, a brighter frame of it, a cut to a dark scene, a few stray pixels.
        let frames: [&[(u32, u32)]; 4] = [
            &[(bins / 2, pixels)],
            &[(bins / 2, pixels - 3), (bins - 2, 3)],
            &[(bins / 8, pixels)],
            &[(bins / 8, pixels - 1), (bins - 1, 1)],
        ];
        for (n, frame) in frames.iter().enumerate() {
            let mut h = Histogram::zeroed(bins);
            for &(bin, count) in frame.iter() {
                h.counts[bin as usize] = [count, count / 2, count / 3, count];
            }
            let words: Vec<u32> = h.counts.iter().flatten().copied().collect();
            ctx.queue.write_buffer(&histogram, 0, bytemuck::cast_slice(&words));
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pass.encode(&mut encoder, &binding);
            ctx.queue.submit([encoder.finish()]);
            let bytes = histoplay::gpu::readback::read_buffer(&ctx, &binding.state, 0, 16).unwrap();
            let got: PeakState = bytemuck::pod_read_unaligned(&bytes);
            expected.update(measure(&h, pixels), transfer, peak_bound(&volume));
            let what = format!("{bins} bins, {transfer:?}, frame {n}: {got:?} vs {expected:?}");
            assert_eq!(got.frames, expected.frames, "{what}");
            assert!((got.smoothed_signal - expected.smoothed_signal).abs() < 1e-5, "{what}");
            assert!(
                (got.smoothed_average - expected.smoothed_average).abs() < 1e-5,
                "{what}"
            );
            assert!(
                (got.peak_nits - expected.peak_nits).abs() <= 1e-3 * expected.peak_nits,
                "{what}"
            );
        }
    }
}

/// The kitten as zscale mastered it, with the original beside it.
struct Master {
    original: Vec<[u8; 3]>,
    /// R'G'B' signal, 0..1.
    signal: Vec<[f32; 3]>,
    transfer: Transfer,
    primaries: Primaries,
}

#[derive(Debug)]
struct Comparison {
    /// In 8-bit levels, over every channel of every pixel.
    mean_abs_diff: f64,
    max_abs_diff: i32,
    /// Most levels any channel came out above the original.
    max_brightening: i32,
    /// Mean HSV saturation of ours over the original's.
    saturation_ratio: f64,
}

impl Master {
    /// The kitten mastered into BT.2020 by `master`.
    fn make(name: &str, master: &str, transfer: Transfer) -> Self {
        Self::make_in(name, master, transfer, Primaries::Bt2020)
    }

    /// The kitten mastered into `primaries` by `master`.
    fn make_in(name: &str, master: &str, transfer: Transfer, primaries: Primaries) -> Self {
        let (width, height, original) = kitten_quarter();
        let input = raw_input(&original);
        let (size, input) = (format!("{width}x{height}"), input.to_str().unwrap().to_owned());
        let chain = format!("{}:{master}", from_sdr(primaries));
        let path = common::fixture(
            &format!("kitten-{name}.gbrp16le"),
            &[
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", &size, "-i", &input, "-vf", &chain, "-f", "rawvideo",
            ],
        );
        let bytes = std::fs::read(path).unwrap();
        let n = original.len();
        assert_eq!(bytes.len(), n * 3 * 2, "a gbrp16le frame of the kitten's size");
        // Planes G, B, R of little-endian 16-bit samples.
        let sample = |plane: usize, i: usize| {
            let at = 2 * (plane * n + i);
            f32::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])) / 65535.0
        };
        let signal = (0..n).map(|i| [sample(2, i), sample(0, i), sample(1, i)]).collect();
        Self {
            original,
            signal,
            transfer,
            primaries,
        }
    }

    /// The brightest max(R, G, B) in nits: the picture's peak, as the tone curve takes it.
    fn brightest_nits(&self) -> f32 {
        let brightest = |s: &[f32; 3]| signal_to_nits(*s, self.transfer).into_iter().fold(0.0, f32::max);
        self.signal.iter().map(brightest).fold(0.0, f32::max)
    }

    /// Shown through the CPU chain, converted from the master's primaries.
    fn compare(&self, peak_nits: f32) -> Comparison {
        self.compare_shown(peak_nits, Some(rows_of(self.primaries)))
    }

    /// Shown through the CPU chain with `to_bt709` (None: the codes taken as BT.709's).
    fn compare_shown(&self, peak_nits: f32, to_bt709: Option<[[f32; 4]; 3]>) -> Comparison {
        let (mut sum, mut max_abs_diff, mut max_brightening) = (0u64, 0, 0);
        let (mut ours_saturation, mut original_saturation) = (0.0, 0.0);
        for (signal, original) in self.signal.iter().zip(&self.original) {
            let shown = tone_map_pixel(*signal, self.transfer, peak_nits, to_bt709);
            let ours = shown.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
            for (a, b) in ours.iter().zip(original) {
                let diff = i32::from(*a) - i32::from(*b);
                sum += u64::from(diff.unsigned_abs());
                max_abs_diff = max_abs_diff.max(diff.abs());
                max_brightening = max_brightening.max(diff);
            }
            ours_saturation += saturation(ours);
            original_saturation += saturation(*original);
        }
        Comparison {
            mean_abs_diff: sum as f64 / (3 * self.original.len()) as f64,
            max_abs_diff,
            max_brightening,
            saturation_ratio: ours_saturation / original_saturation,
        }
    }
}

/// Every 4th pixel of every 4th row of the kitten (width, height, pixels): the same content,
/// 16 times quicker to check in a debug build, and no filter between it and the decoded photo.
fn kitten_quarter() -> (u32, u32, Vec<[u8; 3]>) {
    let kitten = common::kitten();
    let (width, height) = (kitten.width.div_ceil(4), kitten.height.div_ceil(4));
    let mut pixels = Vec::with_capacity((width * height) as usize);
    for y in (0..kitten.height).step_by(4) {
        for x in (0..kitten.width).step_by(4) {
            let at = 4 * (y * kitten.width + x) as usize;
            pixels.push([kitten.pixels[at], kitten.pixels[at + 1], kitten.pixels[at + 2]]);
        }
    }
    (width, height, pixels)
}

/// `kitten_quarter` mastered into the 8-bit codes of `primaries` (2.4 gamma; linear light taken
/// there by the inverse of the rows that take it to BT.709, the gamut's white adapted): its size,
/// the original, and the codes. The gamut's white is white (R = G = B).
fn kitten_coded_in(primaries: Primaries) -> (u32, u32, Vec<[u8; 3]>, Vec<[u8; 3]>) {
    use histoplay::colour::primaries::{gamut_rows, invert_rows};
    let (width, height, original) = kitten_quarter();
    let to_709 = gamut_rows(primaries);
    let to_source = invert_rows([to_709[0], to_709[1], to_709[2]]);
    let code = |light: f32| (255.0 * light.max(0.0).powf(1.0 / 2.4)).round().min(255.0) as u8;
    let coded = original
        .iter()
        .map(|rgb| {
            let lin = rgb.map(|c| (f32::from(c) / 255.0).powf(2.4));
            to_source.map(|row| code(row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]))
        })
        .collect();
    assert_eq!(to_source.map(|row| code(row[0] + row[1] + row[2])), [255, 255, 255]);
    (width, height, original, coded)
}

/// R'G'B' `pixels` as a lossless FFV1 video `name` (planar, full range, BT.709's transfer)
/// tagged with primaries `tag`.
fn tagged_rgb_video(name: &str, pixels: &[[u8; 3]], width: u32, height: u32, tag: &str) -> PathBuf {
    let input = raw_input(pixels);
    let size = format!("{width}x{height}");
    #[rustfmt::skip]
    let video = common::fixture(name, &[
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", &size, "-i", input.to_str().unwrap(),
        "-pix_fmt", "gbrp", "-c:v", "ffv1",
        "-color_primaries", tag, "-color_trc", "bt709", "-color_range", "pc",
    ]);
    video
}

/// HSV saturation: (max − min) / max.
fn saturation(rgb: [u8; 3]) -> f64 {
    let max = f64::from(*rgb.iter().max().unwrap());
    let min = f64::from(*rgb.iter().min().unwrap());
    if max > 0.0 {
        (max - min) / max
    } else {
        0.0
    }
}

/// The pixels as raw rgb24 for FFmpeg, so that both sides start from the same decoded kitten
/// (FFmpeg's own decoding of the JPEG differs from the `image` crate's by 0.65 levels on
/// average). Named by a hash of the pixels, so that the masters' recipes change with them.
fn raw_input(pixels: &[[u8; 3]]) -> PathBuf {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    pixels.hash(&mut hasher);
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("kitten-{:016x}.rgb24", hasher.finish()));
    if !path.exists() {
        // Both tests may get here at once: each writes its own file and renames it into place.
        let partial = dir.join(format!(
            "{}.{:?}.partial.rgb24",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&partial, pixels.as_flattened()).unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

#[test]
fn the_peak_light_comes_from_the_frames_where_the_container_has_none() {
    use histoplay::video::source::VideoSource;
    // Raw HEVC: no container to carry HDR10's metadata, only the bitstream's SEI.
    let x265 = "log-level=error:hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:\
                master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50):\
                max-cll=4000,400";
    let hevc = common::fixture(
        "hdr10-sei.hevc",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=10:d=0.3,format=yuv420p10le",
            "-c:v",
            "libx265",
            "-x265-params",
            x265,
            "-color_primaries",
            "bt2020",
            "-color_trc",
            "smpte2084",
            "-colorspace",
            "bt2020nc",
        ],
    );
    let mut source = VideoSource::open(&hevc).unwrap();
    let volume = source.info.volume;
    assert_eq!((volume.transfer, volume.primaries), (Transfer::Pq, Primaries::Bt2020));
    assert_eq!(volume.peak_nits, None);
    assert_eq!(source.info.frame_light.get(), None, "nothing decoded yet");
    source.next_frame().unwrap().unwrap();
    assert_eq!(source.info.frame_light.get(), Some(4000.0), "MaxCLL from the SEI");
    // The QC page says it too, where the stream's header had none.
    let page = std::env::temp_dir().join(format!("histoplay-hdr10-sei-{}.html", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--html"])
        .arg(&page)
        .arg(&hevc)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(
        html.contains("HDR PQ, peak 4000 cd/m² (MaxCLL or the mastering display's, in its frames)"),
        "{html}"
    );
    // Its colour as read, and as tagged (every tag given: no mark).
    assert!(
        html.contains("<td>BT.2020 primaries, HDR PQ transfer, BT.2020 matrix, limited range</td>"),
        "{html}"
    );
    let tags = common::colour_tags(&hevc);
    assert_eq!(tags, "primaries bt2020, transfer smpte2084, matrix bt2020nc, range tv");
    assert!(html.contains(&format!("id=\"colour-tags\">{tags}</td>")), "{html}");
}

/// SDR video of Display P3 primaries (as phones and cameras record it) is shown on the BT.709
/// screen in its own colours: the kitten, mastered into P3 codes here (BT.1886 light, exact
/// primaries) and stored losslessly as RGB, renders back as the BT.709 original. Shown as if
/// its codes were BT.709, it would lose 14% of its saturation.
#[test]
fn display_p3_sdr_video_renders_as_its_bt709_original() {
    let (width, height, original, p3) = kitten_coded_in(Primaries::P3);
    let to_709 = histoplay::colour::primaries::gamut_rows(Primaries::P3);
    let video = tagged_rgb_video("kitten-p3-sdr.mkv", &p3, width, height, "smpte432");
    let as_codes = compare_render(
        &p3.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect::<Vec<_>>(),
        width,
        height,
        &original,
    );
    assert!(
        as_codes.saturation_ratio < 0.9,
        "the P3 codes as they are: {as_codes:?}"
    );
    let rendered = render(&video);
    // The picture pass is its CPU twin's to the dither (half a level) and rounding.
    let twin: Vec<[u8; 3]> = p3
        .iter()
        .map(|p| {
            let shown = sdr_to_bt709(p.map(|c| f32::from(c) / 255.0), [to_709[0], to_709[1], to_709[2]]);
            shown.map(|c| (255.0 * c).round() as u8)
        })
        .collect();
    let against_twin = compare_render(&rendered, width, height, &twin);
    assert!(against_twin.max_abs_diff <= 1, "{against_twin:?}");
    // And the original comes back, but for the rounding of the P3 codes (dark channels, where
    // 8-bit codes are coarse, up to 7 levels; 0.26 on average).
    let result = compare_render(&rendered, width, height, &original);
    assert!(result.mean_abs_diff <= 0.4, "{result:?}");
    assert!(result.max_abs_diff <= 8, "{result:?}");
    assert!((0.999..=1.001).contains(&result.saturation_ratio), "{result:?}");
    // A comparison's picture is shown in A's colours too: the file (as Y'CbCr, which
    // comparisons take) wiped against itself, the line at the right edge, is its own picture.
    let (input, size) = (raw_input(&p3), format!("{width}x{height}"));
    #[rustfmt::skip]
    let yuv = common::fixture("kitten-p3-sdr-yuv.mkv", &[
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", &size, "-i", input.to_str().unwrap(),
        "-vf", "scale=out_color_matrix=bt709:out_range=pc", "-pix_fmt", "yuv444p", "-c:v", "ffv1",
        "-color_primaries", "smpte432", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "pc",
    ]);
    let alone = render_with(&yuv, &[], "alone");
    let args = ["--compare".as_ref(), yuv.as_os_str(), "--split".as_ref(), "1".as_ref()];
    let compared = render_with(&yuv, &args, "compare");
    let against_alone = compare_render(&compared, width, height, &pixels_of(&alone));
    assert_eq!(against_alone.max_abs_diff, 0, "{against_alone:?}");
    let yuv_shown = compare_render(&alone, width, height, &original);
    assert!((0.99..=1.01).contains(&yuv_shown.saturation_ratio), "{yuv_shown:?}");
}

/// SDR video of DCI-P3 primaries (the cinema's, white at x 0.314, y 0.351; FFmpeg's `smpte431`)
/// is shown with its white adapted to the screen's D65, as mpv shows it: the kitten mastered
/// into DCI-P3 codes through the rows the unit tests check against colour-science's Bradford
/// adaptation renders back as its BT.709 original, its grey grey. Taken as Display P3 (the same
/// primaries, D65 white), its white would turn pink; taken as BT.709 codes, it would lose its
/// saturation. The QC page names the primaries as read.
#[test]
fn dci_p3_video_renders_as_its_bt709_original_its_white_adapted() {
    // (The screen's white is DCI-P3's own, adapted: R = G = B.)
    let (width, height, original, dci) = kitten_coded_in(Primaries::DciP3);
    let video = tagged_rgb_video("kitten-dci-p3-sdr.mkv", &dci, width, height, "smpte431");
    let rendered = render(&video);
    let result = compare_render(&rendered, width, height, &original);
    assert!(result.mean_abs_diff <= 0.4, "{result:?}");
    assert!(result.max_abs_diff <= 8, "{result:?}");
    // (0.25 levels on average, 7 at most, 99.8% of the saturation: the rounding of 8-bit codes.)
    assert!((0.995..=1.005).contains(&result.saturation_ratio), "{result:?}");
    // Its light taken as it is (no adaptation: DCI-P3's white shown as the green-yellow it is
    // beside D65), the same codes come out another colour; taken as BT.709 codes, paler.
    let to_xyz = histoplay::colour::primaries::rgb_to_xyz(Primaries::DciP3);
    let bt709 = histoplay::colour::primaries::rgb_to_xyz(Primaries::Bt709)
        .map(|r| [r[0] as f32, r[1] as f32, r[2] as f32, 0.0]);
    let from_xyz = histoplay::colour::primaries::invert_rows(bt709);
    let absolute: [[f32; 4]; 3] = std::array::from_fn(|r| {
        let c = |c: usize| (0..3).map(|k| f64::from(from_xyz[r][k]) * to_xyz[k][c]).sum::<f64>() as f32;
        [c(0), c(1), c(2), 0.0]
    });
    let unadapted: Vec<[u8; 3]> = dci
        .iter()
        .map(|p| sdr_to_bt709(p.map(|c| f32::from(c) / 255.0), absolute).map(|c| (255.0 * c).round() as u8))
        .collect();
    let against_unadapted = compare_render(&rendered, width, height, &unadapted);
    assert!(against_unadapted.mean_abs_diff > 4.0, "{against_unadapted:?}");
    let as_codes = compare_render(
        &dci.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect::<Vec<_>>(),
        width,
        height,
        &original,
    );
    assert!(
        as_codes.saturation_ratio < 0.9,
        "the DCI-P3 codes as they are: {as_codes:?}"
    );
    let page = std::env::temp_dir().join(format!("histoplay-dci-p3-{}.html", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--html"])
        .arg(&page)
        .arg(&video)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.contains("<td>DCI-P3 primaries, SDR transfer, "), "{html}");
    assert!(html.contains("primaries smpte431, transfer bt709"), "{html}");
}

/// RGBA rows as RGB pixels.
fn pixels_of(rgba: &[u8]) -> Vec<[u8; 3]> {
    rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect()
}

/// The kitten mastered into the codes of `primaries` (their white adapted, as a display shows
/// it), tagged `tag` in an FFV1 file, and rendered: against the original, and those codes taken
/// as BT.709's against the original.
fn rendered_back_from(primaries: Primaries, tag: &str) -> (Comparison, Comparison) {
    let (width, height, original, coded) = kitten_coded_in(primaries);
    let video = tagged_rgb_video(&format!("kitten-{tag}-sdr.mkv"), &coded, width, height, tag);
    let rendered = render(&video);
    let as_codes = coded.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect::<Vec<_>>();
    (
        compare_render(&rendered, width, height, &original),
        compare_render(&as_codes, width, height, &original),
    )
}

#[test]
fn bt470m_and_ebu3213_videos_render_as_their_bt709_originals() {
    // BT.470 System M: primaries well beyond BT.709's and Illuminant C's white, adapted.
    let (back, as_codes) = rendered_back_from(Primaries::Bt470m, "bt470m");
    assert!(back.mean_abs_diff <= 0.4 && back.max_abs_diff <= 8, "{back:?}");
    assert!((0.995..=1.005).contains(&back.saturation_ratio), "{back:?}");
    assert!(
        as_codes.saturation_ratio < 0.85,
        "BT.470 M's codes as they are: {as_codes:?}"
    );
    // EBU 3213: the EBU's phosphors, close to BT.709's, with D65: back within 3 levels (0.17 on
    // average, the rounding of 8-bit codes); taken as BT.709's, its codes' most saturated
    // pixels 9 levels off.
    let (back, as_codes) = rendered_back_from(Primaries::Ebu3213, "ebu3213");
    assert!(back.mean_abs_diff <= 0.4 && back.max_abs_diff <= 3, "{back:?}");
    assert!(as_codes.max_abs_diff >= 8, "{as_codes:?} against {back:?}");
}
