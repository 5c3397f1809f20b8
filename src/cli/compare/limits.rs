//! `compare --fail-on`: limits on a run's pooled figures — `vmaf<93,vmaf-min<70` — the gate an
//! encoding pipeline puts before a delivery. Each limit names a figure of the whole run (the
//! summary's) and the values that fail it.

use super::lines::RunFigures;

/// The run's figures a limit can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Figure {
    /// VMAF's mean over the run (`vmaf` and `vmaf-mean`).
    VmafMean,
    VmafHarmonicMean,
    VmafMin,
    /// The mean of the worst 1% of frames.
    VmafLow,
    /// FFmpeg's PSNR `average` (of the mean MSE, all components).
    Psnr,
    /// Luma's PSNR (of its mean MSE).
    PsnrY,
    /// FFmpeg's SSIM `All`.
    Ssim,
    SsimY,
}

const FIGURES: [(&str, Figure); 9] = [
    ("vmaf", Figure::VmafMean),
    ("vmaf-mean", Figure::VmafMean),
    ("vmaf-hmean", Figure::VmafHarmonicMean),
    ("vmaf-min", Figure::VmafMin),
    ("vmaf-low", Figure::VmafLow),
    ("psnr", Figure::Psnr),
    ("psnr-y", Figure::PsnrY),
    ("ssim", Figure::Ssim),
    ("ssim-y", Figure::SsimY),
];

/// The names a limit can use, for help and errors.
pub const NAMES: &str = "vmaf (the mean), vmaf-hmean, vmaf-min, vmaf-low (1% low), psnr, psnr-y, ssim, ssim-y";

/// A limit: the figure, the comparison, the value; failing when the comparison holds.
#[derive(Clone, Debug, PartialEq)]
struct Limit {
    figure: Figure,
    op: &'static str,
    value: f64,
}

/// The limits of one `--fail-on`.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareLimits(Vec<Limit>);

impl CompareLimits {
    /// Limits separated by commas: a figure's name (any case), one of `<`, `<=`, `>`, `>=`, a
    /// number.
    pub fn parse(spec: &str) -> Result<Self, String> {
        spec.split(',')
            .map(|s| Limit::parse(s.trim()))
            .collect::<Result<_, _>>()
            .map(Self)
    }

    /// Whether a limit names VMAF's figures (which need `--vmaf`).
    pub fn need_vmaf(&self) -> bool {
        self.0.iter().any(|l| {
            matches!(
                l.figure,
                Figure::VmafMean | Figure::VmafHarmonicMean | Figure::VmafMin | Figure::VmafLow
            )
        })
    }

    /// The limits `figures` fail, each as `vmaf 91.204816 < 93`. A PSNR of identical pictures
    /// (infinite) passes every lower limit; a figure that is not a number fails every limit.
    pub fn failed(&self, figures: &RunFigures) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|limit| {
                // (A limit on luma fails where there is none to hold it to.)
                if matches!(limit.figure, Figure::PsnrY | Figure::SsimY) && !figures.luma {
                    return Some(format!("{}: R'G'B' has no luma (limit psnr or ssim)", limit.name()));
                }
                let value = limit.of(figures)?;
                // (A figure that is not a number, as SSIM of pictures too small for its windows,
                // can't be held to the limit: it fails it.)
                if value.is_nan() {
                    return Some(format!(
                        "{} is not a number (limit {}{}{})",
                        limit.name(),
                        limit.name(),
                        limit.op,
                        limit.value
                    ));
                }
                let fails = match limit.op {
                    "<" => value < limit.value,
                    "<=" => value <= limit.value,
                    ">" => value > limit.value,
                    _ => value >= limit.value,
                };
                fails.then(|| format!("{} {value:.6} {} {}", limit.name(), limit.op, limit.value))
            })
            .collect()
    }
}

