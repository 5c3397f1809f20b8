//! `histoplay A --compare B`: the second file of a comparison in the window. Its frames come
//! paired with A's (`paired`), are drawn through the comparison stage (`pipeline::comparison`), and
//! are steered by the comparison's keys (`compare_control.rs`): the mode, flicker, the
//! difference's gain, B's offset, and the wipe's line dragged with the left button.

use super::commands::Command;
use super::vmaf_fill::VmafFill;
use super::PlayerError;
use crate::compare::align::{AlignBy, Alignment};
use crate::compare::composite::{CompareMode, Composite, MAX_GAIN};
use crate::compare::metrics::FrameMetrics;
pub use crate::compare::CompareOptions;
use crate::pipeline::comparison::{CompareStage, PairTag};
use crate::video::decoder::ReadyFrame;
use crate::video::deinterlace::Deinterlacer;
use crate::video::index::FrameIndex;
use crate::video::source::{VideoInfo, VideoSource};
use std::sync::Arc;

/// B opened and made comparable with A, off the window's thread.
pub struct ComparedFile {
    pub source: VideoSource,
    pub align: Alignment,
    pub options: CompareOptions,
    /// B's own size and layout, where B is converted to A's.
    pub converted_from: Option<String>,
}

/// Opens `options.path` to compare with `a`: B's frames are converted to A's size and layout
/// where they differ, and both number their frames exactly when paired by number.
pub fn open_compared(a: &mut VideoSource, options: &CompareOptions) -> Result<ComparedFile, PlayerError> {
    let mut b = VideoSource::open(&options.path)?;
    // Paired playback steps both back and forth, which a live input can't.
    if b.info.live {
        return Err(PlayerError::Compare(format!(
            "'{}' is a live input: compare it with `histoplay compare`",
            b.info.path.display()
        )));
    }
    let before = b.info.format;
    crate::compare::align::match_pair(a, &mut b).map_err(|e| PlayerError::Compare(e.to_string()))?;
    let after = b.info.format;
    let converted_from = ((before.width, before.height) != (after.width, after.height)
        || before.layout != after.layout)
        .then(|| format!("{}x{} {}", before.width, before.height, before.layout));
    if options.by == AlignBy::Frame {
        a.set_exact_numbers(true);
        b.set_exact_numbers(true);
    }
    let align = Alignment::of(a, &b, options.by, options.offset);
    Ok(ComparedFile {
        source: b,
        align,
        options: options.clone(),
        converted_from,
    })
}

/// A picture as the window names it: its frame's number and, where pictures are fields, which
/// field of the frame it is (1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PictureNumber {
    pub frame: u64,
    pub field: Option<u8>,
}

impl PictureNumber {
    /// Of the frame numbered `frame`, whose picture is numbered `index` by its source (at
    /// field rate 2K and 2K + 1 for frame K's fields).
    pub fn of(frame: u64, index: u64, field_rate: bool) -> Self {
        Self {
            frame,
            field: field_rate.then_some((index % 2) as u8 + 1),
        }
    }

    /// Its number among the pictures, as pairs and their VMAF scores are numbered.
    pub fn picture(self) -> u64 {
        match self.field {
            Some(field) => 2 * self.frame + u64::from(field) - 1,
            None => self.frame,
        }
    }

    /// `37`, or `37, field 2`.
    pub fn label(self) -> String {
        match self.field {
            Some(field) => format!("{}, field {field}", self.frame),
            None => self.frame.to_string(),
        }
    }
}

/// The second file in the window.
pub struct Comparison {
    pub info: VideoInfo,
    pub index: Arc<FrameIndex>,
    pub stage: CompareStage,
    pub converted_from: Option<String>,
    /// The partner of the frame on screen (None: it has none).
    pub shown_b: Option<ReadyFrame>,
    /// The latest pair measured.
    pub metrics: Option<(PairTag, FrameMetrics)>,
    /// The mode flicker goes back from.
    pub before_flicker: CompareMode,
    /// Every pair's VMAF, measured in the background once the timeline is shown.
    pub vmaf: Option<VmafFill>,
    /// The model it scores with.
    pub vmaf_model: crate::compare::vmaf::model::Model,
}

impl Comparison {
    /// The picture of B shown, where it has one.
    pub fn shown_b(&self, field_rate: bool) -> Option<PictureNumber> {
        self.shown_b
            .map(|b| PictureNumber::of(self.index.number_at(b.pts).n, b.index, field_rate))
    }

