//! The settings file applied to the player's command line: `histoplay.conf`'s options (and the
//! profiles and includes asked for) go before the command line's own, which win.

use super::Cli;
use crate::settings::conf::Settings;
use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::path::PathBuf;

/// The options of the settings files, for the player (`histoplay [FILE]...`).
#[derive(clap::Args, Debug, Default)]
pub struct SettingsArgs {
    /// Apply the settings file's `[NAME]` profile(s) after its top options (comma-separated;
    /// `--profile=help` lists them).
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub profile: Vec<String>,
    /// Read this settings file too (mpv.conf's syntax), after histoplay.conf; repeatable.
    #[arg(long, value_name = "FILE")]
    pub include: Vec<PathBuf>,
    /// Don't read ~/.config/histoplay/histoplay.conf.
    #[arg(long)]
    pub no_config: bool,
    /// Keep the position (and --watch-later-options) on every quit, to resume from when the
    /// file is played again (`Q` keeps it whatever this says), as mpv's option.
    #[arg(long)]
    pub save_position_on_quit: bool,
    /// Don't resume from a kept position.
    #[arg(long)]
    pub no_resume_playback: bool,
    /// Where positions are kept (default: ~/.local/state/histoplay/watch_later).
    #[arg(long, value_name = "DIR")]
    pub watch_later_dir: Option<PathBuf>,
    /// The options kept with a position, comma-separated (those of the default, or fewer).
    #[arg(long, value_name = "LIST", default_value = crate::settings::watch_later::DEFAULT_OPTIONS, value_parser = parse_kept_options)]
    pub watch_later_options: String,
    /// Warnings about the settings files' lines, for the OSD.
    #[arg(skip)]
    pub warnings: Vec<String>,
}

/// Where positions are kept: --watch-later-dir, else in the state directory.
pub fn watch_later_dir(args: &SettingsArgs) -> Option<PathBuf> {
    args.watch_later_dir
        .clone()
        .or_else(crate::settings::watch_later::default_dir)
}

/// `histoplay.conf` in the settings directory.
pub fn main_file() -> Option<PathBuf> {
    crate::settings::config_dir().map(|dir| dir.join("histoplay.conf"))
}

/// The player's command line `cli` (parsed from `argv`) with the settings files' options
/// before its own. A line that isn't understood is a warning (on stderr, and in the OSD);
/// `--profile=help` lists the profiles and ends the program.
pub fn apply(cli: Cli, argv: Vec<OsString>) -> Cli {
    let asked = &cli.play.settings;
    let mut settings = Settings::default();
    let mut warnings = Vec::new();
    if !asked.no_config {
        if let Some(path) = main_file().filter(|p| p.exists()) {
            settings.read_file(&path, &mut warnings);
        }
    }
    for path in &asked.include {
        settings.read_file(path, &mut warnings);
    }
    if asked.profile == ["help"] {
        // (The top's includes read, their profiles with the file's.)
        settings.apply(&[], &Cli::command());
        list_profiles(&settings);
        std::process::exit(0);
    }
    let mut applied = settings.apply(&asked.profile, &Cli::command());
    // A kept position of the first file, and what was kept with it, over the settings.
    let first = cli.play.files.first().filter(|f| f.is_file());
    if let (false, Some(video), Some(dir)) = (asked.no_resume_playback, first, watch_later_dir(asked)) {
        if let Some((path, text)) = crate::settings::watch_later::take(&dir, video, &mut warnings) {
            let mut kept = Settings::default();
            kept.read_text(&text, &path, &mut warnings);
            let options = crate::settings::watch_later::DEFAULT_OPTIONS.split(',');
            kept.only(&[&["start"][..], &options.collect::<Vec<_>>()].concat(), &mut warnings);
            let resumed = kept.apply(&[], &Cli::command());
            applied.args.extend(resumed.args);
            applied.warnings.extend(resumed.warnings);
        }
    }
    warnings.extend(applied.warnings);
    crate::settings::conf::leave_given(&mut applied.args, &argv);
    let mut merged = if applied.args.is_empty() {
        cli
    } else {
        let merge = |settings: &[OsString]| {
            let mut args = argv.clone();
            let rest = args.split_off(1.min(args.len()));
            args.extend(settings.iter().cloned());
            args.extend(rest);
            let matches = Cli::command().args_override_self(true).try_get_matches_from(args)?;
            Cli::from_arg_matches(&matches)
        };
        match merge(&applied.args) {
            Ok(merged) => merged,
            // Options that can't go together: the last of the settings' that makes the clash is
            // left out, the others kept.
            Err(e) => {
                let without = |k: usize| [&applied.args[..k], &applied.args[k + 1..]].concat();
                let found = (0..applied.args.len())
                    .rev()
                    .find_map(|k| Some((k, merge(&without(k)).ok()?)));
                match found {
                    Some((k, merged)) => {
                        let text = e.to_string();
                        let why = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
                        warnings.push(format!(
                            "the settings' {} was left out: {why}",
                            applied.args[k].to_string_lossy()
                        ));
                        merged
                    }
                    None => skipped(cli, &mut warnings, &e),
                }
            }
        }
    };
    let warnings = crate::settings::said(warnings);
    for warning in &warnings {
        eprintln!("warning: {}", crate::terminal::one_line(&warning.to_string()));
    }
    merged.play.settings.warnings = warnings;
    merged
}

