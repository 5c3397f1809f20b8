//! qct-parse's broadcast profiles (`default`, `highTolerance`, `midTolerance`, `lowTolerance`),
//! their 8-bit levels and the limits they make at a stream's depth.

use super::{Limit, Op};
use crate::signalstats::{format, NAMES};

/// A named set of limits, as qct-parse's profiles give them at 8 bits: the stat, and the level
/// a frame fails below (`MIN` and `LOW` stats) or above (the others).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    levels: &'static [(&'static str, f64)],
}

/// The saturation every profile limits: beyond what legal colours reach, at 8 bits (in code
/// values, as signalstats measures it at the stream's depth: scaled as the levels are).
const SATURATION: (&str, f64) = ("SATMAX", 181.02);
/// Fractions every profile limits, at any depth: temporal outliers and repeated lines.
const FRACTIONS: [(&str, f64); 2] = [("TOUT", 0.009), ("VREP", 0.03)];

/// qct-parse's profiles (its 8-bit configuration; the 10-bit one is the same levels scaled).
pub const PROFILES: [Profile; 4] = [
    Profile {
        name: "default",
        levels: &[
            ("YLOW", 16.0),
            ("YHIGH", 235.0),
            ("ULOW", 16.0),
            ("UHIGH", 235.0),
            ("VLOW", 0.0),
            ("VHIGH", 255.0),
        ],
    },
    Profile {
        name: "highTolerance",
        levels: &[
            ("YLOW", 10.0),
            ("YMAX", 250.0),
            ("UMIN", 16.0),
            ("UMAX", 250.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
    Profile {
        name: "midTolerance",
        levels: &[
            ("YLOW", 10.0),
            ("YMAX", 245.0),
            ("UMIN", 16.0),
            ("UMAX", 245.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
    Profile {
        name: "lowTolerance",
        levels: &[
            ("YLOW", 16.0),
            ("YMAX", 235.0),
            ("UMIN", 16.0),
            ("UMAX", 235.0),
            ("VMIN", 0.0),
            ("VMAX", 255.0),
        ],
    },
];

impl Profile {
    /// The profile called `name` (any case); `broadcast` is `default`.
    pub fn named(name: &str) -> Option<Profile> {
        let name = if name.eq_ignore_ascii_case("broadcast") {
            "default"
        } else {
            name
        };
        PROFILES.into_iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Its limits for a stream of `bits` per sample: code levels scaled by 2^(bits-8), the
    /// 8-bit maximum 255 becoming 2^bits-1 (qct-parse's 10-bit levels: 64, 940, 1000, 1023);
    /// saturation scaled alike (724.08 at 10 bits: qct-parse's 10-bit configuration keeps
    /// 181.02, which fails any colour of more than a quarter of the legal saturation), the
    /// fractions as they are.
    pub fn limits(&self, bits: u32) -> Vec<Limit> {
        let scale = f64::from(1u32 << bits.saturating_sub(8).min(16));
        let top = f64::from((1u32 << bits.min(16)) - 1);
        let code = |v: f64| if v == 255.0 { top } else { v * scale };
        let levels = self
            .levels
            .iter()
            .chain([&SATURATION])
            .map(|&(name, v)| (name, code(v)));
        levels
            .chain(FRACTIONS)
            .map(|(name, value)| {
                let stat = NAMES.iter().position(|n| *n == name).expect("a statistic's name");
                let op = if name.contains("MIN") || name.contains("LOW") {
                    Op::Below
                } else {
                    Op::Above
                };
                let sign = if op == Op::Below { '<' } else { '>' };
                Limit {
                    text: format!("{name}{sign}{} ({})", format::g(value), self.name),
                    stat,
                    op,
                    value,
                }
            })
            .collect()
    }
}
