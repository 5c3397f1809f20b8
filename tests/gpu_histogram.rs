//! Every GPU variant against the CPU reference, exactly, on every test picture and bin count.

mod common;

use histoplay::cli::bench::kernels::scales_agree;
use histoplay::cli::bench::variants::{self, GpuVariant, Production, VariantKind};
use histoplay::colour::depth::pack_rgb10;
use histoplay::colour::Depth;
use histoplay::engine::chunk::{count_bits, ChunkShape};
use histoplay::engine::histogram::{display_scale, histogram_packed, histogram_rgba, Histogram};
use histoplay::engine::{EngineConfig, HistogramEngine, HistogramTarget, Merge, SourceBinding};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::video::still::RgbaImage;

fn run_once(ctx: &histoplay::gpu::GpuContext, variant: &dyn GpuVariant) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    variant.encode(&mut encoder, None);
    ctx.queue.submit([encoder.finish()]);
}

fn check_picture(name: &str, image: &histoplay::video::still::RgbaImage) {
    let ctx = common::gpu();
    let frame = GpuFrame::from_rgba(&ctx, name, image.width, image.height, &image.pixels).unwrap();
    let pixels = u64::from(image.width) * u64::from(image.height);
    for bins in [16, 256, 1024] {
        let expected = histogram_rgba(&image.pixels, bins);
        assert_eq!(expected.total(), pixels);
        for kind in VariantKind::GPU {
            if variants::skip_reason(&ctx, kind, image.width, image.height, bins).is_some() {
                // lavapipe ends an invocation after 65535 loop iterations: the single invocation
                // over more than ~60k pixels, and the one-workgroup sum over more than ~60k
                // chunks, are checked on real GPUs (bench) and on smaller pictures here.
                continue;
            }
            let variant = variants::build(&ctx, kind, &frame, bins).unwrap();
            // Twice: the second run must not see the first one's counts.
            run_once(&ctx, variant.as_ref());
            run_once(&ctx, variant.as_ref());
            let got = variant.read_histogram(&ctx).unwrap();
            assert!(
                got == expected,
                "{name}, {bins} bins, {}: GPU and CPU histograms differ",
                kind.name()
            );
            if let Some(scale) = variant.read_scale(&ctx).unwrap() {
                let cpu = display_scale(&expected, image.width * image.height);
                assert!(
                    scales_agree(scale.scale, cpu),
                    "{name}, {bins} bins, {}: scale {:?} vs {cpu:?}",
                    kind.name(),
                    scale.scale
                );
                assert_eq!(scale.max_bin, expected.max_per_channel());
            }
        }
    }
}

#[test]
fn kitten() {
    check_picture("kitten", &common::kitten());
}

#[test]
fn flat_and_degenerate_pictures() {
    for (name, image) in common::test_pictures()
        .iter()
        .filter(|(n, _)| *n != "kitten" && *n != "noise")
    {
        check_picture(name, image);
    }
}

#[test]
fn noise() {
    check_picture("noise", &common::noise(512, 512, 12345));
}

#[test]
fn single_invocation_on_a_picture_lavapipe_can_loop_over() {
    // The kitten's crop at 200x200 keeps one invocation within lavapipe's loop budget.
    let kitten = common::kitten();
    let (w, h) = (200u32, 200u32);
    let mut pixels = Vec::new();
    for y in 600..600 + h as usize {
        let row = y * kitten.width as usize * 4;
        pixels.extend_from_slice(&kitten.pixels[row + 4000..row + 4000 + w as usize * 4]);
    }
    let crop = histoplay::video::still::RgbaImage {
        width: w,
        height: h,
        pixels,
    };
    check_picture("kitten crop", &crop);
}

