//! The meters following playback: a thread of their own decodes the sound's own channels (not
//! the output's mix) and measures it up to the playback clock, whatever the speed and whether
//! or not there is a device to hear it on. A seek (or a clock that jumps far) starts the short
//! readings over; a seek back to an A-B loop's start starts the integration over too, so the
//! integrated loudness is the loop's. Where the stream has no sound (it starts late, has a gap,
//! or has ended) the meters measure silence and say so.

use super::meters::{channel_names, Meters, Reading};
use super::source::{AudioError, AudioSource, Chunk};
use crate::clock::Clock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the meters follow: the playback clock, a count of the seeks made (each starts the
/// short readings over), and the A-B loop's start, while a loop is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeterCue {
    pub clock: Clock,
    pub seeks: u64,
    pub loop_start: Option<f64>,
}

/// How the meters stand.
#[derive(Clone, Debug, PartialEq)]
pub enum MeterState {
    /// The sound is being opened.
    Opening,
    /// Measuring: the readings, and whether the stream has sound where the clock is.
    Measuring { reading: Reading, sound_here: bool },
    /// There is nothing to measure, and why.
    NoSound(String),
}

/// A clock this far behind what was measured, or ahead of it, starts over as a seek does
/// (seconds): a clock that only steps back a little (a pause settling on the frame shown)
/// is waited for.
const BACK_JUMP: f64 = 2.0;
const AHEAD_JUMP: f64 = 1.5;
/// Chunks this far from where the measured sound ended leave a gap (or overlap) between.
const GAP: f64 = 0.02;
/// How often the thread looks at the clock.
const TICK: Duration = Duration::from_millis(10);
/// How far before the clock the sound is sought.
const SEEK_EARLY: f64 = 0.5;
/// The most channels metered.
const MAX_CHANNELS: usize = 64;
/// A clock this close to the loop's start after a jump is the loop going round.
const LOOP_NEAR: f64 = 0.25;

struct Shared {
    cue: Mutex<MeterCue>,
    state: Mutex<MeterState>,
    stop: AtomicBool,
    interrupt: Mutex<Option<crate::video::input::Interrupt>>,
}

/// The meters' thread; dropping it stops the thread without waiting for it.
pub struct Metering {
    shared: Arc<Shared>,
}

impl Metering {
    /// Measures the sound `open` gives (on the thread: opening a file may take a while),
    /// following `cue`.
    pub fn start(
        open: impl FnOnce() -> Result<AudioSource, AudioError> + Send + 'static,
        cue: MeterCue,
    ) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            cue: Mutex::new(cue),
            state: Mutex::new(MeterState::Opening),
            stop: AtomicBool::new(false),
            interrupt: Mutex::new(None),
        });
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("histoplay meters".into())
            .spawn(move || {
                let state = match open() {
                    Ok(source) => measure(source, &thread_shared),
                    Err(AudioError::NoAudio(_)) => MeterState::NoSound("no sound in this file".into()),
                    Err(e) => MeterState::NoSound(e.to_string()),
                };
                if let Ok(mut shared_state) = thread_shared.state.lock() {
                    if !matches!(state, MeterState::Opening) {
                        *shared_state = state;
                    }
                }
            })?;
        Ok(Self { shared })
    }

    pub fn cue(&self, cue: MeterCue) {
        if let Ok(mut current) = self.shared.cue.lock() {
            *current = cue;
        }
    }

    pub fn state(&self) -> MeterState {
        self.shared
            .state
            .lock()
            .map_or(MeterState::Opening, |state| state.clone())
    }
}

impl Drop for Metering {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(interrupt) = self.shared.interrupt.lock().ok().and_then(|i| i.clone()) {
            interrupt.interrupt();
        }
    }
}

