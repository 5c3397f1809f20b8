//! The player under a Wayland compositor and no X server: weston's headless backend, a socket
//! of the test's own. Frames are shown (the frame log's presents), nothing but the player's own
//! messages reaches stderr, and SIGTERM ends it at once.

mod common;
mod window;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A headless weston on a socket of its own, in a runtime directory of its own; killed on drop.
struct Weston {
    child: Child,
    runtime_dir: PathBuf,
    socket: String,
}

impl Weston {
    fn start(name: &str) -> Self {
        let runtime_dir = common::repo_path(&format!("target/wayland-tests/{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&runtime_dir);
        std::fs::create_dir_all(&runtime_dir).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = format!("histoplay-{name}");
        let child = Command::new("weston")
            .args([
                "--backend=headless-backend.so",
                &format!("--socket={socket}"),
                "--width=1280",
                "--height=720",
                "--idle-time=0",
            ])
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(runtime_dir.join("weston.log")).unwrap())
            .spawn()
            .expect("weston runs (scripts/setup installs it)");
        let weston = Self {
            child,
            runtime_dir,
            socket,
        };
        let deadline = Instant::now() + window::TIMEOUT;
        while !weston.runtime_dir.join(&weston.socket).exists() {
            assert!(Instant::now() < deadline, "weston never opened its socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        weston
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.runtime_dir);
        }
    }
}

/// The player under `weston` with these arguments, its frame log and stderr in files of the
/// test's own (returned: the log's path, then stderr's).
fn play(weston: &Weston, args: &[&str]) -> (window::Reaped, PathBuf, PathBuf) {
    let dir = weston.runtime_dir.join("player");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("frames.log");
    let stderr = dir.join("stderr.txt");
    let player = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg(common::repo_path("media/sample-540p.mp4"))
        .args(args)
        .arg("--frame-log")
        .arg(&log)
        .current_dir(&dir)
        .env("XDG_RUNTIME_DIR", &weston.runtime_dir)
        .env("XDG_CONFIG_HOME", &dir)
        .env("XDG_STATE_HOME", &dir)
        .env("WAYLAND_DISPLAY", &weston.socket)
        .env_remove("DISPLAY")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .map(window::Reaped)
        .unwrap();
    (player, log, stderr)
}

/// The frame log's presents so far.
fn presents(log: &std::path::Path) -> Vec<window::Present> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.split_inclusive('\n')
        .filter_map(|line| window::parse(line.strip_suffix('\n')?))
        .collect()
}

#[test]
fn under_weston_frames_show_quietly_and_sigterm_quits_at_once() {
    let weston = Weston::start("play");
    let (mut player, log, stderr) = play(&weston, &["--no-audio"]);
    let child = &mut player.0;
    let read_stderr = || std::fs::read_to_string(&stderr).unwrap_or_default();
    // Frames shown: several presents, each of a new frame, numbered in order.
    let deadline = Instant::now() + window::TIMEOUT;
    let shown = loop {
        let frames: Vec<u64> = presents(&log)
            .into_iter()
            .filter(|p| p.new_frame)
            .filter_map(|p| p.frame)
            .collect();
        if frames.len() >= 5 {
            break frames;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the player exited; stderr:\n{}",
            read_stderr()
        );
        assert!(
            Instant::now() < deadline,
            "no frames shown under weston; stderr:\n{}",
            read_stderr()
        );
        std::thread::sleep(Duration::from_millis(40));
    };
    assert!(shown.windows(2).all(|w| w[0] < w[1]), "frames out of order: {shown:?}");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let asked = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(asked.elapsed() < window::TIMEOUT, "the player did not quit on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = asked.elapsed();
    let text = read_stderr();
    assert!(status.success(), "{status:?}; stderr:\n{text}");
    assert!(took < Duration::from_secs(3), "took {took:?} to quit");
    // The desktop portal's absence (sctk-adwaita) and the like are not the viewer's business.
    assert!(
        !["ERROR", "WARN", "error:", "warning:"]
            .iter()
            .any(|noise| text.contains(noise)),
        "library noise on stderr:\n{text}"
    );
}

#[test]
fn fs_and_pause_start_the_player_fullscreen_on_its_first_frame() {
    // (A compositor is needed to see fullscreen: X without a window manager has none.)
    let weston = Weston::start("fs");
    let (mut player, log, stderr) = play(&weston, &["--no-audio", "--fullscreen", "--pause"]);
    let deadline = Instant::now() + window::TIMEOUT;
    let first = loop {
        if let Some(p) = presents(&log)
            .into_iter()
            .find(|p| p.new_frame && p.size == (1280, 720))
        {
            break p;
        }
        assert!(
            player.0.try_wait().unwrap().is_none(),
            "{}",
            std::fs::read_to_string(&stderr).unwrap()
        );
        assert!(Instant::now() < deadline, "no fullscreen frame: {:?}", presents(&log));
        std::thread::sleep(Duration::from_millis(40));
    };
    assert_eq!((first.frame, first.paused), (Some(0), true));
    // A second on, it is still there: paused.
    std::thread::sleep(Duration::from_secs(1));
    let shown: Vec<_> = presents(&log).into_iter().filter_map(|p| p.frame).collect();
    assert!(shown.iter().all(|&frame| frame == 0), "{shown:?}");
}
