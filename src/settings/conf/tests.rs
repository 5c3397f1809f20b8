use super::*;

fn command() -> clap::Command {
    <crate::cli::Cli as clap::CommandFactory>::command()
}

fn read(text: &str) -> (Settings, Vec<String>) {
    let mut settings = Settings::default();
    let mut warnings = Vec::new();
    settings.read_text(text, Path::new("/conf/histoplay.conf"), &mut warnings);
    (settings, warnings)
}

fn args(applied: &Applied) -> Vec<&str> {
    applied.args.iter().map(|a| a.to_str().unwrap()).collect()
}

#[test]
fn options_flags_and_their_negations_become_command_line_options() {
    let (mut settings, warnings) = read(
        "# a comment\n\
         speed=1.5\n\
         \n\
         --contrast = -10   # mpv allows the dashes\n\
         meters\n\
         loop-file=yes\n\
         loop-file=no\n\
         audio=no\n\
         overlay=\"zebra,peaking\"\n",
    );
    assert!(warnings.is_empty());
    let applied = settings.apply(&[], &command());
    assert_eq!(
        args(&applied),
        [
            "--speed=1.5",
            "--contrast=-10",
            "--meters",
            "--no-audio",
            "--overlay=zebra,peaking"
        ]
    );
    assert!(applied.warnings.is_empty(), "{:?}", applied.warnings);
}

#[test]
fn an_option_is_also_set_by_its_other_name() {
    // mpv's --fs is --fullscreen too.
    let (mut settings, warnings) = read("fullscreen=yes\npause\n");
    assert!(warnings.is_empty());
    let applied = settings.apply(&[], &command());
    assert_eq!(args(&applied), ["--fullscreen", "--pause"]);
    assert!(applied.warnings.is_empty(), "{:?}", applied.warnings);
    let parsed = <crate::cli::Cli as clap::Parser>::try_parse_from(
        ["histoplay"]
            .into_iter()
            .map(std::ffi::OsString::from)
            .chain(applied.args),
    );
    assert!(parsed.is_ok(), "{:?}", parsed.err());
}

#[test]
fn a_bad_line_is_named_with_its_file_and_line_and_the_rest_apply() {
    let (mut settings, warnings) = read("speed=fast\nno-such-option=1\nspeed=2\ncontrast\nmeters=maybe\n[broken\n");
    assert_eq!(
        warnings,
        ["/conf/histoplay.conf, line 6: '[broken' is not a [section] name"]
    );
    let applied = settings.apply(&[], &command());
    assert_eq!(args(&applied), ["--speed=2"]);
    assert_eq!(applied.warnings.len(), 4, "{:?}", applied.warnings);
    assert!(
        applied.warnings[0].starts_with("/conf/histoplay.conf, line 1: "),
        "{:?}",
        applied.warnings
    );
    assert!(applied.warnings[0].contains("fast"), "{:?}", applied.warnings);
    assert_eq!(
        applied.warnings[1],
        "/conf/histoplay.conf, line 2: unknown option 'no-such-option'"
    );
    assert_eq!(
        applied.warnings[2],
        "/conf/histoplay.conf, line 4: 'contrast' needs a value (contrast=...)"
    );
    assert_eq!(
        applied.warnings[3],
        "/conf/histoplay.conf, line 5: 'meters' is on or off (yes or no), not 'maybe'"
    );
}

