//! DotTree: the pipelined multiply and adder tree inside the thesis's tree adder
//! (thesis §4.1.3, Fig 4.4): `sum = Σ_i data_i * weight_i` over N lanes, one row per cycle.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the valid pipeline |
//! | `data` | in | N x DW | signed values, lane i at bits [DW(i+1)-1 : DW i] |
//! | `weight` | in | N x WW | signed weights |
//! | `gate` | in | 1 | 0 disables the multipliers (products are zero): the ReLU mask |
//! | `take` | in | 1 | the row is valid |
//! | `sum` | out | S | the row's dot product, two's complement |
//! | `valid` | out | 1 | `sum` holds a valid row |
//!
//! Five registers: the products (MUL), then a 16 -> 8 -> 4 -> 2 -> 1 adder tree (lanes N..16
//! are zero, so any N in 2..=16 has the depth of the thesis's 10 -> 5 -> 3 -> 2 -> 1). The
//! row driven before edge k is on `sum` after edge k+4. S must hold N products of DW+WW
//! bits: S >= DW + WW + 4 covers 16 lanes.
//! Golden: `edgelearn_verif::golden::tree_adder`. Tests: `tests/tree_adder.rs`.

use crate::arith::lane_split::LaneSplit;
use crate::arith::mul::MulSigned;
use rust_hdl::prelude::*;

/// Pipelined N-lane dot product.
#[derive(Clone, Debug, LogicBlock)]
pub struct DotTree<
    const N: usize,
    const DW: usize,
    const WW: usize,
    const S: usize,
    const DT: usize,
    const WT: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed data lanes.
    pub data: Signal<In, Bits<DT>>,
    /// Packed signed weight lanes.
    pub weight: Signal<In, Bits<WT>>,
    /// Multiplier enable.
    pub gate: Signal<In, Bit>,
    /// Row valid.
    pub take: Signal<In, Bit>,
    /// Dot product.
    pub sum: Signal<Out, Bits<S>>,
    /// `sum` valid.
    pub valid: Signal<Out, Bit>,
    data_split: LaneSplit<DW, N, DT>,
    weight_split: LaneSplit<WW, N, WT>,
    mul: [MulSigned<DW, WW, S>; N],
    prod_s1: [DFF<Bits<S>>; 16],
    sum_s2: [DFF<Bits<S>>; 8],
    sum_s3: [DFF<Bits<S>>; 4],
    sum_s4: [DFF<Bits<S>>; 2],
    sum_s5: DFF<Bits<S>>,
    valid_s: [DFF<Bit>; 5],
}

impl<
        const N: usize,
        const DW: usize,
        const WW: usize,
        const S: usize,
        const DT: usize,
        const WT: usize,
    > Default for DotTree<N, DW, WW, S, DT, WT>
{
    fn default() -> Self {
        assert!(
            (2..=16).contains(&N) && DT == N * DW && WT == N * WW && S >= DW + WW + 4 && S <= 32,
            "DotTree<{N}, {DW}, {WW}, {S}, {DT}, {WT}>: need 2 <= N <= 16, DT = N*DW, WT = N*WW, \
             DW + WW + 4 <= S <= 32"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data: Default::default(),
            weight: Default::default(),
            gate: Default::default(),
            take: Default::default(),
            sum: Default::default(),
            valid: Default::default(),
            data_split: Default::default(),
            weight_split: Default::default(),
            mul: array_init::array_init(|_| Default::default()),
            prod_s1: array_init::array_init(|_| Default::default()),
            sum_s2: array_init::array_init(|_| Default::default()),
            sum_s3: array_init::array_init(|_| Default::default()),
            sum_s4: array_init::array_init(|_| Default::default()),
            sum_s5: Default::default(),
            valid_s: array_init::array_init(|_| Default::default()),
        }
    }
}

impl<
        const N: usize,
        const DW: usize,
        const WW: usize,
        const S: usize,
        const DT: usize,
        const WT: usize,
    > Logic for DotTree<N, DW, WW, S, DT, WT>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sum_s5);
        self.data_split.word.next = self.data.val();
        self.weight_split.word.next = self.weight.val();
        for i in 0..16 {
            self.prod_s1[i].clock.next = self.clock.val();
            self.prod_s1[i].d.next = 0.into();
        }
        for i in 0..N {
            self.mul[i].a.next = self.data_split.lanes[i].val();
            self.mul[i].b.next = self.weight_split.lanes[i].val();
            if self.gate.val() {
                self.prod_s1[i].d.next = self.mul[i].p.val();
            }
        }
        for i in 0..8 {
            self.sum_s2[i].clock.next = self.clock.val();
            self.sum_s2[i].d.next = self.prod_s1[2 * i].q.val() + self.prod_s1[2 * i + 1].q.val();
        }
        for i in 0..4 {
            self.sum_s3[i].clock.next = self.clock.val();
            self.sum_s3[i].d.next = self.sum_s2[2 * i].q.val() + self.sum_s2[2 * i + 1].q.val();
        }
        for i in 0..2 {
            self.sum_s4[i].clock.next = self.clock.val();
            self.sum_s4[i].d.next = self.sum_s3[2 * i].q.val() + self.sum_s3[2 * i + 1].q.val();
        }
        self.sum_s5.d.next = self.sum_s4[0].q.val() + self.sum_s4[1].q.val();
        for i in 0..5 {
            self.valid_s[i].clock.next = self.clock.val();
        }
        self.valid_s[0].d.next = self.take.val();
        for i in 1..5 {
            self.valid_s[i].d.next = self.valid_s[i - 1].q.val();
        }
        if self.reset.val() {
            for i in 0..5 {
                self.valid_s[i].d.next = false;
            }
        }
        self.sum.next = self.sum_s5.q.val();
        self.valid.next = self.valid_s[4].q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_tree_is_synthesizable() {
        crate::synth_check::assert_synthesizable(
            "dot_tree",
            DotTree::<10, 8, 6, 18, 80, 60>::default(),
        );
    }
}
