//! Two files played as one (`histoplay A --compare B`): A's decoder drives playback, and each
//! of its frames is passed on only with its partner from B's decoder, found by number or by
//! time (`compare::align`). B is sought where its frames don't lead to the partner: at once
//! when A's seek names the partner (a frame, a time, a step back), otherwise as soon as A's
//! first frame of the seek arrives. Playback sees one `FrameSource` and never learns of B; the
//! window asks for the partner of the frame it draws.

use super::playback::FrameSource;
use crate::compare::align::{Alignment, Want};
use crate::video::cache::CacheFill;
use crate::video::decoder::{DecodeThread, DecoderEvent, ReadyFrame};
use crate::video::deinterlace::Deinterlacer;
use crate::video::source::SeekTarget;
use std::collections::{HashMap, VecDeque};

/// B decodes forward to a partner at most this many of its frames ahead; a partner further on
/// is sought.
const FAR_FRAMES: f64 = 30.0;
/// A's frames passed on that a step back may name by pts.
const HANDED_KEPT: usize = 32;

/// What B's frames say about the partner wanted.
#[derive(Debug, PartialEq)]
enum Partner {
    Found(ReadyFrame),
    /// B has no such frame (before its first, after its last, or missing).
    None,
    /// Still on its way.
    Wait,
}

pub struct Paired<S> {
    pub a: S,
    pub b: S,
    align: Alignment,
    /// A's frames of its current generation waiting for their partners, oldest first.
    waiting: VecDeque<ReadyFrame>,
    /// A's end (or failure) of its current generation, passed on after the frames before it.
    a_end: Option<DecoderEvent>,
    /// Events for playback.
    ready: VecDeque<DecoderEvent>,
    /// B's frames of its current generation not passed by yet, oldest first.
    b_frames: VecDeque<ReadyFrame>,
    b_ended: bool,
    /// The partner B's current generation was sought for, or last delivered (None: B is
    /// wherever an earlier seek left it).
    b_aim: Option<Want>,
    /// The partner of each A slot passed on (None: it has none).
    partners: HashMap<usize, Option<ReadyFrame>>,
    /// Holders of each B slot: B's queue and the A frames paired with it.
    b_holds: HashMap<usize, u32>,
    /// A's frames passed on lately, pts and number: a step back names the frame by pts.
    handed: VecDeque<(i64, u64)>,
    b_failure: Option<String>,
    /// B's frames passed by so far (each may give a slot back, and B a picture made in it).
    b_popped: u64,
    /// B's frames are no longer what pairs want (another deinterlacing): they go back as they
    /// come, until B is sought for the next partner.
    b_stale: bool,
}

impl<S: FrameSource> Paired<S> {
    /// A and B from their first frames (B from its frame that A's first goes with).
    pub fn new(a: S, b: S, align: Alignment) -> Self {
        let start = match align.by {
            crate::compare::align::AlignBy::Frame => Want::Frame(0),
            crate::compare::align::AlignBy::Time => Want::At(0.0),
        };
        Self {
            a,
            b,
            align,
            waiting: VecDeque::new(),
            a_end: None,
            ready: VecDeque::new(),
            b_frames: VecDeque::new(),
            b_ended: false,
            b_aim: Some(start),
            partners: HashMap::new(),
            b_holds: HashMap::new(),
            handed: VecDeque::new(),
            b_failure: None,
            b_popped: 0,
            b_stale: false,
        }
    }

    pub fn alignment(&self) -> Alignment {
        self.align
    }

    /// Shifts B by `offset` frames from the next pairing on; the caller seeks playback to the
    /// frame shown to pair it again.
    pub fn set_offset(&mut self, offset: i64) {
        self.align.offset = offset;
        self.b_aim = None;
    }

    /// The partner of the A frame in `slot`, passed on and not released yet.
    pub fn partner(&self, slot: usize) -> Option<ReadyFrame> {
        self.partners.get(&slot).copied().flatten()
    }

    /// B's decoder failed (its frames since have no partner); once.
    pub fn take_b_failure(&mut self) -> Option<String> {
        self.b_failure.take()
    }

    fn hold(&mut self, slot: usize) {
        *self.b_holds.entry(slot).or_insert(0) += 1;
    }

    fn unhold(&mut self, slot: usize) {
        if let Some(count) = self.b_holds.get_mut(&slot) {
            *count -= 1;
            if *count == 0 {
                self.b_holds.remove(&slot);
                self.b.release(slot);
            }
        }
    }

    fn pop_b(&mut self) {
        if let Some(f) = self.b_frames.pop_front() {
            self.b_popped += 1;
            self.unhold(f.slot);
        }
    }

