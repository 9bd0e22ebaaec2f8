//! TreeAdderConv: the tree adder in the convolution role (thesis §4.1.4, T:974-985; spec
//! lel-platform.md §3.4, §2.4 "Conv core"): one 3x3 window per cycle,
//! `data_out = max(0, sat_sym(floor(Σ_i data_in_i * weight_i / 2^(5 + alpha_conv)), 8))`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the pipeline |
//! | `data_in` | in | N x 8 (10 x 8) | signed pixels: 9 window pixels, the tenth lane zero (thesis `input`) |
//! | `weight` | in | N x 6 (10 x 6) | signed kernel weights: 9, the tenth lane zero |
//! | `alpha_conv` | in | 3 | scale field: the shift is `5 + alpha_conv` (thesis α_Conv) |
//! | `instr` | in | 1 | enable: a row is taken when `instr & valid_in` |
//! | `valid_in` | in | 1 | row valid |
//! | `data_out` | out | 8 | quantized ReLU output (thesis `output`) |
//! | `valid_out` | out | 1 | `data_out` holds a row's result |
//!
//! The ReLU mask of the LC role is tied to 1 inside (T:983), so there is no `relu_mask`
//! port. All N lanes are summed; the conv core drives the tenth with zeros. `alpha_conv`
//! travels with its row. Timing as [`TreeAdder`](super::tree_adder::TreeAdder): six
//! registers, N rows give valid_in rise to valid_out fall = N + 6 cycles. ReLU after the
//! quantization is spec DECISION §7-4.
//! Golden: `edgelearn_verif::golden::tree_adder::tree_adder_conv`. Tests: `tests/tree_adder.rs`.

use super::dot_tree::DotTree;
use super::quant_relu::QuantRelu;
use rust_hdl::prelude::*;

/// The thesis conv-role tree adder: 10 lanes (9 used).
pub type LelTreeAdderConv = TreeAdderConv<10, 80, 60>;

/// N-lane conv-role tree adder; `DT = N*8`, `WT = N*6`.
#[derive(Clone, Debug, LogicBlock)]
pub struct TreeAdderConv<const N: usize, const DT: usize, const WT: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed pixels.
    pub data_in: Signal<In, Bits<DT>>,
    /// Packed signed kernel weights.
    pub weight: Signal<In, Bits<WT>>,
    /// Scale field.
    pub alpha_conv: Signal<In, Bits<3>>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Row valid.
    pub valid_in: Signal<In, Bit>,
    /// Quantized ReLU output.
    pub data_out: Signal<Out, Bits<8>>,
    /// Result valid.
    pub valid_out: Signal<Out, Bit>,
    dot: DotTree<N, 8, 6, 18, DT, WT>,
    alpha_s: [DFF<Bits<3>>; 5],
    quant: QuantRelu<18, 8>,
    out_q: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    one: Constant<Bit>,
}

impl<const N: usize, const DT: usize, const WT: usize> Default for TreeAdderConv<N, DT, WT> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data_in: Default::default(),
            weight: Default::default(),
            alpha_conv: Default::default(),
            instr: Default::default(),
            valid_in: Default::default(),
            data_out: Default::default(),
            valid_out: Default::default(),
            dot: Default::default(),
            alpha_s: array_init::array_init(|_| Default::default()),
            quant: QuantRelu::new(5),
            out_q: Default::default(),
            valid_q: Default::default(),
            one: Constant::new(true),
        }
    }
}

impl<const N: usize, const DT: usize, const WT: usize> Logic for TreeAdderConv<N, DT, WT> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_q, valid_q);
        self.dot.clock.next = self.clock.val();
        self.dot.reset.next = self.reset.val();
        self.dot.data.next = self.data_in.val();
        self.dot.weight.next = self.weight.val();
        self.dot.gate.next = self.one.val();
        self.dot.take.next = self.instr.val() & self.valid_in.val();
        for i in 0..5 {
            self.alpha_s[i].clock.next = self.clock.val();
        }
        self.alpha_s[0].d.next = self.alpha_conv.val();
        for i in 1..5 {
            self.alpha_s[i].d.next = self.alpha_s[i - 1].q.val();
        }
        self.quant.acc.next = self.dot.sum.val();
        self.quant.alpha.next = self.alpha_s[4].q.val();
        self.out_q.d.next = self.quant.data_out.val();
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
    impl[const N: usize, const DT: usize, const WT: usize] TreeAdderConv<N, DT, WT> {
        clock: yes,
        inputs: [reset, data_in, weight, alpha_conv, instr, valid_in],
        outputs: [data_out, valid_out],
        notes: [data_in: (true, N), weight: (true, N), data_out: (true, 1)],
    }
}
