//! The window's photosensitivity check: the whole file analysed in the background, in order,
//! by `histoplay pse`'s own analysis (its decoder, the photosensitivity pass on the player's
//! GPU), at low priority and held to twice the frame rate while the window plays, as the
//! histogram timeline fills. Each frame's verdict is the one `pse --frames-out` gives it,
//! whatever the window shows meanwhile: the lamp shows the frame on screen's, the timeline's
//! PSE row each column's flashes a second and the failing stretches, and the overlay the blocks
//! of the frame on screen that flashed more than three times in the second before it.

use crate::gpu::GpuContext;
use crate::headless::{self as hist, ClipError, FrameMeta, FrameRange};
use crate::pse::analysis::{State, FAIL_TRANSITIONS, WARN_TRANSITIONS};
use crate::pse::light::{Grid, LightModel};
use crate::pse::stripes::{Blocks, BLOCK_CELLS};
use crate::pse::{Analysis, PseFailure, Standard};
use crate::timeline::{FillControl, SPEED_WHILE_PLAYING};
use crate::video::source::{Decoding, VideoSource};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The flashing blocks of frames that warn or fail are kept up to this many bytes (a byte a
/// block: 336 at 16:9, so about 200 000 frames).
const MAPS_BUDGET: usize = 64 << 20;

/// One frame's findings, as the lamp and the row show them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFinding {
    pub state: Option<State>,
    /// The most flashes a second over the area (general or red).
    pub flashes: f32,
    /// A hazardous pattern on it.
    pub pattern: bool,
}

/// The flashing blocks of one frame: per block of `blocks`, 0 where it did not flash more than
/// the warning's transitions, 1 where it warns and 2 where it fails.
#[derive(Clone, Debug, PartialEq)]
pub struct FlashMap {
    pub blocks: Blocks,
    pub levels: Vec<u8>,
}

#[derive(Debug, Default)]
struct Findings {
    by_frame: Vec<FrameFinding>,
    maps: HashMap<u64, FlashMap>,
    map_bytes: usize,
    /// The failures ended, and those going on at the frame analysed last.
    failures: Vec<PseFailure>,
    open: Vec<PseFailure>,
    analysed: u64,
}

/// The PSE row of the timeline: per column its worst state, its most flashes a second and the
/// frame a click goes to (the first failing frame, else the one flashing most); the failures.
#[derive(Clone, Debug, PartialEq)]
pub struct PseStrip {
    pub standard: Standard,
    pub columns: Vec<Option<(State, f32, u64)>>,
    pub failures: Vec<PseFailure>,
    pub frame_count: u64,
    pub analysed: u64,
    pub done: bool,
    /// Why the analysis stopped early, if it did.
    pub failed: Option<String>,
}

impl Findings {
    /// The failures found so far: those ended, then those going on.
    fn known(&self) -> impl Iterator<Item = &PseFailure> {
        self.failures.iter().chain(&self.open)
    }

    fn strip(&self, columns: usize, frame_count: u64) -> Vec<Option<(State, f32, u64)>> {
        let frame_count = frame_count.max(self.by_frame.len() as u64).max(1);
        let (c, f) = (columns as u64, frame_count);
        let rank = |s: State| match s {
            State::Pass => 0,
            State::Warn => 1,
            State::Fail => 2,
        };
        (0..c)
            .map(|column| {
                let start = column * f / c;
                let end = ((column + 1) * f / c).max(start + 1);
                let frames: Vec<(State, f32, u64)> = (start..end)
                    .filter_map(|n| {
                        let finding = self.by_frame.get(n as usize)?;
                        Some((finding.state?, finding.flashes, n))
                    })
                    .collect();
                let (worst, _, _) = *frames.iter().max_by_key(|f| rank(f.0))?;
                let most = frames.iter().map(|f| f.1).fold(0.0, f32::max);
                // A failing column goes to its first failing frame; else to its worst frame
                // flashing most.
                let at = frames
                    .iter()
                    .filter(|f| f.0 == worst)
                    .fold(None, |best: Option<(f32, u64)>, f| match best {
                        Some((flashes, n)) if worst == State::Fail || flashes >= f.1 => Some((flashes, n)),
                        _ => Some((f.1, f.2)),
                    })
                    .map_or(start, |(_, n)| n);
                Some((worst, most, at))
            })
            .collect()
    }
}

