//! What the viewer asked for, as data: keys, mouse buttons and the wheel become `Command`s
//! through `Bindings`, a table in mpv's `input.conf` syntax. The defaults are mpv's own
//! bindings wherever histoplay has the function (`DEFAULT_BINDINGS`), and
//! `~/.config/histoplay/input.conf` or `--input-conf` rebinds keys line by line, as in mpv.
//! Pure functions, so the bindings are tested without a window.

use crate::marks::Mark;
use crate::render::adjust::Adjustment;
use std::collections::HashMap;
use std::path::PathBuf;
use winit::event::MouseScrollDelta;
use winit::keyboard::{Key, KeyLocation, ModifiersState, NamedKey};

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
    /// Count only this rectangle of the frame (a right-drag on the picture).
    SetRegion(crate::scope::Region),
    ToggleLogScale,
    ToggleFit,
    Screenshot,
    /// Change the volume by this many percent (and unmute).
    VolumeBy(i32),
    ToggleMute,
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

/// histoplay's default bindings, in `input.conf` syntax. Where mpv binds a key by default and
/// histoplay has the function, the line is mpv's; the differences are marked.
pub const DEFAULT_BINDINGS: &str = r#"
SPACE cycle pause
p cycle pause
MBTN_RIGHT cycle pause
PLAY cycle pause
PAUSE cycle pause
PLAYPAUSE cycle pause
PLAYONLY set pause no
PAUSEONLY set pause yes
# histoplay: arrows and the horizontal wheel seek exactly (mpv: to keyframes). In a scopes tool
# the frame you land on is the one whose histogram you wanted.
RIGHT seek 5 exact
LEFT seek -5 exact
UP seek 60 exact
DOWN seek -60 exact
Shift+RIGHT seek 1 exact
Shift+LEFT seek -1 exact
Shift+UP seek 5 exact
Shift+DOWN seek -5 exact
WHEEL_UP add volume 2
WHEEL_DOWN add volume -2
WHEEL_LEFT seek -10 exact
WHEEL_RIGHT seek 10 exact
FORWARD seek 60 exact
REWIND seek -60 exact
PGUP add chapter 1
PGDWN add chapter -1
Shift+PGUP seek 600 exact
Shift+PGDWN seek -600 exact
# histoplay: mpv leaves Home and End unbound.
HOME seek 0 absolute exact
END seek-end
. frame-step
, frame-back-step
[ multiply speed 1/1.1
] multiply speed 1.1
{ multiply speed 0.5
} multiply speed 2.0
BS set speed 1.0
q quit
Q quit
STOP quit
Ctrl+w quit
Ctrl+c quit
ESC set fullscreen no
f cycle fullscreen
MBTN_LEFT_DBL cycle fullscreen
s screenshot
> playlist-next
ENTER playlist-next
< playlist-prev
NEXT playlist-next
PREV playlist-prev
MBTN_FORWARD playlist-next
MBTN_BACK playlist-prev
F8 show-text ${playlist}
o show-progress
P show-progress
i script-binding stats/display-stats
I script-binding stats/display-stats-toggle
9 add volume -2
/ add volume -2
KP_DIVIDE add volume -2
0 add volume 2
* add volume 2
KP_MULTIPLY add volume 2
VOLUME_UP add volume 2
VOLUME_DOWN add volume -2
m cycle mute
MUTE cycle mute
1 add contrast -1
2 add contrast 1
3 add brightness -1
4 add brightness 1
5 add gamma -1
6 add gamma 1
7 add saturation -1
8 add saturation 1
l ab-loop
L cycle-values loop-file "inf" "no"
# histoplay's own functions, on keys mpv leaves unbound.
h cycle histogram-views
H cycle scope
y cycle log-scale
c cycle fit
TAB cycle timeline
Ctrl+r clear-region
a cycle auto-levels
n cycle equalize
Ctrl+BS reset-adjustments
C cycle compare-mode
B cycle compare-flicker
k multiply compare-gain 0.5
K multiply compare-gain 2
Ctrl+, add compare-offset -1
Ctrl+. add compare-offset 1
Y cycle false-colour
X cycle zebra
Alt+x add zebra-level -1
Alt+X add zebra-level 1
U cycle peaking
Alt+u add peaking-level -1
Alt+U add peaking-level 1
D cycle gamut-warning
N cycle range-warning
Alt+z cycle vectorscope-zoom
M cycle waveform-scale
"#;

