//! What each command does, in words, and the group of functions it belongs to: the help list
//! and the key reference (docs/reference/keys.md) read them, so neither can drift from the
//! commands themselves.

use crate::player::bindings::Bindings;
use crate::player::commands::Command;
use crate::render::adjust::Adjustment;

/// The groups the help list and the key reference show commands in, in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    Playback,
    Seeking,
    Playlist,
    Window,
    Sound,
    Histograms,
    Scopes,
    Marks,
    Picture,
    Colour,
    Comparing,
    Information,
}

impl Group {
    pub const ALL: [Group; 12] = [
        Group::Playback,
        Group::Seeking,
        Group::Playlist,
        Group::Window,
        Group::Sound,
        Group::Histograms,
        Group::Scopes,
        Group::Marks,
        Group::Picture,
        Group::Colour,
        Group::Comparing,
        Group::Information,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Playback => "Playback",
            Group::Seeking => "Seeking and stepping",
            Group::Playlist => "Playlist",
            Group::Window => "Window",
            Group::Sound => "Sound",
            Group::Histograms => "Histograms",
            Group::Scopes => "Scopes",
            Group::Marks => "Marks on the picture",
            Group::Picture => "Picture adjustments",
            Group::Colour => "Colour, log and LUTs",
            Group::Comparing => "Comparing two files",
            Group::Information => "Information and help",
        }
    }
}

/// One command of the catalogue: what it does, where it belongs, and the chords bound to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub group: Group,
    pub description: String,
    /// The commands as `input.conf` writes them.
    pub text: String,
    pub commands: Vec<Command>,
    /// The chords bound to it (`Ctrl+w`, `SPACE`), in the order they were bound.
    pub keys: Vec<String>,
}

/// Every bound command once, with all its chords, grouped and in the bindings' order.
pub fn entries(bindings: &Bindings) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for (chord, commands, text) in bindings.bound() {
        match entries.iter_mut().find(|e| e.commands == commands) {
            Some(entry) => entry.keys.push(chord.to_string()),
            None => entries.push(Entry {
                group: group(&commands[0]),
                description: commands.iter().map(describe).collect::<Vec<_>>().join("; "),
                text: text.to_string(),
                commands: commands.to_vec(),
                keys: vec![chord.to_string()],
            }),
        }
    }
    // A stable sort: the bindings' order within each group.
    entries.sort_by_key(|e| e.group);
    entries
}

/// The group a command belongs to.
pub fn group(command: &Command) -> Group {
    use Command::*;
    match command {
        TogglePause | Pause | Resume | SpeedBy(_) | SpeedSet(_) | SpeedReset | AbLoop | ToggleLoopFile | Quit
        | QuitWithStatus(_) | QuitWatchLater => Group::Playback,
        SeekBy { .. }
        | SeekTo { .. }
        | SeekPercent { .. }
        | SeekStart
        | SeekEnd
        | SeekFrame(_)
        | StepForward
        | StepBack
        | ChapterBy(_) => Group::Seeking,
        PlaylistNext | PlaylistPrev | ShowPlaylist | Open(_) => Group::Playlist,
        ToggleFullscreen | LeaveFullscreen | ToggleFit | Screenshot => Group::Window,
        VolumeBy(_) | ToggleMute | CycleAudio | ToggleMeters => Group::Sound,
        CycleQuads | ToggleLogScale | ClearRegion | SetRegion(_) | ToggleTimeline => Group::Histograms,
        CycleScope | CycleVectorscopeZoom | CycleWaveformScale | ToggleScopesOn => Group::Scopes,
        ToggleMark(_) | ZebraBy(_) | PeakingBy(_) => Group::Marks,
        Adjust(..) | SetAdjustment(..) | ToggleAutoLevels | ToggleEqualize | ResetAdjustments | CycleDeinterlace
        | CycleFieldView => Group::Picture,
        ToggleLut | CycleInputColour | SetInputColour(_) => Group::Colour,
        CycleCompareMode | Flicker | CompareGainBy(_) | CompareOffsetBy(_) => Group::Comparing,
        ShowStats | ToggleStats | ShowProgress | ToggleHelp | TogglePse => Group::Information,
    }
}

