//! The files' part: the playlist (files given, dropped, or in directories), moving through it,
//! chapters, and opening the next file off the event loop. Whether a file loops and the cache's
//! budget are kept from file to file here too.

use super::commands::Command;
use super::media::{open_file, Media};
use super::pacing::format_time;
use super::part::Effects;
use super::playback::{chapter_target, ChapterTarget};
use super::playlist::{self, Playlist};
use super::sound::Sound;
use super::UserEvent;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use winit::event_loop::EventLoopProxy;

/// Files dropped within this of one another are one drop.
const DROP_BURST: Duration = Duration::from_millis(500);

pub struct Files {
    /// The files to play, and which one is open.
    playlist: Playlist,
    /// Which way the playlist last moved (a file that fails to open is skipped that way).
    step: i32,
    /// When a file was last dropped on the window (the rest of a multi-file drop appends).
    last_drop: Option<Instant>,
    /// Loop each file (`L`).
    pub loop_file: bool,
    /// Memory for decoded frames kept for steps (`--cache-size`).
    pub cache_bytes: usize,
    /// Where an opened file is sent (`UserEvent::Opened`).
    proxy: EventLoopProxy<UserEvent>,
}

impl Files {
    pub fn new(playlist: Playlist, loop_file: bool, cache_bytes: usize, proxy: EventLoopProxy<UserEvent>) -> Self {
        Self {
            playlist,
            step: 1,
            last_drop: None,
            loop_file,
            cache_bytes,
            proxy,
        }
    }

    /// `2/5` when more than one file is queued.
    pub fn position_label(&self) -> Option<String> {
        (self.playlist.len() > 1).then(|| self.playlist.position_label())
    }

    /// The playlist's and chapters' commands.
    pub fn command(&mut self, command: &Command, now: Instant, media: &Media, sound: &Sound) -> Effects {
        match command {
            Command::Open(paths) => self.append(paths, now, sound),
            Command::PlaylistNext => self.step(1, sound),
            Command::PlaylistPrev => self.step(-1, sound),
            Command::ShowPlaylist => self.show_playlist(),
            Command::ChapterBy(step) => chapter_by(*step, media),
            Command::ShowProgress => show_progress(media),
            _ => Effects::default(),
        }
    }

    /// What a playback command also changes: the OSD says where the loops stand (and whether
    /// the file loops is kept for the next), and auto-levels start over at a new position
    /// instead of easing in from the old one.
    pub fn after_playback(&mut self, command: &Command, media: &mut Media, queue: &wgpu::Queue) -> Effects {
        let mut fx = Effects::default();
        match command {
            Command::AbLoop => {
                let ab = media.playback.ab_loop();
                let text = match (ab.a, ab.b) {
                    (Some(a), None) => format!("A-B loop: A {}", format_time(a)),
                    (Some(a), Some(b)) => format!("A-B loop: {} - {}", format_time(a), format_time(b)),
                    _ => "A-B loop: cleared".to_string(),
                };
                fx.replace("A-B loop", text);
            }
            Command::ToggleLoopFile => {
                self.loop_file = media.playback.loop_file;
                fx.replace(
                    "loop file",
                    if self.loop_file {
                        "loop file: on"
                    } else {
                        "loop file: off"
                    },
                );
            }
            Command::SeekBy { .. }
            | Command::SeekTo { .. }
            | Command::SeekPercent { .. }
            | Command::SeekStart
            | Command::SeekEnd => media.restart_adjustments(queue),
            _ => {}
        }
        fx
    }

    /// At the end of a file the playlist moves on; at the end of the last one the last frame
    /// stays up, paused.
    pub fn finished(&mut self, now: Instant, media: &mut Media, sound: &Sound) -> Effects {
        if !media.playback.take_finished() {
            return Effects::default();
        }
        let before = self.playlist.index();
        match self.playlist.next() {
            // A playlist of one file, looped.
            Some(index) if index == before => {
                media.playback.apply(&Command::SeekStart, now);
                media.playback.apply(&Command::Resume, now);
                Effects::default()
            }
            Some(_) => {
                self.step = 1;
                self.open_current(sound)
            }
            None => Effects::default(),
        }
    }

    /// Files dropped on the window join the playlist; the first of a drop plays.
    fn append(&mut self, paths: &[PathBuf], now: Instant, sound: &Sound) -> Effects {
        let mut fx = Effects::default();
        let expanded = playlist::expand(paths);
        for warning in expanded.warnings {
            fx.error(warning);
        }
        if expanded.files.is_empty() {
            return fx;
        }
        let Some(first) = self.playlist.append(expanded.files) else {
            return fx;
        };
        // Each file of a multi-file drop comes as its own event, moments apart.
        let same_drop = self.last_drop.is_some_and(|t| now.duration_since(t) < DROP_BURST);
        self.last_drop = Some(now);
        if !same_drop {
            self.playlist.go_to(first);
            self.step = 1;
            fx.toasts.extend(self.open_current(sound).toasts);
        }
        fx
    }

