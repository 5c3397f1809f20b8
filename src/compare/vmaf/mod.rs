//! VMAF (Netflix's Video Multimethod Assessment Fusion) of a judged picture against its
//! reference, equal to libvmaf 3.2.0's integer path, value for value: the features (`vif`,
//! `adm`, `motion`, on the luma samples themselves at their own depth), the model's prediction
//! from them (`model`, `svm`) and the run's pooled scores (`pool`). This is the CPU twin: the
//! reference the tests hold to libvmaf's own logs.
//!
//! A frame's motion is the smaller of its reference's change from the frame before and to the
//! frame after, so a frame's score is known one pair later (the last frame's when the run
//! ends), as libvmaf reports it. The first frame's motion is 0, as libvmaf's first frame is,
//! wherever the run starts.
//!
//! ## What a GPU port must keep
//!
//! The twin is the reference; a GPU pass equals it bit for bit only if it keeps these:
//! - **VIF** (`vif`): edges mirrored without repeating the edge sample (vertically on the input
//!   rows, horizontally on the vertical pass's output); 32-bit sums of the 16-bit filters with no
//!   headroom; the squared terms and the per-scale sums in 64 bits; the gain
//!   `g = σ12 / (σ1² + 6.5536e-6)` and `sv² = σ2² − g σ12` in double, truncated, before g is
//!   limited (WGSL has no f64: `SHADER_F64` or an exact emulation); the log2 table built on the
//!   CPU and uploaded; each scale's num/den stored as f32 and divided in f32.
//! - **ADM** (`adm`): the DWT folds its input asymmetrically (−1 → 1, n → n−1), the masking's
//!   3x3 neighbourhood reflects at the start and repeats the edge at the end; scale 0's hard-coded
//!   weights; rounding constants that are not a half (`(int32_t)(1u << 31)` at scales 1–3, 65535
//!   in scale 0's diagonal CSF); scale 0's CSF output and 1/15 term wrap as i16; per-row i64 sums
//!   rounded and shifted by `ceil(log2 h)`; cube roots with `powf`; divisors of 2^15 or more
//!   rounded to their top 15 bits.
//! - **Motion** (`motion`): the blur is of the frame difference, not of each frame (vertical
//!   `(Σ tap·d + 2^(bits−1)) >> bits`, horizontal `(Σ + 32768) >> 16`, then the absolute value),
//!   mirrored at the edges; the SAD in 64 bits; motion2 = min of a frame's SAD and the next's.
//! - **The model** (`model`, `svm`): a few hundred `exp` a frame, in file order and without fused
//!   multiply-adds: it stays on the CPU.

pub mod adm;
pub mod gpu;
pub mod luma;
pub mod model;
pub mod motion;
pub mod pool;
pub mod svm;
pub mod vif;

use crate::video::format::Component;
use luma::Luma;
use model::{Features, Model};
use motion::Motion;
use std::collections::VecDeque;

/// The built-in model `--vmaf-model` starts from.
pub const DEFAULT_MODEL: &str = "vmaf_v0.6.1";

/// The smallest picture the features are defined for (ADM's four scales need 33 samples each
/// way; libvmaf reads outside its buffers below).
pub const MIN_SIZE: usize = adm::MIN_DIMENSION;

/// One frame's score and the features it was predicted from, as libvmaf logs them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmafFrame {
    pub vmaf: f64,
    pub adm2: f64,
    pub adm_scales: [f64; 4],
    pub motion2: f64,
    pub vif: [f64; 4],
}

impl VmafFrame {
    /// libvmaf's names of the features and the score (for its default options), in the order
    /// of `values` and of libvmaf's log.
    pub const NAMES: [&'static str; 11] = [
        "integer_adm2",
        "integer_adm_scale0",
        "integer_adm_scale1",
        "integer_adm_scale2",
        "integer_adm_scale3",
        "integer_motion2",
        "integer_vif_scale0",
        "integer_vif_scale1",
        "integer_vif_scale2",
        "integer_vif_scale3",
        "vmaf",
    ];

