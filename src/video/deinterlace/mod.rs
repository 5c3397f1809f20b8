//! Deinterlacing, the step of video in between a frame's planes and their conversion: FFmpeg's
//! `bwdif` (the default) and `yadif`, equal to them sample for sample, one frame out for each
//! frame in (`send_frame`) or one for each field (`send_field`, double rate). Both work on the
//! planes as decoded, each plane a picture of its own, and keep one field of the frame while
//! making the other's lines from the frames before and after.
//!
//! `Sequence` is FFmpeg's order of work (`yadif_common.c`): which frames each output is made
//! from, which field it keeps, and where the first and last fields of a run are made from the
//! frame alone. `cpu` is the filters' arithmetic line for line; `gpu` is the pass, checked
//! against it.

pub mod cpu;
pub mod gpu;
pub mod kept;
#[cfg(test)]
mod tests;

use crate::video::source::Fields;

/// Which filter makes the missing field's lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// FFmpeg's `bwdif`: the BBC's three-field filter with yadif's limits.
    #[default]
    Bwdif,
    /// FFmpeg's `yadif`: an edge-directed spatial guess kept within the temporal neighbours.
    Yadif,
}

impl Method {
    /// FFmpeg's name of the filter.
    pub fn name(self) -> &'static str {
        match self {
            Method::Bwdif => "bwdif",
            Method::Yadif => "yadif",
        }
    }
}

/// How many frames come out (FFmpeg's `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rate {
    /// One frame for each frame (`send_frame`).
    #[default]
    Frame,
    /// One frame for each field (`send_field`): 50i comes out as 50p.
    Field,
}

/// Which field comes first in time (FFmpeg's `parity`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Parity {
    /// As each frame is flagged; top first where it is flagged progressive.
    #[default]
    Auto,
    Tff,
    Bff,
}

/// A deinterlacer as FFmpeg's options set one: `bwdif`, `yadif=mode=send_field:parity=tff`,
/// `bwdif=1:0:1` (mode, parity, deint by position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deinterlacer {
    pub method: Method,
    pub rate: Rate,
    pub parity: Parity,
    /// Only frames flagged interlaced (FFmpeg's `deint=interlaced`; `--deinterlace auto`);
    /// the others pass as they are.
    pub only_interlaced: bool,
    /// yadif's and bwdif's spatial interlacing check left out (yadif's `send_*_nospatial`).
    pub no_spatial_check: bool,
}

impl std::str::FromStr for Deinterlacer {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (name, options) = s.split_once('=').unwrap_or((s, ""));
        let method = match name.trim() {
            "bwdif" => Method::Bwdif,
            "yadif" => Method::Yadif,
            other => return Err(format!("'{other}' is not a deinterlacer (bwdif or yadif)")),
        };
        // FFmpeg's defaults: bwdif a picture for each field, yadif one for each frame.
        let mut filter = Self {
            method,
            rate: match method {
                Method::Bwdif => Rate::Field,
                Method::Yadif => Rate::Frame,
            },
            ..Self::default()
        };
        let keys = ["mode", "parity", "deint"];
        for (position, option) in options.split(':').filter(|o| !o.is_empty()).enumerate() {
            let (key, value) = match option.split_once('=') {
                Some((key, value)) => (key.trim(), value.trim()),
                None => (
                    *keys
                        .get(position)
                        .ok_or_else(|| format!("'{option}': too many options"))?,
                    option.trim(),
                ),
            };
            filter.set(key, value)?;
        }
        Ok(filter)
    }
}

