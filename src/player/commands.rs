//! What the viewer asked for, as data: every `Command` the player can be told, and the parser
//! of mpv's `input.conf` command syntax that turns text into them. Keys and buttons are bound
//! to commands in `bindings.rs`. Pure functions, so the commands are tested without a window.

use crate::marks::Mark;
use crate::render::adjust::Adjustment;
use std::path::PathBuf;

/// Speed factors of `[` `]` and `{` `}`.
pub const SPEED_STEP: f64 = 1.1;
pub const SPEED_DOUBLE: f64 = 2.0;

/// Everything the player can be told to do, from keys, the mouse, a dropped file or the bench.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    TogglePause,
    Pause,
    Resume,
    /// Seek relative to the current position.
    SeekBy {
        seconds: f64,
        exact: bool,
    },
    /// Seek to a position (the seek bar).
    SeekTo {
        seconds: f64,
        exact: bool,
    },
    /// Seek to this percentage of the file's duration.
    SeekPercent {
        percent: f64,
        exact: bool,
    },
    SeekStart,
    SeekEnd,
    /// Seek to this frame exactly (a click on the timeline's VMAF row: its column's worst).
    SeekFrame(u64),
    StepForward,
    StepBack,
    /// Multiply the speed.
    SpeedBy(f64),
    /// Set the speed.
    SpeedSet(f64),
    SpeedReset,
    ToggleFullscreen,
    LeaveFullscreen,
    CycleQuads,
    /// None, waveform, parade, vectorscope.
    CycleScope,
    /// Count the whole frame again.
    ClearRegion,
    /// Show or hide the histogram timeline.
    ToggleTimeline,
    /// The photosensitivity view on or off.
    TogglePse,
    /// Show or hide the audio meters and loudness panel.
    ToggleMeters,
    /// Count only this rectangle of the frame (a right-drag on the picture).
    SetRegion(crate::scope::Region),
    ToggleLogScale,
    ToggleFit,
    Screenshot,
    /// Change the volume by this many percent (and unmute).
    VolumeBy(i32),
    ToggleMute,
    /// The next audio stream of the file, then none, then the first again (mpv's `cycle audio`).
    CycleAudio,
    /// Change a picture adjustment by this much (each runs −100..100).
    Adjust(Adjustment, i32),
    /// Set a picture adjustment.
    SetAdjustment(Adjustment, i32),
    /// Auto-levels on or off (off also ends equalisation).
    ToggleAutoLevels,
    /// Histogram equalisation on or off.
    ToggleEqualize,
    /// Every picture adjustment back to neutral, auto-levels and equalisation off.
    ResetAdjustments,
    /// The picture through the LUT (`--lut`), or as decoded.
    ToggleLut,
    /// mpv's `cycle deinterlace`: no, yes, auto.
    CycleDeinterlace,
    /// The frame, its fields apart, the top field counted alone, the bottom field alone.
    CycleFieldView,
    /// While a LUT is on: the histograms and scopes count the signal, or the picture.
    ToggleScopesOn,
    /// The signal read as the next camera log encoding (after the last: as video).
    CycleInputColour,
    /// The signal read as video or as a camera log encoding (`set input-colour NAME`).
    SetInputColour(crate::colour::log::InputColour),
    /// Set loop point A, then B, then clear both (mpv's `ab-loop`).
    AbLoop,
    /// Loop the current file, or stop looping it.
    ToggleLoopFile,
    /// Seek to the next (+1) or previous (−1) chapter.
    ChapterBy(i32),
    PlaylistNext,
    PlaylistPrev,
    /// Show the playlist in the OSD for a while.
    ShowPlaylist,
    /// Show the stats overlay for a few seconds (`i`), or until toggled off (`I`).
    ShowStats,
    ToggleStats,
    /// Show the position and the seek bar for a while.
    ShowProgress,
    /// Open or close the searchable list of every command and its keys.
    ToggleHelp,
    /// Append files to the playlist (dropped on the window), playing the first of them.
    Open(Vec<PathBuf>),
    /// Comparing two files: wipe, side by side, difference, in turn.
    CycleCompareMode,
    /// Comparing: show A alone and B alone in turn, in place.
    Flicker,
    /// Comparing: multiply the difference's gain (and show the difference).
    CompareGainBy(f64),
    /// Comparing: pair B's frames this many later (negative: earlier).
    CompareOffsetBy(i64),
    /// The vectorscope's magnification: ×1, ×2, ×4 in turn.
    CycleVectorscopeZoom,
    /// The waveform's graticule: percent, code values, nits (HDR) in turn.
    CycleWaveformScale,
    /// A mark on the picture (false colour, zebras, peaking, gamut, range) on or off.
    ToggleMark(Mark),
    /// The zebra level, in percent (and zebras on).
    ZebraBy(f64),
    /// Peaking's step, in percent (lower marks more edges; and peaking on).
    PeakingBy(f64),
    Quit,
    /// Quit with this exit status (mpv's `quit CODE`).
    QuitWithStatus(u8),
    /// Quit, keeping the file's position (and --watch-later-options) to resume from.
    QuitWatchLater,
}

