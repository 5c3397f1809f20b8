//! Sound for the player. A thread decodes the file's audio a little ahead of the playback
//! clock and time-stretches it at speeds other than 1x (pitch kept); the output device's
//! callback plays it. Once aligned with the clock (start-up, seeks, pauses), the sound plays
//! continuously and the picture follows it (`sync.rs`); it is silent while paused, seeking or
//! stepping, and a missing sound device or audio stream only means no sound.

pub mod astats;
pub mod device;
mod feed;
pub mod layout;
pub mod loudness;
pub mod metering;
pub mod meters;
pub mod qc;
pub mod source;
pub mod stretch;
pub mod sync;

pub use feed::Feed;

use crate::clock::Clock;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Speeds at which the sound plays (time-stretched away from 1x), as mpv's range for
/// pitch-corrected playback; outside it, silence.
pub const MIN_AUDIBLE_SPEED: f64 = 0.25;
pub const MAX_AUDIBLE_SPEED: f64 = 4.0;

/// Whether the sound plays at `speed` (within the audible range).
pub fn audible_at(speed: f64) -> bool {
    (MIN_AUDIBLE_SPEED..=MAX_AUDIBLE_SPEED).contains(&speed)
}

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
    /// The volume `step` percent up or down; muted stays muted, as in mpv.
    pub fn changed_by(self, step: i32) -> Self {
        Self {
            percent: (self.percent as i32).saturating_add(step).clamp(0, 100) as u32,
            muted: self.muted,
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

/// A file's sound on an output device, for as long as it lives.
pub struct Audio {
    feed: Feed,
    _stream: cpal::Stream,
}

impl Audio {
    /// Starts the sound of `path` following `cue`, on the default output or the one named
    /// `device` (`--audio-device`). None, with the reason logged, where there is no audio
    /// stream or no output.
    pub fn start(
        path: &Path,
        track: source::AudioTrack,
        cue: Cue,
        volume: Volume,
        device: Option<&str>,
    ) -> Option<Self> {
        Self::start_from(
            |rate, channels| source::AudioSource::open(path, track, rate, channels),
            cue,
            volume,
            device,
        )
    }

    /// As `start`, the sound from what `open` makes for the output's rate and channel count
    /// (a file opened again, or a live input's packets handed on).
    pub fn start_from(
        open: impl FnOnce(u32, u16) -> Result<source::AudioSource, source::AudioError>,
        cue: Cue,
        volume: Volume,
        device: Option<&str>,
    ) -> Option<Self> {
        use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
        let env = device::Environment::read();
        if device.is_none() && !env.output_possible() {
            log::info!("{}: playing without sound", env.describe());
            return None;
        }
        device::quiet_alsa();
        let host = cpal::default_host();
        let output = match device {
            None => host.default_output_device(),
            Some(wanted) => {
                let devices: Vec<cpal::Device> = host.output_devices().map(Iterator::collect).unwrap_or_default();
                let names: Vec<String> = devices.iter().map(device_name).collect();
                match device::pick(wanted, &names) {
                    Ok(name) => devices.into_iter().find(|d| device_name(d) == *name),
                    Err(e) => {
                        log::warn!("no sound: {e}");
                        return None;
                    }
                }
            }
        };
        let Some(output) = output else {
            log::warn!("no sound: no output device ({})", env.describe());
            return None;
        };
        let config = match output_config(&output) {
            Ok(config) => config,
            Err(e) => {
                log::warn!("no sound: cannot use the output device ({e})");
                return None;
            }
        };
        let source = match open(config.sample_rate, config.channels) {
            Ok(source) => source,
            // (An audio stream asked for by number that the file lacks is worth a warning.)
            Err(e @ source::AudioError::NoTrack { .. }) => {
                log::warn!("no sound: {e}");
                return None;
            }
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
        let fed = Arc::new(FedGauge::new());
        let stream = output.build_output_stream(
            config,
            {
                let fed = Arc::clone(&fed);
                move |out: &mut [f32], info: &cpal::OutputCallbackInfo| {
                    let stamp = info.timestamp();
                    let latency = stamp.playback.saturating_duration_since(stamp.callback);
                    let now = Instant::now();
                    fed.note(now);
                    filler(out, now + latency);
                }
            },
            {
                let mut errors = OutputErrors::default();
                move |e| match errors.level(fed.since_fed(Instant::now())) {
                    log::Level::Warn => log::warn!("sound output: {e} (the output stopped taking sound)"),
                    level => log::log!(level, "sound output: {e}"),
                }
            },
            None,
        );
        let stream = match stream.and_then(|s| s.play().map(|()| s)) {
            Ok(stream) => stream,
            Err(e) => {
                log::warn!("no sound: the output device can't play ({e})");
                return None;
            }
        };
        let description = output
            .description()
            .map_or_else(|_| String::new(), |d| format!(" ({d})"));
        log::info!(
            "sound: '{}'{description}, {} Hz, {} channels",
            device_name(&output),
            config.sample_rate,
            config.channels
        );
        Some(Self { feed, _stream: stream })
    }

    pub fn cue(&self, cue: Cue) {
        self.feed.cue(cue);
    }

    pub fn set_volume(&self, volume: Volume) {
        self.feed.set_volume(volume);
    }

    /// The media time the sound is known to go on to (`Feed::sound_until`).
    pub fn sound_until(&self) -> f64 {
        self.feed.sound_until()
    }

    /// The media time being heard at `now`, while the sound plays on its own clock.
    pub fn heard_at(&self, now: Instant) -> Option<f64> {
        self.feed.heard_at(now)
    }
}

/// When the output last asked for sound, readable from its error callback.
struct FedGauge {
    start: Instant,
    /// Nanoseconds from `start` to the last request; 0 for none yet.
    last: AtomicU64,
}

impl FedGauge {
    fn new() -> Self {
        Self {
            start: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn note(&self, now: Instant) {
        let nanos = now.saturating_duration_since(self.start).as_nanos().max(1);
        self.last
            .store(u64::try_from(nanos).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// How long since the output last asked for sound, or since the stream started.
    fn since_fed(&self, now: Instant) -> Duration {
        let last = self.start + Duration::from_nanos(self.last.load(Ordering::Relaxed));
        now.saturating_duration_since(last)
    }
}

/// How long an output may go without asking for sound before its errors mean it has stopped.
const OUTPUT_STALL: Duration = Duration::from_millis(750);

/// How an output's errors are told. ALSA's pulse plugin reports an I/O error from
/// `snd_pcm_avail_delay` at the first periods of many streams and plays on exactly: while the
/// output keeps asking for sound, its errors are for debugging. Once it has asked for nothing
/// for `OUTPUT_STALL`, the error is the reason the sound stopped: said once as a warning, then
/// quietly again, since a stuck output can report the same error for every period.
#[derive(Debug, Default)]
struct OutputErrors {
    warned: bool,
}

impl OutputErrors {
    /// The level to log an error at, given how long the output has not asked for sound.
    fn level(&mut self, since_fed: Duration) -> log::Level {
        if since_fed < OUTPUT_STALL || self.warned {
            log::Level::Debug
        } else {
            self.warned = true;
            log::Level::Warn
        }
    }
}

/// A device's name as `--audio-device` takes it: ALSA's PCM name (`default`, `pulse`,
/// `hw:CARD=...`), else its description.
fn device_name(device: &cpal::Device) -> String {
    use cpal::traits::DeviceTrait;
    device
        .id()
        .map(|id| id.id().to_string())
        .unwrap_or_else(|_| device.to_string())
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

#[cfg(test)]
mod tests {
    use super::{OutputErrors, Volume, OUTPUT_STALL};
    use std::time::Duration;

    #[test]
    fn output_errors_while_the_sound_plays_are_for_debugging() {
        // The pulse plugin's start: four errors, the output asking for sound all along.
        let mut errors = OutputErrors::default();
        for since_fed in [0, 5, 12, 20] {
            assert_eq!(errors.level(Duration::from_millis(since_fed)), log::Level::Debug);
        }
        // An output that stopped: one warning, then quiet again, whatever follows.
        assert_eq!(errors.level(OUTPUT_STALL), log::Level::Warn);
        assert_eq!(errors.level(OUTPUT_STALL * 4), log::Level::Debug);
        assert_eq!(errors.level(Duration::ZERO), log::Level::Debug);
    }

    #[test]
    fn volume_steps_stay_in_range_and_unmute() {
        let v = Volume::default();
        assert_eq!(v.changed_by(10).percent, 100);
        assert_eq!(v.changed_by(-30).percent, 70);
        assert_eq!(v.changed_by(-300).percent, 0);
        // Steps as large as a binding may ask for.
        assert_eq!(v.changed_by(-30).changed_by(i32::MAX).percent, 100);
        assert_eq!(v.changed_by(i32::MIN).percent, 0);
        let muted = Volume { muted: true, ..v };
        assert_eq!(muted.gain(), 0.0);
        assert!(muted.changed_by(-10).muted);
        assert_eq!(muted.changed_by(-10).percent, 90);
        assert_eq!(v.changed_by(-50).gain(), 0.5);
    }
}
