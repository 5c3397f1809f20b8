//! The conversion pass against its CPU twin, exactly, on every layout; the CPU twin against
//! FFmpeg's swscale and against values worked out by hand.

mod common;

use common::Noise;
use ffmpeg_next::ffi;
use histoplay::cli::bench::kernels::scales_agree;
use histoplay::colour::Depth;
use histoplay::colour::{ColorSpec, Matrix, Range};
use histoplay::engine::histogram::{display_scale, histogram_packed, Histogram};
use histoplay::engine::planes::PlanesCount;
use histoplay::engine::{EngineConfig, HistogramEngine};
use histoplay::gpu::readback::{read_buffer, read_texture, words};
use histoplay::gpu::texture::GpuFrame;
use histoplay::gpu::GpuContext;
use histoplay::video::convert::{convert_cpu, ConvertError, ConvertPass, PlaneTextures};
use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};
use std::ffi::{c_int, CString};

const MATRICES: [Matrix; 5] = Matrix::ALL;
const RANGES: [Range; 2] = [Range::Limited, Range::Full];
const YUV420: PlaneLayout = PlaneLayout::Yuv {
    chroma_shift_x: 1,
    chroma_shift_y: 1,
    bits: 8,
};
const YUV444: PlaneLayout = PlaneLayout::Yuv {
    chroma_shift_x: 0,
    chroma_shift_y: 0,
    bits: 8,
};

fn gpu() -> GpuContext {
    GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)")
}

/// Bytes of one row of plane `index`, as a decoder lays it out.
fn row_bytes(layout: PlaneLayout, index: usize, width: u32) -> usize {
    let samples = layout.plane_size(index, width, 1).0 as usize;
    match layout {
        PlaneLayout::Yuv { bits, .. } | PlaneLayout::Gray { bits } | PlaneLayout::Gbr { bits } if bits > 8 => {
            2 * samples
        }
        PlaneLayout::Nv12 if index == 1 => 2 * samples,
        PlaneLayout::P010 if index == 1 => 4 * samples,
        PlaneLayout::P010 => 2 * samples,
        PlaneLayout::Rgb24 => 3 * samples,
        PlaneLayout::Rgba | PlaneLayout::Bgra => 4 * samples,
        _ => samples,
    }
}

/// A decoded frame in CPU memory, each row of each plane followed by `padding` bytes of garbage.
struct TestFrame {
    format: FrameFormat,
    planes: Vec<(Vec<u8>, usize)>,
}

impl TestFrame {
    /// Planes of `sample(plane, i, y)`, the i-th code of row y (a pixel of packed RGB or
    /// interleaved UV has several), the padding between rows filled with noise.
    fn new(format: FrameFormat, padding: usize, mut sample: impl FnMut(usize, u32, u32) -> u32) -> Self {
        let layout = format.layout;
        let mut garbage = Noise(0x9e37_79b9);
        let bytes_per_code = if layout.bits() > 8 { 2 } else { 1 };
        let planes = (0..layout.plane_count())
            .map(|index| {
                let height = layout.plane_size(index, format.width, format.height).1 as usize;
                let row = row_bytes(layout, index, format.width);
                let stride = row + padding;
                let mut data = garbage.bytes(stride * height);
                for y in 0..height {
                    for i in 0..row / bytes_per_code {
                        let code = sample(index, i as u32, y as u32).to_le_bytes();
                        let at = y * stride + i * bytes_per_code;
                        data[at..at + bytes_per_code].copy_from_slice(&code[..bytes_per_code]);
                    }
                }
                (data, stride)
            })
            .collect();
        Self { format, planes }
    }

    /// Every sample noise, high bits of 2-byte samples included (the converter must mask them).
    fn noise(format: FrameFormat, padding: usize, seed: u32) -> Self {
        let mut noise = Noise(seed);
        Self::new(format, padding, |_, _, _| noise.next())
    }

    /// The last row without its padding: the shortest planes a decoder may hand over.
    fn trimmed(mut self) -> Self {
        for (index, (data, stride)) in self.planes.iter_mut().enumerate() {
            let (_, height) = self
                .format
                .layout
                .plane_size(index, self.format.width, self.format.height);
            data.truncate(*stride * (height as usize - 1) + row_bytes(self.format.layout, index, self.format.width));
        }
        self
    }

    fn planes(&self) -> Vec<PlaneData<'_>> {
        self.planes
            .iter()
            .map(|(data, stride)| PlaneData { data, stride: *stride })
            .collect()
    }
}