    /// The next (+1) or previous (−1) file of the playlist.
    fn step(&mut self, step: i32, sound: &Sound) -> Effects {
        let moved = if step > 0 {
            self.playlist.next()
        } else {
            self.playlist.prev()
        };
        match moved {
            Some(_) => {
                self.step = step;
                self.open_current(sound)
            }
            None => {
                let mut fx = Effects::default();
                fx.replace("no ", if step > 0 { "no next file" } else { "no previous file" });
                fx
            }
        }
    }

    fn open_current(&self, sound: &Sound) -> Effects {
        match self.playlist.current() {
            Some(path) => self.open(path.to_path_buf(), sound),
            None => Effects::default(),
        }
    }

    /// Opens `path` on a thread of its own (a file on a slow disk may take a while to probe);
    /// playback of the current file goes on until it is ready.
    fn open(&self, path: PathBuf, sound: &Sound) -> Effects {
        let mut fx = Effects::default();
        fx.toasts.push(super::part::Toast {
            replaces: Vec::new(),
            text: format!("opening {}", path.display()),
            error: false,
        });
        let proxy = self.proxy.clone();
        let (volume, track, device) = sound.opening();
        let opener = std::thread::Builder::new()
            .name("histoplay open".into())
            .spawn(move || {
                let result = open_file(&path, volume, track, device.as_deref());
                let _ = proxy.send_event(UserEvent::Opened(path, Box::new(result)));
            });
        if let Err(e) = opener {
            fx.error(format!("cannot open a file now: {e}"));
        }
        fx
    }

    /// `path` could not be opened: a playlist entry that can't be played is skipped, in the
    /// direction of travel; with nothing left to try, `playing` keeps playing.
    pub fn open_failed(&mut self, path: &Path, playing: &Path, sound: &Sound) -> Effects {
        if self.playlist.current() != Some(path) {
            return Effects::default();
        }
        let index = self.playlist.index();
        log::warn!("skipping '{}'", path.display());
        if self.playlist.remove(index) && self.playlist.len() > 1 {
            let moved = if self.step < 0 {
                self.playlist.prev()
            } else {
                // The next entry has moved into the removed one's place.
                Some(self.playlist.index())
            };
            if moved.is_some() && self.playlist.current() != Some(playing) {
                return self.open_current(sound);
            }
        }
        Effects::default()
    }

    fn show_playlist(&self) -> Effects {
        let current = self.playlist.index();
        let lines: Vec<String> = self
            .playlist
            .entries()
            .iter()
            .enumerate()
            .map(|(i, path)| {
                let name = path
                    .file_name()
                    .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
                format!("{} {name}", if i == current { "➡" } else { "   " })
            })
            .collect();
        let mut fx = Effects::default();
        fx.replace(
            "playlist",
            format!("playlist {}\n{}", self.playlist.position_label(), lines.join("\n")),
        );
        fx
    }
}

/// Seeks to the start of the chapter `step` chapters away from the one playing.
fn chapter_by(step: i32, media: &Media) -> Effects {
    let mut fx = Effects::default();
    let start = media.playback.timeline().start;
    let chapters = &media.info.chapters;
    if chapters.is_empty() {
        fx.replace("chapter", "chapter: the file has none");
        return fx;
    }
    let position = media.playback.position();
    let starts: Vec<f64> = chapters.iter().map(|c| c.start - start).collect();
    let (seconds, label) = match chapter_target(&starts, position, step) {
        ChapterTarget::Chapter(i) => {
            let title = chapters[i].title.clone().unwrap_or_default();
            (
                starts[i].max(0.0),
                format!("chapter {}/{} {title}", i + 1, chapters.len()),
            )
        }
        ChapterTarget::Start => (0.0, "chapter: start".to_string()),
        ChapterTarget::None => {
            fx.replace("chapter", "chapter: no next chapter");
            return fx;
        }
    };
    fx.then.push(Command::SeekTo { seconds, exact: true });
    fx.replace("chapter", label.trim_end());
    fx
}

/// mpv's `show-progress`: the OSD comes up with the position spelled out.
fn show_progress(media: &Media) -> Effects {
    let playback = &media.playback;
    let position = playback.position();
    let duration = playback.timeline().duration;
    let percent = if duration > 0.0 {
        position / duration * 100.0
    } else {
        0.0
    };
    let text = format!("{} / {} ({percent:.0}%)", format_time(position), format_time(duration));
    let mut fx = Effects::default();
    fx.replace("progress", format!("progress {text}"));
    fx
}
