//! Playback paced at the file's rate against a simulated display, alone or with the window's
//! audio meters beside it: frames shown, late and dropped.

use super::offscreen::Pipeline;
use crate::player::deinterlaced::Deinterlaced;
use crate::player::playback::FrameSource;
use crate::player::stats::percentile;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::source::SeekTarget;
use anyhow::{bail, Result};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Plays `seconds` of the file at its own rate against a simulated display refreshing at
/// `refresh_hz`: at each refresh the newest frame that is due is converted, counted and drawn
/// (offscreen), and the GPU work is waited for as a present would be. A frame whose due time
/// passes without it being shown is dropped, whether or not it ever reached the queue.
pub(super) fn paced(
    pipeline: &mut Pipeline,
    seconds: f64,
    refresh_hz: f64,
    label: &str,
    out: &mut impl Write,
) -> Result<()> {
    let interval = Duration::from_secs_f64(1.0 / refresh_hz);
    // (Through the deinterlacing, where it is on: its pictures are what is paced.)
    source(pipeline).seek(SeekTarget::Frame(0));
    let mut queue: std::collections::VecDeque<ReadyFrame> = Default::default();
    let mut ended = false;
    let mut shown: Vec<u64> = Vec::new();
    let mut lateness = Vec::new();
    // The frame shown latest against its due time, and when.
    let mut worst: Option<(u64, f64)> = None;
    let mut frame_times = Vec::new();
    let mut origin: Option<(Instant, f64)> = None;
    let mut tick = Instant::now();
    let mut last_present: Option<Instant> = None;
    let deadline = Instant::now() + Duration::from_secs_f64(seconds + 1.0);
    let mut end_time = None;
    while Instant::now() < deadline {
        tick += interval;
        std::thread::sleep(tick.saturating_duration_since(Instant::now()));
        while let Some(event) = source(pipeline).try_event() {
            match event {
                DecoderEvent::Frame(f) if f.generation == source(pipeline).generation() => queue.push_back(f),
                DecoderEvent::Frame(f) => source(pipeline).release(f.slot),
                DecoderEvent::EndOfStream { .. } => ended = true,
                DecoderEvent::Failed { message, .. } => bail!(message),
                DecoderEvent::Reshaped(_) => bail!("the decoder asked for a ring of another shape"),
            }
        }
        let Some(front) = queue.front() else {
            if ended {
                break;
            }
            continue;
        };
        // The clock starts with the first frame shown.
        let (start, start_pts) = *origin.get_or_insert((tick, front.seconds));
        let due = |f: &ReadyFrame| start + Duration::from_secs_f64((f.seconds - start_pts).max(0.0));
        if due(front) > tick {
            continue;
        }
        // The newest due frame is shown; older due ones are passed over.
        let mut pick = queue.pop_front().expect("front exists");
        while queue.front().is_some_and(|f| due(f) <= tick) {
            source(pipeline).release(pick.slot);
            pick = queue.pop_front().expect("front exists");
        }
        pipeline.process(&pick);
        pipeline.ctx.wait_idle()?;
        let presented = Instant::now();
        let late = presented.saturating_duration_since(due(&pick)).as_secs_f64() * 1e3;
        if lateness.iter().all(|&l| l < late) {
            worst = Some((pick.index, (presented - start).as_secs_f64()));
        }
        lateness.push(late);
        if let Some(last) = last_present {
            frame_times.push((presented - last).as_secs_f64() * 1e3);
        }
        last_present = Some(presented);
        shown.push(pick.index);
        end_time = Some(start_pts + (presented - start).as_secs_f64());
        if pick.seconds - start_pts >= seconds {
            break;
        }
    }
    // What is left goes back (the next run plays on the same decoder).
    for frame in queue.drain(..) {
        source(pipeline).release(frame.slot);
    }
    // Every frame due by the last present should have been shown; at field rate each of its
    // fields, the second half a frame after the first.
    let field_rate = pipeline.decoder.field_rate();
    let info = &pipeline.decoder.info;
    let index = pipeline.decoder.index();
    let due_frames = match (origin, end_time) {
        (Some((_, start_pts)), Some(end)) => {
            let first = index.number_at(info.pts_at(start_pts)).n;
            let last = index.number_at(info.pts_at(end)).n;
            let frames = last - first + 1;
            let last_time = index.pts_of(last).map_or(end, |pts| info.seconds(pts));
            match field_rate {
                true => 2 * frames - u64::from(last_time + info.frame_duration / 2.0 > end + 1e-9),
                false => frames,
            }
        }
        _ => 0,
    };
    let dropped = due_frames.saturating_sub(shown.len() as u64);
    let unit = if field_rate { "fields" } else { "frames" };
    writeln!(
        out,
        "{label:<13} {} {unit} shown of {due_frames} due, {dropped} dropped, at the clip's rate on a \
         {refresh_hz:.0} Hz tick; frame time p50 {}, p99 {}; lateness vs due p50 {}, max {}{}",
        shown.len(),
        milliseconds(percentile(&frame_times, 0.5)),
        milliseconds(percentile(&frame_times, 0.99)),
        milliseconds(percentile(&lateness, 0.5)),
        milliseconds(percentile(&lateness, 1.0)),
        worst.map_or(String::new(), |(frame, at)| format!(" (frame {frame}, {at:.2} s in)")),
    )?;
    Ok(())
}

/// The pipeline's frames as the player takes them: deinterlaced, where that is on.
fn source(pipeline: &mut Pipeline) -> &mut Deinterlaced<DecodeThread> {
    &mut pipeline.decoder
}

/// `paced`, with the window's audio meters measuring the file's sound beside it (their own
/// decode of the sound, following a clock that plays from the start); where the file has no
/// sound, a line says so.
pub(super) fn paced_with_meters(
    pipeline: &mut Pipeline,
    path: &Path,
    seconds: f64,
    refresh_hz: f64,
    out: &mut impl Write,
) -> Result<()> {
    use crate::audio::metering::{MeterCue, MeterState, Metering};
    let info = &pipeline.decoder.info;
    let start = info.start_pts.map_or(0.0, |pts| info.seconds(pts));
    let cue = MeterCue {
        clock: crate::clock::Clock::new(Instant::now(), start, false),
        seeks: 0,
        loop_start: None,
    };
    let owned = path.to_owned();
    let metering = Metering::start(
        move || crate::audio::source::AudioSource::open_as_is(&owned, Default::default()),
        cue,
    )?;
    paced(pipeline, seconds, refresh_hz, "  + meters:", out)?;
    match metering.state() {
        MeterState::Measuring { reading, .. } => writeln!(
            out,
            "              (the meters measured {:.1} s of {} channels meanwhile)",
            reading.time - start,
            reading.channels.len()
        )?,
        MeterState::NoSound(why) => writeln!(out, "              (no meters: {why})")?,
        MeterState::Opening => writeln!(out, "              (the meters were still opening the sound)")?,
    }
    Ok(())
}

/// A figure in milliseconds, or `none` where there is nothing to take it from (one frame shown
/// has no frame time).
fn milliseconds(figure: Option<f64>) -> String {
    figure.map_or_else(|| "none".to_string(), |ms| format!("{ms:.2} ms"))
}
