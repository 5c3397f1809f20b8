//! Deinterlacing in the window (`d`, `--deinterlace`): a `FrameSource` between the decoder and
//! playback. Each frame's planes are kept as it comes in; then the pictures of the frame before
//! it (one, or two at field rate) are made into its ring slot and handed on, so everything
//! after (conversion, counts, screenshots) sees deinterlaced planes, in FFmpeg's order and
//! equal to its filters' output. No slot is held back, so the decoder's pace is unchanged; a
//! field rate's second picture is made into the same slot once playback gives it back after
//! the first, and the last frame's pictures go into a slot of the ring kept for them.
//!
//! Seeks and steps ask the decoder for the frame before the one wanted too, so the picture
//! landed on is made with its neighbours, as in playing through: the same picture either way.

use super::playback::FrameSource;
use crate::video::convert::PlaneTextures;
use crate::video::decoder::{DecoderEvent, ReadyFrame};
use crate::video::deinterlace::gpu::DeinterlacePass;
use crate::video::deinterlace::kept::KeptFrames;
use crate::video::deinterlace::{Deinterlacer, Output, Rate, Sequence};
use crate::video::index::FrameIndex;
use crate::video::source::SeekTarget;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A picture on its way to playback.
enum Pending {
    Ready(ReadyFrame),
    /// A field rate's second picture of a frame: made into `picture.slot` once playback has
    /// given that slot back after the first.
    Second {
        picture: ReadyFrame,
        output: Output,
    },
    Event(DecoderEvent),
}

/// What deinterlacing needs of the GPU and the stream.
pub struct FieldSetup {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// The ring's slots: the decoder's, then one kept for the last frame's pictures.
    pub slots: Vec<Arc<PlaneTextures>>,
    pub index: Arc<FrameIndex>,
    pub time_base: (i32, i32),
}

struct Run {
    kept: KeptFrames,
    pass: DeinterlacePass,
    sequence: Sequence,
    /// The frame whose pictures wait for the next one (its planes kept; its slot given back).
    held: Option<ReadyFrame>,
    /// Frames in since the run began: each is kept by its count, not its number, which skips
    /// where the decoder lost a frame (the filters read the frames either side of the gap).
    count: u64,
    out: VecDeque<Pending>,
    /// Pictures before this one are only made with (a seek's frame before its target).
    from: u64,
}

pub struct Deinterlaced<S> {
    inner: S,
    setup: FieldSetup,
    filter: Option<Deinterlacer>,
    run: Option<Run>,
    /// The picture each slot playback holds is (number, pts); and the last given back.
    lent: HashMap<usize, (u64, i64)>,
    last_back: Option<(u64, i64)>,
    /// The slot kept for the last frame's pictures is not with playback.
    spare_free: bool,
}

impl<S> std::ops::Deref for Deinterlaced<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.inner
    }
}

impl<S> std::ops::DerefMut for Deinterlaced<S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.inner
    }
}

impl<S: FrameSource> Deinterlaced<S> {
    /// Frames of `inner` as they are, until `set_filter`.
    pub fn new(inner: S, setup: FieldSetup) -> Self {
        Self {
            inner,
            setup,
            filter: None,
            run: None,
            lent: HashMap::new(),
            last_back: None,
            spare_free: true,
        }
    }

    /// The deinterlacer in force.
    pub fn filter(&self) -> Option<Deinterlacer> {
        self.filter
    }

    /// Deinterlaces with `filter` from the next seek on (None: frames as they are); the
    /// caller seeks to the frame shown. Fails where the pass can't be made for the format.
    pub fn set_filter(&mut self, filter: Option<Deinterlacer>) -> Result<(), String> {
        let format = self.setup.slots.first().map(|s| s.format);
        if let (Some(filter), Some(format)) = (filter, format) {
            filter.check_size(&format)?;
            let kept = KeptFrames::new(&self.setup.device, &format);
            let pass = DeinterlacePass::new(&self.setup.device, &kept, filter);
            self.stop_run();
            self.run = Some(Run {
                kept,
                pass,
                sequence: Sequence::new(filter),
                held: None,
                count: 0,
                out: VecDeque::new(),
                from: 0,
            });
        } else {
            self.stop_run();
            self.run = None;
        }
        self.filter = filter;
        Ok(())
    }

    /// The ring's slots from now on (a live input's picture changed shape): the deinterlacer
    /// is made again for them.
    pub fn set_slots(&mut self, slots: Vec<Arc<PlaneTextures>>) {
        self.stop_run();
        self.run = None;
        self.setup.slots = slots;
        self.spare_free = true;
        if let Err(e) = self.set_filter(self.filter) {
            log::warn!("deinterlacing stops: {e}");
            self.filter = None;
        }
    }

