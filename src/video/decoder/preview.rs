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
use crate::video::format::FrameFormat;
use crate::video::index::FrameIndex;
use crate::video::source::{DecodedFrame, KeyframeDecoder};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How long after the file opens the preview thread opens it again, unless a seek comes first.
const OPEN_AFTER: Duration = Duration::from_millis(500);

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
/// for the frame at `target` when the index knows it (no preview if that is the keyframe),
/// into a slot of the ring for frames of `format`.
pub(super) struct Job {
    pub limit: i64,
    pub target: Option<i64>,
    pub claim: Arc<Claim>,
    pub format: FrameFormat,
}

pub(super) struct PreviewThread {
    pub decoder: KeyframeDecoder,
    pub index: Arc<FrameIndex>,
    pub jobs: Receiver<Job>,
    pub outgoing: Sender<Outgoing>,
}

impl PreviewThread {
    /// Runs until the decode thread lets go of the job channel.
    pub(super) fn run(mut self) {
        // The file is opened again at the first seek, or once the first frame has had time to
        // come out: that open reads the container's index (all of it, for an MP4), which the
        // first frame should not wait for.
        match self.jobs.recv_timeout(OPEN_AFTER) {
            Ok(job) => self.preview(job),
            Err(RecvTimeoutError::Timeout) => self.decoder.prepare(),
            Err(RecvTimeoutError::Disconnected) => return,
        }
        while let Ok(job) = self.jobs.recv() {
            self.preview(job);
        }
    }

    /// Decodes the keyframe of the newest job, and sends it if its landing still wants it.
    fn preview(&mut self, mut job: Job) {
        // A storm of seeks: only the newest keyframe matters.
        while let Ok(newer) = self.jobs.try_recv() {
            job = newer;
        }
        if !matches!(*job.claim.lock(), ClaimState::Open { .. }) {
            return;
        }
        let started = std::time::Instant::now();
        let Some((pts, frame)) = self.decoder.decode_at(job.limit, &job.format) else {
            return;
        };
        if job.target == Some(pts) {
            return;
        }
        let info = self.decoder.info();
        let number = self.index.number_at(pts);
        let decoded = DecodedFrame {
            index: number.n,
            exact: number.exact,
            awaited: None,
            pts,
            seconds: info.seconds(pts),
            previous: None,
            pict_type: crate::video::source::picture_type(&frame),
            packet: crate::video::source::PacketProps::of(&frame),
            samples: frame.into(),
            picture: None,
        };
        let layout = job.format.layout;
        let mut claim = job.claim.lock();
        if let ClaimState::Open { slot, generation } = *claim {
            let ready = ReadyFrame {
                slot,
                index: number.n,
                exact: number.exact,
                awaited: None,
                pts,
                seconds: decoded.seconds,
                generation,
                preview: true,
                pict_type: decoded.pict_type,
                packet: decoded.packet,
                live_edge: false,
            };
            let frame = Arc::new(decoded);
            // The upload thread gone means the decode thread is stopping too.
            if self.outgoing.send(Outgoing::Frame { frame, layout, ready }).is_ok() {
                *claim = ClaimState::Sent;
                log::debug!(
                    "keyframe preview of pts {pts} decoded in {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
        }
    }
}
