//! Following each cell of the grid over time: its luminance (cd/m²) and its red from peak to
//! valley, a transition counted once an excursion has changed by the standard's step (20 cd/m²
//! where the darker state is under 160; for HDR above that, 1/17 Michelson contrast; red: more
//! than 20 in (R - G - B) x 320, the Harding-Binnie measure; for WCAG, 2.2's chromaticity measure
//! in `red`), and the transitions of the last
//! second kept. A frame's flash count is the most transitions in that second that more than the
//! standard's area shares, halved: more than 3 fails, 2 to 3 warns, and under Ofcom's rule
//! warnings on 80% of the frames of the last 5 s fail as extended flashing.

use super::coverage::{Coverage, Moved, WHOLE};
use super::light::{is_change, Grid, SDR_WHITE, UNITS_PER_NIT};
use super::patterns::{PatternVerdict, Patterns, PERSISTENCE};
use super::red::{RedState, RedTrack};
use super::{FrameLight, Standard};
use crate::colour::primaries::{rgb_to_display_xyz, Primaries};
use std::collections::VecDeque;

/// A red transition changes (R - G - B) x 320 (R, G, B relative to white) by more than this.
pub const RED_STEP: f64 = 20.0;
/// Transitions in a second over the area that fail (more than 3 flashes) and warn (2 or more).
pub const FAIL_TRANSITIONS: usize = 7;
pub const WARN_TRANSITIONS: usize = 4;
/// The share of the area (of the screen, or of any 10° field for WCAG).
pub const AREA_SHARE: f64 = 0.25;
/// Ofcom's extended flashing: warnings on this share of the frames of the last `EXTENDED_SECONDS`.
pub const EXTENDED_SHARE: f64 = 0.8;
pub const EXTENDED_SECONDS: f64 = 5.0;

/// One cell's value over time, from peak to valley.
#[derive(Clone, Copy, Debug, Default)]
struct Track {
    last: Option<f64>,
    /// Where the excursion going on began, which way it goes, and whether it has counted.
    extreme: f64,
    direction: i8,
    counted: bool,
    /// A second value carried beside the one followed: the last, and at the extreme.
    last_beside: f64,
    extreme_beside: f64,
    /// The value moved at the frame taken last.
    moved: bool,
}

impl Track {
    /// The value next; whether a transition completed there.
    fn take(&mut self, value: f64, is_transition: impl Fn(f64, f64) -> bool) -> bool {
        self.take_beside(value, 0.0, |from, to| is_transition(from[0], to[0]))
    }

    /// `take`, with a value `beside` it (peaks and valleys are the first's) that
    /// `is_transition` is given too: `[value, beside]` at the extreme, then now.
    fn take_beside(&mut self, value: f64, beside: f64, is_transition: impl Fn([f64; 2], [f64; 2]) -> bool) -> bool {
        let before = std::mem::replace(&mut self.last_beside, beside);
        let Some(previous) = self.last.replace(value) else {
            (self.extreme, self.extreme_beside) = (value, beside);
            return false;
        };
        let sign = match value - previous {
            d if d > 1e-9 => 1,
            d if d < -1e-9 => -1,
            _ => 0,
        };
        self.moved = sign != 0;
        if sign != 0 && self.direction != 0 && sign != self.direction {
            // A turn: the new excursion starts at the peak (or valley) just passed.
            (self.extreme, self.extreme_beside, self.counted) = (previous, before, false);
        }
        if sign != 0 {
            self.direction = sign;
        }
        // (A flat step goes on with the excursion: the value beside it may have moved.)
        if self.direction != 0 && !self.counted && is_transition([self.extreme, self.extreme_beside], [value, beside]) {
            self.counted = true;
            return true;
        }
        false
    }

    /// The excursion going on, where it moved on at the frame taken last and has not
    /// counted: its change so far, signed.
    fn excursion(&self) -> Option<f64> {
        let last = self.last?;
        (self.moved && !self.counted && self.direction != 0).then_some(last - self.extreme)
    }
}

