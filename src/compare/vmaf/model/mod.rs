//! libvmaf 3.2.0's JSON model (`read_json_model.c`, `model.c`) and score prediction
//! (`predict.c` `vmaf_predict_score_at_index`).

use super::motion::MotionOptions;
use super::svm::Svm;
use super::vif::VifOptions;

/// The integer features a VMAF v0.6.1-style model reads, as computed for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// `VMAF_integer_feature_adm2_score` (logged `integer_adm2`, or `integer_adm2_egl_1` …)
    pub adm2: f64,
    /// `VMAF_integer_feature_motion2_score` (logged `integer_motion2`)
    pub motion2: f64,
    /// `VMAF_integer_feature_vif_scale0..3_score` (logged `integer_vif_scaleN`…)
    pub vif: [f64; 4],
}

/// Which [`Features`] field a model feature reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureKind {
    Adm2,
    Motion2,
    Vif(usize),
}

impl FeatureKind {
    /// The libvmaf feature names this crate can feed (integer extractors only).
    pub fn from_name(name: &str) -> Option<FeatureKind> {
        Some(match name {
            "VMAF_integer_feature_adm2_score" => FeatureKind::Adm2,
            "VMAF_integer_feature_motion2_score" => FeatureKind::Motion2,
            "VMAF_integer_feature_vif_scale0_score" => FeatureKind::Vif(0),
            "VMAF_integer_feature_vif_scale1_score" => FeatureKind::Vif(1),
            "VMAF_integer_feature_vif_scale2_score" => FeatureKind::Vif(2),
            "VMAF_integer_feature_vif_scale3_score" => FeatureKind::Vif(3),
            _ => return None,
        })
    }

    fn get(self, f: &Features) -> f64 {
        match self {
            FeatureKind::Adm2 => f.adm2,
            FeatureKind::Motion2 => f.motion2,
            FeatureKind::Vif(k) => f.vif[k],
        }
    }
}

/// Options of the `adm` (integer_adm) extractor, libvmaf's defaults unless the model sets them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmOptions {
    pub enhn_gain_limit: f64,
    pub csf_scale: f64,
    pub csf_diag_scale: f64,
    pub dlm_weight: f64,
    pub norm_view_dist: f64,
    pub ref_display_height: i32,
    pub csf_mode: i32,
    pub noise_weight: f64,
    pub skip_aim: bool,
    pub skip_scale0: bool,
    pub min_val: f64,
}

impl Default for AdmOptions {
    fn default() -> Self {
        AdmOptions {
            enhn_gain_limit: 100.0,
            csf_scale: 1.0,
            csf_diag_scale: 1.0,
            dlm_weight: 0.5,
            norm_view_dist: 3.0,
            ref_display_height: 1080,
            csf_mode: 0,
            noise_weight: 0.03125,
            skip_aim: false,
            skip_scale0: false,
            min_val: 0.0,
        }
    }
}

/// Load-time flags (`VmafModelFlags`); FFmpeg's `model=...:enable_transform=true` sets
/// `enable_transform`.  The default (all false) is what a plain `model=version=...` gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelFlags {
    /// `VMAF_MODEL_FLAG_ENABLE_TRANSFORM`: apply `score_transform` even without `"enabled": true`.
    pub enable_transform: bool,
    /// `VMAF_MODEL_FLAG_DISABLE_CLIP`: ignore `score_clip`.
    pub disable_clip: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NormType {
    None,
    LinearRescale,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    SvmNuSvr,
    BootstrapSvmNuSvr,
    ResidueBootstrapSvmNuSvr,
}

/// One model feature.
#[derive(Clone, Debug)]
pub struct ModelFeature {
    pub name: String,
    pub kind: FeatureKind,
    pub slope: f64,
    pub intercept: f64,
    /// The options dictionary as libvmaf stores it: (key, value string), numbers normalised
    /// through `strtof` + `"%g"` (`VMAF_DICT_NORMALIZE_NUMERICAL_VALUES`).
    pub opts: Vec<(String, String)>,
}

/// `score_transform`.
#[derive(Clone, Debug, Default)]
pub struct ScoreTransform {
    pub enabled: bool,
    pub p0: Option<f64>,
    pub p1: Option<f64>,
    pub p2: Option<f64>,
    /// `None` = knots disabled.
    pub knots: Option<Vec<(f64, f64)>>,
    pub out_lte_in: bool,
    pub out_gte_in: bool,
}

/// A libvmaf JSON model (the single-model format, `{"model_dict": {...}}`).
#[derive(Clone, Debug)]
pub struct Model {
    pub model_type: Option<ModelType>,
    pub norm_type: NormType,
    pub slope: f64,
    pub intercept: f64,
    pub features: Vec<ModelFeature>,
    /// `score_clip` (min, max) when enabled.
    pub score_clip: Option<(f64, f64)>,
    pub score_transform: ScoreTransform,
    pub svm: Svm,
    adm: AdmOptions,
    vif: VifOptions,
    motion: MotionOptions,
}

mod parse;

pub use parse::c_fmt_g;

impl Model {
    /// Parses a libvmaf JSON model with default flags.
    pub fn from_json(text: &str) -> Result<Model, String> {
        Self::from_json_with(text, ModelFlags::default())
    }

    /// Parses a libvmaf JSON model (`vmaf_read_json_model`), then checks what libvmaf checks
    /// when it builds the feature extractors from it (option types and ranges). Models whose
    /// features are not the integer adm2/motion2/vif_scale0..3, or that use chroma correction,
    /// are refused.
    pub fn from_json_with(text: &str, flags: ModelFlags) -> Result<Model, String> {
        parse::from_json_with(text, flags)
    }