/// An integer option's value: a constant's name (`names`, in order of value, the first's and
/// the last's the option's range), or a number in that range as FFmpeg's options read one
/// (`option_number::number`: decimal, hexadecimal or decibels, not expressions), rounded to
/// the nearest integer, ties to even, as FFmpeg rounds one (`llrint`).
fn option_value(key: &str, value: &str, names: &[(&str, i64)]) -> Result<i64, String> {
    if let Some(&(_, n)) = names.iter().find(|(name, _)| *name == value) {
        return Ok(n);
    }
    let not_a_value = || {
        let names: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
        format!("'{value}' is not a value of {key} ({})", names.join(", "))
    };
    let number = crate::option_number::number(value).map_err(|_| not_a_value())?;
    let min = names.first().map_or(0, |&(_, n)| n);
    let max = names.last().map_or(0, |&(_, n)| n);
    if !(min as f64..=max as f64).contains(&number) {
        return Err(format!("{key}={value} is out of its range [{min} - {max}]"));
    }
    Ok(number.round_ties_even() as i64)
}

impl Deinterlacer {
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "mode" => {
                // bwdif has only the first two of yadif's modes.
                let modes: &[(&str, i64)] = match self.method {
                    Method::Bwdif => &[("send_frame", 0), ("send_field", 1)],
                    Method::Yadif => &[
                        ("send_frame", 0),
                        ("send_field", 1),
                        ("send_frame_nospatial", 2),
                        ("send_field_nospatial", 3),
                    ],
                };
                let mode = option_value(key, value, modes)?;
                self.rate = if mode % 2 == 1 { Rate::Field } else { Rate::Frame };
                self.no_spatial_check = mode >= 2;
            }
            "parity" => {
                self.parity = match option_value(key, value, &[("auto", -1), ("tff", 0), ("bff", 1)])? {
                    -1 => Parity::Auto,
                    0 => Parity::Tff,
                    _ => Parity::Bff, // 1, the range's last
                }
            }
            "deint" => self.only_interlaced = option_value(key, value, &[("all", 0), ("interlaced", 1)])? == 1,
            _ => {
                return Err(format!(
                    "'{key}' is not an option of the deinterlacer (mode, parity, deint)"
                ))
            }
        }
        Ok(())
    }

    /// Frames too small for the filter, refused in FFmpeg's words: bwdif's under 3 columns or
    /// 4 lines in any plane, yadif's under 3 of either.
    pub fn check_size(&self, format: &crate::video::format::FrameFormat) -> Result<(), String> {
        let (name, refused, limit) = match self.method {
            Method::Bwdif => (
                "bwdif",
                cpu::PlaneGeometry::of(format)
                    .iter()
                    .any(|p| p.width < 3 || p.height < 4),
                "with planes less than 3 columns or 4 lines",
            ),
            Method::Yadif => (
                "yadif",
                format.width < 3 || format.height < 3,
                "of less than 3 columns or lines",
            ),
        };
        match refused {
            true => Err(format!(
                "{}x{} frames are too small for {name}: FFmpeg's refuses video {limit}",
                format.width, format.height
            )),
            false => Ok(()),
        }
    }

    /// FFmpeg's method, mode, parity and deint, comma-separated: `bwdif,send_field,auto,all`
    /// (the frame log's).
    pub fn log_name(&self) -> String {
        let [name, mode, parity, deint] = self.names();
        format!("{name},{mode},{parity},{deint}")
    }

    /// The filter as FFmpeg writes it (`bwdif=mode=send_field:parity=auto:deint=all`).
    pub fn ffmpeg_filter(&self) -> String {
        let [name, mode, parity, deint] = self.names();
        format!("{name}=mode={mode}:parity={parity}:deint={deint}")
    }

    /// FFmpeg's names of the method, mode, parity and deint.
    pub fn names(&self) -> [&'static str; 4] {
        let name = match self.method {
            Method::Bwdif => "bwdif",
            Method::Yadif => "yadif",
        };
        let mode = match (self.rate, self.no_spatial_check) {
            (Rate::Frame, false) => "send_frame",
            (Rate::Field, false) => "send_field",
            (Rate::Frame, true) => "send_frame_nospatial",
            (Rate::Field, true) => "send_field_nospatial",
        };
        let parity = match self.parity {
            Parity::Auto => "auto",
            Parity::Tff => "tff",
            Parity::Bff => "bff",
        };
        let deint = if self.only_interlaced { "interlaced" } else { "all" };
        [name, mode, parity, deint]
    }
}

