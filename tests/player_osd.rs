//! End to end, in the player window: the OSD's boxes are laid out together, so at the smallest
//! window a video opens in (640x360) the compare line, the marks' legend, the pixel readout,
//! the stats overlay, a message and the bottom panel are each drawn clear of the others.

mod common;
mod window;

use std::path::PathBuf;
use window::{Player, Present, Xvfb};

/// 64x36 (a window of exactly 640x360), 10 fps, 3 s: a grey ramp, frame n of luma 16 + 2n.
fn small_ramp(name: &str, luma: &str) -> PathBuf {
    let source = format!("color=c=black:s=64x36:r=10:d=3,format=yuv420p,geq=lum='{luma}':cb=128:cr=128");
    common::fixture(
        name,
        &[
            "-f", "lavfi", "-i", &source, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
        ],
    )
}

/// The boxes a present drew, by name.
fn named(present: &Present) -> Vec<&str> {
    present.osd.iter().map(|(name, _)| name.as_str()).collect()
}

fn intersect(a: [i32; 4], b: [i32; 4]) -> bool {
    a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]
}

#[test]
fn at_640x360_the_compare_line_marks_probe_stats_and_messages_are_drawn_clear_of_one_another() {
    let a = small_ramp("osd-ramp-up.mp4", "16+2*N");
    let b = small_ramp("osd-ramp-down.mp4", "235-2*N");
    let x = Xvfb::start();
    let args = [
        a.as_os_str(),
        "--compare".as_ref(),
        b.as_os_str(),
        "--overlay".as_ref(),
        "false-colour".as_ref(),
        "--no-audio".as_ref(),
    ];
    let player = Player::start_with(&x, "osd", &args);
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let before = player.key("I");
    player.wait_present("the stats overlay", before, |p| named(p).contains(&"stats"));
    let wanted = ["compare", "marks", "probe", "stats", "panel", "toasts"];
    for (i, (px, py)) in [(560, 60), (320, 20), (100, 100), (600, 340)].into_iter().enumerate() {
        // B one frame later, then back: a message as wide as the space left of the compare
        // line, and a longer compare line. Last, an A-B loop's start: its message, and a line
        // more in the bottom panel, which leaves the legend less room.
        let before = player.key(["ctrl+period", "ctrl+comma", "ctrl+period", "l"][i]);
        x.xdotool(&[
            "mousemove",
            "--window",
            &player.window,
            &px.to_string(),
            &py.to_string(),
        ]);
        // The boxes are placed by the sizes they were last drawn at: a box that changed size
        // is placed again in the next frame. (The stats overlay redraws a few times a second;
        // its figures may change its size, inside the room it is given.)
        let settled = player.poll(&format!("the boxes settled with the pointer at {px},{py}"), || {
            let presents = player.presents();
            presents[before.min(presents.len())..].windows(2).find_map(|pair| {
                let ok = |p: &Present| p.probe.is_some() && wanted.iter().all(|w| named(p).contains(w));
                let placed = |p: &Present| {
                    p.osd
                        .iter()
                        .filter(|(name, _)| name != "stats")
                        .cloned()
                        .collect::<Vec<_>>()
                };
                (ok(&pair[0]) && ok(&pair[1]) && placed(&pair[0]) == placed(&pair[1])).then(|| pair[1].clone())
            })
        });
        assert_eq!(settled.size, (640, 360));
        let boxes = &settled.osd;
        for (i, (name, rect)) in boxes.iter().enumerate() {
            let [x, y, w, h] = *rect;
            assert!(
                x >= 0 && y >= 0 && x + w <= 640 && y + h <= 360 && w > 0 && h > 0,
                "pointer at {px},{py}: {name} {rect:?} leaves the window; {boxes:?}"
            );
            for (other, next) in &boxes[i + 1..] {
                assert!(
                    !intersect(*rect, *next),
                    "pointer at {px},{py}: {name} {rect:?} meets {other} {next:?}"
                );
            }
        }
    }
}
