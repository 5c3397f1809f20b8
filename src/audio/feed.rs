//! A file's sound decoded ahead of the playback clock by a thread of its own, time-stretched to
//! the clock's speed, for an output callback to pull without ever waiting.

use super::source::AudioSource;
use super::stretch::Stretch;
use super::sync::{Output, Queue};
use super::{Cue, Volume, MAX_AUDIBLE_SPEED, MIN_AUDIBLE_SPEED};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Wall seconds of sound decoded ahead of the clock.
const AHEAD: f64 = 0.5;
/// A clock this far outside the decoded span means a seek: the decoder seeks too.
const JUMP: f64 = 0.3;
/// Decoded chunks that start this far from where the one before ended (damage) begin the
/// queue afresh.
const GAP: f64 = 0.02;

struct Shared {
    cue: Mutex<Cue>,
    queue: Mutex<Queue>,
    output: Mutex<Output>,
    /// `Volume::gain` as f32 bits.
    gain: AtomicU32,
    stop: AtomicBool,
    /// The media time the stream ends at, as f64 bits, once its decoder has read to its end;
    /// NaN before.
    end: AtomicU64,
}

/// The decoded sound and its output state, shared by the decode thread and the callback.
pub struct Feed {
    shared: Arc<Shared>,
    decoder: Option<JoinHandle<()>>,
    /// Makes the decode thread's blocking reads give up, to stop it.
    interrupt: crate::video::input::Interrupt,
}

