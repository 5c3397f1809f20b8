//! WCAG 2.2's red flash: "a pair of opposing transitions where one transition is either to or
//! from a state with a value R/(R + G + B) that is greater than or equal to 0.8, and the
//! difference between states is more than 0.2 (unitless) in the CIE 1976 UCS chromaticity
//! diagram" (ISO 9241-391). Each cell's state is its mean linear R, G and B; its chromaticity
//! u′v′ through the primaries' RGB → XYZ matrix as a display shows them (their white adapted to
//! D65, as the luminance the flashes are judged by), a black cell's D65's (it has none of its
//! own).
//! A state counts as saturated red once its red is also at least a 16th of white (the least red
//! the Harding-Binnie measure counts, (R − G − B) × 320 > 20), so that the noise of near-black
//! pixels, whose ratios swing wildly, makes no red flashes.

use super::light::{CellLight, SDR_WHITE, UNITS_PER_NIT};
use std::collections::VecDeque;

/// R / (R + G + B) at or above this is saturated red.
pub const SATURATED: f64 = 0.8;
/// A change of more than this in u′v′ to or from a saturated red is a transition.
pub const CHROMA_STEP: f64 = 0.2;
/// D65's u′v′: the chromaticity of a cell with no light.
const D65_UV: (f64, f64) = (0.197_83, 0.468_32);

/// A cell's state for red flashes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedState {
    pub u: f64,
    pub v: f64,
    pub saturated: bool,
}

impl RedState {
    /// The state of `cell` (of `pixels` pixels), its RGB → XYZ through `matrix`.
    pub fn of(cell: &CellLight, pixels: u64, matrix: &[[f64; 3]; 3]) -> Self {
        let [r, g, b] = [cell[2], cell[3], cell[4]].map(f64::from);
        let sum = r + g + b;
        let red_enough = r / (pixels.max(1) as f64 * f64::from(UNITS_PER_NIT)) >= SDR_WHITE / 16.0;
        let saturated = sum > 0.0 && r / sum >= SATURATED && red_enough;
        let [x, y, z] = matrix.map(|row| row[0] * r + row[1] * g + row[2] * b);
        let d = x + 15.0 * y + 3.0 * z;
        let (u, v) = if d > 0.0 { (4.0 * x / d, 9.0 * y / d) } else { D65_UV };
        Self { u, v, saturated }
    }

    pub fn distance(&self, other: &Self) -> f64 {
        (self.u - other.u).hypot(self.v - other.v)
    }
}

/// One cell's red over time: the state its last transition left (or the first), and the times
/// of its transitions in the last second.
#[derive(Clone, Debug, Default)]
pub struct RedTrack {
    anchor: Option<RedState>,
    pub times: VecDeque<f64>,
}

impl RedTrack {
    /// The state at `time`; whether a transition completed there: a move of more than
    /// `CHROMA_STEP` from the anchor, to or from a saturated red.
    pub fn take(&mut self, state: RedState, time: f64) -> bool {
        while self.times.front().is_some_and(|&t| t <= time - 1.0 + 1e-6) {
            self.times.pop_front();
        }
        match self.anchor {
            Some(anchor) if (anchor.saturated || state.saturated) && anchor.distance(&state) > CHROMA_STEP => {
                self.anchor = Some(state);
                self.times.push_back(time);
                true
            }
            Some(_) => false,
            None => {
                self.anchor = Some(state);
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::primaries::{rgb_to_xyz, Primaries};

    /// A cell of 100 pixels all of linear R, G, B (cd/m²).
    fn cell(rgb: [f64; 3]) -> CellLight {
        let sum = |c: f64| (c * 100.0 * f64::from(UNITS_PER_NIT)) as u32;
        [0, 0, sum(rgb[0]), sum(rgb[1]), sum(rgb[2])]
    }

    #[test]
    fn a_grey_of_any_gamut_is_at_d65_as_the_screen_shows_it() {
        for primaries in [Primaries::DciP3, Primaries::Film, Primaries::Bt470m, Primaries::Bt709] {
            let m = crate::colour::primaries::rgb_to_display_xyz(primaries);
            let grey = RedState::of(&cell([40.0, 40.0, 40.0]), 100, &m);
            let black = RedState::of(&cell([0.0, 0.0, 0.0]), 100, &m);
            assert!(grey.distance(&black) < 1e-4, "{primaries:?}: {grey:?}");
        }
        // Unadapted, DCI-P3's grey lies at its own white, 0.0135 from D65 in u′v′.
        let own = RedState::of(&cell([40.0, 40.0, 40.0]), 100, &rgb_to_xyz(Primaries::DciP3));
        let d65 = RedState {
            u: D65_UV.0,
            v: D65_UV.1,
            saturated: false,
        };
        assert!((own.distance(&d65) - 0.0135).abs() < 0.0005, "{own:?}");
    }

    #[test]
    fn red_to_grey_and_back_is_a_red_flash_and_dim_or_unsaturated_red_is_not() {
        let m = rgb_to_xyz(Primaries::Bt709);
        let red = RedState::of(&cell([200.0, 0.0, 0.0]), 100, &m);
        let grey = RedState::of(&cell([40.0, 40.0, 40.0]), 100, &m);
        assert!(red.saturated && !grey.saturated);
        // sRGB red is at u′v′ (0.451, 0.523); grey at D65's.
        assert!(
            (red.u - 0.4507).abs() < 1e-3 && (red.v - 0.5229).abs() < 1e-3,
            "{red:?}"
        );
        assert!(
            (grey.u - D65_UV.0).abs() < 1e-4 && (grey.v - D65_UV.1).abs() < 1e-4,
            "{grey:?}"
        );
        let mut track = RedTrack::default();
        let took: Vec<bool> = [grey, red, red, grey, red]
            .iter()
            .enumerate()
            .map(|(i, s)| track.take(*s, i as f64 * 0.1))
            .collect();
        assert_eq!(took, [false, true, false, true, true]);
        // Black to red counts (black has D65's chromaticity); red under a 16th of white is no
        // saturated red; orange (R/(R+G+B) < 0.8) to grey is no red flash.
        let black = RedState::of(&cell([0.0, 0.0, 0.0]), 100, &m);
        assert!(black.distance(&red) > CHROMA_STEP);
        assert!(!RedState::of(&cell([10.0, 0.0, 0.0]), 100, &m).saturated);
        let orange = RedState::of(&cell([200.0, 60.0, 0.0]), 100, &m);
        let mut track = RedTrack::default();
        assert!(!track.take(grey, 0.0) && !track.take(orange, 0.1) && !track.take(grey, 0.2));
    }
}
