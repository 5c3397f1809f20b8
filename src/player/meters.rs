//! The audio meters' part (Alt+m, `--meters`): per-channel level meters and the loudness panel
//! at the window's right edge, measured by a thread of their own from the open file's sound
//! (`audio::metering`) as the playback clock goes; shown or not from file to file.

use super::commands::Command;
use super::media::Media;
use super::part::Effects;
use crate::audio::metering::{MeterCue, MeterState, Metering};
use crate::audio::source::AudioSource;
use std::time::{Duration, Instant};

/// How often a shown panel looks for new readings while nothing else redraws (paused).
const LOOK_AGAIN: Duration = Duration::from_millis(50);

/// What the OSD draws of the meters.
#[derive(Clone, Debug, PartialEq)]
pub struct MetersView {
    pub state: MeterState,
    /// The loudness target, LUFS.
    pub target: f64,
    /// The integration is over the A-B loop's passes.
    pub looped: bool,
}

pub struct MeterPanel {
    on: bool,
    target: f64,
    /// The open file's meters (by its number), while shown.
    metering: Option<(u64, Metering)>,
    /// The state last drawn.
    drawn: Option<MeterState>,
}

impl MeterPanel {
    pub fn new(on: bool, target: f64) -> Self {
        Self {
            on,
            target,
            metering: None,
            drawn: None,
        }
    }

    /// The sound playing is another of the file's audio streams (`Media::audio_track`): the
    /// meters read it from where playback is.
    pub fn follow_track(&mut self) {
        self.metering = None;
    }

    pub fn command(&mut self, command: &Command) -> Effects {
        let mut fx = Effects::default();
        if *command == Command::ToggleMeters {
            self.on = !self.on;
            if !self.on {
                self.metering = None;
            }
            fx.redraw = true;
        }
        fx
    }

    /// Keeps the meters on the open file and its clock (as the window schedules).
    pub fn follow(&mut self, media: &Media) {
        if !self.on {
            return;
        }
        let cue = cue(media);
        if self.metering.as_ref().is_none_or(|(file, _)| *file != media.file) {
            let (path, track) = (media.info.path.clone(), media.audio_track);
            let open = match (media.info.live, media.audio_tap.clone()) {
                (false, _) => Box::new(move || match track {
                    Some(track) => AudioSource::open_as_is(&path, track),
                    None => Err(crate::audio::source::AudioError::Open {
                        path,
                        reason: "none of its audio streams plays (# picks one)".into(),
                    }),
                }) as Box<dyn FnOnce() -> _ + Send>,
                (true, Some(tapped)) => Box::new(move || AudioSource::fed_as_is(&path, tapped)),
                (true, None) => Box::new(move || {
                    Err(crate::audio::source::AudioError::Open {
                        path,
                        reason: "a live input's sound is read only when played (not with --no-audio)".into(),
                    })
                }),
            };
            match Metering::start(open, cue) {
                Ok(metering) => self.metering = Some((media.file, metering)),
                Err(e) => {
                    log::warn!("no audio meters: {e}");
                    self.on = false;
                }
            }
            return;
        }
        if let Some((_, metering)) = &self.metering {
            metering.cue(cue);
        }
    }

    /// What to draw of `media`'s meters, while shown.
    pub fn view(&mut self, media: &Media) -> Option<MetersView> {
        self.drawn = self.state();
        let ab = media.playback.ab_loop();
        Some(MetersView {
            looped: ab.a.is_some() && ab.b.is_some(),
            state: self.drawn.clone()?,
            target: self.target,
        })
    }

    fn state(&self) -> Option<MeterState> {
        match (&self.metering, self.on) {
            (Some((_, metering)), true) => Some(metering.state()),
            (None, true) => Some(MeterState::Opening),
            (_, false) => None,
        }
    }

    /// Whether the readings changed since drawn; while shown, when to look again is pushed on
    /// `wake`.
    pub fn wake(&self, now: Instant, wake: &mut Vec<Option<Instant>>) -> bool {
        if !self.on {
            return self.drawn.is_some();
        }
        wake.push(Some(now + LOOK_AGAIN));
        self.state() != self.drawn
    }

    /// The frame log's field: ` meters=t:4.000;FL:-20.0,-23.0,-20.0,-19.9,0;...;M:-23.0;S:-23.0;
    /// I:-23.0;LRA:0.0;TP:-19.9` (per channel its peak meter, RMS, held sample peak, held true
    /// peak, clipped; then the loudness, `-` where there is none), or `meters=opening`,
    /// `meters=none`.
    pub fn log_field(&self) -> Option<String> {
        Some(match self.drawn.as_ref()? {
            MeterState::Opening => "opening".to_string(),
            MeterState::NoSound(_) => "none".to_string(),
            MeterState::Measuring { reading, sound_here } => {
                let db = |v: f64| match v.is_finite() {
                    true => format!("{v:.1}"),
                    false => "-".to_string(),
                };
                let lufs = |v: Option<f64>| v.map_or("-".to_string(), db);
                let mut parts = vec![format!("t:{:.3}", reading.time)];
                for c in &reading.channels {
                    let (peak, rms, hold, tp) = (db(c.peak), db(c.rms), db(c.hold), db(c.true_peak));
                    parts.push(format!("{}:{peak},{rms},{hold},{tp},{}", c.name, u8::from(c.clipped)));
                }
                let l = &reading.loudness;
                parts.push(format!("M:{}", lufs(l.momentary)));
                parts.push(format!("S:{}", lufs(l.short_term)));
                parts.push(format!("I:{}", lufs(l.integrated)));
                parts.push(format!("LRA:{}", lufs(l.range)));
                parts.push(format!("TP:{}", db(l.max_true_peak)));
                if !sound_here {
                    parts.push("gap".to_string());
                }
                parts.join(";")
            }
        })
    }
}

/// What the meters follow in `media`: its clock, and the A-B loop's start while one is set
/// (as media time).
fn cue(media: &Media) -> MeterCue {
    let playback = &media.playback;
    let ab = playback.ab_loop();
    MeterCue {
        clock: playback.audio_cue().clock,
        seeks: playback.generation(),
        loop_start: ab.a.zip(ab.b).map(|(a, _)| playback.timeline().start + a),
    }
}