impl Feed {
    pub fn start(source: AudioSource, cue: Cue, volume: Volume) -> std::io::Result<Self> {
        let (rate, channels) = (source.rate(), usize::from(source.channels()));
        let speed = audible_speed(cue);
        let shared = Arc::new(Shared {
            cue: Mutex::new(cue),
            queue: Mutex::new(Queue::new(cue.clock.media_time(Instant::now()), speed, rate, channels)),
            output: Mutex::new(Output::default()),
            gain: AtomicU32::new(volume.gain().to_bits()),
            stop: AtomicBool::new(false),
            end: AtomicU64::new(f64::NAN.to_bits()),
        });
        let decoder_shared = shared.clone();
        let interrupt = source.interrupter();
        let decoder = std::thread::Builder::new()
            .name("histoplay audio".into())
            .spawn(move || decode(source, &decoder_shared))?;
        Ok(Self {
            shared,
            decoder: Some(decoder),
            interrupt,
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

    /// Fills `out` (interleaved frames) with the sound heard from `heard` on (when its first
    /// frame reaches the listener), or with silence. It runs in the output's callback: it
    /// waits for nothing but locks held for microseconds.
    pub fn fill(&self, out: &mut [f32], heard: Instant) {
        fill(out, &self.shared, heard);
    }

    /// The media times the decoded samples span, from the next one due to just past the last.
    pub fn decoded(&self) -> (f64, f64) {
        self.shared
            .queue
            .lock()
            .map_or((0.0, 0.0), |queue| (queue.start, queue.end()))
    }

    /// The media time the sound is known to go on to: its end, once its decoder has read that
    /// far, else the end of what it has decoded.
    pub fn sound_until(&self) -> f64 {
        let end = f64::from_bits(self.shared.end.load(Ordering::Relaxed));
        if end.is_nan() {
            self.decoded().1
        } else {
            end
        }
    }

    /// The media time heard at `now`, while the sound plays on its own clock.
    pub fn heard_at(&self, now: Instant) -> Option<f64> {
        self.shared.output.lock().ok()?.heard_at(now)
    }

    /// How many times the output has aligned with the clock (start-up, seeks, pauses, and any
    /// time it ran dry): a count that stays put while sound plays uninterrupted.
    pub fn alignments(&self) -> u64 {
        self.shared.output.lock().map_or(0, |output| output.alignments)
    }

    /// `fill` for an output callback on another thread.
    pub(super) fn filler(&self) -> impl FnMut(&mut [f32], Instant) + Send + 'static {
        let shared = self.shared.clone();
        move |out, heard| fill(out, &shared, heard)
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.interrupt.interrupt();
        if let Some(decoder) = self.decoder.take() {
            let _ = decoder.join();
        }
    }
}

/// The speed the sound is stretched to for `cue` (clamped to the audible range; outside it the
/// cue is inaudible anyway).
fn audible_speed(cue: Cue) -> f64 {
    cue.clock.speed().clamp(MIN_AUDIBLE_SPEED, MAX_AUDIBLE_SPEED)
}

/// The output callback's work. It takes the locks rather than trying them: every holder keeps
/// them for microseconds, and a buffer of silence because one was held (by a thread the
/// scheduler had just preempted, on a busy machine) would be a click.
fn fill(out: &mut [f32], shared: &Shared, heard: Instant) {
    let (Ok(cue), Ok(mut queue), Ok(mut output)) =
        (shared.cue.lock().map(|c| *c), shared.queue.lock(), shared.output.lock())
    else {
        out.fill(0.0);
        return;
    };
    let gain = f32::from_bits(shared.gain.load(Ordering::Relaxed));
    output.fill(out, &mut queue, cue, heard, gain);
}

/// The decode thread: keeps AHEAD seconds decoded and stretched past the clock, and starts
/// over (a seek) when the clock leaves the decoded span or changes speed.
fn decode(mut source: AudioSource, shared: &Shared) {
    let rate = f64::from(source.rate());
    let channels = usize::from(source.channels());
    let mut stretch = Stretch::new(source.rate(), channels);
    // The queue starts at the cue's speed, and so does the stretch.
    if let Ok(queue) = shared.queue.lock() {
        stretch.set_speed(queue.speed);
    }
    let mut stretched = Vec::new();
    let mut at_end = false;
    // After a seek: the time the first chunk is trimmed to (a seek lands a packet early).
    let mut trim_to = None;
    // Media time where the stretch's input began, frames it has given since, and where the
    // next chunk should start.
    let mut origin: Option<f64> = None;
    let mut produced = 0u64;
    let mut next_in: Option<f64> = None;
    // The earliest a seek could go (a live input's sound kept from there on): a clock before
    // it waits for it instead of seeking again.
    let mut earliest: Option<f64> = None;
    while !shared.stop.load(Ordering::Relaxed) {
        let Ok(cue) = shared.cue.lock().map(|c| *c) else { return };
        let now = cue.clock.media_time(Instant::now());
        let speed = audible_speed(cue);
        let Ok(mut queue) = shared.queue.lock() else { return };
        let (start, end) = (queue.start, queue.end());
        // A new speed, a clock before what is decoded, or one that jumped ahead of it (but not
        // past the end of the stream, where there is nothing to seek to): start over from the
        // clock (seeking outside the lock: the callback never waits).
        let respeed = (queue.speed - speed).abs() > 1e-9;
        let before_kept = earliest.is_some_and(|t| start <= t + GAP);
        if respeed || (now < start - JUMP && !before_kept) || (now > end + JUMP && !at_end) {
            queue.restart(now, speed);
            drop(queue);
            source.seek(now);
            stretch.set_speed(speed);
            stretch.reset();
            (at_end, trim_to, origin, produced, next_in, earliest) = (false, Some(now), None, 0, None, None);
            shared.end.store(f64::NAN.to_bits(), Ordering::Relaxed);
            continue;
        }
        // Samples long past are dropped, so a paused or silent player holds little.
        let stale = ((now - 1.0 - queue.start) / queue.frame_time()).max(0.0) as usize;
        queue.skip(stale);
        let enough = queue.end() > now + AHEAD * speed;
        drop(queue);
        if at_end || enough {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let Some(mut chunk) = source.next_chunk() else {
            // The end: what the stretch still holds is the stream's last moment.
            at_end = true;
            stretched.clear();
            stretch.flush(&mut stretched);
            if let Ok(mut queue) = shared.queue.lock() {
                queue.samples.extend(stretched.drain(..));
                shared.end.store(queue.end().to_bits(), Ordering::Relaxed);
            }
            continue;
        };
        if let Some(to) = trim_to.take() {
            if chunk.start > to + JUMP {
                // The sound starts after where the seek asked for: nothing is kept before it.
                earliest = Some(chunk.start);
            }
            let early = (((to - chunk.start) * rate).round().max(0.0) as usize) * channels;
            let early = early.min(chunk.samples.len());
            chunk.samples.drain(..early);
            chunk.start += (early / channels) as f64 / rate;
        }
        let frames = chunk.samples.len() / channels;
        // A gap or overlap between chunks (damage) starts the stretch afresh at the chunk.
        if next_in.is_some_and(|t| (chunk.start - t).abs() > GAP) {
            stretch.reset();
            origin = None;
        }
        next_in = Some(chunk.start + frames as f64 / rate);
        let origin_time = *origin.get_or_insert_with(|| {
            produced = 0;
            chunk.start
        });
        stretched.clear();
        stretch.process(&chunk.samples, &mut stretched);
        // Output frame k of the stretch plays input time origin + k·speed/rate.
        let first = origin_time + produced as f64 * speed / rate;
        produced += (stretched.len() / channels) as u64;
        let Ok(mut queue) = shared.queue.lock() else { return };
        if queue.samples.is_empty() || (queue.end() - first).abs() > GAP {
            queue.restart(first, speed);
        }
        queue.samples.extend(stretched.drain(..));
    }
}