    /// The OSD's line: both pictures' numbers, B's offset, the mode and the pair's PSNR and
    /// SSIM (once measured for the picture shown).
    pub fn osd_line(&self, shown_a: Option<PictureNumber>, offset: i64, by: AlignBy) -> String {
        let composite = self.stage.composite();
        let mode = match composite.mode {
            CompareMode::Wipe => "wipe".to_string(),
            CompareMode::SideBySide => "side by side".to_string(),
            CompareMode::Difference => format!("difference ×{}", composite.gain),
            CompareMode::A => "A (flicker)".to_string(),
            CompareMode::B => "B (flicker)".to_string(),
            CompareMode::Vif => format!("VIF loss ×{}", composite.gain),
        };
        let field_rate = shown_a.is_some_and(|a| a.field.is_some());
        let b = self
            .shown_b(field_rate)
            .map_or("none".to_string(), PictureNumber::label);
        let aligned = match by {
            AlignBy::Frame => "",
            AlignBy::Time => " by time",
        };
        let a = shown_a.map_or("–".to_string(), PictureNumber::label);
        let mut line = format!("A {a} · B {b} (offset {offset:+}{aligned}) · {mode}");
        // Pairs and their scores are numbered by picture.
        let picture_a = shown_a.map(PictureNumber::picture);
        // Playing, a pair's figures land a frame or two after it is shown: the latest are
        // shown with their frame's number until the shown frame's own arrive.
        if let Some((tag, m)) = self.metrics.as_ref().filter(|_| self.shown_b.is_some()) {
            let psnr = m.psnr_avg.map_or("∞".to_string(), |p| format!("{p:.2}"));
            line += &format!(" · PSNR {psnr} dB · SSIM {:.5}", m.ssim_all);
            if Some(tag.frame) != picture_a {
                let what = if field_rate { "picture" } else { "frame" };
                line += &format!(" ({what} {})", tag.frame);
            }
        }
        // VMAF as `compare --vmaf` gives it for the frame shown, once the background run has
        // measured it.
        if let (Some(fill), Some(frame)) = (&self.vmaf, picture_a.filter(|_| self.shown_b.is_some())) {
            line += &match (fill.score(frame), fill.failed()) {
                (Some(score), _) => format!(" · VMAF {score:.2}"),
                (None, Some(_)) => " · VMAF –".to_string(),
                (None, None) => " · VMAF …".to_string(),
            };
        }
        if let Some(from) = &self.converted_from {
            line += &format!("\nB is {from}, scaled to A's frame");
        }
        line
    }
}

impl Comparison {
    /// Starts measuring every pair's VMAF in the background (A is the file at `a`), unless it
    /// is under way for the pairing `align` and the deinterlacing ask for; a run for another
    /// offset or deinterlacing is stopped.
    pub fn measure_vmaf(
        &mut self,
        a: &std::path::Path,
        (align, deinterlace): (&Alignment, Option<Deinterlacer>),
        gpu: &crate::gpu::GpuContext,
    ) -> std::io::Result<()> {
        let same = |fill: &VmafFill| fill.offset == align.offset && fill.deinterlace == deinterlace;
        if self.vmaf.as_ref().is_some_and(same) {
            return Ok(());
        }
        if let Some(old) = self.vmaf.take() {
            old.retire();
        }
        let model = self.vmaf_model.clone();
        let pairing = (align.by, align.offset, deinterlace);
        self.vmaf = Some(VmafFill::start(a, &self.info.path, pairing, model, gpu)?);
        Ok(())
    }
}

/// The composite a comparison key asks for, from `composite` shown now (`before`: the mode
/// flicker goes back to); None for a key that doesn't change it.
pub fn next_composite(mut composite: Composite, before: CompareMode, command: &Command) -> Option<Composite> {
    match *command {
        Command::CycleCompareMode => {
            composite.mode = match composite.mode {
                CompareMode::Wipe => CompareMode::SideBySide,
                CompareMode::SideBySide => CompareMode::Difference,
                CompareMode::Difference => CompareMode::Vif,
                CompareMode::Vif => CompareMode::Wipe,
                CompareMode::A | CompareMode::B => before,
            };
        }
        Command::Flicker => {
            composite.mode = match composite.mode {
                CompareMode::B => CompareMode::A,
                _ => CompareMode::B,
            };
        }
        Command::CompareGainBy(factor) => {
            let gain = (f64::from(composite.gain) * factor).round();
            composite.gain = gain.clamp(1.0, f64::from(MAX_GAIN)) as u32;
            // (The gain scales the VIF heat map too.)
            if composite.mode != CompareMode::Vif {
                composite.mode = CompareMode::Difference;
            }
        }
        _ => return None,
    }
    Some(composite)
}
