//! CnnFcUpdate: on-chip training of a fully connected last layer with softmax
//! cross-entropy, batch 1, in integers (issue 16, item 3; docs/decisions.md D-FT-FIXED): the
//! error vector `e = softmax(acc) - onehot(label)` in Q1.12 from the layer's 32-bit outputs,
//! then the weight update `w' = sat8(w + ((-e_o x + r) >>> (12 + lr_shift)))` one row per
//! cycle, `r` half-up or stochastic from an `Lfsr<16>`. The arithmetic is
//! `edgelearn_verif::cnn::fc_update` bit for bit.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: idle, error vector 0, `err_ready` and `w_valid` low, `w_out` 0, LFSR state 1 and its bits 0 |
//! | `seed` | in | 17 | LFSR seed (0 loads 1) |
//! | `seed_load` | in | 1 | load `seed` at this edge (wins over a row's LFSR step) |
//! | `acc_valid` | in | 1 | one logit beat; taken while idle or collecting, ignored during the error phase |
//! | `acc_in` | in | 32 | the layer's output `acc_o` (two's complement), o = 0, 1, .. OUTS-1 in beat order |
//! | `label` | in | 4 | target class, sampled with the last beat (a label >= OUTS matches no output) |
//! | `logit_shift` | in | 5 | sampled with the last beat |
//! | `busy` | out | 1 | from the first beat until the error vector is complete |
//! | `err_ready` | out | 1 | the error vector is valid (until the next beat or reset); rows are taken only then |
//! | `err_idx` | in | 4 | read index |
//! | `err_out` | out | 14 | `e[err_idx]` (two's complement, Q1.12; 0 for an index >= OUTS), a combinational read |
//! | `row_valid` | in | 1 | one update row; taken when `err_ready` |
//! | `row_out` | in | 4 | the row's output o (selects `e_o`; an index >= OUTS gives e = 0) |
//! | `row_w` | in | 8 | weight or bias (two's complement) |
//! | `row_x` | in | 9 | input (two's complement; 128 for a bias) |
//! | `lr_shift` | in | 3 | learning rate `2^-lr_shift` |
//! | `stochastic` | in | 1 | 1: stochastic rounding, 0: round half up |
//! | `w_out` | out | 8 | the updated weight (holds between rows) |
//! | `w_valid` | out | 1 | `w_out` is the row taken two edges before |
//!
//! Error phase: the beats are shifted into OUTS 32-bit registers while a running signed
//! maximum is kept ([`MaxSigned`]). After the last beat, OUTS cycles of exponentials
//! ([`SoftmaxExp`], its [`Pow2Rom`](pow2_rom::Pow2Rom)), one per output, replacing each value by `E_o` and
//! summing `S`; 16 cycles of restoring division `R = floor(2^30 / S)` ([`RecipDiv`]); OUTS
//! cycles of `p_o = (E_o R) >> 15` (16 x 16 unsigned, a named 32-bit product) and
//! `e_o = (p_o >> 3) - (o == label ? 4096 : 0)` into `e[o]`. **Latency:** the last beat
//! presented in cycle c gives `err_ready` after edge `c + 2 OUTS + 16`, i.e.
//! `2 OUTS + 17` cycles in the D-CYCLE count (37 for OUTS = 10); `e[o]` is written at edge
//! `c + OUTS + 17 + o`. **Rows** ([`RowUpdate`]): a row taken at edge c (`row_valid` and
//! `err_ready`) steps the LFSR 16 bits at that edge, and its weight is on `w_out`, with
//! `w_valid`, after edge c + 1: latency 2, one row per cycle. So the k-th row after a seed
//! uses the k-th 16 bits of the serial sequence, `update_layer`'s order; a `seed_load` in
//! the same edge as a row leaves that row the previous bits. A whole layer of O outputs and
//! N inputs (O beats, the error phase, O (N + 1) rows back to back) takes
//! `3 O + 17 + O (N + 1)` cycles from the first beat to the last weight: 1,977 for 10 x 192
//! (`edgelearn_verif::golden::cnn_fc_update::layer_cycles`).
//! Parameters: 2 <= OUTS <= 16.
//! Golden: `edgelearn_verif::golden::cnn_fc_update` (cycle model over
//! `edgelearn_verif::cnn::fc_update`). Tests: `tests/cnn_fc_update.rs`; docs/blocks/cnn_fc_update.md.

