//! The FC core's weight-update group (hdl `lel::wu_group::WuGroup`): the stochastic weight
//! update fed by its unfolded LFSR, with the core's operand isolation (outside LS_WU the
//! update sees zeros). A composition of the two blocks' cycle models
//! ([`super::weight_update::WeightUpdate`], [`super::lfsr::Lfsr`]): the update takes the
//! LFSR's output as it stands before the edge, lane l's random number in bits
//! [14l + 13 : 14l]. Trace convention (docs/decisions.md D-CYCLE): [`WuGroup::step`] is the
//! edge and returns `weight_out` after it.

use super::lfsr::{Lfsr, LfsrIn};
use super::weight_update::{WeightUpdate, WeightUpdateIn};

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct WuGroupIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LS_WU.
    pub en: bool,
    /// A read word at stage 1: the LFSR steps.
    pub v1: bool,
    /// A read word at stage 2: the update takes its row.
    pub v2: bool,
    /// The LFSR's seed.
    pub seed: u32,
    /// Load the seed.
    pub prog: bool,
    /// The word's weights (int6 lanes).
    pub weight: Vec<i64>,
    /// Its activation (int8).
    pub act: i64,
    /// The pass's errors (int8 lanes).
    pub err: Vec<i64>,
    /// Learning-rate shift.
    pub lr_shift: u32,
}

/// Cycle model of the group of L lanes.
#[derive(Clone, Debug)]
pub struct WuGroup {
    lanes: usize,
    wu: WeightUpdate,
    lfsr: Lfsr,
    rnd: u64,
}

impl WuGroup {
    /// The group as it powers up.
    pub fn new(lanes: usize) -> Self {
        WuGroup {
            lanes,
            wu: WeightUpdate::new(lanes),
            lfsr: Lfsr::new(14 * lanes),
            rnd: 0,
        }
    }

    /// One clock edge: `weight_out` after it.
    pub fn step(&mut self, i: &WuGroupIn) -> Vec<i64> {
        let rnd: Vec<u64> = (0..self.lanes)
            .map(|l| (self.rnd >> (14 * l)) & 0x3fff)
            .collect();
        let out = self.wu.step(&WeightUpdateIn {
            reset: i.reset,
            weight_in: if i.en {
                i.weight.clone()
            } else {
                vec![0; self.lanes]
            },
            data_in: if i.en { i.act } else { 0 },
            err: i.err.clone(),
            lr_shift: i.lr_shift,
            rnd,
            instr: i.v2 && i.en,
        });
        self.rnd = self.lfsr.step(&LfsrIn {
            reset: i.reset,
            seed: i.seed,
            prog: i.prog,
            instr: i.v1 && i.en,
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::lfsr::SerialLfsr;
    use crate::golden::weight_update::weight_update;

    #[test]
    fn a_row_is_updated_with_the_random_numbers_the_lfsr_stepped_one_cycle_before() {
        let mut g = WuGroup::new(4);
        g.step(&WuGroupIn {
            reset: true,
            ..Default::default()
        });
        g.step(&WuGroupIn {
            prog: true,
            seed: 0x1ACE,
            ..Default::default()
        });
        let row = WuGroupIn {
            en: true,
            weight: vec![3, -4, 31, -32],
            act: -77,
            err: vec![120, -5, 31, -128],
            lr_shift: 2,
            ..Default::default()
        };
        g.step(&WuGroupIn {
            v1: true,
            ..row.clone()
        });
        g.step(&WuGroupIn {
            v2: true,
            ..row.clone()
        });
        let out = g.step(&row);
        let mut serial = SerialLfsr::new(0x1ACE);
        let bits = serial.next_bits(56);
        let want: Vec<i64> = (0..4)
            .map(|l| {
                weight_update(
                    row.weight[l],
                    -77,
                    row.err[l],
                    2,
                    (bits >> (14 * l)) & 0x3fff,
                )
            })
            .collect();
        assert_eq!(out, want);
        // Outside LS_WU the update sees zeros: its row passes weight 0 through.
        let mut h = g.clone();
        h.step(&WuGroupIn {
            v2: true,
            ..WuGroupIn {
                en: false,
                ..row.clone()
            }
        });
        assert_eq!(h.step(&WuGroupIn::default()), vec![0; 4]);
    }
}
