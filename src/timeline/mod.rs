//! The histogram timeline: the luminance histogram of every frame across the whole file, one
//! strip column per run of frames (x = time, y = luminance bin with 0 at the bottom, brightness
//! = share of the column's pixels, with markers where highlights or shadows clip). `histoplay
//! timeline` renders it to a PNG; in the player a decode of its own, at low priority, fills it
//! while the file is open (`TimelineFill`), yielding most of its time while the player plays.
//!
//! Column x of C covers the frames n with ⌊n·C/F⌋ = x, F the file's frame count, and holds the
//! sum of their luminance histograms (`hist`'s `l`, 256 bins).
//!
//! With sound, the strip gets rows of its own under the histograms: each column's short-term
//! loudness, and marks where the sound is silent or clips (`loudness`).
//!
//! A live input has no file to read again: its timeline is that of its timeshift window, each
//! frame counted as the decode thread keeps it (`TimelineFill::live`), the oldest letting go as
//! the window slides; frame n of the F in the window goes to column ⌊n·C/F⌋.

pub mod loudness;
mod sound;

use crate::engine::histogram::{Histogram, DEFAULT_BINS};
use crate::gpu::GpuContext;
use crate::headless::progress::Progress;
use crate::headless::{self as hist, ClipError, FrameMeta, FrameRange};
use crate::video::decoder::{LiveWindow, TappedFrame};
use crate::video::source::{Decoding, VideoSource};
use loudness::{LoudnessStrip, LOUDNESS_ROWS};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Share of a column's pixels in its top (or bottom) bin above which the strip marks it as
/// clipping.
pub const CLIP_SHARE: f64 = 0.01;
/// Columns of the player's strip (it is stretched to the OSD's width).
pub const PLAYER_COLUMNS: u32 = 1024;
/// Rows of the player's strip.
pub const PLAYER_ROWS: u32 = 64;

const SHADOW_CLIP: [u8; 3] = [70, 130, 255];
const HIGHLIGHT_CLIP: [u8; 3] = [255, 70, 60];
const EMPTY: [u8; 4] = [40, 40, 40, 160];

/// The luminance histograms of a file's frames, summed per column.
#[derive(Clone, Debug)]
pub struct TimelineData {
    pub columns: u32,
    pub bins: u32,
    /// Frames in the file (the columns' mapping).
    pub frame_count: u64,
    /// columns × bins sums.
    counts: Vec<u64>,
    /// Frames added to each column.
    frames: Vec<u32>,
    /// Frames added in all.
    pub filled: u64,
}

impl TimelineData {
    pub fn new(columns: u32, bins: u32, frame_count: u64) -> Self {
        let columns = columns.max(1);
        Self {
            columns,
            bins,
            frame_count: frame_count.max(1),
            counts: vec![0; (columns * bins) as usize],
            frames: vec![0; columns as usize],
            filled: 0,
        }
    }

    /// The column frame `index` falls in: ⌊n·C/F⌋ (frames past the count go to the last).
    pub fn column_of(&self, index: u64) -> u32 {
        let column = u128::from(index) * u128::from(self.columns) / u128::from(self.frame_count);
        column.min(u128::from(self.columns - 1)) as u32
    }

    /// Adds frame `index`'s luminance bins.
    pub fn add(&mut self, index: u64, luma: impl IntoIterator<Item = u32>) {
        let column = self.column_of(index) as usize;
        let bins = self.bins as usize;
        for (sum, count) in self.counts[column * bins..(column + 1) * bins].iter_mut().zip(luma) {
            *sum += u64::from(count);
        }
        self.frames[column] += 1;
        self.filled += 1;
    }

