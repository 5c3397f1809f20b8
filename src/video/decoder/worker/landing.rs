//! Landing a seek: a decode run headed for one frame (the last at or before a time), answered
//! from the cache where it can be, with a preview shown while it catches up, and settled on the
//! exact frame once the frames after it show that nothing comes between.

use super::*;

/// A decode run headed for one frame: the last at or before `limit`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Landing {
    pub(super) limit: i64,
    /// False: show the first frame the run gives (a keyframe seek, or the stream's start).
    pub(super) exact: bool,
    /// The target's pts, when the index knows it: no need to see the frame after it.
    pub(super) target: Option<i64>,
    /// Frames from here on are decoded in full and kept.
    pub(super) keep_from: i64,
    /// Send a preview while catching up: a frame of the target's GOP from the cache, the
    /// keyframe from the preview thread, or the first frame of the run.
    pub(super) preview: bool,
    /// A ring slot was set aside for the preview.
    pub(super) claimed: bool,
    /// Send the frame landed on (false: the run only fills the cache or repositions).
    pub(super) deliver: bool,
    /// The decoder has been positioned for this run.
    pub(super) started: bool,
    /// Frames the run has given so far.
    pub(super) decoded: u32,
    /// The last frame at or before the limit so far (it is in the cache).
    pub(super) candidate: Option<i64>,
    pub(super) attempt: u32,
    /// When the seek was asked for (for the debug log).
    pub(super) asked: Option<std::time::Instant>,
}

impl Landing {
    /// A run that delivers nothing, already positioned: it repositions the decoder at the last
    /// frame at or before `limit` (its pts `target`, when known), decoding in full from
    /// `keep_from` on.
    pub(super) fn quiet(limit: i64, target: Option<i64>, keep_from: i64) -> Self {
        Self {
            limit,
            exact: true,
            target,
            keep_from,
            preview: false,
            claimed: false,
            deliver: false,
            started: true,
            decoded: 0,
            candidate: None,
            attempt: 0,
            asked: None,
        }
    }

    /// The stream's first frame, decoded from where the demuxer starts.
    pub(super) fn first_frame() -> Self {
        Self {
            limit: i64::MIN,
            exact: false,
            target: None,
            keep_from: i64::MIN,
            preview: false,
            claimed: false,
            deliver: true,
            started: true,
            decoded: 0,
            candidate: None,
            attempt: 0,
            asked: None,
        }
    }
}

impl Worker {
    /// The decode run a seek needs.
    pub(super) fn landing(&self, target: SeekTarget) -> Landing {
        let tpf = self.ticks_per_frame;
        // While paused the viewer is inspecting: a seek keeps all of its run the budget holds, so
        // that steps back from where it lands never wait for the paused fill to decode the GOP
        // again (nothing is ahead of it yet: the frames steps back pass over take their share of
        // the budget from the farthest behind as they come). While playing it keeps a few, each
        // of which lengthens the seek.
        let frame_bytes = self.frame_bytes.max(1) as u64;
        let seek_keep = if self.paused {
            self.budget_frames()
        } else {
            SEEK_KEEP_FRAMES.min(SEEK_KEEP_BYTES / frame_bytes)
        };
        let (limit, exact, preview, keep) = match target {
            SeekTarget::Time { seconds, exact } => (self.source.info.pts_at(seconds), exact, true, seek_keep),
            SeekTarget::Frame(n) => {
                let pts = if self.source.exact_numbers() {
                    self.index.wait_pts_of(n)
                } else {
                    self.index.pts_of(n)
                };
                let pts = pts.unwrap_or_else(|| match self.index.frame_count() {
                    // Past the end: the last frame.
                    Some(_) => i64::MAX,
                    None => self.index.estimated_pts_of(n),
                });
                (pts, true, true, seek_keep)
            }
            // A step back keeps everything it decodes, for the steps after it.
            SeekTarget::Before(pts) => (pts.saturating_sub(1), true, false, self.budget_frames()),
            SeekTarget::End => (i64::MAX, true, false, seek_keep),
        };
        // At least the frame before the limit is kept whole: the target is at or after it.
        let keep = keep.min(self.budget_frames()).max(1);
        let number = self.index.number_at(limit);
        let target = number.exact.then(|| self.index.pts_of(number.n)).flatten();
        Landing {
            limit,
            exact,
            target,
            keep_from: limit.saturating_sub((keep as f64 * tpf) as i64),
            preview,
            claimed: false,
            deliver: true,
            started: false,
            decoded: 0,
            candidate: None,
            attempt: 0,
            asked: Some(std::time::Instant::now()),
        }
    }