/// A frame's field: its even lines (top) or its odd ones (bottom), counted from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Top = 0,
    Bottom = 1,
}

impl Field {
    pub const BOTH: [Field; 2] = [Field::Top, Field::Bottom];

    pub fn name(self) -> &'static str {
        match self {
            Field::Top => "top",
            Field::Bottom => "bottom",
        }
    }

    /// The field a frame flagged `fields` shows first, as FFmpeg's deinterlacers take it
    /// (`parity=auto`): the top where it is progressive or flagged top field first.
    pub fn first_of(fields: Fields) -> Field {
        match !fields.interlaced || fields.top_first {
            true => Field::Top,
            false => Field::Bottom,
        }
    }
}

/// One field made: which lines are kept and where the others come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldJob {
    /// Lines `y` with `(y ^ parity) & 1 == 1` are made; the others are the frame's own.
    pub parity: u32,
    /// Whether the frame's top field is the earlier (the filters' `tff`).
    pub tff: bool,
    /// The first field of a run, or the last: bwdif makes it from the frame alone (FFmpeg's
    /// `YADIF_FIELD_END`); yadif makes every field alike.
    pub edge: bool,
}

impl FieldJob {
    /// The filters' `parity ^ tff`: whether the field made lies between the previous frame and
    /// this one (1) or between this one and the next (0).
    pub fn order(self) -> u32 {
        self.parity ^ u32::from(self.tff)
    }
}

/// One picture out of the deinterlacer: frame `cur` with one field made from frames `prev`,
/// `cur` and `next` (which are `cur` again at a run's ends), or `cur` as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    pub prev: u64,
    pub cur: u64,
    pub next: u64,
    /// None: `cur` passes as it is (flagged progressive, `deint=interlaced`).
    pub field: Option<FieldJob>,
    /// The second picture of `cur` (field rate).
    pub second: bool,
    /// The time, in half the stream's time base (FFmpeg's output time base), if known.
    pub pts: Option<i64>,
}

impl Output {
    /// The picture's number, `cur` being frame `frame`: the frame's, or at field rate 2K and
    /// 2K + 1 for frame K's fields.
    pub fn number(&self, frame: u64, rate: Rate) -> u64 {
        match rate {
            Rate::Frame => frame,
            Rate::Field => 2 * frame + u64::from(self.second),
        }
    }

    /// The picture's time, `cur` being at `seconds` (pts `pts` in `time_base`): the frame's,
    /// or for its second field half way to the next (in half ticks: cur + next, against the
    /// frame's 2 cur).
    pub fn seconds(&self, seconds: f64, pts: i64, (num, den): (i32, i32)) -> f64 {
        match self.pts {
            // (To the nanosecond: the sum's last bit would print 0.14 as 0.13999999999999999.)
            Some(half) if self.second => {
                let at = seconds + (half - 2 * pts) as f64 * f64::from(num) / (2.0 * f64::from(den));
                (at * 1e9).round() / 1e9
            }
            _ => seconds,
        }
    }
}

/// A frame the sequence holds: its number, time and flags.
#[derive(Clone, Copy, Debug)]
struct Held {
    id: u64,
    pts: Option<i64>,
    fields: Fields,
}

/// FFmpeg's order of deinterlacing work (`ff_yadif_filter_frame`, `ff_yadif_request_frame`):
/// frames go in as decoded, with their flags; each frame's pictures come out once the frame
/// after it is in (`push`), the last one's when the stream ends (`finish`).
#[derive(Clone, Debug)]
pub struct Sequence {
    filter: Deinterlacer,
    prev: Option<Held>,
    cur: Option<Held>,
    next: Option<Held>,
    /// The next field made is a run's first (or last): FFmpeg's `current_field` at
    /// `YADIF_FIELD_END`.
    edge: bool,
    /// Every frame passes as it is (no deinterlacing: the frames go by with their neighbours,
    /// for the stages that read them).
    pass_all: bool,
}

