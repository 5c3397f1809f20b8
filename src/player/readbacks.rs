//! What the window reads back from the GPU for itself: the clipping readout and screenshots,
//! and the thread that wakes the event loop when readbacks land.

use super::clipping::{Clipping, ClippingReadback};
use super::gpu_wait::GpuWaiter;
use super::media::Media;
use super::screenshot::{Notify, Screenshots};
use super::UserEvent;
use std::sync::Arc;
use winit::event_loop::EventLoopProxy;

pub struct Readbacks {
    pub clipping: ClippingReadback,
    /// The clipping readout of the open file that landed last.
    pub readout: Option<Clipping>,
    pub screenshots: Screenshots,
    /// `s` was pressed: the next frame drawn is saved too.
    pub screenshot_wanted: bool,
    /// Tells the event loop a screenshot was saved (or not).
    notify: Notify,
    waiter: GpuWaiter,
}

impl Readbacks {
    pub fn new(device: &wgpu::Device, proxy: &EventLoopProxy<UserEvent>) -> Self {
        let notify_proxy = proxy.clone();
        let notify: Notify = Arc::new(move |result| {
            let _ = notify_proxy.send_event(UserEvent::ScreenshotSaved(result));
        });
        Self {
            clipping: ClippingReadback::new(device),
            readout: None,
            screenshots: Screenshots::default(),
            screenshot_wanted: false,
            notify,
            waiter: GpuWaiter::start(device, proxy),
        }
    }

    /// Whether the clipping readout or a screenshot waits on the GPU.
    pub fn pending(&self) -> bool {
        self.clipping.pending() || self.screenshots.pending()
    }

    /// Takes a clipping readout of `media`'s that landed; true when a paused frame must be
    /// drawn again to show it (playing, the next frame shows it anyway).
    pub fn poll(&mut self, media: &Media) -> bool {
        match self.clipping.take_latest() {
            Some((tag, clipping)) if tag.media == media.serial => {
                self.readout = Some(clipping);
                media.playback.paused()
            }
            _ => false,
        }
    }

    /// Hands saved screenshots' files to the PNG writer's notice.
    pub fn finish(&mut self) {
        self.screenshots.finish(&self.notify);
    }

    /// A frame's work was submitted: when it (or `others`, the parts' readbacks) waits on the
    /// GPU, the wait thread wakes the loop once it is done.
    pub fn submitted(&mut self, others: bool) {
        self.clipping.submitted();
        self.screenshots.submitted();
        if self.pending() || others {
            self.waiter.submitted();
        }
    }
}
