//! Sound for the player. A thread decodes the file's audio a little ahead of the playback clock;
//! the output device's callback plays the samples due at the moment they will be heard,
//! lining the queue up with the clock when the two drift apart or the clock jumps (a seek).
//! The video's clock stays the master: audio follows it, is silent while paused, seeking or
//! at any speed but 1x, and a missing sound device or audio stream only means no sound.

pub mod source;

use crate::player::clock::Clock;
use source::AudioSource;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How far the queue may be off the clock before it is lined up again (dropping or inserting
/// samples clicks, so small jitter is left alone).
pub const TOLERANCE: f64 = 0.04;
/// Seconds of audio decoded ahead of the clock.
const AHEAD: f64 = 0.5;
/// A clock this far outside the decoded span means a seek: the decoder seeks too.
const JUMP: f64 = 0.3;

/// What the audio should follow: the playback clock, and whether it is heard now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cue {
    pub clock: Clock,
    pub audible: bool,
}

/// Volume in percent (0 to 100) and mute, kept by the player across files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Volume {
    pub percent: u32,
    pub muted: bool,
}

impl Default for Volume {
    fn default() -> Self {
        Self {
            percent: 100,
            muted: false,
        }
    }
}

impl Volume {
    pub fn changed_by(self, step: i32) -> Self {
        Self {
            percent: (self.percent as i32 + step).clamp(0, 100) as u32,
            muted: false,
        }
    }

    pub fn gain(self) -> f32 {
        if self.muted {
            0.0
        } else {
            self.percent as f32 / 100.0
        }
    }
}

/// How to line the queue up with the clock before playing `wanted` frames: `silence` frames
/// first where the queue starts after the due time, or `skip` queued frames where it starts
/// before it. Within `TOLERANCE` of each other, neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub silence: usize,
    pub skip: usize,
}

pub fn plan(queue_start: f64, due: f64, rate: u32, queued: usize, wanted: usize) -> Plan {
    let off = queue_start - due;
    let frames = |seconds: f64| (seconds * f64::from(rate)).round() as usize;
    if off > TOLERANCE {
        Plan {
            silence: frames(off).min(wanted),
            skip: 0,
        }
    } else if off < -TOLERANCE {
        Plan {
            silence: 0,
            skip: frames(-off).min(queued),
        }
    } else {
        Plan { silence: 0, skip: 0 }
    }
}

/// Decoded samples, interleaved, the first of them due at `start` seconds of media time.
struct Queue {
    start: f64,
    samples: VecDeque<f32>,
}

struct Shared {
    cue: Mutex<Cue>,
    queue: Mutex<Queue>,
    /// `Volume::gain` as f32 bits.
    gain: AtomicU32,
    stop: AtomicBool,
    rate: u32,
    channels: usize,
}

impl Shared {
    fn frames(&self, queue: &Queue) -> usize {
        queue.samples.len() / self.channels
    }

    fn end(&self, queue: &Queue) -> f64 {
        queue.start + self.frames(queue) as f64 / f64::from(self.rate)
    }
}

/// A file's sound decoded ahead of a clock by a thread of its own, for an output to pull.
pub struct Feed {
    shared: Arc<Shared>,
    decoder: Option<JoinHandle<()>>,
}

impl Feed {
    pub fn start(source: AudioSource, cue: Cue, volume: Volume) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            cue: Mutex::new(cue),
            queue: Mutex::new(Queue {
                start: cue.clock.media_time(Instant::now()),
                samples: VecDeque::new(),
            }),
            gain: AtomicU32::new(volume.gain().to_bits()),
            stop: AtomicBool::new(false),
            rate: source.rate(),
            channels: usize::from(source.channels()),
        });
        let decoder_shared = shared.clone();
        let decoder = std::thread::Builder::new()
            .name("histoplay audio".into())
            .spawn(move || decode(source, &decoder_shared))?;
        Ok(Self {
            shared,
            decoder: Some(decoder),
        })
    }

    /// Follows `cue` from now on (called as the player's clock changes).
    pub fn cue(&self, cue: Cue) {
        if let Ok(mut current) = self.shared.cue.lock() {
            *current = cue;
        }
    }

    pub fn set_volume(&self, volume: Volume) {
        self.shared.gain.store(volume.gain().to_bits(), Ordering::Relaxed);
    }

    /// Fills `out` (interleaved frames) with the sound due at `heard`, when its first frame
    /// reaches the listener, or with silence. Never waits: it runs in the output's callback.
    pub fn fill(&self, out: &mut [f32], heard: Instant) {
        fill(out, &self.shared, heard);
    }

    /// The media times the decoded samples span, from the next one due to just past the last.
    pub fn decoded(&self) -> (f64, f64) {
        self.shared
            .queue
            .lock()
            .map_or((0.0, 0.0), |queue| (queue.start, self.shared.end(&queue)))
    }

    /// `fill` for an output callback on another thread.
    fn filler(&self) -> impl FnMut(&mut [f32], Instant) + Send + 'static {
        let shared = self.shared.clone();
        move |out, heard| fill(out, &shared, heard)
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(decoder) = self.decoder.take() {
            let _ = decoder.join();
        }
    }
}

