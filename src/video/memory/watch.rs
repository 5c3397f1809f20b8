//! Caches watching the frame memory: each is woken when the memory held, or the process's
//! resident memory, passes what its budget allows, and spare blocks go back to the system when
//! the process is pressed.

use super::process::resident_reading;
use super::{FrameMemory, HEADROOM};
use std::sync::atomic::Ordering;

pub(super) struct Watcher {
    id: usize,
    budget: usize,
    wake: Box<dyn Fn() + Send>,
}

impl Watcher {
    /// Resident memory past which the watcher is woken: a little before its budget and the
    /// headroom are reached, so that it makes room before the process passes them.
    fn resident_limit(&self) -> usize {
        (self.budget + HEADROOM).saturating_sub(HEADROOM / 2)
    }

    /// Resident memory past which spare blocks go back to the system: close to the limit, above
    /// where the cache keeps the process (`FrameCache::budget`), so that only what comes between
    /// two of its looks (a decoder opening) has the spare blocks unmapped.
    fn pressed_at(&self) -> usize {
        (self.budget + HEADROOM).saturating_sub(HEADROOM / 8)
    }
}

/// A cache watching the memory; it stops watching when this goes.
pub struct Watch {
    memory: &'static FrameMemory,
    id: usize,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut watchers = self.memory.watchers.lock().unwrap_or_else(|e| e.into_inner());
        watchers.retain(|w| w.id != self.id);
        self.memory.set_limit(&watchers);
    }
}

impl FrameMemory {
    /// Calls `wake` whenever frame memory is lent while more than `budget` is held, until the
    /// guard goes: the cache it wakes makes room.
    pub fn watch(&'static self, budget: usize, wake: Box<dyn Fn() + Send>) -> Watch {
        let id = self.next_watcher.fetch_add(1, Ordering::Relaxed);
        let mut watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
        watchers.push(Watcher { id, budget, wake });
        self.set_limit(&watchers);
        Watch { memory: self, id }
    }

    fn set_limit(&self, watchers: &[Watcher]) {
        let limit = watchers.iter().map(|w| w.budget).min().unwrap_or(usize::MAX);
        self.limit.store(limit, Ordering::Relaxed);
        let resident = watchers.iter().map(Watcher::resident_limit).min().unwrap_or(usize::MAX);
        self.resident_limit.store(resident, Ordering::Relaxed);
    }

    /// Notes `held` bytes held after lending: the peak, and the watchers it (or the process's
    /// resident memory, looked at now and then) is too much for.
    pub(super) fn lent_to(&self, held: usize) {
        self.peak.fetch_max(held, Ordering::Relaxed);
        let resident = self.resident_now();
        if let Some(resident) = resident {
            let watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
            let pressed = watchers.iter().any(|w| resident > w.pressed_at());
            drop(watchers);
            self.pressed.store(pressed, Ordering::Relaxed);
            if pressed {
                self.release_spare();
            }
        }
        let over = |w: &Watcher| held > w.budget || resident.is_some_and(|r| r > w.resident_limit());
        if held > self.limit.load(Ordering::Relaxed)
            || resident.is_some_and(|r| r > self.resident_limit.load(Ordering::Relaxed))
        {
            let watchers = self.watchers.lock().unwrap_or_else(|e| e.into_inner());
            for watcher in watchers.iter().filter(|w| over(w)) {
                (watcher.wake)();
            }
        }
    }

    /// The resident memory, where there are watchers and it was not looked at just now.
    fn resident_now(&self) -> Option<usize> {
        if self.resident_limit.load(Ordering::Relaxed) == usize::MAX {
            return None;
        }
        resident_reading().and_then(|(bytes, fresh)| fresh.then_some(bytes))
    }
}