    /// The built-in models `vmaf_v0.6.1`, `vmaf_v0.6.1neg`, `vmaf_4k_v0.6.1` (default flags).
    pub fn builtin(name: &str) -> Option<Model> {
        Self::builtin_with(name, ModelFlags::default())
    }

    pub fn builtin_with(name: &str, flags: ModelFlags) -> Option<Model> {
        parse::BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| Self::from_json_with(text, flags).expect("built-in model parses"))
    }

    /// Names accepted by [`Model::builtin`].
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        parse::BUILTIN.iter().map(|(n, _)| *n)
    }

    /// `adm_enhn_gain_limit` for the adm extractor (100 = libvmaf default, NEG: 1).
    pub fn adm_gain_limit(&self) -> f64 {
        self.adm.enhn_gain_limit
    }

    /// `vif_enhn_gain_limit` for the vif extractor (100 = libvmaf default, NEG: 1).
    pub fn vif_gain_limit(&self) -> f64 {
        self.vif.enhancement_gain_limit
    }

    pub fn adm_options(&self) -> &AdmOptions {
        &self.adm
    }

    pub fn vif_options(&self) -> &VifOptions {
        &self.vif
    }

    /// Options for [`super::motion::Motion::with_options`].
    pub fn motion_options(&self) -> &MotionOptions {
        &self.motion
    }

    /// The normalised feature vector given to libsvm: (index i+1, value) per model feature.
    pub fn svm_input(&self, features: &Features) -> Vec<(i32, f64)> {
        self.features
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut v = f.kind.get(features);
                if self.norm_type == NormType::LinearRescale {
                    v = f.slope * v + f.intercept; // normalize(): no FMA
                }
                (i as i32 + 1, v)
            })
            .collect()
    }

    /// `vmaf_predict_score_at_index`: normalise, svm_predict, denormalise, transform, clip.
    pub fn predict(&self, features: &Features) -> f64 {
        let x = self.svm_input(features);
        let mut p = self.svm.predict(&x);
        if self.norm_type == NormType::LinearRescale {
            p = (p - self.intercept) / self.slope; // denormalize()
        }
        p = self.transform(p);
        self.clip(p)
    }

    /// `transform()`: polynomial, then knots, then rectification against the input.
    pub fn transform(&self, y_in: f64) -> f64 {
        let t = &self.score_transform;
        if !t.enabled {
            return y_in;
        }
        let mut y_out;
        let y_stage = y_in;
        if t.p0.is_some() || t.p1.is_some() || t.p2.is_some() {
            y_out = 0.0;
            if let Some(p0) = t.p0 {
                y_out += p0;
            }
            if let Some(p1) = t.p1 {
                y_out += p1 * y_stage;
            }
            if let Some(p2) = t.p2 {
                y_out += p2 * y_stage * y_stage;
            }
        } else {
            y_out = y_stage;
        }
        if let Some(knots) = &t.knots {
            y_out = piecewise_linear_mapping(y_out, knots);
        }
        if t.out_lte_in && y_out > y_in {
            y_out = y_in;
        }
        if t.out_gte_in && y_out < y_in {
            y_out = y_in;
        }
        y_out
    }

    /// `clip()`.
    pub fn clip(&self, mut p: f64) -> f64 {
        if let Some((lo, hi)) = self.score_clip {
            p = if p < lo { lo } else { p };
            p = if p > hi { hi } else { p };
        }
        p
    }
}

/// `find_linear_function_parameters` (only called with valid, non-degenerate segments).
fn linear_params(p1: (f64, f64), p2: (f64, f64)) -> (f64, f64) {
    if p2.0 - p1.0 == 0.0 || p2.1 - p1.1 == 0.0 {
        (1.0, 0.0)
    } else if p1.0 == 0.0 {
        let beta = p1.1;
        ((p2.1 - beta) / p2.0, beta)
    } else {
        let alpha = (p2.1 - p1.1) / (p2.0 - p1.0);
        (alpha, p1.1 - p1.0 * alpha)
    }
}

/// `piecewise_linear_mapping`, including its error paths: fewer than 2 knots leave `x` as is;
/// a bad segment stops the loop, keeping what was computed so far (libvmaf ignores the error).
fn piecewise_linear_mapping(x: f64, knots: &[(f64, f64)]) -> f64 {
    if knots.len() <= 1 {
        return x;
    }
    let n_seg = knots.len() - 1;
    let mut y = 0.0;
    for idx in 0..n_seg {
        let (a, b) = (knots[idx], knots[idx + 1]);
        if !(a.0 < b.0 && a.1 <= b.1) {
            return y;
        }
        let cond0 = a.0 <= x;
        let cond1 = x <= b.0;
        if a.1 == b.1 {
            if cond0 && cond1 {
                y = a.1;
            }
            if idx == 0 && x < a.0 {
                y = a.1;
            }
            if idx == n_seg - 1 && x > b.0 {
                y = a.1;
            }
        } else {
            let (slope, offset) = linear_params(a, b);
            if cond0 && cond1 {
                y = slope * x + offset;
            }
            if idx == 0 && x < a.0 {
                y = slope * x + offset;
            }
            if idx == n_seg - 1 && x > b.0 {
                y = slope * x + offset;
            }
        }
    }
    y
}
