//! FFmpeg's `idet` (interlace detection, `vf_idet.c`): each frame compared with itself and its
//! neighbours, line by line, to say whether its lines belong to two moments (interlaced, top or
//! bottom field first) or one (progressive), and whether one of its fields repeats the
//! previous frame's (telecine). The per-frame sums come from the GPU pass (`gpu`) or the CPU
//! twin (`cpu`); the decisions, the history that steadies them and the decaying counts are
//! here, as the filter makes them, with its metadata (`lavfi.idet.*`) printed as it prints it.

pub mod cpu;
pub mod gpu;
#[cfg(test)]
mod tests;

/// The filter's options (its names, its defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdetOptions {
    /// `intl_thres`: how much more one field order must explain than the other.
    pub interlace_threshold: f32,
    /// `prog_thres`: how much more the fields must differ than the frame's own lines.
    pub progressive_threshold: f32,
    /// `rep_thres`: how much closer one field must be to the previous frame's.
    pub repeat_threshold: f32,
    /// `half_life`: frames after which a frame's weight in the counts halves (0: never).
    pub half_life: f32,
}

impl Default for IdetOptions {
    fn default() -> Self {
        Self {
            interlace_threshold: 1.04,
            progressive_threshold: 1.5,
            repeat_threshold: 3.0,
            half_life: 0.0,
        }
    }
}

impl IdetOptions {
    /// The options QCTools runs the filter with (`idet=half_life=1`), those of its reports.
    pub const QCTOOLS: IdetOptions = IdetOptions {
        interlace_threshold: 1.04,
        progressive_threshold: 1.5,
        repeat_threshold: 3.0,
        half_life: 1.0,
    };

    /// The options as FFmpeg's filter graph writes them: `key=value` pairs (or values in the
    /// filter's order) separated by `:`, as in `intl_thres=1.1:half_life=1`; an empty text is
    /// the defaults.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let text = text.strip_prefix("idet=").unwrap_or(text);
        let mut options = Self::default();
        let keys = ["intl_thres", "prog_thres", "rep_thres", "half_life"];
        for (position, option) in text.split(':').filter(|o| !o.trim().is_empty()).enumerate() {
            let (key, value) = match option.split_once('=') {
                Some((key, value)) => (key.trim(), value.trim()),
                None => (
                    *keys
                        .get(position)
                        .ok_or_else(|| format!("'{option}': idet takes {} options", keys.len()))?,
                    option.trim(),
                ),
            };
            // (av_opt reads a number as a double and keeps it as the option's float.)
            let number: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("'{value}' is not a number ({key})"))?;
            let (slot, highest) = match key {
                "intl_thres" => (&mut options.interlace_threshold, f64::from(f32::MAX)),
                "prog_thres" => (&mut options.progressive_threshold, f64::from(f32::MAX)),
                "rep_thres" => (&mut options.repeat_threshold, f64::from(f32::MAX)),
                "half_life" => (&mut options.half_life, f64::from(i32::MAX)),
                "analyze_interlaced_flag" => {
                    return Err("idet's analyze_interlaced_flag is not taken here: it judges only the frames flagged interlaced, the first N of them, to correct their flags, where the report judges every frame".into())
                }
                _ => return Err(format!("'{key}' is not an option of idet ({})", keys.join(", "))),
            };
            if !(-1.0..=highest).contains(&number) {
                return Err(format!("{key}={value} is outside -1..{highest}"));
            }
            *slot = number as f32;
        }
        Ok(options)
    }

    /// The filter as FFmpeg's graph writes it, every option given.
    pub fn ffmpeg_filter(&self) -> String {
        format!(
            "idet=intl_thres={}:prog_thres={}:rep_thres={}:half_life={}",
            self.interlace_threshold, self.progressive_threshold, self.repeat_threshold, self.half_life
        )
    }
}

/// The sums a frame's decisions are made from, over every plane's lines 2 to height - 3, each
/// a sum of `|a + c - 2b|` over the line: `alpha[parity]` the frame's lines around line y
/// against the previous frame's line y (parity y's) or the next frame's (the other parity),
/// `delta` against the frame's own line y, `gamma[parity]` the frame's line against the
/// previous frame's (twice their difference).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub alpha: [u64; 2],
    pub delta: u64,
    pub gamma: [u64; 2],
}

