//! TreeAdder: the local classifier's backward path (thesis §4.1.3, T:939-972; spec
//! lel-platform.md §3.3): one input neuron's error per cycle,
//! `data_out = relu_mask ? sat_sym(floor(Σ_o error_o * weight_o / 2^5), 8) : 0`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the pipeline |
//! | `error` | in | N x 8 (10 x 8) | signed errors from the loss, lane o at bits [8(o+1)-1 : 8o] |
//! | `weight` | in | N x 6 (10 x 6) | signed LC weights of this input neuron |
//! | `relu_mask` | in | 1 | the neuron's ReLU mask; 0 disables the multipliers (output 0) |
//! | `instr` | in | 1 | enable: a row is taken when `instr & valid_in` |
//! | `valid_in` | in | 1 | row valid |
//! | `data_out` | out | 8 | signed error of the input neuron (thesis `output`) |
//! | `valid_out` | out | 1 | `data_out` holds a row's result |
//!
//! Six registers: products, four adder levels ([`DotTree`]), then shift and saturate. The
//! row driven right after edge k is on `data_out` right after edge k+6, so 480 rows give
//! valid_in rise to valid_out fall = 486 cycles (T:972). The pipeline always advances;
//! `instr` qualifies `valid_in`. The fixed shift 5 is the weights' fraction bits; the tree
//! adder has no alpha in this role (spec §2.4).
//! Golden: `edgelearn_verif::golden::tree_adder`. Tests: `tests/tree_adder.rs`.

use super::dot_tree::DotTree;
use crate::arith::asr::AsrFloor;
use crate::arith::sat::Saturate;
use rust_hdl::prelude::*;

/// The thesis LC-backward tree adder: 10 lanes of 8-bit errors and 6-bit weights.
pub type LelTreeAdder = TreeAdder<10, 80, 60>;

/// N-lane LC-backward tree adder; `ET = N*8`, `WT = N*6`.
#[derive(Clone, Debug, LogicBlock)]
pub struct TreeAdder<const N: usize, const ET: usize, const WT: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed errors.
    pub error: Signal<In, Bits<ET>>,
    /// Packed signed weights.
    pub weight: Signal<In, Bits<WT>>,
    /// ReLU mask of this input neuron.
    pub relu_mask: Signal<In, Bit>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Row valid.
    pub valid_in: Signal<In, Bit>,
    /// Signed result.
    pub data_out: Signal<Out, Bits<8>>,
    /// Result valid.
    pub valid_out: Signal<Out, Bit>,
    dot: DotTree<N, 8, 6, 18, ET, WT>,
    asr: AsrFloor<18, 3>,
    sat: Saturate<18, 8>,
    frac: Constant<Bits<3>>,
    out_q: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
}

impl<const N: usize, const ET: usize, const WT: usize> Default for TreeAdder<N, ET, WT> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            error: Default::default(),
            weight: Default::default(),
            relu_mask: Default::default(),
            instr: Default::default(),
            valid_in: Default::default(),
            data_out: Default::default(),
            valid_out: Default::default(),
            dot: Default::default(),
            asr: Default::default(),
            sat: Saturate::symmetric(),
            frac: Constant::new(Bits::<3>::from(5u64)),
            out_q: Default::default(),
            valid_q: Default::default(),
        }
    }
}

impl<const N: usize, const ET: usize, const WT: usize> Logic for TreeAdder<N, ET, WT> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_q, valid_q);
        self.dot.clock.next = self.clock.val();
        self.dot.reset.next = self.reset.val();
        self.dot.data.next = self.error.val();
        self.dot.weight.next = self.weight.val();
        self.dot.gate.next = self.relu_mask.val();
        self.dot.take.next = self.instr.val() & self.valid_in.val();
        self.asr.data_in.next = self.dot.sum.val();
        self.asr.shift.next = self.frac.val();
        self.sat.data_in.next = self.asr.data_out.val();
        self.out_q.d.next = self.sat.data_out.val();
        self.valid_q.d.next = self.dot.valid.val();
        if self.reset.val() {
            self.out_q.d.next = 0.into();
            self.valid_q.d.next = false;
        }
        self.data_out.next = self.out_q.q.val();
        self.valid_out.next = self.valid_q.q.val();
    }
}

crate::dut_io! {
    impl[const N: usize, const ET: usize, const WT: usize] TreeAdder<N, ET, WT> {
        clock: yes,
        inputs: [reset, error, weight, relu_mask, instr, valid_in],
        outputs: [data_out, valid_out],
        notes: [error: (true, N), weight: (true, N), data_out: (true, 1)],
    }
}
