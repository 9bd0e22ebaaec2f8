//! MulUnsigned: unsigned N x M multiply (N, M <= 16) with a P-bit product.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | N | unsigned operand |
//! | `b` | in | M | unsigned operand |
//! | `p` | out | P | `a * b` modulo 2^P (exact when P >= N + M) |
//!
//! Combinational. Both operands are zero-extended to 16 bits and multiplied into a named
//! 32-bit signal (`Bits<16> * Bits<16>`, rust-hdl's only multiply, pitfall P2). The CNN
//! engine's address arithmetic uses it modulo 2^16 (only the low bits of a data-memory word
//! address matter).
//! Golden: `edgelearn_verif::golden::arith::mul_unsigned`. Tests: `tests/arith.rs`.

use rust_hdl::prelude::*;

/// Unsigned multiplier.
#[derive(Clone, Debug, LogicBlock)]
pub struct MulUnsigned<const N: usize, const M: usize, const P: usize> {
    /// Operand, N bits.
    pub a: Signal<In, Bits<N>>,
    /// Operand, M bits.
    pub b: Signal<In, Bits<M>>,
    /// Product modulo 2^P.
    pub p: Signal<Out, Bits<P>>,
    prod: Signal<Local, Bits<32>>,
}

impl<const N: usize, const M: usize, const P: usize> Default for MulUnsigned<N, M, P> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&N) && (1..=16).contains(&M) && (1..=32).contains(&P),
            "MulUnsigned<{N}, {M}, {P}>: need N, M in 1..=16 and P in 1..=32"
        );
        Self {
            a: Default::default(),
            b: Default::default(),
            p: Default::default(),
            prod: Default::default(),
        }
    }
}

impl<const N: usize, const M: usize, const P: usize> Logic for MulUnsigned<N, M, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.prod.next = bit_cast::<16, N>(self.a.val()) * bit_cast::<16, M>(self.b.val());
        self.p.next = bit_cast::<P, 32>(self.prod.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_u_is_synthesizable() {
        crate::synth_check::assert_synthesizable("mul_u", MulUnsigned::<10, 6, 16>::default());
    }
}