#[test]
fn engine_shapes_all_agree() {
    // Workgroup size, pixels per invocation, replicas and the merge are parameters: every mix is
    // exact.
    let ctx = common::gpu();
    let image = common::noise(777, 333, 99);
    let frame = GpuFrame::from_rgba(&ctx, "noise", image.width, image.height, &image.pixels).unwrap();
    let expected = histogram_rgba(&image.pixels, 256);
    let shape = |workgroup_size, loads_per_invocation, replicas| ChunkShape {
        workgroup_size,
        loads_per_invocation,
        replicas,
    };
    let tree = |fan_in| Merge::Tree { fan_in };
    let shapes = [
        (shape(256, 4, 1), tree(2)),
        (shape(64, 8, 2), tree(4)),
        (shape(128, 16, 3), tree(256)),
        (shape(1024, 4, 1), tree(1024)),
        (shape(32, 64, 8), tree(7)),
        (shape(256, 4, 1), Merge::Atomic),
        (shape(64, 8, 2), Merge::Atomic),
        (shape(128, 16, 3), Merge::Atomic),
        (shape(1024, 4, 1), Merge::Atomic),
        (shape(32, 64, 8), Merge::Atomic),
        (shape(1, 4, 1), Merge::Atomic),
        (shape(3, 8, 1), Merge::Atomic),
    ];
    for (shape, merge) in shapes {
        let production = Production::new(
            &ctx,
            &frame,
            256,
            EngineConfig {
                shape,
                merge,
                ..Default::default()
            },
        )
        .unwrap();
        run_once(&ctx, &production);
        assert_eq!(
            production.read_histogram(&ctx).unwrap(),
            expected,
            "{shape:?}, {merge:?}"
        );
        let scale = production.read_scale(&ctx).unwrap().unwrap();
        assert_eq!(scale.max_bin, expected.max_per_channel(), "{shape:?}, {merge:?}");
    }
}

/// The pictures as GPU frames, each bound to `target`.
fn upload_pictures(
    ctx: &GpuContext,
    engine: &HistogramEngine,
    target: &HistogramTarget,
    pictures: &[RgbaImage],
) -> (Vec<GpuFrame>, Vec<SourceBinding>) {
    let frames: Vec<GpuFrame> = pictures
        .iter()
        .map(|p| GpuFrame::from_rgba(ctx, "noise", p.width, p.height, &p.pixels).unwrap())
        .collect();
    let sources = frames
        .iter()
        .map(|f| engine.bind_source(ctx, target, &f.pixels))
        .collect();
    (frames, sources)
}

/// Counts `source` into `target` in a submission of its own and checks the histogram, the
/// largest bins and the scale against `expected` (of `target.pixel_count` pixels).
fn count_exactly(
    ctx: &GpuContext,
    engine: &HistogramEngine,
    target: &HistogramTarget,
    source: &SourceBinding,
    expected: &Histogram,
    what: &str,
) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    engine.encode(&mut encoder, target, source, None);
    ctx.queue.submit([encoder.finish()]);
    assert_eq!(&engine.read_histogram(ctx, target).unwrap(), expected, "{what}");
    let scale = engine.read_scale(ctx, target).unwrap();
    assert_eq!(scale.max_bin, expected.max_per_channel(), "{what}");
    let cpu = display_scale(expected, target.pixel_count);
    assert!(scales_agree(scale.scale, cpu), "{what}: {:?} vs {cpu:?}", scale.scale);
}

#[test]
fn one_dispatch_engine_starts_each_frame_from_zero() {
    // The merge's totals are zeroed by the workgroup that finishes last, ready for the next
    // frame: frames counted back to back into one target, in one encoder or in separate
    // submissions, each come out exact, as do their scales.
    let ctx = common::gpu();
    let (width, height) = (700, 500);
    let pictures = [common::noise(width, height, 5), common::noise(width, height, 6)];
    let engine = HistogramEngine::new(&ctx, 256, EngineConfig::default());
    assert!(engine.is_one_dispatch());
    let target = engine.target(&ctx, width, height).unwrap();
    let (_frames, sources) = upload_pictures(&ctx, &engine, &target, &pictures);
    let expected: Vec<_> = pictures.iter().map(|p| histogram_rgba(&p.pixels, 256)).collect();
    assert_ne!(expected[0], expected[1]);

    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for i in [0, 1, 0, 1, 1] {
        engine.encode(&mut encoder, &target, &sources[i], None);
    }
    ctx.queue.submit([encoder.finish()]);
    assert_eq!(engine.read_histogram(&ctx, &target).unwrap(), expected[1]);

    for i in [0, 1, 0] {
        count_exactly(&ctx, &engine, &target, &sources[i], &expected[i], &format!("frame {i}"));
    }
}

