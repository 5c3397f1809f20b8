//! Decoding alone, the ceiling the pipeline's rates are measured against: as the player decodes
//! (`Decoding::Playing`) and as `report`, `hist`, `compare` and the timeline do (`Throughput`);
//! and how the benchmarks name a stream.

use crate::threads::{NamedTime, ThreadTimes};
use crate::video::source::{Decoding, VideoSource};
use crate::video::stages;
use anyhow::Result;
use std::path::Path;
use std::time::{Duration, Instant};

/// Decodes every frame on this thread, doing nothing else: the ceiling for the pipeline
/// (`Decoding::Playing`) or for `report`, `hist`, `compare` and the timeline (`Throughput`).
pub(super) fn decode_only(path: &Path, decoding: Decoding) -> Result<(u64, Duration)> {
    decode_counted(path, decoding).map(|(frames, time, _)| (frames, time))
}

/// What a run of decoding alone used: the CPU time of each of the process's threads, its wall
/// time, and where the decoding thread's time went (`stages::DECODE`, ms a frame).
#[derive(Default)]
pub(super) struct DecodeUse {
    pub(super) threads: Vec<NamedTime>,
    pub(super) wall: f64,
    pub(super) stages: String,
}

/// `decode_only`, with what it used (the decoder's threads counted before they end with it).
fn decode_counted(path: &Path, decoding: Decoding) -> Result<(u64, Duration, DecodeUse)> {
    let before = ThreadTimes::now();
    let mut source = VideoSource::open_for(path, decoding)?;
    let stages_before = stages::read(&stages::DECODE);
    let start = Instant::now();
    let mut frames = 0;
    while source.next_frame()?.is_some() {
        frames += 1;
    }
    let elapsed = start.elapsed();
    let used = DecodeUse {
        threads: ThreadTimes::now().since(&before),
        wall: elapsed.as_secs_f64(),
        stages: stages::describe(&stages::DECODE, &stages_before, frames),
    };
    Ok((frames, elapsed, used))
}

/// Frames in the file and the best of two rates decoding it alone, in frames per second, with
/// what that run used.
pub(super) fn decode_rate(path: &Path, decoding: Decoding) -> Result<(u64, f64, DecodeUse)> {
    let mut best = 0.0f64;
    let mut frames = 0;
    let mut used = None;
    for _ in 0..2 {
        let (n, time, this) = decode_counted(path, decoding)?;
        frames = n;
        let rate = n as f64 / time.as_secs_f64();
        if used.is_none() || rate > best {
            (best, used) = (rate, Some(this));
        }
    }
    Ok((frames, best, used.unwrap_or_default()))
}

/// The best of two rates decoding `path` for throughput, as `report`, `hist`, `compare` and
/// the timeline decode it; `playing_fps` where that is the same decoder (software decoding).
pub(super) fn throughput_rate(path: &Path, playing_fps: f64) -> Result<f64> {
    let hardware = VideoSource::open(path)?.info.hwdec.is_some();
    Ok(if hardware {
        decode_rate(path, Decoding::Throughput)?.1
    } else {
        playing_fps
    })
}

/// What `decode only` adds for a decoder that runs differently for throughput.
pub(super) fn throughput_text(playing_fps: f64, throughput_fps: f64) -> String {
    if throughput_fps == playing_fps {
        String::new()
    } else {
        format!(
            "; {throughput_fps:.1} fps as report, hist, compare and the timeline decode (two frame threads feeding the hardware decoder)"
        )
    }
}

/// A stream as the benchmarks name it: `h264 1920x1080 yuv420p, software decoding`.
pub(super) fn stream_text(info: &crate::video::source::VideoInfo) -> String {
    format!(
        "{} {}x{} {}, {} decoding",
        info.codec,
        info.format.width,
        info.format.height,
        info.pixel_format,
        info.hwdec.unwrap_or("software")
    )
}
