//! The player test harness: an Xvfb of the test's own, the player binary in it driven with
//! xdotool, its `--frame-log`, and its window's pixels.
#![allow(dead_code)]

use crate::common;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Generous: lavapipe is slow and the machine may be busy with other tests.
pub const TIMEOUT: Duration = Duration::from_secs(40);

/// An Xvfb server on a display number it picks itself (-displayfd), killed on drop.
pub struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    pub fn start() -> Self {
        // -noreset: by default the server resets when its last client leaves, and the readiness
        // check below is a client that leaves; a player connecting during that reset is refused
        // ("no display").
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x720x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb runs (scripts/setup installs it)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let number: u32 = line.trim().parse().unwrap_or_else(|_| panic!("Xvfb said {line:?}"));
        let server = Self {
            child,
            display: format!(":{number}"),
        };
        // Ready means a client can connect, which is what the player will do first.
        let deadline = Instant::now() + TIMEOUT;
        while !server.accepts_clients() {
            assert!(
                Instant::now() < deadline,
                "Xvfb {} never accepted a client",
                server.display
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// The display's name (`:N`).
    pub fn display(&self) -> &str {
        &self.display
    }

    pub fn accepts_clients(&self) -> bool {
        Command::new("xdotool")
            .arg("getdisplaygeometry")
            .env("DISPLAY", &self.display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets Xvfb remove its lock file and socket, so the display number it frees is
        // clean for the next test's server; SIGKILL only if it doesn't go.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A child process (a stream's sender, a receiver), stopped however the test ends (a panic
/// included: it would outlive the test).
pub struct Reaped(pub Child);

/// How a live test stream's picture is encoded: x264 as fast as it goes, a keyframe every 10
/// frames, no B-frames (each frame leaves as it is made), 4:2:0.
pub const LIVE_H264: [&str; 10] = [
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    "-g",
    "10",
    "-bf",
    "0",
    "-pix_fmt",
    "yuv420p",
];

/// FFmpeg sending a stream to `url` over UDP as MPEG-TS, in real time (`-re`), made from `args`
/// (its inputs and their encoding), until dropped.
pub fn udp_sender(url: &str, args: &[&std::ffi::OsStr]) -> Reaped {
    let child = Command::new("ffmpeg")
        .args(["-v", "error", "-re"])
        .args(args)
        .args(["-f", "mpegts"])
        .arg(format!("{url}?pkt_size=1316"))
        .stdin(Stdio::null())
        .spawn()
        .expect("ffmpeg starts");
    Reaped(child)
}

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One line of the frame log.
#[derive(Clone, Debug, PartialEq)]
pub struct Present {
    pub frame: Option<u64>,
    pub generation: u64,
    pub new_frame: bool,
    /// Frames dropped so far (late, or passed over), counted by the player.
    pub dropped: u64,
    pub paused: bool,
    pub size: (u32, u32),
    /// A seek's keyframe preview, shown before the frame it lands on.
    pub preview: bool,
    /// The pixel probe's reading (x, y, R, G, B), and the region counted (x, y, w, h).
    pub probe: Option<Vec<u32>>,
    pub region: Option<Vec<u32>>,
    /// Which file of the playlist the window has open (0, then 1, ... as files are opened).
    pub file: u64,
    /// The A-B loop's points, in seconds, where set.
    pub ab: (Option<f64>, Option<f64>),
    /// The marks drawn on the picture (`zebra,peaking`), empty for none.
    pub marks: String,
    /// The signal statistics the stats overlay shows: `K:` and `report --csv`'s values.
    pub signal: Option<String>,
    /// Where the OSD's boxes were drawn: name, then x, y, width and height in pixels.
    pub osd: Vec<(String, [i32; 4])>,
    /// A live input's new frame: milliseconds from its packet's arrival to the present.
    pub latency_ms: Option<f64>,
    /// A timeshifted live input: seconds behind its newest frame.
    pub behind_s: Option<f64>,
    /// The frame's SMPTE timecode, where the stream carries one.
    pub tc: Option<String>,
    /// The frame's fields as the decoder flags them (`tff`, `bff`, `progressive`).
    pub fields: Option<String>,
    /// The deinterlacer in force (`bwdif,send_field,auto,all`), and at field rate which field
    /// of the frame the picture is (1, 2).
    pub deint: Option<String>,
    pub field: Option<u8>,
    /// The fields shown apart (`apart`; `top`, `bottom`: that field counted alone).
    pub view: Option<String>,
    /// The limits the QC report's last frame is beyond.
    pub qc: Option<String>,
    /// The picture's size as decoded.
    pub picture: (u32, u32),
    /// The audio meters' readings, while shown.
    pub meters: Option<String>,
    /// The scope shown, if one is (`vectorscope`).
    pub scope: Option<String>,
    /// Comparing, the frame's VMAF once the window has measured it.
    pub vmaf: Option<f64>,
    /// Comparing: the compared file's frame, the mode, and at field rate the field
    /// (`37,wipe,2`).
    pub compare: Option<String>,
    /// Comparing: the latest pair measured, A's picture, its MSE and SSIM (all components).
    pub pair: Option<(u64, f64, f64)>,
    /// The photosensitivity analysis's state of the frame and its flashes a second
    /// (`fail:4`), once analysed.
    pub pse: Option<String>,
}

pub fn parse(line: &str) -> Option<Present> {
    let field = |name: &str| line.split(' ').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='));
    let (w, h) = field("size")?.split_once('x')?;
    let (pw, ph) = field("picture")?.split_once('x')?;
    Some(Present {
        picture: (pw.parse().ok()?, ph.parse().ok()?),
        vmaf: field("vmaf").and_then(|v| v.parse().ok()),
        compare: field("compare").map(str::to_string),
        pair: field("pair").and_then(|p| {
            let (k, values) = p.split_once(':')?;
            let (mse, ssim) = values.split_once(',')?;
            Some((k.parse().ok()?, mse.parse().ok()?, ssim.parse().ok()?))
        }),
        pse: field("pse").map(str::to_string),
        frame: field("frame")?.parse().ok(),
        generation: field("gen")?.parse().ok()?,
        new_frame: field("new")? == "1",
        dropped: field("dropped")?.parse().ok()?,
        paused: field("paused")? == "1",
        size: (w.parse().ok()?, h.parse().ok()?),
        preview: field("preview")? == "1",
        probe: field("probe").and_then(numbers),
        region: field("region").and_then(numbers),
        file: field("file")?.parse().ok()?,
        ab: match field("ab")?.split_once(',') {
            Some((a, b)) => (a.parse().ok(), b.parse().ok()),
            None => (None, None),
        },
        marks: field("marks").unwrap_or("").to_string(),
        signal: field("signal").map(str::to_string),
        osd: field("osd").map_or(Some(Vec::new()), boxes)?,
        latency_ms: field("latency_ms").and_then(|v| v.parse().ok()),
        behind_s: field("behind_s").and_then(|v| v.parse().ok()),
        tc: field("tc").map(str::to_string),
        fields: field("fields").map(str::to_string),
        deint: field("deint").map(str::to_string),
        field: field("field").and_then(|f| f.parse().ok()),
        view: field("view").map(str::to_string),
        qc: field("qc").map(str::to_string),
        meters: field("meters").map(str::to_string),
        scope: field("scope").map(str::to_string),
    })
}

/// `compare:112,8,416,22;panel:8,180,624,70` as names and rectangles.
fn boxes(list: &str) -> Option<Vec<(String, [i32; 4])>> {
    list.split(';')
        .map(|entry| {
            let (name, rect) = entry.split_once(':')?;
            let values: Vec<i32> = rect.split(',').map(|v| v.parse().ok()).collect::<Option<_>>()?;
            Some((name.to_string(), values.try_into().ok()?))
        })
        .collect()
}

/// `1,2,3` as numbers; `-` (none) as None.
fn numbers(list: &str) -> Option<Vec<u32>> {
    list.split(',').map(|v| v.parse().ok()).collect()
}

pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    pub fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }

    /// The grey where nothing is drawn over the picture (right of centre, upper third).
    pub fn picture(&self) -> [u8; 3] {
        self.at(self.width * 4 / 5, self.height * 3 / 10)
    }

    pub fn region(&self, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> Vec<[u8; 3]> {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .map(|(x, y)| self.at(x, y))
            .collect()
    }
}

pub fn decode_png(bytes: &[u8]) -> Image {
    let image = image::load_from_memory(bytes).expect("a PNG").to_rgba8();
    Image {
        width: image.width(),
        height: image.height(),
        rgba: image.into_raw(),
    }
}

/// The player on a file, in its own directory (screenshots land there), killed on drop.
pub struct Player<'x> {
    x: &'x Xvfb,
    child: Child,
    pub dir: PathBuf,
    log: PathBuf,
    pub window: String,
}

impl<'x> Player<'x> {
    pub fn start(x: &'x Xvfb, name: &str, file: Option<&Path>) -> Self {
        let args: Vec<&std::ffi::OsStr> = file.map(Path::as_os_str).into_iter().collect();
        Self::start_with(x, name, &args)
    }

    /// The player with these arguments (files, options). Its settings and state directories
    /// are the test's own, so no settings of the machine's user apply, and it has been started
    /// before (the first start's hint doesn't show).
    pub fn start_with(x: &'x Xvfb, name: &str, args: &[&std::ffi::OsStr]) -> Self {
        Self::start_with_env(x, name, args, &[])
    }

    /// As `start_with`, with these variables set in the player's environment.
    pub fn start_with_env(x: &'x Xvfb, name: &str, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Self {
        Self::launch(x, name, args, env, |dir| {
            std::fs::create_dir_all(dir.join("histoplay")).unwrap();
            std::fs::write(dir.join("histoplay/help-shown"), b"").unwrap();
        })
    }

    /// The player as on a machine where it never ran, `prepare` having written its settings
    /// (`DIR/histoplay/histoplay.conf`, input.conf) into the test's directory DIR first.
    pub fn start_fresh(x: &'x Xvfb, name: &str, args: &[&std::ffi::OsStr], prepare: impl FnOnce(&Path)) -> Self {
        Self::launch(x, name, args, &[], prepare)
    }

    fn launch(
        x: &'x Xvfb,
        name: &str,
        args: &[&std::ffi::OsStr],
        env: &[(&str, &str)],
        prepare: impl FnOnce(&Path),
    ) -> Self {
        let dir = common::repo_path(&format!("target/player-tests/{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        prepare(&dir);
        let log = dir.join("frames.log");
        let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
        command.args(args).arg("--frame-log").arg(&log);
        let child = command
            .current_dir(&dir)
            .env("XDG_CONFIG_HOME", &dir)
            .env("XDG_STATE_HOME", &dir)
            .env("DISPLAY", &x.display)
            .env_remove("WAYLAND_DISPLAY")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("stderr.txt")).unwrap())
            .spawn()
            .unwrap();
        let mut player = Self {
            x,
            child,
            dir,
            log,
            window: String::new(),
        };
        player.window = player.poll("the window", || {
            let found = player.x.xdotool(&["search", "--name", "^histoplay "]);
            found.lines().next().map(str::to_string)
        });
        player.x.xdotool(&["windowfocus", "--sync", &player.window]);
        player
    }

    /// Polls `check` until it gives a value; fails with the player's stderr after TIMEOUT or if
    /// it exits.
    pub fn poll<T>(&self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(value) = check() {
                return value;
            }
            let stderr = std::fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default();
            if start.elapsed() >= TIMEOUT {
                let presents = self.presents();
                let last = &presents[presents.len().saturating_sub(8)..];
                panic!("timed out waiting for {what}; last presents: {last:?}; stderr:\n{stderr}");
            }
            assert!(
                !self.exited(),
                "the player exited while waiting for {what}; stderr:\n{stderr}"
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// How many times the player's event loop has woken (its `wake` lines).
    pub fn wakes(&self) -> usize {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().filter(|line| line.ends_with(" wake")).count()
    }

    pub fn exited(&self) -> bool {
        // /proc says whether the child is a zombie without reaping it.
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        stat.is_empty() || stat.contains(") Z")
    }

    pub fn presents(&self) -> Vec<Present> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        // The last line may be half written: only whole lines count.
        text.split_inclusive('\n')
            .filter_map(|line| parse(line.strip_suffix('\n')?))
            .collect()
    }

    /// Waits for a present (after the first `after` ones) that `check` accepts.
    pub fn wait_present(&self, what: &str, after: usize, check: impl Fn(&Present) -> bool) -> Present {
        self.poll(what, || self.presents().into_iter().skip(after).find(|p| check(p)))
    }

    /// Waits until no present has come for `quiet`: the window is idle.
    pub fn wait_idle(&self, quiet: Duration) -> usize {
        let mut count = self.presents().len();
        let mut since = Instant::now();
        self.poll("the window to go idle", || {
            let now = self.presents().len();
            if now != count {
                (count, since) = (now, Instant::now());
            }
            (since.elapsed() >= quiet).then_some(count)
        })
    }

    /// What the player wrote on stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default()
    }

    pub fn key(&self, key: &str) -> usize {
        let before = self.presents().len();
        self.x.xdotool(&["key", key]);
        before
    }

    /// What the window shows, as the X server has it.
    pub fn capture(&self) -> Image {
        let out = Command::new("import")
            .args(["-window", &self.window, "png:-"])
            .env("DISPLAY", &self.x.display)
            .output()
            .unwrap();
        assert!(out.status.success(), "import: {}", String::from_utf8_lossy(&out.stderr));
        decode_png(&out.stdout)
    }

    /// Sends the player `signal` (a name `kill` takes: TERM, INT).
    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal}");
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < TIMEOUT, "the player did not exit");
            std::thread::sleep(Duration::from_millis(40));
        }
    }
}

impl Drop for Player<'_> {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Kept after a failure: the frame log, the player's stderr and any screenshot.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