/// The transitions of the last second of every cell of one kind: the cells that made one at
/// each frame of it and how much of the cell each covered (`coverage`), and each cell's count
/// and summed weights (kept together, not a queue a cell: the frame's work reads them in
/// order).
#[derive(Clone, Debug, Default)]
struct Recent {
    frames: VecDeque<(f64, Vec<(u32, u32)>)>,
    counts: Vec<u32>,
    weights: Vec<u64>,
}

impl Recent {
    fn new(cells: usize) -> Self {
        Self {
            frames: VecDeque::new(),
            counts: vec![0; cells],
            weights: vec![0; cells],
        }
    }

    /// A frame at `time` begins: the transitions a second or more before it go.
    fn advance(&mut self, time: f64) {
        while self.frames.front().is_some_and(|&(t, _)| t <= time - 1.0 + 1e-6) {
            let (_, cells) = self.frames.pop_front().expect("a frame");
            for &(cell, weight) in &cells {
                self.counts[cell as usize] -= 1;
                self.weights[cell as usize] -= u64::from(weight);
            }
        }
        // (The frame's own list, made when its first transition comes.)
    }

    /// Cell `cell` made a transition at `time`, the frame begun last, covering `weight` of it
    /// (in `WHOLE`s).
    fn add(&mut self, cell: usize, time: f64, weight: u32) {
        self.counts[cell] += 1;
        self.weights[cell] += u64::from(weight);
        match self.frames.back_mut() {
            Some((t, cells)) if *t == time => cells.push((cell as u32, weight)),
            _ => self.frames.push_back((time, vec![(cell as u32, weight)])),
        }
    }

    /// Cell `cell`'s pixels that flashed, of its `pixels`: as many as its transitions in the
    /// second covered on average.
    fn flashed(&self, cell: usize, pixels: u64) -> u64 {
        match self.counts[cell] {
            0 => pixels,
            n => pixels * self.weights[cell] / (u64::from(n) * u64::from(WHOLE)),
        }
    }
}

/// One frame's findings.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameVerdict {
    pub time: f64,
    /// The share of the screen that made a luminance (red) transition at this frame.
    pub flash: f64,
    pub red_flash: f64,
    /// Flashes in the second up to this frame over the standard's area (transitions halved).
    pub flashes: f64,
    pub red_flashes: f64,
    /// The share of the area that flashed more than 3 times in that second (WCAG: of the worst
    /// 10° field).
    pub area: f64,
    pub red_area: f64,
    /// Ofcom's extended flashing: warnings on 80% of the last 5 s.
    pub extended: bool,
    /// The worst regular pattern (none for WCAG, which has no rule for them).
    pub pattern: PatternVerdict,
    pub state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Pass,
    Warn,
    Fail,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Pass => "pass",
            State::Warn => "warn",
            State::Fail => "fail",
        }
    }
}

/// A run of failing frames of one kind.
#[derive(Clone, Debug, PartialEq)]
pub struct PseFailure {
    pub kind: &'static str,
    pub start: f64,
    pub end: f64,
    pub frames: (u64, u64),
    /// The most flashes in a second over the area during the run (for a pattern, the most
    /// light-dark pairs).
    pub worst: f64,
}

/// The analysis's end.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub standard: Standard,
    pub frames: u64,
    pub failures: Vec<PseFailure>,
}

impl Summary {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// `{"verdict":"pass","standard":"bt1702","frames":N,"failures":[...]}`.
    pub fn json(&self) -> String {
        let failures: Vec<String> = self
            .failures
            .iter()
            .map(|f| {
                format!(
                    "{{\"kind\":\"{}\",\"start\":{},\"end\":{},\"frames\":[{},{}],\"worst\":{}}}",
                    f.kind,
                    serde_json::Value::from(f.start),
                    serde_json::Value::from(f.end),
                    f.frames.0,
                    f.frames.1,
                    serde_json::Value::from(f.worst)
                )
            })
            .collect();
        format!(
            "{{\"verdict\":\"{}\",\"standard\":\"{}\",\"frames\":{},\"failures\":[{}]}}",
            if self.passed() { "pass" } else { "fail" },
            self.standard.name(),
            self.frames,
            failures.join(",")
        )
    }
}

