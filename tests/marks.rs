//! The marks pass on the GPU (lavapipe here) against its CPU twin: every pixel's word, for
//! frames decoded into a ring slot, converted, and marked with every mark at once.

mod common;

use histoplay::colour::{ColorSpec, ColorVolume, Matrix, Primaries, Range, Transfer};
use histoplay::marks::{classify, gamut_margin, Mark, MarkSet, MarkSettings, WORD_GAMUT};
use histoplay::pipeline::FramePipeline;
use histoplay::video::format::{components, FrameFormat, PlaneData, PlaneLayout};

/// Y'CbCr 4:2:0 planes of `bits` bits: the kitten's luma with a band of codes from below 16 to
/// above 235 across its top rows, a checkerboard in its left quarter, and chroma swinging
/// beyond 16–240 at the corners.
fn planes(w: usize, h: usize, bits: u32, shift_y: u32) -> [Vec<u8>; 3] {
    let kitten = histoplay::kitten(w as u32, h as u32);
    let scale = 1u32 << (bits - 8);
    let max = (1u32 << bits) - 1;
    let bytes = if bits > 8 { 2 } else { 1 };
    let put = |plane: &mut Vec<u8>, at: usize, v: u32| {
        if bytes == 1 {
            plane[at] = v as u8;
        } else {
            plane[2 * at..2 * at + 2].copy_from_slice(&(v as u16).to_le_bytes());
        }
    };
    let mut y_plane = vec![0u8; w * h * bytes];
    for y in 0..h {
        for x in 0..w {
            let p = &kitten.pixels[4 * (y * w + x)..];
            let luma = (u32::from(p[0]) * 54 + u32::from(p[1]) * 183 + u32::from(p[2]) * 19) >> 8;
            let v = if y < 4 {
                (x as u32 * max / (w as u32 - 1)).min(max)
            } else if x < w / 4 {
                if (x / 6 + y / 6) % 2 == 0 {
                    16 * scale
                } else {
                    235 * scale
                }
            } else {
                (16 + luma * 219 / 255) * scale + (x as u32 % scale)
            };
            put(&mut y_plane, y * w + x, v);
        }
    }
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(1 << shift_y));
    let mut u_plane = vec![0u8; cw * ch * bytes];
    let mut v_plane = vec![0u8; cw * ch * bytes];
    for y in 0..ch {
        for x in 0..cw {
            let swing = ((x * 7 + y * 3) % 256) as u32;
            put(&mut u_plane, y * cw + x, (swing * scale).min(max));
            put(&mut v_plane, y * cw + x, ((255 - swing) * scale).min(max));
        }
    }
    [y_plane, u_plane, v_plane]
}

/// The pass's words, one per pixel.
fn words(ctx: &histoplay::gpu::GpuContext, marks: &histoplay::marks::gpu::MarksStage) -> Vec<u32> {
    let bytes = histoplay::gpu::readback::read_buffer(ctx, marks.words(), 0, marks.words_size()).unwrap();
    marks.unpack_words(&bytes)
}

/// `planes` (10-bit 4:2:0) as P010 lays them out: 16-bit samples with the value in the top 10
/// bits, Cb and Cr interleaved in the second plane.
fn p010(planar: &[Vec<u8>; 3]) -> Vec<Vec<u8>> {
    let samples = |p: &Vec<u8>| -> Vec<u16> { p.chunks(2).map(|b| u16::from_le_bytes([b[0], b[1]]) << 6).collect() };
    let y: Vec<u8> = samples(&planar[0]).iter().flat_map(|v| v.to_le_bytes()).collect();
    let uv: Vec<u8> = samples(&planar[1])
        .iter()
        .zip(samples(&planar[2]))
        .flat_map(|(u, v)| [u.to_le_bytes(), v.to_le_bytes()].concat())
        .collect();
    vec![y, uv]
}

fn check(bits: u32, volume: ColorVolume, matrix: Matrix, (w, h): (usize, usize), shift_y: u32) {
    check_layout(bits, volume, matrix, (w, h), shift_y, false);
}

/// A test frame's format and planes (`planes`, laid out as P010 where `semi_planar`: 10 bits,
/// 4:2:0), limited range.
struct TestFrame {
    format: FrameFormat,
    data: Vec<Vec<u8>>,
}

