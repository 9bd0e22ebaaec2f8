//! SoftmaxExp: one exponential of `cnn_fc_update`'s base-2 softmax (issue 16, steps 1-4 of
//! `edgelearn_verif::cnn::fc_update`): `E = 2^15 e^(acc - max)` in integers.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `max` | in | 32 | the largest logit `m` (two's complement) |
//! | `acc` | in | 32 | this logit `acc_o <= m` (two's complement) |
//! | `shift` | in | 5 | `logit_shift` |
//! | `exp` | out | 16 | `E_o` (unsigned, 0 ..= 32768) |
//!
//! Combinational: `d = m - acc` (mod 2^32 this is the exact unsigned gap, 0 ..= 2^32 - 1),
//! `q = min(d >> shift, 4095)`, `u = (q * 369) >> 8` (a 16 x 16 unsigned product in a named
//! 32-bit signal), `E = POW2[u & 255] >> (u >> 8)` ([`Pow2Rom`], which holds the shift too). Unsigned only: no signed
//! localparam, no `$signed` (rust-hdl pitfalls P3, P8).
//! Golden: `edgelearn_verif::cnn::fc_update::softmax_trace` (`exp`). Tests: `tests/cnn_fc_update.rs`.

use super::pow2_rom::Pow2Rom;
use rust_hdl::prelude::*;

/// Largest logit gap in Q.8 (`GAP_MAX`).
pub const GAP_MAX: u64 = 4095;
/// `log2 e` in Q.8.
pub const LOG2E_Q8: u64 = 369;

/// `2^15 e^(acc - max)` through the POW2 table.
#[derive(Clone, Debug, LogicBlock)]
pub struct SoftmaxExp {
    /// The largest logit.
    pub max: Signal<In, Bits<32>>,
    /// This logit.
    pub acc: Signal<In, Bits<32>>,
    /// Logit shift.
    pub shift: Signal<In, Bits<5>>,
    /// `E`.
    pub exp: Signal<Out, Bits<16>>,
    rom: Pow2Rom,
    diff: Signal<Local, Bits<32>>,
    gap: Signal<Local, Bits<32>>,
    q: Signal<Local, Bits<16>>,
    prod: Signal<Local, Bits<32>>,
    gap_max32: Constant<Bits<32>>,
    gap_max16: Constant<Bits<16>>,
    log2e: Constant<Bits<16>>,
}

impl Default for SoftmaxExp {
    fn default() -> Self {
        Self {
            max: Default::default(),
            acc: Default::default(),
            shift: Default::default(),
            exp: Default::default(),
            rom: Default::default(),
            diff: Default::default(),
            gap: Default::default(),
            q: Default::default(),
            prod: Default::default(),
            gap_max32: Constant::new(Bits::<32>::from(GAP_MAX)),
            gap_max16: Constant::new(Bits::<16>::from(GAP_MAX)),
            log2e: Constant::new(Bits::<16>::from(LOG2E_Q8)),
        }
    }
}

impl Logic for SoftmaxExp {
    #[hdl_gen]
    fn update(&mut self) {
        self.diff.next = self.max.val() - self.acc.val();
        self.gap.next = self.diff.val() >> self.shift.val();
        self.q.next = self.gap.val().get_bits::<16>(0);
        if self.gap.val() > self.gap_max32.val() {
            self.q.next = self.gap_max16.val();
        }
        self.prod.next = self.q.val() * self.log2e.val();
        self.rom.u.next = self.prod.val().get_bits::<13>(8);
        self.exp.next = self.rom.exp.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_exp_is_synthesizable() {
        crate::synth_check::assert_synthesizable("softmax_exp", SoftmaxExp::default());
    }
}