/// A frame's scan, as the filter names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scan {
    Tff = 0,
    Bff = 1,
    Progressive = 2,
    Undetermined = 3,
}

impl Scan {
    pub const ALL: [Scan; 4] = [Scan::Tff, Scan::Bff, Scan::Progressive, Scan::Undetermined];

    pub fn name(self) -> &'static str {
        match self {
            Scan::Tff => "tff",
            Scan::Bff => "bff",
            Scan::Progressive => "progressive",
            Scan::Undetermined => "undetermined",
        }
    }

    pub fn is_interlaced(self) -> bool {
        matches!(self, Scan::Tff | Scan::Bff)
    }
}

/// Which of a frame's fields repeats the previous frame's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeated {
    Neither = 0,
    Top = 1,
    Bottom = 2,
}

impl Repeated {
    pub const ALL: [Repeated; 3] = [Repeated::Neither, Repeated::Top, Repeated::Bottom];

    pub fn name(self) -> &'static str {
        match self {
            Repeated::Neither => "neither",
            Repeated::Top => "top",
            Repeated::Bottom => "bottom",
        }
    }
}

/// The filter's fixed point: counts in 2^-20ths.
const PRECISION: u64 = 1 << 20;
/// Decisions the multi-frame one looks back over.
const HISTORY: usize = 4;

/// FFmpeg's `av_rescale`: `a * b / c`, rounded to the nearest, halves up.
fn rescale(a: u64, b: u64, c: u64) -> u64 {
    ((u128::from(a) * u128::from(b) + u128::from(c / 2)) / u128::from(c)) as u64
}

/// One frame's decisions, and the counts after it (decayed, in 2^-20ths of a frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub repeated: Repeated,
    /// The frame alone.
    pub single: Scan,
    /// Steadied by the last frames' (FFmpeg's `last_type`).
    pub multiple: Scan,
    repeats: [u64; 3],
    singles: [u64; 4],
    multiples: [u64; 4],
}

impl Decision {
    /// The metadata the filter sets on the frame, keys and values as ffprobe prints them.
    pub fn tags(&self) -> Vec<(String, String)> {
        let mut tags = Vec::with_capacity(14);
        let mut tag = |key: &str, value: String| tags.push((format!("lavfi.idet.{key}"), value));
        tag("repeated.current_frame", self.repeated.name().into());
        for r in Repeated::ALL {
            tag(&format!("repeated.{}", r.name()), fixed(self.repeats[r as usize]));
        }
        tag("single.current_frame", self.single.name().into());
        for s in Scan::ALL {
            tag(&format!("single.{}", s.name()), fixed(self.singles[s as usize]));
        }
        tag("multiple.current_frame", self.multiple.name().into());
        for s in Scan::ALL {
            tag(&format!("multiple.{}", s.name()), fixed(self.multiples[s as usize]));
        }
        tags
    }

    /// The frame's part of a report's JSON line: the same values, by the same names, numbers
    /// (to the hundredth, as printed).
    pub fn json(&self) -> serde_json::Value {
        let number = |v: u64| serde_json::Value::from(rescale(v, 100, PRECISION) as f64 / 100.0);
        let mut repeated = serde_json::Map::new();
        repeated.insert("current_frame".into(), self.repeated.name().into());
        for r in Repeated::ALL {
            repeated.insert(r.name().into(), number(self.repeats[r as usize]));
        }
        let scans = |current: Scan, counts: &[u64; 4]| {
            let mut map = serde_json::Map::new();
            map.insert("current_frame".into(), current.name().into());
            for s in Scan::ALL {
                map.insert(s.name().into(), number(counts[s as usize]));
            }
            serde_json::Value::Object(map)
        };
        serde_json::json!({
            "repeated": repeated,
            "single": scans(self.single, &self.singles),
            "multiple": scans(self.multiple, &self.multiples),
        })
    }
}