/// Where a live input's packets shared midway sit on the window's count: the frame the window
/// showed as they were asked for (its number and time), and the time their timestamps count
/// from (the input's start; the window's count from the stream's own times).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joined {
    pub shown: (u64, f64),
    pub start: f64,
}

/// A live input's packets asked for midway (`Alt+p` without `--pse`), and the frame shown as
/// they were (its number and time: the analysis numbers its frames from it).
pub struct Joining {
    pub answer: std::sync::mpsc::Receiver<crate::video::decoder::SharedPackets>,
    pub shown: (u64, f64),
}

/// What a PSE row was made of: frames analysed, the file's count, columns, the run ended,
/// failures ended.
type StripKey = (u64, u64, usize, bool, usize);

/// The background analysis of one file, stopped (and waited for) when dropped: the window drops
/// it with the file, off its thread.
pub struct PseFill {
    pub standard: Standard,
    /// Analysing a live input's shared packets (as they come, at full priority).
    pub live: bool,
    findings: Arc<Mutex<Findings>>,
    control: Arc<FillControl>,
    done: Arc<AtomicBool>,
    failed: Arc<Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Frames analysed, failures known and whether the run had ended when the window last
    /// looked.
    seen: Cell<(u64, usize, bool)>,
    /// The row last made, and what it was made of (frames analysed, the file's count, columns,
    /// the run ended).
    strip: RefCell<Option<(StripKey, PseStrip)>>,
    /// The first frames of the failing stretches warned of.
    warned: RefCell<Vec<u64>>,
}

impl PseFill {
    /// Starts analysing the file at `path` by `standard`'s rules, on `gpu`; `live`: `path` is
    /// where a live input's packets are shared (`VideoSource::share_packets`). `joined`: they
    /// were shared midway, when the window showed this frame (its number and time): the frames
    /// analysed are numbered as the window numbers them, from their time.
    pub fn start(
        path: &Path,
        standard: Standard,
        live: bool,
        joined: Option<Joined>,
        gpu: &GpuContext,
    ) -> std::io::Result<Self> {
        let findings: Arc<Mutex<Findings>> = Arc::default();
        let control = Arc::new(FillControl::default());
        let done = Arc::new(AtomicBool::new(false));
        let failed: Arc<Mutex<Option<String>>> = Arc::default();
        let (path, gpu): (PathBuf, GpuContext) = (path.to_path_buf(), gpu.clone());
        let (shared, controls, finished, why) = (findings.clone(), control.clone(), done.clone(), failed.clone());
        let thread = std::thread::Builder::new()
            .name("histoplay pse".into())
            .spawn(move || {
                // (A live input's analysis falling behind would hold up the window's reading.)
                if !live {
                    crate::video::index::lower_priority();
                }
                match analyse(&gpu, &path, standard, joined, &shared, &controls) {
                    Ok(frames) => log::info!("photosensitivity of {}: {frames} frames", path.display()),
                    Err(_) if controls.stop.load(Ordering::Relaxed) => log::debug!("photosensitivity stopped"),
                    Err(e) => {
                        log::warn!("the photosensitivity analysis of {} stopped: {e}", path.display());
                        *why.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                    }
                }
                if live {
                    // Read or not, the pipe's read end goes: the window's writes to it fail
                    // from then on instead of waiting for a reader.
                    crate::video::input::close_internal(&path);
                }
                finished.store(true, Ordering::Relaxed);
            })?;
        Ok(Self {
            standard,
            live,
            findings,
            control,
            done,
            failed,
            thread: Some(thread),
            seen: Cell::new((u64::MAX, 0, false)),
            strip: RefCell::new(None),
            warned: RefCell::new(Vec::new()),
        })
    }

    /// Whether frames were analysed or failures found since the last call (and the window
    /// should show them).
    pub fn news(&self) -> bool {
        let now = self.findings.lock().map_or((0, 0, false), |f| {
            (f.analysed, f.failures.len() + f.open.len(), self.done())
        });
        now != self.seen.replace(now)
    }

