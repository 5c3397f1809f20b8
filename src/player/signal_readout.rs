//! The stats overlay's signal lines: FFmpeg's `signalstats` of the frame on screen, the numbers
//! `report` writes for it. While the overlay is up, each new frame's planes are counted by the
//! pipeline's statistics stage and its counts copied into one of a few MAP_READ buffers
//! (`LatestReadback`), read a frame or two later; nothing waits.
//!
//! The temporal differences (YDIF, UDIF, VDIF) are against the frame counted just before. In
//! order playback that is the frame before; after a seek, a step back or a gap in counting it
//! is not, so the stage starts over and the differences show as unknown rather than wrong.

use crate::gpu::mapping::LatestReadback;
use crate::signalstats::gpu::StatsStage;
use crate::signalstats::SignalStats;

/// Buffers in the ring: enough for the GPU to run two frames behind.
const BUFFERS: usize = 3;

/// What a buffer's copy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalTag {
    /// Which opened file (readouts of a file that was replaced are dropped).
    pub media: u64,
    pub frame: u64,
    /// Whether the frame counted before it was the frame before (the differences are real).
    pub follows: bool,
}

/// One frame's statistics as the overlay shows them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignalReadout {
    pub frame: u64,
    pub stats: SignalStats,
    /// Whether YDIF, UDIF and VDIF are against the frame before.
    pub follows: bool,
}

impl SignalReadout {
    /// The overlay's lines: Y', Cb and Cr as min/10%/avg/90%/max, saturation and hue, the
    /// differences (`- - -` with no frame before) and the fractions, named as FFmpeg names
    /// them.
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let s = &self.stats;
        let five = |min: i64, low: i64, avg: f64, high: i64, max: i64| format!("{min} {low} {avg:.2} {high} {max}");
        let dif = if self.follows {
            format!("{:.3} {:.3} {:.3}", s.YDIF, s.UDIF, s.VDIF)
        } else {
            "- - -".to_string()
        };
        vec![
            ("signal", format!("frame {}: MIN LOW AVG HIGH MAX", self.frame)),
            ("Y", five(s.YMIN, s.YLOW, s.YAVG, s.YHIGH, s.YMAX)),
            ("U", five(s.UMIN, s.ULOW, s.UAVG, s.UHIGH, s.UMAX)),
            ("V", five(s.VMIN, s.VLOW, s.VAVG, s.VHIGH, s.VMAX)),
            (
                "SAT",
                format!(
                    "{}  HUE MED {} AVG {:.2}",
                    five(s.SATMIN, s.SATLOW, s.SATAVG, s.SATHIGH, s.SATMAX),
                    s.HUEMED,
                    s.HUEAVG
                ),
            ),
            (
                "DIF",
                format!("{dif}  TOUT {:.4} VREP {:.4} BRNG {:.4}", s.TOUT, s.VREP, s.BRNG),
            ),
        ]
    }

    /// The frame log's field: `K:` then every value as `report --csv` prints it, in its
    /// order, the differences `-` where there was no frame before.
    pub fn log_field(&self) -> String {
        let values: Vec<String> = self
            .stats
            .printed()
            .into_iter()
            .map(|(name, value)| match name {
                "YDIF" | "UDIF" | "VDIF" if !self.follows => "-".to_string(),
                _ => value,
            })
            .collect();
        format!("{}:{}", self.frame, values.join(","))
    }
}

pub struct SignalReadback(LatestReadback<SignalTag>);

impl SignalReadback {
    pub fn new(device: &wgpu::Device, stage: &StatsStage) -> Self {
        Self(LatestReadback::new(device, "signalstats", stage.counts_size(), BUFFERS))
    }

    /// Records copying the counts `stage` holds into a free buffer; false when none is free.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, stage: &StatsStage, tag: SignalTag) -> bool {
        self.0.record(tag, |buffer| {
            encoder.copy_buffer_to_buffer(&stage.counts, 0, buffer, 0, stage.counts_size());
        })
    }

    /// After the encoder with the copies is submitted: starts mapping them.
    pub fn submitted(&mut self) {
        self.0.submitted();
    }

    /// Whether a readout is on its way (the caller keeps polling the device until it lands).
    pub fn pending(&self) -> bool {
        self.0.pending()
    }

    /// The newest readout mapped, its counts read as `stage` wrote them, with the file it
    /// came from. Never blocks.
    pub fn take_latest(&mut self, stage: &StatsStage) -> Option<(u64, SignalReadout)> {
        let (tag, stats) = self.0.take_latest(|_, bytes| {
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            stage.counts_from(&words).stats()
        })?;
        let readout = SignalReadout {
            frame: tag.frame,
            stats,
            follows: tag.follows,
        };
        Some((tag.media, readout))
    }
}

/// The signal lines of one opened file: its readbacks, the frame counted last and the newest
/// statistics landed.
pub struct SignalOverlay {
    /// The file's serial (a new file gets a new overlay).
    pub media: u64,
    /// None where the stream's planes are not counted on the GPU (not Y'CbCr, or 12-bit).
    readback: Option<SignalReadback>,
    /// The frame counted last, while counting goes on frame after frame.
    last: Option<u64>,
    pub shown: Option<SignalReadout>,
}

impl SignalOverlay {
    /// Starts counting the statistics of `pipeline`'s frames (file `media`).
    pub fn new(ctx: &crate::gpu::GpuContext, pipeline: &mut crate::pipeline::FramePipeline, media: u64) -> Self {
        let readback = pipeline
            .count_stats(ctx)
            .then(|| SignalReadback::new(&ctx.device, pipeline.stats().expect("counted")));
        Self {
            media,
            readback,
            last: None,
            shown: None,
        }
    }

    /// Whether the file's frames are counted.
    pub fn counted(&self) -> bool {
        self.readback.is_some()
    }

    /// Before frame `frame` is encoded with `stage` counting it: the tag its counts go under.
    /// A frame that does not follow the one counted last starts the differences over.
    pub fn begin(&mut self, stage: &StatsStage, frame: u64) -> SignalTag {
        let follows = frame.checked_sub(1).is_some_and(|before| self.last == Some(before));
        if !follows {
            stage.restart();
        }
        self.last = Some(frame);
        SignalTag {
            media: self.media,
            frame,
            follows,
        }
    }

    /// Records copying the counts of the frame just encoded out.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, stage: &StatsStage, tag: SignalTag) {
        if let Some(readback) = &mut self.readback {
            readback.record(encoder, stage, tag);
        }
    }

    /// Frames go uncounted (the overlay is down): the next one counted has no frame before.
    pub fn pause(&mut self) {
        self.last = None;
    }

    pub fn submitted(&mut self) {
        if let Some(readback) = &mut self.readback {
            readback.submitted();
        }
    }

    pub fn pending(&self) -> bool {
        self.readback.as_ref().is_some_and(SignalReadback::pending)
    }

    /// Takes in the newest statistics landed; true when they changed.
    pub fn poll(&mut self, stage: Option<&StatsStage>) -> bool {
        let (Some(readback), Some(stage)) = (&mut self.readback, stage) else {
            return false;
        };
        match readback.take_latest(stage) {
            Some((media, readout)) if media == self.media => {
                self.shown = Some(readout);
                true
            }
            _ => false,
        }
    }
}