/// The command line alone, with a warning saying why the settings were left out.
fn skipped(cli: Cli, warnings: &mut Vec<String>, e: &clap::Error) -> Cli {
    let text = e.to_string();
    let why = text.lines().next().unwrap_or_default().trim_start_matches("error: ");
    warnings.push(format!("the settings files' options were left out: {why}"));
    cli
}

fn list_profiles(settings: &Settings) {
    let profiles = settings.profiles();
    if profiles.is_empty() {
        println!(
            "no profiles (they are [NAME] sections of {})",
            main_file().map_or_else(String::new, |p| p.display().to_string())
        );
    }
    let shown = crate::terminal::one_line;
    for (name, desc) in profiles {
        match desc {
            Some(desc) => println!("{}\t{}", shown(&name), shown(&desc)),
            None => println!("{}", shown(&name)),
        }
    }
}

/// `--watch-later-options`: names of options the player keeps, each one of the default list's.
fn parse_kept_options(list: &str) -> Result<String, String> {
    let known: Vec<&str> = crate::settings::watch_later::DEFAULT_OPTIONS.split(',').collect();
    let unknown: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty() && !known.contains(name))
        .collect();
    match unknown.as_slice() {
        [] => Ok(list.to_string()),
        names => Err(format!(
            "the player keeps none of '{}' with a position; it keeps {}",
            names.join("', '"),
            known.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_that_clashes_is_left_out_and_the_others_kept() {
        let conf = std::env::temp_dir().join(format!("histoplay-clash-{}.conf", std::process::id()));
        std::fs::write(&conf, "speed=2\nequalize\ncontrast=10\n").unwrap();
        let argv: Vec<OsString> = [
            "histoplay",
            "--no-config",
            "--include",
            conf.to_str().unwrap(),
            "--auto-levels",
        ]
        .map(OsString::from)
        .to_vec();
        let cli = <Cli as clap::Parser>::parse_from(argv.clone());
        let merged = apply(cli, argv);
        let play = &merged.play;
        assert!(play.adjust.auto_levels && !play.adjust.equalize);
        assert_eq!((play.speed, play.adjust.contrast), (2.0, 10));
        assert_eq!(play.settings.warnings.len(), 1, "{:?}", play.settings.warnings);
        assert!(
            play.settings.warnings[0].starts_with("the settings' --equalize was left out: "),
            "{:?}",
            play.settings.warnings
        );
        std::fs::remove_file(&conf).unwrap();
    }
}
