//! Frames of another size mid-stream, where the source gives them out as they are
//! (`VideoSource::follow_size_changes`): each frame's shape is noted as it is decoded, and a
//! frame of another shape than the ring's waits until the consumer, asked once
//! (`DecoderEvent::Reshaped`), has made a ring of its shape and handed it over.

use super::{Task, Worker};
use crate::video::convert::PlaneTextures;
use crate::video::decoder::upload::Outgoing;
use crate::video::decoder::DecoderEvent;
use crate::video::source::FrameShape;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The shapes of a stream's frames, where its source follows their changes.
pub(super) struct Shapes {
    /// The shape of the frames from each pts on (the stream's first, from the start): an entry
    /// at the first frame of each run of the decoder (a seek's) and where a run's frames change
    /// shape, so that each frame a run decoded is of its nearest entry's shape, whatever other
    /// runs noted between (a run into a third part of the stream, then one into the second).
    from: BTreeMap<i64, FrameShape>,
    /// The next frame noted is the first of a run.
    run_start: bool,
    /// The shape of the ring's slots.
    ring: FrameShape,
    /// A frame of another shape than the ring's, waiting for the ring of its shape (its pts,
    /// and whether it is a seek's preview); the consumer was asked for that ring.
    held: Option<(i64, bool)>,
    /// The consumer was asked for a ring and has not handed it over yet.
    awaiting: bool,
    /// Shapes the consumer can make no ring for: their frames are passed over.
    refused: Vec<FrameShape>,
}

impl Shapes {
    pub(super) fn new(first: FrameShape) -> Self {
        Self {
            from: BTreeMap::from([(i64::MIN, first.clone())]),
            run_start: true,
            ring: first,
            held: None,
            awaiting: false,
            refused: Vec::new(),
        }
    }

    fn of(&self, pts: i64) -> &FrameShape {
        let (_, shape) = self
            .from
            .range(..=pts)
            .next_back()
            .expect("the first shape is from the start");
        shape
    }
}

impl Worker {
    /// Notes the shape of the frame just decoded at `pts` (the source's now), where the source
    /// follows size changes.
    pub(super) fn note_shape(&mut self, pts: i64) {
        let Some(shapes) = &mut self.shapes else { return };
        let now = &self.source.info;
        let run_start = std::mem::take(&mut shapes.run_start);
        if run_start || shapes.of(pts).format != now.format {
            shapes.from.insert(pts, now.shape());
        }
    }

    /// Puts the decoder before `pts` (`VideoSource::seek_before`): its next frame starts a run.
    pub(super) fn seek_source(&mut self, pts: i64) {
        self.source.seek_before(pts);
        if let Some(shapes) = &mut self.shapes {
            shapes.run_start = true;
        }
    }

    /// Whether the frame at `pts` goes into the ring as it is (the slot taken for it, `slot`,
    /// is given back where it can't: then it is held, and the consumer asked for a ring of its
    /// shape); and its planes' layout.
    pub(super) fn fits_ring(
        &mut self,
        slot: usize,
        pts: i64,
        preview: bool,
    ) -> Option<crate::video::format::PlaneLayout> {
        let Some(shapes) = &mut self.shapes else {
            return Some(self.source.info.format.layout);
        };
        let shape = shapes.of(pts);
        if shape.format == shapes.ring.format && !shapes.awaiting {
            return Some(shape.format.layout);
        }
        self.free.push_front(slot);
        if shapes.refused.contains(shape) {
            return None;
        }
        // (Cloned only here, where a ring of it is asked for: each frame passes above.)
        let shape = shape.clone();
        shapes.held = Some((pts, preview));
        if shapes.awaiting {
            return None;
        }
        shapes.awaiting = true;
        // A preview not sent yet would go into a slot of this ring once the consumer has made
        // the next: none now.
        self.close_claim();
        log::debug!(
            "frames of {}x{} from pts {pts}: a ring of their shape asked for",
            shape.format.width,
            shape.format.height
        );
        let _ = self.outgoing.send(Outgoing::Event(DecoderEvent::Reshaped(shape)));
        None
    }

    /// The format of the frames the ring's slots are for.
    pub(super) fn ring_format(&self) -> crate::video::format::FrameFormat {
        match &self.shapes {
            Some(shapes) => shapes.ring.format,
            None => self.source.info.format,
        }
    }

    /// Whether the work waits for the consumer's ring of another shape.
    pub(super) fn awaiting_ring(&self) -> bool {
        self.shapes.as_ref().is_some_and(|s| s.awaiting) && !matches!(self.task, Task::Ended)
    }

    /// The consumer can make no ring of `shape`: frames of that shape are passed over (as a
    /// live input's are) until the stream comes back to one it can show.
    pub(super) fn refuse_ring(&mut self, shape: FrameShape) {
        let Some(shapes) = &mut self.shapes else { return };
        log::debug!(
            "frames of {}x{} passed over: no ring of their shape",
            shape.format.width,
            shape.format.height
        );
        shapes.awaiting = false;
        shapes.held = None;
        if !shapes.refused.contains(&shape) {
            shapes.refused.push(shape);
        }
    }

    /// A seek: a frame held for a ring is not sent (the ring asked for still comes).
    pub(super) fn forget_held(&mut self) {
        if let Some(shapes) = &mut self.shapes {
            shapes.held = None;
        }
    }

    /// The consumer's ring of `shape`: every slot of the one before was given back. The frame
    /// held for it goes in first.
    pub(super) fn take_ring(&mut self, shape: FrameShape, slots: Vec<Arc<PlaneTextures>>) -> Result<(), String> {
        let Some(shapes) = &mut self.shapes else {
            return Ok(());
        };
        shapes.ring = shape;
        shapes.awaiting = false;
        let held = shapes.held.take();
        self.slot_count = slots.len();
        self.free = (0..slots.len()).collect();
        let _ = self.outgoing.send(Outgoing::Ring(slots));
        match (held, self.free.pop_front()) {
            (Some((pts, preview)), Some(slot)) => self.send_in(slot, pts, preview),
            _ => Ok(()),
        }
    }
}
