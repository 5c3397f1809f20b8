//! The compare window's VMAF: every pair of the two files measured in the background, from the
//! first frame on, by `histoplay compare --vmaf`'s own run (its decoders, the metrics and VMAF
//! passes on the player's GPU), at low priority and held to twice the frame rate while the
//! window plays, as the histogram timeline fills. Each frame's score is the one `compare`
//! prints for it, motion included, whatever the window shows meanwhile; the live line shows
//! the score of the frame on screen, the timeline's VMAF row each column's worst frame.

use crate::compare::align::{match_pair, AlignBy};
use crate::compare::vmaf::gpu::VmafPass;
use crate::compare::vmaf::model::Model;
use crate::compare::vmaf::Vmaf;
use crate::gpu::GpuContext;
use crate::headless::compare::{compare_gpu, CompareJob};
use crate::headless::progress::Progress;
use crate::headless::{ClipError, FrameRange};
use crate::timeline::{FillControl, SPEED_WHILE_PLAYING};
use crate::video::deinterlace::Deinterlacer;
use crate::video::source::{Decoding, VideoSource};
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The worst frames the VMAF row marks.
pub const WORST_MARKED: usize = 5;

/// Each of A's frames' VMAF, as measured so far (NaN: not yet, or no partner).
#[derive(Debug, Default)]
struct Scores {
    by_frame: Vec<f64>,
    measured: u64,
}

/// The VMAF row of the timeline: per column the worst frame's score and number, the run's worst
/// frames, and how far the run has come.
#[derive(Clone, Debug, PartialEq)]
pub struct VmafStrip {
    pub columns: Vec<Option<(f32, u64)>>,
    /// The worst frames measured, worst first: (frame, score).
    pub worst: Vec<(u64, f32)>,
    /// Frames the columns span (A's count).
    pub frame_count: u64,
    pub measured: u64,
    pub done: bool,
}

impl Scores {
    fn set(&mut self, frame: u64, score: f64) {
        let i = frame as usize;
        if self.by_frame.len() <= i {
            self.by_frame.resize(i + 1, f64::NAN);
        }
        self.by_frame[i] = score;
        self.measured += 1;
    }

    /// The strip over `columns` columns for a file of `frame_count` frames: column c spans
    /// the frames from ⌊c·F/C⌋ to ⌊(c+1)·F/C⌋ (one at least, so that a short file's frames
    /// each fill their stretch of the row).
    fn strip(&self, columns: usize, frame_count: u64) -> VmafStrip {
        let frame_count = frame_count.max(self.by_frame.len() as u64).max(1);
        let (c, f) = (columns as u64, frame_count);
        let cells: Vec<Option<(f32, u64)>> = (0..c)
            .map(|column| {
                let start = column * f / c;
                let end = ((column + 1) * f / c).max(start + 1);
                (start..end)
                    .filter_map(|n| {
                        let score = *self.by_frame.get(n as usize)?;
                        (!score.is_nan()).then_some((score as f32, n))
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0))
            })
            .collect();
        // The worst few, kept in order as the frames go by (no sort of them all).
        let mut worst: Vec<(u64, f32)> = Vec::with_capacity(WORST_MARKED + 1);
        for (n, &score) in self.by_frame.iter().enumerate().filter(|(_, s)| !s.is_nan()) {
            let score = score as f32;
            let at = worst.partition_point(|&(_, s)| s <= score);
            if at < WORST_MARKED {
                worst.insert(at, (n as u64, score));
                worst.truncate(WORST_MARKED);
            }
        }
        VmafStrip {
            columns: cells,
            worst,
            frame_count,
            measured: self.measured,
            done: false,
        }
    }
}

/// What a VMAF row was made of: frames measured, the file's count, columns, the run ended.
type StripKey = (u64, u64, usize, bool);

/// The background run of one pair, stopped (and waited for) when dropped: drop it off the
/// window's thread (`retire`).
pub struct VmafFill {
    scores: Arc<Mutex<Scores>>,
    control: Arc<FillControl>,
    done: Arc<AtomicBool>,
    /// Why the run ended early, if it did.
    failed: Arc<Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The offset the run pairs with, and the deinterlacing of both files (another needs a
    /// new run).
    pub offset: i64,
    pub deinterlace: Option<Deinterlacer>,
    /// Frames measured when the window last looked.
    shown: Cell<u64>,
    /// The VMAF row last made, and what it was made of.
    strip: RefCell<Option<(StripKey, VmafStrip)>>,
}

impl VmafFill {
    /// Starts measuring `b` against `a`, paired `by` with `offset` (both deinterlaced where
    /// asked: scores by picture), on `gpu`.
    pub fn start(
        a: &Path,
        b: &Path,
        (by, offset, deinterlace): (AlignBy, i64, Option<Deinterlacer>),
        model: Model,
        gpu: &GpuContext,
    ) -> std::io::Result<Self> {
        let scores: Arc<Mutex<Scores>> = Arc::default();
        let control = Arc::new(FillControl::default());
        let done = Arc::new(AtomicBool::new(false));
        let failed: Arc<Mutex<Option<String>>> = Arc::default();
        let (paths, gpu) = ((a.to_path_buf(), b.to_path_buf()), gpu.clone());
        let (shared, controls, finished, why) = (scores.clone(), control.clone(), done.clone(), failed.clone());
        let thread = std::thread::Builder::new()
            .name("histoplay vmaf".into())
            .spawn(move || {
                // The decoders' threads, made from this one, take its priority too.
                crate::video::index::lower_priority();
                match measure(&gpu, &paths, (by, offset, deinterlace), model, &shared, &controls) {
                    Ok(()) => log::info!("VMAF of {} against {}: done", paths.1.display(), paths.0.display()),
                    Err(_) if controls.stop.load(Ordering::Relaxed) => log::debug!("VMAF stopped"),
                    Err(e) => {
                        log::warn!("VMAF of {} stopped: {e}", paths.1.display());
                        *why.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                    }
                }
                finished.store(true, Ordering::Relaxed);
            })?;
        Ok(Self {
            scores,
            control,
            done,
            failed,
            thread: Some(thread),
            offset,
            deinterlace,
            shown: Cell::new(u64::MAX),
            strip: RefCell::new(None),
        })
    }

