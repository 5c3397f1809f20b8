//! The manual's reference pages, written from the code so they can't drift from it: the keys
//! (`docs/reference/keys.md`, from the default bindings and the commands' descriptions) and
//! the command line (`docs/reference/commands.md`, from clap's definitions).

use crate::player::bindings::Bindings;
use crate::player::help::catalogue::{entries, Group};
use std::fmt::Write;

/// `docs/reference/keys.md`: every default binding, grouped by function.
pub fn keys_page() -> String {
    let entries = entries(&Bindings::default());
    let mut page = String::from(
        "# Keys and mouse\n\n\
         <!-- Written by `histoplay generate reference docs/reference`; edit the code, not this page. -->\n\n\
         histoplay's default bindings, grouped by function. Where mpv binds a key by default and histoplay \
         has the function, the key does what it does in mpv; histoplay's own functions sit on keys mpv \
         leaves free. In the window, **F1** (or **?**, or the ☰ button on the bar) opens this list, \
         searchable, with the bindings in force; Enter runs the chosen command.\n\n\
         Keys can be rebound in `~/.config/histoplay/input.conf`, in mpv's `input.conf` syntax \
         (`KEY command`, `KEY ignore` to unbind); the *Command* column is what to write there. \
         See [settings](../settings.md).\n",
    );
    for group in Group::ALL {
        let rows: Vec<_> = entries.iter().filter(|e| e.group == group).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = write!(
            page,
            "\n## {}\n\n| Keys | What it does | Command |\n|---|---|---|\n",
            group.title()
        );
        for entry in rows {
            let keys: Vec<String> = entry.keys.iter().map(|k| format!("`{}`", cell(k))).collect();
            let _ = writeln!(
                page,
                "| {} | {} | `{}` |",
                keys.join(" "),
                cell(&entry.description),
                cell(&entry.text)
            );
        }
    }
    page.push_str(
        "\n## Mouse on the picture\n\n\
         | Action | What it does |\n|---|---|\n\
         | Right-drag | Count only that region (the histograms, scopes and stats); `Ctrl+r` counts the whole frame again |\n\
         | Left-drag (comparing, wipe) | Moves the wipe |\n\
         | Click on the seek bar or the timeline | Seeks there |\n\
         | Drop files on the window | Adds them to the playlist and plays the first |\n",
    );
    page
}

/// `docs/reference/commands.md`: the player's options and every command's.
pub fn commands_page(command: &clap::Command) -> String {
    let mut page = String::from(
        "# Command line\n\n\
         <!-- Written by `histoplay generate reference docs/reference`; edit the code, not this page. -->\n\n\
         `histoplay [OPTIONS] [FILE|DIR]...` plays; `histoplay COMMAND ...` runs a command without a window. \
         The same text is in `histoplay --help`, `histoplay COMMAND --help` and the manual pages \
         (`man histoplay`, `man histoplay-report`...). Every player option can also be set in the \
         [settings file](../settings.md).\n\n",
    );
    let visible: Vec<&clap::Command> = command.get_subcommands().filter(|c| !c.is_hide_set()).collect();
    page.push_str(
        "| Command | What it does |\n|---|---|\n| [`histoplay [FILE]...`](#histoplay) | Play in a window |\n",
    );
    for sub in &visible {
        let name = sub.get_name();
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let _ = writeln!(
            page,
            "| [`histoplay {name}`](#histoplay-{name}) | {} |",
            cell(first_line(&about))
        );
    }
    section(&mut page, "histoplay", command, true);
    for sub in visible {
        section(&mut page, &format!("histoplay {}", sub.get_name()), sub, false);
    }
    page
}

fn section(page: &mut String, title: &str, command: &clap::Command, root: bool) {
    let _ = write!(page, "\n## {title}\n\n");
    let about = command
        .get_long_about()
        .or(command.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    if !about.is_empty() {
        let _ = write!(page, "{}\n\n", about.trim());
    }
    let mut usage = command.clone().bin_name(title.to_string());
    let usage = usage.render_usage().to_string();
    let _ = write!(page, "```text\n{}\n```\n\n", usage.trim_start_matches("Usage: ").trim());
    let arguments: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && (root || !a.is_global_set()))
        .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
        .collect();
    if arguments.is_empty() {
        return;
    }
    page.push_str("| Option | What it does |\n|---|---|\n");
    for arg in arguments {
        let _ = writeln!(
            page,
            "| {} | {} |",
            cell(&format!("`{}`", spelling(arg))),
            cell(&described(arg))
        );
    }
}

/// `-s, --long <VALUE>`, `--flag`, or `<FILES>...` for a positional.
fn spelling(arg: &clap::Arg) -> String {
    let value = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map(|n| n.to_string())
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    if arg.is_positional() {
        let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        return format!("<{value}>{}", if many { "..." } else { "" });
    }
    let mut text = String::new();
    if let Some(short) = arg.get_short() {
        let _ = write!(text, "-{short}, ");
    }
    if let Some(long) = arg.get_long() {
        let _ = write!(text, "--{long}");
    }
    if arg.get_action().takes_values() {
        let _ = write!(text, " <{value}>");
    }
    text
}

/// The option's help, with its choices and default.
fn described(arg: &clap::Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() && !text.ends_with('.') {
        text.push('.');
    }
    let choices: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !choices.is_empty() && arg.get_action().takes_values() {
        let _ = write!(text, " One of {}.", choices.join(", "));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        let _ = write!(text, " Default: `{}`.", defaults.join(","));
    }
    text
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// Text for a Markdown table's cell: pipes escaped, on one line.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