/// A file's sound on the default output device, for as long as it lives.
pub struct Audio {
    feed: Feed,
    _stream: cpal::Stream,
}

impl Audio {
    /// Starts the sound of `path` following `cue`. None, with the reason logged, where there
    /// is no audio stream or no output device.
    pub fn start(path: &Path, cue: Cue, volume: Volume) -> Option<Self> {
        use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
        if !output_possible() {
            log::info!("no sound card or sound server: playing without sound");
            return None;
        }
        let device = cpal::default_host().default_output_device()?;
        let config = match output_config(&device) {
            Ok(config) => config,
            Err(e) => {
                log::warn!("no sound: the output device has no usable format ({e})");
                return None;
            }
        };
        let source = match AudioSource::open(path, config.sample_rate, config.channels) {
            Ok(source) => source,
            Err(e) => {
                log::info!("no sound: {e}");
                return None;
            }
        };
        let feed = match Feed::start(source, cue, volume) {
            Ok(feed) => feed,
            Err(e) => {
                log::warn!("no sound: {e}");
                return None;
            }
        };
        let mut filler = feed.filler();
        let stream = device.build_output_stream(
            config,
            move |out: &mut [f32], info: &cpal::OutputCallbackInfo| {
                let stamp = info.timestamp();
                let latency = stamp.playback.saturating_duration_since(stamp.callback);
                filler(out, Instant::now() + latency);
            },
            |e| log::warn!("sound output: {e}"),
            None,
        );
        let stream = match stream.and_then(|s| s.play().map(|()| s)) {
            Ok(stream) => stream,
            Err(e) => {
                log::warn!("no sound: the output device can't play ({e})");
                return None;
            }
        };
        Some(Self { feed, _stream: stream })
    }

    pub fn cue(&self, cue: Cue) {
        self.feed.cue(cue);
    }

    pub fn set_volume(&self, volume: Volume) {
        self.feed.set_volume(volume);
    }
}

/// The device's own configuration, in f32 samples where it offers them at its rate (histoplay
/// mixes in f32; ALSA's default device converts anything else).
fn output_config(device: &cpal::Device) -> Result<cpal::StreamConfig, cpal::Error> {
    use cpal::traits::DeviceTrait;
    let default = device.default_output_config()?;
    if default.sample_format() == cpal::SampleFormat::F32 {
        return Ok(default.config());
    }
    let rate = default.sample_rate();
    let in_f32 = device.supported_output_configs().ok().and_then(|mut configs| {
        configs.find(|c| {
            c.sample_format() == cpal::SampleFormat::F32
                && c.channels() == default.channels()
                && (c.min_sample_rate()..=c.max_sample_rate()).contains(&rate)
        })
    });
    Ok(in_f32.map_or_else(|| default.config(), |c| c.with_sample_rate(rate).config()))
}

/// Whether opening a sound device could work: a sound card, a PulseAudio / PipeWire server, or
/// an ALSA configuration of the user's or the system's. Without any, ALSA would only print its
/// complaints about a missing card to stderr.
fn output_possible() -> bool {
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    let card = !cards.trim().is_empty() && !cards.contains("no soundcards");
    let var = |name| std::env::var_os(name).map(std::path::PathBuf::from);
    let server = var("PULSE_SERVER").is_some()
        || var("XDG_RUNTIME_DIR")
            .is_some_and(|dir| dir.join("pulse/native").exists() || dir.join("pipewire-0").exists());
    let configured =
        Path::new("/etc/asound.conf").exists() || var("HOME").is_some_and(|home| home.join(".asoundrc").exists());
    card || server || configured
}

