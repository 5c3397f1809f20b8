use super::*;
use crate::marks::Mark;
use crate::player::bindings::*;
use winit::dpi::PhysicalPosition;
use winit::event::MouseScrollDelta;
use winit::keyboard::{Key, KeyLocation, ModifiersState, NamedKey};

/// mpv's default bindings (its `etc/input.conf`) for every function histoplay has, verbatim.
const MPV_DEFAULTS: &[(&str, &str)] = &[
    ("MBTN_LEFT_DBL", "cycle fullscreen"),
    ("MBTN_RIGHT", "cycle pause"),
    ("MBTN_BACK", "playlist-prev"),
    ("MBTN_FORWARD", "playlist-next"),
    ("WHEEL_UP", "add volume 2"),
    ("WHEEL_DOWN", "add volume -2"),
    ("Shift+RIGHT", "no-osd seek  1 exact"),
    ("Shift+LEFT", "no-osd seek -1 exact"),
    ("Shift+UP", "no-osd seek  5 exact"),
    ("Shift+DOWN", "no-osd seek -5 exact"),
    ("PGUP", "add chapter 1"),
    ("PGDWN", "add chapter -1"),
    ("[", "multiply speed 1/1.1"),
    ("]", "multiply speed 1.1"),
    ("{", "multiply speed 0.5"),
    ("}", "multiply speed 2.0"),
    ("BS", "set speed 1.0"),
    ("q", "quit"),
    ("ESC", "set fullscreen no"),
    ("p", "cycle pause"),
    (".", "frame-step"),
    (",", "frame-back-step"),
    ("SPACE", "cycle pause"),
    (">", "playlist-next"),
    ("ENTER", "playlist-next"),
    ("<", "playlist-prev"),
    ("o", "show-progress"),
    ("P", "show-progress"),
    ("i", "script-binding stats/display-stats"),
    ("I", "script-binding stats/display-stats-toggle"),
    ("9", "add volume -2"),
    ("/", "add volume -2"),
    ("KP_DIVIDE", "add volume -2"),
    ("0", "add volume 2"),
    ("*", "add volume 2"),
    ("KP_MULTIPLY", "add volume 2"),
    ("m", "cycle mute"),
    ("1", "add contrast -1"),
    ("2", "add contrast 1"),
    ("3", "add brightness -1"),
    ("4", "add brightness 1"),
    ("5", "add gamma -1"),
    ("6", "add gamma 1"),
    ("7", "add saturation -1"),
    ("8", "add saturation 1"),
    ("f", "cycle fullscreen"),
    ("s", "screenshot"),
    ("PLAY", "cycle pause"),
    ("PAUSE", "cycle pause"),
    ("PLAYPAUSE", "cycle pause"),
    ("PLAYONLY", "set pause no"),
    ("PAUSEONLY", "set pause yes"),
    ("STOP", "quit"),
    ("NEXT", "playlist-next"),
    ("PREV", "playlist-prev"),
    ("VOLUME_UP", "add volume 2"),
    ("VOLUME_DOWN", "add volume -2"),
    ("MUTE", "cycle mute"),
    ("ctrl+w", "quit"),
    ("l", "ab-loop"),
    ("L", "cycle-values loop-file \"inf\" \"no\""),
    ("ctrl+c", "quit 4"),
    ("F8", "show-text ${playlist}"),
    ("Q", "quit-watch-later"),
    ("?", "script-binding stats/display-page-4-toggle"),
];

/// mpv's keyframe seeks that histoplay makes exact (the README says why).
const MPV_KEYFRAME_SEEKS: &[(&str, f64)] = &[
    ("RIGHT", 5.0),
    ("LEFT", -5.0),
    ("UP", 60.0),
    ("DOWN", -60.0),
    ("WHEEL_LEFT", -10.0),
    ("WHEEL_RIGHT", 10.0),
    ("Shift+PGUP", 600.0),
    ("Shift+PGDWN", -600.0),
    ("FORWARD", 60.0),
    ("REWIND", -60.0),
];

/// Keys mpv binds by default, whatever to: histoplay's own functions must not take them.
const MPV_BOUND: &[&str] = &[
    "b", "d", "e", "g", "j", "J", "r", "R", "t", "T", "u", "v", "V", "w", "W", "x", "z", "Z", "A", "E", "F", "G", "O",
    "S", "`", "#", "_", "Alt+BS", "Shift+BS", "Ctrl+h", "DEL", "F9",
];

fn bindings() -> Bindings {
    Bindings::default()
}