/// `av_dict_set_fxp`'s two digits: the value in hundredths, rounded, as `12.34`.
fn fixed(value: u64) -> String {
    let hundredths = rescale(value, 100, PRECISION);
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// The frames counted by each decision, undecayed (what the filter logs at its end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub repeated: [u64; 3],
    pub single: [u64; 4],
    pub multiple: [u64; 4],
}

impl Totals {
    /// What the content is, by the multi-frame decisions: interlaced (in the order more of
    /// them found) where they found interlacing in more frames than progression, progressive
    /// where the other way, undetermined where neither was found.
    pub fn content(&self) -> Scan {
        let [tff, bff, progressive, _] = self.multiple;
        match (tff + bff, progressive) {
            (0, 0) => Scan::Undetermined,
            (interlaced, progressive) if interlaced > progressive => {
                if bff > tff {
                    Scan::Bff
                } else {
                    Scan::Tff
                }
            }
            _ => Scan::Progressive,
        }
    }
}

/// The filter's state over a stream's frames.
#[derive(Clone, Debug)]
pub struct Idet {
    options: IdetOptions,
    decay: u64,
    last: Scan,
    history: [Scan; HISTORY],
    repeats: [u64; 3],
    singles: [u64; 4],
    multiples: [u64; 4],
    totals: Totals,
}

impl Idet {
    pub fn new(options: IdetOptions) -> Self {
        let decay = if options.half_life > 0.0 {
            // (lrint: to the nearest, halves to even.)
            (PRECISION as f64 * (-1.0 / f64::from(options.half_life)).exp2()).round_ties_even() as u64
        } else {
            PRECISION
        };
        Self {
            options,
            decay,
            last: Scan::Undetermined,
            history: [Scan::Undetermined; HISTORY],
            repeats: [0; 3],
            singles: [0; 4],
            multiples: [0; 4],
            totals: Totals::default(),
        }
    }

    pub fn options(&self) -> IdetOptions {
        self.options
    }

    /// The next frame, from its sums.
    pub fn frame(&mut self, sums: &Sums) -> Decision {
        let o = &self.options;
        // The filter compares its 64-bit sums with float products, in float.
        let f = |v: u64| v as f32;
        let [a0, a1] = sums.alpha.map(f);
        let single = if a0 > o.interlace_threshold * a1 {
            Scan::Tff
        } else if a1 > o.interlace_threshold * a0 {
            Scan::Bff
        } else if a1 > o.progressive_threshold * f(sums.delta) {
            Scan::Progressive
        } else {
            Scan::Undetermined
        };
        let [g0, g1] = sums.gamma.map(f);
        let repeated = if g0 > o.repeat_threshold * g1 {
            Repeated::Top
        } else if g1 > o.repeat_threshold * g0 {
            Repeated::Bottom
        } else {
            Repeated::Neither
        };
        self.history.rotate_right(1);
        self.history[0] = single;
        // The decisions since the last undetermined stretch that all agree with the latest.
        let mut best = Scan::Undetermined;
        let mut matching = 0;
        for &scan in self.history.iter().filter(|&&s| s != Scan::Undetermined) {
            if best == Scan::Undetermined {
                best = scan;
            }
            if scan == best {
                matching += 1;
            } else {
                matching = 0;
                break;
            }
        }
        if (self.last == Scan::Undetermined && matching > 0) || matching > 2 {
            self.last = best;
        }
        let decay = |v: &mut u64| *v = rescale(*v, self.decay, PRECISION);
        self.repeats.iter_mut().for_each(decay);
        self.singles.iter_mut().for_each(decay);
        self.multiples.iter_mut().for_each(decay);
        self.repeats[repeated as usize] += PRECISION;
        self.singles[single as usize] += PRECISION;
        self.multiples[self.last as usize] += PRECISION;
        self.totals.repeated[repeated as usize] += 1;
        self.totals.single[single as usize] += 1;
        self.totals.multiple[self.last as usize] += 1;
        Decision {
            repeated,
            single,
            multiple: self.last,
            repeats: self.repeats,
            singles: self.singles,
            multiples: self.multiples,
        }
    }

    pub fn totals(&self) -> Totals {
        self.totals
    }
}