/// The thread's work until stopped; the state it ends in (Opening: leave it as it is).
fn measure(mut source: AudioSource, shared: &Shared) -> MeterState {
    if let Ok(mut interrupt) = shared.interrupt.lock() {
        *interrupt = Some(source.interrupter());
    }
    let channels = usize::from(source.channels());
    if channels > MAX_CHANNELS {
        return MeterState::NoSound(format!("{channels} channels: the meters show {MAX_CHANNELS} at most"));
    }
    let layout = source.layout();
    let names = channel_names(layout, channels, source.channels_placed());
    let weights = super::loudness::source_weights(&source);
    let rate = source.rate();
    let mut meters = match Meters::new(rate, names, weights) {
        Ok(meters) => meters,
        Err(e) => return MeterState::NoSound(e),
    };
    let mut follow = Follow {
        rate: f64::from(rate),
        channels,
        pending: None,
        at_end: false,
        measured: None,
        seeks: None,
        sound_here: false,
        follows: None,
        samples: Vec::new(),
    };
    while !shared.stop.load(Ordering::Relaxed) {
        let Ok(cue) = shared.cue.lock().map(|c| *c) else { break };
        let now = cue.clock.media_time(Instant::now());
        if let Err(e) = follow.catch_up(now, cue, &mut source, &mut meters) {
            return MeterState::NoSound(e);
        }
        // (Made before the lock is taken: the window reads it every frame.)
        let measuring = MeterState::Measuring {
            reading: meters.reading(),
            sound_here: follow.sound_here,
        };
        if let Ok(mut state) = shared.state.lock() {
            *state = measuring;
        }
        std::thread::sleep(TICK);
    }
    MeterState::Opening
}

/// The sound measured so far, and what is decoded beyond it.
struct Follow {
    rate: f64,
    channels: usize,
    /// A decoded chunk and how many of its frames were measured.
    pending: Option<(Chunk, usize)>,
    at_end: bool,
    /// The media time the measured sound reaches, and the seeks counted then.
    measured: Option<f64>,
    seeks: Option<u64>,
    /// The last sound measured was the stream's (not silence in its place).
    sound_here: bool,
    /// Where the last chunk begun ends by its stamp: a chunk stamped there follows on from it.
    follows: Option<f64>,
    samples: Vec<f64>,
}

impl Follow {
    /// Measures the sound from where it stands to `now`, seeking first after a seek or where
    /// the clock jumped.
    fn catch_up(
        &mut self,
        now: f64,
        cue: MeterCue,
        source: &mut AudioSource,
        meters: &mut Meters,
    ) -> Result<(), String> {
        let sought = self.seeks.is_some_and(|n| n != cue.seeks);
        // (Sound played fast runs further ahead of what is measured before that counts.)
        let ahead = AHEAD_JUMP * cue.clock.speed().max(1.0);
        let jumped = sought || self.measured.is_none_or(|t| now < t - BACK_JUMP || now > t + ahead);
        self.seeks = Some(cue.seeks);
        if jumped {
            if self.measured.is_some() {
                match cue.loop_start.is_some_and(|a| (now - a).abs() < LOOP_NEAR) {
                    true => meters.restart(),
                    false => meters.restart_windows(),
                }
            }
            // (A little before: a demuxer may land a seek on the packet after the time asked
            // for. What comes before the clock is passed over.)
            source.seek(now - SEEK_EARLY);
            (self.pending, self.at_end, self.measured, self.follows) = (None, false, Some(now), None);
            meters.moved_to(now);
        }
        let Some(mut to) = self.measured else { return Ok(()) };
        // A little at a time, so a long stretch of silence is no large buffer.
        let most = (self.rate / 10.0).max(1.0) as usize;
        while to < now - 0.5 / self.rate {
            if self.pending.is_none() && !self.at_end {
                match source.next_chunk() {
                    Some(chunk) => self.pending = Some((chunk, 0)),
                    None => self.at_end = true,
                }
            }
            let wanted = (((now - to) * self.rate).round() as usize).clamp(1, most);
            let Some((chunk, used)) = &mut self.pending else {
                // Past the end: silence.
                self.feed_silence(wanted, &mut to, meters)?;
                continue;
            };
            let frames = chunk.samples.len() / self.channels;
            // A chunk stamped where the last one ended follows on from it, whatever the stamps'
            // rounding (its samples are the next ones). Any other is placed by its stamp: after
            // a seek, a gap or an overlap in the stream.
            let begun = *used == 0;
            let follows_on = self.follows.is_some_and(|end| (chunk.start - end).abs() <= GAP);
            if begun && !follows_on {
                if chunk.start > to + GAP {
                    // The sound starts later, or has a gap: silence until it comes.
                    let gap = (((chunk.start - to) * self.rate).round() as usize).clamp(1, wanted);
                    self.feed_silence(gap, &mut to, meters)?;
                    self.follows = None;
                    continue;
                }
                // Before what was measured, or partly (a seek lands a packet early): from
                // where the measured sound ends, to the sample.
                *used = ((to - chunk.start) * self.rate).round().max(0.0) as usize;
                if *used >= frames {
                    self.pending = None;
                    continue;
                }
            }
            if begun {
                self.follows = Some(chunk.start + frames as f64 / self.rate);
            }
            let take = wanted.min(frames - *used);
            let slice = &chunk.samples[*used * self.channels..(*used + take) * self.channels];
            self.samples.clear();
            // (A sample that is no number would leave the loudness filters none for good.)
            let number = |x: f32| if x.is_finite() { f64::from(x) } else { 0.0 };
            self.samples.extend(slice.iter().map(|&x| number(x)));
            *used += take;
            // (Measured time runs on from where it stood: small jitter in the chunks' stamps
            // doesn't shift it.)
            to += take as f64 / self.rate;
            if !self.sound_here {
                // Sound after silence put in its place: not a step in the signal.
                meters.discontinuity();
            }
            meters.add(&self.samples, to)?;
            self.sound_here = true;
            if *used == frames {
                self.pending = None;
            }
        }
        self.measured = Some(to);
        Ok(())
    }

