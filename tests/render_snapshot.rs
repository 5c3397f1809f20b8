//! Snapshot of the offscreen render: the kitten, cover-fit, with both histogram quads.
//! Tolerance: every channel of every pixel within 2 levels of the reference, except at most
//! 0.1% of pixels (resampling may round differently on another driver). On failure a
//! `*-diff.png` lands in target/snapshots; HISTOPLAY_UPDATE_SNAPSHOTS=1 rewrites the reference.

mod common;

use histoplay::gpu::texture::GpuFrame;
use histoplay::headless::offscreen::{render_picture, Counting, PictureOf};
use histoplay::render::layout::{histogram_quads, Fit};
use histoplay::render::overlay::COLORS;
use histoplay::render::scene::{Quads, ViewOptions};
use histoplay::video::still;

const TOLERANCE: u8 = 2;
const MAX_OFF_SHARE: f64 = 0.001;

fn render(size: (u32, u32), options: ViewOptions) -> Vec<u8> {
    let ctx = common::gpu();
    let kitten = common::kitten();
    let picture = GpuFrame::from_rgba(&ctx, "kitten", kitten.width, kitten.height, &kitten.pixels).unwrap();
    render_picture(
        &ctx,
        &picture,
        PictureOf::Still,
        size,
        Counting::histograms(256),
        options,
    )
    .unwrap()
}

fn check_snapshot(name: &str, size: (u32, u32), rgba: &[u8]) {
    let reference = common::repo_path(&format!("tests/snapshots/{name}.png"));
    if std::env::var_os("HISTOPLAY_UPDATE_SNAPSHOTS").is_some() {
        still::save_image(&reference, size.0, size.1, rgba).unwrap();
        return;
    }
    let expected = still::load(&reference).expect("reference snapshot (HISTOPLAY_UPDATE_SNAPSHOTS=1 makes it)");
    assert_eq!((expected.width, expected.height), size);
    let mut off = 0usize;
    let mut diff = Vec::with_capacity(rgba.len());
    for (a, b) in rgba.chunks_exact(4).zip(expected.pixels.chunks_exact(4)) {
        let worst = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap();
        if worst > TOLERANCE {
            off += 1;
        }
        let v = worst.saturating_mul(16);
        diff.extend_from_slice(&[v, v, v, 255]);
    }
    let share = off as f64 / (size.0 * size.1) as f64;
    if share > MAX_OFF_SHARE {
        let dir = common::repo_path("target/snapshots");
        std::fs::create_dir_all(&dir).unwrap();
        still::save_image(&dir.join(format!("{name}-diff.png")), size.0, size.1, &diff).unwrap();
        still::save_image(&dir.join(format!("{name}-actual.png")), size.0, size.1, rgba).unwrap();
        panic!(
            "{name}: {:.3}% of pixels differ by more than {TOLERANCE}; see target/snapshots/{name}-diff.png",
            share * 100.0
        );
    }
}

#[test]
fn kitten_with_histograms_matches_the_reference() {
    let size = (480, 270);
    let rgba = render(size, ViewOptions::default());
    check_snapshot("render-kitten", size, &rgba);
}

fn pixel(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

#[test]
fn quads_are_bars_over_a_darkened_backdrop() {
    let size = (400, 200);
    let with = render(size, ViewOptions::default());
    let without = render(
        size,
        ViewOptions {
            quads: Quads::None,
            ..Default::default()
        },
    );
    let bar_colors: Vec<[u8; 3]> = COLORS[1..]
        .iter()
        .map(|c| [0, 1, 2].map(|i| (c[i] * 255.0).round() as u8))
        .collect();
    for (quad, rect) in histogram_quads().iter().enumerate() {
        let (x0, y0, x1, y1) = rect.to_pixels(size.0, size.1);
        let (mut bars, mut backdrop) = (0, 0);
        // Every pixel inside a quad is either an opaque bar colour or the picture at half
        // brightness (colour 0 is black at alpha 0.5).
        for y in y0 + 1..y1 - 1 {
            for x in x0 + 1..x1 - 1 {
                let (a, b) = (pixel(&with, size.0, x, y), pixel(&without, size.0, x, y));
                if bar_colors.contains(&[a[0], a[1], a[2]]) {
                    bars += 1;
                } else {
                    assert!(
                        (0..3).all(|c| a[c].abs_diff(b[c] / 2) <= 1),
                        "quad {quad} ({x}, {y}): {a:?} is neither a bar nor half of {b:?}"
                    );
                    backdrop += 1;
                }
            }
        }
        let total = f64::from(bars + backdrop);
        assert!(
            f64::from(bars) / total > 0.2 && f64::from(backdrop) / total > 0.2,
            "quad {quad}: {bars} bar and {backdrop} backdrop pixels"
        );
    }
    // Outside the quads nothing changes.
    assert_eq!(pixel(&with, size.0, 200, 20), pixel(&without, size.0, 200, 20));
    assert_eq!(pixel(&with, size.0, 1, 199), pixel(&without, size.0, 1, 199));
    assert_eq!(pixel(&with, size.0, 200, 199), pixel(&without, size.0, 200, 199));
}

#[test]
fn contain_letterboxes_in_black() {
    let size = (400, 400);
    let rgba = render(
        size,
        ViewOptions {
            fit: Fit::Contain,
            quads: Quads::None,
            ..Default::default()
        },
    );
    // kitten is 2448x1505: contained in 400x400 it is 246 px tall, bars of 77 px above and below
    assert_eq!(pixel(&rgba, size.0, 200, 10), [0, 0, 0, 255]);
    assert_eq!(pixel(&rgba, size.0, 200, 390), [0, 0, 0, 255]);
    assert_ne!(pixel(&rgba, size.0, 200, 200), [0, 0, 0, 255]);
}
