//! The scopes and regions: GPU == CPU exactly on every test picture and on video frames, the
//! `scope` and `hist --region` contracts, and the scopes drawn by `render`.

mod common;

use common::JsonExt;
use histoplay::colour::{ColorVolume, Depth};
use histoplay::engine::histogram::histogram_packed;
use histoplay::engine::{EngineConfig, HistogramEngine};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::scope::cie::{self, Chromaticity};
use histoplay::scope::gpu::ScopePass;
use histoplay::scope::region::counted_pixels;
use histoplay::scope::{self, Region, ScopeKind};
use histoplay::video::still::RgbaImage;
use std::path::{Path, PathBuf};
use std::process::Command;

fn histoplay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
}

/// The regions each picture is checked with: the whole frame, and rectangles inside it.
fn regions(image: &RgbaImage) -> Vec<Option<Region>> {
    let (w, h) = (image.width, image.height);
    let mut regions = vec![None, Some(Region::full(w, h))];
    regions.push(Some(Region {
        x: w / 3,
        y: h / 4,
        width: (w / 2).max(1),
        height: (h / 2).max(1),
    }));
    regions.push(Some(Region {
        x: w - 1,
        y: 0,
        width: 1,
        height: h,
    }));
    regions
}

/// Every scope of `image` (in `region`) on the GPU against the CPU reference.
fn check_scopes(ctx: &GpuContext, name: &str, image: &RgbaImage, region: Option<Region>, passes: &[ScopePass]) {
    let frame = GpuFrame::from_rgba(ctx, name, image.width, image.height, &image.pixels).unwrap();
    let counted = region.unwrap_or(Region::full(image.width, image.height));
    let all = image.words();
    let words = counted.crop(&all, image.width);
    let pixels = counted_pixels(ctx, &frame, region);
    for pass in passes {
        let columns_choices: &[u32] = match pass.kind {
            ScopeKind::Vectorscope => &[0],
            ScopeKind::Cie => &[1, 7, 300],
            _ => &[1, 7, 1024],
        };
        let volume = ColorVolume::default();
        for &columns in columns_choices {
            let target = pass
                .target(ctx, &pixels, columns, (counted.width, counted.height), &volume)
                .unwrap();
            // Three times: each pass counts into the half the pass before zeroed, so the third
            // counts into the first one's half, which must not hold its counts any more.
            for _ in 0..3 {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                pass.encode(&mut encoder, &target, None);
                ctx.queue.submit([encoder.finish()]);
            }
            let got = pass.read(ctx, &target).unwrap();
            let expected = match pass.kind {
                ScopeKind::Vectorscope => scope::vectorscope(&words, Depth::Eight),
                ScopeKind::Cie => cie::cie(&words, Depth::Eight, &Chromaticity::new(&volume, 8), columns),
                kind => scope::column_scope(kind, &words, counted.width, columns, pass.bins, Depth::Eight).counts,
            };
            let total: u64 = expected.iter().map(|&c| u64::from(c)).sum();
            // Every pixel counts once a plane; the CIE diagram leaves black out.
            let black = words.iter().filter(|&&w| w & 0xff_ffff == 0).count() as u64;
            let counted_pixels = u64::from(counted.pixel_count()) - if pass.kind == ScopeKind::Cie { black } else { 0 };
            assert_eq!(total, counted_pixels * u64::from(pass.kind.planes()));
            assert!(
                got == expected,
                "{name} {region:?}: {} with {columns} columns of {} bins differs from the CPU",
                pass.kind.name(),
                pass.bins
            );
        }
    }
}

#[test]
fn scopes_on_the_gpu_equal_the_cpu_on_every_test_picture_and_region() {
    let ctx = common::gpu();
    let mut passes = vec![
        ScopePass::new(&ctx, ScopeKind::Vectorscope, 256, Depth::Eight),
        ScopePass::new(&ctx, ScopeKind::Cie, 256, Depth::Eight),
    ];
    for bins in [16, 256, 1024] {
        passes.push(ScopePass::new(&ctx, ScopeKind::Waveform, bins, Depth::Eight));
        passes.push(ScopePass::new(&ctx, ScopeKind::Parade, bins, Depth::Eight));
    }
    for (name, image) in common::test_pictures() {
        for region in regions(&image) {
            check_scopes(&ctx, name, &image, region, &passes);
        }
    }
}