#[test]
fn profiles_apply_when_named_after_the_top_and_may_name_others() {
    let (mut settings, warnings) = read(
        "speed=1.5\n\
         [grading]\n\
         profile-desc=\"for the colourist\"\n\
         overlay=false-colour\n\
         profile=loud\n\
         [loud]\n\
         meters\n\
         [default]\n\
         contrast=5\n",
    );
    assert!(warnings.is_empty());
    assert_eq!(
        settings.profiles(),
        [
            ("grading".to_string(), Some("for the colourist".to_string())),
            ("loud".to_string(), None)
        ]
    );
    let applied = settings.apply(&["grading".to_string()], &command());
    assert_eq!(
        args(&applied),
        ["--speed=1.5", "--contrast=5", "--overlay=false-colour", "--meters"]
    );
    let applied = settings.apply(&["nope".to_string()], &command());
    assert_eq!(applied.warnings, ["--profile: no profile named 'nope'"]);
    // A profile that names itself, directly or through others, is left out there, with a
    // warning each time.
    let (mut settings, _) = read("[a]\nprofile=a\n");
    let applied = settings.apply(&["a".to_string()], &command());
    assert_eq!(
        applied.warnings,
        ["/conf/histoplay.conf, line 2: profile 'a' names itself (a → a): left out there"]
    );
    let (mut settings, _) = read("[a]\nprofile=b,b,b\nmeters\n[b]\nprofile=a,a\nspeed=2\n");
    let applied = settings.apply(&["a".to_string()], &command());
    assert_eq!(applied.warnings.len(), 6, "{:?}", applied.warnings);
    assert!(applied.warnings[0].ends_with("profile 'a' names itself (a → b → a): left out there"));
    assert_eq!(args(&applied), ["--speed=2", "--speed=2", "--speed=2", "--meters"]);
    // Profiles naming others twice over, 20 deep: the first 256 applied, then a warning.
    let chain: String = (0..20)
        .map(|n| format!("[p{n}]\nprofile=p{},p{}\n", n + 1, n + 1))
        .collect();
    let (mut settings, _) = read(&format!("{chain}[p20]\nmeters\n"));
    let applied = settings.apply(&["p0".to_string()], &command());
    assert!(applied.args.len() < 256, "{}", applied.args.len());
    let limit = applied
        .warnings
        .iter()
        .filter(|w| w.contains("more than 256 profiles applied"));
    assert_eq!(
        limit.count(),
        1,
        "{:?}",
        &applied.warnings[..4.min(applied.warnings.len())]
    );
}

