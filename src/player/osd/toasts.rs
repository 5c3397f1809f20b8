//! The OSD's messages (errors, saved screenshots, the value a key just set), each shown for a
//! few seconds; one that replaces a prefix takes the place of the messages starting with it.

use super::Message;
use crate::player::part::Toast;
use std::time::{Duration, Instant};

/// How long OSD messages stay; errors stay longer.
const MESSAGE_TIME: Duration = Duration::from_secs(4);
const ERROR_TIME: Duration = Duration::from_secs(8);

#[derive(Debug, Default)]
pub struct Toasts {
    list: Vec<Message>,
}

impl Toasts {
    /// The messages shown, oldest first.
    pub fn list(&self) -> &[Message] {
        &self.list
    }

    pub fn push(&mut self, toast: Toast) {
        let replaced = |m: &Message| toast.replaces.iter().any(|p| m.text.starts_with(p.as_str()));
        self.list.retain(|m| !replaced(m));
        self.message(toast.text, toast.error);
    }

    pub fn message(&mut self, text: String, error: bool) {
        if error {
            log::warn!("{text}");
        }
        self.show(text, error);
    }

    /// Shows a message already told on stderr (the settings files' warnings).
    pub fn show(&mut self, text: String, error: bool) {
        let until = Instant::now() + if error { ERROR_TIME } else { MESSAGE_TIME };
        self.list.push(Message { text, error, until });
    }

    /// Takes the messages starting with `prefix` down.
    pub fn remove(&mut self, prefix: &str) {
        self.list.retain(|m| !m.text.starts_with(prefix));
    }

    /// Takes the messages whose time is up down; true when any went. When the next goes is
    /// pushed on `wake`.
    pub fn expire(&mut self, now: Instant, wake: &mut Vec<Option<Instant>>) -> bool {
        let before = self.list.len();
        self.list.retain(|m| m.until > now);
        wake.push(self.list.iter().map(|m| m.until).min());
        self.list.len() != before
    }
}
