//! What the viewer asked for, as data: keys and the mouse wheel become `Command`s here, with
//! mpv's default bindings. Pure functions, so the bindings are tested without a window.

use std::path::PathBuf;
use winit::event::MouseScrollDelta;
use winit::keyboard::{Key, ModifiersState, NamedKey};

/// Seconds a plain arrow, Shift+arrow, Up/Down and one wheel notch seek (mpv's defaults).
pub const ARROW_SEEK: f64 = 5.0;
pub const SHIFT_ARROW_SEEK: f64 = 1.0;
pub const UP_DOWN_SEEK: f64 = 60.0;
pub const WHEEL_SEEK: f64 = 5.0;

/// Speed factors of `[` `]` and `{` `}`.
pub const SPEED_STEP: f64 = 1.1;
pub const SPEED_DOUBLE: f64 = 2.0;

/// Percent of volume per `9` / `0` press (mpv's step is 2; histoplay's volume has 10 steps).
pub const VOLUME_STEP: i32 = 10;

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
    SeekStart,
    SeekEnd,
    StepForward,
    StepBack,
    /// Multiply the speed.
    SpeedBy(f64),
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
    Open(PathBuf),
    Quit,
}

impl Command {
    /// Whether holding the key down should repeat the command (seeks and steps do, as in mpv;
    /// toggles would flicker).
    pub fn repeats(&self) -> bool {
        matches!(
            self,
            Command::SeekBy { .. }
                | Command::StepForward
                | Command::StepBack
                | Command::SpeedBy(_)
                | Command::VolumeBy(_)
        )
    }
}

/// The command bound to a key press, if any. Arrow seeks are exact: in a scopes tool the frame
/// you land on is the one whose histogram you wanted, not the keyframe before it.
pub fn key_command(key: &Key, modifiers: ModifiersState, fullscreen: bool) -> Option<Command> {
    let shift = modifiers.shift_key();
    let seek = |seconds| Some(Command::SeekBy { seconds, exact: true });
    match key {
        Key::Named(named) => match named {
            NamedKey::Space => Some(Command::TogglePause),
            NamedKey::ArrowLeft if shift => seek(-SHIFT_ARROW_SEEK),
            NamedKey::ArrowRight if shift => seek(SHIFT_ARROW_SEEK),
            NamedKey::ArrowLeft => seek(-ARROW_SEEK),
            NamedKey::ArrowRight => seek(ARROW_SEEK),
            NamedKey::ArrowUp => seek(UP_DOWN_SEEK),
            NamedKey::ArrowDown => seek(-UP_DOWN_SEEK),
            NamedKey::Backspace => Some(Command::SpeedReset),
            NamedKey::Home => Some(Command::SeekStart),
            NamedKey::End => Some(Command::SeekEnd),
            NamedKey::Escape if fullscreen => Some(Command::LeaveFullscreen),
            _ => None,
        },
        // Logical keys already carry Shift: Shift+[ arrives as "{".
        Key::Character(text) => match text.as_str() {
            "p" => Some(Command::TogglePause),
            "." => Some(Command::StepForward),
            "," => Some(Command::StepBack),
            "[" => Some(Command::SpeedBy(1.0 / SPEED_STEP)),
            "]" => Some(Command::SpeedBy(SPEED_STEP)),
            "{" => Some(Command::SpeedBy(1.0 / SPEED_DOUBLE)),
            "}" => Some(Command::SpeedBy(SPEED_DOUBLE)),
            "f" => Some(Command::ToggleFullscreen),
            "q" => Some(Command::Quit),
            "s" => Some(Command::Screenshot),
            "h" => Some(Command::CycleQuads),
            // mpv binds w to panscan and r to subtitle position, which histoplay does not have.
            "w" => Some(Command::CycleScope),
            "r" => Some(Command::ClearRegion),
            // mpv's t moves subtitles.
            "t" => Some(Command::ToggleTimeline),
            "l" => Some(Command::ToggleLogScale),
            "c" => Some(Command::ToggleFit),
            "9" | "/" => Some(Command::VolumeBy(-VOLUME_STEP)),
            "0" | "*" => Some(Command::VolumeBy(VOLUME_STEP)),
            "m" => Some(Command::ToggleMute),
            _ => None,
        },
        _ => None,
    }
}

/// Turns wheel motion into whole notches: line deltas are notches already, touchpads send
/// pixels, which add up until they make one.
#[derive(Debug, Default)]
pub struct WheelNotches {
    pixels: f64,
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

