//! The signalstats pass on the GPU (lavapipe here) against its CPU twin: the counts of two
//! frames in a row, uploaded into ring slots, for every layout it reads (planar 4:2:0, 4:2:2
//! and 4:4:4 at 8 and 10 bits, NV12, P010), odd sizes, and samples with stray high bits.

mod common;

use common::Noise;
use histoplay::colour::{ColorSpec, ColorVolume, Matrix, Range};
use histoplay::pipeline::FramePipeline;
use histoplay::signalstats::{count, YuvPlanes};
use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};

/// Planes of `layout` for a `w`×`h` frame: smooth ramps with noise (and, at 10 bits in 16-bit
/// containers, now and then a stray bit above the depth), with strides wider than the rows.
fn frame_planes(layout: PlaneLayout, w: usize, h: usize, seed: u32) -> (Vec<Vec<u8>>, Vec<usize>) {
    let mut noise = Noise(seed);
    let (sx, sy, bits, semi) = match layout {
        PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            bits,
        } => (chroma_shift_x, chroma_shift_y, bits, false),
        PlaneLayout::Nv12 => (1, 1, 8, true),
        _ => (1, 1, 10, true),
    };
    let wide = bits > 8;
    let max = (1u32 << bits) - 1;
    let shift = if layout == PlaneLayout::P010 { 6 } else { 0 };
    let sample = |base: u32, n: &mut Noise| -> u32 {
        let jitter = n.next() % (max / 8 + 1);
        let mut v = (base + jitter).min(max);
        // A damaged 16-bit sample: a bit above the depth.
        if wide && shift == 0 && n.next() % 97 == 0 {
            v |= 1 << 13;
        }
        v << shift
    };
    let put = |plane: &mut Vec<u8>, at: usize, v: u32| {
        if wide {
            plane[2 * at..2 * at + 2].copy_from_slice(&(v as u16).to_le_bytes());
        } else {
            plane[at] = v as u8;
        }
    };
    let bytes = if wide { 2 } else { 1 };
    let (cw, ch) = (w.div_ceil(1 << sx), h.div_ceil(1 << sy));
    let pad = 3;
    let y_stride = (w + pad) * bytes;
    let mut y_plane = vec![0u8; y_stride * h];
    for y in 0..h {
        for x in 0..w {
            let v = sample(
                (x * max as usize / w.max(1)) as u32 / 2 + (y as u32 % 5) * 3,
                &mut noise,
            );
            put(&mut y_plane, y * (w + pad) + x, v);
        }
    }
    if semi {
        let stride = (2 * cw + pad) * bytes;
        let mut uv = vec![0u8; stride * ch];
        for y in 0..ch {
            for x in 0..cw {
                let u = sample((y * max as usize / ch.max(1)) as u32 / 2, &mut noise);
                let v = sample(max / 3, &mut noise);
                put(&mut uv, y * (2 * cw + pad) + 2 * x, u);
                put(&mut uv, y * (2 * cw + pad) + 2 * x + 1, v);
            }
        }
        (vec![y_plane, uv], vec![y_stride, stride])
    } else {
        let stride = (cw + pad) * bytes;
        let mut u_plane = vec![0u8; stride * ch];
        let mut v_plane = vec![0u8; stride * ch];
        for y in 0..ch {
            for x in 0..cw {
                let u = sample((x * max as usize / cw.max(1)) as u32, &mut noise);
                let v = sample((y * max as usize / ch.max(1)) as u32 / 3, &mut noise);
                put(&mut u_plane, y * (cw + pad) + x, u);
                put(&mut v_plane, y * (cw + pad) + x, v);
            }
        }
        (
            vec![y_plane, u_plane, v_plane],
            vec![stride, stride, stride]
                .into_iter()
                .enumerate()
                .map(|(i, s)| if i == 0 { y_stride } else { s })
                .collect(),
        )
    }
}

fn check(layout: PlaneLayout, w: usize, h: usize) {
    let ctx = common::gpu();
    let format = FrameFormat {
        layout,
        width: w as u32,
        height: h as u32,
        color: ColorSpec {
            matrix: Matrix::Bt709,
            range: Range::Limited,
        },
    };
    let mut pipeline = FramePipeline::new(&ctx, 256, format, ColorVolume::default(), 2).unwrap();
    assert!(pipeline.count_stats(&ctx));
    let mut previous: Option<YuvPlanes> = None;
    for (k, seed) in [(0usize, 7u32), (1, 99), (0, 12345)] {
        let (data, strides) = frame_planes(layout, w, h, seed);
        let planes: Vec<PlaneData> = data
            .iter()
            .zip(&strides)
            .map(|(d, &stride)| PlaneData { data: d, stride })
            .collect();
        pipeline.ring.slots[k].upload(&ctx.queue, &planes).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.encode_frame(&mut encoder, k);
        ctx.queue.submit([encoder.finish()]);
        let stats = pipeline.stats().unwrap();
        let bytes = histoplay::gpu::readback::read_buffer(&ctx, &stats.counts, 0, stats.counts_size()).unwrap();
        let gpu = stats.counts_from(&histoplay::gpu::readback::words(&bytes));
        let cpu_planes = YuvPlanes::read(layout, w as u32, h as u32, &planes).unwrap();
        let cpu = count(&cpu_planes, previous.as_ref());
        assert_eq!(gpu, cpu, "{layout} {w}x{h}, frame seeded {seed}");
        // The noise makes temporal outliers, at the edges of bands and workgroups too.
        assert!(gpu.tout > 0, "{layout} {w}x{h}: no outlier to count");
        assert_eq!(gpu.stats(), cpu.stats());
        previous = Some(cpu_planes);
    }
}

#[test]
fn planar_frames_count_as_the_cpu_twin_counts_them() {
    for (sx, sy) in [(1, 1), (1, 0), (0, 0)] {
        for bits in [8, 10] {
            let layout = PlaneLayout::Yuv {
                chroma_shift_x: sx,
                chroma_shift_y: sy,
                bits,
            };
            check(layout, 70, 37);
        }
    }
}

#[test]
fn nv12_and_p010_frames_count_as_the_cpu_twin_counts_them() {
    check(PlaneLayout::Nv12, 64, 36);
    check(PlaneLayout::P010, 97, 71);
}

#[test]
fn a_frame_wider_than_a_workgroup_and_taller_than_a_band_counts_the_same() {
    check(
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 10,
        },
        1100,
        50,
    );
}