    /// The column whose sums column `column` shows: its own where a frame maps to it (the
    /// first that could, frame ⌈c·F/C⌉, does), else, with more columns than frames, the column
    /// of the frame on screen at its time (frame ⌊c·F/C⌋).
    fn shown_in(&self, column: u32) -> u32 {
        let (c, frames, columns) = (
            u128::from(column),
            u128::from(self.frame_count),
            u128::from(self.columns),
        );
        let first = (c * frames).div_ceil(columns);
        if first < frames && self.column_of(first as u64) == column {
            return column;
        }
        self.column_of((c * frames / columns) as u64)
    }

    /// A column's sums.
    pub fn column(&self, column: u32) -> &[u64] {
        let bins = self.bins as usize;
        &self.counts[column as usize * bins..(column as usize + 1) * bins]
    }

    /// Frames added to a column.
    pub fn frames_in(&self, column: u32) -> u32 {
        self.frames[column as usize]
    }

    /// The strip as RGBA8, `width` × `height`, top row first: pixel column x shows data column
    /// ⌊x·C/width⌋ (or, where no frame maps to that column, the column of the frame shown at
    /// its time), pixel row y (from the bottom) the bins ⌊y·N/height⌋ up to the next row's.
    /// Columns with no frame counted yet are a translucent grey.
    pub fn render(&self, width: u32, height: u32) -> Vec<u8> {
        let (width, height) = (width.max(1), height.max(1));
        let mut rgba = vec![0u8; width as usize * height as usize * 4];
        let bins = u64::from(self.bins);
        for x in 0..width {
            let column = (u64::from(x) * u64::from(self.columns) / u64::from(width)) as u32;
            let counts = self.column(self.shown_in(column));
            let total: u64 = counts.iter().sum();
            let clip = |bin: usize| total > 0 && counts[bin] as f64 / total as f64 > CLIP_SHARE;
            let (shadows, highlights) = (clip(0), clip(self.bins as usize - 1));
            // Clipping marks take the top and bottom few rows.
            let mark_rows = (height / 16).max(1);
            for y in 0..height {
                let first = u64::from(y) * bins / u64::from(height);
                let end = (u64::from(y + 1) * bins / u64::from(height)).max(first + 1);
                let in_row: u64 = counts[first as usize..end as usize].iter().sum();
                let pixel = if total == 0 {
                    EMPTY
                } else if highlights && y >= height - mark_rows {
                    [HIGHLIGHT_CLIP[0], HIGHLIGHT_CLIP[1], HIGHLIGHT_CLIP[2], 255]
                } else if shadows && y < mark_rows {
                    [SHADOW_CLIP[0], SHADOW_CLIP[1], SHADOW_CLIP[2], 255]
                } else {
                    // Rows hold whole bins, some one more than others: the share per bin keeps
                    // them even.
                    let per_bin = in_row as f64 / total as f64 / (end - first) as f64;
                    let level = (brightness(per_bin * bins as f64, height) * 255.0).round() as u8;
                    [level, level, level, 255]
                };
                let at = ((height - 1 - y) as usize * width as usize + x as usize) * 4;
                rgba[at..at + 4].copy_from_slice(&pixel);
            }
        }
        rgba
    }
}

/// Frames a live input's timeline holds at most (10 minutes at 60 fps, 36 MiB): paused, the
/// window keeps the frame shown however long ago it came, and the ones after it with it.
const LIVE_TIMELINE_FRAMES: usize = 36_000;

/// The luminance histograms of a live input's frames over its timeshift window, oldest first.
#[derive(Debug, Default)]
pub struct LiveTimeline {
    frames: VecDeque<(f64, Vec<u32>)>,
    /// Frames counted in all.
    pub filled: u64,
}

impl LiveTimeline {
    /// Adds a frame's luminance bins; frames older than `oldest` (those the window let go) go.
    pub fn add(&mut self, seconds: f64, luma: Vec<u32>, oldest: Option<f64>) {
        self.frames.push_back((seconds, luma));
        self.filled += 1;
        if self.frames.len() > LIVE_TIMELINE_FRAMES {
            self.frames.pop_front();
        }
        if let Some(oldest) = oldest {
            while self.frames.front().is_some_and(|&(t, _)| t < oldest) {
                self.frames.pop_front();
            }
        }
    }

