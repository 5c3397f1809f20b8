//! Navigation figures: exact seeks to random frames from a file showing its first frame (time to
//! the keyframe preview and to the exact frame), and consecutive back-steps from deep inside a GOP, as a viewer holding `,`.

use super::{memory_mb, spread, Pipeline};
use crate::video::source::SeekTarget;
use anyhow::{bail, Context, Result};
use std::io::Write;

/// Exact seeks to random frames (a fixed xorshift sequence, so runs compare), while playing.
pub fn seeks(pipeline: &mut Pipeline, count: u64, seeks: usize, samples: bool, out: &mut impl Write) -> Result<()> {
    pipeline.decoder.set_paused(false);
    // From the file showing its first frame: what opening costs (a hardware decoder's session
    // starts with the first packet) is `open`'s figure, not the first seek's.
    pipeline.settle(std::time::Instant::now())?;
    let mut state = 0x2545_f491u32;
    let (mut first, mut exact, mut previews) = (Vec::new(), Vec::new(), 0);
    for _ in 0..seeks {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let k = u64::from(state) % count;
        let landed = pipeline.timed_seek(SeekTarget::Frame(k))?;
        if landed.frame.index != k {
            bail!("seek to frame {k} landed on {}", landed.frame.index);
        }
        previews += usize::from(landed.previewed);
        if samples {
            let key = pipeline
                .decoder
                .index()
                .keyframe_numbers()
                .and_then(|ks| ks.into_iter().filter(|&q| q <= k).max());
            let key = key.map_or("?".to_string(), |q| q.to_string());
            eprintln!(
                "seek to frame {k} (keyframe {key}): first frame {:.1} ms{}, exact {:.1} ms",
                landed.first.as_secs_f64() * 1e3,
                if landed.previewed { " (preview)" } else { "" },
                landed.exact.as_secs_f64() * 1e3,
            );
        }
        first.push(landed.first.as_secs_f64() * 1e3);
        exact.push(landed.exact.as_secs_f64() * 1e3);
    }
    writeln!(
        out,
        "exact seek:   {seeks} random frames; first frame on screen {} ({previews} keyframe previews); \
         exact frame {}",
        spread(&first),
        spread(&exact)
    )?;
    Ok(())
}

/// `steps` back-steps in a row, paused, from the last frame of the file's longest GOP, each
/// asked for as soon as the one before is counted.
pub fn backsteps(pipeline: &mut Pipeline, steps: usize, samples: bool, out: &mut impl Write) -> Result<()> {
    let index = pipeline.decoder.index().clone();
    let keyframes = index.keyframe_numbers().context("the file's keyframes are not known")?;
    let count = index.frame_count().context("the file's frames are not counted")?;
    // The longest GOP, and its last frame: the deepest point to step back from.
    let mut bounds: Vec<u64> = keyframes.clone();
    bounds.push(count);
    let (gop_start, gop_end) = bounds
        .windows(2)
        .map(|w| (w[0], w[1]))
        .max_by_key(|&(a, b)| b - a)
        .unwrap_or((0, count));
    let start = gop_end - 1;
    pipeline.decoder.set_paused(true);
    let landed = pipeline.timed_seek(SeekTarget::Frame(start))?;
    let (landing, mut here) = (landed.exact, landed.frame);
    if here.index != start {
        bail!("seek to frame {start} landed on {}", here.index);
    }
    let (rss_before, _) = memory_mb();
    let mut times = Vec::new();
    for _ in 0..steps.min(start as usize) {
        let landed = pipeline.timed_seek(SeekTarget::Before(here.pts))?;
        let (took, frame) = (landed.exact, landed.frame);
        if frame.index + 1 != here.index {
            bail!("a step back from frame {} landed on {}", here.index, frame.index);
        }
        times.push(took.as_secs_f64() * 1e3);
        if samples {
            eprintln!("step back to frame {}: {:.1} ms", frame.index, took.as_secs_f64() * 1e3);
        }
        here = frame;
    }
    let (rss_after, peak) = memory_mb();
    pipeline.decoder.set_paused(false);
    let Some((&first, rest)) = times.split_first() else {
        return Ok(());
    };
    writeln!(
        out,
        "back-step:    {} steps back from frame {start} (GOP {gop_start}..{gop_end}, landed on in {:.1} ms): \
         first {first:.1} ms, then {}; resident {rss_before:.0} → {rss_after:.0} MB, peak {peak:.0} MB",
        times.len(),
        landing.as_secs_f64() * 1e3,
        spread(rest)
    )?;
    Ok(())
}