impl Command {
    /// Whether holding the key down should repeat the command (seeks, steps and adjustments
    /// do, as in mpv; toggles would flicker).
    pub fn repeats(&self) -> bool {
        matches!(
            self,
            Command::SeekBy { .. }
                | Command::StepForward
                | Command::StepBack
                | Command::SpeedBy(_)
                | Command::VolumeBy(_)
                | Command::Adjust(..)
                | Command::CompareOffsetBy(_)
                | Command::ZebraBy(_)
                | Command::PeakingBy(_)
        )
    }
}

/// Why an `input.conf` command was not understood.
#[derive(Debug, PartialEq)]
pub struct UnknownCommand(pub String);

/// Parses one `input.conf` command line (after the key): commands separated by `;`, each
/// with mpv's prefixes (`no-osd`, `osd-bar`, ...) allowed and ignored. `ignore` is no command.
pub fn parse_commands(text: &str) -> Result<Vec<Command>, UnknownCommand> {
    let mut commands = Vec::new();
    for part in split_outside_quotes(text, ';') {
        let words = words(&part);
        let words: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .skip_while(|w| {
                matches!(
                    *w,
                    "no-osd"
                        | "osd-auto"
                        | "osd-bar"
                        | "osd-msg"
                        | "osd-msg-bar"
                        | "raw"
                        | "expand-properties"
                        | "repeatable"
                        | "async"
                        | "sync"
                )
            })
            .collect();
        if words.is_empty() || words == ["ignore"] {
            continue;
        }
        commands.push(parse_command(&words).ok_or_else(|| UnknownCommand(part.trim().to_string()))?);
    }
    Ok(commands)
}

