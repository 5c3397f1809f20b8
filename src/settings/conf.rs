//! The settings file in mpv.conf's syntax, read into command-line options: `option=value` (or
//! `option` for a flag, `no-option`/`option=no` to turn one off) lines, `#` comments,
//! `[name]` profile sections applied with `--profile=NAME` (or `profile=NAME` in the file),
//! and `include=FILE`. Each value is checked as the command line would check it; a line that
//! isn't understood is a warning naming its file and line, and the rest apply.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Options that are the settings machinery's own, not the player's.
const OWN: [&str; 4] = ["profile", "include", "no-config", "profile-desc"];
/// How deep profiles and includes may nest (a loop ends there, with a warning).
const MAX_DEPTH: usize = 16;

/// A settings file's lines, by section: the file's top (before any `[section]`, or in
/// `[default]`) and its named profiles.
#[derive(Debug, Default)]
pub struct Settings {
    top: Vec<Line>,
    profiles: HashMap<String, Vec<Line>>,
    /// Files already read (an include loop is read once).
    read: Vec<PathBuf>,
    /// The profiles being applied, outermost first (one that names itself among them is left
    /// out), and how many have been applied.
    applying: Vec<String>,
    applications: usize,
}

/// The most profiles applied in all (profiles that name others twice over would apply
/// exponentially many).
const MAX_PROFILES: usize = 256;

#[derive(Clone, Debug)]
struct Line {
    /// "FILE, line N", for warnings.
    at: String,
    name: String,
    value: Option<String>,
    /// The directory of the file it is in (includes are relative to it).
    dir: PathBuf,
}

/// The options the lines turned into, and a warning for each line that was skipped.
#[derive(Debug, Default, PartialEq)]
pub struct Applied {
    pub args: Vec<OsString>,
    pub warnings: Vec<String>,
}

impl Settings {
    /// Reads `path` (and the files it includes) into these settings. A file that can't be
    /// read is a warning.
    pub fn read_file(&mut self, path: &Path, warnings: &mut Vec<String>) {
        match super::read_small(path) {
            Ok(text) => self.read_text(&text, path, warnings),
            Err(e) => warnings.push(format!("cannot read the settings file '{}': {e}", path.display())),
        }
    }

    /// Reads one file's text; `path` names it in warnings and places its includes.
    pub fn read_text(&mut self, text: &str, path: &Path, warnings: &mut Vec<String>) {
        if self.read.iter().any(|p| p == path) {
            warnings.push(format!("'{}' is read once: it was included again", path.display()));
            return;
        }
        if self.read.len() > MAX_DEPTH * 4 {
            warnings.push(format!("'{}' was not read: too many files included", path.display()));
            return;
        }
        self.read.push(path.to_path_buf());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut section: Option<String> = None;
        // (A byte order mark, as some editors write one, is no part of the first line.)
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (number, raw) in text.lines().enumerate() {
            let at = format!("{}, line {}", path.display(), number + 1);
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix('[') {
                match name.strip_suffix(']').map(str::trim).filter(|n| !n.is_empty()) {
                    Some("default") => section = None,
                    Some(name) => {
                        section = Some(name.to_string());
                        self.profiles.entry(name.to_string()).or_default();
                    }
                    None => warnings.push(format!("{at}: '{line}' is not a [section] name")),
                }
                continue;
            }
            let (name, value) = match line.split_once('=') {
                Some((name, value)) => (name.trim(), Some(unquote(value.trim()))),
                None => (line, None),
            };
            let name = name.trim_start_matches("--").to_string();
            let entry = Line {
                at,
                name,
                value,
                dir: dir.clone(),
            };
            match &section {
                None => self.top.push(entry),
                Some(profile) => self.profiles.entry(profile.clone()).or_default().push(entry),
            }
        }
    }

    /// The profiles the files define, with their descriptions (`profile-desc`), by name.
    pub fn profiles(&self) -> Vec<(String, Option<String>)> {
        let mut profiles: Vec<_> = (self.profiles.iter())
            .map(|(name, lines)| {
                let desc = lines
                    .iter()
                    .find(|l| l.name == "profile-desc")
                    .and_then(|l| l.value.clone());
                (name.clone(), desc)
            })
            .collect();
        profiles.sort();
        profiles
    }