#[test]
fn one_dispatch_engine_finishes_per_word_or_by_ticket_as_the_frame_needs() {
    // Where a bin's count and the number of chunks fit in one word together (and the chunks are
    // few), the workgroup that adds to a word last finishes it; where they don't (one-invocation
    // workgroups of 16 pixels: 21875 chunks of a 700x500 frame, against 8192 that fit beside
    // 19-bit counts), the last workgroup by ticket finishes them all. A target switching between
    // the two (a region of 4000 pixels is 250 chunks) keeps every frame's histogram and scale
    // exact.
    let ctx = common::gpu();
    let (width, height) = (700, 500);
    let pictures = [common::noise(width, height, 5), common::noise(width, height, 6)];
    let config = EngineConfig {
        shape: ChunkShape {
            workgroup_size: 1,
            loads_per_invocation: 4,
            replicas: 1,
        },
        ..Default::default()
    };
    let engine = HistogramEngine::new(&ctx, 256, config);
    assert!(engine.is_one_dispatch());
    let mut target = engine.target(&ctx, width, height).unwrap();
    assert_eq!(target.num_chunks, 21875);
    assert_eq!(count_bits(width * height, 21875, 256), 0);
    assert_eq!(count_bits(4000, 250, 256), 12);
    let (_frames, sources) = upload_pictures(&ctx, &engine, &target, &pictures);
    let whole = width * height;
    for (i, pixel_count) in [
        (0, whole),
        (1, 4000),
        (0, 4000),
        (1, whole),
        (0, whole),
        (1, 4000),
        (0, whole),
    ] {
        engine.set_pixel_count(&ctx, &mut target, pixel_count);
        let expected = histogram_rgba(&pictures[i].pixels[..pixel_count as usize * 4], 256);
        let what = format!("picture {i}, {pixel_count} pixels");
        count_exactly(&ctx, &engine, &target, &sources[i], &expected, &what);
    }
}

/// 10-bit frames (packed RGB10A2) are counted at their own precision: every grey code value in
/// its own bin at 1024 bins, and random words equal to the CPU reference at every bin count,
/// through the one-dispatch and the three-pass engines.
#[test]
fn ten_bit_frames_count_at_their_own_precision() {
    let ctx = common::gpu();
    let (width, height) = (256, 67);
    let pixels = width * height;
    // Each of the 1024 greys 16 times, then the rest of the frame (a partial chunk) black.
    let greys: Vec<u32> = (0..pixels)
        .map(|i| if i < 16 * 1024 { i % 1024 } else { 0 })
        .map(|c| pack_rgb10(c, c, c))
        .collect();
    let mut state = 0x9e37_79b9u32;
    let noise: Vec<u32> = (0..pixels)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        })
        .collect();
    for (name, words) in [("greys", &greys), ("noise", &noise)] {
        let frame = GpuFrame::new(&ctx, name, width, height).unwrap();
        ctx.queue.write_buffer(&frame.pixels, 0, bytemuck::cast_slice(words));
        for bins in [16, 256, 1024] {
            let expected = histogram_packed(words, bins, Depth::Ten);
            assert_eq!(expected.total(), u64::from(pixels));
            if name == "greys" && bins == 1024 {
                let black = 16 + (pixels - 16 * 1024);
                assert_eq!(expected.counts[0], [black; 4]);
                assert!(expected.counts[1..].iter().all(|&c| c == [16; 4]));
            }
            for config in [EngineConfig::default(), EngineConfig::three_pass()] {
                let config = EngineConfig {
                    depth: Depth::Ten,
                    ..config
                };
                let engine = HistogramEngine::new(&ctx, bins, config);
                let got = engine.compute(&ctx, &frame).unwrap();
                assert_eq!(got, expected, "{name}, {bins} bins, {:?}", config.merge);
            }
        }
    }
}