/// Every layout the converter takes.
fn every_layout() -> Vec<PlaneLayout> {
    let mut layouts = Vec::new();
    for bits in [8, 10, 12] {
        for (chroma_shift_x, chroma_shift_y) in [(1, 1), (1, 0), (0, 0)] {
            layouts.push(PlaneLayout::Yuv {
                chroma_shift_x,
                chroma_shift_y,
                bits,
            });
        }
        layouts.push(PlaneLayout::Gray { bits });
        layouts.push(PlaneLayout::Gbr { bits });
    }
    layouts.extend([
        PlaneLayout::Nv12,
        PlaneLayout::P010,
        PlaneLayout::Rgb24,
        PlaneLayout::Rgba,
        PlaneLayout::Bgra,
    ]);
    layouts
}

/// The colour specs that make a difference to `layout`.
fn colors_for(layout: PlaneLayout) -> Vec<ColorSpec> {
    let matrices: &[Matrix] = match layout {
        PlaneLayout::Yuv { .. } | PlaneLayout::Nv12 | PlaneLayout::P010 => &MATRICES,
        PlaneLayout::Gray { .. } => &[Matrix::Bt709],
        _ => {
            return vec![ColorSpec {
                matrix: Matrix::Bt709,
                range: Range::Full,
            }]
        }
    };
    let ranges = RANGES.iter();
    ranges
        .flat_map(|&range| matrices.iter().map(move |&matrix| ColorSpec { matrix, range }))
        .collect()
}

/// The value of an IEEE half float.
fn half(bits: u16) -> f32 {
    let (sign, exponent, mantissa) = (bits >> 15, i32::from((bits >> 10) & 0x1f), f32::from(bits & 0x3ff));
    let magnitude = match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        _ => (1.0 + mantissa / 1024.0) * 2f32.powi(exponent - 15),
    };
    if sign == 1 {
        -magnitude
    } else {
        magnitude
    }
}

/// The texture's pixels as packed words of the frame's depth: 8-bit textures hold the bytes
/// themselves, 10-bit ones (half floats) code k as k / 1023, read back to the nearest code.
fn texture_words(bytes: &[u8], bits: u32) -> Vec<u32> {
    if bits == 8 {
        return bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
    }
    bytes
        .chunks_exact(8)
        .map(|texel| {
            let channel = |i: usize| {
                let value = half(u16::from_le_bytes([texel[2 * i], texel[2 * i + 1]]));
                (value * 1023.0).round() as u32
            };
            assert_eq!(channel(3), 1023, "alpha is opaque");
            channel(0) | channel(1) << 10 | channel(2) << 20 | 3 << 30
        })
        .collect()
}

/// Converts on the GPU; returns the texture's and the pixel buffer's packed words.
fn convert_gpu(ctx: &GpuContext, pass: &ConvertPass, slot: &PlaneTextures, frame: &TestFrame) -> (Vec<u32>, Vec<u32>) {
    let (width, height) = (frame.format.width, frame.format.height);
    let bits = frame.format.layout.output_bits();
    let out = GpuFrame::with_bits(ctx, "converted", width, height, bits).unwrap();
    let binding = pass.bind(&ctx.device, slot, &out).unwrap();
    slot.upload(&ctx.queue, &frame.planes()).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut compute = encoder.begin_compute_pass(&Default::default());
        pass.encode(&mut compute, &binding);
    }
    ctx.queue.submit([encoder.finish()]);
    let texture = texture_words(&read_texture(ctx, &out.texture).unwrap(), bits);
    let pixels = read_buffer(ctx, &out.pixels, 0, 4 * u64::from(width) * u64::from(height)).unwrap();
    (texture, words(&pixels))
}

fn check_gpu_matches_cpu(ctx: &GpuContext, pass: &ConvertPass, frame: &TestFrame, what: &str) {
    let slot = PlaneTextures::new(&ctx.device, "test slot", frame.format).unwrap();
    let expected = convert_cpu(&frame.format, &frame.planes());
    let (texture, pixels) = convert_gpu(ctx, pass, &slot, frame);
    assert!(pixels == expected, "{what}: pixel buffer differs from convert_cpu");
    assert!(texture == expected, "{what}: texture differs from convert_cpu");
}

