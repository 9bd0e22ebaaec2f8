//! MmGroup: the FC core's forward matmul behind its simulation gate (lel-platform.md §4.2;
//! thesis §4.1.1): the L-lane MAC matmul with its two quantizers, fed only in LS_INF
//! (operand isolation: outside it the matmul sees zeros, not the weight update's and READ's
//! reads; only INF rows make results, so nothing else changes), and the [`SimGate`] that
//! lets the in-process Verilator model skip it outside LS_INF (docs/decisions.md
//! D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: accumulators, pipeline and outputs clear |
//! | `en` | in | 1 | the state is LS_INF |
//! | `valid` | in | 1 | a read word is at stage 2: a row (in LS_INF) |
//! | `act` | in | 8 | the row's activation (int8), shared by the lanes |
//! | `weight` | in | 6L (24) | the row's L int6 weights, lane 0 in bits [5:0] |
//! | `alpha_fc` | in | 3 | the next FC core's scale |
//! | `alpha_lc` | in | 3 | the local classifier's scale |
//! | `output_to_fc` | out | 8L (32) | a finished burst's outputs for the next core (uint8 lanes) |
//! | `output_to_lc` | out | 8L (32) | the same scaled for the local classifier |
//! | `relu_mask` | out | L | `acc > 0` per lane |
//! | `valid_out` | out | 1 | one-cycle pulse: the outputs above hold a finished burst |
//!
//! Golden: `edgelearn_verif::golden::mm_group`. Tests: `tests/mm_group.rs`.

use super::matmul::MatMul;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// The thesis FC core's group: 4 lanes.
pub type LelMmGroup = MmGroup<4, 24, 32, 96>;

/// The matmul of L lanes (`WW = 6L`, `SW = 8L`, `AW = 24L`) with its gate.
#[derive(Clone, Debug, LogicBlock)]
pub struct MmGroup<const L: usize, const WW: usize, const SW: usize, const AW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// LS_INF.
    pub en: Signal<In, Bit>,
    /// A row.
    pub valid: Signal<In, Bit>,
    /// Its activation.
    pub act: Signal<In, Bits<8>>,
    /// Its weights.
    pub weight: Signal<In, Bits<WW>>,
    /// The next core's scale.
    pub alpha_fc: Signal<In, Bits<3>>,
    /// The local classifier's scale.
    pub alpha_lc: Signal<In, Bits<3>>,
    /// Outputs for the next core.
    pub output_to_fc: Signal<Out, Bits<SW>>,
    /// Outputs for the local classifier.
    pub output_to_lc: Signal<Out, Bits<SW>>,
    /// ReLU mask.
    pub relu_mask: Signal<Out, Bits<L>>,
    /// A burst's result.
    pub valid_out: Signal<Out, Bit>,
    matmul: MatMul<L, 8, 6, 8, 24, WW, SW, AW>,
    gate: SimGate<WW, 17, 1, 1>,
}

impl<const L: usize, const WW: usize, const SW: usize, const AW: usize> Default
    for MmGroup<L, WW, SW, AW>
{
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && WW == 6 * L && SW == 8 * L && AW == 24 * L,
            "MmGroup<{L}, {WW}, {SW}, {AW}>: need L a power of two <= 16, WW = 6L, SW = 8L, AW = 24L"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            valid: Default::default(),
            act: Default::default(),
            weight: Default::default(),
            alpha_fc: Default::default(),
            alpha_lc: Default::default(),
            output_to_fc: Default::default(),
            output_to_lc: Default::default(),
            relu_mask: Default::default(),
            valid_out: Default::default(),
            matmul: Default::default(),
            gate: SimGate::new(&["matmul"]),
        }
    }
}

impl<const L: usize, const WW: usize, const SW: usize, const AW: usize> Logic
    for MmGroup<L, WW, SW, AW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, matmul, gate);
        self.matmul.reset.next = self.reset.val();
        self.matmul.data_in.next = 0.into();
        self.matmul.weight.next = 0.into();
        if self.en.val() {
            self.matmul.data_in.next = self.act.val();
            self.matmul.weight.next = self.weight.val();
        }
        self.matmul.instr.next = self.en.val();
        self.matmul.valid_in.next = self.valid.val() & self.en.val();
        self.matmul.alpha_fc.next = self.alpha_fc.val();
        self.matmul.alpha_lc.next = self.alpha_lc.val();
        self.output_to_fc.next = self.matmul.output_to_fc.val();
        self.output_to_lc.next = self.matmul.output_to_lc.val();
        self.relu_mask.next = self.matmul.relu_mask.val();
        self.valid_out.next = self.matmul.valid_out.val();
        // The gate (D-SIM-GATE): every input of the matmul.
        self.gate.busy.next = self.matmul.instr.val() & self.matmul.valid_in.val();
        self.gate.w0.next = self.matmul.weight.val();
        self.gate.w1.next = bit_cast::<17, 8>(self.matmul.data_in.val())
            | (bit_cast::<17, 3>(self.matmul.alpha_fc.val()) << 8)
            | (bit_cast::<17, 3>(self.matmul.alpha_lc.val()) << 11)
            | (bit_cast::<17, 1>(self.matmul.instr.val().into()) << 14)
            | (bit_cast::<17, 1>(self.matmul.valid_in.val().into()) << 15)
            | (bit_cast::<17, 1>(self.reset.val().into()) << 16);
        self.gate.w2.next = false.into();
        self.gate.w3.next = false.into();
    }
}

crate::dut_io! {
    impl[const L: usize, const WW: usize, const SW: usize, const AW: usize] MmGroup<L, WW, SW, AW> {
        clock: yes,
        inputs: [reset, en, valid, act, weight, alpha_fc, alpha_lc],
        outputs: [output_to_fc, output_to_lc, relu_mask, valid_out],
        notes: [
            act: (true, 1), weight: (true, L), output_to_fc: (true, L), output_to_lc: (true, L),
            relu_mask: (false, L),
        ],
    }
}