    /// Whether pictures come a field at a time.
    pub fn field_rate(&self) -> bool {
        self.filter.is_some_and(|f| f.rate == Rate::Field)
    }

    /// Gives back what the run holds and forgets its pictures (a seek, another filter).
    fn stop_run(&mut self) {
        let Some(run) = &mut self.run else {
            return;
        };
        run.held = None;
        let mut back = Vec::new();
        for pending in run.out.drain(..) {
            match pending {
                Pending::Ready(frame) => back.push(frame.slot),
                Pending::Event(DecoderEvent::Frame(frame)) => back.push(frame.slot),
                // Its slot is with playback, under the first picture: it comes back from there.
                Pending::Second { .. } | Pending::Event(_) => {}
            }
        }
        if let Some(filter) = self.filter {
            run.sequence = Sequence::new(filter);
            run.count = 0;
        }
        for slot in back {
            self.give_back(slot);
        }
    }

    /// The slot kept for the last frame's pictures.
    fn spare(&self) -> usize {
        self.setup.slots.len() - 1
    }

    /// A slot back from playback, or one not needed: to the decoder, or the spare kept.
    fn give_back(&mut self, slot: usize) {
        if slot == self.spare() {
            self.spare_free = true;
        } else {
            self.inner.release(slot);
        }
    }

    /// The frame to ask the decoder for, and the first picture wanted, for a seek to `target`.
    fn translate(&self, target: SeekTarget) -> (SeekTarget, u64) {
        self.with_stream(|stream| stream.plan(target, self.last_back))
    }

    fn with_stream<T>(&self, f: impl FnOnce(&Stream) -> T) -> T {
        let index = &self.setup.index;
        let (num, den) = self.setup.time_base;
        f(&Stream {
            field: self.field_rate(),
            number_at: &|pts| Some(index.number_at(pts)).filter(|n| n.exact).map(|n| n.n),
            pts_of: &|n| index.pts_of(n),
            pts_at: &|seconds| (seconds * f64::from(den) / f64::from(num) + 1e-6).floor() as i64,
        })
    }

    /// Frame `frame` of the run in: the pictures of the frame before it go out.
    fn take_frame(&mut self, frame: ReadyFrame) {
        let Some(run) = &mut self.run else {
            return;
        };
        let slot = &self.setup.slots[frame.slot];
        let mut encoder = self
            .setup
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("deinterlace"),
            });
        let id = run.count;
        run.count += 1;
        run.kept.encode_keep(&mut encoder, slot, id);
        let outputs = run.sequence.push(id, Some(frame.pts), frame.packet.fields);
        let held = run.held.replace(frame).map(|held| (held, id - 1));
        self.pictures(outputs, held, frame.slot, encoder);
    }

    /// The pictures `outputs` of frame `cur` (and the count it is kept by), made into ring
    /// slot `into` by `encoder` (which may hold the keeping of that slot's frame) and queued
    /// for playback; the slot is given back where there are none, once the encoder's work is
    /// submitted.
    fn pictures(
        &mut self,
        outputs: Vec<Output>,
        cur: Option<(ReadyFrame, u64)>,
        into: usize,
        mut encoder: wgpu::CommandEncoder,
    ) {
        let (Some(run), Some((cur, id))) = (&mut self.run, cur) else {
            self.setup.queue.submit([encoder.finish()]);
            self.give_back(into);
            return;
        };
        let field = self.filter.is_some_and(|f| f.rate == Rate::Field);
        let mut outputs: Vec<Output> = outputs.into_iter().filter(|o| o.cur == id).collect();
        // A frame passed as it is comes twice at field rate too: pictures keep their numbers.
        if let ([only], true) = (&outputs[..], field) {
            if only.field.is_none() {
                let second = Output {
                    second: true,
                    pts: outputs[0].pts.map(|p| p + 1),
                    ..*only
                };
                outputs.push(second);
            }
        }
        let rate = if field { Rate::Field } else { Rate::Frame };
        let time_base = self.setup.time_base;
        let picture = |output: &Output| ReadyFrame {
            index: output.number(cur.index, rate),
            seconds: output.seconds(cur.seconds, cur.pts, time_base),
            slot: into,
            ..cur
        };
        let wanted: Vec<&Output> = outputs.iter().filter(|o| picture(o).index >= run.from).collect();
        let Some(first) = wanted.first() else {
            self.setup.queue.submit([encoder.finish()]);
            self.give_back(into);
            return;
        };
        run.pass.encode(&mut encoder, first, &self.setup.slots[into]);
        self.setup.queue.submit([encoder.finish()]);
        run.out.push_back(Pending::Ready(picture(first)));
        if let Some(second) = wanted.get(1) {
            run.out.push_back(Pending::Second {
                picture: picture(second),
                output: **second,
            });
        }
    }
}

