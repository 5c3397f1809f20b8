//! Each event's first frame drawn as the player shows it, with its histograms (the `render`
//! command's drawing), as an inline JPEG: the file is opened again after the report's pass and
//! each frame decoded exactly; a frame that can't be had is left out, with the reason.

use super::Facts;
use crate::events::{Event, EventKind};
use crate::gpu::GpuContext;
use crate::headless::offscreen::{self, Counting};
use crate::render::scene::ViewOptions;
use crate::video::source::VideoSource;

/// The most events pictured (the rest are listed without).
const MOST: usize = 60;
/// The pictures' width; their height follows the frame's shape.
const WIDTH: u32 = 320;

/// Per event (in order), its picture as a data URL, or why there is none.
pub fn draw(facts: &Facts, events: &[Event], gpu: Option<&GpuContext>) -> Vec<Result<String, String>> {
    // (A file of sound alone's events are its silences: nothing to picture.)
    if events.is_empty() || !facts.video {
        return Vec::new();
    }
    if facts.live {
        return events
            .iter()
            .map(|_| Err("a live input is not read again".into()))
            .collect();
    }
    let opened;
    let ctx = match gpu {
        Some(ctx) => ctx,
        None => match GpuContext::new() {
            Ok(ctx) => {
                opened = ctx;
                &opened
            }
            Err(e) => return events.iter().map(|_| Err(format!("no GPU to draw on: {e}"))).collect(),
        },
    };
    let mut source = match VideoSource::open(&facts.path) {
        Ok(source) => source,
        Err(e) => return events.iter().map(|_| Err(e.to_string())).collect(),
    };
    // (As shown: turned, its sample aspect applied.)
    let (w, h) = source.info.display_size();
    let height = ((f64::from(WIDTH) * f64::from(h) / f64::from(w.max(1))).round() as u32).clamp(2, 4 * WIDTH) & !1;
    events
        .iter()
        .enumerate()
        .map(|(i, event)| {
            if i >= MOST {
                return Err(format!("only the first {MOST} events are pictured"));
            }
            let frame = match (event.kind, event.frames) {
                (EventKind::Black | EventKind::Freeze, Some((first, _))) => first,
                // A silence's picture is the frame shown as it starts: the last at or before
                // its time, on the stream's timeline (a transport stream's starts at 1.4 s).
                _ => {
                    let (num, den) = source.info.time_base;
                    let pts = (event.start * f64::from(den) / f64::from(num.max(1)) + 1e-6).floor() as i64;
                    source.index().wait_number_at(pts).n
                }
            };
            picture(ctx, &mut source, facts, frame, (WIDTH, height))
        })
        .collect()
}

fn picture(
    ctx: &GpuContext,
    source: &mut VideoSource,
    facts: &Facts,
    frame: u64,
    size: (u32, u32),
) -> Result<String, String> {
    let decoded = crate::headless::decode_frame(source, frame).map_err(|e| e.to_string())?;
    let format = source.info.format;
    let planes = decoded.planes(format.layout);
    let video = offscreen::VideoFrame {
        format,
        volume: source.info.volume,
        frame_peak_nits: source.info.frame_light.get(),
        planes: &planes,
        aspect: source.info.display_aspect,
        quarter_turns: source.info.quarter_turns,
    };
    let counting = Counting::histograms(crate::engine::histogram::DEFAULT_BINS).for_file(facts.log);
    let rgba =
        offscreen::render_video_frame(ctx, video, size, counting, ViewOptions::default()).map_err(|e| e.to_string())?;
    let image = image::RgbaImage::from_raw(size.0, size.1, rgba).ok_or("the drawing has the wrong size")?;
    let mut jpeg = Vec::new();
    image::DynamicImage::ImageRgba8(image)
        .to_rgb8()
        .write_to(&mut std::io::Cursor::new(&mut jpeg), image::ImageFormat::Jpeg)
        .map_err(|e| e.to_string())?;
    Ok(format!("data:image/jpeg;base64,{}", super::page::base64(&jpeg)))
}
