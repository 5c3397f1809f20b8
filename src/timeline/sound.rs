//! The loudness strip under a file's timeline: its sound's loudness, measured by a thread of its
//! own once the video's columns are known, and measured again from the start where another
//! audio stream is asked for (`#`).

use super::loudness::{self, LoudnessStrip, LOUDNESS_ROWS};
use crate::audio::source::AudioTrack;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

pub(super) struct SoundFill {
    path: PathBuf,
    state: Mutex<State>,
    /// The measuring threads started, waited for when the timeline is dropped.
    threads: Mutex<Vec<JoinHandle<()>>>,
}

struct State {
    strip: Option<LoudnessStrip>,
    /// The columns' mapping, once the video's is known: its first frame's time, its frame
    /// duration and its frame count.
    shape: Option<(f64, f64, u64)>,
    /// The stream measured (None: none).
    track: Option<AudioTrack>,
    /// Counts the measurements started: the steps of one another has followed are dropped.
    run: u64,
    /// Stops the measurement running.
    stop: Arc<AtomicBool>,
}

impl SoundFill {
    /// The strip of `path`'s audio stream `track`, measured once `shaped`.
    pub fn new(path: &std::path::Path, track: Option<AudioTrack>) -> Arc<Self> {
        Arc::new(Self {
            path: path.to_path_buf(),
            state: Mutex::new(State {
                strip: None,
                shape: None,
                track,
                run: 0,
                stop: Arc::default(),
            }),
            threads: Mutex::default(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The video's columns are known: the strip is made and the stream asked for measured.
    pub fn shaped(self: &Arc<Self>, start: f64, frame_duration: f64, frame_count: u64) {
        let mut state = self.state();
        state.shape = Some((start, frame_duration, frame_count));
        self.begin(&mut state);
    }

    /// Another audio stream (None: none) in place of the one measured: measured from its
    /// start, the strip emptied; the measurement before stops.
    pub fn measure(self: &Arc<Self>, track: Option<AudioTrack>) {
        let mut state = self.state();
        if state.track == track {
            return;
        }
        state.track = track;
        if state.shape.is_some() {
            self.begin(&mut state);
        }
    }

    /// Stops the measurement running and starts one of `state.track` on an empty strip.
    fn begin(self: &Arc<Self>, state: &mut State) {
        state.stop.store(true, Ordering::Relaxed);
        state.stop = Arc::default();
        state.run += 1;
        let Some((start, frame_duration, frame_count)) = state.shape else {
            return;
        };
        state.strip = state
            .track
            .map(|_| LoudnessStrip::new(super::PLAYER_COLUMNS, start, frame_duration, frame_count));
        let Some(track) = state.track else { return };
        let (fill, run, stop) = (Arc::clone(self), state.run, Arc::clone(&state.stop));
        let started = std::thread::Builder::new()
            .name("histoplay timeline sound".into())
            .spawn(move || fill.measuring_run(track, run, &stop));
        match started {
            Ok(thread) => {
                let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
                threads.retain(|t| !t.is_finished());
                threads.push(thread);
            }
            Err(e) => {
                log::warn!("no loudness on the timeline: {e}");
                state.strip = None;
            }
        }
    }

    /// Measurement `run` of `track`, into the strip while no other has begun.
    fn measuring_run(&self, track: AudioTrack, run: u64, stop: &AtomicBool) {
        crate::video::index::lower_priority();
        let add = |time, step: &_| {
            let mut state = self.state();
            if state.run == run {
                if let Some(strip) = state.strip.as_mut() {
                    strip.add(time, step);
                }
            }
        };
        if let Err(reason) = loudness::fill(&self.path, track, stop, add) {
            log::info!("no loudness on the timeline of '{}': {reason}", self.path.display());
            let mut state = self.state();
            if state.run == run {
                state.strip = None;
            }
        }
    }

    /// Counts the measurements begun: a strip drawn of an earlier one is not this one's, though
    /// it may have as many steps.
    pub fn generation(&self) -> u64 {
        self.state().run
    }

    /// Whether a measurement is running.
    pub fn measuring(&self) -> bool {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        threads.iter().any(|t| !t.is_finished())
    }

    /// The strip's 100 ms steps counted so far; None without a strip.
    pub fn filled(&self) -> Option<u64> {
        self.state().strip.as_ref().map(|strip| strip.filled)
    }

    /// The strip's `LOUDNESS_ROWS` rows `width` wide, as RGBA8; None without a strip.
    pub fn render(&self, width: u32) -> Option<Vec<u8>> {
        self.state()
            .strip
            .as_ref()
            .map(|strip| strip.render(width, LOUDNESS_ROWS))
    }

    /// Stops the measurement and waits for every thread started (off the window's thread).
    pub fn stop(&self) {
        self.state().stop.store(true, Ordering::Relaxed);
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for thread in threads {
            let _ = thread.join();
        }
    }
}
