//! Comparing a picture with its reference (`histoplay compare`, `render --compare`, the window's
//! `--compare`): which frames pair (`align`), the metrics stage (PSNR, MSE and SSIM as FFmpeg's
//! filters compute them: `metrics` on the CPU, `gpu` on the GPU; VMAF as libvmaf computes it:
//! `vmaf`) and the composite stage that shows the two together (`composite`);
//! `pipeline::comparison` runs them beside A's pipeline.

pub mod align;
pub mod composite;
pub mod gpu;
pub mod metrics;
pub mod vmaf;

use align::AlignBy;
use composite::{CompareMode, Composite, MAX_GAIN};
use std::path::PathBuf;

/// What `--compare` asks for, in the window and in `render`: the judged file, how its frames
/// pair with the reference's, and how the two are shown first.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The file judged against the one played or rendered (the reference).
    pub path: PathBuf,
    pub by: AlignBy,
    /// B's frames later than A's.
    pub offset: i64,
    pub mode: CompareMode,
    /// The wipe's line, as a share of the width.
    pub split: f64,
    pub gain: u32,
    /// The model the window's background VMAF scores with.
    pub vmaf_model: crate::compare::vmaf::model::Model,
}

impl CompareOptions {
    /// The composite shown first, for frames `width` wide.
    pub fn composite(&self, width: u32) -> Composite {
        Composite {
            mode: self.mode,
            split: (self.split.clamp(0.0, 1.0) * f64::from(width)).round() as u32,
            gain: self.gain.clamp(1, MAX_GAIN),
        }
    }
}