#[test]
fn region_histograms_on_the_gpu_equal_the_cpu() {
    let ctx = common::gpu();
    for (name, image) in common::test_pictures() {
        let frame = GpuFrame::from_rgba(&ctx, name, image.width, image.height, &image.pixels).unwrap();
        for region in regions(&image).into_iter().flatten() {
            let pixels = counted_pixels(&ctx, &frame, Some(region));
            let all = image.words();
            let words = region.crop(&all, image.width);
            for bins in [16, 256, 1024] {
                let engine = HistogramEngine::new(&ctx, bins, EngineConfig::default());
                let got = engine.count(&ctx, &pixels, region.width, region.height).unwrap();
                let expected = histogram_packed(&words, bins, Depth::Eight);
                assert_eq!(expected.total(), u64::from(region.pixel_count()));
                assert!(got == expected, "{name}, region {region}, {bins} bins");
            }
        }
    }
}

/// A directory of this test process's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("histoplay-scope-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = histoplay().args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Frame 10 of the bundled sample rendered at 600x400 with `extra` options, as `name`.png in
/// `dir`.
fn render_sample(dir: &std::path::Path, name: &str, extra: &[&str]) -> image::RgbaImage {
    let sample = common::repo_path("media/sample-540p.mp4");
    let out = dir.join(format!("{name}.png"));
    let mut args = vec![
        "render",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--size",
        "600x400",
        "--frame",
        "10",
    ];
    args.extend(extra);
    let (ok, _, err) = run(&args);
    assert!(ok, "{err}");
    image::open(&out).unwrap().to_rgba8()
}

fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout.lines().map(common::json).collect()
}

/// `scope` and `scope --cpu` agree, line for line, on `path`'s frames, for every kind (the
/// vectorscope and the CIE diagram without `--columns` and `--bins`, which they refuse).
fn assert_gpu_equals_cpu(path: &Path, extra: &[&str]) {
    let path = path.to_str().unwrap();
    for kind in ["waveform", "parade", "vectorscope", "cie"] {
        let mut args = vec!["scope", path, "--kind", kind];
        let columned = matches!(kind, "waveform" | "parade");
        for pair in extra.chunks(2) {
            if columned || !matches!(pair[0], "--columns" | "--bins") {
                args.extend_from_slice(pair);
            }
        }
        let (ok, gpu, err) = run(&args);
        assert!(ok, "{args:?}: {err}");
        args.push("--cpu");
        let (ok, cpu, err) = run(&args);
        assert!(ok, "{args:?}: {err}");
        assert!(!gpu.is_empty());
        assert_eq!(gpu, cpu, "{args:?}: GPU and CPU differ");
    }
}

#[test]
fn video_frames_scope_the_same_on_gpu_and_cpu() {
    let sample = common::repo_path("media/sample-540p.mp4");
    assert_gpu_equals_cpu(&sample, &["--frames", "3..5", "--columns", "300", "--bins", "64"]);
    assert_gpu_equals_cpu(&sample, &["--frame", "40", "--region", "101,7,333,211"]);
    // 10-bit sources are counted at 10 bits: 4:2:0 and planar RGB.
    for (name, format) in [("scope-yuv10.mkv", "yuv420p10le"), ("scope-gbr10.mkv", "gbrp10le")] {
        let source = format!("testsrc2=s=96x64:r=10:d=0.3,format={format}");
        let clip = common::fixture(name, &["-f", "lavfi", "-i", &source, "-c:v", "ffv1"]);
        assert_gpu_equals_cpu(&clip, &["--frames", "0..2", "--bins", "1024", "--columns", "50"]);
        let (ok, out, err) = run(&["scope", clip.to_str().unwrap(), "--kind", "parade", "--bins", "1024"]);
        assert!(ok, "{err}");
        assert_eq!(json_lines(&out)[0]["depth"].u64(), 10);
    }
}

