//! Buffer mappings in flight: a buffer's `map_async` reports through its callback, which runs in
//! whichever thread's poll picks it up. The one mechanism behind the readback ring, the clipping
//! readout, screenshots and the upload ring's staging buffers.
//!
//! A callback can be lost: a window surface's configuration waits for the GPU, collecting the
//! callbacks of mappings that finish meanwhile, and wgpu drops them unrun when the
//! configuration fails (as it does when another thread submits work during the wait). The
//! buffer is mapped all the same; a mapping not heard of for a while asks the buffer itself.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a mapping whose submission is done may take to report (its callback running on
/// another thread's poll) before it counts as failed.
pub const MAP_SETTLE: Duration = Duration::from_secs(10);

/// How long a mapping goes unreported before the buffer is asked whether it is mapped (its
/// callback may have been lost).
const ASK_AFTER: Duration = Duration::from_millis(50);

/// Where a buffer's mapping stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapState {
    Mapping,
    Mapped,
    Failed,
}

/// A buffer being mapped: its state changes when the device is polled.
#[derive(Debug)]
pub struct Mapping {
    shared: Arc<(Mutex<MapState>, Condvar)>,
    /// The buffer and when its mapping was asked for; None for one mapped at creation.
    asked: Option<(wgpu::Buffer, Instant)>,
}

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
        Self {
            shared: Arc::new((Mutex::new(MapState::Mapped), Condvar::new())),
            asked: None,
        }
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
        Self {
            shared,
            asked: Some((buffer.clone(), Instant::now())),
        }
    }

    pub fn state(&self) -> MapState {
        let state = *self.shared.0.lock().unwrap_or_else(|e| e.into_inner());
        match state {
            MapState::Mapping => self.ask_buffer(),
            settled => settled,
        }
    }

    /// A mapping unreported for a while: Mapped if the buffer is (its callback lost).
    fn ask_buffer(&self) -> MapState {
        let Some((buffer, asked)) = &self.asked else {
            return MapState::Mapping;
        };
        if asked.elapsed() < ASK_AFTER || buffer.slice(..).get_mapped_range().is_err() {
            return MapState::Mapping;
        }
        log::debug!("a buffer mapping's callback was lost; the buffer is mapped");
        let (state, changed) = &*self.shared;
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        if *state == MapState::Mapping {
            *state = MapState::Mapped;
        }
        changed.notify_all();
        *state
    }

    /// After a poll that waited for the mapping's submission: the state once the callback has
    /// run. Another thread's poll may have taken the callback and still be running it, so a
    /// mapping still under way is waited for (up to `timeout`) rather than taken as failed.
    pub fn settled(&self, timeout: Duration) -> MapState {
        let start = Instant::now();
        loop {
            let (state, changed) = &*self.shared;
            let guard = state.lock().unwrap_or_else(|e| e.into_inner());
            let left = timeout.saturating_sub(start.elapsed());
            let (guard, _) = changed
                .wait_timeout_while(guard, left.min(ASK_AFTER), |s| *s == MapState::Mapping)
                .unwrap_or_else(|e| e.into_inner());
            if *guard != MapState::Mapping {
                return *guard;
            }
            drop(guard);
            match self.ask_buffer() {
                MapState::Mapping if start.elapsed() < timeout => continue,
                state => return state,
            }
        }
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

#[cfg(test)]
mod tests {
    use super::{MapState, Mapping, ASK_AFTER};
    use crate::gpu::GpuContext;
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    /// A mapping whose callback never runs (as when wgpu drops it), asked for `ago`.
    fn unheard(buffer: &wgpu::Buffer, ago: Duration) -> Mapping {
        Mapping {
            shared: Arc::new((Mutex::new(MapState::Mapping), Condvar::new())),
            asked: Some((buffer.clone(), Instant::now() - ago)),
        }
    }

    fn buffer(device: &wgpu::Device, mapped: bool) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mapping test"),
            size: 256,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: mapped,
        })
    }

    #[test]
    fn a_mapping_whose_callback_was_lost_is_found_mapped_by_asking_the_buffer() {
        let ctx = GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
        let mapped = buffer(&ctx.device, true);
        // Unheard of for less than a while: still under way, as far as anyone knows.
        assert_eq!(unheard(&mapped, Duration::ZERO).state(), MapState::Mapping);
        assert_eq!(unheard(&mapped, ASK_AFTER * 2).state(), MapState::Mapped);
        // A waiter finds it within a few of its slices, not at the end of its timeout.
        let start = Instant::now();
        assert_eq!(
            unheard(&mapped, Duration::ZERO).settled(Duration::from_secs(60)),
            MapState::Mapped
        );
        assert!(start.elapsed() < Duration::from_secs(30));
        // A buffer that is not mapped stays under way, and a waiter gives up at its timeout.
        let idle = buffer(&ctx.device, false);
        assert_eq!(unheard(&idle, ASK_AFTER * 2).state(), MapState::Mapping);
        assert_eq!(unheard(&idle, Duration::ZERO).settled(ASK_AFTER * 3), MapState::Mapping);
    }

    #[test]
    fn a_mapping_reports_through_its_callback() {
        let ctx = GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
        let idle = buffer(&ctx.device, false);
        let mapping = Mapping::write(&idle);
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        assert_eq!(mapping.settled(Duration::from_secs(10)), MapState::Mapped);
        idle.unmap();
    }
}