#[test]
fn gpu_matches_cpu_on_every_layout() {
    let ctx = gpu();
    let pass = ConvertPass::new(&ctx.device);
    let mut seed = 1;
    for layout in every_layout() {
        for color in colors_for(layout) {
            // Odd, even (the last chroma column and row repeat) and the smallest frame.
            for (width, height, padding) in [(37, 23, 13), (36, 22, 6), (1, 1, 3)] {
                seed += 1;
                let format = FrameFormat {
                    layout,
                    width,
                    height,
                    color,
                };
                let frame = TestFrame::noise(format, padding, seed);
                let frame = if seed % 2 == 0 { frame.trimmed() } else { frame };
                let what = format!("{layout:?} {color:?} {width}x{height}");
                check_gpu_matches_cpu(&ctx, &pass, &frame, &what);
            }
        }
    }
}

#[test]
fn a_slot_takes_frame_after_frame_from_another_thread() {
    let ctx = gpu();
    let pass = ConvertPass::new(&ctx.device);
    let color = ColorSpec {
        matrix: Matrix::Bt709,
        range: Range::Limited,
    };
    let format = FrameFormat {
        layout: YUV420,
        width: 33,
        height: 17,
        color,
    };
    let slot = PlaneTextures::new(&ctx.device, "ring slot", format).unwrap();
    let out = GpuFrame::new(&ctx, "converted", format.width, format.height).unwrap();
    let binding = pass.bind(&ctx.device, &slot, &out).unwrap();
    for seed in [5, 6, 7] {
        let frame = TestFrame::noise(format, 40, seed);
        // The decode thread uploads; this one records and submits.
        std::thread::scope(|scope| scope.spawn(|| slot.upload(&ctx.queue, &frame.planes())).join())
            .unwrap()
            .unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut compute = encoder.begin_compute_pass(&Default::default());
            pass.encode(&mut compute, &binding);
        }
        ctx.queue.submit([encoder.finish()]);
        let pixels = words(&read_buffer(&ctx, &out.pixels, 0, 4 * 33 * 17).unwrap());
        assert!(pixels == convert_cpu(&format, &frame.planes()), "frame {seed}");
    }
}

#[test]
fn bad_planes_are_errors_not_panics() {
    let ctx = gpu();
    let pass = ConvertPass::new(&ctx.device);
    let color = ColorSpec {
        matrix: Matrix::Bt601,
        range: Range::Limited,
    };
    let format = FrameFormat {
        layout: PlaneLayout::Nv12,
        width: 8,
        height: 4,
        color,
    };
    let slot = PlaneTextures::new(&ctx.device, "slot", format).unwrap();
    let frame = TestFrame::noise(format, 0, 3);
    let mut planes = frame.planes();
    assert!(matches!(
        slot.upload(&ctx.queue, &planes[..1]),
        Err(ConvertError::MissingPlanes { .. })
    ));
    planes[1].data = &planes[1].data[..planes[1].data.len() - 1];
    assert!(matches!(
        slot.upload(&ctx.queue, &planes),
        Err(ConvertError::PlaneTooShort { plane: 1, .. })
    ));
    planes[0].stride = 7;
    assert!(matches!(
        slot.upload(&ctx.queue, &planes),
        Err(ConvertError::BadStride { plane: 0, .. })
    ));
    let wrong_size = GpuFrame::new(&ctx, "too small", 4, 4).unwrap();
    assert!(matches!(
        pass.bind(&ctx.device, &slot, &wrong_size),
        Err(ConvertError::SizeMismatch { .. })
    ));
    let wrong_depth = GpuFrame::with_bits(&ctx, "10-bit", 8, 4, 10).unwrap();
    assert!(matches!(
        pass.bind(&ctx.device, &slot, &wrong_depth),
        Err(ConvertError::DepthMismatch { from: 8, to: 10 })
    ));
}

/// One pixel through convert_cpu, its channels at the output's depth.
fn one_pixel(layout: PlaneLayout, matrix: Matrix, range: Range, samples: [u32; 3]) -> [u32; 3] {
    let format = FrameFormat {
        layout,
        width: 1,
        height: 1,
        color: ColorSpec { matrix, range },
    };
    let frame = TestFrame::new(format, 0, |plane, i, _| samples[plane + i as usize]);
    let word = convert_cpu(&format, &frame.planes())[0];
    if layout.output_bits() == 10 {
        assert_eq!(word >> 30, 3, "alpha is opaque");
        [word & 1023, (word >> 10) & 1023, (word >> 20) & 1023]
    } else {
        assert_eq!(word >> 24, 255, "alpha is opaque");
        [word & 255, (word >> 8) & 255, (word >> 16) & 255]
    }
}

