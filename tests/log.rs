//! Camera log footage (`--input-colour`): the LUT pass's display rendering against its CPU
//! twin, and a clip made by encoding a linear ramp of scene light in S-Log3 as a camera would:
//! its 18% grey lands in the stops false colour's 0-stop band, the picture is shown through the
//! rendering, and the file's own tag picks the encoding.

mod common;

use histoplay::colour::log::{bt709_oetf, roll_off, LogEncoding};
use histoplay::colour::lut::{Lut, LutTables};
use histoplay::gpu::readback::{read_buffer, words};
use histoplay::gpu::texture::GpuFrame;
use histoplay::render::lut::LutStage;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pack(p: [u32; 3], bits: u32) -> u32 {
    if bits == 10 {
        p[0] | (p[1] << 10) | (p[2] << 20) | 0xc000_0000
    } else {
        p[0] | (p[1] << 8) | (p[2] << 16) | 0xff00_0000
    }
}

fn unpack(w: u32, bits: u32) -> [u32; 3] {
    let (shift, mask) = if bits == 10 { (10, 0x3ff) } else { (8, 0xff) };
    [w & mask, (w >> shift) & mask, (w >> (2 * shift)) & mask]
}

#[test]
fn the_display_rendering_on_the_gpu_equals_its_cpu_twin_to_a_code() {
    let ctx = common::gpu();
    for encoding in [LogEncoding::SLog3Cine, LogEncoding::LogC4, LogEncoding::AppleLog] {
        let lut = Lut::log_view(encoding);
        for bits in [8, 10] {
            let tables = LutTables::new(&lut, bits);
            let mut noise = common::Noise(11 + bits);
            let mask = (1u32 << bits) - 1;
            // Noise, and greys (where every channel is the same light).
            let mut pixels: Vec<[u32; 3]> = (0..64 * 47)
                .map(|_| [noise.next() & mask, noise.next() & mask, noise.next() & mask])
                .collect();
            pixels.extend((0..64).map(|i| [i * mask / 63; 3]));
            let (width, height) = (64, pixels.len() as u32 / 64);
            let source = GpuFrame::with_bits(&ctx, "log test in", width, height, bits).unwrap();
            let packed: Vec<u32> = pixels.iter().map(|&p| pack(p, bits)).collect();
            ctx.queue.write_buffer(&source.pixels, 0, bytemuck::cast_slice(&packed));
            let output = GpuFrame::with_bits(&ctx, "log test out", width, height, bits).unwrap();
            let stage = LutStage::new(&ctx, &tables, &source, &output).unwrap();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            stage.encode(&mut encoder);
            ctx.queue.submit([encoder.finish()]);
            let bytes = read_buffer(&ctx, &output.pixels, 0, u64::from(width * height) * 4).unwrap();
            let mut differing = 0;
            for (i, (&p, &word)) in pixels.iter().zip(&words(&bytes)).enumerate() {
                let gpu = unpack(word, bits);
                let cpu = tables.apply(p);
                for c in 0..3 {
                    let d = gpu[c].abs_diff(cpu[c]);
                    assert!(
                        d <= 1,
                        "{encoding:?} {bits}-bit pixel {i} {p:?}: GPU {gpu:?}, CPU {cpu:?}"
                    );
                    differing += usize::from(d != 0);
                }
            }
            // The GPU's pow, exp and log2 round otherwise only near a code's halfway point.
            assert!(
                differing * 200 < pixels.len() * 3,
                "{encoding:?} {bits}-bit: {differing} channels differ"
            );
        }
    }
}

/// Scene light rising linearly from 0 at the left edge to 1.0 (a white card's) at the right,
/// 1000 pixels across, encoded in S-Log3 into 10-bit RGB as a camera writes it; `tag` goes in
/// the stream's `capture_gamma` tag, if any.
fn slog3_ramp(tag: Option<&str>) -> PathBuf {
    let x = "((X+0.5)/W)";
    let code =
        format!("if(gte({x},0.01125),420+log(({x}+0.01)/0.19)/log(10)*261.5,{x}*(171.2102946929-95)/0.01125+95)");
    let graph = format!("color=c=black:s=1000x200:d=0.2:r=5,format=gbrp10le,geq=r='{code}':g='{code}':b='{code}'");
    let mut args = vec!["-f", "lavfi", "-i", &graph, "-c:v", "ffv1"];
    let metadata = tag.map(|t| format!("capture_gamma={t}"));
    if let Some(m) = &metadata {
        args.extend(["-metadata:s:v:0", m.as_str()]);
    }
    let name = match tag {
        Some(_) => "slog3-ramp-tagged.mkv",
        None => "slog3-ramp.mkv",
    };
    common::fixture(name, &args)
}

fn histoplay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_histoplay"))
}