pub mod pow2_rom;
pub mod recip_div;
pub mod row_update;
pub mod softmax_exp;

use crate::arith::max::MaxSigned;
use crate::lel::lfsr::Lfsr;
pub use pow2_rom::{pow2_table, POW2_ENTRIES};
use recip_div::{RecipDiv, RECIP_STEPS};
use row_update::RowUpdate;
use rust_hdl::prelude::*;
use softmax_exp::SoftmaxExp;

/// The registered block: 10 outputs.
pub type CnnFcUpdate10 = CnnFcUpdate<10>;

/// Cycles from the last beat's edge to `err_ready`: exponentials, division, probabilities.
pub const fn error_phase_edges(outs: usize) -> usize {
    2 * outs + RECIP_STEPS
}

/// What the block is doing.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum FcPhase {
    /// No beat yet.
    Idle,
    /// Beats arriving.
    Collect,
    /// Exponentials and their sum.
    Exp,
    /// The division.
    Div,
    /// Probabilities and errors.
    Prob,
}

/// Softmax error and weight update of an OUTS-output fully connected layer.
#[derive(Clone, Debug, LogicBlock)]
pub struct CnnFcUpdate<const OUTS: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// LFSR seed.
    pub seed: Signal<In, Bits<17>>,
    /// Load the seed.
    pub seed_load: Signal<In, Bit>,
    /// One logit beat.
    pub acc_valid: Signal<In, Bit>,
    /// The logit.
    pub acc_in: Signal<In, Bits<32>>,
    /// Target class.
    pub label: Signal<In, Bits<4>>,
    /// Logit shift.
    pub logit_shift: Signal<In, Bits<5>>,
    /// Error phase in progress.
    pub busy: Signal<Out, Bit>,
    /// The error vector is valid.
    pub err_ready: Signal<Out, Bit>,
    /// Error read index.
    pub err_idx: Signal<In, Bits<4>>,
    /// `e[err_idx]`.
    pub err_out: Signal<Out, Bits<14>>,
    /// One update row.
    pub row_valid: Signal<In, Bit>,
    /// The row's output index.
    pub row_out: Signal<In, Bits<4>>,
    /// Weight in.
    pub row_w: Signal<In, Bits<8>>,
    /// Input x.
    pub row_x: Signal<In, Bits<9>>,
    /// Learning-rate shift.
    pub lr_shift: Signal<In, Bits<3>>,
    /// Stochastic rounding.
    pub stochastic: Signal<In, Bit>,
    /// Updated weight.
    pub w_out: Signal<Out, Bits<8>>,
    /// `w_out` is new.
    pub w_valid: Signal<Out, Bit>,
    lfsr: Lfsr<16>,
    run_max: MaxSigned<32>,
    softmax: SoftmaxExp,
    div: RecipDiv,
    row: RowUpdate,
    phase: DFF<FcPhase>,
    cnt: DFF<Bits<4>>,
    max_q: DFF<Bits<32>>,
    sum: DFF<Bits<20>>,
    label_q: DFF<Bits<4>>,
    shift_q: DFF<Bits<5>>,
    ready: DFF<Bit>,
    acc: [DFF<Bits<32>>; OUTS],
    err: [DFF<Bits<14>>; OUTS],
    collecting: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    e_row: Signal<Local, Bits<14>>,
    prob: Signal<Local, Bits<32>>,
    p_q12: Signal<Local, Bits<13>>,
    e_new: Signal<Local, Bits<14>>,
    idx: [Constant<Bits<4>>; OUTS],
    last_o: Constant<Bits<4>>,
    last_step: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    err_one: Constant<Bits<14>>,
}

