//! End to end, the fields on their own in the window: `Alt+d` shows the frame with its fields
//! apart (each pixel the probe reads is that of FFmpeg's `il=l=d:c=d` picture, converted), then
//! counts the top field alone and the bottom field alone (the region counted is its half), then
//! each field alone at full height, line-doubled (on the screen and under the probe), then the
//! frame as it is again.

mod common;
mod window;

use histoplay::headless::decode_frame;
use histoplay::video::convert::convert_cpu;
use histoplay::video::source::VideoSource;
use std::path::Path;
use window::{Player, Xvfb};

/// Frame `n` of `path`, converted by the CPU twin: 8-bit R, G, B of each pixel.
fn converted(path: &Path, n: u64) -> (u32, Vec<u32>) {
    let mut source = VideoSource::open(path).unwrap();
    let format = source.info.format;
    let frame = decode_frame(&mut source, n).unwrap();
    (format.width, convert_cpu(&format, &frame.planes(format.layout)))
}

fn rgb(words: &[u32], width: u32, x: u32, y: u32) -> Vec<u32> {
    let w = words[(y * width + x) as usize];
    vec![w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff]
}

#[test]
fn alt_d_shows_the_fields_apart_then_counts_each_alone() {
    let clip = common::interlaced_pal_h264();
    let apart = common::fixture(
        "fields-pal-apart.mkv",
        &["-i", clip.to_str().unwrap(), "-vf", "il=l=d:c=d", "-c:v", "ffv1"],
    );
    let (width, frame) = converted(&clip, 4);
    let (_, fields) = converted(&apart, 4);
    let x = Xvfb::start();
    let args = [clip.as_os_str(), "--no-audio".as_ref()];
    let player = Player::start_with(&x, "fields-apart", &args);
    player.wait_present("the last frame", 0, |p| p.paused && p.frame == Some(4));
    let mouse = |px: u32, py: u32| {
        let before = player.presents().len();
        x.xdotool(&[
            "mousemove",
            "--window",
            &player.window,
            &px.to_string(),
            &py.to_string(),
        ]);
        before
    };
    // The window shows the 720x576 picture at its size: window pixels are picture pixels.
    let points = [(200, 100), (360, 301), (500, 450)];
    // The probe under window point (px, py) reads frame pixel `at` (the same point, but for a
    // field line-doubled).
    let probe_at = |expected: &[u32], (px, py): (u32, u32), at: [u32; 2], what: &str| {
        // (Moved away first, so that each reading is a new one.)
        mouse(px + 3, py + 3);
        let before = mouse(px, py);
        player.wait_present(what, before, |p| {
            p.probe.as_ref().is_some_and(|v| v[..2] == at && v[2..] == *expected)
        })
    };
    let probe = |expected: &[u32], (px, py): (u32, u32), what: &str| probe_at(expected, (px, py), [px, py], what);
    for point @ (px, py) in points {
        probe(&rgb(&frame, width, px, py), point, "the frame's pixel");
    }
    let before = player.key("alt+d");
    let shown = player.wait_present("the fields apart", before, |p| {
        p.new_frame && p.view.as_deref() == Some("apart")
    });
    assert_eq!((shown.frame, shown.region.clone()), (Some(4), None));
    for point @ (px, py) in points {
        let expected = rgb(&fields, width, px, py);
        assert_ne!(expected, rgb(&frame, width, px, py), "{point:?}: the views differ here");
        probe(&expected, point, "FFmpeg's pixel, fields apart");
    }
    // Each field counted alone: its half of the picture.
    for (view, region) in [("top", [0, 0, 720, 288]), ("bottom", [0, 288, 720, 288])] {
        let before = player.key("alt+d");
        let shown = player.wait_present(view, before, |p| p.view.as_deref() == Some(view) && p.new_frame);
        assert_eq!(shown.region, Some(region.to_vec()), "{view}");
        assert_eq!(shown.frame, Some(4));
    }
    // Each field alone over the whole picture, line-doubled, still counted alone: window row y
    // shows row y / 2 of the field, on the screen as under the probe.
    for (view, first_row) in [("top-doubled", 0), ("bottom-doubled", 288)] {
        let before = player.key("alt+d");
        let shown = player.wait_present(view, before, |p| p.view.as_deref() == Some(view) && p.new_frame);
        assert_eq!(shown.region, Some(vec![0, first_row, 720, 288]), "{view}");
        for point @ (px, py) in points {
            let at = [px, first_row + py / 2];
            probe_at(
                &rgb(&fields, width, at[0], at[1]),
                point,
                at,
                "the field's pixel, line-doubled",
            );
        }
        player.wait_idle(std::time::Duration::from_millis(500));
        let screen = player.capture();
        for (px, py) in [(360, 301), (360, 302), (200, 101)] {
            let on_screen: Vec<u32> = screen.at(px, py).map(u32::from).to_vec();
            let expected = rgb(&fields, width, px, first_row + py / 2);
            assert_eq!(on_screen, expected, "{view}: the screen at ({px}, {py})");
        }
    }
    let before = player.key("alt+d");
    let shown = player.wait_present("the frame again", before, |p| p.new_frame && p.view.is_none());
    assert_eq!(shown.region, None);
    probe(&rgb(&frame, width, 360, 301), (360, 301), "the frame's pixel again");
}

#[test]
fn the_next_file_shows_its_fields_as_the_last_did() {
    let clip = common::interlaced_pal_h264();
    let x = Xvfb::start();
    let args = [clip.as_os_str(), clip.as_os_str(), "--no-audio".as_ref()];
    let player = Player::start_with(&x, "fields-playlist", &args);
    // The playlist's last file, played to its end.
    player.wait_present("the second file's end", 0, |p| {
        p.file == 1 && p.paused && p.frame == Some(4)
    });
    for view in ["apart", "top"] {
        let before = player.key("alt+d");
        player.wait_present(view, before, |p| p.view.as_deref() == Some(view));
    }
    // The file before it, opened again: shown so from its first frame.
    let before = player.key("less");
    let next = player.wait_present("the file before", before, |p| p.file == 2 && p.new_frame);
    assert_eq!(next.view.as_deref(), Some("top"));
    assert_eq!(next.region, Some(vec![0, 0, 720, 288]));
}