/// A key or mouse button with its modifiers, as `input.conf` names it (`Shift+RIGHT`, `Ctrl+w`,
/// `MBTN_LEFT_DBL`). A printable character carries Shift already (`L`, `{`), so its chord
/// never has Shift.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chord {
    /// A printable character, or an upper-case mpv key name (`RIGHT`, `KP_ADD`, `WHEEL_UP`).
    pub key: String,
    pub shift: bool,
    pub ctrl: bool,
    pub alt: bool,
    pub meta: bool,
}

impl Chord {
    fn plain(key: &str) -> Self {
        Self {
            key: key.to_string(),
            shift: false,
            ctrl: false,
            alt: false,
            meta: false,
        }
    }

    fn with(mut self, modifiers: ModifiersState) -> Self {
        // A printable character already says whether Shift was down.
        self.shift = modifiers.shift_key() && !is_character(&self.key);
        self.ctrl = modifiers.control_key();
        self.alt = modifiers.alt_key();
        self.meta = modifiers.super_key();
        self
    }

    /// Parses an `input.conf` key: modifiers (any case) joined by `+`, then a key name or a
    /// character. `+` itself and `Ctrl++` parse too.
    pub fn parse(text: &str) -> Option<Self> {
        let mut chord = Self::plain("");
        let mut rest = text;
        while let Some((modifier, tail)) = rest
            .split_once('+')
            .filter(|(m, tail)| !m.is_empty() && !tail.is_empty())
        {
            match modifier.to_ascii_lowercase().as_str() {
                "shift" => chord.shift = true,
                "ctrl" => chord.ctrl = true,
                "alt" => chord.alt = true,
                "meta" => chord.meta = true,
                _ => break,
            }
            rest = tail;
        }
        let key = if rest.chars().count() == 1 {
            rest.to_string()
        } else {
            let upper = rest.to_ascii_uppercase();
            match upper.as_str() {
                "SHARP" => "#".to_string(),
                "PLUS" => "+".to_string(),
                _ if KEY_NAMES.contains(&upper.as_str()) => upper,
                _ => return None,
            }
        };
        if is_character(&key) && chord.shift {
            // Shift+a is A; Shift on a symbol is already in the symbol.
            chord.shift = false;
            chord.key = key.to_uppercase();
        } else {
            chord.key = key;
        }
        Some(chord)
    }
}

fn is_character(key: &str) -> bool {
    key.chars().count() == 1
}

/// The key names `input.conf` may use besides single characters (mpv's names).
const KEY_NAMES: &[&str] = &[
    "SPACE",
    "ENTER",
    "BS",
    "ESC",
    "TAB",
    "LEFT",
    "RIGHT",
    "UP",
    "DOWN",
    "PGUP",
    "PGDWN",
    "HOME",
    "END",
    "INS",
    "DEL",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "KP0",
    "KP1",
    "KP2",
    "KP3",
    "KP4",
    "KP5",
    "KP6",
    "KP7",
    "KP8",
    "KP9",
    "KP_DEC",
    "KP_ADD",
    "KP_SUBTRACT",
    "KP_MULTIPLY",
    "KP_DIVIDE",
    "KP_ENTER",
    "PLAY",
    "PAUSE",
    "PLAYPAUSE",
    "PLAYONLY",
    "PAUSEONLY",
    "STOP",
    "FORWARD",
    "REWIND",
    "NEXT",
    "PREV",
    "VOLUME_UP",
    "VOLUME_DOWN",
    "MUTE",
    "MBTN_LEFT",
    "MBTN_MID",
    "MBTN_RIGHT",
    "MBTN_LEFT_DBL",
    "MBTN_BACK",
    "MBTN_FORWARD",
    "WHEEL_UP",
    "WHEEL_DOWN",
    "WHEEL_LEFT",
    "WHEEL_RIGHT",
];