#[test]
fn known_values() {
    use Matrix::{Bt2020, Bt601, Bt709};
    use Range::{Full, Limited};
    let yuv420_10 = PlaneLayout::Yuv {
        chroma_shift_x: 1,
        chroma_shift_y: 1,
        bits: 10,
    };
    let yuv444_12 = PlaneLayout::Yuv {
        chroma_shift_x: 0,
        chroma_shift_y: 0,
        bits: 12,
    };
    let cases = [
        // Black and white of each range and depth.
        (YUV420, Bt709, Limited, [16, 128, 128], [0, 0, 0]),
        (YUV420, Bt709, Limited, [235, 128, 128], [255, 255, 255]),
        (YUV420, Bt601, Full, [0, 128, 128], [0, 0, 0]),
        (YUV420, Bt601, Full, [255, 128, 128], [255, 255, 255]),
        (yuv420_10, Bt709, Limited, [64, 512, 512], [0, 0, 0]),
        (yuv420_10, Bt709, Limited, [940, 512, 512], [1023, 1023, 1023]),
        (yuv420_10, Bt709, Full, [1023, 512, 512], [1023, 1023, 1023]),
        (yuv444_12, Bt2020, Limited, [256, 2048, 2048], [0, 0, 0]),
        (yuv444_12, Bt2020, Limited, [3760, 2048, 2048], [1023, 1023, 1023]),
        // Mid grey: 255 · 110 / 219 = 128.08; 10-bit limited 1023 · 438 / 876 = 511.5 rounds
        // up; 12-bit full 1023 · 2048 / 4095 = 511.62.
        (YUV444, Bt709, Limited, [126, 128, 128], [128, 128, 128]),
        (yuv420_10, Bt709, Limited, [502, 512, 512], [512, 512, 512]),
        (
            PlaneLayout::Gray { bits: 12 },
            Bt709,
            Full,
            [2048, 0, 0],
            [512, 512, 512],
        ),
        // 10-bit full range grey is its own code.
        (
            PlaneLayout::Gray { bits: 10 },
            Bt709,
            Full,
            [513, 0, 0],
            [513, 513, 513],
        ),
        // BT.709 red (Y 62.6, Cb 102.3, Cr 240) rounded to codes: R 255.5 clamps, G 0.58, B -0.20.
        (YUV420, Bt709, Limited, [63, 102, 240], [255, 1, 0]),
        // BT.601 red (Y 81.5, Cb 90.2, Cr 240): R 254.44, G -0.48, B -0.97.
        (YUV420, Bt601, Limited, [81, 90, 240], [254, 0, 0]),
        // The same at 10 bits (Y 250.2, Cb 409.3, Cr 960): R 1022.7, G -0.2, B -1.0.
        (yuv420_10, Bt709, Limited, [250, 409, 960], [1023, 0, 0]),
        // P010 holds the same codes in its top 10 bits; the low 6 are ignored.
        (
            PlaneLayout::P010,
            Bt709,
            Limited,
            [250 << 6 | 0x3f, 409 << 6, 960 << 6 | 1],
            [1023, 0, 0],
        ),
        (
            PlaneLayout::P010,
            Bt709,
            Limited,
            [940 << 6, 512 << 6, 512 << 6],
            [1023, 1023, 1023],
        ),
        (
            PlaneLayout::P010,
            Bt709,
            Limited,
            [502 << 6, 512 << 6, 512 << 6],
            [512, 512, 512],
        ),
        // Far above white (R 272.5, G 224.7, B 518.6) saturates, where FFmpeg 5.1's integer
        // path overflows and loses the blue (so cpu_agrees_with_ffmpeg keeps to legal codes).
        (YUV444, Bt601, Limited, [250, 250, 128], [255, 225, 255]),
        // Packed RGB passes through, alpha made opaque.
        (PlaneLayout::Rgb24, Bt709, Full, [10, 20, 30], [10, 20, 30]),
        // Planar G, B, R too; 12-bit rounded to 10 bits, (c + 2) / 4, at most 1023.
        (PlaneLayout::Gbr { bits: 8 }, Bt709, Full, [10, 20, 30], [30, 10, 20]),
        (
            PlaneLayout::Gbr { bits: 10 },
            Bt709,
            Full,
            [1000, 3, 512],
            [512, 1000, 3],
        ),
        (PlaneLayout::Gbr { bits: 12 }, Bt709, Full, [4095, 2, 1], [0, 1023, 1]),
        (
            PlaneLayout::Gbr { bits: 12 },
            Bt709,
            Full,
            [2049, 2050, 4093],
            [1023, 512, 513],
        ),
    ];
    for (layout, matrix, range, samples, rgb) in cases {
        assert_eq!(
            one_pixel(layout, matrix, range, samples),
            rgb,
            "{layout:?} {matrix:?} {range:?} {samples:?}"
        );
    }
}

