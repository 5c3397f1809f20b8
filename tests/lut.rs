//! LUTs (`--lut`): the GPU pass equals its CPU twin bit for bit at 8 and 10 bits, and the twin
//! equals FFmpeg's `lut3d` (tetrahedral) and `lut1d` within one code on the same pixels.

mod common;

use histoplay::colour::lut::{cube, Lut, LutTables};
use histoplay::gpu::readback::{read_buffer, words};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::render::lut::LutStage;
use std::path::Path;
use std::process::Command;

/// A 3D `.cube` of `size`³ rows whose value at (r, g, b) is `f(r, g, b)`.
fn cube_text(size: usize, f: impl Fn(f64, f64, f64) -> [f64; 3]) -> String {
    let mut text = format!("TITLE \"test\"\nLUT_3D_SIZE {size}\n");
    let step = |i: usize| i as f64 / (size - 1) as f64;
    for b in 0..size {
        for g in 0..size {
            for r in 0..size {
                let [x, y, z] = f(step(r), step(g), step(b));
                text.push_str(&format!("{x:.6} {y:.6} {z:.6}\n"));
            }
        }
    }
    text
}

/// A look that mixes the channels and bends them: every tetrahedron of the cube matters.
fn look(r: f64, g: f64, b: f64) -> [f64; 3] {
    [
        0.04 + 0.92 * (0.6 * r + 0.3 * g + 0.1 * b).powf(0.8),
        0.7 * g * g + 0.2 * b + 0.05 * r,
        1.0 - 0.8 * b * (0.5 + 0.5 * r) - 0.1 * g,
    ]
}

/// A 1D `.cube` of `size` rows: a different curve for each channel.
fn curve_text(size: usize) -> String {
    let mut text = format!("LUT_1D_SIZE {size}\n");
    for i in 0..size {
        let x = i as f64 / (size - 1) as f64;
        text.push_str(&format!("{:.6} {:.6} {:.6}\n", x.powf(0.45), x * x, 1.0 - x));
    }
    text
}

/// `count` pixels of noise, `bits` deep, as R, G, B codes.
fn noise_pixels(count: usize, bits: u32, seed: u32) -> Vec<[u32; 3]> {
    let mut noise = common::Noise(seed);
    let mask = (1u32 << bits) - 1;
    (0..count)
        .map(|_| [noise.next() & mask, noise.next() & mask, noise.next() & mask])
        .collect()
}

fn pack(p: [u32; 3], bits: u32) -> u32 {
    if bits == 10 {
        p[0] | (p[1] << 10) | (p[2] << 20) | 0xc000_0000
    } else {
        p[0] | (p[1] << 8) | (p[2] << 16) | 0xff00_0000
    }
}

/// A directory of this test's own, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("histoplay-lut-{name}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn gpu_apply(ctx: &GpuContext, tables: &LutTables, width: u32, pixels: &[[u32; 3]]) -> Vec<u32> {
    let bits = tables.bits;
    let height = pixels.len() as u32 / width;
    let source = GpuFrame::with_bits(ctx, "lut test in", width, height, bits).unwrap();
    let packed: Vec<u32> = pixels.iter().map(|&p| pack(p, bits)).collect();
    ctx.queue.write_buffer(&source.pixels, 0, bytemuck::cast_slice(&packed));
    let output = GpuFrame::with_bits(ctx, "lut test out", width, height, bits).unwrap();
    let stage = LutStage::new(ctx, tables, &source, &output).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    stage.encode(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let bytes = read_buffer(ctx, &output.pixels, 0, u64::from(width * height) * 4).unwrap();
    words(&bytes)
}

