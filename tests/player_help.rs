//! End to end, in the player window: the first start says which key opens the help list; F1
//! opens it, typing filters it and Enter runs the chosen command; the OSD bar's menu button
//! opens the same list with the mouse.

mod common;
mod window;

use std::ffi::OsStr;
use window::{Player, Present, Xvfb};

fn named(present: &Present) -> Vec<&str> {
    present.osd.iter().map(|(name, _)| name.as_str()).collect()
}

#[test]
fn the_help_list_is_found_searched_and_runs_a_command() {
    let x = Xvfb::start();
    let sample = common::repo_path("media/sample-540p.mp4");
    let args = [sample.as_os_str(), OsStr::new("--no-audio")];
    let player = Player::start_fresh(&x, "help", &args, |_| {});
    // The first start: a message names the key, and is remembered as shown.
    player.wait_present("the hint", 0, |p| named(p).contains(&"toasts"));
    assert!(player.dir.join("histoplay/help-shown").exists());
    player.wait_present("playback", 0, |p| p.new_frame && p.frame >= Some(2));
    let before = player.key("F1");
    player.wait_present("the help list", before, |p| named(p).contains(&"help"));
    // Typing goes to the list, not to the keys' commands ("f" would go fullscreen, "c" fit
    // the picture the other way).
    let before = player.presents().len();
    x.xdotool(&["type", "--delay", "30", "false col"]);
    let before_enter = player.key("Return");
    let shown = player.wait_present("false colour", before_enter, |p| p.marks == "false-colour");
    assert!(!named(&shown).contains(&"help"), "the list closed");
    let typed: Vec<Present> = player.presents().into_iter().skip(before).collect();
    assert!(typed.iter().all(|p| p.size == shown.size), "no key went fullscreen");
    // Escape closes the list without running anything.
    let before = player.key("F1");
    player.wait_present("the help list again", before, |p| named(p).contains(&"help"));
    let before = player.key("Escape");
    let closed = player.wait_present("the list closed", before, |p| !named(p).contains(&"help"));
    assert_eq!(closed.marks, "false-colour");
    // The mouse: the menu button leads the OSD bar.
    x.xdotool(&["mousemove", "--window", &player.window, "300", "100"]);
    let with_panel = player.wait_present("the OSD bar", 0, |p| {
        named(p).contains(&"panel") && p.paused == closed.paused
    });
    let panel = with_panel.osd.iter().find(|(name, _)| name == "panel").unwrap().1;
    let (bx, by) = (panel[0] + 18, panel[1] + 14);
    x.xdotool(&[
        "mousemove",
        "--window",
        &player.window,
        &bx.to_string(),
        &by.to_string(),
    ]);
    let before = player.presents().len();
    x.xdotool(&["click", "1"]);
    player.wait_present("the help list from the menu button", before, |p| {
        named(p).contains(&"help")
    });
}
