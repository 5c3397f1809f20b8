//! End to end, in the player window: the scope key shows a scope, a right-drag sets the region
//! the histograms count, the probe reads the pixel under the pointer, and a right-click
//! without a drag pauses. The clip is two flat halves, black on the left and a known grey on
//! the right, so every histogram, scope and probe reading is known exactly.

mod common;
mod window;

use histoplay::render::layout::band_layout;
use histoplay::scope::ScopeKind;
use std::path::PathBuf;
use std::time::Duration;
use window::{Image, Player, Xvfb};

/// Luma of the right half (limited range); the left half is 16, black.
const RIGHT_LUMA: u8 = 180;

/// 320x240 at 10 fps, 3 s, lossless: the left half black, the right half grey.
fn halves() -> PathBuf {
    let source = format!(
        "color=c=black:s=320x240:r=10:d=3,format=yuv420p,geq=lum='if(lt(X,160),16,{RIGHT_LUMA})':cb=128:cr=128"
    );
    common::fixture(
        "halves.mp4",
        &[
            "-f", "lavfi", "-i", &source, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
        ],
    )
}

/// The right half's grey on screen (and in the converted frame).
fn right_grey() -> u8 {
    common::limited_grey(RIGHT_LUMA)
}

/// Whether the L quad (laid out with `scope` beside it) has bars at bin 0 and at the right
/// half's bin: the pixels a quarter of the way down from the quad's top, at each bin's place.
fn l_bars(image: &Image, scope: Option<ScopeKind>) -> (bool, bool) {
    let quad = band_layout(scope, (image.width, image.height)).histograms[1];
    let (x0, y0, x1, y1) = quad.to_pixels(image.width, image.height);
    let y = y0 + (y1 - y0) / 4;
    let at_bin = |bin: u32| x0 + ((f64::from(bin) + 0.5) / 256.0 * f64::from(x1 - x0)) as u32;
    let white = |x: u32| image.at(x, y) == [255, 255, 255];
    (white(at_bin(0)), white(at_bin(u32::from(right_grey()))))
}

fn settle(player: &Player) -> Image {
    player.wait_idle(Duration::from_millis(400));
    player.capture()
}

