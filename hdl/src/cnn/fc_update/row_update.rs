//! RowUpdate: the weight update of one row of `cnn_fc_update` (issue 16,
//! `edgelearn_verif::cnn::fc_update::update_value`):
//! `w' = sat8(w + ((-e x + r) >>> (12 + lr_shift)))`, `r` the rounding offset.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: pipeline empty, `w_out` 0 |
//! | `valid` | in | 1 | a row is taken at this edge |
//! | `e` | in | 14 | its error `e_o` (two's complement, Q1.12) |
//! | `x` | in | 9 | its input (two's complement; 128 for a bias) |
//! | `w` | in | 8 | its weight (two's complement) |
//! | `lr_shift` | in | 3 | learning-rate shift |
//! | `stochastic` | in | 1 | 1: offset from `rnd`; 0: round half up |
//! | `rnd` | in | 16 | the row's 16 random bits, one cycle after the row (an `Lfsr<16>` stepped by `valid` presents them then) |
//! | `w_out` | out | 8 | the updated weight (holds between rows) |
//! | `w_valid` | out | 1 | `w_out` is the row taken two edges before |
//!
//! Two registers: the row (stage 1), then the new weight. Stage 2 computes, with
//! `s = 12 + lr_shift`, `g = e x` ([`MulSigned`] 14 x 9 into 24 bits, exact),
//! `r = (rsel << lr_shift) >> 4` where `rsel = stochastic ? rnd : 2^15` (equal to the golden
//! `stochastic_offset(rnd, s)`, and to `2^(s-1)` for `rsel = 2^15`), `t = r - g`,
//! [`AsrFloor`] by `s`, plus the sign-extended weight, [`Saturate`] to 8 bits (two's
//! complement). Latency 2 (D-CYCLE count), one row per cycle. 24 bits hold every
//! intermediate: |g| <= 2^20 for any 9-bit x, r < 2^19.
//! Golden: `edgelearn_verif::cnn::fc_update::update_value`. Tests: `tests/cnn_fc_update.rs`.

use crate::arith::asr::AsrFloor;
use crate::arith::mul::MulSigned;
use crate::arith::sat::Saturate;
use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// Fraction bits of the error (`ERR_FRAC`): the base shift.
pub const ERR_FRAC: u64 = 12;

/// One-row weight update, two registers.
#[derive(Clone, Debug, LogicBlock)]
pub struct RowUpdate {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Take a row.
    pub valid: Signal<In, Bit>,
    /// Error, Q1.12.
    pub e: Signal<In, Bits<14>>,
    /// Input.
    pub x: Signal<In, Bits<9>>,
    /// Weight.
    pub w: Signal<In, Bits<8>>,
    /// Learning-rate shift.
    pub lr_shift: Signal<In, Bits<3>>,
    /// Stochastic rounding.
    pub stochastic: Signal<In, Bit>,
    /// Random bits of the row in stage 2.
    pub rnd: Signal<In, Bits<16>>,
    /// Updated weight.
    pub w_out: Signal<Out, Bits<8>>,
    /// `w_out` is new.
    pub w_valid: Signal<Out, Bit>,
    e_s1: DFF<Bits<14>>,
    x_s1: DFF<Bits<9>>,
    w_s1: DFF<Bits<8>>,
    lr_s1: DFF<Bits<3>>,
    st_s1: DFF<Bit>,
    valid_s1: DFF<Bit>,
    w_q: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    mul: MulSigned<14, 9, 24>,
    asr: AsrFloor<24, 5>,
    w_ext: SignExtend<8, 24>,
    sat: Saturate<24, 8>,
    rsel: Signal<Local, Bits<16>>,
    rsel24: Signal<Local, Bits<24>>,
    offset: Signal<Local, Bits<24>>,
    t: Signal<Local, Bits<24>>,
    shift: Signal<Local, Bits<5>>,
    sum: Signal<Local, Bits<24>>,
    half: Constant<Bits<16>>,
    base_shift: Constant<Bits<5>>,
}

impl Default for RowUpdate {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            e: Default::default(),
            x: Default::default(),
            w: Default::default(),
            lr_shift: Default::default(),
            stochastic: Default::default(),
            rnd: Default::default(),
            w_out: Default::default(),
            w_valid: Default::default(),
            e_s1: Default::default(),
            x_s1: Default::default(),
            w_s1: Default::default(),
            lr_s1: Default::default(),
            st_s1: Default::default(),
            valid_s1: Default::default(),
            w_q: Default::default(),
            valid_q: Default::default(),
            mul: Default::default(),
            asr: Default::default(),
            w_ext: Default::default(),
            sat: Saturate::twos_complement(),
            rsel: Default::default(),
            rsel24: Default::default(),
            offset: Default::default(),
            t: Default::default(),
            shift: Default::default(),
            sum: Default::default(),
            half: Constant::new(Bits::<16>::from(1u64 << 15)),
            base_shift: Constant::new(Bits::<5>::from(ERR_FRAC)),
        }
    }
}

impl Logic for RowUpdate {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e_s1, x_s1, w_s1, lr_s1, st_s1, valid_s1, w_q, valid_q);
        // Stage 1: the row.
        self.e_s1.d.next = self.e.val();
        self.x_s1.d.next = self.x.val();
        self.w_s1.d.next = self.w.val();
        self.lr_s1.d.next = self.lr_shift.val();
        self.st_s1.d.next = self.stochastic.val();
        self.valid_s1.d.next = self.valid.val();
        // Stage 2: g = e x, t = r - g, w + (t >>> s), saturated.
        self.mul.a.next = self.e_s1.q.val();
        self.mul.b.next = self.x_s1.q.val();
        self.rsel.next = self.half.val();
        if self.st_s1.q.val() {
            self.rsel.next = self.rnd.val();
        }
        self.rsel24.next = bit_cast::<24, 16>(self.rsel.val());
        self.offset.next = (self.rsel24.val() << self.lr_s1.q.val()) >> 4;
        self.t.next = self.offset.val() - self.mul.p.val();
        self.shift.next = bit_cast::<5, 3>(self.lr_s1.q.val()) + self.base_shift.val();
        self.asr.data_in.next = self.t.val();
        self.asr.shift.next = self.shift.val();
        self.w_ext.data_in.next = self.w_s1.q.val();
        self.sum.next = self.w_ext.data_out.val() + self.asr.data_out.val();
        self.sat.data_in.next = self.sum.val();
        if self.valid_s1.q.val() {
            self.w_q.d.next = self.sat.data_out.val();
        }
        self.valid_q.d.next = self.valid_s1.q.val();
        if self.reset.val() {
            self.valid_s1.d.next = false;
            self.valid_q.d.next = false;
            self.w_q.d.next = 0.into();
        }
        self.w_out.next = self.w_q.q.val();
        self.w_valid.next = self.valid_q.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_update_is_synthesizable() {
        crate::synth_check::assert_synthesizable("row_update", RowUpdate::default());
    }
}
