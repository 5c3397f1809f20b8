//! `histoplay [FILE|DIR]...`: the player's options, its key bindings (mpv's, with the viewer's
//! input.conf applied) and the sample it plays when given no file.

use super::args::{
    parse_byte_size, parse_size, parse_speed, AdjustArgs, CompareArgs, GraticuleArgs, LutArgs, MarkArgs, ViewArgs,
};
use crate::player::bindings::Bindings;
use crate::player::{self, PlayerOptions};
use crate::render::scene::Quads;
use crate::settings::watch_later::WatchLater;
use crate::video::source::hardware::Hwdec;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The player's options.
#[derive(clap::Args)]
pub struct Args {
    /// Videos (or directories of them, or M3U and PLS playlists) to play in a window, in order
    /// (default: media/sample-540p.mp4).
    pub files: Vec<PathBuf>,
    /// Start the playlist over after its last file.
    #[arg(long)]
    pub loop_playlist: bool,
    /// Loop each file (the `L` key).
    #[arg(long)]
    pub loop_file: bool,
    /// Key bindings in mpv's input.conf syntax (default: ~/.config/histoplay/input.conf, if it
    /// exists).
    #[arg(long)]
    pub input_conf: Option<PathBuf>,
    #[command(flatten)]
    pub adjust: AdjustArgs,
    #[command(flatten)]
    pub lut: LutArgs,
    #[command(flatten)]
    pub deinterlace: super::args::DeinterlaceArgs,
    /// Write one line per presented frame to this file (for tests and benchmarks).
    #[arg(long, hide = true)]
    pub frame_log: Option<PathBuf>,
    /// Play without sound.
    #[arg(long)]
    pub no_audio: bool,
    /// The volume to start at, 0 to 100 percent (as mpv's --volume; `9` and `0` change it).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub volume: u32,
    /// Start with the sound muted: `--mute`, or `--mute=yes` / `--mute=no` with the `=` (as
    /// mpv's --mute; `m` turns it on and off).
    #[arg(long, value_name = "yes|no", num_args = 0..=1, require_equals = true, action = clap::ArgAction::Set, default_value = "no", default_missing_value = "yes", value_parser = parse_yes_no)]
    pub mute: bool,
    /// Which audio stream of each file plays and is metered: its number from 1 (as mpv's
    /// --aid), `auto` for the one FFmpeg picks, `no` for none (as --no-audio).
    #[arg(long, value_name = "N|auto|no", default_value = "auto", value_parser = parse_aid)]
    pub aid: Aid,
    /// Write the first input's packets to this file as they are read, without re-encoding
    /// (the container from its extension, as `ffmpeg -i INPUT -c copy FILE`): capture a live
    /// input while watching it. The file is finished when the player quits (q, or a signal).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Write the first input's report as its frames arrive (a live input): `report`'s values,
    /// in QCTools' format (`.qctools.xml.gz`), or as JSON Lines (`.jsonl`) or CSV (`.csv`) by
    /// the name; flushed frame by frame, so it reads up to its last frame whatever happens.
    #[arg(long, value_name = "FILE")]
    pub record_report: Option<PathBuf>,
    /// Watch the first input's frames against these limits as they arrive (a live input; as
    /// `report --fail-on`): the window warns of each run of frames beyond them as it starts, and
    /// stderr lists it as it ends.
    #[arg(long, value_parser = crate::cli::report::limits::Limits::parse, value_name = "LIMITS")]
    pub fail_on: Option<crate::cli::report::limits::Limits>,
    /// Append each run of frames beyond --fail-on's limits to this file as it ends, one JSON
    /// line each (as `report --alert-log`).
    #[arg(long, value_name = "FILE", requires = "fail_on")]
    pub alert_log: Option<PathBuf>,
    /// Memory for decoded frames kept for instant steps back and forth: 1GiB by default, at
    /// most half the machine's memory; takes KiB, MiB, GiB (or K, M, G), KB, MB, GB, or bytes.
    #[arg(long, value_parser = parse_byte_size, default_value = "1GiB")]
    pub cache_size: usize,
    /// Playback speed to start at, 0.015625 to 64 (as mpv's --speed).
    #[arg(long, default_value_t = 1.0, value_parser = parse_speed)]
    pub speed: f64,
    /// Show the audio meters and loudness panel from the start (Alt+m shows and hides them).
    #[arg(long)]
    pub meters: bool,
    /// The loudness the meters' panel marks as the target, LUFS: -23 (EBU R128), -24 (ATSC
    /// A/85), -16 or -14 (streaming).
    #[arg(long, default_value_t = -23.0, value_parser = parse_loudness_target, allow_hyphen_values = true)]
    pub loudness_target: f64,
    /// The sound output to play on, by its ALSA name (`default`, `pulse`, `hw:CARD=...`) or a
    /// part of it that names one; the log (RUST_LOG=info) says which was chosen.
    #[arg(long)]
    pub audio_device: Option<String>,
    /// Decoding on the GPU's video decoder (NVDEC, VA-API), for 8- and 10-bit 4:2:0 video: `auto` above
    /// 1080p, `yes` at any size, `nvdec` or `vaapi` to pick one, `no` for software only. The
    /// pictures are the same either way.
    #[arg(long, global = true, value_enum, default_value = "auto")]
    pub hwdec: Hwdec,
    /// GPU memory for NVDEC frames kept on the GPU (the decoded frames of a stream, the
    /// frame cache's among them, when they stay there): by default an eighth of the GPU's
    /// memory, 256MiB to 8GiB. Sizes as --cache-size.
    #[arg(long, global = true, value_parser = parse_byte_size)]
    pub gpu_cache_size: Option<usize>,
    #[command(flatten)]
    pub compare: CompareArgs,
    #[command(flatten)]
    pub marks: MarkArgs,
    #[command(flatten)]
    pub graticule: GraticuleArgs,
    #[command(flatten)]
    pub view: ViewArgs,
    /// The histogram quads drawn: both, rgb, luminance or none (key h cycles them).
    #[arg(long, value_parser = Quads::parse, default_value = "both")]
    pub histograms: Quads,
    /// Show the histogram timeline above the seek bar (key Tab).
    #[arg(long)]
    pub timeline: bool,
    /// Check the files for photosensitive epilepsy as they play (key Alt+p): a lamp with the
    /// frame shown's state, a row of flashes a second under the timeline, the flashing
    /// regions over the picture (as `histoplay pse`).
    #[arg(long)]
    pub pse: bool,
    /// The rules of --pse: bt1702, ofcom or wcag.
    #[arg(long, value_enum, default_value_t = crate::pse::Standard::Bt1702)]
    pub pse_standard: crate::pse::Standard,
    /// Where to start the first file: seconds, or [[HH:]MM:]SS[.fff] (as mpv's --start).
    #[arg(long, value_parser = parse_time, value_name = "TIME")]
    pub start: Option<f64>,
    /// Start paused, on the first frame shown (as mpv's --pause); Space plays.
    #[arg(long)]
    pub pause: bool,
    /// Start fullscreen (as mpv's --fs, or --fullscreen; key f).
    #[arg(long = "fs", visible_alias = "fullscreen")]
    pub fullscreen: bool,
    /// The window's size, WxH in pixels (as mpv's --geometry; default: the size it had when
    /// histoplay last quit, else fitted to the picture).
    #[arg(long, value_parser = parse_size, value_name = "WxH")]
    pub geometry: Option<(u32, u32)>,
    #[command(flatten)]
    pub settings: super::settings::SettingsArgs,
}

