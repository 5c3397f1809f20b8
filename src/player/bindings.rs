//! Keys, mouse buttons and the wheel to `Command`s: a table in mpv's `input.conf` syntax. The
//! defaults are mpv's own bindings wherever histoplay has the function (`DEFAULT_BINDINGS`), and
//! `~/.config/histoplay/input.conf` or `--input-conf` rebinds keys line by line, as in mpv.

use super::commands::{parse_commands, Command, UnknownCommand};
use std::collections::HashMap;
use winit::event::MouseScrollDelta;
use winit::keyboard::{Key, KeyLocation, ModifiersState, NamedKey};

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
Q quit-watch-later
STOP quit
Ctrl+w quit
Ctrl+c quit 4
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
SHARP cycle audio
d cycle deinterlace
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
Alt+p cycle pse
Alt+d cycle field-view
Alt+m cycle audio-meters
Ctrl+r clear-region
a cycle auto-levels
n cycle equalize
Ctrl+BS reset-adjustments
Ctrl+l cycle lut
Alt+l cycle scopes-on
Alt+i cycle input-colour
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
# mpv's ? lists the bindings (its stats page 4); histoplay's list is searchable and runs them.
? script-binding stats/display-page-4-toggle
# histoplay: mpv leaves F1 unbound; MENU is mpv's menu key.
F1 script-binding select/select-binding
MENU script-binding select/menu
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

impl std::fmt::Display for Chord {
    /// The chord as `input.conf` writes it: `Ctrl+Shift+RIGHT`, `L`, `Alt+m`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        for (down, name) in [
            (self.ctrl, "Ctrl+"),
            (self.alt, "Alt+"),
            (self.meta, "Meta+"),
            (self.shift, "Shift+"),
        ] {
            if down {
                f.write_str(name)?;
            }
        }
        f.write_str(match self.key.as_str() {
            "#" => "SHARP",
            key => key,
        })
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
    "MENU",
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
            NamedKey::ContextMenu => "MENU",
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

/// Keys and mouse buttons to commands.
#[derive(Clone, Debug)]
pub struct Bindings {
    pub(super) map: HashMap<Chord, Vec<Command>>,
    /// Each bound chord's command as `input.conf` wrote it, in the order the chords were first
    /// bound (the help list and the key reference show them so).
    written: Vec<(Chord, String)>,
}

impl Default for Bindings {
    fn default() -> Self {
        let (bindings, warnings) = Self::empty().with_conf(DEFAULT_BINDINGS, "the default bindings");
        debug_assert!(warnings.is_empty(), "{warnings:?}");
        bindings
    }
}

impl Bindings {
    pub(crate) fn empty() -> Self {
        Self {
            map: HashMap::new(),
            written: Vec::new(),
        }
    }

    /// These bindings with `text` (an `input.conf`) applied over them, and a warning for each
    /// line that was not understood (naming `source` and the line), which is skipped.
    pub fn with_conf(mut self, text: &str, source: &str) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
            // (As mpv reads it, Shift on a digit or a symbol is dropped: the key is the one
            // pressed without it.)
            let asked_shift = key.to_ascii_lowercase().contains("shift+");
            if asked_shift && is_character(&chord.key) && !chord.key.chars().all(char::is_alphabetic) {
                warnings.push(format!(
                    "{at}: '{key}' binds '{}', as mpv reads it (the character Shift types is written instead: '!', not Shift+1)",
                    chord.key
                ));
            }
            // (As mpv: a key alone binds nothing, and leaves the key as it was.)
            if command.trim().is_empty() {
                warnings.push(format!("{at}: '{key}' has no command (`{key} ignore` unbinds it)"));
                continue;
            }
            match parse_commands(command) {
                Ok(commands) => {
                    match self.written.iter_mut().find(|(bound, _)| *bound == chord) {
                        Some((_, written)) => *written = command.to_string(),
                        None => self.written.push((chord.clone(), command.to_string())),
                    }
                    self.map.insert(chord, commands);
                }
                Err(UnknownCommand(command)) => warnings.push(format!("{at}: unknown command '{command}'")),
            }
        }
        (self, warnings)
    }

    /// Every chord bound to something (not `ignore`), in the order first bound, with its
    /// commands and their `input.conf` text.
    pub fn bound(&self) -> impl Iterator<Item = (&Chord, &[Command], &str)> {
        self.written.iter().filter_map(|(chord, text)| {
            let commands = self.commands(chord);
            (!commands.is_empty()).then_some((chord, commands, text.as_str()))
        })
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