/// The decode thread: keeps `AHEAD` seconds decoded past the clock, and seeks when the clock
/// leaves the decoded span.
fn decode(mut source: AudioSource, shared: &Shared) {
    let rate = f64::from(shared.rate);
    let mut at_end = false;
    // After a seek: the time the first chunk is trimmed to (a seek lands a packet early).
    let mut trim_to = None;
    while !shared.stop.load(Ordering::Relaxed) {
        let Ok(cue) = shared.cue.lock().map(|c| *c) else { return };
        let now = cue.clock.media_time(Instant::now());
        let Ok(mut queue) = shared.queue.lock() else { return };
        let (start, end) = (queue.start, shared.end(&queue));
        // Past the end of the stream there is nothing to seek to; before it, or a jump ahead of
        // what is decoded, the decoder seeks (outside the lock: the callback never waits).
        if now < start - JUMP || (now > end + JUMP && !at_end) {
            queue.samples.clear();
            queue.start = now;
            drop(queue);
            source.seek(now);
            at_end = false;
            trim_to = Some(now);
            continue;
        }
        let end = shared.end(&queue);
        // Samples long past are dropped, so a paused or silent player holds little.
        let stale = ((now - 1.0 - queue.start) * rate).max(0.0) as usize;
        let stale = stale.min(shared.frames(&queue));
        queue.samples.drain(..stale * shared.channels);
        queue.start += stale as f64 / rate;
        drop(queue);
        if at_end || end > now + AHEAD {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        match source.next_chunk() {
            Some(mut chunk) => {
                if let Some(to) = trim_to.take() {
                    let early = (((to - chunk.start) * rate).round().max(0.0) as usize) * shared.channels;
                    let early = early.min(chunk.samples.len());
                    chunk.samples.drain(..early);
                    chunk.start += (early / shared.channels) as f64 / rate;
                }
                let Ok(mut queue) = shared.queue.lock() else { return };
                // A gap or overlap between chunks (damage, a seek's first chunk) restarts the
                // queue at the chunk's time.
                if queue.samples.is_empty() || (chunk.start - shared.end(&queue)).abs() > 0.02 {
                    queue.samples.clear();
                    queue.start = chunk.start;
                }
                queue.samples.extend(chunk.samples);
            }
            None => at_end = true,
        }
    }
}

/// The output callback: the samples due at `heard` (when the first of `out` reaches the
/// speakers), or silence.
fn fill(out: &mut [f32], shared: &Shared, heard: Instant) {
    out.fill(0.0);
    // Never wait in the audio callback: a busy lock means a moment of silence.
    let Ok(cue) = shared.cue.try_lock().map(|c| *c) else {
        return;
    };
    if !cue.audible {
        return;
    }
    let Ok(mut queue) = shared.queue.try_lock() else { return };
    let channels = shared.channels;
    let wanted = out.len() / channels;
    let step = plan(
        queue.start,
        cue.clock.media_time(heard),
        shared.rate,
        shared.frames(&queue),
        wanted,
    );
    let rate = f64::from(shared.rate);
    queue.samples.drain(..step.skip * channels);
    queue.start += step.skip as f64 / rate;
    let played = (wanted - step.silence).min(shared.frames(&queue));
    let gain = f32::from_bits(shared.gain.load(Ordering::Relaxed));
    let from = step.silence * channels;
    for (o, s) in out[from..from + played * channels]
        .iter_mut()
        .zip(queue.samples.drain(..played * channels))
    {
        *o = s * gain;
    }
    queue.start += played as f64 / rate;
}

#[cfg(test)]
mod tests {
    use super::{plan, Plan, Volume};

    #[test]
    fn a_queue_on_time_plays_as_it_is() {
        assert_eq!(plan(10.0, 10.0, 48000, 4800, 480), Plan { silence: 0, skip: 0 });
        assert_eq!(plan(10.03, 10.0, 48000, 4800, 480), Plan { silence: 0, skip: 0 });
        assert_eq!(plan(9.97, 10.0, 48000, 4800, 480), Plan { silence: 0, skip: 0 });
    }

    #[test]
    fn a_late_queue_skips_to_the_clock() {
        // 100 ms behind at 48 kHz: 4800 frames skipped, at most what is queued.
        assert_eq!(plan(9.9, 10.0, 48000, 48000, 480), Plan { silence: 0, skip: 4800 });
        assert_eq!(plan(9.0, 10.0, 48000, 1000, 480), Plan { silence: 0, skip: 1000 });
    }

    #[test]
    fn an_early_queue_waits_with_silence() {
        // 50 ms ahead: 2400 frames of silence, at most one buffer's worth.
        assert_eq!(plan(10.05, 10.0, 48000, 48000, 4800), Plan { silence: 2400, skip: 0 });
        assert_eq!(plan(12.0, 10.0, 48000, 48000, 480), Plan { silence: 480, skip: 0 });
    }

    #[test]
    fn volume_steps_stay_in_range_and_unmute() {
        let v = Volume::default();
        assert_eq!(v.changed_by(10).percent, 100);
        assert_eq!(v.changed_by(-30).percent, 70);
        assert_eq!(v.changed_by(-300).percent, 0);
        let muted = Volume { muted: true, ..v };
        assert_eq!(muted.gain(), 0.0);
        assert!(!muted.changed_by(-10).muted);
        assert_eq!(v.changed_by(-50).gain(), 0.5);
    }
}