#[test]
fn the_cie_diagram_of_hdr_frames_is_counted_in_their_own_light() {
    // The same 10-bit pictures tagged BT.2020 PQ and untagged (BT.709 SDR): GPU = CPU for
    // each, and the tags move the colours (BT.2020's primaries reach further out).
    let source = "testsrc2=s=96x64:r=10:d=0.2,format=yuv420p10le";
    let tags = [
        "-color_primaries",
        "bt2020",
        "-color_trc",
        "smpte2084",
        "-colorspace",
        "bt2020nc",
    ];
    let mut args = vec!["-f", "lavfi", "-i", source, "-c:v", "ffv1"];
    let plain = common::fixture("cie-sdr10.mkv", &args);
    args.extend(tags);
    let pq = common::fixture("cie-pq10.mkv", &args);
    let mut diagrams = Vec::new();
    for clip in [&plain, &pq] {
        let clip = clip.to_str().unwrap();
        let args = ["scope", clip, "--kind", "cie", "--size", "128", "--frames", "0..2"];
        let (ok, gpu, err) = run(&args);
        assert!(ok, "{err}");
        let (ok, cpu, err) = run(&[&args[..], &["--cpu"]].concat());
        assert!(ok, "{err}");
        assert_eq!(gpu, cpu, "{clip}: GPU and CPU differ");
        diagrams.push(gpu);
    }
    assert_ne!(diagrams[0], diagrams[1]);
    // testsrc2's saturated red is further out in BT.2020 than in BT.709: its largest x.
    let reddest = |out: &str| {
        let v = &json_lines(out)[0];
        let counts = v["counts"].array();
        (0..128)
            .filter(|&i| counts.iter().any(|row| row[i].u64() > 0))
            .max()
            .unwrap()
    };
    let (sdr, hdr) = (reddest(&diagrams[0]), reddest(&diagrams[1]));
    assert!(
        sdr <= (0.64 * 128.0) as usize && hdr > sdr + 4,
        "reddest x cells: {sdr} and {hdr}"
    );
}