impl TestFrame {
    fn new(bits: u32, matrix: Matrix, (w, h): (usize, usize), shift_y: u32, semi_planar: bool) -> Self {
        let format = FrameFormat {
            layout: if semi_planar {
                PlaneLayout::P010
            } else {
                PlaneLayout::Yuv {
                    chroma_shift_x: 1,
                    chroma_shift_y: shift_y,
                    bits,
                }
            },
            width: w as u32,
            height: h as u32,
            color: ColorSpec {
                matrix,
                range: Range::Limited,
            },
        };
        let planar = planes(w, h, bits, shift_y);
        let data = if semi_planar { p010(&planar) } else { planar.to_vec() };
        Self { format, data }
    }

    fn view(&self) -> Vec<PlaneData<'_>> {
        let w = self.format.width as usize;
        let semi_planar = self.format.layout == PlaneLayout::P010;
        let bytes = if self.format.layout.bits() > 8 { 2 } else { 1 };
        self.data
            .iter()
            .enumerate()
            .map(|(i, d)| PlaneData {
                data: d,
                stride: match (i, semi_planar) {
                    (0, _) => w * bytes,
                    (_, true) => w.div_ceil(2) * 4,
                    (_, false) => w.div_ceil(2) * bytes,
                },
            })
            .collect()
    }
}

/// The pipeline's converted pixels, one u32 each.
fn converted(ctx: &histoplay::gpu::GpuContext, pipeline: &FramePipeline) -> Vec<u32> {
    let (w, h) = pipeline.frame_size();
    let bytes =
        histoplay::gpu::readback::read_buffer(ctx, &pipeline.ring.output.pixels, 0, u64::from(w * h * 4)).unwrap();
    bytemuck::cast_slice(&bytes).to_vec()
}

/// `check`, the planes laid out as P010 where `semi_planar` (10 bits, 4:2:0).
fn check_layout(
    bits: u32,
    volume: ColorVolume,
    matrix: Matrix,
    (w, h): (usize, usize),
    shift_y: u32,
    semi_planar: bool,
) {
    let ctx = common::gpu();
    let frame = TestFrame::new(bits, matrix, (w, h), shift_y, semi_planar);
    let (format, view) = (frame.format, frame.view());
    let mut pipeline = FramePipeline::new(&ctx, 256, format, volume, 2).unwrap();
    let shown = Mark::ALL.iter().fold(MarkSet::default(), |s, &m| s.with(m, true));
    let settings = MarkSettings {
        shown,
        zebra_low: Some(70.0),
        peaking: 10.0,
        ..MarkSettings::default()
    };
    assert!(pipeline.set_marks(&ctx, &settings), "the first mark makes the stage");
    pipeline.ring.slots[1].upload(&ctx.queue, &view).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pipeline.encode_frame(&mut encoder, 1);
    ctx.queue.submit([encoder.finish()]);
    let pixels = converted(&ctx, &pipeline);
    let marks = pipeline.marks().unwrap();
    let gpu = words(&ctx, marks);
    let (planes, _) = components(&format, &view).unwrap();
    let params = marks.params();
    let table = marks.linear_table();
    let cpu = classify(&params, &table, &pixels, Some(&planes));
    let ten_bit = pipeline.ring.output.bits > 8;
    let mut near = 0;
    for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
        let margin = gamut_margin(histoplay::marks::unpack(pixels[i], ten_bit), &table, &params);
        if params.gamut != 0 && margin.abs() < 1e-5 {
            // Within rounding of the gamut's edge: the GPU's arithmetic may decide otherwise.
            near += 1;
            assert_eq!(g & !WORD_GAMUT, c & !WORD_GAMUT, "pixel {i}");
        } else {
            assert_eq!(g, c, "{bits} bits, pixel ({}, {})", i % w, i / w);
        }
    }
    assert!(near * 100 < w * h, "{near} pixels at the gamut's edge");
    // Every mark is exercised.
    for bit in [0xf, 16, 32, 64, 256] {
        assert!(
            cpu.iter().any(|&c| c & bit != 0),
            "{bits} bits: no pixel has mark bit {bit:#x}"
        );
        assert!(
            cpu.iter().any(|&c| c & bit == 0),
            "{bits} bits: every pixel has mark bit {bit:#x}"
        );
    }
    if params.gamut != 0 {
        assert!(cpu.iter().any(|&c| c & WORD_GAMUT != 0), "no pixel outside BT.709");
    }
    // Counted again (paused, a level changed), the range marks are kept from the planes.
    let lower = MarkSettings {
        zebra: 80.0,
        ..settings.clone()
    };
    assert!(!pipeline.set_marks(&ctx, &lower));
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pipeline.encode_recount(&mut encoder, None);
    ctx.queue.submit([encoder.finish()]);
    let marks = pipeline.marks().unwrap();
    let again = words(&ctx, marks);
    let cpu = classify(&marks.params(), &table, &pixels, Some(&planes));
    assert_eq!(
        again.iter().map(|w| w & !WORD_GAMUT).collect::<Vec<_>>(),
        cpu.iter().map(|w| w & !WORD_GAMUT).collect::<Vec<_>>()
    );
    assert_ne!(again, gpu, "the zebra level moved");
    // The other two pipelines: peaking with only the range beside it (and the gamut, which on
    // a BT.709 source never applies), and the marks without peaking (each pixel's luma worked
    // out where it is marked).
    for marks in [
        &[Mark::Peaking, Mark::Range][..],
        &[Mark::Peaking, Mark::Gamut, Mark::Range],
        &[Mark::FalseColour, Mark::Zebra, Mark::Gamut, Mark::Range],
    ] {
        let shown = marks.iter().fold(MarkSet::default(), |s, &m| s.with(m, true));
        let some = MarkSettings {
            shown,
            ..settings.clone()
        };
        pipeline.set_marks(&ctx, &some);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.encode_frame(&mut encoder, 1);
        ctx.queue.submit([encoder.finish()]);
        let marks_stage = pipeline.marks().unwrap();
        let gpu = words(&ctx, marks_stage);
        let cpu = classify(&marks_stage.params(), &table, &pixels, Some(&planes));
        for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
            let margin = gamut_margin(histoplay::marks::unpack(pixels[i], ten_bit), &table, &params);
            if !(params.gamut != 0 && margin.abs() < 1e-5) {
                assert_eq!(g, c, "{marks:?}, {bits} bits, pixel ({}, {})", i % w, i / w);
            }
        }
        assert!(cpu.iter().any(|&c| c != 0), "{marks:?}: no pixel marked");
    }
}