/// The analysis of one stream.
pub struct Analysis {
    standard: Standard,
    hdr: bool,
    grid: Grid,
    pixels: Vec<u64>,
    counts: [Vec<usize>; 2],
    /// Each cell's pixels that flashed in luminance transitions (`Recent::flashed`).
    flashed: Vec<u64>,
    /// The frame's luminance moves, and their transitions weighed by what they covered.
    coverage: Coverage,
    moved: Vec<Moved>,
    weighed: Vec<(u32, u32)>,
    /// WCAG's fields: the summed-area table of the cells' pixels (empty for the others).
    all_areas: Vec<u64>,
    total: u64,
    luminance: Vec<Track>,
    red: Vec<Track>,
    /// Their transitions of the last second.
    transitions: [Recent; 2],
    /// WCAG's red, by chromaticity (WCAG 2.2), and the primaries' RGB → XYZ.
    chroma: Vec<RedTrack>,
    rgb_to_xyz: [[f64; 3]; 3],
    /// The frames of the last 5 s: their time and whether they warned.
    recent: VecDeque<(f64, bool)>,
    first_time: Option<f64>,
    frames: u64,
    /// The run of each kind going on, and the failures ended.
    open: [Option<PseFailure>; 4],
    failures: Vec<PseFailure>,
    last: Option<(u64, f64)>,
    frame_duration: f64,
    patterns: Option<Patterns>,
    /// The first frame of the hazardous pattern going on.
    pattern_since: Option<(u64, f64)>,
}

const KINDS: [&str; 4] = ["general-flash", "red-flash", "extended", "pattern"];

/// The summed-area table of `value` over the grid's cells ((columns + 1) x (rows + 1), a zero
/// row and column first): any rectangle's sum from four of its entries.
fn summed_areas(grid: &Grid, value: impl Fn(usize) -> u64) -> Vec<u64> {
    let (columns, rows) = (grid.columns as usize, grid.rows as usize);
    let mut table = vec![0u64; (columns + 1) * (rows + 1)];
    for r in 0..rows {
        for c in 0..columns {
            let (at, up) = ((r + 1) * (columns + 1) + c + 1, r * (columns + 1) + c + 1);
            table[at] = value(r * columns + c) + table[up] + table[at - 1] - table[up - 1];
        }
    }
    table
}

impl Analysis {
    pub fn new(standard: Standard, hdr: bool, primaries: Primaries, grid: Grid, frame_duration: f64) -> Self {
        let pixels: Vec<u64> = (0..grid.cells()).map(|i| grid.pixels(i)).collect();
        let all_areas = match standard {
            Standard::Wcag => summed_areas(&grid, |i| pixels[i]),
            _ => Vec::new(),
        };
        Self {
            counts: Default::default(),
            flashed: Default::default(),
            coverage: Coverage::default(),
            moved: Vec::with_capacity(grid.cells()),
            weighed: Vec::new(),
            all_areas,
            standard,
            hdr,
            total: pixels.iter().sum::<u64>().max(1),
            pixels,
            luminance: vec![Track::default(); grid.cells()],
            transitions: [Recent::new(grid.cells()), Recent::new(grid.cells())],
            // (Each standard follows its one measure of red.)
            red: vec![Track::default(); if standard == Standard::Wcag { 0 } else { grid.cells() }],
            chroma: vec![RedTrack::default(); if standard == Standard::Wcag { grid.cells() } else { 0 }],
            // (The light as the screen shows it, its white adapted to D65, as its luminance.)
            rgb_to_xyz: rgb_to_display_xyz(primaries),
            grid,
            recent: VecDeque::new(),
            first_time: None,
            frames: 0,
            open: [None, None, None, None],
            failures: Vec::new(),
            last: None,
            frame_duration: frame_duration.max(0.0),
            patterns: (standard != Standard::Wcag).then(|| Patterns::new(grid, hdr)),
            pattern_since: None,
        }
    }