    /// Leaves out every profile, and the lines of the files' tops that set none of `names`,
    /// with a warning each: what a kept position may set.
    pub fn only(&mut self, names: &[&str], warnings: &mut Vec<String>) {
        self.profiles.clear();
        self.top.retain(|line| {
            let name = line.name.strip_prefix("no-").unwrap_or(&line.name);
            let kept = names.contains(&name);
            if !kept {
                warnings.push(format!(
                    "{}: '{}' is not kept with a position: left out",
                    line.at, line.name
                ));
            }
            kept
        });
    }

    /// The options of the files' tops, then of `profiles` in order, for `command` (clap's
    /// definition of the command line they are options of).
    pub fn apply(&mut self, profiles: &[String], command: &clap::Command) -> Applied {
        let mut applied = Applied::default();
        let top = std::mem::take(&mut self.top);
        self.lines(&top, command, &mut applied, 0);
        self.top = top;
        for profile in profiles {
            self.profile(profile, "--profile", command, &mut applied, 0);
        }
        applied
    }

    fn profile(&mut self, name: &str, at: &str, command: &clap::Command, applied: &mut Applied, depth: usize) {
        if self.applying.iter().any(|p| p == name) {
            let chain = [&self.applying[..], &[name.to_string()]].concat().join(" → ");
            applied
                .warnings
                .push(format!("{at}: profile '{name}' names itself ({chain}): left out there"));
            return;
        }
        self.applications += 1;
        if self.applications > MAX_PROFILES {
            if self.applications == MAX_PROFILES + 1 {
                let text =
                    format!("{at}: more than {MAX_PROFILES} profiles applied: '{name}' and those after left out");
                applied.warnings.push(text);
            }
            return;
        }
        match self.profiles.get(name).cloned() {
            Some(lines) if depth < MAX_DEPTH => {
                self.applying.push(name.to_string());
                self.lines(&lines, command, applied, depth + 1);
                self.applying.pop();
            }
            Some(_) => applied
                .warnings
                .push(format!("{at}: profiles nest too deep at '{name}'")),
            None => applied.warnings.push(format!("{at}: no profile named '{name}'")),
        }
    }

    fn lines(&mut self, lines: &[Line], command: &clap::Command, applied: &mut Applied, depth: usize) {
        for line in lines {
            match (line.name.as_str(), &line.value) {
                ("profile-desc", _) => {}
                ("profile", Some(names)) => {
                    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        self.profile(name, &line.at, command, applied, depth);
                    }
                }
                ("include", Some(file)) => {
                    let path = expand(file, &line.dir);
                    let mut nested = Settings {
                        read: self.read.clone(),
                        ..Settings::default()
                    };
                    nested.read_file(&path, &mut applied.warnings);
                    // Its profiles join these; its top applies here.
                    for (name, lines) in nested.profiles.drain() {
                        self.profiles.entry(name).or_default().extend(lines);
                    }
                    self.read = nested.read.clone();
                    if depth < MAX_DEPTH {
                        self.lines(&nested.top, command, applied, depth + 1);
                    }
                }
                _ => match option(command, &line.name, line.value.as_deref()) {
                    Ok(Setting::Set(arg)) => applied.args.push(arg),
                    Ok(Setting::Unset(flag)) => applied.args.retain(|a| *a != *flag),
                    Err(why) => applied.warnings.push(format!("{}: {why}", line.at)),
                },
            }
        }
    }
}

/// Leaves out of `args` every option the command line gives itself, so that the command line
/// wins for list options too (`--overlay`), which would otherwise add up.
pub fn leave_given(args: &mut Vec<OsString>, command_line: &[OsString]) {
    let name = |arg: &str| {
        arg.strip_prefix("--")
            .map(|a| a.split('=').next().unwrap_or_default().to_string())
    };
    let given: Vec<String> = command_line
        .iter()
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
        .filter_map(name)
        .collect();
    args.retain(|arg| arg.to_str().and_then(name).is_none_or(|n| !given.contains(&n)));
}

/// What one line does to the options.
enum Setting {
    /// Adds `--name=value` or `--flag`.
    Set(OsString),
    /// Turns a flag set earlier off again (`--flag` taken out).
    Unset(OsString),
}