fn render(input: &Path, out: &Path, args: &[&str]) -> image::RgbaImage {
    let status = histoplay()
        .arg("render")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(["--size", "1000x200"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success());
    image::open(out).unwrap().to_rgba8()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("histoplay-log-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_log_ramps_grey_card_is_in_the_zero_stop_band() {
    let ramp = slog3_ramp(None);
    let dir = scratch("bands");
    let marked = render(
        &ramp,
        &dir.join("stops.png"),
        &["--input-colour", "s-log3", "--overlay", "false-colour"],
    );
    // Pixel x holds scene light (x + 0.5)/1000: 18% grey at 180, a stop under at 90, a stop
    // over at 360, two over at 720; drawn in the bands' colours (README: −1 pale green, 0
    // green, +1 yellow-green, +2 yellow).
    for (x, rgb, stops) in [
        (180, [0, 192, 0], "0"),
        (90, [128, 200, 160], "-1"),
        (360, [192, 224, 0], "+1"),
        (720, [255, 255, 0], "+2"),
    ] {
        assert_eq!(
            marked.get_pixel(x, 40).0,
            [rgb[0], rgb[1], rgb[2], 255],
            "{stops} stops at x {x}"
        );
    }
    // Without the encoding, false colour is ARRI's scale in percent of the signal: S-Log3's
    // two stops over grey (code 555 of 1023, 54%) is in its skin band (52–56%, pink).
    let video = render(
        &ramp,
        &dir.join("video.png"),
        &["--input-colour", "none", "--overlay", "false-colour"],
    );
    assert_eq!(video.get_pixel(720, 40).0, [255, 128, 192, 255]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_files_tag_picks_the_encoding_and_the_picture_shows_its_rendering() {
    let dir = scratch("tag");
    let tagged = slog3_ramp(Some("S-Log3.Cine"));
    let untagged = slog3_ramp(None);
    let shown = render(&tagged, &dir.join("tagged.png"), &[]);
    let plain = render(&untagged, &dir.join("plain.png"), &[]);
    for x in [90u32, 180, 500, 900] {
        let light = (f64::from(x) + 0.5) / 1000.0;
        // Grey pixels of a signal in whole 10-bit codes, shown dithered to 8 bits: within a
        // code and a half.
        let rendered = 255.0 * bt709_oetf(roll_off(light));
        let signal = 255.0 * LogEncoding::SLog3.encode(light);
        let [r, g, b, _] = shown.get_pixel(x, 40).0;
        assert!(r == g && g == b, "grey at {x}: {r} {g} {b}");
        assert!(
            (f64::from(g) - rendered).abs() <= 1.5,
            "at {x}: {g}, the rendering gives {rendered:.1}"
        );
        let raw = f64::from(plain.get_pixel(x, 40).0[1]);
        assert!(
            (raw - signal).abs() <= 1.5,
            "untagged at {x}: {raw}, the signal is {signal:.1}"
        );
    }
    // hist and scope say what they counted: with the tag, the rendering is in force.
    let hist = |input: &Path, args: &[&str]| {
        let out = histoplay().arg("hist").arg(input).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(hist(&tagged, &["--bins", "16"])["counted"], "signal");
    assert!(hist(&untagged, &["--bins", "16"]).get("counted").is_none());
    let display = hist(&tagged, &["--bins", "16", "--scopes-on", "display"]);
    assert_eq!(display["counted"], "display");
    // Through the rendering, a white card's light (the ramp's right edge) shows at 83%:
    // the roll-off leaves the top two bins of 16 empty, and scene light 0.9..1.0 (the
    // rightmost 100 columns, shown from 81.3%) fills bin 13. As a signal, S-Log3 puts the
    // white card at 59%: bin 9 is its last.
    let bins = |v: &serde_json::Value| -> Vec<u64> {
        v["g"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect()
    };
    let shown_bins = bins(&display);
    assert_eq!(&shown_bins[14..], &[0, 0], "{display}");
    assert!(shown_bins[13] >= 90 * 200, "{display}");
    let signal_bins = bins(&hist(&tagged, &["--bins", "16"]));
    assert!(
        signal_bins[9] > 0 && signal_bins[10..].iter().all(|&n| n == 0),
        "{signal_bins:?}"
    );
    let scope = histoplay()
        .args(["scope", "--kind", "waveform", "--columns", "4", "--bins", "16"])
        .arg(&tagged)
        .args(["--scopes-on", "display"])
        .output()
        .unwrap();
    assert!(scope.status.success(), "{}", String::from_utf8_lossy(&scope.stderr));
    let scope: serde_json::Value = serde_json::from_slice(&scope.stdout).unwrap();
    assert_eq!(scope["counted"], "display");
    // An encoding histoplay doesn't know is a one-line error naming the ones it does.
    let out = histoplay()
        .args(["hist", "--input-colour", "hlg-log"])
        .arg(&tagged)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a log encoding histoplay knows: hlg-log") && err.contains("s-log3-cine"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