#[test]
fn the_marks_of_8_bit_frames_on_the_gpu_are_the_cpu_twins() {
    // Rows of whole vec4us: the pass loads four pixels at once.
    check(8, ColorVolume::default(), Matrix::Bt709, (72, 46), 1);
}

#[test]
fn the_marks_of_10_bit_frames_on_the_gpu_are_the_cpu_twins() {
    // Odd sizes: a row's last word holds one pixel.
    check(10, ColorVolume::default(), Matrix::Bt601, (71, 47), 1);
}

#[test]
fn the_marks_of_p010_frames_on_the_gpu_are_the_cpu_twins() {
    // What NVDEC gives for 10-bit video: the range test reads the top 10 bits, chroma interleaved.
    check_layout(10, ColorVolume::default(), Matrix::Bt709, (70, 46), 1, true);
}

#[test]
fn the_marks_of_4_2_2_frames_on_the_gpu_are_the_cpu_twins() {
    // Chroma of full height: each row reads its own.
    check(8, ColorVolume::default(), Matrix::Bt709, (69, 33), 0);
}

#[test]
fn the_marks_of_10_bit_bt2020_pq_frames_on_the_gpu_are_the_cpu_twins_gamut_included() {
    let volume = ColorVolume {
        transfer: Transfer::Pq,
        primaries: Primaries::Bt2020,
        peak_nits: Some(1000.0),
    };
    check(10, volume, Matrix::Bt2020, (70, 46), 1);
}

#[test]
fn the_marks_of_8_bit_display_p3_frames_on_the_gpu_are_the_cpu_twins_gamut_included() {
    let volume = ColorVolume {
        transfer: Transfer::Sdr,
        primaries: Primaries::P3,
        peak_nits: None,
    };
    check(8, volume, Matrix::Bt709, (72, 46), 1);
}

