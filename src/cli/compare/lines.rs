//! What `compare` prints: a line per pair (JSON, or a CSV row) with FFmpeg's stats-file names,
//! and the whole run's summary as FFmpeg's filters print it when they end.

use crate::cli::output::Seconds;
use crate::compare::metrics::FrameMetrics;
use crate::compare::vmaf::VmafFrame;
pub use crate::headless::compare::Compared;
use crate::video::format::PlaneLayout;
use serde::Serialize;

/// The whole run's figures, as FFmpeg's filters print them when they end: per component the
/// PSNR of the mean MSE, the average's, and the average's over the worst and the best frame;
/// the mean SSIM per component and of `All`, each with its dB, 10·log10(1 / (1 − SSIM)).
#[derive(Debug, Default)]
pub struct Summary {
    /// The components' names (`component_names`).
    names: Names,
    frames: u64,
    mse: Vec<f64>,
    mse_avg: f64,
    mse_min: f64,
    mse_max: f64,
    ssim: Vec<f64>,
    ssim_all: f64,
    bits: u32,
    /// Each pair's VMAF, with `--vmaf`.
    vmaf: Vec<f64>,
}

/// The names FFmpeg's filters give the components they measure: y, u, v, or r, g, b; and a for
/// an alpha plane, which psnr measures and ssim does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names {
    colour: [&'static str; 3],
    alpha: bool,
}

impl Default for Names {
    fn default() -> Self {
        Names {
            colour: ["y", "u", "v"],
            alpha: false,
        }
    }
}

impl Names {
    /// The names of `layout`'s components, in the order `video::format::places` gives them,
    /// and alpha's after them where it is measured.
    pub fn of(layout: PlaneLayout, alpha: bool) -> Self {
        let colour = match layout {
            PlaneLayout::Gbr { .. } | PlaneLayout::Rgb24 | PlaneLayout::Rgba | PlaneLayout::Bgra => ["r", "g", "b"],
            _ => ["y", "u", "v"],
        };
        Names { colour, alpha }
    }

    /// Whether the first component is luma (Y'CbCr and grey).
    pub fn luma(&self) -> bool {
        self.colour[0] == "y"
    }

    /// The names MSE and PSNR are given for: the colour components', then alpha's.
    fn measured(&self) -> impl Iterator<Item = &'static str> {
        self.colour.into_iter().chain(self.alpha.then_some("a"))
    }
}

impl Summary {
    /// An empty summary of components named `names`.
    pub fn named(names: Names) -> Self {
        Self {
            names,
            ..Default::default()
        }
    }

    pub fn add(&mut self, m: &FrameMetrics, bits: u32) {
        if self.frames == 0 {
            self.mse = vec![0.0; m.mse.len()];
            self.ssim = vec![0.0; m.ssim.len()];
            self.mse_min = f64::INFINITY;
            self.mse_max = f64::NEG_INFINITY;
        }
        self.frames += 1;
        self.bits = bits;
        self.mse.iter_mut().zip(&m.mse).for_each(|(s, v)| *s += v);
        self.ssim.iter_mut().zip(&m.ssim).for_each(|(s, v)| *s += v);
        self.mse_avg += m.mse_avg;
        self.mse_min = self.mse_min.min(m.mse_avg);
        self.mse_max = self.mse_max.max(m.mse_avg);
        self.ssim_all += m.ssim_all;
    }

    pub fn add_vmaf(&mut self, score: f64) {
        self.vmaf.push(score);
    }

    /// The run's VMAF as encoding engineers read it: the mean, the harmonic mean (libvmaf's,
    /// which weighs bad frames more), the worst frame and the 1% low (the mean of the worst
    /// 1% of frames, one at least).
    pub fn vmaf_figures(&self) -> Option<VmafFigures> {
        if self.vmaf.is_empty() {
            return None;
        }
        let pooled = crate::compare::vmaf::pool::pool(&self.vmaf);
        let mut sorted = self.vmaf.clone();
        sorted.sort_by(f64::total_cmp);
        let worst = &sorted[..sorted.len().div_ceil(100)];
        Some(VmafFigures {
            mean: pooled.mean,
            harmonic_mean: pooled.harmonic_mean,
            min: pooled.min,
            low: worst.iter().sum::<f64>() / worst.len() as f64,
        })
    }