    /// The pattern analysis, taken out to run beside the flashes' on a thread of its own: its
    /// verdicts then go to `frame_with_pattern`, frame by frame.
    pub fn take_patterns(&mut self) -> Option<Patterns> {
        self.patterns.take()
    }

    /// One frame: its number, time, and its light (each cell's two sums, each block's stripes).
    pub fn frame(&mut self, index: u64, time: f64, light: &FrameLight) -> FrameVerdict {
        let pattern = self.patterns.as_mut().map(|patterns| patterns.frame(time, light));
        self.frame_with_pattern(index, time, light, || pattern)
    }

    /// `frame`, with the frame's pattern verdict made elsewhere (`take_patterns`; none for
    /// WCAG, which has no rule for patterns): `pattern` gives it once the flashes are followed.
    pub fn frame_with_pattern(
        &mut self,
        index: u64,
        time: f64,
        light: &FrameLight,
        pattern: impl FnOnce() -> Option<PatternVerdict>,
    ) -> FrameVerdict {
        let cells = &light.cells[..];
        self.frames += 1;
        self.first_time.get_or_insert(time);
        let hdr = self.hdr;
        let mut flashing = [0u64; 2];
        // (Each cell's transitions in the last second, general then red: kept between frames.)
        let mut counts = std::mem::take(&mut self.counts);
        counts.iter_mut().for_each(Vec::clear);
        self.transitions.iter_mut().for_each(|r| r.advance(time));
        let mut moved = std::mem::take(&mut self.moved);
        moved.clear();
        for (i, cell) in cells.iter().enumerate() {
            let n = (self.pixels[i] * u64::from(UNITS_PER_NIT)) as f64;
            let luminance = f64::from(cell[0]) / n;
            let track = &mut self.luminance[i];
            moved.push(match track.take(luminance, |a, b| is_change(hdr, a, b)) {
                true => Moved::Transition(luminance - track.extreme),
                false => track.excursion().map_or(Moved::Still, Moved::Excursion),
            });
            // WCAG 2.2's red by chromaticity; the others' by the Harding-Binnie measure,
            // (R - G - B) relative to white, x 320.
            let (red_transition, red_count) = match self.standard {
                Standard::Wcag => {
                    let track = &mut self.chroma[i];
                    let state = RedState::of(cell, self.pixels[i], &self.rgb_to_xyz);
                    (track.take(state, time), track.times.len())
                }
                _ => {
                    // (Most cells have no saturated red: their 0 without the divisions.)
                    let scale = |sum: f64| sum / n / SDR_WHITE * 320.0;
                    let red = match cell[1] {
                        0 => 0.0,
                        sum => scale(f64::from(sum)),
                    };
                    // The change must be one of R - G - B itself, not only of the share of
                    // the light that is saturated red: a red going from 81% of the light to
                    // 79% leaves the saturated red, but R - G - B hardly changes.
                    let excess = scale(f64::from(cell[2]) - f64::from(cell[3]) - f64::from(cell[4]));
                    let transition = self.red[i].take_beside(red, excess, |from, to| {
                        (from[0] - to[0]).abs() > RED_STEP && (from[1] - to[1]).abs() > RED_STEP
                    });
                    if transition {
                        self.transitions[1].add(i, time, WHOLE);
                    }
                    (transition, self.transitions[1].counts[i] as usize)
                }
            };
            if red_transition {
                flashing[1] += self.pixels[i];
            }
            counts[1].push(red_count);
        }
        // The luminance transitions weighed by the share of their cells they covered; the
        // cells beside them whose light moved with them short of the step count theirs too.
        let mut weighed = std::mem::take(&mut self.weighed);
        // (A cell beside a transition counts as its edge only where its light is what a share
        // f of the neighbour's flash, from L to L', over a still picture B would make of it:
        // from f L + (1 - f) B, B within the display's light. Not a cell whose own change the
        // standard exempts beside one it does not: a checkerboard's squares over 160 cd/m².)
        let (luminance, peak) = (&self.luminance, if hdr { 10000.0 } else { SDR_WHITE });
        let qualifies = |k: usize, from: usize| {
            let (cell, edge) = (&luminance[k], &luminance[from]);
            let (Some(now), Some(edge_now)) = (cell.last, edge.last) else {
                return false;
            };
            let f = (now - cell.extreme) / (edge_now - edge.extreme);
            let still = (cell.extreme - f * edge.extreme) / (1.0 - f);
            f < 0.95 && (-0.05 * peak..=1.05 * peak).contains(&still)
        };
        self.coverage.weigh(&self.grid, |i| moved[i], qualifies, &mut weighed);
        for &(cell, weight) in &weighed {
            let cell = cell as usize;
            if let Moved::Excursion(_) = moved[cell] {
                self.luminance[cell].counted = true;
            }
            self.transitions[0].add(cell, time, weight);
            flashing[0] += self.pixels[cell] * u64::from(weight) / u64::from(WHOLE);
        }
        (self.weighed, self.moved) = (weighed, moved);
        counts[0].extend(self.transitions[0].counts.iter().map(|&c| c as usize));
        // (Red transitions count their cells whole.)
        let mut flashed = std::mem::take(&mut self.flashed);
        flashed.clear();
        let luminance = &self.transitions[0];
        flashed.extend(self.pixels.iter().enumerate().map(|(i, &p)| luminance.flashed(i, p)));
        let (transitions, area) = self.reach(&counts[0], &flashed);
        let (red_transitions, red_area) = self.reach(&counts[1], &self.pixels);
        (self.counts, self.flashed) = (counts, flashed);
        let worst = transitions.max(red_transitions);
        let warned = worst >= WARN_TRANSITIONS;
        // Ofcom's extended flashing: 80% of the frames of a whole 5 s warned, this one too.
        self.recent.push_back((time, warned));
        while self
            .recent
            .front()
            .is_some_and(|&(t, _)| t <= time - EXTENDED_SECONDS + 1e-6)
        {
            self.recent.pop_front();
        }
        let whole = self
            .first_time
            .is_some_and(|first| time - first + self.frame_duration >= EXTENDED_SECONDS - 1e-6);
        let warnings = self.recent.iter().filter(|(_, w)| *w).count();
        let extended = self.standard == Standard::Ofcom
            && warned
            && whole
            && warnings as f64 >= EXTENDED_SHARE * self.recent.len() as f64;
        let pattern = pattern().unwrap_or_default();
        // A hazardous pattern fails once it has lasted `PERSISTENCE`, from its first frame.
        let since = match pattern.hazardous {
            true => *self.pattern_since.get_or_insert((index, time)),
            false => {
                self.pattern_since = None;
                (index, time)
            }
        };
        let lasted = pattern.hazardous && time + self.frame_duration - since.1 >= PERSISTENCE - 1e-6;
        let failing = [
            transitions >= FAIL_TRANSITIONS,
            red_transitions >= FAIL_TRANSITIONS,
            extended,
            lasted,
        ];
        let worsts = [
            transitions as f64 / 2.0,
            red_transitions as f64 / 2.0,
            worst as f64 / 2.0,
            (pattern.pairs * 10.0).round() / 10.0,
        ];
        for (kind, failed) in failing.into_iter().enumerate() {
            let from = if kind == 3 { since } else { (index, time) };
            self.follow_run(kind, failed, from, index, time, worsts[kind]);
        }
        self.last = Some((index, time));
        let state = match (failing.iter().any(|&f| f), warned || pattern.hazardous) {
            (true, _) => State::Fail,
            (false, true) => State::Warn,
            _ => State::Pass,
        };
        FrameVerdict {
            time,
            flash: flashing[0] as f64 / self.total as f64,
            red_flash: flashing[1] as f64 / self.total as f64,
            flashes: worsts[0],
            red_flashes: worsts[1],
            area,
            red_area,
            extended,
            pattern,
            state,
        }
    }