/// A frame already shown when the first mark is turned on (paused): the frame counted again
/// is marked, from the converted pixels alone.
#[test]
fn marks_turned_on_for_a_frame_already_converted_mark_it() {
    let ctx = common::gpu();
    let frame = TestFrame::new(8, Matrix::Bt709, (70, 46), 1, false);
    let view = frame.view();
    let mut pipeline = FramePipeline::new(&ctx, 256, frame.format, ColorVolume::default(), 2).unwrap();
    pipeline.ring.slots[0].upload(&ctx.queue, &view).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pipeline.encode_frame(&mut encoder, 0);
    ctx.queue.submit([encoder.finish()]);
    let settings = MarkSettings {
        shown: MarkSet::default().with(Mark::FalseColour, true).with(Mark::Zebra, true),
        ..MarkSettings::default()
    };
    assert!(pipeline.set_marks(&ctx, &settings));
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pipeline.encode_recount(&mut encoder, None);
    ctx.queue.submit([encoder.finish()]);
    let pixels = converted(&ctx, &pipeline);
    let marks = pipeline.marks().unwrap();
    let cpu = classify(&marks.params(), &marks.linear_table(), &pixels, None);
    let gpu = words(&ctx, marks);
    // The range marks wait for the next frame's planes.
    let strip = |words: &[u32]| {
        words
            .iter()
            .map(|w| w & !histoplay::marks::WORD_RANGE)
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&gpu), strip(&cpu));
    assert!(cpu.iter().any(|&c| c & 0xf == 6), "white clip in the frame");
}

/// 320x240, 10 fps, 3 s, lossless: bands of Y' 16, 235 and 250 from x 0, 100 and 200 (the
/// window test's clip).
fn bands() -> std::path::PathBuf {
    let source = "color=c=black:s=320x240:r=10:d=3,format=yuv420p,\
                  geq=lum='if(lt(X,100),16,if(lt(X,200),235,250))':cb=128:cr=128";
    common::fixture(
        "marks-bands.mp4",
        &[
            "-f", "lavfi", "-i", source, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
        ],
    )
}

fn histoplay(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .output()
        .expect("histoplay runs")
}