/// Planes as swscale reads and writes them: (bytes, stride), with 64 bytes of slack at the end
/// because its row loops may read and write a little past the last pixel.
type SwsPlanes = Vec<(Vec<u8>, usize)>;

/// One swscale call at `color`'s range and matrix, on a picture of `format`'s size, as exact as
/// swscale goes: bilinear, chroma at full resolution into the RGB step, accurate rounding.
/// `chroma_v_pos` is the source chroma's vertical position in 1/256 of a luma row.
fn swscale(
    format: &FrameFormat,
    from: (ffi::AVPixelFormat, &SwsPlanes),
    chroma_v_pos: i64,
    to: ffi::AVPixelFormat,
    to_row_bytes: &[usize],
) -> SwsPlanes {
    let colorspace = match format.color.matrix {
        Matrix::Bt601 => ffi::SWS_CS_ITU601,
        Matrix::Bt709 => ffi::SWS_CS_ITU709,
        Matrix::Bt2020 => ffi::SWS_CS_BT2020,
        Matrix::Smpte240m => ffi::SWS_CS_SMPTE240M,
        Matrix::Fcc => ffi::SWS_CS_FCC,
    };
    let full = c_int::from(format.color.range == Range::Full);
    let rgb_out = to == ffi::AVPixelFormat::AV_PIX_FMT_RGBA;
    let (width, height) = (format.width as usize, format.height as usize);
    let mut planes: SwsPlanes = to_row_bytes
        .iter()
        .map(|row| {
            let stride = row.next_multiple_of(64);
            (vec![0u8; stride * height + 64], stride)
        })
        .collect();
    // SAFETY: the context is checked for null, given options that exist, used once and freed;
    // the planes outlive the call, are as large as their formats say, and have the slack.
    unsafe {
        let context = ffi::sws_alloc_context();
        assert!(!context.is_null());
        let set = |name: &str, value: i64| {
            let name = CString::new(name).unwrap();
            let result = ffi::av_opt_set_int(context.cast(), name.as_ptr(), value, 0);
            assert!(result >= 0, "swscale option {name:?}");
        };
        set("srcw", width as i64);
        set("srch", height as i64);
        set("src_format", from.0 as i64);
        set("dstw", width as i64);
        set("dsth", height as i64);
        set("dst_format", to as i64);
        let flags = ffi::SWS_BILINEAR | ffi::SWS_ACCURATE_RND | ffi::SWS_FULL_CHR_H_INT | ffi::SWS_BITEXACT;
        set("sws_flags", i64::from(flags));
        // On the even luma column across, as MPEG-2 and H.264 site it.
        set("src_h_chr_pos", 0);
        set("src_v_chr_pos", chroma_v_pos);
        set("src_range", i64::from(full));
        set("dst_range", if rgb_out { 1 } else { i64::from(full) });
        assert!(ffi::sws_init_context(context, std::ptr::null_mut(), std::ptr::null_mut()) >= 0);
        if rgb_out {
            let table = ffi::sws_getCoefficients(colorspace);
            let rgb_table = ffi::sws_getCoefficients(ffi::SWS_CS_DEFAULT);
            assert!(ffi::sws_setColorspaceDetails(context, table, full, rgb_table, 1, 0, 1 << 16, 1 << 16) >= 0);
        }
        let mut sources = [std::ptr::null(); 4];
        let mut source_strides = [0 as c_int; 4];
        for (i, (data, stride)) in from.1.iter().enumerate() {
            sources[i] = data.as_ptr();
            source_strides[i] = *stride as c_int;
        }
        let mut destinations = [std::ptr::null_mut(); 4];
        let mut destination_strides = [0 as c_int; 4];
        for (i, (data, stride)) in planes.iter_mut().enumerate() {
            destinations[i] = data.as_mut_ptr();
            destination_strides[i] = *stride as c_int;
        }
        let rows = ffi::sws_scale(
            context,
            sources.as_ptr(),
            source_strides.as_ptr(),
            0,
            height as c_int,
            destinations.as_ptr(),
            destination_strides.as_ptr(),
        );
        ffi::sws_freeContext(context);
        assert_eq!(rows, height as c_int);
    }
    planes
}