    pub fn values(&self) -> [f64; 11] {
        let ([a0, a1, a2, a3], [v0, v1, v2, v3]) = (self.adm_scales, self.vif);
        [self.adm2, a0, a1, a2, a3, self.motion2, v0, v1, v2, v3, self.vmaf]
    }
}

/// The features of a pair whose motion is not known yet.
struct Waiting {
    adm: adm::AdmScores,
    vif: [f64; 4],
}

/// VMAF over a run of pairs, in order: each pair's VIF and ADM as it comes, its motion and
/// score once the next reference frame (or the end) is there.
pub struct Vmaf {
    model: Model,
    adm: adm::AdmOptions,
    vif: vif::VifOptions,
    motion: Motion,
    waiting: VecDeque<Waiting>,
}

impl Vmaf {
    pub fn new(model: Model) -> Self {
        let adm = adm::AdmOptions {
            enhancement_gain_limit: model.adm_gain_limit(),
        };
        let vif = *model.vif_options();
        let motion = Motion::with_options(*model.motion_options());
        Self {
            model,
            adm,
            vif,
            motion,
            waiting: VecDeque::new(),
        }
    }

    /// Measures the next pair; gives the score of the pair before it, now that its motion is
    /// known (none for the first pair).
    pub fn push(&mut self, reference: &Luma, judged: &Luma) -> Option<VmafFrame> {
        self.waiting.push_back(Waiting {
            adm: adm::adm(reference, judged, &self.adm),
            vif: vif::vif(reference, judged, &self.vif),
        });
        let (_, motion2) = self.motion.push(reference)?;
        self.score(motion2)
    }

    /// `push` for a pair measured on the GPU (`gpu::VmafPass`): its sums, for pictures of
    /// `width` x `height`.
    pub fn push_sums(&mut self, sums: &gpu::VmafSums, width: usize, height: usize) -> Option<VmafFrame> {
        self.waiting.push_back(Waiting {
            adm: adm::scores(&sums.adm, width, height),
            vif: vif::scores(&sums.vif, &self.vif),
        });
        let (_, motion2) = self.motion.push_sad(Some(sums.sad), width, height)?;
        self.score(motion2)
    }

    /// What the GPU pass computes differently under this model.
    pub fn gpu_options(&self) -> gpu::GpuOptions {
        gpu::GpuOptions {
            adm_gain_limit: self.adm.enhancement_gain_limit,
            vif_gain_limit: self.vif.enhancement_gain_limit,
            five_frame_window: self.motion.options().five_frame_window,
            heat: false,
        }
    }

    /// The run ended: the last pair's score, if one waits.
    pub fn finish(&mut self) -> Option<VmafFrame> {
        let (_, motion2) = self.motion.finish()?;
        self.score(motion2)
    }

    fn score(&mut self, motion2: f64) -> Option<VmafFrame> {
        let Waiting { adm, vif } = self.waiting.pop_front()?;
        let features = Features {
            adm2: adm.adm2,
            motion2,
            vif,
        };
        Some(VmafFrame {
            vmaf: self.model.predict(&features),
            adm2: adm.adm2,
            adm_scales: adm.scales,
            motion2,
            vif,
        })
    }
}

/// A component's samples as the features read them, into `out`: row after row, no padding.
pub fn samples_into(component: &Component, out: &mut Vec<u16>) {
    out.clear();
    for y in 0..component.height {
        out.extend((0..component.width).map(|x| component.sample(x, y) as u16));
    }
}

/// A model by built-in name, or from a file in libvmaf's JSON format (`path=FILE.json`, as
/// libvmaf's own option reads).
pub fn load_model(name: &str) -> Result<Model, String> {
    if let Some(path) = name.strip_prefix("path=") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the VMAF model '{path}': {e}"))?;
        return Model::from_json(&text).map_err(|e| format!("'{path}' is not a VMAF model: {e}"));
    }
    let name = name.strip_prefix("version=").unwrap_or(name);
    Model::builtin(name).ok_or_else(|| {
        let known: Vec<&str> = Model::builtin_names().collect();
        format!(
            "no VMAF model '{name}' (built in: {}; or path=FILE.json)",
            known.join(", ")
        )
    })
}