#[test]
fn the_gpu_pass_equals_its_cpu_twin_at_8_and_10_bits() {
    let ctx = common::gpu();
    let luts = [
        ("look 17³", cube::parse(&cube_text(17, look)).unwrap()),
        ("look 33³", cube::parse(&cube_text(33, look)).unwrap()),
        ("identity 2³", cube::parse(&cube_text(2, |r, g, b| [r, g, b])).unwrap()),
        ("curves 1D", cube::parse(&curve_text(1024)).unwrap()),
    ];
    for (name, lut) in &luts {
        for bits in [8, 10] {
            let tables = LutTables::new(lut, bits);
            // Noise, then pixels whose channels tie (greys, and two channels equal), where
            // the pass's branchless choice of tetrahedron must weigh as the twin's cases do.
            let mut pixels = noise_pixels(64 * 44, bits, 7 + bits);
            let top = (1u32 << bits) - 1;
            for i in 0..256u32 {
                let (v, w) = (i * top / 255, (i * 37 + 11) % (top + 1));
                pixels.extend([[v, v, v], [v, v, w], [v, w, w], [w, v, w]]);
            }
            let gpu = gpu_apply(&ctx, &tables, 64, &pixels);
            for (i, (&p, &word)) in pixels.iter().zip(&gpu).enumerate() {
                let want = pack(tables.apply(p), bits);
                assert_eq!(
                    word, want,
                    "{name}, {bits} bits, pixel {i} {p:?}: {word:#010x} on the GPU, {want:#010x} on the CPU"
                );
            }
        }
    }
}

/// FFmpeg's filter `graph` over `pixels` as raw `format` frames (rgb24, or gbrp10le), and
/// histoplay's twin over the same: the largest difference of a code, and how many differ.
fn against_ffmpeg(graph: &str, tables: &LutTables, pixels: &[[u32; 3]], width: usize) -> (u32, usize) {
    let dir = Scratch::new("ffmpeg");
    let (format, input): (&str, Vec<u8>) = if tables.bits == 8 {
        ("rgb24", pixels.iter().flat_map(|p| p.map(|c| c as u8)).collect())
    } else {
        // Planar G, B, R, little-endian 16-bit words.
        let plane = |c: usize| pixels.iter().flat_map(move |p| (p[c] as u16).to_le_bytes());
        ("gbrp10le", plane(1).chain(plane(2)).chain(plane(0)).collect())
    };
    let raw_in = dir.path().join("in.raw");
    std::fs::write(&raw_in, &input).unwrap();
    let raw_out = dir.path().join("out.raw");
    let height = pixels.len() / width;
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", format, "-s"])
        .arg(format!("{width}x{height}"))
        .arg("-i")
        .arg(&raw_in)
        .args(["-vf", graph, "-f", "rawvideo", "-pix_fmt", format])
        .arg(&raw_out)
        .status()
        .expect("ffmpeg runs");
    assert!(status.success(), "ffmpeg {graph}");
    let out = std::fs::read(&raw_out).unwrap();
    let theirs: Vec<[u32; 3]> = if tables.bits == 8 {
        out.chunks(3).map(|c| [c[0].into(), c[1].into(), c[2].into()]).collect()
    } else {
        let n = pixels.len();
        let at = |plane: usize, i: usize| {
            u32::from(u16::from_le_bytes([
                out[2 * (plane * n + i)],
                out[2 * (plane * n + i) + 1],
            ]))
        };
        (0..n).map(|i| [at(2, i), at(0, i), at(1, i)]).collect()
    };
    assert_eq!(theirs.len(), pixels.len());
    let mut worst = 0;
    let mut differ = 0;
    for (p, t) in pixels.iter().zip(&theirs) {
        let ours = tables.apply(*p);
        let d = (0..3).map(|c| ours[c].abs_diff(t[c])).max().unwrap();
        worst = worst.max(d);
        differ += usize::from(d > 0);
    }
    (worst, differ)
}

