//! Test pictures and helpers shared by the integration tests.
#![allow(dead_code)]

pub mod pipeline;

use histoplay::gpu::GpuContext;
use histoplay::video::still::{self, RgbaImage};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// xorshift32: the same noise on every run.
pub struct Noise(pub u32);

impl Noise {
    pub fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// How long a test waits for something to happen before it fails: generous, for a busy machine
/// (CI runs on two cores, shared with other tests).
pub const WAIT: Duration = Duration::from_secs(60);

/// Polls `check` (every 20 ms) until it gives a value; fails naming `what` after `WAIT`.
pub fn poll<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {WAIT:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What `Child::wait_with_output` gives, from a child the test holds by reference (in a guard
/// that kills it if the test fails first): its stdin closed, its stdout and stderr read to
/// their ends, then its exit status.
pub fn output_of(child: &mut Child) -> Output {
    drop(child.stdin.take());
    let stdout = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = out.read_to_end(&mut bytes);
            bytes
        })
    });
    let mut stderr = Vec::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_end(&mut stderr);
    }
    let stdout = stdout.map_or_else(Vec::new, |reader| reader.join().unwrap());
    let status = child.wait().unwrap();
    Output { status, stdout, stderr }
}

pub fn repo_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

pub fn gpu() -> GpuContext {
    GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)")
}

pub fn kitten() -> RgbaImage {
    still::load(&repo_path("media/kitten.jpg")).expect("media/kitten.jpg loads")
}

pub fn solid(width: u32, height: u32, rgba: [u8; 4]) -> RgbaImage {
    RgbaImage {
        width,
        height,
        pixels: rgba.repeat((width * height) as usize),
    }
}

/// Uniform noise from a fixed xorshift seed: every bin gets hit.
pub fn noise(width: u32, height: u32, seed: u32) -> RgbaImage {
    let mut state = seed.max(1);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for _ in 0..width * height {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [r, g, b, _] = state.to_le_bytes();
        pixels.extend_from_slice(&[r, g, b, 255]);
    }
    RgbaImage { width, height, pixels }
}

/// Every test picture the GPU paths are checked on, by name.
pub fn test_pictures() -> Vec<(&'static str, RgbaImage)> {
    vec![
        ("kitten", kitten()),
        ("all-black", solid(640, 480, [0, 0, 0, 255])),
        ("all-white", solid(640, 480, [255, 255, 255, 255])),
        ("1x1", solid(1, 1, [12, 200, 99, 255])),
        ("4097x3", noise(4097, 3, 7)),
        ("3x4097", noise(3, 4097, 11)),
        ("noise", noise(512, 512, 12345)),
    ]
}

/// A video made by the `ffmpeg` CLI with `args` (between the input options and the output), cached
/// under target/fixtures by name and recipe. Tests make their own clips so that each one's content is known.
pub fn fixture(name: &str, args: &[&str]) -> PathBuf {
    let dir = repo_path("target/fixtures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    // Cached by recipe, not only by name: a changed recipe makes the clip again.
    let recipe_path = dir.join(format!("{name}.recipe"));
    let recipe = args.join("\n");
    if path.exists() && std::fs::read_to_string(&recipe_path).is_ok_and(|r| r == recipe) {
        return path;
    }
    let partial = dir.join(format!("{}.{}.partial.{}", std::process::id(), unique(), name));
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .arg(&partial)
        .output()
        .expect("ffmpeg runs (scripts/setup installs it)");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&partial, &path).unwrap();
    std::fs::write(&recipe_path, recipe).unwrap();
    path
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Frames of the grey-ramp clip, its size and rate.
pub const RAMP_FRAMES: u64 = 90;
pub const RAMP_SIZE: (u32, u32) = (64, 48);

/// 90 frames at 30 fps, H.264 in 12-frame GOPs, each frame a flat grey whose luma is 16 + 2n
/// (n = frame number), coded losslessly (x264 codes every change of grey as P-frames: see
/// `grey_ramp_bframes` for B-frames).
pub fn grey_ramp() -> PathBuf {
    fixture("grey-ramp.mp4", &ramp_args(&["-qp", "0"]))
}

/// The grey ramp's source, coded with `codec` options.
fn ramp_args<'a>(codec: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "-f",
        "lavfi",
        "-i",
        "color=c=black:s=64x48:r=30:d=3,format=yuv420p,geq=lum='16+2*N':cb=128:cr=128",
        "-c:v",
        "libx264",
        "-g",
        "12",
        "-bf",
        "3",
        "-pix_fmt",
        "yuv420p",
    ];
    args.extend_from_slice(codec);
    args
}