#[test]
fn scope_json_has_the_documented_shape() {
    // A 4x2 picture: black, grey, white and red columns.
    let dir = scratch("json");
    let png = dir.join("bars.png");
    let row: [[u8; 4]; 4] = [
        [0, 0, 0, 255],
        [128, 128, 128, 255],
        [255, 255, 255, 255],
        [255, 0, 0, 255],
    ];
    let pixels: Vec<u8> = row.iter().chain(row.iter()).flatten().copied().collect();
    image::save_buffer(&png, &pixels, 4, 2, image::ColorType::Rgba8).unwrap();
    let png = png.to_str().unwrap();

    let (ok, out, err) = run(&["scope", png, "--kind", "waveform", "--columns", "2", "--bins", "16"]);
    assert!(ok, "{err}");
    let v = &json_lines(&out)[0];
    assert_eq!(
        v.keys(),
        ["kind", "frame", "pts", "width", "height", "columns", "bins", "depth", "l"]
    );
    assert_eq!(
        (v["kind"].str(), v["width"].u64(), v["height"].u64()),
        ("waveform", 4, 2)
    );
    let l = v["l"].array();
    assert_eq!(l.len(), 2);
    // Column 0: black and grey, twice each; column 1: white and red (luma bin 3).
    let column = |c: usize| l[c].counts();
    let mut expected0 = vec![0; 16];
    expected0[0] = 2;
    expected0[8] = 2;
    let mut expected1 = vec![0; 16];
    expected1[15] = 2;
    expected1[3] = 2;
    assert_eq!((column(0), column(1)), (expected0, expected1));

    let (ok, out, err) = run(&["scope", png, "--kind", "parade", "--columns", "4", "--bins", "16"]);
    assert!(ok, "{err}");
    let v = &json_lines(&out)[0];
    for (name, top) in [("r", 2), ("g", 0), ("b", 0)] {
        assert_eq!(v[name].array().len(), 4);
        assert_eq!(v[name][3][15].u64(), top, "{name}");
    }

    let (ok, out, err) = run(&["scope", png, "--kind", "vectorscope", "--region", "1,0,3,2"]);
    assert!(ok, "{err}");
    let v = &json_lines(&out)[0];
    assert_eq!(
        v.keys(),
        ["kind", "frame", "pts", "width", "height", "depth", "region", "counts"]
    );
    assert_eq!(v["region"].counts(), [1, 0, 3, 2]);
    let counts = v["counts"].array();
    assert_eq!(counts.len(), 256);
    assert!(counts.iter().all(|row| row.array().len() == 256));
    // Grey and white at the centre; red at cb 98, cr 255.
    assert_eq!(counts[128][128].u64(), 4);
    assert_eq!(counts[255][98].u64(), 2);

    // The CIE diagram: grey and white at D65, red at BT.709's red; black has no chromaticity.
    let (ok, out, err) = run(&["scope", png, "--kind", "cie", "--size", "512"]);
    assert!(ok, "{err}");
    let v = &json_lines(&out)[0];
    assert_eq!(
        v.keys(),
        ["kind", "frame", "pts", "width", "height", "size", "depth", "counts"]
    );
    assert_eq!((v["kind"].str(), v["size"].u64()), ("cie", 512));
    let counts = v["counts"].array();
    assert_eq!(counts.len(), 512);
    assert!(counts.iter().all(|row| row.array().len() == 512));
    let total: u64 = counts.iter().flat_map(|row| row.counts()).sum();
    assert_eq!(total, 6);
    // D65 (0.3127, 0.3290) and red (0.64, 0.33) in cells of 1/512: j = ⌊y·512⌋, i = ⌊x·512⌋.
    assert_eq!(counts[168][160].u64(), 4);
    assert_eq!(counts[168][327].u64(), 2);

    // sRGB's primaries and white land on their coordinates, at the default 256 cells.
    let primaries = dir.join("primaries.png");
    let pixels = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ];
    image::save_buffer(&primaries, pixels.as_flattened(), 4, 1, image::ColorType::Rgba8).unwrap();
    let (ok, out, err) = run(&["scope", primaries.to_str().unwrap(), "--kind", "cie"]);
    assert!(ok, "{err}");
    let v = &json_lines(&out)[0];
    assert_eq!(v["size"].u64(), 256);
    let counts = v["counts"].array();
    for (name, (x, y)) in [
        ("red", (0.64, 0.33)),
        ("green", (0.30, 0.60)),
        ("blue", (0.15, 0.06)),
        ("white", (0.3127, 0.3290)),
    ] {
        let (i, j) = ((x * 256.0) as usize, (y * 256.0) as usize);
        assert_eq!(counts[j][i].u64(), 1, "{name} at cell ({i}, {j})");
    }
    // --size belongs to the CIE diagram, and has limits.
    for args in [
        &["scope", png, "--kind", "waveform", "--size", "64"][..],
        &["scope", png, "--kind", "cie", "--size", "0"],
        &["scope", png, "--kind", "cie", "--size", "2048"],
    ] {
        let (ok, _, err) = run(args);
        assert!(!ok && err.contains("error:"), "{args:?}: {err}");
    }
}

#[test]
fn regions_outside_the_frame_or_empty_are_one_line_errors() {
    let kitten = common::repo_path("media/kitten.jpg");
    let sample = common::repo_path("media/sample-540p.mp4");
    for input in [&kitten, &sample] {
        let input = input.to_str().unwrap();
        for (region, says) in [
            ("0,0,0,10", "is empty"),
            ("5000,0,10,10", "is not inside"),
            ("0,0,10,99999", "is not inside"),
            ("1,2,3", "is not a region"),
        ] {
            for command in ["hist", "scope"] {
                let (ok, out, err) = run(&[command, input, "--region", region]);
                assert!(!ok && out.is_empty(), "{command} {input} --region {region}");
                assert_eq!(err.lines().count(), 1, "{err}");
                assert!(err.starts_with("error:") && err.contains(says), "{err}");
            }
        }
    }
}