    /// A failing stretch not warned of yet, lying over frame `at` (any, where None): the
    /// warning.
    pub fn warn(&self, at: Option<u64>) -> Option<String> {
        let findings = self.findings.lock().ok()?;
        let mut warned = self.warned.borrow_mut();
        let failure = findings
            .known()
            .find(|f| !warned.contains(&f.frames.0) && at.is_none_or(|n| (f.frames.0..=f.frames.1).contains(&n)))?;
        warned.push(failure.frames.0);
        Some(format!(
            "photosensitivity ({}): {} fails from {} (frame {})",
            self.standard.name(),
            failure.kind,
            crate::clock::format_time(failure.start),
            failure.frames.0,
        ))
    }

    /// Frame `frame`'s findings, once analysed.
    pub fn finding(&self, frame: u64) -> Option<FrameFinding> {
        let findings = self.findings.lock().ok()?;
        findings
            .by_frame
            .get(frame as usize)
            .copied()
            .filter(|f| f.state.is_some())
    }

    /// The frame analysed last, and its findings.
    pub fn latest(&self) -> Option<(u64, FrameFinding)> {
        let findings = self.findings.lock().ok()?;
        let last = findings.by_frame.len().checked_sub(1)?;
        Some((last as u64, findings.by_frame[last]))
    }

    /// Frame `frame`'s flashing blocks, where it warned or failed.
    pub fn flash_map(&self, frame: u64) -> Option<FlashMap> {
        self.findings.lock().ok()?.maps.get(&frame).cloned()
    }

    /// The timeline's PSE row, over `columns` columns of a file of `frame_count` frames: made
    /// again only when more is analysed or the count changed (the OSD asks at every redraw).
    pub fn strip(&self, columns: usize, frame_count: u64) -> PseStrip {
        let done = self.done();
        let findings = self.findings.lock().unwrap_or_else(|e| e.into_inner());
        let key = (findings.analysed, frame_count, columns, done, findings.failures.len());
        let mut cached = self.strip.borrow_mut();
        if let Some((_, strip)) = cached.as_ref().filter(|(k, _)| *k == key) {
            return strip.clone();
        }
        let strip = PseStrip {
            standard: self.standard,
            columns: findings.strip(columns, frame_count),
            failures: findings.known().cloned().collect(),
            frame_count: frame_count.max(findings.by_frame.len() as u64),
            analysed: findings.analysed,
            done,
            failed: self.failed.lock().ok().and_then(|f| f.clone()),
        };
        *cached = Some((key, strip.clone()));
        strip
    }

    /// Frames analysed so far.
    pub fn analysed(&self) -> u64 {
        self.findings.lock().map_or(0, |f| f.analysed)
    }

    pub fn set_playing(&self, playing: bool) {
        self.control.playing.store(playing, Ordering::Relaxed);
    }

    pub fn done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }
}