    /// The frames counted, oldest first: each one's time and luminance bins.
    pub fn frames(&self) -> impl Iterator<Item = (f64, &[u32])> {
        self.frames.iter().map(|(t, luma)| (*t, luma.as_slice()))
    }

    /// The frames counted that the window holds from `oldest` on, in `columns` columns of
    /// `bins` bins.
    pub fn data(&self, columns: u32, bins: u32, oldest: Option<f64>) -> TimelineData {
        let held = self.frames.iter().filter(|(t, _)| oldest.is_none_or(|o| *t >= o));
        let mut data = TimelineData::new(columns, bins, held.clone().count() as u64);
        for (n, (_, luma)) in held.enumerate() {
            data.add(n as u64, luma.iter().copied());
        }
        data.filled = self.filled;
        data
    }
}

/// Brightness (0..1) of a row at `density` (its bins' share of the column's pixels, per bin,
/// times the bin count: 1 where the pixels spread evenly) in a strip `rows` tall: log-like,
/// full at an eighth of the pixels in one row, any pixel at all visible.
fn brightness(density: f64, rows: u32) -> f64 {
    if density <= 0.0 {
        return 0.0;
    }
    let full = f64::from(rows) / 8.0;
    ((1.0 + 16.0 * density).log2() / (1.0 + 16.0 * full).log2()).clamp(0.12, 1.0)
}

/// While the player plays, the fill counts at most this many times the file's frame rate: its
/// decoder, held up by the frames the fill has not taken yet, rests the rest of the time. (The
/// player decodes the file at its own rate meanwhile; paused, the fill goes flat out.)
pub const SPEED_WHILE_PLAYING: f64 = 2.0;

/// What may stop or slow a fill: `stop` ends it, `playing` (the player is playing) holds it to
/// `SPEED_WHILE_PLAYING` times the file's rate.
#[derive(Debug, Default)]
pub struct FillControl {
    pub stop: AtomicBool,
    pub playing: AtomicBool,
}

/// Counts every frame of `source` into `data`, on the GPU `ctx` (headless: with a progress
/// line; the player: none, throttled and stopped through `control`); returns the frames
/// counted.
pub fn fill(
    ctx: &GpuContext,
    source: VideoSource,
    data: &Mutex<TimelineData>,
    progress: Option<Progress>,
    control: &FillControl,
) -> Result<u64, ClipError> {
    let mut last = std::time::Instant::now();
    let interval = std::time::Duration::from_secs_f64(source.info.frame_duration.max(1e-3) / SPEED_WHILE_PLAYING);
    let mut source = source;
    source.set_exact_numbers(true);
    let all = FrameRange { start: 0, end: None };
    hist::gpu_frames_on(
        ctx,
        source,
        all,
        DEFAULT_BINS,
        progress,
        |_, pipeline| Ok(pipeline.engine.histogram_bytes()),
        |pipeline, encoder, buffer| {
            let bytes = pipeline.engine.histogram_bytes();
            encoder.copy_buffer_to_buffer(&pipeline.target.histogram, 0, buffer, 0, bytes);
        },
        |_, bytes, frame: FrameMeta| {
            if control.stop.load(Ordering::Relaxed) {
                return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "stopped"));
            }
            if control.playing.load(Ordering::Relaxed) {
                std::thread::sleep(interval.saturating_sub(last.elapsed()));
            }
            last = std::time::Instant::now();
            let histogram = Histogram::from_interleaved(&crate::gpu::readback::words(bytes));
            let mut data = data.lock().unwrap_or_else(|e| e.into_inner());
            data.add(frame.index, histogram.counts.iter().map(|c| c[3]));
            Ok(())
        },
    )
}

