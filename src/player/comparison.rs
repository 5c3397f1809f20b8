//! `histoplay A --compare B`: the second file of a comparison in the window. Its frames come
//! paired with A's (`paired`), are drawn through the comparison stage (`compare::stage`), and
//! are steered by the comparison's keys: the mode, flicker, the difference's gain, B's offset,
//! and the wipe's line dragged with the left button.

use super::window::PlayerWindow;
use super::PlayerError;
use crate::compare::align::{AlignBy, Alignment};
use crate::compare::composite::{CompareMode, Composite, MAX_GAIN};
use crate::compare::metrics::FrameMetrics;
use crate::compare::stage::{CompareStage, PairTag};
pub use crate::compare::CompareOptions;
use crate::video::decoder::ReadyFrame;
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
}

impl Comparison {
    /// The OSD's line: both frames' numbers, B's offset, the mode and the pair's PSNR and
    /// SSIM (once measured for the frame shown).
    pub fn osd_line(&self, frame_a: Option<u64>, offset: i64, by: AlignBy) -> String {
        let composite = self.stage.composite();
        let mode = match composite.mode {
            CompareMode::Wipe => "wipe".to_string(),
            CompareMode::SideBySide => "side by side".to_string(),
            CompareMode::Difference => format!("difference ×{}", composite.gain),
            CompareMode::A => "A (flicker)".to_string(),
            CompareMode::B => "B (flicker)".to_string(),
        };
        let number = |n: Option<u64>| n.map_or("–".to_string(), |n| n.to_string());
        let b = match self.shown_b {
            Some(f) => number(Some(self.index.number_at(f.pts).n)),
            None => "none".to_string(),
        };
        let aligned = match by {
            AlignBy::Frame => "",
            AlignBy::Time => " by time",
        };
        let mut line = format!("A {} · B {b} (offset {offset:+}{aligned}) · {mode}", number(frame_a));
        // Playing, a pair's figures land a frame or two after it is shown: the latest are
        // shown with their frame's number until the shown frame's own arrive.
        if let Some((tag, m)) = self.metrics.as_ref().filter(|_| self.shown_b.is_some()) {
            let psnr = m.psnr_avg.map_or("∞".to_string(), |p| format!("{p:.2}"));
            line += &format!(" · PSNR {psnr} dB · SSIM {:.5}", m.ssim_all);
            if Some(tag.frame) != frame_a {
                line += &format!(" (frame {})", tag.frame);
            }
        }
        if let Some(from) = &self.converted_from {
            line += &format!("\nB is {from}, scaled to A's frame");
        }
        line
    }
}

impl PlayerWindow {
    /// The comparison's commands (without a comparison, the OSD says how to start one).
    pub(super) fn compare_command(&mut self, command: &super::commands::Command) {
        use super::commands::Command;
        let Some(comparison) = &self.media.compare else {
            self.replace_message("compare", "compare: play with --compare FILE".to_string());
            return;
        };
        let mut composite = comparison.stage.composite();
        let before = comparison.before_flicker;
        match *command {
            Command::CycleCompareMode => {
                composite.mode = match composite.mode {
                    CompareMode::Wipe => CompareMode::SideBySide,
                    CompareMode::SideBySide => CompareMode::Difference,
                    CompareMode::Difference => CompareMode::Wipe,
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
                if composite.mode != CompareMode::Difference {
                    composite.mode = CompareMode::Difference;
                }
            }
            Command::CompareOffsetBy(step) => {
                self.shift_compared(step);
                return;
            }
            _ => return,
        }
        self.set_composite(composite);
    }

    /// Shows `composite` from now on (a new scene where the picture or the filled
    /// histograms change).
    pub(super) fn set_composite(&mut self, composite: Composite) {
        if let Err(e) = self.media.set_composite(&self.gpu, &self.scene, composite) {
            self.message(format!("cannot compare: {e}"), true);
        }
        self.probe_moved = true;
        self.relayout();
    }

    /// Moves B by `step` frames against A and pairs the frame shown again.
    fn shift_compared(&mut self, step: i64) {
        let Some(pair) = self.media.playback.source.paired_mut() else {
            return;
        };
        let offset = pair.alignment().offset + step;
        pair.set_offset(offset);
        if let Some(shown) = self.media.playback.shown() {
            self.media.playback.seek_frame(shown.index);
        }
        self.replace_message("compare offset", format!("compare offset {offset:+} frames"));
    }

    /// A left-button press or drag on the picture in wipe mode: the line goes to the pointer.
    /// True when the press was taken for the wipe.
    pub fn drag_wipe(&mut self) -> bool {
        let Some(point) = self.pointer else { return false };
        let Some(comparison) = &self.media.compare else {
            return false;
        };
        let composite = comparison.stage.composite();
        if composite.mode != CompareMode::Wipe {
            return false;
        }
        let (x, _) = self.media.frame_point(point, self.surface.size(), self.view.fit);
        let (width, _) = self.media.pipeline.frame_size();
        let split = x.round().clamp(0.0, f64::from(width)) as u32;
        if split != composite.split {
            self.set_composite(Composite { split, ..composite });
        }
        true
    }
}