    /// One frame of a landing run (or the answer from the cache).
    pub(super) fn land(&mut self, mut landing: Landing) -> Result<Progress, String> {
        if !landing.started {
            if landing.exact && landing.deliver {
                let cached = match landing.target {
                    Some(target) if self.cache.contains(target) => Some(target),
                    _ => self.cache.last_at_or_before(landing.limit),
                };
                if let Some(pts) = cached {
                    if self.free.is_empty() {
                        return Ok(Progress::Idle);
                    }
                    self.deliver(pts, false)?;
                    self.task = Task::Follow;
                    return Ok(Progress::Worked);
                }
            }
            self.fill = None;
            self.position(&landing);
            self.claim_preview(&mut landing)?;
            landing.started = true;
            self.task = Task::Land(landing);
            return Ok(Progress::Worked);
        }
        // The ring may have had no slot to spare when the landing started.
        self.claim_preview(&mut landing)?;
        let anchor = landing.candidate.unwrap_or(landing.limit.min(i64::MAX / 2));
        match self.decode(anchor, landing.candidate, false)? {
            None => {
                // The end: the last frame at or before the limit, else the last there is.
                // (Settling on a frame the run passed decodes it again.)
                match landing.candidate.or(self.source.position()) {
                    Some(pts) if landing.deliver => self.settle(landing, pts)?,
                    Some(pts) if self.cache.contains(pts) => {
                        self.cursor = Some(pts);
                        self.task = Task::Follow;
                    }
                    _ => self.end(),
                }
            }
            Some(pts) => self.landed_on(landing, pts)?,
        }
        Ok(Progress::Worked)
    }

    /// What a frame the landing run decoded means for it.
    pub(super) fn landed_on(&mut self, mut landing: Landing, pts: i64) -> Result<(), String> {
        landing.decoded += 1;
        let first_of_run = landing.decoded == 1;
        if first_of_run && self.is_stream_start(pts) {
            self.cache.mark_first(pts);
        }
        if !landing.exact {
            return self.settle(landing, pts);
        }
        if first_of_run && pts > landing.limit && !self.cache.is_first(pts) && landing.attempt < LANDING_ATTEMPTS {
            // Landed after the target (a demuxer that indexes by dts, a missing keyframe):
            // go back further, 1, 2, 4 ... seconds, then from the start.
            let back = self.source.info.pts_at(f64::from(1u32 << landing.attempt)).max(1);
            let earlier = if landing.attempt + 1 == LANDING_ATTEMPTS {
                i64::MIN / 2
            } else {
                landing.limit.saturating_sub(back)
            };
            landing.attempt += 1;
            landing.decoded = 0;
            self.seek_source(earlier);
            self.source.catch_up(Some(CatchUp {
                limit: landing.limit,
                keep_from: landing.keep_from,
                pass: landing.exact,
            }));
            self.task = Task::Land(landing);
            return Ok(());
        }
        if pts <= landing.limit {
            landing.candidate = Some(pts);
            if landing.target == Some(pts) {
                return self.settle(landing, pts);
            }
            if first_of_run && self.cache.contains(pts) && self.send_preview(pts)? {
                if let Some(asked) = landing.asked {
                    log::debug!(
                        "preview at pts {pts} after {:.1} ms",
                        asked.elapsed().as_secs_f64() * 1e3
                    );
                }
            }
            self.task = Task::Land(landing);
            return Ok(());
        }
        // Past the limit: the candidate is the frame (or, with none before the limit, the
        // stream's first frame is).
        let landed = landing.candidate.unwrap_or(pts);
        self.settle(landing, landed)
    }

    /// The landing is over at `pts`: send it (unless the run only repositioned) and follow on.
    pub(super) fn settle(&mut self, landing: Landing, pts: i64) -> Result<(), String> {
        if landing.deliver && !self.cache.contains(pts) {
            self.redo(landing, pts);
            return Ok(());
        }
        if landing.deliver && self.free.is_empty() {
            self.task = Task::Deliver(landing, pts);
            return Ok(());
        }
        self.source.catch_up(None);
        if let Some(asked) = landing.asked {
            log::debug!(
                "landed on pts {pts} after {} frames in {:.1} ms",
                landing.decoded,
                asked.elapsed().as_secs_f64() * 1e3
            );
        }
        if landing.deliver {
            self.deliver(pts, false)?;
        } else {
            self.close_claim();
            self.cursor = Some(pts);
        }
        self.task = Task::Follow;
        Ok(())
    }