    fn feed_silence(&mut self, frames: usize, to: &mut f64, meters: &mut Meters) -> Result<(), String> {
        self.samples.clear();
        self.samples.resize(frames * self.channels, 0.0);
        *to += frames as f64 / self.rate;
        self.sound_here = false;
        meters.add(&self.samples, *to)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 kHz sine at -6 dBFS, 48 kHz mono PCM in Matroska (its stamps rounded to the
    /// millisecond, its packets 1024 samples: 21.333 ms).
    fn sine() -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("histoplay-metering-sine-{}.mkv", std::process::id()));
        let made = std::process::Command::new("ffmpeg")
            .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
            .arg("aevalsrc=0.5011872*sin(2*PI*1000*t):s=48000:d=6")
            .args(["-c:a", "pcm_s16le"])
            .arg(&path)
            .status()
            .expect("ffmpeg");
        assert!(made.success());
        path
    }

    /// Follows a clock from `start` to 5 s in 10 ms ticks (a seek to `seek` on the way), and
    /// gives the maximum true peak measured.
    fn max_true_peak(path: &std::path::Path, start: f64, seek: Option<f64>) -> f64 {
        let mut source = AudioSource::open_as_is(path, Default::default()).expect("the sine opens");
        let mut meters = Meters::new(48_000, vec!["FC".into()], vec![1.0]).expect("meters");
        let mut follow = Follow {
            rate: 48_000.0,
            channels: 1,
            pending: None,
            at_end: false,
            measured: None,
            seeks: None,
            sound_here: false,
            follows: None,
            samples: Vec::new(),
        };
        let mut cue = MeterCue {
            clock: Clock::new(Instant::now(), 0.0, false),
            seeks: 0,
            loop_start: None,
        };
        let mut now = start;
        while now < 5.0 {
            if let Some(at) = seek.filter(|&at| now > 2.0 && cue.seeks == 0 && at > 0.0) {
                (now, cue.seeks) = (at, 1);
            }
            follow.catch_up(now, cue, &mut source, &mut meters).expect("measured");
            now += 0.01;
        }
        meters.reading().loudness.max_true_peak
    }

    #[test]
    fn a_steady_sine_reads_its_true_peak_wherever_the_clock_starts_or_a_seek_lands() {
        let path = sine();
        // (Starting just short of the stamps' tolerance, and seeks landing between packets.)
        for (start, seek) in [
            (0.0, None),
            (0.0197, None),
            (0.0199, None),
            (0.0, Some(2.9693)),
            (0.0198, Some(3.0198)),
        ] {
            let peak = max_true_peak(&path, start, seek);
            assert!((peak + 6.0).abs() < 0.05, "from {start} (seek {seek:?}): {peak} dBFS");
        }
        let _ = std::fs::remove_file(path);
    }
}