/// The grey ramp again (frame n has luma 16 + 2n), coded with B-frames in a fixed pattern
/// (IBBBP, pyramid, 12-frame GOPs) at a quantiser that still decodes every frame exactly.
pub fn grey_ramp_bframes() -> PathBuf {
    fixture(
        "grey-ramp-bframes.mp4",
        &ramp_args(&["-qp", "4", "-x264-params", "scenecut=0:b-adapt=0:b-pyramid=normal"]),
    )
}

/// MPEG-4 part 2 with two B-frames in AVI, GOP 10, 50 frames of 160x120 at 25 fps: AVI gives
/// its packets decode times only, so every I and P picture comes without a pts.
pub fn mpeg4_b_frames_avi() -> PathBuf {
    fixture(
        "mpeg4-b-frames-gop10.avi",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=2",
            "-c:v",
            "mpeg4",
            "-bf",
            "2",
            "-g",
            "10",
        ],
    )
}

/// The grey ramp in open GOPs: its keyframes after the first are I pictures that are not IDR,
/// with B-frames before them (in display order) that reference the GOP before.
pub fn grey_ramp_open_gop() -> PathBuf {
    fixture(
        "grey-ramp-open-gop.mp4",
        &ramp_args(&[
            "-qp",
            "4",
            "-x264-params",
            "open-gop=1:scenecut=0:b-adapt=0:b-pyramid=normal",
        ]),
    )
}

/// Luma of grey-ramp frame n.
pub fn ramp_luma(n: u64) -> u8 {
    (16 + 2 * n) as u8
}