impl Limit {
    fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not a limit: write a figure, <, <=, > or >=, and a number, as vmaf<93");
        let at = text.find(['<', '>']).ok_or_else(bad)?;
        let (name, rest) = text.split_at(at);
        let op = ["<=", ">=", "<", ">"]
            .into_iter()
            .find(|op| rest.starts_with(op))
            .ok_or_else(bad)?;
        let value: f64 = rest[op.len()..].trim().parse().map_err(|_| bad())?;
        if !value.is_finite() {
            return Err(bad());
        }
        let name = name.trim().to_ascii_lowercase();
        let figure = FIGURES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, f)| f)
            .ok_or_else(|| format!("'{name}' in '{text}' is not a figure compare gives: {NAMES}"))?;
        Ok(Self { figure, op, value })
    }

    fn name(&self) -> &'static str {
        FIGURES.iter().find(|(_, f)| *f == self.figure).map_or("", |(n, _)| n)
    }

    /// The figure's value in `figures` (None: the run has none, as VMAF without `--vmaf`).
    fn of(&self, f: &RunFigures) -> Option<f64> {
        let vmaf = f.vmaf.as_ref();
        match self.figure {
            Figure::VmafMean => vmaf.map(|v| v.mean),
            Figure::VmafHarmonicMean => vmaf.map(|v| v.harmonic_mean),
            Figure::VmafMin => vmaf.map(|v| v.min),
            Figure::VmafLow => vmaf.map(|v| v.low),
            Figure::Psnr => Some(f.psnr_avg),
            Figure::PsnrY => Some(f.psnr_y),
            Figure::Ssim => Some(f.ssim_all),
            Figure::SsimY => Some(f.ssim_y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lines::VmafFigures;
    use super::*;

    fn figures() -> RunFigures {
        RunFigures {
            luma: true,
            frames: 10,
            psnr_avg: 41.5,
            psnr_y: 40.25,
            ssim_all: 0.975,
            ssim_y: 0.97,
            vmaf: Some(VmafFigures {
                mean: 92.5,
                harmonic_mean: 92.0,
                min: 71.0,
                low: 71.0,
            }),
        }
    }

    #[test]
    fn limits_fail_on_the_figures_they_name_and_pass_the_rest() {
        let limits = CompareLimits::parse("vmaf<93, VMAF-min<70,psnr<=41.5,ssim-y>=0.99").unwrap();
        assert!(limits.need_vmaf());
        assert_eq!(
            limits.failed(&figures()),
            ["vmaf 92.500000 < 93", "psnr 41.500000 <= 41.5"]
        );
        let no_vmaf = RunFigures {
            vmaf: None,
            ..figures()
        };
        assert_eq!(limits.failed(&no_vmaf), ["psnr 41.500000 <= 41.5"]);
        let infinite = RunFigures {
            psnr_avg: f64::INFINITY,
            ..figures()
        };
        assert!(CompareLimits::parse("psnr<40").unwrap().failed(&infinite).is_empty());
        assert!(!CompareLimits::parse("psnr<40,ssim<0.9").unwrap().need_vmaf());
        // R'G'B' has no luma: a limit on it fails, saying so.
        let rgb = RunFigures {
            luma: false,
            ..figures()
        };
        assert_eq!(
            CompareLimits::parse("psnr-y<30,psnr<30").unwrap().failed(&rgb),
            ["psnr-y: R'G'B' has no luma (limit psnr or ssim)"]
        );
        // SSIM of pictures too small for its windows: not a number, failing either way.
        let unknown = RunFigures {
            ssim_all: f64::NAN,
            ..figures()
        };
        assert_eq!(
            CompareLimits::parse("ssim<0.99,ssim>0.5,psnr<30")
                .unwrap()
                .failed(&unknown),
            [
                "ssim is not a number (limit ssim<0.99)",
                "ssim is not a number (limit ssim>0.5)"
            ]
        );
    }

    #[test]
    fn a_limit_that_is_not_one_says_why() {
        for bad in [
            "vmaf",
            "vmaf<",
            "vmaf=93",
            "vmaf<abc",
            "vmaf<inf",
            "bitrate<3000",
            "<93",
        ] {
            let e = CompareLimits::parse(bad).unwrap_err();
            assert!(e.contains(bad) || e.contains("is not a figure"), "{bad}: {e}");
        }
        assert!(CompareLimits::parse("bitrate<3000").unwrap_err().contains("vmaf-min"));
    }
}