/// FFmpeg's RGBA of `frame`, tightly packed. Subsampled chroma goes through yuv444p first:
/// converting straight to RGB, FFmpeg 5.1's swscale blends chroma rows only 0/1 or 1/2 at a
/// time when the height is unscaled (yuv2rgb_full_1_c), which is no reference for 1/4 and 3/4.
fn ffmpeg_rgba(frame: &TestFrame) -> Vec<u32> {
    use ffi::AVPixelFormat::{AV_PIX_FMT_NV12, AV_PIX_FMT_RGBA, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV444P};
    let format = &frame.format;
    let width = format.width as usize;
    let yuv444 = match format.layout {
        YUV444 => frame.planes.clone(),
        YUV420 => swscale(
            format,
            (AV_PIX_FMT_YUV420P, &frame.planes),
            128,
            AV_PIX_FMT_YUV444P,
            &[width; 3],
        ),
        PlaneLayout::Nv12 => swscale(
            format,
            (AV_PIX_FMT_NV12, &frame.planes),
            128,
            AV_PIX_FMT_YUV444P,
            &[width; 3],
        ),
        other => panic!("no swscale format for {other:?}"),
    };
    let rgba = swscale(format, (AV_PIX_FMT_YUV444P, &yuv444), 0, AV_PIX_FMT_RGBA, &[4 * width]);
    let (data, stride) = &rgba[0];
    let bytes: Vec<u8> = (0..format.height as usize)
        .flat_map(|y| data[y * stride..y * stride + 4 * width].to_vec())
        .collect();
    words(&bytes)
}

/// FFmpeg's 10-bit R'G'B' of a 10-bit Y'CbCr `frame` by zscale (zimg: floating point,
/// bilinear chroma upsampling, MPEG-2 siting, no dither), packed RGB10A2 like the converter's
/// words. swscale is no reference here: at limited range its high-depth path is up to 3 codes
/// off exact arithmetic.
fn zscale_rgb10(frame: &TestFrame) -> Vec<u32> {
    let format = &frame.format;
    let (width, height) = (format.width as usize, format.height as usize);
    let pix_fmt = match format.layout {
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 10,
        } => "yuv420p10le",
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 0,
            bits: 10,
        } => "yuv422p10le",
        PlaneLayout::Yuv {
            chroma_shift_x: 0,
            chroma_shift_y: 0,
            bits: 10,
        } => "yuv444p10le",
        other => panic!("no 10-bit zscale format for {other:?}"),
    };
    let mut raw = Vec::new();
    for (index, (data, stride)) in frame.planes.iter().enumerate() {
        let rows = format.layout.plane_size(index, format.width, format.height).1 as usize;
        let row = row_bytes(format.layout, index, format.width);
        for y in 0..rows {
            // Samples masked to 10 bits, as the converter reads them.
            for pair in data[y * stride..y * stride + row].chunks_exact(2) {
                raw.extend_from_slice(&(u16::from_le_bytes([pair[0], pair[1]]) & 1023).to_le_bytes());
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("histoplay-zscale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.raw"), dir.join("out.raw"));
    std::fs::write(&input, raw).unwrap();
    let matrix = match format.color.matrix {
        Matrix::Bt601 => "170m",
        Matrix::Bt709 => "709",
        Matrix::Bt2020 => "2020_ncl",
        Matrix::Smpte240m => "smpte2400m",
        Matrix::Fcc => "fcc",
    };
    let range = match format.color.range {
        Range::Limited => "limited",
        Range::Full => "full",
    };
    let filter = format!("zscale=min={matrix}:rin={range}:filter=bilinear:chromalin=left:dither=none,format=gbrp10le");
    let size = format!("{width}x{height}");
    let status = std::process::Command::new("ffmpeg")
        .args([
            "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", &size, "-i",
        ])
        .arg(&input)
        .args(["-vf", &filter, "-f", "rawvideo"])
        .arg(&output)
        .status()
        .expect("ffmpeg runs");
    assert!(status.success(), "ffmpeg {filter}");
    let gbr = std::fs::read(&output).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let code = |plane: usize, at: usize| {
        let i = 2 * (plane * width * height + at);
        u32::from(u16::from_le_bytes([gbr[i], gbr[i + 1]]))
    };
    (0..width * height)
        .map(|at| code(2, at) | code(0, at) << 10 | code(1, at) << 20 | 3 << 30)
        .collect()
}

/// Largest difference of any R, G or B code of two sets of packed words (`bits` per channel),
/// and the mean difference.
fn difference(a: &[u32], b: &[u32], bits: u32) -> (u32, f64) {
    let mask = (1 << bits) - 1;
    let diffs: Vec<u32> = a
        .iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |c| ((p >> (bits * c)) & mask).abs_diff((q >> (bits * c)) & mask)))
        .collect();
    let max = diffs.iter().copied().max().unwrap_or(0);
    (
        max,
        diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64,
    )
}

