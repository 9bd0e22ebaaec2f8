//! MulSigned: signed N x M multiply (N, M <= 16) with a P-bit two's-complement product.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | N | two's-complement operand |
//! | `b` | in | M | two's-complement operand |
//! | `p` | out | P | `a * b` modulo 2^P (exact when P >= N + M) |
//!
//! Combinational. rust-hdl only multiplies 16 x 16 (pitfall P2) and `$signed()` loses
//! width inside expressions (P3), so both operands are explicitly sign-extended to 16 bits
//! by [`SignExtend`] sub-blocks, multiplied unsigned into a named 32-bit signal, and the
//! two's-complement correction `- 2^16 (a<0 ? b : 0) - 2^16 (b<0 ? a : 0)` is subtracted
//! (mod 2^32). The correction is a multiple of 2^16, so for P <= 16 it is left out (a
//! constant condition the simulators and synthesis fold away). Bits-only; no
//! `signed_bit_cast` (P1).
//! Golden: `edgelearn_verif::golden::arith::mul_signed`. Tests: `tests/arith.rs`.

use super::sext::SignExtend;
use rust_hdl::prelude::*;

/// Signed multiplier.
#[derive(Clone, Debug, LogicBlock)]
pub struct MulSigned<const N: usize, const M: usize, const P: usize> {
    /// Two's-complement operand, N bits.
    pub a: Signal<In, Bits<N>>,
    /// Two's-complement operand, M bits.
    pub b: Signal<In, Bits<M>>,
    /// Product, P bits.
    pub p: Signal<Out, Bits<P>>,
    a_ext: SignExtend<N, 16>,
    b_ext: SignExtend<M, 16>,
    prod: Signal<Local, Bits<32>>,
    corr_a: Signal<Local, Bits<32>>,
    corr_b: Signal<Local, Bits<32>>,
    full: Signal<Local, Bits<32>>,
    sign16: Constant<Bits<16>>,
    corrected: Constant<Bit>,
}

impl<const N: usize, const M: usize, const P: usize> Default for MulSigned<N, M, P> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&N) && (1..=16).contains(&M) && (1..=32).contains(&P),
            "MulSigned<{N}, {M}, {P}>: need N, M in 1..=16 and P in 1..=32"
        );
        Self {
            a: Default::default(),
            b: Default::default(),
            p: Default::default(),
            a_ext: Default::default(),
            b_ext: Default::default(),
            prod: Default::default(),
            corr_a: Default::default(),
            corr_b: Default::default(),
            full: Default::default(),
            sign16: Constant::new(Bits::<16>::from(0x8000u64)),
            corrected: Constant::new(P > 16),
        }
    }
}

impl<const N: usize, const M: usize, const P: usize> Logic for MulSigned<N, M, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a_ext.data_in.next = self.a.val();
        self.b_ext.data_in.next = self.b.val();
        self.prod.next = self.a_ext.data_out.val() * self.b_ext.data_out.val();
        self.corr_a.next = 0.into();
        self.corr_b.next = 0.into();
        self.full.next = self.prod.val();
        if self.corrected.val() {
            if (self.a_ext.data_out.val() & self.sign16.val()).any() {
                self.corr_a.next = bit_cast::<32, 16>(self.b_ext.data_out.val()) << 16;
            }
            if (self.b_ext.data_out.val() & self.sign16.val()).any() {
                self.corr_b.next = bit_cast::<32, 16>(self.a_ext.data_out.val()) << 16;
            }
            self.full.next = self.prod.val() - self.corr_a.val() - self.corr_b.val();
        }
        self.p.next = bit_cast::<P, 32>(self.full.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_is_synthesizable() {
        crate::synth_check::assert_synthesizable("mul", MulSigned::<8, 6, 14>::default());
    }
}
