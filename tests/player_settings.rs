//! Settings that stay, end to end: the settings file (a profile applied, a bad line warned about
//! with its file and line, the rest applied; `--profile=help`), and resuming (`Q` keeps the
//! position and the view, the next start begins there; the window's last size).

mod common;
mod window;

use std::ffi::OsStr;
use std::process::Command;
use window::{Player, Xvfb};

#[test]
fn the_settings_file_applies_a_profile_and_warns_of_a_bad_line() {
    let x = Xvfb::start();
    let sample = common::repo_path("media/sample-540p.mp4");
    let args = [sample.as_os_str(), OsStr::new("--profile=grading")];
    let player = Player::start_fresh(&x, "settings", &args, |dir| {
        std::fs::create_dir_all(dir.join("histoplay")).unwrap();
        let conf = "# sound off, always\naudio=no\nno-such-option=3\n\n[grading]\noverlay=zebra\n";
        std::fs::write(dir.join("histoplay/histoplay.conf"), conf).unwrap();
    });
    player.wait_present("the profile's zebras", 0, |p| p.new_frame && p.marks == "zebra");
    let conf = player.dir.join("histoplay/histoplay.conf");
    let warning = format!("warning: {}, line 3: unknown option 'no-such-option'\n", conf.display());
    let stderr = player.poll("the warning", || Some(player.stderr()).filter(|s| s.contains(&warning)));
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
}