fn bound(key: &str) -> Vec<Command> {
    bindings().commands(&Chord::parse(key).expect(key)).to_vec()
}

#[test]
fn the_defaults_parse_without_warnings() {
    let (_, warnings) = Bindings::empty().with_conf(DEFAULT_BINDINGS, "defaults");
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn every_mpv_default_histoplay_has_does_what_mpv_does() {
    for (key, mpv) in MPV_DEFAULTS {
        let expected = parse_commands(mpv).unwrap_or_else(|e| panic!("{key} {mpv}: {e:?}"));
        assert_eq!(expected.len(), 1, "{mpv}");
        assert_eq!(bound(key), expected, "{key}");
    }
}

#[test]
fn mpv_keyframe_seeks_are_exact_here() {
    for (key, seconds) in MPV_KEYFRAME_SEEKS {
        let mpv = parse_commands(&format!("seek {seconds}")).unwrap();
        assert_eq!(
            mpv,
            vec![Command::SeekBy {
                seconds: *seconds,
                exact: false
            }]
        );
        assert_eq!(
            bound(key),
            vec![Command::SeekBy {
                seconds: *seconds,
                exact: true
            }],
            "{key}"
        );
    }
}

#[test]
fn histoplays_own_functions_sit_on_keys_mpv_leaves_free() {
    let own = [
        ("h", Command::CycleQuads),
        ("H", Command::CycleScope),
        ("y", Command::ToggleLogScale),
        ("c", Command::ToggleFit),
        ("TAB", Command::ToggleTimeline),
        ("Alt+p", Command::TogglePse),
        ("Alt+d", Command::CycleFieldView),
        ("Ctrl+r", Command::ClearRegion),
        ("a", Command::ToggleAutoLevels),
        ("n", Command::ToggleEqualize),
        ("Ctrl+BS", Command::ResetAdjustments),
        ("Ctrl+l", Command::ToggleLut),
        ("Alt+l", Command::ToggleScopesOn),
        ("Alt+i", Command::CycleInputColour),
        (
            "HOME",
            Command::SeekTo {
                seconds: 0.0,
                exact: true,
            },
        ),
        ("END", Command::SeekEnd),
        ("C", Command::CycleCompareMode),
        ("B", Command::Flicker),
        ("k", Command::CompareGainBy(0.5)),
        ("K", Command::CompareGainBy(2.0)),
        ("Ctrl+,", Command::CompareOffsetBy(-1)),
        ("Ctrl+.", Command::CompareOffsetBy(1)),
        ("Y", Command::ToggleMark(Mark::FalseColour)),
        ("X", Command::ToggleMark(Mark::Zebra)),
        ("Alt+x", Command::ZebraBy(-1.0)),
        ("Alt+X", Command::ZebraBy(1.0)),
        ("U", Command::ToggleMark(Mark::Peaking)),
        ("Alt+u", Command::PeakingBy(-1.0)),
        ("Alt+U", Command::PeakingBy(1.0)),
        ("D", Command::ToggleMark(Mark::Gamut)),
        ("N", Command::ToggleMark(Mark::Range)),
        ("Alt+z", Command::CycleVectorscopeZoom),
        ("M", Command::CycleWaveformScale),
        ("Alt+m", Command::ToggleMeters),
        ("F1", Command::ToggleHelp),
        ("MENU", Command::ToggleHelp),
    ];
    let mpv_keys: Vec<Chord> = MPV_DEFAULTS
        .iter()
        .map(|(k, _)| *k)
        .chain(MPV_KEYFRAME_SEEKS.iter().map(|(k, _)| *k))
        .chain(MPV_BOUND.iter().copied())
        .map(|k| Chord::parse(k).expect(k))
        .collect();
    for (key, command) in &own {
        assert_eq!(bound(key), vec![command.clone()], "{key}");
        let chord = Chord::parse(key).unwrap();
        assert!(!mpv_keys.contains(&chord), "{key} is one of mpv's keys");
    }
    // Everything bound is either mpv's or histoplay's own.
    let own_keys: Vec<Chord> = own.iter().map(|(k, _)| Chord::parse(k).unwrap()).collect();
    for chord in bindings().map.keys() {
        assert!(
            mpv_keys.contains(chord) || own_keys.contains(chord),
            "{chord:?} is bound but in no table"
        );
    }
    // The keys histoplay used to take from mpv are mpv's (or free) again.
    for key in ["w", "t", "r"] {
        assert_eq!(bound(key), vec![], "{key}");
    }
}

#[test]
fn key_presses_find_their_chords() {
    let b = bindings();
    let none = ModifiersState::empty();
    let char = |c: &str| Key::Character(c.into());
    let standard = KeyLocation::Standard;
    assert_eq!(b.key(&char("l"), standard, none), [Command::AbLoop]);
    assert_eq!(
        b.key(&char("L"), standard, ModifiersState::SHIFT),
        [Command::ToggleLoopFile]
    );
    assert_eq!(
        b.key(&Key::Named(NamedKey::ArrowUp), standard, ModifiersState::SHIFT),
        [Command::SeekBy {
            seconds: 5.0,
            exact: true
        }]
    );
    assert_eq!(b.key(&char("w"), standard, ModifiersState::CONTROL), [Command::Quit]);
    assert_eq!(
        b.key(&char("r"), standard, ModifiersState::CONTROL),
        [Command::ClearRegion]
    );
    assert_eq!(b.key(&char("r"), standard, none), []);
    // The keypad's keys are its own, as in mpv.
    assert_eq!(b.key(&char("*"), KeyLocation::Numpad, none), [Command::VolumeBy(2)]);
    assert_eq!(b.key(&char("1"), KeyLocation::Numpad, none), []);
    assert_eq!(
        b.key(&char("1"), standard, none),
        [Command::Adjust(Adjustment::Contrast, -1)]
    );
    assert_eq!(
        b.key(&Key::Named(NamedKey::Tab), standard, none),
        [Command::ToggleTimeline]
    );
    assert_eq!(b.key(&Key::Named(NamedKey::F1), standard, none), [Command::ToggleHelp]);
    assert_eq!(
        b.key(&Key::Named(NamedKey::ContextMenu), standard, none),
        [Command::ToggleHelp]
    );
    assert_eq!(b.key(&Key::Named(NamedKey::F2), standard, none), []);
    assert_eq!(b.mouse(Mouse::WheelUp, none), [Command::VolumeBy(2)]);
    assert_eq!(b.mouse(Mouse::Middle, none), []);
}

#[test]
fn chords_parse_as_mpv_writes_them() {
    let chord = |k| Chord::parse(k);
    assert_eq!(chord("shift+a"), chord("A"));
    assert_eq!(chord("Shift+{"), chord("{"));
    assert_eq!(chord("ctrl+KP_ADD"), chord("Ctrl+kp_add"));
    assert_eq!(chord("SHARP").unwrap().key, "#");
    assert_eq!(chord("+").unwrap().key, "+");
    let ctrl_plus = chord("Ctrl++").unwrap();
    assert!(ctrl_plus.ctrl);
    assert_eq!(ctrl_plus.key, "+");
    assert_eq!(chord("NOSUCHKEY"), None);
    assert_eq!(chord("Hyper+x"), None);
    assert_ne!(chord("Shift+RIGHT"), chord("RIGHT"));
}

#[test]
fn commands_parse_with_mpv_prefixes_quotes_and_lists() {
    assert_eq!(
        parse_commands("no-osd seek 2 exact; osd-bar add volume +4"),
        Ok(vec![
            Command::SeekBy {
                seconds: 2.0,
                exact: true
            },
            Command::VolumeBy(4)
        ])
    );
    assert_eq!(
        parse_commands("seek 50 absolute-percent"),
        Ok(vec![Command::SeekPercent {
            percent: 50.0,
            exact: true
        }])
    );
    assert_eq!(
        parse_commands("seek 12.5 absolute keyframes"),
        Ok(vec![Command::SeekTo {
            seconds: 12.5,
            exact: false
        }])
    );
    assert_eq!(parse_commands("set speed 1.5"), Ok(vec![Command::SpeedSet(1.5)]));
    assert_eq!(
        parse_commands("set saturation -100"),
        Ok(vec![Command::SetAdjustment(Adjustment::Saturation, -100)])
    );
    assert_eq!(parse_commands("ignore"), Ok(vec![]));
    assert_eq!(parse_commands("cycle loop-file"), Ok(vec![Command::ToggleLoopFile]));
    assert!(parse_commands("add sub-delay 0.1").is_err());
    assert!(parse_commands("seek").is_err());
    assert!(parse_commands("multiply speed 0").is_err());
    assert!(parse_commands("seek 5 relative-percent").is_err());
}

#[test]
fn a_conf_rebinds_unbinds_and_warns_by_line() {
    let conf = "# my keys\n\
                x frame-step   # step with x\n\
                SPACE ignore\n\
                z add sub-delay 0.1\n\
                Hyper+q quit\n\
                \n\
                Ctrl+SHARP show-text \"a # inside\"; cycle pause\n\
                F2 cycle pause # ; not a second command\n\
                p   # a key alone\n";
    let (b, warnings) = bindings().with_conf(conf, "input.conf");
    assert_eq!(b.commands(&Chord::parse("x").unwrap()), [Command::StepForward]);
    assert_eq!(b.commands(&Chord::parse("SPACE").unwrap()), []);
    // Other defaults stay.
    assert_eq!(b.commands(&Chord::parse("p").unwrap()), [Command::TogglePause]);
    assert_eq!(b.commands(&Chord::parse("F2").unwrap()), [Command::TogglePause]);
    assert_eq!(
        warnings,
        [
            "input.conf, line 4: unknown command 'add sub-delay 0.1'",
            "input.conf, line 5: unknown key 'Hyper+q'",
            "input.conf, line 7: unknown command 'show-text \"a # inside\"'",
            "input.conf, line 9: 'p' has no command (`p ignore` unbinds it)",
        ]
    );
    assert_eq!(b.commands(&Chord::parse("z").unwrap()), []);
    // Shift on a digit binds the digit, as mpv reads it, with a warning; Shift on a letter is
    // its capital, without one.
    let (b, warnings) = bindings().with_conf("Shift+1 frame-step\nshift+x frame-step\n", "input.conf");
    assert_eq!(b.commands(&Chord::parse("1").unwrap()), [Command::StepForward]);
    assert_eq!(b.commands(&Chord::parse("X").unwrap()), [Command::StepForward]);
    assert_eq!(
        warnings,
        ["input.conf, line 1: 'Shift+1' binds '1', as mpv reads it (the character Shift types is written instead: '!', not Shift+1)"]
    );
}

#[test]
fn seeks_steps_and_adjustments_repeat_but_toggles_do_not() {
    assert!(Command::StepForward.repeats());
    assert!(Command::SeekBy {
        seconds: 5.0,
        exact: true
    }
    .repeats());
    assert!(Command::Adjust(Adjustment::Gamma, 1).repeats());
    assert!(!Command::TogglePause.repeats());
    assert!(!Command::AbLoop.repeats());
    assert!(!Command::Screenshot.repeats());
    assert!(!Command::Quit.repeats());
}

#[test]
fn wheel_notches_by_direction() {
    let mut wheel = WheelNotches::default();
    let line = |x, y| MouseScrollDelta::LineDelta(x, y);
    assert_eq!(wheel.notches(line(0.0, 1.0)), [Mouse::WheelUp]);
    assert_eq!(wheel.notches(line(0.0, -2.0)), [Mouse::WheelDown, Mouse::WheelDown]);
    assert_eq!(wheel.notches(line(1.0, 0.0)), [Mouse::WheelLeft]);
    assert_eq!(wheel.notches(line(-1.0, 0.0)), [Mouse::WheelRight]);
    // Touchpad pixels add up to a notch, each axis on its own.
    let px = |x, y| MouseScrollDelta::PixelDelta(PhysicalPosition::new(x, y));
    assert_eq!(wheel.notches(px(0.0, 30.0)), []);
    assert_eq!(wheel.notches(px(40.0, 30.0)), [Mouse::WheelUp]);
    assert_eq!(wheel.notches(px(20.0, -20.0)), [Mouse::WheelLeft]);
    assert_eq!(wheel.notches(px(0.0, -50.0)), [Mouse::WheelDown]);
}

#[test]
fn a_wheel_button_counts_once_though_winit_reports_its_release() {
    let down = MouseScrollDelta::LineDelta(0.0, -1.0);
    let mut wheel = WheelNotches::default();
    for _ in 0..2 {
        wheel.raw_button(false);
        assert_eq!(wheel.notches(down), [Mouse::WheelDown]);
        wheel.raw_button(true);
        assert_eq!(wheel.notches(down), []);
    }
    // Smooth scrolling has no raw buttons: every event is a notch.
    assert_eq!(wheel.notches(down), [Mouse::WheelDown]);
    assert_eq!(wheel.notches(down), [Mouse::WheelDown]);
}

#[test]
fn quit_with_a_number_exits_with_it_as_mpv_does() {
    assert_eq!(parse_commands("quit").unwrap(), [Command::Quit]);
    assert_eq!(parse_commands("quit 7").unwrap(), [Command::QuitWithStatus(7)]);
    // The system keeps a status's low 8 bits.
    assert_eq!(parse_commands("quit 263").unwrap(), [Command::QuitWithStatus(7)]);
    assert_eq!(bound("Ctrl+c"), [Command::QuitWithStatus(4)]);
}