/// The timeline of the video at `path` as RGBA8, `width` columns by `height` rows (the
/// `timeline` command), with a progress line on stderr.
pub fn render_file(
    path: &std::path::Path,
    track: crate::audio::source::AudioTrack,
    (width, height): (u32, u32),
) -> Result<(Vec<u8>, u32), ClipError> {
    // Its columns map the frames of the whole file, counted by a read of their own, and its
    // loudness is read apart: a pipe or a stream is read once (refused before it is opened,
    // where its name says so: a stream that sends nothing would be waited for).
    let once = || {
        ClipError::Decode(format!(
            "'{}' is read once, as it comes (a pipe or a live stream): a timeline maps a whole file's frames; save it to a file first",
            path.display()
        ))
    };
    if crate::video::input::is_stream(path) {
        return Err(once());
    }
    let source = VideoSource::open_for(path, Decoding::Throughput)?;
    if source.info.live {
        return Err(once());
    }
    // A track asked for by number must be there (`auto` goes without sound where there is none).
    crate::audio::source::AudioSource::track_is_there(path, track).map_err(|e| ClipError::Decode(e.to_string()))?;
    let count = frame_count(&source);
    let mut strip = LoudnessStrip::new(width, first_time(&source), source.info.frame_duration, count);
    let data = Mutex::new(TimelineData::new(width, DEFAULT_BINS, count));
    let ctx = GpuContext::new()?;
    let frames = fill(
        &ctx,
        source,
        &data,
        Some(Progress::new(Some(count))),
        &FillControl::default(),
    )?;
    if frames == 0 {
        return Err(ClipError::Decode(format!(
            "'{}' has no frames to put on a timeline",
            path.display()
        )));
    }
    let mut rgba = data
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .render(width, height);
    // With sound, its loudness under the histograms.
    match loudness::fill(path, track, &AtomicBool::new(false), |time, step| strip.add(time, step)) {
        Ok(_) => {
            rgba.extend(strip.render(width, LOUDNESS_ROWS));
            Ok((rgba, height + LOUDNESS_ROWS))
        }
        Err(reason) => {
            log::info!("no loudness on the timeline of '{}': {reason}", path.display());
            Ok((rgba, height))
        }
    }
}

/// The time of a video's first frame, in seconds (where its positions count from).
pub fn first_time(source: &VideoSource) -> f64 {
    let info = &source.info;
    source
        .index()
        .first_pts()
        .or(info.start_pts)
        .map_or(0.0, |pts| info.seconds(pts))
}

/// The frame count a timeline maps by: the index's, once it has read the whole file.
pub fn frame_count(source: &VideoSource) -> u64 {
    let index = source.index();
    index
        .wait_complete()
        .or_else(|| index.frame_count())
        .or(index.estimated_count)
        .unwrap_or(1)
}

