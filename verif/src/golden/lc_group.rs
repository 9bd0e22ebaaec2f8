//! The FC core's local-classifier group (hdl `lel::lc_group::LcGroup`): the LC weights (an
//! unfolded LFSR of 6C bits per row, each 6-bit slice signed with -32 read as -31), the LC
//! forward's burst sums ([`super::lc_forward::LcForward`]) and the result registers, which
//! keep a sum that finishes while `run` in LS_INF. A composition of the blocks' cycle
//! models: the LC forward takes the weights as they stand before the edge, the registers
//! the sum it presented before the edge. Trace convention (docs/decisions.md D-CYCLE):
//! [`LcGroup::step`] is the edge and returns the outputs after it.

use super::lc_forward::{LcForward, LcForwardIn};
use super::lfsr::{Lfsr, LfsrIn};
use crate::lel::lfsr_stream::lc_weight;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct LcGroupIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LS_INF.
    pub en: bool,
    /// The LC rows run.
    pub run: bool,
    /// An LC row.
    pub valid: bool,
    /// Its input (int8).
    pub data: i64,
    /// Step the weights.
    pub step: bool,
    /// The weights' seed.
    pub seed: u32,
    /// Load the seed.
    pub prog: bool,
}

/// The outputs after an edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LcGroupOut {
    /// The current row's weights.
    pub weights: Vec<i64>,
    /// The last image's sums.
    pub lc: Vec<i64>,
    /// `lc` was just written.
    pub lc_valid: bool,
    /// A sum finished while `run`.
    pub done: bool,
}

/// Cycle model of the group of C classes.
#[derive(Clone, Debug)]
pub struct LcGroup {
    classes: usize,
    lfsr: Lfsr,
    bits: u64,
    lcf: LcForward,
    presented: Option<Vec<i64>>,
    lc: Vec<i64>,
    lc_valid: bool,
}

/// The C weights of an LFSR output: 6-bit slices ([`lc_weight`]: signed, -32 read as -31).
pub fn lc_row(bits: u64, classes: usize) -> Vec<i64> {
    (0..classes)
        .map(|o| lc_weight((bits >> (6 * o)) & 63, 6))
        .collect()
}

impl LcGroup {
    /// The group as it powers up.
    pub fn new(classes: usize) -> Self {
        LcGroup {
            classes,
            lfsr: Lfsr::new(6 * classes),
            bits: 0,
            lcf: LcForward::new(classes),
            presented: None,
            lc: vec![0; classes],
            lc_valid: false,
        }
    }

    /// One clock edge: the outputs after it.
    pub fn step(&mut self, i: &LcGroupIn) -> LcGroupOut {
        let keep = self.presented.clone().filter(|_| i.run && i.en);
        self.presented = self.lcf.step(&LcForwardIn {
            reset: i.reset,
            data_in: i.data,
            weight: lc_row(self.bits, self.classes),
            instr: i.en,
            valid_in: i.valid && i.en,
        });
        self.bits = self.lfsr.step(&LfsrIn {
            reset: i.reset,
            seed: i.seed,
            prog: i.prog,
            instr: i.step,
        });
        self.lc_valid = keep.is_some() && !i.reset;
        if i.reset {
            self.lc = vec![0; self.classes];
        } else if let Some(sums) = keep {
            self.lc = sums;
        }
        LcGroupOut {
            weights: lc_row(self.bits, self.classes),
            lc: self.lc.clone(),
            lc_valid: self.lc_valid,
            done: self.presented.is_some() && i.run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lel::lfsr_stream::lc_weights;

    #[test]
    fn the_rows_are_the_lc_weights_and_a_burst_finished_while_run_is_kept() {
        let mut g = LcGroup::new(10);
        g.step(&LcGroupIn {
            reset: true,
            ..Default::default()
        });
        g.step(&LcGroupIn {
            prog: true,
            seed: 0x1ACE,
            ..Default::default()
        });
        let b = lc_weights(0x1ACE, 4, 10, 6);
        let o = g.step(&LcGroupIn {
            step: true,
            ..Default::default()
        });
        assert_eq!(o.weights, b[0]);
        let mut want = vec![0i64; 10];
        // One burst of three rows, each stepping to the next row's weights.
        for (n, x) in [(0, 127i64), (1, -128), (2, 31)] {
            let o = g.step(&LcGroupIn {
                en: true,
                run: true,
                valid: true,
                data: x,
                step: true,
                ..Default::default()
            });
            assert_eq!(o.weights, b[n + 1], "row {}", n + 1);
            for (w, &bw) in want.iter_mut().zip(&b[n]) {
                *w += x * bw;
            }
        }
        let mut kept = None;
        for _ in 0..4 {
            let o = g.step(&LcGroupIn {
                en: true,
                run: true,
                ..Default::default()
            });
            if o.lc_valid {
                kept = Some(o.lc);
            }
        }
        assert_eq!(kept, Some(want));
    }
}