    /// The most transitions in the last second that more than the area share flashed (0 if
    /// none), and the share that made more than 6; `flashed` each cell's pixels that flashed.
    fn reach(&self, counts: &[usize], flashed: &[u64]) -> (usize, f64) {
        let most = counts.iter().copied().max().unwrap_or(0);
        // The screen's standards: the pixels of the cells that made each count or more.
        let at_least = (self.standard != Standard::Wcag).then(|| {
            let mut at_least = vec![0u64; most.max(FAIL_TRANSITIONS) + 2];
            for (&n, &p) in counts.iter().zip(flashed) {
                at_least[n] += p;
            }
            for k in (0..at_least.len() - 1).rev() {
                at_least[k] += at_least[k + 1];
            }
            at_least
        });
        let share_at = |k: usize| -> f64 {
            match &at_least {
                Some(at_least) => at_least[k] as f64 / self.total as f64,
                None => self.worst_field(counts, flashed, k),
            }
        };
        let reached = (1..=most).rev().find(|&k| share_at(k) > AREA_SHARE).unwrap_or(0);
        (reached, share_at(FAIL_TRANSITIONS))
    }

    /// WCAG: the largest share of any 10° field (a third of the width by a third of the
    /// height, in cells) whose cells made `k` transitions or more.
    fn worst_field(&self, counts: &[usize], flashed: &[u64], k: usize) -> f64 {
        let (columns, rows) = (self.grid.columns as usize, self.grid.rows as usize);
        let (fw, fh) = ((columns / 3).max(1), (rows / 3).max(1));
        let flashing = summed_areas(&self.grid, |i| if counts[i] >= k { flashed[i] } else { 0 });
        let sum = |table: &[u64], c: usize, r: usize| {
            let at = |rr: usize, cc: usize| table[rr * (columns + 1) + cc];
            at(r + fh, c + fw) + at(r, c) - at(r, c + fw) - at(r + fh, c)
        };
        let mut worst = 0.0f64;
        for r in 0..=rows - fh {
            for c in 0..=columns - fw {
                let share = sum(&flashing, c, r) as f64 / sum(&self.all_areas, c, r).max(1) as f64;
                worst = worst.max(share);
            }
        }
        worst
    }