#[test]
fn hist_counts_only_the_region() {
    let sample = common::repo_path("media/sample-540p.mp4");
    let sample = sample.to_str().unwrap();
    let args = [
        "hist",
        sample,
        "--frames",
        "0..3",
        "--region",
        "200,100,64,32",
        "--bins",
        "64",
    ];
    let (ok, gpu, err) = run(&args);
    assert!(ok, "{err}");
    let (ok, cpu, _) = run(&[&args[..], &["--cpu"]].concat());
    assert!(ok);
    assert_eq!(gpu, cpu);
    for v in json_lines(&gpu) {
        let total: u64 = v["l"].counts().iter().sum();
        assert_eq!(total, 64 * 32);
        assert_eq!(v["region"].counts(), [200, 100, 64, 32]);
        assert_eq!((v["width"].u64(), v["height"].u64()), (960, 540));
    }
}

#[test]
fn render_draws_the_scope_where_the_player_does() {
    let dir = scratch("render");
    let (w, h) = (600u32, 400u32);
    let render = |scope: Option<&str>| match scope {
        Some(kind) => render_sample(&dir, kind, &["--scope", kind]),
        None => render_sample(&dir, "none", &[]),
    };
    let plain = render(None);
    let band = histoplay::render::layout::band_layout(Some(ScopeKind::Waveform), (w, h));
    let (x0, y0, x1, y1) = band.scope.unwrap().to_pixels(w, h);
    for kind in ["waveform", "parade", "vectorscope", "cie"] {
        let drawn = render(Some(kind));
        // Inside the scope's rectangle the picture is covered by the scope (the vectorscope's
        // corners excepted: it is round); far above the band the picture is untouched.
        let rect = if kind == "vectorscope" || kind == "cie" {
            histoplay::render::layout::band_layout(Some(ScopeKind::Vectorscope), (w, h))
                .scope
                .unwrap()
                .to_pixels(w, h)
        } else {
            (x0, y0, x1, y1)
        };
        let (mut changed, mut pixels) = (0, 0);
        // Pixels whose strongest channel is red, green or blue by a margin: the traces' tints.
        let mut tinted = [[0u32; 3]; 3];
        for y in rect.1..rect.3 {
            for x in rect.0..rect.2 {
                let (a, b) = (plain.get_pixel(x, y), drawn.get_pixel(x, y));
                pixels += 1;
                changed += u32::from(a != b);
                let third = ((x - rect.0) * 3 / (rect.2 - rect.0)) as usize;
                let [r, g, bl, _] = b.0.map(i32::from);
                for (ch, (c, others)) in [(r, g.max(bl)), (g, r.max(bl)), (bl, r.max(g))].into_iter().enumerate() {
                    tinted[third][ch] += u32::from(c > others + 40);
                }
            }
        }
        let corner = (rect.0 + 1, rect.1 + 1);
        match kind {
            "cie" => {
                assert!(
                    changed * 10 > pixels * 9,
                    "{kind}: {changed} of {pixels} pixels changed"
                );
                // Where chromaticity (x, y) is drawn: the diagram shows x from -0.04 and y
                // from -0.02, 0.88 a side.
                let at = |x: f32, y: f32| {
                    let (u, v) = ((x + 0.04) / 0.88, (y + 0.02) / 0.88);
                    let px = rect.0 as f32 + u * (rect.2 - rect.0) as f32;
                    let py = rect.3 as f32 - v * (rect.3 - rect.1) as f32;
                    drawn.get_pixel(px as u32, py as u32).0
                };
                // The horseshoe is filled faintly with its colours where BT.709 pixels never
                // reach (outside its triangle), away from every line; outside it is the dark
                // backdrop.
                let [r, g, b, _] = at(0.12, 0.72);
                assert!(g > r + 8 && g > b + 8, "green corner of the locus: {:?}", [r, g, b]);
                let [r, g, b, _] = at(0.4, 0.12);
                assert!(r > g + 8 && b > g + 8, "purple edge of the locus: {:?}", [r, g, b]);
                let [r, g, b, _] = at(0.65, 0.65);
                assert!(r < 40 && g < 40 && b < 40, "outside the locus: {:?}", [r, g, b]);
                // The sample's greys and near-greys light up round D65.
                let [r, g, b, _] = at(0.3127, 0.3290);
                assert!(r > 150 && g > 150 && b > 150, "the trace at D65: {:?}", [r, g, b]);
            }
            "vectorscope" => {
                assert_eq!(plain.get_pixel(corner.0, corner.1), drawn.get_pixel(corner.0, corner.1));
                assert!(
                    changed * 10 > pixels * 7,
                    "{kind}: {changed} of {pixels} pixels changed"
                );
            }
            "waveform" => {
                assert!(
                    changed * 10 > pixels * 9,
                    "{kind}: {changed} of {pixels} pixels changed"
                );
                assert!(
                    tinted.iter().all(|t| t[1] * 50 > pixels / 3),
                    "{kind}: green trace {tinted:?}"
                );
            }
            _ => {
                assert!(
                    changed * 10 > pixels * 9,
                    "{kind}: {changed} of {pixels} pixels changed"
                );
                // Red, green and blue parades, left to right.
                for (third, t) in tinted.iter().enumerate() {
                    assert!(t[third] * 50 > pixels / 3, "{kind}: third {third}: {tinted:?}");
                }
            }
        }
        for x in 0..w {
            assert_eq!(
                plain.get_pixel(x, 10),
                drawn.get_pixel(x, 10),
                "{kind}: the picture changed at ({x}, 10)"
            );
        }
    }
}