    /// Once a ring slot can be spared for an exact landing's preview (the landing needs another
    /// for its frame): sets it aside, and sends a frame of the target's GOP from the cache at
    /// once (nearer the target than its keyframe) or has the preview thread decode the keyframe.
    pub(super) fn claim_preview(&mut self, landing: &mut Landing) -> Result<(), String> {
        if landing.claimed || !(landing.preview && landing.exact && landing.deliver) || self.free.len() < 2 {
            return Ok(());
        }
        landing.claimed = true;
        self.close_claim();
        let Some(slot) = self.free.pop_front() else {
            return Ok(());
        };
        let claim = Claim::new(slot, self.generation);
        self.claim = Some(Arc::clone(&claim));
        let nearest = self.cache.nearest_at_or_before(landing.limit);
        if let Some(pts) = nearest.filter(|&p| self.index.keyframe_between(p, landing.limit) == Some(false)) {
            if self.send_preview(pts)? {
                log::debug!("preview of pts {pts} from the cache");
                return Ok(());
            }
        }
        if let Some(jobs) = &self.keyframes {
            let _ = jobs.send(Job {
                limit: landing.limit,
                target: landing.target,
                claim,
                format: self.ring_format(),
            });
        }
        Ok(())
    }

    /// The landing is over: no preview after this; its slot comes back if nobody used it.
    pub(super) fn close_claim(&mut self) {
        let Some(claim) = self.claim.take() else { return };
        let mut state = claim.lock();
        if let ClaimState::Open { slot, .. } = *state {
            self.free.push_back(slot);
        }
        *state = ClaimState::Closed;
    }

    /// Sends the cached frame at `pts` as the landing's preview, unless the preview thread
    /// got there first; whether it was sent.
    pub(super) fn send_preview(&mut self, pts: i64) -> Result<bool, String> {
        // (Taken out while it is sent: a frame held for a ring of its own shape closes any
        // claim but the one it is sent under, whose lock is held here.)
        let Some(claim) = self.claim.take() else {
            return Ok(false);
        };
        let mut state = claim.lock();
        let sent = match *state {
            ClaimState::Open { slot, .. } => self.send_in(slot, pts, true).map(|()| true),
            _ => Ok(false),
        };
        if sent == Ok(true) {
            *state = ClaimState::Sent;
        }
        drop(state);
        self.claim = Some(claim);
        sent
    }

    /// The landing's frame turned out to be one the run passed (its pixels were not kept: a gap
    /// in the stream's timing put it before the frames kept): decode up to it again, keeping it.
    pub(super) fn redo(&mut self, mut landing: Landing, pts: i64) {
        log::debug!("landing again on pts {pts}, a frame the run passed");
        self.close_claim();
        landing.keep_from = landing.keep_from.min(pts);
        landing.limit = pts;
        landing.target = Some(pts);
        landing.preview = false;
        landing.decoded = 0;
        landing.candidate = None;
        self.seek_source(pts);
        self.source.catch_up(Some(CatchUp {
            limit: landing.limit,
            keep_from: landing.keep_from,
            pass: false,
        }));
        self.decoder_ended = false;
        self.task = Task::Land(landing);
    }

    /// Puts the decoder where a run for `landing` starts: on from where it is when no keyframe
    /// lies between (decoding on is cheaper than starting again), else at the keyframe before.
    pub(super) fn position(&mut self, landing: &Landing) {
        // Whatever the decoder was being taken to, it is headed elsewhere now.
        self.ahead = None;
        self.ahead_done = false;
        let catch_up = CatchUp {
            limit: landing.limit,
            keep_from: landing.keep_from,
            pass: landing.exact,
        };
        if let Some(at) = self.source.position().filter(|_| !self.decoder_ended) {
            let near = landing.limit.saturating_sub(at) as f64 <= 2.0 * self.ticks_per_frame;
            let same_gop = self.index.keyframe_between(at, landing.limit) == Some(false);
            // Frames the run before left out (catching up to a later frame) don't come: the
            // run starts again from the keyframe where one of them may be the one wanted.
            let all_there = !self.source.skipped_between(at, landing.limit);
            if at < landing.limit && (near || same_gop) && all_there {
                self.source.catch_up(Some(catch_up));
                return;
            }
        }
        // Past the end (the last frame): from the last keyframe the container knows of, or the
        // index (a file whose timestamps start over runs on past what its container says).
        let end = self
            .index
            .span()
            .map_or(self.end_pts, |(_, last)| self.end_pts.max(last));
        self.seek_source(landing.limit.min(end));
        self.source.catch_up(Some(catch_up));
        self.decoder_ended = false;
    }

    /// Whether `pts` is the stream's first frame.
    pub(super) fn is_stream_start(&self, pts: i64) -> bool {
        self.index.first_pts() == Some(pts)
    }
}