/// A live input's window frames counted into `timeline` as `frames` hands them over (calling
/// `took` after each, for more), on the GPU `ctx`, until `control` stops it or the frames end;
/// returns the frames counted.
pub fn fill_live(
    ctx: &GpuContext,
    volume: crate::colour::ColorVolume,
    (frames, took): (Receiver<TappedFrame>, Box<dyn Fn() + Send>),
    timeline: &Mutex<LiveTimeline>,
    window: &LiveWindow,
    control: &FillControl,
) -> Result<u64, ClipError> {
    // The passes for the frames' format, made again where the picture changes shape.
    let mut passes: Option<crate::pipeline::FramePipeline> = None;
    let mut readback: Option<crate::gpu::readback::ReadbackRing<f64>> = None;
    let mut counted = 0;
    loop {
        let tapped = match frames.recv_timeout(Duration::from_millis(100)) {
            Ok(tapped) => tapped,
            Err(RecvTimeoutError::Timeout) if !control.stop.load(Ordering::Relaxed) => continue,
            Err(_) => break,
        };
        if control.stop.load(Ordering::Relaxed) {
            break;
        }
        let format = tapped.format;
        if passes.as_ref().is_none_or(|p| p.ring.format != format) {
            passes = Some(crate::pipeline::FramePipeline::new(
                ctx,
                DEFAULT_BINS,
                format,
                volume,
                1,
            )?);
        }
        let pipeline = passes.as_ref().expect("made above");
        let planes = tapped.frame.planes(format.layout);
        pipeline.ring.slots[0]
            .upload(&ctx.queue, &planes)
            .map_err(|e| ClipError::Decode(format!("uploading a frame for the timeline failed: {e}")))?;
        let bytes = pipeline.engine.histogram_bytes();
        let readback = readback.get_or_insert_with(|| crate::gpu::readback::ReadbackRing::new(&ctx.device, bytes, 1));
        let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("live timeline frame"),
        });
        pipeline.encode_frame(&mut encoder, 0);
        encoder.copy_buffer_to_buffer(&pipeline.target.histogram, 0, readback.next_buffer(), 0, bytes);
        ctx.queue.submit([encoder.finish()]);
        readback.submitted(tapped.frame.seconds);
        // The frame is let go of, and the next asked for, while the GPU counts this one.
        drop(tapped);
        took();
        let luma = readback.read_oldest(ctx, |bytes, seconds| {
            let histogram = Histogram::from_interleaved(&crate::gpu::readback::words(bytes));
            (seconds, histogram.counts.iter().map(|c| c[3]).collect::<Vec<u32>>())
        })?;
        if let Some((seconds, luma)) = luma {
            let oldest = window.read().map(|(oldest, _)| oldest);
            timeline
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .add(seconds, luma, oldest);
            counted += 1;
        }
    }
    Ok(counted)
}

/// What a timeline holds: a file's frames (and its sound's loudness, where it has sound), or a
/// live input's window.
enum Counts {
    File {
        data: Arc<Mutex<TimelineData>>,
        loudness: Arc<sound::SoundFill>,
    },
    Live {
        timeline: Arc<Mutex<LiveTimeline>>,
        window: Arc<LiveWindow>,
    },
}