#[test]
fn profile_help_lists_the_profiles_with_their_descriptions() {
    let dir = common::repo_path(&format!("target/settings-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("histoplay")).unwrap();
    // (An included file's profiles are listed too; a description's control characters are
    // shown escaped.)
    let conf = "speed=1\ninclude=more.conf\n[grading]\nprofile-desc=\"false colour and zebras\"\noverlay=zebra\n[qc]\nmeters\n";
    std::fs::write(dir.join("histoplay/histoplay.conf"), conf).unwrap();
    std::fs::write(
        dir.join("histoplay/more.conf"),
        "[night]\nprofile-desc=\"dim \x1b[2J\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("--profile=help")
        .env("XDG_CONFIG_HOME", &dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "grading\tfalse colour and zebras\nnight\tdim \\u{1b}[2J\nqc\n"
    );
    // --no-config: the file is not read, so its profile is unknown (a warning), and the
    // player reports the missing display as it would anyway.
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["--no-config", "--profile=grading", "no-such-file.mp4"])
        .env("XDG_CONFIG_HOME", &dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("warning: --profile: no profile named 'grading'\n"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Copies the state a run left (its `histoplay/` folder) into the next run's directory.
fn copy_state(from: &std::path::Path, to: &std::path::Path) {
    let (from, to) = (from.join("histoplay"), to.join("histoplay"));
    std::fs::create_dir_all(to.join("watch_later")).unwrap();
    for entry in std::fs::read_dir(&from).unwrap().map(Result::unwrap) {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    for entry in std::fs::read_dir(from.join("watch_later")).unwrap().map(Result::unwrap) {
        std::fs::copy(entry.path(), to.join("watch_later").join(entry.file_name())).unwrap();
    }
}

#[test]
fn quit_watch_later_keeps_the_position_and_view_and_the_next_start_resumes_there() {
    let x = Xvfb::start();
    let sample = common::repo_path("media/sample-540p.mp4");
    // A LUT that inverts the picture, kept with the position while it is shown.
    let lut = common::repo_path(&format!("target/resume-{}.cube", std::process::id()));
    let corners: String = (0..8)
        .map(|i| format!("{} {} {}\n", 1 - (i & 1), 1 - ((i >> 1) & 1), 1 - (i >> 2)))
        .collect();
    std::fs::write(&lut, format!("LUT_3D_SIZE 2\n{corners}")).unwrap();
    let lut_arg = format!("--lut={}", lut.display());
    let args = [
        sample.as_os_str(),
        OsStr::new("--no-audio"),
        OsStr::new(&lut_arg),
        OsStr::new("--start=00:05"),
        OsStr::new("--scope=vectorscope"),
        OsStr::new("--overlay=zebra"),
        OsStr::new("--geometry=800x450"),
    ];
    let mut first = Player::start_fresh(&x, "resume-first", &args, |_| {});
    // The sample is 30 fps: 5 s in is frame 150.
    let started = first.wait_present("5 s in", 0, |p| p.new_frame && !p.preview && p.frame.is_some());
    assert_eq!(started.frame, Some(150));
    assert_eq!(started.scope.as_deref(), Some("vectorscope"));
    assert_eq!(started.marks, "zebra");
    assert_eq!(started.size, (800, 450));
    let before = first.key("space");
    let paused = first.wait_present("the pause", before, |p| p.paused);
    let before = first.key("period");
    let stepped = first.wait_present("a step", before, |p| p.frame > paused.frame && p.new_frame);
    let at = stepped.frame.unwrap();
    first.key("Q");
    assert!(first.wait_exit().success());
    let kept: Vec<_> = std::fs::read_dir(first.dir.join("histoplay/watch_later"))
        .unwrap()
        .collect();
    assert_eq!(kept.len(), 1);
    let text = std::fs::read_to_string(kept[0].as_ref().unwrap().path()).unwrap();
    // (Paused when it quit: as mpv, it starts paused there.)
    assert!(
        text.contains("\noverlay=zebra\n") && text.contains("\nscope=vectorscope\n") && text.contains("\npause=yes\n"),
        "{text}"
    );
    let kept_lut = format!("\nlut=\"{}\"\n", lut.canonicalize().unwrap().display());
    assert!(text.contains(&kept_lut), "{text}");
    assert_eq!(
        std::fs::read_to_string(first.dir.join("histoplay/window-size")).unwrap(),
        "800x450\n"
    );
    // The next start: the same frame, the same view, the same window; the position is used once.
    let plain = [sample.as_os_str(), OsStr::new("--no-audio")];
    let second = Player::start_fresh(&x, "resume-second", &plain, |dir| copy_state(&first.dir, dir));
    let resumed = second.wait_present("the kept frame", 0, |p| p.new_frame && !p.preview && p.frame.is_some());
    assert_eq!(resumed.frame, Some(at));
    assert!(resumed.paused);
    assert_eq!(resumed.scope.as_deref(), Some("vectorscope"));
    assert_eq!(resumed.marks, "zebra");
    assert_eq!(resumed.size, (800, 450));
    assert_eq!(
        std::fs::read_dir(second.dir.join("histoplay/watch_later"))
            .unwrap()
            .count(),
        0
    );
    // q without --save-position-on-quit keeps nothing.
    second.key("q");
    second.poll("the player to quit", || second.exited().then_some(()));
    assert_eq!(
        std::fs::read_dir(second.dir.join("histoplay/watch_later"))
            .unwrap()
            .count(),
        0
    );
    std::fs::remove_file(&lut).unwrap();
}

#[test]
fn a_missing_lut_in_the_settings_is_left_out_and_quit_exits_with_its_number() {
    let x = Xvfb::start();
    let sample = common::repo_path("media/sample-540p.mp4");
    let args = [sample.as_os_str(), OsStr::new("--no-audio")];
    let mut player = Player::start_fresh(&x, "settings-missing", &args, |dir| {
        std::fs::create_dir_all(dir.join("histoplay")).unwrap();
        std::fs::write(
            dir.join("histoplay/histoplay.conf"),
            "\u{feff}lut=/no/such/look.cube\noverlay=zebra\n",
        )
        .unwrap();
        std::fs::write(dir.join("histoplay/input.conf"), "x quit 7\n").unwrap();
        // A kept window size larger than the screen (1280x720): made to fit it.
        std::fs::write(dir.join("histoplay/window-size"), "16000x600\n").unwrap();
    });
    // The player starts, with the other lines applied; the gone file is a warning, told once.
    let shown = player.wait_present("the zebras", 0, |p| p.new_frame && p.marks == "zebra");
    assert_eq!(shown.size, (1280, 600));
    let conf = player.dir.join("histoplay/histoplay.conf");
    let warning = format!(
        "warning: {}, line 1: 'lut': there is no file '/no/such/look.cube'\n",
        conf.display()
    );
    let stderr = player.poll("the warning", || Some(player.stderr()).filter(|s| s.contains(&warning)));
    assert_eq!(
        stderr.matches("no such file").count() + stderr.matches("look.cube").count(),
        1,
        "{stderr}"
    );
    // mpv's `quit 7`: the player's exit status is 7.
    player.key("x");
    assert_eq!(player.wait_exit().code(), Some(7));
}

#[test]
fn the_volume_mute_and_audio_stream_asked_for_are_kept_with_the_position_and_resumed() {
    let x = Xvfb::start();
    let sample = common::repo_path("media/sample-540p.mp4");
    let kept = |dir: &std::path::Path| -> String {
        let files: Vec<_> = std::fs::read_dir(dir.join("histoplay/watch_later"))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(files.len(), 1);
        std::fs::read_to_string(files[0].path()).unwrap()
    };
    let args = [
        sample.as_os_str(),
        OsStr::new("--no-audio"),
        OsStr::new("--volume=40"),
        OsStr::new("--mute"),
        OsStr::new("--aid=2"),
    ];
    let mut first = Player::start_fresh(&x, "volume-first", &args, |_| {});
    first.wait_present("a frame", 0, |p| p.new_frame && p.frame.is_some());
    // 9 takes 2% off the volume asked for; muted stays muted.
    first.key("9");
    first.key("Q");
    assert!(first.wait_exit().success());
    let text = kept(&first.dir);
    assert!(
        text.contains("\nvolume=38\n") && text.contains("\nmute=yes\n") && text.contains("\naid=2\n"),
        "{text}"
    );
    // The next start takes both from the kept position: 2% off again gives 36, still muted.
    let plain = [sample.as_os_str(), OsStr::new("--no-audio")];
    let mut second = Player::start_fresh(&x, "volume-second", &plain, |dir| copy_state(&first.dir, dir));
    second.wait_present("a frame", 0, |p| p.new_frame && p.frame.is_some());
    second.key("9");
    second.key("m");
    second.key("Q");
    assert!(second.wait_exit().success());
    let text = kept(&second.dir);
    assert!(
        text.contains("\nvolume=36\n") && text.contains("\nmute=no\n") && text.contains("\naid=2\n"),
        "{text}"
    );
    // A settings file's volume and mute give way to those kept: back at 100% and unmuted, the
    // next start is too.
    let mut third = Player::start_fresh(&x, "volume-third", &plain, |dir| {
        copy_state(&second.dir, dir);
        let conf = dir.join("histoplay");
        std::fs::create_dir_all(&conf).unwrap();
        std::fs::write(conf.join("histoplay.conf"), "volume=50\nmute=yes\naid=no\n").unwrap();
    });
    third.wait_present("a frame", 0, |p| p.new_frame && p.frame.is_some());
    for _ in 0..32 {
        third.key("0");
    }
    third.key("Q");
    assert!(third.wait_exit().success());
    let text = kept(&third.dir);
    assert!(
        text.contains("\nvolume=100\n") && text.contains("\nmute=no\n") && text.contains("\naid=2\n"),
        "{text}"
    );
}
