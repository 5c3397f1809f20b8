//! Buffer mappings in flight: a buffer's `map_async` reports through its callback, which runs in
//! whichever thread's poll picks it up. The one mechanism behind the readback ring, the clipping
//! readout, screenshots and the upload ring's staging buffers.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long a mapping whose submission is done may take to report (its callback running on
/// another thread's poll) before it counts as failed.
pub const MAP_SETTLE: Duration = Duration::from_secs(10);

/// Where a buffer's mapping stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapState {
    Mapping,
    Mapped,
    Failed,
}

/// A buffer being mapped: its state changes when the device is polled.
#[derive(Debug)]
pub struct Mapping(Arc<(Mutex<MapState>, Condvar)>);

impl Mapping {
    /// Starts mapping all of `buffer` for reading.
    pub fn read(buffer: &wgpu::Buffer) -> Self {
        Self::start(buffer, wgpu::MapMode::Read)
    }

    /// Starts mapping all of `buffer` for writing.
    pub fn write(buffer: &wgpu::Buffer) -> Self {
        Self::start(buffer, wgpu::MapMode::Write)
    }

    /// A buffer made `mapped_at_creation`.
    pub fn mapped() -> Self {
        Self(Arc::new((Mutex::new(MapState::Mapped), Condvar::new())))
    }

    fn start(buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> Self {
        let shared = Arc::new((Mutex::new(MapState::Mapping), Condvar::new()));
        let settled = shared.clone();
        buffer.slice(..).map_async(mode, move |result| {
            let (state, changed) = &*settled;
            *state.lock().unwrap_or_else(|e| e.into_inner()) = if result.is_ok() {
                MapState::Mapped
            } else {
                MapState::Failed
            };
            changed.notify_all();
        });
        Self(shared)
    }

    pub fn state(&self) -> MapState {
        *self.0 .0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// After a poll that waited for the mapping's submission: the state once the callback has
    /// run. Another thread's poll may have taken the callback and still be running it, so a
    /// mapping still under way is waited for (up to `timeout`) rather than taken as failed.
    pub fn settled(&self, timeout: Duration) -> MapState {
        let (state, changed) = &*self.0;
        let guard = state.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = changed
            .wait_timeout_while(guard, timeout, |s| *s == MapState::Mapping)
            .unwrap_or_else(|e| e.into_inner());
        *guard
    }
}