#[test]
fn an_include_is_read_where_it_is_named_beside_its_file() {
    let dir = std::env::temp_dir().join(format!("histoplay-conf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("more.conf"), "gamma=3\n[night]\nbrightness=-20\n").unwrap();
    let main = dir.join("histoplay.conf");
    std::fs::write(
        &main,
        "speed=2\ninclude=more.conf\ninclude=missing.conf\nsaturation=4\n",
    )
    .unwrap();
    let mut settings = Settings::default();
    let mut warnings = Vec::new();
    settings.read_file(&main, &mut warnings);
    let applied = settings.apply(&["night".to_string()], &command());
    assert_eq!(
        args(&applied),
        ["--speed=2", "--gamma=3", "--saturation=4", "--brightness=-20"]
    );
    assert_eq!(applied.warnings.len(), 1, "{:?}", applied.warnings);
    assert!(applied.warnings[0].contains("missing.conf"), "{:?}", applied.warnings);
    // A file that includes itself is read once, with a warning.
    std::fs::write(&main, "include=histoplay.conf\nspeed=2\n").unwrap();
    let mut settings = Settings::default();
    settings.read_file(&main, &mut Vec::new());
    let applied = settings.apply(&[], &command());
    assert_eq!(args(&applied), ["--speed=2"]);
    let again = format!("'{}' is read once: it was included again", main.display());
    assert_eq!(applied.warnings, [again]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_lines_own_options_leave_the_files_out() {
    let os = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
    let mut args = os(&["--overlay=zebra", "--speed=2", "--meters", "--start=12.5"]);
    leave_given(
        &mut args,
        &os(&["histoplay", "--overlay", "peaking", "--start=0", "--", "--speed=3"]),
    );
    assert_eq!(args, os(&["--speed=2", "--meters"]));
}

#[test]
fn a_file_a_setting_names_that_is_gone_is_a_line_left_out() {
    let lut = std::env::temp_dir().join(format!("histoplay-conf-{}.cube", std::process::id()));
    std::fs::write(&lut, "LUT_3D_SIZE 2\n").unwrap();
    let text = format!("lut={}\ninput-conf=/no/such/input.conf\nspeed=2\n", lut.display());
    let (mut settings, warnings) = read(&text);
    assert!(warnings.is_empty());
    let applied = settings.apply(&[], &command());
    assert_eq!(
        args(&applied),
        [format!("--lut={}", lut.display()).as_str(), "--speed=2"]
    );
    assert_eq!(
        applied.warnings,
        ["/conf/histoplay.conf, line 2: 'input-conf': there is no file '/no/such/input.conf'"]
    );
    std::fs::remove_file(&lut).unwrap();
}

#[test]
fn a_byte_order_mark_is_no_part_of_the_first_line_and_long_lines_are_quoted_short() {
    let (mut settings, warnings) = read("\u{feff}contrast=10\n");
    assert!(warnings.is_empty());
    assert_eq!(args(&settings.apply(&[], &command())), ["--contrast=10"]);
    let garbage = "x".repeat(100_000);
    let (mut settings, _) = read(&format!("{garbage}=1\n"));
    let applied = settings.apply(&[], &command());
    let warning = crate::settings::shortened(applied.warnings[0].clone());
    assert_eq!(warning.chars().count(), 201, "{warning}");
    assert!(warning.starts_with("/conf/histoplay.conf, line 1: unknown option 'xxx") && warning.ends_with('…'));
}

#[test]
fn options_kept_with_a_position_are_those_the_player_keeps() {
    let (mut settings, _) = read("watch-later-options=speed,overlay\nwatch-later-options=speed,bogus\n");
    let applied = settings.apply(&[], &command());
    assert_eq!(args(&applied), ["--watch-later-options=speed,overlay"]);
    assert_eq!(applied.warnings.len(), 1, "{:?}", applied.warnings);
    assert!(
        applied.warnings[0].starts_with("/conf/histoplay.conf, line 2: ")
            && applied.warnings[0].contains("the player keeps none of 'bogus' with a position"),
        "{:?}",
        applied.warnings
    );
}

#[test]
fn a_kept_position_sets_only_what_the_player_keeps_and_the_settings_not_what_the_command_line_does() {
    let (mut kept, mut warnings) = read("start=12.5\nframe-log=/tmp/victim.txt\nno-mute\n[p]\nspeed=2\n");
    kept.only(&["start", "mute", "speed"], &mut warnings);
    let applied = kept.apply(&["p".to_string()], &command());
    assert_eq!(args(&applied), ["--start=12.5", "--mute=no"]);
    assert_eq!(
        warnings,
        ["/conf/histoplay.conf, line 2: 'frame-log' is not kept with a position: left out"]
    );
    assert_eq!(applied.warnings, ["--profile: no profile named 'p'"]);
    let (mut settings, _) = read("version\nhelp=yes\n");
    let applied = settings.apply(&[], &command());
    assert!(applied.args.is_empty());
    assert_eq!(
        applied.warnings,
        [
            "/conf/histoplay.conf, line 1: 'version' is for the command line, not the settings",
            "/conf/histoplay.conf, line 2: 'help' is for the command line, not the settings"
        ]
    );
}

#[test]
fn an_option_whose_value_may_be_left_out_takes_mpvs_three_spellings() {
    for (line, expected) in [
        ("mute", "--mute"),
        ("mute=yes", "--mute=yes"),
        ("mute=no", "--mute=no"),
        ("no-mute", "--mute=no"),
        ("volume=60", "--volume=60"),
    ] {
        let (mut settings, warnings) = read(&format!("{line}\n"));
        assert!(warnings.is_empty());
        let applied = settings.apply(&[], &command());
        assert_eq!(args(&applied), [expected], "{line}");
        assert!(applied.warnings.is_empty(), "{line}: {:?}", applied.warnings);
    }
    // A kept position's mute=no over a settings file's mute: the last wins.
    let matches = command()
        .args_override_self(true)
        .try_get_matches_from(["histoplay", "--mute", "--mute=no", "clip.mp4"])
        .unwrap();
    assert_eq!(matches.get_one::<bool>("mute"), Some(&false));
    assert_eq!(
        matches.get_many::<std::path::PathBuf>("files").unwrap().count(),
        1,
        "--mute takes no file for its value"
    );
}
