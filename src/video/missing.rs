//! What the frame index finds missing from a file as it reads it to its end: frames a demuxer
//! dropped as damage (found from the picture's cadence, `cadence::LostFrames`), and a file that
//! ends before what its container lists or states. Said as warnings, of the file by its path.

use ffmpeg_next as ffmpeg;
use std::path::Path;

/// The picture's cadence watched for frames lost, where a file keeps one to lose them from.
pub struct LostFromFile(Option<super::cadence::LostFrames>);

impl LostFromFile {
    /// For stream `stream_index` of `input`. Not in MP4 and QuickTime, whose sample tables
    /// keep every frame's place (a frame lost there is one the decoder does not give out), nor
    /// where `continuity` watches the cadence already (timestamps that may start over).
    pub fn new(input: &ffmpeg::format::context::Input, stream_index: usize, continuity: bool) -> Self {
        let watched = !continuity && !lists_every_frame(input);
        Self(
            watched
                .then(|| input.stream(stream_index))
                .flatten()
                .map(|stream| super::cadence::LostFrames::new(stream.time_base())),
        )
    }

    /// The picture's next packet. Only while each packet says its duration: a file that does
    /// not (a browser's or a phone's recording at a rate that varies) keeps no cadence to lose
    /// frames from. `stopped`: the reading stopped (nothing more is said).
    pub fn packet(&mut self, packet: &ffmpeg::Packet, stopped: bool, path: &Path) {
        if packet.duration() <= 0 || stopped {
            self.0 = None;
        }
        if let Some(lost) = &mut self.0 {
            lost.packet(packet, 0, path.display());
        }
    }

    /// The demuxer read past damage before the next packet.
    pub fn damaged(&mut self) {
        if let Some(lost) = &mut self.0 {
            lost.damaged();
        }
    }

    /// The file was read to its end.
    pub fn finish(&mut self, path: &Path) {
        if let Some(lost) = &mut self.0 {
            lost.finish(path.display());
        }
    }
}

/// Damage a demuxer read past as it read a file's packets (FFmpeg logged an error: a Matroska
/// element it could not read, an MP4 sample cut short), warned of in its first places. Where
/// the read found no packet after it, the file's end is what could not be read (cut short, or
/// padded after its last packet).
#[derive(Debug, Default)]
pub struct ContainerDamage(u32);

/// Places of damage each warned of.
const DAMAGE_SAID: u32 = 3;

impl ContainerDamage {
    /// FFmpeg's line on damage it read past to the packet read, or to the end (`at_end`).
    pub fn note(&mut self, line: &str, at_end: bool, path: &Path) {
        self.0 += 1;
        if self.0 <= DAMAGE_SAID {
            match at_end {
                true => log::warn!("{}: unreadable data at the end of the file: {line}", path.display()),
                false => log::warn!("{}: damaged file, reading on: {line}", path.display()),
            }
        } else if self.0 == DAMAGE_SAID + 1 {
            log::warn!(
                "{}: more damage in the file; further warnings suppressed",
                path.display()
            );
        }
    }
}

/// Whether `input`'s container lists every frame of its streams (MP4 and QuickTime's sample
/// tables).
fn lists_every_frame(input: &ffmpeg::format::context::Input) -> bool {
    input.format().name().split(',').any(|name| name == "mov")
}

/// Says where a file read to its end holds less of stream `stream_index` than its container
/// states: a container that lists its frames (MP4, QuickTime, AVI) or states the stream's
/// duration (Matroska and WebM's `DURATION` tag) and ends before them was cut short. What is
/// there plays. `packets`: the stream's packets read; `span`: the first and last frames' pts;
/// `ticks_per_frame`: a frame's duration in the stream's time base.
pub fn say_if_cut_short(
    path: &Path,
    input: &ffmpeg::format::context::Input,
    stream_index: usize,
    (packets, span, ticks_per_frame): (u64, Option<(i64, i64)>, f64),
) {
    let Some(stream) = input.stream(stream_index) else {
        return;
    };
    let listed = stream.frames().max(0) as u64;
    if listed > packets {
        log::warn!(
            "{}: the file ends early: {packets} of the {listed} frames its container lists are in it",
            path.display()
        );
        return;
    }
    let (Some(stated), Some((first, last))) = (super::demux::tagged_duration(&stream), span) else {
        return;
    };
    let tick = f64::from(stream.time_base());
    let frame = ticks_per_frame * tick;
    // FFmpeg's Matroska muxer (its files say `Lavf` in their ENCODER tag) states where the
    // stream ends, so that a stream starting late ends later; others state how long it is.
    let ffmpegs = input.metadata().get("encoder").is_some_and(|e| e.starts_with("Lavf"));
    let stops = match ffmpegs {
        true => last as f64 * tick + frame,
        false => (last - first) as f64 * tick + frame,
    };
    // Two frames' slack: muxers round the duration, and some count the last frame's time.
    if stated - stops > 2.0 * frame + 0.05 {
        log::warn!(
            "{}: the file ends early: its video stops at {stops:.2} s of the {stated:.2} s its container states",
            path.display()
        );
    }
}