    /// Follows the failing run of `kind`: one that starts here starts at `from` (the frame and
    /// time its hazard began).
    fn follow_run(&mut self, kind: usize, failed: bool, from: (u64, f64), index: u64, time: f64, worst: f64) {
        match (&mut self.open[kind], failed) {
            (Some(run), true) => {
                (run.frames.1, run.end) = (index, time + self.frame_duration);
                run.worst = run.worst.max(worst);
            }
            (None, true) => {
                self.open[kind] = Some(PseFailure {
                    kind: KINDS[kind],
                    start: from.1,
                    end: time + self.frame_duration,
                    frames: (from.0, index),
                    worst,
                })
            }
            (Some(_), false) => self.failures.extend(self.open[kind].take()),
            (None, false) => {}
        }
    }

    /// The number and time of the frame taken last.
    pub fn last_frame(&self) -> Option<(u64, f64)> {
        self.last
    }

    /// Cell `cell`'s transitions in the second up to the frame just taken (general or red,
    /// whichever more).
    pub fn transitions(&self, cell: usize) -> usize {
        let count = |k: usize| self.counts[k].get(cell).copied().unwrap_or(0);
        count(0).max(count(1))
    }

    /// The failing runs going on (as they stand at the frame just taken).
    pub fn open_failures(&self) -> Vec<PseFailure> {
        self.open.iter().flatten().cloned().collect()
    }

    /// The failures that ended since last asked (a live input's, told as they end).
    pub fn take_ended(&mut self) -> Vec<PseFailure> {
        std::mem::take(&mut self.failures)
    }