/// The `input.conf` name of a key press, if histoplay knows one.
pub fn key_chord(key: &Key, location: KeyLocation, modifiers: ModifiersState) -> Option<Chord> {
    let name = match key {
        Key::Named(named) => match named {
            NamedKey::Space => "SPACE",
            NamedKey::Enter if location == KeyLocation::Numpad => "KP_ENTER",
            NamedKey::Enter => "ENTER",
            NamedKey::Backspace => "BS",
            NamedKey::Escape => "ESC",
            NamedKey::Tab => "TAB",
            NamedKey::ArrowLeft => "LEFT",
            NamedKey::ArrowRight => "RIGHT",
            NamedKey::ArrowUp => "UP",
            NamedKey::ArrowDown => "DOWN",
            NamedKey::PageUp => "PGUP",
            NamedKey::PageDown => "PGDWN",
            NamedKey::Home => "HOME",
            NamedKey::End => "END",
            NamedKey::Insert => "INS",
            NamedKey::Delete => "DEL",
            NamedKey::F1 => "F1",
            NamedKey::F2 => "F2",
            NamedKey::F3 => "F3",
            NamedKey::F4 => "F4",
            NamedKey::F5 => "F5",
            NamedKey::F6 => "F6",
            NamedKey::F7 => "F7",
            NamedKey::F8 => "F8",
            NamedKey::F9 => "F9",
            NamedKey::F10 => "F10",
            NamedKey::F11 => "F11",
            NamedKey::F12 => "F12",
            NamedKey::MediaPlay => "PLAY",
            NamedKey::MediaPause | NamedKey::Pause => "PAUSE",
            NamedKey::MediaPlayPause => "PLAYPAUSE",
            NamedKey::MediaStop => "STOP",
            NamedKey::MediaFastForward => "FORWARD",
            NamedKey::MediaRewind => "REWIND",
            NamedKey::MediaTrackNext => "NEXT",
            NamedKey::MediaTrackPrevious => "PREV",
            NamedKey::AudioVolumeUp => "VOLUME_UP",
            NamedKey::AudioVolumeDown => "VOLUME_DOWN",
            NamedKey::AudioVolumeMute => "MUTE",
            _ => return None,
        },
        Key::Character(text) if location == KeyLocation::Numpad => match text.as_str() {
            "+" => "KP_ADD",
            "-" => "KP_SUBTRACT",
            "*" => "KP_MULTIPLY",
            "/" => "KP_DIVIDE",
            "." | "," => "KP_DEC",
            "0" => "KP0",
            "1" => "KP1",
            "2" => "KP2",
            "3" => "KP3",
            "4" => "KP4",
            "5" => "KP5",
            "6" => "KP6",
            "7" => "KP7",
            "8" => "KP8",
            "9" => "KP9",
            _ => return None,
        },
        Key::Character(text) if is_character(text) => text.as_str(),
        _ => return None,
    };
    Some(Chord::plain(name).with(modifiers))
}

/// Mouse buttons and wheel directions, by their `input.conf` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mouse {
    Right,
    Middle,
    LeftDouble,
    Back,
    Forward,
    WheelUp,
    WheelDown,
    WheelLeft,
    WheelRight,
}