/// Noise over the range's legal codes (Y 16–235, chroma 16–240 when limited, times 4 at
/// 10 bits).
fn legal_noise(format: FrameFormat, seed: u32) -> TestFrame {
    let mut noise = Noise(seed);
    let limited = format.color.range == Range::Limited;
    let scale = 1 << (format.layout.bits() - 8);
    TestFrame::new(format, 96, |plane, _, _| {
        let (low, high) = match (limited, plane) {
            (false, _) => (0, 256 * scale - 1),
            (true, 0) => (16 * scale, 235 * scale),
            (true, _) => (16 * scale, 240 * scale),
        };
        low + noise.next() % (high - low + 1)
    })
}

/// A smooth picture: luma across, blue-difference down, red-difference both ways, each chroma
/// sample from the luma position it stands for.
fn smooth(format: FrameFormat) -> TestFrame {
    let (shift_x, shift_y) = match format.layout {
        PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            ..
        } => (chroma_shift_x, chroma_shift_y),
        _ => (1, 1),
    };
    // At 10 bits, steps of a quarter of the 8-bit ones: every code value turns up.
    let (scale, step) = if format.layout.bits() > 8 { (4, 1) } else { (1, 2) };
    TestFrame::new(format, 96, |plane, i, y| {
        let (code, x) = match (format.layout, plane) {
            (PlaneLayout::Nv12, 1) => (i % 2 + 1, i / 2),
            _ => (plane as u32, i),
        };
        let (x, y) = if code == 0 {
            (x, y)
        } else {
            (x << shift_x, y << shift_y)
        };
        match code {
            0 => scale * 16 + step * i,
            1 => scale * 40 + 2 * y,
            _ => scale * 40 + x + y,
        }
    })
}

#[test]
fn ten_bit_agrees_with_ffmpeg() {
    // Measured against zscale: 4:2:0, 4:2:2 and 4:4:4, every matrix and range, within 1 code,
    // on average 0.004 (values that fall within a hair of half a code round either way).
    for (chroma_shift_x, chroma_shift_y) in [(1, 1), (1, 0), (0, 0)] {
        let layout = PlaneLayout::Yuv {
            chroma_shift_x,
            chroma_shift_y,
            bits: 10,
        };
        for color in colors_for(layout) {
            let format = FrameFormat {
                layout,
                width: 96,
                height: 64,
                color,
            };
            for (picture, frame) in [("smooth", smooth(format)), ("noise", legal_noise(format, 78))] {
                let ours = convert_cpu(&format, &frame.planes());
                let (max, mean) = difference(&ours, &zscale_rgb10(&frame), 10);
                assert!(
                    max <= 1 && mean <= 0.01,
                    "{layout:?} {color:?} {picture}: max {max}, mean {mean:.3}"
                );
            }
        }
    }
}

#[test]
fn cpu_agrees_with_ffmpeg() {
    // Measured on FFmpeg 5.1: every byte within 1 on the smooth picture and within 2 on noise;
    // on average 0.3 off with subsampled chroma, because FFmpeg rounds its upsampled chroma to
    // 8 bits in between, and 0.004 off at 4:4:4 (the last bit of its fixed point). Only even
    // sizes: at odd ones swscale stretches the chroma plane over the frame (48 chroma columns to
    // 95 luma ones rather than to 96), while MPEG-2 siting keeps chroma column j on luma 2j.
    for layout in [YUV420, YUV444, PlaneLayout::Nv12] {
        for color in colors_for(layout) {
            let format = FrameFormat {
                layout,
                width: 96,
                height: 64,
                color,
            };
            for (picture, frame, most) in [("smooth", smooth(format), 1), ("noise", legal_noise(format, 77), 2)] {
                let ours = convert_cpu(&format, &frame.planes());
                let (max, mean) = difference(&ours, &ffmpeg_rgba(&frame), 8);
                let mean_most = if layout == YUV444 { 0.01 } else { 0.35 };
                assert!(
                    max <= most && mean <= mean_most,
                    "{layout:?} {color:?} {picture}: max {max}, mean {mean:.3}"
                );
            }
        }
    }
}