impl<S: FrameSource> FrameSource for Deinterlaced<S> {
    fn seek(&mut self, target: SeekTarget) -> u64 {
        if self.run.is_none() {
            return self.inner.seek(target);
        }
        let (target, from) = self.translate(target);
        self.stop_run();
        if let Some(run) = &mut self.run {
            run.from = from;
        }
        self.inner.seek(target)
    }

    fn release(&mut self, slot: usize) {
        if let Some(picture) = self.lent.remove(&slot) {
            self.last_back = Some(picture);
        }
        if let Some(run) = &mut self.run {
            if let Some(Pending::Second { picture, output }) = run.out.front() {
                if picture.slot == slot {
                    let (picture, output) = (*picture, *output);
                    let mut encoder = self
                        .setup
                        .device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("deinterlace, the second field"),
                        });
                    run.pass.encode(&mut encoder, &output, &self.setup.slots[slot]);
                    self.setup.queue.submit([encoder.finish()]);
                    run.out[0] = Pending::Ready(picture);
                    return;
                }
            }
        }
        self.give_back(slot);
    }

    fn try_event(&mut self) -> Option<DecoderEvent> {
        loop {
            let Some(run) = &mut self.run else {
                return self.inner.try_event();
            };
            match run.out.front() {
                Some(Pending::Second { .. }) => return None,
                Some(_) => {
                    let event = match run.out.pop_front() {
                        Some(Pending::Ready(frame)) => DecoderEvent::Frame(frame),
                        Some(Pending::Event(event)) => event,
                        _ => unreachable!("the front was looked at"),
                    };
                    if let DecoderEvent::Frame(frame) = &event {
                        self.lent.insert(frame.slot, (frame.index, frame.pts));
                    }
                    return Some(event);
                }
                None => {}
            }
            let event = self.inner.try_event()?;
            let current = self.inner.generation();
            match event {
                // A keyframe shown while a seek decodes on passes as it is.
                DecoderEvent::Frame(frame) if frame.generation == current && !frame.preview => {
                    self.take_frame(frame);
                }
                DecoderEvent::EndOfStream { generation } if generation == current => {
                    // The last frame's pictures, into the slot kept for them (free unless
                    // playback still shows the last picture of an earlier run to the end).
                    if let (Some(run), true) = (&mut self.run, self.spare_free) {
                        let outputs = run.sequence.finish();
                        let held = run.held.take().map(|held| (held, run.count - 1));
                        self.spare_free = false;
                        let spare = self.spare();
                        let encoder = self
                            .setup
                            .device
                            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                label: Some("deinterlace, the last frame"),
                            });
                        self.pictures(outputs, held, spare, encoder);
                    }
                    if let Some(run) = &mut self.run {
                        // (Its pictures made, or not to be: none comes after.)
                        run.held = None;
                        run.out.push_back(Pending::Event(event));
                    }
                }
                other => return Some(other),
            }
        }
    }

    fn generation(&self) -> u64 {
        self.inner.generation()
    }

    fn set_paused(&mut self, paused: bool) {
        self.inner.set_paused(paused);
    }

    fn live_window(&self) -> Option<(f64, f64)> {
        self.inner.live_window()
    }

    fn landing(&self, target: SeekTarget) -> Option<u64> {
        match (target, &self.run) {
            (SeekTarget::Before(pts), Some(_)) => self.with_stream(|stream| stream.before(pts, self.last_back)),
            _ => None,
        }
    }

    fn next_picture(&self) -> Option<(u64, f64)> {
        let run = self.run.as_ref()?;
        match run.out.front() {
            Some(Pending::Second { picture, .. }) => Some((picture.index, picture.seconds)),
            Some(_) => None,
            // The held frame's first picture: its number and time are the frame's own.
            None => {
                let held = run.held?;
                let number = if self.field_rate() { 2 * held.index } else { held.index };
                (number >= run.from).then_some((number, held.seconds))
            }
        }
    }

    fn follow_live(&mut self, following: bool) {
        self.inner.follow_live(following);
    }
}

/// What a seek's plan needs of the stream: whether pictures are fields, and its index.
struct Stream<'a> {
    field: bool,
    /// The number of the frame shown at `pts`, where the index knows it exactly.
    number_at: &'a dyn Fn(i64) -> Option<u64>,
    pts_of: &'a dyn Fn(u64) -> Option<i64>,
    /// The pts of the tick a time falls in.
    pts_at: &'a dyn Fn(f64) -> i64,
}