    /// Frame `frame`'s VMAF, once measured.
    pub fn score(&self, frame: u64) -> Option<f64> {
        let scores = self.scores.lock().ok()?;
        scores.by_frame.get(frame as usize).copied().filter(|s| !s.is_nan())
    }

    /// The timeline's VMAF row, for a file of `frame_count` frames.
    /// Made again only when the run has measured more, or the file's count changed: the
    /// OSD asks at every redraw.
    pub fn strip(&self, columns: usize, frame_count: u64) -> VmafStrip {
        let done = self.done();
        let scores = self.scores.lock().unwrap_or_else(|e| e.into_inner());
        let key = (scores.measured, frame_count, columns, done);
        let mut cached = self.strip.borrow_mut();
        match cached.as_ref() {
            Some((k, strip)) if *k == key => strip.clone(),
            _ => {
                let strip = VmafStrip {
                    done,
                    ..scores.strip(columns, frame_count)
                };
                *cached = Some((key, strip.clone()));
                strip
            }
        }
    }

    /// Whether frames were measured since the last call (and the window should show them).
    pub fn news(&self) -> bool {
        let measured = self.measured();
        measured != self.shown.replace(measured)
    }

    /// Pairs measured so far.
    pub fn measured(&self) -> u64 {
        self.scores.lock().map_or(0, |s| s.measured)
    }

    /// Why the run stopped before its end, if it did.
    pub fn failed(&self) -> Option<String> {
        self.failed.lock().ok()?.clone()
    }

    pub fn set_playing(&self, playing: bool) {
        self.control.playing.store(playing, Ordering::Relaxed);
    }

    pub fn done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    /// Stops the run and lets it end on a thread of its own (the window never waits for it).
    pub fn retire(self) {
        self.control.stop.store(true, Ordering::Relaxed);
        let _ = std::thread::Builder::new()
            .name("histoplay vmaf end".into())
            .spawn(move || drop(self));
    }
}

impl Drop for VmafFill {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `compare --vmaf` over the whole pair, each score kept by A's frame (or picture) number.
fn measure(
    gpu: &GpuContext,
    (a, b): &(PathBuf, PathBuf),
    (by, offset, deinterlace): (AlignBy, i64, Option<Deinterlacer>),
    model: Model,
    scores: &Mutex<Scores>,
    control: &FillControl,
) -> Result<(), ClipError> {
    if !VmafPass::supported(&gpu.device) {
        return Err(ClipError::Decode(
            "this GPU has no 64-bit integers or doubles in shaders: no VMAF in the window".into(),
        ));
    }
    let a = VideoSource::open_for(a, Decoding::Throughput)?;
    let mut b = VideoSource::open_for(b, Decoding::Throughput)?;
    match_pair(&a, &mut b)?;
    let interval = std::time::Duration::from_secs_f64(a.info.frame_duration.max(1e-3) / SPEED_WHILE_PLAYING);
    let job = CompareJob {
        range: FrameRange { start: 0, end: None },
        offset,
        by,
        csv: false,
        cpu: false,
        deinterlace,
    };
    let mut last = Instant::now();
    compare_gpu(
        gpu,
        a,
        b,
        &job,
        Some(Vmaf::new(model)),
        &mut Progress::hidden(),
        &mut |c| {
            if control.stop.load(Ordering::Relaxed) {
                return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"));
            }
            if control.playing.load(Ordering::Relaxed) {
                std::thread::sleep(interval.saturating_sub(last.elapsed()));
            }
            last = Instant::now();
            // (Aligned by time, the judged file's frames after the reference's last are
            // measured against it, as FFmpeg's filters do: they are not the reference's.)
            if let Some(v) = c.vmaf.filter(|_| !c.past_a) {
                scores.lock().unwrap_or_else(|e| e.into_inner()).set(c.frame, v.vmaf);
            }
            Ok(())
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_column_shows_its_worst_frame_and_the_worst_frames_are_listed() {
        let mut scores = Scores::default();
        for (n, s) in [
            (0, 90.0),
            (1, 80.0),
            (2, 95.0),
            (3, 70.0),
            (5, 99.0),
            (6, 60.0),
            (7, 85.0),
        ] {
            scores.set(n, s);
        }
        // 8 frames over 4 columns: two a column; frame 4 not measured.
        let strip = scores.strip(4, 8);
        assert_eq!(
            strip.columns,
            [Some((80.0, 1)), Some((70.0, 3)), Some((99.0, 5)), Some((60.0, 6))]
        );
        assert_eq!(strip.worst, [(6, 60.0), (3, 70.0), (1, 80.0), (7, 85.0), (0, 90.0)]);
        assert_eq!(strip.measured, 7);
        // More columns than frames: each frame fills its stretch (frame 4 has no score yet).
        let wide = scores.strip(16, 8);
        assert_eq!(&wide.columns[2..4], [Some((80.0, 1)), Some((80.0, 1))]);
        assert_eq!(&wide.columns[8..10], [None, None]);
        assert_eq!(wide.columns[15], Some((85.0, 7)));
    }
}