/// The histograms counted from the frame's planes (`PlanesCount`), and their display scale: the
/// frame counted twice, so that the second count goes into the result's other slot after the
/// first has zeroed the totals.
fn planes_histogram(ctx: &GpuContext, frame: &TestFrame, bins: u32) -> (Histogram, [f32; 4]) {
    let format = frame.format;
    let depth = Depth::from_bits(format.layout.output_bits());
    let engine = HistogramEngine::new(
        ctx,
        bins,
        EngineConfig {
            depth,
            ..EngineConfig::default()
        },
    );
    let target = engine.target(ctx, format.width, format.height).unwrap();
    let count = PlanesCount::new(ctx, &engine, &target, &format).expect("4:2:0 is counted from its planes");
    let slot = PlaneTextures::new(&ctx.device, "test slot", format).unwrap();
    slot.upload(&ctx.queue, &frame.planes()).unwrap();
    let binding = count.bind(ctx, &target, &slot);
    for _ in 0..2 {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        count.encode(&mut encoder, &binding, None);
        ctx.queue.submit([encoder.finish()]);
    }
    let histogram = engine.read_histogram(ctx, &target).unwrap();
    (histogram, engine.read_scale(ctx, &target).unwrap().scale)
}

#[test]
fn histograms_from_the_planes_equal_the_converted_frames() {
    let ctx = gpu();
    let layouts = [
        YUV420,
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 10,
        },
        PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 12,
        },
        PlaneLayout::Nv12,
        PlaneLayout::P010,
    ];
    let mut seed = 100;
    for layout in layouts {
        for color in colors_for(layout) {
            // Odd and even sizes (the last chroma row and column repeat), the smallest frame,
            // and frames of several tiles, the last ones cut by the frame's edges.
            for (width, height, padding) in [(37, 23, 13), (36, 22, 6), (1, 1, 3), (1100, 41, 5), (2050, 38, 0)] {
                seed += 1;
                let format = FrameFormat {
                    layout,
                    width,
                    height,
                    color,
                };
                let frame = TestFrame::noise(format, padding, seed);
                let depth = Depth::from_bits(layout.output_bits());
                let expected = histogram_packed(&convert_cpu(&format, &frame.planes()), 256, depth);
                let (got, scale) = planes_histogram(&ctx, &frame, 256);
                let what = format!("{layout:?} {color:?} {width}x{height}");
                assert!(got == expected, "{what}: the counts differ from the converted frame's");
                assert!(
                    scales_agree(scale, display_scale(&expected, width * height)),
                    "{what}: scale"
                );
            }
        }
    }
    // A smooth 1080p picture: with 256 bins each word finishes when its last chunk adds to
    // it, with 1024 by ticket.
    for layout in [YUV420, PlaneLayout::P010] {
        let format = FrameFormat {
            layout,
            width: 1920,
            height: 1080,
            color: ColorSpec {
                matrix: Matrix::Bt709,
                range: Range::Limited,
            },
        };
        let frame = smooth(format);
        let words = convert_cpu(&format, &frame.planes());
        for bins in [256, 1024] {
            let expected = histogram_packed(&words, bins, Depth::from_bits(layout.output_bits()));
            let (got, scale) = planes_histogram(&ctx, &frame, bins);
            assert!(got == expected, "{layout:?} 1080p, {bins} bins: the counts differ");
            assert!(
                scales_agree(scale, display_scale(&expected, 1920 * 1080)),
                "{layout:?} 1080p, {bins} bins: scale"
            );
        }
    }
}

#[test]
fn other_layouts_are_not_counted_from_their_planes() {
    let ctx = gpu();
    let engine = HistogramEngine::new(&ctx, 256, EngineConfig::default());
    let target = engine.target(&ctx, 36, 22).unwrap();
    let color = ColorSpec {
        matrix: Matrix::Bt709,
        range: Range::Limited,
    };
    for layout in [YUV444, PlaneLayout::Rgba, PlaneLayout::Gray { bits: 8 }] {
        let format = FrameFormat {
            layout,
            width: 36,
            height: 22,
            color,
        };
        assert!(!PlanesCount::supports(&format), "{layout:?}");
        assert!(
            PlanesCount::new(&ctx, &engine, &target, &format).is_none(),
            "{layout:?}"
        );
    }
    // A 10-bit frame into an 8-bit engine, and a frame of another size.
    let p010 = FrameFormat {
        layout: PlaneLayout::P010,
        width: 36,
        height: 22,
        color,
    };
    assert!(PlanesCount::new(&ctx, &engine, &target, &p010).is_none());
    let larger = FrameFormat {
        layout: YUV420,
        width: 38,
        ..p010
    };
    assert!(PlanesCount::new(&ctx, &engine, &target, &larger).is_none());
}