    /// The seek the motion asks for, if it completed a notch. Up (away from the user) seeks
    /// forward, as in mpv.
    pub fn command(&mut self, delta: MouseScrollDelta) -> Option<Command> {
        let notches = match delta {
            MouseScrollDelta::LineDelta(..) if std::mem::take(&mut self.release_pending) => return None,
            MouseScrollDelta::LineDelta(_, y) => f64::from(y).round(),
            MouseScrollDelta::PixelDelta(position) => {
                self.pixels += position.y;
                let whole = (self.pixels / Self::PIXELS_PER_NOTCH).trunc();
                self.pixels -= whole * Self::PIXELS_PER_NOTCH;
                whole
            }
        };
        (notches != 0.0).then_some(Command::SeekBy {
            seconds: notches * WHEEL_SEEK,
            exact: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use winit::dpi::PhysicalPosition;

    fn press(key: Key) -> Option<Command> {
        key_command(&key, ModifiersState::empty(), false)
    }

    fn char(c: &str) -> Key {
        Key::Character(c.into())
    }

    #[test]
    fn mpv_bindings() {
        assert_eq!(press(Key::Named(NamedKey::Space)), Some(Command::TogglePause));
        assert_eq!(press(char("p")), Some(Command::TogglePause));
        assert_eq!(press(char(".")), Some(Command::StepForward));
        assert_eq!(press(char(",")), Some(Command::StepBack));
        assert_eq!(press(char("]")), Some(Command::SpeedBy(1.1)));
        assert_eq!(press(char("[")), Some(Command::SpeedBy(1.0 / 1.1)));
        assert_eq!(press(char("}")), Some(Command::SpeedBy(2.0)));
        assert_eq!(press(char("{")), Some(Command::SpeedBy(0.5)));
        assert_eq!(press(Key::Named(NamedKey::Backspace)), Some(Command::SpeedReset));
        assert_eq!(press(Key::Named(NamedKey::Home)), Some(Command::SeekStart));
        assert_eq!(press(Key::Named(NamedKey::End)), Some(Command::SeekEnd));
        assert_eq!(press(char("q")), Some(Command::Quit));
        assert_eq!(press(char("s")), Some(Command::Screenshot));
        assert_eq!(press(char("h")), Some(Command::CycleQuads));
        assert_eq!(press(char("w")), Some(Command::CycleScope));
        assert_eq!(press(char("r")), Some(Command::ClearRegion));
        assert_eq!(press(char("t")), Some(Command::ToggleTimeline));
        assert_eq!(press(char("l")), Some(Command::ToggleLogScale));
        assert_eq!(press(char("c")), Some(Command::ToggleFit));
        assert_eq!(press(char("f")), Some(Command::ToggleFullscreen));
        assert_eq!(press(char("9")), Some(Command::VolumeBy(-10)));
        assert_eq!(press(char("/")), Some(Command::VolumeBy(-10)));
        assert_eq!(press(char("0")), Some(Command::VolumeBy(10)));
        assert_eq!(press(char("*")), Some(Command::VolumeBy(10)));
        assert_eq!(press(char("m")), Some(Command::ToggleMute));
        assert_eq!(press(char("x")), None);
        assert_eq!(press(char("W")), None);
        assert_eq!(press(Key::Named(NamedKey::F1)), None);
    }

    #[test]
    fn arrows_seek_exactly_by_mpv_amounts() {
        let seek = |seconds| Some(Command::SeekBy { seconds, exact: true });
        assert_eq!(press(Key::Named(NamedKey::ArrowLeft)), seek(-5.0));
        assert_eq!(press(Key::Named(NamedKey::ArrowRight)), seek(5.0));
        assert_eq!(press(Key::Named(NamedKey::ArrowUp)), seek(60.0));
        assert_eq!(press(Key::Named(NamedKey::ArrowDown)), seek(-60.0));
        let shifted = |named| key_command(&Key::Named(named), ModifiersState::SHIFT, false);
        assert_eq!(shifted(NamedKey::ArrowLeft), seek(-1.0));
        assert_eq!(shifted(NamedKey::ArrowRight), seek(1.0));
    }

    #[test]
    fn escape_only_leaves_fullscreen() {
        let esc = Key::Named(NamedKey::Escape);
        assert_eq!(key_command(&esc, ModifiersState::empty(), false), None);
        assert_eq!(
            key_command(&esc, ModifiersState::empty(), true),
            Some(Command::LeaveFullscreen)
        );
    }

    #[test]
    fn seeks_and_steps_repeat_but_toggles_do_not() {
        assert!(Command::StepForward.repeats());
        assert!(Command::SeekBy {
            seconds: 5.0,
            exact: true
        }
        .repeats());
        assert!(!Command::TogglePause.repeats());
        assert!(!Command::Screenshot.repeats());
        assert!(!Command::Quit.repeats());
    }

    #[test]
    fn wheel_notches_seek_five_seconds() {
        let mut wheel = WheelNotches::default();
        let seek = |seconds| Some(Command::SeekBy { seconds, exact: true });
        let line = |y| MouseScrollDelta::LineDelta(0.0, y);
        assert_eq!(wheel.command(line(1.0)), seek(5.0));
        assert_eq!(wheel.command(line(-2.0)), seek(-10.0));
        assert_eq!(wheel.command(MouseScrollDelta::LineDelta(1.0, 0.0)), None);
        // Touchpad pixels add up to a notch.
        let px = |y| MouseScrollDelta::PixelDelta(PhysicalPosition::new(0.0, y));
        assert_eq!(wheel.command(px(30.0)), None);
        assert_eq!(wheel.command(px(30.0)), seek(5.0));
        assert_eq!(wheel.command(px(-20.0)), None);
        assert_eq!(wheel.command(px(-50.0)), seek(-5.0));
    }

    #[test]
    fn a_wheel_button_counts_once_though_winit_reports_its_release() {
        let seek = |seconds| Some(Command::SeekBy { seconds, exact: true });
        let down = MouseScrollDelta::LineDelta(0.0, -1.0);
        let mut wheel = WheelNotches::default();
        for _ in 0..2 {
            wheel.raw_button(false);
            assert_eq!(wheel.command(down), seek(-5.0));
            wheel.raw_button(true);
            assert_eq!(wheel.command(down), None);
        }
        // Smooth scrolling has no raw buttons: every event is a notch.
        assert_eq!(wheel.command(down), seek(-5.0));
        assert_eq!(wheel.command(down), seek(-5.0));
    }
}