/// Seconds, or `[[HH:]MM:]SS[.fff]`.
pub fn parse_time(text: &str) -> Result<f64, String> {
    let mut seconds = 0.0;
    for part in text.trim().split(':') {
        let value: f64 = part
            .parse()
            .map_err(|_| format!("'{text}' is not a time (seconds, or HH:MM:SS.fff)"))?;
        seconds = seconds * 60.0 + value;
    }
    match seconds.is_finite() && seconds >= 0.0 && text.split(':').count() <= 3 {
        true => Ok(seconds),
        false => Err(format!(
            "'{text}' is not a time from the start (seconds, or HH:MM:SS.fff)"
        )),
    }
}

/// The frame cache's memory, as asked (`--cache-size`), but no more than half the machine's
/// memory, with a warning: frames kept beyond that would push the rest of the machine out.
fn frame_cache_bytes(asked: usize) -> usize {
    let Some(memory) = crate::video::memory::machine_memory() else {
        return asked;
    };
    let most = usize::try_from(memory / 2).unwrap_or(usize::MAX);
    if asked > most {
        log::warn!(
            "--cache-size {} MiB is more than half this machine's memory ({} MiB): {} MiB kept",
            asked >> 20,
            memory >> 20,
            most >> 20
        );
    }
    asked.min(most)
}

