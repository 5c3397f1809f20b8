//! The VMAF pass's totals: where each kernel's partial sums go, the 41 totals `collect` makes
//! of them (each run of partials, or of row sums rounded and shifted as libvmaf does), and the
//! sums read back from them.

use super::super::adm::{AdmSums, ScaleConstants};
use super::super::vif::InformationSums;
use super::params::{self, Total};

/// The totals read back: VIF's 4 x 4, ADM's numerators and denominators (4 scales x 3
/// orientations each), the motion SAD.
pub(super) const TOTALS: usize = 41;
const ADM_NUMERATORS: usize = 16;
const ADM_DENOMINATORS: usize = 28;
const MOTION: usize = 40;

/// One frame pair's sums, as the CPU twin forms them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VmafSums {
    pub vif: [InformationSums; 4],
    pub adm: AdmSums,
    /// Against the previous reference (meaningless for the first frame of a run).
    pub sad: u64,
}

/// Where the partial sums go and what `collect` adds up.
pub(super) struct Layout {
    pub wanted: Vec<Total>,
    /// VIF's first partial per scale, in fours.
    pub vif_offsets: [u32; 4],
    /// ADM's first row sums per scale, in sixes.
    pub row_offsets: [u32; 4],
    pub motion_offset: u32,
    /// How many 64-bit partials there are.
    pub partials: u32,
}

/// The layout for VIF's workgroups per scale, ADM's scales and motion's workgroups.
pub(super) fn layout(vif_groups: &[[u32; 2]], adm_constants: &[ScaleConstants], motion_groups: [u32; 2]) -> Layout {
    let mut wanted = Vec::with_capacity(TOTALS);
    let mut next = 0u32;
    let mut vif_offsets = [0u32; 4];
    for s in 0..4 {
        vif_offsets[s] = next / 4;
        let count = vif_groups[s][0] * vif_groups[s][1];
        wanted.extend((0..4).map(|k| Total::plain(next + k, count, 4)));
        next += 4 * count;
    }
    let mut row_offsets = [0u32; 4];
    let mut adm_totals = [Vec::new(), Vec::new()];
    next = next.div_ceil(6) * 6;
    for (s, c) in adm_constants.iter().enumerate() {
        row_offsets[s] = next / 6;
        let rows = (c.scored[3] - c.scored[1]) as u32;
        for (side, (round, shift)) in params::row_shifts(c).into_iter().enumerate() {
            for b in 0..3 {
                adm_totals[side].push(Total {
                    round,
                    shift,
                    unsigned: side as u32,
                    ..Total::plain(next + 3 * side as u32 + b, rows, 6)
                });
            }
        }
        next += 6 * rows;
    }
    wanted.extend(adm_totals.concat());
    let motion_offset = next;
    wanted.push(Total::plain(next, motion_groups[0] * motion_groups[1], 1));
    next += motion_groups[0] * motion_groups[1];
    debug_assert_eq!(wanted.len(), TOTALS);
    Layout {
        wanted,
        vif_offsets,
        row_offsets,
        motion_offset,
        partials: next,
    }
}

/// The sums as read back from `totals` (the first `totals_size` bytes).
pub(super) fn read(bytes: &[u8]) -> VmafSums {
    let t: Vec<i64> = bytes[..8 * TOTALS]
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    VmafSums {
        vif: std::array::from_fn(|s| InformationSums {
            numerator_log: t[4 * s],
            denominator_log: t[4 * s + 1],
            flat_variance: t[4 * s + 2],
            flat_pixels: t[4 * s + 3],
        }),
        adm: AdmSums {
            numerator: std::array::from_fn(|s| std::array::from_fn(|b| t[ADM_NUMERATORS + 3 * s + b])),
            denominator: std::array::from_fn(|s| std::array::from_fn(|b| t[ADM_DENOMINATORS + 3 * s + b] as u64)),
        },
        sad: t[MOTION] as u64,
    }
}
