//! LcWeights: the fixed random weights of a local classifier, generated on the fly (spec
//! lel-platform.md §7-14, docs/decisions.md D-LFSR-USE): an unfolded LFSR of `C x 6` bits
//! per step, one step per LC input neuron, each 6-bit slice read as two's complement with
//! the most negative value (-32) replaced by -31 (the symmetric range of eq 3.1). The FC
//! core reseeds it at the start of LS_INF and of LS_BK, so forward and backward passes see
//! the same matrix and no LC weight memory is needed.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high (the LFSR loads state 1) |
//! | `seed` | in | 17 | LFSR seed, loaded by `prog` |
//! | `prog` | in | 1 | load `seed` (priority over `step`) |
//! | `step` | in | 1 | present the next neuron's weights at this edge |
//! | `weights` | out | C x 6 (10 x 6) | `B[n][o]` for o = 0..C-1, lane o at bits [6o+5 : 6o] |
//!
//! Latency 1 (the LFSR's): a `step` at edge c shows the next row after edge c.
//! Golden: `edgelearn_verif::lel::lfsr_stream::lc_weights`. Tests: `tests/fc_core.rs`.

use super::lfsr::Lfsr;
use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use rust_hdl::prelude::*;

/// Ten classes of 6-bit weights (the thesis's `lel_lfsr60`).
pub type LelLcWeights = LcWeights<10, 60>;

/// C-class LC weight generator; `BW = 6 C`.
#[derive(Clone, Debug, LogicBlock)]
pub struct LcWeights<const C: usize, const BW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Seed.
    pub seed: Signal<In, Bits<17>>,
    /// Load the seed.
    pub prog: Signal<In, Bit>,
    /// Next row.
    pub step: Signal<In, Bit>,
    /// Packed signed weights of the current row.
    pub weights: Signal<Out, Bits<BW>>,
    lfsr: Lfsr<BW>,
    split: LaneSplit<6, C, BW>,
    fixed: [Signal<Local, Bits<6>>; C],
    row_join: LaneJoin<6, C, BW>,
    most_negative: Constant<Bits<6>>,
    next_negative: Constant<Bits<6>>,
}

impl<const C: usize, const BW: usize> Default for LcWeights<C, BW> {
    fn default() -> Self {
        assert!(
            (2..=16).contains(&C) && BW == 6 * C && BW <= 64,
            "LcWeights<{C}, {BW}>: need 2 <= C, BW = 6 C <= 64"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            seed: Default::default(),
            prog: Default::default(),
            step: Default::default(),
            weights: Default::default(),
            lfsr: Default::default(),
            split: Default::default(),
            fixed: array_init::array_init(|_| Default::default()),
            row_join: Default::default(),
            most_negative: Constant::new(Bits::<6>::from(0x20u64)),
            next_negative: Constant::new(Bits::<6>::from(0x21u64)),
        }
    }
}

impl<const C: usize, const BW: usize> Logic for LcWeights<C, BW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.lfsr.clock.next = self.clock.val();
        self.lfsr.reset.next = self.reset.val();
        self.lfsr.seed.next = self.seed.val();
        self.lfsr.prog.next = self.prog.val();
        self.lfsr.instr.next = self.step.val();
        self.split.word.next = self.lfsr.out.val();
        for o in 0..C {
            self.fixed[o].next = self.split.lanes[o].val();
            if self.split.lanes[o].val() == self.most_negative.val() {
                self.fixed[o].next = self.next_negative.val();
            }
            self.row_join.lanes[o].next = self.fixed[o].val();
        }
        self.weights.next = self.row_join.word.val();
    }
}

crate::dut_io! {
    impl[const C: usize, const BW: usize] LcWeights<C, BW> {
        clock: yes,
        inputs: [reset, seed, prog, step],
        outputs: [weights],
        notes: [weights: (true, C)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lc_weights_is_synthesizable() {
        crate::synth_check::assert_synthesizable("lc_weights", LelLcWeights::default());
    }
}