    /// The stream ended: the summary, with every failure (those already taken are given back
    /// in `taken`).
    pub fn finish(mut self, taken: Vec<PseFailure>) -> Summary {
        let mut failures = taken;
        failures.append(&mut self.failures);
        failures.extend(self.open.iter_mut().filter_map(Option::take));
        failures.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.kind.cmp(b.kind)));
        Summary {
            standard: self.standard,
            frames: self.frames,
            failures,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of 4 cells of 100 pixels each; `lit` of them at `bright` cd/m², the rest at `dark`.
    fn frame(grid: &Grid, levels: &[f64]) -> Vec<crate::pse::light::CellLight> {
        (0..grid.cells())
            .map(|i| {
                // Greys: R = G = B = the luminance.
                let sum = (levels[i] * grid.pixels(i) as f64 * f64::from(UNITS_PER_NIT)).round() as u32;
                [sum, 0, sum, sum, sum]
            })
            .collect()
    }

    fn run(standard: Standard, fps: f64, seconds: f64, level: impl Fn(f64, usize) -> f64) -> Summary {
        let grid = Grid {
            width: 20,
            height: 20,
            columns: 2,
            rows: 2,
        };
        let mut analysis = Analysis::new(standard, false, Primaries::Bt709, grid, 1.0 / fps);
        let frames = (seconds * fps).round() as u64;
        for n in 0..frames {
            let t = n as f64 / fps;
            let levels: Vec<f64> = (0..4).map(|i| level(t, i)).collect();
            let light = FrameLight {
                cells: frame(&grid, &levels),
                blocks: Vec::new(),
            };
            analysis.frame(n, t, &light);
        }
        analysis.finish(Vec::new())
    }

    /// A square wave of `hz` flashes a second between `low` and `high` cd/m².
    fn square(t: f64, hz: f64, low: f64, high: f64) -> f64 {
        if (t * hz * 2.0).floor() as i64 % 2 == 0 {
            low
        } else {
            high
        }
    }

    #[test]
    fn more_than_three_flashes_a_second_fail_and_three_pass() {
        let at = |hz: f64| run(Standard::Bt1702, 50.0, 3.0, move |t, _| square(t, hz, 10.0, 100.0));
        assert!(at(3.0).passed(), "{:?}", at(3.0));
        let four = at(4.0);
        assert!(!four.passed());
        assert_eq!(four.failures[0].kind, "general-flash");
        assert_eq!(four.failures[0].worst, 4.0);
    }

    #[test]
    fn the_step_and_the_dark_limit_decide_a_transition() {
        assert!(!is_change(false, 10.0, 29.0));
        assert!(is_change(false, 10.0, 30.0));
        assert!(is_change(false, 155.0, 175.0));
        assert!(!is_change(false, 165.0, 200.0));
        // HDR above 160: 1/17 Michelson contrast.
        assert!(is_change(true, 170.0, 192.0));
        assert!(!is_change(true, 170.0, 190.0));
    }

    #[test]
    fn a_quarter_of_the_screen_passes_and_more_fails() {
        // One cell of four (25%) flashing passes; two (50%) in opposite phase fail.
        let one = run(Standard::Bt1702, 25.0, 2.0, |t, i| {
            if i == 0 {
                square(t, 5.0, 10.0, 100.0)
            } else {
                10.0
            }
        });
        assert!(one.passed());
        let halves = run(Standard::Bt1702, 25.0, 2.0, |t, i| match i {
            0 => square(t, 5.0, 10.0, 100.0),
            1 => square(t, 5.0, 100.0, 10.0),
            _ => 10.0,
        });
        assert!(!halves.passed());
    }

    #[test]
    fn ofcom_fails_extended_flashing_that_bt1702_lets_pass() {
        // 2.5 flashes a second (5 transitions) for 6 s: a warning every frame.
        let steady = |t: f64, _| square(t, 2.5, 10.0, 100.0);
        assert!(run(Standard::Bt1702, 25.0, 6.0, steady).passed());
        let ofcom = run(Standard::Ofcom, 25.0, 6.0, steady);
        assert_eq!(ofcom.failures.len(), 1, "{ofcom:?}");
        assert_eq!(ofcom.failures[0].kind, "extended");
    }
}