#[test]
fn a_3d_lut_matches_ffmpegs_tetrahedral_lut3d_within_a_code() {
    let dir = Scratch::new("lut3d");
    for size in [17, 33] {
        let path = write(dir.path(), &format!("look{size}.cube"), &cube_text(size, look));
        let lut = Lut::load(&path).unwrap();
        let graph = format!("lut3d=file={}:interp=tetrahedral", path.display());
        for bits in [8, 10] {
            let tables = LutTables::new(&lut, bits);
            let pixels = noise_pixels(128 * 96, bits, 3 + size as u32);
            let (worst, differ) = against_ffmpeg(&graph, &tables, &pixels, 128);
            assert!(worst <= 1, "{size}³ at {bits} bits: a code {worst} away from FFmpeg's");
            // FFmpeg truncates where histoplay rounds: about half the values differ by one.
            assert!(differ < pixels.len(), "{size}³ at {bits} bits: {differ} differ");
        }
    }
}

#[test]
fn a_1d_lut_matches_ffmpegs_lut1d_within_a_code() {
    let dir = Scratch::new("lut1d");
    let path = write(dir.path(), "curves.cube", &curve_text(1024));
    let lut = Lut::load(&path).unwrap();
    let graph = format!("lut1d=file={}", path.display());
    for bits in [8, 10] {
        let tables = LutTables::new(&lut, bits);
        let pixels = noise_pixels(128 * 96, bits, 11 + bits);
        let (worst, _) = against_ffmpeg(&graph, &tables, &pixels, 128);
        assert!(worst <= 1, "1D at {bits} bits: a code {worst} away from FFmpeg's");
    }
}

#[test]
fn a_file_that_is_not_a_cube_is_refused_naming_it() {
    let dir = Scratch::new("bad");
    let bad = write(dir.path(), "bad.cube", "LUT_3D_SIZE 2\n0 0 0\n1 x 1\n");
    let error = Lut::load(&bad).unwrap_err().to_string();
    assert_eq!(error, format!("{}: line 3: 'x' is not a number", bad.display()));
    let other = write(dir.path(), "look.3dl", "0 0 0\n");
    assert!(Lut::load(&other).unwrap_err().to_string().contains("not a .cube file"));
    let missing = dir.path().join("missing.cube");
    assert!(Lut::load(&missing)
        .unwrap_err()
        .to_string()
        .starts_with(&missing.display().to_string()));
    // A file's control characters quoted in the command's error are escaped, on one line: the
    // terminal is not retitled nor cleared.
    let hostile = write(
        dir.path(),
        "hostile.cube",
        "LUT_3D_SIZE 2\n\u{1b}]0;title\u{7}\u{1b}[2J 0 0\n",
    );
    let out = histoplay()
        .args(["hist", "--lut"])
        .arg(&hostile)
        .arg(histoplay_sample())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: {}: line 2: '\\u{{1b}}]0;title\\u{{7}}\\u{{1b}}[2J' is not a number\n",
            hostile.display()
        )
    );
    // A file larger than any table (here the endless zeros of /dev/zero) is refused once past
    // 1 GiB, not read into memory to its end.
    let endless = dir.path().join("endless.cube");
    std::os::unix::fs::symlink("/dev/zero", &endless).unwrap();
    assert_eq!(
        Lut::load(&endless).unwrap_err().to_string(),
        format!("{}: larger than 1 GiB, which no .cube table is", endless.display())
    );
    // Values beyond what the 3D table holds (−2..2) are said, the table still used.
    let bright = write(
        dir.path(),
        "bright.cube",
        "LUT_3D_SIZE 2\n0 0 0\n3 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n-2.5 1 3\n",
    );
    let out = histoplay()
        .args(["hist", "--lut"])
        .arg(&bright)
        .arg(histoplay_sample())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "warning: {}: 3 of its 3D table's values lie beyond -2..2, where histoplay holds them: \
             taken as -2 or 2, the colours made from them are not the table's\n",
            bright.display()
        )
    );
}

/// The bundled sample clip.
fn histoplay_sample() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("media/sample-540p.mp4")
}

fn histoplay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
}