impl<const OUTS: usize> Default for CnnFcUpdate<OUTS> {
    fn default() -> Self {
        assert!(
            (2..=16).contains(&OUTS),
            "CnnFcUpdate<{OUTS}>: OUTS must be in 2..=16 (4-bit output index)"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            seed: Default::default(),
            seed_load: Default::default(),
            acc_valid: Default::default(),
            acc_in: Default::default(),
            label: Default::default(),
            logit_shift: Default::default(),
            busy: Default::default(),
            err_ready: Default::default(),
            err_idx: Default::default(),
            err_out: Default::default(),
            row_valid: Default::default(),
            row_out: Default::default(),
            row_w: Default::default(),
            row_x: Default::default(),
            lr_shift: Default::default(),
            stochastic: Default::default(),
            w_out: Default::default(),
            w_valid: Default::default(),
            lfsr: Default::default(),
            run_max: Default::default(),
            softmax: Default::default(),
            div: Default::default(),
            row: Default::default(),
            phase: Default::default(),
            cnt: Default::default(),
            max_q: Default::default(),
            sum: Default::default(),
            label_q: Default::default(),
            shift_q: Default::default(),
            ready: Default::default(),
            acc: array_init::array_init(|_| Default::default()),
            err: array_init::array_init(|_| Default::default()),
            collecting: Default::default(),
            accept: Default::default(),
            e_row: Default::default(),
            prob: Default::default(),
            p_q12: Default::default(),
            e_new: Default::default(),
            idx: array_init::array_init(|o| Constant::new(Bits::<4>::from(o as u64))),
            last_o: Constant::new(Bits::<4>::from((OUTS - 1) as u64)),
            last_step: Constant::new(Bits::<4>::from((RECIP_STEPS - 1) as u64)),
            one4: Constant::new(Bits::<4>::from(1u64)),
            err_one: Constant::new(Bits::<14>::from(1u64 << 12)),
        }
    }
}

