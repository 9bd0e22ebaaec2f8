//! WuGroup: the FC core's stochastic weight update with its random numbers (lel-platform.md
//! §4.2, §2.4; thesis §4.1.6-4.1.7), behind one simulation gate: the weight update, the
//! unfolded LFSR that feeds it L 14-bit random numbers per word, and the [`SimGate`] that
//! lets the in-process Verilator model skip both outside LS_WU (docs/decisions.md
//! D-SIM-GATE). Operand isolation: outside LS_WU the update sees zeros (its result is
//! written back only in LS_WU).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: the pipeline clears, the LFSR loads state 1 |
//! | `en` | in | 1 | the state is LS_WU |
//! | `v1` | in | 1 | a read word is at stage 1: the LFSR steps (in LS_WU) |
//! | `v2` | in | 1 | a read word is at stage 2: the update takes its row (in LS_WU) |
//! | `seed` | in | 17 | the LFSR's seed, loaded by `prog` |
//! | `prog` | in | 1 | load `seed` |
//! | `weight` | in | 6L (24) | the word's L int6 weights, lane 0 in bits [5:0] |
//! | `act` | in | 8 | its activation (int8), shared by the lanes |
//! | `err` | in | 8L (32) | the pass's L errors (int8 lanes) |
//! | `lr_shift` | in | 3 | right shift of the update probability |
//! | `weight_out` | out | 6L (24) | the updated weights, two cycles after `v2` |
//!
//! Golden: `edgelearn_verif::golden::wu_group`. Tests: `tests/wu_group.rs`.

use super::lfsr::Lfsr;
use super::weight_update::WeightUpdate;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// The thesis FC core's group: 4 lanes.
pub type LelWuGroup = WuGroup<4, 24, 32, 56>;

/// The weight update of L lanes (`WW = 6L`, `SW = 8L`, `RW = 14L`) with its LFSR and gate.
#[derive(Clone, Debug, LogicBlock)]
pub struct WuGroup<const L: usize, const WW: usize, const SW: usize, const RW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// LS_WU.
    pub en: Signal<In, Bit>,
    /// A read word at stage 1.
    pub v1: Signal<In, Bit>,
    /// A read word at stage 2.
    pub v2: Signal<In, Bit>,
    /// The LFSR's seed.
    pub seed: Signal<In, Bits<17>>,
    /// Load the seed.
    pub prog: Signal<In, Bit>,
    /// The word's weights.
    pub weight: Signal<In, Bits<WW>>,
    /// Its activation.
    pub act: Signal<In, Bits<8>>,
    /// The pass's errors.
    pub err: Signal<In, Bits<SW>>,
    /// Learning-rate shift.
    pub lr_shift: Signal<In, Bits<3>>,
    /// The updated weights.
    pub weight_out: Signal<Out, Bits<WW>>,
    wu: WeightUpdate<L, WW, SW, RW>,
    lfsr: Lfsr<RW>,
    gate: SimGate<SW, WW, 32, 1>,
}

impl<const L: usize, const WW: usize, const SW: usize, const RW: usize> Default
    for WuGroup<L, WW, SW, RW>
{
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && WW == 6 * L && SW == 8 * L && RW == 14 * L,
            "WuGroup<{L}, {WW}, {SW}, {RW}>: need L a power of two <= 16, WW = 6L, SW = 8L, RW = 14L"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            seed: Default::default(),
            prog: Default::default(),
            weight: Default::default(),
            act: Default::default(),
            err: Default::default(),
            lr_shift: Default::default(),
            weight_out: Default::default(),
            wu: Default::default(),
            lfsr: Default::default(),
            gate: SimGate::new(&["wu", "lfsr"]),
        }
    }
}

impl<const L: usize, const WW: usize, const SW: usize, const RW: usize> Logic
    for WuGroup<L, WW, SW, RW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, wu, lfsr, gate);
        self.wu.reset.next = self.reset.val();
        self.lfsr.reset.next = self.reset.val();
        self.lfsr.seed.next = self.seed.val();
        self.lfsr.prog.next = self.prog.val();
        self.lfsr.instr.next = self.v1.val() & self.en.val();
        self.wu.weight_in.next = 0.into();
        self.wu.data_in.next = 0.into();
        if self.en.val() {
            self.wu.weight_in.next = self.weight.val();
            self.wu.data_in.next = self.act.val();
        }
        self.wu.err.next = self.err.val();
        self.wu.rnd.next = self.lfsr.out.val();
        self.wu.lr_shift.next = self.lr_shift.val();
        self.wu.instr.next = self.v2.val() & self.en.val();
        self.weight_out.next = self.wu.weight_out.val();
        // The gate (D-SIM-GATE): the update's random numbers come from the LFSR, inside.
        self.gate.busy.next = self.wu.instr.val() | self.lfsr.instr.val() | self.lfsr.prog.val();
        self.gate.w0.next = self.wu.err.val();
        self.gate.w1.next = self.wu.weight_in.val();
        self.gate.w2.next = bit_cast::<32, 8>(self.wu.data_in.val())
            | (bit_cast::<32, 3>(self.wu.lr_shift.val()) << 8)
            | (bit_cast::<32, 1>(self.wu.instr.val().into()) << 11)
            | (bit_cast::<32, 1>(self.reset.val().into()) << 12)
            | (bit_cast::<32, 17>(self.lfsr.seed.val()) << 13)
            | (bit_cast::<32, 1>(self.lfsr.prog.val().into()) << 30)
            | (bit_cast::<32, 1>(self.lfsr.instr.val().into()) << 31);
        self.gate.w3.next = false.into();
    }
}

crate::dut_io! {
    impl[const L: usize, const WW: usize, const SW: usize, const RW: usize] WuGroup<L, WW, SW, RW> {
        clock: yes,
        inputs: [reset, en, v1, v2, seed, prog, weight, act, err, lr_shift],
        outputs: [weight_out],
        notes: [weight: (true, L), act: (true, 1), err: (true, L), weight_out: (true, L)],
    }
}