fn hist_line(args: &[&str]) -> serde_json::Value {
    let out = histoplay().arg("hist").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn hist_counts_the_signal_or_the_picture_through_the_lut() {
    let scratch = Scratch::new("hist");
    let swap = write(scratch.path(), "swap.cube", &cube_text(17, |r, g, b| [g, b, r]));
    let swap = swap.to_str().unwrap();
    // 10 bits: a second of the sample, lossless.
    let sample = common::repo_path("media/sample-540p.mp4");
    let ten_bit = common::fixture(
        "lut-sample-10bit.mkv",
        &[
            "-i",
            sample.to_str().unwrap(),
            "-t",
            "1",
            "-an",
            "-vf",
            "scale=480:270",
            "-pix_fmt",
            "yuv420p10le",
            "-c:v",
            "ffv1",
        ],
    );
    for input in [
        common::repo_path("media/sample-540p.mp4"),
        common::repo_path("media/kitten.jpg"),
        ten_bit,
    ] {
        let input = input.to_str().unwrap();
        let signal = hist_line(&[input, "--bins", "64"]);
        assert!(signal.get("counted").is_none());
        for cpu in [false, true] {
            let mut args = vec![input, "--bins", "64", "--lut", swap, "--scopes-on", "display"];
            if cpu {
                args.push("--cpu");
            }
            let display = hist_line(&args);
            assert_eq!(display["counted"], "display");
            // Through the swap, red is the signal's green, green its blue, blue its red.
            assert_eq!(display["r"], signal["g"], "{input}, cpu {cpu}");
            assert_eq!(display["g"], signal["b"], "{input}, cpu {cpu}");
            assert_eq!(display["b"], signal["r"], "{input}, cpu {cpu}");
            let on_signal = hist_line(&[input, "--bins", "64", "--lut", swap]);
            assert_eq!(on_signal["counted"], "signal");
            assert_eq!(on_signal["r"], signal["r"]);
            assert_eq!(on_signal["l"], signal["l"]);
        }
    }
    let out = histoplay()
        .args(["hist", "media/kitten.jpg", "--lut", "missing.cube"])
        .current_dir(common::repo_path(""))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: missing.cube: No such file or directory (os error 2)"
    );
}

#[test]
fn render_draws_the_picture_through_the_lut() {
    let scratch = Scratch::new("render");
    let swap = write(scratch.path(), "swap.cube", &cube_text(17, |r, g, b| [g, b, r]));
    let plain = scratch.path().join("plain.png");
    let looked = scratch.path().join("looked.png");
    // A still goes through the LUT pass; a video's frame through the LUT as it is converted.
    for (input, frame) in [("media/kitten.jpg", None), ("media/sample-540p.mp4", Some("40"))] {
        for (out, lut) in [(&plain, None), (&looked, Some(&swap))] {
            let mut command = histoplay();
            command
                .arg("render")
                .arg(common::repo_path(input))
                .arg("-o")
                .arg(out)
                .args(["--size", "612x376", "--contain"]);
            if let Some(frame) = frame {
                command.args(["--frame", frame]);
            }
            if let Some(lut) = lut {
                command.arg("--lut").arg(lut);
            }
            let status = command.status().unwrap();
            assert!(status.success());
        }
        let plain = image::open(&plain).unwrap().to_rgba8();
        let looked = image::open(&looked).unwrap().to_rgba8();
        // The middle of the picture, clear of the histogram quads: the same pixels, swapped.
        let mut compared = 0;
        for y in (120..250).step_by(7) {
            for x in (240..380).step_by(7) {
                let [r, g, b, _] = plain.get_pixel(x, y).0;
                assert_eq!(looked.get_pixel(x, y).0, [g, b, r, 255], "{input} at {x},{y}");
                compared += 1;
            }
        }
        assert!(compared > 300);
    }
}

