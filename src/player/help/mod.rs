//! The help list: every command the player has, with the keys bound to it (from the live
//! bindings, so an input.conf's changes show), grouped by function; typing filters it, Enter
//! runs the chosen command. `catalogue` says what each command does; `osd::help` draws it.

pub mod catalogue;

use super::bindings::Bindings;
use super::commands::Command;
use catalogue::Entry;
use winit::keyboard::{Key, NamedKey};

/// What a key did to the open list.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// The list took the key (it filtered or moved); nothing else runs.
    Taken,
    /// The list closed.
    Closed,
    /// The list closed; run these.
    Run(Vec<Command>),
}

#[derive(Debug, Default)]
pub struct HelpList {
    open: bool,
    query: String,
    /// The chosen row among the matches.
    selected: usize,
    entries: Vec<Entry>,
    /// Each entry's text that typing searches, in lower case (made once: the list filters
    /// on every frame it is open).
    searched: Vec<String>,
}

impl HelpList {
    pub fn new(bindings: &Bindings) -> Self {
        let entries = catalogue::entries(bindings);
        let searched = (entries.iter())
            .map(|e| format!("{} {} {} {}", e.description, e.text, e.keys.join(" "), e.group.title()).to_lowercase())
            .collect();
        Self {
            entries,
            searched,
            ..Self::default()
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Opens the list afresh (empty query, first row), or closes it.
    pub fn toggle(&mut self) {
        self.open = !self.open;
        self.query.clear();
        self.selected = 0;
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn selected(&self) -> usize {
        self.selected
    }

    /// The entries every word of the query is found in (in the description, the command's
    /// text, a key or the group's title, ignoring case), in the list's order.
    pub fn matches(&self) -> Vec<&Entry> {
        let words: Vec<String> = self.query.split_whitespace().map(str::to_lowercase).collect();
        (self.entries.iter().zip(&self.searched))
            .filter(|(_, searched)| words.iter().all(|w| searched.contains(w.as_str())))
            .map(|(entry, _)| entry)
            .collect()
    }

    /// A key pressed while the list is open; `text` is what it types, if anything.
    pub fn key(&mut self, key: &Key, text: Option<&str>) -> Reply {
        let count = self.matches().len();
        match key {
            Key::Named(NamedKey::Escape | NamedKey::F1 | NamedKey::ContextMenu) => {
                self.toggle();
                return Reply::Closed;
            }
            Key::Named(NamedKey::Enter) => return self.run(self.selected),
            Key::Named(NamedKey::ArrowDown) => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            Key::Named(NamedKey::ArrowUp) => self.selected = self.selected.saturating_sub(1),
            Key::Named(NamedKey::PageDown) => self.selected = (self.selected + 10).min(count.saturating_sub(1)),
            Key::Named(NamedKey::PageUp) => self.selected = self.selected.saturating_sub(10),
            Key::Named(NamedKey::Home) => self.selected = 0,
            Key::Named(NamedKey::End) => self.selected = count.saturating_sub(1),
            Key::Named(NamedKey::Backspace) => {
                self.query.pop();
                self.selected = 0;
            }
            _ => {
                let typed = text.filter(|t| !t.is_empty() && t.chars().all(|c| !c.is_control()));
                if let Some(typed) = typed {
                    self.query.push_str(typed);
                    self.selected = 0;
                }
            }
        }
        Reply::Taken
    }

    /// Moves the chosen row by `rows` (the wheel over the open list).
    pub fn scroll(&mut self, rows: i32) {
        let last = self.matches().len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(rows as isize).min(last);
    }

    /// Runs the match at `row` (a click, or Enter on the chosen one): the list closes first.
    pub fn run(&mut self, row: usize) -> Reply {
        let chosen = self.matches().get(row).map(|entry| entry.commands.clone());
        self.toggle();
        match chosen {
            // The list's own command only closes it.
            Some(commands) if commands != [Command::ToggleHelp] => Reply::Run(commands),
            _ => Reply::Closed,
        }
    }
}

#[cfg(test)]
mod tests;