impl Mouse {
    fn name(self) -> &'static str {
        match self {
            Mouse::Right => "MBTN_RIGHT",
            Mouse::Middle => "MBTN_MID",
            Mouse::LeftDouble => "MBTN_LEFT_DBL",
            Mouse::Back => "MBTN_BACK",
            Mouse::Forward => "MBTN_FORWARD",
            Mouse::WheelUp => "WHEEL_UP",
            Mouse::WheelDown => "WHEEL_DOWN",
            Mouse::WheelLeft => "WHEEL_LEFT",
            Mouse::WheelRight => "WHEEL_RIGHT",
        }
    }

    pub fn chord(self, modifiers: ModifiersState) -> Chord {
        Chord::plain(self.name()).with(modifiers)
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
        ["add", property, _] if adjustment(property).is_some() => {
            Command::Adjust(adjustment(property)?, number(2)?.round() as i32)
        }
        ["set", property, _] if adjustment(property).is_some() => {
            Command::SetAdjustment(adjustment(property)?, number(2)?.round() as i32)
        }
        ["cycle", "fullscreen"] => Command::ToggleFullscreen,
        ["set", "fullscreen", "no"] => Command::LeaveFullscreen,
        ["quit", ..] | ["quit-watch-later", ..] | ["stop", ..] => Command::Quit,
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
        // histoplay's own.
        ["cycle", "histogram-views"] => Command::CycleQuads,
        ["cycle", "scope"] => Command::CycleScope,
        ["cycle", "log-scale"] => Command::ToggleLogScale,
        ["cycle", "fit"] => Command::ToggleFit,
        ["cycle", "timeline"] => Command::ToggleTimeline,
        ["clear-region"] => Command::ClearRegion,
        ["cycle", "auto-levels"] => Command::ToggleAutoLevels,
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

/// Keys and mouse buttons to commands.
#[derive(Clone, Debug)]
pub struct Bindings {
    map: HashMap<Chord, Vec<Command>>,
}

impl Default for Bindings {
    fn default() -> Self {
        let (bindings, warnings) = Self::empty().with_conf(DEFAULT_BINDINGS, "the default bindings");
        debug_assert!(warnings.is_empty(), "{warnings:?}");
        bindings
    }
}

impl Bindings {
    fn empty() -> Self {
        Self { map: HashMap::new() }
    }

    /// These bindings with `text` (an `input.conf`) applied over them, and a warning for each
    /// line that was not understood (naming `source` and the line), which is skipped.
    pub fn with_conf(mut self, text: &str, source: &str) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, command) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let command = strip_comment(command);
            let at = format!("{source}, line {}", number + 1);
            let Some(chord) = Chord::parse(key) else {
                warnings.push(format!("{at}: unknown key '{key}'"));
                continue;
            };
            match parse_commands(command) {
                Ok(commands) => {
                    self.map.insert(chord, commands);
                }
                Err(UnknownCommand(command)) => warnings.push(format!("{at}: unknown command '{command}'")),
            }
        }
        (self, warnings)
    }

    /// The commands bound to `chord` (none when it is unbound or bound to `ignore`).
    pub fn commands(&self, chord: &Chord) -> &[Command] {
        self.map.get(chord).map(Vec::as_slice).unwrap_or_default()
    }

    /// The commands a key press asks for.
    pub fn key(&self, key: &Key, location: KeyLocation, modifiers: ModifiersState) -> &[Command] {
        key_chord(key, location, modifiers)
            .map(|chord| self.commands(&chord))
            .unwrap_or_default()
    }

    /// The commands a mouse button or wheel notch asks for.
    pub fn mouse(&self, mouse: Mouse, modifiers: ModifiersState) -> &[Command] {
        self.commands(&mouse.chord(modifiers))
    }
}

/// A command with its trailing `# comment` removed (a `#` inside quotes stays).
fn strip_comment(command: &str) -> &str {
    let mut quoted = false;
    for (i, c) in command.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return command[..i].trim(),
            _ => {}
        }
    }
    command.trim()
}

/// Turns wheel motion into whole notches in each direction: line deltas are notches already,
/// touchpads send pixels, which add up until they make one.
#[derive(Debug, Default)]
pub struct WheelNotches {
    pixels: (f64, f64),
    /// A wheel button's raw release was just seen (see `raw_button`).
    release_pending: bool,
}

impl WheelNotches {
    /// Pixels of touchpad scrolling that count as one notch.
    const PIXELS_PER_NOTCH: f64 = 50.0;

    /// A raw wheel button (4 to 7) went down or up. winit 0.30 on X11 turns both the press and
    /// the release of a wheel button without smooth-scroll valuators (XTEST, VNC, old drivers)
    /// into a wheel event; the raw release comes just before the second one, which is skipped.
    pub fn raw_button(&mut self, released: bool) {
        self.release_pending = released;
    }

    /// The wheel directions the motion completed, one entry per notch. winit's positive x is
    /// the wheel tilted left (X11 button 6), positive y the wheel turned up.
    pub fn notches(&mut self, delta: MouseScrollDelta) -> Vec<Mouse> {
        let (x, y) = match delta {
            MouseScrollDelta::LineDelta(..) if std::mem::take(&mut self.release_pending) => return Vec::new(),
            MouseScrollDelta::LineDelta(x, y) => (f64::from(x).round(), f64::from(y).round()),
            MouseScrollDelta::PixelDelta(position) => {
                let whole = |pixels: &mut f64, delta: f64| {
                    *pixels += delta;
                    let whole = (*pixels / Self::PIXELS_PER_NOTCH).trunc();
                    *pixels -= whole * Self::PIXELS_PER_NOTCH;
                    whole
                };
                (
                    whole(&mut self.pixels.0, position.x),
                    whole(&mut self.pixels.1, position.y),
                )
            }
        };
        let repeat = |n: f64, positive: Mouse, negative: Mouse| {
            let mouse = if n > 0.0 { positive } else { negative };
            std::iter::repeat_n(mouse, n.abs().min(64.0) as usize)
        };
        repeat(y, Mouse::WheelUp, Mouse::WheelDown)
            .chain(repeat(x, Mouse::WheelLeft, Mouse::WheelRight))
            .collect()
    }
}

#[cfg(test)]
mod tests;