    /// `VMAF mean:… harmonic_mean:… min:… 1%_low:…`, with `--vmaf`.
    pub fn vmaf_line(&self) -> Option<String> {
        let v = self.vmaf_figures()?;
        Some(format!(
            "VMAF mean:{:.6} harmonic_mean:{:.6} min:{:.6} 1%_low:{:.6}",
            v.mean, v.harmonic_mean, v.min, v.low
        ))
    }

    /// The run's figures (of at least one pair), as the summary lines print them.
    pub fn figures(&self) -> RunFigures {
        let n = self.frames.max(1) as f64;
        let max = f64::from((1u32 << self.bits.max(1)) - 1);
        let psnr = |mse: f64| 10.0 * (max * max / mse).log10();
        RunFigures {
            luma: self.names.luma(),
            frames: self.frames,
            psnr_avg: psnr(self.mse_avg / n),
            psnr_y: psnr(self.mse.first().copied().unwrap_or(0.0) / n),
            ssim_all: self.ssim_all / n,
            ssim_y: self.ssim.first().copied().unwrap_or(0.0) / n,
            vmaf: self.vmaf_figures(),
        }
    }

    /// FFmpeg's two lines: `PSNR y:… u:… v:… average:… min:… max:…` and
    /// `SSIM Y:… (dB) U:… V:… All:… (dB)` (r, g, b and R, G, B for R'G'B').
    pub fn lines(&self) -> [String; 2] {
        let n = self.frames.max(1) as f64;
        let max = f64::from((1u32 << self.bits.max(1)) - 1);
        let psnr = |mse: f64| 10.0 * (max * max / mse).log10();
        // FFmpeg's `ssim_db` of the frames' summed SSIM: infinite within 1e-9 of every frame's
        // being 1, and where the SSIM is not a number.
        let db = |total: f64| match (n - total).abs() > 1e-9 {
            true => 10.0 * (n / (n - total)).log10(),
            false => f64::INFINITY,
        };
        // As C's printf("%f") writes them: what is not a number as `-nan` (SSIM of pictures
        // too small for its windows, 0/0, whose NaN has its sign set on x86), an infinity as
        // `inf`.
        let f = |v: f64| match v {
            v if v.is_nan() => "-nan".to_string(),
            v => format!("{v:.6}"),
        };
        let mut psnr_line = String::from("PSNR");
        for (name, sum) in self.names.measured().zip(&self.mse) {
            psnr_line += &format!(" {name}:{}", f(psnr(sum / n)));
        }
        psnr_line += &format!(
            " average:{} min:{} max:{}",
            f(psnr(self.mse_avg / n)),
            f(psnr(self.mse_max)),
            f(psnr(self.mse_min))
        );
        let mut ssim_line = String::from("SSIM");
        for (name, sum) in self.names.colour.iter().zip(&self.ssim) {
            ssim_line += &format!(" {}:{} ({})", name.to_uppercase(), f(sum / n), f(db(*sum)));
        }
        ssim_line += &format!(" All:{} ({})", f(self.ssim_all / n), f(db(self.ssim_all)));
        [psnr_line, ssim_line]
    }
}

/// A run's VMAF, pooled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VmafFigures {
    pub mean: f64,
    pub harmonic_mean: f64,
    pub min: f64,
    /// The mean of the worst 1% of frames (one at least).
    pub low: f64,
}

/// A run's figures, as its summary lines give them: FFmpeg's PSNR `average` and luma's, SSIM's
/// `All` and luma's, and VMAF's (with `--vmaf`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunFigures {
    /// Whether `psnr_y` and `ssim_y` are of luma (else of R'G'B''s R).
    pub luma: bool,
    pub frames: u64,
    pub psnr_avg: f64,
    pub psnr_y: f64,
    pub ssim_all: f64,
    pub ssim_y: f64,
    pub vmaf: Option<VmafFigures>,
}

