//! Reading libvmaf's JSON model format (`read_json_model.c`, `model.c`) as libvmaf does: its
//! numbers as `strtod` reads them, feature options through `strtof` and `"%g"` as its
//! dictionary normalises them, and the checks libvmaf makes when it builds the extractors.

use super::*;
use serde_json::Value;

const MAX_FEATURE_COUNT: usize = 64;
const MAX_KNOT_COUNT: usize = 10;

pub(super) const BUILTIN: &[(&str, &str)] = &[
    ("vmaf_v0.6.1", include_str!("../models/vmaf_v0.6.1.json")),
    ("vmaf_v0.6.1neg", include_str!("../models/vmaf_v0.6.1neg.json")),
    ("vmaf_4k_v0.6.1", include_str!("../models/vmaf_4k_v0.6.1.json")),
];

fn num_text(v: &Value) -> Option<String> {
    match v {
        // Display gives the shortest text that reads back as the same double (serde_json parses
        // with float_roundtrip: correctly rounded, as strtod).
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `json_get_number`: `strtod` of the number's text (correctly rounded, as Rust's parse).
fn num(v: &Value) -> Option<f64> {
    num_text(v)?.parse::<f64>().ok()
}

/// C `printf("%g", d)` (precision 6).
pub fn c_fmt_g(d: f64) -> String {
    if d.is_nan() {
        return if d.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if d.is_infinite() {
        return if d < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let e = format!("{:.5e}", d); // "-1.23457e-5": exponent after rounding to 6 digits
    let (mant, exp) = e.split_once('e').unwrap();
    let x: i32 = exp.parse().unwrap();
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&x) {
        strip(&format!("{:.*}", (5 - x) as usize, d))
    } else {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", strip(mant), sign, x.abs())
    }
}

/// The prefix of `s` that C's `strtod`/`atof` would read (decimal forms, inf, nan).
fn c_atof(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let neg = i > 0 && b[0] == b'-';
    let rest = t[i..].to_ascii_lowercase();
    if rest.starts_with("inf") {
        return if neg { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    if rest.starts_with("nan") {
        return f64::NAN;
    }
    // strtod leaves an exponent mark with no digits unread.
    let Some((mantissa, whole)) = crate::compare::vmaf::svm::scan_decimal(b) else {
        return 0.0;
    };
    let i = whole.unwrap_or(mantissa);
    t[..i].parse().unwrap_or(0.0)
}

/// C `atoi` (no overflow handling needed for sane input).
fn c_atoi(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut n: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((b[i] - b'0') as i64);
        i += 1;
    }
    if neg {
        -n
    } else {
        n
    }
}

/// `set_option_bool`.
fn opt_bool(val: Option<&str>, default: bool, key: &str) -> Result<bool, String> {
    match val {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(format!("vmaf model: option {key}={v} is not a bool")),
    }
}

/// `set_option_double`.
fn opt_f64(val: Option<&str>, default: f64, min: f64, max: f64, key: &str) -> Result<f64, String> {
    let Some(v) = val else { return Ok(default) };
    let n = c_atof(v);
    if (n == 0.0 && !v.starts_with('0')) || n < min || n > max {
        return Err(format!(
            "vmaf model: option {key}={v} is invalid or outside [{min}, {max}]"
        ));
    }
    Ok(n)
}

/// `set_option_int`.
fn opt_i32(val: Option<&str>, default: i32, min: i32, max: i32, key: &str) -> Result<i32, String> {
    let Some(v) = val else { return Ok(default) };
    let n = c_atoi(v);
    if (n == 0 && !v.starts_with('0')) || n < min as i64 || n > max as i64 {
        return Err(format!(
            "vmaf model: option {key}={v} is invalid or outside [{min}, {max}]"
        ));
    }
    Ok(n as i32)
}

fn lookup<'a>(opts: &'a [(String, String)], key: &str) -> Option<&'a str> {
    opts.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn adm_options(opts: &[(String, String)]) -> Result<AdmOptions, String> {
    let g = |k| lookup(opts, k);
    let d = AdmOptions::default();
    opt_bool(g("debug"), false, "debug")?;
    Ok(AdmOptions {
        csf_scale: opt_f64(g("adm_csf_scale"), d.csf_scale, 0.0, 50.0, "adm_csf_scale")?,
        csf_diag_scale: opt_f64(
            g("adm_csf_diag_scale"),
            d.csf_diag_scale,
            0.0,
            50.0,
            "adm_csf_diag_scale",
        )?,
        dlm_weight: opt_f64(g("adm_dlm_weight"), d.dlm_weight, 0.0, 1.0, "adm_dlm_weight")?,
        enhn_gain_limit: opt_f64(
            g("adm_enhn_gain_limit"),
            d.enhn_gain_limit,
            1.0,
            100.0,
            "adm_enhn_gain_limit",
        )?,
        norm_view_dist: opt_f64(
            g("adm_norm_view_dist"),
            d.norm_view_dist,
            0.75,
            24.0,
            "adm_norm_view_dist",
        )?,
        ref_display_height: opt_i32(
            g("adm_ref_display_height"),
            d.ref_display_height,
            1,
            4320,
            "adm_ref_display_height",
        )?,
        csf_mode: opt_i32(g("adm_csf_mode"), d.csf_mode, 0, 3, "adm_csf_mode")?,
        noise_weight: opt_f64(g("adm_noise_weight"), d.noise_weight, 0.0, 1500.0, "adm_noise_weight")?,
        skip_aim: opt_bool(g("adm_skip_aim"), false, "adm_skip_aim")?,
        skip_scale0: opt_bool(g("adm_skip_scale0"), false, "adm_skip_scale0")?,
        min_val: opt_f64(g("adm_min_val"), d.min_val, 0.0, 1.0, "adm_min_val")?,
    })
}

fn vif_options(opts: &[(String, String)]) -> Result<VifOptions, String> {
    let g = |k| lookup(opts, k);
    opt_bool(g("debug"), false, "debug")?;
    Ok(VifOptions {
        enhancement_gain_limit: opt_f64(g("vif_enhn_gain_limit"), 100.0, 1.0, 100.0, "vif_enhn_gain_limit")?,
        skip_scale0: opt_bool(g("vif_skip_scale0"), false, "vif_skip_scale0")?,
    })
}

fn motion_options(opts: &[(String, String)]) -> Result<MotionOptions, String> {
    let g = |k| lookup(opts, k);
    let d = MotionOptions::default();
    opt_bool(g("debug"), false, "debug")?;
    Ok(MotionOptions {
        force_zero: opt_bool(g("motion_force_zero"), d.force_zero, "motion_force_zero")?,
        blend_factor: opt_f64(
            g("motion_blend_factor"),
            d.blend_factor,
            0.0,
            1.0,
            "motion_blend_factor",
        )?,
        blend_offset: opt_f64(
            g("motion_blend_offset"),
            d.blend_offset,
            0.0,
            1000.0,
            "motion_blend_offset",
        )?,
        fps_weight: opt_f64(g("motion_fps_weight"), d.fps_weight, 0.0, 5.0, "motion_fps_weight")?,
        max_val: opt_f64(g("motion_max_val"), d.max_val, 0.0, 10000.0, "motion_max_val")?,
        five_frame_window: opt_bool(
            g("motion_five_frame_window"),
            d.five_frame_window,
            "motion_five_frame_window",
        )?,
        moving_average: opt_bool(g("motion_moving_average"), d.moving_average, "motion_moving_average")?,
    })
}

fn e(msg: impl std::fmt::Display) -> String {
    // One line, always.
    format!("vmaf model: {msg}").replace(['\n', '\r'], " ")
}

/// `parse_score_transform`.
fn parse_score_transform(obj: &serde_json::Map<String, Value>) -> Result<ScoreTransform, String> {
    let mut t = ScoreTransform::default();
    for (key, v) in obj {
        match key.as_str() {
            "enabled" => match v {
                Value::Bool(b) => t.enabled = *b,
                _ => return Err(e("score_transform.enabled must be true or false")),
            },
            "p0" | "p1" | "p2" => {
                // libvmaf peeks a null without consuming it, then fails on the next key.
                let x = num(v).ok_or_else(|| e(format!("score_transform.{key} must be a number")))?;
                match key.as_str() {
                    "p0" => t.p0 = Some(x),
                    "p1" => t.p1 = Some(x),
                    _ => t.p2 = Some(x),
                }
            }
            "knots" => match v {
                Value::Array(list) => {
                    let mut knots = Vec::new();
                    for k in list {
                        let Value::Array(xy) = k else {
                            return Err(e("score_transform.knots must be a list of [x, y]"));
                        };
                        if knots.len() >= MAX_KNOT_COUNT {
                            return Err(e("score_transform.knots: more than 10 knots"));
                        }
                        if xy.len() > 2 {
                            return Err(e("score_transform.knots: a knot has more than 2 numbers"));
                        }
                        let mut p = [0.0f64; 2]; // missing coordinates stay 0 (memset)
                        for (i, c) in xy.iter().enumerate() {
                            p[i] = num(c).ok_or_else(|| e("score_transform.knots: not a number"))?;
                        }
                        knots.push((p[0], p[1]));
                    }
                    t.knots = Some(knots);
                }
                _ => return Err(e("score_transform.knots must be a list")),
            },
            "out_lte_in" | "out_gte_in" => {
                let Value::String(s) = v else {
                    return Err(e(format!("score_transform.{key} must be a string")));
                };
                if s == "true" {
                    if key == "out_lte_in" {
                        t.out_lte_in = true;
                    } else {
                        t.out_gte_in = true;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(t)
}

/// `parse_slopes` / `parse_intercepts`: the model's value, then one per feature.
fn parse_coeffs(v: &Value, what: &str) -> Result<(f64, Vec<f64>), String> {
    let Value::Array(a) = v else {
        return Err(e(format!("{what} must be a list")));
    };
    let mut it = a.iter();
    let first = it
        .next()
        .and_then(num)
        .ok_or_else(|| e(format!("{what}: first entry must be a number")))?;
    let rest: Vec<f64> = it
        .map(|x| num(x).ok_or_else(|| e(format!("{what}: not a number"))))
        .collect::<Result<_, _>>()?;
    if rest.len() > MAX_FEATURE_COUNT {
        return Err(e(format!("{what}: more than {MAX_FEATURE_COUNT} features")));
    }
    Ok((first, rest))
}

/// `parse_feature_opts_dicts` with `vmaf_dictionary_set` value handling.
fn parse_opts_dicts(v: &Value) -> Result<Vec<Vec<(String, String)>>, String> {
    let Value::Array(a) = v else {
        return Err(e("feature_opts_dicts must be a list"));
    };
    if a.len() > MAX_FEATURE_COUNT {
        return Err(e("feature_opts_dicts: too many entries"));
    }
    let mut out = Vec::new();
    for d in a {
        let Value::Object(o) = d else {
            return Err(e("feature_opts_dicts: entries must be objects"));
        };
        let mut dict = Vec::new();
        for (key, val) in o {
            let s = match val {
                Value::Number(_) => {
                    // VMAF_DICT_NORMALIZE_NUMERICAL_VALUES: strtof, then "%g".
                    let text = num_text(val).unwrap();
                    let f: f32 = text.parse().map_err(|_| e(format!("option {key}: bad number")))?;
                    c_fmt_g(f as f64)
                }
                Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
                Value::String(s) => s.clone(),
                _ => return Err(e(format!("option {key}: value must be a number, bool or string"))),
            };
            dict.push((key.clone(), s));
        }
        out.push(dict);
    }
    Ok(out)
}

/// Parses a libvmaf JSON model (`vmaf_read_json_model`), then checks what libvmaf checks
/// when it builds the feature extractors from it (option types and ranges).  Models whose
/// features are not the integer adm2/motion2/vif_scale0..3, or that use chroma correction,
/// are refused.
pub(super) fn from_json_with(text: &str, flags: ModelFlags) -> Result<Model, String> {
    let root: Value = serde_json::from_str(text).map_err(|x| e(format!("bad JSON: {x}")))?;
    let Value::Object(root) = root else {
        return Err(e("top level is not an object"));
    };
    let md = root.get("model_dict").ok_or_else(|| e("no model_dict"))?;
    let Value::Object(md) = md else {
        return Err(e("model_dict is not an object"));
    };

    let mut model_type = None;
    let mut norm_type = None;
    let mut score_clip = None;
    let mut score_transform = ScoreTransform::default();
    let mut slopes = None;
    let mut intercepts = None;
    let mut names: Vec<String> = Vec::new();
    let mut opts_dicts: Vec<Vec<(String, String)>> = Vec::new();
    let mut svm = None;

    for (key, v) in md {
        match key.as_str() {
            "score_transform" => {
                let Value::Object(o) = v else {
                    return Err(e("score_transform must be an object"));
                };
                score_transform = parse_score_transform(o)?;
                if !score_transform.enabled && flags.enable_transform {
                    score_transform.enabled = true;
                }
            }
            "model_type" => {
                let Value::String(s) = v else {
                    return Err(e("model_type must be a string"));
                };
                model_type = Some(match s.as_str() {
                    "RESIDUEBOOTSTRAP_LIBSVMNUSVR" => ModelType::ResidueBootstrapSvmNuSvr,
                    "BOOTSTRAP_LIBSVMNUSVR" => ModelType::BootstrapSvmNuSvr,
                    "LIBSVMNUSVR" => ModelType::SvmNuSvr,
                    other => return Err(e(format!("unknown model_type {other:?}"))),
                });
            }
            "norm_type" => {
                let Value::String(s) = v else {
                    return Err(e("norm_type must be a string"));
                };
                norm_type = Some(match s.as_str() {
                    "linear_rescale" => NormType::LinearRescale,
                    "none" => NormType::None,
                    other => return Err(e(format!("unknown norm_type {other:?}"))),
                });
            }
            "score_clip" => {
                let Value::Array(a) = v else {
                    return Err(e("score_clip must be a list"));
                };
                if !flags.disable_clip {
                    let lo = a
                        .first()
                        .and_then(num)
                        .ok_or_else(|| e("score_clip: min must be a number"))?;
                    let hi = a
                        .get(1)
                        .and_then(num)
                        .ok_or_else(|| e("score_clip: max must be a number"))?;
                    score_clip = Some((lo, hi));
                }
            }
            "chroma_correction_parameter" => {
                return Err(e("chroma_correction_parameter (speed_chroma models) is not supported"));
            }
            "slopes" => slopes = Some(parse_coeffs(v, "slopes")?),
            "intercepts" => intercepts = Some(parse_coeffs(v, "intercepts")?),
            "feature_names" => {
                let Value::Array(a) = v else {
                    return Err(e("feature_names must be a list"));
                };
                names.clear();
                for n in a {
                    let Value::String(s) = n else {
                        return Err(e("feature_names: not a string"));
                    };
                    if names.len() >= MAX_FEATURE_COUNT {
                        return Err(e("feature_names: more than 64"));
                    }
                    names.push(s.clone());
                }
            }
            "feature_opts_dicts" => opts_dicts = parse_opts_dicts(v)?,
            "model" => {
                let Value::String(s) = v else {
                    return Err(e("model must be a string"));
                };
                svm = Some(Svm::parse(s).map_err(e)?);
            }
            _ => {}
        }
    }

    let norm_type = norm_type.ok_or_else(|| e("no norm_type"))?;
    let svm = svm.ok_or_else(|| e("no model (libsvm text)"))?;
    if names.is_empty() {
        return Err(e("no feature_names"));
    }
    let (slope, intercept, fslopes, fintercepts) = match (slopes, intercepts) {
        (Some((s, fs)), Some((i, fi))) => (s, i, fs, fi),
        _ if norm_type == NormType::None => (1.0, 0.0, vec![], vec![]),
        _ => return Err(e("linear_rescale needs slopes and intercepts")),
    };
    if norm_type == NormType::LinearRescale && (fslopes.len() != names.len() || fintercepts.len() != names.len()) {
        return Err(e(format!(
            "{} features but {} slopes and {} intercepts after the model's own",
            names.len(),
            fslopes.len(),
            fintercepts.len()
        )));
    }

    let mut features = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let kind = FeatureKind::from_name(name).ok_or_else(|| {
            e(format!(
                "feature {name:?} is not supported (integer adm2, motion2, vif_scale0..3 only)"
            ))
        })?;
        features.push(ModelFeature {
            name: name.clone(),
            kind,
            slope: fslopes.get(i).copied().unwrap_or(0.0),
            intercept: fintercepts.get(i).copied().unwrap_or(0.0),
            opts: opts_dicts.get(i).cloned().unwrap_or_default(),
        });
    }

    // Extractor options: every feature of one extractor must agree (one instance each here).
    let mut adm = None;
    let mut vif = None;
    let mut motion = None;
    for f in &features {
        match f.kind {
            FeatureKind::Adm2 => {
                let o = adm_options(&f.opts)?;
                if adm.is_some_and(|a| a != o) {
                    return Err(e("adm features with differing options"));
                }
                adm = Some(o);
            }
            FeatureKind::Vif(_) => {
                let o = vif_options(&f.opts)?;
                if vif.is_some_and(|a| a != o) {
                    return Err(e("vif features with differing options are not supported"));
                }
                vif = Some(o);
            }
            FeatureKind::Motion2 => {
                let o = motion_options(&f.opts)?;
                if motion.is_some_and(|a| a != o) {
                    return Err(e("motion features with differing options"));
                }
                motion = Some(o);
            }
        }
    }

    Ok(Model {
        model_type,
        norm_type,
        slope,
        intercept,
        features,
        score_clip,
        score_transform,
        svm,
        adm: adm.unwrap_or_default(),
        vif: vif.unwrap_or_default(),
        motion: motion.unwrap_or_default(),
    })
}