/// Row 171 of a render of the bands at their own size, from x `from` for 64 pixels: under the
/// marks' note and legend in the top-right corner (down to row 165), above the histograms
/// (from row 180).
fn rendered_row(args: &[&str], from: u32) -> Vec<[u8; 3]> {
    let out_png = std::env::temp_dir().join(format!(
        "histoplay-marks-{}-{from}-{}.png",
        std::process::id(),
        args.join("_").len()
    ));
    let clip = bands();
    let mut all: Vec<&std::ffi::OsStr> = [
        "render".as_ref(),
        clip.as_os_str(),
        "--frame".as_ref(),
        "5".as_ref(),
        "-o".as_ref(),
        out_png.as_os_str(),
    ]
    .to_vec();
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let out = histoplay(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = image::open(&out_png).unwrap().to_rgb8();
    std::fs::remove_file(&out_png).unwrap();
    (from..from + 64).map(|x| image.get_pixel(x, 171).0).collect()
}

fn count(pixels: &[[u8; 3]], colour: [u8; 3]) -> usize {
    pixels.iter().filter(|&&p| p == colour).count()
}

#[test]
fn render_draws_the_marks_the_player_draws() {
    // False colour and range: purple over black, red over white and super-white, and the
    // super-white band (out of range) half covered by the yellow checker.
    let marks = ["--overlay", "false-colour,range"];
    assert_eq!(count(&rendered_row(&marks, 18), [128, 0, 255]), 64);
    assert_eq!(count(&rendered_row(&marks, 118), [255, 0, 0]), 64);
    let super_white = rendered_row(&marks, 218);
    assert_eq!(count(&super_white, [255, 255, 0]), 32);
    assert_eq!(count(&super_white, [255, 0, 0]), 32);
    // Zebras from 90%: half of each white band striped black.
    let zebra = ["--overlay", "zebra", "--zebra", "90"];
    assert_eq!(count(&rendered_row(&zebra, 118), [0, 0, 0]), 32);
    assert_eq!(count(&rendered_row(&zebra, 18), [0, 0, 0]), 64, "black is black");
    // A scale of its own: one band at 40-60%, the rest grey (white stays white, black black).
    let scale = std::env::temp_dir().join(format!("histoplay-scale-{}.txt", std::process::id()));
    std::fs::write(&scale, "unit percent\n0 50 #00ff00 lower half\n").unwrap();
    let own = [
        "--overlay",
        "false-colour",
        "--false-colour-scale",
        scale.to_str().unwrap(),
    ];
    assert_eq!(count(&rendered_row(&own, 18), [0, 255, 0]), 64);
    assert_eq!(count(&rendered_row(&own, 118), [255, 255, 255]), 64);
    std::fs::remove_file(&scale).unwrap();
}

#[test]
fn render_draws_the_marks_on_a_comparisons_picture() {
    // The bands compared with a black clip: the marks are those of the picture shown, A's left
    // of the wipe's line and B's right of it, with no range marks (the composite has no
    // planes).
    let black = common::black_240p();
    let marks = ["--overlay", "false-colour,range", "--compare", black.to_str().unwrap()];
    let wipe = [&marks[..], &["--split", "0.9"]].concat();
    let purple = [128, 0, 255];
    let red = [255, 0, 0];
    assert_eq!(count(&rendered_row(&wipe, 18), purple), 64, "A's black");
    // A's super-white up to the line at x 288, all red: no range checker.
    let line = rendered_row(&wipe, 256);
    assert_eq!(count(&line[..32], red), 32);
    assert_eq!(count(&line[32..], purple), 32, "B's black");
    let side_by_side = [&marks[..], &["--compare-mode", "side-by-side"]].concat();
    assert_eq!(count(&rendered_row(&side_by_side, 218), red), 64, "A's super-white");
    assert_eq!(count(&rendered_row(&side_by_side, 320 + 218), purple), 64, "B's black");
}

#[test]
fn render_draws_the_false_colour_legend_the_player_draws() {
    // A black clip: the whole picture is false colour's purple, so every other colour of the
    // scale in the top-right corner is the legend's swatch of its band.
    let clip = common::black_240p();
    let render = |overlay: Option<&str>| {
        let png = std::env::temp_dir().join(format!("histoplay-legend-{}-{overlay:?}.png", std::process::id()));
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "render".as_ref(),
            clip.as_os_str(),
            "--size".as_ref(),
            "640x480".as_ref(),
            "-o".as_ref(),
            png.as_os_str(),
        ];
        if let Some(overlay) = overlay {
            args.extend(["--overlay".as_ref(), std::ffi::OsStr::new(overlay)]);
        }
        let out = histoplay(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let image = image::open(&png).unwrap().to_rgb8();
        std::fs::remove_file(&png).unwrap();
        image
    };
    let corner = |image: &image::RgbImage| -> Vec<[u8; 3]> {
        (0..240)
            .flat_map(|y| (320..640).map(move |x| (x, y)))
            .map(|(x, y)| image.get_pixel(x, y).0)
            .collect()
    };
    let scale = histoplay::marks::scale::FalseColourScale::sdr();
    let marked = render(Some("false-colour"));
    assert_eq!(marked.get_pixel(100, 200).0, [128, 0, 255], "the picture is purple");
    let shown = corner(&marked);
    for band in scale.bands.iter().filter(|b| b.colour != [128, 0, 255]) {
        let swatch = count(&shown, band.colour);
        assert!((100..=200).contains(&swatch), "{}: {swatch} pixels", band.label);
    }
    // Zebras alone: a note, no legend.
    let zebra = corner(&render(Some("zebra")));
    for band in &scale.bands {
        assert_eq!(count(&zebra, band.colour), 0, "{}", band.label);
    }
}

#[test]
fn bad_marks_options_are_one_line_errors() {
    let clip = bands();
    let run = |args: &[&str]| {
        let mut all: Vec<&std::ffi::OsStr> = [
            "render".as_ref(),
            clip.as_os_str(),
            "-o".as_ref(),
            "/tmp/histoplay-never.png".as_ref(),
        ]
        .to_vec();
        all.extend(args.iter().map(std::ffi::OsStr::new));
        let out = histoplay(&all);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: "), "{err}");
        err
    };
    assert!(run(&["--overlay", "sparkles"]).contains("false-colour, zebra, peaking, gamut, range"));
    assert!(run(&["--zebra", "120"]).contains("0 to 110"));
    assert!(run(&["--peaking", "0"]).contains("1 to 50"));
    assert!(run(&[
        "--overlay",
        "false-colour",
        "--false-colour-scale",
        "/nonexistent/scale.txt"
    ])
    .contains("/nonexistent/scale.txt"));
    let scale = std::env::temp_dir().join(format!("histoplay-bad-scale-{}.txt", std::process::id()));
    std::fs::write(&scale, "unit percent\n10 5 #ffffff\n").unwrap();
    let err = run(&[
        "--overlay",
        "false-colour",
        "--false-colour-scale",
        scale.to_str().unwrap(),
    ]);
    assert!(err.contains("line 2"), "{err}");
    std::fs::remove_file(&scale).unwrap();
}