/// What a command does, in a few words.
pub fn describe(command: &Command) -> String {
    use Command::*;
    let signed = |n: f64| if n > 0.0 { format!("+{n}") } else { format!("{n}") };
    let seconds = |s: f64| match s.abs() {
        s if s >= 60.0 && s % 60.0 == 0.0 => format!("{} min", s / 60.0),
        s => format!("{s} s"),
    };
    let how = |exact: bool| if exact { "exactly" } else { "to a keyframe" };
    match command {
        TogglePause => "Pause or play".into(),
        Pause => "Pause".into(),
        Resume => "Play".into(),
        SeekBy { seconds: s, exact } => {
            let way = if *s < 0.0 { "back" } else { "forward" };
            format!("Seek {way} {}, {}", seconds(*s), how(*exact))
        }
        SeekStart => "Go to the start".into(),
        SeekTo { seconds: s, .. } if *s == 0.0 => "Go to the start".into(),
        SeekTo { seconds: s, exact } => format!("Go to {s} s, {}", how(*exact)),
        SeekPercent { percent, exact } => format!("Go to {percent}% of the file, {}", how(*exact)),
        SeekEnd => "Go to the last frame".into(),
        SeekFrame(n) => format!("Go to frame {n}"),
        StepForward => "Step one frame forward (and pause)".into(),
        StepBack => "Step one frame back (and pause)".into(),
        SpeedBy(f) if *f > 1.0 => format!("Play faster (speed ×{})", round(*f)),
        SpeedBy(f) => format!("Play slower (speed ÷{})", round(1.0 / f)),
        SpeedSet(s) => format!("Set the speed to {s}"),
        SpeedReset => "Normal speed".into(),
        ToggleFullscreen => "Fullscreen on or off".into(),
        LeaveFullscreen => "Leave fullscreen".into(),
        CycleQuads => "Histograms: both quads, RGB only, luminance only, none".into(),
        CycleScope => "Scopes: none, waveform, parade, vectorscope".into(),
        ClearRegion => "Count the whole frame again (after a right-drag region)".into(),
        ToggleTimeline => "The histogram timeline under the picture (comparing: each pair's VMAF too)".into(),
        ToggleMeters => "Audio meters and loudness".into(),
        TogglePse => "Photosensitivity: the PSE lamp and row, the flashing regions".into(),
        SetRegion(_) => "Count only a region (right-drag on the picture)".into(),
        ToggleLogScale => "Histogram heights: linear or logarithmic".into(),
        ToggleFit => "Picture: cover the window or fit inside it".into(),
        Screenshot => "Screenshot of what is on screen, overlay included (PNG)".into(),
        VolumeBy(n) => format!("Volume {}", signed(f64::from(*n))),
        ToggleMute => "Mute on or off".into(),
        CycleAudio => "The file's next audio stream (then none)".into(),
        Adjust(a, n) => format!("{} {}", adjustment(*a), signed(f64::from(*n))),
        SetAdjustment(a, n) => format!("Set {} to {n}", adjustment(*a).to_lowercase()),
        ToggleAutoLevels => "Auto-levels on or off".into(),
        ToggleEqualize => "Histogram equalisation on or off".into(),
        ResetAdjustments => "Every picture adjustment back to neutral".into(),
        ToggleLut => "The picture through the LUT, or as decoded".into(),
        CycleDeinterlace => "Deinterlace: no, yes, or only frames flagged interlaced".into(),
        CycleFieldView => {
            "Fields: the frame, apart (top above bottom), the top or the bottom field counted alone, each alone line-doubled".into()
        }
        ToggleScopesOn => "Scopes and histograms count the signal or the picture (with a LUT)".into(),
        CycleInputColour => "Read the signal as the next camera log encoding".into(),
        SetInputColour(c) => format!("Read the signal as {}", input_colour(*c)),
        AbLoop => "A-B loop: set A, set B, clear".into(),
        ToggleLoopFile => "Loop the file on or off".into(),
        ChapterBy(n) if *n > 0 => "Next chapter".into(),
        ChapterBy(_) => "Previous chapter".into(),
        PlaylistNext => "Next file".into(),
        PlaylistPrev => "Previous file".into(),
        ShowPlaylist => "Show the playlist".into(),
        ShowStats => "Stats for a few seconds".into(),
        ToggleStats => "Stats on or off".into(),
        ShowProgress => "Show the position and the seek bar".into(),
        ToggleHelp => "This list: every command and its keys".into(),
        Open(_) => "Open files (drop them on the window)".into(),
        CycleCompareMode => "Comparing: wipe, side by side, difference, VIF loss".into(),
        Flicker => "Comparing: flicker between A and B".into(),
        CompareGainBy(f) if *f > 1.0 => format!("Comparing: difference (and VIF loss) gain ×{}", round(*f)),
        CompareGainBy(f) => format!("Comparing: difference (and VIF loss) gain ÷{}", round(1.0 / f)),
        CompareOffsetBy(n) => format!(
            "Comparing: pair B {} {}",
            crate::terminal::counted(n.unsigned_abs() as usize, "frame"),
            if *n < 0 { "earlier" } else { "later" }
        ),
        CycleVectorscopeZoom => "Vectorscope zoom: ×1, ×2, ×4".into(),
        CycleWaveformScale => "Waveform graticule: percent, code values, nits".into(),
        ToggleMark(mark) => format!("{} on or off", mark_title(*mark)),
        ZebraBy(n) => format!("Zebra level {}%", signed(*n)),
        PeakingBy(n) => format!("Peaking sensitivity {}%", signed(*n)),
        Quit => "Quit".into(),
        QuitWithStatus(status) => format!("Quit with exit status {status}"),
        QuitWatchLater => "Quit, keeping the position to resume from".into(),
    }
}

fn input_colour(colour: crate::colour::log::InputColour) -> &'static str {
    use crate::colour::log::InputColour;
    match colour {
        InputColour::Auto => "its metadata says",
        InputColour::Video => "video (no log encoding)",
        InputColour::Log(encoding) => encoding.name(),
    }
}

fn round(f: f64) -> f64 {
    (f * 100.0).round() / 100.0
}

fn adjustment(a: Adjustment) -> &'static str {
    match a {
        Adjustment::Contrast => "Contrast",
        Adjustment::Brightness => "Brightness",
        Adjustment::Gamma => "Gamma",
        Adjustment::Saturation => "Saturation",
    }
}

fn mark_title(mark: crate::marks::Mark) -> &'static str {
    use crate::marks::Mark;
    match mark {
        Mark::FalseColour => "False colour",
        Mark::Zebra => "Zebras",
        Mark::Peaking => "Focus peaking",
        Mark::Gamut => "Gamut warning",
        Mark::Range => "Broadcast-range warning",
    }
}