fn parse_command(words: &[&str]) -> Option<Command> {
    let number = |i: usize| -> Option<f64> { words.get(i).and_then(|w| parse_number(w)) };
    let adjustment = |name: &str| Adjustment::ALL.into_iter().find(|a| a.name() == name);
    let flags = &words[words.len().min(2)..];
    let exact = || {
        if flags.contains(&"exact") {
            Some(true)
        } else if flags.contains(&"keyframes") {
            Some(false)
        } else {
            None
        }
    };
    let yes_no = |w: Option<&&str>| match w.copied() {
        Some("yes") => Some(true),
        Some("no") => Some(false),
        _ => None,
    };
    Some(match words {
        ["cycle", "pause"] => Command::TogglePause,
        ["set", "pause", ..] => match yes_no(words.get(2))? {
            true => Command::Pause,
            false => Command::Resume,
        },
        ["seek", _, ..] => {
            let amount = number(1)?;
            let absolute = flags.contains(&"absolute");
            if flags.contains(&"absolute-percent") {
                Command::SeekPercent {
                    percent: amount,
                    exact: exact().unwrap_or(true),
                }
            } else if absolute {
                // mpv's absolute seeks are exact unless told otherwise.
                Command::SeekTo {
                    seconds: amount,
                    exact: exact().unwrap_or(true),
                }
            } else if flags.iter().any(|f| f.contains("percent")) {
                return None;
            } else {
                Command::SeekBy {
                    seconds: amount,
                    exact: exact().unwrap_or(false),
                }
            }
        }
        ["seek-end"] => Command::SeekEnd,
        ["frame-step"] => Command::StepForward,
        ["frame-back-step"] => Command::StepBack,
        ["multiply", "speed", _] => Command::SpeedBy(number(2).filter(|f| *f > 0.0)?),
        ["set", "speed", _] => match number(2).filter(|f| *f > 0.0)? {
            1.0 => Command::SpeedReset,
            s => Command::SpeedSet(s),
        },
        ["add", "volume", _] => Command::VolumeBy(number(2)?.round() as i32),
        ["cycle", "mute"] => Command::ToggleMute,
        ["cycle", "audio"] | ["cycle", "aid"] => Command::CycleAudio,
        ["cycle", "deinterlace"] => Command::CycleDeinterlace,
        ["cycle", "field-view"] => Command::CycleFieldView,
        ["add", property, _] if adjustment(property).is_some() => {
            Command::Adjust(adjustment(property)?, number(2)?.round() as i32)
        }
        ["set", property, _] if adjustment(property).is_some() => {
            Command::SetAdjustment(adjustment(property)?, number(2)?.round() as i32)
        }
        ["cycle", "fullscreen"] => Command::ToggleFullscreen,
        ["set", "fullscreen", "no"] => Command::LeaveFullscreen,
        ["quit-watch-later", ..] => Command::QuitWatchLater,
        // (mpv's status is the number as the system takes it: its low 8 bits.)
        ["quit", code, ..] => code
            .parse::<i64>()
            .map_or(Command::Quit, |code| Command::QuitWithStatus(code as u8)),
        ["quit", ..] | ["stop", ..] => Command::Quit,
        ["screenshot", ..] => Command::Screenshot,
        ["playlist-next", ..] => Command::PlaylistNext,
        ["playlist-prev", ..] => Command::PlaylistPrev,
        ["show-text", "${playlist}", ..] => Command::ShowPlaylist,
        ["show-progress"] => Command::ShowProgress,
        ["add", "chapter", _] => Command::ChapterBy(number(2)?.round() as i32),
        ["ab-loop"] => Command::AbLoop,
        ["cycle", "loop-file"] | ["cycle-values", "loop-file", ..] => Command::ToggleLoopFile,
        ["script-binding", "stats/display-stats"] => Command::ShowStats,
        ["script-binding", "stats/display-stats-toggle"] => Command::ToggleStats,
        ["script-binding", "select/select-binding" | "select/menu" | "stats/display-page-4-toggle"]
        | ["cycle", "help"] => Command::ToggleHelp,
        // histoplay's own.
        ["cycle", "histogram-views"] => Command::CycleQuads,
        ["cycle", "scope"] => Command::CycleScope,
        ["cycle", "log-scale"] => Command::ToggleLogScale,
        ["cycle", "fit"] => Command::ToggleFit,
        ["cycle", "timeline"] => Command::ToggleTimeline,
        ["cycle", "pse"] => Command::TogglePse,
        ["cycle", "audio-meters"] => Command::ToggleMeters,
        ["clear-region"] => Command::ClearRegion,
        ["cycle", "auto-levels"] => Command::ToggleAutoLevels,
        ["cycle", "lut"] => Command::ToggleLut,
        ["cycle", "scopes-on"] => Command::ToggleScopesOn,
        ["cycle", "input-colour"] => Command::CycleInputColour,
        ["set", "input-colour", name] => Command::SetInputColour(name.parse().ok()?),
        ["cycle", "equalize"] => Command::ToggleEqualize,
        ["reset-adjustments"] => Command::ResetAdjustments,
        ["cycle", "compare-mode"] => Command::CycleCompareMode,
        ["cycle", "compare-flicker"] => Command::Flicker,
        ["multiply", "compare-gain", _] => Command::CompareGainBy(number(2).filter(|f| *f > 0.0)?),
        ["add", "compare-offset", _] => Command::CompareOffsetBy(number(2)?.round() as i64),
        ["cycle", "vectorscope-zoom"] => Command::CycleVectorscopeZoom,
        ["cycle", "waveform-scale"] => Command::CycleWaveformScale,
        ["cycle", "false-colour" | "false-color"] => Command::ToggleMark(Mark::FalseColour),
        ["cycle", "zebra"] => Command::ToggleMark(Mark::Zebra),
        ["cycle", "peaking"] => Command::ToggleMark(Mark::Peaking),
        ["cycle", "gamut-warning"] => Command::ToggleMark(Mark::Gamut),
        ["cycle", "range-warning"] => Command::ToggleMark(Mark::Range),
        ["add", "zebra-level", _] => Command::ZebraBy(number(2)?),
        ["add", "peaking-level", _] => Command::PeakingBy(number(2)?),
        _ => return None,
    })
}

/// A number as `input.conf` writes it: `5`, `-1`, `+0.1`, or a fraction like `1/1.1`.
fn parse_number(text: &str) -> Option<f64> {
    let text = text.strip_prefix('+').unwrap_or(text);
    let value = match text.split_once('/') {
        Some((a, b)) => a.parse::<f64>().ok()? / b.parse::<f64>().ok()?,
        None => text.parse().ok()?,
    };
    value.is_finite().then_some(value)
}

/// Splits on `separator` outside double quotes.
fn split_outside_quotes(text: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quoted = false;
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' && quoted {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if c == separator && !quoted {
            parts.push(String::new());
            continue;
        }
        parts.last_mut().expect("one part at least").push(c);
    }
    parts
}

/// The words of a command, with double quotes (and their backslash escapes) removed.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[cfg(test)]
mod tests;
