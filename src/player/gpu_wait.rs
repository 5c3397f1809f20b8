//! The GPU wait thread: it sleeps until submitted work is done, then wakes the event loop, so a
//! readback on its way needs no polling from the window's thread.

use super::UserEvent;
use winit::event_loop::EventLoopProxy;

/// A thread that waits for the GPU to finish submitted work and then wakes the event loop, so
/// the loop sleeps while a readback is on its way instead of polling the device.
pub struct GpuWaiter {
    submitted: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for GpuWaiter {
    /// The thread ends with the window; it is waited for (at most the GPU's last frame), as a
    /// thread still inside the driver when the process exits can crash it.
    fn drop(&mut self) {
        self.submitted = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl GpuWaiter {
    pub fn start(device: &wgpu::Device, proxy: &EventLoopProxy<UserEvent>) -> Self {
        let (submitted, work) = std::sync::mpsc::channel::<()>();
        let (device, proxy) = (device.clone(), proxy.clone());
        let spawned = std::thread::Builder::new()
            .name("histoplay gpu wait".into())
            .spawn(move || {
                // Ends when the window (the sender) goes.
                while work.recv().is_ok() {
                    while work.try_recv().is_ok() {}
                    // Blocks until the queue is idle; the readbacks' callbacks run here.
                    if let Err(e) = device.poll(wgpu::PollType::wait_indefinitely()) {
                        log::warn!("waiting for the GPU failed: {e}");
                    }
                    let _ = proxy.send_event(UserEvent::GpuDone);
                }
            });
        match spawned {
            Ok(thread) => Self {
                submitted: Some(submitted),
                thread: Some(thread),
            },
            Err(e) => {
                log::warn!("no GPU wait thread ({e}): readbacks land with the next frame");
                Self {
                    submitted: None,
                    thread: None,
                }
            }
        }
    }

    /// Work a readback waits for was submitted.
    pub fn submitted(&self) {
        if let Some(sender) = &self.submitted {
            let _ = sender.send(());
        }
    }
}