impl Args {
    /// Plays the files in a window until it closes.
    pub fn run(self) -> Result<()> {
        let marks = self.marks.settings()?;
        let read: Vec<&std::path::Path> = self.files.iter().map(PathBuf::as_path).collect();
        let written = [&self.record, &self.record_report, &self.frame_log, &self.alert_log];
        for output in written.into_iter().flatten() {
            crate::cli::output::refuse_input(output, &read)?;
        }
        let (bindings, mut conf_warnings) = input_bindings(self.input_conf.as_deref())?;
        conf_warnings.extend(self.settings.warnings.iter().cloned());
        // (Read before the signals are blocked: a LUT that is a FIFO with no writer waits.)
        let lut = self.lut.load()?;
        // Before the player starts any thread, so that none of them dies of the signals.
        let signals = crate::quit_signals::QuitSignals::install().map(std::sync::Arc::new);
        let qc = (self.record_report.is_some() || self.fail_on.is_some()).then(|| {
            let options = crate::cli::report::alongside::QcOptions {
                output: self.record_report,
                limits: self.fail_on.unwrap_or_default(),
                alert_log: self.alert_log,
            };
            let beyond = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let shared = std::sync::Arc::clone(&beyond);
            player::QcHook {
                start: std::sync::Arc::new(move |source: &mut crate::video::source::VideoSource| {
                    crate::cli::report::alongside::start(source, &options, std::sync::Arc::clone(&shared))
                }),
                beyond,
            }
        });
        let view = crate::render::scene::ViewOptions {
            quads: self.histograms,
            timeline: self.timeline,
            pse: self.pse,
            pse_standard: self.pse_standard,
            ..self.view.view()
        };
        let watch_later = super::settings::watch_later_dir(&self.settings).map(|dir| WatchLater {
            dir,
            options: (self.settings.watch_later_options.split(','))
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect(),
            on_quit: self.settings.save_position_on_quit,
            lut_file: self
                .lut
                .lut
                .as_ref()
                .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())),
        });
        let options = PlayerOptions {
            view,
            start: self.start,
            paused: self.pause,
            fullscreen: self.fullscreen,
            window_size: self.geometry,
            kept_size: crate::settings::state::window_size(),
            watch_later,
            frame_log: self.frame_log,
            qc,
            bench_seconds: None,
            sound: !self.no_audio,
            audio_track: self.aid.0,
            volume: crate::audio::Volume {
                percent: self.volume,
                muted: self.mute,
            },
            record: self.record,
            cache_bytes: frame_cache_bytes(self.cache_size),
            speed: self.speed,
            audio_device: self.audio_device,
            meters: self.meters,
            loudness_target: self.loudness_target,
            bindings,
            conf_warnings,
            loop_playlist: self.loop_playlist,
            loop_file: self.loop_file,
            adjustments: self.adjust.adjustments(),
            lut,
            scopes_on: self.lut.scopes_on,
            input_colour: self.lut.input_colour,
            signals,
            compare: self.compare.options()?,
            marks,
            graticule: (self.graticule.waveform_scale, self.graticule.graticule),
            deinterlace: self.deinterlace.filter(),
            deinterlacer: self.deinterlace.deinterlacer,
        };
        play(self.files, options)
    }
}

/// The player's keys, in `--help` and the manual page (docs/reference/keys.md has them all).
pub const KEYS_HELP: &str = "\
Keys (mpv's defaults wherever histoplay has the function; F1 in the window lists them all):
  Space, p        pause / play             . ,         step a frame forward / back
  Left Right      seek -/+ 5 s, exactly    Up Down     seek +/- 60 s
  [ ] { }         speed /1.1 *1.1 /2 *2    Backspace   speed 1
  l  L            A-B loop, loop the file  < > Enter   previous / next file
  1-8             contrast, brightness, gamma, saturation -/+
  9 0  m          volume -/+, mute         i I         stats (a few seconds / on and off)
  s               screenshot               f  q  Q     fullscreen, quit, quit and resume there later