impl Sequence {
    pub fn new(filter: Deinterlacer) -> Self {
        Self {
            filter,
            prev: None,
            cur: None,
            next: None,
            edge: false,
            pass_all: false,
        }
    }

    /// A sequence that makes no field: each frame comes out as it is, a frame late, with the
    /// frames before and after it (as FFmpeg's idet takes them).
    pub fn passing() -> Self {
        Self {
            pass_all: true,
            ..Self::new(Deinterlacer::default())
        }
    }

    pub fn filter(&self) -> Deinterlacer {
        self.filter
    }

    /// Frame `id` (time `pts` in the stream's time base, flagged `fields`) in: the pictures of
    /// the frame before it out, none for the first frame.
    pub fn push(&mut self, id: u64, pts: Option<i64>, fields: Fields) -> Vec<Output> {
        self.prev = self.cur.take();
        self.cur = self.next.take();
        self.next = Some(Held { id, pts, fields });
        if self.cur.is_none() {
            self.cur = self.next;
            self.edge = true;
            return Vec::new();
        }
        self.pictures(false)
    }

    /// The stream ended: the last frame's pictures, made with itself as the frame after it.
    pub fn finish(&mut self) -> Vec<Output> {
        let Some(next) = self.next else {
            return Vec::new();
        };
        self.prev = self.cur.take();
        self.cur = Some(next);
        // The frame after the last is the last again, a frame's time later.
        let pts = match (self.prev.and_then(|p| p.pts), next.pts) {
            (Some(before), Some(last)) => Some(2 * last - before),
            _ => None,
        };
        self.next = Some(Held { pts, ..next });
        self.prev.get_or_insert(next);
        // FFmpeg's `YADIF_FIELD_BACK_END`: the last frame's first field is made as any other,
        // its second from the frame alone.
        self.edge = false;
        let pictures = self.pictures(true);
        self.next = None;
        pictures
    }

    /// The pictures of `cur`, between `prev` and `next`.
    fn pictures(&mut self, last: bool) -> Vec<Output> {
        let (prev, cur, next) = match (self.prev, self.cur, self.next) {
            (Some(p), Some(c), Some(n)) => (p, c, n),
            _ => return Vec::new(),
        };
        let filter = self.filter;
        let pts = cur.pts.map(|p| p * 2);
        // Progressive frames pass under `deint=interlaced`, and beside a repeated field.
        let only = filter.only_interlaced;
        if self.pass_all
            || only
                && (!cur.fields.interlaced
                    || (!prev.fields.interlaced && prev.fields.repeated)
                    || (!next.fields.interlaced && next.fields.repeated))
        {
            return vec![Output {
                prev: prev.id,
                cur: cur.id,
                next: next.id,
                field: None,
                second: false,
                pts,
            }];
        }
        let tff = match filter.parity {
            Parity::Auto => Field::first_of(cur.fields) == Field::Top,
            Parity::Tff => true,
            Parity::Bff => false,
        };
        let first = FieldJob {
            parity: u32::from(!tff),
            tff,
            edge: self.edge,
        };
        self.edge = false;
        let mut out = vec![Output {
            prev: prev.id,
            cur: cur.id,
            next: next.id,
            field: Some(first),
            second: false,
            pts,
        }];
        if filter.rate == Rate::Field {
            out.push(Output {
                field: Some(FieldJob {
                    parity: u32::from(tff),
                    tff,
                    edge: last,
                }),
                second: true,
                pts: cur.pts.zip(next.pts).map(|(c, n)| c + n),
                ..out[0]
            });
        }
        out
    }
}