impl Stream<'_> {
    /// The frame to ask the decoder for, and the first picture wanted, for a seek to `target`
    /// with picture `shown` (number, pts) the last playback gave back: the frame before the
    /// wanted picture's is decoded too, since the picture is made with it. A seek that names no
    /// frame the index knows (a keyframe seek, a time past what it has read) lands where the
    /// decoder does, on a picture made from its frame alone.
    fn plan(&self, target: SeekTarget, shown: Option<(u64, i64)>) -> (SeekTarget, u64) {
        let pictures = if self.field { 2 } else { 1 };
        let frame_of = |picture: u64| picture / pictures;
        let from_frame_before = |picture: u64| (SeekTarget::Frame(frame_of(picture).saturating_sub(1)), picture);
        match target {
            SeekTarget::Frame(n) => from_frame_before(n),
            SeekTarget::Time { seconds, exact: true } => match (self.number_at)((self.pts_at)(seconds)) {
                Some(frame) => from_frame_before(frame * pictures),
                None => (target, 0),
            },
            SeekTarget::Before(pts) => match self.before(pts, shown) {
                // The decoder steps back to the frame before the wanted one's (kept for the
                // steps after).
                Some(wanted) => match (self.pts_of)(frame_of(wanted)) {
                    Some(pts) => (SeekTarget::Before(pts), wanted),
                    None => from_frame_before(wanted),
                },
                None => (target, 0),
            },
            SeekTarget::Time { .. } | SeekTarget::End => (target, 0),
        }
    }

    /// The picture a step back from the picture shown at `pts` lands on: the one before it,
    /// `shown` (number, pts) being the last playback gave back; None from the first.
    fn before(&self, pts: i64, shown: Option<(u64, i64)>) -> Option<u64> {
        let pictures = if self.field { 2 } else { 1 };
        let shown = shown.filter(|&(_, p)| p == pts).map(|(n, _)| n);
        let n = shown.or_else(|| (self.number_at)(pts).map(|n| n * pictures))?;
        n.checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::{SeekTarget, Stream};

    /// Frames 40 ticks apart (25 fps in 1/1000), the index read to frame 99.
    fn plan(field: bool, target: SeekTarget, shown: Option<(u64, i64)>) -> (SeekTarget, u64) {
        let stream = Stream {
            field,
            number_at: &|pts| (0..4000).contains(&pts).then_some(pts as u64 / 40),
            pts_of: &|n| (n < 100).then_some(n as i64 * 40),
            pts_at: &|seconds| (seconds * 1000.0 + 1e-6).floor() as i64,
        };
        stream.plan(target, shown)
    }

    #[test]
    fn a_seek_decodes_the_frame_before_the_picture_wanted() {
        // Frame 10: from frame 9; at field rate picture 21 is frame 10's second field.
        assert_eq!(plan(false, SeekTarget::Frame(10), None), (SeekTarget::Frame(9), 10));
        assert_eq!(plan(true, SeekTarget::Frame(21), None), (SeekTarget::Frame(9), 21));
        assert_eq!(plan(false, SeekTarget::Frame(0), None), (SeekTarget::Frame(0), 0));
        // An exact seek by time (the arrow keys): the frame its time falls in, the same way.
        let time = |seconds| SeekTarget::Time { seconds, exact: true };
        assert_eq!(plan(false, time(0.41), None), (SeekTarget::Frame(9), 10));
        assert_eq!(plan(true, time(0.41), None), (SeekTarget::Frame(9), 20));
        // A keyframe seek, or a time the index has not read: where the decoder lands.
        let keyframe = SeekTarget::Time {
            seconds: 0.41,
            exact: false,
        };
        assert_eq!(plan(false, keyframe, None), (keyframe, 0));
        assert_eq!(plan(false, time(9.0), None), (time(9.0), 0));
        assert_eq!(plan(false, SeekTarget::End, None), (SeekTarget::End, 0));
    }

    #[test]
    fn a_step_back_lands_on_the_picture_before_the_one_shown() {
        // Frame 10 shown: frame 9 wanted, the decoder stepping back to frame 8 (before 9's pts).
        assert_eq!(
            plan(false, SeekTarget::Before(400), Some((10, 400))),
            (SeekTarget::Before(360), 9)
        );
        // At field rate, from frame 10's second field (picture 21) to its first (20): frame 9
        // decoded with it; from its first field to frame 9's second (19).
        assert_eq!(
            plan(true, SeekTarget::Before(400), Some((21, 400))),
            (SeekTarget::Before(400), 20)
        );
        assert_eq!(
            plan(true, SeekTarget::Before(400), Some((20, 400))),
            (SeekTarget::Before(360), 19)
        );
        // Nothing given back at that pts: the index's number, the frame's first field.
        assert_eq!(plan(true, SeekTarget::Before(400), None), (SeekTarget::Before(360), 19));
        // From the first frame: nowhere to go.
        assert_eq!(
            plan(false, SeekTarget::Before(0), Some((0, 0))),
            (SeekTarget::Before(0), 0)
        );
    }
}