#[test]
fn scopes_regions_and_the_probe_in_the_window() {
    let clip = halves();
    let x = Xvfb::start();
    let player = Player::start(&x, "scopes", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    let shot = settle(&player);
    let (width, height) = (shot.width, shot.height);
    assert_eq!((width, height), (640, 480), "the window opens at twice the clip's size");
    assert_eq!(l_bars(&shot, None), (true, true), "both halves in the L histogram");

    the_scope_key_shows_a_waveform(&player, &shot);
    let mouse = |args: &[&str]| x.xdotool(&[&["mousemove", "--window", &player.window][..], args].concat());

    // A right-drag over the right half: only its grey is counted from then on.
    let before = player.presents().len();
    mouse(&["400", "100", "mousedown", "3"]);
    for (px, py) in [(450, 150), (520, 220), (600, 300)] {
        mouse(&[&px.to_string(), &py.to_string()]);
        // (The drag's pace, as a hand moves: a duration, not a wait.)
        std::thread::sleep(Duration::from_millis(50));
    }
    mouse(&["600", "300", "mouseup", "3"]);
    let p = player.wait_present("the region", before, |p| p.region == Some(vec![200, 50, 100, 100]));
    assert!(p.paused, "a drag does not toggle the pause");
    let regioned = settle(&player);
    let waveform = Some(ScopeKind::Waveform);
    assert_eq!(
        l_bars(&regioned, waveform),
        (false, true),
        "only the right half's grey is counted"
    );
    // The region is drawn: its edge at its left side, on the picture (frame x 200 is window
    // x 400).
    assert_eq!(regioned.at(400, 200), [255, 217, 51], "the region's edge");

    // The probe reads the pixel under the pointer (away from the OSD, whose messages sit at
    // the top left).
    let before = player.presents().len();
    mouse(&["100", "200"]);
    player.wait_present("the probe on the black half", before, |p| {
        p.probe == Some(vec![50, 100, 0, 0, 0])
    });
    let grey = u32::from(right_grey());
    let before = player.presents().len();
    mouse(&["501", "201"]);
    player.wait_present("the probe on the grey half", before, |p| {
        p.probe == Some(vec![250, 100, grey, grey, grey])
    });

    // Ctrl+r counts the whole frame again.
    let before = player.key("ctrl+r");
    player.wait_present("the region cleared", before, |p| p.region.is_none());
    assert_eq!(
        l_bars(&settle(&player), waveform),
        (true, true),
        "the whole frame again"
    );

    // A right-click without a drag plays, as in mpv; another pauses.
    let before = player.presents().len();
    mouse(&["300", "200", "click", "3"]);
    player.wait_present("playing again", before, |p| !p.paused);
    let before = player.presents().len();
    mouse(&["300", "200", "click", "3"]);
    player.wait_present("paused again", before, |p| p.paused);
}

/// `H` shows the waveform in the band's third slot: the black half's columns lit at the
/// bottom, the grey half's at the grey's height; the rest is the scope's dark backdrop.
fn the_scope_key_shows_a_waveform(player: &Player, plain: &Image) {
    let before = player.key("H");
    player.wait_present("a redraw with the scope", before, |_| true);
    let shot = settle(player);
    let (x0, y0, x1, y1) = band_layout(Some(ScopeKind::Waveform), (shot.width, shot.height))
        .scope
        .unwrap()
        .to_pixels(shot.width, shot.height);
    assert_ne!(
        plain.region((x0, y0, x1, y1)),
        shot.region((x0, y0, x1, y1)),
        "nothing drawn"
    );
    // The greenest pixel of a column of the scope (the trace; the graticule is grey), and its
    // height from the bottom (0..1).
    let trace = |x: u32| {
        let column: Vec<[u8; 3]> = (y0..y1).map(|y| shot.at(x, y)).collect();
        let green = |p: &[u8; 3]| i32::from(p[1]) - i32::from(p[0]);
        let (i, p) = column.iter().enumerate().max_by_key(|(_, p)| green(p)).unwrap();
        let y = y0 + i as u32;
        (*p, f64::from(y1 - y) / f64::from(y1 - y0))
    };
    let grey_height = (f64::from(right_grey()) + 0.5) / 256.0;
    let quarter = trace(x0 + (x1 - x0) / 4);
    let three_quarters = trace(x0 + (x1 - x0) * 3 / 4);
    assert!(
        quarter.0[1] > 200 && quarter.0[0] < 160,
        "black half's trace {quarter:?}"
    );
    assert!(quarter.1 < 0.03, "black half's trace at height {:.3}", quarter.1);
    assert!(
        three_quarters.0[1] > 200 && three_quarters.0[0] < 160,
        "grey half's trace {three_quarters:?}"
    );
    assert!(
        (three_quarters.1 - grey_height).abs() < 0.03,
        "grey half's trace at height {:.3}, not {grey_height:.3}",
        three_quarters.1
    );
}

/// `H` steps on through the parade and the vectorscope to the CIE 1931 diagram, drawn in the
/// band's square: the grey half lights D65 (black has no chromaticity), and the horseshoe is
/// filled faintly with its colours.
#[test]
fn the_scope_key_reaches_the_cie_diagram() {
    let clip = halves();
    let x = Xvfb::start();
    let player = Player::start(&x, "cie", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    for scope in ["waveform", "parade", "vectorscope", "CIE diagram"] {
        let before = player.key("H");
        player.wait_present(scope, before, |_| true);
    }
    let shot = settle(&player);
    let (x0, y0, x1, y1) = band_layout(Some(ScopeKind::Cie), (shot.width, shot.height))
        .scope
        .unwrap()
        .to_pixels(shot.width, shot.height);
    // Chromaticity (x, y) on screen: the diagram shows x from -0.04 and y from -0.02, 0.88 a
    // side.
    let at = |x: f32, y: f32| {
        let px = x0 as f32 + (x + 0.04) / 0.88 * (x1 - x0) as f32;
        let py = y1 as f32 - (y + 0.02) / 0.88 * (y1 - y0) as f32;
        shot.at(px as u32, py as u32)
    };
    // D65's cell, (⌊0.3127·256⌋, ⌊0.3290·256⌋) = (80, 84), at its centre: smaller than a pixel
    // here, it lights the pixel holding its centre.
    let [r, g, b] = at(80.5 / 256.0, 84.5 / 256.0);
    assert!(r > 200 && g > 200 && b > 200, "the grey half at D65: {:?}", [r, g, b]);
    let [r, g, b] = at(0.12, 0.72);
    assert!(
        g > r + 8 && g > b + 8 && g < 120,
        "the locus's green corner, faint: {:?}",
        [r, g, b]
    );
    let [r, g, b] = at(0.52, 0.32);
    assert!(
        r > g && r < 120,
        "red-magenta inside BT.709, faint, no trace: {:?}",
        [r, g, b]
    );
}

#[test]
fn alt_z_magnifies_the_vectorscope_in_the_window_exactly_as_render_draws_it() {
    // One colour off the grey axis, (Cb, Cr) = (140, 120): a single spot, moving out from the
    // centre ×2 and ×4.
    let source = "color=c=black:s=320x240:r=10:d=3,format=yuv420p,geq=lum=128:cb=140:cr=120";
    let clip = common::fixture(
        "vectorscope-colour.mp4",
        &[
            "-f", "lavfi", "-i", source, "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
        ],
    );
    let x = Xvfb::start();
    let player = Player::start(&x, "zoom", Some(&clip));
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("space");
    player.wait_present("the pause", before, |p| p.paused);
    for scope in ["waveform", "parade", "vectorscope"] {
        let before = player.key("H");
        player.wait_present(scope, before, |_| true);
    }
    let mut shots = Vec::new();
    for _ in 0..4 {
        shots.push(settle(&player));
        let before = player.key("alt+z");
        player.wait_present("the zoom", before, |_| true);
    }
    let (w, h) = (shots[0].width, shots[0].height);
    let (x0, y0, x1, y1) = band_layout(Some(ScopeKind::Vectorscope), (w, h))
        .scope
        .unwrap()
        .to_pixels(w, h);
    let scope = |rgb: &dyn Fn(u32, u32) -> [u8; 3]| -> Vec<[u8; 3]> {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .map(|(x, y)| rgb(x, y))
            .collect()
    };
    let shown: Vec<Vec<[u8; 3]>> = shots.iter().map(|shot| scope(&|x, y| shot.at(x, y))).collect();
    // Each step changes the scope; the fourth press is back at ×1.
    assert_ne!(shown[0], shown[1]);
    assert_ne!(shown[1], shown[2]);
    assert_eq!(shown[3], shown[0]);
    // And each is what `render --vectorscope-zoom` draws at the window's size, pixel for pixel.
    for (zoom, window) in ["1", "2", "4"].into_iter().zip(&shown) {
        let png = player.dir.join(format!("zoom{zoom}.png"));
        let size = format!("{w}x{h}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["render", clip.to_str().unwrap(), "--frame", "2", "--size", &size, "-o"])
            .arg(&png)
            .args(["--scope", "vectorscope", "--vectorscope-zoom", zoom])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let image = image::open(&png).unwrap().to_rgb8();
        let rendered = scope(&|x, y| image.get_pixel(x, y).0);
        let differing = rendered.iter().zip(window).filter(|(a, b)| a != b).count();
        assert_eq!(
            differing, 0,
            "×{zoom}: {differing} pixels of the scope differ from render's"
        );
    }
}