    /// Seeks B for the next partner, whatever its frames are now (their deinterlacing changed).
    pub fn reseek_b(&mut self) {
        while !self.b_frames.is_empty() {
            self.pop_b();
        }
        self.b_stale = true;
        self.b_aim = None;
    }

    fn seek_b(&mut self, want: Want) {
        self.b_stale = false;
        self.b.seek(want.seek_target(self.align.start_b));
        while !self.b_frames.is_empty() {
            self.pop_b();
        }
        self.b_ended = false;
        self.b_aim = Some(want);
    }

    /// Whether B's decoding from `aim` on passes `want` (soon enough to wait for it).
    fn leads_to(&self, aim: Option<Want>, want: Want) -> bool {
        aim.is_some_and(|aim| {
            let ahead = aim.frames_to(want, self.align.frame_b);
            (-1e-6..=FAR_FRAMES).contains(&ahead)
        })
    }

    fn key(&self, f: &ReadyFrame) -> (u64, f64) {
        self.align.key(f.index, f.seconds)
    }

    /// B's partner for `want`, passing by the frames before it; seeks B where its frames won't
    /// lead there.
    fn find(&mut self, want: Want) -> Partner {
        if self.b_stale {
            self.seek_b(want);
            return Partner::Wait;
        }
        match want {
            Want::Frame(n) => {
                while self.b_frames.front().is_some_and(|f| f.index < n) {
                    self.pop_b();
                }
            }
            Want::At(_) => {
                // Superseded: the frame after it is due by then too.
                while self.b_frames.get(1).is_some_and(|f| !want.is_before(self.key(f))) {
                    self.pop_b();
                }
                // B's next picture, known before it can be made (it needs the last one's slot
                // back, or the frame after its own), is due by then too: the last is passed by,
                // and that one awaited.
                let next = self
                    .b
                    .next_picture()
                    .map(|(index, seconds)| self.align.key(index, seconds));
                if self.b_frames.len() == 1 && next.is_some_and(|next| !want.is_before(next)) {
                    self.pop_b();
                }
            }
        }
        let aimed_here = self
            .b_aim
            .is_some_and(|aim| aim.frames_to(want, self.align.frame_b) >= -1e-6);
        match self.b_frames.front().copied() {
            Some(front) if !want.is_before(self.key(&front)) => {
                let settled = match want {
                    Want::Frame(_) => true,
                    Want::At(_) => self.b_frames.len() > 1 || self.b_ended || self.b.next_picture().is_some(),
                };
                if settled {
                    self.b_aim = Some(want);
                    return Partner::Found(front);
                }
                // Aligned by time: the next frame may be due by then too, unless B is far behind.
                let behind = self.align.key(front.index, front.seconds).1;
                if self.leads_to(Some(Want::At(behind)), want) {
                    Partner::Wait
                } else {
                    self.seek_b(want);
                    Partner::Wait
                }
            }
            Some(_) if aimed_here => Partner::None,
            None if self.b_ended && aimed_here => Partner::None,
            None if !self.b_ended && self.leads_to(self.b_aim, want) => Partner::Wait,
            _ => {
                self.seek_b(want);
                Partner::Wait
            }
        }
    }

    /// Takes in both decoders' events and passes on A's frames whose partners are known.
    fn pump(&mut self) {
        let generation = self.a.generation();
        while let Some(event) = self.a.try_event() {
            match event {
                DecoderEvent::Frame(f) if f.generation == generation && !f.preview => self.waiting.push_back(f),
                // A seek's keyframe preview has no partner to show with it: the frame follows.
                DecoderEvent::Frame(f) => self.a.release(f.slot),
                DecoderEvent::EndOfStream { generation: g } | DecoderEvent::Failed { generation: g, .. }
                    if g == generation =>
                {
                    self.a_end = Some(event)
                }
                // Only a live input played alone follows its picture's shape.
                DecoderEvent::EndOfStream { .. } | DecoderEvent::Failed { .. } | DecoderEvent::Reshaped(_) => {}
            }
        }
        // Passing B's frames by gives their slots back, in which B may make its next pictures
        // at once: those are paired too.
        loop {
            self.take_b_events();
            let popped = self.b_popped;
            self.pair_waiting();
            if self.b_popped == popped {
                break;
            }
        }
        if self.waiting.is_empty() {
            if let Some(end) = self.a_end.take() {
                self.ready.push_back(end);
            }
        }
    }

