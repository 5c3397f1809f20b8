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

/// One buffer's state in a `LatestReadback`; the u64 numbers copies in recording order.
enum Slot<T> {
    Free,
    /// The copy is recorded in an encoder not yet submitted.
    Recorded(T, u64),
    Mapping(T, u64, Mapping),
}

/// A few small MAP_READ buffers for results the window shows when they land (the clipping
/// readout, the pixel probe): each frame may copy a result into a free buffer; the newest one
/// mapped wins. Nothing ever waits: with every buffer in flight a copy is skipped.
pub struct LatestReadback<T> {
    buffers: Vec<(wgpu::Buffer, Slot<T>)>,
    recorded: u64,
}

impl<T: Copy> LatestReadback<T> {
    pub fn new(device: &wgpu::Device, label: &str, size: u64, count: usize) -> Self {
        let buffers = (0..count)
            .map(|i| {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("{label} readback {i}")),
                    size,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                });
                (buffer, Slot::Free)
            })
            .collect();
        Self { buffers, recorded: 0 }
    }

    /// Records `copy` into a free buffer, tagged `tag`; false when none is free.
    pub fn record(&mut self, tag: T, copy: impl FnOnce(&wgpu::Buffer)) -> bool {
        let Some((buffer, slot)) = self.buffers.iter_mut().find(|(_, s)| matches!(s, Slot::Free)) else {
            return false;
        };
        copy(buffer);
        self.recorded += 1;
        *slot = Slot::Recorded(tag, self.recorded);
        true
    }

    /// After the encoder with the copies is submitted: starts mapping them.
    pub fn submitted(&mut self) {
        for (buffer, slot) in &mut self.buffers {
            if let Slot::Recorded(tag, order) = *slot {
                *slot = Slot::Mapping(tag, order, Mapping::read(buffer));
            }
        }
    }

    /// Whether a copy is on its way (the caller keeps polling the device until it lands).
    pub fn pending(&self) -> bool {
        self.buffers.iter().any(|(_, s)| matches!(s, Slot::Mapping(..)))
    }

    /// The newest copy whose buffer has been mapped, read by `read`, freeing every finished
    /// buffer. Call after `device.poll(Poll)`; never blocks.
    pub fn take_latest<R>(&mut self, read: impl Fn(T, &[u8]) -> R) -> Option<(T, R)> {
        let mut latest: Option<(u64, T, R)> = None;
        for (buffer, slot) in &mut self.buffers {
            let Slot::Mapping(tag, order, state) = slot else {
                continue;
            };
            let (tag, order) = (*tag, *order);
            match state.state() {
                MapState::Mapping => continue,
                MapState::Mapped => {
                    if latest.as_ref().is_none_or(|(newest, ..)| *newest < order) {
                        if let Ok(view) = buffer.get_mapped_range(..) {
                            latest = Some((order, tag, read(tag, &view)));
                        }
                    }
                    buffer.unmap();
                }
                // A failed map (device trouble, reported elsewhere) just frees the buffer.
                MapState::Failed => {}
            }
            *slot = Slot::Free;
        }
        latest.map(|(_, tag, result)| (tag, result))
    }
}