#[test]
fn the_timeline_of_the_grey_ramp_is_a_rising_diagonal() {
    let ramp = common::grey_ramp();
    let dir = scratch("timeline");
    let png = dir.join("ramp.png");
    let frames = common::RAMP_FRAMES as u32;
    let size = format!("{frames}x256");
    let (ok, _, err) = run(&[
        "timeline",
        ramp.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        &size,
    ]);
    assert!(ok, "{err}");
    let strip = image::open(&png).unwrap().to_rgba8();
    assert_eq!(strip.dimensions(), (frames, 256));
    // One column a frame; each frame is one flat grey, so one row is lit, at its luminance bin
    // (row 0 at the bottom), rising with the frame.
    for x in 0..frames {
        let grey = u32::from(common::limited_grey(common::ramp_luma(u64::from(x))));
        let expected_row =
            histoplay::engine::histogram::luma_bin(histoplay::engine::histogram::luma_numerator(grey, grey, grey), 256);
        if expected_row == 0 {
            // Frame 0 is black: its shadows clip, marked in blue along the bottom.
            let bottom = strip.get_pixel(x, 255).0;
            assert!(bottom[2] > 200 && bottom[0] < 100, "column {x}: {bottom:?}");
            continue;
        }
        let lit: Vec<u32> = (0..256).filter(|&y| strip.get_pixel(x, 255 - y).0[0] == 255).collect();
        assert_eq!(lit, [expected_row], "column {x}");
        let dark = (0..256)
            .filter(|&y| strip.get_pixel(x, 255 - y).0[..3] == [0, 0, 0])
            .count();
        assert_eq!(dark, 255, "column {x}: every other row is black");
    }
}