/// Frames converted through the LUT leave the signal's own texture as it was (only the picture
/// is drawn meanwhile). Paused, with the LUT and the adjustments turned on and off in any
/// order, the frame drawn must still be the frame counted: the texture drawn holds the signal's
/// packed pixels, through the LUT while it is on.
#[test]
fn the_frame_drawn_is_the_frame_counted_as_the_lut_and_adjustments_change_while_paused() {
    use histoplay::colour::{ColorSpec, ColorVolume, Matrix, Range};
    use histoplay::gpu::readback::read_texture;
    use histoplay::pipeline::FramePipeline;
    use histoplay::render::adjust::Adjustments;
    use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};

    let ctx = common::gpu();
    let (width, height) = (64u32, 32u32);
    let format = FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        width,
        height,
        color: ColorSpec {
            matrix: Matrix::Bt709,
            range: Range::Limited,
        },
    };
    // Two frames told apart everywhere: a ramp of luma and one the other way, tinted.
    let frame = |flip: bool, cb: u8, cr: u8| {
        let luma: Vec<u8> = (0..width * height)
            .map(|i| {
                let x = i % width;
                (16 + 3 * if flip { width - 1 - x } else { x }) as u8
            })
            .collect();
        let chroma = (width * height / 4) as usize;
        [luma, vec![cb; chroma], vec![cr; chroma]]
    };
    let planes = |data: &[Vec<u8>; 3]| -> Vec<(Vec<u8>, usize)> {
        vec![
            (data[0].clone(), width as usize),
            (data[1].clone(), width as usize / 2),
            (data[2].clone(), width as usize / 2),
        ]
    };
    let mut pipeline = FramePipeline::new(&ctx, 256, format, ColorVolume::default(), 2).unwrap();
    for (slot, data) in [frame(false, 100, 150), frame(true, 160, 90)].iter().enumerate() {
        let owned = planes(data);
        let views: Vec<PlaneData> = owned.iter().map(|(d, s)| PlaneData { data: d, stride: *s }).collect();
        pipeline.ring.slots[slot].upload(&ctx.queue, &views).unwrap();
    }
    let run = |pipeline: &FramePipeline, slot: Option<usize>| {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        match slot {
            Some(slot) => pipeline.encode_frame(&mut encoder, slot),
            None => pipeline.encode_recount(&mut encoder, None),
        }
        ctx.queue.submit([encoder.finish()]);
    };
    let swap = cube::parse(&cube_text(9, |r, g, b| [g, b, r])).unwrap();
    let tables = LutTables::new(&swap, 8);
    let drawn_is_counted = |pipeline: &FramePipeline, step: &str| {
        let texels = read_texture(&ctx, &pipeline.picture().texture).unwrap();
        let signal = read_buffer(&ctx, &pipeline.ring.output.pixels, 0, texels.len() as u64).unwrap();
        let signal = words(&signal);
        let expected = if pipeline.lut_shown() {
            tables.apply_words(&signal)
        } else {
            signal
        };
        assert_eq!(
            words(&texels),
            expected,
            "{step}: the texture drawn is not the frame counted"
        );
    };
    // Frame 1 as decoded, then frame 0 through the LUT: the signal's texture still holds 1.
    run(&pipeline, Some(1));
    pipeline.set_lut(&ctx, Some(&tables)).unwrap();
    run(&pipeline, Some(0));
    drawn_is_counted(&pipeline, "playing through the LUT");
    let contrast = Adjustments {
        contrast: 40,
        ..Adjustments::default()
    };
    let steps: [(&str, Option<bool>, Option<Adjustments>); 4] = [
        ("paused, adjusted", None, Some(contrast)),
        ("the LUT off", Some(false), None),
        ("the adjustments reset", None, Some(Adjustments::default())),
        ("the LUT on again", Some(true), None),
    ];
    for (step, lut, adjustments) in steps {
        if let Some(on) = lut {
            pipeline.show_lut(&ctx, on).unwrap();
        }
        if let Some(settings) = adjustments {
            pipeline.set_adjustments(&ctx, settings).unwrap();
        }
        run(&pipeline, None);
        drawn_is_counted(&pipeline, step);
    }
    // The signal as decoded again: frame 0's pixels, drawn.
    pipeline.show_lut(&ctx, false).unwrap();
    run(&pipeline, None);
    drawn_is_counted(&pipeline, "the LUT off at the end");
}