    fn take_b_events(&mut self) {
        let generation = self.b.generation();
        while let Some(event) = self.b.try_event() {
            match event {
                DecoderEvent::Frame(f) if f.generation == generation && !f.preview && !self.b_stale => {
                    self.hold(f.slot);
                    self.b_frames.push_back(f);
                }
                DecoderEvent::Frame(f) => self.b.release(f.slot),
                DecoderEvent::EndOfStream { generation: g } if g == generation => self.b_ended = true,
                DecoderEvent::Failed { generation: g, message } if g == generation => {
                    self.b_ended = true;
                    self.b_failure = Some(message);
                }
                DecoderEvent::EndOfStream { .. } | DecoderEvent::Failed { .. } | DecoderEvent::Reshaped(_) => {}
            }
        }
    }

    /// Passes on A's frames waiting whose partners are known, in order.
    fn pair_waiting(&mut self) {
        while let Some(&fa) = self.waiting.front() {
            let partner = match self.align.want(fa.index, fa.seconds) {
                None => None,
                Some(want) => match self.find(want) {
                    Partner::Found(fb) => Some(fb),
                    Partner::None => None,
                    Partner::Wait => break,
                },
            };
            self.waiting.pop_front();
            if let Some(fb) = partner {
                self.hold(fb.slot);
            }
            if let Some(Some(old)) = self.partners.insert(fa.slot, partner) {
                // The slot was passed on again without a release (cannot happen with playback).
                self.unhold(old.slot);
            }
            self.handed.push_back((fa.pts, fa.index));
            if self.handed.len() > HANDED_KEPT {
                self.handed.pop_front();
            }
            self.ready.push_back(DecoderEvent::Frame(fa));
        }
    }

    /// The partner of A's seek `target`, where the target names it.
    fn partner_of_seek(&self, target: SeekTarget) -> Option<Want> {
        use crate::compare::align::AlignBy;
        match (self.align.by, target) {
            (AlignBy::Frame, SeekTarget::Frame(n)) => self.align.want(n, 0.0),
            (AlignBy::Time, SeekTarget::Time { seconds, exact: true }) => self.align.want(0, seconds),
            (AlignBy::Frame, SeekTarget::Before(pts)) => {
                // Where A numbers its pictures itself (fields share their frame's pts), A says.
                let landing = match self.a.landing(target) {
                    Some(picture) => picture,
                    None => self.handed.iter().rev().find(|(p, _)| *p == pts)?.1.checked_sub(1)?,
                };
                self.align.want(landing, 0.0)
            }
            _ => None,
        }
    }

    /// Gives back every slot held here (before the decoders go away).
    pub fn release_all(&mut self) {
        while let Some(f) = self.waiting.pop_front() {
            self.a.release(f.slot);
        }
        while !self.b_frames.is_empty() {
            self.pop_b();
        }
    }
}

impl<S: FrameSource> FrameSource for Paired<S> {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        // (Before A's pictures waiting go back: a step back lands by the last one shown.)
        let partner = self.partner_of_seek(target);
        let generation = self.a.seek(target);
        while let Some(f) = self.waiting.pop_front() {
            self.a.release(f.slot);
        }
        self.a_end = None;
        match partner {
            Some(want) => self.seek_b(want),
            // Found once A's frame arrives.
            None => self.b_aim = None,
        }
        generation
    }

    fn release(&mut self, slot: usize) {
        self.a.release(slot);
        if let Some(Some(fb)) = self.partners.remove(&slot) {
            self.unhold(fb.slot);
        }
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        if self.ready.is_empty() {
            self.pump();
        }
        self.ready.pop_front()
    }

    fn generation(&self) -> u64 {
        self.a.generation()
    }

    fn set_paused(&mut self, paused: bool) {
        self.a.set_paused(paused);
        self.b.set_paused(paused);
    }
}

/// A file's frames in the window: its decoder's, deinterlaced where asked.
pub type Side = super::deinterlaced::Deinterlaced<DecodeThread>;

/// What the window plays from: one file, or two paired.
pub enum PlayerSource {
    One(Box<Side>),
    Two(Box<Paired<Side>>),
}

impl PlayerSource {
    /// A's frames of `shape` can't be shown (`DecodeThread::refuse_ring`).
    pub fn refuse_ring(&self, shape: crate::video::source::FrameShape) {
        if let PlayerSource::One(a) = self {
            a.refuse_ring(shape);
        }
    }

    /// A's frames go into `slots`, of `shape`, from now on (`DecodeThread::set_ring`).
    /// The deinterlacing, if any, goes on with `all` (the decoder's and its own spare).
    pub fn set_ring(
        &mut self,
        shape: crate::video::source::FrameShape,
        slots: Vec<std::sync::Arc<crate::video::convert::PlaneTextures>>,
        all: Vec<std::sync::Arc<crate::video::convert::PlaneTextures>>,
    ) {
        if let PlayerSource::One(a) = self {
            a.set_slots(all);
            a.set_ring(shape, slots);
        }
    }