/// Luma of frame `n` as FFmpeg's own `select=eq(n\,N)` sees it (first pixel).
pub fn ffmpeg_select_luma(path: &std::path::Path, n: u64) -> u8 {
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(path)
        .args([
            "-vf",
            &format!("select=eq(n\\,{n})"),
            "-vsync",
            "0",
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "yuv420p",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success() && !out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout[0]
}

/// Frames of the grey-cycle clip (20 s at 30 fps) and its size.
pub const CYCLE_FRAMES: u64 = 600;
pub const CYCLE_SIZE: (u32, u32) = (64, 48);

/// 600 frames at 30 fps, H.264 with B-frames and 30-frame GOPs, each frame a flat grey whose luma
/// is 16 + 2·(n mod 100), coded losslessly: long enough to play, seek and fade the OSD in, and
/// every frame's picture and histogram are known.
pub fn grey_cycle() -> PathBuf {
    fixture(
        "grey-cycle.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:s=64x48:r=30:d=20,format=yuv420p,geq=lum='16+2*mod(N,100)':cb=128:cr=128",
            "-c:v",
            "libx264",
            "-qp",
            "0",
            "-g",
            "30",
            "-bf",
            "3",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// A clip long enough that a signal comes while a command reads it: 4 minutes of 320x240 at
/// 25 fps.
pub fn long_clip() -> PathBuf {
    fixture(
        "batch-signal-long.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=320x240:r=25:d=240",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
        ],
    )
}

/// A song with its cover: 4 s of a 440 Hz tone in AAC and one red 64x64 PNG as an attached
/// picture.
pub fn song_with_cover() -> PathBuf {
    fixture(
        "report-sound-cover.m4a",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=0.3*sin(2*PI*440*t):s=48000:d=4",
            "-f",
            "lavfi",
            "-i",
            "color=c=red:s=64x64:d=0.1",
            "-frames:v",
            "1",
            "-map",
            "0",
            "-map",
            "1",
            "-c:a",
            "aac",
            "-c:v",
            "png",
            "-disposition:v",
            "attached_pic",
        ],
    )
}

/// Luma of grey-cycle frame n.
pub fn cycle_luma(n: u64) -> u8 {
    (16 + 2 * (n % 100)) as u8
}

/// The grey a flat limited-range luma becomes (U = V = 128), by the CPU twin of the converter.
pub fn limited_grey(y: u8) -> u8 {
    use histoplay::colour::{ColorSpec, Matrix, Range};
    use histoplay::video::convert::convert_cpu;
    use histoplay::video::format::{FrameFormat, PlaneData, PlaneLayout};
    let format = FrameFormat {
        layout: PlaneLayout::Yuv {
            chroma_shift_x: 1,
            chroma_shift_y: 1,
            bits: 8,
        },
        width: 2,
        height: 2,
        color: ColorSpec {
            matrix: Matrix::Bt601,
            range: Range::Limited,
        },
    };
    let (luma, chroma) = ([y; 4], [128u8; 1]);
    let planes = [
        PlaneData { data: &luma, stride: 2 },
        PlaneData {
            data: &chroma,
            stride: 1,
        },
        PlaneData {
            data: &chroma,
            stride: 1,
        },
    ];
    // Red, the low byte of the packed RGBA8 word.
    (convert_cpu(&format, &planes)[0] & 0xff) as u8
}

/// A low-contrast clip: FFmpeg's test pattern (320x240, 25 frames) with its luma squeezed into
/// 100..140 and its chroma to a quarter.
pub fn low_contrast_clip() -> PathBuf {
    fixture(
        "low-contrast.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=320x240:rate=25:duration=1",
            "-vf",
            "lutyuv=y=100+val*40/255:u=128+(val-128)/4:v=128+(val-128)/4",
            "-pix_fmt",
            "yuv420p",
            "-c:v",
            "libx264",
            "-g",
            "10",
        ],
    )
}

/// One of histoplay's JSON lines, parsed with serde_json (objects keep their keys' order).
pub fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// What the tests read from histoplay's JSON values.
pub trait JsonExt {
    fn u64(&self) -> u64;
    fn str(&self) -> &str;
    /// An object's keys, in order.
    fn keys(&self) -> Vec<&str>;
    fn array(&self) -> &[serde_json::Value];
    /// An array of counts.
    fn counts(&self) -> Vec<u64>;
}

impl JsonExt for serde_json::Value {
    fn u64(&self) -> u64 {
        self.as_u64().unwrap_or_else(|| panic!("not a count: {self}"))
    }

    fn str(&self) -> &str {
        self.as_str().unwrap_or_else(|| panic!("not a string: {self}"))
    }

    fn keys(&self) -> Vec<&str> {
        let object = self.as_object().unwrap_or_else(|| panic!("not an object: {self}"));
        object.keys().map(String::as_str).collect()
    }

    fn array(&self) -> &[serde_json::Value] {
        self.as_array().unwrap_or_else(|| panic!("not an array: {self}"))
    }

    fn counts(&self) -> Vec<u64> {
        self.array().iter().map(JsonExt::u64).collect()
    }
}

/// `histoplay report --csv` of `path` with `args`: the header's names and each row's values.
pub fn report_csv(path: &std::path::Path, args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let lines = histoplay_stdout(&[&["report", "--csv"][..], args].concat(), path);
    let mut rows = lines
        .lines()
        .map(|l| l.split(',').map(String::from).collect::<Vec<_>>());
    (rows.next().unwrap(), rows.collect())
}

/// `histoplay ARGS FILE`'s JSON lines, each parsed.
pub fn json_lines(args: &[&str], path: &std::path::Path) -> Vec<serde_json::Value> {
    histoplay_stdout(args, path).lines().map(json).collect()
}

/// `histoplay ARGS FILE`'s stdout, the command having succeeded.
fn histoplay_stdout(args: &[&str], path: &std::path::Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// ffprobe's `-show_entries ENTRIES` (e.g. `stream=field_order` or `frame=pts_time`) of
/// `path`'s video, a line of comma-separated values for each stream or frame.
pub fn ffprobe_entries(path: &std::path::Path, entries: &str) -> Vec<String> {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v", "-show_entries", entries])
        .args(["-of", "csv=p=0"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The colour `path`'s video is tagged with, as ffprobe names it and the QC page says it:
/// `primaries P, transfer T, matrix M, range R` (`unknown` where the stream says nothing).
pub fn colour_tags(path: &std::path::Path) -> String {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v:0", "-of", "default=nw=1"])
        .args([
            "-show_entries",
            "stream=color_primaries,color_transfer,color_space,color_range",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let tag = |key: &str| {
        let prefix = format!("{key}=");
        text.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("ffprobe says no {key}: {text}"))
            .to_string()
    };
    format!(
        "primaries {}, transfer {}, matrix {}, range {}",
        tag("color_primaries"),
        tag("color_transfer"),
        tag("color_space"),
        tag("color_range")
    )
}

/// ffprobe's signalstats tags of every frame of `path`, as it prints them.
pub fn ffprobe_stats(path: &std::path::Path) -> Vec<std::collections::BTreeMap<String, String>> {
    ffprobe_stats_after(path, None)
}

/// `ffprobe_stats` of the frames out of `filter` (FFmpeg's syntax) where there is one; each
/// frame's `pts_time` is there too, under `pts_time`.
pub fn ffprobe_stats_after(
    path: &std::path::Path,
    filter: Option<&str>,
) -> Vec<std::collections::BTreeMap<String, String>> {
    let chain = filter.map_or(String::new(), |f| format!("{f},"));
    let graph = format!("{chain}signalstats=stat=tout+vrep+brng");
    ffprobe_tags(path, &graph, "lavfi.signalstats.", filter.is_some())
}

/// ffprobe's tags named `PREFIX*` (without it) of each frame out of `movie=PATH,GRAPH`; with
/// `times`, each frame's `pts_time` too, under `pts_time`.
pub fn ffprobe_tags(
    path: &std::path::Path,
    graph: &str,
    prefix: &str,
    times: bool,
) -> Vec<std::collections::BTreeMap<String, String>> {
    let graph = format!("movie={},{graph}", path.display());
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-f", "lavfi", &graph, "-show_frames"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tag_prefix = format!("TAG:{prefix}");
    let mut frames = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        if line == "[FRAME]" {
            frames.push(std::collections::BTreeMap::new());
        } else if let Some(tag) = line.strip_prefix(&tag_prefix) {
            let (key, value) = tag.split_once('=').unwrap();
            frames.last_mut().unwrap().insert(key.to_string(), value.to_string());
        } else if let Some(time) = line.strip_prefix("pts_time=").filter(|_| times) {
            frames.last_mut().unwrap().insert("pts_time".into(), time.to_string());
        }
    }
    frames
}

/// 320x240 black (Y' 16) at 10 fps, 3 s, lossless: the marks tests' plain clip.
pub fn black_240p() -> PathBuf {
    fixture(
        "marks-black-240p.mp4",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=c=black:s=320x240:r=10:d=3",
            "-c:v",
            "libx264",
            "-qp",
            "0",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// FFmpeg's integrated loudness (its `ebur128` summary's I, LUFS) of `seconds` of `path`'s
/// sound from `from`.
pub fn ffmpeg_integrated(path: &std::path::Path, from: f64, seconds: f64) -> f64 {
    let filter = format!("atrim={from}:{},ebur128", from + seconds);
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(path)
        .args(["-vn", "-af", &filter, "-f", "null", "-"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let summary = &log[log.rfind("Summary:").expect("ebur128's summary")..];
    let line = summary.lines().find(|l| l.trim_start().starts_with("I:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Every file under `dir` (a path in the repository) whose name ends in `.EXT`, sorted.
pub fn files_under(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![repo_path(dir)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A mono mix of sound alone, 16-bit at 48 kHz: a 440 Hz sine, digital silence from 1 s to
/// 3.5 s, 4 s in all.
pub fn silent_stretch_mix() -> PathBuf {
    fixture(
        "sound-alone-silent-stretch.wav",
        &[
            "-f",
            "lavfi",
            "-i",
            "aevalsrc=if(between(t\\,1\\,3.5)\\,0\\,0.3*sin(2*PI*440*t)):s=48000:d=4",
            "-c:a",
            "pcm_s16le",
        ],
    )
}

/// 100 frames of 25 fps Matroska (H.264 with B-frames, a cluster a second), and a copy whose
/// second cluster is damaged from a little way in to its end, as a damaged copy loses it.
pub fn matroska_missing_a_cluster() -> (PathBuf, PathBuf) {
    let clip = fixture(
        "lost_frames.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=25:d=4",
            "-c:v",
            "libx264",
            "-g",
            "25",
            "-bf",
            "2",
            "-cluster_time_limit",
            "1000",
        ],
    );
    let mut bytes = std::fs::read(&clip).unwrap();
    let clusters = matroska_clusters(&bytes);
    assert!(clusters.len() >= 4, "{} clusters", clusters.len());
    let (from, to) = (clusters[1] + 64, clusters[2] - 16);
    bytes[from..to].fill(0);
    // (Written whole and then named, as `fixture` makes its files: test programs may run
    // side by side.)
    let damaged = repo_path("target/fixtures/lost_frames_damaged.mkv");
    let partial = damaged.with_extension(format!("partial-{}", std::process::id()));
    std::fs::write(&partial, &bytes).unwrap();
    std::fs::rename(&partial, &damaged).unwrap();
    (clip, damaged)
}

/// Where each Matroska cluster of a file's `bytes` starts (its element ID).
pub fn matroska_clusters(bytes: &[u8]) -> Vec<usize> {
    bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == [0x1f, 0x43, 0xb6, 0x75])
        .map(|(i, _)| i)
        .collect()
}

/// 25 fps 320x240 x264: moving 1 s, black 2.5 s, moving 1 s, one picture held 3 s, moving
/// 1.5 s; stereo 16-bit sound at 48 kHz, silent from 1.2 s to 3.9 s (the QC events' programme).
pub fn events_programme() -> PathBuf {
    fixture(
        "events-programme.mkv",
        &[
            "-filter_complex",
            "testsrc2=s=320x240:r=25:d=1[a];color=c=black:s=320x240:r=25:d=2.5[b];\
             testsrc2=s=320x240:r=25:d=1[c];\
             testsrc2=s=320x240:r=25:d=0.04,loop=loop=74:size=1:start=0,setpts=N/25/TB[d];\
             testsrc2=s=320x240:r=25:d=1.5[e];[a][b][c][d][e]concat=n=5:v=1:a=0,format=yuv420p[v];\
             aevalsrc=if(between(t\\,1.2\\,3.9)\\,0\\,0.3*sin(2*PI*440*t)):s=48000:c=stereo:d=9[s]",
            "-map",
            "[v]",
            "-map",
            "[s]",
            "-c:v",
            "libx264",
            "-crf",
            "23",
            "-c:a",
            "pcm_s16le",
        ],
    )
}

/// `histoplay pse` on `file` with `args`: the summary, each frame's line (with `--frames-out`)
/// and the exit status.
pub fn pse(file: &std::path::Path, args: &[&str]) -> (serde_json::Value, Vec<serde_json::Value>, Option<i32>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("pse")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<serde_json::Value> = stdout.lines().map(json).collect();
    let summary = lines.pop().unwrap();
    (summary, lines, out.status.code())
}

/// A third of a second of the sample scaled to `size`, interlaced from 50p by FFmpeg's `interlace`
/// filter (each field from its own moment, as a camera takes them), coded by `codec` args.
pub fn interlaced(name: &str, size: &str, scan: &str, codec: &[&str]) -> PathBuf {
    let sample = repo_path("media/sample-540p.mp4");
    let rate = if size.ends_with(":480") { "60000/1001" } else { "50" };
    let filter = format!("fps={rate},scale={size},interlace=scan={scan}:lowpass=0");
    let mut args = vec!["-i", sample.to_str().unwrap(), "-t", "0.2", "-an", "-vf", &filter];
    args.extend_from_slice(codec);
    fixture(name, &args)
}

/// PAL 4:2:0 8-bit H.264, top field first, coded as fields: five frames.
pub fn interlaced_pal_h264() -> PathBuf {
    interlaced(
        "deint-pal-h264.mkv",
        "720:576",
        "tff",
        &[
            "-c:v",
            "libx264",
            "-crf",
            "20",
            "-flags",
            "+ilme+ildct",
            "-x264-params",
            "tff=1",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// A programme of MPEG-2 in MPEG-TS: five progressive frames, ten interlaced (top field first),
/// the five progressive again, each piece a transport stream of its own joined byte for byte.
/// At each join the decoder loses the frame before it (FFmpeg's as histoplay's: 18 frames of
/// 20, frames 4 and 14 said missing).
pub fn mpeg2_losing_frames_at_joins() -> PathBuf {
    let piece = |name: &str, graph: &str, extra: &[&str]| {
        let mut args = vec!["-f", "lavfi", "-i", graph, "-vf"];
        args.extend_from_slice(extra);
        args.extend(["-c:v", "mpeg2video", "-q:v", "3", "-f", "mpegts"]);
        std::fs::read(fixture(name, &args)).unwrap()
    };
    let progressive = piece(
        "joins-progressive.ts",
        "testsrc2=s=320x240:r=25:d=0.2",
        &["format=yuv420p"],
    );
    let interlaced = piece(
        "joins-interlaced.ts",
        "testsrc2=s=320x240:r=50:d=0.4",
        &[
            "interlace=scan=tff,format=yuv420p",
            "-flags",
            "+ilme+ildct",
            "-top",
            "1",
        ],
    );
    let path = repo_path("target/fixtures/joins.ts");
    let joined = [&progressive[..], &interlaced, &progressive].concat();
    if std::fs::read(&path).ok().as_ref() != Some(&joined) {
        let partial = path.with_extension(format!("{}.part", std::process::id()));
        std::fs::write(&partial, &joined).unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

/// The PAL clip encoded again at a lower quality (x264 at CRF 30, still coded as fields).
pub fn interlaced_pal_encode() -> PathBuf {
    let reference = interlaced_pal_h264();
    fixture(
        "compare-deint-encode.mkv",
        &[
            "-i",
            reference.to_str().unwrap(),
            "-c:v",
            "libx264",
            "-crf",
            "30",
            "-flags",
            "+ilme+ildct",
            "-pix_fmt",
            "yuv420p",
        ],
    )
}

/// The lines of an FFmpeg stats file (`n:1 mse_avg:9.18 ...`) as key, value pairs; the file
/// removed.
pub fn stats_lines(stats: &std::path::Path) -> Vec<Vec<(String, String)>> {
    let text = std::fs::read_to_string(stats).unwrap();
    std::fs::remove_file(stats).ok();
    text.lines()
        .map(|line| {
            line.split_whitespace()
                .filter_map(|kv| kv.split_once(':'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// A stats file line's `key` (`inf` as infinity).
pub fn stats_value(line: &[(String, String)], key: &str) -> f64 {
    let v = &line
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("{key} in {line:?}"))
        .1;
    if v == "inf" {
        f64::INFINITY
    } else {
        v.parse().unwrap()
    }
}

/// FFmpeg's `filter` (`psnr`, `ssim`) stats of `b`'s pictures against `a`'s, both through
/// `deinterlacer` first (its C code: `-cpuflags 0`, see docs/comparing.md).
pub fn ffmpeg_deinterlaced(
    a: &std::path::Path,
    b: &std::path::Path,
    deinterlacer: &str,
    filter: &str,
) -> Vec<Vec<(String, String)>> {
    let stats = std::env::temp_dir().join(format!("histoplay-deint-{filter}-{}.log", std::process::id()));
    let graph = format!(
        "[0:v]{deinterlacer}[a];[1:v]{deinterlacer}[b];[a][b]{filter}=stats_file={}",
        stats.display()
    );
    let out = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-cpuflags", "0", "-i"])
        .arg(a)
        .arg("-i")
        .arg(b)
        .args(["-lavfi", &graph, "-fps_mode", "passthrough", "-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    stats_lines(&stats)
}

/// Two seconds of testsrc2 at 25 fps in MPEG-TS (GOPs of 25 frames), `size` in `pix_fmt`, its
/// timestamps from `offset` seconds on, so that pieces joined one after another keep counting.
pub fn ts_piece(name: &str, size: &str, pix_fmt: &str, offset: &str) -> PathBuf {
    let source = format!("testsrc2=size={size}:rate=25:duration=2");
    fixture(
        name,
        &[
            "-f",
            "lavfi",
            "-i",
            &source,
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "25",
            "-bf",
            "0",
            "-pix_fmt",
            pix_fmt,
            "-output_ts_offset",
            offset,
            "-f",
            "mpegts",
        ],
    )
}

/// Two pieces of `ts_piece` end to end, as one file whose picture changes size and sampling
/// midway: 320x240 4:2:0 for frames 0–49, 256x144 4:2:2 for 50–99. The two pieces, then the
/// file.
pub fn reshaped_ts() -> [PathBuf; 3] {
    let wide = ts_piece("reshape-wide.ts", "320x240", "yuv420p", "0");
    let small = ts_piece("reshape-small.ts", "256x144", "yuv422p", "2");
    let joined = joined_file("reshape-joined.ts", &[&wide, &small]);
    [wide, small, joined]
}

/// 320x240 for frames 0–49, 256x144 for 50–99, 320x240 again for 100–149 (4:2:0), in one TS.
pub fn reshaped_there_and_back_ts() -> PathBuf {
    let pieces = [
        ts_piece("reshape-wide.ts", "320x240", "yuv420p", "0"),
        ts_piece("reshape-small-420.ts", "256x144", "yuv420p", "2"),
        ts_piece("reshape-wide-again.ts", "320x240", "yuv420p", "4"),
    ];
    joined_file("reshape-there-and-back.ts", &pieces.iter().collect::<Vec<_>>())
}

/// `pieces` end to end, byte for byte, in `target/fixtures/NAME` (written whole under another
/// name first: tests side by side read it).
pub fn joined_file(name: &str, pieces: &[&PathBuf]) -> PathBuf {
    let joined = repo_path(&format!("target/fixtures/{name}"));
    let bytes: Vec<u8> = pieces.iter().flat_map(|p| std::fs::read(p).unwrap()).collect();
    let partial = repo_path(&format!("target/fixtures/{}.{}.{name}", std::process::id(), unique()));
    std::fs::write(&partial, bytes).unwrap();
    std::fs::rename(&partial, &joined).unwrap();
    joined
}