histoplay's own:
  F1  ?           every command and its keys, searchable (or the OSD bar's menu button)
  h  H            histograms, scopes       M  Alt+z    graticule scale, vectorscope zoom
  y  c  Tab       log heights, cover/contain, histogram timeline
  Alt+m           audio meters and loudness (--loudness-target)
  right-drag      region of interest       Ctrl+r      whole frame again
  a  n            auto-levels, equalisation
  C B k K         comparing: mode, flicker, difference gain
  Y X U D N       false colour, zebras, peaking, gamut, broadcast range

Key bindings can be changed in ~/.config/histoplay/input.conf, and options set in
~/.config/histoplay/histoplay.conf (both in mpv's syntax; --profile=NAME applies a [NAME] section).
Opening histoplay again while a window is open starts a second window, as mpv does.";

/// A loudness target in LUFS, -70 to 0.
fn parse_loudness_target(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches("LUFS").trim().parse::<f64>() {
        Ok(lufs) if (-70.0..=0.0).contains(&lufs) => Ok(lufs),
        _ => Err(format!("'{text}' is not a loudness from -70 to 0 LUFS (say -23)")),
    }
}

/// `histoplay [FILE|DIR]...`: the player window.
fn play(mut files: Vec<PathBuf>, options: PlayerOptions) -> Result<()> {
    if files.is_empty() {
        files.push(default_video());
    }
    player::play(&files, options)?;
    Ok(())
}

/// mpv's default bindings with the viewer's input.conf applied: `--input-conf FILE` (which must
/// exist), else `$XDG_CONFIG_HOME/histoplay/input.conf` or `~/.config/histoplay/input.conf`
/// where there is one. Lines that are not understood are warnings (on stderr, and in the OSD).
fn input_bindings(explicit: Option<&Path>) -> Result<(Bindings, Vec<String>)> {
    let (path, text) = match explicit {
        Some(path) => {
            let text = crate::settings::read_small(path)
                .with_context(|| format!("cannot read the input.conf '{}'", path.display()))?;
            (path.to_path_buf(), text)
        }
        None => {
            let Some(path) = crate::settings::config_dir().map(|dir| dir.join("input.conf")) else {
                return Ok((Bindings::default(), Vec::new()));
            };
            match crate::settings::read_small(&path) {
                Ok(text) => (path, text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Bindings::default(), Vec::new())),
                Err(e) => {
                    let warning = format!("cannot read '{}': {e}", path.display());
                    eprintln!("warning: {}", crate::terminal::one_line(&warning.to_string()));
                    return Ok((Bindings::default(), vec![warning]));
                }
            }
        }
    };
    let (bindings, warnings) = Bindings::default().with_conf(&text, &path.display().to_string());
    let warnings = crate::settings::said(warnings);
    for warning in &warnings {
        eprintln!("warning: {}", crate::terminal::one_line(&warning.to_string()));
    }
    Ok((bindings, warnings))
}

/// The bundled sample: media/sample-540p.mp4 of the checkout (under the current directory, the
/// crate's own directory, or above the executable, target/<profile>/histoplay), or the
/// installed one (PREFIX/share/histoplay/ beside PREFIX/bin/histoplay).
fn default_video() -> PathBuf {
    let relative = Path::new("media/sample-540p.mp4");
    let exe = std::env::current_exe().ok();
    let exe_repo = exe
        .as_ref()
        .and_then(|exe| exe.ancestors().nth(3).map(|repo| repo.join(relative)));
    let installed = exe.as_ref().and_then(|exe| {
        exe.ancestors()
            .nth(2)
            .map(|prefix| prefix.join("share/histoplay/sample-540p.mp4"))
    });
    let candidates = [
        Some(relative.to_path_buf()),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)),
        exe_repo,
        installed,
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
        .unwrap_or_else(|| relative.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_cache_is_at_most_half_the_machines_memory() {
        let memory = crate::video::memory::machine_memory().expect("/proc/meminfo");
        assert!(memory > 1 << 30, "{memory}");
        let half = usize::try_from(memory / 2).unwrap();
        assert_eq!(frame_cache_bytes(usize::MAX), half);
        assert_eq!(frame_cache_bytes(half + 1), half);
        assert_eq!(frame_cache_bytes(256 << 20), 256 << 20);
        assert_eq!(frame_cache_bytes(0), 0);
    }
}

/// The player's `--aid`: the audio stream each file plays, or None for none (`no`).
#[derive(Clone, Copy, Debug)]
pub struct Aid(Option<crate::audio::source::AudioTrack>);

/// `--aid`: an audio stream's number, `auto`, or `no`.
fn parse_aid(text: &str) -> Result<Aid, String> {
    match text.trim() {
        "no" => Ok(Aid(None)),
        text => match crate::audio::source::AudioTrack::parse(text) {
            Ok(track) => Ok(Aid(Some(track))),
            Err(_) => Err(format!("'{text}' is no audio track: auto, no, or its number from 1")),
        },
    }
}

/// `yes` or `no` (mpv's flags' values).
fn parse_yes_no(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" | "on" => Ok(true),
        "no" | "false" | "0" | "off" => Ok(false),
        _ => Err(format!("'{text}' is neither yes nor no")),
    }
}