/// Options that do something other than play, given on the command line alone.
const COMMAND_LINE_ONLY: [&str; 2] = ["version", "help"];

/// Options whose value is a file read as the player starts.
const FILES: [&str; 3] = ["lut", "input-conf", "false-colour-scale"];

/// `name=value` as an option of `command`, checked as its command line would check it.
fn option(command: &clap::Command, name: &str, value: Option<&str>) -> Result<Setting, String> {
    if COMMAND_LINE_ONLY.contains(&name) {
        return Err(format!("'{name}' is for the command line, not the settings"));
    }
    let find = |name: &str| {
        command.get_arguments().find(|a| {
            let alias = a.get_all_aliases().is_some_and(|aliases| aliases.contains(&name));
            (a.get_long() == Some(name) || alias) && !OWN.contains(&name)
        })
    };
    let yes = |value: Option<&str>| match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("yes" | "true" | "1" | "on") => Ok(true),
        Some("no" | "false" | "0" | "off") => Ok(false),
        Some(other) => Err(format!("'{name}' is on or off (yes or no), not '{other}'")),
    };
    let flag = |name: &str| OsString::from(format!("--{name}"));
    // (An option whose value may be left out, `--mute` for `--mute=yes`, is also a flag.)
    let optional = |arg: &clap::Arg| arg.get_num_args().is_some_and(|n| n.min_values() == 0);
    if let Some(arg) = find(name) {
        if optional(arg) && value.is_none() {
            return Ok(Setting::Set(flag(name)));
        }
        if !arg.get_action().takes_values() {
            return Ok(match yes(value)? {
                true => Setting::Set(flag(name)),
                false => Setting::Unset(flag(name)),
            });
        }
        let Some(value) = value else {
            return Err(format!("'{name}' needs a value ({name}=...)"));
        };
        let arg = OsString::from(format!("--{name}={value}"));
        check(command, &arg)?;
        // A file named by a setting that has gone since (a LUT a kept position still names) is
        // a line left out, not a player that won't start.
        if FILES.contains(&name) && !Path::new(value).exists() {
            return Err(format!("'{name}': there is no file '{value}'"));
        }
        return Ok(Setting::Set(arg));
    }
    // mpv's two spellings of a flag that turns something off: `no-audio` and `audio=no`.
    let negated = format!("no-{name}");
    match (find(&negated), name.strip_prefix("no-").and_then(find)) {
        (Some(arg), _) if !arg.get_action().takes_values() => Ok(match yes(value)? {
            true => Setting::Unset(flag(&negated)),
            false => Setting::Set(flag(&negated)),
        }),
        (_, Some(arg)) if !arg.get_action().takes_values() => Ok(match yes(value)? {
            true => Setting::Unset(OsString::from(format!("--{}", &name[3..]))),
            false => Setting::Set(OsString::from(format!("--{}", &name[3..]))),
        }),
        (_, Some(arg)) if optional(arg) && value.is_none() => {
            Ok(Setting::Set(OsString::from(format!("--{}=no", &name[3..]))))
        }
        _ => Err(format!("unknown option '{name}'")),
    }
}

/// Parses `arg` alone with `command`'s rules (its requirements on other options aside), so a
/// bad value is found on its own line.
fn check(command: &clap::Command, arg: &OsString) -> Result<(), String> {
    let alone = command
        .clone()
        .mut_args(|a| a.requires(clap::builder::Resettable::Reset))
        .subcommand_required(false);
    match alone.try_get_matches_from([OsString::from("histoplay"), arg.clone()]) {
        Ok(_) => Ok(()),
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            Err(first.trim_start_matches("error: ").to_string())
        }
    }
}

/// A line without its `#` comment (a `#` inside double quotes stays).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// A value without the double quotes around it, if it has them.
fn unquote(value: &str) -> String {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
        .to_string()
}

/// An include's path: `~/` is the home directory, `~~/` the settings directory (as in mpv);
/// a relative path is beside the file that names it.
fn expand(file: &str, dir: &Path) -> PathBuf {
    if let Some(rest) = file.strip_prefix("~~/") {
        return super::config_dir().unwrap_or_default().join(rest);
    }
    if let Some(rest) = file.strip_prefix("~/") {
        return std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest);
    }
    dir.join(file)
}

#[cfg(test)]
mod tests;