#[test]
fn columns_and_bins_given_to_a_scope_without_them_are_a_one_line_error() {
    let kitten = common::repo_path("media/kitten.jpg");
    let kitten = kitten.to_str().unwrap();
    for (kind, option, says) in [
        (
            "cie",
            "--columns",
            "the CIE diagram has none (its cells a side are --size)",
        ),
        ("vectorscope", "--bins", "the vectorscope has none"),
    ] {
        let (ok, out, err) = run(&["scope", kitten, "--kind", kind, option, "64"]);
        assert!(!ok && out.is_empty(), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("error: {option} is the waveform's and the parade's; {says}")),
            "{err}"
        );
    }
    // --size is the CIE diagram's alone.
    for (kind, says) in [
        (
            "vectorscope",
            "the vectorscope has no size of its own (it counts 256 x 256 chroma cells)",
        ),
        ("waveform", "the waveform has --columns"),
    ] {
        let (ok, out, err) = run(&["scope", kitten, "--kind", kind, "--size", "64"]);
        assert!(!ok && out.is_empty(), "{err}");
        assert_eq!(
            err,
            format!("error: --size is the CIE diagram's (--kind cie); {says}\n")
        );
    }
}

#[test]
fn a_timeline_of_something_unplayable_is_a_one_line_error() {
    let dir = scratch("timeline-bad");
    let text = dir.join("notes.mp4");
    std::fs::write(&text, "not a video").unwrap();
    let out = dir.join("out.png");
    let (ok, _, err) = run(&["timeline", text.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(!ok && err.starts_with("error:") && err.lines().count() == 1, "{err}");
    assert!(!out.exists());
}

#[test]
fn a_timeline_of_a_pipe_is_a_one_line_error_and_writes_nothing() {
    let dir = scratch("timeline-pipe");
    let stream = common::fixture(
        "timeline-pipe.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=160x120:rate=25",
            "-frames:v",
            "25",
            "-f",
            "mpegts",
        ],
    );
    let out = dir.join("out.png");
    let mut child = histoplay()
        .args(["timeline", "-", "-o", out.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The stream written in as it is read (the reader may stop before its end).
    let mut stdin = child.stdin.take().unwrap();
    let bytes = std::fs::read(&stream).unwrap();
    let writer = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut stdin, &bytes);
    });
    let done = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(!done.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: '-' is read once"), "{err}");
    assert!(!out.exists());
}

#[test]
fn the_vectorscope_magnified_changes_only_the_scope() {
    let dir = scratch("zoom");
    let (w, h) = (600u32, 400u32);
    let render = |zoom: &str| {
        render_sample(
            &dir,
            &format!("zoom{zoom}"),
            &["--scope", "vectorscope", "--vectorscope-zoom", zoom],
        )
    };
    let (one, two, four) = (render("1"), render("2"), render("4"));
    let rect = histoplay::render::layout::band_layout(Some(ScopeKind::Vectorscope), (w, h))
        .scope
        .unwrap()
        .to_pixels(w, h);
    let inside = |x: u32, y: u32| x >= rect.0 && x < rect.2 && y >= rect.1 && y < rect.3;
    // Magnified, the scope changes (its trace and targets move out from the centre); nothing
    // outside it does.
    let differing = |a: &image::RgbaImage, b: &image::RgbaImage| {
        (rect.1..rect.3)
            .flat_map(|y| (rect.0..rect.2).map(move |x| (x, y)))
            .filter(|&(x, y)| a.get_pixel(x, y) != b.get_pixel(x, y))
            .count()
    };
    let side = (rect.2 - rect.0) as usize;
    assert!(differing(&one, &two) * 50 > side * side, "×2 changes the scope");
    assert!(differing(&two, &four) * 50 > side * side, "×4 changes the scope");
    for y in 0..h {
        for x in 0..w {
            if !inside(x, y) {
                assert_eq!(one.get_pixel(x, y), two.get_pixel(x, y), "({x}, {y}) outside the scope");
                assert_eq!(
                    one.get_pixel(x, y),
                    four.get_pixel(x, y),
                    "({x}, {y}) outside the scope"
                );
            }
        }
    }
}

#[test]
fn render_draws_the_graticule_levels_asked_for_in_amber() {
    let dir = scratch("graticule");
    let sample = common::repo_path("media/sample-540p.mp4");
    let (w, h) = (600u32, 400u32);
    let render = |extra: &[&str]| {
        let args = [&["--scope", "waveform"][..], extra].concat();
        render_sample(&dir, &format!("graticule{}", extra.len()), &args)
    };
    let plain = render(&[]);
    // 8-bit limited-range video: code 126 is half way from 16 to 235 (up to half a code).
    let lined = render(&["--graticule", "126"]);
    let (x0, y0, x1, y1) = histoplay::render::layout::band_layout(Some(ScopeKind::Waveform), (w, h))
        .scope
        .unwrap()
        .to_pixels(w, h);
    let amber = |image: &image::RgbaImage, y: u32| {
        (x0 + 2..x1 - 2)
            .filter(|&x| {
                let [r, g, b, _] = image.get_pixel(x, y).0;
                r > 220 && g > 180 && b < 130
            })
            .count() as u32
    };
    let middle = y1 - (f64::from(y1 - y0) * (126.0 - 16.0) / 219.0).round() as u32;
    let row = (middle - 1..=middle + 1).max_by_key(|&y| amber(&lined, y)).unwrap();
    assert!(
        amber(&lined, row) > (x1 - x0) * 9 / 10,
        "row {row}: {}",
        amber(&lined, row)
    );
    assert!(amber(&plain, row) < (x1 - x0) / 10, "no line without --graticule");
    // Far from it, nothing changed.
    for y in [y0 + 5, y1 - 5] {
        for x in x0..x1 {
            assert_eq!(plain.get_pixel(x, y), lined.get_pixel(x, y), "({x}, {y})");
        }
    }
    let (ok, _, err) = run(&[
        "render",
        sample.to_str().unwrap(),
        "-o",
        "/tmp/never.png",
        "--graticule",
        "bright",
    ]);
    assert!(
        !ok && err.starts_with("error: ") && err.contains("not a level"),
        "{err}"
    );
}

#[test]
fn a_panorama_wider_than_the_gpus_textures_is_counted_on_the_cpu() {
    // 20 000 x 2: a grey ramp's columns left to right (value x * 256 / 20 000), wider than a
    // texture side of this GPU (lavapipe's and most: 16 384).
    let width = 20_000u32;
    let image = image::RgbaImage::from_fn(width, 2, |x, _| {
        let v = (x * 256 / width) as u8;
        image::Rgba([v, v, v, 255])
    });
    let dir = common::repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("panorama-{}.png", std::process::id()));
    image.save(&path).unwrap();
    let path = path.to_str().unwrap();
    let (ok, gpu, err) = run(&["hist", path]);
    let (cpu_ok, cpu, _) = run(&["hist", path, "--cpu"]);
    let (scope_ok, scope, scope_err) = run(&["scope", path, "--columns", "100", "--bins", "256"]);
    let (_, scope_cpu, _) = run(&["scope", path, "--columns", "100", "--bins", "256", "--cpu"]);
    let _ = std::fs::remove_file(path);
    assert!(ok && cpu_ok && scope_ok, "{err}{scope_err}");
    assert_eq!(gpu, cpu);
    let line = &json_lines(&gpu)[0];
    // Each of the 256 values takes 78 or 79 columns of two pixels.
    let counts = line["l"].counts();
    assert_eq!(counts.len(), 256);
    for (v, &n) in counts.iter().enumerate() {
        let columns = ((v as u64 + 1) * 20_000).div_ceil(256) - (v as u64 * 20_000).div_ceil(256);
        assert_eq!(n, 2 * columns, "value {v}");
    }
    assert_eq!(line["r"].counts(), counts);
    for err in [err, scope_err] {
        assert_eq!(
            err.trim(),
            "warning: 20000x2 is larger than this GPU's largest texture (16384x16384): counted on the CPU"
        );
    }
    // The waveform: 100 columns of 200 pixels' columns each.
    assert_eq!(scope, scope_cpu);
    let scope = &json_lines(&scope)[0];
    let total: u64 = scope["l"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.counts().iter().sum::<u64>())
        .sum();
    assert_eq!(total, 40_000);
}
