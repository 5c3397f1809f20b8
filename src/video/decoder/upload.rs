//! The upload thread: copies each frame the decode thread sends into its ring slot's textures
//! (copying it back from a hardware decoder first, where it is still there; from the GPU frame
//! cache, a copy on the GPU, where the frame is there), then passes the
//! frame on to the consumer, so the decode thread goes on to the next frame
//! meanwhile (a 4K frame is 12 MB to copy). Everything the consumer hears goes through here, in
//! the order the decode thread sent it: the end of a stream never overtakes its last frames.
//! Frames that a seek made stale before their upload are given back to the decode thread
//! without one (copied back from the hardware decoder only), so the seek's first frame doesn't
//! wait behind them.

use super::{Command, DecoderEvent, ReadyFrame};
use crate::video::convert::{check_planes, PlaneTextures};
use crate::video::format::PlaneData;
use crate::video::format::PlaneLayout;
use crate::video::interop::Transfers;
use crate::video::memory::DirectFrames;
use crate::video::source::{DecodedFrame, Samples};
use crate::video::stages;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

/// What the decode thread sends the consumer's way.
pub(super) enum Outgoing {
    /// `frame` into `ready.slot`, then `ready` to the consumer.
    Frame {
        frame: Arc<DecodedFrame>,
        layout: PlaneLayout,
        ready: ReadyFrame,
    },
    Event(DecoderEvent),
    /// The ring's slots from here on (another shape of frame).
    Ring(Vec<Arc<PlaneTextures>>),
}

pub(super) struct Uploader {
    pub queue: wgpu::Queue,
    pub slots: Vec<Arc<PlaneTextures>>,
    pub outgoing: Receiver<Outgoing>,
    pub events: Sender<DecoderEvent>,
    /// The decode thread's commands: the slots of failed uploads and of stale frames are given
    /// back there.
    pub commands: Sender<Command>,
    pub notify: Box<dyn Fn() + Send>,
    /// The generation of the consumer's latest seek: frames of older ones, which it would only
    /// give back, are given back here instead, neither copied nor uploaded.
    pub latest: Arc<AtomicU64>,
    /// The stream's count of bytes uploaded from memory.
    pub transfers: Arc<Transfers>,
    /// Where its frames are decoded straight into memory the GPU copies from, if anywhere.
    pub direct: Arc<DirectFrames>,
}

impl Uploader {
    /// Queues the GPU's copy of a frame decoded into memory it copies from (`DirectFrames`):
    /// false where the frame is elsewhere. The frame is held until the copy is done, so its
    /// memory is not decoded into again before.
    fn upload_from_pool(
        &self,
        slot: &PlaneTextures,
        frame: &Arc<DecodedFrame>,
        planes: &[PlaneData<'_>],
    ) -> Result<bool, String> {
        let Some(pool) = self.direct.pool() else {
            return Ok(false);
        };
        let starts: Vec<_> = planes.iter().map(|p| (p.data.as_ptr(), p.stride)).collect();
        let Some(located) = pool.locate(&starts) else {
            return Ok(false);
        };
        check_planes(&slot.format, planes).map_err(|e| e.to_string())?;
        slot.upload_from_pool(&self.queue, &located)
            .map_err(|e| e.to_string())?;
        let held = Arc::clone(frame);
        self.queue.on_submitted_work_done(move || drop(held));
        // (Work done since is told now: the frames it held go back.)
        let _ = slot.device().poll(wgpu::PollType::Poll);
        Ok(true)
    }

    /// Runs until the decode thread stops sending or the consumer stops listening.
    pub(super) fn run(mut self) {
        while let Ok(outgoing) = stages::UPLOAD_IDLE.time(|| self.outgoing.recv()) {
            let event = match outgoing {
                Outgoing::Frame { frame, ready, .. } if ready.generation < self.latest.load(Ordering::Acquire) => {
                    // One still in the hardware decoder's memory is copied back all the same
                    // (two at most): the cache holds it too, and would hold its surface.
                    if frame.in_device() {
                        let _ = frame.video();
                    }
                    let _ = self.commands.send(Command::Release(ready.slot));
                    continue;
                }
                Outgoing::Frame { frame, layout, ready } => {
                    let slot = &self.slots[ready.slot];
                    let uploaded = match &frame.samples {
                        // In the GPU frame cache: a copy on the GPU.
                        Samples::Gpu(planes) => slot.upload_from_gpu(&self.queue, planes).map_err(|e| e.to_string()),
                        // A frame still in the hardware decoder's memory is copied back first.
                        _ => frame.video().and_then(|_| {
                            let planes = frame.planes(layout);
                            if self.upload_from_pool(slot, &frame, &planes)? {
                                self.transfers.in_place(slot.staged_bytes());
                                return Ok(());
                            }
                            slot.upload(&self.queue, &planes).map_err(|e| e.to_string())?;
                            // What the GPU copies from the staging buffer in memory.
                            self.transfers.to_device(slot.staged_bytes());
                            Ok(())
                        }),
                    };
                    match uploaded {
                        Ok(()) => DecoderEvent::Frame(ready),
                        Err(message) => {
                            let _ = self.commands.send(Command::Release(ready.slot));
                            DecoderEvent::Failed {
                                generation: ready.generation,
                                message,
                            }
                        }
                    }
                }
                Outgoing::Event(event) => event,
                Outgoing::Ring(slots) => {
                    self.slots = slots;
                    continue;
                }
            };
            if self.events.send(event).is_err() {
                return;
            }
            (self.notify)();
        }
    }
}