/// `compare`'s JSON line (and CSV row): FFmpeg's stats-file names, `null` for a PSNR of
/// identical components (FFmpeg: `inf`) and for the chroma of grey frames.
pub(super) struct CompareLine {
    names: Names,
    frame: u64,
    frame_b: u64,
    pts: Seconds,
    /// Per component, alpha's after the colour's where measured.
    mse: Vec<Option<f64>>,
    mse_avg: f64,
    psnr: Vec<Option<f64>>,
    psnr_avg: Option<f64>,
    ssim: [Option<f64>; 3],
    ssim_all: f64,
    vmaf: Option<VmafFields>,
}

impl Serialize for CompareLine {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("frame", &self.frame)?;
        map.serialize_entry("frame_b", &self.frame_b)?;
        map.serialize_entry("pts", &self.pts)?;
        for (figure, values, whole) in [
            ("mse", &self.mse[..], Some(self.mse_avg)),
            ("psnr", &self.psnr[..], self.psnr_avg),
            ("ssim", &self.ssim[..], Some(self.ssim_all)),
        ] {
            let names: Vec<&str> = match figure {
                "ssim" => self.names.colour.to_vec(),
                _ => self.names.measured().collect(),
            };
            for (name, value) in names.iter().zip(values) {
                map.serialize_entry(&format!("{figure}_{name}"), value)?;
            }
            let whole_name = if figure == "ssim" {
                "ssim_all"
            } else {
                &format!("{figure}_avg")
            };
            map.serialize_entry(whole_name, &whole)?;
        }
        if let Some(vmaf) = &self.vmaf {
            for (name, value) in VmafFrame::NAMES.iter().zip(vmaf.0.values()) {
                map.serialize_entry(name, &value)?;
            }
        }
        map.end()
    }
}

/// A pair's VMAF and its features, as libvmaf names them.
pub(super) struct VmafFields(VmafFrame);

/// The CSV header's fields for components named `names` (the JSON lines' keys).
pub(super) fn fields(names: Names) -> Vec<String> {
    let mut fields = vec!["frame".to_string(), "frame_b".into(), "pts".into()];
    for (figure, whole) in [("mse", "mse_avg"), ("psnr", "psnr_avg")] {
        fields.extend(names.measured().map(|n| format!("{figure}_{n}")));
        fields.push(whole.into());
    }
    fields.extend(names.colour.iter().map(|n| format!("ssim_{n}")));
    fields.push("ssim_all".into());
    fields
}

impl CompareLine {
    pub(super) fn of(c: &Compared, names: Names) -> Self {
        let m = &c.metrics;
        let at = |v: &[f64], i: usize| v.get(i).copied();
        let psnr = |i: usize| m.psnr.get(i).copied().flatten();
        // Grey's one component leaves u and v null; alpha's comes after the colour's.
        let measured: Vec<usize> = [0, 1, 2]
            .into_iter()
            .chain(names.alpha.then_some(m.ssim.len()))
            .collect();
        Self {
            names,
            frame: c.frame,
            frame_b: c.frame_b,
            pts: Seconds(c.pts),
            mse: measured.iter().map(|&i| at(&m.mse, i)).collect(),
            mse_avg: m.mse_avg,
            psnr: measured.iter().map(|&i| psnr(i)).collect(),
            psnr_avg: m.psnr_avg,
            ssim: [0, 1, 2].map(|i| at(&m.ssim, i)),
            ssim_all: m.ssim_all,
            vmaf: c.vmaf.map(VmafFields),
        }
    }

    pub(super) fn csv_fields(&self) -> Vec<String> {
        // Empty where JSON has null (an SSIM of a component too small for any window).
        let n = |v: f64| if v.is_finite() { v.to_string() } else { String::new() };
        let o = |v: Option<f64>| v.map(n).unwrap_or_default();
        vec![
            self.frame.to_string(),
            self.frame_b.to_string(),
            if self.pts.0.is_finite() {
                self.pts.0.to_string()
            } else {
                String::new()
            },
        ]
        .into_iter()
        .chain(self.mse.iter().copied().map(o))
        .chain([n(self.mse_avg)])
        .chain(self.psnr.iter().copied().map(o))
        .chain([o(self.psnr_avg)])
        .chain(self.ssim.map(o))
        .chain([n(self.ssim_all)])
        .chain(self.vmaf.iter().flat_map(|v| v.0.values().map(n)))
        .collect()
    }
}