impl<const OUTS: usize> Logic for CnnFcUpdate<OUTS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, cnt, max_q, sum, label_q, shift_q, ready);
        for o in 0..OUTS {
            self.acc[o].clock.next = self.clock.val();
            self.acc[o].d.next = self.acc[o].q.val();
            self.err[o].clock.next = self.clock.val();
            self.err[o].d.next = self.err[o].q.val();
        }
        // Rows: e_o from the register file, 16 LFSR bits per row taken.
        self.accept.next = self.row_valid.val() & self.ready.q.val();
        self.lfsr.clock.next = self.clock.val();
        self.lfsr.reset.next = self.reset.val();
        self.lfsr.seed.next = self.seed.val();
        self.lfsr.prog.next = self.seed_load.val();
        self.lfsr.instr.next = self.accept.val();
        self.e_row.next = 0.into();
        self.err_out.next = 0.into();
        for o in 0..OUTS {
            if self.row_out.val() == self.idx[o].val() {
                self.e_row.next = self.err[o].q.val();
            }
            if self.err_idx.val() == self.idx[o].val() {
                self.err_out.next = self.err[o].q.val();
            }
        }
        self.row.clock.next = self.clock.val();
        self.row.reset.next = self.reset.val();
        self.row.valid.next = self.accept.val();
        self.row.e.next = self.e_row.val();
        self.row.x.next = self.row_x.val();
        self.row.w.next = self.row_w.val();
        self.row.lr_shift.next = self.lr_shift.val();
        self.row.stochastic.next = self.stochastic.val();
        self.row.rnd.next = self.lfsr.out.val();
        // Error phase datapath: acc[0] is the value in turn.
        self.run_max.a.next = self.max_q.q.val();
        self.run_max.b.next = self.acc_in.val();
        self.softmax.max.next = self.max_q.q.val();
        self.softmax.acc.next = self.acc[0].q.val();
        self.softmax.shift.next = self.shift_q.q.val();
        self.div.clock.next = self.clock.val();
        self.div.load.next = false;
        self.div.step.next = false;
        self.div.divisor.next = self.sum.q.val();
        self.prob.next = self.acc[0].q.val().get_bits::<16>(0) * self.div.quotient.val();
        self.p_q12.next = self.prob.val().get_bits::<13>(18);
        self.e_new.next = bit_cast::<14, 13>(self.p_q12.val());
        if self.cnt.q.val() == self.label_q.q.val() {
            self.e_new.next = bit_cast::<14, 13>(self.p_q12.val()) - self.err_one.val();
        }
        self.collecting.next = false;
        self.busy.next = true;
        match self.phase.q.val() {
            FcPhase::Idle => {
                self.collecting.next = true;
                self.busy.next = false;
            }
            FcPhase::Collect => {
                self.collecting.next = true;
            }
            FcPhase::Exp => {
                for k in 0..(OUTS - 1) {
                    self.acc[k].d.next = self.acc[k + 1].q.val();
                }
                for k in (OUTS - 1)..OUTS {
                    self.acc[k].d.next = bit_cast::<32, 16>(self.softmax.exp.val());
                }
                self.sum.d.next = self.sum.q.val() + bit_cast::<20, 16>(self.softmax.exp.val());
                self.cnt.d.next = self.cnt.q.val() + self.one4.val();
                if self.cnt.q.val() == self.last_o.val() {
                    self.cnt.d.next = 0.into();
                    self.div.load.next = true;
                    self.phase.d.next = FcPhase::Div;
                }
            }
            FcPhase::Div => {
                self.div.step.next = true;
                self.cnt.d.next = self.cnt.q.val() + self.one4.val();
                if self.cnt.q.val() == self.last_step.val() {
                    self.cnt.d.next = 0.into();
                    self.phase.d.next = FcPhase::Prob;
                }
            }
            FcPhase::Prob => {
                for k in 0..(OUTS - 1) {
                    self.acc[k].d.next = self.acc[k + 1].q.val();
                }
                for k in (OUTS - 1)..OUTS {
                    self.acc[k].d.next = self.acc[0].q.val();
                }
                for o in 0..OUTS {
                    if self.cnt.q.val() == self.idx[o].val() {
                        self.err[o].d.next = self.e_new.val();
                    }
                }
                self.cnt.d.next = self.cnt.q.val() + self.one4.val();
                if self.cnt.q.val() == self.last_o.val() {
                    self.cnt.d.next = 0.into();
                    self.ready.d.next = true;
                    self.phase.d.next = FcPhase::Idle;
                }
            }
            _ => {
                self.phase.d.next = FcPhase::Idle;
            }
        }
        // Beats: shifted in at acc[OUTS-1], the running maximum, the last one starts Exp.
        if self.collecting.val() & self.acc_valid.val() {
            for k in 0..(OUTS - 1) {
                self.acc[k].d.next = self.acc[k + 1].q.val();
            }
            for k in (OUTS - 1)..OUTS {
                self.acc[k].d.next = self.acc_in.val();
            }
            self.max_q.d.next = self.run_max.data_out.val();
            if !self.cnt.q.val().any() {
                self.max_q.d.next = self.acc_in.val();
            }
            self.ready.d.next = false;
            self.cnt.d.next = self.cnt.q.val() + self.one4.val();
            self.phase.d.next = FcPhase::Collect;
            if self.cnt.q.val() == self.last_o.val() {
                self.cnt.d.next = 0.into();
                self.label_q.d.next = self.label.val();
                self.shift_q.d.next = self.logit_shift.val();
                self.sum.d.next = 0.into();
                self.phase.d.next = FcPhase::Exp;
            }
        }
        if self.reset.val() {
            self.phase.d.next = FcPhase::Idle;
            self.cnt.d.next = 0.into();
            self.ready.d.next = false;
            for o in 0..OUTS {
                self.err[o].d.next = 0.into();
            }
        }
        self.err_ready.next = self.ready.q.val();
        self.w_out.next = self.row.w_out.val();
        self.w_valid.next = self.row.w_valid.val();
    }
}

crate::dut_io! {
    impl[const OUTS: usize] CnnFcUpdate<OUTS> {
        clock: yes,
        inputs: [
            reset, seed, seed_load, acc_valid, acc_in, label, logit_shift, err_idx,
            row_valid, row_out, row_w, row_x, lr_shift, stochastic,
        ],
        outputs: [busy, err_ready, err_out, w_out, w_valid],
        notes: [
            acc_in: (true, 1), err_out: (true, 1), row_w: (true, 1), row_x: (true, 1),
            w_out: (true, 1),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fc_update_is_synthesizable() {
        crate::synth_check::assert_synthesizable("cnn_fc_update", CnnFcUpdate10::default());
    }

    #[test]
    fn error_phase_is_36_edges_for_10_outputs() {
        assert_eq!(error_phase_edges(10), 36);
    }
}
