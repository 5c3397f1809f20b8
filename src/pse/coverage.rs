//! How much of each cell a frame's luminance transitions covered. A cell is followed by its mean
//! light, so a flash that covers part of it moves its mean by that part of the flash's swing:
//! counted whole, a flashing area's edge would be measured to a cell, over where the swing is
//! large (a cell a tenth covered by a 200 cd/m² flash moves by 20) and under where it is near
//! the step (a cell three quarters covered by a 25 cd/m² flash moves by 19). So each
//! transition is weighed against its neighbours': a cell whose neighbours all made one the same
//! way is inside the flash and counts whole; one at the flash's edge counts the share of the
//! largest neighbouring swing its own swing makes; and a cell beside the edge whose light moved
//! the same way, short of the step, counts its share too (its excursion so far). For a flash
//! of one light over a still picture that is the share of the cell it covers; a pattern of
//! flashes of several lights is measured at its edges only.

use super::light::Grid;

/// Weights are in these parts of a whole cell.
pub const WHOLE: u32 = 1024;
/// A cell beside a transition whose light moved less than this share of it made none.
const LEAST_SHARE: f64 = 0.1;

/// One frame's transitions and their weights.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Each cell's signed swing where it made a transition this frame, else 0; the cells that
    /// made one; the cells already looked at beside them.
    swing: Vec<f64>,
    moving: Vec<u32>,
    seen: Vec<bool>,
}

/// What a cell did at this frame: a transition of this signed swing, an excursion so far
/// that has not counted, or nothing to weigh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Moved {
    Transition(f64),
    Excursion(f64),
    Still,
}

impl Coverage {
    /// The weights of the frame's transitions, `moved(i)` each cell's move: `(cell, weight)`
    /// into `out` for each cell that made one, and for each cell beside an edge that counts
    /// as having made one (`Moved::Excursion` with a share of at least a tenth, where
    /// `qualifies(cell, neighbour)`: its light is what a share of the neighbour's flash over a
    /// still picture would make of it).
    pub fn weigh(
        &mut self,
        grid: &Grid,
        moved: impl Fn(usize) -> Moved,
        qualifies: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        out.clear();
        let (columns, rows) = (grid.columns as usize, grid.rows as usize);
        let cells = columns * rows;
        self.swing.clear();
        self.swing.resize(cells, 0.0);
        self.seen.resize(cells, false);
        self.moving.clear();
        for i in 0..cells {
            if let Moved::Transition(swing) = moved(i) {
                self.swing[i] = swing;
                self.moving.push(i as u32);
            }
        }
        let (swing, seen) = (&self.swing, &mut self.seen);
        // A cell's neighbours within the grid (and itself).
        let near = |i: usize| {
            let (c, r) = ((i % columns) as i64, (i / columns) as i64);
            (-1i64..=1)
                .flat_map(move |dr| (-1i64..=1).map(move |dc| (c + dc, r + dr)))
                .filter(|&(nc, nr)| nc >= 0 && nr >= 0 && nc < columns as i64 && nr < rows as i64)
                .map(|(nc, nr)| nr as usize * columns + nc as usize)
        };
        // The largest swing the same way among the cell's neighbours (and its own), and
        // whether every neighbour made one that way.
        // (And which cell that is.)
        let around = |i: usize, sign: f64| -> (f64, bool, usize) {
            near(i).fold((0.0f64, true, i), |(largest, all, at), n| {
                let s = swing[n] * sign;
                match s > 0.0 {
                    true if s > largest => (s, all, n),
                    true => (largest, all, at),
                    false => (largest, all && n == i, at),
                }
            })
        };
        let share = |part: f64, of: f64| ((part / of).min(1.0) * f64::from(WHOLE)).round() as u32;
        for &i in &self.moving {
            let i = i as usize;
            let s = swing[i];
            let (largest, inside, _) = around(i, s.signum());
            let weight = if inside { WHOLE } else { share(s.abs(), largest) };
            out.push((i as u32, weight.max(1)));
        }
        // The cells beside them that moved with them.
        let transitions = out.len();
        for t in 0..transitions {
            for k in near(out[t].0 as usize) {
                if std::mem::replace(&mut seen[k], true) {
                    continue;
                }
                if let Moved::Excursion(e) = moved(k) {
                    let (largest, _, from) = around(k, e.signum());
                    if e != 0.0 && largest > 0.0 && e.abs() >= LEAST_SHARE * largest && qualifies(k, from) {
                        out.push((k as u32, share(e.abs(), largest)));
                    }
                }
            }
        }
        // (`seen` back to all false: only the transitions' neighbours were set.)
        for &i in &self.moving {
            for k in near(i as usize) {
                seen[k] = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flash_counts_its_inside_whole_and_its_edge_by_the_share_it_moved() {
        // 4 x 3 cells: the left two columns flash by 100 cd/m²; the third column is a quarter
        // covered (moved 25: a transition) and the fourth moved 2, under a tenth of that
        // (nothing); a cell of the third column moved only 15 (short of the step: an
        // excursion).
        let grid = Grid {
            width: 40,
            height: 30,
            columns: 4,
            rows: 3,
        };
        let moved = |i: usize| match (i % 4, i / 4) {
            (0 | 1, _) => Moved::Transition(100.0),
            (2, 2) => Moved::Excursion(15.0),
            (2, _) => Moved::Transition(25.0),
            _ => Moved::Excursion(2.0),
        };
        let mut out = Vec::new();
        Coverage::default().weigh(&grid, moved, |_, _| true, &mut out);
        let weight = |c: u32, r: u32| out.iter().find(|(i, _)| *i == r * 4 + c).map(|&(_, w)| w);
        // The first column's neighbours all flashed; the second's have the edge beside them,
        // and count the whole of the largest swing.
        assert_eq!(weight(0, 1), Some(WHOLE));
        assert_eq!(weight(1, 1), Some(WHOLE));
        assert_eq!(weight(2, 0), Some(WHOLE / 4));
        assert_eq!(weight(2, 2), Some(154));
        assert_eq!(weight(3, 1), None);
        // The other way, or nothing beside: nothing.
        let mut out = Vec::new();
        Coverage::default().weigh(
            &grid,
            |i| match i {
                0 => Moved::Transition(100.0),
                1 => Moved::Excursion(-50.0),
                _ => Moved::Excursion(50.0),
            },
            |k, _| k != 5,
            &mut out,
        );
        // (Cell 5's own light would not have made one: a change the standard exempts.)
        assert_eq!(out, [(0, WHOLE), (4, 512)]);
    }
}