impl Drop for PseFill {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `pse` over the whole file, each frame's findings kept by its number (counted on from the
/// window's frame `joined` for a live input's packets shared midway).
fn analyse(
    gpu: &GpuContext,
    path: &Path,
    standard: Standard,
    joined: Option<Joined>,
    findings: &Mutex<Findings>,
    control: &FillControl,
) -> Result<u64, ClipError> {
    let mut source = VideoSource::open_for(path, Decoding::Throughput)?;
    source.set_exact_numbers(true);
    let info = source.info.clone();
    let format = info.format;
    let model = LightModel::new(
        standard,
        info.volume.transfer,
        info.volume.primaries,
        format.layout.output_bits(),
    );
    let grid = Grid::new(format.width, format.height);
    let blocks = Blocks::new(grid, BLOCK_CELLS);
    let mut analysis = Analysis::new(
        standard,
        info.volume.is_hdr(),
        info.volume.primaries,
        grid,
        info.frame_duration,
    );
    let interval = std::time::Duration::from_secs_f64(info.frame_duration.max(1e-3) / SPEED_WHILE_PLAYING);
    let mut last = Instant::now();
    let all = FrameRange { start: 0, end: None };
    // The window's number of the analysis's first frame, from its time against the frame the
    // window showed when the packets were shared (they start at the keyframe after it).
    let mut first: Option<u64> = None;
    let frame_duration = info.frame_duration.max(1e-6);
    hist::gpu_frames_on(
        gpu,
        source,
        all,
        crate::engine::histogram::DEFAULT_BINS,
        None,
        |ctx, pipeline| {
            pipeline.analyse_flashes(ctx, &model);
            Ok(pipeline.pse().expect("made").readback_size())
        },
        |pipeline, encoder, buffer| pipeline.pse().expect("made").copy_out(encoder, buffer, 0),
        |pipeline, bytes, frame: FrameMeta| {
            if control.stop.load(Ordering::Relaxed) {
                return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"));
            }
            if control.playing.load(Ordering::Relaxed) {
                std::thread::sleep(interval.saturating_sub(last.elapsed()));
            }
            last = Instant::now();
            let light = pipeline
                .pse()
                .expect("made")
                .light_from(&crate::gpu::readback::words(bytes));
            let first = *first.get_or_insert_with(|| match joined {
                Some(Joined {
                    shown: (shown, at),
                    start,
                }) => {
                    let ahead = ((frame.seconds + start - at) / frame_duration).round().max(0.0) as u64;
                    (shown + ahead).saturating_sub(frame.index)
                }
                None => 0,
            });
            let index = frame.index + first;
            let verdict = analysis.frame(index, frame.seconds, &light);
            let ended = analysis.take_ended();
            let map = (verdict.state != State::Pass).then(|| flash_map(&analysis, &blocks));
            let mut findings = findings.lock().unwrap_or_else(|e| e.into_inner());
            let i = index as usize;
            if findings.by_frame.len() <= i {
                findings.by_frame.resize(i + 1, FrameFinding::default());
            }
            findings.by_frame[i] = FrameFinding {
                state: Some(verdict.state),
                flashes: verdict.flashes.max(verdict.red_flashes) as f32,
                pattern: verdict.pattern.hazardous,
            };
            if let Some(map) = map.filter(|m| findings.map_bytes + m.levels.len() <= MAPS_BUDGET) {
                findings.map_bytes += map.levels.len();
                findings.maps.insert(index, map);
            }
            findings.failures.extend(ended);
            findings.open = analysis.open_failures();
            findings.analysed += 1;
            Ok(())
        },
    )?;
    let summary = analysis.finish(Vec::new());
    let mut findings = findings.lock().unwrap_or_else(|e| e.into_inner());
    findings.open.clear();
    findings.failures.extend(summary.failures);
    findings.failures.sort_by(|a, b| a.start.total_cmp(&b.start));
    Ok(summary.frames)
}

/// The blocks of the frame just analysed that flashed: each block's most transitions in the
/// last second over its cells, as a level.
fn flash_map(analysis: &Analysis, blocks: &Blocks) -> FlashMap {
    let columns = blocks.grid.columns;
    let levels = (0..blocks.len())
        .map(|b| {
            let [c0, r0, c1, r1] = blocks.cell_bounds(b);
            let most = (r0..r1)
                .flat_map(|r| (c0..c1).map(move |c| (r * columns + c) as usize))
                .map(|cell| analysis.transitions(cell))
                .max()
                .unwrap_or(0);
            match most {
                n if n >= FAIL_TRANSITIONS => 2,
                n if n >= WARN_TRANSITIONS => 1,
                _ => 0,
            }
        })
        .collect();
    FlashMap {
        blocks: *blocks,
        levels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(state: State, flashes: f32) -> FrameFinding {
        FrameFinding {
            state: Some(state),
            flashes,
            pattern: false,
        }
    }

    #[test]
    fn each_column_shows_its_worst_state_and_goes_to_its_first_failing_frame() {
        let findings = Findings {
            by_frame: vec![
                finding(State::Pass, 0.0),
                finding(State::Warn, 2.0),
                finding(State::Fail, 3.5),
                finding(State::Fail, 4.0),
                finding(State::Pass, 0.5),
                FrameFinding::default(),
            ],
            ..Findings::default()
        };
        let strip = findings.strip(3, 6);
        assert_eq!(
            strip,
            [
                Some((State::Warn, 2.0, 1)),
                Some((State::Fail, 4.0, 2)),
                Some((State::Pass, 0.5, 4))
            ]
        );
    }
}