/// The player's timeline of one file, filled by a thread of its own at low priority: its own
/// demuxer and decoder (a live input: the frames its decode thread keeps), the player's GPU.
/// Stopped (and waited for) when dropped, which happens off the window's thread with the rest
/// of a closed file.
pub struct TimelineFill {
    counts: Counts,
    control: Arc<FillControl>,
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TimelineFill {
    /// The timeline of the file at `path`, with the loudness of its audio stream `track` (None:
    /// none) under it.
    pub fn start(
        path: &std::path::Path,
        track: Option<crate::audio::source::AudioTrack>,
        gpu: &GpuContext,
    ) -> std::io::Result<Self> {
        let data = Arc::new(Mutex::new(TimelineData::new(PLAYER_COLUMNS, DEFAULT_BINS, 1)));
        let loudness = sound::SoundFill::new(path, track);
        let control = Arc::new(FillControl::default());
        let done = Arc::new(AtomicBool::new(false));
        let (path, gpu) = (path.to_path_buf(), gpu.clone());
        let (shared, controls, finished) = (data.clone(), control.clone(), done.clone());
        let sound = Arc::clone(&loudness);
        let thread = std::thread::Builder::new()
            .name("histoplay timeline".into())
            .spawn(move || {
                // The decoder's threads, made from this one, take its priority too.
                crate::video::index::lower_priority();
                let result = VideoSource::open_for(&path, Decoding::Throughput)
                    .map_err(ClipError::from)
                    .and_then(|source| {
                        let count = frame_count(&source);
                        if controls.stop.load(Ordering::Relaxed) {
                            return Ok(0);
                        }
                        *shared.lock().unwrap_or_else(|e| e.into_inner()) =
                            TimelineData::new(PLAYER_COLUMNS, DEFAULT_BINS, count);
                        // The sound's loudness beside the pictures' histograms.
                        sound.shaped(first_time(&source), source.info.frame_duration, count);
                        fill(&gpu, source, &shared, None, &controls)
                    });
                match result {
                    Ok(frames) => log::info!("timeline of {}: {frames} frames", path.display()),
                    Err(e) if controls.stop.load(Ordering::Relaxed) => log::debug!("timeline stopped: {e}"),
                    Err(e) => log::warn!("the timeline of {} stopped: {e}", path.display()),
                }
                finished.store(true, Ordering::Release);
            })?;
        Ok(Self {
            counts: Counts::File { data, loudness },
            control,
            done,
            thread: Some(thread),
        })
    }

    /// The timeline of a live input's timeshift window, its frames handed over by `tap`
    /// (`DecodeThread::tap_window`) as they are kept, those of `window`'s past first.
    pub fn live(
        gpu: &GpuContext,
        volume: crate::colour::ColorVolume,
        tap: (Receiver<TappedFrame>, Box<dyn Fn() + Send>),
        window: Arc<LiveWindow>,
    ) -> std::io::Result<Self> {
        let timeline = Arc::new(Mutex::new(LiveTimeline::default()));
        let control = Arc::new(FillControl::default());
        let done = Arc::new(AtomicBool::new(false));
        let gpu = gpu.clone();
        let (shared, controls, finished, shared_window) =
            (timeline.clone(), control.clone(), done.clone(), window.clone());
        let thread = std::thread::Builder::new()
            .name("histoplay timeline".into())
            .spawn(move || {
                crate::video::index::lower_priority();
                match fill_live(&gpu, volume, tap, &shared, &shared_window, &controls) {
                    Ok(frames) => log::info!("timeline of the live input: {frames} frames"),
                    Err(e) => log::warn!("the live input's timeline stopped: {e}"),
                }
                finished.store(true, Ordering::Relaxed);
            })?;
        Ok(Self {
            counts: Counts::Live { timeline, window },
            control,
            done,
            thread: Some(thread),
        })
    }

    /// Frames counted so far.
    pub fn filled(&self) -> u64 {
        match &self.counts {
            Counts::File { data, loudness } => data.lock().map_or(0, |d| d.filled) + loudness.filled().unwrap_or(0),
            Counts::Live { timeline, .. } => timeline.lock().map_or(0, |t| t.filled),
        }
    }

    /// The strip as RGBA8 (`TimelineData::render`, and with sound `LOUDNESS_ROWS` more rows
    /// of its loudness), its rows, and what is counted in it so far (`filled`).
    pub fn render(&self, width: u32, height: u32) -> Option<(Vec<u8>, u32, u64)> {
        let filled = self.filled();
        let data = match &self.counts {
            Counts::File { data, loudness } => {
                let mut rgba = data.lock().ok()?.render(width, height);
                return Some(match loudness.render(width) {
                    Some(strip) => {
                        rgba.extend(strip);
                        (rgba, height + LOUDNESS_ROWS, filled)
                    }
                    None => (rgba, height, filled),
                });
            }
            Counts::Live { timeline, window } => {
                let oldest = window.read().map(|(oldest, _)| oldest);
                timeline.lock().ok()?.data(PLAYER_COLUMNS, DEFAULT_BINS, oldest)
            }
        };
        Some((data.render(width, height), height, filled))
    }

    /// The player is playing (the fill yields most of its time) or not (it goes flat out).
    pub fn set_playing(&self, playing: bool) {
        self.control.playing.store(playing, Ordering::Relaxed);
    }

    /// Counts the loudness strip's measurements begun (`measure_sound`): a strip drawn of an
    /// earlier one needs drawing again, though it may have as many steps.
    pub fn generation(&self) -> u64 {
        match &self.counts {
            Counts::File { loudness, .. } => loudness.generation(),
            Counts::Live { .. } => 0,
        }
    }

    /// Another audio stream (`#`; None: none) under a file's timeline: its loudness measured
    /// from the start in place of the stream's before.
    pub fn measure_sound(&self, track: Option<crate::audio::source::AudioTrack>) {
        if let Counts::File { loudness, .. } = &self.counts {
            loudness.measure(track);
        }
    }

    /// Whether the fill has ended (every frame counted, or it failed; and the sound's loudness
    /// measured).
    pub fn done(&self) -> bool {
        // (The video's end first: a measurement it began before it is then seen.)
        let video = self.done.load(Ordering::Acquire);
        let measuring = match &self.counts {
            Counts::File { loudness, .. } => loudness.measuring(),
            Counts::Live { .. } => false,
        };
        video && !measuring
    }
}

impl Drop for TimelineFill {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // (After the video's thread, which may start the sound's measurement.)
        if let Counts::File { loudness, .. } = &self.counts {
            loudness.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_fall_in_their_columns() {
        let data = TimelineData::new(4, 16, 10);
        let columns: Vec<u32> = (0..10).map(|n| data.column_of(n)).collect();
        assert_eq!(columns, [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
        assert_eq!(data.column_of(99), 3);
        // More columns than frames: some stay empty.
        let wide = TimelineData::new(8, 16, 3);
        assert_eq!((0..3).map(|n| wide.column_of(n)).collect::<Vec<_>>(), [0, 2, 5]);
    }

    #[test]
    fn each_pixel_column_shows_its_own_columns_frames_where_columns_are_fewer_than_frames() {
        // 100 frames over 7 columns, each frame's luminance in the bin of its column: pixel
        // column x shows column x's frames (14 or 15 of them), the last the frames 86 to 99.
        let mut data = TimelineData::new(7, 8, 100);
        for n in 0..100 {
            let mut bins = [0u32; 8];
            bins[data.column_of(n) as usize] = 10;
            data.add(n, bins);
        }
        assert_eq!(data.column_of(86), 6);
        let strip = data.render(7, 8);
        for x in 0..7u32 {
            let lit: Vec<u32> = (0..8u32)
                .filter(|&y| strip[(((7 - y) * 7 + x) * 4) as usize] > 0)
                .collect();
            // (The shadow and highlight marks take the bottom and top rows of columns 0 and 6.)
            assert_eq!(lit, vec![x], "pixel column {x}");
        }
    }

    #[test]
    fn the_strip_shows_each_columns_bins_bottom_up_and_marks_clipping() {
        let mut data = TimelineData::new(2, 4, 2);
        data.add(0, [100, 0, 0, 0]); // all black: shadows clip
        data.add(1, [0, 0, 50, 50]); // bright: half in the top bin
        let rgba = data.render(2, 4);
        let px = |x: u32, y_from_bottom: u32| {
            let at = (((3 - y_from_bottom) * 2 + x) * 4) as usize;
            [rgba[at], rgba[at + 1], rgba[at + 2]]
        };
        assert_eq!(px(0, 0), SHADOW_CLIP);
        assert_eq!(px(0, 1), [0, 0, 0]);
        assert_eq!(px(1, 3), HIGHLIGHT_CLIP);
        assert!(px(1, 2)[0] > 200, "{:?}", px(1, 2));
        assert_eq!(px(1, 0), [0, 0, 0]);
        // Nothing counted yet: the empty grey.
        let empty = TimelineData::new(2, 4, 2).render(2, 1);
        assert_eq!(&empty[..4], &EMPTY);
        // Three frames over eight columns: columns between frames show the frame before.
        let mut sparse = TimelineData::new(8, 4, 3);
        for n in 0..3 {
            sparse.add(n, [0, 10, 0, 0]);
        }
        let strip = sparse.render(8, 4);
        assert!(
            (0..8).all(|x| strip[((2 * 8 + x) * 4) as usize] > 200),
            "row 1 lit in every column"
        );
    }
}