    /// How full A's decoded-frame cache is.
    pub fn cache_fill(&self) -> CacheFill {
        match self {
            PlayerSource::One(a) => a.cache_fill(),
            PlayerSource::Two(pair) => pair.a.cache_fill(),
        }
    }

    /// A live input's packets shared from its next keyframe on (`DecodeThread::share_packets`);
    /// None for two files compared.
    pub fn share_packets(&self) -> Option<std::sync::mpsc::Receiver<crate::video::decoder::SharedPackets>> {
        match self {
            PlayerSource::One(a) => Some(a.share_packets()),
            PlayerSource::Two(_) => None,
        }
    }

    /// Which path carries A's frames to the GPU.
    pub fn frame_path(&self) -> crate::video::interop::FramePath {
        match self {
            PlayerSource::One(a) => a.frame_path(),
            PlayerSource::Two(pair) => pair.a.frame_path(),
        }
    }

    /// The deinterlacer in force, if any.
    pub fn deinterlace(&self) -> Option<Deinterlacer> {
        match self {
            PlayerSource::One(a) => a.filter(),
            PlayerSource::Two(pair) => pair.a.filter(),
        }
    }

    /// Whether pictures come a field at a time.
    pub fn field_rate(&self) -> bool {
        match self {
            PlayerSource::One(a) => a.field_rate(),
            PlayerSource::Two(pair) => pair.a.field_rate(),
        }
    }

    /// Deinterlaces with `filter` from the next seek on (None: frames as they are); two files
    /// compared both. B's offset counts pictures, as A's numbers do: with `keep_offset`, it
    /// is made as many pictures as it was (fields for frames, or frames for fields).
    pub fn set_deinterlace(&mut self, filter: Option<Deinterlacer>, keep_offset: bool) -> Result<(), String> {
        match self {
            PlayerSource::One(a) => a.set_filter(filter),
            PlayerSource::Two(pair) => {
                let (was, was_field) = (pair.a.filter(), pair.a.field_rate());
                pair.a.set_filter(filter)?;
                if let Err(e) = pair.b.set_filter(filter) {
                    let _ = pair.a.set_filter(was);
                    return Err(e);
                }
                // Paired by time, the offset counts B's frames whatever the pictures are.
                let by_number = pair.alignment().by == crate::compare::align::AlignBy::Frame;
                let offset = pair.alignment().offset;
                let offset = match (was_field, pair.a.field_rate()) {
                    (false, true) if keep_offset && by_number => offset * 2,
                    (true, false) if keep_offset && by_number => offset.div_euclid(2),
                    _ => offset,
                };
                pair.set_offset(offset);
                // B's pictures so far were made otherwise: B is sought for the next partner.
                pair.reseek_b();
                Ok(())
            }
        }
    }

    pub fn paired(&self) -> Option<&Paired<Side>> {
        match self {
            PlayerSource::One(_) => None,
            PlayerSource::Two(pair) => Some(pair),
        }
    }

    pub fn paired_mut(&mut self) -> Option<&mut Paired<Side>> {
        match self {
            PlayerSource::One(_) => None,
            PlayerSource::Two(pair) => Some(pair),
        }
    }

    pub fn release_all(&mut self) {
        if let PlayerSource::Two(pair) = self {
            pair.release_all();
        }
    }
}

impl FrameSource for PlayerSource {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        match self {
            PlayerSource::One(a) => a.seek(target),
            PlayerSource::Two(pair) => pair.seek(target),
        }
    }

    fn release(&mut self, slot: usize) {
        match self {
            PlayerSource::One(a) => a.release(slot),
            PlayerSource::Two(pair) => pair.release(slot),
        }
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        match self {
            PlayerSource::One(a) => a.try_event(),
            PlayerSource::Two(pair) => pair.try_event(),
        }
    }

    fn generation(&self) -> u64 {
        match self {
            PlayerSource::One(a) => a.generation(),
            PlayerSource::Two(pair) => pair.generation(),
        }
    }

    fn set_paused(&mut self, paused: bool) {
        match self {
            PlayerSource::One(a) => FrameSource::set_paused(a.as_mut(), paused),
            PlayerSource::Two(pair) => pair.set_paused(paused),
        }
    }

    fn follow_live(&mut self, following: bool) {
        if let PlayerSource::One(a) = self {
            a.follow_live(following);
        }
    }

    fn live_window(&self) -> Option<(f64, f64)> {
        match self {
            PlayerSource::One(a) => a.live_window(),
            // A live input is never compared in the window.
            PlayerSource::Two(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
