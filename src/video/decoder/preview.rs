//! The preview thread: decodes the keyframe at or before a seek's target by itself
//! (`KeyframeDecoder`) and sends it as the seek's preview, while the decode thread catches up
//! to the exact frame.
//!
//! A preview needs a ring slot and must reach the consumer before the exact frame or not at
//! all. The decode thread sets a slot aside in a `Claim` when a landing starts; whichever
//! comes first, this thread's keyframe or the decode thread's own first frame, takes it. The
//! decode thread cancels the claim before it sends the exact frame (taking the slot back if
//! nobody used it); both sides send under the claim's lock, so a preview is never queued after
//! the exact frame.

use super::upload::Outgoing;
use super::ReadyFrame;
use crate::video::index::FrameIndex;
use crate::video::source::{DecodedFrame, KeyframeDecoder};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};

/// A ring slot set aside for one landing's preview.
pub(super) struct Claim(Mutex<ClaimState>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ClaimState {
    /// Nobody has sent a preview yet: `slot` is for it.
    Open {
        slot: usize,
        generation: u64,
    },
    Sent,
    /// The landing is over (or superseded): no preview any more.
    Closed,
}

impl Claim {
    pub(super) fn new(slot: usize, generation: u64) -> Arc<Self> {
        Arc::new(Self(Mutex::new(ClaimState::Open { slot, generation })))
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, ClaimState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The keyframe at or before `limit` to preview, for the landing that holds `claim`, headed
/// for the frame at `target` when the index knows it (no preview if that is the keyframe).
pub(super) struct Job {
    pub limit: i64,
    pub target: Option<i64>,
    pub claim: Arc<Claim>,
}

pub(super) struct PreviewThread {
    pub decoder: KeyframeDecoder,
    pub index: Arc<FrameIndex>,
    pub jobs: Receiver<Job>,
    pub outgoing: Sender<Outgoing>,
}

impl PreviewThread {
    /// Runs until the decode thread (and every tap it set) lets go of the job channel.
    pub(super) fn run(mut self) {
        self.decoder.prepare();
        while let Ok(mut job) = self.jobs.recv() {
            // A storm of seeks: only the newest keyframe matters.
            while let Ok(newer) = self.jobs.try_recv() {
                job = newer;
            }
            if !matches!(*job.claim.lock(), ClaimState::Open { .. }) {
                continue;
            }
            let started = std::time::Instant::now();
            let Some((pts, frame)) = self.decoder.decode_at(job.limit) else {
                continue;
            };
            if job.target == Some(pts) {
                continue;
            }
            let info = self.decoder.info();
            let number = self.index.number_at(pts);
            let decoded = DecodedFrame {
                index: number.n,
                exact: number.exact,
                pts,
                seconds: info.seconds(pts),
                previous: None,
                frame,
            };
            let layout = info.format.layout;
            let mut claim = job.claim.lock();
            if let ClaimState::Open { slot, generation } = *claim {
                let ready = ReadyFrame {
                    slot,
                    index: number.n,
                    exact: number.exact,
                    pts,
                    seconds: decoded.seconds,
                    generation,
                    preview: true,
                };
                let frame = Arc::new(decoded);
                if self.outgoing.send(Outgoing::Frame { frame, layout, ready }).is_err() {
                    return;
                }
                *claim = ClaimState::Sent;
                log::debug!(
                    "keyframe preview of pts {pts} decoded in {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
        }
    }
}
