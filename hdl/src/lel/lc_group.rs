//! LcGroup: the FC core's local classifier, forward, behind its simulation gate
//! (lel-platform.md §4.2, §7-14; thesis §4.1.2): the LC weights generated on the fly
//! ([`LcWeights`], stepped a row at a time in LS_INF and LS_BK), the LC forward that sums
//! the LC rows in LS_INF, the registers that keep its result for the loss and the
//! classification, and the [`SimGate`] that lets the in-process Verilator model skip them
//! outside those phases (docs/decisions.md D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: pipelines clear, `lc` 0, the LFSR loads state 1 |
//! | `en` | in | 1 | the state is LS_INF: rows are summed, a result is kept |
//! | `run` | in | 1 | the LC rows run (after INF's last pass): a finished sum is the result |
//! | `valid` | in | 1 | an LC row |
//! | `data` | in | 8 | its input (int8) |
//! | `step` | in | 1 | the next row's weights at this edge |
//! | `seed` | in | 17 | the weights' LFSR seed, loaded by `prog` |
//! | `prog` | in | 1 | load `seed` (priority over `step`) |
//! | `weights` | out | 6C (60) | the current row's C int6 weights (for the backward pass too) |
//! | `lc` | out | 23C (230) | the last image's C sums, Q12 |
//! | `lc_valid` | out | 1 | one-cycle pulse: `lc` was just written |
//! | `done` | out | 1 | a sum is finished while `run` (the core's LC phase ends) |
//!
//! Golden: `edgelearn_verif::golden::lc_group`. Tests: `tests/lc_group.rs`.

use super::lc_forward::LcForward;
use super::lc_weights::LcWeights;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// The thesis FC core's group: 10 classes.
pub type LelLcGroup = LcGroup<10, 60, 230>;

/// The local classifier of C classes (`BW = 6C`, `CW = 23C`) with its gate.
#[derive(Clone, Debug, LogicBlock)]
pub struct LcGroup<const C: usize, const BW: usize, const CW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// LS_INF.
    pub en: Signal<In, Bit>,
    /// The LC rows run.
    pub run: Signal<In, Bit>,
    /// An LC row.
    pub valid: Signal<In, Bit>,
    /// Its input.
    pub data: Signal<In, Bits<8>>,
    /// Step the weights.
    pub step: Signal<In, Bit>,
    /// The weights' seed.
    pub seed: Signal<In, Bits<17>>,
    /// Load the seed.
    pub prog: Signal<In, Bit>,
    /// The current row's weights.
    pub weights: Signal<Out, Bits<BW>>,
    /// The last image's sums.
    pub lc: Signal<Out, Bits<CW>>,
    /// `lc` was just written.
    pub lc_valid: Signal<Out, Bit>,
    /// A sum finished while `run`.
    pub done: Signal<Out, Bit>,
    lcw: LcWeights<C, BW>,
    lcf: LcForward<C, 23, BW, CW>,
    lc_q: DFF<Bits<CW>>,
    lc_valid_q: DFF<Bit>,
    gate: SimGate<32, 1, 1, 1>,
}

impl<const C: usize, const BW: usize, const CW: usize> Default for LcGroup<C, BW, CW> {
    fn default() -> Self {
        assert!(
            (2..=16).contains(&C) && BW == 6 * C && CW == 23 * C,
            "LcGroup<{C}, {BW}, {CW}>: need 2 <= C <= 16, BW = 6C, CW = 23C"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            run: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            step: Default::default(),
            seed: Default::default(),
            prog: Default::default(),
            weights: Default::default(),
            lc: Default::default(),
            lc_valid: Default::default(),
            done: Default::default(),
            lcw: Default::default(),
            lcf: Default::default(),
            lc_q: Default::default(),
            lc_valid_q: Default::default(),
            gate: SimGate::new(&["lcw", "lcf", "lc_q", "lc_valid_q"]),
        }
    }
}

impl<const C: usize, const BW: usize, const CW: usize> Logic for LcGroup<C, BW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lc_q, lc_valid_q);
        clock!(self, clock, lcw, lcf, gate);
        self.lcw.reset.next = self.reset.val();
        self.lcf.reset.next = self.reset.val();
        self.lcw.seed.next = self.seed.val();
        self.lcw.prog.next = self.prog.val();
        self.lcw.step.next = self.step.val();
        self.lcf.data_in.next = self.data.val();
        self.lcf.weight.next = self.lcw.weights.val();
        self.lcf.instr.next = self.en.val();
        self.lcf.valid_in.next = self.valid.val() & self.en.val();
        self.lc_valid_q.d.next = false;
        if self.lcf.valid_out.val() & self.run.val() & self.en.val() {
            self.lc_q.d.next = self.lcf.data_out.val();
            self.lc_valid_q.d.next = true;
        }
        if self.reset.val() {
            self.lc_valid_q.d.next = false;
            self.lc_q.d.next = 0.into();
        }
        self.weights.next = self.lcw.weights.val();
        self.lc.next = self.lc_q.q.val();
        self.lc_valid.next = self.lc_valid_q.q.val();
        self.done.next = self.lcf.valid_out.val() & self.run.val();
        // The gate (D-SIM-GATE): the LC forward's weights come from the LC weights, inside
        // the group; so do the result registers, written only when the LC forward ends a
        // burst (or on reset).
        self.gate.busy.next = (self.lcf.instr.val() & self.lcf.valid_in.val())
            | self.lcw.step.val()
            | self.lcw.prog.val();
        self.gate.w0.next = bit_cast::<32, 8>(self.lcf.data_in.val())
            | (bit_cast::<32, 1>(self.lcf.instr.val().into()) << 8)
            | (bit_cast::<32, 1>(self.lcf.valid_in.val().into()) << 9)
            | (bit_cast::<32, 1>(self.reset.val().into()) << 10)
            | (bit_cast::<32, 17>(self.lcw.seed.val()) << 11)
            | (bit_cast::<32, 1>(self.lcw.prog.val().into()) << 28)
            | (bit_cast::<32, 1>(self.lcw.step.val().into()) << 29)
            | (bit_cast::<32, 1>(self.run.val().into()) << 30)
            | (bit_cast::<32, 1>(self.en.val().into()) << 31);
        self.gate.w1.next = false.into();
        self.gate.w2.next = false.into();
        self.gate.w3.next = false.into();
    }
}

crate::dut_io! {
    impl[const C: usize, const BW: usize, const CW: usize] LcGroup<C, BW, CW> {
        clock: yes,
        inputs: [reset, en, run, valid, data, step, seed, prog],
        outputs: [weights, lc, lc_valid, done],
        notes: [data: (true, 1), weights: (true, C), lc: (true, C)],
    }
}
